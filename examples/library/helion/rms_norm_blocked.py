"""RMSNorm whose backward reduces the weight gradient per block of rows.

The backward kernel walks a block of rows per program and keeps one fp32 row of
``dw`` partials per block: the host sizes that buffer by the kernel's own row
block (``hl.register_block_size``), and sums the partials after the launch.
"""

from __future__ import annotations

import helion
import helion.language as hl
import torch


@helion.kernel()
def rms_norm_blocked_fwd(
    x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6
) -> tuple[torch.Tensor, torch.Tensor]:
    """Forward RMSNorm of 2-D ``x``; returns ``(out, rstd)``, one ``rstd`` per row."""
    m, n = x.size()
    out = torch.empty_like(x)
    rstd = torch.empty([m], dtype=torch.float32, device=x.device)
    for tile_m in hl.tile(m):
        x_tile = x[tile_m, :].to(torch.float32)
        rstd_tile = torch.rsqrt(torch.sum(x_tile * x_tile, dim=-1) / n + eps)
        out[tile_m, :] = (x_tile * rstd_tile[:, None] * weight[:].to(torch.float32)).to(out.dtype)
        rstd[tile_m] = rstd_tile
    return out, rstd


@helion.kernel()
def rms_norm_blocked_bwd(
    grad_out: torch.Tensor, x: torch.Tensor, weight: torch.Tensor, rstd: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Backward RMSNorm; returns ``(grad_x, grad_weight)``.

    Each program owns ``block_m`` rows and writes their ``dw`` contribution as one row of
    ``partials``; the column sums of ``partials`` are ``grad_weight``.
    """
    block_m = hl.register_block_size(x.size(0))
    grad_x = torch.empty_like(x)
    partials = x.new_empty([helion.cdiv(x.size(0), block_m), *weight.shape], dtype=torch.float32)
    n = hl.specialize(weight.size(0))
    for rows in hl.tile(x.size(0), block_size=block_m):
        dw = weight.new_zeros(n, dtype=torch.float32)
        for sub in hl.tile(rows.begin, rows.end):
            x_sub = x[sub, :].to(torch.float32)
            dy = grad_out[sub, :].to(torch.float32)
            r = rstd[sub][:, None]
            dw += (dy * x_sub * r).sum(0)
            dy_w = dy * weight[None, :].to(torch.float32)
            dot = (dy_w * x_sub).sum(-1)[:, None] / n
            grad_x[sub, :] = (r * dy_w - x_sub * r * r * r * dot).to(x.dtype)
        partials[rows.id, :] = dw
    return grad_x, partials.sum(0).to(weight.dtype)


class RMSNormBlocked(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
        out, rstd = rms_norm_blocked_fwd(x, weight, eps)
        ctx.save_for_backward(x, weight, rstd)
        return out

    @staticmethod
    def backward(ctx, grad_out: torch.Tensor):
        x, weight, rstd = ctx.saved_tensors
        grad_x, grad_weight = rms_norm_blocked_bwd(grad_out.contiguous(), x, weight, rstd)
        return grad_x, grad_weight, None


def rms_norm_blocked(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """Differentiable RMSNorm over the last dimension of 2-D ``x``."""
    return RMSNormBlocked.apply(x, weight, eps)
