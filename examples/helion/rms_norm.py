"""RMS normalization over the last dimension, computed in fp32.

``out = x / sqrt(mean(x ** 2) + eps) * weight``; the per-row inverse RMS is
returned as a second output.
"""

from __future__ import annotations

import helion
import helion.language as hl
import torch


# static_shapes=True: with dynamic shapes Helion 1.5.1 hits a symbolic-shape
# recursion on the weight/x size assert below.
@helion.kernel(static_shapes=True, config=helion.Config(block_sizes=[1], num_warps=8))
def rms_norm(
    x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-5
) -> tuple[torch.Tensor, torch.Tensor]:
    """Apply RMS normalization with a learned scale to each row of ``x``.

    Args:
        x: Input tensor of shape [m, n].
        weight: Scale vector of shape [n].
        eps: Small constant added to the mean square for numerical stability.

    Returns:
        A tuple ``(out, inv_rms)``: ``out`` has shape [m, n] and the dtype of
        ``x``; ``inv_rms`` has shape [m] and dtype float32.
    """
    m, n = x.size()
    assert weight.size(0) == n, "weight must have one entry per column"
    out = torch.empty_like(x)
    inv_rms = torch.empty([m], dtype=torch.float32, device=x.device)
    for tile_m in hl.tile(m):
        # Accumulate in fp32 regardless of the input dtype.
        x_tile = x[tile_m, :].to(torch.float32)
        mean_sq = torch.mean(x_tile * x_tile, dim=-1)
        inv_rms_tile = torch.rsqrt(mean_sq + eps)
        # Normalize, then apply the per-column weight (broadcast over rows).
        normalized = x_tile * inv_rms_tile[:, None]
        out[tile_m, :] = (normalized * weight[:].to(torch.float32)).to(out.dtype)
        inv_rms[tile_m] = inv_rms_tile
    return out, inv_rms
