"""LayerNorm over the last dimension with an optional bias (Helion).

The kernel always takes a bias tensor; ``layer_norm`` substitutes zeros when
the caller passes ``bias=None``, the way many libraries keep a single kernel
for both module configurations. Statistics are computed in fp32 and returned
alongside the output (useful for a backward pass).
"""

from __future__ import annotations

import helion
import helion.language as hl
import torch


@helion.kernel(static_shapes=True)
def layer_norm_fwd(
    x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float = 1e-5
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """LayerNorm of each row of ``x`` (any leading shape); returns ``(out, mean, rstd)``."""
    shape = x.shape
    x = x.reshape(-1, x.size(-1))
    m, n = x.size()
    assert weight.size(0) == n, f"weight size mismatch {weight.size(0)} != {n}"
    assert bias.size(0) == n, f"bias size mismatch {bias.size(0)} != {n}"
    acc_dtype = torch.float32
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    mean = torch.empty([m], dtype=acc_dtype, device=x.device)
    rstd = torch.empty([m], dtype=acc_dtype, device=x.device)
    for tile_m in hl.tile(m):
        x_tile = x[tile_m, :].to(acc_dtype)
        mean_tile = torch.mean(x_tile, dim=-1)
        centered = x_tile - mean_tile[:, None]
        var_tile = torch.mean(centered * centered, dim=-1)
        rstd_tile = torch.rsqrt(var_tile + eps)
        normalized = centered * rstd_tile[:, None]
        y = normalized * weight[:].to(acc_dtype) + bias[:].to(acc_dtype)
        out[tile_m, :] = y.to(out.dtype)
        mean[tile_m] = mean_tile
        rstd[tile_m] = rstd_tile
    return out.reshape(shape), mean, rstd


def layer_norm(
    x: torch.Tensor,
    normalized_shape: list[int] | tuple[int, ...],
    weight: torch.Tensor,
    bias: torch.Tensor | None = None,
    eps: float = 1e-5,
) -> torch.Tensor:
    """``torch.nn.functional.layer_norm`` over the last dimension."""
    if len(normalized_shape) != 1 or normalized_shape[0] != x.shape[-1]:
        raise ValueError("only normalization over the last dimension is supported")
    bias = torch.zeros_like(weight) if bias is None else bias
    out, _, _ = layer_norm_fwd(x, weight, bias, float(eps))
    return out
