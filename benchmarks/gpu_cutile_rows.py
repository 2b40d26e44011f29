"""How many rows per cuTile program (H200, `cutile` bundle): the shapes the backend emits, timed.

    python -m benchmarks.gpu_cutile_rows

Hand-written cuTile kernels in the forms the cuTile backend writes for row kernels (issue 14):
softmax as one 1-D whole-row tile per program (the old form) and as ``(ROWS, BLOCK_N)`` tiles
(reductions with ``keepdims``, or ``(ROWS,)`` statistics expanded), row sums and rms norm at
``ROWS`` in 1..32, a looped row sum at several ``ROWS x BLOCK_N``, a ragged-M exactness check,
and the tutorial matmul's cuTile translation at each tile of its tuning space (plus the search's
pick). fp16, 16384 x 4096 rows, ``triton.testing.do_bench`` medians in ms (matmul: TFLOP/s).
Prints each row as it goes and writes ``$OUT/gpu_cutile_rows.json``; it informs
``[backend.row_space]`` in ``grammars/cutile.toml``.
"""

# Each timed lambda is called inside the iteration that made it (the loop variables it reads
# are that iteration's), so late binding cannot bite.
# ruff: noqa: B023, E731

from __future__ import annotations

import importlib.util
import json
import os
import time

import cuda.tile as ct
import torch
from triton.testing import do_bench


@ct.kernel
def softmax_1d(x, out, BN: ct.Constant[int]):
    r = ct.bid(0)
    row = ct.astype(
        ct.reshape(
            ct.load(x, index=(r, 0), shape=(1, BN), padding_mode=ct.PaddingMode.NEG_INF), (BN,)
        ),
        ct.float32,
    )
    num = ct.exp(row - ct.max(row, axis=0))
    den = ct.sum(num, axis=0)
    ct.store(out, index=(r, 0), tile=ct.reshape(ct.astype(num / den, out.dtype), (1, BN)))


@ct.kernel
def softmax_2d(x, out, ROWS: ct.Constant[int], BN: ct.Constant[int]):
    r = ct.bid(0)
    row = ct.astype(
        ct.load(x, index=(r, 0), shape=(ROWS, BN), padding_mode=ct.PaddingMode.NEG_INF), ct.float32
    )
    num = ct.exp(row - ct.max(row, axis=1, keepdims=True))
    den = ct.sum(num, axis=1, keepdims=True)
    ct.store(out, index=(r, 0), tile=ct.astype(num / den, out.dtype))


@ct.kernel
def softmax_2d_where(x, out, n: int, ROWS: ct.Constant[int], BN: ct.Constant[int]):
    r = ct.bid(0)
    mask = ct.arange(BN, dtype=ct.int32) < n
    row = ct.astype(
        ct.load(x, index=(r, 0), shape=(ROWS, BN), padding_mode=ct.PaddingMode.ZERO), ct.float32
    )
    m = ct.max(ct.where(mask[None, :], row, float("-inf")), axis=1, keepdims=True)
    num = ct.exp(row - m)
    den = ct.sum(ct.where(mask[None, :], num, 0.0), axis=1, keepdims=True)
    ct.store(out, index=(r, 0), tile=ct.astype(num / den, out.dtype))


@ct.kernel
def softmax_2d_noexpand(x, out, ROWS: ct.Constant[int], BN: ct.Constant[int]):
    # row stats as (ROWS,) tiles, expanded with [:, None]
    r = ct.bid(0)
    row = ct.astype(
        ct.load(x, index=(r, 0), shape=(ROWS, BN), padding_mode=ct.PaddingMode.NEG_INF), ct.float32
    )
    mx = ct.max(row, axis=1)
    num = ct.exp(row - ct.expand_dims(mx, 1))
    den = ct.sum(num, axis=1)
    ct.store(out, index=(r, 0), tile=ct.astype(num / ct.expand_dims(den, 1), out.dtype))


@ct.kernel
def rowsum_2d(x, out, ROWS: ct.Constant[int], BN: ct.Constant[int]):
    r = ct.bid(0)
    t = ct.astype(
        ct.load(x, index=(r, 0), shape=(ROWS, BN), padding_mode=ct.PaddingMode.ZERO), ct.float32
    )
    ct.store(out, index=(r,), tile=ct.astype(ct.sum(t, axis=1), out.dtype))


@ct.kernel
def rms_2d(x, w, out, rstd, n: int, eps: float, ROWS: ct.Constant[int], BN: ct.Constant[int]):
    r = ct.bid(0)
    t = ct.astype(
        ct.load(x, index=(r, 0), shape=(ROWS, BN), padding_mode=ct.PaddingMode.ZERO), ct.float32
    )
    wt = ct.astype(
        ct.load(w, index=(0,), shape=(BN,), padding_mode=ct.PaddingMode.ZERO), ct.float32
    )
    rs = ct.rsqrt(ct.sum(t * t, axis=1) / n + eps)
    ct.store(rstd, index=(r,), tile=rs)
    ct.store(out, index=(r, 0), tile=ct.astype(t * ct.expand_dims(rs, 1) * wt, out.dtype))


@ct.kernel
def rowsum_loop(x, out, ROWS: ct.Constant[int], BN: ct.Constant[int]):
    # looped reduction (two-pass softmax / layer norm shape): block of BN cols
    r = ct.bid(0)
    acc = ct.zeros((ROWS,), dtype=ct.float32)
    for j in range(ct.cdiv(x.shape[1], BN)):
        t = ct.astype(
            ct.load(x, index=(r, j), shape=(ROWS, BN), padding_mode=ct.PaddingMode.ZERO), ct.float32
        )
        acc = acc + ct.sum(t, axis=1)
    ct.store(out, index=(r,), tile=ct.astype(acc, out.dtype))


