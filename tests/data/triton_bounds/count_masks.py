"""Masks against a compile-time count the host ties to a tensor's size (the FlagGems embedding
idiom): ``offsets < elem_cnt`` with ``elem_cnt: tl.constexpr`` launched as
``math.prod(indices.shape)`` or ``indices.numel()``."""

import math

import torch
import triton
import triton.language as tl


@triton.jit
def _freq_kernel(freq_ptr, idx_ptr, elem_cnt: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < elem_cnt
    index = tl.load(idx_ptr + offsets, mask=mask)
    tl.atomic_add(freq_ptr + index, 1, mask=mask)


def token_counts(indices: torch.Tensor, num_weights: int):
    """How often each of ``num_weights`` ids occurs in ``indices`` (any shape)."""
    M = math.prod(indices.shape)
    freq = torch.zeros((num_weights,), device=indices.device, dtype=torch.int32)
    _freq_kernel[(triton.cdiv(M, 256),)](freq, indices, M, 256)
    return freq


@triton.jit
def _scale_kernel(out_ptr, x_ptr, scale, elem_cnt: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < elem_cnt
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    tl.store(out_ptr + offsets, x * scale, mask=mask)


def scale_all(x: torch.Tensor, scale: float):
    """``x * scale`` over every element of ``x``."""
    out = torch.empty_like(x)
    n = x.numel()
    _scale_kernel[(triton.cdiv(n, 128),)](out, x, scale, n, BLOCK=128)
    return out
