"""TileLang in the tile-ai examples' spellings: ``import tilelang as tl`` with ``tl.cdiv``
tile counts (in ``T.Kernel`` and in factory locals) and ``T.alloc_var`` scalars
(tests/data/tilelang_tl_idioms.py), read into IR, translated and run against the source on the
CPU (TileLang's C-target variant); what stays unread is a located diagnostic."""

from __future__ import annotations

import os

os.environ["TRITON_INTERPRET"] = "1"

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from translator.api import parse_file, translate_file, translate_source  # noqa: E402
from translator.diagnostics import TranslationError  # noqa: E402
from translator.ir import nodes as ir  # noqa: E402
from translator.ir.visit import walk_stmts  # noqa: E402
from validation.equivalence import check_pair  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TL_IDIOMS = ROOT / "tests" / "data" / "tilelang_tl_idioms.py"


def _inputs(entry: str, device: str, dtype: str) -> tuple:
    import torch

    # Ragged in both dims: 3 row blocks of 32 (the last partial), 2 column blocks of 64.
    return (torch.randn(70, 100, generator=torch.Generator().manual_seed(0)).to(device),)


def test_tl_cdiv_counts_and_a_variable_read_into_ir() -> None:
    (kernel,) = parse_file(TL_IDIOMS, "tilelang").kernels
    by, bx = kernel.grid
    assert (by.extent, by.block) == (ir.SizeOf("X", 0), "block_M")
    assert (bx.extent, bx.block) == (ir.SizeOf("X", 1), "block_N")
    # The variable starts at zero and each `decay = ...` stores a float32 value to it.
    writes = [s for s in walk_stmts(kernel.body) if isinstance(s, ir.Assign)]
    assert [s.target for s in writes][:3] == ["decay"] * 3
    assert writes[0].value == ir.Cast(ir.Const(0), ir.F32)


@pytest.mark.parametrize("dst", ["triton", "helion", "cutile"])
def test_tl_idioms_translate_and_match_on_cpu(tmp_path: Path, dst: str) -> None:
    translated = tmp_path / f"tl_idioms_{dst}.py"
    translated.write_text(translate_file(TL_IDIOMS, "tilelang", dst))
    report = check_pair(
        TL_IDIOMS, translated, src_dsl="tilelang", dtypes=("float32",), seeds=(0,), inputs=_inputs
    )
    assert [row.entry for row in report.rows] == ["decay_rows"]
    assert report.passed, report.format_text()


@pytest.mark.parametrize(
    ("old", "new", "what"),
    [
        (
            "            decay = decay * 0.5 + 0.25\n",
            "            decay = decay * 0.5 + 0.25\n"
            "            for i in T.Parallel(block_M):\n"
            "                decay = decay + 1.0\n",
            "a T.alloc_var, is written in a T.Parallel loop",
        ),
        (
            'decay = T.alloc_var("float32")',
            'decay = T.alloc_var("float32", scope="shared")',
            "in the local.var scope is read",
        ),
    ],
    ids=["parallel-write", "scope"],
)
def test_what_a_variable_cannot_mean_is_a_located_diagnostic(old: str, new: str, what: str) -> None:
    source = TL_IDIOMS.read_text()
    assert old in source
    text = source.replace(old, new)
    with pytest.raises(TranslationError) as err:
        translate_source(text, "tl_idioms.py", "tilelang", "triton")
    assert what in str(err.value)
    line = next(
        i for i, ln in enumerate(text.splitlines(), 1) if new.strip().splitlines()[-1].strip() in ln
    )
    assert err.value.loc is not None and err.value.loc.line == line


_TUNED = """import itertools

import tilelang
import tilelang.language as T
import torch
from tilelang.autotuner import *


class TuneSpace:
    def __init__(self, block_sizes=(32, 64, 128), thread_options=(128, 256), max_elems=8192):
        self.block_sizes = block_sizes
        self.thread_options = thread_options
        self.max_elems = max_elems


def get_configs(user_config=None):
    space = user_config or TuneSpace()
    configs = []
    for block_M, block_N in itertools.product(space.block_sizes, repeat=2):
        for threads in space.thread_options:
            assert threads % 32 == 0
            if block_M * block_N > space.max_elems:
                continue
            if threads // 32 > block_M // 8:
                continue
            configs.append({"block_M": block_M, "block_N": block_N, "threads": threads})
    return configs


@autotune(configs=get_configs(), warmup=3, rep=20)
@tilelang.jit(out_idx=[-1])
def scale(M, N, block_M=32, block_N=64, threads=128):
    @T.prim_func
    def main(X: T.Tensor((M, N), "float32"), Y: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            x = T.alloc_fragment((block_M, block_N), "float32")
            T.copy(X[by * block_M, bx * block_N], x)
            for i, j in T.Parallel(block_M, block_N):
                x[i, j] = x[i, j] * 2.0
            T.copy(x, Y[by * block_M, bx * block_N])

    return main


def double(x: torch.Tensor) -> torch.Tensor:
    m, n = x.shape
    return scale(m, n)(x)
"""


