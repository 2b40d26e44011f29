"""``beta * bias + alpha * (x @ w)`` as an autograd Function whose forward fuses the bias.

The forward defines its epilogue as a local function that closes over the
Function's scalars and a broadcast view of the bias it builds, and passes it to
the GEMM kernel (Helion examples' addmm style); the backward reuses the plain
GEMM.
"""

from __future__ import annotations

from collections.abc import Callable

import helion
import helion.language as hl
import torch


@helion.kernel(config=helion.Config(block_sizes=[16, 16, 16], num_warps=4))
def gemm(
    x: torch.Tensor,
    w: torch.Tensor,
    epilogue: Callable[[torch.Tensor, tuple[torch.Tensor, ...]], torch.Tensor] = lambda acc, tile: (
        acc
    ),
) -> torch.Tensor:
    """``epilogue(x @ w)`` for ``x`` [m, k] and ``w`` [k, n], tile by tile."""
    m, k = x.size()
    k2, n = w.size()
    assert k == k2, f"size mismatch {k} != {k2}"
    out = torch.empty([m, n], dtype=torch.promote_types(x.dtype, w.dtype), device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = torch.addmm(acc, x[tile_m, tile_k], w[tile_k, tile_n])
        out[tile_m, tile_n] = epilogue(acc, (tile_m, tile_n)).to(out.dtype)
    return out


class AddMM(torch.autograd.Function):
    @staticmethod
    def forward(
        ctx,
        bias: torch.Tensor,
        x: torch.Tensor,
        w: torch.Tensor,
        alpha: float,
        beta: float,
    ) -> torch.Tensor:
        m, n = x.size(0), w.size(1)
        bias_2d = torch.broadcast_to(bias, [m, n])

        def scale_and_add_bias(acc: torch.Tensor, tile: tuple[torch.Tensor, ...]) -> torch.Tensor:
            scaled = alpha * acc
            return scaled + beta * bias_2d[tile[0], tile[1]].to(torch.float32)

        out = gemm(x, w, scale_and_add_bias)
        ctx.save_for_backward(x, w)
        ctx.alpha, ctx.beta = alpha, beta
        return out

    @staticmethod
    def backward(ctx, grad_out: torch.Tensor):
        x, w = ctx.saved_tensors
        grad_x = ctx.alpha * gemm(grad_out, w.T.contiguous())
        grad_w = ctx.alpha * gemm(x.T.contiguous(), grad_out)
        grad_bias = ctx.beta * grad_out.sum(0)
        return grad_bias, grad_x, grad_w, None, None


def addmm(
    bias: torch.Tensor, x: torch.Tensor, w: torch.Tensor, alpha: float = 1.0, beta: float = 1.0
) -> torch.Tensor:
    """``beta * bias + alpha * (x @ w)`` with ``bias`` [n] broadcast over the rows."""
    return AddMM.apply(bias, x, w, alpha, beta)
