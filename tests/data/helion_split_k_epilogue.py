"""Matmuls that take their epilogue as a callable, the way Helion's template examples do.

The callable receives the float32 accumulator and the output tiles (``[tile_m, tile_n]``) and
returns the tile to write; callers pass lambdas or local functions that read their own tensors
(a bias), which Helion lifts into kernel arguments.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import helion
import helion.language as hl
import torch
from helion.autotuner import PowerOfTwoFragment

if TYPE_CHECKING:
    from collections.abc import Callable


@helion.kernel(static_shapes=True)
def matmul_split_k(
    x: torch.Tensor,
    y: torch.Tensor,
    epilogue: Callable[[torch.Tensor, list[torch.Tensor]], torch.Tensor] = lambda acc, tile: acc,
) -> torch.Tensor:
    """``epilogue(x @ y)`` in float32; K is split over programs that add into the output, and
    only the first chunk of each output tile runs the epilogue (it must be additive)."""
    m, k = x.size()
    _, n = y.size()
    out = torch.zeros([m, n], dtype=torch.float32, device=x.device)
    split_k = hl.register_tunable("split_k", PowerOfTwoFragment(1, 32, 4))
    k_block = helion.next_power_of_2(helion.cdiv(k, split_k))
    for tile_m, tile_n, outer_k in hl.tile([m, n, k], block_size=[None, None, k_block]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for inner_k in hl.tile(outer_k.begin, outer_k.end):
            acc = torch.addmm(acc, x[tile_m, inner_k], y[inner_k, tile_n])
        if outer_k.begin == 0:
            acc = epilogue(acc, [tile_m, tile_n])
        hl.atomic_add(out, [tile_m, tile_n], acc)
    return out


def linear_split_k(x: torch.Tensor, w: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """``x @ w + bias`` through the split-K kernel, the bias added by its epilogue."""
    return matmul_split_k(x, w, epilogue=lambda acc, tile: acc + bias[tile[1]])


@helion.kernel(config=helion.Config(block_sizes=[16, 16, 16], num_warps=4))
def _matmul_with_epilogue(
    x: torch.Tensor,
    y: torch.Tensor,
    epilogue: Callable[[torch.Tensor, list[torch.Tensor]], torch.Tensor],
) -> torch.Tensor:
    m, k = x.size()
    _, n = y.size()
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = torch.addmm(acc, x[tile_m, tile_k], y[tile_k, tile_n])
        out[tile_m, tile_n] = epilogue(acc, [tile_m, tile_n]).to(out.dtype)
    return out


def shifted_relu_matmul(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """``relu(x @ y - 0.25)`` through a local epilogue that reads the caller's shift."""
    shift: torch.Tensor = torch.full([y.size(1)], 0.25, dtype=torch.float32, device=x.device)

    def epilogue(acc: torch.Tensor, tile: list[torch.Tensor]) -> torch.Tensor:
        return torch.relu(acc - shift[tile[1]])

    return _matmul_with_epilogue(x, y, epilogue)


def _bias_epilogue(
    bias: torch.Tensor,
) -> Callable[[torch.Tensor, list[torch.Tensor]], torch.Tensor]:
    """The epilogue that adds ``bias`` to each output column (annotated with a name imported
    for type checking only)."""
    return lambda acc, tile: acc + bias[tile[1]]
