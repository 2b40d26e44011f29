"""Tensors a Helion kernel computes with torch in its host part, before its device loops, and
then indexes per tile inside them (Helion runs the host part eagerly: such tensors are inputs of
the device code): a bias broadcast to the output's shape and row ids from ``torch.arange``.
Also the tile idioms that come with them in MoE-style kernels: a no-op ``.squeeze(0)`` of a
tile, ``.masked_fill``, a tile's ``.size(0)`` as a shape, and a result of ``torch.var_mean``
unpacked into ``_``."""

from __future__ import annotations

import helion
import helion.language as hl
import torch


@helion.kernel(config=helion.Config(block_sizes=[16, 16, 16]))
def addmm_rowwise(bias: torch.Tensor, mat1: torch.Tensor, mat2: torch.Tensor) -> torch.Tensor:
    """``mat1 @ mat2 + bias`` for a ``bias`` of one value per column, broadcast on the host."""
    m, k = mat1.size()
    k2, n = mat2.size()
    assert k == k2, f"size mismatch {k} != {k2}"
    out = torch.empty([m, n], dtype=torch.promote_types(mat1.dtype, mat2.dtype), device=mat1.device)
    bias = torch.broadcast_to(bias, (m, n))
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = torch.addmm(acc, mat1[tile_m, tile_k], mat2[tile_k, tile_n])
        out[tile_m, tile_n] = acc + bias[tile_m, tile_n]
    return out


@helion.kernel(config=helion.Config(block_sizes=[16, 16]))
def zero_tail_rows(x: torch.Tensor, num_valid: int) -> torch.Tensor:
    """``x`` with the rows from ``num_valid`` on set to zero (a padded batch's tail)."""
    m, n = x.size()
    out = torch.empty_like(x)
    row_ids = torch.arange(m, device=x.device, dtype=torch.int32)
    for tile_m, tile_n in hl.tile([m, n]):
        local_rows = row_ids[tile_m].squeeze(0)  # [block_m]: a tile keeps its dim
        tail = local_rows >= num_valid
        x_tile = x[tile_m, tile_n]
        block_m = x_tile.size(0)
        block_n = x_tile.size(1)
        tail_2d = tail.view(block_m, 1).expand(block_m, block_n)
        out[tile_m, tile_n] = x_tile.masked_fill(tail_2d, 0)
    return out


@helion.kernel(config=helion.Config(block_sizes=[4]))
def center_rows(x: torch.Tensor) -> torch.Tensor:
    """Each row of ``x`` minus its mean (the variance ``torch.var_mean`` also gives is unused)."""
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m in hl.tile(m):
        row = x[tile_m, :].to(torch.float32)
        _, mean = torch.var_mean(row, dim=-1, keepdim=True, correction=0)
        out[tile_m, :] = (row - mean).to(out.dtype)
    return out
