"""Row softmax: each program holds ``block_M`` whole rows, padded to a power of two, in
fragments; lanes past the row's end are masked before each reduction."""

import tilelang
import tilelang.language as T
import torch


@tilelang.jit(out_idx=[-1])
def softmax_kernel(M, N, block_M=4, threads=128, dtype="float32"):
    N_pad = tilelang.math.next_power_of_2(N)

    @T.prim_func
    def main(X: T.Tensor((M, N), dtype), Y: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(M, block_M), threads=threads) as bx:
            x = T.alloc_fragment((block_M, N_pad), "float32")
            x_masked = T.alloc_fragment((block_M, N_pad), "float32")
            row_max = T.alloc_fragment((block_M,), "float32")
            num = T.alloc_fragment((block_M, N_pad), "float32")
            row_sum = T.alloc_fragment((block_M,), "float32")
            y = T.alloc_fragment((block_M, N_pad), dtype)
            # Lanes past the row's end read 0: the max must not see them.
            T.copy(X[bx * block_M, 0], x)
            for i, j in T.Parallel(block_M, N_pad):
                x_masked[i, j] = T.if_then_else(j < N, x[i, j], -T.infinity("float32"))
            T.reduce_max(x_masked, row_max, dim=1)
            for i, j in T.Parallel(block_M, N_pad):
                num[i, j] = T.if_then_else(j < N, T.exp(x[i, j] - row_max[i]), 0.0)
            T.reduce_sum(num, row_sum, dim=1)
            for i, j in T.Parallel(block_M, N_pad):
                y[i, j] = num[i, j] / row_sum[i]
            T.copy(y, Y[bx * block_M, 0])

    return main


def softmax(x: torch.Tensor) -> torch.Tensor:
    """Softmax over the last dim of a 2-D tensor."""
    m, n = x.shape
    return softmax_kernel(m, n, dtype=x.dtype)(x)
