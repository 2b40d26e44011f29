"""Column sums by atomics: each program reduces its (block_M, block_N) tile over rows and adds
the partial sums into the output with ``T.atomic_add`` (a split reduction)."""

import tilelang
import tilelang.language as T
import torch


@tilelang.jit
def column_sum_kernel(M, N, block_M=64, block_N=64, threads=128, dtype="float32"):
    @T.prim_func
    def main(X: T.Tensor((M, N), dtype), Y: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            x = T.alloc_fragment((block_M, block_N), "float32")
            part = T.alloc_fragment((block_N,), "float32")
            T.copy(X[by * block_M, bx * block_N], x)
            T.reduce_sum(x, part, dim=0)
            T.atomic_add(Y[bx * block_N], part)

    return main


def column_sum(x: torch.Tensor) -> torch.Tensor:
    """The sum of each column of a 2-D tensor, in fp32."""
    m, n = x.shape
    y = torch.zeros(n, dtype=torch.float32, device=x.device)
    column_sum_kernel(m, n, dtype=x.dtype)(x, y)
    return y
