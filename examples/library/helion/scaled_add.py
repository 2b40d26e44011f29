"""Broadcasting ``alpha * x + beta * y`` (an ``axpby``), Helion's examples style.

The kernel broadcasts its operands on the host side of the kernel, promotes the
result dtype like ``torch.add`` does, flattens to 2-D for the tiled loop and
restores the broadcast shape on return.
"""

from __future__ import annotations

import helion
import helion.language as hl
import torch


@helion.kernel()
def axpby(x: torch.Tensor, y: torch.Tensor, alpha: float = 1.0, beta: float = 1.0) -> torch.Tensor:
    """Compute ``alpha * x + beta * y`` with broadcasting and type promotion.

    Args:
        x: First operand, any shape broadcastable with ``y`` (at least 1-D).
        y: Second operand.
        alpha: Scale of ``x``.
        beta: Scale of ``y``.

    Returns:
        A tensor of the broadcast shape and the promoted dtype of ``x`` and ``y``.
    """
    x, y = torch.broadcast_tensors(x, y)
    shape = x.shape
    out_dtype = torch.promote_types(x.dtype, y.dtype)
    x = x.reshape(-1, x.size(-1))
    y = y.reshape(-1, y.size(-1))
    m, n = x.size()
    out = torch.empty([m, n], dtype=out_dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = (
            x[tile_m, tile_n].to(torch.float32) * alpha + y[tile_m, tile_n].to(torch.float32) * beta
        )
        out[tile_m, tile_n] = acc.to(out_dtype)
    return out.view(*shape)


def scaled_add(x: torch.Tensor, y: torch.Tensor, alpha: float = 1.0) -> torch.Tensor:
    """``x + alpha * y`` (``torch.add(x, y, alpha=alpha)``)."""
    return axpby(x, y, 1.0, float(alpha))
