"""GroupNorm forward and backward for NCHW activations (Helion examples style).

The wrapper views ``x`` [N, C, *spatial] as [N, G, C // G, HW] and the per-channel affine
parameters as [G, C // G]; each program normalizes whole groups: the statistics reduce over a
group's channels and positions, the affine applies per channel. ``mean`` and ``rstd`` per
(sample, group) are saved for the backward, which recomputes ``x_hat`` from them; the weight and
bias gradients come out per sample and the autograd Function sums them over the batch (no
atomics: the same result on every run).
"""

from __future__ import annotations

import helion
import helion.language as hl
import torch


@helion.kernel(static_shapes=True)
def group_norm_fwd(
    x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float = 1e-5
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(out, mean, rstd)`` of a GroupNorm of ``x`` [N, G, CPG, HW] with ``weight``/``bias``
    [G, CPG]; ``mean``/``rstd`` are [N, G] fp32."""
    n, g, cpg, hw = x.size()
    out = torch.empty_like(x)
    mean = torch.empty([n, g], dtype=torch.float32, device=x.device)
    rstd = torch.empty([n, g], dtype=torch.float32, device=x.device)
    for tile_n, tile_g in hl.tile([n, g]):
        xg = x[tile_n, tile_g, :, :].to(torch.float32)
        mu = torch.sum(torch.sum(xg, dim=-1), dim=-1) / (cpg * hw)
        centered = xg - mu[:, :, None, None]
        var = torch.sum(torch.sum(centered * centered, dim=-1), dim=-1) / (cpg * hw)
        r = torch.rsqrt(var + eps)
        w = weight[tile_g, :].to(torch.float32)
        b = bias[tile_g, :].to(torch.float32)
        y = centered * r[:, :, None, None] * w[None, :, :, None] + b[None, :, :, None]
        out[tile_n, tile_g, :, :] = y.to(out.dtype)
        mean[tile_n, tile_g] = mu
        rstd[tile_n, tile_g] = r
    return out, mean, rstd


@helion.kernel(static_shapes=True)
def group_norm_bwd(
    grad_out: torch.Tensor,
    x: torch.Tensor,
    weight: torch.Tensor,
    mean: torch.Tensor,
    rstd: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(grad_x, grad_weight, grad_bias)`` of :func:`group_norm_fwd`; the two parameter
    gradients are per sample, [N, G, CPG] fp32 (the caller sums them over N)."""
    n, g, cpg, hw = x.size()
    grad_x = torch.empty_like(x)
    grad_weight = torch.empty([n, g, cpg], dtype=torch.float32, device=x.device)
    grad_bias = torch.empty([n, g, cpg], dtype=torch.float32, device=x.device)
    for tile_n, tile_g in hl.tile([n, g]):
        xg = x[tile_n, tile_g, :, :].to(torch.float32)
        dy = grad_out[tile_n, tile_g, :, :].to(torch.float32)
        mu = mean[tile_n, tile_g]
        r = rstd[tile_n, tile_g]
        x_hat = (xg - mu[:, :, None, None]) * r[:, :, None, None]
        w = weight[tile_g, :].to(torch.float32)
        dx_hat = dy * w[None, :, :, None]
        # d/dx of (x - mean) * rstd over a group of CPG * HW elements.
        c1 = torch.sum(torch.sum(dx_hat * x_hat, dim=-1), dim=-1) / (cpg * hw)
        c2 = torch.sum(torch.sum(dx_hat, dim=-1), dim=-1) / (cpg * hw)
        dx = (dx_hat - x_hat * c1[:, :, None, None] - c2[:, :, None, None]) * r[:, :, None, None]
        grad_x[tile_n, tile_g, :, :] = dx.to(grad_x.dtype)
        grad_weight[tile_n, tile_g, :] = torch.sum(dy * x_hat, dim=-1)
        grad_bias[tile_n, tile_g, :] = torch.sum(dy, dim=-1)
    return grad_x, grad_weight, grad_bias


class GroupNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, num_groups, weight, bias, eps):
        n, c = x.shape[0], x.shape[1]
        cpg = c // num_groups
        x4 = x.reshape(n, num_groups, cpg, -1)
        w2 = weight.view(num_groups, cpg)
        out, mean, rstd = group_norm_fwd(x4, w2, bias.view(num_groups, cpg), eps)
        ctx.save_for_backward(x4, w2, mean, rstd)
        ctx.x_shape = x.shape
        return out.view(x.shape)

    @staticmethod
    def backward(ctx, grad_out):
        x4, w2, mean, rstd = ctx.saved_tensors
        dy = grad_out.contiguous().view(x4.shape)
        grad_x, grad_weight, grad_bias = group_norm_bwd(dy, x4, w2, mean, rstd)
        grad_weight = grad_weight.sum(0).view(-1).to(w2.dtype)
        grad_bias = grad_bias.sum(0).view(-1).to(w2.dtype)
        return grad_x.view(ctx.x_shape), None, grad_weight, grad_bias, None


def group_norm(
    x: torch.Tensor,
    num_groups: int,
    weight: torch.Tensor,
    bias: torch.Tensor,
    eps: float = 1e-5,
) -> torch.Tensor:
    """``F.group_norm(x, num_groups, weight, bias, eps)`` for ``x`` [N, C, *spatial]."""
    c = x.shape[1]
    if c % num_groups != 0:
        raise ValueError(f"{c} channels do not split into {num_groups} groups")
    return GroupNormFunction.apply(x, num_groups, weight, bias, eps)
