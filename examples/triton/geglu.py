"""GEGLU activation ``c = gelu_tanh(a) * b`` (Liger-Kernel / unsloth style forward).

Uses the tanh approximation of GELU,
``0.5 * a * (1 + tanh(sqrt(2/pi) * (a + 0.044715 * a^3)))``, with ``tanh``
written through ``sigmoid`` (``tanh(z) = 2 * sigmoid(2z) - 1``) so no
libdevice call is needed.  Elementwise over the flattened tensors, 1-D grid.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def tanh(x):
    return 2.0 * tl.sigmoid(2.0 * x) - 1.0


@triton.jit
def _geglu_tanh_forward_kernel(a_ptr, b_ptr, c_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    block_idx = tl.program_id(0)
    offsets = block_idx * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements

    a = tl.load(a_ptr + offsets, mask=mask, other=0).to(tl.float32)
    b = tl.load(b_ptr + offsets, mask=mask, other=0).to(tl.float32)

    # tanh approximation form of GELU is computed with:
    # 0.5 * a * (1 + tanh(sqrt(2 / pi) * (a + 0.044715 * a^3)))
    sqrt_2_over_pi = 0.7978845608028654  # sqrt(2 / pi)
    a_cubed = a * a * a
    tanh_arg = sqrt_2_over_pi * (a + 0.044715 * a_cubed)
    tanh_result = tanh(tanh_arg)
    geglu_a = 0.5 * a * (1 + tanh_result)
    c = geglu_a * b
    tl.store(c_ptr + offsets, c.to(c_ptr.dtype.element_ty), mask=mask)


def geglu(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``gelu_tanh(a) * b`` elementwise for two contiguous tensors of the same shape."""
    assert a.shape == b.shape
    assert a.is_contiguous() and b.is_contiguous(), "inputs must be contiguous"
    c = torch.empty_like(a)
    n_elements = c.numel()
    BLOCK_SIZE = 1024
    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)
    _geglu_tanh_forward_kernel[grid](a, b, c, n_elements, BLOCK_SIZE=BLOCK_SIZE)
    return c
