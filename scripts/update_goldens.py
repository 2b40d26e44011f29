"""Regenerate the expected translations of every example (run after an intended output change).

python scripts/update_goldens.py          # rewrite examples/<src>/expected_<dst>/*.py
python scripts/update_goldens.py --check  # exit 1 if any golden is stale (what the tests do)
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from translator.api import translate_file  # noqa: E402

# (source DSL, target DSL): goldens of examples/<src>/*.py land in examples/<src>/expected_<dst>/.
PAIRS = [("helion", "triton"), ("helion", "helion"), ("triton", "helion"), ("triton", "triton")]

# Examples some backend refuses today (tests assert the diagnostic); no goldens.
REFUSED: dict[str, set[str]] = {}


def examples(src: str) -> list[Path]:
    """The examples of ``src`` that have goldens."""
    refused = REFUSED.get(src, set())
    return [p for p in sorted((ROOT / "examples" / src).glob("*.py")) if p.stem not in refused]


def golden_path(example: Path, dst: str) -> Path:
    """Where the expected ``dst`` translation of ``example`` lives."""
    return example.parent / f"expected_{dst}" / example.name


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for src, dst in PAIRS:
        for example in examples(src):
            # Paths in the provenance header are repo-relative so goldens do not depend on cwd.
            text = translate_file(example.relative_to(ROOT), src, dst)
            target = golden_path(example, dst)
            if check:
                if not target.exists() or target.read_text() != text:
                    stale.append(target)
            else:
                target.parent.mkdir(exist_ok=True)
                target.write_text(text)
    for path in stale:
        print(f"stale: {path.relative_to(ROOT)}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
