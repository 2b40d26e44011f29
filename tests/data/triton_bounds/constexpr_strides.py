"""Row strides marked ``tl.constexpr`` (the unsloth RMS-norm idiom): ``X += row_idx *
X_row_stride`` with ``X_row_stride: tl.constexpr`` launched as ``X.stride(0)``. Triton compiles a
kernel per stride; the offsets are the same as with a runtime stride."""

import torch
import triton
import triton.language as tl


@triton.jit
def _rms_layernorm_forward(
    Y,
    Y_row_stride: tl.constexpr,
    X,
    X_row_stride: tl.constexpr,
    W,
    W_row_stride: tl.constexpr,
    r,
    r_row_stride: tl.constexpr,
    n_cols: tl.constexpr,
    eps: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
):
    row_idx = tl.program_id(0)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols
    Y += row_idx * Y_row_stride
    X += row_idx * X_row_stride
    r += row_idx * r_row_stride
    X_row = tl.load(X + col_offsets, mask=mask, other=0).to(tl.float32)
    W_row = tl.load(W + col_offsets, mask=mask, other=0)
    row_var = tl.sum(X_row * X_row, axis=0) / n_cols
    inv_var = tl.math.rsqrt(row_var + eps)
    tl.store(r, inv_var)
    normed = (X_row * inv_var).to(W_row.dtype)
    tl.store(Y + col_offsets, normed * W_row, mask=mask)


def rms_layernorm(X: torch.Tensor, W: torch.Tensor, eps: float = 1e-6):
    """RMS norm of each row of a 2-D ``X`` scaled by ``W``; returns it and each row's 1/rms."""
    n_rows, n_cols = X.shape
    Y = torch.empty_like(X)
    r = torch.empty(n_rows, dtype=torch.float32, device=X.device)
    _rms_layernorm_forward[(n_rows,)](
        Y,
        Y.stride(0),
        X,
        X.stride(0),
        W,
        W.stride(0),
        r,
        r.stride(0),
        n_cols,
        eps,
        BLOCK_SIZE=triton.next_power_of_2(n_cols),
    )
    return Y, r
