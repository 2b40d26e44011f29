"""GEGLU ``c = gelu_tanh(a) * b`` forward and backward over flattened tensors.

Elementwise kernels on a 1-D grid. ``tanh`` is expressed through ``sigmoid``
(``tanh(z) = 2 * sigmoid(2 z) - 1``) so no libdevice call is needed. The block
size is chosen by ``@triton.heuristics`` from the element count.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

# Upper bound of the heuristic block size; small tensors get the next power of two.
DEFAULT_BLOCK_SIZE = 1024


@triton.jit
def _tanh(x):
    return 2.0 * tl.sigmoid(2.0 * x) - 1.0


@triton.heuristics(
    {"BLOCK_SIZE": lambda args: min(DEFAULT_BLOCK_SIZE, triton.next_power_of_2(args["n_elements"]))}
)
@triton.jit
def _geglu_tanh_fwd_kernel(A_ptr, B_ptr, C_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements

    a = tl.load(A_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(B_ptr + offsets, mask=mask, other=0.0).to(tl.float32)

    # sqrt(2 / pi) = 0.7978845608028654
    inner = 0.7978845608028654 * (a + 0.044715 * a * a * a)
    gelu_a = 0.5 * a * (1.0 + _tanh(inner))
    tl.store(C_ptr + offsets, (gelu_a * b).to(C_ptr.dtype.element_ty), mask=mask)


@triton.heuristics(
    {"BLOCK_SIZE": lambda args: min(DEFAULT_BLOCK_SIZE, triton.next_power_of_2(args["n_elements"]))}
)
@triton.jit
def _geglu_tanh_bwd_kernel(
    dC_ptr, A_ptr, B_ptr, dA_ptr, dB_ptr, n_elements, BLOCK_SIZE: tl.constexpr
):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements

    dc = tl.load(dC_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    a = tl.load(A_ptr + offsets, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(B_ptr + offsets, mask=mask, other=0.0).to(tl.float32)

    inner = 0.7978845608028654 * (a + 0.044715 * a * a * a)
    tanh_inner = _tanh(inner)
    gelu_a = 0.5 * a * (1.0 + tanh_inner)

    # d/da gelu_tanh(a) = 0.5 (1 + t) + 0.5 a (1 - t^2) * sqrt(2/pi) (1 + 3 * 0.044715 a^2)
    d_inner = 0.7978845608028654 * (1.0 + 3.0 * 0.044715 * a * a)
    d_gelu = 0.5 * (1.0 + tanh_inner) + 0.5 * a * (1.0 - tanh_inner * tanh_inner) * d_inner

    tl.store(dA_ptr + offsets, (dc * b * d_gelu).to(dA_ptr.dtype.element_ty), mask=mask)
    tl.store(dB_ptr + offsets, (dc * gelu_a).to(dB_ptr.dtype.element_ty), mask=mask)


def _geglu_fwd(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    n_elements = a.numel()
    with torch.device(a.device):
        c = torch.empty(a.shape, dtype=a.dtype)
    _geglu_tanh_fwd_kernel[lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)](
        a, b, c, n_elements
    )
    return c


def _geglu_bwd(dc: torch.Tensor, a: torch.Tensor, b: torch.Tensor):
    n_elements = a.numel()
    da = torch.empty_like(a)
    db = torch.empty_like(b)
    _geglu_tanh_bwd_kernel[lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)](
        dc, a, b, da, db, n_elements
    )
    return da, db


class GEGLUFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        a = a.contiguous()
        b = b.contiguous()
        c = _geglu_fwd(a, b)
        ctx.save_for_backward(a, b)
        return c

    @staticmethod
    def backward(ctx, dc: torch.Tensor):
        a, b = ctx.saved_tensors
        dc = dc.contiguous()
        da, db = _geglu_bwd(dc, a, b)
        return da, db


def geglu(a: torch.Tensor, b: torch.Tensor, approximate: str = "tanh") -> torch.Tensor:
    """``gelu(a, approximate="tanh") * b`` elementwise, differentiable in ``a`` and ``b``."""
    if approximate != "tanh":
        raise ValueError(f"only approximate='tanh' is supported, got {approximate!r}")
    assert a.shape == b.shape, "a and b must have the same shape"
    assert a.is_cuda or a.device.type == "cpu", (
        "expected a CUDA tensor (or CPU under the interpreter)"
    )
    return GEGLUFunction.apply(a, b)
