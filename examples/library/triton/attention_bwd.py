"""FlashAttention-2 forward and backward as an autograd Function (Triton, FA2 paper style).

The forward keeps, per query row, the log-sum-exp of the scaled scores in base 2 (``lse``) beside
the output. The backward recomputes the probabilities from it, block by block, instead of
storing them:

* ``_attn_bwd_preprocess``: ``delta = rowsum(o * do)`` (the softmax Jacobian's diagonal term);
* ``_attn_bwd_dkdv``: one program per block of keys walks every query block and accumulates
  ``dv = p^T do`` and ``dk = ds^T q``;
* ``_attn_bwd_dq``: one program per block of queries walks every key block: ``dq = ds k``.

Splitting dk/dv and dq into two kernels needs no atomics (each program owns its output rows).
Non-causal; sequence lengths need not be multiples of the blocks (masked loads and a ``-inf``
for scores past the last key).
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

LOG2E = 1.4426950408889634  # exp(x) == exp2(x * LOG2E)


@triton.jit
def _attn_fwd(
    Q,
    K,
    V,
    Out,
    LSE,
    qk_scale,
    stride_qz,
    stride_qh,
    stride_qm,
    stride_qd,
    stride_kz,
    stride_kh,
    stride_kn,
    stride_kd,
    stride_vz,
    stride_vh,
    stride_vn,
    stride_vd,
    stride_oz,
    stride_oh,
    stride_om,
    stride_od,
    stride_lz,
    stride_lh,
    stride_lm,
    H,
    N_CTX,
    HEAD_DIM: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q_ptrs = Q + off_z * stride_qz + off_h * stride_qh
    q_ptrs += offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qd
    q = tl.load(q_ptrs, mask=offs_m[:, None] < N_CTX, other=0.0)
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    for start_n in range(0, N_CTX, BLOCK_N):
        cols = start_n + offs_n
        k_ptrs = K + off_z * stride_kz + off_h * stride_kh
        k_ptrs += cols[:, None] * stride_kn + offs_d[None, :] * stride_kd
        v_ptrs = V + off_z * stride_vz + off_h * stride_vh
        v_ptrs += cols[:, None] * stride_vn + offs_d[None, :] * stride_vd
        k = tl.load(k_ptrs, mask=cols[:, None] < N_CTX, other=0.0)
        v = tl.load(v_ptrs, mask=cols[:, None] < N_CTX, other=0.0)
        qk = tl.dot(q, tl.trans(k)) * qk_scale
        qk = tl.where(cols[None, :] < N_CTX, qk, float("-inf"))
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_ij
    acc = acc / l_i[:, None]
    o_ptrs = Out + off_z * stride_oz + off_h * stride_oh
    o_ptrs += offs_m[:, None] * stride_om + offs_d[None, :] * stride_od
    tl.store(o_ptrs, acc.to(Out.dtype.element_ty), mask=offs_m[:, None] < N_CTX)
    lse_ptrs = LSE + off_z * stride_lz + off_h * stride_lh + offs_m * stride_lm
    tl.store(lse_ptrs, m_i + tl.math.log2(l_i), mask=offs_m < N_CTX)


@triton.jit
def _attn_bwd_preprocess(
    Out,
    DO,
    Delta,
    stride_oz,
    stride_oh,
    stride_om,
    stride_od,
    stride_doz,
    stride_doh,
    stride_dom,
    stride_dod,
    stride_dz,
    stride_dh,
    stride_dm,
    H,
    N_CTX,
    HEAD_DIM: tl.constexpr,
    BLOCK_M: tl.constexpr,
):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    o_ptrs = Out + off_z * stride_oz + off_h * stride_oh
    o_ptrs += offs_m[:, None] * stride_om + offs_d[None, :] * stride_od
    do_ptrs = DO + off_z * stride_doz + off_h * stride_doh
    do_ptrs += offs_m[:, None] * stride_dom + offs_d[None, :] * stride_dod
    o = tl.load(o_ptrs, mask=offs_m[:, None] < N_CTX, other=0.0)
    do = tl.load(do_ptrs, mask=offs_m[:, None] < N_CTX, other=0.0)
    delta = tl.sum(o.to(tl.float32) * do.to(tl.float32), axis=1)
    tl.store(
        Delta + off_z * stride_dz + off_h * stride_dh + offs_m * stride_dm,
        delta,
        mask=offs_m < N_CTX,
    )


@triton.jit
def _attn_bwd_dkdv(
    Q,
    K,
    V,
    DO,
    DK,
    DV,
    LSE,
    Delta,
    sm_scale,
    qk_scale,
    stride_qz,
    stride_qh,
    stride_qm,
    stride_qd,
    stride_kz,
    stride_kh,
    stride_km,
    stride_kd,
    stride_vz,
    stride_vh,
    stride_vm,
    stride_vd,
    stride_doz,
    stride_doh,
    stride_dom,
    stride_dod,
    stride_dkz,
    stride_dkh,
    stride_dkm,
    stride_dkd,
    stride_dvz,
    stride_dvh,
    stride_dvm,
    stride_dvd,
    stride_lz,
    stride_lh,
    stride_lm,
    stride_dz,
    stride_dh,
    stride_dm,
    H,
    N_CTX,
    HEAD_DIM: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    start_n = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    offs_n = start_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_m = tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    k_ptrs = K + off_z * stride_kz + off_h * stride_kh
    k_ptrs += offs_n[:, None] * stride_km + offs_d[None, :] * stride_kd
    v_ptrs = V + off_z * stride_vz + off_h * stride_vh
    v_ptrs += offs_n[:, None] * stride_vm + offs_d[None, :] * stride_vd
    k = tl.load(k_ptrs, mask=offs_n[:, None] < N_CTX, other=0.0)
    v = tl.load(v_ptrs, mask=offs_n[:, None] < N_CTX, other=0.0)
    dk = tl.zeros([BLOCK_N, HEAD_DIM], dtype=tl.float32)
    dv = tl.zeros([BLOCK_N, HEAD_DIM], dtype=tl.float32)
    for start_m in range(0, N_CTX, BLOCK_M):
        rows = start_m + offs_m
        q_ptrs = Q + off_z * stride_qz + off_h * stride_qh
        q_ptrs += rows[:, None] * stride_qm + offs_d[None, :] * stride_qd
        do_ptrs = DO + off_z * stride_doz + off_h * stride_doh
        do_ptrs += rows[:, None] * stride_dom + offs_d[None, :] * stride_dod
        q = tl.load(q_ptrs, mask=rows[:, None] < N_CTX, other=0.0)
        do = tl.load(do_ptrs, mask=rows[:, None] < N_CTX, other=0.0)
        lse = tl.load(
            LSE + off_z * stride_lz + off_h * stride_lh + rows * stride_lm,
            mask=rows < N_CTX,
            other=0.0,
        )
        delta = tl.load(
            Delta + off_z * stride_dz + off_h * stride_dh + rows * stride_dm,
            mask=rows < N_CTX,
            other=0.0,
        )
        # The probabilities of this block, recomputed from the forward's log-sum-exp.
        qk = tl.dot(q, tl.trans(k)) * qk_scale
        p = tl.math.exp2(qk - lse[:, None])
        # Lanes past either sequence end add nothing, even where a padded score is inf.
        valid = (rows[:, None] < N_CTX) & (offs_n[None, :] < N_CTX)
        p = tl.where(valid, p, 0.0)
        dv += tl.dot(tl.trans(p.to(do.dtype)), do)
        dp = tl.dot(do, tl.trans(v))
        ds = tl.where(valid, p * (dp - delta[:, None]), 0.0)
        dk += tl.dot(tl.trans(ds.to(q.dtype)), q)
    dk *= sm_scale
    dk_ptrs = DK + off_z * stride_dkz + off_h * stride_dkh
    dk_ptrs += offs_n[:, None] * stride_dkm + offs_d[None, :] * stride_dkd
    dv_ptrs = DV + off_z * stride_dvz + off_h * stride_dvh
    dv_ptrs += offs_n[:, None] * stride_dvm + offs_d[None, :] * stride_dvd
    tl.store(dk_ptrs, dk.to(DK.dtype.element_ty), mask=offs_n[:, None] < N_CTX)
    tl.store(dv_ptrs, dv.to(DV.dtype.element_ty), mask=offs_n[:, None] < N_CTX)


@triton.jit
def _attn_bwd_dq(
    Q,
    K,
    V,
    DO,
    DQ,
    LSE,
    Delta,
    sm_scale,
    qk_scale,
    stride_qz,
    stride_qh,
    stride_qm,
    stride_qd,
    stride_kz,
    stride_kh,
    stride_km,
    stride_kd,
    stride_vz,
    stride_vh,
    stride_vm,
    stride_vd,
    stride_doz,
    stride_doh,
    stride_dom,
    stride_dod,
    stride_dqz,
    stride_dqh,
    stride_dqm,
    stride_dqd,
    stride_lz,
    stride_lh,
    stride_lm,
    stride_dz,
    stride_dh,
    stride_dm,
    H,
    N_CTX,
    HEAD_DIM: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    q_ptrs = Q + off_z * stride_qz + off_h * stride_qh
    q_ptrs += offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qd
    do_ptrs = DO + off_z * stride_doz + off_h * stride_doh
    do_ptrs += offs_m[:, None] * stride_dom + offs_d[None, :] * stride_dod
    q = tl.load(q_ptrs, mask=offs_m[:, None] < N_CTX, other=0.0)
    do = tl.load(do_ptrs, mask=offs_m[:, None] < N_CTX, other=0.0)
    lse = tl.load(
        LSE + off_z * stride_lz + off_h * stride_lh + offs_m * stride_lm,
        mask=offs_m < N_CTX,
        other=0.0,
    )
    delta = tl.load(
        Delta + off_z * stride_dz + off_h * stride_dh + offs_m * stride_dm,
        mask=offs_m < N_CTX,
        other=0.0,
    )
    dq = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    for start_n in range(0, N_CTX, BLOCK_N):
        cols = start_n + offs_n
        k_ptrs = K + off_z * stride_kz + off_h * stride_kh
        k_ptrs += cols[:, None] * stride_km + offs_d[None, :] * stride_kd
        v_ptrs = V + off_z * stride_vz + off_h * stride_vh
        v_ptrs += cols[:, None] * stride_vm + offs_d[None, :] * stride_vd
        k = tl.load(k_ptrs, mask=cols[:, None] < N_CTX, other=0.0)
        v = tl.load(v_ptrs, mask=cols[:, None] < N_CTX, other=0.0)
        qk = tl.dot(q, tl.trans(k)) * qk_scale
        p = tl.math.exp2(qk - lse[:, None])
        valid = (offs_m[:, None] < N_CTX) & (cols[None, :] < N_CTX)
        p = tl.where(valid, p, 0.0)
        dp = tl.dot(do, tl.trans(v))
        ds = tl.where(valid, p * (dp - delta[:, None]), 0.0)
        dq += tl.dot(ds.to(k.dtype), k)
    dq *= sm_scale
    dq_ptrs = DQ + off_z * stride_dqz + off_h * stride_dqh
    dq_ptrs += offs_m[:, None] * stride_dqm + offs_d[None, :] * stride_dqd
    tl.store(dq_ptrs, dq.to(DQ.dtype.element_ty), mask=offs_m[:, None] < N_CTX)


def _attention_forward(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, sm_scale: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """The output [Z, H, N_CTX, HEAD_DIM] and the base-2 log-sum-exp [Z, H, N_CTX] of the scaled
    scores, which the backward recomputes the probabilities from."""
    Z, H, N_CTX, HEAD_DIM = q.shape
    assert k.shape == q.shape and v.shape == q.shape, "q, k and v must have one shape"
    assert HEAD_DIM in {16, 32, 64, 128}, "head dims are powers of two in [16, 128]"
    o = torch.empty_like(q)
    lse = torch.empty((Z, H, N_CTX), device=q.device, dtype=torch.float32)
    BLOCK_M, BLOCK_N = 32, 32
    grid = (triton.cdiv(N_CTX, BLOCK_M), Z * H)
    _attn_fwd[grid](
        q,
        k,
        v,
        o,
        lse,
        sm_scale * LOG2E,
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
        lse.stride(0),
        lse.stride(1),
        lse.stride(2),
        H,
        N_CTX,
        HEAD_DIM=HEAD_DIM,
        BLOCK_M=BLOCK_M,
        BLOCK_N=BLOCK_N,
        num_warps=4,
    )
    return o, lse


def _attention_backward(
    do: torch.Tensor,
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    o: torch.Tensor,
    lse: torch.Tensor,
    sm_scale: float,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(dq, dk, dv)`` for the upstream gradient ``do`` of ``o = attention(q, k, v)``."""
    Z, H, N_CTX, HEAD_DIM = q.shape
    assert o.shape == q.shape and do.shape == q.shape, "do must have the output's shape"
    assert lse.shape == (Z, H, N_CTX)
    BLOCK_M, BLOCK_N = 32, 32
    delta = torch.empty_like(lse)
    _attn_bwd_preprocess[(triton.cdiv(N_CTX, BLOCK_M), Z * H)](
        o,
        do,
        delta,
        o.stride(0),
        o.stride(1),
        o.stride(2),
        o.stride(3),
        do.stride(0),
        do.stride(1),
        do.stride(2),
        do.stride(3),
        delta.stride(0),
        delta.stride(1),
        delta.stride(2),
        H,
        N_CTX,
        HEAD_DIM=HEAD_DIM,
        BLOCK_M=BLOCK_M,
    )
    dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
    _attn_bwd_dkdv[(triton.cdiv(N_CTX, BLOCK_N), Z * H)](
        q,
        k,
        v,
        do,
        dk,
        dv,
        lse,
        delta,
        sm_scale,
        sm_scale * LOG2E,
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
        do.stride(0),
        do.stride(1),
        do.stride(2),
        do.stride(3),
        dk.stride(0),
        dk.stride(1),
        dk.stride(2),
        dk.stride(3),
        dv.stride(0),
        dv.stride(1),
        dv.stride(2),
        dv.stride(3),
        lse.stride(0),
        lse.stride(1),
        lse.stride(2),
        delta.stride(0),
        delta.stride(1),
        delta.stride(2),
        H,
        N_CTX,
        HEAD_DIM=HEAD_DIM,
        BLOCK_M=BLOCK_M,
        BLOCK_N=BLOCK_N,
        num_warps=4,
    )
    _attn_bwd_dq[(triton.cdiv(N_CTX, BLOCK_M), Z * H)](
        q,
        k,
        v,
        do,
        dq,
        lse,
        delta,
        sm_scale,
        sm_scale * LOG2E,
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
        do.stride(0),
        do.stride(1),
        do.stride(2),
        do.stride(3),
        dq.stride(0),
        dq.stride(1),
        dq.stride(2),
        dq.stride(3),
        lse.stride(0),
        lse.stride(1),
        lse.stride(2),
        delta.stride(0),
        delta.stride(1),
        delta.stride(2),
        H,
        N_CTX,
        HEAD_DIM=HEAD_DIM,
        BLOCK_M=BLOCK_M,
        BLOCK_N=BLOCK_N,
        num_warps=4,
    )
    return dq, dk, dv


class FlashAttention(torch.autograd.Function):
    """Scaled dot-product attention over ``[Z, H, N_CTX, HEAD_DIM]`` tensors of one layout."""

    @staticmethod
    def forward(ctx, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, sm_scale: float):
        q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
        o, lse = _attention_forward(q, k, v, sm_scale)
        ctx.save_for_backward(q, k, v, o, lse)
        ctx.sm_scale = sm_scale
        return o

    @staticmethod
    def backward(ctx, do: torch.Tensor):
        q, k, v, o, lse = ctx.saved_tensors
        dq, dk, dv = _attention_backward(do, q, k, v, o, lse, ctx.sm_scale)
        return dq, dk, dv, None


def flash_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, sm_scale: float
) -> torch.Tensor:
    """``softmax(q @ k^T * sm_scale) @ v``, differentiable in ``q``, ``k`` and ``v``."""
    return FlashAttention.apply(q, k, v, sm_scale)
