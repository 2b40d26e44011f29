"""libcst helpers shared by the frontends: import aliases, dotted names, comments, locations."""

from __future__ import annotations

import ast
import dataclasses
import math
from collections.abc import Callable, Container, Iterable, Iterator, Sequence
from contextlib import ExitStack
from types import FunctionType
from typing import Any
from weakref import WeakKeyDictionary

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from translator.diagnostics import TranslationError
from translator.ir.nodes import Loc, Span


class Wrapper(MetadataWrapper):
    """A metadata wrapper that skips the node-by-node walk of providers that only look at the
    module.

    libcst resolves "batchable" providers in one walk over every node, calling each provider's
    ``visit_<Node>`` hooks. The scope analysis (``ScopeProvider``, and its dependency
    ``ExpressionContextProvider``) has one hook, ``visit_Module``, which runs its own visitor
    over the tree; the batched walk around it calls nothing else, yet libcst's ``visit`` rebuilds
    every node it passes: that walk, twice, was a quarter of a translation's time. When every
    provider of a batch hooks ``visit_Module`` alone (``get_visitors()``, libcst's own list of a
    visitor's hooks), this calls that hook on the module, with the providers' dependencies
    resolved as the batched walk does; any other batch walks as usual.
    """

    def visit_batched(
        self,
        visitors: Iterable[Any],
        before_visit: Callable[[cst.CSTNode], None] | None = None,
        after_leave: Callable[[cst.CSTNode], None] | None = None,
    ) -> cst.CSTNode:
        visitors = list(visitors)
        module_only = before_visit is None and after_leave is None
        if not module_only or not all(_module_only(type(v), v) for v in visitors):
            return super().visit_batched(visitors, before_visit, after_leave)
        with ExitStack() as stack:
            for v in visitors:
                stack.enter_context(v.resolve(self))
            for v in visitors:
                v.visit_Module(self.module)
        return self.module


# --------------------------------------------------------------------------------------------------
# Read-only visits without rebuilding


#: libcst's own ``CSTNode.visit`` (what transformers still use).
_LIBCST_VISIT = cst.CSTNode.visit
#: Per node type, the names of the fields its ``_visit_and_replace_children`` visits, in order.
_VISIT_FIELDS: dict[type, tuple[str, ...]] = {}
#: Node types whose visited fields depend on the instance (a field visited only when set, not
#: announced to ``on_visit_attribute`` otherwise): visited by libcst itself.
_VARIABLE_FIELDS = frozenset(
    kind
    for kind in (
        getattr(cst, "FormattedStringExpression", None),
        getattr(cst, "TemplatedStringExpression", None),
    )
    if kind is not None
)


#: Per visitor class: its node plans (see :func:`_plan`), or None for a transformer (libcst
#: visits for those). Weak: many visitor classes are defined inside functions, a new class per
#: call, and would pile up here.
_CLASS_PLANS: WeakKeyDictionary[type, dict[type, Any] | None] = WeakKeyDictionary()
_MAYBE = cst.MaybeSentinel


class _FieldRecorder(cst.CSTVisitor):
    """Records the fields ``_visit_and_replace_children`` announces, without descending."""

    def __init__(self) -> None:
        super().__init__()
        self.fields: list[str] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        return False

    def on_leave(self, original_node: cst.CSTNode) -> None:
        pass

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        self.fields.append(attribute)

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        pass


def _visit_fields(node: cst.CSTNode) -> tuple[str, ...]:
    kind = type(node)
    fields = _VISIT_FIELDS.get(kind)
    if fields is None:
        recorder = _FieldRecorder()
        node._visit_and_replace_children(recorder)
        fields = _VISIT_FIELDS[kind] = tuple(recorder.fields)
    return fields


def _read_only_visit(self: cst.CSTNode, visitor: Any) -> Any:
    """``CSTNode.visit`` for read-only visitors (``CSTVisitor``): the same hooks, in the same
    order, with the same arguments, but no node rebuilt.

    libcst's ``visit`` runs ``_visit_and_replace_children``, which constructs (and validates) a
    copy of every node it passes, then, for a ``CSTVisitor``, throws the copy away and returns
    the original. Those copies were most of a translation's time: the scope analysis, every
    metadata provider and every frontend visitor walk whole modules. This calls the hooks
    (``on_visit``, ``on_visit_attribute`` and ``on_leave_attribute`` per field, ``on_leave``)
    over the fields in the order libcst visits them (read once per node type from libcst's own
    ``_visit_and_replace_children``), and returns ``self`` as libcst does. Transformers, and the
    node types whose visited fields vary per instance, go through libcst's ``visit``.
    ``tests/test_cst_walk.py`` checks the hook sequence against libcst's on every example.
    """
    kind = type(visitor)
    try:
        plans = _CLASS_PLANS[kind]
    except KeyError:
        plans = _CLASS_PLANS[kind] = _plans_for(kind)
    if plans is None:
        return _LIBCST_VISIT(self, visitor)
    _visit_node(self, visitor, plans)
    return self


