"""GeGLU ``gelu_tanh(a) * b`` with a fused backward (Helion examples style, Liger's formulas).

The kernels take 2-D ``[tokens, hidden]`` views; the autograd Function reshapes around them.

The backward recomputes ``gelu_tanh(a)`` and its derivative from the saved inputs:
``d/da gelu_tanh(a) = 0.5 * (1 + t) + 0.5 * a * (1 - t^2) * sqrt(2/pi) * (1 + 3 * 0.044715 * a^2)``
with ``t = tanh(sqrt(2/pi) * (a + 0.044715 * a^3))``.
"""

from __future__ import annotations

import math

import helion
import helion.language as hl
import torch

SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
GELU_COEFF = 0.044715


@helion.kernel()
def geglu_fwd(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``gelu(a, approximate="tanh") * b`` elementwise (fp32 math)."""
    m, n = a.size()
    out = torch.empty_like(a)
    for tile_m, tile_n in hl.tile([m, n]):
        a_f = a[tile_m, tile_n].to(torch.float32)
        inner = SQRT_2_OVER_PI * (a_f + GELU_COEFF * a_f * a_f * a_f)
        gelu_a = 0.5 * a_f * (1.0 + torch.tanh(inner))
        out[tile_m, tile_n] = (gelu_a * b[tile_m, tile_n].to(torch.float32)).to(out.dtype)
    return out


@helion.kernel()
def geglu_bwd(
    grad_out: torch.Tensor, a: torch.Tensor, b: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """``(grad_a, grad_b)`` of ``gelu_tanh(a) * b`` for the upstream gradient ``grad_out``."""
    m, n = a.size()
    grad_a = torch.empty_like(a)
    grad_b = torch.empty_like(b)
    for tile_m, tile_n in hl.tile([m, n]):
        dc = grad_out[tile_m, tile_n].to(torch.float32)
        a_f = a[tile_m, tile_n].to(torch.float32)
        b_f = b[tile_m, tile_n].to(torch.float32)
        a_cubed = a_f * a_f * a_f
        tanh_arg = SQRT_2_OVER_PI * (a_f + GELU_COEFF * a_cubed)
        tanh_result = torch.tanh(tanh_arg)
        gelu_a = 0.5 * a_f * (1.0 + tanh_result)
        grad_b[tile_m, tile_n] = (dc * gelu_a).to(grad_b.dtype)
        term1 = 0.5 * (1.0 + tanh_result)
        tanh_sq = tanh_result * tanh_result
        term2 = (
            0.5 * a_f * (1.0 - tanh_sq) * (SQRT_2_OVER_PI * (1.0 + 3.0 * GELU_COEFF * a_f * a_f))
        )
        grad_a[tile_m, tile_n] = (dc * b_f * (term1 + term2)).to(grad_a.dtype)
    return grad_a, grad_b


class GeGLUFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        shape = a.shape
        a = a.reshape(-1, shape[-1])
        b = b.reshape(-1, shape[-1])
        ctx.save_for_backward(a, b)
        return geglu_fwd(a, b).view(shape)

    @staticmethod
    def backward(ctx, grad_out: torch.Tensor):
        a, b = ctx.saved_tensors
        shape = grad_out.shape
        grad_out = grad_out.reshape(-1, shape[-1]).contiguous()
        grad_a, grad_b = geglu_bwd(grad_out, a, b)
        return grad_a.view(shape), grad_b.view(shape)


def geglu(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Differentiable GeGLU of two tensors of one shape."""
    if a.shape != b.shape:
        raise ValueError(f"shape mismatch: {tuple(a.shape)} vs {tuple(b.shape)}")
    return GeGLUFunction.apply(a, b)
