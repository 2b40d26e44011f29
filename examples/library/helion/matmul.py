"""Matmul and ``linear`` layers with fixed, module-level Helion configs.

``matmul`` and ``matmul_bias`` share one config object; ``linear`` flattens its
input, picks the kernel by whether a bias is given and restores the leading
dimensions of the input.
"""

from __future__ import annotations

import helion
import helion.language as hl
import torch

# Tuned once, shipped as a constant: small tiles, so the ragged edges are exercised on CPU too.
CONFIG = helion.Config(block_sizes=[16, 16, 16], num_warps=4)


@helion.kernel(config=CONFIG, static_shapes=True)
def matmul(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """``x @ w`` for ``x`` [m, k] and ``w`` [k, n], accumulated in fp32."""
    m, k = x.size()
    k2, n = w.size()
    assert k == k2, f"size mismatch {k} != {k2}"
    out_dtype = torch.promote_types(x.dtype, w.dtype)
    out = torch.empty([m, n], dtype=out_dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = torch.addmm(acc, x[tile_m, tile_k], w[tile_k, tile_n])
        out[tile_m, tile_n] = acc.to(out_dtype)
    return out


@helion.kernel(config=CONFIG, static_shapes=True)
def matmul_bias(x: torch.Tensor, w: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """``x @ w + bias`` with the bias added to the fp32 accumulator."""
    m, k = x.size()
    k2, n = w.size()
    assert k == k2, f"size mismatch {k} != {k2}"
    out_dtype = torch.promote_types(x.dtype, w.dtype)
    out = torch.empty([m, n], dtype=out_dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = torch.addmm(acc, x[tile_m, tile_k], w[tile_k, tile_n])
        acc = acc + bias[tile_n].to(torch.float32)
        out[tile_m, tile_n] = acc.to(out_dtype)
    return out


def linear(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None) -> torch.Tensor:
    """``torch.nn.functional.linear``: ``x @ weight.T (+ bias)`` for ``x`` of shape [..., k]."""
    leading = x.shape[:-1]
    x_2d = x.reshape(-1, x.shape[-1])
    w_t = weight.t()
    if bias is not None:
        if bias.shape != (weight.shape[0],):
            raise ValueError(f"bias must have shape ({weight.shape[0]},), got {tuple(bias.shape)}")
        out = matmul_bias(x_2d, w_t, bias)
        return out.reshape(*leading, weight.shape[0])
    out = matmul(x_2d, w_t)
    return out.reshape(*leading, weight.shape[0])
