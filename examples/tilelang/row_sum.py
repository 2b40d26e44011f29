"""Row sums ``y[i] = sum_j x[i, j]``, looping over the row in blocks (a reduce example)."""

import tilelang
import tilelang.language as T
import torch


@tilelang.jit(out_idx=[-1])
def row_sum_kernel(M, N, block_M=32, block_N=64, threads=128, dtype="float32"):
    @T.prim_func
    def main(X: T.Tensor((M, N), dtype), Y: T.Tensor((M,), dtype)):
        with T.Kernel(T.ceildiv(M, block_M), threads=threads) as bx:
            x = T.alloc_fragment((block_M, block_N), "float32")
            part = T.alloc_fragment((block_M,), "float32")
            acc = T.alloc_fragment((block_M,), "float32")
            T.clear(acc)
            for ko in T.serial(T.ceildiv(N, block_N)):
                # Lanes past the row's end read 0, which the sum ignores.
                T.copy(X[bx * block_M, ko * block_N], x)
                T.reduce_sum(x, part, dim=1)
                for i in T.Parallel(block_M):
                    acc[i] = acc[i] + part[i]
            T.copy(acc, Y[bx * block_M])

    return main


def row_sum(x: torch.Tensor) -> torch.Tensor:
    """The sum of each row of a 2-D tensor."""
    m, n = x.shape
    return row_sum_kernel(m, n, dtype=x.dtype)(x)
