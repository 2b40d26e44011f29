"""A TileLang grid axis that flattens two tile counts (the mamba chunk-state example):
``T.Kernel(T.ceildiv(M, block_M) * T.ceildiv(N, block_N))`` split back into the row and column
tile indices with ``//`` and ``%``."""

import tilelang
import tilelang.language as T
import torch


@tilelang.jit(out_idx=[1])
def scaled(M, N, block_M=32, block_N=64, dtype="float32"):
    @T.prim_func
    def main(X: T.Tensor((M, N), dtype), Y: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(M, block_M) * T.ceildiv(N, block_N), threads=128) as bx:
            m_idx = bx // T.ceildiv(N, block_N)
            n_idx = bx % T.ceildiv(N, block_N)
            x = T.alloc_shared((block_M, block_N), dtype)
            y = T.alloc_fragment((block_M, block_N), dtype)
            T.copy(X[m_idx * block_M, n_idx * block_N], x)
            for i, j in T.Parallel(block_M, block_N):
                y[i, j] = x[i, j] * (m_idx + 1) + n_idx
            T.copy(
                y,
                Y[m_idx * block_M : (m_idx + 1) * block_M, n_idx * block_N : (n_idx + 1) * block_N],
            )

    return main


def scale_tiles(x: torch.Tensor) -> torch.Tensor:
    """``x * (i // 32 + 1) + j // 64`` of element ``(i, j)``."""
    m, n = x.shape
    return scaled(m, n)(x)
