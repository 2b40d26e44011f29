"""Row softmax launched at the occupancy its compiled kernel allows (the fused-softmax tutorial's
style): the kernel is compiled ahead with ``warmup``, its registers and shared memory size a
persistent grid, and each program strides over the rows. Needs a GPU to run as written."""

import torch
import triton
import triton.language as tl
from triton.runtime import driver


def is_hip():
    return triton.runtime.driver.active.get_current_target().backend == "hip"


@triton.jit
def softmax_kernel(
    output_ptr, input_ptr, input_row_stride, output_row_stride, n_rows, n_cols,
    BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr,
):  # fmt: skip
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        col_offsets = tl.arange(0, BLOCK_SIZE)
        mask = col_offsets < n_cols
        row = tl.load(
            input_ptr + row_idx * input_row_stride + col_offsets, mask=mask, other=-float("inf")
        )
        row_minus_max = row - tl.max(row, axis=0)
        numerator = tl.exp(row_minus_max)
        denominator = tl.sum(numerator, axis=0)
        tl.store(
            output_ptr + row_idx * output_row_stride + col_offsets,
            numerator / denominator,
            mask=mask,
        )


def softmax(x: torch.Tensor) -> torch.Tensor:
    n_rows, n_cols = x.shape
    properties = driver.active.utils.get_device_properties(x.device.index)
    num_sm = properties["multiprocessor_count"]
    num_regs = properties["max_num_regs"]
    size_smem = properties["max_shared_mem"]
    warp_size = properties["warpSize"]
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    num_warps = 8
    num_stages = 4 if size_smem > 200000 else 2
    y = torch.empty_like(x)
    # Compile first, to size the grid by how many programs fit on an SM.
    kernel = softmax_kernel.warmup(
        y, x, x.stride(0), y.stride(0), n_rows, n_cols, BLOCK_SIZE=BLOCK_SIZE,
        num_stages=num_stages, num_warps=num_warps, grid=(1,),
    )  # fmt: skip
    kernel._init_handles()
    n_regs = kernel.n_regs
    shared = kernel.metadata.shared
    if is_hip():
        occupancy = num_regs * 2 // (n_regs * warp_size * num_warps)
    else:
        occupancy = num_regs // (n_regs * warp_size * num_warps)
    occupancy = min(occupancy, size_smem // max(shared, 1))
    num_programs = min(num_sm * occupancy, n_rows)
    kernel[(num_programs, 1, 1)](
        y, x, x.stride(0), y.stride(0), n_rows, n_cols, BLOCK_SIZE, num_stages
    )
    return y
