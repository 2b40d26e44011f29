"""Dropout with a seed (Triton tutorial style, the randomness drawn on the host).

The host draws the uniform tensor from a ``torch.Generator`` seeded with ``seed`` (the same seed
gives the same mask on every backend); the kernel keeps the elements whose draw exceeds ``p``
and scales them by ``1 / (1 - p)``. The backward applies the same mask to the gradient from the
saved draw, so no mask tensor is kept besides it.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK_SIZE = 1024


@triton.jit
def _dropout_kernel(x_ptr, rand_ptr, output_ptr, n_elements, p, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    random = tl.load(rand_ptr + offsets, mask=mask)
    x_keep = random > p
    output = tl.where(x_keep, x / (1 - p), 0.0)
    tl.store(output_ptr + offsets, output.to(output_ptr.dtype.element_ty), mask=mask)


def _draw(x: torch.Tensor, seed: int) -> torch.Tensor:
    generator = torch.Generator(device=x.device).manual_seed(seed)
    return torch.rand(x.shape, generator=generator, device=x.device, dtype=torch.float32)


def _apply(x: torch.Tensor, random: torch.Tensor, p: float) -> torch.Tensor:
    x = x.contiguous()
    output = torch.empty_like(x)
    n_elements = x.numel()
    grid = (triton.cdiv(n_elements, BLOCK_SIZE),)
    _dropout_kernel[grid](x, random, output, n_elements, p, BLOCK_SIZE=BLOCK_SIZE)
    return output


class SeededDropout(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x: torch.Tensor, p: float, seed: int) -> torch.Tensor:
        random = _draw(x, seed)
        ctx.save_for_backward(random)
        ctx.p = p
        return _apply(x, random, p)

    @staticmethod
    def backward(ctx, grad_out: torch.Tensor):
        (random,) = ctx.saved_tensors
        return _apply(grad_out, random, ctx.p), None, None


def seeded_dropout(x: torch.Tensor, p: float = 0.5, seed: int = 0) -> torch.Tensor:
    """Dropout of ``x`` with probability ``p``; the same ``seed`` gives the same mask."""
    if not 0.0 <= p < 1.0:
        raise ValueError(f"p must be in [0, 1), got {p}")
    return SeededDropout.apply(x, p, seed)
