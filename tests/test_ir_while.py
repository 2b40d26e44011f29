"""The IR's ``while`` loop (a trip count each program decides as it runs): verifier, printer and
reference interpreter, on a hand-built stream-K GEMM and on the errors it must catch; and the
analyses that serve it: loops over one tile at a computed id (recognised, proved a no-op when
empty, fused with the walk over ids) and which scalars are never negative."""

from __future__ import annotations

import dataclasses

import pytest
import torch
from ir_build import hand_module, inline_entry
from test_ir_interpreter import B, C, N, T

from translator.ir import nodes as ir
from translator.ir.interpreter import MAX_WHILE_ITERATIONS, InterpreterError, run_module
from translator.ir.printer import format_kernel
from translator.ir.shapes import IRTypeError
from translator.ir.signs import nonnegative, nonnegative_names
from translator.ir.single_tile import (
    at_extent,
    at_id,
    empty_is_noop,
    fuse_tile_walks,
    is_single_tile_loop,
    tile_at,
)
from translator.ir.visit import walk_stmts

LOC = ir.Loc("k.py", 12, 4)


def minimum(a: ir.Expr, b: ir.Expr) -> ir.Expr:
    return ir.Call("minimum", (a, b))


def at(name: str, tile_id: ir.Expr, block: str, extent: ir.Expr) -> ir.TileVar:
    """Tile ``name`` of ``extent`` at ``tile_id``: a loop over that one tile."""
    begin = B("*", tile_id, N(block))
    return ir.TileVar(name, minimum(B("+", begin, N(block)), extent), block, begin=begin)


def streamk_body() -> tuple[ir.Stmt, ...]:
    """One program's walk: while it has iterations left, the tile of the next one, the K
    iterations of that tile it owns, their partial sum added into ``c``."""
    tile_k = at("tile_k", B("-", N("it"), N("tile_iter")), "bk", N("k"))
    it = ir.TileVar("it", N("end_iter"), C(1), begin=N("start_iter"), scalar=True)
    dot = ir.Dot(
        ir.Load("a", T("tile_m", "tile_k")),
        ir.Load("b", T("tile_k", "tile_n")),
        N("acc"),
        ir.F32,
        precision="ieee",
    )
    per_program = ir.Call("cdiv", (N("total_iters"), N("num_sm")))
    tiles_n = ir.Call("cdiv", (N("n"), N("bn")))
    walk = (
        ir.Assign("tile_id", B("//", N("start_iter"), N("iters_per_tile"))),
        ir.Assign("tile_iter", B("*", N("tile_id"), N("iters_per_tile"))),
        ir.Assign("end_iter", minimum(B("+", N("tile_iter"), N("iters_per_tile")), N("last_iter"))),
        ir.TileLoop(
            (
                at("tile_m", B("//", N("tile_id"), tiles_n), "bm", N("m")),
                at("tile_n", B("%", N("tile_id"), tiles_n), "bn", N("n")),
            ),
            (
                ir.Assign(
                    "acc", ir.Full((ir.BlockDim("tile_m"), ir.BlockDim("tile_n")), C(0.0), ir.F32)
                ),
                ir.TileLoop((it,), (ir.TileLoop((tile_k,), (ir.Assign("acc", dot),)),)),
                ir.AtomicRMW("add", "c", T("tile_m", "tile_n"), N("acc")),
            ),
        ),
        ir.Assign("start_iter", N("end_iter")),
    )
    return (
        ir.Assign("start_iter", B("*", N("pid"), per_program)),
        ir.Assign("last_iter", minimum(B("+", N("start_iter"), per_program), N("total_iters"))),
        ir.While(B("<", N("start_iter"), N("last_iter")), walk, loc=LOC),
    )


def streamk_entry(body: tuple[ir.Stmt, ...] | None = None) -> ir.Entry:
    cdiv16 = lambda n: ir.Call("cdiv", (N(n), C(16)))  # noqa: E731
    host = (
        ir.ShapeUnpack(("m", "k"), "a"),
        ir.ShapeUnpack((None, "n"), "b"),
        ir.Assign("iters_per_tile", cdiv16("k")),
        ir.Assign("total_iters", B("*", B("*", cdiv16("m"), cdiv16("n")), N("iters_per_tile"))),
        ir.Alloc("c", (N("m"), N("n")), None, ir.F32, "a", 0.0),
        ir.InlineKernel(
            "streamk",
            (ir.TileVar("pid", N("num_sm"), C(1), scalar=True),),
            streamk_body() if body is None else body,
        ),
        ir.Return(N("c")),
    )
    params = (ir.Param("a", "tensor"), ir.Param("b", "tensor"), ir.Param("num_sm", "int"))
    tunables = tuple(ir.Tunable(b, "block_size", 16) for b in ("bm", "bn", "bk"))
    return inline_entry("streamk_matmul", params, host, tunables)


