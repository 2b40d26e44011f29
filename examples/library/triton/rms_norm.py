"""Fused RMSNorm with a hand-written backward (Unsloth-style module).

``y = x * rsqrt(mean(x^2) + eps) * weight`` over the last dimension. The
forward kernel caches the per-row reciprocal RMS (``rstd``) so the backward
never recomputes the reduction. The weight gradient is produced as per-row
partials and reduced on the host, which keeps the backward kernel free of
atomics and deterministic.
"""

from __future__ import annotations

import contextlib

import torch
import triton
import triton.language as tl

MAX_FUSED_SIZE = 65536


def calculate_settings(n: int) -> tuple[int, int]:
    """Pick the row block size and warp count for a row of ``n`` elements."""
    BLOCK_SIZE = triton.next_power_of_2(n)
    if BLOCK_SIZE > MAX_FUSED_SIZE:
        raise RuntimeError(
            f"Cannot launch Triton kernel since n = {n} exceeds "
            f"the maximum CUDA blocksize = {MAX_FUSED_SIZE}."
        )
    num_warps = 4
    if BLOCK_SIZE >= 32768:
        num_warps = 32
    elif BLOCK_SIZE >= 8192:
        num_warps = 16
    elif BLOCK_SIZE >= 2048:
        num_warps = 8
    return BLOCK_SIZE, num_warps


def _device_ctx(t: torch.Tensor):
    # torch.cuda.device() rejects CPU devices; the interpreter runs on CPU tensors.
    return torch.cuda.device(t.device) if t.is_cuda else contextlib.nullcontext()


@triton.jit
def _rms_norm_fwd_kernel(
    Y_ptr,
    stride_y_row,
    X_ptr,
    stride_x_row,
    W_ptr,
    RSTD_ptr,
    n_cols,
    eps,
    BLOCK_SIZE: tl.constexpr,
):
    row_idx = tl.program_id(0)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols

    X_row = tl.load(X_ptr + row_idx * stride_x_row + col_offsets, mask=mask, other=0.0)
    W_row = tl.load(W_ptr + col_offsets, mask=mask, other=0.0)
    X_row = X_row.to(tl.float32)

    mean_square = tl.sum(X_row * X_row, axis=0) / n_cols
    rstd = tl.rsqrt(mean_square + eps)
    tl.store(RSTD_ptr + row_idx, rstd)

    Y_row = X_row * rstd * W_row.to(tl.float32)
    tl.store(
        Y_ptr + row_idx * stride_y_row + col_offsets,
        Y_row.to(Y_ptr.dtype.element_ty),
        mask=mask,
    )


@triton.jit
def _rms_norm_bwd_kernel(
    dY_ptr,
    stride_dy_row,
    X_ptr,
    stride_x_row,
    W_ptr,
    RSTD_ptr,
    dX_ptr,
    stride_dx_row,
    dW_partial_ptr,
    stride_dw_row,
    n_cols,
    BLOCK_SIZE: tl.constexpr,
):
    row_idx = tl.program_id(0)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols

    dY_row = tl.load(dY_ptr + row_idx * stride_dy_row + col_offsets, mask=mask, other=0.0)
    X_row = tl.load(X_ptr + row_idx * stride_x_row + col_offsets, mask=mask, other=0.0)
    W_row = tl.load(W_ptr + col_offsets, mask=mask, other=0.0)
    rstd = tl.load(RSTD_ptr + row_idx)

    dY_row = dY_row.to(tl.float32)
    X_hat = X_row.to(tl.float32) * rstd
    dY_W = dY_row * W_row.to(tl.float32)

    # dx = rstd * (dy * w - x_hat * mean(dy * w * x_hat))
    dot = tl.sum(dY_W * X_hat, axis=0) / n_cols
    dX_row = rstd * (dY_W - X_hat * dot)
    tl.store(
        dX_ptr + row_idx * stride_dx_row + col_offsets,
        dX_row.to(dX_ptr.dtype.element_ty),
        mask=mask,
    )
    tl.store(dW_partial_ptr + row_idx * stride_dw_row + col_offsets, dY_row * X_hat, mask=mask)


def _rms_norm_fwd(X: torch.Tensor, W: torch.Tensor, eps: float):
    shape = X.shape
    dim = shape[-1]
    X = X.reshape(-1, dim).contiguous()
    n_rows, n_cols = X.shape
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)

    Y = torch.empty((n_rows, n_cols), dtype=X.dtype, device=X.device)
    RSTD = torch.empty(n_rows, dtype=torch.float32, device=X.device)
    assert W.shape[0] == n_cols, "weight must have one entry per column"

    with _device_ctx(X):
        _rms_norm_fwd_kernel[(n_rows,)](
            Y,
            Y.stride(0),
            X,
            X.stride(0),
            W,
            RSTD,
            n_cols,
            eps,
            BLOCK_SIZE=BLOCK_SIZE,
            num_warps=num_warps,
        )
    return Y.view(*shape), X, RSTD, BLOCK_SIZE, num_warps


def _rms_norm_bwd(dY, X, W, RSTD, BLOCK_SIZE, num_warps):
    shape = dY.shape
    dY = dY.reshape(-1, shape[-1]).contiguous()
    n_rows, n_cols = dY.shape

    dX = torch.empty_like(dY)
    dW_partial = torch.empty((n_rows, n_cols), dtype=torch.float32, device=W.device)

    with _device_ctx(dY):
        _rms_norm_bwd_kernel[(n_rows,)](
            dY,
            dY.stride(0),
            X,
            X.stride(0),
            W,
            RSTD,
            dX,
            dX.stride(0),
            dW_partial,
            dW_partial.stride(0),
            n_cols,
            BLOCK_SIZE=BLOCK_SIZE,
            num_warps=num_warps,
        )
    dW = dW_partial.sum(dim=0).to(W.dtype)
    return dX.view(*shape), dW


class RMSNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, X, W, eps):
        Y, X_2d, RSTD, BLOCK_SIZE, num_warps = _rms_norm_fwd(X, W, eps)
        ctx.eps = eps
        ctx.BLOCK_SIZE = BLOCK_SIZE
        ctx.num_warps = num_warps
        ctx.save_for_backward(X_2d, W, RSTD)
        return Y

    @staticmethod
    def backward(ctx, dY):
        X, W, RSTD = ctx.saved_tensors
        dX, dW = _rms_norm_bwd(dY, X, W, RSTD, ctx.BLOCK_SIZE, ctx.num_warps)
        return dX, dW, None


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """RMSNorm over the last dimension of ``x``, differentiable in ``x`` and ``weight``."""
    return RMSNormFunction.apply(x, weight, eps)
