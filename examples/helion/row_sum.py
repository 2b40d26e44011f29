"""Row sums of a 2-D tensor: ``out[i] = sum_j x[i, j]``."""

from __future__ import annotations

import helion
import helion.language as hl
import torch


@helion.kernel(config=helion.Config(block_sizes=[4], num_warps=4))
def row_sum(x: torch.Tensor) -> torch.Tensor:
    """Sum each row of a 2-D tensor.

    Args:
        x: Input tensor of shape [m, n].

    Returns:
        A 1-D tensor of shape [m] in the dtype of ``x``.
    """
    m, n = x.size()
    out = torch.empty([m], dtype=x.dtype, device=x.device)
    for tile_m in hl.tile(m):
        # Reduce the full row in fp32, then store one value per row.
        out[tile_m] = torch.sum(x[tile_m, :].to(torch.float32), dim=1).to(out.dtype)
    return out
