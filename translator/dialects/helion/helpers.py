"""Helion device code, module helper functions: a plain function of the module that a kernel body
calls (``out_vals, _ = _segmented_scan(vals, idxs)``) is inlined where it is called.

Helion traces such a call: the helper's statements run on the caller's tiles as if they were
written in the loop. The frontend does the same statically: the arguments are evaluated once in
the caller (a name, a literal or a tuple of names is passed as it is), the helper's own names are
renamed apart from the kernel's, and its statements are read as device statements of the kernel;
its ``return`` value (a tuple for an unpacking caller) is the call's value. The helper's nodes
keep their source positions, so a diagnostic inside it points into the helper.

What is not inlined is refused at the call or in the helper: decorated functions (a
``@triton.jit`` function is no Helion code), ``*args``/``**kwargs``, a ``return`` other than the
helper's last statement, nested functions, ``global``/``nonlocal`` and recursion.

A mixin of :class:`~translator.dialects.helion.expressions.ExprBuilder`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TypeVar

import libcst as cst

from translator.dialects.cst_utils import bound_names, literal_or_none, walk
from translator.ir import nodes as ir

_T = TypeVar("_T")

#: Reads one device statement of the kernel being read (``DeviceParser.statement``).
StatementReader = Callable[[cst.BaseStatement], list[ir.Stmt]]


@dataclass
class Helpers:
    """The module's helper functions and what inlining them needs from the entry."""

    #: Module-level functions, by name, that are no kernel: the ones a kernel body may call.
    functions: dict[str, cst.FunctionDef] = field(default_factory=dict)
    #: Names the kernel function binds or reads anywhere: a helper's locals are renamed apart.
    reserved: set[str] = field(default_factory=set)
    #: The device statement reader of the loop being read; set by its ``DeviceParser``.
    statements: StatementReader | None = None
    #: The helpers being inlined, innermost last (a recursive call is refused).
    active: list[str] = field(default_factory=list)
    #: Helpers some kernel inlined: the translation drops them where nothing else reads them.
    inlined: set[str] = field(default_factory=set)


def module_helpers(
    module: cst.Module, is_kernel: Callable[[cst.FunctionDef], bool]
) -> dict[str, cst.FunctionDef]:
    """The module-level functions that are no kernel and whose name the module binds once (a
    name bound again may be another function by the time a kernel runs)."""
    counts: dict[str, int] = {}
    for stmt in module.body:
        for name in bound_names(stmt):
            counts[name] = counts.get(name, 0) + 1
    return {
        stmt.name.value: stmt
        for stmt in module.body
        if isinstance(stmt, cst.FunctionDef)
        and counts.get(stmt.name.value) == 1
        and not is_kernel(stmt)
    }


@dataclass(frozen=True)
class _Body:
    """A helper's statements (docstring left out) and the value its last ``return`` gives."""

    statements: tuple[cst.BaseStatement, ...]
    value: cst.BaseExpression | None


class _Renamer(cst.CSTTransformer):
    """Replaces the helper's names (parameters and locals) by what they stand for in the
    caller, and records which parsed node each made node comes from (for locations)."""

    def __init__(self, names: dict[str, cst.BaseExpression]) -> None:
        super().__init__()
        self.names = names
        self.origins: dict[cst.CSTNode, cst.CSTNode] = {}

    def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode):  # type: ignore[no-untyped-def]
        result = super().on_leave(original, updated)
        if isinstance(result, cst.CSTNode) and result is not original:
            self.origins.setdefault(result, original)
        return result

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        return self.names.get(original.value, updated)

    def leave_Attribute(
        self, original: cst.Attribute, updated: cst.Attribute
    ) -> cst.BaseExpression:
        return updated.with_changes(attr=original.attr)  # `x.attr`: `attr` is no variable

    def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg:
        return updated.with_changes(keyword=original.keyword)  # `dim=`: no variable either

    def leave_Subscript(
        self, original: cst.Subscript, updated: cst.Subscript
    ) -> cst.BaseExpression:
        # `tiles[0]` of a parameter passed a tuple of names (`(tile_m, tile_n)`): the item.
        base = original.value
        bound = self.names.get(base.value) if isinstance(base, cst.Name) else None
        if isinstance(bound, (cst.Tuple, cst.List)) and len(original.slice) == 1:
            index = original.slice[0].slice
            if isinstance(index, cst.Index):
                i = literal_or_none(index.value)
                if isinstance(i, int) and -len(bound.elements) <= i < len(bound.elements):
                    return bound.elements[i].value
        return updated


