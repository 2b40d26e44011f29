"""Per-group absmax scaling ``Y = X / s``, ``s = absmax(group) / 448`` (the shape of an fp8
quantizer's first step, kept in fp32), in the style of TileLang's example folder: the factory
checks its arguments with asserts, names its tile sizes through a tuple assignment and picks the
group size with an ``if`` on its argument (``-1``: the default group)."""

import tilelang
import tilelang.language as T
import torch


def group_absmax_scale(M, N, blk_m, group_size=-1, dtype="float32"):
    assert blk_m % 8 == 0, "blk_m must be a multiple of 8"
    assert dtype == "float32", "the scales are fp32"
    if group_size == -1:
        group_size = 64
    BM, GS = blk_m, group_size
    fp8_max = 448.0

    @T.prim_func
    def main(
        X: T.Tensor((M, N), dtype),
        Y: T.Tensor((M, N), dtype),
        S: T.Tensor((M, T.ceildiv(N, GS)), dtype),
    ):
        with T.Kernel(T.ceildiv(M, BM), T.ceildiv(N, GS), threads=128) as (bx, by):
            x = T.alloc_fragment((BM, GS), dtype)
            x_abs = T.alloc_fragment((BM, GS), dtype)
            amax = T.alloc_fragment((BM,), dtype)
            T.copy(X[bx * BM, by * GS], x)
            for i, j in T.Parallel(BM, GS):
                # Columns past N are out of the group's max.
                x_abs[i, j] = T.if_then_else(
                    by * GS + j < N, T.max(x[i, j], -x[i, j]), -T.infinity(dtype)
                )
            T.reduce_max(x_abs, amax, dim=1)
            for i in T.Parallel(BM):
                amax[i] = T.max(amax[i], 1e-4) / fp8_max
            for i, j in T.Parallel(BM, GS):
                x[i, j] = x[i, j] / amax[i]
            T.copy(x, Y[bx * BM, by * GS])
            for i in T.Parallel(BM):
                S[bx * BM + i, by] = amax[i]

    return main


def group_scale(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``x`` (M, N) fp32 divided by its per-(row, 64-column group) absmax scale, and the
    scales (M, ceil(N / 64))."""
    m, n = x.shape
    kernel = tilelang.compile(group_absmax_scale(m, n, 32), out_idx=[1, 2])
    return kernel(x)
