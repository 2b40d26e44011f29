"""Cross-entropy loss with the gradient computed in the forward pass (Liger-Kernel style).

Each program handles one row of logits: it computes ``lse - x[y]`` and, in the
same pass, writes ``(softmax(x) - one_hot(y)) / n_non_ignore`` into the gradient
buffer, so the backward only has to scale that buffer by the upstream gradient.
Rows whose target is ``ignore_index`` contribute zero loss and zero gradient.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

MAX_FUSED_SIZE = 65536 // 2
_REDUCTIONS = ("mean", "sum", "none")


@triton.jit
def liger_cross_entropy_kernel(
    X_ptr,
    X_stride,
    dX_ptr,
    dX_stride,
    Y_ptr,
    loss_ptr,
    n_cols,
    n_non_ignore,
    ignore_index,
    BLOCK_SIZE: tl.constexpr,
):
    program_id = tl.program_id(0).to(tl.int64)
    y = tl.load(Y_ptr + program_id)

    X_offsets = tl.arange(0, BLOCK_SIZE)
    mask = X_offsets < n_cols
    # Ignored rows add nothing to the loss and get a zero gradient.
    if y == ignore_index:
        tl.store(loss_ptr + program_id, 0.0)
        tl.store(dX_ptr + program_id * dX_stride + X_offsets, 0.0, mask=mask)
        return

    X_row = tl.load(X_ptr + program_id * X_stride + X_offsets, mask=mask, other=float("-inf"))
    X_row = X_row.to(tl.float32)

    m = tl.max(X_row, axis=0)
    e = tl.exp(X_row - m)
    d = tl.sum(e, axis=0)
    lse = m + tl.log(d)

    X_y = tl.load(X_ptr + program_id * X_stride + y).to(tl.float32)
    tl.store(loss_ptr + program_id, lse - X_y)

    grad = (e / d - tl.where(X_offsets == y, 1.0, 0.0)) / n_non_ignore
    tl.store(
        dX_ptr + program_id * dX_stride + X_offsets, grad.to(dX_ptr.dtype.element_ty), mask=mask
    )


@triton.jit
def element_mul_kernel(X_ptr, X_stride, grad_output_ptr, n_cols, BLOCK_SIZE: tl.constexpr):
    """Scale a row of ``X`` in place by the scalar upstream gradient."""
    program_id = tl.program_id(0).to(tl.int64)
    grad_output = tl.load(grad_output_ptr)
    for i in range(0, tl.cdiv(n_cols, BLOCK_SIZE)):
        X_offsets = i * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        X_block = tl.load(X_ptr + program_id * X_stride + X_offsets, mask=X_offsets < n_cols)
        tl.store(
            X_ptr + program_id * X_stride + X_offsets,
            X_block * grad_output,
            mask=X_offsets < n_cols,
        )


@triton.jit
def row_mul_kernel(X_ptr, X_stride, grad_output_ptr, n_cols, BLOCK_SIZE: tl.constexpr):
    """Scale each row of ``X`` in place by its own upstream gradient (``reduction='none'``)."""
    program_id = tl.program_id(0).to(tl.int64)
    grad_output = tl.load(grad_output_ptr + program_id)
    for i in range(0, tl.cdiv(n_cols, BLOCK_SIZE)):
        X_offsets = i * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        X_block = tl.load(X_ptr + program_id * X_stride + X_offsets, mask=X_offsets < n_cols)
        tl.store(
            X_ptr + program_id * X_stride + X_offsets,
            X_block * grad_output,
            mask=X_offsets < n_cols,
        )


def cross_entropy_forward(_input, target, ignore_index, reduction):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"reduction must be one of {_REDUCTIONS}, got {reduction!r}")
    BT, V = _input.shape
    BLOCK_SIZE = triton.next_power_of_2(V)
    if BLOCK_SIZE > MAX_FUSED_SIZE:
        raise ValueError(f"vocabulary of {V} does not fit in one block of {MAX_FUSED_SIZE}")

    if _input.stride(-1) != 1:
        _input = _input.contiguous()
    if target.stride(-1) != 1:
        target = target.contiguous()

    loss_1d = torch.zeros(BT, dtype=torch.float32, device=_input.device)
    grad_input = torch.empty_like(_input)

    n_non_ignore = (target != ignore_index).sum().item()
    # The mean reduction folds 1 / n_non_ignore into the gradient written by the kernel.
    grad_scale = max(n_non_ignore, 1) if reduction == "mean" else 1

    liger_cross_entropy_kernel[(BT,)](
        X_ptr=_input,
        X_stride=_input.stride(-2),
        dX_ptr=grad_input,
        dX_stride=grad_input.stride(-2),
        Y_ptr=target,
        loss_ptr=loss_1d,
        n_cols=V,
        n_non_ignore=grad_scale,
        ignore_index=ignore_index,
        BLOCK_SIZE=BLOCK_SIZE,
        num_warps=32 if BLOCK_SIZE >= 8192 else 8,
    )

    if reduction == "none":
        loss = loss_1d
    elif reduction == "sum":
        loss = torch.sum(loss_1d)
    else:
        loss = torch.sum(loss_1d) / grad_scale
    return loss, grad_input


def cross_entropy_backward(grad_input, grad_output):
    BT, V = grad_input.shape
    BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(V))
    if grad_output.dim() == 0:
        # If cross entropy is the last layer, grad_output is 1.0. Skip the mul to save time.
        if torch.equal(grad_output, torch.tensor(1.0, device=grad_output.device)):
            return grad_input
        element_mul_kernel[(BT,)](
            grad_input,
            grad_input.stride(-2),
            grad_output,
            V,
            BLOCK_SIZE=BLOCK_SIZE,
            num_warps=32 if BLOCK_SIZE >= 8192 else 8,
        )
    else:
        grad_output = grad_output.contiguous()
        row_mul_kernel[(BT,)](
            grad_input,
            grad_input.stride(-2),
            grad_output,
            V,
            BLOCK_SIZE=BLOCK_SIZE,
            num_warps=32 if BLOCK_SIZE >= 8192 else 8,
        )
    return grad_input


class LigerCrossEntropyFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, _input, target, ignore_index=-100, reduction="mean"):
        loss, grad_input = cross_entropy_forward(_input, target, ignore_index, reduction)
        ctx.save_for_backward(grad_input.detach())
        ctx.reduction = reduction
        return loss

    @staticmethod
    def backward(ctx, grad_output):
        # Like Liger, the cached gradient is scaled in place: the graph is backpropagated once.
        (grad_input,) = ctx.saved_tensors
        grad_input = cross_entropy_backward(grad_input, grad_output)
        return grad_input, None, None, None


def cross_entropy(
    logits: torch.Tensor,
    target: torch.Tensor,
    ignore_index: int = -100,
    reduction: str = "mean",
) -> torch.Tensor:
    """``F.cross_entropy(logits, target, ignore_index=..., reduction=...)`` for 2-D logits."""
    assert logits.dim() == 2 and target.dim() == 1, "expected logits [BT, V] and target [BT]"
    return LigerCrossEntropyFunction.apply(logits, target, ignore_index, reduction)
