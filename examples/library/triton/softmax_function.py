"""Row softmax whose API is an autograd Function (Liger-Kernel style).

The module exports only ``SoftmaxFunction``: a library's ``nn.Module`` in another file calls
``SoftmaxFunction.apply``. The forward picks one whole-row block when a row fits and an online
(two-pass) kernel when it does not; the backward is handed the forward's choice through the
autograd context.
"""

import torch
import triton
import triton.language as tl

# Rows longer than this are processed in chunks of this many columns.
MAX_FUSED_SIZE = 4096


def calculate_settings(n: int) -> tuple[int, int]:
    """The block size and warp count for rows of ``n`` elements."""
    block_size = min(MAX_FUSED_SIZE, triton.next_power_of_2(n))
    num_warps = 4
    if block_size >= 2048:
        num_warps = 8
    return block_size, num_warps


@triton.jit
def _softmax_single_block_forward_kernel(
    Y_ptr, Y_row_stride, X_ptr, X_row_stride, n_cols, BLOCK_SIZE: tl.constexpr
):
    row_id = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK_SIZE)
    mask = offs < n_cols
    x = tl.load(X_ptr + row_id * X_row_stride + offs, mask=mask, other=-float("inf"))
    m = tl.max(x, axis=0)
    e = tl.exp(x - m)
    d = tl.sum(e, axis=0)
    tl.store(Y_ptr + row_id * Y_row_stride + offs, e / d, mask=mask)


@triton.jit
def _softmax_multi_block_forward_kernel(
    Y_ptr, Y_row_stride, X_ptr, X_row_stride, n_cols, BLOCK_SIZE: tl.constexpr
):
    row_id = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK_SIZE)

    # Online pass: running max and the sum of exponentials rescaled to it.
    m = tl.full([], -float("inf"), tl.float32)
    d = tl.full([], 0.0, tl.float32)
    for start in tl.range(0, n_cols, BLOCK_SIZE):
        idx = start + offs
        mask = idx < n_cols
        x = tl.load(X_ptr + row_id * X_row_stride + idx, mask=mask, other=-float("inf"))
        new_m = tl.maximum(m, tl.max(x, axis=0))
        d = d * tl.exp(m - new_m) + tl.sum(tl.exp(x - new_m), axis=0)
        m = new_m

    for start in tl.range(0, n_cols, BLOCK_SIZE):
        idx = start + offs
        mask = idx < n_cols
        x = tl.load(X_ptr + row_id * X_row_stride + idx, mask=mask, other=-float("inf"))
        tl.store(Y_ptr + row_id * Y_row_stride + idx, tl.exp(x - m) / d, mask=mask)


@triton.jit
def _softmax_multi_block_backward_kernel(
    dY_ptr, dY_stride, Y_ptr, Y_stride, dX_ptr, dX_stride, n_cols, BLOCK_SIZE: tl.constexpr
):
    row_id = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK_SIZE)

    # sum(dy * y) over the row, one chunk at a time.
    acc = tl.full([], 0.0, tl.float32)
    for start in tl.range(0, n_cols, BLOCK_SIZE):
        idx = start + offs
        mask = idx < n_cols
        dy = tl.load(dY_ptr + row_id * dY_stride + idx, mask=mask, other=0.0)
        y = tl.load(Y_ptr + row_id * Y_stride + idx, mask=mask, other=0.0)
        acc += tl.sum(dy * y, axis=0)

    for start in tl.range(0, n_cols, BLOCK_SIZE):
        idx = start + offs
        mask = idx < n_cols
        dy = tl.load(dY_ptr + row_id * dY_stride + idx, mask=mask, other=0.0)
        y = tl.load(Y_ptr + row_id * Y_stride + idx, mask=mask, other=0.0)
        tl.store(dX_ptr + row_id * dX_stride + idx, y * (dy - acc), mask=mask)


def _softmax_forward(x: torch.Tensor) -> tuple[torch.Tensor, int, int, bool]:
    *batch, n_cols = x.shape
    x2d = x.contiguous().view(-1, n_cols)
    n_rows = x2d.shape[0]

    BLOCK_SIZE, num_warps = calculate_settings(n_cols)
    y2d = torch.empty_like(x2d)
    if n_cols <= BLOCK_SIZE:
        _softmax_single_block_forward_kernel[(n_rows,)](
            y2d,
            y2d.stride(0),
            x2d,
            x2d.stride(0),
            n_cols,
            BLOCK_SIZE=BLOCK_SIZE,
            num_warps=num_warps,
        )
        multi_block_launch = False
    else:
        _softmax_multi_block_forward_kernel[(n_rows,)](
            y2d,
            y2d.stride(0),
            x2d,
            x2d.stride(0),
            n_cols,
            BLOCK_SIZE=BLOCK_SIZE,
            num_warps=num_warps,
        )
        multi_block_launch = True
    return y2d.view(*batch, n_cols), BLOCK_SIZE, num_warps, multi_block_launch


def _softmax_backward(
    dy: torch.Tensor, y: torch.Tensor, BLOCK_SIZE: int, num_warps: int
) -> torch.Tensor:
    *batch, n_cols = dy.shape
    dy2d = dy.contiguous().view(-1, n_cols)
    y2d = y.contiguous().view(-1, n_cols)
    n_rows = dy2d.shape[0]
    dx2d = torch.empty_like(dy2d)
    # The forward's block size, whichever kernel it ran: one loop trip where the row fits.
    _softmax_multi_block_backward_kernel[(n_rows,)](
        dy2d,
        dy2d.stride(0),
        y2d,
        y2d.stride(0),
        dx2d,
        dx2d.stride(0),
        n_cols,
        BLOCK_SIZE=BLOCK_SIZE,
        num_warps=num_warps,
    )
    return dx2d.view(*batch, n_cols)


class SoftmaxFunction(torch.autograd.Function):
    """Softmax over the last dimension, with a fused backward."""

    @staticmethod
    def forward(ctx, input_: torch.Tensor):
        y, BLOCK_SIZE, num_warps, multi_block_launch = _softmax_forward(input_)
        ctx.save_for_backward(y)
        ctx.BLOCK_SIZE = BLOCK_SIZE
        ctx.num_warps = num_warps
        ctx.multi_block_launch = multi_block_launch
        return y

    @staticmethod
    def backward(ctx, grad_output):
        (y,) = ctx.saved_tensors
        dx = _softmax_backward(grad_output, y, ctx.BLOCK_SIZE, ctx.num_warps)
        return dx