def _plans_for(kind: type) -> dict[type, Any] | None:
    """The node plans of visitor class ``kind``, shared by every class of the same shape (None
    for a transformer).

    A plan says which hooks a class has; classes made by one ``class`` statement run again
    (one defined in a function, a new class per call) have the same ones, and making plans
    anew for each was a twentieth of a translation. The shape: the class's name and place,
    its bases, and its attributes (functions by their code, anything else by identity)."""
    if not issubclass(kind, cst.CSTVisitor):
        return None
    own = tuple(
        (name, value.__code__ if isinstance(value, FunctionType) else id(value))
        for name, value in vars(kind).items()
        # Dunders and ABCMeta's per-class cache are no hooks.
        if not (name.startswith("__") and name.endswith("__")) and name != "_abc_impl"
    )
    shape = (kind.__module__, kind.__qualname__, kind.__bases__, own)
    plans = _PLANS.get(shape)
    if plans is None:
        plans = _PLANS[shape] = {}
    return plans


def _visit_node(node: cst.CSTNode, visitor: Any, plans: dict[type, Any]) -> None:
    kind = type(node)
    plan = plans.get(kind)
    if plan is None:
        plan = plans[kind] = _plan(type(visitor), kind, node)
    if plan is _VARIABLE:
        _LIBCST_VISIT(node, visitor)
        return
    enter, leave, fields = plan
    if enter is _GENERIC:
        descend = visitor.on_visit(node)
    elif enter is None:
        descend = True
    else:
        # What libcst's CSTVisitor.on_visit does with the visitor's own visit_<Node>.
        descend = getattr(visitor, enter)(node) is not False
    if descend:
        for name, hooked in fields:
            if hooked:
                visitor.on_visit_attribute(node, name)
            value = getattr(node, name)
            # A visited field holds a node, a sequence of nodes, None or a MaybeSentinel.
            if type(value) is tuple or type(value) is list:
                for child in value:
                    _visit_node(child, visitor, plans)
            elif value is not None and type(value) is not _MAYBE:
                _visit_node(value, visitor, plans)
            if hooked:
                visitor.on_leave_attribute(node, name)
    if leave is None:
        return
    if leave is _GENERIC:
        visitor.on_leave(node)
    elif type(leave) is str:
        getattr(visitor, leave)(node)
    else:
        leave(visitor, node)


#: Per visitor class shape (see :func:`_plans_for`), per node type: how to enter and leave the
#: node (see :func:`_plan`) and the visited fields, each with whether the visitor has an
#: attribute hook for it.
_PLANS: dict[tuple, dict[type, Any]] = {}
_NO_HOOK = cst.CSTVisitor
#: "Call the visitor's ``on_visit``/``on_leave``": the visitor overrides it.
_GENERIC = object()
#: "Let libcst visit this node": its visited fields vary per instance.
_VARIABLE = object()


def _own_hook(visitor_kind: type, hook: str, names: Container[str]) -> bool:
    """Whether ``visitor_kind`` has a hook called ``hook`` other than ``CSTVisitor``'s
    (``names``: :func:`_own_names` of the class)."""
    if hook not in names:  # defined nowhere but where CSTVisitor has it
        return False
    return getattr(visitor_kind, hook, None) is not getattr(_NO_HOOK, hook, None)


#: Per visitor class: the names its classes outside ``CSTVisitor``'s MRO define (see
#: :func:`_own_names`). Weak, as :data:`_CLASS_PLANS`.
_OWN_NAMES: WeakKeyDictionary[type, frozenset[str]] = WeakKeyDictionary()
_NO_HOOK_MRO = frozenset(_NO_HOOK.__mro__)


def _own_names(visitor_kind: type) -> frozenset[str] | _Everything:
    """Every attribute name that a class of ``visitor_kind``'s MRO outside ``CSTVisitor``'s
    defines: a hook of another name resolves to ``CSTVisitor``'s own (a no-op), which
    :func:`_own_hook` then knows without two ``getattr`` (~4,000 hook names asked while the
    plans of a Triton translation's first walks are made: 2.5 -> 1.5 ms). Everything, where
    the metaclass could answer ``getattr`` itself."""
    names = _OWN_NAMES.get(visitor_kind)
    if names is None:
        if getattr(type(visitor_kind), "__getattr__", None) is not None:
            return _EVERYTHING
        names = _OWN_NAMES[visitor_kind] = frozenset(
            name
            for klass in visitor_kind.__mro__
            if klass not in _NO_HOOK_MRO
            for name in vars(klass)
        )
    return names


class _Everything:
    """Holds every name."""

    def __contains__(self, name: object) -> bool:
        return True


_EVERYTHING = _Everything()


