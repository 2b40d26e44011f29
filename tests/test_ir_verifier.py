"""The IR verifier: hand-built entries with one error each, and valid entries that pass."""

from __future__ import annotations

import dataclasses

import pytest

from translator.ir import nodes as ir
from translator.ir.shapes import IRTypeError
from translator.ir.verifier import verify, verify_entry

LOC = ir.Loc("k.py", 7, 4)


def N(name: str) -> ir.Name:
    return ir.Name(name)


def C(value: float | int | bool) -> ir.Const:
    return ir.Const(value)


def T(*names: str) -> tuple[ir.TileIndex, ...]:
    return tuple(ir.TileIndex(n) for n in names)


TM = ir.TileVar("tile_m", N("m"), "bm")
TN = ir.TileVar("tile_n", N("n"), "bn")
TK = ir.TileVar("tile_k", N("k"), "bk")
TUNABLES = tuple(ir.Tunable(b, "block_size", 16) for b in ("bm", "bn", "bk"))


def matmul(kernel_body: tuple[ir.Stmt, ...], configs: tuple = ()) -> ir.Entry:
    """``out = x @ y`` with a K loop; ``kernel_body`` replaces the kernel's statements."""
    return ir.Entry(
        "matmul",
        (ir.Param("x", "tensor"), ir.Param("y", "tensor")),
        (
            ir.ShapeUnpack(("m", "k"), "x"),
            ir.ShapeUnpack((None, "n"), "y"),
            ir.Alloc("out", (N("m"), N("n")), None, ir.DTypeOf("x"), "x"),
            ir.Kernel("mm", (TM, TN), kernel_body),
            ir.Return(N("out")),
        ),
        TUNABLES,
        configs,
    )


def acc_init() -> ir.Assign:
    return ir.Assign("acc", ir.Full((ir.BlockDim("tile_m"), ir.BlockDim("tile_n")), C(0.0), ir.F32))


def dot(lhs: ir.Expr | None = None, rhs: ir.Expr | None = None) -> ir.Dot:
    return ir.Dot(
        lhs or ir.Load("x", T("tile_m", "tile_k")),
        rhs or ir.Load("y", T("tile_k", "tile_n")),
        N("acc"),
        loc=LOC,
    )


def store_acc() -> ir.Store:
    return ir.Store("out", T("tile_m", "tile_n"), ir.Cast(N("acc"), ir.DTypeOf("out")))


def valid_body() -> tuple[ir.Stmt, ...]:
    return (acc_init(), ir.TileLoop((TK,), (ir.Assign("acc", dot()),)), store_acc())


def test_valid_entry_passes() -> None:
    entry = matmul(valid_body(), configs=((("bm", 32), ("bn", 32), ("bk", 16)),))
    verify_entry(entry)
    verify(ir.Module("mm.py", (entry,)))


def test_valid_row_softmax_passes() -> None:
    row = ir.Load("x", (ir.TileIndex("tile_m"), ir.FullIndex(N("n"))))
    entry = ir.Entry(
        "softmax",
        (ir.Param("x", "tensor"),),
        (
            ir.ShapeUnpack(("m", "n"), "x"),
            ir.Alloc("out", None, "x", ir.DTypeOf("x"), "x"),
            ir.Kernel(
                "sm",
                (TM,),
                (
                    ir.Assign("mx", ir.Reduce("max", row, 1, keepdim=True)),
                    ir.Assign("num", ir.Call("exp", (ir.BinOp("-", row, N("mx")),))),
                    ir.Store(
                        "out",
                        (ir.TileIndex("tile_m"), ir.FullIndex(N("n"))),
                        ir.BinOp("/", N("num"), ir.Reduce("sum", N("num"), 1, keepdim=True)),
                    ),
                ),
            ),
            ir.Return(N("out")),
        ),
        TUNABLES[:1],
    )
    verify_entry(entry)


def test_undefined_name() -> None:
    body = (acc_init(), ir.Store("out", T("tile_m", "tile_n"), ir.Name("accc", loc=LOC)))
    with pytest.raises(IRTypeError, match="name 'accc' is not defined here") as err:
        verify_entry(matmul(body))
    assert err.value.loc == LOC


def test_tile_variable_out_of_scope() -> None:
    # tile_k is only bound inside its loop; using it after the loop is an error.
    body = (*valid_body(), ir.Store("out", T("tile_m", "tile_k"), N("acc"), loc=LOC))
    with pytest.raises(IRTypeError, match="tile variable 'tile_k' is not in scope"):
        verify_entry(matmul(body))


def test_loop_local_name_is_not_visible_after_the_loop() -> None:
    body = (
        acc_init(),
        ir.TileLoop((TK,), (ir.Assign("part", dot()),)),
        ir.Store("out", T("tile_m", "tile_n"), N("part")),
    )
    with pytest.raises(IRTypeError, match="name 'part' is not defined here"):
        verify_entry(matmul(body))


