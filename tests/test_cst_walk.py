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

from translator.dialects.cst_utils import Wrapper, parsed, walk  # noqa: E402

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
    """Per node with a scope: the scope's kind, its names, and each name's reads."""
    scopes = wrapper.resolve(ScopeProvider)
    out = []
    for node, scope in scopes.items():
        if scope is None:
            continue
        names = sorted({a.name for a in scope.assignments})
        reads = sorted((a.name, len(a.references)) for a in scope.assignments if a.scope is scope)
        qualified = (
            sorted(q.name for q in scope.get_qualified_names_for(node))
            if isinstance(node, (cst.Name, cst.Attribute))
            else []
        )
        out.append((id(node), type(scope).__name__, tuple(names), tuple(reads), tuple(qualified)))
    return sorted(out)


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_wrapper_resolves_the_same_scopes(path):
    module = cst.parse_module(path.read_text())
    fast = _scope_summary(Wrapper(module, unsafe_skip_copy=True))
    slow = _scope_summary(MetadataWrapper(module, unsafe_skip_copy=True))
    assert fast == slow and len(fast) > 100


def test_parsed_is_shared_per_text():
    text = (ROOT / "examples" / "helion" / "add.py").read_text()
    assert parsed(text) is parsed(text)
    assert parsed(text + "\n# other\n") is not parsed(text)
