"""Fused ``out = alpha * x + residual (+ bias)`` with a backward (xformers-style fused op).

The forward picks one of two kernels depending on whether a bias is given. The
backward writes ``dx = alpha * dy`` and ``dresidual = dy`` in one elementwise
pass, and reduces ``dbias`` (the column sums of ``dy``) with ``tl.atomic_add``
into a zero-initialised fp32 buffer, one row block per program.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK_M = 16


def _cols_settings(n_cols: int) -> tuple[int, int]:
    BLOCK_N = min(triton.next_power_of_2(n_cols), 256)
    num_warps = 8 if BLOCK_N >= 256 else 4
    return BLOCK_N, num_warps


@triton.jit
def _residual_fwd_kernel(
    OUT_ptr,
    X_ptr,
    RES_ptr,
    alpha,
    M,
    N,
    stride_out_row,
    stride_x_row,
    stride_res_row,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)

    x = tl.load(X_ptr + offs_m[:, None] * stride_x_row + offs_n[None, :], mask=mask, other=0.0).to(
        tl.float32
    )
    res = tl.load(
        RES_ptr + offs_m[:, None] * stride_res_row + offs_n[None, :], mask=mask, other=0.0
    ).to(tl.float32)
    out = alpha * x + res
    tl.store(
        OUT_ptr + offs_m[:, None] * stride_out_row + offs_n[None, :],
        out.to(OUT_ptr.dtype.element_ty),
        mask=mask,
    )


@triton.jit
def _residual_bias_fwd_kernel(
    OUT_ptr,
    X_ptr,
    RES_ptr,
    BIAS_ptr,
    alpha,
    M,
    N,
    stride_out_row,
    stride_x_row,
    stride_res_row,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)

    x = tl.load(X_ptr + offs_m[:, None] * stride_x_row + offs_n[None, :], mask=mask, other=0.0).to(
        tl.float32
    )
    res = tl.load(
        RES_ptr + offs_m[:, None] * stride_res_row + offs_n[None, :], mask=mask, other=0.0
    ).to(tl.float32)
    bias = tl.load(BIAS_ptr + offs_n, mask=offs_n < N, other=0.0).to(tl.float32)
    out = alpha * x + res + bias[None, :]
    tl.store(
        OUT_ptr + offs_m[:, None] * stride_out_row + offs_n[None, :],
        out.to(OUT_ptr.dtype.element_ty),
        mask=mask,
    )


@triton.jit
def _residual_bwd_kernel(
    dX_ptr,
    dRES_ptr,
    dBIAS_ptr,
    dY_ptr,
    alpha,
    M,
    N,
    stride_dx_row,
    stride_dres_row,
    stride_dy_row,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)

    dy = tl.load(
        dY_ptr + offs_m[:, None] * stride_dy_row + offs_n[None, :], mask=mask, other=0.0
    ).to(tl.float32)
    tl.store(
        dX_ptr + offs_m[:, None] * stride_dx_row + offs_n[None, :],
        (alpha * dy).to(dX_ptr.dtype.element_ty),
        mask=mask,
    )
    tl.store(
        dRES_ptr + offs_m[:, None] * stride_dres_row + offs_n[None, :],
        dy.to(dRES_ptr.dtype.element_ty),
        mask=mask,
    )

    # Partial column sums of this row block, accumulated across programs.
    dbias_partial = tl.sum(dy, axis=0)
    tl.atomic_add(dBIAS_ptr + offs_n, dbias_partial, mask=offs_n < N)


def _fused_residual_fwd(x, residual, bias, alpha):
    shape = x.shape
    x = x.reshape(-1, shape[-1]).contiguous()
    residual = residual.reshape(-1, shape[-1]).contiguous()
    M, N = x.shape
    out = torch.empty_like(x)
    BLOCK_N, num_warps = _cols_settings(N)
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    if bias is None:
        _residual_fwd_kernel[grid](
            out,
            x,
            residual,
            alpha,
            M,
            N,
            out.stride(0),
            x.stride(0),
            residual.stride(0),
            BLOCK_M,
            BLOCK_N,
            num_warps=num_warps,
        )
    else:
        _residual_bias_fwd_kernel[grid](
            out,
            x,
            residual,
            bias,
            alpha,
            M,
            N,
            out.stride(0),
            x.stride(0),
            residual.stride(0),
            BLOCK_M=BLOCK_M,
            BLOCK_N=BLOCK_N,
            num_warps=num_warps,
        )
    return out.view(shape)


def _fused_residual_bwd(dy, alpha):
    shape = dy.shape
    dy = dy.reshape(-1, shape[-1]).contiguous()
    M, N = dy.shape
    dx = torch.empty_like(dy)
    dres = torch.empty_like(dy)
    dbias = torch.zeros(N, dtype=torch.float32, device=dy.device)
    BLOCK_N, num_warps = _cols_settings(N)
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N))
    _residual_bwd_kernel[grid](
        dx,
        dres,
        dbias,
        dy,
        alpha,
        M,
        N,
        dx.stride(0),
        dres.stride(0),
        dy.stride(0),
        BLOCK_M=BLOCK_M,
        BLOCK_N=BLOCK_N,
        num_warps=num_warps,
    )
    return dx.view(shape), dres.view(shape), dbias


class FusedResidualFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, residual, bias, alpha):
        ctx.alpha = float(alpha)
        ctx.has_bias = bias is not None
        ctx.bias_dtype = bias.dtype if bias is not None else None
        return _fused_residual_fwd(x, residual, bias, ctx.alpha)

    @staticmethod
    def backward(ctx, dy):
        dx, dres, dbias = _fused_residual_bwd(dy, ctx.alpha)
        # No bias: autograd expects None for that input.
        dbias = dbias.to(ctx.bias_dtype) if ctx.has_bias else None
        return dx, dres, dbias, None


def fused_residual(
    x: torch.Tensor,
    residual: torch.Tensor,
    bias: torch.Tensor | None = None,
    alpha: float = 1.0,
) -> torch.Tensor:
    """``alpha * x + residual (+ bias)``, differentiable in ``x``, ``residual`` and ``bias``."""
    assert x.shape == residual.shape, "x and residual must have the same shape"
    if bias is not None and bias.shape != x.shape[-1:]:
        raise ValueError(f"bias must have shape {tuple(x.shape[-1:])}, got {tuple(bias.shape)}")
    return FusedResidualFunction.apply(x, residual, bias, alpha)
