"""out = x where both x and y are positive, else 0 (a 2-D mask narrowed in place)."""

from __future__ import annotations

import cuda.tile as ct
import torch


@ct.kernel
def both_pos_kernel(x, y, out, TILE_M: ct.Constant[int], TILE_N: ct.Constant[int]):
    bid = ct.bid(0)
    xt = ct.load(x, index=(bid, 0), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO)
    yt = ct.load(y, index=(bid, 0), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO)
    keep = xt > 0
    keep = keep & (yt > 0)
    ct.store(out, index=(bid, 0), tile=ct.where(keep, xt, 0.0))


def both_pos(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    m, n = x.shape
    out = torch.empty_like(x)
    tile_n = 1 << (n - 1).bit_length()
    ct.launch(
        torch.cuda.current_stream(),
        (ct.cdiv(m, 16), 1, 1),
        both_pos_kernel,
        (x, y, out, 16, tile_n),
    )
    return out
