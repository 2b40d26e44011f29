"""The reference interpreter: hand-built IR against torch, and every Helion example that parses
against the Helion kernel itself run under ``TRITON_INTERPRET=1``."""

from __future__ import annotations

import dataclasses
import importlib.util
import os
from collections.abc import Callable
from pathlib import Path

import pytest
import torch
from ir_build import hand_module, inline_entry

from translator.ir import nodes as ir
from translator.ir.interpreter import (
    InterpreterError,
    next_power_of_2,
    run_entry,
    run_kernel,
    run_module,
)
from translator.ir.shapes import IRTypeError

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "helion"

# ------------------------------------------------------------------------------------------------
# Builders


def N(name: str) -> ir.Name:
    return ir.Name(name)


def C(value: float | int | bool) -> ir.Const:
    return ir.Const(value)


def B(op: str, lhs: ir.Expr, rhs: ir.Expr) -> ir.BinOp:
    return ir.BinOp(op, lhs, rhs)


def T(*names: str) -> tuple[ir.TileIndex, ...]:
    return tuple(ir.TileIndex(n) for n in names)


def tile(
    name: str, extent: ir.Expr, block: str | int, begin: ir.Expr | None = None, scalar: bool = False
) -> ir.TileVar:
    return ir.TileVar(name, extent, C(block) if isinstance(block, int) else block, begin, scalar)


def entry(
    name: str,
    params: tuple[str, ...],
    body: list[ir.Stmt],
    blocks: dict[str, int],
    scalars: tuple[tuple[str, str], ...] = (),
) -> ir.Entry:
    """An entry whose in-place kernels share the block-size tunables ``blocks``."""
    ps = tuple(ir.Param(p, "tensor") for p in params)
    ps += tuple(ir.Param(p, kind) for p, kind in scalars)
    tunables = tuple(ir.Tunable(k, "block_size", v) for k, v in blocks.items())
    return inline_entry(name, ps, tuple(body), tunables)


def run(
    e: ir.Entry, args: tuple | dict[str, object], config: dict[str, int] | None = None
) -> object:
    """Run ``e`` as frontends give it: its kernels outlined into a verified module."""
    module = hand_module(f"{e.name}.py", e)
    assert not any(isinstance(s, ir.InlineKernel) for s in module.entries[0].body)
    if isinstance(args, dict):
        return run_module(module, e.name, args, config=config)
    return run_module(module, e.name, *args, config=config)


def alloc_like(
    target: str, like: str, dtype: ir.DTypeExpr | None = None, fill: float | None = None
) -> ir.Alloc:
    return ir.Alloc(target, None, like, dtype or ir.DTypeOf(like), like, fill)


def alloc(
    target: str,
    shape: tuple[ir.Expr, ...],
    dtype: ir.DTypeExpr,
    device_of: str,
    fill: float | None = None,
) -> ir.Alloc:
    return ir.Alloc(target, shape, None, dtype, device_of, fill)


def shape(*targets: str | None, of: str = "x") -> ir.ShapeUnpack:
    return ir.ShapeUnpack(tuple(targets), of)


def ret(*names: str) -> ir.Return:
    if len(names) == 1:
        return ir.Return(N(names[0]))
    return ir.Return(ir.TupleExpr(tuple(N(n) for n in names)))


def load(tensor: str, *index: ir.IndexItem, other: float | None = 0.0) -> ir.Load:
    return ir.Load(tensor, tuple(index), other)


def reduce(
    op: str, value: ir.Expr, axis: int, keepdim: bool = False, masked: bool = True
) -> ir.Reduce:
    return ir.Reduce(op, value, axis, keepdim, masked)


FULL = ir.FullIndex()


def add_entry() -> ir.Entry:
    tm, tn = tile("tile_m", N("m"), "bm"), tile("tile_n", N("n"), "bn")
    return entry(
        "add",
        ("x", "y"),
        [
            shape("m", "n"),
            alloc_like("out", "x"),
            ir.InlineKernel(
                "k",
                (tm, tn),
                (
                    ir.Store(
                        "out",
                        T("tile_m", "tile_n"),
                        B(
                            "+",
                            load("x", *T("tile_m", "tile_n")),
                            load("y", *T("tile_m", "tile_n")),
                        ),
                    ),
                ),
            ),
            ret("out"),
        ],
        {"bm": 16, "bn": 32},
    )


