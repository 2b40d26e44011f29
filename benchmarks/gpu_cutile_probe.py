"""Which cuTile spellings are fast (H100/H200, `cutile` bundle): hand-written variants, timed.

    python -m benchmarks.gpu_cutile_probe [--only softmax silu scaled_add splitk gemm gemm_persistent]

The second cuTile run (BENCHMARKS.md, 2026-12-06) left translations into cuTile slow where the
source is not: softmax 0.34x, SiLU 0.81x, scaled add 0.80x, split-K 0.09x, and the fp16 4096^3
GEMM at 0.83x cuBLAS. Each group below times the form the cuTile backend writes today
(``base``) beside spellings a cuTile engineer reaches for, so that the backend changes on
evidence:

* math: ``ct.exp(..., rounding_mode=APPROX)`` and ``ct.truediv(..., rounding_mode=FULL|APPROX)``
  (Triton's own ``tl.exp`` is ``ex2.approx`` and its fp32 ``/`` is ``div.full``; cuTile's
  defaults are the IEEE-rounded forms);
* memory: ``allow_tma=False`` on row and element-wise loads and stores; ``ct.gather`` rows;
  a persistent grid with an ``occupancy`` hint;
* atomics: ``ct.atomic_add`` with ``memory_order=RELAXED`` (its default is ACQ_REL);
* GEMM: a 1-D grid with GROUP_SIZE_M tile order, larger tiles, ``num_ctas=2`` clusters,
  ``occupancy``.

Every variant is checked against torch first (a wrong variant says so and is not timed).
fp16; ``triton.testing.do_bench`` medians (warm-up 25 ms, 200 ms of runs, fresh ``randn``
inputs larger than L2). Prints one JSON line per row, writes ``$OUT/gpu_cutile_probe.json``,
then a table.
"""

# Each timed lambda is called inside the iteration that made it, so late binding cannot bite.
# ruff: noqa: B023, E731

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import traceback
from collections.abc import Callable

import cuda.tile as ct
import torch
from triton.testing import do_bench

from benchmarks.common import ROOT

RM = ct.RoundingMode
ZERO, NEG_INF = ct.PaddingMode.ZERO, ct.PaddingMode.NEG_INF


def _ms(fn: Callable[[], object]) -> float:
    return float(do_bench(fn, warmup=25, rep=200, return_mode="median"))


def _load_module(path, name):
    from validation.runners import load_module

    return load_module(path, name)


def _pin(module) -> None:
    from triton.runtime.autotuner import Autotuner

    for value in vars(module).values():
        if isinstance(value, Autotuner):
            value.configs = value.configs[:1]


def _sms() -> int:
    return torch.cuda.get_device_properties(0).multi_processor_count


# --- softmax ------------------------------------------------------------------------------------


@ct.kernel
def softmax_base(x, out, ROWS: ct.Constant[int], BN: ct.Constant[int]):
    r = ct.bid(0)
    row = ct.astype(ct.load(x, index=(r, 0), shape=(ROWS, BN), padding_mode=NEG_INF), ct.float32)
    num = ct.exp(row - ct.max(row, axis=1, keepdims=True))
    den = ct.sum(num, axis=1, keepdims=True)
    ct.store(out, index=(r, 0), tile=ct.astype(num / den, out.dtype))


@ct.kernel
def softmax_math(
    x,
    out,
    ROWS: ct.Constant[int],
    BN: ct.Constant[int],
    DIV: ct.Constant[int],
    TMA: ct.Constant[int],
):
    # DIV: 0 IEEE `/`, 1 FULL, 2 APPROX; TMA: 1 default loads, 0 allow_tma=False.
    r = ct.bid(0)
    if TMA == 1:
        t = ct.load(x, index=(r, 0), shape=(ROWS, BN), padding_mode=NEG_INF)
    else:
        t = ct.load(x, index=(r, 0), shape=(ROWS, BN), padding_mode=NEG_INF, allow_tma=False)
    row = ct.astype(t, ct.float32)
    num = ct.exp(row - ct.max(row, axis=1, keepdims=True), rounding_mode=RM.APPROX)
    den = ct.sum(num, axis=1, keepdims=True)
    if DIV == 0:
        y = num / den
    elif DIV == 1:
        y = ct.truediv(num, den, rounding_mode=RM.FULL)
    else:
        y = ct.truediv(num, den, rounding_mode=RM.APPROX, flush_to_zero=True)
    if TMA == 1:
        ct.store(out, index=(r, 0), tile=ct.astype(y, out.dtype))
    else:
        ct.store(out, index=(r, 0), tile=ct.astype(y, out.dtype), allow_tma=False)


