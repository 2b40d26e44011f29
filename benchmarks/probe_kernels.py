"""Hand-written Triton variants that isolate one difference each between a source kernel and the
code Helion generates for its translation (used by ``benchmarks.gpu_gap_probe``).

Each kernel takes ``tl.constexpr`` switches; flipping one switch at a time from the source's
form (or from Helion's) and timing both says which difference costs the time. Sizes that Helion
bakes into its code (``static_shapes=True``) are passed as constexprs when ``STATIC`` is set.
"""

from __future__ import annotations

import triton
import triton.language as tl


@triton.jit
def _nan_max(a, b, NAN_MAX: tl.constexpr):
    if NAN_MAX:
        # torch._inductor's triton_helpers.maximum: NaN in `a` wins, else the larger
        return tl.where((a > b) | (a != a), a, b)
    else:
        return tl.maximum(a, b)


@triton.jit
def _ce_block(
    X_ptr,
    row_start,
    i,
    n_cols,
    m,
    d,
    BLOCK_SIZE: tl.constexpr,
    WHERE_MASK: tl.constexpr,
    NAN_MAX: tl.constexpr,
    FLAT_ADDR: tl.constexpr,
):
    """One step of the online log-sum-exp: the running max and sum after block ``i``."""
    offs = i + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_cols
    if FLAT_ADDR:  # noqa: SIM108 - each branch says which kernel's form it is
        # Helion's pointer indexing: one flattened offset per lane (row start + lane)
        ptrs = X_ptr + (row_start + offs)
    else:
        # the source: a row base pointer, then the lanes
        ptrs = (X_ptr + row_start) + offs
    if WHERE_MASK:
        # Helion: pad with 0, then select the reduction's identity before each reduction
        x = tl.load(ptrs, mask=mask, other=0.0).to(tl.float32)
        block_max = tl.max(tl.where(mask, x, float("-inf")), 0)
    else:
        # the source: pad with -inf, which tl.max and exp(-inf) = 0 absorb
        x = tl.load(ptrs, mask=mask, other=float("-inf")).to(tl.float32)
        block_max = tl.max(x, 0)
    m_new = _nan_max(m, block_max, NAN_MAX)
    e = tl.exp(x - m_new)
    if WHERE_MASK:
        e = tl.where(mask, e, 0.0)
    d = d * tl.exp(m - m_new) + tl.sum(e, 0)
    return m_new, d


@triton.jit
def cross_entropy_variant(
    X_ptr,
    X_stride,
    Y_ptr,
    loss_ptr,
    n_cols,
    ignore_index,
    N_COLS: tl.constexpr,
    STRIDE: tl.constexpr,
    BLOCK_SIZE: tl.constexpr,
    WHERE_MASK: tl.constexpr,
    NAN_MAX: tl.constexpr,
    INT64: tl.constexpr,
    IF_ELSE: tl.constexpr,
    STATIC: tl.constexpr,
    FLAT_ADDR: tl.constexpr = 0,
):
    """examples/triton/cross_entropy.py's kernel (all switches 0 but INT64) and Helion's form of
    its translation (WHERE_MASK, NAN_MAX, IF_ELSE, STATIC; INT64=0)."""
    pid = tl.program_id(0)
    if INT64:
        pid = pid.to(tl.int64)
    n = n_cols
    stride = X_stride
    if STATIC:
        n = N_COLS
        stride = STRIDE
    y = tl.load(Y_ptr + pid)
    row_start = pid * stride
    row_ptr = X_ptr + row_start
    # The loop is written out in both branch forms (the interpreter cannot pass a runtime
    # bound to a helper's range).
    if IF_ELSE:
        if y == ignore_index:
            tl.store(loss_ptr + pid, 0.0)
        else:
            m = float("-inf")
            d = 0.0
            x_y = tl.load(row_ptr + y).to(tl.float32)
            for i in tl.range(0, n, BLOCK_SIZE):
                m, d = _ce_block(
                    X_ptr, row_start, i, n, m, d, BLOCK_SIZE, WHERE_MASK, NAN_MAX, FLAT_ADDR
                )
            tl.store(loss_ptr + pid, m + tl.log(d) - x_y)
    else:
        if y == ignore_index:
            tl.store(loss_ptr + pid, 0.0)
            return
        m = float("-inf")
        d = 0.0
        x_y = tl.load(row_ptr + y).to(tl.float32)
        for i in range(0, n, BLOCK_SIZE):
            m, d = _ce_block(
                X_ptr, row_start, i, n, m, d, BLOCK_SIZE, WHERE_MASK, NAN_MAX, FLAT_ADDR
            )
        tl.store(loss_ptr + pid, m + tl.log(d) - x_y)


