"""Calls in a kernel body, dispatched from the tables of
:mod:`translator.dialects.triton.lift_dispatch`: ``tl.*`` functions, builtins, methods of device
values, ``tl.*`` calls written as statements, and ``@triton.jit`` helpers (inlined).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import libcst as cst

from translator.dialects.cst_utils import call_args, literal, resolve
from translator.dialects.triton.frontend_blocks import Descriptor
from translator.dialects.triton.lift_dispatch import (
    BUILTINS,
    CALLS,
    EFFECT_FAMILIES,
    EFFECTS,
    FAMILIES,
    METHODS,
    Table,
    handles,
    handles_effect,
    handles_expression,
)
from translator.dialects.triton.lifted import DTypeVal, Idx, Static, Val
from translator.ir import nodes as ir


class CallsMixin:
    """Call and method dispatch of :class:`KernelLifter`."""

    @handles_expression(cst.Call)
    def call(self, node: cst.Call) -> Val:
        """A call: a method, a ``@triton.jit`` helper (inlined), a builtin, or ``tl.<name>``
        (refused where the grammar says so, read through where it is a compiler hint, else by
        the handler of ``name`` or of the grammar table that holds it)."""
        func = node.func
        if (
            isinstance(func, cst.Attribute)
            and resolve(func, self.aliases) is None
            or (
                isinstance(func, cst.Attribute)
                and isinstance(func.value, (cst.Call, cst.Subscript))
            )
            or (
                isinstance(func, cst.Attribute)
                and isinstance(func.value, cst.Name)
                and func.value.value in self.env
            )
        ):
            return self.method(node, func)  # type: ignore[arg-type]
        fn = resolve(func, self.aliases)
        if fn is None:
            raise self.error(node, f"unsupported call `{self.src(node)[:60]}`")
        if isinstance(func, cst.Name) and func.value in self.launch.kernel.module.jit_helpers:
            return self.inline(func.value, node)
        builtin = BUILTINS.get(fn)
        if builtin is not None:
            return builtin(self, fn, node)
        name = self.language_name(fn)
        if name is None and isinstance(func, cst.Name) and fn != func.value:
            # FlagGems' `from flag_gems.utils.random_utils import uint_to_uniform_float`: a jit
            # helper of another module, whose body tiletrans never sees (it reads this file
            # only, and never imports it).
            module = fn.rsplit(".", 1)[0]
            why = self.launch.kernel.module.sibling_misses.get(func.value)
            raise self.error(
                node,
                f"`{func.value}` is imported from `{module}` and cannot be inlined: "
                + (why or "its body is in another file"),
                f"copy `{func.value}` into this file as a @triton.jit helper (tiletrans inlines "
                "helpers), or translate the file where its library's modules are on disk beside "
                "it (or name the library's root in TILETRANS_LIBRARY_ROOT)",
            )
        head = func
        while isinstance(head, cst.Attribute):
            head = head.value
        why = (
            self.launch.kernel.module.sibling_misses.get(head.value)
            if name is None and isinstance(head, cst.Name) and head is not func
            else None
        )
        if why is not None:
            # FlagGems' `tle.program_id(0)` of `import ...triton_lang_extension as tle`.
            raise self.error(
                node,
                f"`{self.src(func)}` cannot be inlined: {why}",
                "import it by name, or copy it into this file as a @triton.jit helper (a "
                "wrapper of a triton.language function can call it directly)",
            )
        if name is None:
            raise self.error(
                node,
                f"unsupported call `{self.src(node)[:60]}` in a kernel",
                "kernels may call triton.language functions and @triton.jit helpers",
            )
        for prefix in self.grammar["frontend"]["math_namespaces"]["prefixes"]:
            name = name.removeprefix(prefix)
        key = self.language_key(name)
        args, _ = call_args(node)
        unsupported = self.grammar["frontend"]["unsupported"]
        if key in unsupported:
            raise self.error(node, f"`tl.{name}` is not supported yet", unsupported[key])
        if key in self.grammar["frontend"]["identity_hints"]["names"]:
            return self.ev(args[0])  # a compiler hint: the value is unchanged
        handler = CALLS.get(name)
        if handler is not None:
            return handler(self, name, node)
        family = self.family_of(FAMILIES, name)
        if family is not None:
            family_handler, op = family
            return family_handler(self, name, op, node)
        if isinstance(self.ev(func), DTypeVal) and len(args) == 1 and not node.args[0].keyword:
            # `tl.float32(x)`: a dtype called on a value is the cast `x.to(tl.float32)`.
            return self.cast(name, self.ev(args[0]), node, [func], {}, args[0])
        raise self.error(node, f"`tl.{name}` is not supported by the Triton frontend yet")

    def language_name(self, fn: str | None) -> str | None:
        """``load`` of the resolved name ``triton.language.load``; ``None`` outside the language."""
        lang = self.lang + "."
        return fn[len(lang) :] if fn is not None and fn.startswith(lang) else None

    def language_key(self, name: str) -> str:
        """``triton.language.load`` of ``load``: the grammar's tables are keyed by dotted names."""
        return f"{self.lang}.{name}"

    def family_of(self, families: Table, name: str) -> tuple[Callable[..., Any], str] | None:
        """The handler of the grammar table of ``families`` that holds ``name``, and the IR op
        the table maps it to; ``None`` where no table holds it."""
        key = self.language_key(name)
        for family, handler in families.items():
            ops = self.grammar["frontend"][family]
            if key in ops:
                return handler, ops[key]
        return None

    def method(self, node: cst.Call, func: cst.Attribute) -> Val:
        """``value.name(...)``: a descriptor access or a method handler."""
        base = self.ev(func.value)
        name = func.attr.value
        args, kwargs = call_args(node)
        if isinstance(base, Descriptor):
            return self.descriptor_access(base, name, args, kwargs, node)
        handler = METHODS.get(name)
        if handler is None:
            raise self.error(node, f"unsupported method `.{name}()` in a kernel")
        return handler(self, name, base, node)

    def effect(self, node: cst.Expr) -> bool:
        """Lift ``node`` if it is a call for its effect (``tl.store(...)``, ``desc.store(...)``)."""
        if not isinstance(node.value, cst.Call):
            return False
        name = self.language_name(resolve(node.value.func, self.aliases))
        if name is not None:
            handler = EFFECTS.get(name)
            if handler is not None:
                handler(self, name, node.value)
                return True
            family = self.family_of(EFFECT_FAMILIES, name)
            if family is not None:
                family_handler, op = family
                family_handler(self, name, op, node.value)
                return True
        func = node.value.func
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value == "store"
            and isinstance(self.ev(func.value), Descriptor)
        ):
            self.call(node.value)
            return True
        return False

    @handles("static_assert", "device_assert", "static_print", "device_print")
    def no_value(self, name: str, node: cst.Call) -> Val:
        """Compile- and debug-time checks and prints: they never change what is computed."""
        return Static(None)

    @handles_effect("static_assert", "device_assert", "static_print", "device_print", "assume")
    def no_effect(self, name: str, node: cst.Call) -> None:
        """Compile- and debug-time checks, prints and compiler assumptions (``tl.assume(pid >=
        0)``) as statements: they never change what is computed."""

    def _int_literal(self, node, where) -> int:
        try:
            value = literal(node) if node is not None else None
        except ValueError:
            value = None
        if value is None and isinstance(node, cst.Name) and node.value in self.env:
            # A helper's parameter bound to a literal (FlagGems' `tle.program_id(axis)` wrapper
            # forwarding `axis` to `tl.program_id`).
            bound = self.env[node.value]
            if isinstance(bound, Idx) and isinstance(bound.tree, ir.Const):
                value = bound.tree.value
            elif isinstance(bound, Static):
                value = bound.value
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.error(where, "expected an integer literal")
        return value
