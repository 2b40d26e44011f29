"""GPU equivalence and speed of Triton examples vs their Helion translations, and of Helion round trips.

    source .devbundle/setup.sh && python -m benchmarks.gpu_triton_examples [--only NAME ...] \
        [--part triton|roundtrip] [--dtypes float16 ...]
    python -m benchmarks.gpu_triton_examples --cpu [--part triton|roundtrip]   # CPU dry run

Part ``triton``: every ``examples/triton/<name>.py`` with a Helion translation
``examples/triton/expected_helion/<name>.py`` (a row "no golden" otherwise; the Triton source is
still run once against a torch reference there, to check its inputs). Part ``roundtrip``: every
``examples/helion/<name>.py`` translated helion -> triton (the checked-in
``examples/helion/expected_triton/<name>.py``) -> helion on the fly with
``translator.api.translate_file`` (a row "not lifted" where the Triton frontend refuses).

Each row: equivalence at ragged sizes (multiples of no block size), two seeds, outputs poisoned
(NaN-filled ``torch.empty*``), rel.-norm tolerance 1e-2 for fp16 (fp32: 3e-4 with a dot, 1e-5
without), then speed at sizes whose inputs exceed the 50 MB L2, fp16, fresh ``randn``,
``triton.testing.do_bench(warmup=25, rep=200, return_mode="median")``. Both sides run at their
first config: the Triton source's autotuner pinned to its first config (its fixed launch
otherwise), every Helion kernel compiled with ``bind(args).compile_config(configs[0])``.
ratio = source ms / translation ms (triton: target >= 0.90; roundtrip: original Helion ms over
round-trip Helion ms, target >= 0.95). Part triton also reports each side's error against a torch
reference (informational: it tells which side is off when the two disagree).

One JSON line per row as it completes (``src_ms``: the Triton source or the original Helion,
``tr_ms``: the translation; wall time included); all rows and the environment in
``$OUT/gpu_triton_examples.json`` (OUT defaults to /tmp), round-trip Helion sources in
``$OUT/roundtrip_helion/``; a table with the median ratio per part last. Helion compiles take
seconds per kernel: split long runs with ``--only`` / ``--part``.

``--cpu``: ``TRITON_INTERPRET=1`` (set before triton is imported, with the libdevice shim), small
ragged sizes on device "cpu", fp32 and fp16, no timing ("-" for ms).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from benchmarks.common import ROOT, bench, helion_fn, helion_version, outputs, rel_err

TRITON_DIR = ROOT / "examples" / "triton"
HELION_DIR = ROOT / "examples" / "helion"
F16, F32 = torch.float16, torch.float32
DTYPES = {"float16": F16, "float32": F32, "bfloat16": torch.bfloat16}
SEEDS = (0, 1)
TARGET = {"triton": 0.90, "roundtrip": 0.95}


class Gen:
    """Random inputs on one device in one float dtype (drawn in fp32, then cast)."""

    def __init__(self, device: str, dtype: torch.dtype) -> None:
        self.device, self.dtype = device, dtype

    def randn(self, *shape: int, scale: float = 1.0) -> torch.Tensor:
        return torch.randn(*shape, device=self.device, dtype=F32).mul_(scale).to(self.dtype)

    def randint(self, high: int, *shape: int) -> torch.Tensor:
        return torch.randint(0, high, shape, device=self.device, dtype=torch.int64)


Build = Callable[[Gen, tuple], tuple]


@dataclass(frozen=True)
class Case:
    """Inputs of one example: ``build(gen, size)`` at each size; ``ref`` a torch reference."""

    build: Build
    cpu: Sequence[tuple]
    ragged: Sequence[tuple]
    large: tuple
    ref: Callable[..., Any] | None = None
    dot: bool = False


# --- part "triton": inputs read from each wrapper's signature ---------------------------------


def _pair(g: Gen, s: tuple, scale: float = 1.0) -> tuple:
    return (g.randn(*s, scale=scale), g.randn(*s, scale=scale))


def _mm(g: Gen, s: tuple) -> tuple:
    m, k, n = s[:3]
    return (g.randn(m, k), g.randn(k, n))


def _f(t: torch.Tensor) -> torch.Tensor:
    return t.double()


def _cross_entropy_inputs(g: Gen, s: tuple) -> tuple:
    n, v = s
    target = g.randint(v, n)
    if n > 8:  # some rows ignored: exercises the wrapper's early-return branch
        target[::7] = -100
    return (g.randn(n, v, scale=3), target, -100)


def _cross_entropy_ref(logits, target, ignore_index):
    return torch.nn.functional.cross_entropy(
        _f(logits), target, reduction="none", ignore_index=ignore_index
    )


def _layer_norm_ref(x, w, b, eps):
    x = _f(x)
    mean = x.mean(-1)
    rstd = 1 / torch.sqrt(x.var(-1, unbiased=False) + eps)
    return ((x - mean[:, None]) * rstd[:, None] * _f(w) + _f(b), mean, rstd)


def _rms_norm_ref(x, w, eps):
    x = _f(x)
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * _f(w)


def _matmul_act_ref(a, b, activation):
    c = _f(a) @ _f(b)
    if activation == "leaky_relu":
        return torch.where(c >= 0, c, 0.01 * c)
    if activation == "gelu":
        return torch.nn.functional.gelu(c)
    return c


def _attention_ref(q, k, v, sm_scale):
    s = (_f(q) @ _f(k).transpose(-1, -2)) * (q.shape[-1] ** -0.5 if sm_scale is None else sm_scale)
    return torch.softmax(s, dim=-1) @ _f(v)


_ROWS_CPU = [(19, 301)]
_PW_CPU = [(37, 53)]  # 1961 elements: two 1024-blocks, the second ragged
_MM_CPU = [(67, 45, 71)]
_MM_RAGGED = [(1000, 999, 1001)]
_MM_LARGE = (4096, 4096, 4096)

TRITON_CASES: dict[str, Case] = {
    "add": Case(_pair, _PW_CPU, [(1000, 1001)], (8192, 8192), lambda x, y: _f(x) + _f(y)),
    "cross_entropy": Case(
        _cross_entropy_inputs,
        # V > 32768 (the wrapper's largest chunk) runs the online log-sum-exp over two chunks
        [(10, 301), (2, 33001)],  # small: the golden's 32768-lane chunks are slow to interpret
        [(1000, 1001), (64, 50257)],
        (4096, 50257),  # GPT-2 vocabulary, 412 MB of fp16 logits
        _cross_entropy_ref,
    ),
    "embedding": Case(
        # (indices [n], weight [num_embeddings, dim]); 1-D indices (the golden is specialised so)
        lambda g, s: (g.randint(s[1], s[0]), g.randn(s[1], s[2])),
        [(77, 50, 300)],
        [(1000, 5003, 1001)],
        (16384, 50257, 4096),  # 16k tokens from a GPT-2-sized table (412 MB fp16)
        lambda idx, w: _f(w)[idx],
    ),
    "geglu": Case(
        lambda g, s: _pair(g, s, 3.0),
        _PW_CPU,
        [(1000, 1001)],
        (8192, 8192),
        lambda a, b: torch.nn.functional.gelu(_f(a), approximate="tanh") * _f(b),
    ),
    "heuristics": Case(
        # (x [M, N], bias [N], alpha); the second size divides the tiles: the EVEN_M/EVEN_N paths
        lambda g, s: (g.randn(*s), g.randn(s[1]), 0.37),
        [(37, 301), (64, 256)],
        [(1000, 1001), (512, 1024)],
        (8192, 8192),
        lambda x, bias, alpha: _f(x) * alpha + _f(bias),
    ),
    "layer_norm": Case(
        # returns (y, mean, rstd); N > 1024 (its largest chunk) makes every sweep loop
        lambda g, s: (g.randn(*s), g.randn(s[1]), g.randn(s[1]), 1e-5),
        [(19, 301), (5, 2500)],
        [(1000, 1001), (129, 4099)],
        (16384, 4096),
        _layer_norm_ref,
    ),
    "matmul": Case(_mm, _MM_CPU, _MM_RAGGED, _MM_LARGE, lambda a, b: _f(a) @ _f(b), dot=True),
    "matmul_act": Case(
        lambda g, s: (*_mm(g, s), s[3]),
        [(*_MM_CPU[0], "leaky_relu"), (*_MM_CPU[0], "gelu")],
        [(*_MM_RAGGED[0], "leaky_relu"), (*_MM_RAGGED[0], "gelu")],
        (*_MM_LARGE, "leaky_relu"),
        _matmul_act_ref,
        dot=True,
    ),
    "matmul_block_ptr": Case(
        _mm, _MM_CPU, _MM_RAGGED, _MM_LARGE, lambda a, b: _f(a) @ _f(b), dot=True
    ),
    "matmul_descriptor": Case(
        _mm, _MM_CPU, _MM_RAGGED, _MM_LARGE, lambda a, b: _f(a) @ _f(b), dot=True
    ),
    "matmul_host_descriptor": Case(
        _mm, _MM_CPU, _MM_RAGGED, _MM_LARGE, lambda a, b: _f(a) @ _f(b), dot=True
    ),
    "matmul_persistent": Case(
        _mm, _MM_CPU, _MM_RAGGED, _MM_LARGE, lambda a, b: _f(a) @ _f(b), dot=True
    ),
    "matmul_splitk": Case(
        # (a, b, split_k); output allocated with torch.zeros (atomics add into it), cast to a.dtype
        lambda g, s: (*_mm(g, s), 4),
        [(67, 45, 71), (33, 301, 35)],
        [(1000, 999, 1001), (129, 4001, 131)],
        (2048, 16384, 2048),  # skinny output, long K: what split-K is for
        lambda a, b, split_k: _f(a) @ _f(b),
        dot=True,
    ),
    "rms_norm": Case(
        lambda g, s: (g.randn(*s), g.randn(s[1]), 1e-6),
        _ROWS_CPU,
        [(1000, 1001)],
        (16384, 4096),
        _rms_norm_ref,
    ),
    "row_sum": Case(
        lambda g, s: (g.randn(*s),),
        [(37, 301)],  # BLOCK_N = 256: two column chunks
        [(1000, 1001)],
        (16384, 4096),
        lambda x: _f(x).sum(-1),
    ),
    "softmax": Case(
        lambda g, s: (g.randn(*s, scale=2),),
        _ROWS_CPU,
        [(1000, 1001)],
        (16384, 4096),
        lambda x: torch.softmax(_f(x), -1),
    ),
    "swiglu": Case(
        lambda g, s: _pair(g, s, 3.0),
        _ROWS_CPU,
        [(1000, 1001)],
        (16384, 4096),
        lambda a, b: torch.nn.functional.silu(_f(a)) * _f(b),
    ),
    "attention": Case(
        # q [Z, H, N_CTX_Q, D], k/v [Z, H, N_CTX_K, D], sm_scale=None (the wrapper's 1/sqrt(D))
        lambda g, s: (
            g.randn(s[0], s[1], s[2], s[4]),
            g.randn(s[0], s[1], s[3], s[4]),
            g.randn(s[0], s[1], s[3], s[4]),
            None,
        ),
        [(2, 3, 37, 45, 32)],
        [(2, 3, 300, 301, 64)],
        (4, 16, 4096, 4096, 64),
        _attention_ref,
        dot=True,
    ),
}


# --- part "roundtrip": small CPU inputs; on the GPU gpu_examples.CASES ------------------------

_HX = (37, 301)
HELION_CPU: dict[str, tuple[Build, bool]] = {
    "add": (lambda g: _pair(g, _HX), False),
    "scaled_add": (lambda g: (*_pair(g, _HX), 0.37), False),
    "exp": (lambda g: (g.randn(3001),), False),
    "relu": (lambda g: (g.randn(*_HX),), False),
    "gelu": (lambda g: (g.randn(*_HX, scale=3),), False),
    "silu": (lambda g: (g.randn(*_HX, scale=3),), False),
    "softmax": (lambda g: (g.randn(19, 301, scale=2),), False),
    "softmax_two_pass": (lambda g: (g.randn(19, 301, scale=2),), False),
    "rms_norm": (lambda g: (g.randn(19, 301), g.randn(301), 1e-5), False),
    "layer_norm": (lambda g: (g.randn(19, 301), g.randn(301), g.randn(301), 1e-5), False),
    "row_sum": (lambda g: (g.randn(*_HX),), False),
    "row_mean": (lambda g: (g.randn(*_HX),), False),
    "cross_entropy": (lambda g: (g.randn(19, 1001), g.randint(1001, 19)), False),
    "cross_entropy_onehot": (lambda g: (g.randn(19, 1001), g.randint(1001, 19)), False),
    "matmul": (lambda g: (g.randn(67, 45), g.randn(45, 71)), True),
    "matmul_bias_act": (lambda g: (g.randn(67, 45), g.randn(45, 71), g.randn(71)), True),
    "bmm": (lambda g: (g.randn(2, 37, 45), g.randn(2, 45, 71)), True),
    "attention": (lambda g: (g.randn(2, 37, 32), g.randn(2, 45, 32), g.randn(2, 45, 32)), True),
}
HELION_DOT = {name for name, (_, dot) in HELION_CPU.items() if dot}


# --- running ----------------------------------------------------------------------------------


def tolerance(dtype: torch.dtype, dot: bool) -> float:
    if dtype in (F16, torch.bfloat16):
        return 1e-2
    return 3e-4 if dot else 1e-5


def _sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def _clone(args: tuple) -> tuple:
    return tuple(a.clone() if isinstance(a, torch.Tensor) else a for a in args)


def _compare(out: tuple, ref: tuple) -> tuple[float, str]:
    """Worst rel. error of ``out`` against ``ref`` and what was wrong beyond numbers."""
    if len(out) != len(ref):
        return math.inf, f"returns {len(out)} values, the reference {len(ref)}"
    worst, notes = 0.0, []
    for i, (o, r) in enumerate(zip(out, ref)):
        if not isinstance(o, torch.Tensor) or not isinstance(r, torch.Tensor):
            worst = max(worst, 0.0 if o == r else math.inf)
            continue
        if o.dtype != r.dtype and r.dtype != torch.float64:
            notes.append(f"output {i} is {o.dtype}, the reference {r.dtype}")
            worst = math.inf
        if tuple(o.shape) != tuple(r.shape):
            notes.append(f"output {i} has shape {tuple(o.shape)}, the reference {tuple(r.shape)}")
        if not torch.isfinite(r.double()).all():
            notes.append(f"reference output {i} is not finite")
        worst = max(worst, rel_err(o, r))
    return worst, "; ".join(notes)


def _call(fn: Callable[..., Any], args: tuple, device: str) -> tuple:
    from validation.poison import poisoned_allocations

    with poisoned_allocations():
        out = outputs(fn(*_clone(args)))
    _sync(device)
    return out


def _helion_call(fn) -> Callable[..., Any]:
    """Call ``fn`` compiled with its first config for these arguments: a ``@helion.kernel``
    directly; a host function (a translation's public function, which carries the source's host
    code and launches its kernels) as it is, its module's kernels pinned when loaded."""
    if not hasattr(fn, "bind"):
        return fn
    return lambda *args: helion_fn(fn, args)(*args)


