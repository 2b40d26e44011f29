"""RMSNorm as an autograd Function over two Helion kernels.

The forward kernel returns the normalized output and the per-row reciprocal
RMS; the backward kernel consumes that cached ``rstd`` and produces ``dx`` plus
per-row partial products for ``dw``, which the Function reduces on the host.
"""

from __future__ import annotations

import helion
import helion.language as hl
import torch

# One row per tile is what this kernel wants on every shape we ship.
FWD_CONFIG = helion.Config(block_sizes=[1], num_warps=4)


@helion.kernel(static_shapes=True, config=FWD_CONFIG)
def rms_norm_fwd(
    x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6
) -> tuple[torch.Tensor, torch.Tensor]:
    """Forward RMSNorm over the last dimension; returns ``(out, rstd)``."""
    shape = x.shape
    x = x.reshape(-1, x.size(-1))
    m, n = x.size()
    out = torch.empty_like(x)
    rstd = torch.empty([m], dtype=torch.float32, device=x.device)
    for tile_m in hl.tile(m):
        x_tile = x[tile_m, :].to(torch.float32)
        mean_sq = torch.mean(x_tile * x_tile, dim=-1)
        rstd_tile = torch.rsqrt(mean_sq + eps)
        normalized = x_tile * rstd_tile[:, None]
        out[tile_m, :] = (normalized * weight[:].to(torch.float32)).to(out.dtype)
        rstd[tile_m] = rstd_tile
    return out.view(*shape), rstd


@helion.kernel()
def rms_norm_bwd(
    grad_out: torch.Tensor, x: torch.Tensor, weight: torch.Tensor, rstd: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Backward RMSNorm for 2-D ``x``; returns ``(grad_x, grad_w_partial)``.

    ``grad_w_partial`` has one fp32 row per input row; its column sums are ``grad_w``.
    """
    m, n = x.size()
    grad_x = torch.empty_like(x)
    grad_w_partial = torch.empty([m, n], dtype=torch.float32, device=x.device)
    for tile_m in hl.tile(m):
        dy = grad_out[tile_m, :].to(torch.float32)
        rstd_tile = rstd[tile_m]
        x_hat = x[tile_m, :].to(torch.float32) * rstd_tile[:, None]
        dy_w = dy * weight[:].to(torch.float32)
        dot = torch.mean(dy_w * x_hat, dim=-1, keepdim=True)
        grad_x[tile_m, :] = (rstd_tile[:, None] * (dy_w - x_hat * dot)).to(grad_x.dtype)
        grad_w_partial[tile_m, :] = dy * x_hat
    return grad_x, grad_w_partial


class RMSNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
        # Plain Python float: the kernel takes eps as a scalar argument.
        ctx.eps = float(eps)
        out, rstd = rms_norm_fwd(x, weight, ctx.eps)
        ctx.save_for_backward(x, weight, rstd)
        return out

    @staticmethod
    def backward(ctx, grad_out: torch.Tensor):
        x, weight, rstd = ctx.saved_tensors
        shape = x.shape
        x_2d = x.reshape(-1, shape[-1])
        grad_out = grad_out.reshape(-1, shape[-1]).contiguous()
        grad_x, grad_w_partial = rms_norm_bwd(grad_out, x_2d, weight, rstd)
        grad_w = grad_w_partial.sum(dim=0).to(weight.dtype)
        return grad_x.view(shape), grad_w, None


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """Differentiable RMSNorm over the last dimension of ``x``."""
    return RMSNormFunction.apply(x, weight, eps)
