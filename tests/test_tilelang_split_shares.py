"""Split-K over contiguous shares of K, as TileLang's ``example_tilelang_gemm_splitk`` writes it:
``T.Pipelined(T.ceildiv(share, block_K))`` whose regions start at ``bz * share + ko * block_K``.

The IR's loop runs from ``ko_begin = bz * share`` to ``ko_end = min(K, ko_begin +
ceildiv(share, block_K) * block_K)``: where TileLang's copies stop (whole blocks from the start,
clipped at the tensor's edge). Where ``block_K`` does not divide the share, the source's last
tile of a share reads into the next share, and the translation does the same (checked against
the source on the CPU); regions in dims of different sizes are refused."""

from __future__ import annotations

import os

os.environ["TRITON_INTERPRET"] = "1"

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from translator.api import parse_file, translate_file  # noqa: E402
from translator.diagnostics import TranslationError  # noqa: E402
from translator.ir import nodes as ir  # noqa: E402
from translator.ir.visit import walk_stmts  # noqa: E402
from validation.equivalence import check_pair  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
CHUNKS = ROOT / "examples" / "tilelang" / "gemm_splitk_chunks.py"

#: TileLang's own form: a share of `K // split_k` columns, which block_K need not divide.
_FLOORED = """
import tilelang
import tilelang.language as T
import torch


@tilelang.jit
def matmul(M, N, K, block_M, block_N, block_K, split_k, dtype="float32"):
    splitK = K // split_k

    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        C: T.Tensor((M, N), "float32"),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), split_k, threads=128) as (
            bx,
            by,
            bz,
        ):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(C_local)
            for ko in T.Pipelined(T.ceildiv(splitK, block_K), num_stages=0):
                T.copy(A[by * block_M, bz * splitK + ko * block_K], A_shared)
                T.copy(B[bz * splitK + ko * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            for i, j in T.Parallel(block_M, block_N):
                T.atomic_add(C[by * block_M + i, bx * block_N + j], C_local[i, j])

    return main


def splitk_matmul(a: torch.Tensor, b: torch.Tensor, split_k: int = 4) -> torch.Tensor:
    m, k = a.shape
    _, n = b.shape
    c = torch.zeros((m, n), dtype=torch.float32, device=a.device)
    kernel = matmul(m, n, k, 32, 32, 32, split_k)
    kernel(a, b, c)
    return c
"""


def _floored(tmp_path: Path, old: str = "", new: str = "") -> Path:
    assert old in _FLOORED
    path = tmp_path / "floored.py"
    path.write_text(_FLOORED.replace(old, new) if old else _FLOORED)
    return path


def _inputs(entry: str, device: str, dtype: str) -> tuple:
    """K = 300 over 4 shares of 75 columns: blocks of 32 cover 96 of each, so every share's
    last tile reads 21 columns of the next, and the last share stops at K."""
    import torch

    g = torch.Generator().manual_seed(0)
    return torch.randn(70, 300, generator=g).to(device), torch.randn(300, 90, generator=g).to(
        device
    )


def _lets(kernel: ir.Kernel) -> dict[str, ir.Expr]:
    return {s.target: s.value for s in walk_stmts(kernel.body) if isinstance(s, ir.Assign)}


def test_a_share_s_loop_runs_from_its_start_to_where_its_copies_stop() -> None:
    (kernel,) = parse_file(CHUNKS, "tilelang").kernels
    (loop,) = [s for s in walk_stmts(kernel.body) if isinstance(s, ir.TileLoop)]
    (tile,) = loop.tiles
    assert (tile.begin, tile.extent, tile.block) == (
        ir.Name("ko_begin"),
        ir.Name("ko_end"),
        "block_K",
    )
    lets = _lets(kernel)
    # The share reads the tuned block size, not its default (a tuned block_K must agree).
    share = ir.BinOp(
        "*",
        ir.Call("cdiv", (ir.SizeOf("A", 1), ir.BinOp("*", ir.Name("block_K"), ir.Name("split_k")))),
        ir.Name("block_K"),
    )
    assert lets["ko_begin"] == ir.BinOp("*", ir.Name("bz"), share)
    whole = ir.BinOp("*", ir.Call("cdiv", (share, ir.Name("block_K"))), ir.Name("block_K"))
    assert lets["ko_end"] == ir.Call(
        "minimum", (ir.SizeOf("A", 1), ir.BinOp("+", ir.Name("ko_begin"), whole))
    )
    (load_a, load_b) = [s.value for s in loop.body[:2]]  # type: ignore[attr-defined]
    assert load_a.index == (ir.TileIndex("by"), ir.TileIndex("ko"))
    assert load_b.index == (ir.TileIndex("ko"), ir.TileIndex("bx"))


@pytest.mark.parametrize("dst", ["triton", "cutile"])
def test_shares_that_overlap_are_translated_as_the_source_reads_them(
    tmp_path: Path, dst: str
) -> None:
    """`K // split_k` = 75 columns a share, read in 3 blocks of 32: the source adds 21 columns
    of the next share twice; the translation computes exactly that (not `a @ b`)."""
    path = _floored(tmp_path)
    translated = tmp_path / f"floored_{dst}.py"
    translated.write_text(translate_file(path, "tilelang", dst))
    report = check_pair(
        path, translated, src_dsl="tilelang", dtypes=("float32",), seeds=(0,), inputs=_inputs
    )
    assert [row.entry for row in report.rows] == ["splitk_matmul"]
    assert report.passed, report.format_text()
    if dst == "triton":
        import importlib.util

        spec = importlib.util.spec_from_file_location("floored_triton", translated)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        a, b = _inputs("splitk_matmul", "cpu", "float32")
        overlap = module.splitk_matmul(a, b) - a @ b
        assert overlap.abs().max() > 1.0  # the overlap counted twice, as in the source


def test_regions_of_dims_of_different_sizes_are_refused(tmp_path: Path) -> None:
    """TileLang's example annotates `B: T.Tensor((N, K))` and indexes it as `(K, N)`: the loop's
    tiles would stop at K in `A` and at N in `B`."""
    path = _floored(tmp_path, "B: T.Tensor((K, N), dtype)", "B: T.Tensor((N, K), dtype)")
    with pytest.raises(TranslationError) as err:
        translate_file(path, "tilelang", "triton")
    text = str(err.value)
    assert "`A` dim 1 (`K`), `B` dim 0 (`N`)" in text
    line = next(i for i, s in enumerate(path.read_text().splitlines(), 1) if "T.copy(A[" in s)
    assert err.value.loc is not None and err.value.loc.line == line


def test_regions_at_two_offsets_are_refused(tmp_path: Path) -> None:
    path = _floored(
        tmp_path,
        "T.copy(B[bz * splitK + ko * block_K, bx * block_N], B_shared)",
        "T.copy(B[(bz + 1) * splitK + ko * block_K, bx * block_N], B_shared)",
    )
    with pytest.raises(TranslationError, match="start at several offsets"):
        translate_file(path, "tilelang", "triton")
