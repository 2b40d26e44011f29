"""No input gets a traceback: single-edit variants of every example translate or are refused.

Each variant changes one construct of a bundled example (a mask dropped, an axis swapped, a
store made an atomic, a block size renamed, ...). Many variants are no longer valid kernels, and
many compute something else; what is checked here is only the house rule that a translation
either succeeds or stops with the standard diagnostic (a ``TranslationError`` with a location),
never with another exception. Whether successful translations are *right* is what the
equivalence tests check, on the examples themselves.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from translator.api import translate_source
from translator.diagnostics import TranslationError

ROOT = Path(__file__).resolve().parents[1]
PER_PATTERN = 3  # occurrences of each pattern edited per file

TRITON_EDITS = [
    (r"mask=[^,)]+", "mask=None"),
    (r"other=[^,)]+", ""),
    (r"tl\.arange\(0, (\w+)\)", r"tl.arange(1, \1)"),
    (r"\* stride_(\w+)", r"* 2"),
    (r"tl\.program_id\((axis=)?0\)", "tl.program_id(1)"),
    (r"\.to\(tl\.float32\)", ".to(tl.int8)"),
    (r"tl\.sum\(", "tl.max("),
    (r"< (\w+)", r"<= \1"),
    (r"\[:, None\]", "[None, :]"),
    (r"range\(0, ", "range(1, "),
    (r"BLOCK_SIZE_K", "BLOCK_SIZE_N"),
    (r"\+ 1", "- 1"),
    (r"return (\w+)", r"return \1, \1"),
    (r"tl\.dot\(", "tl.dot(1.0 * "),
    (r"\.shape", ".size()"),
    (r"torch\.empty", "torch.zeros"),
    (r"num_warps=\d+", "num_warps=-1"),
    (r"tl\.store\(", "tl.atomic_add("),
    (r"tl\.load\(([^,]+),", r"tl.load(\1 + 1,"),
    (r"tl\.zeros\(", "tl.full(value=1.0, shape="),
    (r"axis=1", "axis=0"),
    (r"axis=0", "axis=1"),
    (r"tl\.exp\(", "tl.log("),
    (r"keep_dims=True", "keep_dims=False"),
    (r"tl\.where\(", "tl.maximum("),
    (r"for (\w+) in range\(", r"for \1 in tl.static_range("),
    (r"\bM\b", "N"),
    (r"triton\.cdiv", "max"),
    (r"\.T\b", ""),
    (r"\[None, :\]", ""),
    (r"(\w+) = tl\.program_id", r"\1 = 2 * tl.program_id"),
]
HELION_EDITS = [
    (r"hl\.tile\(", "hl.grid("),
    (r"\[(\w+), :\]", r"[:, \1]"),
    (r"dim=1", "dim=0"),
    (r"dim=-1", "dim=0"),
    (r"torch\.float32", "torch.int8"),
    (r"torch\.empty", "torch.zeros"),
    (r"block_sizes=\[[^\]]*\]", "block_sizes=[]"),
    (r"torch\.sum\(", "torch.amax("),
    (r"\.to\(", ".view("),
    (r"hl\.zeros\(", "torch.zeros("),
    (r"\+ ", "- "),
    (r"\[tile_(\w+)\]", r"[tile_\1, None]"),
    (r"torch\.addmm\(", "torch.baddbmm("),
    (r"\.size\(\)", ".shape"),
    (r"return (\w+)", r"return \1, \1"),
    (r"out\[", "x["),
    (r"for (\w+) in hl\.tile\((\w+)\)", r"for \1 in hl.tile(\2, block_size=7)"),
    (r"torch\.exp\(", "torch.log("),
    (r"keepdim=True", "keepdim=False"),
    (r"@ ", "* "),
]


def _variants(path: Path, edits: list[tuple[str, str]]) -> list[tuple[str, str]]:
    src = path.read_text()
    out = []
    for pattern, replacement in edits:
        for m in list(re.finditer(pattern, src))[:PER_PATTERN]:
            edited = re.sub(pattern, replacement, m.group(0))
            out.append((f"{pattern} @{m.start()}", src[: m.start()] + edited + src[m.end() :]))
    return out


CASES = [
    (src, path)
    for src, folder, edits in (
        ("triton", ROOT / "examples" / "triton", TRITON_EDITS),
        ("triton", ROOT / "tests" / "data" / "triton_constructs", TRITON_EDITS),
        ("helion", ROOT / "examples" / "helion", HELION_EDITS),
    )
    for path in sorted(folder.glob("*.py"))
]


@pytest.mark.parametrize("src,path", CASES, ids=lambda x: x.stem if isinstance(x, Path) else x)
def test_every_single_edit_variant_translates_or_is_refused(src: str, path: Path) -> None:
    edits = TRITON_EDITS if src == "triton" else HELION_EDITS
    failures = []
    for what, text in _variants(path, edits):
        for dst in ("helion", "triton"):
            try:
                translate_source(text, str(path), src, dst)
            except TranslationError as err:
                if err.loc is None:
                    failures.append(f"{what} -> {dst}: no location for {err.message!r}")
            except Exception as err:  # noqa: BLE001 - the rule under test: nothing else escapes
                failures.append(f"{what} -> {dst}: {type(err).__name__}: {str(err)[:120]}")
    assert not failures, "\n".join(failures)
