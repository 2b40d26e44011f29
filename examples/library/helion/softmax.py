"""Softmax and log-softmax along any dimension, on top of last-dimension Helion kernels.

The kernels work on the last dimension of a (flattened) 2-D view; the public
functions move the requested dimension last with a small host helper and move
it back afterwards.
"""

from __future__ import annotations

import helion
import helion.language as hl
import torch


@helion.kernel()
def softmax_lastdim(x: torch.Tensor) -> torch.Tensor:
    """Softmax over the last dimension of ``x`` (any leading shape)."""
    shape = x.shape
    x = x.reshape(-1, x.size(-1))
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m in hl.tile(m):
        values = x[tile_m, :].to(torch.float32)
        out[tile_m, :] = torch.softmax(values, dim=-1).to(out.dtype)
    return out.view(*shape)


@helion.kernel()
def log_softmax_lastdim(x: torch.Tensor) -> torch.Tensor:
    """Numerically stable log-softmax over the last dimension of ``x``."""
    shape = x.shape
    x = x.reshape(-1, x.size(-1))
    m, n = x.size()
    out_dtype = x.dtype
    out = torch.empty([m, n], dtype=out_dtype, device=x.device)
    for tile_m in hl.tile(m):
        values = x[tile_m, :].to(torch.float32)
        row_max = torch.amax(values, dim=-1, keepdim=True)
        shifted = values - row_max
        lse = torch.log(torch.sum(torch.exp(shifted), dim=-1, keepdim=True))
        out[tile_m, :] = (shifted - lse).to(out_dtype)
    return out.reshape(shape)


def _apply_lastdim(kernel, x: torch.Tensor, dim: int) -> torch.Tensor:
    """Run a last-dimension kernel along ``dim`` by moving that dimension last."""
    dim = dim % x.dim()
    if dim == x.dim() - 1:
        return kernel(x.contiguous())
    moved = x.movedim(dim, -1).contiguous()
    return kernel(moved).movedim(-1, dim)


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """``torch.softmax(x, dim)``."""
    return _apply_lastdim(softmax_lastdim, x, dim)


def log_softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """``torch.log_softmax(x, dim)``."""
    return _apply_lastdim(log_softmax_lastdim, x, dim)
