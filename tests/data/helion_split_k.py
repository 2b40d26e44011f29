"""Split-K matrix multiplication, the two ways production Helion kernels write it.

Both split the reduction dim into ``split_k`` contiguous chunks of ``block_k`` columns, a
power of two the host computes from the tuned ``split_k``, and give each chunk its own
program: ``matmul_split_k_atomic`` adds the partial products into a zeroed output with
atomics; ``matmul_split_k_two_stage`` writes them to a buffer of partials and sums those in a
host-side sum, which is deterministic.
"""

from __future__ import annotations

import helion
import helion.language as hl
import torch
from helion.autotuner import PowerOfTwoFragment


@helion.kernel(static_shapes=True)
def matmul_split_k_atomic(x: torch.Tensor, y: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """``x @ y + bias`` in float32, K split over programs that add into the output
    atomically."""
    m, k = x.size()
    k2, n = y.size()
    assert k == k2, f"size mismatch {k} != {k2}"
    out = torch.zeros([m, n], dtype=torch.float32, device=x.device)
    split_k = hl.register_tunable("split_k", PowerOfTwoFragment(1, 64, 4))
    block_k = helion.next_power_of_2(helion.cdiv(k, split_k))
    for tile_m, tile_n, outer_k in hl.tile([m, n, k], block_size=[None, None, block_k]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for inner_k in hl.tile(outer_k.begin, outer_k.end):
            acc = torch.addmm(acc, x[tile_m, inner_k], y[inner_k, tile_n])
        # The bias goes in once: with the first chunk's partial product.
        if outer_k.begin == 0:
            acc = acc + bias[tile_n].to(torch.float32)[None, :]
        hl.atomic_add(out, [tile_m, tile_n], acc)
    return out


@helion.kernel(static_shapes=True)
def matmul_split_k_two_stage(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """``x @ y`` in float32, K split over programs whose partials the host sums."""
    m, k = x.size()
    _, n = y.size()
    split_k = hl.register_tunable("split_k", PowerOfTwoFragment(2, 16, 8))
    block_k = helion.next_power_of_2(helion.cdiv(k, split_k))
    # Zeroed: fewer than split_k chunks may cover k, and the sum reads every slot.
    partials = torch.zeros([m, n, split_k], dtype=torch.float32, device=x.device)
    for tile_m, tile_n, chunk in hl.tile([m, n, k], block_size=[None, None, block_k]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(chunk.begin, chunk.end):
            acc = torch.addmm(acc, x[tile_m, tile_k], y[tile_k, tile_n])
        partials[tile_m, tile_n, chunk.id] = acc
    return partials.sum(-1)
