"""What each block size of a kernel does, in no DSL's words: the roles that pick a tuning space.

- ``m``, ``n``, ``k``: the output tiles and the contraction loop tile of a dot kernel (a dot
  kernel with one output tile, attention's, has ``m`` and ``k`` only);
- ``row``: the grid tile of a kernel that reduces along another dim, ``reduction``: a loop tile
  such a reduction walks;
- ``pointwise``: the grid tile of a 1-D elementwise kernel, ``outer``/``inner``: the two grid
  tiles of a 2-D one (``inner`` indexes the contiguous dim), ``batch``: any further grid tile.

Backends whose DSL autotunes (Triton's ``@triton.autotune``, cuTile's ``ct.tune``) give a
configless kernel the space their grammar lists for its set of roles.
"""

from __future__ import annotations

from collections import Counter

from translator.ir import nodes as ir
from translator.ir.visit import all_exprs, stmt_walk, walk_stmts


def block_roles(kernel: ir.Kernel) -> dict[str, str]:
    """Block-size tunable -> its role (see the module docstring); the first use decides."""
    tunables = {t.name for t in kernel.tunables if t.kind == "block_size"}
    has_dot = any(isinstance(e, ir.Dot) for e in all_exprs(kernel.body))
    roles: dict[str, str] = {}
    for s in walk_stmts(kernel.body):
        if isinstance(s, ir.TileLoop):
            loops_dot = any(isinstance(e, ir.Dot) for e in all_exprs(s.body))
            for t in tuned_tiles(s.tiles, tunables):
                roles.setdefault(t.block, "k" if loops_dot else "reduction")  # type: ignore[arg-type]
    grid = [t for t in tuned_tiles(kernel.grid, tunables) if t.block not in roles]
    if has_dot:
        named = ["m", "n"][: len(grid)]
        grid_roles = ["batch"] * (len(grid) - len(named)) + named
    elif _reduces(kernel) or "reduction" in roles.values():
        grid_roles = ["batch"] * (len(grid) - 1) + ["row"] if grid else []
    elif len(grid) <= 1:
        grid_roles = ["pointwise"] * len(grid)
    else:
        inner = _inner_tile(kernel, grid)
        grid_roles = []
        for i, t in enumerate(grid):
            if t is inner:
                grid_roles.append("inner")
            elif i == max(j for j, g in enumerate(grid) if g is not inner):
                grid_roles.append("outer")
            else:
                grid_roles.append("batch")
    for t, role in zip(grid, grid_roles):
        roles.setdefault(t.block, role)  # type: ignore[arg-type]
    return roles


def tuned_tiles(tiles: tuple[ir.TileVar, ...], tunables: set[str]) -> list[ir.TileVar]:
    """The tiles of ``tiles`` whose block is one of ``tunables``."""
    return [t for t in tiles if not t.scalar and isinstance(t.block, str) and t.block in tunables]


def _reduces(kernel: ir.Kernel) -> bool:
    """Whether the kernel reduces (or scans) or reads whole dims: a row kernel."""
    for e in all_exprs(kernel.body):
        if isinstance(e, (ir.Reduce, ir.Scan)):
            return True
        if isinstance(e, ir.Load) and any(isinstance(i, ir.FullIndex) for i in e.index):
            return True
    return False


def _inner_tile(kernel: ir.Kernel, grid: list[ir.TileVar]) -> ir.TileVar:
    """The grid tile that most accesses index last (the contiguous dim); the last one on a tie."""
    last: Counter[str] = Counter()
    for s in walk_stmts(kernel.body):
        accesses = [s.index] if isinstance(s, (ir.Store, ir.AtomicRMW)) else []
        accesses += [e.index for e in stmt_walk(s) if isinstance(e, ir.Load)]
        for index in accesses:
            items = [i for i in index if not isinstance(i, ir.NewAxis)]
            if items and isinstance(items[-1], ir.TileIndex):
                last[items[-1].tile] += 1
    return max(reversed(grid), key=lambda t: last[t.name])


def whole_dims_held(kernel: ir.Kernel) -> int:
    """The most whole dims one load of the kernel holds (``x[tile_n, tile_g, :, :]`` holds two):
    a program holding a whole slab of several dims keeps far more values live than one holding a
    row, which is what its launch's warps must be sized for."""
    return max(
        (
            sum(isinstance(i, ir.FullIndex) for i in e.index)
            for e in all_exprs(kernel.body)
            if isinstance(e, ir.Load)
        ),
        default=0,
    )


def one_row_tiles(kernel: ir.Kernel) -> list[ir.TileVar]:
    """The grid tiles of a row kernel that give each program a single row (a plain index, or a
    tile of constant block 1), innermost first: the dims a target may block several rows of
    (:func:`translator.ir.transforms.rows_per_block`). None in a dot kernel (its unit tiles are
    batch dims), a persistent one (its programs already walk many rows) or one whose grid tiles
    a dim in blocks (its programs already hold many lanes)."""
    if any(isinstance(e, ir.Dot) for e in all_exprs(kernel.body)) or not _reduces(kernel):
        return []
    if (kernel.hints.schedule or "").startswith("persistent"):
        return []
    ones = [
        t
        for t in reversed(kernel.grid)
        if t.begin is None
        and t.step is None
        and (t.scalar or (isinstance(t.block, ir.Const) and t.block.value == 1))
    ]
    # A program that already tiles a grid dim (attention's query block) has its rows there.
    return ones if len(ones) == len(kernel.grid) else []
