"""GEMM in cuTile: fp32 accumulation with ct.mma over K tiles, as cuTile's matmul sample."""

from __future__ import annotations

import cuda.tile as ct
import torch


@ct.kernel
def gemm_kernel(A, B, C, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    acc = ct.full((TM, TN), 0, dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(TM, TK))):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=ct.astype(acc, C.dtype))


def gemm(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``a @ b`` for 2-D tensors of one dtype, accumulated in fp32."""
    m, k = a.shape
    k2, n = b.shape
    assert k == k2, "inner dimensions must match"
    c = torch.empty((m, n), device=a.device, dtype=a.dtype)
    grid = (ct.cdiv(m, 128), ct.cdiv(n, 128), 1)
    ct.launch(torch.cuda.current_stream(), grid, gemm_kernel, (a, b, c, 128, 128, 64))
    return c
