"""TileLang written as the tile-ai examples write it: ``import tilelang as tl`` with tile counts
``tl.cdiv(N, block_N)`` (the host helper, in a factory local or in ``T.Kernel``), and a scalar
``T.alloc_var`` the program computes once and then overwrites."""

import tilelang as tl
import tilelang.language as T
import torch


@tl.jit(out_idx=[1])
def decayed_rows(M, N, block_M=32, block_N=64, dtype="float32"):
    NM = tl.cdiv(M, block_M)

    @T.prim_func
    def main(X: T.Tensor((M, N), dtype), Y: T.Tensor((M, N), dtype)):
        with T.Kernel(tl.cdiv(N, block_N), NM, threads=128) as (bx, by):
            decay = T.alloc_var("float32")
            decay = 1.0 / (by + 1.0)
            decay = decay * 0.5 + 0.25
            x = T.alloc_shared((block_M, block_N), dtype)
            y = T.alloc_fragment((block_M, block_N), dtype)
            T.copy(X[by * block_M, bx * block_N], x)
            for i, j in T.Parallel(block_M, block_N):
                y[i, j] = x[i, j] * decay
            T.copy(y, Y[by * block_M, bx * block_N])

    return main


def decay_rows(x: torch.Tensor) -> torch.Tensor:
    """``x[i, j] * (0.5 / (i // 32 + 1) + 0.25)``."""
    m, n = x.shape
    kernel = decayed_rows(m, n)
    return kernel(x)
