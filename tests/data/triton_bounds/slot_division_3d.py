"""The vLLM reshape-and-cache idiom over a paged cache ``[blocks, block_size, D]``: slot ``s``
is row ``s % block_size`` of block ``s // block_size``; padding slots (< 0) return first."""

import torch
import triton
import triton.language as tl


@triton.jit
def _cache_rows_kernel(
    x_ptr,
    cache_ptr,
    slot_ptr,
    x_stride,
    cache_stride0,
    cache_stride1,
    block_size: tl.constexpr,
    D: tl.constexpr,
):
    token = tl.program_id(0)
    slot = tl.load(slot_ptr + token)
    if slot < 0:
        return
    blk = slot // block_size
    off = slot % block_size
    cols = tl.arange(0, D)
    row = tl.load(x_ptr + token * x_stride + cols)
    tl.store(cache_ptr + blk * cache_stride0 + off * cache_stride1 + cols, row)


def cache_rows(x: torch.Tensor, cache: torch.Tensor, slots: torch.Tensor):
    """Writes row ``i`` of ``x`` at slot ``slots[i]`` of the paged ``cache``."""
    n, d = x.shape
    assert cache.shape[2] == d
    _cache_rows_kernel[(n,)](
        x, cache, slots, x.stride(0), cache.stride(0), cache.stride(1), cache.shape[1], d
    )
    return cache