def _plan(
    visitor_kind: type, kind: type, node: cst.CSTNode
) -> tuple[Any, Any, tuple[tuple[str, bool], ...]]:
    """How a visitor of class ``visitor_kind`` enters and leaves a node of type ``kind``, and
    the node's fields to visit, each with whether to call the attribute hooks.

    libcst's ``CSTVisitor.on_visit`` looks up ``visit_<Node>`` by name and calls it (and
    ``on_leave`` ``leave_<Node>``, ``on_visit_attribute`` ``visit_<Node>_<field>``, ...); every
    visitor inherits a do-nothing method of each such name (``CSTTypedVisitorFunctions``), so
    the call does nothing unless the visitor's class defines that method itself. Enter and
    leave are: ``_GENERIC`` where the class overrides ``on_visit``/``on_leave`` (called as
    libcst would), else the name of the class's own hook, else ``None`` (nothing to call).
    Attribute hooks are called where the class defines one or overrides
    ``on_visit_attribute``/``on_leave_attribute``. Skipping the no-op lookups and calls was a
    third of a visit. libcst's scope analysis's ``on_leave`` gets a function of the node type
    with its effect (:func:`_scope_leave`). ``_VARIABLE`` for the node types libcst visits
    itself."""
    if kind in _VARIABLE_FIELDS:
        return _VARIABLE
    name = kind.__name__
    names = _own_names(visitor_kind)
    enter: Any = _GENERIC
    if visitor_kind.on_visit is _NO_HOOK.on_visit:
        enter = f"visit_{name}" if _own_hook(visitor_kind, f"visit_{name}", names) else None
    leave: Any = _GENERIC
    if visitor_kind.on_leave is _NO_HOOK.on_leave:
        leave = f"leave_{name}" if _own_hook(visitor_kind, f"leave_{name}", names) else None
    elif _SCOPE_LEAVE is not None and visitor_kind.on_leave is _SCOPE_LEAVE:
        own = f"leave_{name}" if _own_hook(visitor_kind, f"leave_{name}", names) else None
        leave = _scope_leave(kind, own)
    generic = (
        visitor_kind.on_visit_attribute is not _NO_HOOK.on_visit_attribute
        or visitor_kind.on_leave_attribute is not _NO_HOOK.on_leave_attribute
    )
    fields = tuple(
        (
            field,
            generic
            or _own_hook(visitor_kind, f"visit_{name}_{field}", names)
            or _own_hook(visitor_kind, f"leave_{name}_{field}", names),
        )
        for field in _visit_fields(node)
    )
    return (enter, leave, fields)


def _libcst_scope_leave() -> Any:
    """libcst's ``ScopeVisitor.on_leave`` if it is the one :func:`_scope_leave` replays (the
    names its code uses are those of libcst 1.9's), else None (then it is called as it is)."""
    try:
        from libcst.metadata import scope_provider
    except ImportError:  # pragma: no cover
        return None
    leave = getattr(getattr(scope_provider, "ScopeVisitor", None), "on_leave", None)
    expected = (
        "provider",
        "set_metadata",
        "scope",
        "isinstance",
        "_ASSIGNMENT_LIKE_NODES",
        "_assignment_count",
        "super",
        "on_leave",
    )
    code = getattr(leave, "__code__", None)
    if code is None or code.co_names != expected:
        return None
    if not isinstance(getattr(scope_provider, "_ASSIGNMENT_LIKE_NODES", None), tuple):
        return None
    return leave


#: libcst's ``ScopeVisitor.on_leave``, when :func:`_scope_leave` can stand in for it.
_SCOPE_LEAVE = _libcst_scope_leave()


def _scope_leave(kind: type, own: str | None) -> Callable[[Any, cst.CSTNode], None]:
    """What libcst's ``ScopeVisitor.on_leave`` does on leaving a node of type ``kind``: record
    the current scope as the node's, count an assignment-like node (its ``isinstance`` against
    18 of libcst's classes, answered by ``ABCMeta`` for each, was a tenth of the scope
    analysis: decided here once per type), then call the class's own ``leave_<Node>``
    (``own``; the inherited ones do nothing)."""
    from libcst.metadata import scope_provider

    assignment_like = issubclass(kind, scope_provider._ASSIGNMENT_LIKE_NODES)

    def leave(visitor: Any, node: cst.CSTNode) -> None:
        visitor.provider.set_metadata(node, visitor.scope)
        if assignment_like:
            visitor.scope._assignment_count += 1
        if own is not None:
            getattr(visitor, own)(node)

    return leave


def install_read_only_visit() -> None:
    """Make ``CSTNode.visit`` skip the node rebuilding for read-only visitors (process-wide;
    idempotent). See :func:`_read_only_visit`."""
    cst.CSTNode.visit = _read_only_visit  # type: ignore[method-assign]


def uninstall_read_only_visit() -> None:
    """Restore libcst's own ``CSTNode.visit`` (for comparisons and A/B measurements)."""
    cst.CSTNode.visit = _LIBCST_VISIT  # type: ignore[method-assign]


install_read_only_visit()


