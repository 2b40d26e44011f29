"""RMS norm in cuTile, in the style of production ports: fp32 statistics, a weight vector."""

from __future__ import annotations

import cuda.tile as ct
import torch


@ct.function
def _rsqrt_mean_square(x, n, eps):
    """1 / sqrt(mean(x * x) + eps) over the last axis (x in fp32)."""
    return ct.rsqrt(ct.sum(x * x, axis=1, keepdims=True) / n + eps)


@ct.kernel
def rms_norm_kernel(
    x, w, out, n: int, eps: float, TILE_M: ct.Constant[int], TILE_N: ct.Constant[int]
):
    bid = ct.bid(0)
    xt = ct.astype(
        ct.load(x, index=(bid, 0), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO),
        ct.float32,
    )
    wt = ct.astype(
        ct.load(w, index=(0,), shape=(TILE_N,), padding_mode=ct.PaddingMode.ZERO), ct.float32
    )
    y = xt * _rsqrt_mean_square(xt, n, eps) * wt[None, :]
    ct.store(out, index=(bid, 0), tile=ct.astype(y, out.dtype))


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """``x / sqrt(mean(x ** 2) + eps) * weight`` over each row of a 2-D tensor."""
    m, n = x.shape
    assert weight.shape == (n,), "weight must have one entry per column"
    out = torch.empty_like(x)
    tile_m = 4
    tile_n = 1 << (n - 1).bit_length()
    grid = (ct.cdiv(m, tile_m), 1, 1)
    ct.launch(
        torch.cuda.current_stream(), grid, rms_norm_kernel, (x, weight, out, n, eps, 4, tile_n)
    )
    return out
