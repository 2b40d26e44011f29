"""Batched GEMM: the batch is a third grid dim, one index per program, the leading index of
each copied region."""

import tilelang
import tilelang.language as T
import torch


@tilelang.jit(out_idx=[-1])
def bmm_kernel(Batch, M, N, K, block_M=64, block_N=64, block_K=32, threads=128, dtype="float16"):
    @T.prim_func
    def main(
        A: T.Tensor((Batch, M, K), dtype),
        B: T.Tensor((Batch, K, N), dtype),
        C: T.Tensor((Batch, M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), Batch, threads=threads) as (
            bx,
            by,
            bz,
        ):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(C_local)
            for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
                T.copy(A[bz, by * block_M, ko * block_K], A_shared)
                T.copy(B[bz, ko * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[bz, by * block_M, bx * block_N])

    return main


def bmm(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``a @ b`` for batches of matrices (B, M, K) and (B, K, N)."""
    batch, m, k = a.shape
    _, _, n = b.shape
    return bmm_kernel(batch, m, n, k, dtype=a.dtype)(a, b)
