"""The fast libcst helpers behind translation speed (``translator/dialects/cst_utils.py``) give
what libcst's own slower paths give: the same nodes walked, the same scope analysis."""

from __future__ import annotations

import sys
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, ScopeProvider

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from translator.dialects.cst_utils import (  # noqa: E402
    Wrapper,
    install_read_only_visit,
    parsed,
    uninstall_read_only_visit,
    walk,
)

SOURCES = [
    ROOT / "examples" / "triton" / "attention.py",
    ROOT / "examples" / "library" / "triton" / "layer_norm.py",
    ROOT / "examples" / "helion" / "softmax_two_pass.py",
]


def _libcst_nodes(module: cst.Module) -> list[int]:
    seen: list[int] = []

    class V(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            seen.append(id(node))
            return True

    module.visit(V())
    return seen


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_walk_reaches_the_nodes_libcst_visits(path):
    module = cst.parse_module(path.read_text())
    seen: list[int] = []

    def enter(node: cst.CSTNode) -> bool:
        seen.append(id(node))
        return True

    walk(module, enter)
    assert sorted(seen) == sorted(_libcst_nodes(module))
    assert len(seen) == len(set(seen))


def _scope_summary(wrapper: MetadataWrapper) -> list[tuple]:
    """Per node with a scope: the scope's kind, its names, and each name's reads (the nodes
    that read it). A node outside the module (libcst parses string annotations into nodes of
    their own, anew each analysis) is named by -1 instead of its id."""
    scopes = wrapper.resolve(ScopeProvider)
    inside: set[int] = set()

    def enter(node: cst.CSTNode) -> bool:
        inside.add(id(node))
        return True

    walk(wrapper.module, enter)

    def key(node: cst.CSTNode) -> int:
        return id(node) if id(node) in inside else -1

    out = []
    for node, scope in scopes.items():
        if scope is None:
            continue
        names = sorted({a.name for a in scope.assignments})
        reads = sorted(
            (a.name, len(a.references), tuple(sorted(key(r.node) for r in a.references)))
            for a in scope.assignments
            if a.scope is scope
        )
        qualified = (
            sorted(q.name for q in scope.get_qualified_names_for(node))
            if isinstance(node, (cst.Name, cst.Attribute))
            else []
        )
        out.append((key(node), type(scope).__name__, tuple(names), tuple(reads), tuple(qualified)))
    return sorted(out)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_wrapper_resolves_the_same_scopes(path):
    module = cst.parse_module(path.read_text())
    fast = _scope_summary(Wrapper(module, unsafe_skip_copy=True))
    slow = _scope_summary(MetadataWrapper(module, unsafe_skip_copy=True))
    assert fast == slow and len(fast) > 100


#: Every example and library source: the read-only visit must replay libcst's hooks on all of them.
ALL_SOURCES = sorted(
    p
    for p in (ROOT / "examples").rglob("*.py")
    if not any(part.startswith("expected_") for part in p.parts)
)


class _Trace(cst.CSTVisitor):
    """Records every hook libcst calls; skips the children of every third function and of
    lambdas (so pruning is replayed too)."""

    def __init__(self) -> None:
        super().__init__()
        self.events: list[tuple] = []
        self.functions = 0

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.events.append(("visit", id(node)))
        if isinstance(node, cst.FunctionDef):
            self.functions += 1
            return self.functions % 3 != 0
        return not isinstance(node, cst.Lambda)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.events.append(("leave", id(original_node)))

    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        self.events.append(("enter", id(node), attribute))

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        self.events.append(("exit", id(original_node), attribute))


class _FieldHooks(cst.CSTVisitor):
    """A visitor with hooks for particular fields (``visit_<Node>_<field>``), the generic
    attribute hooks left as libcst's: those named hooks must still be called, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.events: list[tuple] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.events.append(("visit", id(node)))
        return True

    def visit_Call_func(self, node: cst.Call) -> None:
        self.events.append(("Call.func", id(node)))

    def leave_Call_args(self, node: cst.Call) -> None:
        self.events.append(("/Call.args", id(node)))

    def leave_FunctionDef_body(self, node: cst.FunctionDef) -> None:
        self.events.append(("/FunctionDef.body", id(node)))

    def visit_Attribute_attr(self, node: cst.Attribute) -> None:
        self.events.append(("Attribute.attr", id(node)))


class _NodeHooks(cst.CSTVisitor):
    """A visitor with libcst's own ``on_visit``/``on_leave`` and hooks for some node types
    (``visit_<Node>``/``leave_<Node>``; one prunes by returning False): those must be called,
    in order, and the pruning replayed."""

    def __init__(self) -> None:
        super().__init__()
        self.events: list[tuple] = []
        self.functions = 0

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.functions += 1
        self.events.append(("FunctionDef", id(node)))
        return self.functions % 2 == 0

    def visit_Name(self, node: cst.Name) -> None:
        self.events.append(("Name", id(node)))

    def leave_Call(self, original_node: cst.Call) -> None:
        self.events.append(("/Call", id(original_node)))

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.events.append(("/FunctionDef", id(original_node)))


def _trace(module: cst.Module, fast: bool, kind: type = _Trace) -> list[tuple]:
    if not fast:
        uninstall_read_only_visit()
    try:
        visitor = kind()
        assert module.visit(visitor) is module
        return visitor.events
    finally:
        install_read_only_visit()


@pytest.mark.parametrize("path", ALL_SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_read_only_visit_replays_libcsts_hooks(path):
    # f-strings with and without format specs: the node type whose visited fields vary.
    text = path.read_text() + 'F = f"{1:>{2}} {3!r} {4=}"\n'
    module = cst.parse_module(text)
    slow, fast = _trace(module, fast=False), _trace(module, fast=True)
    assert fast == slow and len(fast) > 1000
    slow, fast = _trace(module, False, _FieldHooks), _trace(module, True, _FieldHooks)
    assert fast == slow and any(event[0] == "Call.func" for event in fast)
    slow, fast = _trace(module, False, _NodeHooks), _trace(module, True, _NodeHooks)
    assert fast == slow and any(event[0] == "Name" for event in fast)


@pytest.mark.parametrize("path", ALL_SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_read_only_visit_resolves_the_same_scopes(path):
    # The read-only visit also stands in for libcst's ScopeVisitor.on_leave (cst_utils.
    # _scope_leave): every source, so that each node type's assignment count is checked.
    module = cst.parse_module(path.read_text())
    uninstall_read_only_visit()
    try:
        slow = _scope_summary(MetadataWrapper(module, unsafe_skip_copy=True))
    finally:
        install_read_only_visit()
    fast = _scope_summary(MetadataWrapper(module, unsafe_skip_copy=True))
    assert fast == slow and len(fast) > 100


def test_parsed_is_shared_per_text():
    text = (ROOT / "examples" / "helion" / "add.py").read_text()
    assert parsed(text) is parsed(text)
    assert parsed(text + "\n# other\n") is not parsed(text)


def _local_visitor(kind: str) -> type:
    """A visitor class made anew per call (as visitors defined inside functions are); the two
    kinds share their name and place but not their hooks."""
    if kind == "names":

        class V(cst.CSTVisitor):
            def __init__(self) -> None:
                super().__init__()
                self.seen: list[str] = []

            def visit_Name(self, node: cst.Name) -> None:
                self.seen.append(node.value)

    else:

        class V(cst.CSTVisitor):  # type: ignore[no-redef]
            def __init__(self) -> None:
                super().__init__()
                self.seen: list[str] = []

            def leave_Call(self, original_node: cst.Call) -> None:
                self.seen.append("call")

    return V


def test_visitor_classes_made_per_call_keep_their_own_hooks():
    module = cst.parse_module("y = f(x)\nz = g(y)\n")
    runs = []
    for kind in ("names", "calls", "names", "calls"):
        visitor = _local_visitor(kind)()
        module.visit(visitor)
        runs.append(visitor.seen)
    assert runs[0] == runs[2] == ["y", "f", "x", "z", "g", "y"]
    assert runs[1] == runs[3] == ["call", "call"]


def test_class_hooks_are_get_visitors():
    # `Wrapper` asks which hooks a provider class has from its class dicts (cheaper than
    # libcst's `get_visitors()`, which inspects every member of an instance): the same names
    # for every batchable visitor libcst and tiletrans define, and ones made here.
    import libcst.metadata  # noqa: F401  (the providers)

    import translator.dialects.common.dead_host  # noqa: F401
    import translator.dialects.common.passthrough  # noqa: F401
    from translator.dialects.cst_utils import _class_hooks

    class Hooks(cst.BatchableCSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            pass

        def leave_Call_func(self, node: cst.Call) -> None:
            pass

    class Aliased(cst.BatchableCSTVisitor):
        other = Hooks.visit_Name  # named `visit_Name` underneath: get_visitors counts it

    todo, kinds = [cst.BatchableCSTVisitor], []
    while todo:
        kind = todo.pop()
        kinds.append(kind)
        todo.extend(kind.__subclasses__())
    assert len(kinds) > 8
    for kind in kinds:
        expected = set(kind.__new__(kind).get_visitors())
        assert _class_hooks(kind) == expected, kind