@ct.kernel
def softmax_notma_ieee(x, out, ROWS: ct.Constant[int], BN: ct.Constant[int]):
    r = ct.bid(0)
    t = ct.load(x, index=(r, 0), shape=(ROWS, BN), padding_mode=NEG_INF, allow_tma=False)
    row = ct.astype(t, ct.float32)
    num = ct.exp(row - ct.max(row, axis=1, keepdims=True))
    den = ct.sum(num, axis=1, keepdims=True)
    ct.store(out, index=(r, 0), tile=ct.astype(num / den, out.dtype), allow_tma=False)


@ct.kernel
def softmax_gather(x, out, n: int, BN: ct.Constant[int]):
    r = ct.bid(0)
    cols = ct.arange(BN, dtype=ct.int32)
    row = ct.astype(ct.gather(x, (r, cols), padding_value=-math.inf), ct.float32)
    num = ct.exp(row - ct.max(row, 0, keepdims=True), rounding_mode=RM.APPROX)
    den = ct.sum(num, 0, keepdims=True)
    y = ct.truediv(num, den, rounding_mode=RM.FULL)
    ct.scatter(out, (r, cols), ct.astype(y, out.dtype))


@ct.kernel(occupancy=4)
def softmax_persistent(x, out, n_rows: int, BN: ct.Constant[int], TMA: ct.Constant[int]):
    for r in range(ct.bid(0), n_rows, ct.num_blocks(0)):
        if TMA == 1:
            t = ct.load(x, index=(r, 0), shape=(1, BN), padding_mode=NEG_INF)
        else:
            t = ct.load(x, index=(r, 0), shape=(1, BN), padding_mode=NEG_INF, allow_tma=False)
        row = ct.astype(t, ct.float32)
        num = ct.exp(row - ct.max(row, axis=1, keepdims=True), rounding_mode=RM.APPROX)
        den = ct.sum(num, axis=1, keepdims=True)
        y = ct.astype(ct.truediv(num, den, rounding_mode=RM.FULL), out.dtype)
        if TMA == 1:
            ct.store(out, index=(r, 0), tile=y)
        else:
            ct.store(out, index=(r, 0), tile=y, allow_tma=False)


def group_softmax() -> list[dict]:
    x = torch.randn(16384, 4096, device="cuda", dtype=torch.float16) * 2
    ref = torch.softmax(x.float(), dim=1)
    src = _load_module(ROOT / "examples/triton/softmax.py", "probe_tt_softmax")
    _pin(src)
    bn = 1 << (x.size(1) - 1).bit_length()
    m = x.size(0)
    stream = torch.cuda.current_stream

    def launch(kernel, grid, args):
        out = torch.empty_like(x)
        ct.launch(stream(), grid, kernel, (x, out, *args))
        return out

    variants: dict[str, Callable[[], torch.Tensor]] = {
        "triton source": lambda: src.softmax(x),
        "torch.softmax": lambda: torch.softmax(x, dim=1),
    }
    for rows in (1, 2, 4):
        grid = (ct.cdiv(m, rows), 1, 1)
        variants[f"base ROWS={rows}"] = lambda g=grid, r=rows: launch(softmax_base, g, (r, bn))
        variants[f"no-TMA IEEE ROWS={rows}"] = lambda g=grid, r=rows: launch(
            softmax_notma_ieee, g, (r, bn)
        )
        for div, dname in ((0, "IEEE/"), (1, "FULL/"), (2, "APPROX/")):
            for tma in (1, 0):
                label = f"exp~ {dname} {'TMA' if tma else 'no-TMA'} ROWS={rows}"
                variants[label] = lambda g=grid, r=rows, d=div, t=tma: launch(
                    softmax_math, g, (r, bn, d, t)
                )
    variants["gather exp~ FULL/"] = lambda: launch(softmax_gather, (m, 1, 1), (x.size(1), bn))
    for occ in (2, 4, 8):
        k = softmax_persistent.replace_hints(occupancy=occ)
        for tma in (1, 0):
            variants[f"persistent occ={occ} {'TMA' if tma else 'no-TMA'}"] = (
                lambda k=k, o=occ, t=tma: launch(k, (min(m, _sms() * o), 1, 1), (m, bn, t))
            )
    return _run_group("softmax 16384x4096", variants, ref, "triton source")


# --- element-wise -------------------------------------------------------------------------------


