"""Two-pass (online) row softmax with an explicit loop over the columns.

Pass 1 streams the row in column blocks keeping a running max ``mi`` and a
running sum of exponentials ``di``; pass 2 re-reads the row and writes
``exp(x - mi) / di``.
"""

from __future__ import annotations

import helion
import helion.language as hl
import torch


@helion.kernel(config=helion.Config(block_sizes=[2, 256], num_warps=4))
def softmax_two_pass(x: torch.Tensor) -> torch.Tensor:
    """Compute softmax over the last dimension of a 2-D tensor in two passes.

    Args:
        x: Input tensor of shape [m, n].

    Returns:
        A tensor of shape [m, n]; every row sums to one.
    """
    m, n = x.size()
    out = torch.empty_like(x)
    # Block sizes are registered up front so both column loops share one.
    block_size_m = hl.register_block_size(m)
    block_size_n = hl.register_block_size(n)
    for tile_m in hl.tile(m, block_size=block_size_m):
        # Running row max and running sum of exp(x - max), kept in fp32.
        mi = hl.full([tile_m], float("-inf"), dtype=torch.float32)
        di = hl.zeros([tile_m], dtype=torch.float32)
        for tile_n in hl.tile(n, block_size=block_size_n):
            values = x[tile_m, tile_n].to(torch.float32)
            local_amax = torch.amax(values, dim=1)
            mi_next = torch.maximum(mi, local_amax)
            # Rescale the old sum to the new max before adding this block.
            di = di * torch.exp(mi - mi_next) + torch.exp(values - mi_next[:, None]).sum(dim=1)
            mi = mi_next
        # Second pass: normalize with the final max and sum.
        for tile_n in hl.tile(n, block_size=block_size_n):
            values = x[tile_m, tile_n].to(torch.float32)
            out[tile_m, tile_n] = (torch.exp(values - mi[:, None]) / di[:, None]).to(out.dtype)
    return out
