"""Row-wise sum reduction ``out[m] = sum_n x[m, n]``.

Each program owns ``BLOCK_M`` rows and sweeps the columns in ``BLOCK_N``
chunks, accumulating partial ``tl.sum`` results in fp32.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(
    x_ptr,
    out_ptr,
    M,
    N,
    stride_xm,
    stride_xn,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    pid = tl.program_id(0)
    offs_m = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    mask_m = offs_m < M
    acc = tl.zeros([BLOCK_M], dtype=tl.float32)
    for off in range(0, N, BLOCK_N):
        offs_n = off + tl.arange(0, BLOCK_N)
        mask = mask_m[:, None] & (offs_n[None, :] < N)
        x = tl.load(
            x_ptr + offs_m[:, None] * stride_xm + offs_n[None, :] * stride_xn, mask=mask, other=0.0
        )
        acc += tl.sum(x.to(tl.float32), axis=1)
    tl.store(out_ptr + offs_m, acc.to(out_ptr.dtype.element_ty), mask=mask_m)


def row_sum(x: torch.Tensor) -> torch.Tensor:
    """Sum a 2-D tensor ``x`` [M, N] over its last dimension; returns [M] in ``x.dtype``."""
    assert x.dim() == 2
    M, N = x.shape
    out = torch.empty((M,), device=x.device, dtype=x.dtype)
    BLOCK_M = 16
    BLOCK_N = min(triton.next_power_of_2(N), 256)
    grid = (triton.cdiv(M, BLOCK_M),)
    row_sum_kernel[grid](
        x,
        out,
        M,
        N,
        x.stride(0),
        x.stride(1),
        BLOCK_M=BLOCK_M,
        BLOCK_N=BLOCK_N,
        num_warps=4,
    )
    return out
