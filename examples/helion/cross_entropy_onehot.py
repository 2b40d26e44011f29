"""Per-row cross entropy loss with a streamed vocabulary and a one-hot target pick.

Same result as ``cross_entropy.py`` but without a flattened view: the
vocabulary dimension is walked in blocks, keeping an online log-sum-exp
(running max ``m_i`` and sum ``l_i``), and the target logit is selected by
comparing ``tile_v.index`` against the labels with ``torch.where``.
"""

from __future__ import annotations

import helion
import helion.language as hl
import torch


@helion.kernel(config=helion.Config(block_sizes=[4, 512], num_warps=8))
def cross_entropy_onehot(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Compute the unreduced cross entropy loss of integer class labels.

    Args:
        logits: Unnormalized scores of shape [n, v].
        labels: Target class indices of shape [n] (int64), each in [0, v).

    Returns:
        A float32 tensor of shape [n] with one loss value per row
        (``reduction="none"``).
    """
    n, v = logits.size()
    assert labels.size(0) == n, "one label per row"
    losses = torch.empty([n], dtype=torch.float32, device=logits.device)
    for tile_n in hl.tile(n):
        labels_tile = labels[tile_n]
        # Online log-sum-exp state plus the gathered target logit, per row.
        m_i = hl.full([tile_n], float("-inf"), dtype=torch.float32)
        l_i = hl.zeros([tile_n], dtype=torch.float32)
        target = hl.zeros([tile_n], dtype=torch.float32)
        for tile_v in hl.tile(v):
            vals = logits[tile_n, tile_v].to(torch.float32)
            m_new = torch.maximum(m_i, torch.amax(vals, dim=1))
            # Rescale the running sum to the new max before adding this block.
            l_i = l_i * torch.exp(m_i - m_new) + torch.sum(torch.exp(vals - m_new[:, None]), dim=1)
            m_i = m_new
            # One-hot select: exactly one column over all blocks matches the label.
            hit = tile_v.index[None, :] == labels_tile[:, None]
            target = target + torch.sum(torch.where(hit, vals, 0.0), dim=1)
        losses[tile_n] = m_i + torch.log(l_i) - target
    return losses
