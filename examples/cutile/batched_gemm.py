"""Batched GEMM in cuTile: one block per output tile of one batch (the batch is grid axis 2)."""

from __future__ import annotations

import cuda.tile as ct
import torch


@ct.kernel
def bmm_kernel(A, B, C, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    batch = ct.bid(2)
    acc = ct.full((TM, TN), 0, dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=2, shape=(1, TM, TK))):
        a = ct.load(A, index=(batch, bm, k), shape=(1, TM, TK), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(batch, k, bn), shape=(1, TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(ct.reshape(a, (TM, TK)), ct.reshape(b, (TK, TN)), acc)
    out = ct.reshape(ct.astype(acc, C.dtype), (1, TM, TN))
    ct.store(C, index=(batch, bm, bn), tile=out)


def bmm(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``torch.bmm(a, b)`` for 3-D tensors of one dtype, accumulated in fp32."""
    batch, m, k = a.shape
    _, k2, n = b.shape
    assert k == k2, "inner dimensions must match"
    c = torch.empty((batch, m, n), device=a.device, dtype=a.dtype)
    grid = (ct.cdiv(m, 64), ct.cdiv(n, 64), batch)
    ct.launch(torch.cuda.current_stream(), grid, bmm_kernel, (a, b, c, 64, 64, 32))
    return c
