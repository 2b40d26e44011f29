"""Rotary position embedding in cuTile (rotate-half form, as production ports write it).

The host views each row of ``x`` as its two halves, ``(tokens, 2, d / 2)``, so that a block loads
each half as a tile of its own: ``out = (x1 cos - x2 sin, x2 cos + x1 sin)``.
"""

from __future__ import annotations

import cuda.tile as ct
import torch


@ct.kernel
def rope_kernel(x, cos, sin, out, TILE_T: ct.Constant[int], TILE_H: ct.Constant[int]):
    bid = ct.bid(0)
    # Each half is a (TILE_T, 1, TILE_H) tile of the (tokens, 2, d / 2) view, reshaped to 2-D.
    a = ct.reshape(
        ct.load(x, index=(bid, 0, 0), shape=(TILE_T, 1, TILE_H), padding_mode=ct.PaddingMode.ZERO),
        (TILE_T, TILE_H),
    )
    b = ct.reshape(
        ct.load(x, index=(bid, 1, 0), shape=(TILE_T, 1, TILE_H), padding_mode=ct.PaddingMode.ZERO),
        (TILE_T, TILE_H),
    )
    c = ct.load(cos, index=(bid, 0), shape=(TILE_T, TILE_H), padding_mode=ct.PaddingMode.ZERO)
    s = ct.load(sin, index=(bid, 0), shape=(TILE_T, TILE_H), padding_mode=ct.PaddingMode.ZERO)
    a = ct.astype(a, ct.float32)
    b = ct.astype(b, ct.float32)
    c = ct.astype(c, ct.float32)
    s = ct.astype(s, ct.float32)
    ct.store(
        out,
        index=(bid, 0, 0),
        tile=ct.reshape(ct.astype(a * c - b * s, out.dtype), (TILE_T, 1, TILE_H)),
    )
    ct.store(
        out,
        index=(bid, 1, 0),
        tile=ct.reshape(ct.astype(b * c + a * s, out.dtype), (TILE_T, 1, TILE_H)),
    )


def rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotate each row of ``x`` (``tokens x d``) by the angles whose ``cos``/``sin`` are given
    per token and frequency (``tokens x d / 2``)."""
    t, d = x.shape
    half = d // 2
    assert cos.shape == (t, half) and sin.shape == (t, half)
    out = torch.empty_like(x)
    tile_h = 1 << (half - 1).bit_length()
    grid = (ct.cdiv(t, 16), 1, 1)
    ct.launch(
        torch.cuda.current_stream(),
        grid,
        rope_kernel,
        (x.view(t, 2, half), cos, sin, out.view(t, 2, half), 16, tile_h),
    )
    return out
