"""GPU equivalence and speed of every Helion example against its Triton translation (H200).

    source .devbundle/setup.sh && python -m benchmarks.gpu_examples [--only NAME ...]

For each example: run the Helion kernel and the checked-in translation
(``examples/helion/expected_triton/``) on the same ragged inputs and compare (rel. norm, poisoned
outputs); then time both with ``triton.testing.do_bench`` (median) on inputs larger than L2, under
the same config (the Helion kernel's first config; the Triton autotuner pinned to the matching
first config). Last, the fp16 4096³ matmul from the emitted autotune space against torch (cuBLAS).
Prints a table last and writes ``$OUT/gpu_examples.json``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path

import torch

from benchmarks.common import ROOT
from benchmarks.common import bench as _bench
from benchmarks.common import helion_fn as _helion_fn
from benchmarks.common import helion_version as _helion_version
from benchmarks.common import outputs as _outputs
from benchmarks.common import rel_err as _rel

EXAMPLES = ROOT / "examples" / "helion"
F16 = torch.float16
F32 = torch.float32


def _randn(*shape: int, dtype: torch.dtype = F16, scale: float = 1.0) -> torch.Tensor:
    return torch.randn(*shape, device="cuda", dtype=torch.float32).mul_(scale).to(dtype)


def _two(m: int, n: int) -> tuple:
    return (_randn(m, n), _randn(m, n))


# name -> (ragged inputs, benchmark inputs, bytes moved or flops for the roofline column)
Builder = Callable[[], tuple]
CASES: dict[str, tuple[Builder, Builder]] = {
    "add": (lambda: _two(1000, 1001), lambda: _two(8192, 8192)),
    "scaled_add": (lambda: (*_two(1000, 1001), 0.37), lambda: (*_two(8192, 8192), 0.37)),
    "exp": (lambda: (_randn(1_000_003),), lambda: (_randn(1 << 26),)),
    "relu": (lambda: (_randn(1000, 1001),), lambda: (_randn(8192, 8192),)),
    "gelu": (lambda: (_randn(1000, 1001, scale=3),), lambda: (_randn(8192, 8192, scale=3),)),
    "silu": (lambda: (_randn(1000, 1001, scale=3),), lambda: (_randn(8192, 8192, scale=3),)),
    "softmax": (lambda: (_randn(1000, 1001, scale=2),), lambda: (_randn(16384, 4096, scale=2),)),
    "softmax_two_pass": (
        lambda: (_randn(1000, 1001, scale=2),),
        lambda: (_randn(16384, 4096, scale=2),),
    ),
    "rms_norm": (
        lambda: (_randn(1000, 1001), _randn(1001), 1e-5),
        lambda: (_randn(16384, 4096), _randn(4096), 1e-5),
    ),
    "layer_norm": (
        lambda: (_randn(1000, 1001), _randn(1001), _randn(1001), 1e-5),
        lambda: (_randn(16384, 4096), _randn(4096), _randn(4096), 1e-5),
    ),
    "row_sum": (lambda: (_randn(1000, 1001),), lambda: (_randn(16384, 4096),)),
    "row_mean": (lambda: (_randn(1000, 1001),), lambda: (_randn(16384, 4096),)),
    "cross_entropy": (
        lambda: (_randn(1000, 1001), torch.randint(0, 1001, (1000,), device="cuda")),
        lambda: (_randn(8192, 16384), torch.randint(0, 16384, (8192,), device="cuda")),
    ),
    "cross_entropy_onehot": (
        lambda: (_randn(1000, 1001), torch.randint(0, 1001, (1000,), device="cuda")),
        lambda: (_randn(8192, 16384), torch.randint(0, 16384, (8192,), device="cuda")),
    ),
    "matmul": (
        lambda: (_randn(1000, 999), _randn(999, 1001)),
        lambda: (_randn(4096, 4096), _randn(4096, 4096)),
    ),
    "matmul_bias_act": (
        lambda: (_randn(1000, 999), _randn(999, 1001), _randn(1001)),
        lambda: (_randn(4096, 4096), _randn(4096, 4096), _randn(4096)),
    ),
    "bmm": (
        lambda: (_randn(3, 300, 199), _randn(3, 199, 301)),
        lambda: (_randn(16, 1024, 1024), _randn(16, 1024, 1024)),
    ),
    "attention": (
        lambda: (_randn(3, 300, 64), _randn(3, 301, 64), _randn(3, 301, 64)),
        lambda: (_randn(64, 2048, 64), _randn(64, 2048, 64), _randn(64, 2048, 64)),
    ),
}
TOL = {F16: 1e-2, torch.bfloat16: 1e-2, F32: 3e-4}


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _pin_triton(module) -> None:
    """Pin every autotuned kernel of a translated module to its first config (the source's)."""
    from triton.runtime.autotuner import Autotuner

    for value in vars(module).values():
        if isinstance(value, Autotuner):
            value.configs = value.configs[:1]


class _Poison:
    """Make torch.empty* return NaN-filled tensors so unwritten outputs show."""

    def __enter__(self):
        self.saved = (torch.empty, torch.empty_like)

        def empty(*a, **k):
            t = self.saved[0](*a, **k)
            return t.fill_(float("nan")) if t.is_floating_point() else t.fill_(-7777777)

        def empty_like(*a, **k):
            t = self.saved[1](*a, **k)
            return t.fill_(float("nan")) if t.is_floating_point() else t.fill_(-7777777)

        torch.empty, torch.empty_like = empty, empty_like
        return self

    def __exit__(self, *exc):
        torch.empty, torch.empty_like = self.saved


def run_case(name: str) -> dict:
    ragged, large = CASES[name]
    source = _load(EXAMPLES / f"{name}.py", f"src_{name}")
    translated = _load(EXAMPLES / "expected_triton" / f"{name}.py", f"tr_{name}")
    _pin_triton(translated)
    kernel = getattr(source, name)
    triton_fn = getattr(translated, name)
    row: dict = {"name": name}
    # equivalence at ragged sizes, poisoned outputs, two seeds
    errors = []
    for seed in (0, 1):
        torch.manual_seed(seed)
        args = ragged()
        with _Poison():
            ref = _outputs(_helion_fn(kernel, args)(*args))
            out = _outputs(triton_fn(*args))
        errors.append(max(_rel(o, r) for o, r in zip(out, ref, strict=True)))
    dtype = _outputs(ref)[0].dtype
    row["err"] = max(errors)
    row["equal"] = row["err"] <= TOL.get(dtype, 1e-2)
    # speed at large sizes, same config
    torch.manual_seed(2)
    args = large()
    helion_call = _helion_fn(kernel, args)
    t_src = _bench(lambda: helion_call(*args))
    t_tr = _bench(lambda: triton_fn(*args))
    row["helion_ms"], row["triton_ms"] = t_src, t_tr
    row["ratio"] = t_src / t_tr
    return row


def matmul_vs_cublas() -> dict:
    """fp16 4096³: the translated matmul over its whole emitted autotune space vs torch."""
    translated = _load(EXAMPLES / "expected_triton" / "matmul.py", "tr_matmul_full")
    torch.manual_seed(3)
    a, b = _randn(4096, 4096), _randn(4096, 4096)
    out = translated.matmul(a, b)
    err = _rel(out, (a.double() @ b.double()).to(F16))
    t_tr = _bench(lambda: translated.matmul(a, b))
    t_torch = _bench(lambda: torch.matmul(a, b))
    flops = 2 * 4096**3
    return {
        "err": err,
        "triton_tflops": flops / t_tr / 1e9,
        "torch_tflops": flops / t_torch / 1e9,
        "ratio": t_torch / t_tr,
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", nargs="*", default=None)
    opts = parser.parse_args(argv)
    names = opts.only or list(CASES)
    import triton

    helion_version = _helion_version()
    rows = []
    for name in names:
        t0 = time.time()
        try:
            row = run_case(name)
        except Exception as err:  # one failing example must not hide the others
            row = {"name": name, "error": f"{type(err).__name__}: {err}"[:300]}
            traceback.print_exc()
        row["wall_s"] = round(time.time() - t0, 1)
        rows.append(row)
        print(json.dumps(row), flush=True)
    mm = matmul_vs_cublas() if not opts.only or "matmul" in names else None
    env = {
        "device": torch.cuda.get_device_name(),
        "torch": torch.__version__,
        "triton": triton.__version__,
        "helion": helion_version,
    }
    out_dir = Path(os.environ.get("OUT", "/tmp"))
    (out_dir / "gpu_examples.json").write_text(json.dumps({"env": env, "rows": rows, "matmul": mm}))
    print()
    print(" | ".join(f"{k}={v}" for k, v in env.items()))
    print(
        f"{'example':22s} {'equal':>5s} {'rel_err':>9s} {'helion ms':>10s} {'triton ms':>10s} {'ratio':>6s}"
    )
    ratios = []
    for r in rows:
        if "error" in r:
            print(f"{r['name']:22s} ERROR {r['error'][:90]}")
            continue
        ratios.append(r["ratio"])
        print(
            f"{r['name']:22s} {'yes' if r['equal'] else 'NO':>5s} {r['err']:9.2e} "
            f"{r['helion_ms']:10.4f} {r['triton_ms']:10.4f} {r['ratio']:6.3f}"
        )
    if ratios:
        print(
            f"median speed ratio helion/triton: {statistics.median(ratios):.3f} over {len(ratios)}"
        )
    if mm:
        print(
            f"matmul fp16 4096^3: triton {mm['triton_tflops']:.0f} TFLOP/s, torch "
            f"{mm['torch_tflops']:.0f} TFLOP/s, ratio {mm['ratio']:.3f}, err {mm['err']:.1e}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
