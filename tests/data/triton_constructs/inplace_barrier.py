"""Liger-style in-place softmax: each program overwrites its row of the logits with the softmax
and then, after a ``tl.debug_barrier()`` copied from Triton's old cross-entropy op, writes the
row's log-sum-exp to a tensor of its own."""

import torch
import triton
import triton.language as tl


@triton.jit
def softmax_inplace_kernel(X_ptr, X_stride, lse_ptr, n_cols, BLOCK_SIZE: tl.constexpr):
    program_id = tl.program_id(0).to(tl.int64)
    X_ptr += program_id * X_stride
    lse_ptr += program_id

    offsets = tl.arange(0, BLOCK_SIZE)
    x = tl.load(X_ptr + offsets, mask=offsets < n_cols, other=float("-inf")).to(tl.float32)
    m = tl.max(x, 0)
    e = tl.exp(x - m)
    d = tl.sum(e, 0)
    tl.store(X_ptr + offsets, (e / d).to(X_ptr.dtype.element_ty), mask=offsets < n_cols)

    # The row of X is final before anything else is written.
    tl.debug_barrier()

    lse = m + tl.log(d)
    tl.store(lse_ptr, lse.to(lse_ptr.dtype.element_ty))


def softmax_(x: torch.Tensor) -> torch.Tensor:
    """Replace each row of the 2-d ``x`` by its softmax, in place; the rows' log-sum-exp."""
    n_rows, n_cols = x.shape
    lse = torch.empty(n_rows, dtype=x.dtype, device=x.device)
    softmax_inplace_kernel[(n_rows,)](
        x, x.stride(0), lse, n_cols, BLOCK_SIZE=triton.next_power_of_2(n_cols)
    )
    return lse
