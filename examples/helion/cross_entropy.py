"""Per-row cross entropy loss: ``loss[i] = logsumexp(logits[i, :]) - logits[i, labels[i]]``."""

from __future__ import annotations

import helion
import helion.language as hl
import torch


@helion.kernel(config=helion.Config(block_sizes=[4], num_warps=8))
def cross_entropy(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Compute the unreduced cross entropy loss of integer class labels.

    Args:
        logits: Unnormalized scores of shape [n, v].
        labels: Target class indices of shape [n] (int64), each in [0, v).

    Returns:
        A float32 tensor of shape [n] with one loss value per row
        (``reduction="none"``).
    """
    n, v = logits.shape
    assert labels.size(0) == n, "one label per row"
    losses = torch.empty([n], dtype=torch.float32, device=logits.device)
    # Flat view so the target logit can be gathered with a computed offset.
    logits_flat = logits.view(-1)
    for tile_n in hl.tile(n):
        labels_tile = labels[tile_n]
        # Gather logits[row, labels[row]] at flat offset row * v + label.
        flat_indices = tile_n.index * v + labels_tile
        logits_at_target = hl.load(logits_flat, [flat_indices]).to(torch.float32)
        # Numerically stable log-sum-exp over the full row, in fp32.
        rows = logits[tile_n, :].to(torch.float32)
        max_logits = torch.amax(rows, dim=-1)
        sum_exp = torch.sum(torch.exp(rows - max_logits[:, None]), dim=-1)
        log_sum_exp = max_logits + torch.log(sum_exp)
        losses[tile_n] = log_sum_exp - logits_at_target
    return losses
