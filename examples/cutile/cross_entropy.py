"""Cross-entropy loss per row in cuTile: ``logsumexp(x) - x[target]``, one block per row."""

from __future__ import annotations

import cuda.tile as ct
import torch


@ct.kernel
def cross_entropy_kernel(logits, target, loss, TILE_V: ct.Constant[int]):
    row = ct.bid(0)
    x = ct.load(logits, index=(row, 0), shape=(1, TILE_V), padding_mode=ct.PaddingMode.NEG_INF)
    x = ct.astype(x, ct.float32)
    m = ct.max(x, axis=1, keepdims=True)
    lse = m + ct.log(ct.sum(ct.exp(x - m), axis=1, keepdims=True))
    y = ct.reshape(ct.load(target, index=(row,), shape=(1,)), ())
    x_y = ct.astype(ct.reshape(ct.load(logits, index=(row, y), shape=(1, 1)), ()), ct.float32)
    ct.store(loss, index=(row,), tile=ct.reshape(lse, ()) - x_y)


def cross_entropy(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """``F.cross_entropy(logits, target, reduction='none')`` in fp32 for 2-D logits."""
    rows, vocab = logits.shape
    loss = torch.empty(rows, device=logits.device, dtype=torch.float32)
    tile_v = 1 << (vocab - 1).bit_length()
    ct.launch(
        torch.cuda.current_stream(),
        (rows, 1, 1),
        cross_entropy_kernel,
        (logits, target, loss, tile_v),
    )
    return loss