@ct.kernel
def silu_kernel(
    x,
    out,
    BM: ct.Constant[int],
    BN: ct.Constant[int],
    MATH: ct.Constant[int],
    TMA: ct.Constant[int],
):
    # MATH: 0 as emitted today (ct.exp, IEEE `/`), 1 exp~ and FULL /, 2 exp~ and APPROX /.
    i, j = ct.bid(0), ct.bid(1)
    if TMA == 1:
        t = ct.load(x, index=(i, j), shape=(BM, BN), padding_mode=ZERO)
    else:
        t = ct.load(x, index=(i, j), shape=(BM, BN), padding_mode=ZERO, allow_tma=False)
    v = ct.astype(t, ct.float32)
    if MATH == 0:
        y = v * (1.0 / (1.0 + ct.exp(-v)))
    elif MATH == 1:
        y = ct.truediv(v, 1.0 + ct.exp(-v, rounding_mode=RM.APPROX), rounding_mode=RM.FULL)
    else:
        y = ct.truediv(
            v,
            1.0 + ct.exp(-v, rounding_mode=RM.APPROX),
            rounding_mode=RM.APPROX,
            flush_to_zero=True,
        )
    if TMA == 1:
        ct.store(out, index=(i, j), tile=ct.astype(y, out.dtype))
    else:
        ct.store(out, index=(i, j), tile=ct.astype(y, out.dtype), allow_tma=False)


@ct.kernel
def scaled_add_kernel(
    x, y, out, alpha: float, BM: ct.Constant[int], BN: ct.Constant[int], TMA: ct.Constant[int]
):
    i, j = ct.bid(0), ct.bid(1)
    if TMA == 1:
        a = ct.load(x, index=(i, j), shape=(BM, BN), padding_mode=ZERO)
        b = ct.load(y, index=(i, j), shape=(BM, BN), padding_mode=ZERO)
        ct.store(out, index=(i, j), tile=ct.astype(a + alpha * b, out.dtype))
    else:
        a = ct.load(x, index=(i, j), shape=(BM, BN), padding_mode=ZERO, allow_tma=False)
        b = ct.load(y, index=(i, j), shape=(BM, BN), padding_mode=ZERO, allow_tma=False)
        ct.store(out, index=(i, j), tile=ct.astype(a + alpha * b, out.dtype), allow_tma=False)


def _tiles(shape, bm, bn):
    return (ct.cdiv(shape[0], bm), ct.cdiv(shape[1], bn), 1)


def group_silu() -> list[dict]:
    x = torch.randn(8192, 8192, device="cuda", dtype=torch.float16) * 3
    ref = torch.nn.functional.silu(x.float())
    tt = _load_module(ROOT / "examples/helion/expected_triton/silu.py", "probe_tt_silu")
    _pin(tt)

    def run(bm, bn, math_, tma):
        out = torch.empty_like(x)
        ct.launch(
            torch.cuda.current_stream(),
            _tiles(x.shape, bm, bn),
            silu_kernel,
            (x, out, bm, bn, math_, tma),
        )
        return out

    variants = {"triton translation": lambda: tt.silu(x)}
    for bm, bn in ((32, 128), (64, 128), (16, 256)):
        for math_, mname in ((0, "as today"), (1, "exp~ FULL/"), (2, "exp~ APPROX/")):
            for tma in (1, 0):
                label = f"{bm}x{bn} {mname} {'TMA' if tma else 'no-TMA'}"
                variants[label] = lambda a=bm, b=bn, m_=math_, t=tma: run(a, b, m_, t)
    return _run_group("silu 8192^2", variants, ref, "triton translation")


def group_scaled_add() -> list[dict]:
    x = torch.randn(8192, 8192, device="cuda", dtype=torch.float16)
    y = torch.randn(8192, 8192, device="cuda", dtype=torch.float16)
    alpha = 0.37
    ref = x.float() + alpha * y.float()
    tt = _load_module(ROOT / "examples/helion/expected_triton/scaled_add.py", "probe_tt_sadd")
    _pin(tt)

    def run(bm, bn, tma):
        out = torch.empty_like(x)
        ct.launch(
            torch.cuda.current_stream(),
            _tiles(x.shape, bm, bn),
            scaled_add_kernel,
            (x, y, out, alpha, bm, bn, tma),
        )
        return out

    variants = {"triton translation": lambda: tt.scaled_add(x, y, alpha)}
    for bm, bn in ((32, 128), (64, 128), (64, 64), (16, 256)):
        for tma in (1, 0):
            label = f"{bm}x{bn} {'TMA' if tma else 'no-TMA'}"
            variants[label] = lambda a=bm, b=bn, t=tma: run(a, b, t)
    return _run_group("scaled_add 8192^2", variants, ref, "triton translation")


# --- split-K --------------------------------------------------------------------------------


@ct.kernel
def splitk_kernel(
    a,
    b,
    c,
    SPLIT_K: int,
    BM: ct.Constant[int],
    BN: ct.Constant[int],
    BK: ct.Constant[int],
    RELAXED: ct.Constant[int],
):
    tm, tn, pk = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((BM, BN), dtype=ct.float32)
    for tk in range(pk, ct.cdiv(a.shape[1], BK), SPLIT_K):
        acc = ct.mma(
            ct.load(a, index=(tm, tk), shape=(BM, BK), padding_mode=ZERO),
            ct.load(b, index=(tk, tn), shape=(BK, BN), padding_mode=ZERO),
            acc,
        )
    idx = (
        (tm * BM + ct.arange(BM, dtype=ct.int32))[:, None],
        (tn * BN + ct.arange(BN, dtype=ct.int32))[None, :],
    )
    if RELAXED == 1:
        ct.atomic_add(c, idx, acc, memory_order=ct.MemoryOrder.RELAXED)
    else:
        ct.atomic_add(c, idx, acc)