def softmax_entry() -> ir.Entry:
    row = load("x", ir.TileIndex("tile_m"), FULL)
    return entry(
        "softmax",
        ("x",),
        [
            shape("m", "n"),
            alloc_like("out", "x"),
            ir.InlineKernel(
                "k",
                (tile("tile_m", N("m"), "bm"),),
                (
                    ir.Assign("v", ir.Cast(row, ir.F32)),
                    ir.Assign("mx", reduce("max", N("v"), 1, keepdim=True)),
                    ir.Assign("num", ir.Call("exp", (B("-", N("v"), N("mx")),))),
                    ir.Assign("den", reduce("sum", N("num"), 1, keepdim=True)),
                    ir.Store(
                        "out",
                        (ir.TileIndex("tile_m"), FULL),
                        ir.Cast(B("/", N("num"), N("den")), ir.DTypeOf("out")),
                    ),
                ),
            ),
            ret("out"),
        ],
        {"bm": 4},
    )


def matmul_entry(masked: bool = True, other: float = 0.0) -> ir.Entry:
    tm, tn, tk = (
        tile("tile_m", N("m"), "bm"),
        tile("tile_n", N("n"), "bn"),
        tile("tile_k", N("k"), "bk"),
    )
    dot = ir.Dot(
        load("x", *T("tile_m", "tile_k"), other=other),
        load("y", *T("tile_k", "tile_n"), other=other),
        N("acc"),
        ir.F32,
        masked,
        precision="ieee",  # what the reference computes (it ignores the field)
    )
    return entry(
        "matmul",
        ("x", "y"),
        [
            shape("m", "k"),
            shape(None, "n", of="y"),
            alloc("out", (N("m"), N("n")), ir.DTypeOf("x"), "x"),
            ir.InlineKernel(
                "k",
                (tm, tn),
                (
                    ir.Assign(
                        "acc",
                        ir.Full((ir.BlockDim("tile_m"), ir.BlockDim("tile_n")), C(0.0), ir.F32),
                    ),
                    ir.TileLoop((tk,), (ir.Assign("acc", dot),)),
                    ir.Store("out", T("tile_m", "tile_n"), ir.Cast(N("acc"), ir.DTypeOf("out"))),
                ),
            ),
            ret("out"),
        ],
        {"bm": 16, "bn": 16, "bk": 16},
    )


def row_reduce_entry(
    op: str, other: float | None, masked: bool, out_dtype: ir.DType = ir.F32, keepdim: bool = False
) -> ir.Entry:
    """``out[i] = op(x[i, :])`` with the given padding and masking."""
    value = reduce(op, load("x", ir.TileIndex("tile_m"), FULL, other=other), 1, keepdim, masked)
    index = (ir.TileIndex("tile_m"), FULL) if keepdim else (ir.TileIndex("tile_m"),)
    out_shape = (N("m"), C(1)) if keepdim else (N("m"),)
    return entry(
        "rows",
        ("x",),
        [
            shape("m", "n"),
            alloc("out", out_shape, out_dtype, "x"),
            ir.InlineKernel("k", (tile("tile_m", N("m"), "bm"),), (ir.Store("out", index, value),)),
            ret("out"),
        ],
        {"bm": 4},
    )


# ------------------------------------------------------------------------------------------------
# Hand-built IR against torch


def test_add_ragged_and_configs() -> None:
    x, y = torch.randn(37, 50), torch.randn(37, 50)
    e = add_entry()
    # Written in place: the interpreter outlines the kernel itself.
    torch.testing.assert_close(run_entry(e, (x, y)), x + y, rtol=0, atol=0)
    torch.testing.assert_close(run_entry(e, {"x": x, "y": y}, {"bm": 8, "bn": 64}), x + y)
    # Outlined: the entry launches the module's kernel.
    m = hand_module("add.py", e)
    (launch,) = m.entries[0].launches()
    assert launch.kernel == "k" and m.kernels[0].params[0] == ir.Param("x", "tensor", rank=2)
    torch.testing.assert_close(run_module(m, "add", x, y, config={"bm": 1}), x + y)
    torch.testing.assert_close(
        run_entry(m.entries[0], (x, y), {"bn": 7}, kernels=m.kernels), x + y, rtol=0, atol=0
    )
    with pytest.raises(IRTypeError, match="launch of unknown kernel 'k'"):
        run_entry(m.entries[0], (x, y))


def test_add_keeps_input_dtype() -> None:
    x, y = torch.randn(5, 70).half(), torch.randn(5, 70).half()
    out = run(add_entry(), (x, y))
    assert out.dtype == torch.float16
    torch.testing.assert_close(out, x + y)


