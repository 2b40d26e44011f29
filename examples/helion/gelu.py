"""Exact (erf-based) GELU activation, computed in fp32."""

from __future__ import annotations

import helion
import helion.language as hl
import torch


@helion.kernel(config=helion.Config(block_sizes=[32, 128], num_warps=4))
def gelu(x: torch.Tensor) -> torch.Tensor:
    """Apply ``torch.nn.functional.gelu`` (approximate="none") elementwise.

    Args:
        x: Input tensor of shape [m, n].

    Returns:
        A tensor of shape [m, n] holding ``0.5 * x * (1 + erf(x / sqrt(2)))``.
    """
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m, tile_n in hl.tile([m, n]):
        # erf is evaluated in fp32; the result is cast back to the input dtype.
        x_tile = x[tile_m, tile_n].to(torch.float32)
        out[tile_m, tile_n] = torch.nn.functional.gelu(x_tile).to(out.dtype)
    return out
