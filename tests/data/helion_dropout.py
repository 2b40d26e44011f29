"""Seeded dropout in Helion: ``hl.rand`` draws the keep mask from the seed."""

import helion
import helion.language as hl
import torch


@helion.kernel()
def dropout(x: torch.Tensor, p: float, seed: int) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile in hl.tile(x.size(0)):
        keep = hl.rand([tile], seed=seed) > p
        out[tile] = torch.where(keep, x[tile] / (1 - p), 0.0)
    return out
