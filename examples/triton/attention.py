"""FlashAttention-2 forward pass (non-causal), Triton tutorial 06 style.

``O = softmax(Q K^T * sm_scale) V`` for ``q`` [Z, H, N_CTX_Q, HEAD_DIM] and
``k``/``v`` [Z, H, N_CTX_K, HEAD_DIM] with arbitrary strides.  Each program
owns ``BLOCK_M`` query rows of one (batch, head) and streams over the keys
in ``BLOCK_N`` blocks, keeping the running row max ``m_i``, the running
normalizer ``l_i`` and the un-normalized output ``acc`` in registers.  The
softmax is computed in base 2 (``exp2``) with ``log2(e)`` folded into the
scale.  Ragged sequence lengths are handled with masks.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _attn_fwd_inner(
    acc,
    l_i,
    m_i,
    q,
    K_ptrs,
    V_ptrs,
    stride_kn,
    stride_vn,
    qk_scale,
    N_CTX_K,
    BLOCK_N: tl.constexpr,
):
    offs_n = tl.arange(0, BLOCK_N)
    # loop over k, v and update accumulator
    for start_n in range(0, N_CTX_K, BLOCK_N):
        kv_mask = (start_n + offs_n) < N_CTX_K
        # -- compute qk ----
        k = tl.load(K_ptrs, mask=kv_mask[None, :], other=0.0)
        qk = tl.dot(q, k)
        # Keys past the end of the sequence must not take part in the softmax.
        qk = tl.where(kv_mask[None, :], qk, float("-inf"))
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        l_ij = tl.sum(p, 1)
        # -- update m_i and l_i
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        # -- update output accumulator --
        acc = acc * alpha[:, None]
        v = tl.load(V_ptrs, mask=kv_mask[:, None], other=0.0)
        acc = tl.dot(p.to(v.dtype), v, acc)
        # update m_i
        m_i = m_ij
        K_ptrs += BLOCK_N * stride_kn
        V_ptrs += BLOCK_N * stride_vn
    return acc, l_i, m_i


@triton.jit
def _attn_fwd(
    Q,
    K,
    V,
    sm_scale,
    Out,
    stride_qz,
    stride_qh,
    stride_qm,
    stride_qk,
    stride_kz,
    stride_kh,
    stride_kn,
    stride_kk,
    stride_vz,
    stride_vh,
    stride_vn,
    stride_vk,
    stride_oz,
    stride_oh,
    stride_om,
    stride_ok,
    H,
    N_CTX_Q,
    N_CTX_K,
    HEAD_DIM: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    q_offset = off_z.to(tl.int64) * stride_qz + off_h.to(tl.int64) * stride_qh
    k_offset = off_z.to(tl.int64) * stride_kz + off_h.to(tl.int64) * stride_kh
    v_offset = off_z.to(tl.int64) * stride_vz + off_h.to(tl.int64) * stride_vh
    o_offset = off_z.to(tl.int64) * stride_oz + off_h.to(tl.int64) * stride_oh

    # initialize offsets
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q_mask = offs_m[:, None] < N_CTX_Q
    Q_ptrs = Q + q_offset + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qk
    # K is read transposed: a [HEAD_DIM, BLOCK_N] tile.
    K_ptrs = K + k_offset + offs_d[:, None] * stride_kk + offs_n[None, :] * stride_kn
    V_ptrs = V + v_offset + offs_n[:, None] * stride_vn + offs_d[None, :] * stride_vk

    # initialize pointer to m and l
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    # load scales
    qk_scale = sm_scale
    qk_scale *= 1.44269504  # 1/log(2)
    # load q: it will stay in SRAM throughout
    q = tl.load(Q_ptrs, mask=q_mask, other=0.0)
    # l_i starts at 1 but is multiplied by alpha = exp2(-inf) = 0 on the first block.
    acc, l_i, m_i = _attn_fwd_inner(
        acc,
        l_i,
        m_i,
        q,
        K_ptrs,
        V_ptrs,
        stride_kn,
        stride_vn,
        qk_scale,
        N_CTX_K,
        BLOCK_N,
    )
    # epilogue
    acc = acc / l_i[:, None]
    O_ptrs = Out + o_offset + offs_m[:, None] * stride_om + offs_d[None, :] * stride_ok
    tl.store(O_ptrs, acc.to(Out.type.element_ty), mask=q_mask)


def attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, sm_scale: float = None
) -> torch.Tensor:
    """Non-causal scaled dot-product attention.

    ``q``: [Z, H, N_CTX_Q, HEAD_DIM]; ``k``, ``v``: [Z, H, N_CTX_K, HEAD_DIM].
    ``HEAD_DIM`` must be a power of two in [16, 256].  Returns [Z, H, N_CTX_Q, HEAD_DIM].
    """
    # shape constraints
    HEAD_DIM_Q, HEAD_DIM_K = q.shape[-1], k.shape[-1]
    HEAD_DIM_V = v.shape[-1]
    assert HEAD_DIM_Q == HEAD_DIM_K and HEAD_DIM_K == HEAD_DIM_V
    assert HEAD_DIM_K in {16, 32, 64, 128, 256}
    assert k.shape == v.shape and q.shape[:2] == k.shape[:2]
    Z, H, N_CTX_Q = q.shape[0], q.shape[1], q.shape[2]
    N_CTX_K = k.shape[2]
    if sm_scale is None:
        sm_scale = HEAD_DIM_K**-0.5
    # The kernel takes the row max of qk before scaling it (max(qk) * scale), which is the max
    # of the scaled scores only for a positive scale.
    assert sm_scale > 0, "sm_scale must be positive"
    o = torch.empty_like(q)
    BLOCK_M = 64
    BLOCK_N = 64 if HEAD_DIM_K <= 64 else 32
    num_warps = 4 if HEAD_DIM_K <= 64 else 8
    grid = (triton.cdiv(N_CTX_Q, BLOCK_M), Z * H, 1)
    _attn_fwd[grid](
        q,
        k,
        v,
        sm_scale,
        o,
        q.stride(0),
        q.stride(1),
        q.stride(2),
        q.stride(3),
        k.stride(0),
        k.stride(1),
        k.stride(2),
        k.stride(3),
        v.stride(0),
        v.stride(1),
        v.stride(2),
        v.stride(3),
        o.stride(0),
        o.stride(1),
        o.stride(2),
        o.stride(3),
        H,
        N_CTX_Q,
        N_CTX_K,
        HEAD_DIM=HEAD_DIM_K,
        BLOCK_M=BLOCK_M,
        BLOCK_N=BLOCK_N,
        num_warps=num_warps,
        num_stages=3,
    )
    return o
