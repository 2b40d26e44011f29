"""``log1p`` of small values, where ``log(1 + x)`` loses every digit."""

from __future__ import annotations

import helion
import helion.language as hl
import torch


@helion.kernel(config=helion.Config(block_sizes=[128]))
def small_log1p(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile in hl.tile(x.size(0)):
        out[tile] = torch.log1p(x[tile] * 1e-6)
    return out
