"""Matrix-vector product ``y = A @ x``: each program reduces a block of rows over K tiles."""

import tilelang
import tilelang.language as T
import torch


@tilelang.jit(out_idx=[-1])
def gemv(N, K, block_N=64, block_K=128, threads=128, dtype="float32"):
    @T.prim_func
    def main(
        A: T.Tensor((N, K), dtype),
        x: T.Tensor((K,), dtype),
        y: T.Tensor((N,), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), threads=threads) as bx:
            a_tile = T.alloc_fragment((block_N, block_K), dtype)
            x_tile = T.alloc_fragment((block_K,), dtype)
            prod = T.alloc_fragment((block_N, block_K), "float32")
            partial = T.alloc_fragment((block_N,), "float32")
            acc = T.alloc_fragment((block_N,), "float32")
            T.clear(acc)
            for ko in T.serial(T.ceildiv(K, block_K)):
                T.copy(A[bx * block_N, ko * block_K], a_tile)
                T.copy(x[ko * block_K], x_tile)
                for i, k in T.Parallel(block_N, block_K):
                    prod[i, k] = T.cast(a_tile[i, k], "float32") * T.cast(x_tile[k], "float32")
                T.reduce_sum(prod, partial, dim=1)
                for i in T.Parallel(block_N):
                    acc[i] += partial[i]
            T.copy(acc, y[bx * block_N])

    return main


def matvec(a: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """``a @ x`` for a matrix ``a`` (N, K) and a vector ``x`` (K,)."""
    n, k = a.shape
    kernel = gemv(n, k, dtype=a.dtype)
    return kernel(a, x)
