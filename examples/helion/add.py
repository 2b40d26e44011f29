"""Elementwise addition of two 2-D tensors: ``out = x + y``."""

from __future__ import annotations

import helion
import helion.language as hl
import torch


# Pointwise 2-D tiling: 64 rows x 128 columns per program keeps each load
# coalesced along the contiguous (last) dimension.
@helion.kernel(config=helion.Config(block_sizes=[64, 128], num_warps=4))
def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Add two tensors of the same shape elementwise.

    Args:
        x: First input tensor of shape [m, n].
        y: Second input tensor of shape [m, n], same dtype as ``x``.

    Returns:
        A tensor of shape [m, n] holding ``x + y``.
    """
    m, n = x.size()
    assert y.size() == x.size(), "x and y must have the same shape"
    out = torch.empty_like(x)
    # One program per (tile_m, tile_n) block of the output.
    for tile_m, tile_n in hl.tile([m, n]):
        out[tile_m, tile_n] = x[tile_m, tile_n] + y[tile_m, tile_n]
    return out
