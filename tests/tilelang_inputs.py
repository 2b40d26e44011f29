"""Ragged inputs of the TileLang examples' public functions (sizes that are multiples of no block
size), shared by the TileLang source tests."""

from __future__ import annotations

import torch


def tilelang_inputs(entry: str, device: str, dtype: str) -> tuple:
    """The positional arguments of ``entry`` (an examples/tilelang public function)."""
    d = getattr(torch, dtype)

    def randn(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, dtype=d, device=device)

    table = {
        "add": lambda: (randn(45, 300), randn(45, 300)),
        "gemm": lambda: (randn(150, 72), randn(72, 130)),
    }
    return table[entry]()
