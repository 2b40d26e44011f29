"""Elementwise ops that follow torch's broadcasting and type promotion.

The host broadcasts the operands and allocates the output in their promoted
dtype; the kernel tiles every dim of the output (``hl.tile(out.size())``).
"""

from __future__ import annotations

import helion
import helion.language as hl
import torch


@helion.kernel()
def broadcast_add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """``x + y`` of 2-D broadcast operands, in ``torch.add``'s result dtype."""
    x, y = torch.broadcast_tensors(x, y)
    out = torch.empty(x.shape, dtype=torch.promote_types(x.dtype, y.dtype), device=x.device)
    for tile_m, tile_n in hl.tile(out.size()):
        out[tile_m, tile_n] = x[tile_m, tile_n] + y[tile_m, tile_n]
    return out


@helion.kernel()
def scaled_sum(x: torch.Tensor, y: torch.Tensor, alpha: float) -> torch.Tensor:
    """``x + alpha * y`` of same-shape operands of any one rank, flattened."""
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    flat_x, flat_y, flat_out = x.view(-1), y.view(-1), out.view(-1)
    for tile in hl.tile(flat_out.size()):
        flat_out[tile] = flat_x[tile] + alpha * flat_y[tile]
    return out
