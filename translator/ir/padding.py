"""What an op computes on padded lanes: one folding rule for every frontend and backend.

Loads record what out-of-bounds lanes read (their *pad*); an analysis that follows pads through
pointwise ops (does this reduction see only its identity on the padding? may this mask be
dropped?) needs the value each op gives on such lanes. :func:`fold_pad` is that rule, with the
IR's semantics, which are torch's: IEEE arithmetic (``x / 0`` is ``±inf`` or NaN, ``0 * inf`` is
NaN), ``maximum``/``minimum`` propagate NaN, comparisons give ``1.0``/``0.0``.

An operand whose pad is ``None`` is not one known number. What that allows depends on what the
caller knows of it: ``unknown="finite"`` where it is valid data, finite by assumption (a Triton
operand that is not padded along this dim), so ``0 * x`` is ``0`` and ``maximum(inf, x)`` is
``inf``; ``unknown="any"`` where it may hold anything (NaN, inf), so only rules that hold for every
value apply (``where`` on a known condition, equal branches).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Literal

Unknown = Literal["finite", "any"]


def _exp(x: float) -> float:
    if math.isnan(x):
        return x
    return math.exp(x) if x < 709 else math.inf


def _exp2(x: float) -> float:
    if math.isnan(x):
        return x
    return 2.0**x if x < 1024 else math.inf


def _log(x: float, log: Callable[[float], float]) -> float:
    if x == 0:
        return -math.inf
    if x < 0 or math.isnan(x):
        return math.nan
    return log(x) if math.isfinite(x) else math.inf


def _sqrt(x: float) -> float:
    if x < 0 or math.isnan(x):
        return math.nan
    return math.sqrt(x)


def _rsqrt(x: float) -> float:
    if x == 0:
        return math.copysign(math.inf, x)
    root = _sqrt(x)
    return 1 / root if root else math.inf


def _sigmoid(x: float) -> float:
    if math.isnan(x):
        return x
    return 1 / (1 + _exp(-x))


def _relu(x: float) -> float:
    return x if math.isnan(x) else max(x, 0.0)


def _rounded(fn: Callable[[float], int]) -> Callable[[float], float]:
    return lambda x: float(fn(x)) if math.isfinite(x) else x


def _zero_at_zero(x: float) -> float:
    """An op folded only where it is exactly known without computing it: ``f(0) == 0`` (sin,
    tanh, erf, gelu, silu)."""
    if x == 0:
        return 0.0
    raise ValueError("folded at 0 only")


def _cos(x: float) -> float:
    if x == 0:
        return 1.0
    raise ValueError("folded at 0 only")


UNARY: dict[str, Callable[[float], float]] = {
    "neg": lambda x: -x,
    "not": lambda x: float(not x),
    "abs": abs,
    "exp": _exp,
    "exp2": _exp2,
    "log": lambda x: _log(x, math.log),
    "log2": lambda x: _log(x, math.log2),
    "log1p": lambda x: _log(1 + x, math.log),
    "sqrt": _sqrt,
    "rsqrt": _rsqrt,
    "sigmoid": _sigmoid,
    "relu": _relu,
    "floor": _rounded(math.floor),
    "ceil": _rounded(math.ceil),
    "cos": _cos,
    **{op: _zero_at_zero for op in ("sin", "tanh", "erf", "gelu", "gelu_tanh", "silu")},
}


def _divide(x: float, y: float) -> float:
    if y:
        return x / y
    if x == 0 or math.isnan(x):
        return math.nan
    return math.copysign(math.inf, x) * math.copysign(1.0, y)


def _extreme(pick: Callable[[float, float], float]) -> Callable[[float, float], float]:
    """``maximum``/``minimum`` as torch computes them: NaN wins."""
    return lambda x, y: math.nan if math.isnan(x) or math.isnan(y) else pick(x, y)


BINARY: dict[str, Callable[[float, float], float]] = {
    "+": lambda x, y: x + y,
    "-": lambda x, y: x - y,
    "*": lambda x, y: x * y,
    "/": _divide,
    "maximum": _extreme(max),
    "minimum": _extreme(min),
    "<": lambda x, y: float(x < y),
    "<=": lambda x, y: float(x <= y),
    ">": lambda x, y: float(x > y),
    ">=": lambda x, y: float(x >= y),
    "==": lambda x, y: float(x == y),
    "!=": lambda x, y: float(x != y),
}


def fold_pad(op: str, pads: Sequence[float | None], unknown: Unknown = "any") -> float | None:
    """The value of ``op`` on lanes where its operands hold ``pads`` (``None``: not one known
    number, see the module docstring), or ``None`` where that is not one known number."""
    try:
        if op == "where" and len(pads) == 3:
            cond, a, b = pads
            if cond is not None and not math.isnan(cond):
                return a if cond else b
            return a if a is not None and a == b else None
        if op == "&" and len(pads) == 2 and 0.0 in pads:
            # A conjunction with a false lane mask is false whatever the other side holds
            # (`(rows < n) & (cols < n)` along the rows' invalid lanes).
            return 0.0
        if all(p is not None for p in pads):
            values = [float(p) for p in pads]  # type: ignore[arg-type]
            if len(values) == 1 and op in UNARY:
                return float(UNARY[op](values[0]))
            if len(values) == 2 and op in BINARY:
                return float(BINARY[op](values[0], values[1]))
            return None
        if unknown == "finite" and len(pads) == 2:
            return _absorbed(op, pads[0], pads[1])
    except (ArithmeticError, ValueError):
        return None
    return None


def _absorbed(op: str, x: float | None, y: float | None) -> float | None:
    """``x op y`` where one side is a known number and the other finite but unknown."""
    known = x if x is not None else y
    assert known is not None
    if math.isnan(known):
        return math.nan if op in ("+", "-", "*", "/", "maximum", "minimum") else None
    if op == "*" and known == 0.0:
        return 0.0
    if op == "+" and math.isinf(known):
        return known
    if op == "-" and math.isinf(known):
        return known if x is not None else -known
    if op == "maximum" and known == math.inf:
        return math.inf
    if op == "minimum" and known == -math.inf:
        return -math.inf
    return None


__all__ = ["fold_pad", "UNARY", "BINARY"]
