"""RMS norm of each row, ``y = x / sqrt(mean(x^2) + eps) * w``, as TileLang's rms_norm example
(rows padded to a power of two, masked before the reduction)."""

import tilelang
import tilelang.language as T
import torch


@tilelang.jit(out_idx=[-1])
def rms_norm_kernel(M, N, eps, blk_m=4, threads=128, dtype="float32"):
    N_pad = tilelang.math.next_power_of_2(N)

    @T.prim_func
    def main(
        A: T.Tensor((M, N), dtype),
        W: T.Tensor((N,), dtype),
        B: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(M, blk_m), threads=threads) as bx:
            A_local = T.alloc_fragment((blk_m, N_pad), "float32")
            W_local = T.alloc_fragment((N_pad,), "float32")
            A_pow_local = T.alloc_fragment((blk_m, N_pad), "float32")
            A_powsum = T.alloc_fragment((blk_m,), "float32")
            B_local = T.alloc_fragment((blk_m, N_pad), dtype)
            T.copy(A[bx * blk_m, 0], A_local)
            T.copy(W[0], W_local)
            for i, j in T.Parallel(blk_m, N_pad):
                A_pow_local[i, j] = T.if_then_else(j < N, A_local[i, j] * A_local[i, j], 0.0)
            T.reduce_sum(A_pow_local, A_powsum, dim=1)
            for i in T.Parallel(blk_m):
                A_powsum[i] = T.rsqrt(A_powsum[i] / N + eps)
            for i, j in T.Parallel(blk_m, N_pad):
                B_local[i, j] = A_local[i, j] * A_powsum[i] * W_local[j]
            T.copy(B_local, B[bx * blk_m, 0])

    return main


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """RMS-normalise the rows of ``x`` (M, N) and scale by ``weight`` (N,)."""
    m, n = x.shape
    kernel = rms_norm_kernel(m, n, eps, dtype=x.dtype)
    return kernel(x, weight)
