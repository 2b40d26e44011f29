"""Layer normalization over the last dimension with weight and bias.

``out = (x - mean) / sqrt(var + eps) * weight + bias`` with the biased
(population) variance, computed in fp32.
"""

from __future__ import annotations

import helion
import helion.language as hl
import torch


@helion.kernel(config=helion.Config(block_sizes=[1], num_warps=8))
def layer_norm(
    x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float = 1e-5
) -> torch.Tensor:
    """Apply layer normalization to each row of ``x``.

    Args:
        x: Input tensor of shape [m, n].
        weight: Scale vector of shape [n].
        bias: Shift vector of shape [n].
        eps: Small constant added to the variance for numerical stability.

    Returns:
        A tensor of shape [m, n] in the dtype of ``x``.
    """
    m, n = x.size()
    assert weight.size(0) == n, "weight must have one entry per column"
    assert bias.size(0) == n, "bias must have one entry per column"
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    for tile_m in hl.tile(m):
        x_tile = x[tile_m, :].to(torch.float32)
        # Row mean and biased variance (two-step for accuracy).
        mean = torch.mean(x_tile, dim=-1, keepdim=True)
        centered = x_tile - mean
        var = torch.mean(centered * centered, dim=-1, keepdim=True)
        normalized = centered * torch.rsqrt(var + eps)
        # Affine transform with per-column weight and bias.
        y = normalized * weight[:].to(torch.float32) + bias[:].to(torch.float32)
        out[tile_m, :] = y.to(out.dtype)
    return out
