"""Plain module functions called from Helion device code, as pytorch/helion's examples write
them (``segment_reduction``'s ``_segmented_scan_helion``): Helion traces such a call, so the
translation inlines it, arguments bound once and the helper's names kept apart from the
kernel's.
"""

from __future__ import annotations

import math
from typing import cast

import helion
import helion.language as hl
import torch

SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


def _tanh_gelu(x: torch.Tensor) -> torch.Tensor:
    """GELU, tanh approximation, of a float32 tile."""
    inner = SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)
    return 0.5 * x * (1.0 + torch.tanh(inner))


def _centered_rstd(
    row: torch.Tensor, n: int, eps: float = 1e-5
) -> tuple[torch.Tensor, torch.Tensor]:
    """A row block minus its mean, and the reciprocal of its standard deviation."""
    mean = torch.sum(row, dim=-1, keepdim=True) / n
    centered = row - mean
    var = torch.sum(centered * centered, dim=-1, keepdim=True) / n
    return centered, torch.rsqrt(var + eps)


def _rows_f32(x: torch.Tensor, tile_m: hl.Tile) -> torch.Tensor:
    return x[tile_m, :].to(torch.float32)


def _affine(x: torch.Tensor, scale: float, shift: float) -> torch.Tensor:
    # Another helper's call inside this one, and a local named like one of the kernel's.
    inner = x * scale
    return cast("torch.Tensor", inner + shift)


def _store_rows(out: torch.Tensor, tile_m: hl.Tile, value: torch.Tensor) -> None:
    out[tile_m, :] = value.to(out.dtype)


@helion.kernel(config=helion.Config(block_sizes=[16], num_warps=4))
def layer_norm_gelu(x: torch.Tensor, scale: float, shift: float, eps: float = 1e-5) -> torch.Tensor:
    """``gelu(layer_norm(x) * scale + shift)`` over the last dim of ``x`` [M, N]."""
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m in hl.tile(m):
        inner = _rows_f32(x, tile_m)
        centered, rstd = _centered_rstd(inner, n, eps=eps)
        y = _affine(centered * rstd, scale, shift)
        _store_rows(out, tile_m, _tanh_gelu(y))
    return out


@helion.kernel(config=helion.Config(block_sizes=[32, 16], num_warps=4))
def gelu_residual(x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
    """``gelu(x) + gelu(residual) * 0.5``: one helper inlined twice in one statement."""
    out = torch.empty_like(x)
    for tile_m, tile_n in hl.tile(x.size()):
        a = x[tile_m, tile_n].to(torch.float32)
        out[tile_m, tile_n] = (
            _tanh_gelu(a) + _tanh_gelu(residual[tile_m, tile_n].to(torch.float32)) * 0.5
        ).to(out.dtype)
    return out
