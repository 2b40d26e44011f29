"""Optional tensor parameters tested in Helion device code, as pytorch/helion's ``jsd`` tests
``shift_labels is not None`` in its loop: Helion specialises the kernel on whether each is
None, and so does the translation (a kernel per case, chosen by a function of the kernel's
name and signature).
"""

from __future__ import annotations

from typing import Optional

import helion
import helion.language as hl
import torch


@helion.kernel(config=helion.Config(block_sizes=[16], num_warps=4))
def residual_rms_norm(
    x: torch.Tensor,
    residual: torch.Tensor | None = None,
    row_scale: Optional[torch.Tensor] = None,  # noqa: UP045 (the typing spelling, read too)
    eps: float = 1e-6,
) -> torch.Tensor:
    """``rms_norm(x + residual) * row_scale[:, None]``, each part where it is passed."""
    m, n = x.size()
    if residual is not None:
        assert residual.size() == x.size(), "residual is shaped like x"
    out = torch.empty_like(x)
    for tile_m in hl.tile(m):
        row = x[tile_m, :].to(torch.float32)
        if residual is not None:
            row = row + residual[tile_m, :].to(torch.float32)
        mean_square = torch.sum(row * row, dim=-1, keepdim=True) / n
        row = row * torch.rsqrt(mean_square + eps)
        if row_scale is not None and eps > 0.0:
            row = row * row_scale[tile_m].to(torch.float32)[:, None]
        out[tile_m, :] = row.to(out.dtype)
    return out


@helion.kernel(config=helion.Config(block_sizes=[32], num_warps=4))
def masked_fill_rows(x: torch.Tensor, keep: torch.Tensor | None = None) -> torch.Tensor:
    """``x`` with the rows ``keep`` marks 0 zeroed; every row where ``keep`` is None."""
    (m,) = x.size()
    out = torch.empty_like(x)
    for tile in hl.tile(m):
        values = x[tile]
        if keep is None:
            out[tile] = values
        else:
            out[tile] = torch.where(keep[tile] != 0, values, 0.0)
    return out
