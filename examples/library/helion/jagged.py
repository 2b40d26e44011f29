"""Jagged (offsets-based) sums and means in Helion, as recommender models reduce their
variable-length feature sequences (torchrec's ``KeyedJaggedTensor``, ``torch.nested`` jagged
layout).

``values`` packs ``B`` sequences of ``D`` features row after row; ``offsets`` holds ``B + 1``
row numbers, sequence ``b`` being rows ``offsets[b]:offsets[b + 1]``. One program reduces one
sequence: it loads its two offsets and walks its rows a tile at a time, the last tile masked at
the sequence's end (a loop bounded by values the kernel loads). An empty sequence sums to zero
and its mean is zero, not NaN.
"""

from __future__ import annotations

import helion
import helion.language as hl
import torch

# Features per tile, then rows of a sequence per step; Helion masks the ragged last ones.
JAGGED_CONFIG = helion.Config(block_sizes=[64, 16], num_warps=4)


@helion.kernel(config=JAGGED_CONFIG)
def jagged_sum(values: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    """``out[b] = values[offsets[b]:offsets[b + 1]].sum(0)`` for every sequence ``b``."""
    num_seqs = offsets.size(0) - 1
    features = values.size(1)
    out = torch.empty([num_seqs, features], dtype=values.dtype, device=values.device)
    for seq in hl.grid(num_seqs):
        start = offsets[seq]
        end = offsets[seq + 1]
        for tile_d in hl.tile(features):
            acc = hl.zeros([tile_d], dtype=torch.float32)
            for tile_r in hl.tile(start, end):
                acc = acc + values[tile_r, tile_d].to(torch.float32).sum(0)
            out[seq, tile_d] = acc.to(out.dtype)
    return out


@helion.kernel(config=JAGGED_CONFIG)
def jagged_mean(values: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    """The mean of each sequence's rows; zero for an empty sequence."""
    num_seqs = offsets.size(0) - 1
    features = values.size(1)
    out = torch.empty([num_seqs, features], dtype=values.dtype, device=values.device)
    for seq in hl.grid(num_seqs):
        start = offsets[seq]
        end = offsets[seq + 1]
        # An empty sequence divides its zero sum by 1.
        length = torch.clamp(end - start, min=1).to(torch.float32)
        for tile_d in hl.tile(features):
            acc = hl.zeros([tile_d], dtype=torch.float32)
            for tile_r in hl.tile(start, end):
                acc = acc + values[tile_r, tile_d].to(torch.float32).sum(0)
            out[seq, tile_d] = (acc / length).to(out.dtype)
    return out