def _compiled(fn, args: tuple) -> Callable[..., Any]:
    """``fn`` ready to time on ``args``: a Helion kernel compiled at its first config."""
    return helion_fn(fn, args) if hasattr(fn, "bind") else fn


def equivalence(
    src: Callable[..., Any],
    tr: Callable[..., Any],
    makers: Sequence[tuple[str, torch.dtype, Callable[[], tuple]]],
    dot: bool,
    device: str,
    ref: Callable[..., Any] | None = None,
) -> dict:
    """Run ``src`` and ``tr`` on each maker's inputs (seeded), compare; the fields of a row."""
    cases, notes = [], []
    errs, src_ref, tr_ref = [], [], []
    equal = True
    for label, dtype, make in makers:
        for seed in SEEDS:
            torch.manual_seed(seed)
            args = make()
            expect = _call(src, args, device)
            got = _call(tr, args, device)
            err, note = _compare(got, expect)
            tol = tolerance(dtype, dot)
            ok = err <= tol  # NaN and inf never pass
            equal &= ok
            errs.append(err)
            case = {
                "size": label,
                "dtype": str(dtype).removeprefix("torch."),
                "seed": seed,
                "err": err,
                "tol": tol,
                "ok": ok,
            }
            if note:
                case["note"] = note
                notes.append(note)
            if ref is not None:
                want = outputs(ref(*args))
                case["src_ref"] = _compare(expect, want)[0]
                case["tr_ref"] = _compare(got, want)[0]
                src_ref.append(case["src_ref"])
                tr_ref.append(case["tr_ref"])
            cases.append(case)
    row: dict = {"equal": bool(equal and cases), "err": max(errs, default=math.nan), "cases": cases}
    if src_ref:
        row["src_ref_err"], row["tr_ref_err"] = max(src_ref), max(tr_ref)
    if notes:
        row["notes"] = sorted(set(notes))
    return row


