"""Helion frontend, user tunables: ``k = hl.register_tunable("key", Fragment(...))``.

A fragment is a search space (``helion.autotuner``'s ``PowerOfTwoFragment(lo, hi, default)``,
``IntegerFragment(lo, hi, default)``, ``EnumFragment(choices)``, ``BooleanFragment()``); the
value is the kernel's own integer knob, chosen per config (``helion.Config(key=value)``).

* Read only by device code, it is an ``int`` tunable of the kernels (:class:`ir.Tunable`),
  which every target carries as its tuning idiom.
* Read by host code (split-K: ``block_k = helion.next_power_of_2(helion.cdiv(k, split_k))``),
  the host needs it before the launch, where a target's tuner has not picked it yet: the
  translation fixes it at the first config's value, else the fragment's default, as a plain
  int on the host (as a registered block size host code reads is fixed).

A mixin of :class:`translator.dialects.helion.frontend.EntryParser`.
"""

from __future__ import annotations

import libcst as cst

from translator.dialects.cst_utils import call_args, literal_or_none, resolve, source_of
from translator.ir import nodes as ir
from translator.ir.shapes import ScalarType

#: ``helion.autotuner`` fragments by class name -> the IR's space of an ``int`` tunable.
_FRAGMENTS = {
    "PowerOfTwoFragment": "power_of_two",
    "IntegerFragment": "integer",
    "EnumFragment": "choices",
    "BooleanFragment": "boolean",
}
_FRAGMENT_MODULES = ("helion.autotuner", "helion.autotuner.config_fragment")


class TunableReader:
    """``hl.register_tunable`` statements of a kernel function."""

    def _register_tunable(self, name: str, call: cst.Call) -> list[ir.Stmt]:
        """``name = hl.register_tunable("key", Fragment(...))``."""
        args, kwargs = call_args(call)
        key_node = kwargs.pop("name", args[0] if args else None)
        fragment = kwargs.pop("fragment", args[1] if len(args) > 1 else None)
        key = literal_or_none(key_node) if key_node is not None else None
        if not isinstance(key, str) or fragment is None or kwargs or len(args) > 2:
            raise self.error(
                call,
                "hl.register_tunable takes a key string and a fragment",
                'write `n = hl.register_tunable("n", PowerOfTwoFragment(1, 64))`',
            )
        tunable = self._fragment_tunable(self.scope.fresh(name), fragment)
        if key in self.scope.user_tunables or key in self.scope.fixed_tunables:
            raise self.error(call, f"tunable key {key!r} is registered twice")
        if self._read_by_host(name):
            chosen = _first_config_value(self.config_nodes, key)
            value = chosen if chosen is not None else tunable.default
            if not tunable.allows(value):
                raise self.error(
                    call, f"the first config's {key}={value} lies outside {key!r}'s space"
                )
            where = f"the first config's {key}" if chosen is not None else "its default"
            self.scope.fixed_tunables[key] = value
            return self._fixed_on_host(
                name,
                value,
                call,
                f"host code computes with it before the launch, so it is fixed at {where}",
            )
        self._remove_line(call, "hl.register_tunable", "the kernels tune it themselves")
        if tunable.name != name:
            raise self.error(call, f"`{name}` is bound twice; bind a tunable to a name of its own")
        self.scope.user_tunables[key] = tunable
        self.scope.env.vars[name] = ScalarType(ir.I32, weak=True)
        return []

    def _fragment_tunable(self, name: str, node: cst.BaseExpression) -> ir.Tunable:
        """The ``int`` tunable of a ``helion.autotuner`` fragment call."""
        fn = resolve(node.func, self.aliases) if isinstance(node, cst.Call) else None
        module, _, cls = (fn or "").rpartition(".")
        space = _FRAGMENTS.get(cls) if module in _FRAGMENT_MODULES else None
        if space is None or not isinstance(node, cst.Call):
            raise self.error(
                node,
                f"`{source_of(node)}` is no fragment tiletrans reads",
                "use helion.autotuner's PowerOfTwoFragment(lo, hi), IntegerFragment(lo, hi), "
                "EnumFragment((a, b, ...)) or BooleanFragment() with literal arguments",
            )
        args, kwargs = call_args(node)
        values = [literal_or_none(a) for a in args]
        if space == "boolean":
            if args or kwargs:
                raise self.error(node, "BooleanFragment() takes no arguments")
            return ir.Tunable(name, "int", 0, space=space)
        if space == "choices":
            choices = values[0] if len(values) == 1 and not kwargs else None
            if not (
                isinstance(choices, (list, tuple))
                and choices
                and all(isinstance(c, int) and not isinstance(c, bool) for c in choices)
            ):
                raise self.error(
                    node,
                    f"`{source_of(node)}`: an enum tunable is read with integer choices only",
                    "write EnumFragment((1, 2, 4)); pick other values from the integer on "
                    "the host or in the kernel",
                )
            return ir.Tunable(name, "int", choices[0], tuple(choices), space=space)
        default_node = kwargs.pop("default_val", args[2] if len(args) > 2 else None)
        default = literal_or_none(default_node) if default_node is not None else None
        bounds = values[:2]
        if (
            kwargs
            or len(bounds) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in bounds)
            or (default_node is not None and not isinstance(default, int))
        ):
            raise self.error(
                node, f"`{source_of(node)}` needs integer literals (lo, hi[, default])"
            )
        lo, hi = bounds
        tunable = ir.Tunable(
            name, "int", default if default is not None else lo, space=space, bounds=(lo, hi)
        )
        if not (0 < lo <= hi) or not tunable.allows(tunable.default):
            raise self.error(node, f"`{source_of(node)}` has no default inside [{lo}, {hi}]")
        return tunable


def _first_config_value(config_nodes: list[cst.Call], key: str) -> int | None:
    """``key=`` of the first (default) ``helion.Config``, where it gives one."""
    if not config_nodes:
        return None
    _, kwargs = call_args(config_nodes[0])
    value = literal_or_none(kwargs[key]) if key in kwargs else None
    return value if isinstance(value, int) else None
