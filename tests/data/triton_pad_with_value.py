"""A load padded with a value the kernel loaded (Liger's group norm pads with the mean).

See tests/test_triton_constructs.py.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _variance_kernel(X_ptr, Mean_ptr, Var_ptr, stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_SIZE)
    mask = offs < n_cols
    m = tl.load(Mean_ptr + row)
    # Pad with the mean, so that padded lanes add nothing to the squared deviations.
    x = tl.load(X_ptr + row * stride + offs, mask=mask, other=m)
    d = x - m
    tl.store(Var_ptr + row, tl.sum(tl.where(mask, d * d, 0.0), axis=0) / n_cols)


def row_variance(x: torch.Tensor) -> torch.Tensor:
    n_rows, n_cols = x.shape
    mean = x.mean(dim=1)
    var = torch.empty_like(mean)
    _variance_kernel[(n_rows,)](
        x, mean, var, x.stride(0), n_cols, BLOCK_SIZE=triton.next_power_of_2(n_cols)
    )
    return var
