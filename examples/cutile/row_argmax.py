"""Row max and argmax in cuTile: ``ct.max`` and ``ct.argmax`` over a whole row per block."""

from __future__ import annotations

import cuda.tile as ct
import torch


@ct.kernel
def row_argmax_kernel(x, values, indices, TILE_M: ct.Constant[int], TILE_N: ct.Constant[int]):
    bid = ct.bid(0)
    # Lanes past the row's end read -inf: they are never the max.
    t = ct.load(x, index=(bid, 0), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.NEG_INF)
    ct.store(values, index=(bid,), tile=ct.max(t, axis=1))
    ct.store(indices, index=(bid,), tile=ct.astype(ct.argmax(t, axis=1), indices.dtype))


def row_argmax(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``x.max(dim=1)``: the max of each row and its (first) column index."""
    m, n = x.shape
    values = torch.empty(m, device=x.device, dtype=x.dtype)
    indices = torch.empty(m, device=x.device, dtype=torch.int32)
    tile_n = 1 << (n - 1).bit_length()
    grid = (ct.cdiv(m, 16), 1, 1)
    ct.launch(
        torch.cuda.current_stream(), grid, row_argmax_kernel, (x, values, indices, 16, tile_n)
    )
    return values, indices
