"""GEMM with a user epilogue (Helion examples style).

``matmul(x, w, epilogue)`` applies ``epilogue(acc, (tile_m, tile_n))`` to each fp32 accumulator
tile before the store, so a caller fuses its bias, activation or residual into the GEMM instead
of a second pass over the output. The callers below pass a lambda that closes over their own
tensors and scalars, or a module-level function.
"""

from __future__ import annotations

from collections.abc import Callable

import helion
import helion.language as hl
import torch

# Small tiles, so the ragged edges are exercised on the CPU too.
EPILOGUE_CONFIG = helion.Config(block_sizes=[16, 16, 16], num_warps=4)


@helion.kernel(config=EPILOGUE_CONFIG, static_shapes=True)
def matmul(
    x: torch.Tensor,
    w: torch.Tensor,
    epilogue: Callable[[torch.Tensor, tuple[torch.Tensor, ...]], torch.Tensor] = lambda acc, tile: (
        acc
    ),
) -> torch.Tensor:
    """``epilogue(x @ w)`` for ``x`` [m, k] and ``w`` [k, n]; the epilogue sees the fp32
    accumulator of a tile and the ``(tile_m, tile_n)`` it covers."""
    m, k = x.size()
    k2, n = w.size()
    assert k == k2, f"size mismatch {k} != {k2}"
    out_dtype = torch.promote_types(x.dtype, w.dtype)
    out = torch.empty([m, n], dtype=out_dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = torch.addmm(acc, x[tile_m, tile_k], w[tile_k, tile_n])
        out[tile_m, tile_n] = epilogue(acc, (tile_m, tile_n)).to(out_dtype)
    return out


def gelu_tanh(acc: torch.Tensor, tile: tuple[torch.Tensor, ...]) -> torch.Tensor:
    """GELU's tanh approximation as an epilogue (it ignores where the tile is)."""
    inner = 0.7978845608028654 * (acc + 0.044715 * acc * acc * acc)
    return 0.5 * acc * (1.0 + torch.tanh(inner))


def matmul_bias_relu(x: torch.Tensor, w: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """``relu(x @ w + bias)`` with the bias [n] read per output column."""
    return matmul(x, w, lambda acc, tile: torch.relu(acc + bias[tile[1]].to(torch.float32)))


def matmul_gelu(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """``gelu(x @ w)`` (tanh approximation)."""
    return matmul(x, w, gelu_tanh)


def matmul_residual(
    x: torch.Tensor, w: torch.Tensor, residual: torch.Tensor, alpha: float
) -> torch.Tensor:
    """``alpha * (x @ w) + residual`` for a residual [m, n]: a scaled skip connection."""
    return matmul(
        x,
        w,
        epilogue=lambda acc, tile: acc * alpha + residual[tile[0], tile[1]].to(torch.float32),
    )
