"""Element-wise ``C = A + B`` in the style of TileLang's example folder: an undecorated factory
returning its ``@T.prim_func``, compiled by ``tilelang.compile(..., out_idx=-1)`` where it runs,
tile sizes passed as a ``**config`` dict, each lane indexing the tensors directly, and a search
space for TileLang's programmatic ``AutoTuner``."""

import itertools

import tilelang
import tilelang.language as T
import torch
from tilelang.autotuner import AutoTuner


def elementwise_add(M, N, block_M, block_N, in_dtype, out_dtype, threads):
    @T.prim_func
    def elem_add(
        A: T.Tensor((M, N), in_dtype),
        B: T.Tensor((M, N), in_dtype),
        C: T.Tensor((M, N), out_dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            start_x = bx * block_N
            start_y = by * block_M
            for local_y, local_x in T.Parallel(block_M, block_N):
                y = start_y + local_y
                x = start_x + local_x
                C[y, x] = A[y, x] + B[y, x]

    return elem_add


def get_configs(M, N):
    """The tile sizes and thread counts the autotuner tries."""
    block_M = [32, 64]
    block_N = [64, 128]
    threads = [128, 256]
    configs = list(itertools.product(block_M, block_N, threads))
    return [{"block_M": bm, "block_N": bn, "threads": th} for bm, bn, th in configs]


def tune(M, N):
    """TileLang's best config for an (M, N) fp32 addition."""

    def kernel(block_M=None, block_N=None, threads=None):
        return elementwise_add(M, N, block_M, block_N, "float32", "float32", threads)

    autotuner = AutoTuner.from_kernel(kernel=kernel, configs=get_configs(M, N))
    return autotuner.set_compile_args(out_idx=[-1]).run(warmup=3, rep=20)


def add(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``a + b`` for two 2-D tensors of one shape and dtype."""
    m, n = a.shape
    config = {"block_M": 32, "block_N": 128, "threads": 128}
    kernel = tilelang.compile(
        elementwise_add(m, n, **config, in_dtype=a.dtype, out_dtype=a.dtype), out_idx=-1
    )
    return kernel(a, b)
