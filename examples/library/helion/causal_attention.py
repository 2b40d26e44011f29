"""Causal flash attention forward over [batch, heads, seq, head_dim] (Helion examples style).

The wrapper folds batch and heads into one dim and picks the softmax scale; the kernel streams
the keys in blocks with an online softmax and masks scores above the diagonal (key position >
query position) to ``-inf`` before the running max, so every query row sees at least key 0.
"""

from __future__ import annotations

import math

import helion
import helion.language as hl
import torch

ATTN_CONFIG = helion.Config(block_sizes=[64, 64], num_warps=4, num_stages=3)


@helion.kernel(static_shapes=True, config=ATTN_CONFIG)
def causal_attention_fwd(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, sm_scale: float
) -> torch.Tensor:
    """``softmax(mask(q @ k^T * sm_scale)) @ v`` for [bh, seq, head_dim] q, k, v."""
    bh, seq, head_dim = q.size()
    head_dim = hl.specialize(head_dim)
    out = torch.empty_like(q)
    for tile_b, tile_m in hl.tile([bh, seq], block_size=[1, None]):
        # One (batch, head) per program: 2-D tiles of query rows and keys.
        b = tile_b.begin
        m_i = hl.full([tile_m], float("-inf"), dtype=torch.float32)
        l_i = hl.zeros([tile_m], dtype=torch.float32)
        acc = hl.zeros([tile_m, head_dim], dtype=torch.float32)
        q_blk = q[b, tile_m, :]
        for tile_n in hl.tile(seq):
            k_blk = k[b, tile_n, :]
            qk = hl.dot(q_blk, k_blk.transpose(0, 1), out_dtype=torch.float32) * sm_scale
            causal = tile_m.index[:, None] >= tile_n.index[None, :]
            qk = torch.where(causal, qk, float("-inf"))
            m_ij = torch.maximum(m_i, torch.amax(qk, dim=-1))
            p = torch.exp(qk - m_ij[:, None])
            alpha = torch.exp(m_i - m_ij)
            l_i = l_i * alpha + torch.sum(p, dim=-1)
            acc = acc * alpha[:, None]
            v_blk = v[b, tile_n, :]
            acc = torch.addmm(acc, p.to(v_blk.dtype), v_blk)
            m_i = m_ij
        out[b, tile_m, :] = (acc / l_i[:, None]).to(out.dtype)
    return out


def causal_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, sm_scale: float | None = None
) -> torch.Tensor:
    """Causal attention of [batch, heads, seq, head_dim] tensors of one shape."""
    if q.shape != k.shape or k.shape != v.shape:
        raise ValueError("q, k and v must have one shape (no GQA here)")
    batch, heads, seq, head_dim = q.shape
    if sm_scale is None:
        sm_scale = 1.0 / math.sqrt(head_dim)
    out = causal_attention_fwd(
        q.reshape(batch * heads, seq, head_dim),
        k.reshape(batch * heads, seq, head_dim),
        v.reshape(batch * heads, seq, head_dim),
        sm_scale,
    )
    return out.view(batch, heads, seq, head_dim)
