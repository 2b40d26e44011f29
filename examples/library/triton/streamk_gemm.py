"""Stream-K GEMM (the Stream-K paper's atomic variant, as Triton's stream-K examples write it).

A data-parallel GEMM gives each program whole output tiles, and the last wave leaves SMs idle
when the tile count is not a multiple of the SM count. Stream-K flattens the work into
``tiles * iters_per_tile`` MAC iterations (one ``BLOCK_K`` step of one tile each) and gives every
one of ``NUM_SM`` persistent programs an equal, contiguous range of them: a program may start
or stop in the middle of a tile, and the partial sums of a tile that several programs share
meet in the fp32 output through ``tl.atomic_add`` (the host zeroes it first).
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

NUM_SM = 5  # persistent programs (the SM count on a GPU); 5 splits tiles unevenly on purpose


@triton.jit
def streamk_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    stride_am,
    stride_ak,
    stride_bk,
    stride_bn,
    stride_cm,
    stride_cn,
    iters_per_tile,
    total_iters,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
):
    pid = tl.program_id(0)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    iters_per_program = tl.cdiv(total_iters, tl.num_programs(0))
    start_iter = pid * iters_per_program
    last_iter = tl.minimum(start_iter + iters_per_program, total_iters)
    # One pass per tile this program's range of iterations touches.
    while start_iter < last_iter:
        tile_id = start_iter // iters_per_tile
        tile_iter = tile_id * iters_per_tile
        end_iter = tl.minimum(tile_iter + iters_per_tile, last_iter)
        pid_m = tile_id // num_pid_n
        pid_n = tile_id % num_pid_n
        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for it in range(start_iter, end_iter):
            offs_k = (it - tile_iter) * BLOCK_K + tl.arange(0, BLOCK_K)
            a = tl.load(
                a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak,
                mask=(offs_m[:, None] < M) & (offs_k[None, :] < K),
                other=0.0,
            )
            b = tl.load(
                b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn,
                mask=(offs_k[:, None] < K) & (offs_n[None, :] < N),
                other=0.0,
            )
            acc = tl.dot(a, b, acc)
        c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
        tl.atomic_add(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))
        start_iter = end_iter


def streamk_matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``a @ b`` in fp32 (the atomics' dtype) for ``a`` [M, K] and ``b`` [K, N]."""
    assert a.shape[1] == b.shape[0], "incompatible dimensions"
    M, K = a.shape
    N = b.shape[1]
    BLOCK_M, BLOCK_N, BLOCK_K = 16, 16, 16
    iters_per_tile = triton.cdiv(K, BLOCK_K)
    total_iters = triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N) * iters_per_tile
    c = torch.zeros((M, N), device=a.device, dtype=torch.float32)
    streamk_kernel[(NUM_SM,)](
        a,
        b,
        c,
        M,
        N,
        K,
        a.stride(0),
        a.stride(1),
        b.stride(0),
        b.stride(1),
        c.stride(0),
        c.stride(1),
        iters_per_tile,
        total_iters,
        BLOCK_M=BLOCK_M,
        BLOCK_N=BLOCK_N,
        BLOCK_K=BLOCK_K,
    )
    return c
