"""Leaky ReLU in cuTile: an elementwise ``ct.where`` over 1-D tiles of a flattened tensor."""

from __future__ import annotations

import cuda.tile as ct
import torch


@ct.kernel
def leaky_relu_kernel(x, out, slope: float, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    t = ct.load(x, index=(bid,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    y = ct.where(t > 0, t, ct.astype(t * slope, t.dtype))
    ct.store(out, index=(bid,), tile=y)


def leaky_relu(x: torch.Tensor, negative_slope: float = 0.01) -> torch.Tensor:
    """``F.leaky_relu(x, negative_slope)`` for a tensor of any shape."""
    flat = x.reshape(-1)
    out = torch.empty_like(flat)
    grid = (ct.cdiv(flat.shape[0], 512), 1, 1)
    ct.launch(
        torch.cuda.current_stream(), grid, leaky_relu_kernel, (flat, out, negative_slope, 512)
    )
    return out.view_as(x)
