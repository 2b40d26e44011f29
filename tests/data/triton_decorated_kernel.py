"""Row scaling with a library's kernel registration decorator above @triton.jit."""

import functools

import torch
import triton
import triton.language as tl


def libentry():
    """Caches launch metadata in the real library; a no-op here."""

    def decorator(fn):
        return fn

    return decorator


@libentry()
@triton.jit
def _scale_rows_kernel(x_ptr, s_ptr, out_ptr, n_cols, x_stride, out_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_stride + cols, mask=mask, other=0.0)
    s = tl.load(s_ptr + row)
    tl.store(out_ptr + row * out_stride + cols, x * s, mask=mask)


@functools.cache
def _block(n_cols: int) -> int:
    return triton.next_power_of_2(n_cols)


def scale_rows(x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    x = x.contiguous()
    out = torch.empty_like(x)
    n_rows, n_cols = x.shape
    _scale_rows_kernel[(n_rows,)](
        x, s, out, n_cols, x.stride(0), out.stride(0), BLOCK=_block(n_cols)
    )
    return out
