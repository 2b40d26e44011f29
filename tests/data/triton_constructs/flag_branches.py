"""Constexpr flags the host computes at run time (Liger's ``COMPUTE_DW=compute_dw``): a value
defined under ``if FLAG:`` and read under the same flag later (in a loop too), and a kernel
launched on one program (``kernel[(1,)]``) that reads no program id."""

import torch
import triton
import triton.language as tl


@triton.jit
def _sum_squares_kernel(x_ptr, out_ptr, dw_ptr, n_rows, n_cols, COMPUTE_DW: tl.constexpr,
                        BLOCK: tl.constexpr):  # fmt: skip
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    if COMPUTE_DW:
        dw = tl.zeros((BLOCK,), dtype=tl.float32)
        scale = tl.load(x_ptr + cols, mask=mask, other=0.0).to(tl.float32) * 0.5
    total = tl.zeros((BLOCK,), dtype=tl.float32)
    for r in range(0, n_rows):
        x = tl.load(x_ptr + r * n_cols + cols, mask=mask, other=0.0)
        total += x
        if COMPUTE_DW:
            dw += x * x * scale
    tl.store(out_ptr + cols, total, mask=mask)
    if COMPUTE_DW:
        tl.store(dw_ptr + cols, dw, mask=mask)


def sum_squares(x: torch.Tensor, needs_dw=None):
    n_rows, n_cols = x.shape
    compute_dw = True if needs_dw is None else needs_dw
    out = torch.empty(n_cols, dtype=torch.float32, device=x.device)
    dw = torch.empty(n_cols, dtype=torch.float32, device=x.device)
    _sum_squares_kernel[(1,)](x, out, dw, n_rows, n_cols, COMPUTE_DW=compute_dw,
                              BLOCK=triton.next_power_of_2(n_cols))  # fmt: skip
    return out, dw


def column_sums(x: torch.Tensor):
    n_rows, n_cols = x.shape
    out = torch.empty(n_cols, dtype=torch.float32, device=x.device)
    dw = torch.zeros(n_cols, dtype=torch.float32, device=x.device)
    _sum_squares_kernel[(1,)](x, out, dw, n_rows, n_cols, COMPUTE_DW=n_rows < 0,
                              BLOCK=triton.next_power_of_2(n_cols))  # fmt: skip
    return out, dw