def test_softmax_full_dim() -> None:
    x = torch.randn(7, 45) * 3
    out = run(softmax_entry(), (x,))
    torch.testing.assert_close(out, torch.softmax(x, dim=1))
    x16 = x.half()
    torch.testing.assert_close(run(softmax_entry(), (x16,)), torch.softmax(x16.float(), 1).half())


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_matmul_k_loop(dtype: torch.dtype) -> None:
    x, y = torch.randn(37, 70, dtype=dtype), torch.randn(70, 45, dtype=dtype)
    out = run(matmul_entry(), (x, y))
    assert out.dtype == dtype
    ref = (x.double() @ y.double()).to(dtype)
    torch.testing.assert_close(out, ref, rtol=2e-3, atol=2e-3)
    # One tile covering everything (blocks larger than the extents).
    out = run(matmul_entry(), (x, y), {"bm": 64, "bn": 64, "bk": 128})
    torch.testing.assert_close(out, ref, rtol=2e-3, atol=2e-3)


def test_unmasked_dot_sees_padding() -> None:
    x, y = torch.randn(9, 20), torch.randn(20, 11)
    # k = 20 with blocks of 16: the second K tile has 12 invalid lanes, which read 1.0.
    masked = run(matmul_entry(masked=True, other=1.0), (x, y))
    unmasked = run(matmul_entry(masked=False, other=1.0), (x, y))
    torch.testing.assert_close(masked, x @ y)
    torch.testing.assert_close(unmasked, x @ y + 12.0)


def test_kernel_configs_and_the_run_config() -> None:
    # Tunables take the run's config, else the kernel's first config, else their default: the
    # unmasked dot's padding count tells which block size ran (k = 20).
    x, y = torch.randn(9, 20), torch.randn(20, 11)
    e = matmul_entry(masked=False, other=1.0)
    (kernel,) = (s for s in e.body if isinstance(s, ir.InlineKernel))
    configured = dataclasses.replace(kernel, configs=((("bk", 8),),))
    e = dataclasses.replace(e, body=tuple(configured if s is kernel else s for s in e.body))
    assert hand_module("mm.py", e).kernels[0].configs == ((("bk", 8),),)
    torch.testing.assert_close(run(e, (x, y)), x @ y + 4.0)  # the config: 24 lanes
    torch.testing.assert_close(run(e, (x, y), {"bk": 32}), x @ y + 12.0)
    torch.testing.assert_close(run(e, (x, y), {"bk": 5}), x @ y)


def test_launches_run_in_order_and_share_the_run_config() -> None:
    # tmp = x * 2 in one kernel, out = tmp + 1 in the next: the second reads what the first wrote.
    x = torch.randn(37, 21)
    row = (ir.TileIndex("tile_m"), FULL)
    twice = ir.InlineKernel(
        "twice",
        (tile("tile_m", N("m"), "bm"),),
        (ir.Store("tmp", row, B("*", load("x", *row), C(2.0))),),
    )
    plus = ir.InlineKernel(
        "plus",
        (tile("tile_m", N("m"), "bm"),),
        (ir.Store("out", row, B("+", load("tmp", *row), C(1.0))),),
    )
    e = entry(
        "two",
        ("x",),
        [shape("m", "n"), alloc_like("tmp", "x"), alloc_like("out", "x"), twice, plus, ret("out")],
        {"bm": 16},
    )
    module = hand_module("two.py", e)
    assert [k.name for k in module.kernels] == ["twice", "plus"]
    assert [launch.kernel for launch in module.entries[0].launches()] == ["twice", "plus"]
    for config in (None, {"bm": 4}, {"bm": 64}):
        torch.testing.assert_close(run_module(module, "two", x, config=config), x * 2 + 1)


def test_run_kernel_writes_its_tensors_in_place() -> None:
    module = hand_module("add.py", add_entry())
    (kernel,) = module.kernels
    x, y = torch.randn(19, 33), torch.randn(19, 33)
    out = torch.full_like(x, float("nan"))
    args = {"x": x, "y": y, "out": out, "m": 19, "n": 33}
    assert [p.name for p in kernel.params] == list(args)
    run_kernel(kernel, args, {"bm": 8})
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)
    # Only the tiles of the grid are written: a smaller extent leaves the rest as it was.
    out2 = torch.zeros_like(x)
    run_kernel(kernel, {**args, "out": out2, "m": 5})
    torch.testing.assert_close(out2[:5], (x + y)[:5], rtol=0, atol=0)
    assert not out2[5:].any()


