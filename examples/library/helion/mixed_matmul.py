"""Mixed-dtype GEMM: int8 weights with per-channel scales times fp16 activations (W8A16,
Helion examples style).

``w8a16_matmul`` dequantizes each ``[tile_k, tile_n]`` tile of the int8 weight to the
activations' dtype before the dot (Triton's ``tl.dot`` takes two operands of one dtype) and
applies the per-output-channel scale to the fp32 accumulator.
"""

from __future__ import annotations

import helion
import helion.language as hl
import torch

# Tall-skinny decode shapes like small M tiles; prefill likes 64.
W8A16_CONFIG = helion.Config(block_sizes=[32, 64, 32], num_warps=4, num_stages=3)


@helion.kernel(static_shapes=True, config=W8A16_CONFIG)
def w8a16_matmul(x: torch.Tensor, w: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    """``(x @ w.to(x.dtype)) * scale`` for fp16/fp32 ``x`` [M, K], int8 ``w`` [K, N] and a
    per-column fp32 ``scale`` [N]."""
    m, k = x.size()
    k2, n = w.size()
    assert k == k2, f"size mismatch {k} != {k2}"
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            w_tile = w[tile_k, tile_n].to(x.dtype)
            acc = torch.addmm(acc, x[tile_m, tile_k], w_tile)
        out[tile_m, tile_n] = (acc * scale[tile_n][None, :]).to(out.dtype)
    return out


def quantize_weight(w: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Symmetric per-column int8 quantization of ``w`` [K, N]: ``(w_int8, scale)``."""
    scale = w.abs().amax(dim=0).float().clamp(min=1e-8) / 127.0
    w_int8 = torch.round(w.float() / scale).clamp(-127, 127).to(torch.int8)
    return w_int8, scale


def linear_w8a16(x: torch.Tensor, w_int8: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    """A quantized linear layer over the last dim of ``x`` (any leading dims)."""
    if w_int8.dtype != torch.int8:
        raise TypeError(f"expected int8 weights, got {w_int8.dtype}")
    shape = x.shape
    out = w8a16_matmul(x.reshape(-1, shape[-1]), w_int8, scale)
    return out.view(*shape[:-1], w_int8.size(1))
