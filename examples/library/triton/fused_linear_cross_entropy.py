"""Fused linear cross entropy in chunks (Liger-Kernel style): the [BT, V] logits never exist whole.

The rows are processed ``chunk_size`` at a time: the host computes a chunk's logits with a
matmul, the kernel turns them *in place* into the gradient of the loss with respect to them
(online softmax over ``V`` in ``BLOCK_SIZE`` pieces, label smoothing, ignored rows) and writes
each row's loss, and the host folds that gradient into ``grad_input`` and ``grad_weight`` before
the next chunk overwrites the buffer. The backward only scales the saved gradients.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

# The largest block of the vocabulary one program holds at once.
MAX_FUSED_SIZE = 65536 // 2


@triton.jit
def liger_cross_entropy_kernel(
    X_ptr,
    X_stride,
    Y_ptr,
    Y_stride,
    loss_ptr,
    loss_stride,
    n_cols,
    n_non_ignore,
    ignore_index,
    label_smoothing: tl.constexpr,
    reduction: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
):
    # https://github.com/triton-lang/triton/issues/1058
    # If B*T*V is too large, program_id * stride will overflow out of int32, so we convert to int64
    program_id = tl.program_id(0).to(tl.int64)

    # 1. Load Y_ptr first because if the target is ignore_index, we can return right away
    Y_ptr += program_id * Y_stride
    y = tl.load(Y_ptr)

    # 2. locate the start index
    X_ptr += program_id * X_stride

    if y == ignore_index:
        # set all X_ptr as 0
        for i in range(0, n_cols, BLOCK_SIZE):
            X_offsets = i + tl.arange(0, BLOCK_SIZE)
            tl.store(X_ptr + X_offsets, 0.0, mask=X_offsets < n_cols)
        return

    loss_ptr += program_id * loss_stride

    # Online softmax: 3. [Online softmax] first pass: find max + sum
    m = float("-inf")  # m is the max value. use the notation from the paper
    d = 0.0  # d is the sum. use the notation from the paper
    ori_X_y = tl.load(X_ptr + y).to(
        tl.float32
    )  # we need to store the original value of X_y for the loss calculation

    # Label smoothing is a general case of normal cross entropy
    scaled_x_sum = 0.0
    eps = label_smoothing / n_cols

    for i in range(0, n_cols, BLOCK_SIZE):
        X_offsets = i + tl.arange(0, BLOCK_SIZE)
        X_block = tl.load(X_ptr + X_offsets, mask=X_offsets < n_cols, other=float("-inf")).to(
            tl.float32
        )
        block_max = tl.max(X_block, axis=0)
        if label_smoothing > 0:
            # scale X beforehand to avoid overflow
            scaled_x_sum += tl.sum(tl.where(X_offsets < n_cols, -eps * X_block, 0.0), axis=0)
        m_new = tl.maximum(m, block_max)
        d = d * tl.exp(m - m_new) + tl.sum(tl.exp(X_block - m_new), axis=0)
        m = m_new

    lse = m + tl.log(d)

    # 4. [Online Softmax] Second pass: compute gradients
    # dx_y = (softmax(x_y) - 1) / N, dx_i = softmax(x_i) / N for i != y, with smoothing:
    # dx_i = (softmax(x_i) - label_smoothing / V) / N, dx_y = (softmax(x_y) - label_smoothing / V
    # - (1 - label_smoothing)) / N
    for i in range(0, n_cols, BLOCK_SIZE):
        X_offsets = i + tl.arange(0, BLOCK_SIZE)
        X_block = tl.load(X_ptr + X_offsets, mask=X_offsets < n_cols, other=float("-inf")).to(
            tl.float32
        )
        X_block = tl.exp(X_block - m) / d
        X_block = X_block - eps
        X_block = tl.where(X_offsets == y, X_block - (1 - label_smoothing), X_block)
        if reduction == "mean":
            X_block = X_block / n_non_ignore
        tl.store(X_ptr + X_offsets, X_block, mask=X_offsets < n_cols)

    # 5. Calculate the loss
    # loss = log (softmax(X_y)) = log ((e ^ (X_y - max(X)) / sum(e ^ (X - max(X))))
    loss = lse - ori_X_y
    # Original loss = H(q, p), with label smoothing regularization = H(q', p) and (label_smoothing / V) = eps
    # H(q', p) = (1 - label_smoothing) * H(q, p) + label_smoothing * H(u, p)
    if label_smoothing > 0:
        smooth_loss = scaled_x_sum + label_smoothing * lse
        loss = loss * (1 - label_smoothing) + smooth_loss

    if reduction == "mean":
        loss = loss / n_non_ignore

    tl.store(loss_ptr, loss)


def fused_linear_cross_entropy_forward(
    _input: torch.Tensor,
    weight: torch.Tensor,
    target: torch.Tensor,
    ignore_index: int = -100,
    label_smoothing: float = 0.0,
    reduction: str = "mean",
):
    dtype = _input.dtype
    BT, H = _input.shape
    V = weight.shape[0]
    BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(V))

    inc_factor = triton.cdiv(V, H)  # (V + H - 1) // H
    chunk_size = triton.next_power_of_2(
        triton.cdiv(BT, inc_factor)
    )  # (BT + inc_factor - 1) // inc_factor
    num_chunks = triton.cdiv(BT, chunk_size)  # (BT + chunk_size - 1) // chunk_size

    grad_weight = torch.zeros_like(weight, dtype=torch.float32)
    grad_input = torch.zeros_like(_input)
    # we use fp32 for loss accumulator
    loss_1d = torch.zeros(BT, dtype=torch.float32, device=_input.device)

    total_n_non_ignore = (target != ignore_index).sum().item()

    for chunk_id in range(num_chunks):
        start_idx = chunk_id * chunk_size
        end_idx = min((chunk_id + 1) * chunk_size, BT)
        _input_chunk = _input[start_idx:end_idx]  # chunk_size x H

        # when doing matmul, use the original precision
        logits_chunk = (_input_chunk @ weight.t()).float().contiguous()  # chunk_size x V
        target_chunk = target[start_idx:end_idx].contiguous()  # chunk_size,

        n_rows = logits_chunk.shape[0]

        # unreduced loss
        loss_1d_slice = loss_1d[start_idx:end_idx]  # chunk_size,

        # Here we calculate the gradient of logits_chunk in place so we can save memory.
        liger_cross_entropy_kernel[(n_rows,)](
            X_ptr=logits_chunk,
            X_stride=logits_chunk.stride(-2),
            Y_ptr=target_chunk,
            Y_stride=target_chunk.stride(-1),  # always 1
            loss_ptr=loss_1d_slice,
            loss_stride=loss_1d_slice.stride(-1),  # always 1
            n_cols=V,
            n_non_ignore=total_n_non_ignore,
            ignore_index=ignore_index,
            label_smoothing=label_smoothing,
            reduction=reduction,
            BLOCK_SIZE=BLOCK_SIZE,
            num_warps=32,
        )

        # gradient of logits_chunk is computed in-place by the above triton kernel.
        grad_logits_chunk = logits_chunk  # chunk_size x V
        grad_input[start_idx:end_idx] = (grad_logits_chunk @ weight.float()).to(dtype)
        grad_weight += grad_logits_chunk.t() @ _input_chunk.float()

    loss = torch.sum(loss_1d)
    return loss, grad_input, grad_weight.to(weight.dtype)


class LigerFusedLinearCrossEntropyFunction(torch.autograd.Function):
    @staticmethod
    def forward(
        ctx, _input, weight, target, ignore_index=-100, label_smoothing=0.0, reduction="mean"
    ):
        """
        Fusing the last linear layer with cross-entropy loss
            Reference: https://github.com/mgmalek/efficient_cross_entropy

        Handle the forward and backward pass of the final linear layer via cross-entropy loss by
        avoiding the materialization of the large logits tensor. Since Cross Entropy Loss is the
        last layer, we can compute the gradient at the forward pass.
        """
        loss, grad_input, grad_weight = fused_linear_cross_entropy_forward(
            _input, weight, target, ignore_index, label_smoothing, reduction
        )
        # downcast to dtype and store for backward
        ctx.save_for_backward(grad_input.detach(), grad_weight.detach())
        return loss.to(_input.dtype)

    @staticmethod
    def backward(ctx, grad_output):
        (grad_input, grad_weight) = ctx.saved_tensors
        # If cross entropy is the last layer, grad_output is 1.0. Skip the mul then.
        if not torch.equal(grad_output, torch.tensor(1.0, device=grad_output.device)):
            grad_input = grad_input * grad_output
            grad_weight = grad_weight * grad_output
        return (grad_input, grad_weight, None, None, None, None)


def fused_linear_cross_entropy(
    _input: torch.Tensor,
    weight: torch.Tensor,
    target: torch.Tensor,
    ignore_index: int = -100,
    label_smoothing: float = 0.0,
    reduction: str = "mean",
) -> torch.Tensor:
    """``F.cross_entropy(_input @ weight.T, target)`` without the logits, differentiable in
    ``_input`` [BT, H] and ``weight`` [V, H]."""
    if reduction not in ("mean", "sum"):
        raise ValueError(f"reduction must be 'mean' or 'sum', got {reduction!r}")
    return LigerFusedLinearCrossEntropyFunction.apply(
        _input, weight, target, ignore_index, label_smoothing, reduction
    )
