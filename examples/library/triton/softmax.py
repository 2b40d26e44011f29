"""Row softmax with a fused backward (Triton fused-softmax tutorial, made differentiable).

Each program owns one row, loaded whole into a power-of-two block. Inputs whose
last dimension is strided (e.g. a transposed view) are read by a second kernel
that takes the column stride, so no copy is needed for the forward.
"""

from __future__ import annotations

import contextlib

import torch
import triton
import triton.language as tl

MAX_FUSED_SIZE = 65536


def _device_ctx(t: torch.Tensor):
    return torch.cuda.device(t.device) if t.is_cuda else contextlib.nullcontext()


def _num_warps_for(BLOCK_SIZE: int) -> int:
    if BLOCK_SIZE >= 4096:
        num_warps = 16
    elif BLOCK_SIZE >= 2048:
        num_warps = 8
    else:
        num_warps = 4
    return num_warps


@triton.jit
def _softmax_fwd_kernel(
    Y_ptr,
    stride_y_row,
    X_ptr,
    stride_x_row,
    n_cols,
    BLOCK_SIZE: tl.constexpr,
):
    row_idx = tl.program_id(0)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols

    row = tl.load(X_ptr + row_idx * stride_x_row + col_offsets, mask=mask, other=-float("inf"))
    row = row.to(tl.float32)
    row_minus_max = row - tl.max(row, axis=0)
    numerator = tl.exp(row_minus_max)
    denominator = tl.sum(numerator, axis=0)
    softmax_output = numerator / denominator
    tl.store(
        Y_ptr + row_idx * stride_y_row + col_offsets,
        softmax_output.to(Y_ptr.dtype.element_ty),
        mask=mask,
    )


@triton.jit
def _softmax_fwd_strided_kernel(
    Y_ptr,
    stride_y_row,
    X_ptr,
    stride_x_row,
    stride_x_col,
    n_cols,
    BLOCK_SIZE: tl.constexpr,
):
    row_idx = tl.program_id(0)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols

    row = tl.load(
        X_ptr + row_idx * stride_x_row + col_offsets * stride_x_col,
        mask=mask,
        other=-float("inf"),
    )
    row = row.to(tl.float32)
    row_minus_max = row - tl.max(row, axis=0)
    numerator = tl.exp(row_minus_max)
    denominator = tl.sum(numerator, axis=0)
    tl.store(
        Y_ptr + row_idx * stride_y_row + col_offsets,
        (numerator / denominator).to(Y_ptr.dtype.element_ty),
        mask=mask,
    )


@triton.jit
def _softmax_bwd_kernel(
    dX_ptr,
    stride_dx_row,
    dY_ptr,
    stride_dy_row,
    Y_ptr,
    stride_y_row,
    n_cols,
    BLOCK_SIZE: tl.constexpr,
):
    row_idx = tl.program_id(0)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols

    dy = tl.load(dY_ptr + row_idx * stride_dy_row + col_offsets, mask=mask, other=0.0)
    y = tl.load(Y_ptr + row_idx * stride_y_row + col_offsets, mask=mask, other=0.0)
    dy = dy.to(tl.float32)
    y = y.to(tl.float32)
    # dx = y * (dy - sum(dy * y))
    dot = tl.sum(dy * y, axis=0)
    dx = y * (dy - dot)
    tl.store(
        dX_ptr + row_idx * stride_dx_row + col_offsets, dx.to(dX_ptr.dtype.element_ty), mask=mask
    )


def softmax_forward(x: torch.Tensor) -> torch.Tensor:
    """Softmax over the last dimension; a strided last dimension is read in place."""
    n_cols = x.shape[-1]
    x_2d = x.reshape(-1, n_cols)
    n_rows = x_2d.shape[0]
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    if BLOCK_SIZE > MAX_FUSED_SIZE:
        raise ValueError(f"softmax rows of {n_cols} elements do not fit in one block")
    num_warps = _num_warps_for(BLOCK_SIZE)

    y = torch.empty((n_rows, n_cols), dtype=x.dtype, device=x.device)
    with _device_ctx(x):
        if x_2d.stride(-1) == 1:
            _softmax_fwd_kernel[(n_rows,)](
                y,
                y.stride(0),
                x_2d,
                x_2d.stride(0),
                n_cols,
                BLOCK_SIZE=BLOCK_SIZE,
                num_warps=num_warps,
            )
        else:
            _softmax_fwd_strided_kernel[(n_rows,)](
                y,
                y.stride(0),
                x_2d,
                x_2d.stride(0),
                x_2d.stride(1),
                n_cols,
                BLOCK_SIZE=BLOCK_SIZE,
                num_warps=num_warps,
            )
    return y.view(x.shape)


def softmax_backward(dy: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Gradient of softmax given the upstream gradient ``dy`` and the forward output ``y``."""
    n_cols = y.shape[-1]
    dy_2d = dy.reshape(-1, n_cols).contiguous()
    y_2d = y.reshape(-1, n_cols).contiguous()
    n_rows = y_2d.shape[0]
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    num_warps = _num_warps_for(BLOCK_SIZE)

    dx = torch.empty_like(y_2d)
    with _device_ctx(y):
        _softmax_bwd_kernel[(n_rows,)](
            dx,
            dx.stride(0),
            dy_2d,
            dy_2d.stride(0),
            y_2d,
            y_2d.stride(0),
            n_cols,
            BLOCK_SIZE=BLOCK_SIZE,
            num_warps=num_warps,
        )
    return dx.view_as(y)


class SoftmaxFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x: torch.Tensor) -> torch.Tensor:
        y = softmax_forward(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, dy: torch.Tensor) -> torch.Tensor:
        (y,) = ctx.saved_tensors
        return softmax_backward(dy, y)


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """Differentiable softmax of ``x`` along ``dim``."""
    if dim in (-1, x.dim() - 1):
        return SoftmaxFunction.apply(x)
    return SoftmaxFunction.apply(x.transpose(dim, -1)).transpose(dim, -1)