#: Per provider class: whether ``visit_Module`` is its only hook (``get_visitors`` inspects every
#: member of the instance, a twentieth of a translation when asked per file).
_MODULE_ONLY: dict[type, bool] = {}


def _module_only(kind: type, visitor: Any) -> bool:
    known = _MODULE_ONLY.get(kind)
    if known is None:
        known = _MODULE_ONLY[kind] = _class_hooks(kind) == {"visit_Module"}
    return known


def _class_hooks(kind: type) -> set[str] | None:
    """The names of the hooks libcst's ``get_visitors()`` finds on an instance of ``kind`` (its
    ``visit_*``/``leave_*`` methods that are not libcst's no-op stubs), read from the class
    dicts along the MRO; ``None`` when a member of those names is anything but a plain
    function (then only ``get_visitors`` would know). ``get_visitors`` itself runs
    ``inspect.getmembers`` over the ~1,800 members of an instance: 2-3 ms of every run's
    start-up, for two provider classes.
    """
    hooks: set[str] = set()
    seen: set[str] = set()
    for klass in kind.__mro__:
        for name, value in vars(klass).items():
            if name in seen:
                continue
            seen.add(name)
            if not isinstance(value, FunctionType):
                if name.startswith(("visit_", "leave_")) or (
                    name in ("__getattr__", "__dir__") and klass is not object
                ):
                    return None
                continue
            if value.__name__.startswith(("visit_", "leave_")) and not getattr(
                value, "_is_no_op", False
            ):
                hooks.add(name)
    return hooks


#: The last few parsed sources (text -> wrapper), most recent last. A translation parses its
#: source in the frontend and again to carry its host code and to find what the source itself
#: leaves dead; the tree is immutable and positions and scopes depend on the text alone, so one
#: parse and one metadata resolution serve all three.
_PARSED: dict[str, MetadataWrapper] = {}
_PARSED_KEEP = 4


def parsed(source: str) -> MetadataWrapper:
    """``source`` parsed, in a metadata wrapper that resolves each provider once (shared by every
    caller of the same text: read it, never rely on node identity across two texts). Raises
    ``libcst.ParserSyntaxError``."""
    wrapper = _PARSED.pop(source, None)
    if wrapper is None:
        wrapper = Wrapper(cst.parse_module(source), unsafe_skip_copy=True)
    _PARSED[source] = wrapper
    while len(_PARSED) > _PARSED_KEEP:
        del _PARSED[next(iter(_PARSED))]
    return wrapper


def parse_source(source: str, path: str) -> MetadataWrapper:
    """Parse ``source``; a syntax error becomes a :class:`TranslationError` at its position."""
    try:
        return parsed(source)
    except cst.ParserSyntaxError as err:
        line, col, message = err.raw_line, max(err.raw_column, 0), err.message
        try:
            # CPython's parser (parse only, nothing runs) pinpoints the error more precisely.
            ast.parse(source, filename=path)
        except SyntaxError as py_err:
            line, col, message = py_err.lineno or line, max((py_err.offset or 1) - 1, 0), py_err.msg
        raise TranslationError(
            f"syntax error: {message}",
            Loc(path, line, col),
            "fix the Python syntax; tiletrans translates only files that parse",
        ) from None


class Locator:
    """Source positions of nodes of one parsed file."""

    def __init__(self, wrapper: MetadataWrapper, path: str) -> None:
        self.positions = wrapper.resolve(PositionProvider)
        self.path = path
        # Nodes a rewrite made (a helper's body with its names renamed) -> the parsed node each
        # was made from, whose position it has.
        self.origins: dict[cst.CSTNode, cst.CSTNode] = {}

    def adopt(self, origins: dict[cst.CSTNode, cst.CSTNode]) -> None:
        """Locate each made node of ``origins`` where its parsed original is."""
        for made, original in origins.items():
            # A parsed node put in (a caller's argument) keeps its own position.
            if made not in self.positions:
                self.origins[made] = self.origins.get(original, original)

    def __call__(self, node: cst.CSTNode) -> Loc | None:
        pos = self.positions.get(self.origins.get(node, node))
        if pos is None:
            return None
        return Loc(self.path, pos.start.line, pos.start.column)

    def span(self, node: cst.CSTNode) -> Span:
        """The region of the source ``node`` covers."""
        pos = self.positions[self.origins.get(node, node)]
        return Span(pos.start.line, pos.start.column, pos.end.line, pos.end.column)


def module_level_names(module: cst.Module) -> set[str]:
    """Names ``module`` binds at its top level: imports, function and class definitions,
    assignments (the names in tuple targets too)."""
    out = set(import_aliases(module))
    for stmt in module.body:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            out.add(stmt.name.value)
        elif isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Assign):
                    out.update(n for t in small.targets for n in target_names(t.target))
                elif isinstance(small, (cst.AnnAssign, cst.AugAssign)):
                    out.update(target_names(small.target))
    return out


