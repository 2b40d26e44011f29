"""A persistent kernel in cuTile: about one program per SM, each walking every
``ct.num_blocks(0)``-th tile of ``out = alpha * x + y`` (a grid-stride loop)."""

from __future__ import annotations

import cuda.tile as ct
import torch

TILE = 1024


@ct.kernel
def persistent_axpy_kernel(x, y, out, alpha: float, TILE: ct.Constant[int]):
    """Tiles ``bid, bid + num_blocks, ...`` of ``alpha * x + y``; the last one is ragged."""
    num_tiles = ct.cdiv(x.shape[0], TILE)
    for t in range(ct.bid(0), num_tiles, ct.num_blocks(0)):
        xt = ct.load(x, index=(t,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
        yt = ct.load(y, index=(t,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
        ct.store(out, index=(t,), tile=ct.astype(alpha * xt + yt, out.dtype))


def persistent_axpy(x: torch.Tensor, y: torch.Tensor, alpha: float) -> torch.Tensor:
    """``alpha * x + y`` for 1-D tensors of one length and dtype, on a grid of at most one
    program per SM."""
    assert x.shape == y.shape, "x and y must have the same shape"
    out = torch.empty_like(x)
    num_sms = torch.cuda.get_device_properties(x.device).multi_processor_count
    grid = (min(num_sms, ct.cdiv(x.shape[0], TILE)), 1, 1)
    ct.launch(torch.cuda.current_stream(), grid, persistent_axpy_kernel, (x, y, out, alpha, TILE))
    return out
