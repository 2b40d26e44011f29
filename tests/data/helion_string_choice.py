"""A string choice whose host branches allocate the output with two ranks, as pytorch/helion's
``kl_div`` allocates ``loss`` per element for ``reduction="none"`` and per row otherwise:
Helion compiles a kernel per value of a ``str`` argument, and the translation a kernel per side
of the test.
"""

from __future__ import annotations

import helion
import helion.language as hl
import torch


@helion.kernel(config=helion.Config(block_sizes=[16, 32], num_warps=4))
def squared_error(
    pred: torch.Tensor, target: torch.Tensor, reduction: str = "mean"
) -> torch.Tensor:
    """``(pred - target) ** 2`` per element (``reduction="none"``), summed or averaged."""
    m, n = pred.size()
    assert target.size() == pred.size(), "target is shaped like pred"
    if reduction == "none":
        loss = torch.zeros([m, n], dtype=torch.float32, device=pred.device)
    else:
        loss = torch.zeros([m], dtype=torch.float32, device=pred.device)
    for tile_m in hl.tile(m):
        row_sum = hl.zeros([tile_m], dtype=torch.float32)
        for tile_n in hl.tile(n):
            diff = pred[tile_m, tile_n].to(torch.float32) - target[tile_m, tile_n].to(torch.float32)
            if reduction == "none":
                loss[tile_m, tile_n] = diff * diff
            else:
                row_sum = row_sum + torch.sum(diff * diff, dim=-1)
        if reduction != "none":
            loss[tile_m] = row_sum
    if reduction == "sum":
        total = loss.sum()
    elif reduction == "mean":
        total = loss.sum() / (m * n)
    else:
        total = loss
    return total
