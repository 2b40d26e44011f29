"""TileLang autotune search spaces read statically: ``configs=[{...}, ...]`` literals, and the
module functions TileLang's examples build them with::

    def get_configs():
        iter_params = dict(block_M=[64, 128], num_stages=[1, 2], threads=[128, 256])
        return [dict(zip(iter_params, v)) for v in itertools.product(*iter_params.values())]

The reader folds a small, fixed set of pure constructs (literals, names the function binds,
arithmetic, comparisons, comprehensions, ``dict``/``list``/``zip``/``range``/
``itertools.product``, ``.values()``; nested ``for`` loops with ``continue``/``break`` that
``append`` to a list, as ``get_configs()`` of the attention examples writes them; a module class
whose ``__init__`` only stores its arguments, read as the record of them); it never imports or
runs the module. Anything else (a branch on an argument, a call into a
library) is a located refusal that names the construct."""

from __future__ import annotations

import itertools
import operator
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

    def __init__(self, name: str, error: TranslationError | None = None) -> None:
        self.name = name
        #: Why it is unknown, where that is a construct the reader does not fold.
        self.error = error


class _Record:
    """An instance of a module class whose ``__init__`` only stores values on ``self``."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.fields: dict[str, Any] = {}


class _Continue(Exception):
    """``continue`` in a folded loop."""


class _Break(Exception):
    """``break`` in a folded loop."""


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
            raise self.unknown(node, out)
        return out

    def unknown(self, node: cst.CSTNode, value: _Unknown) -> TranslationError:
        """The refusal for reading ``value``: why it is unknown, where that is known."""
        if value.error is not None:
            return value.error
        return self.fail(node, f"`{value.name}` is only known when the module runs")

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

    def binary(self, node: cst.BinaryOperation) -> Any:
        op = _BINARY.get(type(node.operator))
        if op is None:
            raise self.fail(node, f"the operator of `{source_of(node).strip()}` is not folded")
        try:
            return op(self.value(node.left), self.value(node.right))
        except (TypeError, ZeroDivisionError, ValueError) as exc:
            raise self.fail(node, str(exc)) from None

    def unary(self, node: cst.UnaryOperation) -> Any:
        operand = self.value(node.expression)
        if isinstance(node.operator, cst.Not):
            return not operand
        if isinstance(node.operator, cst.Minus):
            return -operand
        if isinstance(node.operator, cst.Plus):
            return +operand
        raise self.fail(node, f"`{source_of(node).strip()}` is not folded")

    def compare(self, node: cst.Comparison) -> Any:
        left = self.value(node.left)
        for target in node.comparisons:
            op = _COMPARISONS.get(type(target.operator))
            if op is None:
                raise self.fail(node, f"the comparison `{source_of(node).strip()}` is not folded")
            right = self.value(target.comparator)
            if not op(left, right):
                return False
            left = right
        return True

    def boolean(self, node: cst.BooleanOperation) -> Any:
        left = self.value(node.left)
        if isinstance(node.operator, cst.And):
            return self.value(node.right) if left else left
        return left if left else self.value(node.right)

    def if_exp(self, node: cst.IfExp) -> Any:
        return self.value(node.body) if self.value(node.test) else self.value(node.orelse)

    def attribute(self, node: cst.Attribute) -> Any:
        owner = self.value(node.value)
        if not isinstance(owner, _Record) or node.attr.value not in owner.fields:
            raise self.fail(node, f"`{source_of(node).strip()}` is not a value tiletrans folds")
        return owner.fields[node.attr.value]

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
        if name in self.mod.classes:
            return self.record(self.mod.classes[name], node, args)
        if name in _BUILTINS:
            pos, kw = args
            for arg in (*pos, *kw.values()):
                if isinstance(arg, _Unknown):
                    raise self.unknown(node, arg)
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
        if isinstance(node, cst.Name) and node.value in self.env:
            return self.env[node.value]  # an unknown keeps why it is unknown
        try:
            return self.value(node)
        except TranslationError as exc:
            # A name the reader cannot bind is a host value; anything else keeps its reason.
            host = isinstance(node, cst.Name)
            return _Unknown(source_of(node).strip(), None if host else exc)

    # ------------------------------------------------------------------ module functions

    def function(
        self, fn: cst.FunctionDef, call: cst.Call, args: tuple[list[Any], dict[str, Any]]
    ) -> Any:
        if self.depth > 8:
            raise self.fail(call, "the functions call each other too deep")
        inner = _Fold(self.mod, self.depth + 1)
        inner.bind_params(fn, call, args)
        try:
            return inner.body(fn.body.body)[1]
        except (_Continue, _Break):
            raise self.fail(fn, "`continue` or `break` outside a loop") from None

    def record(
        self, cls: cst.ClassDef, call: cst.Call, args: tuple[list[Any], dict[str, Any]]
    ) -> _Record:
        """``Space(...)`` of a module class whose ``__init__`` only stores values on ``self``
        (the attention examples' ``FlashAttentionTuneSpace``): the record of those values."""
        init = next(
            (
                st
                for st in cls.body.body
                if isinstance(st, cst.FunctionDef) and st.name.value == "__init__"
            ),
            None,
        )
        if init is None or cls.bases or cls.decorators or len(cls.body.body) != 1:
            raise self.fail(
                call, f"the class `{cls.name.value}` is folded only as an `__init__` of stores"
            )
        params = init.params.params
        if not params:
            raise self.fail(call, f"`{cls.name.value}.__init__` takes no `self`")
        obj = _Record(cls.name.value)
        inner = _Fold(self.mod, self.depth + 1)
        inner.env[params[0].name.value] = obj
        trimmed = cst.FunctionDef(
            name=init.name, params=init.params.with_changes(params=params[1:]), body=init.body
        )
        inner.bind_params(trimmed, call, args)
        inner.body(init.body.body)
        return obj

    def bind_params(
        self, fn: cst.FunctionDef, call: cst.Call, args: tuple[list[Any], dict[str, Any]]
    ) -> None:
        pos, kw = args
        for i, param in enumerate(fn.params.params):
            if i < len(pos):
                self.env[param.name.value] = pos[i]
            elif param.name.value in kw:
                self.env[param.name.value] = kw[param.name.value]
            elif param.default is not None:
                self.env[param.name.value] = self.lazy(param.default)
            else:
                raise self.fail(call, f"`{fn.name.value}` is called without `{param.name.value}`")

    def body(self, stmts: Iterable[cst.BaseStatement]) -> tuple[bool, Any]:
        """Run statements of assignments, ``if``s, ``for`` loops and a ``return``:
        ``(returned, value)``."""
        for stmt in stmts:
            handler = _COMPOUND.get(type(stmt))
            if handler is not None:
                done, value = handler(self, stmt)
                if done:
                    return True, value
                continue
            if not isinstance(stmt, cst.SimpleStatementLine):
                raise self.fail(stmt, f"`{type(stmt).__name__}` statements are not folded")
            for small in stmt.body:
                if isinstance(small, cst.Return):
                    return True, self.value(small.value) if small.value is not None else None
                self.small(small)
        return False, None

    def small(self, small: cst.BaseSmallStatement) -> None:
        """One simple statement of a folded function."""
        if isinstance(small, cst.Assign) and len(small.targets) == 1:
            self.bind(small.targets[0].target, self.lazy(small.value))
        elif isinstance(small, cst.AugAssign):
            op = _AUGMENTED.get(type(small.operator))
            if op is None or not isinstance(small.target, cst.Name):
                raise self.fail(small, f"`{source_of(small).strip()}` is not folded")
            self.bind(small.target, op(self.value(small.target), self.value(small.value)))
        elif isinstance(small, cst.Expr) and isinstance(small.value, cst.SimpleString):
            return  # a docstring
        elif isinstance(small, cst.Expr) and self.appends(small.value):
            return
        elif isinstance(small, cst.Assert):
            if not self.value(small.test):
                raise self.fail(small, "this assert fails where the configs are built")
        elif isinstance(small, cst.Continue):
            raise _Continue()
        elif isinstance(small, cst.Break):
            raise _Break()
        elif not isinstance(small, cst.Pass):
            raise self.fail(small, f"`{source_of(small).strip()}` is not folded")

    def appends(self, node: cst.BaseExpression) -> bool:
        """``configs.append(x)`` / ``configs.extend(xs)`` on a list the function builds."""
        if not (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value in ("append", "extend")
            and len(node.args) == 1
            and node.args[0].keyword is None
            and not node.args[0].star
        ):
            return False
        owner = self.value(node.func.value)
        if not isinstance(owner, list):
            raise self.fail(node, f"`{source_of(node.func.value)}` is not a list")
        item = self.value(node.args[0].value)
        if node.func.attr.value == "append":
            owner.append(item)
        else:
            owner.extend(item)
        if len(owner) > MAX_CONFIGS:
            raise self.fail(node, f"more than {MAX_CONFIGS} configs")
        return True

    def st_if(self, stmt: cst.If) -> tuple[bool, Any]:
        return self.body(stmt.body.body if self.value(stmt.test) else _else_body(stmt))

    def st_for(self, stmt: cst.For) -> tuple[bool, Any]:
        if stmt.orelse is not None:
            raise self.fail(stmt, "a `for ... else` is not folded")
        for item in self.value(stmt.iter):
            self.bind(stmt.target, item)
            try:
                done, value = self.body(stmt.body.body)
            except _Continue:
                continue
            except _Break:
                break
            if done:
                return True, value
        return False, None

    def bind(self, target: cst.BaseExpression, value: Any) -> None:
        if isinstance(target, cst.Name):
            self.env[target.value] = value
            return
        if isinstance(target, cst.Attribute):
            owner = self.value(target.value)
            if isinstance(owner, _Record):
                owner.fields[target.attr.value] = value
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

_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    cst.Add: operator.add,
    cst.Subtract: operator.sub,
    cst.Multiply: operator.mul,
    cst.FloorDivide: operator.floordiv,
    cst.Modulo: operator.mod,
    cst.Divide: operator.truediv,
    cst.Power: operator.pow,
}
_AUGMENTED: dict[type, Callable[[Any, Any], Any]] = {
    cst.AddAssign: operator.add,
    cst.SubtractAssign: operator.sub,
    cst.MultiplyAssign: operator.mul,
    cst.FloorDivideAssign: operator.floordiv,
}
_COMPARISONS: dict[type, Callable[[Any, Any], bool]] = {
    cst.LessThan: operator.lt,
    cst.LessThanEqual: operator.le,
    cst.GreaterThan: operator.gt,
    cst.GreaterThanEqual: operator.ge,
    cst.Equal: operator.eq,
    cst.NotEqual: operator.ne,
    cst.In: lambda a, b: a in b,
    cst.NotIn: lambda a, b: a not in b,
}
_COMPOUND: dict[type, Callable[[_Fold, Any], tuple[bool, Any]]] = {
    cst.If: _Fold.st_if,
    cst.For: _Fold.st_for,
}

_EXPRESSIONS: dict[type, Callable[[_Fold, Any], Any]] = {
    cst.BinaryOperation: _Fold.binary,
    cst.UnaryOperation: _Fold.unary,
    cst.Comparison: _Fold.compare,
    cst.BooleanOperation: _Fold.boolean,
    cst.IfExp: _Fold.if_exp,
    cst.Attribute: _Fold.attribute,
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
