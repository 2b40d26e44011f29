"""Bias-add with a scale, ``out = alpha * x + bias[None, :]``, using heuristics.

``@triton.heuristics`` derives meta-parameters from the call arguments at
launch time: here the tile widths, and then ``EVEN_M`` / ``EVEN_N`` flags
(FlashAttention-Triton style) that let the kernel drop the bounds masks when
the problem size divides the tile.  Heuristics are evaluated in order, so the
``EVEN_*`` lambdas can read the block sizes chosen just before.
"""

import torch
import triton
import triton.language as tl


@triton.heuristics(
    {
        "BLOCK_M": lambda args: min(triton.next_power_of_2(args["M"]), 32),
        "BLOCK_N": lambda args: min(triton.next_power_of_2(args["N"]), 128),
    }
)
@triton.heuristics(
    {
        "EVEN_M": lambda args: args["M"] % args["BLOCK_M"] == 0,
        "EVEN_N": lambda args: args["N"] % args["BLOCK_N"] == 0,
    }
)
@triton.jit
def scale_bias_kernel(
    x_ptr,
    bias_ptr,
    out_ptr,
    alpha,
    M,
    N,
    stride_xm,
    stride_xn,
    stride_om,
    stride_on,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    EVEN_M: tl.constexpr,
    EVEN_N: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    x_ptrs = x_ptr + offs_m[:, None] * stride_xm + offs_n[None, :] * stride_xn
    out_ptrs = out_ptr + offs_m[:, None] * stride_om + offs_n[None, :] * stride_on

    # Masks are only materialized for the ragged dimensions.
    if EVEN_N:
        bias = tl.load(bias_ptr + offs_n)
    else:
        bias = tl.load(bias_ptr + offs_n, mask=offs_n < N, other=0.0)
    if EVEN_M & EVEN_N:
        x = tl.load(x_ptrs)
    elif EVEN_M:
        x = tl.load(x_ptrs, mask=offs_n[None, :] < N, other=0.0)
    elif EVEN_N:
        x = tl.load(x_ptrs, mask=offs_m[:, None] < M, other=0.0)
    else:
        x = tl.load(x_ptrs, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N), other=0.0)

    out = x.to(tl.float32) * alpha + bias.to(tl.float32)[None, :]
    out = out.to(out_ptr.dtype.element_ty)

    if EVEN_M & EVEN_N:
        tl.store(out_ptrs, out)
    elif EVEN_M:
        tl.store(out_ptrs, out, mask=offs_n[None, :] < N)
    elif EVEN_N:
        tl.store(out_ptrs, out, mask=offs_m[:, None] < M)
    else:
        tl.store(out_ptrs, out, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def heuristics(x: torch.Tensor, bias: torch.Tensor, alpha: float = 1.0) -> torch.Tensor:
    """``alpha * x + bias`` for 2-D ``x`` [M, N] and ``bias`` [N] (broadcast over rows)."""
    assert x.dim() == 2 and bias.shape == (x.shape[1],)
    M, N = x.shape
    out = torch.empty((M, N), device=x.device, dtype=x.dtype)
    # BLOCK_M / BLOCK_N are filled in by the heuristics, so the grid reads them from META.
    grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]), triton.cdiv(N, META["BLOCK_N"]))
    scale_bias_kernel[grid](
        x,
        bias,
        out,
        alpha,
        M,
        N,
        x.stride(0),
        x.stride(1),
        out.stride(0),
        out.stride(1),
        num_warps=4,
    )
    return out
