"""Element-wise ``C = A + B`` of two 2-D tensors, in the style of TileLang's elementwise example."""

import tilelang
import tilelang.language as T
import torch


@tilelang.jit(out_idx=[-1])
def elementwise_add(M, N, block_M=32, block_N=128, threads=128, dtype="float32"):
    @T.prim_func
    def main(
        A: T.Tensor((M, N), dtype),
        B: T.Tensor((M, N), dtype),
        C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_local = T.alloc_fragment((block_M, block_N), dtype)
            B_local = T.alloc_fragment((block_M, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), dtype)
            T.copy(A[by * block_M, bx * block_N], A_local)
            T.copy(B[by * block_M, bx * block_N], B_local)
            for i, j in T.Parallel(block_M, block_N):
                C_local[i, j] = A_local[i, j] + B_local[i, j]
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main


def add(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``a + b`` for two 2-D tensors of one shape and dtype."""
    m, n = a.shape
    kernel = elementwise_add(m, n, dtype=a.dtype)
    return kernel(a, b)
