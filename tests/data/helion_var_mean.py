"""``torch.var_mean`` and ``torch.var`` over a whole row (the opening of Helion's layer norm
example): biased and unbiased, with and without the kept dim."""

from __future__ import annotations

import helion
import helion.language as hl
import torch


@helion.kernel(config=helion.Config(block_sizes=[4]))
def normalize(x: torch.Tensor, eps: float) -> torch.Tensor:
    """``(x - mean) / sqrt(var + eps)`` per row, the biased variance."""
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m in hl.tile(m):
        row = x[tile_m, :].to(torch.float32)
        var, mean = torch.var_mean(row, dim=-1, keepdim=True, correction=0)
        out[tile_m, :] = ((row - mean) * torch.rsqrt(var + eps)).to(out.dtype)
    return out


@helion.kernel(config=helion.Config(block_sizes=[4]))
def row_stats(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Each row's unbiased variance and its mean (no kept dim)."""
    m, n = x.size()
    var_out = torch.empty([m], dtype=torch.float32, device=x.device)
    mean_out = torch.empty([m], dtype=torch.float32, device=x.device)
    for tile_m in hl.tile(m):
        row = x[tile_m, :].to(torch.float32)
        var, mean = torch.var_mean(row, dim=1)
        var_out[tile_m] = var
        mean_out[tile_m] = mean + 0.0 * torch.var(row, dim=-1, unbiased=False)
    return var_out, mean_out


@helion.kernel(config=helion.Config(block_sizes=[4]))
def rebound(x: torch.Tensor) -> torch.Tensor:
    """Results bound swapped, one over its own input: every value is computed before any is
    bound."""
    m, n = x.size()
    out = torch.empty([m, n], dtype=torch.float32, device=x.device)
    for tile_m in hl.tile(m):
        row = x[tile_m, :].to(torch.float32)
        mean, row = torch.var_mean(row, dim=-1, keepdim=True)
        out[tile_m, :] = mean * 2.0 + row
    return out
