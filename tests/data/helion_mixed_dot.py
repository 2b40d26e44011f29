"""An ``hl.dot`` of an fp16 tile and an fp32 tile: Helion promotes both operands to their
common dtype (``torch.promote_types``) before the dot, as ``torch.matmul`` would refuse to."""

from __future__ import annotations

import helion
import helion.language as hl
import torch


@helion.kernel(config=helion.Config(block_sizes=[16, 16, 16]), static_shapes=True)
def mixed_dot(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """``x.half() @ w.float()`` accumulated in fp32, for any float ``x`` [m, k], ``w`` [k, n]."""
    m, k = x.size()
    k2, n = w.size()
    assert k == k2, f"size mismatch {k} != {k2}"
    out = torch.empty([m, n], dtype=torch.float32, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            a = x[tile_m, tile_k].to(torch.float16)
            b = w[tile_k, tile_n].to(torch.float32)
            acc = hl.dot(a, b, acc=acc)
        out[tile_m, tile_n] = acc
    return out


@helion.kernel(config=helion.Config(block_sizes=[16, 16, 16]), static_shapes=True)
def scaled_dot(x: torch.Tensor, w: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    """``x @ (w * scale)`` with a per-row fp32 ``scale`` [k]: the scaled weight tile is fp32
    whatever ``w``'s dtype, ``x``'s tile keeps ``x``'s dtype."""
    m, k = x.size()
    k2, n = w.size()
    assert k == k2, f"size mismatch {k} != {k2}"
    out = torch.empty([m, n], dtype=torch.float32, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            b = w[tile_k, tile_n].to(torch.float32) * scale[tile_k].to(torch.float32)[:, None]
            acc = hl.dot(x[tile_m, tile_k], b, acc=acc)
        out[tile_m, tile_n] = acc
    return out
