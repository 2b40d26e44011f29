"""SiLU (swish) activation: ``out = x * sigmoid(x)``, computed in fp32."""

from __future__ import annotations

import helion
import helion.language as hl
import torch


@helion.kernel(config=helion.Config(block_sizes=[32, 128], num_warps=4))
def silu(x: torch.Tensor) -> torch.Tensor:
    """Apply the SiLU activation elementwise to a 2-D tensor.

    Args:
        x: Input tensor of shape [m, n].

    Returns:
        A tensor of shape [m, n] holding ``x * sigmoid(x)`` in the dtype of ``x``.
    """
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m, tile_n in hl.tile([m, n]):
        # Upcast so the sigmoid is evaluated in fp32 even for fp16 inputs.
        x_tile = x[tile_m, tile_n].to(torch.float32)
        out[tile_m, tile_n] = (x_tile * torch.sigmoid(x_tile)).to(out.dtype)
    return out
