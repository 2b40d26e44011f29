"""TileLang autotune search spaces read statically: ``configs=[{...}, ...]`` literals, and the
module functions TileLang's examples build them with::

    def get_configs():
        iter_params = dict(block_M=[64, 128], num_stages=[1, 2], threads=[128, 256])
        return [dict(zip(iter_params, v)) for v in itertools.product(*iter_params.values())]

The reader folds a small, fixed set of pure constructs (literals, names the function binds,
comprehensions, ``dict``/``list``/``zip``/``range``/``itertools.product``, ``.values()``);
it never imports or runs the module. Anything else (a branch on an argument, a call into a
library) is a located refusal that names the construct."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from typing import Any

import libcst as cst

from translator.diagnostics import TranslationError
from translator.dialects.cst_utils import source_of
from translator.dialects.tilelang.model import ModuleFacts

#: The most configs a search space may hold (a guard against folding a huge product).
MAX_CONFIGS = 4096

_HINT = (
    "write configs=[{'block_M': 128, ...}, ...], or a module function that builds them from "
    "literal lists with itertools.product"
)


class _Unknown:
    """A value the reader cannot know (a host argument such as ``M``): an error once used."""

    def __init__(self, name: str) -> None:
        self.name = name


class _Fold:
    """Folds one expression (and the module functions it calls) to a Python value."""

    def __init__(self, mod: ModuleFacts, depth: int = 0) -> None:
        self.mod = mod
        self.depth = depth
        self.env: dict[str, Any] = {}

    def fail(self, node: cst.CSTNode, why: str) -> TranslationError:
        return self.mod.error(node, f"the autotune configs are not read statically: {why}", _HINT)

    def value(self, node: cst.BaseExpression) -> Any:
        handler = _EXPRESSIONS.get(type(node))
        if handler is None:
            raise self.fail(node, f"`{source_of(node).strip()}` is not a value tiletrans folds")
        out = handler(self, node)
        if isinstance(out, _Unknown):
            raise self.fail(node, f"`{out.name}` is only known when the module runs")
        return out

    # ------------------------------------------------------------------ expressions

    def name(self, node: cst.Name) -> Any:
        constants = {"True": True, "False": False, "None": None}
        if node.value in constants:
            return constants[node.value]
        if node.value in self.env:
            return self.env[node.value]
        if node.value in self.mod.module_ints:
            return self.mod.module_ints[node.value]
        raise self.fail(node, f"`{node.value}` is not bound to a literal here")

    def literal(self, node: cst.BaseExpression) -> Any:
        return node.evaluated_value  # type: ignore[attr-defined]

    def sequence(self, node: cst.List | cst.Tuple) -> Any:
        items: list[Any] = []
        for el in node.elements:
            if isinstance(el, cst.StarredElement):
                items.extend(self.value(el.value))
            else:
                items.append(self.value(el.value))
        return items if isinstance(node, cst.List) else tuple(items)

    def dict_(self, node: cst.Dict) -> Any:
        out: dict[Any, Any] = {}
        for el in node.elements:
            if not isinstance(el, cst.DictElement):
                out.update(self.value(el.value))
                continue
            out[self.value(el.key)] = self.value(el.value)
        return out

    def comprehension(self, node: cst.ListComp | cst.GeneratorExp) -> Any:
        out: list[Any] = []
        saved = dict(self.env)

        def run(clause: cst.CompFor | None) -> None:
            if clause is None:
                out.append(self.value(node.elt))
                return
            for item in self.value(clause.iter):
                self.bind(clause.target, item)
                if all(self.value(test.test) for test in clause.ifs):
                    run(clause.inner_for_in)
                if len(out) > MAX_CONFIGS:
                    raise self.fail(node, f"more than {MAX_CONFIGS} configs")

        try:
            run(node.for_in)
        finally:
            self.env = saved
        return out

    def subscript(self, node: cst.Subscript) -> Any:
        base = self.value(node.value)
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
            raise self.fail(node, "only one-index subscripts are folded")
        return base[self.value(node.slice[0].slice.value)]

    def call(self, node: cst.Call) -> Any:
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in _METHODS:
            owner = self.value(node.func.value)
            if not isinstance(owner, dict) or node.args:
                raise self.fail(node, f"`{source_of(node).strip()}` is not folded")
            return list(getattr(owner, node.func.attr.value)())
        name = self.mod.name_of(node.func) or ""
        args = self.arguments(node)
        if name in _BUILTINS:
            pos, kw = args
            try:
                return _BUILTINS[name](*pos, **kw)
            except TypeError as exc:
                raise self.fail(node, str(exc)) from None
        fn = self.mod.functions.get(name)
        if fn is None:
            raise self.fail(
                node, f"`{source_of(node.func).strip()}` is not a function tiletrans folds"
            )
        return self.function(fn, node, args)

    def arguments(self, node: cst.Call) -> tuple[list[Any], dict[str, Any]]:
        pos: list[Any] = []
        kw: dict[str, Any] = {}
        for arg in node.args:
            value = self.lazy(arg.value)
            if arg.star == "*":
                pos.extend(self.value(arg.value))
            elif arg.star == "**":
                kw.update(self.value(arg.value))
            elif arg.keyword is not None:
                kw[arg.keyword.value] = value
            else:
                pos.append(value)
        return pos, kw

    def lazy(self, node: cst.BaseExpression) -> Any:
        """An argument's value, or :class:`_Unknown` for a host value (an error once read)."""
        try:
            return self.value(node)
        except TranslationError:
            return _Unknown(source_of(node).strip())

    # ------------------------------------------------------------------ module functions

    def function(
        self, fn: cst.FunctionDef, call: cst.Call, args: tuple[list[Any], dict[str, Any]]
    ) -> Any:
        if self.depth > 8:
            raise self.fail(call, "the functions call each other too deep")
        inner = _Fold(self.mod, self.depth + 1)
        pos, kw = args
        for i, param in enumerate(fn.params.params):
            if i < len(pos):
                inner.env[param.name.value] = pos[i]
            elif param.name.value in kw:
                inner.env[param.name.value] = kw[param.name.value]
            elif param.default is not None:
                inner.env[param.name.value] = inner.lazy(param.default)
            else:
                raise self.fail(call, f"`{fn.name.value}` is called without `{param.name.value}`")
        return inner.body(fn.body.body)[1]

    def body(self, stmts: Iterable[cst.BaseStatement]) -> tuple[bool, Any]:
        """Run statements of assignments, ``if``s and a ``return``: ``(returned, value)``."""
        for stmt in stmts:
            if isinstance(stmt, cst.If):
                test = self.value(stmt.test)
                done, value = self.body(stmt.body.body if test else _else_body(stmt))
                if done:
                    return True, value
                continue
            if not isinstance(stmt, cst.SimpleStatementLine):
                raise self.fail(stmt, f"`{type(stmt).__name__}` statements are not folded")
            for small in stmt.body:
                if isinstance(small, cst.Return):
                    return True, self.value(small.value) if small.value is not None else None
                if isinstance(small, cst.Assign) and len(small.targets) == 1:
                    self.bind(small.targets[0].target, self.lazy(small.value))
                elif isinstance(small, cst.Expr) and isinstance(small.value, cst.SimpleString):
                    continue  # a docstring
                else:
                    raise self.fail(small, f"`{source_of(small).strip()}` is not folded")
        return False, None

    def bind(self, target: cst.BaseExpression, value: Any) -> None:
        if isinstance(target, cst.Name):
            self.env[target.value] = value
            return
        if isinstance(target, (cst.Tuple, cst.List)) and not isinstance(value, _Unknown):
            items = list(value)
            if len(items) != len(target.elements):
                raise self.fail(target, "unpacks another number of values")
            for el, item in zip(target.elements, items):
                self.bind(el.value, item)
            return
        raise self.fail(target, f"`{source_of(target).strip()}` is not a plain name")


