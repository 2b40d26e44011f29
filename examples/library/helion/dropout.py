"""Dropout with a seed, drawn in the kernel (Helion's examples style, low-memory dropout).

``hl.rand([tile_m, tile_n], seed=seed)`` draws one Philox number per element at its row-major
index over the whole ``[m, n]`` tensor, whatever the block sizes: the same seed draws the same
mask, so the backward regenerates the forward's mask from the seed instead of saving it. Inputs
of any rank are flattened to rows of their last dim.
"""

from __future__ import annotations

import helion
import helion.language as hl
import torch


@helion.kernel()
def dropout_fwd(x: torch.Tensor, p: float, seed: int) -> torch.Tensor:
    """Keep each element of 2-D ``x`` whose draw exceeds ``p``, scaled by ``1 / (1 - p)``.

    Args:
        x: Input of shape ``[m, n]``.
        p: Probability of dropping an element, in ``[0, 1)``.
        seed: Philox seed: the same seed drops the same elements.

    Returns:
        A tensor of the shape and dtype of ``x``.
    """
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m, tile_n in hl.tile([m, n]):
        keep = hl.rand([tile_m, tile_n], seed=seed) > p
        out[tile_m, tile_n] = torch.where(keep, x[tile_m, tile_n] / (1.0 - p), 0.0)
    return out


class Dropout(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x: torch.Tensor, p: float, seed: int) -> torch.Tensor:
        # Only the seed is kept: the backward draws the same mask from it.
        ctx.p = p
        ctx.seed = seed
        shape = x.shape
        out = dropout_fwd(x.reshape(-1, shape[-1]), p, seed)
        return out.view(shape)

    @staticmethod
    def backward(ctx, grad_out: torch.Tensor):
        shape = grad_out.shape
        grad_x = dropout_fwd(grad_out.reshape(-1, shape[-1]), ctx.p, ctx.seed)
        return grad_x.view(shape), None, None


def dropout(x: torch.Tensor, p: float = 0.5, seed: int = 0) -> torch.Tensor:
    """Dropout of ``x`` with probability ``p``; the same ``seed`` draws the same mask."""
    if not 0.0 <= p < 1.0:
        raise ValueError(f"p must be in [0, 1), got {p}")
    return Dropout.apply(x, p, seed)
