"""The IR printer: golden text of a small hand-built module, plus single expressions."""

from __future__ import annotations

from ir_build import hand_module, inline_entry

from translator.api import parse_file
from translator.ir import nodes as ir
from translator.ir.printer import (
    format_dims,
    format_entry,
    format_expr,
    format_hints,
    format_index,
    format_kernel,
    format_module,
    format_param,
    format_stmt,
)

N, C = ir.Name, ir.Const


ROW = ir.FullIndex(N("n"))


def row(other: float | None = 0.0, col: ir.IndexItem = ROW) -> ir.Load:
    return ir.Load("x", (ir.TileIndex("tile_m"), col), other)


def small_entry() -> ir.Entry:
    """A row kernel and an hl.grid kernel touching most statement and expression forms, written
    in place (the row kernel with hints of its own, both sharing the entry's tunables)."""
    tile_m = ir.TileVar("tile_m", N("m"), "block_m")
    tile_n = ir.TileVar("tile_n", N("n"), C(64), begin=C(2))
    index = ir.TileVar("i", N("m"), C(1), scalar=True)
    out_row = (ir.TileIndex("tile_m"), ir.FullIndex(N("n")))
    scaled = ir.BinOp("*", ir.BinOp("-", row(), N("mx")), ir.BinOp("+", N("s"), N("eps")))
    rows = ir.InlineKernel(
        "k",
        (tile_m,),
        (
            ir.Assign("mx", ir.Reduce("max", row(), 1, keepdim=True), comments=("row max",)),
            ir.Assign("s", ir.Reduce("sum", row(other=1.0), 1, keepdim=True, masked=False)),
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
        comments=("rows first",),
        hints=ir.Hints(schedule="persistent_blocked", index_bits=64, extras=(("helion.x", 1),)),
    )
    grid = ir.InlineKernel(
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
    return inline_entry(
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


def small_module() -> ir.Module:
    """:func:`small_entry` outlined; ``n`` is a size the kernels are compiled for."""
    return hand_module("rows.py", small_entry(), constexpr={"n"})


# Kernels first (parameters: tensors, then scalars, each in the order the host defines them; the
# tunables a kernel does not use as a block size stay, the configs keep only its tunables), then
# the entry, whose in-place kernels are launches passing each parameter its host value.
GOLDEN = """\
module rows.py

kernel k(x: tensor[2-d], out: tensor[2-d], acc: tensor[1-d float32], eps: float, m: int, \
n: int constexpr) grid(tile_m: tile m by block_m) schedule='persistent_blocked' index_bits=64 \
helion.x=1:
  tunable block_m: block_size = 4 in [4, 8]
  tunable num_warps: num_warps = 4
  config 0: block_m=8, num_warps=8
  # row max
  mx = max(load x[tile_m, :] pad=0.0, axis=1, keepdim)
  s = sum(load x[tile_m, :] pad=1.0, axis=1, keepdim, unmasked)
  t = load x[tile_m, :] pad=never-read
  loop tile_n: tile 2..n by 64 stages=3:
    atomic_add acc[tile_m] <- sum(load x[tile_m, tile_n] pad=-inf, axis=1)
  store out[tile_m, :] = cast((load x[tile_m, :] pad=0.0 - mx) * (s + eps), dtype(out))

kernel g(acc: tensor[1-d float32], m: int) grid(i: index m by 1):
  tunable num_warps: num_warps = 4
  config 0: num_warps=8
  if i > 0:
    store acc[i] = 0.0
  else:
    store acc[i] = cast(arange(1), float32)

entry rows(x: tensor, eps: float = 1e-05):
  m, n = shape(x)
  assert x.size(1) == n, "bad"
  out = alloc like x dtype(x) on x empty
  acc = alloc [m] float32 on x fill 0.0
  # rows first
  launch k(x, out, acc, eps, m, n)
  launch g(acc, m)
  return (out, acc)
"""


def test_module_golden() -> None:
    assert format_module(small_module()) == GOLDEN


def test_kernels_and_entries_print_alone() -> None:
    module = small_module()
    # The module is its parts, two blank lines apart, under its header.
    parts = [format_kernel(k) for k in module.kernels] + [format_entry(e) for e in module.entries]
    assert "\n\n".join(["module rows.py", *parts]) + "\n" == GOLDEN
    assert format_kernel(module.kernel("g")).startswith(
        "kernel g(acc: tensor[1-d float32], m: int)"
    )


def test_inline_kernels_print_in_place() -> None:
    # Before outlining, a kernel is a statement of its entry, with its hints but no signature.
    lines = format_entry(small_entry()).splitlines()
    assert lines[5:7] == [
        "  # rows first",
        "  kernel k grid(tile_m: tile m by block_m) schedule='persistent_blocked' index_bits=64 "
        "helion.x=1:",
    ]
    assert "  kernel g grid(i: index m by 1):" in lines
    assert "    mx = max(load x[tile_m, :] pad=0.0, axis=1, keepdim)" in lines


def test_padding_masking_and_keepdim_are_spelled_out() -> None:
    lines = format_module(small_module()).splitlines()
    assert "  mx = max(load x[tile_m, :] pad=0.0, axis=1, keepdim)" in lines
    assert "  s = sum(load x[tile_m, :] pad=1.0, axis=1, keepdim, unmasked)" in lines
    assert "  t = load x[tile_m, :] pad=never-read" in lines


def test_tiles_print() -> None:
    text = format_module(small_module())
    assert " grid(tile_m: tile m by block_m) " in text  # a tunable block
    assert "loop tile_n: tile 2..n by 64 stages=3:" in text  # begin, constant block, stages
    assert " grid(i: index m by 1):" in text  # an hl.grid-style index
    step = ir.TileVar("tk", N("k"), "bk", begin=N("p"), step=N("s"))
    loop = ir.TileLoop((step,), ())
    assert format_stmt(loop) == ["loop tk: tile p..k by bk every s:"]


def test_module_header() -> None:
    text = format_module(small_module())
    assert text.startswith("module rows.py\n\nkernel k(")
    assert text.endswith("return (out, acc)\n")


def test_params_and_hints() -> None:
    assert format_param(ir.Param("x", "tensor")) == "x: tensor"
    assert format_param(ir.Param("x", "tensor", rank=3)) == "x: tensor[3-d]"
    assert format_param(ir.Param("x", "tensor", dtype=ir.DType("float16"))) == (
        "x: tensor[?-d float16]"
    )
    assert format_param(ir.Param("n", "int", C(4), constexpr=True)) == "n: int constexpr = 4"
    assert format_param(ir.Param("act", "str", C("relu"))) == "act: str = 'relu'"
    assert format_hints(ir.Hints()) == ""
    assert format_hints(ir.Hints(fast_math=True, static_shapes=False)) == (
        " fast_math=True static_shapes=False"
    )


def test_host_plan_summary() -> None:
    # A parsed module carries its source: the edits that make the translation are listed last.
    text = format_module(parse_file("examples/helion/add.py", "helion"))
    assert "  launch _add_kernel(x, y, out, m, n) at site 0\n" in text
    assert text.endswith(
        "\n\nhost: 1 launch sites, 2 edits\n  remove at 12:0\n  insert at 13:0 _add_kernel\n"
    )


def test_carried_host_code() -> None:
    carried = ir.Carried("w", "tensor", "helper(x)", rank=2)
    assert format_entry(ir.Entry("f", (), (carried,), complete=False)) == (
        "entry f():  # partly modelled\n  w = carried tensor[2-d]: helper(x)"
    )


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
