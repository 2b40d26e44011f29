"""Unsloth-style elementwise kernels that switch to 64-bit offsets for huge tensors: a constexpr
flag the host sets from the element count rebinds the offsets and the bound to int64 inside the
kernel, and the lanes are computed either way."""

import torch
import triton
import triton.language as tl

# Offsets past this many elements overflow int32 once a block is added.
INT32_SAFETY_BUFFER = 2**31 - 1024 * 4
BLOCK_SIZE = 1024


@triton.jit
def _geglu_fwd_kernel(e, g, h, n_elements, BLOCK_SIZE: tl.constexpr, LONG_INDEXING: tl.constexpr):
    block_idx = tl.program_id(0)
    if LONG_INDEXING:
        offsets = block_idx.to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE).to(tl.int64)
        n_elements = tl.cast(n_elements, tl.int64)
    else:
        offsets = block_idx * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements

    e_row = tl.load(e + offsets, mask=mask, other=0).to(tl.float32)
    g_row = tl.load(g + offsets, mask=mask, other=0)
    f_row = 0.5 * e_row * (1.0 + tl.erf(e_row * 0.7071067811865476))
    tl.store(h + offsets, f_row.to(g_row.dtype) * g_row, mask=mask)


def geglu_forward(e: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
    """``gelu(e) * g`` elementwise (exact GELU), for contiguous ``e`` and ``g`` of one shape."""
    n_elements = e.numel()
    h = torch.empty_like(e)
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)  # noqa: E731
    _geglu_fwd_kernel[grid](
        e,
        g,
        h,
        n_elements,
        BLOCK_SIZE=BLOCK_SIZE,
        LONG_INDEXING=0 if n_elements <= INT32_SAFETY_BUFFER else 1,
    )
    return h


@triton.jit
def _scale_kernel(x, out, scale, n_elements, BLOCK: tl.constexpr, LONG_INDEXING: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    if LONG_INDEXING:
        offsets = offsets.to(tl.int64)
    mask = offsets < n_elements
    v = tl.load(x + offsets, mask=mask, other=0.0)
    tl.store(out + offsets, v * scale, mask=mask)


def scale(x: torch.Tensor, factor: float) -> torch.Tensor:
    """``x * factor``."""
    out = torch.empty_like(x)
    n = x.numel()
    _scale_kernel[(triton.cdiv(n, 256),)](
        x, out, factor, n, BLOCK=256, LONG_INDEXING=n > INT32_SAFETY_BUFFER
    )
    return out
