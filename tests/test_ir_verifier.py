"""The IR verifier: hand-built kernels and entries with one error each, and valid ones that pass.

Each error is checked in both shapes a kernel takes: written in place inside its entry (what a
frontend lifts, :class:`ir.InlineKernel`, checked by ``verify_entry``) and self-contained
(:class:`ir.Kernel`, checked by ``verify_kernel``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest
from ir_build import hand_module, inline_entry

from translator.ir import nodes as ir
from translator.ir.shapes import IRTypeError
from translator.ir.verifier import verify, verify_entry, verify_kernel

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
    """``out = x @ y`` with a K loop; ``kernel_body`` replaces the in-place kernel's statements."""
    return inline_entry(
        "matmul",
        (ir.Param("x", "tensor"), ir.Param("y", "tensor")),
        (
            ir.ShapeUnpack(("m", "k"), "x"),
            ir.ShapeUnpack((None, "n"), "y"),
            ir.Alloc("out", (N("m"), N("n")), None, ir.DTypeOf("x"), "x"),
            ir.InlineKernel("mm", (TM, TN), kernel_body),
            ir.Return(N("out")),
        ),
        TUNABLES,
        configs,
    )


MM_PARAMS = (
    ir.Param("x", "tensor", rank=2),
    ir.Param("y", "tensor", rank=2),
    ir.Param("out", "tensor", rank=2),
    ir.Param("m", "int"),
    ir.Param("k", "int"),
    ir.Param("n", "int"),
)


def mm_kernel(kernel_body: tuple[ir.Stmt, ...], configs: tuple = ()) -> ir.Kernel:
    """The kernel of :func:`matmul` as outlining gives it: reading only its parameters."""
    return ir.Kernel("mm", MM_PARAMS, (TM, TN), kernel_body, TUNABLES, configs)


def _inline(body: tuple[ir.Stmt, ...]) -> None:
    verify_entry(matmul(body))


def _outlined(body: tuple[ir.Stmt, ...]) -> None:
    verify_kernel(mm_kernel(body))


@pytest.fixture(params=[_inline, _outlined], ids=["inline", "kernel"])
def check(request: pytest.FixtureRequest) -> Callable[[tuple[ir.Stmt, ...]], None]:
    """Verify a matmul kernel body, in place in its entry or as a self-contained kernel."""
    return request.param


def acc_init() -> ir.Assign:
    return ir.Assign("acc", ir.Full((ir.BlockDim("tile_m"), ir.BlockDim("tile_n")), C(0.0), ir.F32))


def dot(lhs: ir.Expr | None = None, rhs: ir.Expr | None = None) -> ir.Dot:
    return ir.Dot(
        lhs or ir.Load("x", T("tile_m", "tile_k")),
        rhs or ir.Load("y", T("tile_k", "tile_n")),
        N("acc"),
        precision="tf32",
        loc=LOC,
    )


def store_acc() -> ir.Store:
    return ir.Store("out", T("tile_m", "tile_n"), ir.Cast(N("acc"), ir.DTypeOf("out")))


def valid_body() -> tuple[ir.Stmt, ...]:
    return (acc_init(), ir.TileLoop((TK,), (ir.Assign("acc", dot()),)), store_acc())


def test_valid_entry_passes() -> None:
    configs = ((("bm", 32), ("bn", 32), ("bk", 16)),)
    entry = matmul(valid_body(), configs=configs)
    verify_entry(entry)
    module = hand_module("mm.py", entry)  # verified
    verify(module)
    # Outlining gives the kernel written above: it reads only its parameters.
    assert module.kernels == (mm_kernel(valid_body(), configs),)
    verify_kernel(module.kernels[0])
    (launch,) = module.entries[0].launches()
    assert launch.args == tuple(N(p.name) for p in MM_PARAMS)
    verify_entry(module.entries[0], {"mm": module.kernels[0]})


