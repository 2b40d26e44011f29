"""No input gets a traceback: single-edit variants of every example translate or are refused.

Each variant changes one construct of a bundled example (a mask dropped, an axis swapped, a
store made an atomic, a block size renamed, ...). Many variants are no longer valid kernels, and
many compute something else; what is checked here is only the house rule that a translation
either succeeds or stops with the standard diagnostic (a ``TranslationError`` with a location),
never with another exception. Whether successful translations are *right* is what the
equivalence tests check, on the examples themselves. The library corpus (examples/library/**)
gets the same edits and a few of its own constructs' (autograd Functions, layout changes, autotune
keys), sampled. Every variant also goes into cuTile or TileLang (alternately).
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


# Constructs the library corpus uses beyond the examples (examples/library/**): autograd
# Functions, host layout changes, dtype promotion, autotune keys, atomics.
LIBRARY_TRITON_EDITS = [
    (r"tl\.atomic_add\(", "tl.atomic_max("),
    (r"\.to\(tl\.int64\)", ".to(tl.int16)"),
    (r"tl\.cdiv\(", "max("),
    (r"key=\[[^\]]*\]", "key=[]"),
    (r"triton\.Config\(\{", "triton.Config({'EXTRA': 1, "),
    (r"\.contiguous\(\)", ""),
    (r"ctx\.save_for_backward\(", "ctx.save_for_backward(None, "),
]
LIBRARY_HELION_EDITS = [
    (r"@helion\.kernel\(\)", "@helion.kernel(config=helion.Config(block_sizes=[1]))"),
    (r"\.size\(-1\)", ".size(-2)"),
    (r"torch\.amax\(", "torch.argmax("),
    (r"\.reshape\(", ".view("),
    (r"hl\.tile\(\[(\w+), (\w+)\]\)", r"hl.tile([\2, \1])"),
    (r"static_shapes=True", "static_shapes=False"),
    (r"torch\.promote_types\(", "torch.result_type("),
]
# The library's variants are sampled to keep the suite within CI's budget (205 variants, about
# 25 s of CPU): the first occurrence of each pattern in each module, the library's own edits in
# every module and the examples' in every other module where they occur, translated only to the
# other DSL (the direction a library migrates in).
PER_PATTERN_LIBRARY = 1
OTHER = {"triton": "helion", "helion": "triton"}
# The newer targets take every variant too, alternately (the first variant into cuTile, the
# second into TileLang, ...): every pattern reaches both backends across the files at half the
# cost (all variants into both took 145 s of CPU).
ALTERNATE = ("cutile", "tilelang")


def _variants(
    path: Path, edits: list[tuple[str, str]], per_pattern: int = PER_PATTERN
) -> list[tuple[str, str]]:
    src = path.read_text()
    out = []
    for pattern, replacement in edits:
        for m in list(re.finditer(pattern, src))[:per_pattern]:
            edited = re.sub(pattern, replacement, m.group(0))
            out.append((f"{pattern} @{m.start()}", src[: m.start()] + edited + src[m.end() :]))
    return out


def _library_cases(src: str, base: list, own: list) -> list[tuple]:
    """Each library module of ``src`` with its sample of edits: all of the library's own, and
    each of the examples' in every other module where it occurs (the first among them too)."""
    paths = sorted((ROOT / "examples" / "library" / src).glob("*.py"))
    texts = {path: path.read_text() for path in paths}
    kept: dict[Path, list] = {path: [] for path in paths}
    for edit in base:
        where = [path for path in paths if re.search(edit[0], texts[path])]
        for path in where[::2]:
            kept[path].append(edit)
    for path in paths:
        # Every module gets at least three of the examples' edits that occur in it (which
        # modules the alternation above skips shifts as modules are added).
        for edit in base:
            if len(kept[path]) >= 3:
                break
            if edit not in kept[path] and re.search(edit[0], texts[path]):
                kept[path].append(edit)
    return [(src, path, kept[path] + own, 1, (OTHER[src],)) for path in paths]


CASES = [
    (src, path, edits, PER_PATTERN, ("helion", "triton"))
    for src, folder, edits in (
        ("triton", ROOT / "examples" / "triton", TRITON_EDITS),
        ("triton", ROOT / "tests" / "data" / "triton_constructs", TRITON_EDITS),
        ("helion", ROOT / "examples" / "helion", HELION_EDITS),
    )
    for path in sorted(folder.glob("*.py"))
]
LIBRARY_CASES = _library_cases("triton", TRITON_EDITS, LIBRARY_TRITON_EDITS) + _library_cases(
    "helion", HELION_EDITS, LIBRARY_HELION_EDITS
)


@pytest.mark.parametrize(
    "src,path,edits,per_pattern,targets",
    CASES + LIBRARY_CASES,
    ids=[str(c[1].relative_to(ROOT).with_suffix("")) for c in CASES + LIBRARY_CASES],
)
def test_every_single_edit_variant_translates_or_is_refused(
    src: str, path: Path, edits: list[tuple[str, str]], per_pattern: int, targets: tuple[str, ...]
) -> None:
    failures = []
    for i, (what, text) in enumerate(_variants(path, edits, per_pattern)):
        for dst in (*targets, ALTERNATE[i % len(ALTERNATE)]):
            try:
                translate_source(text, str(path), src, dst)
            except TranslationError as err:
                if err.loc is None:
                    failures.append(f"{what} -> {dst}: no location for {err.message!r}")
            except Exception as err:  # noqa: BLE001 - the rule under test: nothing else escapes
                failures.append(f"{what} -> {dst}: {type(err).__name__}: {str(err)[:120]}")
    assert not failures, "\n".join(failures)


def test_the_library_sample_covers_every_module_and_pattern() -> None:
    assert {c[1] for c in LIBRARY_CASES} == set((ROOT / "examples" / "library").glob("*/*.py"))
    for src, own, base in (
        ("triton", LIBRARY_TRITON_EDITS, TRITON_EDITS),
        ("helion", LIBRARY_HELION_EDITS, HELION_EDITS),
    ):
        cases = [c for c in LIBRARY_CASES if c[0] == src]
        assert all(len(_variants(c[1], c[2], c[3])) >= 3 for c in cases)
        # Every pattern of the library's own edits, and every examples' pattern that occurs in
        # the library at all, makes a variant in some module.
        made = {what.split(" @")[0] for c in cases for what, _ in _variants(c[1], c[2], c[3])}
        occurring = {p for p, _ in base + own if any(re.search(p, c[1].read_text()) for c in cases)}
        assert {p for p, _ in own} <= occurring
        assert made == occurring
