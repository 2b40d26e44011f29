"""The autotune space of a kernel whose source gave no configs, from the roles of its blocks.

A configless source (Helion's ``@helion.kernel()``) leaves tuning to its DSL's autotuner; one
fixed launch in its place ran 0.05x-0.09x the source on the H200 (a two-pass softmax and a softmax
backward at 32x32 blocks). So the translation gets a small ``@triton.autotune`` space instead,
chosen by what each block size does in the kernel:

- ``m``, ``n``, ``k``: the output tiles and the contraction loop tile of a dot kernel (a dot
  kernel with one output tile, attention's, has ``m`` and ``k`` only);
- ``row``: the grid tile of a kernel that reduces along another dim, ``reduction``: a loop tile
  such a reduction walks (a whole dim held in one block is not a tunable at all: the launch passes
  ``triton.next_power_of_2`` of its size);
- ``pointwise``: the grid tile of a 1-D elementwise kernel, ``outer``/``inner``: the two grid
  tiles of a 2-D one (``inner`` indexes the contiguous dim), ``batch``: any further grid tile.

The set of roles picks a space of ``grammars/triton.toml`` (``[backend.default_space.*]``); a
shape none lists gets level i of every role's ladder. Configs the source gave are kept as they
are (its first config stays the first).
"""

from __future__ import annotations

import dataclasses
from collections import Counter

from translator.grammar import load_grammar
from translator.ir import nodes as ir
from translator.ir.visit import all_exprs, stmt_walk, walk_stmts

KNOBS = ("num_warps", "num_stages")


def block_roles(kernel: ir.Kernel) -> dict[str, str]:
    """Block-size tunable -> its role (see the module docstring); the first use decides."""
    tunables = {t.name for t in kernel.tunables if t.kind == "block_size"}
    has_dot = any(isinstance(e, ir.Dot) for e in all_exprs(kernel.body))
    roles: dict[str, str] = {}
    for s in walk_stmts(kernel.body):
        if isinstance(s, ir.TileLoop):
            loops_dot = any(isinstance(e, ir.Dot) for e in all_exprs(s.body))
            for t in _tuned(s.tiles, tunables):
                roles.setdefault(t.block, "k" if loops_dot else "reduction")  # type: ignore[arg-type]
    grid = [t for t in _tuned(kernel.grid, tunables) if t.block not in roles]
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


def default_space(kernel: ir.Kernel) -> list[dict[str, int]]:
    """The configs of ``kernel``'s space: tunable name -> value, knobs included."""
    grammar = load_grammar("triton")["backend"]["default_space"]
    roles = block_roles(kernel)
    wanted = set(roles.values()) - {"batch"}
    space = next(
        (v for k, v in grammar.items() if k != "ladders" and set(v["roles"]) == wanted), None
    )
    if space is not None:
        entries = [dict(c) for c in space["configs"]]
    else:
        ladders = grammar["ladders"]
        entries = [
            {key: ladder[i] for key, ladder in ladders.items()}
            for i in range(len(ladders["num_warps"]))
        ]
    # Grouped program order (rows of output tiles that share operand rows in L2), as production
    # GEMMs launch: where the source has a group size, or the grid is just a dot's M and N tiles.
    grouped = any(t.name == "group_size" for t in kernel.tunables) or (
        len(kernel.grid) == 2
        and sorted(roles[t.block] for t in _tuned(kernel.grid, set(roles))) == ["m", "n"]
    )
    out = []
    for entry in entries:
        config = {name: entry.get(role, 1) for name, role in roles.items()}
        config["num_warps"] = entry["num_warps"]
        config["num_stages"] = entry.get("num_stages", 1)
        if grouped and "group" in entry:
            config["group_size"] = entry["group"]
        out.append(config)
    return out


def with_default_space(kernel: ir.Kernel) -> ir.Kernel:
    """``kernel`` with its default space as its configs, where the source gave none."""
    if kernel.configs:
        return kernel
    space = default_space(kernel)
    tunables = list(kernel.tunables)
    for knob in (*KNOBS, "group_size"):
        if all(t.name != knob for t in tunables) and knob in space[0]:
            tunables.append(ir.Tunable(knob, knob, space[0][knob]))
    new_tunables = []
    for t in tunables:
        values = [c[t.name] for c in space if t.name in c]
        if values:
            t = dataclasses.replace(t, default=values[0], choices=tuple(sorted(set(values))))
        new_tunables.append(t)
    order = [t.name for t in new_tunables]
    defaults = {t.name: t.default for t in new_tunables}
    configs = tuple(tuple((n, c.get(n, defaults[n])) for n in order) for c in space)
    return dataclasses.replace(kernel, tunables=tuple(new_tunables), configs=configs)


def _tuned(tiles: tuple[ir.TileVar, ...], tunables: set[str]) -> list[ir.TileVar]:
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
