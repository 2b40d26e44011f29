"""A Helion kernel with no config by default and one config where an environment variable asks
for it (pytorch/helion's fp8 GEMM example binds its config so: Helion's default config breaks
its dot there, so CI runs that set the variable pin this one instead)."""

from __future__ import annotations

import os

import helion
import helion.language as hl
import torch

# Runs that skip autotuning (HELION_USE_DEFAULT_CONFIG=1) take this config.
config = None
if os.environ.get("HELION_USE_DEFAULT_CONFIG") == "1":
    config = helion.Config(block_sizes=[32, 32])


@helion.kernel(config=config)
def scale_add(x: torch.Tensor, y: torch.Tensor, alpha: float) -> torch.Tensor:
    """``x + alpha * y`` elementwise."""
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m, tile_n in hl.tile([m, n]):
        out[tile_m, tile_n] = x[tile_m, tile_n] + alpha * y[tile_m, tile_n]
    return out
