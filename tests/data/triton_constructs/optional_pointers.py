"""Optional pointer arguments tested in the kernel (SGLang's ``if kv_start_idx:``, vLLM's
``if bias_ptr is not None:``): Triton specialises a ``None`` argument into a constexpr, so each
launch compiles only the branch its arguments choose. One launch passes ``None``, another an
allocated or annotated tensor."""

import torch
import triton
import triton.language as tl


@triton.jit
def _shift_scale_rows_kernel(x_ptr, bias_ptr, scale_ptr, y_ptr, n_cols, stride_row,
                             BLOCK: tl.constexpr):  # fmt: skip
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_row + cols, mask=mask, other=0.0).to(tl.float32)
    if bias_ptr:
        x += tl.load(bias_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    row_scale = 1.0
    if scale_ptr is not None:
        row_scale = tl.load(scale_ptr + row).to(tl.float32)
    if bias_ptr is None:
        x = x * 0.5
    tl.store(y_ptr + row * stride_row + cols, x * row_scale, mask=mask)


def shift_rows(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """``x + bias`` over the rows of 2-d ``x``."""
    n_rows, n_cols = x.shape
    assert bias.shape[0] == n_cols, "one bias per column"
    y = torch.empty_like(x)
    BLOCK = triton.next_power_of_2(n_cols)
    _shift_scale_rows_kernel[(n_rows,)](x, bias, None, y, n_cols, x.stride(0), BLOCK=BLOCK)
    return y


def scale_rows(x: torch.Tensor, scales: torch.Tensor) -> torch.Tensor:
    """``0.5 * x * scales[row]`` per row of 2-d ``x``: there is no bias."""
    n_rows, n_cols = x.shape
    assert scales.shape[0] == n_rows, "one scale per row"
    y = torch.empty_like(x)
    BLOCK = triton.next_power_of_2(n_cols)
    _shift_scale_rows_kernel[(n_rows,)](x, None, scales, y, n_cols, x.stride(0), BLOCK=BLOCK)
    return y
