"""Every pointwise op of the IR, in every backend, against torch over adversarial ranges.

For each float pointwise op of :data:`translator.ir.ops.OP_FAMILIES` a one-line elementwise kernel
``out[t] = op(x[t], ...)`` is built in the IR, written by every dialect that has a backend, and
run on the CPU (``TRITON_INTERPRET=1``, each dialect's runner prepared by
:func:`validation.equivalence.use_interpreter`, the libdevice shim included) on float32 inputs
chosen to break sloppy spellings: ±0, subnormals, tiny and huge magnitudes, ±inf, NaN,
integer-valued numbers, the edges of log1p's domain; binary ops see every pair.

The reference is the torch function on the same float32 inputs evaluated in float64 and rounded to
float32 (the correctly rounded result, up to a double rounding). torch's own float32 CPU kernels
are not used as the reference because they miss at the edges themselves (measured:
``gelu(3e38)`` is ``inf`` and ``gelu(inf)`` is NaN; ``log1p`` of a subnormal is 0).

A result matches when NaNs are where the reference's are, infinities and zeros carry the
reference's sign, and finite values are within ``rtol * |want| + atol``. The default ``rtol`` is
4 ulp of float32; ``atol`` is the smallest normal float32 (a subnormal result flushed to zero is a
device mode, not a spelling). Looser bounds are per op in :data:`TOLERANCE`, each with why.

What a backend computes inexactly is an ``xfail(strict=True)`` in :data:`KNOWN_INEXACT` with the
measured error: the case keeps running, and it fails once fixed until the mark is removed.
"""

from __future__ import annotations

import os

# Kernels run in Triton's interpreter; set it before anything imports triton.
os.environ["TRITON_INTERPRET"] = "1"

import itertools  # noqa: E402
import math  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from ir_build import hand_module, inline_entry  # noqa: E402

from translator.api import emit  # noqa: E402
from translator.diagnostics import TranslationError  # noqa: E402
from translator.dialects import dialects  # noqa: E402
from translator.grammar import load_grammar  # noqa: E402
from translator.ir import nodes as ir  # noqa: E402
from translator.ir.ops import OP_FAMILIES, POINTWISE_OPS, RANDOM_OPS  # noqa: E402
from validation.equivalence import use_interpreter  # noqa: E402
from validation.runners import load_module  # noqa: E402

# Ops on host numbers and sizes only (no device spelling to check): `cdiv` and `next_power_of_2`
# are index arithmetic on Python ints, `if_none` picks an optional host parameter.
HOST_ONLY = {"cdiv", "if_none", "next_power_of_2"}
# Random numbers are drawn from integer counters, not computed from float operands:
# tests/test_random.py checks them against Triton's own and Helion's, and their refusals are
# library-translation tests.
OPS = [op for op in OP_FAMILIES["pointwise"] if op not in HOST_ONLY and op not in RANDOM_OPS]

INF, NAN = math.inf, math.nan
F32_TINY = 1.1754943508222875e-38  # smallest normal float32
F32_DENORM = 1.401298464324817e-45  # smallest subnormal float32
F32_EPS = 2.0**-23

#: Operands of unary ops (and both operands of binary ops, pairwise).
VALUES = [
    0.0, -0.0, F32_DENORM, F32_TINY, 1e-30, -1e-30, 1e-7, -1e-7, 1e-6, -1.0 + 1e-6, -1.0,
    0.5, -0.5, 1.0, 2.0, -3.0, 3.5, -7.25, 10.0, -10.0, 20.0, 88.0, -88.0, 100.0, -100.0,
    1e4, -1e4, 1e30, -1e30, 3e38, -3e38, INF, -INF, NAN,
]  # fmt: skip
#: Exponents of pow: integer-valued ones of both parities and signs, halves, zeros, the extremes.
EXPONENTS = [
    0.0, -0.0, 1e-30, 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 2.5, -2.5, 10.0, 1e30, -1e30,
    INF, -INF, NAN,
]  # fmt: skip


def _f32(values) -> torch.Tensor:
    return torch.tensor(list(values), dtype=torch.float32)


