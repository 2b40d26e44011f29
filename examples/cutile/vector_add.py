"""Vector addition in cuTile: each block adds one tile of ``TILE`` elements."""

from __future__ import annotations

import cuda.tile as ct
import torch

TILE = 1024


@ct.kernel
def vector_add_kernel(a, b, c, TILE: ct.Constant[int]):
    """``c = a + b`` over one tile; lanes past the end are padding, never stored."""
    bid = ct.bid(0)
    a_tile = ct.load(a, index=(bid,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    b_tile = ct.load(b, index=(bid,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(c, index=(bid,), tile=a_tile + b_tile)


def vector_add(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Add two 1-D tensors of the same length and dtype."""
    assert a.shape == b.shape, "a and b must have the same shape"
    c = torch.empty_like(a)
    grid = (ct.cdiv(a.shape[0], TILE), 1, 1)
    ct.launch(torch.cuda.current_stream(), grid, vector_add_kernel, (a, b, c, TILE))
    return c
