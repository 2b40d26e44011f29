"""Matrix multiplication ``out = x @ y`` with fp16 inputs and an fp32 accumulator."""

from __future__ import annotations

import helion
import helion.language as hl
import torch


# Candidate tilings for fp16 GEMM on H100/H200 (the first is the default).
# l2_groupings=[8] groups 8 row-blocks per launch wave for L2 reuse.
@helion.kernel(
    static_shapes=True,
    configs=[
        helion.Config(block_sizes=[128, 128, 64], num_warps=4, num_stages=4, l2_groupings=[8]),
        helion.Config(block_sizes=[128, 256, 64], num_warps=8, num_stages=3, l2_groupings=[8]),
        helion.Config(block_sizes=[64, 128, 64], num_warps=4, num_stages=4, l2_groupings=[8]),
        helion.Config(block_sizes=[128, 64, 64], num_warps=4, num_stages=4, l2_groupings=[8]),
    ],
)
def matmul(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Multiply two matrices, accumulating in fp32.

    Args:
        x: Left operand of shape [m, k] (typically float16).
        y: Right operand of shape [k, n], same dtype as ``x``.

    Returns:
        A tensor of shape [m, n] in the dtype of ``x``.
    """
    m, k = x.size()
    k2, n = y.size()
    assert k == k2, f"size mismatch {k} != {k2}"
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        # fp32 accumulator for one [tile_m, tile_n] output block.
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        # March along the reduction dimension one k-block at a time.
        for tile_k in hl.tile(k):
            acc = torch.addmm(acc, x[tile_m, tile_k], y[tile_k, tile_n])
        out[tile_m, tile_n] = acc.to(out.dtype)
    return out