def _fma(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    # In float64 the product of two float32s is exact: a*b + c rounds once (fused).
    return a * b + c


#: The torch function each op means (applied to float64 copies of the inputs).
REFERENCE: dict[str, Callable[..., torch.Tensor]] = {
    "exp": torch.exp,
    "exp2": torch.exp2,
    "log": torch.log,
    "log2": torch.log2,
    "log1p": torch.log1p,
    "sqrt": torch.sqrt,
    "rsqrt": torch.rsqrt,
    "sigmoid": torch.sigmoid,
    "tanh": torch.tanh,
    "erf": torch.erf,
    "sin": torch.sin,
    "cos": torch.cos,
    "gelu": F.gelu,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "silu": F.silu,
    "abs": torch.abs,
    "relu": torch.relu,
    "floor": torch.floor,
    "ceil": torch.ceil,
    "maximum": torch.maximum,
    "minimum": torch.minimum,
    "pow": torch.pow,
    "where": torch.where,
    "fma": _fma,
}


def _inputs(op: str) -> tuple[torch.Tensor, ...]:
    arity = POINTWISE_OPS[op].arity
    if op == "pow":
        bases, exponents = zip(*itertools.product(VALUES, EXPONENTS))
        return _f32(bases), _f32(exponents)
    if op == "where":
        a, b = zip(*itertools.product(VALUES, VALUES))
        cond = torch.tensor([i % 3 == 0 for i in range(len(a))])
        return cond, _f32(a), _f32(b)
    if op == "fma":
        # c = -round(a*b): the fused result is the rounding error of the product, which an
        # unfused a*b + c loses (0); plus c = ±inf/NaN and products that overflow.
        small = VALUES[:20] + [3e38, INF, NAN]
        a, b = zip(*itertools.product(small, small))
        c = [-(x * y) if math.isfinite(x * y) else 1.0 for x, y in zip(a, b)]
        return _f32(a), _f32(b), _f32(c)
    if arity == 2:
        a, b = zip(*itertools.product(VALUES, VALUES))
        return _f32(a), _f32(b)
    assert arity == 1, op
    return (_f32(VALUES),)


#: Looser bounds (rtol, atol), measured on these inputs, and why.
TOLERANCE: dict[str, tuple[float, float]] = {
    # 0.5*x*(1 + erf(x/√2)) (and 1 + tanh(...) for gelu_tanh) cancels for x << 0: 1 + erf keeps
    # only the low bits, so the error is absolute, about |x|·2^-24. Measured (both backends, which
    # spell the form torch itself uses): rel 1.4e-6 for gelu(-3), rel 1.1e-5 for gelu_tanh(-3)
    # (abs 4e-8), and gelu(-7.25) = -0 for -1.5e-12.
    "gelu": (4 * F32_EPS, 1e-6),
    "gelu_tanh": (4 * F32_EPS, 1e-6),
}
DEFAULT_TOLERANCE = (4 * F32_EPS, F32_TINY)

#: (op, backend dialect) -> what it computes wrong, measured on these inputs. Strict xfails.
KNOWN_INEXACT: dict[tuple[str, str], str] = {
    # TileLang's CPU oracle (the C target, translator/dialects/tilelang/runner.py) cannot run
    # these two; the spellings are the GPU's own (measured, tilelang 0.1.15).
    ("fma", "tilelang"): (
        "the C target has no codegen for `T.fma` (tvm InternalError: unresolved call tl.fma); "
        "on CUDA it is the fused fmaf"
    ),
    ("where", "tilelang"): (
        "the C target's Cython adapter passes a bool tensor argument as `int8_t*` to a "
        "`bool*` parameter: g++ refuses the generated wrapper"
    ),
    ("fma", "helion"): (
        "written `a * b + c` (two roundings): fma(1e-30, 1e-7, -round(1e-37)) = 0.0 for "
        "2.8e-45, fma(1e-30, -1e-30, 0) = +0.0 for -0.0"
    ),
    ("pow", "helion"): (
        "`torch.pow(x, y)` of two tensors does not compile: Helion's inductor lowering of "
        "aten.pow.Tensor_Tensor raises InductorLoweringError (AssertionError in promote_types)"
    ),
}

# Overflow and NaN arithmetic in numpy (the interpreter) is what these inputs are for.
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

BACKENDS = sorted(name for name, d in dialects().items() if d.backend is not None)


def _cases() -> list[object]:
    cases = []
    for op, backend in itertools.product(OPS, BACKENDS):
        reason = KNOWN_INEXACT.get((op, backend))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        cases.append(pytest.param(op, backend, marks=marks, id=f"{op}-{backend}"))
    return cases


def _module(op: str, inputs: tuple[torch.Tensor, ...]) -> ir.Module:
    """``out[t] = op(a[t], b[t], ...)`` over one tile of the inputs' length, written as Helion
    writes it (the kernel in place), outlined as a frontend outlines it."""
    names = tuple(f"a{i}" for i in range(len(inputs)))
    t = (ir.TileIndex("t"),)
    value = ir.Call(op, tuple(ir.Load(n, t) for n in names))
    kernel = ir.InlineKernel(
        "kern", (ir.TileVar("t", ir.Name("n"), "block"),), (ir.Store("out", t, value),)
    )
    body = [
        ir.ShapeUnpack(("n",), names[-1]),
        ir.Alloc("out", (ir.Name("n"),), None, ir.F32, names[-1]),
        kernel,
        ir.Return(ir.Name("out")),
    ]
    tunables = (ir.Tunable("block", "block_size", 64), ir.Tunable("num_warps", "num_warps", 4))
    params = tuple(ir.Param(n, "tensor") for n in names)
    entry = inline_entry(f"pw_{op}", params, body, tunables, configs=((("block", 64),),))
    return hand_module("pointwise.py", entry)


def _mismatches(
    got: torch.Tensor, want: torch.Tensor, rtol: float, atol: float
) -> list[tuple[int, float, float]]:
    bad = []
    for i, (g, w) in enumerate(zip(got.tolist(), want.tolist())):
        if math.isnan(w) or math.isnan(g):
            ok = math.isnan(w) and math.isnan(g)
        elif math.isinf(w) or math.isinf(g) or w == 0:
            ok = g == w and math.copysign(1.0, g) == math.copysign(1.0, w)
        else:
            ok = abs(g - w) <= rtol * abs(w) + atol
        if not ok:
            bad.append((i, g, w))
    return bad


@pytest.fixture(scope="module", autouse=True)
def _interpreter() -> None:
    use_interpreter()


def test_every_device_op_has_a_reference() -> None:
    assert sorted(OPS) == sorted(REFERENCE)
    assert BACKENDS, "no dialect has a backend"
    # Every known inexactness names an op and a backend that exist (no stale marks).
    for op, backend in KNOWN_INEXACT:
        assert op in OPS and backend in BACKENDS, (op, backend)


def test_the_comparison_tells_signs_nans_and_ulps_apart() -> None:
    want = _f32([-0.0, NAN, -INF, 1.0, 1e-30])
    assert _mismatches(want.clone(), want, *DEFAULT_TOLERANCE) == []
    got = _f32([0.0, 0.0, INF, 1.0 + 8 * F32_EPS, 0.0])
    assert [i for i, _, _ in _mismatches(got, want, *DEFAULT_TOLERANCE)] == [0, 1, 2, 3, 4]


@pytest.mark.parametrize(("op", "backend"), _cases())
def test_pointwise_op_matches_torch(op: str, backend: str, tmp_path: Path) -> None:
    inputs = _inputs(op)
    module = _module(op, inputs)
    refused = load_grammar(backend)["backend"]["refused"].get("pointwise", {})
    if op in refused:
        # An op the target cannot spell is refused, never written approximately.
        with pytest.raises(TranslationError, match=f"`{op}`"):
            emit(module, backend)
        return
    path = tmp_path / f"{op}_{backend}.py"
    path.write_text(emit(module, backend))
    run = getattr(load_module(path, "translated"), f"pw_{op}")
    got = run(*(t.clone() for t in inputs))

    want = REFERENCE[op](*(t.double() if t.is_floating_point() else t for t in inputs)).float()
    assert got.dtype == torch.float32 and got.shape == want.shape
    rtol, atol = TOLERANCE.get(op, DEFAULT_TOLERANCE)
    bad = _mismatches(got, want, rtol, atol)
    shown = "\n".join(
        f"  {op}({', '.join(repr(t[i].item()) for t in inputs)}) = {g!r}, torch: {w!r}"
        for i, g, w in bad[:10]
    )
    assert not bad, f"{len(bad)} of {len(want)} differ from torch ({backend}):\n{shown}"
