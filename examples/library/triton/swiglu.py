"""SwiGLU activation ``c = silu(a) * b`` with a fused backward (Liger-Kernel style).

Both kernels process one row per program. The backward recomputes ``silu(a)``
from the saved inputs instead of caching it, trading a few flops for one
fewer activation-sized buffer.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

MAX_FUSED_SIZE = 65536


def ensure_contiguous(fn):
    """Make every tensor argument of an autograd ``forward``/``backward`` contiguous."""

    def wrapper(ctx, *args, **kwargs):
        args = [a.contiguous() if isinstance(a, torch.Tensor) else a for a in args]
        kwargs = {
            k: (v.contiguous() if isinstance(v, torch.Tensor) else v) for k, v in kwargs.items()
        }
        return fn(ctx, *args, **kwargs)

    return wrapper


@triton.jit
def silu(x):
    return x * tl.sigmoid(x)


@triton.jit
def _swiglu_forward_kernel(
    a_ptr,
    stride_a_row,
    b_ptr,
    stride_b_row,
    c_ptr,
    stride_c_row,
    n_cols: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
):
    program_id = tl.program_id(0)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols

    # sigmoid requires fp32; cast back to the storage type on the way out.
    a_row = tl.load(a_ptr + program_id * stride_a_row + col_offsets, mask=mask, other=0)
    a_row = a_row.to(tl.float32)
    b_row = tl.load(b_ptr + program_id * stride_b_row + col_offsets, mask=mask, other=0)
    c_row = silu(a_row) * b_row
    tl.store(
        c_ptr + program_id * stride_c_row + col_offsets,
        c_row.to(c_ptr.dtype.element_ty),
        mask=mask,
    )


@triton.jit
def _swiglu_backward_kernel(
    dc_ptr,
    stride_dc_row,
    a_ptr,
    stride_a_row,
    b_ptr,
    stride_b_row,
    da_ptr,
    stride_da_row,
    db_ptr,
    stride_db_row,
    n_cols: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
):
    program_id = tl.program_id(0)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols

    dc_row = tl.load(dc_ptr + program_id * stride_dc_row + col_offsets, mask=mask, other=0)
    a_row = tl.load(a_ptr + program_id * stride_a_row + col_offsets, mask=mask, other=0)
    a_row = a_row.to(tl.float32)
    b_row = tl.load(b_ptr + program_id * stride_b_row + col_offsets, mask=mask, other=0)

    # recomputation to save memory
    sig_a = tl.sigmoid(a_row)
    silu_a = a_row * sig_a
    db_row = dc_row * silu_a
    da_row = dc_row * (silu_a * (1 - sig_a) + sig_a) * b_row

    tl.store(
        da_ptr + program_id * stride_da_row + col_offsets,
        da_row.to(da_ptr.dtype.element_ty),
        mask=mask,
    )
    tl.store(
        db_ptr + program_id * stride_db_row + col_offsets,
        db_row.to(db_ptr.dtype.element_ty),
        mask=mask,
    )


def _row_settings(n_cols: int) -> tuple[int, int]:
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    if BLOCK_SIZE > MAX_FUSED_SIZE:
        raise ValueError(f"SwiGLU rows of {n_cols} elements exceed MAX_FUSED_SIZE={MAX_FUSED_SIZE}")
    if BLOCK_SIZE >= 4096:
        num_warps = 16
    elif BLOCK_SIZE >= 1024:
        num_warps = 8
    else:
        num_warps = 4
    return BLOCK_SIZE, num_warps


def swiglu_forward(a: torch.Tensor, b: torch.Tensor):
    ori_shape = a.shape
    n_cols = ori_shape[-1]
    a = a.view(-1, n_cols)
    b = b.view(-1, n_cols)
    c = torch.empty_like(a)
    n_rows = a.shape[0]

    BLOCK_SIZE, num_warps = _row_settings(n_cols)

    _swiglu_forward_kernel[(n_rows,)](
        a,
        a.stride(-2),
        b,
        b.stride(-2),
        c,
        c.stride(-2),
        n_cols=n_cols,
        BLOCK_SIZE=BLOCK_SIZE,
        num_warps=num_warps,
    )
    return a, b, c.view(*ori_shape)


def swiglu_backward(a: torch.Tensor, b: torch.Tensor, dc: torch.Tensor):
    ori_shape = dc.shape
    n_cols = ori_shape[-1]
    dc = dc.view(-1, n_cols)
    n_rows = dc.shape[0]
    da = torch.empty_like(a)
    db = torch.empty_like(b)

    BLOCK_SIZE, num_warps = _row_settings(n_cols)

    _swiglu_backward_kernel[(n_rows,)](
        dc,
        dc.stride(-2),
        a,
        a.stride(-2),
        b,
        b.stride(-2),
        da,
        da.stride(-2),
        db,
        db.stride(-2),
        n_cols=n_cols,
        BLOCK_SIZE=BLOCK_SIZE,
        num_warps=num_warps,
    )
    return da.view(*ori_shape), db.view(*ori_shape)


class LigerSiLUMulFunction(torch.autograd.Function):
    @staticmethod
    @ensure_contiguous
    def forward(ctx, a, b):
        a, b, c = swiglu_forward(a, b)
        ctx.save_for_backward(a, b)
        return c

    @staticmethod
    @ensure_contiguous
    def backward(ctx, dc):
        a, b = ctx.saved_tensors
        da, db = swiglu_backward(a, b, dc)
        return da, db


def swiglu(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``silu(a) * b`` for two tensors of the same shape, differentiable in both."""
    if a.shape != b.shape:
        raise ValueError(f"shape mismatch: {tuple(a.shape)} vs {tuple(b.shape)}")
    return LigerSiLUMulFunction.apply(a, b)
