"""Generic traversal of IR expressions and statements."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator

from translator.ir import nodes as ir


def child_exprs(e: ir.Expr) -> Iterator[ir.Expr]:
    """The direct sub-expressions of ``e`` (index values included)."""
    if isinstance(e, ir.BinOp):
        yield e.lhs
        yield e.rhs
    elif isinstance(e, ir.UnaryOp):
        yield e.operand
    elif isinstance(e, ir.Call):
        yield from e.args
    elif isinstance(
        e, (ir.Cast, ir.Reduce, ir.Scan, ir.Permute, ir.Reshape, ir.ExpandDims, ir.Broadcast)
    ):
        yield e.value
    elif isinstance(e, ir.Load):
        yield from index_exprs(e.index)
        if e.mask is not None:
            yield e.mask
    elif isinstance(e, ir.Full):
        yield e.value
        yield from dim_exprs(e.shape)
    elif isinstance(e, ir.Arange):
        yield from dim_exprs((e.dim,))
    elif isinstance(e, ir.Dot):
        yield e.lhs
        yield e.rhs
        if e.acc is not None:
            yield e.acc
    elif isinstance(e, ir.TupleExpr):
        yield from e.items


def index_exprs(index: tuple[ir.IndexItem, ...]) -> Iterator[ir.Expr]:
    """Expressions inside index items (scalar and gather values, full-dim extents)."""
    for item in index:
        if isinstance(item, (ir.ScalarIndex, ir.GatherIndex)):
            yield item.value
        elif isinstance(item, ir.FullIndex) and item.extent is not None:
            yield item.extent


def full_extents(tensor: str, index: tuple[ir.IndexItem, ...]) -> Iterator[ir.Expr]:
    """The extent of every whole-dim (``:``) item, ``tensor.size(d)`` where none is named."""
    dim = 0
    for item in index:
        if isinstance(item, ir.NewAxis):
            continue
        if isinstance(item, ir.FullIndex):
            yield item.extent if item.extent is not None else ir.SizeOf(tensor, dim)
        dim += 1


def access_full_extents(body: tuple[ir.Stmt, ...]) -> Iterator[ir.Expr]:
    """The whole-dim extents of every access of ``body``: statement by statement, a store's or
    atomic's own, then those of the loads the statement reads."""
    for s in walk_stmts(body):
        if isinstance(s, (ir.Store, ir.AtomicRMW)):
            yield from full_extents(s.tensor, s.index)
        for e in stmt_walk(s):
            if isinstance(e, ir.Load):
                yield from full_extents(e.tensor, e.index)


def reads_partial_dim(kernel: ir.Kernel, tensor: str, index: tuple[ir.IndexItem, ...]) -> bool:
    """Whether a whole-dim item of ``tensor[index]`` covers a prefix of its dim that the
    kernel does not prove to be all of it (:attr:`ir.Kernel.partial_dims`): an access whose
    spelling moves the whole dim (rounded up to a power of two) would touch lanes past it."""
    dim = 0
    for item in index:
        if isinstance(item, ir.NewAxis):
            continue
        extent = item.extent if isinstance(item, ir.FullIndex) else None
        if extent is not None and ir.partial_dim(tensor, dim, extent) in kernel.partial_dims:
            return True
        dim += 1
    return False


def has_lane_index_dtype(e: ir.Expr) -> bool:
    """Whether ``e``'s integer dtype is that of a tile's lane indices (``tile.index``), no cast
    in between: offsets a DSL computes in its index dtype (Helion's ``index_dtype=torch.int64``
    makes them 64-bit; an explicit ``.to(torch.int32)`` keeps them 32-bit)."""
    if isinstance(e, ir.TileAttr):
        return e.attr == "index"
    if isinstance(e, ir.Cast):
        return False
    if isinstance(e, (ir.BinOp, ir.Call, ir.ExpandDims, ir.Broadcast)):
        return any(has_lane_index_dtype(c) for c in child_exprs(e))
    return False


def dim_exprs(dims: tuple[ir.Dim, ...]) -> Iterator[ir.Expr]:
    """Extents of full dims."""
    for d in dims:
        if isinstance(d, ir.FullDim):
            yield d.extent


def walk_expr(e: ir.Expr) -> Iterator[ir.Expr]:
    """``e`` and all its sub-expressions, pre-order."""
    yield e
    for c in child_exprs(e):
        yield from walk_expr(c)


