"""A TileLang K loop whose trip count is a local of the kernel (``loop_range =
T.ceildiv(seq_len, block_N)``, TileLang's attention examples), chosen by a factory argument
(``T.min(...) if is_causal else T.ceildiv(...)``): read as the loop it counts, translated and run
against the source on the CPU."""

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
ROWS = ROOT / "tests" / "data" / "tilelang_windowed_row_sum.py"
_LAUNCH = "windowed_row_sum(m, n, 32, 64)"


def _ragged(entry: str, device: str, dtype: str) -> tuple:
    import torch

    # 150 columns: two whole key blocks of 64 and a ragged one.
    return (torch.randn(70, 150, generator=torch.Generator().manual_seed(0)).to(device),)


def test_a_loop_counted_through_a_local_is_the_tile_loop_it_counts() -> None:
    (kernel,) = parse_file(ROWS, "tilelang").kernels
    (loop,) = [s for s in walk_stmts(kernel.body) if isinstance(s, ir.TileLoop)]
    (tile,) = loop.tiles
    assert (tile.name, tile.block, tile.extent) == ("k", "block_N", ir.SizeOf("X", 1))
    assert loop.num_stages == 2
    # The local itself is no scalar of the kernel.
    assert not any(
        isinstance(s, ir.Assign) and s.target == "loop_range" for s in walk_stmts(kernel.body)
    )


@pytest.mark.parametrize("dst", ["triton", "helion"])
def test_a_loop_counted_through_a_local_computes_what_the_source_does(
    tmp_path: Path, dst: str
) -> None:
    translated = tmp_path / f"rows_{dst}.py"
    translated.write_text(translate_file(ROWS, "tilelang", dst))
    report = check_pair(
        ROWS, translated, src_dsl="tilelang", dtypes=("float32",), seeds=(0,), inputs=_ragged
    )
    assert [row.entry for row in report.rows] == ["row_sum"]
    assert report.passed, report.format_text()


def _variant(tmp_path: Path, old: str, new: str) -> Path:
    source = ROWS.read_text()
    assert old in source
    path = tmp_path / "variant.py"
    path.write_text(source.replace(old, new))
    return path


@pytest.mark.parametrize(
    ("old", "new", "line", "what"),
    [
        (
            "    return kernel(x)\n",
            "    return kernel(x)\n\n\ndef causal_row_sum(x):\n    m, n = x.shape\n"
            "    kernel = tilelang.compile(windowed_row_sum(m, n, 32, 64, True), out_idx=[1])\n"
            "    return kernel(x)\n",
            49,
            "this launch passes `is_causal` = `True`, but the `if` at line 22 was decided for "
            "False",
        ),
        (
            _LAUNCH,
            "windowed_row_sum(m, n, 32, 64, n > 100)",
            22,
            "`if is_causal` does not fold to one value",
        ),
    ],
    ids=["second-launch", "host-value"],
)
def test_a_count_chosen_by_an_argument_the_launches_do_not_fix_is_refused(
    tmp_path: Path, old: str, new: str, line: int, what: str
) -> None:
    with pytest.raises(TranslationError) as err:
        translate_file(_variant(tmp_path, old, new), "tilelang", "triton")
    assert what in str(err.value)
    assert err.value.loc is not None and err.value.loc.line == line


def test_a_causal_count_is_the_tiles_below_the_row_block_s_end(tmp_path: Path) -> None:
    """`T.min(T.ceildiv(N, block_N), T.ceildiv((bx + 1) * block_M, block_N))` tiles: those of
    `block_N` over `min(N, ceildiv((bx + 1) * block_M, block_N) * block_N)` (whole blocks up to
    the row block's end, clipped at N). TileLang's CPU oracle does not run a pipelined loop of a
    computed count, so the Triton translation is checked against torch (rows past the causal
    end are masked in the body; a count too short would drop keys a row needs)."""
    import importlib.util

    import torch

    path = _variant(tmp_path, _LAUNCH, "windowed_row_sum(m, n, 32, 64, True)")
    (kernel,) = parse_file(path, "tilelang").kernels
    (loop,) = [s for s in walk_stmts(kernel.body) if isinstance(s, ir.TileLoop)]
    (tile,) = loop.tiles
    assert tile.block == "block_N"
    whole = ir.BinOp(
        "*",
        ir.Call(
            "cdiv",
            (
                ir.BinOp(
                    "*",
                    ir.BinOp("+", ir.TileAttr("bx", "id"), ir.Const(1)),
                    ir.TileAttr("bx", "block_size"),
                ),
                ir.Name("block_N"),
            ),
        ),
        ir.Name("block_N"),
    )
    assert tile.extent == ir.Call("minimum", (ir.SizeOf("X", 1), whole)), tile.extent
    translated = tmp_path / "causal_triton.py"
    translated.write_text(translate_file(path, "tilelang", "triton"))
    spec = importlib.util.spec_from_file_location("causal_triton", translated)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for m, n in ((70, 150), (150, 70)):
        x = torch.randn(m, n, generator=torch.Generator().manual_seed(0))
        want = torch.tril(x).sum(dim=1)
        torch.testing.assert_close(module.row_sum(x), want, rtol=1e-5, atol=1e-5)


def test_a_causal_count_is_refused_into_helion_where_it_stands(tmp_path: Path) -> None:
    """Helion's `hl.tile` does not run to a bound of another tile's index (measured: the
    written `min(n, cdiv((bx.id + 1) * bx.block_size, b) * b)` fails under Helion), so the
    Helion backend refuses it at the loop instead of writing it."""
    path = _variant(tmp_path, _LAUNCH, "windowed_row_sum(m, n, 32, 64, True)")
    with pytest.raises(TranslationError) as err:
        translate_file(path, "tilelang", "helion")
    assert "ends at a value of another tile's index" in str(err.value)
    assert err.value.loc is not None and err.value.loc.line == 25


def test_a_min_of_two_host_counts_is_refused(tmp_path: Path) -> None:
    """`T.min(T.ceildiv(W, b), T.ceildiv(N, b))`, neither reading the kernel's indices, with
    the tensor's size N second: read as extent W and stop N, its tiles ran to
    `min(W, cdiv(N, b) * b)`, past the tensor's N columns (out of bounds); now refused."""
    source = ROWS.read_text()
    for old, new in [
        ("windowed_row_sum(M, N, block_M,", "windowed_row_sum(M, N, W, block_M,"),
        ("T.ceildiv((bx + 1) * block_M, block_N))", "T.ceildiv(N, block_N))"),
        ("T.min(T.ceildiv(N, block_N), T.ceildiv(N,", "T.min(T.ceildiv(W, block_N), T.ceildiv(N,"),
        ("if is_causal\n                else", "if not is_causal\n                else"),
        (_LAUNCH, "windowed_row_sum(m, n, 1000, 32, 64)"),
    ]:
        assert old in source
        source = source.replace(old, new)
    path = tmp_path / "variant.py"
    path.write_text(source)
    with pytest.raises(TranslationError) as err:
        translate_file(path, "tilelang", "triton")
    assert "takes the smaller of two tile counts of host sizes" in str(err.value)
    assert "T.ceildiv(N, block_N)" in (err.value.hint or "")
    assert err.value.loc is not None and err.value.loc.line == 21
