"""IR-to-IR rewrites that backends may apply before emitting (semantics preserving)."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable

from translator.ir import nodes as ir
from translator.ir.shapes import IRTypeError, TypeEnv, dims_compatible, dims_of, infer, kernel_env


class _CannotSqueeze(Exception):
    pass


def unit_block_tiles(kernel: ir.Kernel) -> Callable[[ir.TileVar], bool]:
    """A predicate: the tile's block is 1 in every config (a Helion batch or head dim, say)."""

    def is_unit(tile: ir.TileVar) -> bool:
        if tile.scalar:
            return False
        if isinstance(tile.block, ir.Const):
            return tile.block.value == 1
        values = {dict(c).get(tile.block) for c in kernel.configs}
        values.add(kernel.tunable(tile.block).default)
        return values == {1}

    return is_unit


def squeeze_unit_tiles(kernel: ir.Kernel, is_unit: Callable[[ir.TileVar], bool]) -> ir.Kernel:
    """Make grid tiles of block 1 plain indices, dropping their dim from every tile value.

    A [1, BM, BN] tile and its 3-D dots become [BM, BN] and 2-D dots, which is what fast code on
    every target wants. A kernel is left as it is when a value would not keep its other dims
    (a reduction over the unit dim, say): the rewrite is checked against the original's types.
    """
    if not any(is_unit(t) for t in kernel.grid):
        return kernel
    with contextlib.suppress(_CannotSqueeze, IRTypeError):
        return _Squeezer(kernel, kernel_env(kernel), is_unit).kernel()
    return kernel


class _Squeezer:
    def __init__(self, kernel: ir.Kernel, host: TypeEnv, is_unit) -> None:
        self.old_kernel = kernel
        self.units = {t.name for t in kernel.grid if is_unit(t)}
        self.old = host.child()
        self.new = host.child()
        for t in kernel.grid:
            self.old.bind_tile(t)
            self.new.bind_tile(self._tile(t))

    def _tile(self, t: ir.TileVar) -> ir.TileVar:
        if t.name in self.units:
            return dataclasses.replace(t, block=ir.Const(1), scalar=True)
        return t

    def _squeezed(self, dims: tuple[ir.Dim, ...]) -> tuple[ir.Dim, ...]:
        return tuple(d for d in dims if not (isinstance(d, ir.BlockDim) and d.tile in self.units))

    def _kept(self, dims: tuple[ir.Dim, ...]) -> list[int]:
        return [
            i
            for i, d in enumerate(dims)
            if not (isinstance(d, ir.BlockDim) and d.tile in self.units)
        ]

    def kernel(self) -> ir.Kernel:
        grid = tuple(self._tile(t) for t in self.old_kernel.grid)
        body = self.block(self.old_kernel.body)
        return dataclasses.replace(self.old_kernel, grid=grid, body=body)

    def block(self, stmts: tuple[ir.Stmt, ...]) -> tuple[ir.Stmt, ...]:
        return tuple(self.stmt(s) for s in stmts)

    def stmt(self, s: ir.Stmt) -> ir.Stmt:
        if isinstance(s, ir.Assign):
            value = self.expr(s.value)
            self.old.vars[s.target] = infer(s.value, self.old)
            self.new.vars[s.target] = infer(value, self.new)
            return dataclasses.replace(s, value=value)
        if isinstance(s, (ir.Store, ir.AtomicRMW)):
            index = tuple(self._index(i) for i in s.index)
            return dataclasses.replace(s, index=index, value=self.expr(s.value))
        if isinstance(s, ir.TileLoop):
            old, new = self.old, self.new
            self.old, self.new = old.child(), new.child()
            for t in s.tiles:
                if any(t.name == u for u in self.units):
                    raise _CannotSqueeze
                self.old.bind_tile(t)
                self.new.bind_tile(t)
            body = self.block(s.body)
            for env, inner in ((old, self.old), (new, self.new)):
                for name, t in inner.vars.items():
                    if name in env.vars:
                        env.vars[name] = t
            self.old, self.new = old, new
            return dataclasses.replace(s, body=body)
        if isinstance(s, ir.If):
            return dataclasses.replace(
                s, test=self.expr(s.test), body=self.block(s.body), orelse=self.block(s.orelse)
            )
        raise _CannotSqueeze

    def _index(self, item: ir.IndexItem) -> ir.IndexItem:
        if isinstance(item, ir.ScalarIndex):
            return ir.ScalarIndex(self.expr(item.value))
        if isinstance(item, ir.GatherIndex):
            return ir.GatherIndex(self.expr(item.value))
        return item

    def expr(self, e: ir.Expr) -> ir.Expr:
        new = self._rewrite(e)
        want = self._squeezed(dims_of(infer(e, self.old)))
        got = dims_of(infer(new, self.new))
        if not dims_compatible(want, got):
            raise _CannotSqueeze
        return new

    def _rewrite(self, e: ir.Expr) -> ir.Expr:
        if isinstance(e, (ir.Name, ir.Const, ir.SizeOf, ir.ShapeOf, ir.TileAttr)):
            return e
        if isinstance(e, ir.Load):
            return dataclasses.replace(
                e,
                index=tuple(self._index(i) for i in e.index),
                mask=None if e.mask is None else self.expr(e.mask),
            )
        if isinstance(e, ir.BinOp):
            return dataclasses.replace(e, lhs=self.expr(e.lhs), rhs=self.expr(e.rhs))
        if isinstance(e, ir.UnaryOp):
            return dataclasses.replace(e, operand=self.expr(e.operand))
        if isinstance(e, ir.Call):
            return dataclasses.replace(e, args=tuple(self.expr(a) for a in e.args))
        if isinstance(e, ir.Cast):
            return dataclasses.replace(e, value=self.expr(e.value))
        if isinstance(e, ir.Full):
            return dataclasses.replace(e, shape=self._squeezed(e.shape), value=self.expr(e.value))
        if isinstance(e, ir.Dot):
            acc = self.expr(e.acc) if e.acc is not None else None
            return dataclasses.replace(e, lhs=self.expr(e.lhs), rhs=self.expr(e.rhs), acc=acc)
        if isinstance(e, (ir.Reduce, ir.Scan)):
            dims = dims_of(infer(e.value, self.old))
            axis = e.axis % len(dims)
            kept = self._kept(dims)
            if axis not in kept:
                raise _CannotSqueeze
            return dataclasses.replace(e, value=self.expr(e.value), axis=kept.index(axis))
        if isinstance(e, ir.ExpandDims):
            result = dims_of(infer(e, self.old))
            axis = e.axis if e.axis >= 0 else len(result) + e.axis
            return dataclasses.replace(
                e, value=self.expr(e.value), axis=len(self._kept(result[:axis]))
            )
        if isinstance(e, ir.Permute):
            kept = self._kept(dims_of(infer(e.value, self.old)))
            order = [p for p in e.perm if p in kept]
            return dataclasses.replace(
                e, value=self.expr(e.value), perm=tuple(kept.index(p) for p in order)
            )
        raise _CannotSqueeze