@ct.kernel
def splitk_partial(
    a, b, part, SPLIT_K: int, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]
):
    tm, tn, pk = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((BM, BN), dtype=ct.float32)
    for tk in range(pk, ct.cdiv(a.shape[1], BK), SPLIT_K):
        acc = ct.mma(
            ct.load(a, index=(tm, tk), shape=(BM, BK), padding_mode=ZERO),
            ct.load(b, index=(tk, tn), shape=(BK, BN), padding_mode=ZERO),
            acc,
        )
    ct.store(part, index=(pk, tm, tn), tile=ct.reshape(acc, (1, BM, BN)))


def group_splitk() -> list[dict]:
    rows = []
    src = _load_module(ROOT / "examples/triton/matmul_splitk.py", "probe_tt_splitk")
    tr = _load_module(ROOT / "examples/triton/expected_cutile/matmul_splitk.py", "probe_cu_splitk")
    for m, k, n in ((1000, 999, 1001), (129, 4001, 131), (512, 16384, 512)):
        a = torch.randn(m, k, device="cuda", dtype=torch.float16)
        b = torch.randn(k, n, device="cuda", dtype=torch.float16)
        ref = a.float() @ b.float()
        split = 4

        def run(relaxed, bm=64, bn=64, bk=32):
            c = torch.zeros(m, n, device="cuda", dtype=torch.float32)
            ct.launch(
                torch.cuda.current_stream(),
                (ct.cdiv(m, bm), ct.cdiv(n, bn), split),
                splitk_kernel,
                (a, b, c, split, bm, bn, bk, relaxed),
            )
            return c.to(a.dtype)

        def two_pass(bm=64, bn=64, bk=32):
            part = torch.empty(split, m, n, device="cuda", dtype=torch.float32)
            ct.launch(
                torch.cuda.current_stream(),
                (ct.cdiv(m, bm), ct.cdiv(n, bn), split),
                splitk_partial,
                (a, b, part, split, bm, bn, bk),
            )
            return part.sum(0).to(a.dtype)

        variants = {
            "triton source": lambda: src.matmul_splitk(a, b, split),
            "cuTile golden": lambda: tr.matmul_splitk(a, b, split),
            "atomic ACQ_REL": lambda: run(0),
            "atomic RELAXED": lambda: run(1),
            "atomic RELAXED 128x128x64": lambda: run(1, 128, 128, 64),
            "partials + torch sum": lambda: two_pass(),
        }
        rows += _run_group(f"splitk {m}x{k}x{n}", variants, ref, "triton source", tol=2e-2)
    return rows


# --- GEMM -----------------------------------------------------------------------------------


@ct.kernel
def gemm_2d(a, b, c, BM: ct.Constant[int], BN: ct.Constant[int], BK: ct.Constant[int]):
    tm, tn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((BM, BN), dtype=ct.float32)
    for tk in range(ct.cdiv(a.shape[1], BK)):
        acc = ct.mma(
            ct.load(a, index=(tm, tk), shape=(BM, BK), padding_mode=ZERO),
            ct.load(b, index=(tk, tn), shape=(BK, BN), padding_mode=ZERO),
            acc,
        )
    ct.store(c, index=(tm, tn), tile=ct.astype(acc, c.dtype))