def import_aliases(module: cst.Module) -> dict[str, str]:
    """Local names bound by the module's imports, mapped to the dotted names they stand for.

    Imports under a module-level ``if``/``try`` (version guards) count, the first binding of a
    name winning; so do module-level names bound to an imported function
    (``triton_tanh = libdevice.tanh``, Unsloth's spelling)."""
    aliases: dict[str, str] = {}
    assigned: list[tuple[str, cst.BaseExpression]] = []

    def scan(stmts: Sequence[cst.BaseStatement]) -> None:
        for stmt in stmts:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, (cst.Import, cst.ImportFrom)):
                        for local, full in import_bindings(small):
                            aliases.setdefault(local, full)
                    elif (
                        isinstance(small, cst.Assign)
                        and len(small.targets) == 1
                        and isinstance(small.targets[0].target, cst.Name)
                        and isinstance(small.value, cst.Attribute)
                    ):
                        assigned.append((small.targets[0].target.value, small.value))
            elif isinstance(stmt, (cst.If, cst.Try)):
                scan(stmt.body.body)
                orelse = stmt.orelse
                while isinstance(orelse, cst.If):
                    scan(orelse.body.body)
                    orelse = orelse.orelse
                if isinstance(orelse, cst.Else):
                    scan(orelse.body.body)
                if isinstance(stmt, cst.Try):
                    for handler in stmt.handlers:
                        scan(handler.body.body)

    scan(module.body)
    for local, value in assigned:
        target = resolve(value, aliases)
        if target is not None and target != (dotted(value) or "") and local not in aliases:
            aliases[local] = target
    return aliases


def import_bindings(small: cst.Import | cst.ImportFrom) -> list[tuple[str, str]]:
    """``(local name, dotted name it stands for)`` for each name an import statement binds
    (``import a.b`` binds ``a``, standing for ``a``; ``from a import b as c``: ``c`` for ``a.b``)."""
    out: list[tuple[str, str]] = []
    if isinstance(small, cst.Import):
        for alias in small.names:
            full = dotted(alias.name) or ""
            if alias.asname is not None:
                out.append((alias.asname.name.value, full))  # type: ignore[union-attr]
            else:
                head = full.split(".")[0]
                out.append((head, head))
    elif not isinstance(small.names, cst.ImportStar):
        base = dotted(small.module) if small.module is not None else ""
        for alias in small.names:
            name = alias.name.value if isinstance(alias.name, cst.Name) else ""
            local = alias.asname.name.value if alias.asname is not None else name  # type: ignore[union-attr]
            out.append((local, f"{base}.{name}" if base else name))
    return out


def dotted(node: cst.BaseExpression | None) -> str | None:
    """``a.b.c`` for a chain of attributes on a name, else ``None``."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr.value}" if base is not None else None
    return None


def resolve(node: cst.BaseExpression, aliases: dict[str, str]) -> str | None:
    """The dotted name ``node`` refers to after import aliases (``hl.tile`` → ``helion.language.tile``)."""
    name = dotted(node)
    if name is None:
        return None
    head, _, rest = name.partition(".")
    if head in aliases:
        base = aliases[head]
        return f"{base}.{rest}" if rest else base
    return name


#: How tiletrans's own notes begin. In an input that is itself a translation they describe that
#: earlier translation; the new one writes its own, so they are not carried.
TOOL_NOTE = "tiletrans:"


def comment_lines(lines: Sequence[cst.EmptyLine]) -> tuple[str, ...]:
    """The comments among ``leading_lines``, without the ``#`` (tiletrans's notes left out)."""
    out = []
    for line in lines:
        if line.comment is not None and not _comment_text(line.comment).startswith(TOOL_NOTE):
            out.append(_comment_text(line.comment))
    return tuple(out)


def _comment_text(comment: cst.Comment) -> str:
    text = comment.value[1:]
    return (text[1:] if text.startswith(" ") else text).rstrip()


def statement_comments(stmt: cst.CSTNode) -> tuple[str, ...]:
    """Leading comments of a statement plus its trailing comment, if any."""
    comments = comment_lines(getattr(stmt, "leading_lines", ()))
    trailing = getattr(stmt, "trailing_whitespace", None)
    note = trailing.comment if trailing is not None else None
    if note is not None and not _comment_text(note).startswith(TOOL_NOTE):
        comments += (_comment_text(note),)
    return comments


def call_args(call: cst.Call) -> tuple[list[cst.BaseExpression], dict[str, cst.BaseExpression]]:
    """Positional and keyword arguments of a call (``*args`` and ``**kw`` are refused, at the
    starred argument: the reader of the file locates it)."""
    positional: list[cst.BaseExpression] = []
    keywords: dict[str, cst.BaseExpression] = {}
    for arg in call.args:
        if arg.star:
            spelled = f"{arg.star}{source_of(arg.value)}"
            raise TranslationError(
                f"star arguments (`{spelled}`) are not supported here",
                None,
                "pass each argument by position or by name",
                node=arg,
            )
        if arg.keyword is not None:
            keywords[arg.keyword.value] = arg.value
        else:
            positional.append(arg.value)
    return positional, keywords


