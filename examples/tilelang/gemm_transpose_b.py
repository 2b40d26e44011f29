"""``C = A @ B.T`` with B stored as (N, K), the layout of a linear layer's weight."""

import tilelang
import tilelang.language as T
import torch


@tilelang.jit(out_idx=[-1])
def matmul_nt(M, N, K, block_M=64, block_N=64, block_K=32, threads=128, dtype="float16"):
    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((N, K), dtype),
        C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_N, block_K), dtype)
            C_local = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(C_local)
            for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
                T.copy(A[by * block_M, ko * block_K], A_shared)
                T.copy(B[bx * block_N, ko * block_K], B_shared)
                T.gemm(A_shared, B_shared, C_local, transpose_B=True)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main


def linear(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """``x @ weight.T`` for ``x`` of shape (M, K) and ``weight`` of shape (N, K)."""
    m, k = x.shape
    n, _ = weight.shape
    kernel = matmul_nt(m, n, k, dtype=x.dtype)
    return kernel(x, weight)
