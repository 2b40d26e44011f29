"""Tiles a program computes the id of: loops over one tile.

A program that picks its tiles as it runs (a stream-K program walking its share of the
iterations, a tile at a time) reads lanes ``id * B + arange(B)`` masked ``< n``. The IR says so
with the loop it has: a :class:`~translator.ir.nodes.TileLoop` over ``tile`` from ``id * B`` to
``minimum(id * B + B, n)``, one trip whose lanes are valid below ``n``, or none where the tile
starts past ``n``. Every backend that writes tile loops with computed bounds writes it exactly;
this module recognises the form, so that a DSL that writes such a tile without a loop (Triton's
``offs = id * BLOCK + tl.arange(0, BLOCK)``) can, and proves when that is the same: when the
loop's body does nothing if every lane of its tiles is invalid (:func:`empty_is_noop`).

:func:`fuse_tile_walks` rewrites a scalar loop that walks tile ids (``for it in range(s, e)``
around the one tile ``it - c``) into the tile loop between the bounds it covers, the form a DSL
whose loops run over tiles (Helion's ``hl.tile(begin, end)``) writes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection

from translator.ir import nodes as ir
from translator.ir.renaming import names_in
from translator.ir.visit import map_bodies, walk_stmts


def block_expr(tile: ir.TileVar) -> ir.Expr:
    """The block of ``tile`` as an expression (a tunable's name or a constant)."""
    return ir.Name(tile.block) if isinstance(tile.block, str) else tile.block


def tile_at(
    name: str, tile_id: ir.Expr, block: str | ir.Const, extent: ir.Expr, loc: ir.Loc | None = None
) -> ir.TileVar:
    """Tile variable ``name`` bound to tile ``tile_id`` of a dim of ``extent`` (blocks of
    ``block``): the one tile a loop over it visits."""
    size = ir.Name(block) if isinstance(block, str) else block
    begin = ir.BinOp("*", tile_id, size)
    end = ir.Call("minimum", (ir.BinOp("+", begin, size), extent))
    return ir.TileVar(name, end, block, begin=begin)


def at_id(tile: ir.TileVar) -> ir.Expr | None:
    """The id of the one tile a loop over ``tile`` visits, where its bounds say so (begin
    ``id * B``, extent ``minimum(begin + B, n)``), else ``None``."""
    parts = _parts(tile)
    return None if parts is None else parts[0]


def at_extent(tile: ir.TileVar) -> ir.Expr | None:
    """The extent ``n`` whose lanes a one-tile loop's tile is valid below, else ``None``."""
    parts = _parts(tile)
    return None if parts is None else parts[1]


def _parts(tile: ir.TileVar) -> tuple[ir.Expr, ir.Expr] | None:
    if tile.scalar or tile.step is not None or not isinstance(tile.begin, ir.BinOp):
        return None
    block = block_expr(tile)
    begin = tile.begin
    if begin.op != "*" or block not in (begin.lhs, begin.rhs):
        return None
    tile_id = begin.lhs if begin.rhs == block else begin.rhs
    end = tile.extent
    if not (isinstance(end, ir.Call) and end.op == "minimum" and len(end.args) == 2):
        return None
    for bound, extent in (end.args, end.args[::-1]):
        if (
            isinstance(bound, ir.BinOp)
            and bound.op == "+"
            and {bound.lhs, bound.rhs} == {begin, block}
        ):
            return tile_id, extent
    return None


def is_single_tile_loop(loop: ir.TileLoop) -> bool:
    """Whether every tile of ``loop`` is a one-tile form (see the module doc)."""
    return all(at_id(t) is not None for t in loop.tiles)


def empty_is_noop(loop: ir.TileLoop, outer: Collection[str]) -> bool:
    """Whether running ``loop``'s body once with every lane of its tiles invalid changes nothing
    that outlives it, so that the body may run whether its tile is in bounds or not.

    Every store and atomic of the body (nested ones too) must write through each of the loop's
    tiles (its lanes then all masked), and every name of ``outer`` (bound before the loop) the
    body rebinds must only accumulate a dot whose contraction runs along the loop's one tile,
    which then adds nothing: masked, or an operand loaded with zero padding."""
    tiles = {t.name for t in loop.tiles}
    stmts = list(walk_stmts(loop.body))
    assigned = [s.target for s in stmts if isinstance(s, ir.Assign)]
    # The body's own values, each bound once (loads feeding a dot), by name.
    values = {
        s.target: s.value
        for s in stmts
        if isinstance(s, ir.Assign) and s.target not in outer and assigned.count(s.target) == 1
    }
    for s in stmts:
        if isinstance(s, (ir.Store, ir.AtomicRMW)) and not tiles <= _written_through(s):
            return False
        if isinstance(s, ir.Assign) and s.target in outer and not _adds_nothing(s, loop, values):
            return False
    return True


def _written_through(s: ir.Store | ir.AtomicRMW) -> set[str]:
    return {i.tile for i in s.index if isinstance(i, ir.TileIndex)}


def _adds_nothing(s: ir.Assign, loop: ir.TileLoop, values: dict[str, ir.Expr]) -> bool:
    if len(loop.tiles) != 1:
        return False
    tile = loop.tiles[0].name
    dot = s.value
    if not isinstance(dot, ir.Dot) or dot.acc != ir.Name(s.target):
        return False
    lhs, rhs = _uncast(dot.lhs, values), _uncast(dot.rhs, values)
    along = _indexes_along(lhs, tile, -1) and _indexes_along(rhs, tile, -2)
    if not along:
        return False
    return dot.masked or any(
        isinstance(op, ir.Load) and op.other == 0.0 and op.mask is None for op in (lhs, rhs)
    )


def _uncast(e: ir.Expr, values: dict[str, ir.Expr]) -> ir.Expr:
    """``e`` through casts and the body's names for it."""
    while isinstance(e, ir.Cast) or (isinstance(e, ir.Name) and e.id in values):
        e = e.value if isinstance(e, ir.Cast) else values[e.id]
    return e


def _indexes_along(e: ir.Expr, tile: str, axis: int) -> bool:
    """Whether ``e`` is a load whose dim ``axis`` is the lanes of ``tile``."""
    if not isinstance(e, ir.Load):
        return False
    items = [i for i in e.index if not isinstance(i, ir.ScalarIndex)]
    return len(items) >= -axis and items[axis] == ir.TileIndex(tile)


def fuse_tile_walks(body: tuple[ir.Stmt, ...]) -> tuple[ir.Stmt, ...]:
    """``body`` with every scalar loop ``for it in range(s, e)`` whose body is one loop over the
    one tile ``it - c`` (``c`` loop-invariant, ``it`` read nowhere else) rewritten as the loop
    over those tiles: from ``(s - c) * B`` to ``minimum((e - c) * B, n)``.

    Exact: the tiles ``it - c`` start in increasing order, so those that start below ``n`` (the
    one-tile loops that run) are the first ones, which the tile loop visits, once each and in
    the same order."""
    out: list[ir.Stmt] = []
    for s in body:
        out.append(map_bodies(_fused(s) or s, fuse_tile_walks))
    return tuple(out)


def _fused(s: ir.Stmt) -> ir.TileLoop | None:
    if not (isinstance(s, ir.TileLoop) and len(s.tiles) == 1 and len(s.body) == 1):
        return None
    walk, inner = s.tiles[0], s.body[0]
    if not walk.scalar or walk.step is not None:
        return None
    if not (isinstance(inner, ir.TileLoop) and len(inner.tiles) == 1):
        return None
    tile = inner.tiles[0]
    tile_id, extent = at_id(tile), at_extent(tile)
    if tile_id is None or extent is None:
        return None
    offset = _offset_of(tile_id, walk.name)
    if offset is None or walk.name in names_in(extent) | names_in(inner.body):
        return None
    block = block_expr(tile)
    start = walk.begin if walk.begin is not None else ir.Const(0)
    begin = ir.BinOp("*", _shifted(start, offset), block)
    end = ir.Call("minimum", (ir.BinOp("*", _shifted(walk.extent, offset), block), extent))
    fused = dataclasses.replace(tile, begin=begin, extent=end)
    return dataclasses.replace(
        inner, tiles=(fused,), num_stages=inner.num_stages or s.num_stages, loc=s.loc or inner.loc
    )


def _offset_of(tile_id: ir.Expr, var: str) -> ir.Expr | None:
    """``c`` where ``tile_id`` is ``var - c`` (``Const(0)`` for ``var`` itself), with ``c`` not
    reading ``var``; else ``None``."""
    if tile_id == ir.Name(var):
        return ir.Const(0)
    if (
        isinstance(tile_id, ir.BinOp)
        and tile_id.op == "-"
        and tile_id.lhs == ir.Name(var)
        and var not in names_in(tile_id.rhs)
    ):
        return tile_id.rhs
    return None


def _shifted(bound: ir.Expr, offset: ir.Expr) -> ir.Expr:
    return bound if offset == ir.Const(0) else ir.BinOp("-", bound, offset)
