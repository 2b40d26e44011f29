"""Persistent programs that accumulate partial weight gradients over the rows they take (the
backward of Liger's DyT and RMSNorm): program ``p`` of ``G`` handles rows ``p, p + G, ...``,
carries its partial sums from one row to the next and stores them once after the loop, at its
own slot; the host sums the ``G`` partials."""

import torch
import triton
import triton.language as tl


@triton.jit
def _softsign_bwd_kernel(dy_ptr, x_ptr, w_ptr, dx_ptr, dw_ptr, dalpha_ptr, n_rows, n_cols,
                         stride_row, n_col_blocks, alpha, BLOCK_N: tl.constexpr):  # fmt: skip
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = cols < n_cols
    first_row = tl.cast(tl.program_id(1), tl.int64)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    dw = tl.zeros((BLOCK_N,), dtype=tl.float32)
    dalpha = 0.0
    for row in range(first_row, n_rows, tl.num_programs(1)):
        x = tl.load(x_ptr + row * stride_row + cols, mask=mask, other=0.0).to(tl.float32)
        dy = tl.load(dy_ptr + row * stride_row + cols, mask=mask, other=0.0).to(tl.float32)
        d = 1.0 + tl.abs(alpha * x)
        t = alpha * x / d  # softsign(alpha * x)
        dw += dy * t
        g = dy * w / (d * d)
        dalpha += tl.sum(x * g, axis=0)
        tl.store(dx_ptr + row * stride_row + cols, alpha * g, mask=mask)
    tl.store(dw_ptr + first_row * n_cols + cols, dw, mask=mask)
    tl.store(dalpha_ptr + first_row * n_col_blocks + tl.program_id(0), dalpha)


def softsign_backward(dy: torch.Tensor, x: torch.Tensor, w: torch.Tensor, alpha: float = 0.7,
                      num_programs: int = 2):  # fmt: skip
    """Gradients of ``w * softsign(alpha * x)`` for 2-d ``x``: ``(dx, dw, dalpha)``."""
    n_rows, n_cols = x.shape
    BLOCK_N = 16
    dx = torch.empty_like(x)
    dw = torch.empty((num_programs, n_cols), dtype=torch.float32, device=x.device)
    n_col_blocks = triton.cdiv(n_cols, BLOCK_N)
    # One partial per program and column block, flat (Liger's DyT layout).
    dalpha = torch.zeros(num_programs * n_col_blocks, dtype=torch.float32, device=x.device)
    grid = (triton.cdiv(n_cols, BLOCK_N), num_programs)
    _softsign_bwd_kernel[grid](
        dy,
        x,
        w,
        dx,
        dw,
        dalpha,
        n_rows,
        n_cols,
        x.stride(0),
        n_col_blocks,
        alpha,
        BLOCK_N=BLOCK_N,
    )
    return dx, dw.sum(0).to(w.dtype), dalpha.sum()


@triton.jit
def _rms_scale_bwd_kernel(dy_ptr, x_ptr, rstd_ptr, dw_ptr, n_rows, n_cols: tl.constexpr,
                          BLOCK: tl.constexpr):  # fmt: skip
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    dw = tl.zeros((BLOCK,), dtype=tl.float32)
    for row in tl.range(pid, n_rows, tl.num_programs(0)):
        # Rows of a constexpr length (Liger's `N: tl.constexpr`): contiguous rows.
        x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
        dy = tl.load(dy_ptr + row * n_cols + cols, mask=mask, other=0.0).to(tl.float32)
        rstd = tl.load(rstd_ptr + row)
        dw += dy * x * rstd
    tl.store(dw_ptr + pid * n_cols + cols, dw, mask=mask)


def rms_scale_grad(dy: torch.Tensor, x: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """The weight gradient of an RMSNorm over the rows of 2-d ``x``, from a few programs."""
    assert x.is_contiguous() and dy.is_contiguous()
    n_rows, n_cols = x.shape
    rstd = torch.rsqrt(x.float().pow(2).mean(-1) + eps)
    num_programs = min(n_rows, 2)
    partial = torch.empty((num_programs, n_cols), dtype=torch.float32, device=x.device)
    _rms_scale_bwd_kernel[(num_programs,)](
        dy, x, rstd, partial, n_rows, n_cols, BLOCK=triton.next_power_of_2(n_cols)
    )
    return partial.sum(0)