@ct.kernel
def gemm_grouped(
    a,
    b,
    c,
    m: int,
    n: int,
    BM: ct.Constant[int],
    BN: ct.Constant[int],
    BK: ct.Constant[int],
    GROUP_M: ct.Constant[int],
):
    pid = ct.bid(0)
    num_m = ct.cdiv(m, BM)
    num_n = ct.cdiv(n, BN)
    in_group = GROUP_M * num_n
    first_m = (pid // in_group) * GROUP_M
    group_m = min(num_m - first_m, GROUP_M)
    tm = first_m + (pid % in_group) % group_m
    tn = (pid % in_group) // group_m
    acc = ct.zeros((BM, BN), dtype=ct.float32)
    for tk in range(ct.cdiv(a.shape[1], BK)):
        acc = ct.mma(
            ct.load(a, index=(tm, tk), shape=(BM, BK), padding_mode=ZERO),
            ct.load(b, index=(tk, tn), shape=(BK, BN), padding_mode=ZERO),
            acc,
        )
    ct.store(c, index=(tm, tn), tile=ct.astype(acc, c.dtype))


def _grouped_gemm(a, b, bm, bn, bk, hints, group=8) -> Callable[[], torch.Tensor]:
    """A launch of ``gemm_grouped`` on the square operands ``a``, ``b`` (a new output each call)."""
    size = a.shape[0]
    k = gemm_grouped.replace_hints(**hints) if hints else gemm_grouped

    def call():
        c = torch.empty(size, size, device="cuda", dtype=torch.float16)
        grid = (ct.cdiv(size, bm) * ct.cdiv(size, bn), 1, 1)
        ct.launch(torch.cuda.current_stream(), grid, k, (a, b, c, size, size, bm, bn, bk, group))
        return c

    return call


def _gemm_rows(group: str, variants: dict, ref: torch.Tensor, size: int) -> list[dict]:
    """``variants`` of a square fp16 GEMM run against torch, with their TFLOP/s."""
    flops = 2 * size**3
    rows = _run_group(group, variants, ref, "torch.matmul", tol=1e-2)
    for r in rows:
        if "ms" in r:
            r["tflops"] = flops / (r["ms"] * 1e-3) / 1e12
    return rows


def group_gemm() -> list[dict]:
    size = 4096
    a = torch.randn(size, size, device="cuda", dtype=torch.float16)
    b = torch.randn(size, size, device="cuda", dtype=torch.float16)
    ref = a.float() @ b.float()
    stream = torch.cuda.current_stream

    def two_d(bm, bn, bk, hints):
        k = gemm_2d.replace_hints(**hints) if hints else gemm_2d

        def call():
            c = torch.empty(size, size, device="cuda", dtype=torch.float16)
            ct.launch(stream(), (ct.cdiv(size, bm), ct.cdiv(size, bn), 1), k, (a, b, c, bm, bn, bk))
            return c

        return call

    def grouped(bm, bn, bk, hints, group=8):
        return _grouped_gemm(a, b, bm, bn, bk, hints, group)

    variants = {"torch.matmul": lambda: a @ b}
    for bm, bn, bk in ((128, 128, 64), (128, 256, 64), (256, 128, 64), (128, 128, 32)):
        for hints in ({}, {"num_ctas": 2}, {"occupancy": 2}):
            hname = ",".join(f"{k}={v}" for k, v in hints.items()) or "no hints"
            variants[f"2-D {bm}x{bn}x{bk} {hname}"] = two_d(bm, bn, bk, hints)
            variants[f"grouped {bm}x{bn}x{bk} {hname}"] = grouped(bm, bn, bk, hints)
    variants["grouped 256x256x64 num_ctas=2"] = grouped(256, 256, 64, {"num_ctas": 2})
    variants["grouped 128x256x64 num_ctas=2,occupancy=1"] = grouped(
        128, 256, 64, {"num_ctas": 2, "occupancy": 1}
    )
    return _gemm_rows("gemm fp16 4096^3", variants, ref, size)


@ct.kernel
def gemm_persistent(
    a,
    b,
    c,
    m: int,
    n: int,
    BM: ct.Constant[int],
    BN: ct.Constant[int],
    BK: ct.Constant[int],
    GROUP_M: ct.Constant[int],
    LATENCY: ct.Constant[int],
):
    """``gemm_grouped`` walked by a fixed grid: each block takes every ``num_blocks``-th tile.
    ``LATENCY`` > 0 is the operand loads' ``latency=`` hint (0: the compiler's estimate)."""
    num_m = ct.cdiv(m, BM)
    num_n = ct.cdiv(n, BN)
    in_group = GROUP_M * num_n
    for pid in range(ct.bid(0), num_m * num_n, ct.num_blocks(0)):
        first_m = (pid // in_group) * GROUP_M
        group_m = min(num_m - first_m, GROUP_M)
        tm = first_m + (pid % in_group) % group_m
        tn = (pid % in_group) // group_m
        acc = ct.zeros((BM, BN), dtype=ct.float32)
        for tk in range(ct.cdiv(a.shape[1], BK)):
            if LATENCY > 0:
                ta = ct.load(a, index=(tm, tk), shape=(BM, BK), padding_mode=ZERO, latency=LATENCY)
                tb = ct.load(b, index=(tk, tn), shape=(BK, BN), padding_mode=ZERO, latency=LATENCY)
            else:
                ta = ct.load(a, index=(tm, tk), shape=(BM, BK), padding_mode=ZERO)
                tb = ct.load(b, index=(tk, tn), shape=(BK, BN), padding_mode=ZERO)
            acc = ct.mma(ta, tb, acc)
        ct.store(c, index=(tm, tn), tile=ct.astype(acc, c.dtype))


def group_gemm_persistent() -> list[dict]:
    """The 4096^3 GEMM's best grouped form (128x128x64, occupancy 2: 0.915 of torch on the
    H100) against persistent forms (a grid of SMs x occupancy blocks) and load latency hints."""
    size = 4096
    a = torch.randn(size, size, device="cuda", dtype=torch.float16)
    b = torch.randn(size, size, device="cuda", dtype=torch.float16)
    ref = a.float() @ b.float()
    stream = torch.cuda.current_stream
    sms = _sms()

    def persistent(bm, bn, bk, hints, latency=0, group=8):
        k = gemm_persistent.replace_hints(**hints) if hints else gemm_persistent
        blocks = min(sms * hints.get("occupancy", 1) // hints.get("num_ctas", 1),
                     ct.cdiv(size, bm) * ct.cdiv(size, bn))  # fmt: skip

        def call():
            c = torch.empty(size, size, device="cuda", dtype=torch.float16)
            grid = (blocks * hints.get("num_ctas", 1), 1, 1)
            ct.launch(stream(), grid, k, (a, b, c, size, size, bm, bn, bk, group, latency))
            return c

        return call

    def grouped(bm, bn, bk, hints, group=8):
        return _grouped_gemm(a, b, bm, bn, bk, hints, group)

    variants = {
        "torch.matmul": lambda: a @ b,
        "grouped 128x128x64 occupancy=2": grouped(128, 128, 64, {"occupancy": 2}),
    }
    for hints in ({"occupancy": 1}, {"occupancy": 2}):
        hname = ",".join(f"{k}={v}" for k, v in hints.items())
        for latency in (0, 2, 4, 8):
            variants[f"persistent 128x128x64 {hname} latency={latency or 'auto'}"] = persistent(
                128, 128, 64, hints, latency
            )
    variants["persistent 128x256x64 num_ctas=2 latency=auto"] = persistent(
        128, 256, 64, {"num_ctas": 2}
    )
    variants["persistent 256x128x64 num_ctas=2 latency=auto"] = persistent(
        256, 128, 64, {"num_ctas": 2}
    )
    return _gemm_rows("gemm persistent 4096^3", variants, ref, size)


# --- attention ----------------------------------------------------------------------------------


@ct.kernel
def attn_probe(
    Q,
    K,
    V,
    Out,
    qk_scale: float,
    BM: ct.Constant[int],
    BN: ct.Constant[int],
    D: ct.Constant[int],
    MASK: ct.Constant[int],
    FTZ: ct.Constant[int],
    KT: ct.Constant[int],
):
    # MASK: 0 every use re-masked (the translation today), 1 one `where` on qk, 2 that `where`
    # only on the tile that crosses the end. FTZ: exp2 flush_to_zero. KT: 0 transpose of a
    # [BN, D] load, 1 an order=(0, 1, 3, 2) load of [D, BN].
    tm, h, z = ct.bid(0), ct.bid(1), ct.bid(2)
    n_ctx = K.shape[2]
    m_i = ct.full((BM,), float("-inf"), dtype=ct.float32)
    l_i = ct.full((BM,), 1.0, dtype=ct.float32)
    acc = ct.zeros((BM, D), dtype=ct.float32)
    q = ct.reshape(ct.load(Q, index=(z, h, tm, 0), shape=(1, 1, BM, D), padding_mode=ZERO), (BM, D))
    for tn in range(ct.cdiv(n_ctx, BN)):
        if KT == 1:
            k = ct.reshape(
                ct.load(
                    K,
                    index=(z, h, 0, tn),
                    shape=(1, 1, D, BN),
                    order=(0, 1, 3, 2),
                    padding_mode=ZERO,
                ),
                (D, BN),
            )
        else:
            k = ct.transpose(
                ct.reshape(
                    ct.load(K, index=(z, h, tn, 0), shape=(1, 1, BN, D), padding_mode=ZERO),
                    (BN, D),
                )
            )
        qk = ct.mma(q, k, ct.zeros((BM, BN), dtype=ct.float32))
        keep = (tn * BN + ct.arange(BN, dtype=ct.int32) < n_ctx)[None, :]
        if MASK == 2:
            if (tn + 1) * BN > n_ctx:
                qk = ct.where(keep, qk, float("-inf"))
        else:
            qk = ct.where(keep, qk, float("-inf"))
        if MASK == 0:
            m_ij = ct.maximum(m_i, ct.max(ct.where(keep, qk, float("-inf")), axis=1) * qk_scale)
        else:
            m_ij = ct.maximum(m_i, ct.max(qk, axis=1) * qk_scale)
        if FTZ == 1:
            p = ct.exp2(qk * qk_scale - m_ij[:, None], flush_to_zero=True)
            alpha = ct.exp2(m_i - m_ij, flush_to_zero=True)
        else:
            p = ct.exp2(qk * qk_scale - m_ij[:, None])
            alpha = ct.exp2(m_i - m_ij)
        v = ct.reshape(
            ct.load(V, index=(z, h, tn, 0), shape=(1, 1, BN, D), padding_mode=ZERO), (BN, D)
        )
        if MASK == 0:
            l_i = l_i * alpha + ct.sum(ct.where(keep, p, 0.0), axis=1)
            pv = ct.where(keep, ct.astype(p, V.dtype), 0.0)
            v = ct.where(ct.reshape(keep, (BN, 1)), v, 0.0)
        else:
            l_i = l_i * alpha + ct.sum(p, axis=1)
            pv = ct.astype(p, V.dtype)
        acc = ct.mma(ct.astype(pv, V.dtype), ct.astype(v, V.dtype), acc * alpha[:, None])
        m_i = m_ij
    out = ct.astype(acc / l_i[:, None], Out.dtype)
    ct.store(Out, index=(z, h, tm, 0), tile=ct.reshape(out, (1, 1, BM, D)))


def group_attention() -> list[dict]:
    rows = []
    src = _load_module(ROOT / "examples/triton/attention.py", "probe_tt_attention")
    tr = _load_module(ROOT / "examples/triton/expected_cutile/attention.py", "probe_cu_attention")
    for z, h, n, d in ((4, 16, 4096, 64), (2, 3, 1000, 64)):
        q, k, v = (torch.randn(z, h, n, d, device="cuda", dtype=torch.float16) for _ in range(3))
        scale = d**-0.5
        ref = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float())

        def run(bm, bn, mask, ftz, kt, occ=1):
            kern = attn_probe.replace_hints(occupancy=occ) if occ != 1 else attn_probe
            o = torch.empty_like(q)
            ct.launch(
                torch.cuda.current_stream(),
                (ct.cdiv(n, bm), h, z),
                kern,
                (q, k, v, o, scale * 1.44269504, bm, bn, d, mask, ftz, kt),
            )
            return o

        variants = {
            "triton source": lambda: src.attention(q, k, v, scale),
            "cuTile golden": lambda: tr.attention(q, k, v, scale),
            "torch sdpa": lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v),
        }
        variants["64x64 mask=0"] = lambda: run(64, 64, 0, 0, 0)
        # One mask (the scores'), as the backend writes since the pad tracker: tiles and the
        # exp2 flush, the two levers the first probe found (occupancy 2 was 40x slower).
        for bm, bn in ((64, 64), (128, 64), (64, 128), (128, 128)):
            for ftz in (0, 1):
                variants[f"{bm}x{bn} mask=1 ftz={ftz}"] = lambda a=bm, b=bn, f=ftz: run(
                    a, b, 1, f, 0
                )
        variants["128x128 mask=1 ftz=1 kT-load"] = lambda: run(128, 128, 1, 1, 1)
        rows += _run_group(f"attention {z}x{h}x{n}x{d}", variants, ref, "triton source", tol=2e-2)
    return rows


