"""Perf investigation on the H200: variants of emitted Triton, to decide what the backend emits.

    source .devbundle/setup.sh && python -m benchmarks.gpu_variants

Each variant is the checked-in translation with one change (done here by text substitution), timed
with do_bench (median) at the benchmark size and checked against the unmodified translation.
"""

from __future__ import annotations

import importlib.util
import sys
import tempfile
from pathlib import Path

import torch
import triton.testing

ROOT = Path(__file__).resolve().parent.parent
GOLD = ROOT / "examples" / "helion" / "expected_triton"

MM_LOOP_OLD = """    for start_k in range(0, k, BLOCK_SIZE_K):
        offs_k = start_k + tl.arange(0, BLOCK_SIZE_K)
        mask_k = offs_k < k
        x = tl.load(
            x_ptr + offs_m[:, None] * stride_x0 + offs_k[None, :] * stride_x1,
            mask=mask_m[:, None] & mask_k[None, :],
            other=0.0,
        )
        y = tl.load(
            y_ptr + offs_k[:, None] * stride_y0 + offs_n[None, :] * stride_y1,
            mask=mask_k[:, None] & mask_n[None, :],
            other=0.0,
        )
"""
MM_WRAP = """    offs_mw = offs_m % m
    offs_nw = offs_n % n
    for start_k in range(0, k, BLOCK_SIZE_K):
        offs_k = start_k + tl.arange(0, BLOCK_SIZE_K)
        mask_k = offs_k < k
        x = tl.load(
            x_ptr + offs_mw[:, None] * stride_x0 + offs_k[None, :] * stride_x1,
            mask=mask_k[None, :],
            other=0.0,
        )
        y = tl.load(
            y_ptr + offs_k[:, None] * stride_y0 + offs_nw[None, :] * stride_y1,
            mask=mask_k[:, None],
            other=0.0,
        )
"""
MM_PTR = """    offs_k = tl.arange(0, BLOCK_SIZE_K)
    x_ptrs = x_ptr + offs_m[:, None] * stride_x0 + offs_k[None, :] * stride_x1
    y_ptrs = y_ptr + offs_k[:, None] * stride_y0 + offs_n[None, :] * stride_y1
    for start_k in range(0, k, BLOCK_SIZE_K):
        mask_k = offs_k < k - start_k
        x = tl.load(x_ptrs, mask=mask_m[:, None] & mask_k[None, :], other=0.0)
        y = tl.load(y_ptrs, mask=mask_k[:, None] & mask_n[None, :], other=0.0)
        x_ptrs += BLOCK_SIZE_K * stride_x1
        y_ptrs += BLOCK_SIZE_K * stride_y0
"""
MM_BOTH = """    offs_k = tl.arange(0, BLOCK_SIZE_K)
    x_ptrs = x_ptr + (offs_m % m)[:, None] * stride_x0 + offs_k[None, :] * stride_x1
    y_ptrs = y_ptr + offs_k[:, None] * stride_y0 + (offs_n % n)[None, :] * stride_y1
    for start_k in range(0, k, BLOCK_SIZE_K):
        mask_k = offs_k < k - start_k
        x = tl.load(x_ptrs, mask=mask_k[None, :], other=0.0)
        y = tl.load(y_ptrs, mask=mask_k[:, None], other=0.0)
        x_ptrs += BLOCK_SIZE_K * stride_x1
        y_ptrs += BLOCK_SIZE_K * stride_y0
"""
MM_NOMASK = """    for start_k in range(0, k, BLOCK_SIZE_K):
        offs_k = start_k + tl.arange(0, BLOCK_SIZE_K)
        x = tl.load(x_ptr + offs_m[:, None] * stride_x0 + offs_k[None, :] * stride_x1)
        y = tl.load(y_ptr + offs_k[:, None] * stride_y0 + offs_n[None, :] * stride_y1)
"""


def _module(text: str, name: str):
    path = Path(tempfile.mkdtemp()) / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _pin(module) -> None:
    from triton.runtime.autotuner import Autotuner

    for v in vars(module).values():
        if isinstance(v, Autotuner):
            v.configs = v.configs[:1]


def _time(fn) -> float:
    return float(triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median"))


def _variants(base: str, subs: dict[str, tuple[str, str]]) -> dict[str, str]:
    out = {"as emitted": base}
    for label, (old, new) in subs.items():
        assert old in base, label
        out[label] = base.replace(old, new)
    return out


def main() -> int:
    rows = []
    mm = (GOLD / "matmul.py").read_text()
    a = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
    b = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
    ref = None
    for label, text in _variants(
        mm,
        {
            "wrap m/n (% m)": (MM_LOOP_OLD, MM_WRAP),
            "pointer increments": (MM_LOOP_OLD, MM_PTR),
            "wrap + increments": (MM_LOOP_OLD, MM_BOTH),
            "no masks (4096 only)": (MM_LOOP_OLD, MM_NOMASK),
        },
    ).items():
        mod = _module(text, "mm_" + str(len(rows)))
        _pin(mod)
        out = mod.matmul(a, b)
        ref = out if ref is None else ref
        err = float((out.double() - ref.double()).norm() / ref.double().norm())
        t = _time(lambda mod=mod: mod.matmul(a, b))
        rows.append(("matmul cfg0", label, t, 2 * 4096**3 / t / 1e9, err))
    for name, args in (
        ("row_sum", (torch.randn(16384, 4096, device="cuda", dtype=torch.float16),)),
        ("gelu", (torch.randn(8192, 8192, device="cuda", dtype=torch.float16),)),
    ):
        base = (GOLD / f"{name}.py").read_text()
        ref = None
        for label, text in _variants(
            base,
            {
                "num_stages=2": ("num_stages=1", "num_stages=2"),
            },
        ).items():
            mod = _module(text, f"{name}_{len(rows)}")
            out = getattr(mod, name)(*args)
            ref = out if ref is None else ref
            err = float((out.double() - ref.double()).norm() / ref.double().norm())
            fn = getattr(mod, name)
            t = _time(lambda fn=fn, args=args: fn(*args))
            rows.append((name, label, t, 0.0, err))
    print(f"{'kernel':14s} {'variant':24s} {'ms':>8s} {'TFLOP/s':>8s} {'rel diff':>9s}")
    for r in rows:
        print(f"{r[0]:14s} {r[1]:24s} {r[2]:8.4f} {r[3]:8.0f} {r[4]:9.1e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
