"""The grouped program order of a 2-D grid of tiles, as integer trees any frontend can match.

GEMM kernels in every tile DSL launch one flat program id over the output tiles and map it to a
row and a column tile in groups of ``G`` row tiles, so that the programs running together share
rows of the first operand in L2 (Triton's matmul tutorial ``GROUP_SIZE_M``, cuTile's samples'
``swizzle_2d``, Helion's ``l2_groupings``). The IR keeps no order: the grid is one program per tile
and the group size a ``group_size`` tunable, a rasterization hint. A frontend matches the source's
``pid_m``/``pid_n`` trees (its own spelling lifted to IR expressions, local names substituted)
against :func:`grouped_templates`; a backend writes the order back in its own spelling.
"""

from __future__ import annotations

from dataclasses import dataclass

from translator.ir import nodes as ir


@dataclass(frozen=True)
class GroupedOrder:
    """The operands of a matched grouped order: the flat program id ``pid`` (as written), the
    extents ``M``/``N``, the block sizes ``BM``/``BN`` and the group size ``G`` (trees)."""

    pid: ir.Expr
    M: ir.Expr
    BM: ir.Expr
    N: ir.Expr
    BN: ir.Expr
    G: ir.Expr


_COMMUTATIVE = {"+", "*", "&", "|"}


def _v(name: str) -> ir.Name:
    return ir.Name("?" + name)


def _b(op: str, a: ir.Expr, b: ir.Expr) -> ir.BinOp:
    return ir.BinOp(op, a, b)


def grouped_templates() -> tuple[tuple[ir.Expr, ...], ir.Expr]:
    """The ``pid_m`` forms and the ``pid_n`` form of the grouped order, over ``?`` variables.

    Triton's matmul tutorial writes ``pid_m = first + (pid % in_group) % size_m``; its
    persistent-matmul tutorial ``first + pid % size_m``. Within a group the program ids are
    ``base + j`` for ``j < size_m * num_pid_n`` and ``pid_n = j // size_m``; for each ``pid_n`` the
    ``size_m`` consecutive ids cover every residue mod ``size_m`` either way, so both forms visit
    every tile of the group once, only in another order, and the IR (which keeps the order as a
    rasterization hint) reads them alike."""
    pid = _v("pid")
    num_pid_m = ir.Call("cdiv", (_v("M"), _v("BM")))
    num_pid_n = ir.Call("cdiv", (_v("N"), _v("BN")))
    in_group = _b("*", _v("G"), num_pid_n)
    group_id = _b("//", pid, in_group)
    first = _b("*", group_id, _v("G"))
    size_m = ir.Call("minimum", (_b("-", num_pid_m, first), _v("G")))
    pid_m = _b("+", first, _b("%", _b("%", pid, in_group), size_m))
    pid_m_direct = _b("+", first, _b("%", pid, size_m))
    pid_n = _b("//", _b("%", pid, in_group), size_m)
    return (pid_m, pid_m_direct), pid_n


def strip_casts(e: ir.Expr) -> ir.Expr:
    """``e`` without integer casts, which do not change index values (overflow aside)."""
    while isinstance(e, ir.Cast):
        e = e.value
    return e


def unify(pattern: ir.Expr, e: ir.Expr, env: dict[str, ir.Expr]) -> bool:
    """Unify ``pattern`` (with ``?x`` variables) against ``e``, commutative ops in either order;
    ``env`` gets the variables' bindings."""
    e = strip_casts(e)
    if isinstance(pattern, ir.Name) and pattern.id.startswith("?"):
        bound = env.get(pattern.id)
        if bound is None:
            env[pattern.id] = e
            return True
        return bound == e
    if type(pattern) is not type(e):
        return False
    if isinstance(pattern, ir.BinOp):
        assert isinstance(e, ir.BinOp)
        if pattern.op != e.op:
            return False
        saved = dict(env)
        if unify(pattern.lhs, e.lhs, env) and unify(pattern.rhs, e.rhs, env):
            return True
        env.clear()
        env.update(saved)
        if pattern.op in _COMMUTATIVE:
            if unify(pattern.lhs, e.rhs, env) and unify(pattern.rhs, e.lhs, env):
                return True
            env.clear()
            env.update(saved)
        return False
    if isinstance(pattern, ir.Call):
        assert isinstance(e, ir.Call)
        if pattern.op != e.op or len(pattern.args) != len(e.args):
            return False
        saved = dict(env)
        orders = [e.args]
        if pattern.op in ("minimum", "maximum"):
            orders.append(tuple(reversed(e.args)))
        for args in orders:
            if all(unify(p, a, env) for p, a in zip(pattern.args, args)):
                return True
            env.clear()
            env.update(saved)
        return False
    return pattern == e


def match_grouped(e: ir.Expr, which: str) -> GroupedOrder | None:
    """The grouped order whose ``pid_m`` (``which="m"``) or ``pid_n`` tree is ``e``, if any."""
    pid_ms, pid_n = grouped_templates()
    env: dict[str, ir.Expr] = {}
    if not any(unify(p, e, env) for p in (pid_ms if which == "m" else (pid_n,))):
        return None
    return GroupedOrder(env["?pid"], env["?M"], env["?BM"], env["?N"], env["?BN"], env["?G"])


__all__ = ["GroupedOrder", "grouped_templates", "match_grouped", "strip_casts", "unify"]


def grouped_grid(kernel: ir.Kernel) -> bool:
    """Whether ``kernel``'s source asked for a grouped program order: a grid of two tiled dims
    (no scalar dim) and a ``group_size`` tunable. A backend that writes a persistent schedule
    its own way decides for itself whether the order still applies."""
    return (
        len(kernel.grid) == 2
        and not any(t.scalar for t in kernel.grid)
        and any(t.kind == "group_size" for t in kernel.tunables)
    )
