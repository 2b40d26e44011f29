"""Row sum of where(col < n, x, 1.0) + shift over a power-of-two tile (lanes past n hold 1.0 + shift)."""

from __future__ import annotations

import cuda.tile as ct
import torch


@ct.kernel
def shifted_sum_kernel(x, out, n: int, shift: float, TILE_N: ct.Constant[int]):
    row = ct.bid(0)
    mask = ct.arange(TILE_N, dtype=ct.int32) < n
    # Default padding: lanes past the row's end are undetermined, and the where masks them.
    xt = ct.astype(ct.load(x, index=(row, 0), shape=(1, TILE_N)), ct.float32)
    y = ct.where(mask[None, :], xt, 1.0) + shift
    s = ct.sum(y, axis=1, keepdims=True)
    ct.store(out, index=(row, 0), tile=ct.astype(s, out.dtype))


def shifted_sum(x: torch.Tensor) -> torch.Tensor:
    m, n = x.shape
    out = torch.empty((m, 1), device=x.device, dtype=x.dtype)
    tile_n = 1 << (n - 1).bit_length()
    ct.launch(torch.cuda.current_stream(), (m, 1, 1), shifted_sum_kernel, (x, out, n, 0.5, tile_n))
    return out
