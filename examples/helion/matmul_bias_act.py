"""Fused linear layer: ``out = gelu(x @ w + bias)`` with an fp32 accumulator."""

from __future__ import annotations

import helion
import helion.language as hl
import torch


@helion.kernel(
    static_shapes=True,
    config=helion.Config(block_sizes=[128, 128, 64], num_warps=8, num_stages=3, l2_groupings=[8]),
)
def matmul_bias_act(x: torch.Tensor, w: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """Matrix multiply, add a bias vector, and apply exact GELU.

    Args:
        x: Input activations of shape [m, k].
        w: Weight matrix of shape [k, n], same dtype as ``x``.
        bias: Bias vector of shape [n].

    Returns:
        A tensor of shape [m, n] in the dtype of ``x``.
    """
    m, k = x.size()
    k2, n = w.size()
    assert k == k2, f"size mismatch {k} != {k2}"
    assert bias.size(0) == n, "bias must have one entry per output column"
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = torch.addmm(acc, x[tile_m, tile_k], w[tile_k, tile_n])
        # Epilogue in fp32: broadcast the bias over rows, then the activation.
        acc = acc + bias[tile_n].to(torch.float32)
        out[tile_m, tile_n] = torch.nn.functional.gelu(acc).to(out.dtype)
    return out