def speed(
    src: Callable[..., Any], tr: Callable[..., Any], args: tuple, tol: float, device: str
) -> dict:
    """Both sides once on the large inputs (compared too), then timed: the fields of a row."""
    src_out = outputs(src(*args))
    tr_out = outputs(tr(*args))
    _sync(device)
    row: dict = {"large_err": _compare(tr_out, src_out)[0]}
    row["large_equal"] = row["large_err"] <= tol
    del src_out, tr_out
    t_src = bench(lambda: src(*args))
    t_tr = bench(lambda: tr(*args))
    row.update(src_ms=t_src, tr_ms=t_tr, ratio=t_src / t_tr)
    return row


def _load(path: Path, role: str, pin: bool = True):
    """Import ``path``; with ``pin``, its autotuned kernels keep their first config only."""
    from validation.runners import load_module, pin_first_configs

    module = load_module(path, role)
    if pin:
        pin_first_configs(module)
    return module


def run_triton(name: str, opts: argparse.Namespace) -> dict:
    from validation.runners import pin_first_configs

    case = TRITON_CASES[name]
    row: dict = {"part": "triton", "name": name}
    source = _load(TRITON_DIR / f"{name}.py", "triton_src", pin=False)
    row["pinned"] = pin_first_configs(source)  # autotuned kernels of the source, first config only
    src_fn = getattr(source, name)
    golden = TRITON_DIR / "expected_helion" / f"{name}.py"
    sizes = case.cpu if opts.cpu else case.ragged
    dtypes = opts.dtypes
    if not golden.is_file():
        # Still run the source once against the torch reference: checks this script's inputs.
        row["status"] = "no golden"
        torch.manual_seed(0)
        args = case.build(Gen(opts.device, dtypes[0]), sizes[0])
        out = _call(src_fn, args, opts.device)
        if case.ref is not None:
            row["src_ref_err"] = _compare(out, outputs(case.ref(*args)))[0]
        return row
    kernel = getattr(_load(golden, "helion_golden"), name)
    tr_fn = _helion_call(kernel)
    makers = [
        (_label(s), dt, _bind_maker(case.build, Gen(opts.device, dt), s))
        for dt in dtypes
        for s in sizes
    ]
    row.update(equivalence(src_fn, tr_fn, makers, case.dot, opts.device, case.ref))
    row["status"] = _status(row)
    if not opts.cpu:
        torch.manual_seed(2)
        args = case.build(Gen(opts.device, F16), case.large)
        row["size"] = _label(case.large)
        row.update(
            speed(src_fn, _compiled(kernel, args), args, tolerance(F16, case.dot), opts.device)
        )
        row["status"] = _status(row)
    return row


