"""What the Triton frontend reads off host syntax alone: conjuncts of a test, bounds of
intervals, names a statement binds, copies, early returns and inlinable helpers."""

from __future__ import annotations

from collections import Counter
from typing import Any

import libcst as cst

from translator.dialects.cst_utils import bound_names
from translator.dialects.triton.host_values import (
    HOpaque,
    HScalar,
)
from translator.ir import nodes as ir

# Tensor methods that return a tensor of the same shape, dtype and values.
COPIES = frozenset({"contiguous", "clone", "detach"})


# Tensor methods that return a strided view of the same elements in another dim order.
LAYOUT_VIEWS = frozenset({"transpose", "permute", "swapaxes", "swapdims", "mT", "t"})


def copies_only(node: cst.If) -> set[str]:
    """Names that every binding inside ``node`` rebinds to a copy of themselves
    (``x = x.contiguous()``)."""
    copies: Counter[str] = Counter()

    class Visitor(cst.CSTVisitor):
        def visit_Assign(self, a: cst.Assign) -> None:
            value = a.value
            for t in a.targets:
                if (
                    isinstance(t.target, cst.Name)
                    and isinstance(value, cst.Call)
                    and isinstance(value.func, cst.Attribute)
                    and isinstance(value.func.value, cst.Name)
                    and value.func.value.value == t.target.value
                    and value.func.attr.value in COPIES
                    and not value.args
                ):
                    copies[t.target.value] += 1

    node.visit(Visitor())
    bindings = Counter(bound_names(node))
    return {name for name, n in copies.items() if bindings[name] == n}


def negated_conjuncts(test: cst.BaseExpression) -> list[cst.BaseExpression] | None:
    """``not test`` as a conjunction of comparisons, for ``if test: raise``: ``a != b or c``
    gives ``[a == b, not c]`` when every disjunct is a single ``!=``/``==`` comparison; else
    ``None``."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.Or):
        left, right = negated_conjuncts(test.left), negated_conjuncts(test.right)
        return None if left is None or right is None else left + right
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        comp = test.comparisons[0]
        flipped = {cst.NotEqual: cst.Equal, cst.Equal: cst.NotEqual}.get(type(comp.operator))
        if flipped is not None:
            return [test.with_changes(comparisons=[comp.with_changes(operator=flipped())])]
    return None


NO_RETURN = object()


def value_interval(v: Any) -> tuple[int | None, int | None]:
    if isinstance(v, HScalar) and isinstance(v.expr, ir.Const) and isinstance(v.expr.value, int):
        return v.expr.value, v.expr.value
    if isinstance(v, HOpaque):
        return v.lo, v.hi
    return None, None


def interval_arith(op: str, a: Any, b: Any) -> tuple[int | None, int | None]:
    alo, ahi = value_interval(a)
    blo, bhi = value_interval(b)
    if None in (alo, ahi, blo, bhi):
        return None, None
    assert alo is not None and ahi is not None and blo is not None and bhi is not None
    if op == "//" and blo > 0:
        return alo // bhi, ahi // blo
    if op == "*" and alo >= 0 and blo >= 0:
        return alo * blo, ahi * bhi
    if op == "+":
        return alo + blo, ahi + bhi
    return None, None


def none_default(node: cst.If) -> tuple[str, cst.BaseExpression] | None:
    """``(x, e)`` of ``if x is None: x = e`` (no else)."""
    test = node.test
    body = list(node.body.body) if isinstance(node.body, cst.IndentedBlock) else []
    if (
        node.orelse is not None
        or len(body) != 1
        or not isinstance(body[0], cst.SimpleStatementLine)
        or len(body[0].body) != 1
    ):
        return None
    assign = body[0].body[0]
    if not (
        isinstance(test, cst.Comparison)
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].operator, cst.Is)
        and isinstance(test.left, cst.Name)
        and isinstance(test.comparisons[0].comparator, cst.Name)
        and test.comparisons[0].comparator.value == "None"
    ):
        return None
    name = test.left.value
    if not (
        isinstance(assign, cst.Assign)
        and len(assign.targets) == 1
        and isinstance(assign.targets[0].target, cst.Name)
        and assign.targets[0].target.value == name
    ):
        return None
    return name, assign.value


def early_return(body: list[cst.BaseStatement]) -> tuple[list, cst.BaseExpression, list] | None:
    """``(prefix, value, rest)`` of a body ``prefix; if test: return value; rest`` whose prefix
    and rest are otherwise inlinable."""
    for i, st in enumerate(body):
        if not isinstance(st, cst.If):
            continue
        inner = list(st.body.body) if isinstance(st.body, cst.IndentedBlock) else []
        if (
            st.orelse is not None
            or len(inner) != 1
            or not isinstance(inner[0], cst.SimpleStatementLine)
            or len(inner[0].body) != 1
            or not isinstance(inner[0].body[0], cst.Return)
        ):
            return None
        value = inner[0].body[0].value
        prefix, rest = body[:i], body[i + 1 :]
        if value is None or not inlinable(prefix) or not inlinable(rest):
            return None
        return prefix, value, rest
    return None


def inlinable(body: list[cst.BaseStatement]) -> bool:
    for i, st in enumerate(body):
        if isinstance(st, cst.SimpleStatementLine):
            for s in st.body:
                if isinstance(s, cst.Return) and i != len(body) - 1:
                    return False
                if (
                    isinstance(s, cst.Expr)
                    and isinstance(s.value, cst.Call)
                    and isinstance(s.value.func, cst.Attribute)
                    and s.value.func.attr.value == "copy_"
                ):
                    continue
                if not isinstance(s, (cst.Assign, cst.Return, cst.Assert, cst.Pass)):
                    return False
            continue
        if isinstance(st, cst.If):
            ok = True

            class V(cst.CSTVisitor):
                def visit_Return(self, n: cst.Return) -> None:
                    nonlocal ok
                    ok = False

            st.visit(V())
            if not ok:
                return False
            continue
        return False
    return True