class HelperInliner:
    """Inlines calls of module helper functions in device code (mixin of ``ExprBuilder``)."""

    helpers: Helpers

    def is_helper_call(self, node: cst.Call) -> bool:
        """Whether ``node`` calls a helper function of the module from device code."""
        func = node.func
        return (
            self.device  # type: ignore[attr-defined]
            and isinstance(func, cst.Name)
            and func.value in self.helpers.functions
            and func.value not in self.scope.env.vars  # type: ignore[attr-defined]
        )

    def inline_value(self, node: cst.Call) -> ir.Expr:
        """The value of a helper call in an expression: its statements go before the current
        statement (``pending``)."""

        def read(value: cst.BaseExpression) -> ir.Expr:
            if isinstance(value, (cst.Tuple, cst.List)):
                raise self.error(  # type: ignore[attr-defined]
                    node,
                    f"`{_name(node)}(...)` returns {len(value.elements)} values, read as one",
                    "unpack them into names: `a, b = helper(...)`",
                )
            return self.expr(value)  # type: ignore[attr-defined]

        return self._inline(node, read)

    def inline_values(self, node: cst.Call) -> tuple[ir.Expr, ...] | None:
        """The values of a helper call whose result is unpacked (``a, b = helper(...)``), or
        ``None`` where it returns one value (the caller says so)."""

        def read(value: cst.BaseExpression) -> tuple[ir.Expr, ...] | None:
            if isinstance(value, (cst.Tuple, cst.List)):
                return tuple(self.expr(e.value) for e in value.elements)  # type: ignore[attr-defined]
            if isinstance(value, cst.Call):
                return self.tuple_call(value)  # type: ignore[attr-defined]
            return None

        return self._inline(node, read)

    def inline_statement(self, node: cst.Call) -> None:
        """A helper called as a statement (its stores): its statements go to ``pending``; a
        value it returns is not read, so not computed."""
        self._inline(node, None)

    # ------------------------------------------------------------------------------------------

    def _inline(self, node: cst.Call, read: Callable[[cst.BaseExpression], _T] | None) -> _T:
        """Read the helper's statements into ``pending``, then its return value with ``read``
        (in the helper's frame: a recursive call there is refused too)."""
        name = _name(node)
        fn = self.helpers.functions[name]
        if name in self.helpers.active:
            chain = " -> ".join([*self.helpers.active, name])
            raise self.error(  # type: ignore[attr-defined]
                node,
                f"`{name}` calls itself ({chain}): a recursive helper cannot be inlined",
                "write the recursion as a loop in the kernel",
            )
        body = self._body(fn)
        if read is not None and body.value is None:
            raise self.error(node, f"`{name}(...)` returns nothing, and its value is read")  # type: ignore[attr-defined]
        assert self.helpers.statements is not None, "helpers are inlined in device code only"
        names = self._bind_arguments(fn, node, body)
        for local in _locals(fn, body):
            names[local] = cst.Name(self._fresh(local))
        renamer = _Renamer(names)
        statements = [s.visit(renamer) for s in body.statements]
        value = body.value.visit(renamer) if body.value is not None and read else None
        self.locate.adopt(renamer.origins)  # type: ignore[attr-defined]
        self.helpers.active.append(name)
        self.helpers.inlined.add(name)
        try:
            made: list[ir.Stmt] = []
            saved = self.pending  # type: ignore[has-type]
            for stmt in statements:
                self.pending = []
                stmts = self.helpers.statements(stmt)  # type: ignore[arg-type]
                made.extend(self.pending + stmts)
            self.pending = saved + made
            self.device = True
            return read(value) if read is not None else None  # type: ignore[arg-type,return-value]
        finally:
            self.helpers.active.pop()

    def _body(self, fn: cst.FunctionDef) -> _Body:
        """``fn``'s statements and returned value, refusing what cannot be inlined."""
        name = fn.name.value
        if fn.decorators:
            raise self.error(  # type: ignore[attr-defined]
                fn.decorators[0],
                f"`{name}` is decorated: tiletrans inlines plain functions into Helion device "
                "code, as Helion traces them",
                f"call an undecorated function, or write the body of `{name}` in the loop",
            )
        params = fn.params
        if params.star_arg not in (None, cst.MaybeSentinel.DEFAULT) or params.star_kwarg:
            raise self.error(  # type: ignore[attr-defined]
                fn.params, f"`{name}` takes *args or **kwargs", "list its parameters"
            )
        if not isinstance(fn.body, cst.IndentedBlock):
            raise self.error(fn.body, f"put the statements of `{name}` on lines of their own")  # type: ignore[attr-defined]
        statements = list(fn.body.body)
        if fn.get_docstring(clean=False) is not None:
            statements = statements[1:]
        value: cst.BaseExpression | None = None
        last = statements[-1] if statements else None
        if (
            isinstance(last, cst.SimpleStatementLine)
            and len(last.body) == 1
            and isinstance(last.body[0], cst.Return)
        ):
            value = last.body[0].value
            statements = statements[:-1]
        for stmt in statements:
            bad = _first_unsupported(stmt)
            if bad is not None:
                node, what = bad
                raise self.error(  # type: ignore[attr-defined]
                    node,
                    f"{what} in `{name}`, which a kernel calls: tiletrans inlines a helper "
                    "whose only `return` is its last statement",
                    "compute the value in straight-line code (`torch.where` for a choice) and "
                    "return it at the end",
                )
        return _Body(tuple(statements), _uncast(value, self.qualname))  # type: ignore[attr-defined]

    def _bind_arguments(
        self, fn: cst.FunctionDef, node: cst.Call, body: _Body
    ) -> dict[str, cst.BaseExpression]:
        """Each parameter of ``fn`` -> what the inlined body reads for it: the caller's
        argument where it is a name, a literal or a tuple of names the helper never rebinds,
        else a fresh device name the argument is computed into first."""
        name = fn.name.value
        params = [*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params]
        positional = len(fn.params.posonly_params) + len(fn.params.params)
        passed: dict[str, cst.BaseExpression] = {}
        for i, arg in enumerate(node.args):
            if arg.star:
                raise self.error(arg, "star arguments are not inlined", "pass each argument")  # type: ignore[attr-defined]
            if arg.keyword is None:
                if i >= positional:
                    raise self.error(  # type: ignore[attr-defined]
                        arg, f"`{name}` takes {positional} positional argument(s)", None
                    )
                key = params[i].name.value
            else:
                key = arg.keyword.value
                if key not in {p.name.value for p in params}:
                    raise self.error(arg, f"`{name}` has no parameter `{key}`", None)  # type: ignore[attr-defined]
            if key in passed:
                raise self.error(arg, f"`{key}` is passed twice", None)  # type: ignore[attr-defined]
            passed[key] = arg.value
        rebound = set(bound_names(cst.IndentedBlock(body=list(body.statements))))
        out: dict[str, cst.BaseExpression] = {}
        for p in params:
            key = p.name.value
            value = passed.get(key, p.default)
            if value is None:
                raise self.error(node, f"`{name}(...)` misses its argument `{key}`", None)  # type: ignore[attr-defined]
            if key not in rebound and _passed_as_written(value):
                out[key] = value
                continue
            fresh = self._fresh(key)
            computed = self.expr(value)  # type: ignore[attr-defined]
            self.pending.append(ir.Assign(fresh, computed, loc=self.locate(value)))  # type: ignore[attr-defined]
            self.scope.env.vars[fresh] = self.type_of(computed, value)  # type: ignore[attr-defined]
            self.pads.bind(fresh, computed)  # type: ignore[attr-defined]
            out[key] = cst.Name(fresh)
        return out

    def _fresh(self, base: str) -> str:
        """A device name for a helper's own name, apart from every name of the kernel."""
        self.scope.used_names.update(self.helpers.reserved)  # type: ignore[attr-defined]
        return self.scope.fresh(base)  # type: ignore[attr-defined]