def run_roundtrip(name: str, opts: argparse.Namespace) -> dict:
    from translator.api import translate_file
    from translator.diagnostics import TranslationError

    row: dict = {"part": "roundtrip", "name": name}
    via = HELION_DIR / "expected_triton" / f"{name}.py"
    try:
        text = translate_file(via, "triton", "helion")
    except TranslationError as err:
        loc = f" ({err.loc})" if err.loc else ""
        row["status"] = "not lifted"
        row["error"] = f"not lifted: {err.message}{loc}"
        return row
    out_dir = _out_dir() / "roundtrip_helion"
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{name}.py"
    path.write_text(text)
    row["roundtrip_file"] = str(path)
    original = getattr(_load(HELION_DIR / f"{name}.py", "helion_orig"), name)
    roundtrip = getattr(_load(path, "helion_rt"), name)
    if opts.cpu:
        build, dot = HELION_CPU[name]
        makers = [
            ("cpu", dt, _bind_maker(lambda g, _s: build(g), Gen(opts.device, dt), ()))
            for dt in opts.dtypes
        ]
    else:
        from benchmarks.gpu_examples import CASES

        ragged, large = CASES[name]
        dot = name in HELION_DOT
        makers = [("ragged", F16, ragged)]
    row.update(
        equivalence(_helion_call(original), _helion_call(roundtrip), makers, dot, opts.device)
    )
    row["status"] = _status(row)
    if not opts.cpu:
        torch.manual_seed(2)
        args = large()
        tol = tolerance(F16, dot)
        row.update(
            speed(_compiled(original, args), _compiled(roundtrip, args), args, tol, opts.device)
        )
        row["status"] = _status(row)
    return row


