"""Generic rewriting of IR trees and statements, for the Triton frontend's host and device code."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from translator.ir import nodes as ir


def simplify(e: ir.Expr) -> ir.Expr:
    """Fold ``x * 1``, ``x + 0`` and constant arithmetic in a tree."""
    if isinstance(e, ir.BinOp):
        lhs, rhs = simplify(e.lhs), simplify(e.rhs)
        if (
            isinstance(lhs, ir.Const)
            and isinstance(rhs, ir.Const)
            and e.op in ("+", "-", "*")
            and (
                isinstance(lhs.value, int)
                and isinstance(rhs.value, int)
                and not isinstance(lhs.value, bool)
                and not isinstance(rhs.value, bool)
            )
        ):
            v = {
                "+": lhs.value + rhs.value,
                "-": lhs.value - rhs.value,
                "*": lhs.value * rhs.value,
            }[e.op]
            return ir.Const(v)
        if e.op == "*" and rhs == ir.Const(1):
            return lhs
        if e.op == "*" and lhs == ir.Const(1):
            return rhs
        if e.op in ("+", "-") and rhs == ir.Const(0):
            return lhs
        if e.op == "+" and lhs == ir.Const(0):
            return rhs
        return dataclasses.replace(e, lhs=lhs, rhs=rhs)
    if isinstance(e, ir.Call):
        return dataclasses.replace(e, args=tuple(simplify(a) for a in e.args))
    if isinstance(e, ir.UnaryOp):
        return dataclasses.replace(e, operand=simplify(e.operand))
    return e


def replace_values(v: Any, mapping: dict) -> Any:
    """``v`` (IR nodes, tuples) with every field value found in ``mapping`` replaced."""
    if isinstance(v, tuple):
        new = tuple(replace_values(x, mapping) for x in v)
        return v if all(a is b for a, b in zip(new, v)) else new
    if not dataclasses.is_dataclass(v) or isinstance(v, type):
        return v
    try:
        if v in mapping:
            return mapping[v]
    except TypeError:
        pass
    changes = {}
    for f in dataclasses.fields(v):
        x = getattr(v, f.name)
        nx = replace_values(x, mapping)
        if nx is not x:
            changes[f.name] = nx
    return dataclasses.replace(v, **changes) if changes else v


def walk_stmts_of(s: ir.Stmt) -> list[ir.Stmt]:
    """The statements nested in ``s``."""
    from translator.ir.visit import walk_stmts

    inner: tuple[ir.Stmt, ...] = ()
    if isinstance(s, (ir.TileLoop, ir.While)):
        inner = s.body
    elif isinstance(s, ir.If):
        inner = s.body + s.orelse
    return list(walk_stmts(inner))


def map_names(e: ir.Expr, fn: Callable[[str], ir.Expr | None], index=None) -> ir.Expr:
    """``e`` with names replaced where ``fn`` returns a tree (recursively, every node kind);
    ``index`` may rewrite index items first."""
    if isinstance(e, ir.Name):
        new = fn(e.id)
        return e if new is None else map_names(new, fn, index) if new != e else new
    changes: dict[str, Any] = {}
    for f in dataclasses.fields(e):
        if f.name == "loc":
            continue
        v = getattr(e, f.name)
        nv = _map_value(v, fn, index)
        if nv is not v:
            changes[f.name] = nv
    return dataclasses.replace(e, **changes) if changes else e


def _map_value(v: Any, fn, index=None):
    if index is not None and isinstance(v, (ir.ScalarIndex, ir.GatherIndex, ir.FullIndex)):
        nv = index(v)
        if nv is not v:
            return nv
    if isinstance(v, ir.Expr):
        return map_names(v, fn, index)
    if isinstance(v, (ir.ScalarIndex, ir.GatherIndex)):
        return type(v)(map_names(v.value, fn, index))
    if isinstance(v, ir.FullIndex) and v.extent is not None:
        return ir.FullIndex(map_names(v.extent, fn, index))
    if isinstance(v, ir.FullDim):
        return ir.FullDim(map_names(v.extent, fn, index))
    if isinstance(v, tuple):
        new = tuple(_map_value(x, fn, index) for x in v)
        return v if all(a is b for a, b in zip(new, v)) else new
    return v


def map_stmt(
    s: ir.Stmt, expr: Callable[[ir.Expr], ir.Expr], index: Callable[[ir.IndexItem], ir.IndexItem]
) -> ir.Stmt:
    if isinstance(s, ir.Assign):
        return dataclasses.replace(s, value=expr(s.value))
    if isinstance(s, (ir.Store, ir.AtomicRMW)):
        return dataclasses.replace(s, index=tuple(index(i) for i in s.index), value=expr(s.value))
    if isinstance(s, ir.TileLoop):
        tiles = tuple(
            dataclasses.replace(
                t,
                extent=expr(t.extent),
                begin=expr(t.begin) if t.begin is not None else None,
                step=expr(t.step) if t.step is not None else None,
            )
            for t in s.tiles
        )
        return dataclasses.replace(
            s, tiles=tiles, body=tuple(map_stmt(b, expr, index) for b in s.body)
        )
    if isinstance(s, ir.If):
        return dataclasses.replace(
            s,
            test=expr(s.test),
            body=tuple(map_stmt(b, expr, index) for b in s.body),
            orelse=tuple(map_stmt(b, expr, index) for b in s.orelse),
        )
    if isinstance(s, ir.While):
        return dataclasses.replace(
            s, test=expr(s.test), body=tuple(map_stmt(b, expr, index) for b in s.body)
        )
    return s
