"""``//`` and ``%`` of a loaded slot after the padding slots returned (the vLLM
reshape-and-cache idiom): ``if slot < 0: return`` leaves only slots >= 0, where Triton's
truncating division and the IR's flooring one agree."""

import torch
import triton
import triton.language as tl


@triton.jit
def _cache_blocks_kernel(
    x_ptr, cache_ptr, slot_ptr, x_stride, cache_stride, block_size: tl.constexpr, D: tl.constexpr
):
    token = tl.program_id(0)
    slot = tl.load(slot_ptr + token)
    if slot < 0:
        return
    blk = slot // block_size
    cols = tl.arange(0, D)
    row = tl.load(x_ptr + token * x_stride + cols)
    tl.store(cache_ptr + blk * cache_stride + cols, row)


def cache_blocks(x: torch.Tensor, cache: torch.Tensor, slots: torch.Tensor):
    """Copies row ``i`` of ``x`` to row ``slots[i] // 4`` of ``cache`` (skips slots < 0)."""
    n, d = x.shape
    assert cache.shape[1] == d
    _cache_blocks_kernel[(n,)](x, cache, slots, x.stride(0), cache.stride(0), 4, d)
    return cache