def _status(row: dict) -> str:
    if not row["equal"]:
        return "DIFFERS"
    return "DIFFERS" if row.get("large_equal") is False else "ok"


def _bind_maker(build: Build, g: Gen, size: tuple) -> Callable[[], tuple]:
    return lambda: build(g, size)


def _label(size: tuple) -> str:
    return "x".join(str(s) for s in size)


def _out_dir() -> Path:
    return Path(os.environ.get("OUT", "/tmp"))


# --- main -------------------------------------------------------------------------------------


def _env(opts: argparse.Namespace) -> dict:
    import triton

    device = "cpu (TRITON_INTERPRET=1)" if opts.cpu else torch.cuda.get_device_name()
    return {
        "device": device,
        "torch": torch.__version__,
        "triton": triton.__version__,
        "helion": helion_version(),
    }


def _names(part: str, only: list[str] | None) -> list[str]:
    if part == "triton":
        names = sorted(p.stem for p in TRITON_DIR.glob("*.py"))
        missing = sorted(set(names) - set(TRITON_CASES))
        if missing:  # a new example without inputs here: a row says so
            print(f"warning: no inputs for Triton examples {missing}", flush=True)
    else:
        names = sorted(p.stem for p in HELION_DIR.glob("*.py"))
    return [n for n in names if not only or n in only]