def _want_configs() -> list[tuple[int, int, int]]:
    """What `get_configs()` builds, written out here as Python runs it."""
    out = []
    for bm in (32, 64, 128):
        for bn in (32, 64, 128):
            for threads in (128, 256):
                if bm * bn <= 8192 and threads // 32 <= bm // 8:
                    out.append((bm, bn, threads // 32))
    return out


def test_configs_built_by_nested_loops_over_a_tune_space_fold(tmp_path: Path) -> None:
    # tile-ai's attention examples: a record of candidate sizes, nested loops with `continue`
    # on what does not fit, `configs.append({...})`.
    path = tmp_path / "tuned.py"
    path.write_text(_TUNED)
    (kernel,) = parse_file(path, "tilelang").kernels
    got = [(dict(c)["block_M"], dict(c)["block_N"], dict(c)["num_warps"]) for c in kernel.configs]
    assert got == _want_configs()
    translated = tmp_path / "tuned_triton.py"
    translated.write_text(translate_file(path, "tilelang", "triton"))
    report = check_pair(
        path, translated, src_dsl="tilelang", dtypes=("float32",), seeds=(0,), inputs=_inputs
    )
    assert report.passed, report.format_text()


@pytest.mark.parametrize(
    ("old", "new", "what"),
    [
        ("assert threads % 32 == 0", "assert threads % 256 == 0", "this assert fails"),
        (
            "space = user_config or TuneSpace()",
            "space = user_config or TuneSpace(sizes())",
            "`sizes` is not a function tiletrans folds",
        ),
        (
            "        self.max_elems = max_elems\n",
            "        self.max_elems = max_elems\n\n    def area(self):\n        return 1\n",
            "is folded only as an `__init__` of stores",
        ),
    ],
    ids=["failing-assert", "unknown-call", "class-with-methods"],
)
def test_loop_built_configs_that_do_not_fold_are_a_located_refusal(
    tmp_path: Path, old: str, new: str, what: str
) -> None:
    assert old in _TUNED
    path = tmp_path / "tuned.py"
    path.write_text(_TUNED.replace(old, new))
    with pytest.raises(TranslationError) as err:
        translate_file(path, "tilelang", "triton")
    assert "the autotune configs are not read statically" in str(err.value)
    assert what in str(err.value)
    assert err.value.loc is not None and err.value.hint


def test_block_sizes_bound_to_one_literal_are_told_apart_by_name(tmp_path: Path) -> None:
    # `BK = BV = 64` (the linear-attention examples): two dims tiled by one literal; the buffers
    # name which (`(block_M, block_N)`), so neither is ambiguous.
    source = TL_IDIOMS.read_text()
    old = 'def decayed_rows(M, N, block_M=32, block_N=64, dtype="float32"):\n'
    assert old in source
    path = tmp_path / "same_literal.py"
    path.write_text(
        source.replace(
            old, 'def decayed_rows(M, N, dtype="float32"):\n    block_M = block_N = 32\n'
        )
    )
    (kernel,) = parse_file(path, "tilelang").kernels
    by, bx = kernel.grid
    assert (by.extent, bx.extent) == (ir.SizeOf("X", 0), ir.SizeOf("X", 1))
    assert by.block == bx.block == ir.Const(32)
    translated = tmp_path / "same_literal_triton.py"
    translated.write_text(translate_file(path, "tilelang", "triton"))
    report = check_pair(
        path, translated, src_dsl="tilelang", dtypes=("float32",), seeds=(0,), inputs=_inputs
    )
    assert report.passed, report.format_text()


FLAT_GRID = ROOT / "tests" / "data" / "tilelang_flat_grid.py"


def test_a_flattened_grid_axis_is_the_two_tiles_it_counts() -> None:
    (kernel,) = parse_file(FLAT_GRID, "tilelang").kernels
    m, n = kernel.grid
    assert (m.name, m.extent, m.block) == ("m_idx", ir.SizeOf("X", 0), "block_M")
    assert (n.name, n.extent, n.block) == ("n_idx", ir.SizeOf("X", 1), "block_N")
    # The statements that split the flat index are the grid itself now.
    assert not [
        s for s in walk_stmts(kernel.body) if isinstance(s, ir.Assign) and "idx" in s.target
    ]


@pytest.mark.parametrize("dst", ["triton", "cutile"])
def test_a_flattened_grid_axis_translates_and_matches_on_cpu(tmp_path: Path, dst: str) -> None:
    translated = tmp_path / f"flat_{dst}.py"
    translated.write_text(translate_file(FLAT_GRID, "tilelang", dst))
    report = check_pair(
        FLAT_GRID, translated, src_dsl="tilelang", dtypes=("float32",), seeds=(0,), inputs=_inputs
    )
    assert report.passed, report.format_text()


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # The flat index read once more: the split is not the whole story of the axis.
        ("x[i, j] * (m_idx + 1) + n_idx", "x[i, j] * (m_idx + 1) + n_idx + bx"),
        # A column count other than the extent's: not the inverse of the flattening.
        ("n_idx = bx % T.ceildiv(N, block_N)", "n_idx = bx % T.ceildiv(M, block_N)"),
    ],
    ids=["flat-index-read", "other-divisor"],
)
def test_a_flattened_axis_split_otherwise_stays_refused(old: str, new: str) -> None:
    source = FLAT_GRID.read_text()
    assert old in source
    with pytest.raises(TranslationError) as err:
        translate_source(source.replace(old, new), "flat.py", "tilelang", "triton")
    assert "is neither a block size nor a tensor's size" in str(err.value)
    assert err.value.loc is not None and err.value.hint