def calls_named(node: cst.CSTNode, names: set[str]) -> list[cst.Call]:
    """The calls ``f(...)`` inside ``node`` of a function called one of ``names``, in source
    order."""
    calls: list[cst.Call] = []

    class Visitor(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> None:
            if isinstance(call.func, cst.Name) and call.func.value in names:
                calls.append(call)

    node.visit(Visitor())
    return calls


def literal(node: cst.BaseExpression) -> object:
    """The value of a literal (numbers, strings, True/False/None, ``float("inf")``, lists).

    Raises ``ValueError`` when ``node`` is not a literal.
    """
    if isinstance(node, (cst.Integer, cst.Float)):
        return node.evaluated_value
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        return node.evaluated_value
    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[node.value]
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        value = literal(node.expression)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return -value
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Name)
        and node.func.value == "float"
        and len(node.args) == 1
    ):
        value = literal(node.args[0].value)
        if isinstance(value, str):
            return float(value)
    if isinstance(node, (cst.List, cst.Tuple)):
        return [literal(el.value) for el in node.elements]
    raise ValueError("not a literal")


_STATIC_MATH = {
    "math.log": math.log,
    "math.log2": math.log2,
    "math.log10": math.log10,
    "math.exp": math.exp,
    "math.sqrt": math.sqrt,
}
_STATIC_BINARY = {
    cst.Add: lambda a, b: a + b,
    cst.Subtract: lambda a, b: a - b,
    cst.Multiply: lambda a, b: a * b,
    cst.Divide: lambda a, b: a / b,
    cst.FloorDivide: lambda a, b: a // b,
    cst.Power: lambda a, b: a**b,
}


def static_number(
    node: cst.BaseExpression, aliases: dict[str, str], known: dict[str, float] | None = None
) -> int | float | None:
    """The number a module constant's right side computes from literals, ``known`` names,
    arithmetic and ``math.log``/``exp``/``sqrt``/``pi``/``e`` (``INV_LOG_2 = 1.0 /
    math.log(2)``); ``None`` for anything else. Nothing is run."""
    try:
        value = literal(node)
    except ValueError:
        value = None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    if isinstance(node, cst.Name) and known and node.value in known:
        return known[node.value]
    name = resolve(node, aliases) if isinstance(node, (cst.Name, cst.Attribute)) else None
    if name in ("math.pi", "math.e", "math.inf"):
        return getattr(math, name.split(".")[1])
    if isinstance(node, cst.BinaryOperation) and type(node.operator) in _STATIC_BINARY:
        a = static_number(node.left, aliases, known)
        b = static_number(node.right, aliases, known)
        if a is None or b is None:
            return None
        try:
            return _STATIC_BINARY[type(node.operator)](a, b)
        except (ZeroDivisionError, OverflowError):
            return None
    if isinstance(node, cst.Call) and len(node.args) == 1 and node.args[0].keyword is None:
        fn = _STATIC_MATH.get(resolve(node.func, aliases) or "")
        arg = static_number(node.args[0].value, aliases, known)
        if fn is not None and arg is not None:
            try:
                return fn(arg)
            except (ValueError, OverflowError):
                return None
    return None


def literal_or_none(node: cst.BaseExpression | None) -> Any:
    """``literal(node)``, or ``None`` where ``node`` is not a literal."""
    if node is None:
        return None
    try:
        return literal(node)
    except ValueError:
        return None


def source_of(node: cst.CSTNode) -> str:
    """The code of ``node`` as written."""
    return cst.Module(body=[]).code_for_node(node)