def _else_body(stmt: cst.If) -> Iterable[cst.BaseStatement]:
    if isinstance(stmt.orelse, cst.If):
        return [stmt.orelse]
    if isinstance(stmt.orelse, cst.Else):
        return stmt.orelse.body.body
    return []


_METHODS = ("values", "keys", "items")
_BUILTINS: dict[str, Callable[..., Any]] = {
    "dict": dict,
    "list": list,
    "tuple": tuple,
    "zip": lambda *a: list(zip(*a)),
    "range": lambda *a: list(range(*a)),
    "len": len,
    "itertools.product": lambda *a, **k: list(itertools.product(*a, **k)),
}

_EXPRESSIONS: dict[type, Callable[[_Fold, Any], Any]] = {
    cst.Name: _Fold.name,
    cst.Integer: _Fold.literal,
    cst.Float: _Fold.literal,
    cst.SimpleString: _Fold.literal,
    cst.List: _Fold.sequence,
    cst.Tuple: _Fold.sequence,
    cst.Dict: _Fold.dict_,
    cst.ListComp: _Fold.comprehension,
    cst.GeneratorExp: _Fold.comprehension,
    cst.Subscript: _Fold.subscript,
    cst.Call: _Fold.call,
}


def config_space(
    node: cst.BaseExpression | None, mod: ModuleFacts, where: cst.CSTNode
) -> list[dict[str, int]]:
    """The configs of ``configs=...`` (a literal list of dicts, or a call of a module function
    that builds one): a list of ``{parameter: int}``; a located refusal if not readable."""
    if node is None:
        raise mod.error(where, "an autotune decorator without configs=[...] is not read", _HINT)
    fold = _Fold(mod)
    space = fold.value(node)
    if not isinstance(space, (list, tuple)) or not space:
        raise fold.fail(node, "it is not a non-empty list of dicts")
    rows: list[dict[str, int]] = []
    for row in space:
        if not isinstance(row, dict) or not all(
            isinstance(k, str) and isinstance(v, int) for k, v in row.items()
        ):
            raise fold.fail(node, f"a config is {row!r}, not a dict of names to ints")
        rows.append({k: int(v) for k, v in row.items()})
    return rows


__all__ = ["MAX_CONFIGS", "config_space"]
