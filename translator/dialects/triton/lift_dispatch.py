"""The dispatch tables of the Triton lifter: one handler per construct, registered by decorator.

As TVMScript's parser registers one handler per token (``dispatch.register(token, type_name)``),
each construct of a kernel body has one handler, a :class:`KernelLifter` method that says which
keys it handles:

* ``@handles("load")``: ``tl.load(...)``, keyed by the name after the grammar's
  ``device_module`` prefix (and any of its math namespaces); called ``handler(lifter, name, call)``;
* ``@handles_family("reductions")``: every name of that table of the grammar
  (``[frontend.reductions]``: ``"triton.language.sum" = "sum"``..., keyed by dotted names under
  the grammar's ``device_module``); called ``handler(lifter, name, op, call)`` with the name after
  the prefix and the IR op the grammar maps the name to;
* ``@handles_builtin("min")``: Python builtins; called like ``@handles``;
* ``@handles_method("to")``: methods of device values (``x.to(tl.float16)``); called
  ``handler(lifter, name, base, call)`` with the value of the object;
* ``@handles_effect("store")``: ``tl.*`` calls written as statements; called like ``@handles``;
* ``@handles_effect_family("atomics")``: every name of that grammar table, written as a
  statement; called like ``@handles_family``;
* ``@handles_expression(cst.Name)``, ``@handles_statement(cst.For)``,
  ``@handles_small(cst.Assign)``: libcst node kinds of expressions, compound statements and simple statements; called
  ``handler(lifter, node)``.

The tables are filled as the mixin modules are imported, which
:mod:`translator.dialects.triton.frontend_device` does before any lifter exists.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class Table(dict[Hashable, Callable[..., Any]]):
    """Handlers by key; a key handled twice is a programming error, caught at import."""

    def __init__(self, what: str) -> None:
        super().__init__()
        self.what = what

    def register(self, *keys: Hashable) -> Callable[[F], F]:
        """A decorator registering the function it decorates under ``keys``."""

        def decorate(fn: F) -> F:
            for key in keys:
                if key in self:
                    raise ValueError(f"two handlers for the {self.what} {key!r}")
                self[key] = fn
            return fn

        return decorate


CALLS = Table("tl function")
FAMILIES = Table("grammar table")
BUILTINS = Table("builtin")
METHODS = Table("method")
EFFECTS = Table("tl statement call")
EFFECT_FAMILIES = Table("grammar table of tl statement calls")
EXPRESSIONS = Table("expression kind")
STATEMENTS = Table("statement kind")
SMALL_STATEMENTS = Table("simple statement kind")

handles = CALLS.register
handles_family = FAMILIES.register
handles_builtin = BUILTINS.register
handles_method = METHODS.register
handles_effect = EFFECTS.register
handles_effect_family = EFFECT_FAMILIES.register
handles_expression = EXPRESSIONS.register
handles_statement = STATEMENTS.register
handles_small = SMALL_STATEMENTS.register
