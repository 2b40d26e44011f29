"""Forward differences ``x[i + 1] - x[i]``: a tile read shifted by one element."""

from __future__ import annotations

import torch
import triton
import triton.language as tl


@triton.jit
def _forward_diff(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n - 1
    here = tl.load(x_ptr + offs, mask=mask)
    after = tl.load(x_ptr + offs + 1, mask=mask)
    tl.store(out_ptr + offs, after - here, mask=mask)


def forward_diff(x: torch.Tensor) -> torch.Tensor:
    """``x[1:] - x[:-1]`` of a 1-D tensor."""
    n = x.shape[0]
    out = torch.empty(n - 1, dtype=x.dtype, device=x.device)
    _forward_diff[lambda meta: (triton.cdiv(n - 1, meta["BLOCK"]),)](x, out, n, BLOCK=64)
    return out
