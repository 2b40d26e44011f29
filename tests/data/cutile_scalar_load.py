"""A scale stored in a one-element tensor, read with `ct.load(alpha, 0, shape=())` (Liger's
cuTile DyT style), applied to a tiled row."""

import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def _scaled_tanh_kernel(x, alpha, y, TILE: ConstInt):
    pid = ct.bid(0)
    a = ct.astype(ct.load(alpha, 0, shape=()), ct.float32)
    t = ct.astype(
        ct.load(x, index=(pid,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO), ct.float32
    )
    ct.store(y, index=(pid,), tile=ct.astype(ct.tanh(a * t), y.dtype))


# More warps for long rows: a compiler hint, bound once at module level.
_scaled_tanh_wide = _scaled_tanh_kernel.replace_hints(num_worker_warps=8)


def scaled_tanh(x: torch.Tensor, alpha: torch.Tensor) -> torch.Tensor:
    """``tanh(alpha * x)`` for a 1-d ``x`` and a one-element ``alpha``."""
    y = torch.empty_like(x)
    TILE = 1024
    grid = (ct.cdiv(x.shape[0], TILE), 1, 1)
    ct.launch(torch.cuda.current_stream(), grid, _scaled_tanh_wide, (x, alpha, y, TILE))
    return y
