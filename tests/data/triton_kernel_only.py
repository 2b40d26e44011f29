"""Kernels shipped without a host wrapper (a library's kernel file)."""

import triton
import triton.language as tl


@triton.jit
def scale_add_kernel(
    x_ptr,
    y_ptr,
    out_ptr,
    M,
    N,
    alpha,
    stride_xm,
    stride_xn,
    stride_ym,
    stride_yn,
    stride_om,
    stride_on,
    BLOCK_M: tl.constexpr = 32,
    BLOCK_N: tl.constexpr = 64,
):
    # out = alpha * x + y over a 2-D grid of tiles.
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    x = tl.load(x_ptr + offs_m[:, None] * stride_xm + offs_n[None, :] * stride_xn, mask=mask)
    y = tl.load(y_ptr + offs_m[:, None] * stride_ym + offs_n[None, :] * stride_yn, mask=mask)
    tl.store(
        out_ptr + offs_m[:, None] * stride_om + offs_n[None, :] * stride_on,
        x * alpha + y,
        mask=mask,
    )


@triton.jit
def row_max_kernel(x_ptr, out_ptr, n_rows, n_cols, stride_row, BLOCK: tl.constexpr = 128):
    row = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    acc = tl.full([BLOCK], float("-inf"), dtype=tl.float32)
    for c in range(0, n_cols):
        v = tl.load(x_ptr + row * stride_row + c, mask=row < n_rows, other=float("-inf"))
        acc = tl.maximum(acc, v.to(tl.float32))
    tl.store(out_ptr + row, acc, mask=row < n_rows)
