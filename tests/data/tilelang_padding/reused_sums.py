"""out[row] = sum(x[row]) + sum(1 / (1 - x[row])) over a tile padded past the row: zeros,
then -inf (where 1 / (1 - x) is 0), the name xt reused."""

from __future__ import annotations

import cuda.tile as ct
import torch


@ct.kernel
def sums_kernel(x, z, out, TILE_N: ct.Constant[int]):
    row = ct.bid(0)
    xt = ct.load(x, index=(row, 0), shape=(1, TILE_N), padding_mode=ct.PaddingMode.ZERO)
    s = ct.sum(xt, axis=1, keepdims=True)
    zt = ct.load(x, index=(row, 0), shape=(1, TILE_N), padding_mode=ct.PaddingMode.NEG_INF)
    xt = 1.0 / (1.0 - zt)
    s = s + ct.sum(xt, axis=1, keepdims=True)
    ct.store(out, index=(row, 0), tile=s)


def sums(x: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
    m, n = x.shape
    out = torch.empty((m, 1), device=x.device, dtype=x.dtype)
    tile_n = 1 << (n - 1).bit_length()
    ct.launch(torch.cuda.current_stream(), (m, 1, 1), sums_kernel, (x, z, out, tile_n))
    return out
