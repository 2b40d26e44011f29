"""Comparing a translation's outputs with the source's.

The error of one tensor is ``‖out − ref‖ / ‖ref‖`` in float64 (the absolute norm where ``ref`` is
all zeros). By default NaN or inf on either side never passes: poisoned, unwritten outputs are NaN,
and a result that overflows says nothing about equivalence. With ``nonfinite=True`` (for a source
that computes NaN or inf itself, see :mod:`validation.equivalence`) the two must have NaN and each
infinity at the same places, and the error is that of the elements finite on both. Shapes and
dtypes must match exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

# Relative tolerances by dtype. fp32 dots run in tf32 on the GPU, whose 10-bit mantissa gives
# errors around 1e-4 for the sizes validation uses.
TOLERANCES = {"float64": 1e-10, "float32": 1e-5, "float16": 1e-2, "bfloat16": 1e-2}
FP32_DOT_TOLERANCE = 3e-4


def _name(dtype: Any) -> str:
    return str(dtype).removeprefix("torch.")


def tolerance(dtype: Any, has_dot: bool = False) -> float:
    """The relative tolerance for values of ``dtype`` (a torch dtype or its name).

    Integer and bool values must match exactly (tolerance 0).
    """
    name = _name(dtype)
    if name == "float32" and has_dot:
        return FP32_DOT_TOLERANCE
    return TOLERANCES.get(name, 0.0)


def rel_error(out: Any, ref: Any, nonfinite: bool = False) -> float:
    """``‖out − ref‖ / ‖ref‖`` of two same-shaped tensors in float64; NaN if either has a NaN or
    an infinity, unless ``nonfinite``: then NaN only if they differ in where they hold NaN or an
    infinity (of which sign), and the error of the elements finite on both."""
    import torch

    o = out.detach().to("cpu", torch.float64)
    r = ref.detach().to("cpu", torch.float64)
    if nonfinite:
        same = torch.equal(torch.isnan(o), torch.isnan(r)) and torch.equal(
            torch.where(torch.isinf(o), o, 0.0), torch.where(torch.isinf(r), r, 0.0)
        )
        if not same:
            return math.nan
        finite = torch.isfinite(r)
        o, r = o[finite], r[finite]
    if not (bool(torch.isfinite(o).all()) and bool(torch.isfinite(r).all())):
        return math.nan
    diff = float(torch.linalg.vector_norm(o - r))
    norm = float(torch.linalg.vector_norm(r))
    return diff / norm if norm > 0 else diff


@dataclass(frozen=True)
class Comparison:
    """The outcome of comparing one output (or a tuple of them)."""

    error: float
    tolerance: float
    passed: bool
    detail: str = ""


def compare(
    out: Any, ref: Any, run_dtype: Any = "float32", has_dot: bool = False, nonfinite: bool = False
) -> Comparison:
    """Compare ``out`` with ``ref``: tensors, tuples/lists or dicts of them (element-wise),
    scalars or None.

    The tolerance of a tensor is the looser of its own dtype's and ``run_dtype``'s: an fp32 output
    computed from fp16 inputs carries fp16 rounding. ``nonfinite``: NaN and infinities must sit
    at the same places on both sides (see the module doc).
    """
    import torch

    if isinstance(ref, (tuple, list)):
        if not isinstance(out, (tuple, list)) or len(out) != len(ref):
            return Comparison(
                math.inf, 0.0, False, f"expected {len(ref)} outputs, got {_describe(out)}"
            )
        parts = [compare(o, r, run_dtype, has_dot, nonfinite) for o, r in zip(out, ref)]
        worst = max(parts, key=lambda c: (not c.passed, _key(c.error)))
        i = parts.index(worst)
        detail = f"output {i}: {worst.detail}" if not worst.passed else ""
        return Comparison(worst.error, worst.tolerance, all(c.passed for c in parts), detail)
    if isinstance(ref, dict):
        # A benchmark wrapper's `{"output": y}`: the values key by key.
        if not isinstance(out, dict) or set(out) != set(ref):
            return Comparison(
                math.inf, 0.0, False, f"expected a dict of {sorted(ref)}, got {_describe(out)}"
            )
        keys = list(ref)
        found = compare(
            [out[k] for k in keys], [ref[k] for k in keys], run_dtype, has_dot, nonfinite
        )
        detail = found.detail
        if detail.startswith("output "):
            index, _, rest = detail.removeprefix("output ").partition(":")
            detail = f"output {keys[int(index)]!r}:{rest}"
        return Comparison(found.error, found.tolerance, found.passed, detail)
    if ref is None or out is None:
        ok = ref is None and out is None
        return Comparison(
            0.0 if ok else math.inf,
            0.0,
            ok,
            "" if ok else f"got {_describe(out)}, expected {_describe(ref)}",
        )
    if isinstance(ref, torch.Tensor):
        if not isinstance(out, torch.Tensor):
            return Comparison(math.inf, 0.0, False, f"got {_describe(out)}, expected a tensor")
        tol = max(tolerance(ref.dtype, has_dot), tolerance(run_dtype, has_dot))
        if not ref.dtype.is_floating_point:
            tol = 0.0
        if out.shape != ref.shape:
            return Comparison(math.inf, tol, False, f"shape {list(out.shape)} != {list(ref.shape)}")
        if out.dtype != ref.dtype:
            return Comparison(
                math.inf, tol, False, f"dtype {_name(out.dtype)} != {_name(ref.dtype)}"
            )
        err = rel_error(out, ref, nonfinite)
        if math.isnan(err):
            return Comparison(err, tol, False, _nonfinite(out, ref))
        ok = err <= tol
        return Comparison(err, tol, ok, "" if ok else f"error {err:.3g} > tolerance {tol:.0e}")
    # Python scalars.
    try:
        o, r = float(out), float(ref)
    except (TypeError, ValueError, RuntimeError):
        if isinstance(out, torch.Tensor) or isinstance(ref, torch.Tensor):
            return Comparison(
                math.inf, 0.0, False, f"got {_describe(out)}, expected {_describe(ref)}"
            )
        ok = out == ref
        return Comparison(
            0.0 if ok else math.inf, 0.0, bool(ok), "" if ok else f"{out!r} != {ref!r}"
        )
    if nonfinite and not (math.isfinite(o) or math.isfinite(r)):
        same = (math.isnan(o) and math.isnan(r)) or o == r
        return Comparison(0.0 if same else math.nan, 0.0, same, "" if same else f"{o} vs {r}")
    if not (math.isfinite(o) and math.isfinite(r)):
        return Comparison(math.nan, 0.0, False, f"non-finite scalar {o} vs {r}")
    err = abs(o - r) / abs(r) if r else abs(o - r)
    tol = tolerance(run_dtype, has_dot) if isinstance(ref, float) else 0.0
    return Comparison(err, tol, err <= tol, "")


def _key(e: float) -> float:
    return math.inf if math.isnan(e) else e


def _describe(x: Any) -> str:
    if isinstance(x, (tuple, list)):
        return f"{len(x)} values"
    return type(x).__name__


def _nonfinite(out: Any, ref: Any) -> str:
    import torch

    parts = []
    for label, t in (("output", out), ("reference", ref)):
        t = t.detach().float()
        nan, inf = int(torch.isnan(t).sum()), int(torch.isinf(t).sum())
        if nan or inf:
            parts.append(f"{label} has {nan} NaN and {inf} inf of {t.numel()}")
    return "; ".join(parts)
