"""Software-pipelining depth for dots that lost a unit (batch) dim on the way to Triton.

Triton's pipeliner keeps ``num_stages`` copies of each ``tl.dot`` operand loaded in a loop in
shared memory. A source dot over ``[1, BM, BK] x [1, BK, BN]`` tiles (Helion's ``baddbmm`` with a
block-1 batch tile) is lowered with a reshape that routes the left operand through registers, so
one of its buffers is not allocated; the 2-D dot that the Triton backend writes after squeezing
the unit dim buffers both operands at every stage. At the source's ``num_stages`` that is one
left-operand tile more of shared memory per CTA, which on an H200 halves the CTAs per SM for
128x128x64 fp16 tiles (measured: ``python -m benchmarks.gpu_gap_probe --part bmm``). One stage
less keeps the source's footprint.
"""

from __future__ import annotations

import dataclasses

from translator.ir import nodes as ir
from translator.ir.visit import walk_expr, walk_stmts


def fewer_stages_for_squeezed_dots(
    before: ir.Kernel, after: ir.Kernel
) -> tuple[ir.Kernel, tuple[str, ...]]:
    """``after`` (``before`` with unit tiles squeezed) with one pipeline stage less if it lost a
    unit dim from a dot whose two operands are loaded in its loop, and the ``tiletrans:`` note
    that says so (for above the kernel's definition, where its configs are)."""
    units = {t.name for t, u in zip(before.grid, after.grid) if u.scalar and not t.scalar}
    stages = [t for t in after.tunables if t.kind == "num_stages"]
    if not _batched_loop_dot(before, units) or not stages or stages[0].default <= 1:
        return after, ()
    note = (
        f"tiletrans: num_stages {stages[0].default} -> {_less(stages[0].default)} keeps the "
        "source's shared memory per CTA:",
        "tl.dot buffers both 2-D operands at every stage, the batched dot one tile fewer",
    )
    kernel = dataclasses.replace(
        after,
        tunables=tuple(_fewer(t) for t in after.tunables),
        configs=tuple(
            tuple((name, _less(v) if _is_stages(after, name) else v) for name, v in config)
            for config in after.configs
        ),
        body=tuple(_loops_fewer(s) for s in after.body),
    )
    return kernel, note


def _batched_loop_dot(kernel: ir.Kernel, units: set[str]) -> bool:
    if not units:
        return False
    for loop in walk_stmts(kernel.body):
        if not isinstance(loop, ir.TileLoop):
            continue
        loaded = {
            s.target: s.value
            for s in loop.body
            if isinstance(s, ir.Assign) and isinstance(_uncast(s.value), ir.Load)
        }
        for s in loop.body:
            if not isinstance(s, ir.Assign):
                continue
            for e in walk_expr(s.value):
                if isinstance(e, ir.Dot) and all(
                    _unit_load(_operand(x, loaded), units) for x in (e.lhs, e.rhs)
                ):
                    return True
    return False


def _operand(e: ir.Expr, loaded: dict[str, ir.Expr]) -> ir.Expr:
    e = _uncast(e)
    if isinstance(e, ir.Name) and e.id in loaded:
        return _uncast(loaded[e.id])
    return e


def _uncast(e: ir.Expr) -> ir.Expr:
    while isinstance(e, ir.Cast):
        e = e.value
    return e


def _unit_load(e: ir.Expr, units: set[str]) -> bool:
    return isinstance(e, ir.Load) and any(
        isinstance(i, ir.TileIndex) and i.tile in units for i in e.index
    )


def _less(stages: int) -> int:
    return max(1, stages - 1)


def _is_stages(kernel: ir.Kernel, name: str) -> bool:
    return any(t.name == name and t.kind == "num_stages" for t in kernel.tunables)


def _fewer(t: ir.Tunable) -> ir.Tunable:
    if t.kind != "num_stages":
        return t
    choices = tuple(dict.fromkeys(_less(c) for c in t.choices))
    return dataclasses.replace(t, default=_less(t.default), choices=choices)


def _loops_fewer(s: ir.Stmt) -> ir.Stmt:
    if isinstance(s, ir.TileLoop) and s.num_stages is not None:
        s = dataclasses.replace(s, num_stages=_less(s.num_stages))
    if isinstance(s, ir.TileLoop):
        return dataclasses.replace(s, body=tuple(_loops_fewer(c) for c in s.body))
    if isinstance(s, ir.If):
        return dataclasses.replace(
            s,
            body=tuple(_loops_fewer(c) for c in s.body),
            orelse=tuple(_loops_fewer(c) for c in s.orelse),
        )
    return s