def test_broadcast_mismatch() -> None:
    # [tile_m, tile_n] + [tile_n, tile_m]
    bad = ir.BinOp("+", N("acc"), ir.Permute(N("acc"), (1, 0)), loc=LOC)
    body = (acc_init(), ir.Assign("acc", bad), store_acc())
    with pytest.raises(
        IRTypeError, match=r"cannot broadcast dims \[tile_m, tile_n\] and \[tile_n, tile_m\]"
    ):
        verify_entry(matmul(body))


def test_loop_carried_dtype_change() -> None:
    loop = ir.TileLoop((TK,), (ir.Assign("acc", ir.Cast(dot(), ir.DType("float16"))),), loc=LOC)
    with pytest.raises(IRTypeError) as err:
        verify_entry(matmul((acc_init(), loop, store_acc())))
    assert str(err.value) == (
        "loop-carried 'acc' changes dtype from float32 to float16; cast it back inside the loop"
    )
    assert err.value.loc == LOC


def test_loop_carried_dims_change() -> None:
    shrink = ir.Reduce("sum", N("acc"), 0, keepdim=False)  # [tile_n]
    loop = ir.TileLoop((TK,), (ir.Assign("acc", ir.ExpandDims(ir.ExpandDims(shrink, 0), 0)),))
    with pytest.raises(IRTypeError, match="loop-carried 'acc' changes dims"):
        verify_entry(matmul((acc_init(), loop, store_acc())))


def test_dot_contraction_mismatch() -> None:
    # x[tile_m, tile_k] @ y[tile_n, tile_n]: the contraction pairs tile_k with tile_n.
    bad = dot(rhs=ir.Load("y", T("tile_n", "tile_n")))
    body = (acc_init(), ir.TileLoop((TK,), (ir.Assign("acc", bad),)), store_acc())
    with pytest.raises(IRTypeError, match="dot contraction dims differ: tile_k and tile_n") as err:
        verify_entry(matmul(body))
    assert err.value.loc == LOC


def test_dot_rank_mismatch() -> None:
    bad = dot(rhs=ir.Load("y", (ir.TileIndex("tile_n"), ir.ScalarIndex(C(0)))))
    body = (acc_init(), ir.TileLoop((TK,), (ir.Assign("acc", bad),)), store_acc())
    with pytest.raises(IRTypeError, match=r"dot needs operands of equal rank >= 2"):
        verify_entry(matmul(body))


def test_store_of_a_bigger_value_than_its_region() -> None:
    # A [tile_m, tile_n] accumulator stored into the 1-D region out[tile_m, 0].
    store = ir.Store("out", (ir.TileIndex("tile_m"), ir.ScalarIndex(C(0))), N("acc"), loc=LOC)
    body = (acc_init(), store)
    with pytest.raises(IRTypeError) as err:
        verify_entry(matmul(body))
    assert str(err.value) == (
        "stored value has dims ['tile_m', 'tile_n'], more than the region ['tile_m']"
    )


def test_store_of_a_mismatched_value() -> None:
    store = ir.Store("out", T("tile_m", "tile_n"), ir.Permute(N("acc"), (1, 0)))
    with pytest.raises(IRTypeError, match="cannot broadcast dims"):
        verify_entry(matmul((acc_init(), store)))


def test_unknown_tunable_in_config() -> None:
    entry = matmul(valid_body(), configs=((("bm", 32), ("block_k", 16)),))
    with pytest.raises(IRTypeError, match="config names unknown tunable 'block_k'"):
        verify_entry(entry)


def test_block_size_that_is_no_tunable() -> None:
    tk = dataclasses.replace(TK, block="block_k")
    body = (acc_init(), ir.TileLoop((tk,), (ir.Assign("acc", dot()),), loc=LOC), store_acc())
    with pytest.raises(
        IRTypeError, match="tile 'tile_k' uses block size 'block_k', which is no tunable"
    ):
        verify_entry(matmul(body))


def test_nested_kernel_and_device_return() -> None:
    inner = ir.Kernel("inner", (TK,), ())
    with pytest.raises(IRTypeError, match="kernels cannot nest"):
        verify_entry(matmul((inner,)))
    with pytest.raises(IRTypeError, match="return inside device code"):
        verify_entry(matmul((ir.Return(N("out")),)))


def test_load_rank_mismatch() -> None:
    body = (ir.Assign("v", ir.Load("x", T("tile_m"))),)
    with pytest.raises(IRTypeError, match="'x' has 2 dims but is indexed with 1"):
        verify_entry(matmul(body))


def test_duplicate_entry_names() -> None:
    entry = matmul(valid_body())
    with pytest.raises(IRTypeError, match="duplicate entry names"):
        verify(ir.Module("mm.py", (entry, entry)))