def _name(node: cst.Call) -> str:
    assert isinstance(node.func, cst.Name)
    return node.func.value


def _locals(fn: cst.FunctionDef, body: _Body) -> Iterator[str]:
    """The names the helper binds that are not its parameters (its locals)."""
    params = {
        p.name.value
        for p in (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params)
    }
    seen: set[str] = set()
    for stmt in body.statements:
        for name in bound_names(stmt):
            if name not in params and name not in seen and name != "_":
                seen.add(name)
                yield name


def _passed_as_written(value: cst.BaseExpression) -> bool:
    """Whether an argument is read in the helper as the caller wrote it: a name (a tile, a
    host tensor, a device value), a literal, or a tuple or list of names (the tiles)."""
    if isinstance(value, cst.Name) or literal_or_none(value) is not None:
        return True
    return isinstance(value, (cst.Tuple, cst.List)) and all(
        isinstance(e.value, cst.Name) for e in value.elements
    )


def _uncast(
    value: cst.BaseExpression | None, qualname: Callable[[cst.BaseExpression], str | None]
) -> cst.BaseExpression | None:
    """``typing.cast(T, v)`` -> ``v``: a type checker's note, nothing at run time."""
    while (
        isinstance(value, cst.Call)
        and qualname(value.func) == "typing.cast"
        and len(value.args) == 2
        and all(a.keyword is None and not a.star for a in value.args)
    ):
        value = value.args[1].value
    return value


_UNSUPPORTED: dict[type, str] = {
    cst.Return: "a `return` before the end",
    cst.FunctionDef: "a nested function",
    cst.ClassDef: "a nested class",
    cst.Global: "a `global` statement",
    cst.Nonlocal: "a `nonlocal` statement",
    cst.Yield: "a `yield`",
    cst.Try: "a `try` statement",
    cst.With: "a `with` statement",
}


def _first_unsupported(stmt: cst.CSTNode) -> tuple[cst.CSTNode, str] | None:
    """The first node of ``stmt`` that inlining cannot keep the meaning of, and what it is."""
    found: list[tuple[cst.CSTNode, str]] = []

    def enter(node: cst.CSTNode) -> bool:
        what = _UNSUPPORTED.get(type(node))
        if what is not None and not found:
            found.append((node, what))
        return not found

    walk(stmt, enter)
    return found[0] if found else None


__all__ = ["Helpers", "HelperInliner", "module_helpers"]
