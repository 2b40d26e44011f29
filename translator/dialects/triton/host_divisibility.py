"""Divisibility the host guarantees before a launch.

A wrapper that refuses sizes that are not a multiple of a block (``assert n % BLOCK == 0``,
``if x.size(-1) % block_size != 0: raise ValueError(...)``) and launches ``n // BLOCK``
programs lets its kernel read ``pid * BLOCK + tl.arange(0, BLOCK)`` without a mask: every
block lies wholly inside the tensor. The host records each asserted ``a % b == 0`` (as
canonical host expressions); the lifter asks :func:`divides` whether a tensor dim's size is a
multiple of a block, and :func:`same_with_divisibility` reads ``n // B`` programs as the
``cdiv(n, B)`` the tiles need where ``B`` divides ``n``.

The IR keeps its tiles masked (loads pad, stores drop lanes past the extent), so a translation
computes the same as the source on every size the host accepts, and stays in bounds on the
others the translated host check still refuses.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TYPE_CHECKING

from translator.ir import nodes as ir

if TYPE_CHECKING:
    from translator.dialects.triton.host_values import HTensor

#: One asserted fact ``dividend % divisor == 0`` (canonical host expressions).
Divisibility = tuple[ir.Expr, ir.Expr]


def divisibility_of(test: ir.Expr) -> Divisibility | None:
    """``(a, b)`` where the asserted condition ``test`` says ``a % b == 0``: ``a % b == 0``,
    ``0 == a % b``, ``not (a % b != 0)`` (``if a % b != 0: raise``) or ``not (a % b)``
    (``if a % b: raise``)."""
    if isinstance(test, ir.UnaryOp) and test.op == "not":
        inner = test.operand
        if isinstance(inner, ir.BinOp) and inner.op == "%":
            return inner.lhs, inner.rhs
        if isinstance(inner, ir.BinOp) and inner.op == "!=":
            return _mod_zero(inner.lhs, inner.rhs)
        return None
    if isinstance(test, ir.BinOp) and test.op == "==":
        return _mod_zero(test.lhs, test.rhs)
    return None


def _mod_zero(lhs: ir.Expr, rhs: ir.Expr) -> Divisibility | None:
    for mod, zero in ((lhs, rhs), (rhs, lhs)):
        if isinstance(mod, ir.BinOp) and mod.op == "%" and zero == ir.Const(0):
            return mod.lhs, mod.rhs
    return None


def divides(
    facts: list[Divisibility],
    tensors: dict[str, HTensor],
    same: Callable[[ir.Expr, ir.Expr], bool],
    n: ir.Expr,
    b: ir.Expr,
) -> bool:
    """Whether the host guarantees ``b`` divides ``n`` (both canonical): constants that do, or
    ``n`` a multiple of the dividend of an asserted fact whose divisor is a multiple of ``b``."""
    if _int(b) == 1:
        return True
    nb, bb = _int(n), _int(b)
    if nb is not None and bb is not None and bb > 0:
        return nb % bb == 0
    for dividend, divisor in facts:
        if not _multiple_of_block(divisor, b, same):
            continue
        if _multiple_of(n, dividend, tensors, same):
            return True
    return False


def _multiple_of_block(divisor: ir.Expr, b: ir.Expr, same: Callable) -> bool:
    """A multiple of ``divisor`` is a multiple of ``b``: the same value, or constants ``b``
    divides (a size asserted a multiple of 128 is one of 64)."""
    if same(divisor, b):
        return True
    d, bb = _int(divisor), _int(b)
    return d is not None and bb is not None and bb > 0 and d % bb == 0


def _multiple_of(n: ir.Expr, a: ir.Expr, tensors: dict[str, HTensor], same: Callable) -> bool:
    """Whether ``n`` is a multiple of ``a``: equal to it, a product with a factor that is, or
    the element count of a tensor (its flat view's size) of which ``a`` is a dim's size."""
    n, a = like_counts(n, tensors), like_counts(a, tensors)
    if same(n, a):
        return True
    if isinstance(n, ir.BinOp) and n.op == "*":
        return _multiple_of(n.lhs, a, tensors, same) or _multiple_of(n.rhs, a, tensors, same)
    if isinstance(n, ir.SizeOf) and n.dim == 0 and isinstance(a, ir.SizeOf):
        # `x.numel()` is the product of every dim of `x`, so a multiple of each of them.
        return any(t.flat == n.tensor and t.name == a.tensor for t in tensors.values())
    return False


def like_counts(e: ir.Expr, tensors: dict[str, HTensor]) -> ir.Expr:
    """``e`` with the element count of each tensor allocated ``*_like`` another (its flat
    view's size) replaced by that other's, which is the same number."""
    if isinstance(e, ir.SizeOf) and e.dim == 0:
        seen: set[str] = set()
        name = e.tensor
        while name not in seen:
            seen.add(name)
            owner = next((t for t in tensors.values() if t.flat == name), None)
            if owner is None or owner.like is None or owner.like.flat is None:
                break
            name = owner.like.flat
        return ir.SizeOf(name, 0)
    if isinstance(e, ir.BinOp):
        return dataclasses.replace(
            e, lhs=like_counts(e.lhs, tensors), rhs=like_counts(e.rhs, tensors)
        )
    return e


def with_exact_quotients(e: ir.Expr, exact: Callable[[ir.Expr, ir.Expr], bool]) -> ir.Expr:
    """``e`` with each ``cdiv(a, b)`` whose ``b`` divides ``a`` spelt ``a // b`` (the same
    number), so ``n // BLOCK`` programs compare equal to the ``cdiv(n, BLOCK)`` tiles need."""
    if isinstance(e, ir.Call):
        args = tuple(with_exact_quotients(x, exact) for x in e.args)
        if e.op == "cdiv" and len(args) == 2 and exact(args[0], args[1]):
            return ir.BinOp("//", args[0], args[1])
        return dataclasses.replace(e, args=args)
    if isinstance(e, ir.BinOp):
        return dataclasses.replace(
            e, lhs=with_exact_quotients(e.lhs, exact), rhs=with_exact_quotients(e.rhs, exact)
        )
    return e


def _int(e: ir.Expr) -> int | None:
    if isinstance(e, ir.Const) and isinstance(e.value, int) and not isinstance(e.value, bool):
        return e.value
    return None
