"""Batched matrix multiplication ``out[b] = a[b] @ c[b]`` with an fp32 accumulator."""

from __future__ import annotations

import helion
import helion.language as hl
import torch


# One batch entry per program (block size 1 on the batch dim).
@helion.kernel(
    static_shapes=True,
    config=helion.Config(block_sizes=[1, 128, 128, 64], num_warps=4, num_stages=4),
)
def bmm(a: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """Multiply two stacks of matrices.

    Args:
        a: Left operand of shape [b, m, k].
        c: Right operand of shape [b, k, n], same dtype as ``a``.

    Returns:
        A tensor of shape [b, m, n] in the dtype of ``a``.
    """
    b, m, k = a.size()
    b2, k2, n = c.size()
    assert b == b2 and k == k2, "batch or reduction size mismatch"
    out = torch.empty([b, m, n], dtype=a.dtype, device=a.device)
    for tile_b, tile_m, tile_n in hl.tile([b, m, n]):
        acc = hl.zeros([tile_b, tile_m, tile_n], dtype=torch.float32)
        # Batched block product accumulated into acc.
        for tile_k in hl.tile(k):
            acc = torch.baddbmm(acc, a[tile_b, tile_m, tile_k], c[tile_b, tile_k, tile_n])
        out[tile_b, tile_m, tile_n] = acc.to(out.dtype)
    return out
