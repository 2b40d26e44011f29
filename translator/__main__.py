"""``python -m translator``: the ``tiletrans`` command line."""

from __future__ import annotations

from translator.cli import app

if __name__ == "__main__":
    app()
