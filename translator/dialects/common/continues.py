"""``continue`` in a device loop's body, folded into ``if``/``else``: a tile DSL's IR has no jump.

Kernels skip the rest of an iteration the way Python code does (Liger's and Helion's JSD skip a
row whose label is the ignore index)::

    for tile in hl.tile(n):
        if skip:
            out[tile] = 0.0
            continue
        out[tile] = work(tile)

is the same loop as::

    for tile in hl.tile(n):
        if skip:
            out[tile] = 0.0
        else:
            out[tile] = work(tile)

:func:`fold_continues` makes that rewrite on a loop body's statements (the rest of the body goes
into every path of the ``if`` that does not end in ``continue``; a ``continue`` in a nested loop
belongs to that loop and is left to it). It works on libcst statements so that any frontend reads
the result with its own statement handlers; the nodes it makes are mapped to the parsed nodes they
come from, for diagnostics (:meth:`translator.dialects.cst_utils.Locator.adopt`).
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

Origins = dict[cst.CSTNode, cst.CSTNode]


def has_continue(node: cst.CSTNode) -> bool:
    """Whether ``node`` holds a ``continue`` of the loop around it (not of a loop inside it)."""
    if isinstance(node, cst.Continue):
        return True
    if isinstance(node, (cst.For, cst.While, cst.FunctionDef, cst.ClassDef)):
        return False
    return any(has_continue(child) for child in node.children)


def fold_continues(
    statements: Sequence[cst.BaseStatement],
) -> tuple[list[cst.BaseStatement], Origins]:
    """``statements`` (a loop's body) with every ``continue`` of that loop folded into the
    ``if``s around it, and the made nodes mapped to the parsed ones they come from."""
    origins: Origins = {}
    if not any(has_continue(s) for s in statements):
        return list(statements), origins
    return _fold(list(statements), origins), origins


def _fold(statements: list[cst.BaseStatement], origins: Origins) -> list[cst.BaseStatement]:
    for i, stmt in enumerate(statements):
        if isinstance(stmt, cst.SimpleStatementLine) and has_continue(stmt):
            # What runs before the `continue` on its line; the rest of the body never runs.
            kept = []
            for small in stmt.body:
                if isinstance(small, cst.Continue):
                    break
                kept.append(small)
            before = statements[:i]
            if kept:
                line = stmt.with_changes(body=kept)
                origins[line] = stmt
                before.append(line)
            return before
        if isinstance(stmt, cst.If) and has_continue(stmt):
            return [*statements[:i], _fold_if(stmt, statements[i + 1 :], origins)]
    return statements


def _fold_if(node: cst.If, rest: list[cst.BaseStatement], origins: Origins) -> cst.If:
    """``node`` followed by ``rest``, as one ``if`` that runs ``rest`` on each path that does
    not end in ``continue``."""
    body = _fold([*_lines(node.body), *rest], origins)
    orelse: cst.If | cst.Else | None
    if isinstance(node.orelse, cst.If):
        orelse = _fold_if(node.orelse, rest, origins)
    else:
        tail = _lines(node.orelse.body) if isinstance(node.orelse, cst.Else) else []
        stmts = _fold([*tail, *rest], origins)
        orelse = cst.Else(body=cst.IndentedBlock(body=stmts)) if stmts else None
    made = node.with_changes(body=cst.IndentedBlock(body=body or [_pass()]), orelse=orelse)
    origins[made] = node
    return made


def _lines(block: cst.BaseSuite) -> list[cst.BaseStatement]:
    """The statements of a block (``if c: a; continue`` on one line is one statement line)."""
    if isinstance(block, cst.SimpleStatementSuite):
        line = cst.SimpleStatementLine(body=block.body)
        return [line]
    return list(block.body)


def _pass() -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine(body=[cst.Pass()])


__all__ = ["fold_continues", "has_continue"]
