"""Optional outputs chosen by constexpr flags the host computes (Liger's norm backward kernels):
a partial-gradient tensor is allocated only when asked for (``... if need else None``), its row
stride passed as ``out.stride(0) if need else 0`` beside ``NEED=need``, and read by the kernel
only under ``if NEED:``; the per-program accumulators are ``tl.zeros`` defined under the flag
before a loop of rows and first sized by the ``+=`` inside it."""

import math

import torch
import triton
import triton.language as tl


@triton.jit
def _center_backward_kernel(
    dy_ptr,
    dy_stride,
    x_ptr,
    x_stride,
    dx_ptr,
    dx_stride,
    dscale_ptr,
    dscale_stride,
    dshift_ptr,
    dshift_stride,
    n_rows,
    n_cols,
    rows_per_program,
    BLOCK: tl.constexpr,
    NEED_DSCALE: tl.constexpr,
    NEED_DSHIFT: tl.constexpr,
):
    pid = tl.program_id(0).to(tl.int64)
    first = pid * rows_per_program
    last = min((pid + 1) * rows_per_program, n_rows)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    if NEED_DSCALE:
        dscale_acc = tl.zeros((BLOCK,), dtype=tl.float32)
    if NEED_DSHIFT:
        dshift_acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for row in range(first, last):
        x = tl.load(x_ptr + row * x_stride + cols, mask=mask, other=0.0).to(tl.float32)
        dy = tl.load(dy_ptr + row * dy_stride + cols, mask=mask, other=0.0).to(tl.float32)
        centered = x - tl.sum(x, axis=0) / n_cols
        dx = dy - tl.sum(dy, axis=0) / n_cols
        tl.store(dx_ptr + row * dx_stride + cols, dx, mask=mask)
        if NEED_DSCALE:
            dscale_acc += dy * centered
        if NEED_DSHIFT:
            dshift_acc += dy
    if NEED_DSCALE:
        tl.store(dscale_ptr + pid * dscale_stride + cols, dscale_acc, mask=mask)
    if NEED_DSHIFT:
        tl.store(dshift_ptr + pid * dshift_stride + cols, dshift_acc, mask=mask)


def center_backward(dy: torch.Tensor, x: torch.Tensor, needs_dscale=None, needs_dshift=None):
    n_rows, n_cols = dy.shape
    need_dscale = True if needs_dscale is None else needs_dscale
    need_dshift = True if needs_dshift is None else needs_dshift
    programs = 3
    rows_per_program = math.ceil(n_rows / programs)
    partial_dscale = (
        torch.empty((programs, n_cols), dtype=torch.float32, device=dy.device)
        if need_dscale
        else None
    )
    partial_dshift = (
        torch.empty((programs, n_cols), dtype=torch.float32, device=dy.device)
        if need_dshift
        else None
    )
    dx = torch.empty((n_rows, n_cols), dtype=torch.float32, device=dy.device)
    _center_backward_kernel[(programs,)](
        dy,
        dy.stride(0),
        x,
        x.stride(0),
        dx,
        dx.stride(0),
        partial_dscale,
        partial_dscale.stride(0) if need_dscale else 0,
        partial_dshift,
        partial_dshift.stride(0) if need_dshift else 0,
        n_rows,
        n_cols,
        rows_per_program,
        BLOCK=triton.next_power_of_2(n_cols),
        NEED_DSCALE=need_dscale,
        NEED_DSHIFT=need_dshift,
    )
    dscale = partial_dscale.sum(dim=0) if need_dscale else None
    dshift = partial_dshift.sum(dim=0) if need_dshift else None
    return dx, dscale, dshift


@triton.jit
def _row_logsumexp_kernel(
    x_ptr,
    x_stride,
    lse_ptr,
    lse_sq_ptr,
    out_stride,
    n_cols,
    BLOCK: tl.constexpr,
    RETURN_LSE_SQ: tl.constexpr,
):
    row = tl.program_id(0).to(tl.int64)
    x_ptr += row * x_stride
    lse_ptr += row * out_stride
    if RETURN_LSE_SQ:
        lse_sq_ptr += row * out_stride
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
    m = tl.max(x, axis=0)
    lse = m + tl.log(tl.sum(tl.exp(x - m), axis=0))
    tl.store(lse_ptr, lse)
    if RETURN_LSE_SQ:
        tl.store(lse_sq_ptr, lse * lse)


def row_logsumexp(x: torch.Tensor, return_lse_sq: bool = True):
    n_rows, n_cols = x.shape
    lse = torch.empty(n_rows, dtype=torch.float32, device=x.device)
    lse_sq = torch.empty(n_rows, dtype=torch.float32, device=x.device) if return_lse_sq else None
    _row_logsumexp_kernel[(n_rows,)](
        x,
        x.stride(0),
        lse,
        lse_sq,
        lse.stride(-1),
        n_cols,
        BLOCK=triton.next_power_of_2(n_cols),
        RETURN_LSE_SQ=return_lse_sq,
    )
    return lse, lse_sq
