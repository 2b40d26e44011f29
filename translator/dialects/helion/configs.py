"""Block sizes and configs of a Helion kernel, from the IR's tunables.

Helion numbers ``Config.block_sizes`` by allocation order: each ``hl.register_block_size`` call
takes the next slot when it runs, and each ``hl.tile`` dimension without a ``block_size=`` takes
the next slot when it is first met, depth first in source order; constant block sizes and
``hl.grid`` take none. An IR block-size tunable used by one tile becomes an autotuned ``hl.tile``
dimension; one shared by several tiles (or read as a value, as a tile loop that skips tiles reads
its block size) must be a single Helion block size, so it is registered with
``hl.register_block_size`` before the loops.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from translator.diagnostics import TranslationError
from translator.grammar import load_grammar
from translator.ir import nodes as ir
from translator.ir.single_tile import at_extent
from translator.ir.visit import has_loops, kernel_exprs, walk_expr, walk_stmts
from translator.naming import unique


@dataclass
class BlockPlan:
    """How each tile's block size is spelt, and the order of ``Config.block_sizes``."""

    registered: list[tuple[str, ir.Expr]] = field(default_factory=list)
    """``(tunable, extent)`` for each ``name = hl.register_block_size(extent)``, in call order."""
    slots: list[str] = field(default_factory=list)
    """Block-size tunables in Helion's config order."""
    copies: dict[str, str] = field(default_factory=dict)
    """Tile -> a registered copy of its block size, for loops nested in a tile of that size
    (Helion rejects nested loops of one block size: NestedDeviceLoopsConflict)."""
    origin: dict[str, str] = field(default_factory=dict)
    """Registered copy -> the tunable whose value it takes in every config."""
    fitted: list[tuple[str, ir.Expr, int]] = field(default_factory=list)
    """``(tunable, extent, cap)`` of blocks computed from the size they tile (a source's
    ``min(cap, next_power_of_2(n))``): host values, in no config."""

    def block_arg(self, tile: ir.TileVar) -> str | None:
        """The ``block_size=`` spelling of ``tile``: ``None`` for an autotuned slot."""
        if tile.scalar:
            return "1"
        if isinstance(tile.block, ir.Const):
            return str(tile.block.value)
        if tile.name in self.copies:
            return self.copies[tile.name]
        if any(name == tile.block for name, _, _ in self.fitted):
            return tile.block
        if any(name == tile.block for name, _ in self.registered):
            return tile.block
        return None


def tiles_in_order(kernel: ir.Kernel) -> Iterator[ir.TileVar]:
    """Every tile variable of ``kernel``, in the order Helion meets them."""
    yield from kernel.grid
    for stmt in walk_stmts(kernel.body):
        if isinstance(stmt, ir.TileLoop):
            yield from stmt.tiles


def plan_blocks(kernel: ir.Kernel) -> BlockPlan:
    """The block-size plan of ``kernel`` (see the module docstring)."""
    tiles = list(tiles_in_order(kernel))
    uses = Counter(t.block for t in tiles if isinstance(t.block, str) and not t.scalar)
    block_tunables = [t.name for t in kernel.tunables if t.kind == "block_size"]
    read = _tunables_read(kernel, set(block_tunables))
    # A tile loop that skips tiles spans each tile with hl.arange(block): the size is a value.
    read |= {
        t.block for t in tiles if t.step is not None and not t.scalar and isinstance(t.block, str)
    }
    for name in sorted(read - set(uses)):
        raise TranslationError(
            f"block size `{name}` is read as a value but sizes no tile",
            kernel.loc,
            "use it as the block size of an hl.tile loop, or pass the value as a parameter",
        )
    plan = BlockPlan()
    # A block the source fits to one extent it tiles is computed from that extent, as there.
    for t in kernel.tunables:
        extents = {tile.extent for tile in tiles if tile.block == t.name and not tile.scalar}
        if t.fit and t.name in uses and t.name not in read and len(extents) == 1:
            plan.fitted.append((t.name, extents.pop(), t.default))
    fitted = {name for name, _, _ in plan.fitted}
    uses = Counter({name: n for name, n in uses.items() if name not in fitted})
    block_tunables = [name for name in block_tunables if name not in fitted]
    if read or any(n > 1 for n in uses.values()):
        # One shared size: register every block size up front, in the IR's order, so that the
        # config lists them in that order too.
        for name in block_tunables:
            if name in uses:
                extent = next(dim_extent(t, kernel) for t in tiles if t.block == name)
                plan.registered.append((name, extent))
                for tile in _nested_reuses(kernel, name):
                    copy = unique(name, _all_names(kernel) | {n for n, _ in plan.registered})
                    plan.registered.append((copy, dim_extent(tile, kernel)))
                    plan.copies[tile.name] = copy
                    plan.origin[copy] = name
        plan.slots = [name for name, _ in plan.registered]
        return plan
    for t in tiles:
        if (
            isinstance(t.block, str)
            and not t.scalar
            and t.block not in plan.slots
            and t.block not in fitted
        ):
            plan.slots.append(t.block)
    return plan


