"""``python -m translator``: the ``tiletrans`` command line."""

from __future__ import annotations

import sys

from translator.cli import main

if __name__ == "__main__":
    sys.exit(main())
