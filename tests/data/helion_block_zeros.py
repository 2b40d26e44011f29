"""A tile-shaped accumulator spelt with the tiles' registered block sizes (Helion's kl_div
example): ``hl.zeros([block_size_m, block_size_n])`` inside ``for tile_bt in hl.tile(bt,
block_size=block_size_m)`` and ``for tile_v in hl.tile(v, block_size=block_size_n)`` has the
tiles' shape, while ``hl.zeros([tile_bt, block_size_n])`` before the inner loop sums lanes."""

from __future__ import annotations

import helion
import helion.language as hl
import torch


@helion.kernel(config=helion.Config(block_sizes=[32, 4]))
def kl_rows(y_pred: torch.Tensor, y_true: torch.Tensor, eps: float) -> torch.Tensor:
    """Per-row ``sum(y_true * (log(y_true) - y_pred))``."""
    bt, v = y_pred.shape
    loss = torch.zeros((bt,), dtype=torch.float32, device=y_pred.device)
    block_size_n = hl.register_block_size(v)
    block_size_m = hl.register_block_size(bt)
    for tile_bt in hl.tile(bt, block_size=block_size_m):
        loss_sum = hl.zeros([tile_bt, block_size_n], dtype=torch.float32)
        for tile_v in hl.tile(v, block_size=block_size_n):
            kl_loss = hl.zeros([block_size_m, block_size_n], dtype=torch.float32)
            y_pred_val = y_pred[tile_bt, tile_v]
            y_true_val = y_true[tile_bt, tile_v]
            log_true = torch.log(torch.clamp(y_true_val, min=eps))
            kl_loss += y_true_val * (log_true - y_pred_val)
            loss_sum += kl_loss
        loss[tile_bt] = loss_sum.sum(dim=-1)
    return loss
