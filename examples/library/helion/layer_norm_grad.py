"""LayerNorm with a fused backward as an autograd Function over Helion kernels.

The forward saves the per-row mean and reciprocal standard deviation; the backward recomputes
``x_hat`` from them, writes ``dx`` and one fp32 row of ``dy * x_hat`` and ``dy`` per input row,
whose column sums (on the host) are ``dw`` and ``db``: no atomics, deterministic.
"""

from __future__ import annotations

import helion
import helion.language as hl
import torch


@helion.kernel(static_shapes=True)
def layer_norm_fwd(
    x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float = 1e-5
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(out, mean, rstd)`` of a LayerNorm over the last dim of 2-D ``x``."""
    m, n = x.size()
    out = torch.empty_like(x)
    mean = torch.empty([m], dtype=torch.float32, device=x.device)
    rstd = torch.empty([m], dtype=torch.float32, device=x.device)
    for tile_m in hl.tile(m):
        row = x[tile_m, :].to(torch.float32)
        mu = torch.mean(row, dim=-1)
        centered = row - mu[:, None]
        var = torch.mean(centered * centered, dim=-1)
        r = torch.rsqrt(var + eps)
        y = centered * r[:, None] * weight[:].to(torch.float32) + bias[:].to(torch.float32)
        out[tile_m, :] = y.to(out.dtype)
        mean[tile_m] = mu
        rstd[tile_m] = r
    return out, mean, rstd


@helion.kernel(static_shapes=True)
def layer_norm_bwd(
    grad_out: torch.Tensor,
    x: torch.Tensor,
    weight: torch.Tensor,
    mean: torch.Tensor,
    rstd: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(grad_x, dw_rows, db_rows)``; the column sums of the fp32 rows are ``dw`` and ``db``."""
    m, n = x.size()
    grad_x = torch.empty_like(x)
    dw_rows = torch.empty([m, n], dtype=torch.float32, device=x.device)
    db_rows = torch.empty([m, n], dtype=torch.float32, device=x.device)
    for tile_m in hl.tile(m):
        dy = grad_out[tile_m, :].to(torch.float32)
        x_hat = (x[tile_m, :].to(torch.float32) - mean[tile_m][:, None]) * rstd[tile_m][:, None]
        wdy = dy * weight[:].to(torch.float32)
        c1 = torch.sum(x_hat * wdy, dim=-1) / n
        c2 = torch.sum(wdy, dim=-1) / n
        dx = (wdy - (x_hat * c1[:, None] + c2[:, None])) * rstd[tile_m][:, None]
        grad_x[tile_m, :] = dx.to(grad_x.dtype)
        dw_rows[tile_m, :] = dy * x_hat
        db_rows[tile_m, :] = dy
    return grad_x, dw_rows, db_rows


class LayerNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, eps):
        shape = x.shape
        x_2d = x.reshape(-1, shape[-1])
        out, mean, rstd = layer_norm_fwd(x_2d, weight, bias, eps)
        ctx.save_for_backward(x_2d, weight, mean, rstd)
        ctx.shape = shape
        return out.view(shape)

    @staticmethod
    def backward(ctx, grad_out):
        x_2d, weight, mean, rstd = ctx.saved_tensors
        grad_out = grad_out.reshape(x_2d.shape).contiguous()
        grad_x, dw_rows, db_rows = layer_norm_bwd(grad_out, x_2d, weight, mean, rstd)
        grad_w = dw_rows.sum(0).to(weight.dtype)
        grad_b = db_rows.sum(0).to(weight.dtype)
        return grad_x.view(ctx.shape), grad_w, grad_b, None


def layer_norm(
    x: torch.Tensor,
    normalized_shape: tuple[int, ...],
    weight: torch.Tensor,
    bias: torch.Tensor,
    eps: float = 1e-5,
) -> torch.Tensor:
    """``F.layer_norm`` over the last dim of ``x``, differentiable in ``x``, weight and bias."""
    if tuple(normalized_shape) != (x.shape[-1],):
        raise ValueError(f"only the last dim is normalized, got {tuple(normalized_shape)}")
    if weight.shape != (x.shape[-1],) or bias.shape != weight.shape:
        raise ValueError("weight and bias must match the last dim of x")
    return LayerNormFunction.apply(x, weight, bias, eps)