def dim_extent(tile: ir.TileVar, kernel: ir.Kernel) -> ir.Expr:
    """The size of the dim ``tile`` splits, for ``hl.register_block_size``: its extent, or,
    for a loop between bounds the program computes (``minimum(end * B, n)``, the one tile
    ``minimum(begin + B, n)``), the host size ``n`` that bounds it."""
    one = at_extent(tile)
    if one is not None:
        return one
    e = tile.extent
    if isinstance(e, ir.Call) and e.op == "minimum":
        host = {p.name for p in kernel.params} | {t.name for t in kernel.tunables}
        for arg in e.args:
            if {x.id for x in walk_expr(arg) if isinstance(x, ir.Name)} <= host:
                return arg
    return e


def _nested_reuses(kernel: ir.Kernel, block: str) -> list[ir.TileVar]:
    """Loop tiles of block size ``block`` nested in a tile (grid or loop) of the same size."""
    out: list[ir.TileVar] = []

    def walk(stmts: tuple[ir.Stmt, ...], outer: bool) -> None:
        for s in stmts:
            if isinstance(s, ir.TileLoop):
                mine = any(t.block == block and not t.scalar for t in s.tiles)
                if outer:
                    out.extend(t for t in s.tiles if t.block == block and not t.scalar)
                walk(s.body, outer or mine)
            elif isinstance(s, ir.While):
                walk(s.body, outer)
            elif isinstance(s, ir.If):
                walk(s.body, outer)
                walk(s.orelse, outer)

    walk(kernel.body, any(t.block == block and not t.scalar for t in kernel.grid))
    return out


def kernel_names(kernel: ir.Kernel) -> set[str]:
    """Every name a kernel binds: parameters, tunables, tiles and device locals."""
    names = {p.name for p in kernel.params} | {t.name for t in kernel.tunables}
    names |= {t.name for t in kernel.grid}
    for s in walk_stmts(kernel.body):
        if isinstance(s, ir.Assign):
            names.add(s.target)
        elif isinstance(s, ir.TileLoop):
            names.update(t.name for t in s.tiles)
    return names


_all_names = kernel_names


def _tunables_read(kernel: ir.Kernel, names: set[str]) -> set[str]:
    return {e.id for e in kernel_exprs(kernel) if isinstance(e, ir.Name) and e.id in names}


# --------------------------------------------------------------------------------------------------
# helion.Config(...)


def config_texts(kernel: ir.Kernel, plan: BlockPlan) -> list[str]:
    """One ``helion.Config(...)`` per IR config; none for a kernel whose source left its configs
    to its autotuner, so that Helion autotunes it too (one pinned config ran 0.05x the source)."""
    spec = load_grammar("helion")["backend"]["kernel"]
    tunables = {t.name: t for t in kernel.tunables}
    configs = [dict(c) for c in kernel.configs]
    if not configs and not kernel.hints.autotune:
        # Launch values the source computed on the host: the IR's defaults stand in for them.
        configs = [{t.name: t.default for t in kernel.tunables}]
    knobs = []
    # Pipeline stages act on loops only: a loopless kernel's num_stages is noise.
    for key in ("num_warps", "num_stages") if has_loops(kernel) else ("num_warps",):
        t = tunables.get(key)
        # A knob the source set (it has choices) or whose value is not Helion's default.
        if t is not None and (t.choices or t.default != spec[f"default_{key}"]):
            knobs.append(key)
    grids_2d = 1 if sum(1 for t in kernel.grid if not t.scalar) >= 2 else 0
    pid_type = kernel.hints.schedule
    texts: list[str] = []
    for c in configs:
        values = [
            c.get(plan.origin.get(s, s), tunables[plan.origin.get(s, s)].default)
            for s in plan.slots
        ]
        # No block sizes to tune (every block a constant or computed from sizes): none listed.
        parts = ["block_sizes=[" + ", ".join(str(v) for v in values) + "]"] if values else []
        for key in knobs:
            parts.append(f"{key}={c.get(key, tunables[key].default)}")
        # `hl.register_tunable` knobs go by their key.
        for t in kernel.tunables:
            if t.kind == "int":
                parts.append(f"{t.name}={c.get(t.name, t.default)}")
        group = c.get(
            "group_size", tunables["group_size"].default if "group_size" in tunables else 1
        )
        # Helion takes power-of-two groups only (a TileLang panel of 10 rows): the largest
        # power of two not above the source's, the nearest order of the same kind.
        if isinstance(group, int) and group > 0:
            group = 1 << (group.bit_length() - 1)
        # l2_groupings has one entry per grid of two or more tiled dims, none otherwise.
        if "group_size" in tunables and grids_2d:
            parts.append("l2_groupings=[" + ", ".join([str(group)] * grids_2d) + "]")
        # "xyz" maps grid dims to program-id axes, so it needs 2 or 3 of them; persistent
        # programs loop over the tiles of any grid.
        if pid_type is not None and (
            str(pid_type).startswith("persistent_") or 2 <= len(kernel.grid) <= 3
        ):
            parts.append(f'pid_type="{pid_type}"')
        text = f"{spec['config']}({', '.join(parts)})"
        if text not in texts:
            texts.append(text)
    return texts
