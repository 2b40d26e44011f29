"""Gated linear unit activations (SwiGLU, GeGLU) as Helion kernels.

``swiglu`` is differentiable through an autograd Function whose forward and
backward each call a Helion kernel; the backward recomputes ``silu(a)`` instead
of saving it. ``geglu`` is forward-only and broadcasts its operands.
"""

from __future__ import annotations

import helion
import helion.language as hl
import torch


@helion.kernel()
def swiglu_fwd(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``silu(a) * b`` for two tensors of the same shape."""
    shape = a.shape
    a = a.reshape(-1, a.size(-1))
    b = b.reshape(-1, b.size(-1))
    m, n = a.size()
    out = torch.empty_like(a)
    for tile_m, tile_n in hl.tile([m, n]):
        a_tile = a[tile_m, tile_n].to(torch.float32)
        gate = torch.nn.functional.silu(a_tile)
        out[tile_m, tile_n] = (gate * b[tile_m, tile_n].to(torch.float32)).to(out.dtype)
    return out.view(*shape)


@helion.kernel()
def swiglu_bwd(
    grad_out: torch.Tensor, a: torch.Tensor, b: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Gradients of ``silu(a) * b`` with respect to ``a`` and ``b``."""
    shape = a.shape
    grad_out = grad_out.reshape(-1, grad_out.size(-1))
    a = a.reshape(-1, a.size(-1))
    b = b.reshape(-1, b.size(-1))
    m, n = a.size()
    grad_a = torch.empty_like(a)
    grad_b = torch.empty_like(b)
    for tile_m, tile_n in hl.tile([m, n]):
        dy = grad_out[tile_m, tile_n].to(torch.float32)
        a_tile = a[tile_m, tile_n].to(torch.float32)
        b_tile = b[tile_m, tile_n].to(torch.float32)
        sig = torch.sigmoid(a_tile)
        silu_a = a_tile * sig
        grad_b[tile_m, tile_n] = (dy * silu_a).to(grad_b.dtype)
        grad_a[tile_m, tile_n] = (dy * b_tile * (sig + silu_a * (1.0 - sig))).to(grad_a.dtype)
    return grad_a.view(*shape), grad_b.view(*shape)


@helion.kernel()
def geglu(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``gelu(a, approximate="tanh") * b`` with broadcasting and dtype promotion."""
    a, b = torch.broadcast_tensors(a, b)
    shape = a.shape
    out_dtype = torch.promote_types(a.dtype, b.dtype)
    a = a.reshape(-1, a.size(-1))
    b = b.reshape(-1, b.size(-1))
    m, n = a.size()
    out = torch.empty([m, n], dtype=out_dtype, device=a.device)
    for tile_m, tile_n in hl.tile([m, n]):
        a_tile = a[tile_m, tile_n].to(torch.float32)
        gate = torch.nn.functional.gelu(a_tile, approximate="tanh")
        out[tile_m, tile_n] = (gate * b[tile_m, tile_n].to(torch.float32)).to(out_dtype)
    return out.view(*shape)


class SwiGLUFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        a = a.contiguous()
        b = b.contiguous()
        ctx.save_for_backward(a, b)
        return swiglu_fwd(a, b)

    @staticmethod
    def backward(ctx, grad_out: torch.Tensor):
        a, b = ctx.saved_tensors
        grad_a, grad_b = swiglu_bwd(grad_out.contiguous(), a, b)
        return grad_a, grad_b


def swiglu(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Differentiable ``silu(a) * b`` for two tensors of the same shape."""
    if a.shape != b.shape:
        raise ValueError(f"shape mismatch: {tuple(a.shape)} vs {tuple(b.shape)}")
    return SwiGLUFunction.apply(a, b)
