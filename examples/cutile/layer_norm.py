"""LayerNorm forward in cuTile: a block of rows, each row whole in one power-of-two tile."""

from __future__ import annotations

import cuda.tile as ct
import torch


@ct.kernel
def layer_norm_fwd_kernel(
    x, w, b, out, n: int, eps: float, TILE_M: ct.Constant[int], TILE_N: ct.Constant[int]
):
    bid = ct.bid(0)
    mask = ct.arange(TILE_N, dtype=ct.int32) < n
    xt = ct.astype(
        ct.load(x, index=(bid, 0), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO),
        ct.float32,
    )
    mean = ct.sum(xt, axis=1, keepdims=True) / n
    # Lanes past the row's end must not add (0 - mean)^2 to the variance.
    xc = ct.where(mask[None, :], xt - mean, 0.0)
    var = ct.sum(xc * xc, axis=1, keepdims=True) / n
    rstd = ct.rsqrt(var + eps)
    wt = ct.astype(
        ct.load(w, index=(0,), shape=(TILE_N,), padding_mode=ct.PaddingMode.ZERO), ct.float32
    )
    bt = ct.astype(
        ct.load(b, index=(0,), shape=(TILE_N,), padding_mode=ct.PaddingMode.ZERO), ct.float32
    )
    y = xc * rstd * wt[None, :] + bt[None, :]
    ct.store(out, index=(bid, 0), tile=ct.astype(y, out.dtype))


def layer_norm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float = 1e-5):
    """``torch.nn.functional.layer_norm`` over the last dim of a 2-D tensor."""
    m, n = x.shape
    out = torch.empty_like(x)
    tile_n = 1 << (n - 1).bit_length()
    grid = (ct.cdiv(m, 8), 1, 1)
    ct.launch(
        torch.cuda.current_stream(),
        grid,
        layer_norm_fwd_kernel,
        (x, weight, bias, out, n, eps, 8, tile_n),
    )
    return out
