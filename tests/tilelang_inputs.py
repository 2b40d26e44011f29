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
        "gemm": lambda: (randn(130, 40), randn(40, 140)),
        "linear": lambda: (randn(70, 40), randn(90, 40)),
        "matvec": lambda: (randn(100, 200), randn(200)),
        "softmax": lambda: (randn(37, 100),),
        "rms_norm": lambda: (randn(45, 129), randn(129), 1e-6),
        "layer_norm": lambda: (randn(33, 130), randn(130), randn(130), 1e-5),
        "row_sum": lambda: (randn(70, 150),),
        "column_sum": lambda: (randn(150, 70),),
        "gelu": lambda: (randn(1000),),
        "scaled_add": lambda: (randn(40, 150), randn(40, 150), 0.75),
        "matmul_bias_relu": lambda: (randn(70, 40), randn(40, 90), randn(90)),
        "bmm": lambda: (randn(2, 40, 24), randn(2, 24, 50)),
        "matmul": lambda: (randn(70, 40), randn(40, 140)),
        "dequant_gemm": lambda: (
            randn(70, 40),
            torch.randint(-127, 128, (40, 90), dtype=torch.int8, device=device),
            randn(90) * 0.05,
        ),
        "cumsum": lambda: (randn(10, 90),),
        "bias_relu": lambda: (randn(45, 300), randn(300)),
        "gemm_splitk": lambda: (randn(70, 300), randn(300, 90)),
        "gemm_splitk_chunks": lambda: (randn(70, 300), randn(300, 90)),
        "gemm_persistent": lambda: (randn(130, 40), randn(40, 140)),
        "scale_columns": lambda: (randn(45, 300), randn(300)),
        "mha": lambda: (randn(1, 2, 70, 32), randn(1, 2, 70, 32), randn(1, 2, 70, 32)),
        "attention": lambda: (randn(1, 70, 2, 32), randn(1, 70, 2, 32), randn(1, 70, 2, 32)),
    }
    return table[entry]()
