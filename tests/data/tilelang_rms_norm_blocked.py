"""RMS norm over row blocks whose columns are read ``blk_k`` at a time, in the style of
TileLang's ``rms_norm`` example (``rms_norm_splitk``): Python ``range`` loops over a count the
kernel names (``num_k_step = T.ceildiv(N, blk_k)``), one pass that sums squares block by block,
one that scales and stores."""

import tilelang
import tilelang.language as T
import torch


@tilelang.jit(out_idx=[-1])
def rms_norm_blocked(M, N, blk_m, blk_k):
    dtype = "float"

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), B: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(M, blk_m), threads=128) as bx:
            A_shared = T.alloc_shared((blk_m, blk_k), dtype)
            A_sq = T.alloc_fragment((blk_m, blk_k), dtype)
            A_part = T.alloc_fragment((blk_m,), dtype)
            A_powsum = T.alloc_fragment((blk_m,), dtype)

            num_k_step = T.ceildiv(N, blk_k)
            T.clear(A_powsum)
            for k in range(num_k_step):
                T.copy(A[bx * blk_m, k * blk_k], A_shared)
                for i, j in T.Parallel(blk_m, blk_k):
                    A_sq[i, j] = A_shared[i, j] * A_shared[i, j]
                T.reduce_sum(A_sq, A_part, dim=1)
                for i in T.Parallel(blk_m):
                    A_powsum[i] += A_part[i]
            for i in T.Parallel(blk_m):
                A_powsum[i] = T.rsqrt(A_powsum[i] / N + 1e-12)

            for k in range(num_k_step):
                T.copy(A[bx * blk_m, k * blk_k], A_shared)
                for i, j in T.Parallel(blk_m, blk_k):
                    A_shared[i, j] *= A_powsum[i]
                T.copy(A_shared, B[bx * blk_m, k * blk_k])

    return main


def rms_norm(x: torch.Tensor) -> torch.Tensor:
    """``x * rsqrt(mean(x**2, -1) + 1e-12)`` of a 2-D float32 ``x``."""
    m, n = x.shape
    kernel = rms_norm_blocked(m, n, 4, 64)
    return kernel(x)