def _num(value: Any, spec: str) -> str:
    return format(value, spec) if isinstance(value, float) else "-"


def _table(rows: list[dict], env: dict) -> list[str]:
    lines = [" | ".join(f"{k}={v}" for k, v in env.items())]
    for part in ("triton", "roundtrip"):
        prows = [r for r in rows if r["part"] == part]
        if not prows:
            continue
        src, tr = ("triton", "helion") if part == "triton" else ("orig", "roundtrip")
        lines.append("")
        lines.append(f"part {part}: ratio = {src} ms / {tr} ms (target >= {TARGET[part]:.2f})")
        lines.append(
            f"{'example':20s} {'status':10s} {'rel_err':>9s} {'src~ref':>8s} {'tr~ref':>8s} "
            f"{src + ' ms':>10s} {tr + ' ms':>12s} {'ratio':>6s} {'wall s':>7s}"
        )
        ratios = []
        for r in prows:
            status = r.get("status", "ERROR")
            if status in ("not lifted", "ERROR"):
                detail = r.get("error", "")
                lines.append(f"{r['name']:20s} {status:10s} {detail[:110]}  ({r['wall_s']} s)")
                continue
            if "ratio" in r:
                ratios.append(r["ratio"])
            lines.append(
                f"{r['name']:20s} {status:10s} {_num(r.get('err'), '.2e'):>9s} "
                f"{_num(r.get('src_ref_err'), '.1e'):>8s} {_num(r.get('tr_ref_err'), '.1e'):>8s} "
                f"{_num(r.get('src_ms'), '.4f'):>10s} {_num(r.get('tr_ms'), '.4f'):>12s} "
                f"{_num(r.get('ratio'), '.3f'):>6s} {r['wall_s']:7.1f}"
            )
        counted = [r for r in prows if "equal" in r]
        n_equal = sum(r["equal"] for r in counted)
        summary = f"{part}: {n_equal}/{len(counted)} equivalent of {len(prows)} rows"
        if ratios:
            median = statistics.median(ratios)
            met = "met" if median >= TARGET[part] else "NOT met"
            summary += (
                f"; median ratio {median:.3f} over {len(ratios)} (target {TARGET[part]:.2f}: {met})"
            )
        else:
            summary += "; median ratio - (nothing timed)"
        lines.append(summary)
    return lines


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=None, help="example names")
    parser.add_argument(
        "--part",
        choices=("triton", "roundtrip"),
        action="append",
        help="run only this part (repeatable; default both)",
    )
    parser.add_argument(
        "--dtypes",
        nargs="*",
        choices=sorted(DTYPES),
        default=None,
        help="equivalence dtypes of part triton and of --cpu (default: float16 on the GPU, "
        "float32 float16 on CPU); the GPU round trip uses gpu_examples.CASES (fp16)",
    )
    parser.add_argument(
        "--cpu",
        action="store_true",
        help="dry run in the Triton interpreter: small sizes, no timing",
    )
    opts = parser.parse_args(argv)
    if opts.cpu:
        from validation.equivalence import use_interpreter

        use_interpreter()  # before triton is imported
    elif not torch.cuda.is_available():
        print("no CUDA device: use --cpu for a dry run in the Triton interpreter", file=sys.stderr)
        return 2
    opts.device = "cpu" if opts.cpu else "cuda"
    names = opts.dtypes or (["float32", "float16"] if opts.cpu else ["float16"])
    opts.dtypes = [DTYPES[d] for d in names]
    parts = opts.part or ["triton", "roundtrip"]

    if opts.only:
        known = {n for part in parts for n in _names(part, None)}
        unknown = sorted(set(opts.only) - known)
        if unknown:
            print(f"warning: no example named {unknown} in parts {parts}", flush=True)
    env = _env(opts)
    out_file = _out_dir() / "gpu_triton_examples.json"
    rows: list[dict] = []
    runners = {"triton": run_triton, "roundtrip": run_roundtrip}
    for part in parts:
        for name in _names(part, opts.only):
            t0 = time.time()
            try:
                if part == "triton" and name not in TRITON_CASES:
                    row = {
                        "part": part,
                        "name": name,
                        "status": "ERROR",
                        "error": "no inputs defined",
                    }
                else:
                    row = runners[part](name, opts)
            except Exception as err:  # one failing example must not hide the others
                traceback.print_exc()
                row = {
                    "part": part,
                    "name": name,
                    "status": "ERROR",
                    "error": f"{type(err).__name__}: {' '.join(str(err).split())}"[:400],
                }
            row["wall_s"] = round(time.time() - t0, 1)
            rows.append(row)
            print(json.dumps(row, default=str), flush=True)
            if not opts.cpu:
                torch.cuda.empty_cache()
            try:  # after every row, so a killed run keeps what it measured
                out_file.write_text(
                    json.dumps({"env": env, "argv": argv, "rows": rows}, default=str)
                )
            except OSError as err:
                print(f"cannot write {out_file}: {err}", file=sys.stderr)
    print()
    print("\n".join(_table(rows, env)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
