"""Interpreter-capable stand-ins for ``triton.language.extra.libdevice``.

Why this exists
---------------
Helion's Triton backend emits ``from torch._inductor.runtime.triton_compat
import libdevice`` and calls ``libdevice.exp(x)``, ``libdevice.rsqrt(x)``,
``libdevice.erf(x)`` ... for many torch pointwise ops.  With Triton 3.x that
name is the module ``triton.language.extra.libdevice``, whose functions are
*stubs* (``def exp(arg0): ...``): the real bodies are bound per backend (CUDA,
HIP) only when a kernel is compiled.  Under ``TRITON_INTERPRET=1`` nothing is
compiled, so each stub simply returns ``None`` and the kernel fails later with
``AttributeError: 'NoneType' object has no attribute 'type'``.

:func:`install` replaces the stubs (in place, on the module object, so every
``libdevice`` alias sees the change) with small Python functions written in
terms of ``triton.language`` ops.  Those ops are looked up on ``tl`` at *call*
time, because the interpreter patches ``tl.exp``, ``tl.math.*`` etc. with its
numpy-backed versions only while a kernel is running.  The interpreter
implements: exp exp2 log log2 sqrt sqrt_rn rsqrt erf abs floor ceil fma sin
cos fdiv div_rn maximum minimum where (plus ``sigmoid`` via ``tl.exp``);
everything else below is composed from those.

Nothing happens unless ``TRITON_INTERPRET=1``: on a GPU the stubs must stay
untouched so Triton's compiler can bind the real libdevice.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np

_LN2 = 0.6931471805599453
_LOG10_2 = 0.30102999566398120
_LOG2_10 = 3.3219280948873623


def _tl() -> Any:
    import triton.language as tl

    return tl


def _in_float64(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn`` of interpreter tensors (and Python numbers), evaluated by numpy in float64 and
    rounded once to the tensors' dtype: a correctly rounded result for float32 and float16
    wherever ``fn`` is (up to a rare double rounding)."""
    tl = _tl()
    from triton.runtime.interpreter import TensorHandle

    tensors = [a for a in args if isinstance(a, tl.tensor)]
    widest = max(tensors, key=lambda t: t.handle.data.size)
    data = fn(
        *(
            a.handle.data.astype(np.float64) if isinstance(a, tl.tensor) else np.float64(a)
            for a in args
        )
    )
    out = np.asarray(data).astype(widest.handle.data.dtype)
    return tl.tensor(TensorHandle(out, widest.handle.dtype.scalar), widest.type)


def _fused_fma(self: Any, x: Any, y: Any, z: Any) -> Any:
    """``InterpreterBuilder.create_fma`` rounding once, as the GPU's fma does: a float32 (or
    float16) product is exact in float64, so only the sum rounds there, then once more to the
    result dtype (the interpreter's own is numpy ``x * y + z``, two roundings)."""
    from triton.runtime.interpreter import TensorHandle

    wide = x.data.astype(np.float64) * y.data.astype(np.float64) + z.data.astype(np.float64)
    return TensorHandle(wide.astype(z.data.dtype), z.dtype.scalar)


# --- exponentials / logarithms ------------------------------------------------
def exp(x: Any) -> Any:
    return _tl().exp(x)


def exp2(x: Any) -> Any:
    return _tl().exp2(x)


def exp10(x: Any) -> Any:
    return _tl().exp2(x * _LOG2_10)


def expm1(x: Any) -> Any:
    tl = _tl()
    # Kahan's trick: expm1(x) = (u - 1) * x / log(u) with u = exp(x), which
    # stays accurate near 0 where the naive exp(x) - 1 cancels.
    u = tl.exp(x)
    um1 = u - 1.0
    r = tl.where(um1 == 0.0, x, um1 * x / tl.log(u))
    r = tl.where(u == 0.0, -1.0, r)
    return tl.where(u == float("inf"), u, r)


def log(x: Any) -> Any:
    return _tl().log(x)


def log2(x: Any) -> Any:
    return _tl().log2(x)


def log10(x: Any) -> Any:
    return _tl().log2(x) * _LOG10_2


def log1p(x: Any) -> Any:
    tl = _tl()
    # Goldberg's trick: log1p(x) = log(u) * x / (u - 1) with u = 1 + x; the ratio first, so
    # that a huge x does not overflow the product (log1p(3e38) is 88.6, not inf).
    u = x + 1.0
    d = u - 1.0
    r = tl.where(d == 0.0, x, tl.log(u) * (x / d))
    return tl.where(u == float("inf"), u, r)


# --- roots / powers -------------------------------------------------------------
def sqrt(x: Any) -> Any:
    return _tl().sqrt(x)


def sqrt_rn(x: Any) -> Any:
    return _tl().sqrt_rn(x)


def rsqrt(x: Any) -> Any:
    return _tl().rsqrt(x)


def rsqrt_rn(x: Any) -> Any:
    return _tl().rsqrt(x)


def cbrt(x: Any) -> Any:
    tl = _tl()
    r = tl.exp2(tl.log2(tl.abs(x)) * (1.0 / 3.0))
    return tl.where(x < 0, -r, r)


def pow(x: Any, y: Any) -> Any:
    # C pow() has too many special cases (signed zeros, negative bases with integer exponents,
    # inf/NaN rules) to compose from exp2/log2 exactly: evaluate it in float64 and round once.
    return _in_float64(np.power, x, y)


