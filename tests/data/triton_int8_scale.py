"""Activations times int8 weights, in the style of a weight-only quantised elementwise op."""

import torch
import triton
import triton.language as tl


@triton.jit
def _int8_scale_kernel(x_ptr, w_ptr, out_ptr, n, scale, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    w = tl.load(w_ptr + offs, mask=mask).to(tl.float32)
    out = x.to(tl.float32) * w * scale
    tl.store(out_ptr + offs, out.to(x.dtype), mask=mask)


def int8_scale(x: torch.Tensor, w: torch.Tensor, scale: float = 0.125) -> torch.Tensor:
    """Scale activations by quantised weights.

    Args:
        x (torch.Tensor): activations, float16 or float32.
        w (torch.Tensor): weights of x's shape.
        scale: the weights' quantisation step.
    """
    assert w.dtype == torch.int8, "weights are int8"
    assert x.shape == w.shape
    out = torch.empty_like(x)
    n = x.numel()
    _int8_scale_kernel[(triton.cdiv(n, 256),)](x, w, out, n, scale, BLOCK=256)
    return out
