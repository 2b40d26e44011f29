"""Row means of a 2-D tensor, keeping the reduced dim: ``out[i, 0] = mean_j x[i, j]``."""

from __future__ import annotations

import helion
import helion.language as hl
import torch


@helion.kernel(config=helion.Config(block_sizes=[4], num_warps=4))
def row_mean(x: torch.Tensor) -> torch.Tensor:
    """Average each row of a 2-D tensor.

    Args:
        x: Input tensor of shape [m, n].

    Returns:
        A tensor of shape [m, 1] in the dtype of ``x`` (``keepdim=True``).
    """
    m, n = x.size()
    out = x.new_empty([m, 1])
    for tile_m in hl.tile(m):
        # keepdim=True keeps a size-1 column so the result matches out[tile_m, :].
        row = x[tile_m, :].to(torch.float32)
        out[tile_m, :] = torch.mean(row, dim=1, keepdim=True).to(out.dtype)
    return out
