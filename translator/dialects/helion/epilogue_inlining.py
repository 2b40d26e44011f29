"""Helion epilogues, inlining: the value an epilogue computes, written into a kernel body in
place of each call of the callable parameter (its parameters replaced by the call's arguments, a
module function's locals renamed apart from the kernel's names).

Used by :mod:`translator.dialects.helion.epilogues`, which finds the epilogues each call site
passes and builds the specialisations.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from translator.diagnostics import TranslationError


@dataclass(frozen=True)
class Epilogue:
    """What a call passes for a callable parameter: parameter names, the statements to run
    first (a module function's assignments) and the value it returns."""

    params: tuple[str, ...]
    prelude: tuple[cst.SimpleStatementLine, ...]
    value: cst.BaseExpression
    label: str  # what the specialisation is named after
    free: tuple[str, ...] = ()  # names the caller must pass in (a lambda's closure)


def _is_atom(node: cst.BaseExpression) -> bool:
    """Whether ``node`` needs no parentheses as an operand."""
    simple = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float)
    return isinstance(node, simple) or bool(node.lpar)


def _paren(node: cst.BaseExpression) -> cst.BaseExpression:
    return (
        node
        if _is_atom(node)
        else node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    )


class _Substitute(cst.CSTTransformer):
    """Replaces names by expressions; ``t[i]`` of a name bound to a tuple or list (the tiles a
    kernel passes: ``epilogue(acc, (tile_m, tile_n))`` or ``[tile_m, tile_n]``) by its
    ``i``-th item."""

    def __init__(self, values: dict[str, cst.BaseExpression]) -> None:
        self.values = values

    def leave_Subscript(
        self, original: cst.Subscript, updated: cst.Subscript
    ) -> cst.BaseExpression:
        base = original.value
        if isinstance(base, cst.Name) and isinstance(
            self.values.get(base.value), (cst.Tuple, cst.List)
        ):
            items = self.values[base.value].elements  # type: ignore[attr-defined]
            if len(original.slice) == 1:
                index = original.slice[0].slice
                if isinstance(index, cst.Index) and isinstance(index.value, cst.Integer):
                    i = int(index.value.value)
                    if -len(items) <= i < len(items):
                        return items[i].value.deep_clone()
        return updated

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        if original.value in self.values:
            return _paren(self.values[original.value].deep_clone())
        return updated

    def leave_Attribute(
        self, original: cst.Attribute, updated: cst.Attribute
    ) -> cst.BaseExpression:
        # The attribute's own name is no variable: keep it whatever the value became.
        return updated.with_changes(attr=original.attr)


class EpilogueInliner(cst.CSTTransformer):
    """Inlines the calls of callable parameters in a kernel body."""

    def __init__(
        self,
        epilogues: dict[str, Epilogue],
        taken: set[str],
        error: Callable[..., TranslationError],
    ) -> None:
        self.epilogues = epilogues
        self.taken = taken
        self.error = error
        self.pending: list[cst.SimpleStatementLine] = []
        # The inlined values by id, each held so that its id stays its own.
        self.made: dict[int, cst.BaseExpression] = {}

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if not (isinstance(original.func, cst.Name) and original.func.value in self.epilogues):
            return updated
        e = self.epilogues[original.func.value]
        if len(updated.args) != len(e.params) or any(
            a.keyword is not None or a.star for a in updated.args
        ):
            raise self.error(
                original,
                f"the epilogue is called with {len(updated.args)} argument(s) and takes "
                f"{len(e.params)}",
                "pass the accumulator and the tiles by position",
            )
        values: dict[str, cst.BaseExpression] = {}
        for p, a in zip(e.params, updated.args):
            values[p] = a.value
        # The epilogue's own names (a function's locals) must not clash with the kernel's.
        renames: dict[str, cst.BaseExpression] = {}
        for stmt in e.prelude:
            for t in stmt.body[0].targets:  # type: ignore[attr-defined]
                local = t.target.value
                fresh = local
                while fresh in self.taken:
                    fresh = f"{fresh}_"
                self.taken.add(fresh)
                renames[local] = cst.Name(fresh)
        subst = _Substitute({**values, **renames})
        for stmt in e.prelude:
            new = stmt.visit(subst)
            self.pending.append(new.with_changes(leading_lines=[]))  # type: ignore[union-attr]
        value = e.value.visit(subst)
        value = _paren(value)  # type: ignore[arg-type]
        self.made[id(value)] = value
        return value

    def leave_SimpleStatementLine(
        self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement]:
        # An inlined value that is a statement's whole right-hand side needs no parentheses.
        small = updated.body[0] if len(updated.body) == 1 else None
        if isinstance(small, (cst.Assign, cst.Return)) and small.value is not None:
            v = small.value
            if self.made.get(id(v)) is v and v.lpar:
                updated = updated.with_changes(
                    body=[small.with_changes(value=v.with_changes(lpar=[], rpar=[]))]
                )
        if not self.pending:
            return updated
        stmts = [*self.pending, updated]
        self.pending = []
        stmts[0] = stmts[0].with_changes(leading_lines=updated.leading_lines)
        stmts[-1] = updated.with_changes(leading_lines=[])
        return cst.FlattenSentinel(stmts)
