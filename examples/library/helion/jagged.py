"""Jagged (offsets-based) sums and means in Helion, as recommender models reduce their
variable-length feature sequences (torchrec's ``KeyedJaggedTensor``, ``torch.nested`` jagged
layout).

``values`` packs ``B`` sequences of ``D`` features row after row; ``offsets`` holds ``B + 1``
row numbers, sequence ``b`` being rows ``offsets[b]:offsets[b + 1]``. One program reduces one
sequence (``jagged_sum``: it loads its two offsets and walks its rows a tile at a time, the last
tile masked at the sequence's end), or a tile of sequences (``jagged_mean``: rows up to the
longest, each sequence's masked past its own length), loops bounded by values the kernel loads.
An empty sequence sums to zero and its mean is zero, not NaN.
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


@helion.kernel(config=helion.Config(block_sizes=[4, 32, 16], num_warps=4))
def jagged_mean(values: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    """The mean of each sequence's rows; zero for an empty sequence.

    A program takes a tile of sequences and walks rows up to the longest of them, masking each
    sequence's rows past its own length (the gather reads ``values`` as one flat row).
    """
    num_seqs = offsets.size(0) - 1
    features = values.size(1)
    out = torch.empty([num_seqs, features], dtype=values.dtype, device=values.device)
    flat = values.view(-1)
    for tile_b in hl.tile(num_seqs):
        starts = offsets[tile_b]
        ends = offsets[tile_b.index + 1]
        # Lengths in 32 bits: the row loop's bound and counter stay int32.
        lengths = (ends - starts).to(torch.int32)
        longest = lengths.amax()
        for tile_d in hl.tile(features):
            acc = hl.zeros([tile_b, tile_d], dtype=torch.float32)
            for tile_r in hl.tile(0, longest):
                rows = starts[:, None] + tile_r.index[None, :]
                flat_index = rows[:, :, None] * features + tile_d.index[None, None, :]
                in_sequence = (tile_r.index[None, :] < lengths[:, None])[:, :, None]
                x = hl.load(flat, [flat_index], extra_mask=in_sequence)
                acc = acc + x.to(torch.float32).sum(dim=1)
            # An empty sequence divides its zero sum by 1.
            count = torch.clamp(lengths, min=1).to(torch.float32)
            out[tile_b, tile_d] = (acc / count[:, None]).to(out.dtype)
    return out
