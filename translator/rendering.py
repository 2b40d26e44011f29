"""Rendering the jinja2 templates (``templates/<dsl>/``) without importing jinja2 on every run.

Importing jinja2 was ~20 ms of a one-file translation (a tenth of it), for rendering one small
template per kernel. The templates stay jinja2 templates, and jinja2 stays the reference: it
parses each one (with the options of :func:`translator.grammar.template_environment`), and
:func:`_generate` writes the parse tree as one plain Python function, kept in the on-disk cache
under the hash of the template's text (:mod:`translator.cache`). A later run reads that
function back and renders with it: no jinja2.

Only the constructs the templates use are written this way (output, ``if``/``elif``/``else``,
``for`` with ``loop.first``/``loop.last`` and ``else``, names, attributes, items, calls,
comparisons, ``not``/``and``/``or``, the ``none`` test and the ``length``, ``join`` and
``indent`` filters, each as jinja2 computes it). A template that uses anything else is rendered
by jinja2, as is any render the generated function cannot finish (a missing variable, an
attribute that is not there, a value of another type than jinja2's plain path expects): jinja2
then gives the same text or its own error. So the output is jinja2's, byte for byte;
``tests/test_rendering.py`` renders every template both ways for every bundled translation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

#: Bump when :func:`_generate` writes different code for the same template (a new cache key).
_GENERATOR_VERSION = "1"

#: Per (dsl, template name): the template's text and its render function (``None``: jinja2).
_LOADED: dict[tuple[str, str], tuple[str, Callable[[dict[str, Any]], str] | None]] = {}


def render_template(dsl: str, template: str, /, **context: Any) -> str:
    """``templates/<dsl>/<template>`` rendered with ``context``: what jinja2's ``render``
    returns (positional-only parameters: ``name`` is a template variable)."""
    function = _function(dsl, template)
    if function is not None:
        try:
            return function(context)
        except Exception:  # anything off the plain path: jinja2 decides (the text or its error)
            pass
    return _render_with_jinja2(dsl, template, context)


def _render_with_jinja2(dsl: str, name: str, context: dict[str, Any]) -> str:
    from translator.grammar import template_environment

    return template_environment(dsl).get_template(name).render(**context)


def _function(dsl: str, name: str) -> Callable[[dict[str, Any]], str] | None:
    """The render function of the template as its file reads now (jinja2 too reloads a template
    whose file changed), or ``None`` where only jinja2 can render it."""
    from translator.grammar import resource_dir

    path = resource_dir("templates") / dsl / name
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return None  # jinja2 reports the missing template
    loaded = _LOADED.get((dsl, name))
    if loaded is not None and loaded[0] == text:
        return loaded[1]
    function = _load(dsl, text)
    _LOADED[(dsl, name)] = (text, function)
    return function


def _load(dsl: str, text: str) -> Callable[[dict[str, Any]], str] | None:
    from translator.cache import cached_by_content

    key = f"{_GENERATOR_VERSION}\0{_jinja2_stamp()}\0{dsl}\0{text}".encode()
    source = cached_by_content("template", key, lambda: _generate(dsl, text))
    return compile_function(source, f"<template {dsl}>") if isinstance(source, str) else None


def compile_function(source: str, filename: str = "<template>") -> Callable[[dict[str, Any]], str]:
    """The ``render(context)`` function that :func:`python_source` wrote."""
    namespace: dict[str, Any] = dict(_RUNTIME)
    exec(compile(source, filename, "exec"), namespace)
    return namespace["render"]


def _jinja2_stamp() -> str:
    """Which jinja2 is installed (its ``__init__.py``: path, size, modification time), found
    without importing it: a generated function is kept per jinja2 that parsed its template."""
    import importlib.util
    import os

    try:
        spec = importlib.util.find_spec("jinja2")
        origin = spec.origin if spec is not None else None
        stat = os.stat(origin) if origin else None
    except (ImportError, ValueError, OSError):
        return "?"
    return f"{origin}:{stat.st_size}:{stat.st_mtime_ns}" if stat is not None else "?"


# --------------------------------------------------------------------------------------------------
# What the generated functions call: jinja2's behaviour on its plain path; anything else raises
# (and jinja2 renders instead).


class _OffPath(Exception):
    """Where jinja2 would do more than the generated code does (an undefined value)."""


def _name(context: dict[str, Any], name: str) -> Any:
    """A template variable (jinja2: the render's context, else its globals or ``Undefined``)."""
    if name in context:
        return context[name]
    raise _OffPath(name)


def _getattr(obj: Any, attribute: str) -> Any:
    """``obj.attribute`` as ``Environment.getattr``: the attribute, else the item."""
    try:
        return getattr(obj, attribute)
    except AttributeError:
        pass
    try:
        return obj[attribute]
    except (TypeError, LookupError, AttributeError):
        raise _OffPath(attribute) from None


def _getitem(obj: Any, argument: Any) -> Any:
    """``obj[argument]`` as ``Environment.getitem`` finds it on its first try."""
    try:
        return obj[argument]
    except (AttributeError, TypeError, LookupError):
        raise _OffPath(argument) from None


def _call(function: Any, *args: Any) -> Any:
    """``function(*args)`` as ``Context.call`` does for a callable that asks for no context."""
    # jinja2 looks for its marker on the callable and on its __call__ (a callable class).
    for obj in (function, getattr(function, "__call__", None)):  # noqa: B004
        if getattr(obj, "jinja_pass_arg", None) is not None:
            raise _OffPath("a callable that takes jinja2's context")
    return function(*args)


def _join(value: Any, d: str = "") -> str:
    """jinja2's ``join`` filter without autoescaping (``sync_do_join``)."""
    return str(d).join(map(str, value))


def _indent(s: Any, width: int | str = 4, first: bool = False, blank: bool = False) -> str:
    """jinja2's ``indent`` filter (``do_indent``) for a plain string."""
    if type(s) is not str:  # Markup, or anything jinja2 would fail on in its own way
        raise _OffPath("indent")
    indention = width if isinstance(width, str) else " " * width
    newline = "\n"
    s += newline  # jinja2's quirk, for splitlines
    if blank:
        rv = (newline + indention).join(s.splitlines())
    else:
        lines = s.splitlines()
        rv = lines.pop(0)
        if lines:
            rv += newline + newline.join(indention + line if line else line for line in lines)
    if first:
        rv = indention + rv
    return rv


_RUNTIME: dict[str, Any] = {
    "_name": _name,
    "_getattr": _getattr,
    "_getitem": _getitem,
    "_call": _call,
    "_len": len,
    "_join": _join,
    "_indent": _indent,
    "_list": list,
    "_str": str,
    "_enumerate": enumerate,
}

#: Filter name -> the runtime function written for it.
_FILTERS = {"length": "_len", "join": "_join", "indent": "_indent"}
_COMPARE = {"eq": "==", "ne": "!=", "lt": "<", "lteq": "<=", "gt": ">", "gteq": ">="}
_COMPARE.update({"in": "in", "notin": "not in"})


# --------------------------------------------------------------------------------------------------
# The code generator (runs with jinja2 imported, once per template text)


class _Unsupported(Exception):
    """A construct the generator does not write (the template is rendered by jinja2)."""


def _generate(dsl: str, text: str) -> str | None:
    from translator.grammar import template_environment

    return python_source(template_environment(dsl), text)


def python_source(env: Any, text: str) -> str | None:
    """Python source defining ``render(context) -> str``: the template ``text`` as the jinja2
    environment ``env`` renders it, or ``None`` when it uses a construct :class:`_Writer` does
    not write (or ``env`` escapes, finalizes or renders asynchronously)."""
    if env.autoescape is not False or env.finalize is not None or env.is_async:
        return None
    try:
        return _Writer().module(env.parse(text))
    except _Unsupported:
        return None


class _Writer:
    """Writes a jinja2 parse tree as the body of a Python function."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.indent = 1
        self.fresh = 0
        #: Template names bound by enclosing ``for`` loops -> the Python local holding each.
        self.scopes: list[dict[str, str]] = []
        #: For each enclosing ``for`` whose body reads ``loop``: its (index, length) locals.
        self.loops: list[tuple[str, str] | None] = []

    def module(self, tree: Any) -> str:
        self.statements(tree.body)
        body = "\n".join(self.lines) or "    pass"
        return f"def render(context):\n    out = []\n    put = out.append\n{body}\n    return ''.join(out)\n"

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.indent + line)

    def local(self, hint: str) -> str:
        self.fresh += 1
        return f"v{self.fresh}_{hint}"

    def statements(self, nodes: list[Any]) -> None:
        for node in nodes:
            self.statement(node)

    def block(self, nodes: list[Any]) -> None:
        self.indent += 1
        before = len(self.lines)
        self.statements(nodes)
        if len(self.lines) == before:
            self.emit("pass")
        self.indent -= 1

    def statement(self, node: Any) -> None:
        import jinja2.nodes as n

        kind = type(node)
        if kind is n.Output:
            for child in node.nodes:
                if type(child) is n.TemplateData:
                    self.emit(f"put({child.data!r})")
                else:
                    self.emit(f"put(_str({self.expr(child)}))")
        elif kind is n.If:
            self.emit(f"if {self.expr(node.test)}:")
            self.block(node.body)
            for branch in node.elif_:
                self.emit(f"elif {self.expr(branch.test)}:")
                self.block(branch.body)
            if node.else_:
                self.emit("else:")
                self.block(node.else_)
        elif kind is n.For:
            self.loop(node)
        else:
            raise _Unsupported(kind.__name__)

    def loop(self, node: Any) -> None:
        if node.test is not None or node.recursive:
            raise _Unsupported("for with a filter or recursion")
        if any(name.name == "loop" for name in _own_names(node.else_)):
            raise _Unsupported("loop in a for's else")
        uses_loop = any(name.name == "loop" for name in _own_names(node.body))
        iterable = self.expr(node.iter)  # in the enclosing scope
        scope: dict[str, str] = {}
        target = self.target(node.target, scope)
        empty = self.local("empty") if node.else_ else None
        if empty is not None:
            self.emit(f"{empty} = True")
        if uses_loop:
            # jinja2's LoopContext looks one item ahead for loop.last: the same items.
            items, index, length = self.local("items"), self.local("i"), self.local("n")
            self.emit(f"{items} = _list({iterable})")
            self.emit(f"{length} = _len({items})")
            self.emit(f"for {index}, {target} in _enumerate({items}):")
            self.loops.append((index, length))
        else:
            self.emit(f"for {target} in {iterable}:")
            self.loops.append(None)
        self.scopes.append(scope)
        if empty is not None:
            self.indent += 1
            self.emit(f"{empty} = False")
            self.indent -= 1
        self.block(node.body)
        self.scopes.pop()
        self.loops.pop()
        if empty is not None:
            self.emit(f"if {empty}:")
            self.block(node.else_)

    def target(self, node: Any, scope: dict[str, str]) -> str:
        import jinja2.nodes as n

        if type(node) is n.Name and node.ctx == "store":
            if node.name == "loop":
                raise _Unsupported("a loop variable called loop")
            scope[node.name] = self.local(node.name)
            return scope[node.name]
        if type(node) is n.Tuple and node.ctx == "store":
            inner = [self.target(item, scope) for item in node.items]
            return "(" + ", ".join(inner) + ("," if len(inner) == 1 else "") + ")"
        raise _Unsupported(f"for target {type(node).__name__}")

    def expr(self, node: Any) -> str:
        import jinja2.nodes as n

        kind = type(node)
        if kind is n.Const:
            if type(node.value) not in (str, int, float, bool, type(None)):
                raise _Unsupported("constant")
            return repr(node.value)
        if kind is n.Name and node.ctx == "load":
            for scope in reversed(self.scopes):
                if node.name in scope:
                    return scope[node.name]
            if node.name == "loop":
                raise _Unsupported("loop outside its attributes")
            return f"_name(context, {node.name!r})"
        if kind is n.Getattr and node.ctx == "load":
            if type(node.node) is n.Name and node.node.name == "loop" and self._loop_bound():
                return self.loop_attribute(node.attr)
            return f"_getattr({self.expr(node.node)}, {node.attr!r})"
        if kind is n.Getitem and node.ctx == "load":
            return f"_getitem({self.expr(node.node)}, {self.expr(node.arg)})"
        if kind is n.Call:
            if node.kwargs or node.dyn_args is not None or node.dyn_kwargs is not None:
                raise _Unsupported("call with keywords")
            args = "".join(f", {self.expr(a)}" for a in node.args)
            return f"_call({self.expr(node.node)}{args})"
        if kind is n.Filter:
            return self.filter(node)
        if kind is n.Test:
            if node.name != "none" or node.args or node.kwargs or node.dyn_args or node.dyn_kwargs:
                raise _Unsupported(f"test {node.name}")
            return f"({self.expr(node.node)} is None)"
        if kind is n.Not:
            return f"(not {self.expr(node.node)})"
        if kind in (n.And, n.Or):
            op = "and" if kind is n.And else "or"
            return f"({self.expr(node.left)} {op} {self.expr(node.right)})"
        if kind is n.Compare:
            parts = [self.expr(node.expr)]
            for operand in node.ops:
                if operand.op not in _COMPARE:
                    raise _Unsupported(f"comparison {operand.op}")
                parts.append(f"{_COMPARE[operand.op]} {self.expr(operand.expr)}")
            return "(" + " ".join(parts) + ")"
        raise _Unsupported(kind.__name__)

    def _loop_bound(self) -> bool:
        """Whether ``loop`` names the innermost ``for``'s loop (not a template variable)."""
        return bool(self.loops) and self.loops[-1] is not None

    def loop_attribute(self, attribute: str) -> str:
        index, length = self.loops[-1]  # type: ignore[misc]
        if attribute == "first":
            return f"({index} == 0)"
        if attribute == "last":
            return f"({index} == {length} - 1)"
        raise _Unsupported(f"loop.{attribute}")

    def filter(self, node: Any) -> str:
        if node.name not in _FILTERS or node.kwargs or node.dyn_args or node.dyn_kwargs:
            raise _Unsupported(f"filter {node.name}")
        if node.node is None:
            raise _Unsupported("filter block")
        if node.name == "length" and node.args:
            raise _Unsupported("length with arguments")
        args = "".join(f", {self.expr(a)}" for a in node.args)
        return f"{_FILTERS[node.name]}({self.expr(node.node)}{args})"


def _own_names(nodes: list[Any]) -> Iterator[Any]:
    """The ``Name`` nodes under ``nodes`` outside nested ``for`` loops' bodies (a nested loop's
    ``loop`` is its own)."""
    import jinja2.nodes as n

    todo = list(nodes)
    while todo:
        node = todo.pop()
        if type(node) is n.Name:
            yield node
        if type(node) is n.For:
            todo.extend([node.target, node.iter, *node.else_])
            if node.test is not None:
                todo.append(node.test)
            continue
        todo.extend(node.iter_child_nodes())


__all__ = ["compile_function", "python_source", "render_template"]