def launch(kernel, grid, args):
    ct.launch(torch.cuda.current_stream(), grid, kernel, args)


def main():
    torch.manual_seed(0)
    M, N = 16384, 4096
    x = torch.randn(M, N, device="cuda", dtype=torch.float16) * 2
    out = torch.empty_like(x)
    ref = torch.softmax(x.float(), -1)
    res = {}
    res["torch_softmax"] = do_bench(lambda: torch.softmax(x, -1))
    res["softmax_1d"] = do_bench(lambda: launch(softmax_1d, (M, 1, 1), (x, out, N)))
    for kname, k in [("2d", softmax_2d), ("2d_noexpand", softmax_2d_noexpand)]:
        for R in (1, 2, 4, 8, 16, 32):
            try:
                f = lambda: launch(k, (ct.cdiv(M, R), 1, 1), (x, out, R, N))
                f()
                torch.cuda.synchronize()
                err = (out.float() - ref).abs().max().item()
                res[f"softmax_{kname}_R{R}"] = (do_bench(f), err)
            except Exception as e:
                res[f"softmax_{kname}_R{R}"] = repr(e)[:200]
            print(kname, R, res[f"softmax_{kname}_R{R}"], flush=True)
    for R in (1, 2, 4, 8, 16):
        try:
            f = lambda: launch(softmax_2d_where, (ct.cdiv(M, R), 1, 1), (x, out, N, R, N))
            res[f"softmax_where_R{R}"] = do_bench(f)
        except Exception as e:
            res[f"softmax_where_R{R}"] = repr(e)[:200]
    # ragged M: 1001 rows of 1001 cols
    xr = torch.randn(1001, 1001, device="cuda", dtype=torch.float16)
    outr = torch.full_like(xr, float("nan"))
    launch(softmax_2d, (ct.cdiv(1001, 8), 1, 1), (xr, outr, 8, 1024))
    torch.cuda.synchronize()
    res["ragged_err"] = (outr.float() - torch.softmax(xr.float(), -1)).abs().max().item()
    rs = torch.empty(M, device="cuda", dtype=torch.float16)
    res["torch_rowsum"] = do_bench(lambda: x.sum(1))
    for R in (1, 2, 4, 8, 16, 32):
        try:
            res[f"rowsum_R{R}"] = do_bench(
                lambda: launch(rowsum_2d, (ct.cdiv(M, R), 1, 1), (x, rs, R, N))
            )
        except Exception as e:
            res[f"rowsum_R{R}"] = repr(e)[:200]
    for R, BN in (
        (1, 1024),
        (2, 1024),
        (4, 1024),
        (8, 512),
        (8, 1024),
        (16, 256),
        (16, 512),
        (32, 256),
    ):
        try:
            res[f"rowsum_loop_R{R}_BN{BN}"] = do_bench(
                lambda: launch(rowsum_loop, (ct.cdiv(M, R), 1, 1), (x, rs, R, BN))
            )
        except Exception as e:
            res[f"rowsum_loop_R{R}_BN{BN}"] = repr(e)[:200]
    w = torch.randn(N, device="cuda", dtype=torch.float16)
    rstd = torch.empty(M, device="cuda", dtype=torch.float32)
    for R in (1, 2, 4, 8, 16):
        try:
            res[f"rms_R{R}"] = do_bench(
                lambda: launch(rms_2d, (ct.cdiv(M, R), 1, 1), (x, w, out, rstd, N, 1e-6, R, N))
            )
        except Exception as e:
            res[f"rms_R{R}"] = repr(e)[:200]
    spec = importlib.util.spec_from_file_location("mm", "examples/triton/expected_cutile/matmul.py")
    mm = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mm)
    a = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
    b = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
    c = torch.empty(4096, 4096, device="cuda", dtype=torch.float16)
    res["torch_mm_tflops"] = 2 * 4096**3 / do_bench(lambda: a @ b) / 1e9
    for bm, bn, bk in [
        (128, 256, 64),
        (64, 256, 32),
        (128, 128, 32),
        (128, 64, 32),
        (64, 128, 32),
        (32, 64, 32),
        (128, 128, 64),
        (64, 128, 64),
        (128, 64, 64),
        (256, 128, 64),
        (128, 256, 32),
    ]:
        try:
            f = lambda: launch(
                mm.matmul_kernel, (ct.cdiv(4096, bm), ct.cdiv(4096, bn), 1), (a, b, c, bm, bn, bk)
            )
            res[f"mm_{bm}x{bn}x{bk}_tflops"] = 2 * 4096**3 / do_bench(f) / 1e9
        except Exception as e:
            res[f"mm_{bm}x{bn}x{bk}_tflops"] = repr(e)[:200]
        print(bm, bn, bk, res[f"mm_{bm}x{bn}x{bk}_tflops"], flush=True)
    t0 = time.time()
    mm.matmul(a, b)
    torch.cuda.synchronize()
    res["mm_search_s"] = time.time() - t0
    res["mm_best"] = str(list(mm._matmul_kernel_best.values()))
    res["mm_tuned_tflops"] = 2 * 4096**3 / do_bench(lambda: mm.matmul(a, b)) / 1e9
    print(json.dumps(res, indent=1))
    with open(os.path.join(os.environ.get("OUT", "/tmp"), "gpu_cutile_rows.json"), "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
