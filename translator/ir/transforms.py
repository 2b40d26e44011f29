"""IR-to-IR rewrites that backends may apply before emitting (semantics preserving)."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable

from translator.ir import nodes as ir
from translator.ir.shapes import (
    IRTypeError,
    TypeEnv,
    dims_compatible,
    dims_of,
    dtype_of,
    index_dims,
    infer,
    kernel_env,
)


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
    every target wants. A reduction or scan over a unit dim is its value (one lane). A kernel is
    left as it is when a value would not keep its other dims (a reduction over the unit dim that
    keeps it, say): the rewrite is checked against the original's types.
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
            value = self.expr(item.value)
            if not dims_of(infer(value, self.new)):
                # Gathered through the one lane of a squeezed tile: a plain index.
                return ir.ScalarIndex(value)
            return ir.GatherIndex(value)
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
                return self._over_unit(e)
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

    def _over_unit(self, e: ir.Reduce | ir.Scan) -> ir.Expr:
        """A reduction or scan along a unit grid tile's dim (an axis-less ``ct.sum`` of a
        ``(1, N)`` tile reduces its row dim too): one lane, so the value itself (an
        arg-reduction's index 0). Every lane of a unit grid tile is valid (one program per
        index), so masking changes nothing. One that keeps the dim is not squeezed: its unit
        dim would stay where the tile's dim is dropped from every other value."""
        if isinstance(e, ir.Reduce) and e.keepdim:
            raise _CannotSqueeze
        value = self.expr(e.value)
        if isinstance(e, ir.Reduce) and e.op in ("argmax", "argmin"):
            dims = dims_of(infer(value, self.new))
            value = ir.Cast(ir.Const(0), ir.I32, loc=e.loc)
            if dims:
                value = ir.Full(dims, value, ir.I32, loc=e.loc)
        return value


class _CannotBlock(Exception):
    pass


def rows_per_block(kernel: ir.Kernel, tile: str, block: str) -> ir.Kernel:
    """Make the scalar grid tile ``tile`` (one row per program) a tile of ``block`` rows.

    The inverse of :func:`squeeze_unit_tiles`, for targets whose compiler wants several rows per
    program (cuTile): every value that depends on the row gains a leading dim of ``block`` lanes
    (a row's scalar statistics become a column of them, its tiles one more dim), reductions and
    scans keep their dims, operands of lower rank are expanded after the row dim so that they
    broadcast as before, stores of a row-independent value are broadcast over the rows. Rows past
    the extent are invalid lanes like any other: loads pad them, stores drop them. ``block``
    must name a block-size tunable of the kernel. The kernel is returned unchanged where a value
    would not keep its meaning (a branch on a row's value, a row-dependent gather or loop bound,
    the row indexing anything but a leading dim); the rewrite is checked against the original's
    types.
    """
    with contextlib.suppress(_CannotBlock, IRTypeError):
        blocked = _RowBlocker(kernel, tile, block).kernel()
        _verify_with_block(blocked, block)
        return blocked
    return kernel


def _verify_with_block(kernel: ir.Kernel, block: str) -> None:
    """Verify a blocked kernel as a whole (what each step checked is a value's dims; a store's
    broadcast of one, say, is only checked here), with ``block`` a tunable where the caller
    adds it after the rewrite."""
    from translator.ir.verifier import verify_kernel

    if all(t.name != block for t in kernel.tunables):
        stand_in = ir.Tunable(block, "block_size", 1, (1,))
        kernel = dataclasses.replace(kernel, tunables=(*kernel.tunables, stand_in))
    verify_kernel(kernel)