@pytest.mark.parametrize("m, n, k, num_sm", [(37, 41, 29, 5), (16, 16, 16, 3), (64, 48, 100, 7)])
def test_streamk_runs_in_the_interpreter(m: int, n: int, k: int, num_sm: int) -> None:
    # Programs start and stop in the middle of tiles (5 programs over 3 * 3 * 2 iterations):
    # every partial sum must land once.
    module = hand_module("streamk.py", streamk_entry())
    a, b = torch.randn(m, k), torch.randn(k, n)
    c = run_module(module, "streamk_matmul", a, b, num_sm)
    torch.testing.assert_close(c, a @ b, rtol=1e-4, atol=1e-4)


def test_while_prints_with_its_body() -> None:
    text = format_kernel(hand_module("streamk.py", streamk_entry()).kernels[0])
    assert "  while start_iter < last_iter:\n    tile_id = start_iter // iters_per_tile\n" in text
    assert "    start_iter = end_iter" in text
    assert (
        "loop tile_m: tile tile_id // cdiv(n, bn) * bm..minimum(tile_id // cdiv(n, bn) * bm + "
        "bm, m) by bm" in text
    )


def _with_while(test: ir.Expr, body: tuple[ir.Stmt, ...]) -> ir.Entry:
    return streamk_entry((ir.Assign("i", C(0)), ir.While(test, body, loc=LOC)))


def test_a_carried_value_keeps_its_kind() -> None:
    grow = ir.Assign("i", ir.Full((ir.BlockDim("pid"),), C(1), ir.I32))
    with pytest.raises(IRTypeError, match="loop-carried 'i' changes kind") as err:
        hand_module("w.py", _with_while(B("<", N("i"), C(3)), (grow,)))
    assert err.value.loc == LOC


def test_the_test_is_a_scalar() -> None:
    test = B("<", ir.Load("a", (ir.FullIndex(), ir.ScalarIndex(C(0)))), C(3.0))
    body = (ir.Assign("i", B("+", N("i"), C(1))),)
    with pytest.raises(IRTypeError, match="a while condition must be a scalar") as err:
        hand_module("w.py", _with_while(test, body))
    assert err.value.loc == LOC


def test_the_test_reads_no_name_the_body_binds_first() -> None:
    body = (ir.Assign("j", B("+", N("i"), C(1))), ir.Assign("i", N("j")))
    with pytest.raises(IRTypeError, match="name 'j' is not defined here"):
        hand_module("w.py", _with_while(B("<", N("j"), C(3)), body))


def test_names_the_body_binds_first_die_with_it() -> None:
    body = (ir.Assign("j", B("+", N("i"), C(1))), ir.Assign("i", N("j")))
    after = ir.AtomicRMW("add", "c", (ir.ScalarIndex(C(0)), ir.ScalarIndex(C(0))), N("j"))
    entry = streamk_entry((ir.Assign("i", C(0)), ir.While(B("<", N("i"), C(3)), body), after))
    with pytest.raises(IRTypeError, match="name 'j' is not defined here"):
        hand_module("w.py", entry)


def test_a_loop_that_never_ends_is_stopped() -> None:
    body = (ir.Assign("i", B("+", N("i"), C(0))),)
    module = hand_module("w.py", _with_while(B("<", N("i"), C(3)), body))
    with pytest.raises(InterpreterError, match=f"ran {MAX_WHILE_ITERATIONS} iterations"):
        run_module(module, "streamk_matmul", torch.zeros(2, 2), torch.zeros(2, 2), 1)


def test_carried_values_leave_the_loop() -> None:
    # c[0, 0] += the number of iterations: 0 + 1 + 2 + 3 + 4 = 10, counted in a carried `i`.
    body = (ir.Assign("s", B("+", N("s"), N("i"))), ir.Assign("i", B("+", N("i"), C(1))))
    store = ir.AtomicRMW("add", "c", (ir.ScalarIndex(C(0)), ir.ScalarIndex(C(0))), N("s"))
    entry = streamk_entry(
        (
            ir.Assign("i", C(0)),
            ir.Assign("s", C(0)),
            ir.While(B("<", N("i"), C(5)), body),
            store,
        )
    )
    out = run_module(
        hand_module("w.py", entry), "streamk_matmul", torch.zeros(2, 3), torch.zeros(3, 2), 1
    )
    assert out[0, 0].item() == 10.0


# ------------------------------------------------------------------------------------------------
# Loops over one tile (translator.ir.single_tile) and signs (translator.ir.signs)


