"""The index domain of the Triton frontend: symbolic integer trees and their affine normal form.

Triton addresses memory with integer arithmetic on program ids, ``tl.arange`` lanes, loop counters,
kernel parameters (sizes, strides, block sizes) and loaded values. The frontend evaluates that
arithmetic *symbolically*: every integer value of a kernel is an IR expression tree whose leaves are
integer constants and **symbols**, ``ir.Name`` nodes whose id starts with ``%``:

* ``%pid0`` … ``%pid2``: ``tl.program_id(a)``; ``%np0`` …: ``tl.num_programs(a)``;
* ``%it<n>``: the iteration counter (0, 1, …) of device loop ``n``;
* ``%l<axis>:<key>``: the lanes ``0 .. B-1`` of ``tl.arange(0, B)`` along Triton axis ``axis``,
  counted from the right (``-1`` is the last axis), ``key`` naming ``B`` (a constexpr parameter or
  an integer literal). Counting from the right keeps broadcasting from renaming lanes;
* ``%p:<name>``: an integer kernel parameter (a size, a stride, a block size);
* ``%d<n>``: a device data value (a loaded integer, a scalar computed in floats…), kept in a side
  table with its IR expression;
* ``%sm``/``%sn``: the tile ids a grouped ("super-grouping") program-id swizzle computes.

:func:`poly` brings a tree to an affine (polynomial) normal form over these symbols; sub-trees that
are not polynomial (``//``, ``%``, ``min``, calls) become opaque atoms that keep their tree.
The device lifter (:mod:`translator.dialects.triton.frontend_device`) classifies the normal form of
each tensor dim's index: a tile (``start + lane``), a whole dim, a scalar, or a gather.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from translator.ir import nodes as ir
from translator.ir.printer import format_expr

Mono = tuple[str, ...]
Poly = dict[Mono, int]
Key = str | int


def sym(name: str) -> ir.Name:
    """The symbol ``%name``."""
    return ir.Name("%" + name)


def is_sym(e: ir.Expr, prefix: str = "") -> bool:
    """Whether ``e`` is a symbol (whose name starts with ``prefix`` after the ``%``)."""
    return isinstance(e, ir.Name) and e.id.startswith("%" + prefix)


def lane_id(key: Key, axis: int) -> str:
    """The symbol id of the lanes of ``tl.arange(0, key)`` along axis ``axis`` (negative)."""
    return f"%l{axis}:{key}"


def parse_lane(name: str) -> tuple[Key, int] | None:
    """``(key, axis)`` of a lane symbol id, else ``None``."""
    if not name.startswith("%l"):
        return None
    axis, _, key = name[2:].partition(":")
    return (int(key) if key.lstrip("-").isdigit() else key), int(axis)


def param_id(name: str) -> str:
    """The symbol id of integer kernel parameter ``name``."""
    return "%p:" + name


# --------------------------------------------------------------------------------------------------
# Polynomials


def _add(a: Poly, b: Poly, sign: int = 1) -> Poly:
    out = dict(a)
    for m, c in b.items():
        out[m] = out.get(m, 0) + sign * c
        if out[m] == 0:
            del out[m]
    return out


def _mul(a: Poly, b: Poly) -> Poly:
    out: Poly = {}
    for ma, ca in a.items():
        for mb, cb in b.items():
            m = tuple(sorted(ma + mb))
            out[m] = out.get(m, 0) + ca * cb
            if out[m] == 0:
                del out[m]
    return out


def const_poly(c: int) -> Poly:
    return {(): c} if c else {}


class Atoms:
    """Opaque sub-trees of normal forms, by the id of the atom that stands for them."""

    def __init__(self) -> None:
        self.trees: dict[str, ir.Expr] = {}

    def atom(self, e: ir.Expr) -> str:
        key = "%t:" + format_expr(e)
        self.trees.setdefault(key, e)
        return key


def strip_casts(e: ir.Expr) -> ir.Expr:
    """``e`` without integer casts, which do not change index values (overflow aside)."""
    while isinstance(e, ir.Cast):
        e = e.value
    return e


def poly(e: ir.Expr, atoms: Atoms) -> Poly:
    """The polynomial normal form of integer tree ``e``."""
    e = strip_casts(e)
    if isinstance(e, ir.Const):
        if isinstance(e.value, bool) or not isinstance(e.value, int):
            return {(atoms.atom(e),): 1}
        return const_poly(e.value)
    if isinstance(e, ir.Name) and e.id.startswith("%"):
        return {(e.id,): 1}
    if isinstance(e, ir.BinOp) and e.op in ("+", "-"):
        return _add(poly(e.lhs, atoms), poly(e.rhs, atoms), 1 if e.op == "+" else -1)
    if isinstance(e, ir.BinOp) and e.op == "*":
        return _mul(poly(e.lhs, atoms), poly(e.rhs, atoms))
    if isinstance(e, ir.UnaryOp) and e.op == "-":
        return _mul(const_poly(-1), poly(e.operand, atoms))
    return {(atoms.atom(e),): 1}


def poly_expr(p: Poly) -> ir.Expr:
    """A tree for polynomial ``p`` (symbols and atoms as names; see :func:`unatom`)."""
    terms: list[tuple[int, ir.Expr | None]] = []  # (sign, |term|)
    for m, c in sorted(p.items(), key=lambda mc: (not mc[0], len(mc[0]), mc[0])):
        factors: list[ir.Expr] = [ir.Name(s) for s in m]
        sign, mag = (1 if c > 0 else -1), abs(c)
        if not factors:
            terms.append((sign, ir.Const(mag)))
            continue
        term = factors[0]
        for f in factors[1:]:
            term = ir.BinOp("*", term, f)
        if mag != 1:
            term = ir.BinOp("*", ir.Const(mag), term)
        terms.append((sign, term))
    if not terms:
        return ir.Const(0)
    sign, out = terms[0]
    assert out is not None
    if sign < 0:
        out = ir.UnaryOp("-", out) if not isinstance(out, ir.Const) else ir.Const(-out.value)
    for sign, t in terms[1:]:
        assert t is not None
        out = ir.BinOp("+" if sign > 0 else "-", out, t)
    return out


def poly_symbols(p: Poly) -> set[str]:
    return {s for m in p for s in m}


def same_poly(a: Poly, b: Poly) -> bool:
    return _add(a, b, -1) == {}


def sub(a: Poly, b: Poly) -> Poly:
    return _add(a, b, -1)


def divide_by(p: Poly, factor: str) -> Poly | None:
    """``p / factor`` if every monomial of ``p`` holds symbol ``factor`` once, else ``None``."""
    out: Poly = {}
    for m, c in p.items():
        if m.count(factor) != 1:
            return None
        rest = list(m)
        rest.remove(factor)
        out[tuple(rest)] = c
    return out


# --------------------------------------------------------------------------------------------------
# Trees


def walk(e: ir.Expr) -> Iterator[ir.Expr]:
    from translator.ir.visit import walk_expr

    return walk_expr(e)


def symbols_in(e: ir.Expr) -> set[str]:
    return {x.id for x in walk(e) if isinstance(x, ir.Name) and x.id.startswith("%")}


def rename(e: ir.Expr, fn) -> ir.Expr:
    """``e`` with every symbol name ``n`` replaced by the tree ``fn(n)`` (or kept if ``None``)."""
    import dataclasses

    if isinstance(e, ir.Name):
        if e.id.startswith("%"):
            new = fn(e.id)
            return e if new is None else new
        return e
    if isinstance(e, ir.BinOp):
        return dataclasses.replace(e, lhs=rename(e.lhs, fn), rhs=rename(e.rhs, fn))
    if isinstance(e, ir.UnaryOp):
        return dataclasses.replace(e, operand=rename(e.operand, fn))
    if isinstance(e, ir.Call):
        return dataclasses.replace(e, args=tuple(rename(a, fn) for a in e.args))
    if isinstance(e, ir.Cast):
        return dataclasses.replace(e, value=rename(e.value, fn))
    return e


# --------------------------------------------------------------------------------------------------
# Grouped program-id swizzle


@dataclass(frozen=True)
class Swizzle:
    """``pid_m``/``pid_n`` from the grouped ordering of Triton's matmul tutorial.

    ``M``/``N`` are the extents and ``BM``/``BN``/``G`` the block and group sizes (trees over
    parameter symbols); ``pid`` the program-id symbol it permutes.
    """

    pid: str
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


def _swizzle_templates() -> tuple[tuple[ir.Expr, ...], ir.Expr]:
    """The ``pid_m`` forms and the ``pid_n`` form of the ``GROUP_SIZE_M`` swizzle.

    Triton's matmul tutorial writes ``pid_m = first + (pid % in_group) % size_m``; its
    persistent-matmul tutorial ``first + pid % size_m``. Within a group the program ids are
    ``base + j`` for ``j < size_m * num_pid_n`` and ``pid_n = j // size_m``; for each ``pid_n`` the
    ``size_m`` consecutive ids cover every residue mod ``size_m`` either way, so both forms visit
    every tile of the group once, only in another order, and the IR (which keeps the swizzle as a
    rasterization hint, not an order) reads them alike."""
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


def match(pattern: ir.Expr, e: ir.Expr, env: dict[str, ir.Expr]) -> bool:
    """Unify ``pattern`` (with ``?x`` variables) against ``e``, commutative ops in either order."""
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
        if match(pattern.lhs, e.lhs, env) and match(pattern.rhs, e.rhs, env):
            return True
        env.clear()
        env.update(saved)
        if pattern.op in _COMMUTATIVE:
            if match(pattern.lhs, e.rhs, env) and match(pattern.rhs, e.lhs, env):
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
            if all(match(p, a, env) for p, a in zip(pattern.args, args)):
                return True
            env.clear()
            env.update(saved)
        return False
    return pattern == e


def match_swizzle(e: ir.Expr, which: str) -> Swizzle | None:
    """The swizzle whose ``pid_m`` (``which="m"``) or ``pid_n`` tree is ``e``, if it is one."""
    pid_ms, pid_n = _swizzle_templates()
    env: dict[str, ir.Expr] = {}
    if not any(match(p, e, env) for p in (pid_ms if which == "m" else (pid_n,))):
        return None
    pid = env["?pid"]
    if not is_sym(pid, "pid"):
        return None
    assert isinstance(pid, ir.Name)
    return Swizzle(pid.id, env["?M"], env["?BM"], env["?N"], env["?BN"], env["?G"])


# --------------------------------------------------------------------------------------------------
# Flat (mixed-radix) program-id decomposition


@dataclass(frozen=True)
class FlatDigit:
    """One digit of a program id split in mixed radix: ``(pid // div) % mod``.

    ``pid % n`` has ``div = 1``; the most significant digit, ``pid // d``, has no ``mod``. Launching
    one program per combination of the digits is how a 2-D or 3-D grid is flattened onto one axis.
    """

    pid: str
    div: ir.Expr
    mod: ir.Expr | None


def match_flat_digit(e: ir.Expr) -> FlatDigit | None:
    """The digit ``e`` computes, if it is ``pid % n``, ``(pid // d) % n`` or ``pid // d``."""
    e = strip_casts(e)
    mod: ir.Expr | None = None
    if isinstance(e, ir.BinOp) and e.op == "%":
        e, mod = strip_casts(e.lhs), e.rhs
    if isinstance(e, ir.BinOp) and e.op == "//":
        pid, div = strip_casts(e.lhs), e.rhs
    else:
        pid, div = e, ir.Const(1)
    if mod is None and div == ir.Const(1):
        return None  # the program id itself
    if not is_sym(pid, "pid"):
        return None
    assert isinstance(pid, ir.Name)
    return FlatDigit(pid.id, div, mod)
