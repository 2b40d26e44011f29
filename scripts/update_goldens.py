"""Regenerate the expected translations of every example (run after an intended output change).

    python scripts/update_goldens.py          # rewrite examples/**/expected_<dst>/*.py
    python scripts/update_goldens.py --check  # exit 1 if any golden is stale (what the tests do)

A translation the target refuses has a golden too: ``expected_<dst>/NAME.refused``, the rendered
diagnostic (file:line:col, source line, what is unsupported, what to write instead), so a target
that cannot express an example says why in a file the tests compare like any other golden.

Example folders come from the dialects (each names its bundled examples) plus
``examples/library/<dsl>/`` (library-style modules); a folder's examples are translated into
every dialect that has a backend (library modules into the other dialects only).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from translator.api import translate_file  # noqa: E402
from translator.diagnostics import TranslationError, render  # noqa: E402
from translator.dialects import dialects, target_dialects  # noqa: E402

# Examples tiletrans refuses today (tests assert the diagnostic): (folder, stem) -> targets.
REFUSED: dict[tuple[str, str], set[str]] = {
    # A first-stage reduction whose block the host computes (`next_power_of_2(ceil(sqrt(M)))`)
    # and whose output layout (one partial sum per program) depends on it: a tunable cannot
    # stand in for it, and the IR has no block sizes the launch passes (yet).
    ("examples/library/triton", "reductions"): {"helion"},
    # A grouped GEMM that reaches its groups through a table of addresses
    # (`tl.load(ptrs + g).to(tl.pointer_type(...))`): the IR reaches tensors only through
    # kernel arguments.
    ("examples/library/triton", "grouped_gemm"): {"helion", "cutile"},
}


def example_sets() -> list[tuple[str, Path, list[str]]]:
    """``(source dialect, folder, targets)`` of every example folder."""
    out = []
    for name, dialect in dialects().items():
        if dialect.frontend is None or dialect.examples is None:
            continue
        out.append((name, ROOT / dialect.examples, list(target_dialects())))
        library = ROOT / "examples" / "library" / name
        if library.is_dir():
            # Library modules go into the dialects that have a library corpus of their own
            # (examples/library/<dsl>/): their round trip and CPU equivalence with backward
            # passes are what the library tests check, and a dialect joins by adding its
            # corpus (reading a DSL is not enough: TileLang reads its own kernels, but no
            # library-style TileLang modules exist to round-trip through yet) -- and the dialects
            # whose goldens of the corpus exist already (cuTile's, which the library tests run).
            targets = [
                t
                for t in target_dialects()
                if t != name
                and (
                    (ROOT / "examples" / "library" / t).is_dir()
                    or (library / f"expected_{t}").is_dir()
                )
            ]
            out.append((name, library, targets))
    return out


def cases() -> list[tuple[str, str, Path]]:
    """``(source dialect, target dialect, example)`` of every golden."""
    out = []
    for src, folder, targets in example_sets():
        for example in sorted(folder.glob("*.py")):
            for dst in targets:
                refused = REFUSED.get((str(folder.relative_to(ROOT)), example.stem), set())
                if dst not in refused:
                    out.append((src, dst, example))
    return out


def golden_path(example: Path, dst: str) -> Path:
    """Where the expected ``dst`` translation of ``example`` lives."""
    return example.parent / f"expected_{dst}" / example.name


def refusal_path(example: Path, dst: str) -> Path:
    """Where the expected refusal of translating ``example`` into ``dst`` lives."""
    return example.parent / f"expected_{dst}" / f"{example.stem}.refused"


def expected(src: str, dst: str, example: Path) -> tuple[Path, str]:
    """The golden file of one case and the text it must hold: the translation, or the rendered
    diagnostic where the target refuses (paths repo-relative, so goldens do not depend on cwd)."""
    relative = example.relative_to(ROOT)
    try:
        target = golden_path(example, dst)
        # The header's re-run command writes the golden itself (paths repo-relative).
        output = target.relative_to(ROOT).as_posix()
        return target, translate_file(relative, src, dst, output=output)
    except TranslationError as err:
        return refusal_path(example, dst), str(render(err, example.read_text())) + "\n"


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for src, dst, example in cases():
        target, text = expected(src, dst, example)
        other = refusal_path(example, dst) if target.suffix == ".py" else golden_path(example, dst)
        if check:
            if not target.exists() or target.read_text() != text or other.exists():
                stale.append(target)
        else:
            target.parent.mkdir(exist_ok=True)
            target.write_text(text)
            other.unlink(missing_ok=True)
    for path in stale:
        print(f"stale: {path.relative_to(ROOT)}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