# --- cross entropy ------------------------------------------------------------------------------


@ct.kernel
def xent_probe(
    X,
    Y,
    loss,
    ignore_index: int,
    BLOCK: ct.Constant[int],
    MASK: ct.Constant[int],
    TMA: ct.Constant[int],
):
    # MASK 0: the reductions re-masked (the translation today); 1: the NEG_INF padding alone.
    row = ct.bid(0)
    y = ct.reshape(ct.load(Y, index=(row,), shape=(1,)), ())
    if y == ignore_index:
        ct.store(loss, index=(row,), tile=0.0)
    else:
        m = float("-inf")
        d = 0.0
        x_y = ct.astype(ct.reshape(ct.load(X, index=(row, y), shape=(1, 1)), ()), ct.float32)
        for t in range(ct.cdiv(X.shape[1], BLOCK)):
            if TMA == 1:
                xb = ct.load(X, index=(row, t), shape=(1, BLOCK), padding_mode=NEG_INF)
            else:
                xb = ct.load(
                    X, index=(row, t), shape=(1, BLOCK), padding_mode=NEG_INF, allow_tma=False
                )
            xb = ct.astype(ct.reshape(xb, (BLOCK,)), ct.float32)
            keep = t * BLOCK + ct.arange(BLOCK, dtype=ct.int32) < X.shape[1]
            if MASK == 0:
                m_new = ct.maximum(m, ct.max(ct.where(keep, xb, float("-inf")), axis=0))
                e = ct.where(keep, ct.exp(xb - m_new, rounding_mode=RM.APPROX), 0.0)
            else:
                m_new = ct.maximum(m, ct.max(xb, axis=0))
                e = ct.exp(xb - m_new, rounding_mode=RM.APPROX)
            d = d * ct.exp(m - m_new, rounding_mode=RM.APPROX) + ct.sum(e, axis=0)
            m = m_new
        ct.store(loss, index=(row,), tile=m + ct.log(d) - x_y)


