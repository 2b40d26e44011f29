"""``Y = X * scale[None, :]`` (a per-column scale), autotuned in the style of TileLang's attention
examples: ``@autotune`` imported from ``tilelang.autotuner`` over the configs a module function
builds with ``itertools.product``, stacked on ``@tilelang.jit``."""

import itertools

import tilelang
import tilelang.language as T
import torch
from tilelang.autotuner import autotune


def get_configs():
    """Every combination of the tile sizes and thread counts below."""
    iter_params = dict(block_M=[16, 32], block_N=[64, 128], threads=[128, 256])
    return [dict(zip(iter_params, values)) for values in itertools.product(*iter_params.values())]


@autotune(configs=get_configs(), warmup=5, rep=20)
@tilelang.jit(out_idx=[-1])
def column_scale(M, N, block_M=32, block_N=128, threads=128, dtype="float32"):
    @T.prim_func
    def main(
        X: T.Tensor((M, N), dtype),
        scale: T.Tensor((N,), dtype),
        Y: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            x = T.alloc_fragment((block_M, block_N), dtype)
            s = T.alloc_fragment((block_N,), dtype)
            T.copy(X[by * block_M, bx * block_N], x)
            T.copy(scale[bx * block_N], s)
            for i, j in T.Parallel(block_M, block_N):
                x[i, j] = x[i, j] * s[j]
            T.copy(x, Y[by * block_M, bx * block_N])

    return main


def scale_columns(x: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    """``x * scale[None, :]``, tiles chosen by TileLang's autotuner."""
    m, n = x.shape
    # By name: the autotuner keys its cache with json, which cannot encode a torch.dtype.
    return column_scale(m, n, dtype=str(x.dtype).removeprefix("torch."))(x, scale)