@triton.jit
def bmm_variant(
    a,
    c,
    out,
    B: tl.constexpr,
    M: tl.constexpr,
    N: tl.constexpr,
    K: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    THREE_D: tl.constexpr,
):
    """Helion 1.4's code for examples/helion/bmm.py (THREE_D: block-1 batch tiles, 3-D loads
    reshaped around tl.dot) and for its round trip (batch as a scalar index, 2-D loads)."""
    num_blocks_0 = B
    num_blocks_1 = tl.cdiv(M, BLOCK_M)
    pid_0 = tl.program_id(0) % num_blocks_0
    pid_1 = tl.program_id(0) // num_blocks_0 % num_blocks_1
    pid_2 = tl.program_id(0) // (num_blocks_0 * num_blocks_1)
    indices_1 = (pid_1 * BLOCK_M + tl.arange(0, BLOCK_M)).to(tl.int32)
    indices_2 = (pid_2 * BLOCK_N + tl.arange(0, BLOCK_N)).to(tl.int32)
    if THREE_D:
        indices_0 = pid_0 + tl.zeros([1], tl.int32)
        acc = tl.full([1, BLOCK_M, BLOCK_N], 0.0, tl.float32)
        for offset_3 in tl.range(0, K, BLOCK_K):
            indices_3 = offset_3 + tl.arange(0, BLOCK_K).to(tl.int32)
            lhs = tl.load(
                a
                + (
                    indices_0[:, None, None] * (M * K)
                    + indices_1[None, :, None] * K
                    + indices_3[None, None, :]
                )
            )
            rhs = tl.load(
                c
                + (
                    indices_0[:, None, None] * (K * N)
                    + indices_3[None, :, None] * N
                    + indices_2[None, None, :]
                )
            )
            acc = tl.reshape(
                tl.dot(
                    tl.reshape(lhs, [BLOCK_M, BLOCK_K]),
                    tl.reshape(rhs, [BLOCK_K, BLOCK_N]),
                    acc=tl.reshape(acc, [BLOCK_M, BLOCK_N]),
                    out_dtype=tl.float32,
                ),
                [1, BLOCK_M, BLOCK_N],
            )
        tl.store(
            out
            + (
                indices_0[:, None, None] * (M * N)
                + indices_1[None, :, None] * N
                + indices_2[None, None, :]
            ),
            acc.to(tl.float16),
        )
    else:
        acc = tl.full([BLOCK_M, BLOCK_N], 0.0, tl.float32)
        for offset_3 in tl.range(0, K, BLOCK_K):
            indices_3 = offset_3 + tl.arange(0, BLOCK_K).to(tl.int32)
            lhs = tl.load(a + (pid_0 * (M * K) + indices_1[:, None] * K + indices_3[None, :]))
            rhs = tl.load(c + (pid_0 * (K * N) + indices_3[:, None] * N + indices_2[None, :]))
            acc = tl.dot(lhs, rhs, acc=acc, out_dtype=tl.float32)
        tl.store(
            out + (pid_0 * (M * N) + indices_1[:, None] * N + indices_2[None, :]),
            acc.to(tl.float16),
        )
