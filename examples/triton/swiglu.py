"""SwiGLU activation ``c = silu(a) * b`` (Liger-Kernel style forward).

``a`` is the gate projection and ``b`` the up projection, both [..., n_cols].
One program per row, the whole row in one power-of-two block; ``silu`` is
evaluated in fp32.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def silu(x):
    return x * tl.sigmoid(x)


@triton.jit
def _swiglu_forward_kernel(
    a_ptr, b_ptr, c_ptr, stride_a, stride_b, stride_c, n_cols, BLOCK_SIZE: tl.constexpr
):
    program_id = tl.program_id(0).to(tl.int64)

    # locate start index
    a_ptr += program_id * stride_a
    b_ptr += program_id * stride_b
    c_ptr += program_id * stride_c

    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols

    # sigmoid requires type float32
    a_row = tl.load(a_ptr + col_offsets, mask=mask, other=0).to(tl.float32)
    b_row = tl.load(b_ptr + col_offsets, mask=mask, other=0).to(tl.float32)
    c_row = silu(a_row) * b_row
    tl.store(c_ptr + col_offsets, c_row.to(c_ptr.dtype.element_ty), mask=mask)


def swiglu(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``silu(a) * b`` over the last dimension; ``a`` and ``b`` have the same shape."""
    assert a.shape == b.shape
    ori_shape = a.shape
    n_cols = ori_shape[-1]
    a = a.reshape(-1, n_cols)
    b = b.reshape(-1, n_cols)
    assert a.stride(-1) == 1 and b.stride(-1) == 1, "last dimension must be contiguous"
    c = torch.empty_like(a)
    n_rows = a.shape[0]

    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    num_warps = 8 if BLOCK_SIZE >= 2048 else 4

    _swiglu_forward_kernel[(n_rows,)](
        a,
        b,
        c,
        a.stride(-2),
        b.stride(-2),
        c.stride(-2),
        n_cols=n_cols,
        BLOCK_SIZE=BLOCK_SIZE,
        num_warps=num_warps,
    )
    return c.view(*ori_shape)
