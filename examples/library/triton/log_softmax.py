"""Log-softmax over the last dimension with a fused backward (FlagGems style).

The forward kernel keeps one row per program when the row fits in one block and
otherwise walks the row in ``BLOCK_N`` chunks twice (online max/sum, then the
write). The backward uses the saved output: ``dx = dy - exp(y) * sum(dy)``.
"""

from __future__ import annotations

import logging

import torch
import triton
import triton.language as tl

logger = logging.getLogger(__name__)

# Rows longer than this take the looped kernel.
MAX_ONE_PASS = 8192


def _warps(block: int) -> int:
    if block >= 4096:
        return 16
    if block >= 1024:
        return 8
    return 4


@triton.jit
def log_softmax_kernel(
    output_ptr,
    input_ptr,
    M,
    N,
    BLOCK_N: tl.constexpr,
):
    pid = tl.program_id(0)
    n_offsets = tl.arange(0, BLOCK_N)
    mask = n_offsets < N
    offset = pid * N + n_offsets
    inp = tl.load(input_ptr + offset, mask=mask, other=-float("inf")).to(tl.float32)
    row_max = tl.max(inp, axis=0)
    shifted = inp - row_max
    log_sum = tl.log(tl.sum(tl.exp(shifted), axis=0))
    out = shifted - log_sum
    tl.store(output_ptr + offset, out.to(output_ptr.dtype.element_ty), mask=mask)


@triton.jit
def log_softmax_looped_kernel(
    output_ptr,
    input_ptr,
    M,
    N,
    BLOCK_N: tl.constexpr,
):
    pid = tl.program_id(0)
    # Online max and normalizer (Milakov & Gimelshein), one scalar pair per row.
    m = float("-inf")
    d = 0.0
    for start_n in range(0, N, BLOCK_N):
        n_offsets = start_n + tl.arange(0, BLOCK_N)
        mask = n_offsets < N
        inp = tl.load(input_ptr + pid * N + n_offsets, mask=mask, other=-float("inf"))
        inp = inp.to(tl.float32)
        m_new = tl.maximum(m, tl.max(inp, axis=0))
        d = d * tl.exp(m - m_new) + tl.sum(tl.exp(inp - m_new), axis=0)
        m = m_new
    log_z = m + tl.log(d)
    for start_n in range(0, N, BLOCK_N):
        n_offsets = start_n + tl.arange(0, BLOCK_N)
        mask = n_offsets < N
        inp = tl.load(input_ptr + pid * N + n_offsets, mask=mask, other=0.0).to(tl.float32)
        out = inp - log_z
        tl.store(output_ptr + pid * N + n_offsets, out.to(output_ptr.dtype.element_ty), mask=mask)


@triton.jit
def log_softmax_backward_kernel(
    out_ptr,
    out_grad_ptr,
    in_grad_ptr,
    M,
    N,
    BLOCK_N: tl.constexpr,
):
    pid = tl.program_id(0)
    n_offsets = tl.arange(0, BLOCK_N)
    mask = n_offsets < N
    offsets = pid * N + n_offsets
    out = tl.load(out_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    out_grad = tl.load(out_grad_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    scale = tl.sum(out_grad, axis=0)
    in_grad = out_grad - tl.exp(out) * scale
    tl.store(in_grad_ptr + offsets, in_grad.to(in_grad_ptr.dtype.element_ty), mask=mask)


def log_softmax_forward(x: torch.Tensor) -> torch.Tensor:
    """Log-softmax of ``x`` over its last dimension."""
    logger.debug("LOG_SOFTMAX FORWARD")
    shape = x.shape
    N = shape[-1]
    x = x.reshape(-1, N).contiguous()
    M = x.shape[0]
    out = torch.empty_like(x)
    BLOCK_N = triton.next_power_of_2(N)
    if BLOCK_N <= MAX_ONE_PASS:
        log_softmax_kernel[(M,)](out, x, M, N, BLOCK_N=BLOCK_N, num_warps=_warps(BLOCK_N))
    else:
        log_softmax_looped_kernel[(M,)](out, x, M, N, BLOCK_N=4096, num_warps=16)
    return out.view(shape)


def log_softmax_backward(out: torch.Tensor, out_grad: torch.Tensor) -> torch.Tensor:
    """The gradient of ``log_softmax`` at its output ``out`` for the cotangent ``out_grad``."""
    logger.debug("LOG_SOFTMAX BACKWARD")
    shape = out.shape
    N = shape[-1]
    out = out.reshape(-1, N).contiguous()
    out_grad = out_grad.reshape(-1, N).contiguous()
    M = out.shape[0]
    in_grad = torch.empty_like(out)
    BLOCK_N = triton.next_power_of_2(N)
    log_softmax_backward_kernel[(M,)](
        out, out_grad, in_grad, M, N, BLOCK_N=BLOCK_N, num_warps=_warps(BLOCK_N)
    )
    return in_grad.view(shape)


class LogSoftmax(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = log_softmax_forward(x)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, out_grad):
        (out,) = ctx.saved_tensors
        return log_softmax_backward(out, out_grad)


def log_softmax(x: torch.Tensor) -> torch.Tensor:
    """Differentiable log-softmax over the last dimension."""
    return LogSoftmax.apply(x)
