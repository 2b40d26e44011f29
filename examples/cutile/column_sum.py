"""Column sums in cuTile with ``ct.atomic_add``: each block sums a ``TM x TN`` tile over its rows
and adds the ``TN`` partial sums into the output (zeroed by the host), as split reductions do."""

from __future__ import annotations

import cuda.tile as ct
import torch


@ct.kernel
def column_sum_kernel(x, out, TM: ct.Constant[int], TN: ct.Constant[int]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    t = ct.load(x, index=(bm, bn), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO)
    partial = ct.sum(ct.astype(t, ct.float32), axis=0)
    cols = bn * TN + ct.arange(TN, dtype=ct.int32)
    # Columns past the end are out of bounds: cuTile's atomics skip them.
    ct.atomic_add(out, cols, partial)


def column_sum(x: torch.Tensor) -> torch.Tensor:
    """``x.sum(dim=0)`` in fp32 for a 2-D tensor."""
    m, n = x.shape
    out = torch.zeros(n, device=x.device, dtype=torch.float32)
    grid = (ct.cdiv(m, 32), ct.cdiv(n, 64), 1)
    ct.launch(torch.cuda.current_stream(), grid, column_sum_kernel, (x, out, 32, 64))
    return out