def test_valid_row_softmax_passes() -> None:
    row = ir.Load("x", (ir.TileIndex("tile_m"), ir.FullIndex(N("n"))))
    entry = inline_entry(
        "softmax",
        (ir.Param("x", "tensor"),),
        (
            ir.ShapeUnpack(("m", "n"), "x"),
            ir.Alloc("out", None, "x", ir.DTypeOf("x"), "x"),
            ir.InlineKernel(
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
    module = hand_module("softmax.py", entry)
    assert [p.name for p in module.kernels[0].params] == ["x", "out", "m", "n"]


def test_undefined_name(check) -> None:
    body = (acc_init(), ir.Store("out", T("tile_m", "tile_n"), ir.Name("accc", loc=LOC)))
    with pytest.raises(IRTypeError, match="name 'accc' is not defined here") as err:
        check(body)
    assert err.value.loc == LOC


def test_kernel_reading_a_host_name_that_is_no_parameter() -> None:
    # Self-contained: `m` is a host size; a kernel without the parameter cannot read it.
    kernel = mm_kernel(valid_body())
    kernel = dataclasses.replace(kernel, params=tuple(p for p in kernel.params if p.name != "m"))
    with pytest.raises(IRTypeError, match="name 'm' is not defined here"):
        verify_kernel(kernel)


def test_tile_variable_out_of_scope(check) -> None:
    # tile_k is only bound inside its loop; using it after the loop is an error.
    body = (*valid_body(), ir.Store("out", T("tile_m", "tile_k"), N("acc"), loc=LOC))
    with pytest.raises(IRTypeError, match="tile variable 'tile_k' is not in scope"):
        check(body)


def test_loop_local_name_is_not_visible_after_the_loop(check) -> None:
    body = (
        acc_init(),
        ir.TileLoop((TK,), (ir.Assign("part", dot()),)),
        ir.Store("out", T("tile_m", "tile_n"), N("part")),
    )
    with pytest.raises(IRTypeError, match="name 'part' is not defined here"):
        check(body)


def test_a_name_both_branches_bind_to_different_types_is_explained_where_it_is_read(check) -> None:
    # Not an error by itself (one branch's value may be dead), but a read after the `if` says
    # why the name has no type there, at the `if`, instead of "not defined".
    branch = ir.If(
        ir.BinOp(">", N("m"), C(64)),
        (ir.Assign("v", ir.Cast(N("acc"), ir.DType("float16"))),),
        (ir.Assign("v", N("acc")),),
        loc=LOC,
    )
    body = (acc_init(), branch, ir.Store("out", T("tile_m", "tile_n"), N("v")))
    with pytest.raises(IRTypeError) as err:
        check(body)
    assert str(err.value) == (
        "'v' is bound in both branches of an `if` as values of different types (a float16 tile "
        "[tile_m, tile_n] and a float32 tile [tile_m, tile_n]), so it has no one type after it; "
        "cast both to one dtype"
    )
    assert err.value.loc == LOC
    check((acc_init(), branch, store_acc()))  # never read after the `if`: fine


def test_broadcast_mismatch(check) -> None:
    # [tile_m, tile_n] + [tile_n, tile_m]
    bad = ir.BinOp("+", N("acc"), ir.Permute(N("acc"), (1, 0)), loc=LOC)
    body = (acc_init(), ir.Assign("acc", bad), store_acc())
    with pytest.raises(
        IRTypeError, match=r"cannot broadcast dims \[tile_m, tile_n\] and \[tile_n, tile_m\]"
    ):
        check(body)


def test_loop_carried_dtype_change(check) -> None:
    loop = ir.TileLoop((TK,), (ir.Assign("acc", ir.Cast(dot(), ir.DType("float16"))),), loc=LOC)
    with pytest.raises(IRTypeError) as err:
        check((acc_init(), loop, store_acc()))
    assert str(err.value) == (
        "loop-carried 'acc' changes dtype from float32 to float16; cast it back inside the loop"
    )
    assert err.value.loc == LOC


def test_loop_carried_dims_change(check) -> None:
    shrink = ir.Reduce("sum", N("acc"), 0, keepdim=False)  # [tile_n]
    loop = ir.TileLoop((TK,), (ir.Assign("acc", ir.ExpandDims(ir.ExpandDims(shrink, 0), 0)),))
    with pytest.raises(IRTypeError, match="loop-carried 'acc' changes dims"):
        check((acc_init(), loop, store_acc()))


def test_dot_contraction_mismatch(check) -> None:
    # x[tile_m, tile_k] @ y[tile_n, tile_n]: the contraction pairs tile_k with tile_n.
    bad = dot(rhs=ir.Load("y", T("tile_n", "tile_n")))
    body = (acc_init(), ir.TileLoop((TK,), (ir.Assign("acc", bad),)), store_acc())
    with pytest.raises(IRTypeError, match="dot contraction dims differ: tile_k and tile_n") as err:
        check(body)
    assert err.value.loc == LOC


def test_dot_rank_mismatch(check) -> None:
    bad = dot(rhs=ir.Load("y", (ir.TileIndex("tile_n"), ir.ScalarIndex(C(0)))))
    body = (acc_init(), ir.TileLoop((TK,), (ir.Assign("acc", bad),)), store_acc())
    with pytest.raises(IRTypeError, match=r"dot needs operands of equal rank >= 2"):
        check(body)


def test_store_of_a_bigger_value_than_its_region(check) -> None:
    # A [tile_m, tile_n] accumulator stored into the 1-D region out[tile_m, 0].
    store = ir.Store("out", (ir.TileIndex("tile_m"), ir.ScalarIndex(C(0))), N("acc"), loc=LOC)
    body = (acc_init(), store)
    with pytest.raises(IRTypeError) as err:
        check(body)
    assert str(err.value) == (
        "stored value has dims ['tile_m', 'tile_n'], more than the region ['tile_m']"
    )


def test_store_of_a_mismatched_value(check) -> None:
    store = ir.Store("out", T("tile_m", "tile_n"), ir.Permute(N("acc"), (1, 0)))
    with pytest.raises(IRTypeError, match="cannot broadcast dims"):
        check((acc_init(), store))


def test_unknown_tunable_in_config() -> None:
    # Configs belong to the kernel: one naming a tunable the kernel lacks is an error.
    kernel = mm_kernel(valid_body(), configs=((("bm", 32), ("block_k", 16)),))
    with pytest.raises(IRTypeError, match="config names unknown tunable 'block_k'"):
        verify_kernel(kernel)
    entries = hand_module("mm.py", matmul(valid_body())).entries
    with pytest.raises(IRTypeError, match="config names unknown tunable 'block_k'"):
        verify(ir.Module("mm.py", entries, (kernel,)))


def test_block_size_that_is_no_tunable(check) -> None:
    tk = dataclasses.replace(TK, block="block_k")
    body = (acc_init(), ir.TileLoop((tk,), (ir.Assign("acc", dot()),), loc=LOC), store_acc())
    with pytest.raises(
        IRTypeError, match="tile 'tile_k' uses block size 'block_k', which is no tunable"
    ):
        check(body)


def test_grid_block_size_that_is_no_tunable() -> None:
    kernel = dataclasses.replace(mm_kernel(valid_body()), tunables=TUNABLES[1:])
    with pytest.raises(
        IRTypeError, match="tile 'tile_m' uses block size 'bm', which is no tunable"
    ):
        verify_kernel(kernel)


def test_nested_kernel_and_device_return(check) -> None:
    inner = ir.InlineKernel("inner", (TK,), (), tunables=TUNABLES)
    with pytest.raises(IRTypeError, match="kernels cannot nest"):
        check((inner,))
    with pytest.raises(IRTypeError, match="return inside device code"):
        check((ir.Return(N("out")),))


def test_host_statements_inside_a_kernel(check) -> None:
    with pytest.raises(IRTypeError, match="carried host code inside a kernel"):
        check((ir.Carried("w", "tensor", "helper(x)"),))


def test_kernel_launching_a_kernel() -> None:
    with pytest.raises(IRTypeError, match="kernels cannot launch kernels"):
        verify_kernel(mm_kernel((ir.Launch("mm", (), ()),)))


def test_load_rank_mismatch(check) -> None:
    body = (ir.Assign("v", ir.Load("x", T("tile_m"))),)
    with pytest.raises(IRTypeError, match="'x' has 2 dims but is indexed with 1"):
        check(body)


def test_kernel_signature_errors() -> None:
    kernel = mm_kernel(valid_body())
    twice = dataclasses.replace(kernel, params=(*kernel.params, ir.Param("m", "int")))
    with pytest.raises(IRTypeError, match="kernel 'mm' has duplicate parameters"):
        verify_kernel(twice)
    with pytest.raises(IRTypeError, match="unknown schedule 'diagonal'"):
        verify_kernel(dataclasses.replace(kernel, hints=ir.Hints(schedule="diagonal")))
    strided = dataclasses.replace(TM, step=N("k"))
    with pytest.raises(IRTypeError, match="grid tile 'tile_m' cannot skip tiles"):
        verify_kernel(dataclasses.replace(kernel, grid=(strided, TN)))


def test_launches_must_match_their_kernel() -> None:
    module = hand_module("mm.py", matmul(valid_body()))
    (kernel,) = module.kernels
    entry = module.entries[0]
    (launch,) = entry.launches()

    def with_launch(new: ir.Launch) -> ir.Module:
        body = tuple(new if s is launch else s for s in entry.body)
        return dataclasses.replace(module, entries=(dataclasses.replace(entry, body=body),))

    renamed = dataclasses.replace(launch, kernel="nope")
    with pytest.raises(IRTypeError, match="launch of unknown kernel 'nope'"):
        verify(with_launch(renamed))
    short = dataclasses.replace(launch, args=launch.args[:-1], texts=launch.texts[:-1])
    with pytest.raises(IRTypeError, match="'mm' takes 6 arguments, the launch passes 5"):
        verify(with_launch(short))
    # `out` (a tensor parameter) passed the scalar `m`.
    swapped = dataclasses.replace(launch, args=(*launch.args[:2], N("m"), *launch.args[3:]))
    with pytest.raises(IRTypeError, match="'mm' parameter 'out' takes a tensor"):
        verify(with_launch(swapped))
    # A launch naming a source launch site needs a module that carries one.
    with pytest.raises(IRTypeError, match="launch of 'mm' names no launch site"):
        verify(with_launch(dataclasses.replace(launch, site=0)))
    # An entry checked without its kernels cannot know what it launches.
    with pytest.raises(IRTypeError, match="launch of unknown kernel 'mm'"):
        verify_entry(entry)


def test_duplicate_entry_names() -> None:
    module = hand_module("mm.py", matmul(valid_body()))
    with pytest.raises(IRTypeError, match="duplicate entry names"):
        verify(dataclasses.replace(module, entries=module.entries * 2))


def test_duplicate_kernel_names() -> None:
    module = hand_module("mm.py", matmul(valid_body()))
    with pytest.raises(IRTypeError, match="duplicate kernel names"):
        verify(dataclasses.replace(module, kernels=module.kernels * 2))


# --------------------------------------------------------------------------------------------------
# Loops between device scalars, load predicates


def test_a_loop_may_run_between_device_scalars(check) -> None:
    # `hl.tile(start, end)` with `start`, `end` computed in the kernel (a jagged row's offsets).
    start = ir.Assign("start", ir.TileAttr("tile_m", "begin"))
    end = ir.Assign("end", ir.BinOp("+", N("start"), C(3)))
    loop = ir.TileLoop((dataclasses.replace(TK, begin=N("start"), extent=N("end")),), ())
    check((start, end, loop))
    tile_bound = ir.Assign("bad", ir.TileAttr("tile_m", "index"))
    wide = ir.TileLoop((dataclasses.replace(TK, extent=N("bad")),), (), loc=LOC)
    with pytest.raises(IRTypeError, match="the bounds of tile 'tile_k' must be scalars"):
        check((tile_bound, wide))


def test_a_load_predicate_is_a_boolean_of_the_region_and_needs_other(check) -> None:
    x = ir.Load("x", T("tile_m", "tile_k"))
    valid = ir.BinOp("<", ir.TileAttr("tile_k", "index"), N("k"))
    ok = dataclasses.replace(x, mask=ir.ExpandDims(valid, 0))
    check((acc_init(), ir.TileLoop((TK,), (ir.Assign("acc", dot(lhs=ok)),)), store_acc()))
    for bad, message in (
        (dataclasses.replace(ok, other=None), "must say what masked lanes read"),
        (dataclasses.replace(ok, mask=ir.TileAttr("tile_k", "index")), "must be boolean"),
        (
            dataclasses.replace(ok, mask=ir.BinOp("<", ir.TileAttr("tile_n", "index"), N("n"))),
            "cannot broadcast",
        ),
    ):
        body = (acc_init(), ir.TileLoop((TK,), (ir.Assign("acc", dot(lhs=bad)),)), store_acc())
        with pytest.raises(IRTypeError, match=message):
            check(body)


def test_dot_with_accumulator_has_the_accumulators_whole_dims() -> None:
    # acc[tile_m, :hq] + p[tile_m, tile_n] @ v[tile_n, :hv]: the program states hq == hv (as a
    # broadcast of two whole dims does); the sum is the loop-carried accumulator, typed by it.
    from translator.ir.shapes import TileType, TypeEnv, infer

    hq, hv = ir.FullDim(N("hq")), ir.FullDim(N("hv"))
    env = TypeEnv(
        vars={
            "acc": TileType((ir.BlockDim("tile_m"), hq), ir.F32),
            "p": TileType((ir.BlockDim("tile_m"), ir.BlockDim("tile_n")), ir.DType("float16")),
            "v": TileType((ir.BlockDim("tile_n"), hv), ir.DType("float16")),
        }
    )
    with_acc = ir.Dot(N("p"), N("v"), N("acc"), ir.F32)
    assert infer(with_acc, env).dims == (ir.BlockDim("tile_m"), hq)
    assert infer(ir.Dot(N("p"), N("v"), None, ir.F32), env).dims == (ir.BlockDim("tile_m"), hv)