def group_cross_entropy() -> list[dict]:
    src = _load_module(ROOT / "examples/triton/cross_entropy.py", "probe_tt_xent")
    tr = _load_module(ROOT / "examples/triton/expected_cutile/cross_entropy.py", "probe_cu_xent")
    x = torch.randn(4096, 50257, device="cuda", dtype=torch.float16)
    y = torch.randint(0, x.size(1), (x.size(0),), device="cuda")
    ref = torch.nn.functional.cross_entropy(x.float(), y, reduction="none")

    def run(block, mask, tma, occ=1):
        kern = xent_probe.replace_hints(occupancy=occ) if occ != 1 else xent_probe
        out = torch.empty(x.size(0), device="cuda", dtype=torch.float32)
        ct.launch(
            torch.cuda.current_stream(),
            (x.size(0), 1, 1),
            kern,
            (x, y, out, -100, block, mask, tma),
        )
        return out

    variants = {
        "triton source": lambda: src.cross_entropy(x, y),
        "cuTile golden": lambda: tr.cross_entropy(x, y),
        "torch": lambda: torch.nn.functional.cross_entropy(x, y, reduction="none"),
    }
    for block in (32768, 8192, 4096, 2048, 1024):
        for mask in (0, 1):
            variants[f"BLOCK={block} mask={mask}"] = lambda b=block, m=mask: run(b, m, 0)
    for block in (4096, 2048):
        variants[f"BLOCK={block} mask=1 TMA"] = lambda b=block: run(b, 1, 1)
        for occ in (2, 4):
            variants[f"BLOCK={block} mask=1 occ={occ}"] = lambda b=block, o=occ: run(b, 1, 0, o)
    return _run_group("cross entropy 4096x50257", variants, ref, "triton source", tol=1e-3)


