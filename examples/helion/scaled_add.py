"""Scaled elementwise addition (axpy): ``out = x + alpha * y``."""

from __future__ import annotations

import helion
import helion.language as hl
import torch


@helion.kernel(config=helion.Config(block_sizes=[32, 128], num_warps=4))
def scaled_add(x: torch.Tensor, y: torch.Tensor, alpha: float = 1.0) -> torch.Tensor:
    """Compute ``x + alpha * y`` for two 2-D tensors.

    Args:
        x: Input tensor of shape [m, n].
        y: Input tensor of shape [m, n], same dtype as ``x``.
        alpha: Python float scale applied to ``y``.

    Returns:
        A tensor of shape [m, n] holding ``x + alpha * y``.
    """
    m, n = x.shape
    assert y.shape == x.shape, "x and y must have the same shape"
    out = torch.empty_like(x)
    # Tile over the whole output shape; alpha is passed to the device as a scalar.
    for tile_m, tile_n in hl.tile(out.size()):
        out[tile_m, tile_n] = x[tile_m, tile_n] + alpha * y[tile_m, tile_n]
    return out