def test_host_code_carried_without_a_model_is_not_run() -> None:
    module = hand_module("add.py", add_entry())
    entry_ = module.entries[0]
    carried = dataclasses.replace(
        entry_, body=(ir.Carried("w", "tensor", "helper(x)", rank=2), *entry_.body)
    )
    with pytest.raises(
        InterpreterError,
        match="add: host code the frontend carries without modelling cannot be run",
    ):
        run_entry(carried, (torch.zeros(2, 2), torch.zeros(2, 2)), kernels=module.kernels)
    partial = dataclasses.replace(entry_, complete=False)
    with pytest.raises(
        InterpreterError,
        match="add: host code the frontend carries without modelling cannot be run",
    ):
        run_entry(partial, (torch.zeros(2, 2), torch.zeros(2, 2)), kernels=module.kernels)


def test_in_place_kernel_rebinding_a_host_scalar_runs() -> None:
    # The old IR allowed device code to rebind a host scalar it reads (the Helion backend's
    # REBOUND cases rename it); outlining must keep the host value as the kernel's parameter.
    x = torch.randn(37)
    scale = ir.InlineKernel(
        "k",
        (tile("t", ir.SizeOf("x", 0), "bt"),),
        (
            ir.Assign("s", B("*", N("s"), C(2.0))),
            ir.Store("out", T("t"), B("*", load("x", *T("t")), N("s"))),
        ),
    )
    e = entry(
        "scaled", ("x",), [alloc_like("out", "x"), scale, ret("out")], {"bt": 16}, (("s", "float"),)
    )
    torch.testing.assert_close(run_entry(e, (x, 1.5)), x * 3.0)


def test_masked_vs_unmasked_sum() -> None:
    x = torch.randn(7, 45)  # 45 columns pad to 64 lanes
    masked = run(row_reduce_entry("sum", 1.0, masked=True), (x,))
    unmasked = run(row_reduce_entry("sum", 1.0, masked=False), (x,))
    torch.testing.assert_close(masked, x.sum(1))
    torch.testing.assert_close(unmasked, x.sum(1) + (64 - 45))
    # Never-read padding is NaN: harmless under a masked reduction, visible without one.
    assert torch.isfinite(run(row_reduce_entry("sum", None, masked=True), (x,))).all()
    assert torch.isnan(run(row_reduce_entry("sum", None, masked=False), (x,))).all()


@pytest.mark.parametrize("op", ["max", "min", "prod", "argmax", "argmin"])
def test_masked_reductions(op: str) -> None:
    x = torch.rand(6, 13) + 0.5  # positive, so pad 0.0 would win an unmasked min/argmin/prod
    if op in ("max", "argmax"):
        x = -x  # ... and, negated, an unmasked max/argmax
    dtype = ir.I32 if op.startswith("arg") else ir.F32
    out = run(row_reduce_entry(op, 0.0, masked=True, out_dtype=dtype), (x,))
    ref = {
        "max": x.amax(1),
        "min": x.amin(1),
        "prod": x.prod(1),
        "argmax": x.argmax(1).int(),
        "argmin": x.argmin(1).int(),
    }[op]
    torch.testing.assert_close(out, ref)
    unmasked = run(row_reduce_entry(op, 0.0, masked=False, out_dtype=dtype), (x,))
    assert not torch.equal(unmasked, ref)


def test_keepdim_store() -> None:
    x = torch.randn(9, 30)
    out = run(row_reduce_entry("sum", 0.0, masked=True, keepdim=True), (x,))
    torch.testing.assert_close(out, x.sum(1, keepdim=True))


def test_gather_and_scatter() -> None:
    x = torch.randn(100, 6)
    idx = torch.randint(0, 100, (37,))
    gathered = load("x", ir.GatherIndex(load("idx", ir.TileIndex("t"))), FULL)
    e = entry(
        "gather",
        ("x", "idx"),
        [
            alloc("out", (ir.SizeOf("idx", 0), ir.SizeOf("x", 1)), ir.DTypeOf("x"), "x"),
            ir.InlineKernel(
                "k",
                (tile("t", ir.SizeOf("idx", 0), "bt"),),
                (ir.Store("out", (ir.TileIndex("t"), FULL), gathered),),
            ),
            ret("out"),
        ],
        {"bt": 16},
    )
    torch.testing.assert_close(run(e, (x, idx)), x[idx])
    # Scatter the rows back into a zeroed tensor (a permutation, so no write races).
    perm = torch.randperm(37)
    rows = torch.randn(37, 6)
    scatter = entry(
        "scatter",
        ("rows", "perm"),
        [
            alloc(
                "out", (ir.SizeOf("rows", 0), ir.SizeOf("rows", 1)), ir.DTypeOf("rows"), "rows", 0.0
            ),
            ir.InlineKernel(
                "k",
                (tile("t", ir.SizeOf("perm", 0), "bt"),),
                (
                    ir.Store(
                        "out",
                        (ir.GatherIndex(load("perm", ir.TileIndex("t"))), FULL),
                        load("rows", ir.TileIndex("t"), FULL),
                    ),
                ),
            ),
            ret("out"),
        ],
        {"bt": 8},
    )
    ref = torch.zeros(37, 6)
    ref[perm] = rows
    torch.testing.assert_close(run(scatter, (rows, perm)), ref)