def size_reference(node: cst.BaseExpression) -> tuple[cst.BaseExpression, int] | None:
    """``(t, d)`` for one size of a tensor, ``t.size(d)`` or ``t.shape[d]`` with ``d`` a
    non-negative integer literal; ``None`` for anything else. The tensor ``t`` is returned as
    written (a name, or an expression such as ``x.view(-1)``): callers decide what they accept."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        keyword = node.args[0].keyword if len(node.args) == 1 else None
        named = keyword.value if keyword is not None else None
        if node.func.attr.value == "size" and len(node.args) == 1 and named in (None, "dim"):
            dim = node.args[0].value
            if isinstance(dim, cst.Integer):
                return node.func.value, int(dim.value)
        return None
    if (
        isinstance(node, cst.Subscript)
        and isinstance(node.value, cst.Attribute)
        and node.value.attr.value == "shape"
        and len(node.slice) == 1
        and isinstance(node.slice[0].slice, cst.Index)
        and isinstance(node.slice[0].slice.value, cst.Integer)
    ):
        return node.value.value, int(node.slice[0].slice.value.value)
    return None


def is_provenance(comment: str) -> bool:
    """Whether ``comment`` is one of the provenance lines tiletrans writes atop a translation.

    A translated file read back as a source gets a provenance header of its own; the old lines
    would name the wrong file and hash, so frontends drop them.
    """
    from translator.provenance import is_provenance as provenance_line

    return provenance_line(comment)


def without_provenance(header: Sequence[cst.EmptyLine]) -> list[cst.EmptyLine]:
    """``header`` (a module's leading lines) without a tiletrans provenance header, its wrapped
    continuation lines included (:func:`translator.provenance.provenance_lines`)."""
    from translator.provenance import provenance_lines

    ours = provenance_lines([line.comment.value if line.comment else "" for line in header])
    return [line for i, line in enumerate(header) if i not in ours]


_VALUE_TYPES = (str, bool, int, str | None)
_NODE = cst.CSTNode
#: Per node type, the names of its fields that may hold nodes (filled as types are met).
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def _child_fields(kind: type) -> tuple[str, ...]:
    names = _CHILD_FIELDS.get(kind)
    if names is None:
        # Fields declared as plain values (a Name's `value: str`) never hold a node.
        names = tuple(f.name for f in dataclasses.fields(kind) if f.type not in _VALUE_TYPES)
        _CHILD_FIELDS[kind] = names
    return names


def is_a(node: object, kind: type) -> bool:
    """``isinstance(node, kind)`` for libcst's node classes, by the class's MRO.

    libcst's nodes are ``ABC``s: ``isinstance`` of an abstract class (``CSTNode``,
    ``BaseExpression``, ``BaseStatement``) that fails asks every subclass of it in turn, once
    per type met (then cached). In a one-file run those first answers were an eighth of the
    translation's time. libcst registers no virtual subclasses, so the MRO says the same.
    """
    return kind in type(node).__mro__


def children(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The nodes directly under ``node``, read from its fields.

    Read-only analyses walk with this instead of ``node.visit(CSTVisitor)``: libcst's ``visit``
    rebuilds every node it passes (``_visit_and_replace_children`` runs each node's constructor
    and validation), which was half of a translation's time. The order is the fields' order, not
    always the source order: use it where only the set of nodes matters.
    """
    for name in _child_fields(type(node)):
        value = getattr(node, name)
        if _NODE in type(value).__mro__:
            yield value
        elif isinstance(value, (tuple, list)):
            for item in value:
                if _NODE in type(item).__mro__:
                    yield item


def walk(
    node: cst.CSTNode, enter: Callable[[cst.CSTNode], bool | Sequence[cst.CSTNode | None]]
) -> None:
    """Call ``enter`` on ``node`` and the nodes under it, depth first, without rebuilding any.

    ``enter`` returns ``True`` to descend into all children, ``False`` to skip them, or the
    sequence of children to descend into (``None`` entries ignored). Iterative, so that deep
    trees cannot exhaust the recursion limit here.
    """
    stack: list[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        chosen = enter(current)
        if chosen is True:
            stack.extend(children(current))
        elif chosen is not False:
            stack.extend(c for c in chosen if c is not None)


def target_name_nodes(target: cst.BaseExpression) -> list[cst.Name]:
    """The names an assignment or loop target binds (``a``, ``a, b``, ``[a, *rest]``), not the
    bases of its subscripts or attributes."""
    if isinstance(target, cst.Name):
        return [target]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in target_name_nodes(e.value)]
    if isinstance(target, cst.StarredElement):
        return target_name_nodes(target.value)
    return []


def target_names(target: cst.BaseExpression) -> list[str]:
    """The names (as strings) an assignment or loop target binds: see :func:`target_name_nodes`."""
    return [n.value for n in target_name_nodes(target)]


def bound_names(node: cst.CSTNode) -> list[str]:
    """Names a statement (or target, or block) binds: assignment and loop targets, ``with ...
    as``, walruses, ``del``, ``def``/``class`` names (not what their bodies bind), imports."""
    out: list[str] = []

    def targets(t: cst.BaseExpression) -> None:
        out.extend(target_names(t))

    class V(cst.CSTVisitor):
        def visit_AssignTarget(self, n: cst.AssignTarget) -> None:
            targets(n.target)

        def visit_AnnAssign(self, n: cst.AnnAssign) -> None:
            targets(n.target)

        def visit_AugAssign(self, n: cst.AugAssign) -> None:
            targets(n.target)

        def visit_For(self, n: cst.For) -> None:
            targets(n.target)

        def visit_AsName(self, n: cst.AsName) -> None:
            targets(n.name)

        def visit_NamedExpr(self, n: cst.NamedExpr) -> None:
            targets(n.target)

        def visit_Del(self, n: cst.Del) -> None:
            targets(n.target)

        def visit_FunctionDef(self, n: cst.FunctionDef) -> bool:
            out.append(n.name.value)
            return False

        def visit_ClassDef(self, n: cst.ClassDef) -> bool:
            out.append(n.name.value)
            return False

        def visit_Lambda(self, n: cst.Lambda) -> bool:
            return False

    if isinstance(node, (cst.Name, cst.Tuple, cst.List)):
        targets(node)
    else:
        node.visit(V())
    return out