def stmt_exprs(s: ir.Stmt) -> Iterator[ir.Expr]:
    """Top-level expressions of one statement (not of nested statements)."""
    if isinstance(s, ir.Assign):
        yield s.value
    elif isinstance(s, (ir.Store, ir.AtomicRMW)):
        yield from index_exprs(s.index)
        yield s.value
    elif isinstance(s, (ir.If, ir.While)):
        yield s.test
    elif isinstance(s, (ir.TileLoop, ir.InlineKernel)):
        yield from tile_exprs(s.tiles if isinstance(s, ir.TileLoop) else s.grid)
    elif isinstance(s, ir.Launch):
        yield from s.args
    elif isinstance(s, ir.Assert):
        yield s.test
    elif isinstance(s, ir.Return) and s.value is not None:
        yield s.value
    elif isinstance(s, ir.Alloc):
        yield from s.shape or ()
    elif isinstance(s, ir.View):
        yield from s.shape


def tile_exprs(tiles: tuple[ir.TileVar, ...]) -> Iterator[ir.Expr]:
    """The extents, begins and steps of tile variables."""
    for t in tiles:
        yield t.extent
        if t.begin is not None:
            yield t.begin
        if t.step is not None:
            yield t.step


def stmt_walk(s: ir.Stmt) -> Iterator[ir.Expr]:
    """Every expression and sub-expression of one statement (not of nested statements)."""
    for e in stmt_exprs(s):
        yield from walk_expr(e)


def child_stmts(s: ir.Stmt) -> tuple[ir.Stmt, ...]:
    """Nested statements of ``s``."""
    if isinstance(s, (ir.TileLoop, ir.InlineKernel, ir.While)):
        return s.body
    if isinstance(s, ir.If):
        return s.body + s.orelse
    return ()


def map_bodies(s: ir.Stmt, fn: Callable[[tuple[ir.Stmt, ...]], tuple[ir.Stmt, ...]]) -> ir.Stmt:
    """``s`` with ``fn`` applied to each block of statements nested in it (the statements
    :func:`child_stmts` yields, block by block); ``s`` itself where it nests none."""
    if isinstance(s, (ir.TileLoop, ir.InlineKernel, ir.While)):
        return dataclasses.replace(s, body=fn(s.body))
    if isinstance(s, ir.If):
        return dataclasses.replace(s, body=fn(s.body), orelse=fn(s.orelse))
    return s


def walk_stmts(stmts: tuple[ir.Stmt, ...]) -> Iterator[ir.Stmt]:
    """All statements, nested ones included, pre-order."""
    for s in stmts:
        yield s
        yield from walk_stmts(child_stmts(s))


def written_tensors(kernel: ir.Kernel) -> set[str]:
    """The tensor parameters ``kernel`` stores into or updates atomically."""
    return {s.tensor for s in walk_stmts(kernel.body) if isinstance(s, (ir.Store, ir.AtomicRMW))}


def all_exprs(stmts: tuple[ir.Stmt, ...]) -> Iterator[ir.Expr]:
    """Every expression (and sub-expression) in ``stmts``."""
    for s in walk_stmts(stmts):
        for e in stmt_exprs(s):
            yield from walk_expr(e)


def kernel_exprs(kernel: ir.Kernel | ir.InlineKernel) -> Iterator[ir.Expr]:
    """Every expression of a kernel: its grid's bounds and its body's."""
    for e in tile_exprs(kernel.grid):
        yield from walk_expr(e)
    yield from all_exprs(kernel.body)
    for e in kernel.partial_dims:
        yield from walk_expr(e)


def has_loops(kernel: ir.Kernel | ir.InlineKernel) -> bool:
    """Whether ``kernel`` has a loop: only then can a pipeline-depth knob (stages) matter."""
    return any(isinstance(s, (ir.TileLoop, ir.While)) for s in walk_stmts(kernel.body))


def kernel_tiles(kernel: ir.Kernel | ir.InlineKernel) -> list[ir.TileVar]:
    """The grid tiles and every loop tile of a kernel, in order of appearance."""
    tiles = list(kernel.grid)
    for s in walk_stmts(kernel.body):
        if isinstance(s, ir.TileLoop):
            tiles.extend(s.tiles)
    return tiles


def dtype_refs(e: ir.Expr) -> Iterator[ir.DTypeExpr]:
    """The element types an expression node names (casts, fills, dot outputs)."""
    if isinstance(e, (ir.Cast, ir.Full)):
        yield e.dtype
    elif isinstance(e, ir.Dot):
        yield e.out_dtype