@pytest.mark.parametrize("op", ["add", "max", "min"])
def test_atomics_with_duplicates(op: str) -> None:
    vals = torch.randn(50)
    idx = torch.randint(0, 7, (50,))
    e = entry(
        "hist",
        ("vals", "idx"),
        [
            alloc("out", (C(7),), ir.F32, "vals", 0.0),
            ir.InlineKernel(
                "k",
                (tile("t", ir.SizeOf("vals", 0), "bt"),),
                (
                    ir.AtomicRMW(
                        op,
                        "out",
                        (ir.GatherIndex(load("idx", ir.TileIndex("t"))),),
                        load("vals", ir.TileIndex("t")),
                    ),
                ),
            ),
            ret("out"),
        ],
        {"bt": 16},
    )
    ref = torch.zeros(7).scatter_reduce(
        0, idx, vals, {"add": "sum", "max": "amax", "min": "amin"}[op]
    )
    torch.testing.assert_close(run(e, (vals, idx)), ref)


def test_column_sums_reduce_block_axis_with_atomics() -> None:
    x = torch.randn(37, 21)
    e = entry(
        "colsum",
        ("x",),
        [
            shape("m", "n"),
            alloc("out", (N("n"),), ir.F32, "x", 0.0),
            ir.InlineKernel(
                "k",
                (tile("tile_m", N("m"), "bm"), tile("tile_n", N("n"), "bn")),
                (
                    ir.AtomicRMW(
                        "add",
                        "out",
                        T("tile_n"),
                        reduce("sum", load("x", *T("tile_m", "tile_n"), other=5.0), 0),
                    ),
                ),
            ),
            ret("out"),
        ],
        {"bm": 16, "bn": 8},
    )
    torch.testing.assert_close(run(e, (x,)), x.sum(0))


def test_unwritten_outputs_are_poisoned() -> None:
    x = torch.randn(10)
    ints = torch.arange(10, dtype=torch.int32)
    e = entry(
        "half",
        ("x", "ints"),
        [
            alloc_like("out", "x"),
            alloc_like("iout", "ints"),
            ir.InlineKernel(
                "k",
                (tile("t", C(5), "bt"),),
                (
                    ir.Store("out", T("t"), load("x", *T("t"))),
                    ir.Store("iout", T("t"), load("ints", *T("t"))),
                ),
            ),
            ret("out", "iout"),
        ],
        {"bt": 4},
    )
    out, iout = run(e, (x, ints))
    torch.testing.assert_close(out[:5], x[:5])
    assert torch.isnan(out[5:]).all()
    assert (iout[5:] == torch.iinfo(torch.int32).max).all() and torch.equal(iout[:5], ints[:5])


def test_tile_attributes_with_begin() -> None:
    # hl.tile(3, 30) in blocks of 8: tiles start at 3, 11, 19, 27.
    attrs = ("begin", "end", "block_size", "id", "count")
    t = tile("t", C(30), "bt", begin=C(3))
    body = tuple(
        ir.Store(
            "out",
            (ir.ScalarIndex(ir.TileAttr("t", "id")), ir.ScalarIndex(C(i))),
            ir.TileAttr("t", a),
        )
        for i, a in enumerate(attrs)
    ) + (ir.Store("idx", T("t"), ir.TileAttr("t", "index")),)
    e = entry(
        "attrs",
        ("x",),
        [
            alloc("out", (C(4), C(5)), ir.I32, "x", 0.0),
            alloc("idx", (C(30),), ir.I32, "x", -1.0),
            ir.InlineKernel("k", (t,), body),
            ret("out", "idx"),
        ],
        {"bt": 8},
    )
    out, idx = run(e, (torch.zeros(1),))
    # tile id is begin // block_size (Helion's definition); count is cdiv(end - begin, block).
    ref = [[3, 11, 8, 0, 4], [11, 19, 8, 1, 4], [19, 27, 8, 2, 4], [27, 30, 8, 3, 4]]
    assert out.tolist() == ref
    assert idx.tolist() == [-1] * 3 + list(range(3, 30))


