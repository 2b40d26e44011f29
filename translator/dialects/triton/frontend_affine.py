"""The index domain of the Triton frontend: symbolic integer trees and their affine normal form.

Triton addresses memory with integer arithmetic on program ids, ``tl.arange`` lanes, loop counters,
kernel parameters (sizes, strides, block sizes) and loaded values. The frontend evaluates that
arithmetic *symbolically*: every integer value of a kernel is an IR expression tree whose leaves are
integer constants and the **symbols** of :mod:`translator.dialects.triton.symbols` (program ids,
lanes, loop counters, parameters, data values, swizzled ids), carried as ``ir.Name`` leaves.

:func:`poly` brings a tree to an affine (polynomial) normal form over these symbols; sub-trees that
are not polynomial (``//``, ``%``, ``min``, calls) become opaque atoms that keep their tree.
The device lifter (:mod:`translator.dialects.triton.frontend_device`) classifies the normal form of
each tensor dim's index: a tile (``start + lane``), a whole dim, a scalar, or a gather.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from translator.dialects.triton.symbols import Key as Key  # block sizes, re-exported as af.Key
from translator.dialects.triton.symbols import Sym, SymKind, is_symbol, parse_sym, sym_of
from translator.ir import nodes as ir
from translator.ir.printer import format_expr
from translator.ir.program_order import match_grouped
from translator.ir.program_order import strip_casts as strip_casts

Mono = tuple[str, ...]  # the texts of a monomial's symbols, sorted
Poly = dict[Mono, int]


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
        key = Sym.atom(format_expr(e)).text
        self.trees.setdefault(key, e)
        return key


def poly(e: ir.Expr, atoms: Atoms) -> Poly:
    """The polynomial normal form of integer tree ``e``."""
    e = strip_casts(e)
    if isinstance(e, ir.Const):
        if isinstance(e.value, bool) or not isinstance(e.value, int):
            return {(atoms.atom(e),): 1}
        return const_poly(e.value)
    if isinstance(e, ir.Name) and is_symbol(e.id):
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
    return {x.id for x in walk(e) if isinstance(x, ir.Name) and is_symbol(x.id)}


def rename(e: ir.Expr, fn) -> ir.Expr:
    """``e`` with every symbol name ``n`` replaced by the tree ``fn(n)`` (or kept if ``None``)."""
    import dataclasses

    if isinstance(e, ir.Name):
        if is_symbol(e.id):
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
    parameter symbols); ``axis`` the program axis whose id it permutes.
    """

    axis: int
    M: ir.Expr
    BM: ir.Expr
    N: ir.Expr
    BN: ir.Expr
    G: ir.Expr


def match_swizzle(e: ir.Expr, which: str) -> Swizzle | None:
    """The swizzle whose ``pid_m`` (``which="m"``) or ``pid_n`` tree is ``e``, if it is one."""
    order = match_grouped(e, which)
    if order is None:
        return None
    pid = sym_of(order.pid)
    if pid is None or pid.kind is not SymKind.PID:
        return None
    assert pid.index is not None
    return Swizzle(pid.index, order.M, order.BM, order.N, order.BN, order.G)


# --------------------------------------------------------------------------------------------------
# Flat (mixed-radix) program-id decomposition


@dataclass(frozen=True)
class FlatDigit:
    """One digit of a program id split in mixed radix: ``(pid // div) % mod``.

    ``pid % n`` has ``div = 1``; the most significant digit, ``pid // d``, has no ``mod``. Launching
    one program per combination of the digits is how a 2-D or 3-D grid is flattened onto one axis.
    ``axis``: the program axis of ``pid``.
    """

    axis: int
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
    pid_sym = sym_of(pid)
    if pid_sym is None or pid_sym.kind is not SymKind.PID:
        return None
    assert pid_sym.index is not None
    return FlatDigit(pid_sym.index, div, mod)


# --------------------------------------------------------------------------------------------------
# Diagnostics


def ir_text(e: ir.Expr | None) -> str:
    """An expression for a diagnostic, index symbols spelt as the source spells them."""
    if e is None:
        return "?"

    def fn(name: str) -> ir.Expr | None:
        s = parse_sym(name)
        if s is None:
            return ir.Name("<value>") if is_symbol(name) else None
        if s.kind is SymKind.LANE:
            axis = s.index
            assert axis is not None
            suffix = "" if axis == -1 else "[" + ", ".join([":"] + ["None"] * (-axis - 1)) + "]"
            return ir.Name(f"tl.arange(0, {s.key}){suffix}")
        if s.kind is SymKind.PID:
            return ir.Name(f"tl.program_id({s.index})")
        if s.kind is SymKind.NUM_PROGRAMS:
            return ir.Name(f"tl.num_programs({s.index})")
        if s.kind is SymKind.ITER:
            return ir.Name(f"<iteration of loop {s.index}>")
        if s.kind is SymKind.PARAM:
            return ir.Name(s.name)  # type: ignore[arg-type]
        if s.kind is SymKind.SWIZZLE:
            return ir.Name("pid_" + s.name)  # type: ignore[operator]
        return ir.Name("<value>")

    if isinstance(e, ir.Name) and e.id.startswith("?"):
        return "<" + e.id[1:].rsplit("#", 1)[0] + ">"
    return format_expr(rename(e, fn))
