"""One row stride for three tensors of one layout (Liger-style gated units): the launch passes
``out.stride(-2)`` for the inputs too, the kernel advances each base pointer by it, and the
casts are spelled ``x.cast(dtype)`` and ``tl.cast(x, dtype)``."""

import torch
import triton
import triton.language as tl


@triton.jit
def _relu_squared(x):
    r = tl.maximum(x, 0.0)
    return r * r


@triton.jit
def _gated_relu2_kernel(x_ptr, gate_ptr, out_ptr, row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    # every tensor is row-major with the output's row stride
    x_ptr += row * row_stride
    gate_ptr += row * row_stride
    out_ptr += row * row_stride
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(x_ptr + cols, mask=mask, other=0).to(tl.float32)
    gate = tl.load(gate_ptr + cols, mask=mask, other=0)
    activated = tl.cast(_relu_squared(x), tl.float32) * gate.cast(tl.float32)
    tl.store(out_ptr + cols, activated.cast(gate.dtype), mask=mask)


def gated_relu2(x: torch.Tensor, gate: torch.Tensor) -> torch.Tensor:
    shape = x.shape
    n_cols = shape[-1]
    x = x.reshape(-1, n_cols).contiguous()
    gate = gate.reshape(-1, n_cols).contiguous()
    out = torch.empty_like(x)
    n_rows = x.shape[0]
    _gated_relu2_kernel[(n_rows,)](
        x, gate, out, out.stride(-2), n_cols, BLOCK_SIZE=triton.next_power_of_2(n_cols)
    )
    return out.view(*shape)