def test_grid_index_and_scalar_if() -> None:
    # for i in hl.grid(m): out[i, :] = x[i, :] * 2 if flag else -x[i, :]
    x = torch.randn(5, 9)
    row = load("x", ir.TileIndex("i"), FULL)
    e = entry(
        "rows",
        ("x",),
        [
            shape("m", "n"),
            alloc_like("out", "x"),
            ir.InlineKernel(
                "k",
                (tile("i", N("m"), 1, scalar=True),),
                (
                    ir.If(
                        N("flag"),
                        (ir.Store("out", (ir.TileIndex("i"), FULL), B("*", row, C(2))),),
                        (ir.Store("out", (ir.TileIndex("i"), FULL), ir.UnaryOp("-", row)),),
                    ),
                ),
            ),
            ret("out"),
        ],
        {},
        scalars=(("flag", "bool"),),
    )
    torch.testing.assert_close(run(e, (x, True)), x * 2)
    torch.testing.assert_close(run(e, (x, False)), -x)


def test_transpose_expand_reshape_arange() -> None:
    x = torch.randn(19, 27)
    tm, tn = tile("tile_m", N("m"), "bm"), tile("tile_n", N("n"), "bn")
    col = ir.ExpandDims(ir.Cast(ir.Arange(ir.BlockDim("tile_n")), ir.F32), 0)  # [1, tile_n]
    value = ir.Permute(B("+", load("x", *T("tile_m", "tile_n")), col), (1, 0))
    flat = ir.Reshape(
        ir.ExpandDims(reduce("sum", load("x", *T("tile_m", "tile_n")), 1), 1),
        (ir.BlockDim("tile_m"),),
    )
    e = entry(
        "t",
        ("x",),
        [
            shape("m", "n"),
            alloc("out", (N("n"), N("m")), ir.DTypeOf("x"), "x"),
            alloc("part", (N("m"),), ir.F32, "x", 0.0),
            ir.InlineKernel(
                "k",
                (tm, tn),
                (
                    ir.Store("out", T("tile_n", "tile_m"), value),
                    ir.AtomicRMW("add", "part", T("tile_m"), flat),
                ),
            ),
            ret("out", "part"),
        ],
        {"bm": 8, "bn": 16},
    )
    out, part = run(e, (x,))
    lane = (torch.arange(27) % 16).float()
    torch.testing.assert_close(out, (x + lane).T)
    torch.testing.assert_close(part, x.sum(1))


def test_nested_tile_loop_carries_state() -> None:
    # One program; a nested loop over [m, n] tiles accumulates the total into a scalar.
    x = torch.randn(23, 17)
    tm, tn = tile("tile_m", N("m"), "bm"), tile("tile_n", N("n"), "bn")
    block_sum = reduce("sum", reduce("sum", load("x", *T("tile_m", "tile_n")), 1), 0)
    e = entry(
        "total",
        ("x",),
        [
            shape("m", "n"),
            alloc("out", (C(1),), ir.F32, "x"),
            ir.InlineKernel(
                "k",
                (tile("g", C(1), 1, scalar=True),),
                (
                    ir.Assign("acc", ir.Cast(C(0.0), ir.F32)),
                    ir.Assign("count", C(0)),
                    ir.TileLoop(
                        (tm, tn),
                        (
                            ir.Assign("acc", B("+", N("acc"), block_sum)),
                            ir.Assign("count", B("+", N("count"), C(1))),
                        ),
                    ),
                    ir.Store(
                        "out",
                        (ir.ScalarIndex(C(0)),),
                        B("+", N("acc"), B("*", N("count"), C(1000.0))),
                    ),
                ),
            ),
            ret("out"),
        ],
        {"bm": 8, "bn": 8},
    )
    # 3 x 3 tiles
    torch.testing.assert_close(run(e, (x,)), x.sum().reshape(1) + 9000.0)


