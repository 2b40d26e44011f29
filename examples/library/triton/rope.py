"""Rotary position embedding applied to queries and keys in one kernel (Liger-Kernel style).

``q`` and ``k`` are ``[bsz, n_head, seq_len, head_dim]`` (``k`` may have fewer
heads); ``cos``/``sin`` are ``[seq_len, head_dim]`` in the Hugging Face layout
(each half repeats the same frequencies). One program per (batch, position)
rotates every head of both tensors. The backward is the same rotation with
``sin`` negated, so the same kernel serves both passes.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl


@triton.jit
def _triton_rope(
    q_ptr,
    q_row_stride,
    q_batch_stride,
    k_ptr,
    k_row_stride,
    k_batch_stride,
    cos_ptr,
    sin_ptr,
    cos_row_stride,
    sin_row_stride,
    sin_sign,
    n_qh,
    n_kh,
    hd,
    half,
    pad_n_qh: tl.constexpr,
    pad_n_kh: tl.constexpr,
    pad_hd_half: tl.constexpr,
):
    pid_b = tl.program_id(0)
    pid_s = tl.program_id(1)

    cos_offsets = tl.arange(0, pad_hd_half)
    cos_row = tl.load(cos_ptr + pid_s * cos_row_stride + cos_offsets, mask=cos_offsets < half)
    sin_row = tl.load(sin_ptr + pid_s * sin_row_stride + cos_offsets, mask=cos_offsets < half)
    cos_row = cos_row.to(tl.float32)
    sin_row = sin_row.to(tl.float32) * sin_sign

    # Queries: [pad_n_qh, pad_hd_half] tiles for the first and second half of each head.
    q_base = q_ptr + pid_b * q_batch_stride + pid_s * q_row_stride
    q_heads = tl.arange(0, pad_n_qh)
    first_half_q_offsets = q_heads[:, None] * hd + cos_offsets[None, :]
    q_mask = (q_heads[:, None] < n_qh) & (cos_offsets[None, :] < half)
    q_tile_1 = tl.load(q_base + first_half_q_offsets, mask=q_mask, other=0).to(tl.float32)
    q_tile_2 = tl.load(q_base + first_half_q_offsets + half, mask=q_mask, other=0).to(tl.float32)
    new_q_tile_1 = q_tile_1 * cos_row[None, :] - q_tile_2 * sin_row[None, :]
    new_q_tile_2 = q_tile_2 * cos_row[None, :] + q_tile_1 * sin_row[None, :]
    tl.store(q_base + first_half_q_offsets, new_q_tile_1.to(q_ptr.dtype.element_ty), mask=q_mask)
    tl.store(
        q_base + first_half_q_offsets + half, new_q_tile_2.to(q_ptr.dtype.element_ty), mask=q_mask
    )

    # Keys: same rotation, possibly fewer heads.
    k_base = k_ptr + pid_b * k_batch_stride + pid_s * k_row_stride
    k_heads = tl.arange(0, pad_n_kh)
    first_half_k_offsets = k_heads[:, None] * hd + cos_offsets[None, :]
    k_mask = (k_heads[:, None] < n_kh) & (cos_offsets[None, :] < half)
    k_tile_1 = tl.load(k_base + first_half_k_offsets, mask=k_mask, other=0).to(tl.float32)
    k_tile_2 = tl.load(k_base + first_half_k_offsets + half, mask=k_mask, other=0).to(tl.float32)
    new_k_tile_1 = k_tile_1 * cos_row[None, :] - k_tile_2 * sin_row[None, :]
    new_k_tile_2 = k_tile_2 * cos_row[None, :] + k_tile_1 * sin_row[None, :]
    tl.store(k_base + first_half_k_offsets, new_k_tile_1.to(k_ptr.dtype.element_ty), mask=k_mask)
    tl.store(
        k_base + first_half_k_offsets + half, new_k_tile_2.to(k_ptr.dtype.element_ty), mask=k_mask
    )


def rope_forward(q, k, cos, sin, backward_pass: bool = False):
    # Rotate in place on private [bsz, seq_len, n_head, head_dim] copies (``contiguous()``
    # could alias the caller's tensor); return views in the caller's layout.
    q = q.transpose(1, 2).clone(memory_format=torch.contiguous_format)
    k = k.transpose(1, 2).clone(memory_format=torch.contiguous_format)
    cos = cos.contiguous()
    sin = sin.contiguous()

    batch_size, seq_len, n_q_head, head_dim = q.shape
    n_kv_head = k.shape[2]
    if head_dim % 2 != 0:
        raise ValueError(f"head_dim must be even, got {head_dim}")
    if k.shape != (batch_size, seq_len, n_kv_head, head_dim):
        raise ValueError("k must be [bsz, seq_len, n_kv_head, head_dim] like q")
    if cos.shape != (seq_len, head_dim) or sin.shape != cos.shape:
        raise ValueError("cos and sin must have shape [seq_len, head_dim]")

    pad_hd_half = triton.next_power_of_2(head_dim // 2)
    pad_n_q_head = triton.next_power_of_2(n_q_head)
    pad_n_kv_head = triton.next_power_of_2(n_kv_head)
    sin_sign = -1.0 if backward_pass else 1.0

    _triton_rope[(batch_size, seq_len)](
        q,
        q.stride(1),
        q.stride(0),
        k,
        k.stride(1),
        k.stride(0),
        cos,
        sin,
        cos.stride(0),
        sin.stride(0),
        sin_sign,
        n_q_head,
        n_kv_head,
        head_dim,
        head_dim // 2,
        pad_n_q_head,
        pad_n_kv_head,
        pad_hd_half,
    )
    return q.transpose(1, 2), k.transpose(1, 2)


class LigerRopeFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, cos, sin):
        q, k = rope_forward(q, k, cos, sin)
        ctx.save_for_backward(cos, sin)
        return q, k

    @staticmethod
    def backward(ctx, dq, dk):
        cos, sin = ctx.saved_tensors
        dq, dk = rope_forward(dq, dk, cos, sin, backward_pass=True)
        return dq, dk, None, None


def liger_rotary_pos_emb(q, k, cos, sin):
    """Apply rotary embeddings to ``q`` and ``k``; returns ``(q_rot, k_rot)``."""
    return LigerRopeFunction.apply(q, k, cos, sin)
