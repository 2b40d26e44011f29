"""The IR printer: golden text of a small hand-built entry, plus single expressions."""

from __future__ import annotations

from translator.ir import nodes as ir
from translator.ir.printer import (
    format_dims,
    format_entry,
    format_expr,
    format_index,
    format_module,
)

N, C = ir.Name, ir.Const


ROW = ir.FullIndex(N("n"))


def row(other: float | None = 0.0, col: ir.IndexItem = ROW) -> ir.Load:
    return ir.Load("x", (ir.TileIndex("tile_m"), col), other)


def small_entry() -> ir.Entry:
    """A row kernel and an hl.grid kernel touching most statement and expression forms."""
    tile_m = ir.TileVar("tile_m", N("m"), "block_m")
    tile_n = ir.TileVar("tile_n", N("n"), C(64), begin=C(2))
    index = ir.TileVar("i", N("m"), C(1), scalar=True)
    out_row = (ir.TileIndex("tile_m"), ir.FullIndex(N("n")))
    scaled = ir.BinOp("*", ir.BinOp("-", row(), N("mx")), ir.BinOp("+", N("s"), N("eps")))
    rows = ir.Kernel(
        "k",
        (tile_m,),
        (
            ir.Assign("mx", ir.Reduce("max", row(), 1, keepdim=True), comments=("row max",)),
            ir.Assign("s", ir.Reduce("sum", row(other=1.0), 1, masked=False)),
            ir.Assign("t", row(other=None)),
            ir.TileLoop(
                (tile_n,),
                (
                    ir.AtomicRMW(
                        "add",
                        "acc",
                        (ir.TileIndex("tile_m"),),
                        ir.Reduce("sum", row(float("-inf"), ir.TileIndex("tile_n")), 1),
                    ),
                ),
                num_stages=3,
            ),
            ir.Store("out", out_row, ir.Cast(scaled, ir.DTypeOf("out"))),
        ),
    )
    grid = ir.Kernel(
        "g",
        (index,),
        (
            ir.If(
                ir.BinOp(">", N("i"), C(0)),
                (ir.Store("acc", (ir.TileIndex("i"),), C(0.0)),),
                (ir.Store("acc", (ir.TileIndex("i"),), ir.Cast(ir.Arange(ir.UnitDim()), ir.F32)),),
            ),
        ),
    )
    return ir.Entry(
        "rows",
        (ir.Param("x", "tensor"), ir.Param("eps", "float", C(1e-5))),
        (
            ir.ShapeUnpack(("m", "n"), "x"),
            ir.Assert(ir.BinOp("==", ir.SizeOf("x", 1), N("n")), '"bad"'),
            ir.Alloc("out", None, "x", ir.DTypeOf("x"), "x"),
            ir.Alloc("acc", (N("m"),), None, ir.F32, "x", 0.0),
            rows,
            grid,
            ir.Return(ir.TupleExpr((N("out"), N("acc")))),
        ),
        (ir.Tunable("block_m", "block_size", 4, (4, 8)), ir.Tunable("num_warps", "num_warps", 4)),
        ((("block_m", 8), ("num_warps", 8)),),
    )


GOLDEN = """\
entry rows(x: tensor, eps: float = 1e-05):
  tunable block_m: block_size = 4 in [4, 8]
  tunable num_warps: num_warps = 4
  config 0: block_m=8, num_warps=8
  m, n = shape(x)
  assert x.size(1) == n, "bad"
  out = alloc like x dtype(x) on x empty
  acc = alloc [m] float32 on x fill 0.0
  kernel k grid(tile_m: tile m by block_m):
    # row max
    mx = max(load x[tile_m, :] pad=0.0, axis=1, keepdim)
    s = sum(load x[tile_m, :] pad=1.0, axis=1, unmasked)
    t = load x[tile_m, :] pad=never-read
    loop tile_n: tile 2..n by 64 stages=3:
      atomic_add acc[tile_m] <- sum(load x[tile_m, tile_n] pad=-inf, axis=1)
    store out[tile_m, :] = cast((load x[tile_m, :] pad=0.0 - mx) * (s + eps), dtype(out))
  kernel g grid(i: index m by 1):
    if i > 0:
      store acc[i] = 0.0
    else:
      store acc[i] = cast(arange(1), float32)
  return (out, acc)"""


def test_entry_golden() -> None:
    assert format_entry(small_entry()) == GOLDEN


def test_padding_masking_and_keepdim_are_spelled_out() -> None:
    lines = format_entry(small_entry()).splitlines()
    assert "    mx = max(load x[tile_m, :] pad=0.0, axis=1, keepdim)" in lines
    assert "    s = sum(load x[tile_m, :] pad=1.0, axis=1, unmasked)" in lines
    assert "    t = load x[tile_m, :] pad=never-read" in lines


def test_tiles_print() -> None:
    text = format_entry(small_entry())
    assert "kernel k grid(tile_m: tile m by block_m):" in text  # a tunable block
    assert "loop tile_n: tile 2..n by 64 stages=3:" in text  # begin, constant block, stages
    assert "kernel g grid(i: index m by 1):" in text  # an hl.grid-style index


def test_module_header() -> None:
    text = format_module(ir.Module("rows.py", (small_entry(),)))
    assert text.startswith("module rows.py\n\nentry rows(")
    assert text.endswith("return (out, acc)\n")


def test_expressions() -> None:
    a, b, c = N("a"), N("b"), N("c")
    assert format_expr(ir.BinOp("-", a, ir.BinOp("-", b, c))) == "a - (b - c)"
    assert format_expr(ir.BinOp("*", ir.BinOp("+", a, b), c)) == "(a + b) * c"
    assert format_expr(ir.BinOp("+", ir.BinOp("*", a, b), c)) == "a * b + c"
    assert format_expr(ir.UnaryOp("not", a)) == "not a"
    assert format_expr(C(float("nan"))) == "nan"
    assert format_expr(C(float("-inf"))) == "-inf"
    assert format_expr(ir.Dot(a, b, c)) == "dot(a, b, acc=c, out=float32)"
    assert format_expr(ir.Dot(a, b, None, ir.DType("float16"))) == "dot(a, b, out=float16)"
    assert format_expr(ir.TileAttr("tile_m", "begin")) == "tile_m.begin"
    assert format_expr(ir.Permute(a, (1, 0))) == "permute(a, [1, 0])"
    assert format_expr(ir.ExpandDims(a, -1)) == "expand_dims(a, -1)"
    assert format_expr(ir.Reduce("argmax", a, 0, keepdim=True, masked=False)) == (
        "argmax(a, axis=0, keepdim, unmasked)"
    )


def test_dims_and_index() -> None:
    full = ir.Full(
        (ir.BlockDim("tile_m"), ir.FullDim(N("n")), ir.UnitDim()), C(float("-inf")), ir.F32
    )
    assert format_expr(full) == "full([tile_m, :n, 1], -inf, float32)"
    assert format_dims((ir.BlockDim("t"), ir.FullDim(ir.SizeOf("x", 1)))) == "[t, :x.size(1)]"
    index = (ir.GatherIndex(N("idx")), ir.NewAxis(), ir.ScalarIndex(C(3)), ir.FullIndex())
    assert format_index(index) == "[gather(idx), None, 3, :]"
    assert format_expr(ir.Load("x", index[:3])) == "load x[gather(idx), None, 3] pad=0.0"