def _streamk_kernel() -> ir.Kernel:
    (kernel,) = hand_module("streamk.py", streamk_entry()).kernels
    return kernel


def _loops(stmts: tuple[ir.Stmt, ...]) -> list[ir.TileLoop]:
    return [s for s in walk_stmts(stmts) if isinstance(s, ir.TileLoop)]


def test_a_loop_over_one_tile_is_recognised() -> None:
    tile = tile_at("tile_m", N("pid_m"), "bm", N("m"))
    assert (at_id(tile), at_extent(tile)) == (N("pid_m"), N("m"))
    # A loop between other bounds visits no one tile.
    assert at_id(ir.TileVar("tile_m", N("m"), "bm", begin=N("start"))) is None
    assert at_id(ir.TileVar("tile_m", N("m"), "bm")) is None
    output, walk, k = _loops(_streamk_kernel().body)
    assert is_single_tile_loop(output) and is_single_tile_loop(k)
    assert not is_single_tile_loop(walk)


def test_an_empty_tile_is_a_no_op_only_where_every_effect_is_masked_by_it() -> None:
    output, _, k = _loops(_streamk_kernel().body)
    assert empty_is_noop(output, {"start_iter", "end_iter", "tile_iter", "last_iter"})
    # The K tile's body only accumulates a dot of loads along it into the outer `acc`.
    assert empty_is_noop(k, {"acc"})
    # A store that does not go through the tile would still write.
    leak = ir.Store("c", (ir.ScalarIndex(C(0)), ir.ScalarIndex(C(0))), C(0.0))
    assert not empty_is_noop(dataclasses.replace(output, body=(*output.body, leak)), set())
    # An outer value changed by anything but such a dot would change.
    count = ir.Assign("start_iter", B("+", N("start_iter"), C(1)))
    assert not empty_is_noop(dataclasses.replace(k, body=(*k.body, count)), {"acc", "start_iter"})


def test_a_walk_over_tile_ids_fuses_into_one_tile_loop() -> None:
    kernel = _streamk_kernel()
    fused = dataclasses.replace(kernel, body=fuse_tile_walks(kernel.body))
    output, k = _loops(fused.body)
    (tk,) = k.tiles
    assert tk.begin == B("*", B("-", N("start_iter"), N("tile_iter")), N("bk"))
    assert tk.extent == minimum(B("*", B("-", N("end_iter"), N("tile_iter")), N("bk")), N("k"))
    # The same products in the same order.
    module = hand_module("streamk.py", streamk_entry())
    module = dataclasses.replace(module, kernels=(fused,))
    a, b = torch.randn(37, 29), torch.randn(29, 41)
    torch.testing.assert_close(run_module(module, "streamk_matmul", a, b, 5), a @ b)


def test_scalars_a_loop_keeps_nonnegative_are_known_so() -> None:
    module = hand_module("streamk.py", streamk_entry())
    (kernel,) = module.kernels
    walked = {"start_iter", "last_iter", "tile_id", "tile_iter", "end_iter", "it"}
    known = nonnegative_names(kernel, module)
    # Launched with sizes and what the host computes from them.
    assert {"iters_per_tile", "total_iters", "m", "n", "k"} <= known
    # `num_sm` is the grid's extent: a program runs only where it is positive, so each
    # program's share of the work, and the walk over it, is nonnegative too.
    assert "num_sm" in known and walked <= known
    # So it is launched with 5 programs.
    five = _launched_with(module, "num_sm", C(5))
    assert walked <= nonnegative_names(kernel, five)
    # A loop that may take a value below zero keeps nothing of it.
    down = ir.Assign("start_iter", B("-", N("start_iter"), C(1)))
    (loop,) = [s for s in kernel.body if isinstance(s, ir.While)]
    body = tuple(down if s == loop.body[-1] else s for s in loop.body)
    changed = dataclasses.replace(
        kernel, body=(*kernel.body[:-1], dataclasses.replace(loop, body=body))
    )
    assert "start_iter" not in nonnegative_names(changed, five)
    assert nonnegative(B("//", N("x"), C(2)), {"x"}) and not nonnegative(N("x"), set())


def _launched_with(module: ir.Module, param: str, value: ir.Expr) -> ir.Module:
    """``module`` whose launches pass ``value`` for kernel parameter ``param``."""
    (kernel,) = module.kernels
    at = [p.name for p in kernel.params].index(param)

    def launch(s: ir.Stmt) -> ir.Stmt:
        if not isinstance(s, ir.Launch):
            return s
        return dataclasses.replace(s, args=(*s.args[:at], value, *s.args[at + 1 :]))

    entries = tuple(
        dataclasses.replace(e, body=tuple(launch(s) for s in e.body)) for e in module.entries
    )
    return dataclasses.replace(module, entries=entries)