# --- harness --------------------------------------------------------------------------------


def _err(out: torch.Tensor, ref: torch.Tensor) -> float:
    o, r = out.double(), ref.double()
    if not torch.isfinite(o).all():
        return math.inf
    return float((o - r).norm() / r.norm())


_SHARD = (0, 1)  # (index, count): this process times variants whose running number % count == index
_counter = [0]


def _mine() -> bool:
    _counter[0] += 1
    return (_counter[0] - 1) % _SHARD[1] == _SHARD[0]


def _run_group(
    group: str,
    variants: dict[str, Callable[[], torch.Tensor]],
    ref: torch.Tensor,
    baseline: str,
    tol: float = 5e-3,
) -> list[dict]:
    rows = []
    for label, fn in variants.items():
        if not _mine():
            continue
        row: dict = {"group": group, "variant": label}
        try:
            out = fn()
            torch.cuda.synchronize()
            row["rel_err"] = _err(out, ref)
            if row["rel_err"] > tol:
                row["error"] = f"not equal (rel. err {row['rel_err']:.1e})"
            else:
                row["ms"] = _ms(fn)
        except Exception as exc:  # one failing variant must not end the probe
            row["error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:150]}"
            traceback.print_exc(file=sys.stderr)
        print(json.dumps(row), flush=True)
        rows.append(row)
    base = next((r.get("ms") for r in rows if r["variant"] == baseline), None)
    for r in rows:
        if base and "ms" in r:
            r["vs_baseline"] = base / r["ms"]
    return rows


GROUPS = {
    "softmax": group_softmax,
    "silu": group_silu,
    "scaled_add": group_scaled_add,
    "splitk": group_splitk,
    "gemm": group_gemm,
    "gemm_persistent": group_gemm_persistent,
    "attention": group_attention,
    "cross_entropy": group_cross_entropy,
}


def main() -> int:
    global _SHARD
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", choices=sorted(GROUPS), default=list(GROUPS))
    parser.add_argument("--shard", default="1/1", help="I/N: run every N-th variant (warm_shards)")
    args = parser.parse_args()
    i, n = (int(v) for v in args.shard.split("/"))
    _SHARD = (i - 1, n)
    print(
        f"# {torch.cuda.get_device_name(0)}, torch {torch.__version__}, cuda-tile "
        f"{ct.__version__ if hasattr(ct, '__version__') else '?'}",
        flush=True,
    )
    rows: list[dict] = []
    for name in args.only:
        try:
            rows += GROUPS[name]()
        except Exception:
            traceback.print_exc()
    out = os.environ.get("OUT")
    if out:
        with open(os.path.join(out, "gpu_cutile_probe.json"), "w") as f:
            json.dump(rows, f, indent=1)
    print("\n| group | variant | ms | vs baseline | TFLOP/s | note |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        ms = f"{r['ms']:.4f}" if "ms" in r else ""
        vs = f"{r['vs_baseline']:.3f}" if "vs_baseline" in r else ""
        tf = f"{r['tflops']:.0f}" if "tflops" in r else ""
        print(f"| {r['group']} | {r['variant']} | {ms} | {vs} | {tf} | {r.get('error', '')} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
