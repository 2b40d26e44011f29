"""Helion frontend, the kernel decorator: ``@helion.kernel(config=..., configs=[...], ...)`` read
into the kernels' tunables (block sizes in Helion's numbering, ``num_warps``, ``num_stages``,
``group_size``), their configs and the entry's hints (``pid_type``, ``index_dtype``,
``fast_math``, ``static_shapes``, ``dot_precision``).

A mixin of :class:`translator.dialects.helion.frontend.EntryParser`, which holds the state the
methods read (``self.fn``, ``self.scope``, ``self.config_nodes``, ``self.hints``...); split out so
that each file reads one part of a kernel function.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import libcst as cst

from translator.dialects.cst_utils import call_args, literal_or_none, resolve, source_of
from translator.ir import nodes as ir


def kernel_decorator(
    fn: cst.FunctionDef, aliases: dict[str, str], grammar: dict
) -> cst.Decorator | None:
    """The ``@helion.kernel`` (or ``@helion.jit``) decorator of ``fn``, if it has one."""
    names = {grammar["frontend"]["kernel"]["decorator"], *kernel_aliases(grammar)}
    for dec in fn.decorators:
        target = dec.decorator.func if isinstance(dec.decorator, cst.Call) else dec.decorator
        if resolve(target, aliases) in names:
            return dec
    return None


def kernel_aliases(grammar: dict) -> list[str]:
    """The other names of the kernel decorator."""
    return list(grammar["frontend"]["kernel"].get("decorator_aliases", ()))


@dataclass(frozen=True)
class ConditionalConfig:
    """A config a module binds only when a test holds, ``None`` otherwise (Helion's fp8 GEMM
    example: ``config = None`` then ``if os.environ.get(...) == "1": config = helion.Config(...)``).

    A kernel given it autotunes by default and runs ``config`` when the test holds, so the
    translation autotunes with ``config`` first in its space (the config a pinned run takes).
    """

    name: str
    default: cst.SimpleStatementLine  # `config = None`
    branch: cst.If  # `if test: config = helion.Config(...)`
    config: cst.Call


def conditional_configs(
    module: cst.Module, aliases: dict[str, str], grammar: dict
) -> dict[str, ConditionalConfig]:
    """The module's configs bound to ``None`` and, under a later ``if`` with no ``else``, to a
    ``helion.Config(...)``, by name."""
    config_name = grammar["frontend"]["kernel"]["config"]
    nones: dict[str, cst.SimpleStatementLine] = {}
    out: dict[str, ConditionalConfig] = {}
    for stmt in module.body:
        bound = _single_binding(stmt)
        if bound is not None:
            name, value = bound
            out.pop(name, None)  # bound again: no longer the conditional config
            nones.pop(name, None)
            if isinstance(value, cst.Name) and value.value == "None":
                nones[name] = stmt  # type: ignore[assignment]
            continue
        if not (isinstance(stmt, cst.If) and stmt.orelse is None):
            continue
        body = stmt.body.body if isinstance(stmt.body, cst.IndentedBlock) else ()
        inner = _single_binding(body[0]) if len(body) == 1 else None
        if inner is None or inner[0] not in nones:
            continue
        name, value = inner
        if isinstance(value, cst.Call) and resolve(value.func, aliases) == config_name:
            out[name] = ConditionalConfig(name, nones.pop(name), stmt, value)
    return out


def _single_binding(stmt: cst.CSTNode) -> tuple[str, cst.BaseExpression] | None:
    """``(name, value)`` of a statement line that is one ``name = value``, else ``None``."""
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1):
        return None
    small = stmt.body[0]
    if (
        isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
    ):
        return small.targets[0].target.value, small.value
    return None


def refused_kernel_form(
    module: cst.Module, aliases: dict[str, str], grammar: dict
) -> tuple[cst.CSTNode, str, str] | None:
    """The first kernel this frontend does not read, as ``(node, what, instead)``: a decorator
    of a refused form (``@helion.aot_kernel``), or ``helion.kernel(fn, ...)`` called on a
    function (the kernel would otherwise be carried as host code, untranslated)."""
    kernel = grammar["frontend"]["kernel"]
    refused: dict[str, str] = kernel.get("refused_forms", {})
    names = {kernel["decorator"], *kernel_aliases(grammar)}
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef):
            for dec in stmt.decorators:
                node = dec.decorator
                target = node.func if isinstance(node, cst.Call) else node
                name = resolve(target, aliases)
                if name in refused:
                    what, _, instead = refused[name].partition(": ")
                    return dec, what, instead
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                value = getattr(small, "value", None)
                if (
                    isinstance(value, cst.Call)
                    and resolve(value.func, aliases) in names | set(refused)
                    and value.args
                    and value.args[0].keyword is None
                ):
                    fn = source_of(value.args[0].value).strip()
                    return (
                        value,
                        f"a kernel made by calling `{source_of(value.func).strip()}({fn}, ...)`"
                        " is not read",
                        f"decorate `{fn}` with @helion.kernel(...) instead",
                    )
    return None


class DecoratorReader:
    """What the ``@helion.kernel(...)`` decorator of a kernel function sets."""

    def _decorator(self) -> None:
        dec = kernel_decorator(self.fn, self.aliases, self.grammar)
        assert dec is not None
        if not isinstance(dec.decorator, cst.Call):
            return
        _, kwargs = call_args(dec.decorator)
        config_name = self.grammar["frontend"]["kernel"]["config"]
        given = kwargs.get("config")
        if isinstance(given, cst.Name) and given.value in self.conditional:
            # No config by default (Helion autotunes), this one where the module's test holds.
            self.config_nodes.append(self.conditional[given.value].config)
            self.hints["autotune"] = True
            self.consumed_conditional.add(given.value)
        elif given is not None:
            node = self._named_constant(given)
            if not (isinstance(node, cst.Call) and resolve(node.func, self.aliases) == config_name):
                raise self.error(
                    kwargs["config"],
                    "config= must be a helion.Config(...) call or a module-level name bound to one",
                )
            self.config_nodes.append(node)
        if "configs" in kwargs:
            node = self._named_constant(kwargs["configs"])
            if not isinstance(node, (cst.List, cst.Tuple)):
                raise self.error(node, "configs= must be a list of helion.Config(...)")
            for element in node.elements:
                v = element.value
                if not (isinstance(v, cst.Call) and resolve(v.func, self.aliases) == config_name):
                    raise self.error(v, "configs= entries must be helion.Config(...) calls")
                self.config_nodes.append(v)
        setting = self.grammar["backend"]["kernel"]["dot_precision_setting"]
        if setting in kwargs:
            value = literal_or_none(kwargs[setting])
            if value not in ir.DOT_PRECISIONS:
                raise self.error(
                    kwargs[setting],
                    f"{setting}= must be a literal string, one of "
                    + ", ".join(repr(p) for p in ir.DOT_PRECISIONS),
                )
            self.build.dot_precision = str(value)
        if "static_shapes" in kwargs:
            self.hints["static_shapes"] = bool(literal_or_none(kwargs["static_shapes"]))
        if "fast_math" in kwargs:
            self.hints["fast_math"] = bool(literal_or_none(kwargs["fast_math"]))
        if "index_dtype" in kwargs:
            dtype = self.grammar["frontend"]["dtypes"].get(
                resolve(kwargs["index_dtype"], self.aliases) or ""
            )
            if dtype is None:
                raise self.error(kwargs["index_dtype"], "index_dtype= must be a torch dtype")
            self.hints["index_dtype"] = dtype
            self.build.index_bits = 64 if dtype == "int64" else None

    def _named_constant(self, node: cst.BaseExpression) -> cst.BaseExpression:
        """``CONFIG`` bound at module level to a value: that value (the translation drops the
        constant unless host code reads it too)."""
        if isinstance(node, cst.Name) and node.value in self.constants:
            stmt = self.constants[node.value]
            small = stmt.body[0]
            assert isinstance(small, cst.Assign)
            self.consumed.add(node.value)
            return small.value
        return node

    def _tunables(self) -> tuple[tuple[ir.Tunable, ...], tuple[tuple[tuple[str, int], ...], ...]]:
        """Block sizes (in Helion's numbering), num_warps and num_stages, from the configs."""
        configs: list[dict[str, int]] = []
        hint_keys = set(self.grammar["frontend"]["kernel"]["hint_keys"])
        launch_keys = self.grammar["frontend"]["kernel"]["launch_keys"]
        blocks = self.scope.block_order
        for node in self.config_nodes:
            positional, kwargs = call_args(node)
            if positional:
                raise self.error(node, "pass helion.Config options as keywords")
            values: dict[str, int] = {}
            for key, value_node in kwargs.items():
                value = literal_or_none(value_node)
                if key == "block_sizes":
                    if not isinstance(value, list) or not all(isinstance(v, int) for v in value):
                        raise self.error(value_node, "block_sizes must be a list of integers")
                    if len(value) != len(blocks):
                        raise self.error(
                            value_node,
                            f"block_sizes has {len(value)} entries but the kernel has "
                            f"{len(blocks)} tiled loops ({', '.join(blocks) or 'none'})",
                            "give one block size per hl.tile dimension, in order",
                        )
                    values.update(zip(blocks, value))
                elif key in launch_keys:
                    if not isinstance(value, int):
                        raise self.error(value_node, f"{key} must be an integer")
                    values[key] = value
                elif key == "l2_groupings":
                    if isinstance(value, list) and value and isinstance(value[0], int):
                        values["group_size"] = value[0]
                elif key in self.scope.user_tunables:
                    tunable = self.scope.user_tunables[key]
                    if isinstance(value, bool):
                        value = int(value)
                    if not isinstance(value, int) or not tunable.allows(value):
                        raise self.error(
                            value_node, f"{key}={source_of(value_node)} lies outside its space"
                        )
                    values[tunable.name] = value
                elif key in self.scope.fixed_tunables:
                    # Fixed on the host at the first config's value: configs of another are
                    # left out below, as fixed blocks are.
                    if value != self.scope.fixed_tunables[key]:
                        values[_OTHER_FIXED] = 1
                elif key in hint_keys:
                    if key == "pid_type":
                        self._pid_type(value, value_node, first=not configs)
                    # Other options steer Helion's own code generation (indexing strategy,
                    # loop orders, unrolling); they are performance hints the Triton output does
                    # not need for correctness.
                else:
                    raise self.error(value_node, f"unknown helion.Config option `{key}`")
            configs.append(values)
        fixed = self.scope.fixed_blocks
        # A block host code reads is fixed at one value: configs that chose another are left
        # out of the search, as the host could not size its buffers for them.
        configs = [c for c in configs if all(c.get(b, v) == v for b, v in fixed.items())]
        configs = [c for c in configs if _OTHER_FIXED not in c]
        configs = [{k: v for k, v in c.items() if k not in fixed} for c in configs]
        defaults = configs[0] if configs else {}
        tunables = []
        # A config the kernel runs only under a module-level test leaves the search open: it
        # bounds no block.
        searched = [] if self.hints.get("autotune") else configs
        for name in (b for b in blocks if b not in fixed):
            choices = tuple(sorted({c[name] for c in searched if name in c}))
            choices = choices or self.scope.block_choices.get(name, ())
            default = defaults.get(name, self.scope.tunable_defaults.get(name, 32))
            tunables.append(ir.Tunable(name, "block_size", default, choices))
        for name, cap in self.scope.fitted_blocks.items():
            tunables.append(ir.Tunable(name, "block_size", cap, (), fit=True))
        for tunable in self.scope.user_tunables.values():
            default = defaults.get(tunable.name, tunable.default)
            tunables.append(dataclasses.replace(tunable, default=default))
        # Helion's own defaults where a config leaves a knob out (num_stages=1, not Triton's 3).
        for key, fallback in (("num_warps", 4), ("num_stages", 1), ("group_size", 1)):
            present = [c[key] for c in configs if key in c]
            if present or key != "group_size":
                tunables.append(
                    ir.Tunable(key, key, defaults.get(key, fallback), tuple(sorted(set(present))))
                )
        names = [t.name for t in tunables]
        full_configs = []
        for c in configs:
            full = {n: c.get(n, next(t.default for t in tunables if t.name == n)) for n in names}
            full_configs.append(tuple(full.items()))
        return tuple(tunables), tuple(full_configs)

    def _pid_type(self, value: Any, node: cst.BaseExpression, first: bool) -> None:
        """``pid_type=`` of a config: the first (default) config's is the entry's hint."""
        if isinstance(node, cst.Name) and node.value == "None":
            return  # Helion's default ("flat")
        pid_types = self.grammar["frontend"]["kernel"]["pid_types"]
        if value not in pid_types:
            raise self.error(
                node,
                f"unsupported pid_type `{source_of(node)}`",
                f"use one of {', '.join(repr(p) for p in pid_types)}",
            )
        if first:
            # The IR has one pid_type per entry; it only steers performance.
            self.hints["pid_type"] = value

    def _hints(self) -> ir.Hints:
        """The decorator's settings in the IR's words."""
        h = self.hints
        return ir.Hints(
            schedule=h.get("pid_type"),
            index_bits=64 if h.get("index_dtype") == "int64" else None,
            fast_math=h.get("fast_math"),
            static_shapes=h.get("static_shapes"),
            autotune=True if not self.config_nodes or h.get("autotune") else None,
        )


#: The key a config's values get where the config gives a fixed ``hl.register_tunable`` key
#: another value than the one the host was given: such a config is left out.
_OTHER_FIXED = "<another fixed tunable value>"
