"""Launch keywords collected in a dict and unpacked into the launch (Liger's ``kernel_args``):
a knob in the literal, a block size set by subscript, ``.update()``, and an Intel GPU setting
in an ``if x.device.type == "xpu":`` branch that never runs on a CUDA GPU."""

import torch
import triton
import triton.language as tl


def set_large_grf_mode(kernel_args: dict) -> None:
    kernel_args["grf_mode"] = "large"


@triton.jit
def _row_scale_kernel(x_ptr, y_ptr, n_rows, n_cols, stride, scale, BLOCK_ROW: tl.constexpr,
                      BLOCK_SIZE: tl.constexpr):  # fmt: skip
    rows = tl.program_id(0) * BLOCK_ROW + tl.arange(0, BLOCK_ROW)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
    offs = rows[:, None] * stride + cols[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + offs, x * scale, mask=mask)


def row_scale(x: torch.Tensor, scale: float) -> torch.Tensor:
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    block_size = triton.next_power_of_2(n_cols)
    kernel_args = {"num_warps": 4}
    if x.device.type == "xpu":
        set_large_grf_mode(kernel_args)
    kernel_args.update(num_stages=1)
    block_row = 4
    kernel_args["BLOCK_ROW"] = block_row
    _row_scale_kernel[(triton.cdiv(n_rows, block_row),)](
        x, y, n_rows, n_cols, x.stride(0), scale, BLOCK_SIZE=block_size, **kernel_args
    )
    return y
