"""RMSNorm forward pass (Liger-Kernel / unsloth style).

``y = x / sqrt(mean(x^2) + eps) * weight``, computed in fp32 and cast back to
the input dtype.  One program per row; the whole row fits in a single
power-of-two block.  The per-row reciprocal RMS is cached for a backward pass.
"""

import torch
import triton
import triton.language as tl

MAX_FUSED_SIZE = 65536


@triton.jit
def _rms_norm_forward_kernel(
    Y_ptr,
    Y_row_stride,
    X_ptr,
    X_row_stride,
    W_ptr,
    RSTD_ptr,
    n_cols,
    eps,
    BLOCK_SIZE: tl.constexpr,
):
    row_idx = tl.program_id(0).to(tl.int64)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols

    Y_ptr += row_idx * Y_row_stride
    X_ptr += row_idx * X_row_stride

    X_row = tl.load(X_ptr + col_offsets, mask=mask, other=0.0)
    X_row_dtype = X_row.dtype
    W_row = tl.load(W_ptr + col_offsets, mask=mask, other=0.0)

    # Upcast to fp32 for the reduction (llama-style casting).
    X_row = X_row.to(tl.float32)
    mean_square = tl.sum(X_row * X_row, axis=0) / n_cols
    rstd = tl.rsqrt(mean_square + eps)

    # Caching rstd is cheap (one float per row) and saves recomputation in backward.
    tl.store(RSTD_ptr + row_idx, rstd)

    X_row = X_row * rstd
    Y_row = X_row * W_row.to(tl.float32)
    tl.store(Y_ptr + col_offsets, Y_row.to(X_row_dtype), mask=mask)


def calculate_settings(n):
    BLOCK_SIZE = triton.next_power_of_2(n)
    if BLOCK_SIZE > MAX_FUSED_SIZE:
        raise RuntimeError(
            f"Cannot launch Triton kernel since n = {n} exceeds the recommended Triton blocksize = {MAX_FUSED_SIZE}."
        )
    num_warps = 4
    if BLOCK_SIZE >= 32768:
        num_warps = 32
    elif BLOCK_SIZE >= 8192:
        num_warps = 16
    elif BLOCK_SIZE >= 2048:
        num_warps = 8
    return BLOCK_SIZE, num_warps


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """RMSNorm over the last dimension of ``x`` with a per-feature ``weight``."""
    shape = x.shape
    dim = shape[-1]
    assert weight.shape == (dim,)
    X = x.reshape(-1, dim)
    assert X.stride(-1) == 1, "last dimension of x must be contiguous"
    n_rows, n_cols = X.shape
    BLOCK_SIZE, num_warps = calculate_settings(n_cols)

    Y = torch.empty((n_rows, n_cols), dtype=X.dtype, device=X.device)
    RSTD = torch.empty(n_rows, dtype=torch.float32, device=X.device)

    _rms_norm_forward_kernel[(n_rows,)](
        Y,
        Y.stride(0),
        X,
        X.stride(0),
        weight,
        RSTD,
        n_cols,
        eps,
        BLOCK_SIZE=BLOCK_SIZE,
        num_warps=num_warps,
    )
    return Y.view(*shape)
