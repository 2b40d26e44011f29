"""Split-K GEMM in cuTile: ``SPLIT_K`` programs per output tile each reduce every
``SPLIT_K``-th K tile and ``ct.atomic_add`` their partial tile into an fp32 output."""

from __future__ import annotations

import cuda.tile as ct
import torch


@ct.kernel
def splitk_gemm_kernel(
    A, B, C, SPLIT_K: int, TM: ct.Constant[int], TN: ct.Constant[int], TK: ct.Constant[int]
):
    """Block ``(bm, bn, split)`` adds ``A[bm, k] @ B[k, bn]`` over its K tiles into ``C``."""
    bm = ct.bid(0)
    bn = ct.bid(1)
    split = ct.bid(2)
    acc = ct.full((TM, TN), 0, dtype=ct.float32)
    for k in range(split, ct.num_tiles(A, axis=1, shape=(TM, TK)), SPLIT_K):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(k, bn), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, b, acc)
    # Partial tiles of the SPLIT_K blocks meet in C; lanes past its edges are skipped.
    rows = bm * TM + ct.arange(TM, dtype=ct.int32)
    cols = bn * TN + ct.arange(TN, dtype=ct.int32)
    ct.atomic_add(C, (rows[:, None], cols[None, :]), acc)


def splitk_gemm(a: torch.Tensor, b: torch.Tensor, split_k: int = 4) -> torch.Tensor:
    """``a @ b`` for 2-D tensors of one dtype, K reduced by ``split_k`` blocks per tile."""
    m, k = a.shape
    k2, n = b.shape
    assert k == k2, "inner dimensions must match"
    # The blocks add into this buffer: it starts at zero, in fp32.
    c = torch.zeros((m, n), device=a.device, dtype=torch.float32)
    grid = (ct.cdiv(m, 64), ct.cdiv(n, 64), split_k)
    ct.launch(torch.cuda.current_stream(), grid, splitk_gemm_kernel, (a, b, c, split_k, 64, 64, 32))
    return c.to(a.dtype)