def conjuncts(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The operands of ``a and b and ...`` (nested ``and`` flattened), else ``[node]``."""
    if isinstance(node, cst.BooleanOperation) and isinstance(node.operator, cst.And):
        return conjuncts(node.left) + conjuncts(node.right)
    return [node]


def names_in(node: cst.CSTNode) -> set[str]:
    """Every identifier ``node`` mentions (reads, targets and attribute heads alike)."""
    names: set[str] = set()

    def enter(n: cst.CSTNode) -> bool:
        if isinstance(n, cst.Name):
            names.add(n.value)
        return True

    walk(node, enter)
    return names


def name_nodes(node: cst.CSTNode) -> list[cst.Name]:
    """The names ``node`` reads or binds, as nodes (for locations); attribute names left out."""
    found: list[cst.Name] = []

    class Visitor(cst.CSTVisitor):
        def visit_Name(self, name: cst.Name) -> None:
            found.append(name)

        def visit_Attribute(self, attr: cst.Attribute) -> bool:
            attr.value.visit(self)
            return False

    node.visit(Visitor())
    return found


def substitute_names(
    node: cst.BaseExpression, values: dict[str, cst.BaseExpression]
) -> cst.BaseExpression:
    """``node`` with each variable read of a name in ``values`` replaced by its expression
    (parenthesised); attribute names and keyword names are not reads and stay."""
    if not values:
        return node

    class T(cst.CSTTransformer):
        def visit_Attribute(self, n: cst.Attribute) -> bool:
            return False  # `.attr` is no variable; the base is substituted in leave_Attribute

        def leave_Attribute(
            self, original: cst.Attribute, updated: cst.Attribute
        ) -> cst.BaseExpression:
            return updated.with_changes(value=updated.value.visit(self))

        def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg:
            return updated.with_changes(keyword=original.keyword)

        def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
            value = values.get(original.value)
            if value is None:
                return updated
            if (
                isinstance(
                    value,
                    (
                        cst.BinaryOperation,
                        cst.UnaryOperation,
                        cst.BooleanOperation,
                        cst.Comparison,
                        cst.IfExp,
                        cst.Lambda,
                    ),
                )
                and not value.lpar
            ):
                return value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            return value

    return node.visit(T())


#: Python's binary operators as IR operator words (the same in every DSL's Python).
BINARY_OPERATORS: dict[type, str] = {
    cst.Add: "+",
    cst.Subtract: "-",
    cst.Multiply: "*",
    cst.Divide: "/",
    cst.FloorDivide: "//",
    cst.Modulo: "%",
    cst.Power: "**",
    cst.BitAnd: "&",
    cst.BitOr: "|",
    cst.BitXor: "^",
    cst.LeftShift: "<<",
    cst.RightShift: ">>",
}
#: Python's comparison operators as IR operator words.
COMPARISON_OPERATORS: dict[type, str] = {
    cst.LessThan: "<",
    cst.LessThanEqual: "<=",
    cst.GreaterThan: ">",
    cst.GreaterThanEqual: ">=",
    cst.Equal: "==",
    cst.NotEqual: "!=",
}


def ceil_div_parts(
    node: cst.BaseExpression, is_cdiv: Callable[[cst.BaseExpression], bool]
) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """``(e, b)`` where ``node`` counts the ``b``-sized tiles of ``e``: a call ``is_cdiv`` says
    is the DSL's ceiling division (``ct.cdiv(e, b)``) or the integer spelling production code
    writes instead, ``(e + b - 1) // b`` (or ``(e + (b - 1)) // b``, ``(b + e - 1) // b``),
    with ``b`` the same expression, as written, in both places. None for anything else."""
    if isinstance(node, cst.Call) and is_cdiv(node.func):
        pos, kw = call_args(node)
        return (pos[0], pos[1]) if len(pos) == 2 and not kw else None
    if not (isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.FloorDivide)):
        return None
    block = source_of(node.right)
    top = node.left
    if not (
        isinstance(top, cst.BinaryOperation) and isinstance(top.operator, (cst.Add, cst.Subtract))
    ):
        return None
    if isinstance(top.operator, cst.Subtract):
        # `(e + b) - 1`
        if not (isinstance(top.right, cst.Integer) and top.right.value == "1"):
            return None
        total = top.left
        if not (isinstance(total, cst.BinaryOperation) and isinstance(total.operator, cst.Add)):
            return None
        for extent, size in ((total.left, total.right), (total.right, total.left)):
            if source_of(size) == block:
                return extent, node.right
        return None
    # `e + (b - 1)`
    for extent, less in ((top.left, top.right), (top.right, top.left)):
        if (
            isinstance(less, cst.BinaryOperation)
            and isinstance(less.operator, cst.Subtract)
            and source_of(less.left) == block
            and isinstance(less.right, cst.Integer)
            and less.right.value == "1"
        ):
            return extent, node.right
    return None
