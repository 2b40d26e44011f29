"""GEMM ``C = A @ B`` with a pipelined K loop, as TileLang's quickstart matmul."""

import tilelang
import tilelang.language as T
import torch


@tilelang.jit(out_idx=[-1])
def matmul(
    M, N, K, block_M=128, block_N=128, block_K=32, num_stages=3, threads=128, dtype="float16"
):
    accum_dtype = "float"

    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            # Walk K one block at a time; TileLang pipelines the copies.
            for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, ko * block_K], A_shared)
                T.copy(B[ko * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main


def gemm(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``a @ b`` of 2-D tensors of one dtype, accumulated in fp32."""
    m, k = a.shape
    _, n = b.shape
    kernel = matmul(m, n, k, dtype=a.dtype)
    return kernel(a, b)
