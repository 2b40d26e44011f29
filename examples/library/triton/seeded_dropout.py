"""Low-memory dropout (Triton tutorial 04 style): the mask is drawn in the kernel from a seed.

``tl.rand(seed, offsets)`` draws one Philox number per element, keyed by the seed and the
element's offset, so the same seed draws the same mask again: the backward regenerates the
forward's mask instead of saving it (no mask tensor, no drawn tensor kept for backward).
``dropout_add`` fuses the dropout of a 2-D activation into a residual add (a transformer block's
``residual + dropout(x)``), counting each element by its row-major index.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

BLOCK_SIZE = 1024


@triton.jit
def _seeded_dropout_kernel(x_ptr, output_ptr, n_elements, p, seed, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    # The same (seed, offset) always draws the same number: the mask is never stored.
    random = tl.rand(seed, offsets)
    x_keep = random > p
    output = tl.where(x_keep, x / (1 - p), 0.0)
    tl.store(output_ptr + offsets, output, mask=mask)


@triton.jit
def _dropout_add_kernel(
    x_ptr,
    residual_ptr,
    out_ptr,
    n_rows,
    n_cols,
    stride_x,
    stride_residual,
    stride_out,
    p,
    seed,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None] * stride_x + cols[None, :], mask=mask)
    residual = tl.load(residual_ptr + rows[:, None] * stride_residual + cols[None, :], mask=mask)
    # Row-major element indices are the counters of the draws: a mask independent of the
    # blocking, the same as low_mem_dropout's of the flattened tensor.
    keep = tl.rand(seed, rows[:, None] * n_cols + cols[None, :]) > p
    out = residual + tl.where(keep, x / (1 - p), 0.0)
    tl.store(out_ptr + rows[:, None] * stride_out + cols[None, :], out, mask=mask)


def _seeded_dropout(x: torch.Tensor, p: float, seed: int) -> torch.Tensor:
    x = x.contiguous()
    output = torch.empty_like(x)
    n_elements = x.numel()
    grid = (triton.cdiv(n_elements, BLOCK_SIZE),)
    _seeded_dropout_kernel[grid](x, output, n_elements, p, seed, BLOCK_SIZE=BLOCK_SIZE)
    return output


class LowMemDropout(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x: torch.Tensor, p: float, seed: int) -> torch.Tensor:
        # Only the seed is kept: the backward draws the same mask from it.
        ctx.p = p
        ctx.seed = seed
        return _seeded_dropout(x, p, seed)

    @staticmethod
    def backward(ctx, grad_output: torch.Tensor):
        return _seeded_dropout(grad_output, ctx.p, ctx.seed), None, None


def low_mem_dropout(x: torch.Tensor, p: float = 0.5, seed: int = 0) -> torch.Tensor:
    """Dropout of ``x`` with probability ``p``; the same ``seed`` draws the same mask."""
    if not 0.0 <= p < 1.0:
        raise ValueError(f"p must be in [0, 1), got {p}")
    return LowMemDropout.apply(x, p, seed)


def dropout_add(x: torch.Tensor, residual: torch.Tensor, p: float, seed: int) -> torch.Tensor:
    """``residual + dropout(x, p)`` for 2-D ``x`` and ``residual`` of one shape, in one pass."""
    assert x.shape == residual.shape, "x and residual must have one shape"
    n_rows, n_cols = x.shape
    out = torch.empty_like(x)
    grid = (triton.cdiv(n_rows, 16), triton.cdiv(n_cols, 64))
    _dropout_add_kernel[grid](
        x,
        residual,
        out,
        n_rows,
        n_cols,
        x.stride(0),
        residual.stride(0),
        out.stride(0),
        p,
        seed,
        BLOCK_M=16,
        BLOCK_N=64,
    )
    return out
