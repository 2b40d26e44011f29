"""Gathers, scatters and loads masked by data in the style of Helion's public examples: an
embedding lookup mixed with a tile of columns, a label's logit read at a computed flat offset, a
row permutation written through its index, and rows kept up to a per-row length (the TileLang
and cuTile backends' element loops, ``ct.gather``/``ct.scatter`` and their masks)."""

from __future__ import annotations

import helion
import helion.language as hl
import torch


@helion.kernel(config=helion.Config(block_sizes=[8, 16]))
def scaled_lookup(ids: torch.Tensor, table: torch.Tensor, scale: float) -> torch.Tensor:
    """``table[ids] * scale``: rows of an embedding table gathered by a tile of ids."""
    n = ids.size(0)
    _, dim = table.size()
    out = torch.empty([n, dim], dtype=table.dtype, device=table.device)
    for tile_b, tile_d in hl.tile([n, dim]):
        rows = table[ids[tile_b], tile_d].to(torch.float32)
        out[tile_b, tile_d] = (rows * scale).to(out.dtype)
    return out


@helion.kernel(config=helion.Config(block_sizes=[4]))
def target_margin(scores: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """``max(scores[i, :]) - scores[i, targets[i]]`` per row, in fp32."""
    n, v = scores.shape
    out = torch.empty([n], dtype=torch.float32, device=scores.device)
    flat = scores.view(-1)
    for tile_n in hl.tile(n):
        # The target's score sits at flat offset row * v + target.
        picked = hl.load(flat, [tile_n.index * v + targets[tile_n]]).to(torch.float32)
        best = torch.amax(scores[tile_n, :].to(torch.float32), dim=-1)
        out[tile_n] = best - picked
    return out


@helion.kernel(config=helion.Config(block_sizes=[8, 32]))
def permute_rows(x: torch.Tensor, dest: torch.Tensor) -> torch.Tensor:
    """``out[dest[i], :] = 2 * x[i, :]`` for a permutation ``dest`` of the rows."""
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m, tile_n in hl.tile([m, n]):
        out[dest[tile_m], tile_n] = x[tile_m, tile_n] * 2
    return out


@helion.kernel(config=helion.Config(block_sizes=[8, 16]))
def keep_prefix(x: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """Row ``i`` of ``x`` up to ``lengths[i]`` columns, zeros after (a padded ragged batch)."""
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m, tile_n in hl.tile([m, n]):
        inside = tile_n.index[None, :] < lengths[tile_m][:, None]
        out[tile_m, tile_n] = hl.load(x, [tile_m, tile_n], extra_mask=inside)
    return out


@helion.kernel(config=helion.Config(block_sizes=[8, 16]))
def zero_dropped_rows(x: torch.Tensor, keep: torch.Tensor) -> torch.Tensor:
    """``x[b, i, :]`` where ``keep[b, i]`` is set, zeros elsewhere: one program per batch entry
    walking its (rows, columns) tiles in one loop."""
    nb, m, n = x.size()
    out = torch.empty_like(x)
    for b in hl.grid(nb):
        for tile_m, tile_n in hl.tile([m, n]):
            kept = keep[b, tile_m] != 0
            out[b, tile_m, tile_n] = x[b, tile_m, tile_n].masked_fill(~kept[:, None], 0)
    return out
