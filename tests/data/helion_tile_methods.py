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


@helion.kernel(config=helion.Config(block_sizes=[32, 64]))
def row_sums(x: torch.Tensor) -> torch.Tensor:
    m, n = x.shape
    block_n = hl.register_block_size(16, 128)
    out = torch.zeros([m], dtype=torch.float32, device=x.device)
    for tile_m in hl.tile(m):
        acc = hl.zeros([tile_m], dtype=torch.float32)
        for tile_n in hl.tile(n, block_size=block_n):
            acc += x[tile_m, tile_n].contiguous().to(torch.float32).sum(dim=1)
        out[tile_m] = acc
    return out


@helion.kernel(config=helion.Config(block_sizes=[64]))
def minus_block_max(x: torch.Tensor) -> torch.Tensor:
    (n,) = x.shape
    out = torch.empty([n], dtype=x.dtype, device=x.device)
    for tile in hl.tile(n):
        v = x[tile]
        out[tile] = v - torch.amax(v)
    return out
