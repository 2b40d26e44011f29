"""tiletrans: a rule-based, verified source-to-source translator between GPU tile DSLs."""

from __future__ import annotations

__version__ = "0.1.0"
