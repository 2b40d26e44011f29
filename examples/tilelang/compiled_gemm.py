"""``C = A @ B.T`` in the style of TileLang's GEMM example: an undecorated ``matmul`` factory
of every tile parameter, built in the host function and compiled there with
``tilelang.compile(func, out_idx=-1)``; the accumulator leaves through shared memory and a
rasterised program order is switched on by a factory flag."""

import tilelang
import tilelang.language as T
import torch


def matmul(
    M,
    N,
    K,
    block_M,
    block_N,
    block_K,
    num_stages,
    thread_num,
    enable_rasterization,
    dtype="float16",
    accum_dtype="float",
):
    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((N, K), dtype),
        C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=thread_num) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_N, block_K), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            C_shared = T.alloc_shared((block_M, block_N), dtype)
            T.use_swizzle(panel_size=10, enable=enable_rasterization)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[bx * block_N, k * block_K], B_shared)
                T.gemm(A_shared, B_shared, C_local, transpose_B=True)
            T.copy(C_local, C_shared)
            T.copy(C_shared, C[by * block_M, bx * block_N])

    return main


def linear(a: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """``a @ w.T`` for ``a`` of shape (M, K) and ``w`` of shape (N, K)."""
    m, k = a.shape
    n, _ = w.shape
    func = matmul(m, n, k, 64, 64, 32, 2, 128, True, dtype=a.dtype)
    kernel = tilelang.compile(func, out_idx=-1)
    return kernel(a, w)
