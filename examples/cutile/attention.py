"""Attention forward in cuTile (FlashAttention style): online softmax over key/value tiles.

``q``, ``k``, ``v`` are ``(batch * heads, seq, d)``; a block computes ``TM`` query rows of one
head, streaming ``TN`` keys at a time with a running max ``m`` and normaliser ``l`` in fp32.
"""

from __future__ import annotations

import cuda.tile as ct
import torch


@ct.kernel
def attention_fwd_kernel(
    q, k, v, out, scale: float, TM: ct.Constant[int], TN: ct.Constant[int], TD: ct.Constant[int]
):
    bm = ct.bid(0)
    bh = ct.bid(1)
    qt = ct.reshape(
        ct.load(q, index=(bh, bm, 0), shape=(1, TM, TD), padding_mode=ct.PaddingMode.ZERO), (TM, TD)
    )
    m = ct.full((TM, 1), float("-inf"), dtype=ct.float32)
    denom = ct.full((TM, 1), 0.0, dtype=ct.float32)
    acc = ct.full((TM, TD), 0.0, dtype=ct.float32)
    for j in range(ct.num_tiles(k, axis=1, shape=(1, TN, TD))):
        kt = ct.reshape(
            ct.load(k, index=(bh, j, 0), shape=(1, TN, TD), padding_mode=ct.PaddingMode.ZERO),
            (TN, TD),
        )
        vt = ct.reshape(
            ct.load(v, index=(bh, j, 0), shape=(1, TN, TD), padding_mode=ct.PaddingMode.ZERO),
            (TN, TD),
        )
        s = ct.mma(qt, ct.transpose(kt), ct.full((TM, TN), 0.0, dtype=ct.float32)) * scale
        # Keys past the sequence's end get no weight.
        s = ct.where(
            (j * TN + ct.arange(TN, dtype=ct.int32) < k.shape[1])[None, :], s, float("-inf")
        )
        m_new = ct.maximum(m, ct.max(s, axis=1, keepdims=True))
        p = ct.exp(s - m_new)
        alpha = ct.exp(m - m_new)
        denom = denom * alpha + ct.sum(p, axis=1, keepdims=True)
        acc = ct.mma(ct.astype(p, v.dtype), vt, acc * alpha)
        m = m_new
    ct.store(
        out, index=(bh, bm, 0), tile=ct.reshape(ct.astype(acc / denom, out.dtype), (1, TM, TD))
    )


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """``softmax(q k^T / sqrt(d)) v`` per head for ``(batch * heads, seq, d)`` tensors."""
    bh, seq, d = q.shape
    out = torch.empty_like(q)
    tile_d = 1 << (d - 1).bit_length()
    grid = (ct.cdiv(seq, 64), bh, 1)
    ct.launch(
        torch.cuda.current_stream(),
        grid,
        attention_fwd_kernel,
        (q, k, v, out, d**-0.5, 64, 32, tile_d),
    )
    return out
