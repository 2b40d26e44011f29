"""Row softmax: each program holds ``block_M`` whole rows in a fragment."""

import tilelang
import tilelang.language as T
import torch


@tilelang.jit(out_idx=[-1])
def softmax_kernel(M, N, block_M=4, threads=128, dtype="float32"):
    @T.prim_func
    def main(X: T.Tensor((M, N), dtype), Y: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(M, block_M), threads=threads) as bx:
            x = T.alloc_fragment((block_M, N), "float32")
            row_max = T.alloc_fragment((block_M,), "float32")
            num = T.alloc_fragment((block_M, N), "float32")
            row_sum = T.alloc_fragment((block_M,), "float32")
            T.copy(X[bx * block_M, 0], x)
            T.reduce_max(x, row_max, dim=1)
            for i, j in T.Parallel(block_M, N):
                num[i, j] = T.exp(x[i, j] - row_max[i])
            T.reduce_sum(num, row_sum, dim=1)
            for i, j in T.Parallel(block_M, N):
                num[i, j] = num[i, j] / row_sum[i]
            T.copy(num, Y[bx * block_M, 0])

    return main


def softmax(x: torch.Tensor) -> torch.Tensor:
    """Softmax over the last dim of a 2-D tensor."""
    m, n = x.shape
    return softmax_kernel(m, n, dtype=x.dtype)(x)
