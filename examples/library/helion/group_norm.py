"""GroupNorm forward for NCHW activations (Helion examples style).

The wrapper views ``x`` [N, C, *spatial] as [N, G, C // G, HW] and the per-channel affine
parameters as [G, C // G]; each program normalizes whole groups: the statistics reduce over a
group's channels and positions, the affine applies per channel. ``mean`` and ``rstd`` per
(sample, group) come back for a backward.
"""

from __future__ import annotations

import helion
import helion.language as hl
import torch


@helion.kernel(static_shapes=True)
def group_norm_fwd(
    x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float = 1e-5
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(out, mean, rstd)`` of a GroupNorm of ``x`` [N, G, CPG, HW] with ``weight``/``bias``
    [G, CPG]; ``mean``/``rstd`` are [N, G] fp32."""
    n, g, cpg, hw = x.size()
    out = torch.empty_like(x)
    mean = torch.empty([n, g], dtype=torch.float32, device=x.device)
    rstd = torch.empty([n, g], dtype=torch.float32, device=x.device)
    for tile_n, tile_g in hl.tile([n, g]):
        xg = x[tile_n, tile_g, :, :].to(torch.float32)
        mu = torch.sum(torch.sum(xg, dim=-1), dim=-1) / (cpg * hw)
        centered = xg - mu[:, :, None, None]
        var = torch.sum(torch.sum(centered * centered, dim=-1), dim=-1) / (cpg * hw)
        r = torch.rsqrt(var + eps)
        w = weight[tile_g, :].to(torch.float32)
        b = bias[tile_g, :].to(torch.float32)
        y = centered * r[:, :, None, None] * w[None, :, :, None] + b[None, :, :, None]
        out[tile_n, tile_g, :, :] = y.to(out.dtype)
        mean[tile_n, tile_g] = mu
        rstd[tile_n, tile_g] = r
    return out, mean, rstd


def group_norm(
    x: torch.Tensor,
    num_groups: int,
    weight: torch.Tensor,
    bias: torch.Tensor,
    eps: float = 1e-5,
) -> torch.Tensor:
    """``F.group_norm(x, num_groups, weight, bias, eps)`` for ``x`` [N, C, *spatial]."""
    n, c = x.shape[0], x.shape[1]
    if c % num_groups != 0:
        raise ValueError(f"{c} channels do not split into {num_groups} groups")
    cpg = c // num_groups
    x4 = x.reshape(n, num_groups, cpg, -1)
    out, _, _ = group_norm_fwd(x4, weight.view(num_groups, cpg), bias.view(num_groups, cpg), eps)
    return out.view(x.shape)