def test_pointwise_dtype_rules() -> None:
    x = torch.tensor([-2.5, -1.0, 0.0, 0.5, 3.0], dtype=torch.float16)
    i = torch.tensor([7, 8, 9, 10, 11], dtype=torch.int32)
    lx, li = load("x", *T("t")), load("i", *T("t"))
    outs: dict[str, tuple[ir.Expr, ir.DType]] = {
        "exp": (ir.Call("exp", (lx,)), ir.F32),  # transcendental: f32 even for f16 input
        "gelu": (ir.Call("gelu", (lx,)), ir.F32),
        "gelu_tanh": (ir.Call("gelu_tanh", (lx,)), ir.F32),
        "silu": (ir.Call("silu", (lx,)), ir.F32),
        "relu": (ir.Call("relu", (lx,)), ir.DType("float16")),
        "where": (ir.Call("where", (B(">", lx, C(0)), lx, C(-1.0))), ir.DType("float16")),
        "floordiv": (B("//", li, C(3)), ir.I32),
        "mod": (B("%", li, C(3)), ir.I32),
        "truediv": (B("/", li, C(4)), ir.F32),  # int / int is float
        "maximum": (ir.Call("maximum", (li, C(9))), ir.I32),
        "cdiv": (ir.Call("cdiv", (li, C(4))), ir.I32),
    }
    body = tuple(ir.Store(name, T("t"), value) for name, (value, _) in outs.items())
    allocs = [alloc(name, (C(5),), dt, "x") for name, (_, dt) in outs.items()]
    e = entry(
        "pw",
        ("x", "i"),
        [
            *allocs,
            ir.InlineKernel("k", (tile("t", C(5), "bt"),), body),
            ir.Return(ir.TupleExpr(tuple(N(n) for n in outs))),
        ],
        {"bt": 4},
    )
    got = dict(zip(outs, run(e, (x, i))))
    xf = x.float()
    torch.testing.assert_close(got["exp"], xf.exp())
    torch.testing.assert_close(got["gelu"], torch.nn.functional.gelu(xf))
    torch.testing.assert_close(got["gelu_tanh"], torch.nn.functional.gelu(xf, approximate="tanh"))
    torch.testing.assert_close(got["silu"], torch.nn.functional.silu(xf))
    torch.testing.assert_close(got["relu"], torch.relu(x))
    torch.testing.assert_close(got["where"], torch.where(x > 0, x, -1.0))
    assert got["floordiv"].tolist() == [2, 2, 3, 3, 3]
    assert got["mod"].tolist() == [1, 2, 0, 1, 2]
    torch.testing.assert_close(got["truediv"], i.float() / 4)
    assert got["maximum"].tolist() == [9, 9, 9, 10, 11]
    assert got["cdiv"].tolist() == [2, 2, 3, 3, 3]


def test_host_assert_scalar_and_errors() -> None:
    e = add_entry()
    e = ir.Entry(
        e.name,
        e.params,
        (
            e.body[0],
            ir.Assert(B("==", ir.SizeOf("y", 0), N("m")), "x and y must have the same rows"),
            ir.Assign("half", B("//", N("n"), C(2))),
            *e.body[1:],
        ),
    )
    with pytest.raises(AssertionError, match="same rows"):
        run(e, (torch.zeros(4, 4), torch.zeros(5, 4)))
    with pytest.raises(ValueError, match="unknown tunable 'block_k'"):
        run(e, (torch.zeros(4, 4), torch.zeros(4, 4)), {"block_k": 4})
    with pytest.raises(TypeError, match="missing argument 'y'"):
        run(e, (torch.zeros(4, 4),))
    # A full-dim index naming a bigger extent than the tensor has reads out of bounds.
    bad = entry(
        "bad",
        ("x",),
        [
            shape("m", "n"),
            alloc_like("out", "x"),
            ir.InlineKernel(
                "k",
                (tile("tile_m", N("m"), "bm"),),
                (
                    ir.Store(
                        "out",
                        (ir.TileIndex("tile_m"), FULL),
                        load("x", ir.TileIndex("tile_m"), ir.FullIndex(B("+", N("n"), C(1)))),
                    ),
                ),
            ),
            ret("out"),
        ],
        {"bm": 4},
    )
    with pytest.raises(InterpreterError, match="out-of-bounds access to 'x' along dim 1"):
        run(bad, (torch.zeros(3, 8),))


def test_next_power_of_2() -> None:
    assert [next_power_of_2(n) for n in (0, 1, 2, 3, 45, 64, 65)] == [1, 1, 2, 4, 64, 64, 128]


# ------------------------------------------------------------------------------------------------
# Helion examples: the interpreter against the Helion kernel under TRITON_INTERPRET=1


