"""Rows of ``x [B * H, N]`` scaled per head and shifted per batch: the program id is the row,
and its digits ``pid % H`` / ``pid // H`` index the per-head and per-batch values (attention
kernels' flattened ``off_hz``, read as values rather than as grid dims)."""

import torch
import triton
import triton.language as tl


@triton.jit
def _head_scale_kernel(X, Scale, Shift, Out, H, N, stride_x, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    off_h = pid % H
    off_b = pid // H
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(X + pid * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
    scale = tl.load(Scale + off_h)
    shift = tl.load(Shift + off_b)
    tl.store(Out + pid * stride_x + cols, x * scale + shift, mask=mask)


def head_scale(x: torch.Tensor, scale: torch.Tensor, shift: torch.Tensor) -> torch.Tensor:
    """``x[b, h] * scale[h] + shift[b]`` for ``x [B, H, N]``, in float32."""
    B, H, N = x.shape
    x2 = x.reshape(B * H, N)
    out = torch.empty((B * H, N), dtype=torch.float32, device=x.device)
    BLOCK_N = triton.next_power_of_2(N)
    _head_scale_kernel[(B * H,)](x2, scale, shift, out, H, N, x2.stride(0), BLOCK_N=BLOCK_N)
    return out.reshape(B, H, N)
