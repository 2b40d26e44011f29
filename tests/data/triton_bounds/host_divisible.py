"""Kernels that read and write whole blocks without masks because their wrappers refuse sizes
that are not a multiple of the block (whole-block elementwise kernels)."""

import torch
import triton
import triton.language as tl


@triton.jit
def _silu_kernel(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs).to(tl.float32)
    tl.store(y_ptr + offs, (x * tl.sigmoid(x)).to(y_ptr.dtype.element_ty))


def silu(x: torch.Tensor):
    """SiLU of a tensor whose element count is a multiple of 128."""
    assert x.numel() % 128 == 0, "pad the input to a multiple of 128 elements"
    y = torch.empty_like(x)
    _silu_kernel[(x.numel() // 128,)](x, y, BLOCK=128)
    return y


@triton.jit
def _row_scale_kernel(x_ptr, w_ptr, out_ptr, stride_x, stride_out, BLOCK_N: tl.constexpr):
    # Rows on axis 0, column blocks on axis 1, no column mask.
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + row * stride_x + cols)
    w = tl.load(w_ptr + cols)
    tl.store(out_ptr + row * stride_out + cols, x * w)


def row_scale(x: torch.Tensor, w: torch.Tensor):
    """``x * w`` for ``x`` of shape (M, N) and ``w`` of shape (N,); N a multiple of 32."""
    M, N = x.shape
    if N % 32:
        raise ValueError("N must be a multiple of 32")
    assert w.shape == (N,)
    out = torch.empty_like(x)
    _row_scale_kernel[(M, N // 32)](x, w, out, x.stride(0), out.stride(0), BLOCK_N=32)
    return out