def _randn(*size: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.randn(*size, dtype=dtype)


# name -> (inputs, block sizes small enough that several programs run and edges are ragged)
CASES: dict[str, tuple[Callable[[], tuple[object, ...]], list[int]]] = {
    "add": (lambda: (_randn(37, 50), _randn(37, 50)), [16, 32]),
    "attention": (lambda: (_randn(2, 37, 16), _randn(2, 50, 16), _randn(2, 50, 16)), [1, 16, 16]),
    "bmm": (lambda: (_randn(2, 37, 40), _randn(2, 40, 45)), [1, 16, 16, 16]),
    "cross_entropy": (lambda: (_randn(7, 45), torch.randint(0, 45, (7,))), [4]),
    "cross_entropy_onehot": (lambda: (_randn(7, 300), torch.randint(0, 300, (7,))), [4, 64]),
    "exp": (lambda: (_randn(1500),), [512]),
    "gelu": (lambda: (_randn(37, 150, dtype=torch.float16),), [16, 64]),
    "layer_norm": (lambda: (_randn(7, 45), _randn(45), _randn(45)), [2]),
    "matmul": (
        lambda: (_randn(37, 40, dtype=torch.float16), _randn(40, 45, dtype=torch.float16)),
        [16, 16, 16],
    ),
    "matmul_bias_act": (lambda: (_randn(37, 40), _randn(40, 45), _randn(45)), [16, 16, 16]),
    "relu": (lambda: (_randn(37, 150),), [16, 64]),
    "rms_norm": (lambda: (_randn(7, 45), _randn(45)), [2]),
    "row_mean": (lambda: (_randn(7, 45),), [4]),
    "row_sum": (lambda: (_randn(7, 45),), [4]),
    "scaled_add": (lambda: (_randn(37, 50), _randn(37, 50), 0.5), [16, 32]),
    "silu": (lambda: (_randn(37, 150, dtype=torch.float16),), [16, 64]),
    "softmax": (lambda: (_randn(7, 45),), [2]),
    "softmax_two_pass": (lambda: (_randn(7, 300),), [2, 64]),
}

# Examples the interpreter is not checked on, and why (none at the moment). Keep a reason here
# rather than skipping inside the test.
EXCLUDED: dict[str, str] = {}
CHECKED = sorted(set(CASES) - set(EXCLUDED))


def test_every_example_has_a_case() -> None:
    assert sorted(p.stem for p in EXAMPLES.glob("*.py")) == sorted(CASES)


def _parse(name: str) -> ir.Module:
    from translator.dialects.helion.frontend import parse

    path = EXAMPLES / f"{name}.py"
    return parse(path.read_text(), str(path))


@pytest.fixture(scope="module")
def triton_interpret():
    """``TRITON_INTERPRET=1`` while Helion compiles and runs, plus the libdevice shim."""
    saved = {k: os.environ.get(k) for k in ("TRITON_INTERPRET", "HELION_INTERPRET")}
    os.environ["TRITON_INTERPRET"] = "1"
    os.environ.pop("HELION_INTERPRET", None)  # Helion refuses both at once
    from translator.dialects.triton.libdevice_shim import install

    install()
    yield
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


def _run_helion(name: str, args: tuple[object, ...], blocks: list[int]) -> object:
    import helion

    spec = importlib.util.spec_from_file_location(
        f"_helion_example_{name}", EXAMPLES / f"{name}.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    kernel = getattr(module, name)
    bound = kernel.bind(args)
    bound.set_config(helion.Config(**{**kernel.configs[0].config, "block_sizes": blocks}))
    return bound(*args)


def _as_tuple(value: object) -> tuple[torch.Tensor, ...]:
    return value if isinstance(value, tuple) else (value,)  # type: ignore[return-value]


@pytest.mark.parametrize("name", CHECKED)
def test_example_matches_helion(name: str, triton_interpret: None) -> None:
    torch.manual_seed(0)
    make_args, blocks = CASES[name]
    args = make_args()
    module = _parse(name)
    (kernel,) = module.kernels
    block_tunables = [t.name for t in kernel.tunables if t.kind == "block_size"]
    assert len(block_tunables) == len(blocks)
    got = _as_tuple(run_module(module, name, *args, config=dict(zip(block_tunables, blocks))))
    want = _as_tuple(_run_helion(name, args, blocks))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        assert not torch.isnan(g).any(), "the interpreter left output lanes unwritten"
        tol = 2e-3 if g.dtype == torch.float16 else 1e-4
        torch.testing.assert_close(g, w, rtol=tol, atol=tol)
