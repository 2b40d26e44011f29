"""A gather through indices a Helion kernel wraps into range with torch in its host part
(``torch.where(idx < 0, idx + n, idx)``, as pytorch/helion's gather_gemv example does), read
per tile in its device loop."""

from __future__ import annotations

import helion
import helion.language as hl
import torch


@helion.kernel(config=helion.Config(block_sizes=[1, 32]))
def take_rows(table: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
    """``table[idx]`` for indices that may count from the end (``-1`` is the last row)."""
    num_rows, d = table.size()
    n = idx.size(0)
    out = torch.empty([n, d], dtype=table.dtype, device=table.device)
    # Negative indices count from the end, as torch's indexing reads them.
    idx_wrapped = torch.where(idx < 0, idx + num_rows, idx)
    for tile_i, tile_d in hl.tile([n, d]):
        rows = idx_wrapped[tile_i]
        out[tile_i, tile_d] = table[rows, tile_d]
    return out
