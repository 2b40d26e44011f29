"""Host idioms of Helion kernels: sizes bound in one tuple assignment, an output whose dtype
``torch.promote_types`` computes (Helion's own matmul example), and a batched dot over views
of the inputs (the kernel reads the base tensor only for the dot's dtype)."""

from __future__ import annotations

import helion
import helion.language as hl
import torch


@helion.kernel(config=helion.Config(block_sizes=[16, 16, 16]))
def matmul_promoted(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    m, k = x.size(0), x.size(1)
    n = y.size(1)
    out = torch.empty([m, n], dtype=torch.promote_types(x.dtype, y.dtype), device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = torch.addmm(acc, x[tile_m, tile_k], y[tile_k, tile_n])
        out[tile_m, tile_n] = acc.to(out.dtype)
    return out


@helion.kernel(config=helion.Config(block_sizes=[1, 16, 16]))
def batched_scores(q_in: torch.Tensor, k_in: torch.Tensor) -> torch.Tensor:
    m, d = q_in.size(-2), q_in.size(-1)
    n = k_in.size(-2)
    q_view = q_in.reshape([-1, m, d])
    k_view = k_in.reshape([-1, n, d])
    out = torch.empty([q_view.size(0), m, n], dtype=torch.float32, device=q_in.device)
    for tile_b, tile_m, tile_n in hl.tile([q_view.size(0), m, n]):
        s = torch.bmm(q_view[tile_b, tile_m, :], k_view[tile_b, tile_n, :].transpose(1, 2))
        out[tile_b, tile_m, tile_n] = s.to(torch.float32)
    return out


@helion.kernel(config=helion.Config(block_sizes=[1, 16, 16]))
def batched_scores_transposed(q_in: torch.Tensor, k_in: torch.Tensor) -> torch.Tensor:
    """The same scores with the keys transposed on the host, as Helion's attention example
    reads them (``k_in.reshape(...).transpose(1, 2)``)."""
    m, d = q_in.size(-2), q_in.size(-1)
    n = k_in.size(-2)
    q_view = q_in.reshape([-1, m, d])
    k_view = k_in.reshape([-1, n, d]).transpose(1, 2)
    out = torch.empty([q_view.size(0), m, n], dtype=torch.float32, device=q_in.device)
    for tile_b, tile_m, tile_n in hl.tile([q_view.size(0), m, n]):
        s = torch.bmm(q_view[tile_b, tile_m, :], k_view[tile_b, :, tile_n])
        out[tile_b, tile_m, tile_n] = s.to(torch.float32)
    return out


@helion.kernel(config=helion.Config(block_sizes=[64]))
def double_flat(x: torch.Tensor) -> torch.Tensor:
    """``2 * x`` over flat views, tiled by ``x.numel()``."""
    out = torch.empty_like(x)
    x_flat = x.view(-1)
    out_flat = out.view(-1)
    for tile in hl.tile(x.numel()):
        out_flat[tile] = x_flat[tile] * 2
    return out
