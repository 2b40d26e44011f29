"""Row-major element counters: the offsets a random-number op draws at, in the IR's terms.

A DSL whose random numbers take no explicit offsets (Helion's ``hl.rand([tile_m, tile_n],
seed=...)``) keys each element by its row-major index over the full extents of the tiles it
names: ``i * n + j`` for the lanes ``i`` of ``tile_m`` and ``j`` of ``tile_n`` (extent ``n``).
:func:`row_major_offsets` builds that index as an IR expression (for a frontend). (No backend
needs to recognise one: Helion's, the one DSL that counts this way, writes Triton's own draw at
any offsets, see ``[backend.inline]`` in ``grammars/helion.toml``.)
:func:`seed_only_params` names the parameters a kernel reads only as seeds (no size: a tuner
that keys on sizes must not re-tune per seed).
"""

from __future__ import annotations

from collections import Counter

from translator.ir import nodes as ir
from translator.ir.ops import RANDOM_OPS
from translator.ir.visit import kernel_exprs


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
