"""Whole-entry renaming: every reference to a name, whatever node holds it.

IR names are unique within an entry (frontends allocate them with ``translator.naming.unique``), so
a name-holding field equal to a name *is* that name: a tile's ``TileVar.name``, the ``tile`` of the
``TileAttr``/``TileIndex``/``BlockDim`` that read it, a tunable and the configs that set it, a hint
value that lists it. Fields that hold words rather than names (operators, kinds, dtypes, source
text, positions, function names, hint keys) are left alone.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping

from translator.ir import nodes as ir

# Fields that never hold a name: source text, positions, operator and kind words.
_NOT_NAMES = frozenset(
    {
        "comments",
        "header_comments",
        "doc_comments",
        "docstring",
        "msg",
        "loc",
        "return_annotation",
        "annotation",
        "file",
        "path",
        "source_hash",
        "op",
        "kind",
        "attr",
        "texts",
        "kernel",
        "site",
        "callee",
    }
)
# Nodes with no names inside: dtype words, constants (a string constant is text), positions.
_LEAVES = (ir.DType, ir.Const, ir.Loc, ir.Hints, ir.HostPlan, ir.Span)


def _map_names(value: object, fn: Callable[[str], str]) -> object:
    """``value`` rebuilt with ``fn`` applied to every string in a name-holding position."""
    if isinstance(value, str):
        return fn(value)
    if isinstance(value, tuple):
        return tuple(_map_names(v, fn) for v in value)
    if not dataclasses.is_dataclass(value) or isinstance(value, (type, *_LEAVES)):
        return value
    changes = {}
    for f in dataclasses.fields(value):
        if f.name in _NOT_NAMES or (
            f.name == "name" and isinstance(value, (ir.Entry, ir.Kernel, ir.InlineKernel))
        ):
            continue
        old = getattr(value, f.name)
        if f.name == "hints" and isinstance(old, tuple):
            new: object = tuple((key, _map_names(v, fn)) for key, v in old)
        else:
            new = _map_names(old, fn)
        if new != old:
            changes[f.name] = new
    return dataclasses.replace(value, **changes) if changes else value


def names_in(node: object) -> set[str]:
    """Every string in a name-holding position of ``node`` (an entry, statement or expression)."""
    found: set[str] = set()

    def note(name: str) -> str:
        found.add(name)
        return name

    _map_names(node, note)
    return found


def rename(node: object, mapping: Mapping[str, str]) -> object:
    """``node`` with every name in ``mapping`` replaced by its new name."""
    if not mapping:
        return node
    return _map_names(node, lambda name: mapping.get(name, name))
