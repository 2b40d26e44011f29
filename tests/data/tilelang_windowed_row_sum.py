"""Row sums over a key range, ``Y[i] = sum_j X[i, j]`` (causal: ``j <= i`` only), blocked as
TileLang's attention examples block their key loop: the loop's trip count is a local of the
kernel, chosen by the factory's ``is_causal`` (causal: only the key blocks up to the row block's
end; the keys past each row masked out in the body)."""

import tilelang
import tilelang.language as T
import torch


def windowed_row_sum(M, N, block_M, block_N, is_causal=False, threads=128, num_stages=2):
    @T.prim_func
    def main(X: T.Tensor((M, N), "float32"), Y: T.Tensor((M,), "float32")):
        with T.Kernel(T.ceildiv(M, block_M), threads=threads) as bx:
            x = T.alloc_shared((block_M, block_N), "float32")
            xm = T.alloc_fragment((block_M, block_N), "float32")
            part = T.alloc_fragment((block_M,), "float32")
            acc = T.alloc_fragment((block_M,), "float32")
            T.clear(acc)
            loop_range = (
                T.min(T.ceildiv(N, block_N), T.ceildiv((bx + 1) * block_M, block_N))
                if is_causal
                else T.ceildiv(N, block_N)
            )
            for k in T.Pipelined(loop_range, num_stages=num_stages):
                T.copy(X[bx * block_M, k * block_N], x)
                if is_causal:
                    for i, j in T.Parallel(block_M, block_N):
                        xm[i, j] = T.if_then_else(bx * block_M + i >= k * block_N + j, x[i, j], 0)
                else:
                    T.copy(x, xm)
                T.reduce_sum(xm, part, dim=1)
                for i in T.Parallel(block_M):
                    acc[i] += part[i]
            T.copy(acc, Y[bx * block_M])

    return main


def row_sum(x: torch.Tensor) -> torch.Tensor:
    """The sum of each row of a 2-D fp32 tensor."""
    m, n = x.shape
    kernel = tilelang.compile(windowed_row_sum(m, n, 32, 64), out_idx=[1])
    return kernel(x)
