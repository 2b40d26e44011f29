"""KL divergence whose loss buffer the host picks by the reduction mode.

``reduction == "none"`` keeps the elementwise loss; any other mode keeps one fp32
partial sum per row (a ``[bt, 1]`` column, so the buffer has one rank in every
mode) that the host reduces after the launch. The backward kernel reads the
upstream gradient elementwise, expanded on the host where it is a scalar.
"""

from __future__ import annotations

import helion
import helion.language as hl
import torch


@helion.kernel()
def kl_div_rows_fwd(
    y_pred: torch.Tensor, y_true: torch.Tensor, reduction: str = "batchmean", eps: float = 1e-10
) -> torch.Tensor:
    """KL(y_true || exp(y_pred)) of log-probabilities ``y_pred`` and probabilities ``y_true``."""
    bt, v = y_pred.shape
    assert y_true.shape == y_pred.shape, "y_true and y_pred must have one shape"
    if reduction == "none":
        loss = torch.zeros_like(y_pred, dtype=torch.float32)
    else:
        loss = torch.zeros((bt, 1), dtype=torch.float32, device=y_pred.device)
    for tile_bt in hl.tile(bt):
        row = hl.zeros([tile_bt], dtype=torch.float32)
        for tile_v in hl.tile(v):
            target = y_true[tile_bt, tile_v].to(torch.float32)
            log_target = torch.log(torch.clamp(target, min=eps))
            kl = target * (log_target - y_pred[tile_bt, tile_v].to(torch.float32))
            if reduction == "none":
                loss[tile_bt, tile_v] = kl
            else:
                row += kl.sum(-1)
        if reduction != "none":
            loss[tile_bt, 0] = row
    if reduction == "batchmean":
        return loss.sum() / bt
    if reduction == "sum":
        return loss.sum()
    return loss


@helion.kernel()
def kl_div_rows_bwd(
    grad_out: torch.Tensor, y_true: torch.Tensor, reduction: str = "batchmean"
) -> torch.Tensor:
    """The gradient of :func:`kl_div_rows_fwd` with respect to ``y_pred``."""
    bt, v = y_true.shape
    grad_pred = torch.empty_like(y_true)
    # A host branch per mode, as the upstream Helion example writes it.
    if reduction == "none":  # noqa: SIM108
        upstream = grad_out
    else:
        upstream = grad_out.expand(y_true.shape)
    for tile_bt, tile_v in hl.tile([bt, v]):
        g = upstream[tile_bt, tile_v].to(torch.float32)
        grad = -g * y_true[tile_bt, tile_v].to(torch.float32)
        if reduction == "batchmean":
            grad = grad / bt
        grad_pred[tile_bt, tile_v] = grad.to(grad_pred.dtype)
    return grad_pred


class KLDivRows(torch.autograd.Function):
    @staticmethod
    def forward(ctx, y_pred: torch.Tensor, y_true: torch.Tensor, reduction: str) -> torch.Tensor:
        ctx.save_for_backward(y_true)
        ctx.reduction = reduction
        return kl_div_rows_fwd(y_pred, y_true, reduction)

    @staticmethod
    def backward(ctx, grad_out: torch.Tensor):
        (y_true,) = ctx.saved_tensors
        return kl_div_rows_bwd(grad_out.contiguous(), y_true, ctx.reduction), None, None


def kl_div_elementwise(y_pred: torch.Tensor, y_true: torch.Tensor) -> torch.Tensor:
    """The elementwise KL divergence (``reduction="none"``)."""
    return KLDivRows.apply(y_pred, y_true, "none")


def kl_div_batchmean(y_pred: torch.Tensor, y_true: torch.Tensor) -> torch.Tensor:
    """The KL divergence summed and divided by the batch (``reduction="batchmean"``)."""
    return KLDivRows.apply(y_pred, y_true, "batchmean")
