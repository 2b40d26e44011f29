"""Elementwise exponential of a 1-D tensor: ``out = exp(x)``."""

from __future__ import annotations

import helion
import helion.language as hl
import torch


# 1-D pointwise kernel: 1024 elements per program.
@helion.kernel(config=helion.Config(block_sizes=[1024], num_warps=4))
def exp(x: torch.Tensor) -> torch.Tensor:
    """Compute the exponential of every element of a 1-D tensor.

    Args:
        x: Input tensor of shape [n].

    Returns:
        A tensor of shape [n] holding ``exp(x)``.
    """
    out = torch.empty_like(x)
    # hl.tile over x.size() yields one tile per block of 1024 elements.
    for tile in hl.tile(x.size()):
        out[tile] = torch.exp(x[tile])
    return out
