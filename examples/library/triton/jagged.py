"""Jagged (offsets-based) reductions: sum and mean over the variable-length rows of a packed
``[total, D]`` values tensor (FBGEMM/torchrec style).

Sequence ``b`` owns rows ``offsets[b] : offsets[b + 1]`` of ``values``. Each program reduces one
sequence over a ``BLOCK_D`` slice of the features, walking its rows one at a time (a loop whose
bounds it loads); an empty sequence sums to zero (and its mean is zero, not NaN).
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl


@triton.jit
def jagged_sum_kernel(
    values_ptr,
    offsets_ptr,
    out_ptr,
    D,
    stride_v,
    stride_o,
    MEAN: tl.constexpr,
    BLOCK_D: tl.constexpr,
):
    pid_b = tl.program_id(0)
    pid_d = tl.program_id(1)
    start = tl.load(offsets_ptr + pid_b)
    end = tl.load(offsets_ptr + pid_b + 1)
    offs_d = pid_d * BLOCK_D + tl.arange(0, BLOCK_D)
    mask_d = offs_d < D
    acc = tl.zeros([BLOCK_D], dtype=tl.float32)
    for row in range(start, end):
        acc += tl.load(values_ptr + row * stride_v + offs_d, mask=mask_d, other=0.0).to(tl.float32)
    if MEAN:
        acc = acc / tl.maximum(end - start, 1).to(tl.float32)
    tl.store(out_ptr + pid_b * stride_o + offs_d, acc.to(out_ptr.dtype.element_ty), mask=mask_d)


def _jagged_reduce(values: torch.Tensor, offsets: torch.Tensor, mean: bool) -> torch.Tensor:
    assert values.dim() == 2 and offsets.dim() == 1, "values [total, D], offsets [B + 1]"
    B = offsets.numel() - 1
    D = values.shape[1]
    out = torch.empty((B, D), dtype=values.dtype, device=values.device)
    BLOCK_D = min(triton.next_power_of_2(D), 128)
    grid = (B, triton.cdiv(D, BLOCK_D))
    jagged_sum_kernel[grid](
        values,
        offsets,
        out,
        D,
        values.stride(0),
        out.stride(0),
        MEAN=mean,
        BLOCK_D=BLOCK_D,
    )
    return out


def jagged_sum(values: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    """``out[b] = values[offsets[b]:offsets[b + 1]].sum(0)`` for every sequence ``b``."""
    return _jagged_reduce(values, offsets, mean=False)


def jagged_mean(values: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    """The mean of each sequence's rows (zero for an empty sequence)."""
    return _jagged_reduce(values, offsets, mean=True)