# --- hyperbolic / error functions -----------------------------------------------
def tanh(x: Any) -> Any:
    tl = _tl()
    # tanh(x) = 2 * sigmoid(2x) - 1, which saturates correctly at +-1; use
    # an odd Taylor polynomial near 0 where that form cancels.
    big = 2.0 * tl.sigmoid(2.0 * x) - 1.0
    x2 = x * x
    small = x * (1.0 + x2 * (-1.0 / 3.0 + x2 * (2.0 / 15.0 + x2 * (-17.0 / 315.0))))
    return tl.where(tl.abs(x) < 0.1, small, big)


def sinh(x: Any) -> Any:
    # Via expm1 so small |x| does not cancel: sinh(x) = (expm1(x) - expm1(-x)) / 2.
    return 0.5 * (expm1(x) - expm1(-x))


def cosh(x: Any) -> Any:
    tl = _tl()
    return 0.5 * (tl.exp(x) + tl.exp(-x))


def erf(x: Any) -> Any:
    return _tl().erf(x)


def erfc(x: Any) -> Any:
    return 1.0 - _tl().erf(x)


# --- trigonometry ---------------------------------------------------------------
def sin(x: Any) -> Any:
    return _tl().sin(x)


def cos(x: Any) -> Any:
    return _tl().cos(x)


def tan(x: Any) -> Any:
    tl = _tl()
    return tl.sin(x) / tl.cos(x)


# --- rounding / misc ------------------------------------------------------------
def abs(x: Any) -> Any:
    return _tl().abs(x)


def floor(x: Any) -> Any:
    return _tl().floor(x)


def ceil(x: Any) -> Any:
    return _tl().ceil(x)


def trunc(x: Any) -> Any:
    tl = _tl()
    return tl.where(x < 0, tl.ceil(x), tl.floor(x))


def nearbyint(x: Any) -> Any:
    tl = _tl()
    # Round half to even (torch.round semantics).
    f = tl.floor(x)
    diff = x - f
    f_is_even = tl.floor(f * 0.5) * 2.0 == f
    up = (diff > 0.5) | ((diff == 0.5) & (f_is_even == 0))
    return tl.where(up, f + 1.0, f)


def rint(x: Any) -> Any:
    return nearbyint(x)


def round(x: Any) -> Any:
    tl = _tl()
    # Round half away from zero (C round()), exactly: `floor(|x| + 0.5)` rounds 0.49999997 up
    # in float32 (the sum rounds to 1.0); `x - trunc(x)` is exact, so compare it with 0.5.
    t = tl.where(x >= 0, tl.floor(x), tl.ceil(x))
    return tl.where(tl.abs(x - t) >= 0.5, t + tl.where(x >= 0, 1.0, -1.0), t)


def fma(x: Any, y: Any, z: Any) -> Any:
    return _tl().fma(x, y, z)


def div_rn(x: Any, y: Any) -> Any:
    return _tl().div_rn(x, y)


def fast_dividef(x: Any, y: Any) -> Any:
    return x / y


def fast_expf(x: Any) -> Any:
    return _tl().exp(x)


def fast_logf(x: Any) -> Any:
    return _tl().log(x)


def fast_tanhf(x: Any) -> Any:
    return tanh(x)


def fmod(x: Any, y: Any) -> Any:
    # C fmod: remainder with the sign of x, i.e. x - trunc(x / y) * y.
    return x - trunc(x / y) * y


def copysign(x: Any, y: Any) -> Any:
    tl = _tl()
    return tl.where(y < 0, -tl.abs(x), tl.abs(x))


def signbit(x: Any) -> Any:
    return x < 0


def isnan(x: Any) -> Any:
    return x != x


def isinf(x: Any) -> Any:
    return _tl().abs(x) == float("inf")


def isfinited(x: Any) -> Any:
    return (x == x) & (_tl().abs(x) != float("inf"))


def finitef(x: Any) -> Any:
    return isfinited(x)


_SHIMS: dict[str, Callable[..., Any]] = {
    name: fn
    for name, fn in dict(globals()).items()
    if callable(fn)
    and not name.startswith("_")
    and name not in {"install", "Callable", "Any"}
    and getattr(fn, "__module__", None) == __name__
}

_installed = False


def install() -> None:
    """Patch ``triton.language.extra.libdevice`` in place when ``TRITON_INTERPRET=1``.

    Idempotent; a no-op when the interpreter is not enabled.
    """
    global _installed
    interpret = os.environ.get("TRITON_INTERPRET", "0").strip().lower()
    if _installed or interpret not in {"1", "true", "on", "yes"}:
        return
    import triton.language as tl
    from triton.language.extra import libdevice

    # torch's compat alias is what Helion-generated code imports; make sure it
    # is the same module object we patch.
    targets = [libdevice]
    try:  # kernels written against the CUDA backend's module (`tl.extra.cuda.libdevice`)
        from triton.language.extra.cuda import libdevice as cuda_libdevice

        if cuda_libdevice is not libdevice:
            targets.append(cuda_libdevice)
    except ImportError:
        pass
    try:
        from torch._inductor.runtime.triton_compat import libdevice as torch_libdevice

        if torch_libdevice is not libdevice and torch_libdevice is not tl.math:
            targets.append(torch_libdevice)
    except ImportError:
        pass
    for mod in targets:
        for name, fn in _SHIMS.items():
            if hasattr(mod, name):
                setattr(mod, name, fn)
    from triton.runtime.interpreter import InterpreterBuilder

    InterpreterBuilder.create_fma = _fused_fma
    _installed = True
