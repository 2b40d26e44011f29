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

The set of roles picks a space of ``grammars/triton.toml`` (``[backend.default_space.*]``), and
of two for one set, the number of whole dims a program's loads hold (a slab of a group's channels
by pixels wants more warps than a row); a shape none lists gets level i of every role's ladder. Configs the source gave are kept as they
are (its first config stays the first).
"""

from __future__ import annotations

import dataclasses

from translator.grammar import load_grammar
from translator.ir import nodes as ir
from translator.ir.roles import block_roles, tuned_tiles, whole_dims_held

KNOBS = ("num_warps", "num_stages")


def default_space(kernel: ir.Kernel) -> list[dict[str, int]]:
    """The configs of ``kernel``'s space: tunable name -> value, knobs included."""
    grammar = load_grammar("triton")["backend"]["default_space"]
    roles = block_roles(kernel)
    wanted = set(roles.values()) - {"batch"}
    held = whole_dims_held(kernel)
    # The space for these roles; of several, the one for the most whole dims a program holds
    # (a space's `whole_dims`, 0 where it names none) up to the kernel's.
    fitting = [
        v
        for k, v in grammar.items()
        if k != "ladders" and set(v["roles"]) == wanted and v.get("whole_dims", 0) <= held
    ]
    space = max(fitting, key=lambda v: v.get("whole_dims", 0), default=None)
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
        and sorted(roles[t.block] for t in tuned_tiles(kernel.grid, set(roles))) == ["m", "n"]
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
    """``kernel`` with its default space as its configs, where the source gave none; after
    the source's own, where it gave some and still left tuning to its autotuner (a config
    Helion runs only when a module-level test holds)."""
    if kernel.configs and not kernel.hints.autotune:
        return kernel
    given = [dict(c) for c in kernel.configs]
    space = [_within_choices(c, kernel.tunables) for c in default_space(kernel)]
    ints = {t.name: t.default for t in kernel.tunables if t.kind == "int"}
    space = [{**ints, **c} for c in space]
    space += _int_knob_configs(space[0], kernel.tunables)
    space = given + space
    space = [c for i, c in enumerate(space) if c not in space[:i]]
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


#: The most values of an ``int`` tunable's space the default space tries (a power-of-two
#: split factor up to 256 has 9); a wider space is tried at its default only.
_INT_KNOB_VALUES = 9


def _int_knob_configs(first: dict[str, int], tunables: tuple[ir.Tunable, ...]) -> list[dict]:
    """For each ``int`` tunable (``hl.register_tunable``), the first config with it at each
    value of its space, the others at their defaults: its DSL's tuner searched that space, and
    a fixed value could be the slowest (a split-K factor of 1)."""
    out = []
    for t in tunables:
        if t.kind != "int":
            continue
        values = t.values()
        if len(values) > _INT_KNOB_VALUES:
            continue
        out += [{**first, t.name: v} for v in values if v != t.default]
    return out


def _within_choices(config: dict[str, int], tunables: tuple[ir.Tunable, ...]) -> dict[str, int]:
    """``config`` with each block the source bounds (a tunable with ``choices``, such as
    ``hl.register_block_size(16, 64)``, or a loop within one fixed block) at the largest of its
    choices not above the space's value (else its least): the role's ladder knows no bounds."""
    out = dict(config)
    for t in tunables:
        if t.kind == "block_size" and t.choices and t.name in out:
            fitting = [c for c in t.choices if c <= out[t.name]]
            out[t.name] = max(fitting) if fitting else min(t.choices)
    return out
