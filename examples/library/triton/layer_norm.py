"""LayerNorm forward and backward (after the Triton layer-norm tutorial).

The forward stores the per-row mean and reciprocal standard deviation. The
backward is a two-kernel pipeline: the first kernel computes ``dx`` row by row
and writes per-row partial products for ``dw``/``db``; the second reduces those
partials over the rows, one column block per program. Parameter gradients are
therefore deterministic (no atomics, no locks).
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

# Rows larger than 64KB of fp32 do not fit in one block: a different kernel is needed.
MAX_FUSED_SIZE = 65536 // 4
BLOCK_SIZE_M_DWDB = 32
BLOCK_SIZE_N_DWDB = 64


@triton.jit
def _layer_norm_fwd_fused(
    X,  # pointer to the input
    Y,  # pointer to the output
    W,  # pointer to the weights
    B,  # pointer to the biases
    Mean,  # pointer to the mean
    Rstd,  # pointer to the 1/std
    stride_x,  # how much to increase the X pointer when moving by 1 row
    stride_y,  # how much to increase the Y pointer when moving by 1 row
    N,  # number of columns in X
    eps,  # epsilon to avoid division by zero
    BLOCK_SIZE: tl.constexpr,
):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < N
    x = tl.load(X + row * stride_x + cols, mask=mask, other=0.0).to(tl.float32)

    mean = tl.sum(x, axis=0) / N
    xbar = tl.where(mask, x - mean, 0.0)
    var = tl.sum(xbar * xbar, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)

    w = tl.load(W + cols, mask=mask, other=0.0)
    b = tl.load(B + cols, mask=mask, other=0.0)
    y = xbar * rstd * w + b
    tl.store(Y + row * stride_y + cols, y.to(Y.dtype.element_ty), mask=mask)


@triton.jit
def _layer_norm_bwd_dx_fused(
    DX,  # pointer to the input gradient
    DY,  # pointer to the output gradient
    DW_partial,  # pointer to the per-row partial weight gradient
    DB_partial,  # pointer to the per-row partial bias gradient
    X,  # pointer to the input
    W,  # pointer to the weights
    Mean,  # pointer to the mean
    Rstd,  # pointer to the 1/std
    stride_dx,  # row strides of DX, DY, the two partials and X
    stride_dy,
    stride_dw,
    stride_db,
    stride_x,
    N,  # number of columns in X
    BLOCK_SIZE_N: tl.constexpr,
):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE_N)
    mask = cols < N

    x = tl.load(X + row * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
    dy = tl.load(DY + row * stride_dy + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(W + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.load(Mean + row)
    rstd = tl.load(Rstd + row)

    xhat = tl.where(mask, (x - mean) * rstd, 0.0)
    wdy = w * dy
    c1 = tl.sum(xhat * wdy, axis=0) / N
    c2 = tl.sum(wdy, axis=0) / N
    dx = (wdy - (xhat * c1 + c2)) * rstd
    tl.store(DX + row * stride_dx + cols, dx.to(DX.dtype.element_ty), mask=mask)

    tl.store(DW_partial + row * stride_dw + cols, dy * xhat, mask=mask)
    tl.store(DB_partial + row * stride_db + cols, dy, mask=mask)


@triton.jit
def _layer_norm_bwd_dwdb(
    DW_partial,  # pointer to the partial sum of weights gradient
    DB_partial,  # pointer to the partial sum of biases gradient
    FINAL_DW,  # pointer to the weights gradient
    FINAL_DB,  # pointer to the biases gradient
    M,  # number of rows of the partials
    N,  # number of columns
    stride_dw,
    stride_db,
    BLOCK_SIZE_M: tl.constexpr,
    BLOCK_SIZE_N: tl.constexpr,
):
    pid = tl.program_id(0)
    cols = pid * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    sum_dw = tl.zeros((BLOCK_SIZE_N,), dtype=tl.float32)
    sum_db = tl.zeros((BLOCK_SIZE_N,), dtype=tl.float32)
    for m_block in range(0, tl.cdiv(M, BLOCK_SIZE_M)):
        rows = m_block * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        dw_offs = rows[:, None] * stride_dw + cols[None, :]
        db_offs = rows[:, None] * stride_db + cols[None, :]
        # Column sums of this block of rows.
        sum_dw += tl.sum(tl.load(DW_partial + dw_offs, mask=mask, other=0.0), axis=0)
        sum_db += tl.sum(tl.load(DB_partial + db_offs, mask=mask, other=0.0), axis=0)
    tl.store(FINAL_DW + cols, sum_dw.to(FINAL_DW.dtype.element_ty), mask=cols < N)
    tl.store(FINAL_DB + cols, sum_db.to(FINAL_DB.dtype.element_ty), mask=cols < N)


class LayerNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, normalized_shape, weight, bias, eps):
        y = torch.empty_like(x)
        # reshape input data into 2D tensor
        x_arg = x.reshape(-1, x.shape[-1])
        y_arg = y.view(-1, y.shape[-1])
        M, N = x_arg.shape
        mean = torch.empty((M,), dtype=torch.float32, device=x.device)
        rstd = torch.empty((M,), dtype=torch.float32, device=x.device)
        BLOCK_SIZE = triton.next_power_of_2(N)
        if N > BLOCK_SIZE or BLOCK_SIZE > MAX_FUSED_SIZE:
            raise RuntimeError("This layer norm doesn't support feature dim >= 64KB.")
        # heuristics for number of warps
        num_warps = min(max(BLOCK_SIZE // 256, 1), 8)
        _layer_norm_fwd_fused[(M,)](
            x_arg,
            y_arg,
            weight,
            bias,
            mean,
            rstd,
            x_arg.stride(0),
            y_arg.stride(0),
            N,
            eps,
            BLOCK_SIZE=BLOCK_SIZE,
            num_warps=num_warps,
        )
        ctx.save_for_backward(x, weight, bias, mean, rstd)
        ctx.BLOCK_SIZE = BLOCK_SIZE
        ctx.num_warps = num_warps
        ctx.eps = eps
        return y

    @staticmethod
    def backward(ctx, dy):
        x, w, b, m, v = ctx.saved_tensors
        dy = dy.contiguous()
        x_arg = x.reshape(-1, x.shape[-1])
        dy_arg = dy.view(-1, dy.shape[-1])
        M, N = x_arg.shape
        # allocate output
        dx = torch.empty_like(dy_arg)
        _dw = torch.empty((M, N), dtype=torch.float32, device=w.device)
        _db = torch.empty((M, N), dtype=torch.float32, device=w.device)
        dw = torch.empty((N,), dtype=w.dtype, device=w.device)
        db = torch.empty((N,), dtype=w.dtype, device=w.device)
        # enqueue kernel using forward pass heuristics
        # also compute partial sums for DW and DB
        _layer_norm_bwd_dx_fused[(M,)](
            dx,
            dy_arg,
            _dw,
            _db,
            x_arg,
            w,
            m,
            v,
            dx.stride(0),
            dy_arg.stride(0),
            _dw.stride(0),
            _db.stride(0),
            x_arg.stride(0),
            N,
            BLOCK_SIZE_N=ctx.BLOCK_SIZE,
            num_warps=ctx.num_warps,
        )
        # accumulate partial sums in separate kernel
        _layer_norm_bwd_dwdb[lambda meta: (triton.cdiv(N, meta["BLOCK_SIZE_N"]),)](
            _dw,
            _db,
            dw,
            db,
            M,
            N,
            _dw.stride(0),
            _db.stride(0),
            BLOCK_SIZE_M=BLOCK_SIZE_M_DWDB,
            BLOCK_SIZE_N=BLOCK_SIZE_N_DWDB,
        )
        return dx.view_as(dy), None, dw, db, None


def layer_norm(
    x: torch.Tensor,
    normalized_shape: tuple[int, ...],
    weight: torch.Tensor,
    bias: torch.Tensor,
    eps: float = 1e-5,
) -> torch.Tensor:
    """``F.layer_norm`` over the last dimension, differentiable in ``x``, ``weight``, ``bias``."""
    x = x.contiguous()
    return LayerNorm.apply(x, normalized_shape, weight, bias, eps)
