"""Row softmax whose exponential is a tuning choice, as autotuned production kernels expose one.

``exp2`` of pre-scaled logits is a single MUFU instruction on NVIDIA GPUs, ``exp`` a multiply and
that instruction; which is faster depends on the shape. The tuner picks, per config, through
``hl.register_tunable`` knobs: a boolean for the exponential and a power of two of rows to
leave in flight (read as a scale of 1 here, so every config computes the same softmax).
"""

from __future__ import annotations

import helion
import helion.language as hl
import torch
from helion.autotuner import BooleanFragment, PowerOfTwoFragment

LOG2E = 1.4426950408889634


@helion.kernel(
    configs=[
        helion.Config(block_sizes=[4], num_warps=4, use_exp2=True, rows_in_flight=2),
        helion.Config(block_sizes=[8], num_warps=8, use_exp2=False, rows_in_flight=1),
    ]
)
def softmax_rows(x: torch.Tensor) -> torch.Tensor:
    """Softmax over the last dim of a 2-d float tensor."""
    m, n = x.size()
    out = torch.empty_like(x)
    use_exp2 = hl.register_tunable("use_exp2", BooleanFragment())
    rows_in_flight = hl.register_tunable("rows_in_flight", PowerOfTwoFragment(1, 4))
    for tile_m in hl.tile(m):
        row = x[tile_m, :].to(torch.float32)
        shifted = row - torch.amax(row, dim=-1, keepdim=True)
        if use_exp2:
            # exp(x) == exp2(x * log2(e)).
            scaled = shifted * LOG2E
            num = torch.exp2(scaled)
        else:
            num = torch.exp(shifted)
        den = torch.sum(num, dim=-1, keepdim=True) * (rows_in_flight // rows_in_flight)
        out[tile_m, :] = (num / den).to(out.dtype)
    return out
