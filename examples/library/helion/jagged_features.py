"""Means of jagged sequences whose rows each keep a number of their features.

``values`` packs ``B`` sequences of up to ``max_features`` features, row after
row; ``offsets`` holds ``B + 1`` row numbers, and ``feature_counts[b]`` says how
many leading features of sequence ``b`` are valid. Both loops are jagged: a tile
of sequences walks features up to its widest sequence and rows up to its
longest, each sequence's lanes past its own count masked, as
``hl.jagged_tile`` would mask them.
"""

from __future__ import annotations

import helion
import helion.language as hl
import torch


@helion.kernel()
def jagged_feature_mean(
    values: torch.Tensor, offsets: torch.Tensor, feature_counts: torch.Tensor, max_features: int
) -> torch.Tensor:
    """``out[b, :c] = values[offsets[b]:offsets[b + 1], :c].mean(0)`` with ``c`` the count of
    sequence ``b``; zero past it and for an empty sequence."""
    num_seqs = offsets.size(0) - 1
    out = torch.zeros([num_seqs, max_features], dtype=values.dtype, device=values.device)
    flat = values.view(-1)
    for tile_b in hl.tile(num_seqs):
        starts = offsets[tile_b]
        lengths = offsets[tile_b.index + 1] - starts
        counts = feature_counts[tile_b]
        for tile_f in hl.tile(counts.amax()):
            in_row = tile_f.index[None, :] < counts[:, None]
            sums = hl.zeros([tile_b, tile_f], dtype=torch.float32)
            for tile_r in hl.tile(lengths.amax()):
                in_seq = tile_r.index[None, :] < lengths[:, None]
                rows = starts[:, None] + tile_r.index[None, :]
                flat_index = rows[:, :, None] * max_features + tile_f.index[None, None, :]
                valid = in_seq[:, :, None] & in_row[:, None, :]
                x = hl.load(flat, [flat_index], extra_mask=valid)
                sums = sums + x.to(torch.float32).sum(dim=1)
            count = lengths.to(torch.float32)[:, None]
            mean = torch.where(count > 0, sums / count, 0.0)
            out[tile_b, tile_f] = torch.where(in_row, mean, 0.0).to(out.dtype)
    return out
