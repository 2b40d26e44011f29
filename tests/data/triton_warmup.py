"""A kernel compiled ahead of its first launch (Triton's warmup API)."""

from __future__ import annotations

import torch
import triton
import triton.language as tl


@triton.jit
def _neg(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, -tl.load(x_ptr + offs, mask=mask), mask=mask)


def neg(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    _neg.warmup(x, out, n, BLOCK=1024, grid=(1,))
    _neg[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out
