"""Tile methods and constructors in Helion device code: ``.T``, ``torch.zeros_like(tile)``,
``.squeeze(d)``."""

from __future__ import annotations

import helion
import helion.language as hl
import torch


@helion.kernel(config=helion.Config(block_sizes=[32, 32]))
def transpose_add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    m, n = x.shape
    out = torch.empty([n, m], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        out[tile_n, tile_m] = (x[tile_m, tile_n] + y[tile_m, tile_n]).T
    return out


@helion.kernel(config=helion.Config(block_sizes=[32]))
def relu_rows(x: torch.Tensor) -> torch.Tensor:
    m, n = x.shape
    out = torch.empty_like(x)
    for tile_m in hl.tile(m):
        row = x[tile_m, :]
        out[tile_m, :] = torch.maximum(row, torch.zeros_like(row))
    return out


@helion.kernel(config=helion.Config(block_sizes=[32]))
def row_total(x: torch.Tensor) -> torch.Tensor:
    m, n = x.shape
    out = torch.empty([m], dtype=x.dtype, device=x.device)
    for tile_m in hl.tile(m):
        out[tile_m] = x[tile_m, :].sum(-1, keepdim=True).squeeze(1)
    return out