class _RowBlocker:
    def __init__(self, kernel: ir.Kernel, tile: str, block: str) -> None:
        self.old_kernel = kernel
        self.row = tile
        self.dim = ir.BlockDim(tile)
        host = kernel_env(kernel)
        self.old = host.child()
        self.new = host.child()
        for t in kernel.grid:
            self.old.bind_tile(t)
            self.new.bind_tile(self._tile(t, block))
        self.block = block
        self.dependent = self._dependent_names()

    def _tile(self, t: ir.TileVar, block: str) -> ir.TileVar:
        if t.name != self.row:
            return t
        if t.begin is not None or t.step is not None:
            raise _CannotBlock
        return dataclasses.replace(t, block=block, scalar=False)

    # ------------------------------------------------------------------ which values hold rows

    def _dependent_names(self) -> set[str]:
        """Locals whose value depends on the row (to a fixpoint: loop-carried ones too)."""
        from translator.ir.visit import walk_stmts

        names: set[str] = set()
        changed = True
        while changed:
            changed = False
            for s in walk_stmts(self.old_kernel.body):
                if (
                    isinstance(s, ir.Assign)
                    and s.target not in names
                    and self._depends(s.value, names)
                ):
                    names.add(s.target)
                    changed = True
        return names

    def _depends(self, e: ir.Expr, names: set[str] | None = None) -> bool:
        from translator.ir.visit import walk_expr

        names = self.dependent if names is None else names
        for x in walk_expr(e):
            if isinstance(x, ir.Name) and (x.id == self.row or x.id in names):
                return True
            if isinstance(x, ir.TileAttr) and x.tile == self.row:
                return True
            if isinstance(x, ir.Load) and any(
                isinstance(i, ir.TileIndex) and i.tile == self.row for i in x.index
            ):
                return True
        return False

    def _index_depends(self, index: tuple[ir.IndexItem, ...]) -> bool:
        return any(self._item_is_row(i) for i in index)

    def _item_is_row(self, item: ir.IndexItem) -> bool:
        if isinstance(item, ir.TileIndex):
            return item.tile == self.row
        return isinstance(item, ir.ScalarIndex) and item.value == ir.Name(self.row)

    # ------------------------------------------------------------------ rewriting

    def kernel(self) -> ir.Kernel:
        grid = tuple(self._tile(t, self.block) for t in self.old_kernel.grid)
        if any(self._depends(e) for t in grid for e in _tile_bounds(t)):
            raise _CannotBlock
        body = self.stmts(self.old_kernel.body)
        return dataclasses.replace(self.old_kernel, grid=grid, body=body)

    def stmts(self, stmts: tuple[ir.Stmt, ...]) -> tuple[ir.Stmt, ...]:
        return tuple(self.stmt(s) for s in stmts)

    def stmt(self, s: ir.Stmt) -> ir.Stmt:
        if isinstance(s, ir.Assign):
            value = self.expr(s.value)
            old_t = infer(s.value, self.old)
            if s.target in self.dependent and not self._depends(s.value):
                # The first value of a row-dependent local (a running sum's 0.0): one per row.
                dims = (self.dim, *dims_of(old_t))
                if dims_of(old_t):
                    value = ir.Broadcast(value, dims)
                else:
                    value = ir.Full(dims, value, dtype_of(old_t), loc=getattr(s.value, "loc", None))
            self.old.vars[s.target] = old_t
            self.new.vars[s.target] = infer(value, self.new)
            return dataclasses.replace(s, value=value)
        if isinstance(s, ir.Store):
            return self.store(s)
        if isinstance(s, ir.TileLoop):
            if any(self._depends(e) for t in s.tiles for e in _tile_bounds(t)):
                raise _CannotBlock
            old, new = self.old, self.new
            self.old, self.new = old.child(), new.child()
            for t in s.tiles:
                self.old.bind_tile(t)
                self.new.bind_tile(t)
            body = self.stmts(s.body)
            for env, inner in ((old, self.old), (new, self.new)):
                for name, t in inner.vars.items():
                    if name in env.vars:
                        env.vars[name] = t
            self.old, self.new = old, new
            return dataclasses.replace(s, body=body)
        if isinstance(s, ir.If):
            if self._depends(s.test):
                raise _CannotBlock  # a branch per row: the rows of a block may disagree
            return dataclasses.replace(
                s, test=self.expr(s.test), body=self.stmts(s.body), orelse=self.stmts(s.orelse)
            )
        raise _CannotBlock

    def store(self, s: ir.Store) -> ir.Store:
        rows = self._index_depends(s.index)
        value = self.expr(s.value)
        if self._depends(s.value) and not rows:
            raise _CannotBlock  # every row would write the same place
        index = self.index(s.index)
        if rows:
            region = index_dims(s.tensor, index, self.new, s.loc)
            got = dims_of(infer(value, self.new))
            if not dims_compatible(got, region):
                value = ir.Broadcast(self._expand(value, len(region) - len(got)), region)
        return dataclasses.replace(s, index=index, value=value)

    def index(self, index: tuple[ir.IndexItem, ...]) -> tuple[ir.IndexItem, ...]:
        out: list[ir.IndexItem] = []
        seen_dim = False
        for item in index:
            if self._item_is_row(item):
                if seen_dim:
                    raise _CannotBlock  # the rows must be the access's leading dim
                out.append(ir.TileIndex(self.row))
                seen_dim = True
                continue
            if isinstance(item, (ir.ScalarIndex, ir.GatherIndex)):
                if self._depends(item.value):
                    raise _CannotBlock  # an element of each row: a gather the IR keeps 1-D
                out.append(item)
                continue
            seen_dim = seen_dim or not isinstance(item, ir.ScalarIndex)
            out.append(item)
        return tuple(out)

    def expr(self, e: ir.Expr) -> ir.Expr:
        new = self._rewrite(e)
        old_dims = dims_of(infer(e, self.old))
        want = (self.dim, *old_dims) if self._depends(e) else old_dims
        if not dims_compatible(want, dims_of(infer(new, self.new))):
            raise _CannotBlock
        return new

    def _rank(self, e: ir.Expr) -> int:
        return len(dims_of(infer(e, self.old)))

    @staticmethod
    def _expand(e: ir.Expr, count: int) -> ir.Expr:
        """``e`` with ``count`` unit dims after its leading (row) dim (a reduction along that
        dim keeps it instead: ``sum(x, axis=1, keepdims=True)``, not ``sum(x, axis=1)[:, None]``)."""
        if count and isinstance(e, ir.Reduce) and e.axis == 1 and not e.keepdim:
            e, count = dataclasses.replace(e, keepdim=True), count - 1
        for _ in range(count):
            e = ir.ExpandDims(e, 1)
        return e

    def _operands(self, args: tuple[ir.Expr, ...], result: ir.Expr) -> tuple[ir.Expr, ...]:
        """Operands of a pointwise op: a row-dependent one of lower rank than the result gets
        unit dims after its row dim (right-aligned broadcasting would pair the rows with the
        result's last dim); the others broadcast as they did."""
        rank = self._rank(result)
        out = []
        for a in args:
            new = self.expr(a)
            if self._depends(a):
                new = self._expand(new, rank - self._rank(a))
            out.append(new)
        return tuple(out)

    def _rewrite(self, e: ir.Expr) -> ir.Expr:
        if isinstance(e, ir.Name) and e.id == self.row:
            return ir.TileAttr(self.row, "index", loc=e.loc)
        if isinstance(e, ir.TileAttr) and e.tile == self.row:
            if e.attr in ("id", "begin", "index"):
                return ir.TileAttr(self.row, "index", loc=e.loc)
            raise _CannotBlock
        if isinstance(e, (ir.Name, ir.Const, ir.SizeOf, ir.ShapeOf, ir.TileAttr, ir.Arange)):
            return e
        if isinstance(e, ir.Load):
            return dataclasses.replace(e, index=self.index(e.index))
        if isinstance(e, ir.BinOp):
            lhs, rhs = self._operands((e.lhs, e.rhs), e)
            return dataclasses.replace(e, lhs=lhs, rhs=rhs)
        if isinstance(e, ir.UnaryOp):
            return dataclasses.replace(e, operand=self.expr(e.operand))
        if isinstance(e, ir.Call):
            return dataclasses.replace(e, args=self._operands(e.args, e))
        if isinstance(e, ir.Cast):
            return dataclasses.replace(e, value=self.expr(e.value))
        dep = self._depends(e)
        if isinstance(e, ir.Full):
            if not dep:
                return e
            # A fill of a row's scalar: its column stretched over the tile.
            value = self._expand(self.expr(e.value), len(e.shape))
            return ir.Cast(ir.Broadcast(value, (self.dim, *e.shape), loc=e.loc), e.dtype)
        if isinstance(e, (ir.Reduce, ir.Scan)):
            if not dep:
                return e
            axis = e.axis % self._rank(e.value) + 1
            return dataclasses.replace(e, value=self.expr(e.value), axis=axis)
        if isinstance(e, ir.ExpandDims):
            if not dep:
                return e
            axis = e.axis if e.axis < 0 else e.axis + 1
            return dataclasses.replace(e, value=self.expr(e.value), axis=axis)
        if isinstance(e, (ir.Broadcast, ir.Reshape)):
            if not dep:
                return e
            value = self.expr(e.value)
            if isinstance(e, ir.Broadcast):
                value = self._expand(value, len(e.shape) - self._rank(e.value))
            return dataclasses.replace(e, value=value, shape=(self.dim, *e.shape))
        if isinstance(e, ir.Permute):
            if not dep:
                return e
            perm = (0, *(p + 1 for p in e.perm))
            return dataclasses.replace(e, value=self.expr(e.value), perm=perm)
        raise _CannotBlock  # dots and anything else keep one row per program


def _tile_bounds(t: ir.TileVar) -> list[ir.Expr]:
    return [x for x in (t.extent, t.begin, t.step) if x is not None]
