"""Row-major element counters: the offsets a random-number op draws at, in the IR's terms.

A DSL whose random numbers take no explicit offsets (Helion's ``hl.rand([tile_m, tile_n],
seed=...)``) keys each element by its row-major index over the full extents of the tiles it
names: ``i * n + j`` for the lanes ``i`` of ``tile_m`` and ``j`` of ``tile_n`` (extent ``n``).
:func:`row_major_offsets` builds that index as an IR expression (for a frontend), and
:func:`row_major_tiles` recognises one (for a backend): the tiles, outermost first, whose
row-major index an integer expression is, whichever way its terms are written.
:func:`seed_only_params` names the parameters a kernel reads only as seeds (no size: a tuner
that keys on sizes must not re-tune per seed).
"""

from __future__ import annotations

from collections import Counter

from translator.ir import nodes as ir
from translator.ir.ops import RANDOM_OPS
from translator.ir.printer import format_expr
from translator.ir.shapes import (
    IRTypeError,
    ScalarType,
    TileType,
    TileVarType,
    TypeEnv,
    dims_of,
    infer,
)
from translator.ir.visit import kernel_exprs, walk_expr

#: A linear term: a tile variable (``None`` for a constant term) times host factors.
Term = tuple[str | None, tuple[ir.Expr, ...]]


def row_major_offsets(tiles: list[ir.TileVar]) -> ir.Expr:
    """The row-major index of each element of the tile ``[tiles...]`` over the tiles' extents.

    With several tiles the index is computed in int64 (the product of the extents may pass
    2**31, and the DSLs that count this way do so in 64 bits)."""
    rank = len(tiles)
    total: ir.Expr | None = None
    for d, tile in enumerate(tiles):
        index: ir.Expr = ir.TileAttr(tile.name, "index")
        if rank > 1 and d == 0:
            index = ir.Cast(index, ir.I64)
        for axis in [*range(d), *range(d + 1, rank)]:
            index = ir.ExpandDims(index, axis)
        for later in tiles[d + 1 :]:
            index = ir.BinOp("*", index, later.extent)
        total = index if total is None else ir.BinOp("+", total, index)
    assert total is not None
    return total


def row_major_tiles(offsets: ir.Expr, env: TypeEnv) -> tuple[str, ...] | None:
    """The tiles whose row-major index ``offsets`` is (see the module doc), or ``None``.

    Each tile must start at 0, visit every tile and be a block of lanes (not an ``hl.grid``
    index); the offsets' dims are exactly those tiles' blocks, in order."""
    terms = _linear(offsets, env)
    if terms is None:
        return None
    t = infer(offsets, env)
    if isinstance(t, TileVarType):  # a tile variable stands for its lanes' indices
        t = TileType((ir.BlockDim(t.tile.name),), ir.I32)
    dims = dims_of(t) if isinstance(t, TileType) else ()
    if not dims or not all(isinstance(d, ir.BlockDim) for d in dims):
        return None
    names = tuple(d.tile for d in dims if isinstance(d, ir.BlockDim))
    if len(set(names)) != len(names) or sorted(n or "" for n, _ in terms) != sorted(names):
        return None
    coefficient = dict(terms)
    for d, name in enumerate(names):
        var = env.tiles.get(name)
        if var is None or var.scalar or var.begin is not None or var.step is not None:
            return None
        extents = []
        for later in names[d + 1 :]:
            extents.extend(_factors(env.tiles[later].extent))
        if _key(coefficient[name]) != _key(tuple(extents)):
            return None
    return names


def _linear(e: ir.Expr, env: TypeEnv) -> list[Term] | None:
    """``e`` as a sum of tile indices times host factors; ``None`` where it is not one."""
    if isinstance(e, ir.TileAttr) and e.attr == "index":
        return [(e.tile, ())]
    if isinstance(e, ir.Name) and isinstance(env.vars.get(e.id), TileVarType):
        return [(e.id, ())]
    if isinstance(e, (ir.ExpandDims, ir.Broadcast)):
        return _linear(e.value, env)
    if isinstance(e, ir.Cast) and isinstance(e.dtype, ir.DType) and e.dtype.name in ir.INT_DTYPES:
        return _linear(e.value, env)
    if isinstance(e, ir.BinOp) and e.op == "+":
        lhs, rhs = _linear(e.lhs, env), _linear(e.rhs, env)
        return None if lhs is None or rhs is None else lhs + rhs
    if isinstance(e, ir.BinOp) and e.op == "*":
        for tiled, factor in ((e.lhs, e.rhs), (e.rhs, e.lhs)):
            if _is_host_integer(factor, env):
                inner = _linear(tiled, env)
                if inner is not None:
                    return [(tile, (*coef, *_factors(factor))) for tile, coef in inner]
        return None
    if _is_host_integer(e, env):
        return [(None, _factors(e))]
    return None


def _is_host_integer(e: ir.Expr, env: TypeEnv) -> bool:
    """Whether ``e`` is a scalar the host knows (a size, a parameter, a constant)."""
    if any(isinstance(x, (ir.Load, ir.Reduce, ir.Dot, ir.TileAttr)) for x in walk_expr(e)):
        return False
    try:
        t = infer(e, env)
    except IRTypeError:
        return False
    return (
        isinstance(t, ScalarType)
        and isinstance(t.dtype, ir.DType)
        and (t.dtype.name in ir.INT_DTYPES)
    )


def _factors(e: ir.Expr) -> tuple[ir.Expr, ...]:
    """The factors of a product (``1`` factors dropped)."""
    if isinstance(e, ir.BinOp) and e.op == "*":
        return (*_factors(e.lhs), *_factors(e.rhs))
    if isinstance(e, ir.Const) and e.value == 1:
        return ()
    return (e,)


def _key(factors: tuple[ir.Expr, ...]) -> list[str]:
    return sorted(format_expr(f) for f in factors)


def seed_only_params(kernel: ir.Kernel) -> set[str]:
    """The scalar parameters of ``kernel`` that it reads only as the seed of a random op."""
    reads: Counter[str] = Counter()
    seeds: Counter[str] = Counter()
    for e in kernel_exprs(kernel):
        if isinstance(e, ir.Name):
            reads[e.id] += 1
        elif isinstance(e, ir.Call) and e.op in RANDOM_OPS and isinstance(e.args[0], ir.Name):
            seeds[e.args[0].id] += 1
    scalars = {p.name for p in kernel.params if p.kind != "tensor"}
    return {name for name, n in seeds.items() if name in scalars and reads[name] == n}
