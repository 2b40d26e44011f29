"""A Helion scan and a Helion atomic: row prefix sums (``torch.cumsum`` over whole rows) and
column sums whose row tiles meet in ``hl.atomic_add`` (the TileLang backend's T.cumsum and
T.atomic_add)."""

from __future__ import annotations

import helion
import helion.language as hl
import torch


@helion.kernel(config=helion.Config(block_sizes=[8]))
def row_cumsum(x: torch.Tensor) -> torch.Tensor:
    """``torch.cumsum(x, dim=1)`` of a 2-D tensor, accumulated in fp32."""
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m in hl.tile(m):
        out[tile_m, :] = torch.cumsum(x[tile_m, :].to(torch.float32), dim=1).to(out.dtype)
    return out


@helion.kernel(config=helion.Config(block_sizes=[32, 64]))
def column_sum(x: torch.Tensor) -> torch.Tensor:
    """``x.sum(dim=0)`` in fp32: each (rows, columns) tile adds its column sums atomically."""
    m, n = x.size()
    out = torch.zeros([n], dtype=torch.float32, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        hl.atomic_add(out, [tile_n], torch.sum(x[tile_m, tile_n].to(torch.float32), dim=0))
    return out
