"""Per-row cross-entropy loss (Liger-Kernel style forward).

For logits ``X`` [N, V] and int64 targets ``Y`` [N], one program per row
computes ``loss = logsumexp(X[row]) - X[row, Y[row]]`` with an online
(streaming) log-sum-exp over the vocabulary in ``BLOCK_SIZE`` chunks, so V
can be arbitrarily large.  Rows whose target equals ``ignore_index`` get a
loss of 0.
"""

import torch
import triton
import triton.language as tl

# The hard limit of TRITON_MAX_TENSOR_NUMEL is 1048576; 65536 // 2 is a good
# per-iteration chunk for vocabulary-sized rows.
MAX_FUSED_SIZE = 65536 // 2


@triton.jit
def cross_entropy_forward_kernel(
    X_ptr,
    X_stride,
    Y_ptr,
    Y_stride,
    loss_ptr,
    loss_stride,
    n_cols,
    ignore_index,
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
    loss_ptr += program_id * loss_stride

    if y == ignore_index:
        tl.store(loss_ptr, 0.0)
        return

    # 3. [Online softmax] first pass: find max + sum
    m = float("-inf")  # m is the max value. use the notation from the paper
    d = 0.0  # d is the sum. use the notation from the paper
    ori_X_y = tl.load(X_ptr + y).to(tl.float32)  # gather the logit of the target class

    for i in range(0, n_cols, BLOCK_SIZE):
        X_offsets = i + tl.arange(0, BLOCK_SIZE)
        X_block = tl.load(X_ptr + X_offsets, mask=X_offsets < n_cols, other=float("-inf")).to(
            tl.float32
        )
        block_max = tl.max(X_block)
        m_new = tl.maximum(m, block_max)
        # Rescale the running sum to the new max before adding this block.
        d = d * tl.exp(m - m_new) + tl.sum(tl.exp(X_block - m_new))
        m = m_new

    # 4. loss = log(sum_j exp(x_j)) - x_y = m + log(d) - x_y
    lse = m + tl.log(d)
    loss = lse - ori_X_y
    tl.store(loss_ptr, loss)


def cross_entropy(
    logits: torch.Tensor, target: torch.Tensor, ignore_index: int = -100
) -> torch.Tensor:
    """Unreduced cross entropy: returns fp32 losses of shape [N] for ``logits`` [N, V], ``target`` [N]."""
    assert logits.dim() == 2 and target.dim() == 1
    assert logits.shape[0] == target.shape[0]
    assert logits.stride(-1) == 1, "the vocabulary dimension must be contiguous"
    n_rows, V = logits.shape
    BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(V))
    loss_1d = torch.empty(n_rows, dtype=torch.float32, device=logits.device)
    target = target.to(torch.int64)
    cross_entropy_forward_kernel[(n_rows,)](
        X_ptr=logits,
        X_stride=logits.stride(-2),
        Y_ptr=target,
        Y_stride=target.stride(-1),
        loss_ptr=loss_1d,
        loss_stride=loss_1d.stride(-1),
        n_cols=V,
        ignore_index=ignore_index,
        BLOCK_SIZE=BLOCK_SIZE,
        num_warps=32 if BLOCK_SIZE >= 16384 else 8,
    )
    return loss_1d
