"""Non-causal scaled dot-product attention with an online softmax.

``out = softmax(q @ k^T / sqrt(d)) @ v`` for q, k, v of shape
[batch * heads, seq, head_dim]. The key/value sequence is streamed in blocks
while a running row max ``m_i``, a running denominator ``l_i`` and an fp32
output accumulator ``acc`` are kept per query row (flash-attention style).
"""

from __future__ import annotations

import helion
import helion.language as hl
import torch


@helion.kernel(
    static_shapes=True,
    config=helion.Config(block_sizes=[1, 128, 64], num_warps=8, num_stages=3),
)
def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """Compute attention over the last two dimensions.

    Args:
        q: Queries of shape [bh, seq_q, head_dim].
        k: Keys of shape [bh, seq_k, head_dim], same dtype as ``q``.
        v: Values of shape [bh, seq_k, head_dim], same dtype as ``q``.

    Returns:
        A tensor of shape [bh, seq_q, head_dim] in the dtype of ``q``.
    """
    bh, seq_q, head_dim = q.size()
    bh_k, seq_k, head_dim_k = k.size()
    assert bh == bh_k and head_dim == head_dim_k, "q/k shape mismatch"
    assert v.size() == k.size(), "k/v shape mismatch"
    # The head dim is loaded whole, so make it a compile-time constant.
    head_dim = hl.specialize(head_dim)
    sm_scale = 1.0 / head_dim**0.5
    out = torch.empty_like(q)
    for tile_b, tile_m in hl.tile([bh, seq_q]):
        # Online-softmax state for this block of query rows.
        m_i = hl.full([tile_b, tile_m], float("-inf"), dtype=torch.float32)
        l_i = hl.zeros([tile_b, tile_m], dtype=torch.float32)
        acc = hl.zeros([tile_b, tile_m, head_dim], dtype=torch.float32)
        q_blk = q[tile_b, tile_m, :]
        for tile_n in hl.tile(seq_k):
            k_blk = k[tile_b, tile_n, :]
            # Scores for this key block; out_dtype keeps them in fp32 for fp16 inputs.
            qk = hl.dot(q_blk, k_blk.transpose(1, 2), out_dtype=torch.float32) * sm_scale
            m_ij = torch.maximum(m_i, torch.amax(qk, dim=-1))
            p = torch.exp(qk - m_ij[:, :, None])
            # Rescale the previous state to the new running max.
            alpha = torch.exp(m_i - m_ij)
            l_i = l_i * alpha + torch.sum(p, dim=-1)
            acc = acc * alpha[:, :, None]
            v_blk = v[tile_b, tile_n, :]
            acc = torch.baddbmm(acc, p.to(v_blk.dtype), v_blk)
            m_i = m_ij
        # Final normalization by the softmax denominator.
        acc = acc / l_i[:, :, None]
        out[tile_b, tile_m, :] = acc.to(out.dtype)
    return out
