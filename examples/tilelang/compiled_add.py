"""Element-wise ``C = A + B`` in the style of TileLang's example folder: an undecorated factory
returning its ``@T.prim_func``, compiled by ``tilelang.compile(..., out_idx=-1)`` where it runs,
tile sizes passed as a ``**config`` dict, and each lane indexing the tensors directly."""

import tilelang
import tilelang.language as T
import torch


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


def add(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``a + b`` for two 2-D tensors of one shape and dtype."""
    m, n = a.shape
    config = {"block_M": 32, "block_N": 128, "threads": 128}
    kernel = tilelang.compile(
        elementwise_add(m, n, **config, in_dtype=a.dtype, out_dtype=a.dtype), out_idx=-1
    )
    return kernel(a, b)
