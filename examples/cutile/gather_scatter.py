"""Masked gather and scatter in cuTile: ``out[idx[i]] = scale * x[idx[i]]`` for a permutation."""

from __future__ import annotations

import cuda.tile as ct
import torch


@ct.kernel
def scaled_permute_kernel(x, idx, out, n: int, scale: float, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    lanes = bid * TILE + ct.arange(TILE, dtype=ct.int32)
    # Lanes past the end gather nothing and scatter nothing.
    valid = lanes < n
    where_from = ct.load(idx, index=(bid,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    vals = ct.gather(x, where_from, mask=valid)
    # A float parameter is fp32 in cuTile: the product is cast back to the array dtype.
    ct.scatter(out, where_from, ct.astype(vals * scale, out.dtype), mask=valid)


def scaled_permute(x: torch.Tensor, idx: torch.Tensor, scale: float) -> torch.Tensor:
    """``out[idx] = scale * x[idx]`` (``idx`` a permutation of ``range(len(x))``)."""
    (n,) = x.shape
    out = torch.empty_like(x)
    grid = (ct.cdiv(n, 256), 1, 1)
    ct.launch(
        torch.cuda.current_stream(), grid, scaled_permute_kernel, (x, idx, out, n, scale, 256)
    )
    return out
