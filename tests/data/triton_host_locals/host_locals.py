"""Team-written wrappers in the styles of production libraries that compute launch arguments
into locals and conditionals before launching (FlagGems' `stride_batch = a_flat.stride(0)`,
applied-ai's per-optional-tensor strides, Liger's flag-guarded optional outputs and dummy
label pointers)."""

import torch
import triton
import triton.language as tl


@triton.jit
def _gate_rows(a_ptr, b_ptr, out_ptr, stride_batch, stride_dim, size_dim, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < size_dim
    a = tl.load(a_ptr + row * stride_batch + offs * stride_dim, mask=mask, other=0.0)
    b = tl.load(b_ptr + row * stride_batch + offs * stride_dim, mask=mask, other=0.0)
    gated = a * tl.sigmoid(b.to(tl.float32))
    tl.store(out_ptr + row * stride_batch + offs * stride_dim, gated, mask=mask)


def gate_rows(x: torch.Tensor) -> torch.Tensor:
    # The halves of a chunk, flattened to rows: one set of strides serves all three tensors.
    a, b = torch.chunk(x, 2, dim=-1)
    a_flat = a.contiguous().view(-1, a.shape[-1])
    b_flat = b.contiguous().view(-1, b.shape[-1])
    out = torch.empty_like(a_flat)
    size_batch = a_flat.size(0)
    size_dim = a_flat.size(1)
    stride_batch = a_flat.stride(0)
    stride_dim = a_flat.stride(1)
    _gate_rows[(size_batch,)](
        a_flat,
        b_flat,
        out,
        stride_batch,
        stride_dim,
        size_dim,
        BLOCK=triton.next_power_of_2(size_dim),
    )
    return out.view(a.shape)


@triton.jit
def _shift_add(
    x_ptr,
    init_ptr,
    out_ptr,
    stride_x_row,
    stride_init_row,
    stride_init_col,
    n_cols,
    BLOCK: tl.constexpr,
    HAS_INIT: tl.constexpr,
):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_x_row + cols, mask=mask, other=0.0)
    if HAS_INIT:
        init_row = init_ptr + row * stride_init_row
        x += tl.load(init_row + cols * stride_init_col, mask=mask, other=0.0)
    tl.store(out_ptr + row * stride_x_row + cols, x, mask=mask)


def shift_add(x: torch.Tensor, init: torch.Tensor | None = None) -> torch.Tensor:
    # Strides of an optional tensor: 0 unless it is given (applied-ai's causal conv).
    n_rows, n_cols = x.shape
    out = torch.empty_like(x)
    stride_init_row = 0
    stride_init_col = 0
    if init is not None:
        assert init.shape == x.shape
        stride_init_row = init.stride(0)
        stride_init_col = init.stride(1)
    _shift_add[(n_rows,)](
        x,
        init,
        out,
        x.stride(0),
        stride_init_row,
        stride_init_col,
        n_cols,
        BLOCK=triton.next_power_of_2(n_cols),
        HAS_INIT=init is not None,
    )
    return out


def shift_add_else(x: torch.Tensor, init: torch.Tensor | None = None) -> torch.Tensor:
    # The same, spelt as an if/else over the flag the launch passes.
    n_rows, n_cols = x.shape
    out = torch.empty_like(x)
    has_init = init is not None
    if has_init:
        s_row, s_col = init.stride(0), init.stride(1)
    else:
        s_row = 0
        s_col = 0
    _shift_add[(n_rows,)](
        x,
        init,
        out,
        x.stride(0),
        s_row,
        s_col,
        n_cols,
        BLOCK=triton.next_power_of_2(n_cols),
        HAS_INIT=has_init,
    )
    return out


def shift_add_ifexp(x: torch.Tensor, init: torch.Tensor | None = None) -> torch.Tensor:
    # Per-stride conditionals held in locals.
    n_rows, n_cols = x.shape
    out = torch.empty_like(x)
    stride_init_row = init.stride(0) if init is not None else 0
    stride_init_col = init.stride(1) if init is not None else 0
    _shift_add[(n_rows,)](
        x,
        init,
        out,
        x.stride(0),
        stride_init_row,
        stride_init_col,
        n_cols,
        BLOCK=triton.next_power_of_2(n_cols),
        HAS_INIT=init is not None,
    )
    return out


@triton.jit
def _row_sums(
    x_ptr, out_ptr, sums_ptr, stride, n_cols, BLOCK: tl.constexpr, HAS_SUMS: tl.constexpr
):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row * stride + cols, x * 3.0, mask=cols < n_cols)
    if HAS_SUMS:
        sums_ptr += row
        tl.store(sums_ptr, tl.sum(x, axis=0))


def row_sums(x: torch.Tensor, want_sums: bool):
    # An optional output that is None unless a flag asks for it (Liger's `dw if compute_dw`).
    n_rows, n_cols = x.shape
    out = torch.empty_like(x)
    sums = torch.zeros(n_rows, dtype=x.dtype, device=x.device) if want_sums else None
    _row_sums[(n_rows,)](
        x, out, sums, x.stride(0), n_cols, BLOCK=triton.next_power_of_2(n_cols), HAS_SUMS=want_sums
    )
    return out, sums


@triton.jit
def _masked_scale(
    x_ptr, labels_ptr, out_ptr, stride, n_cols, ignore, BLOCK: tl.constexpr, HAS_LABEL: tl.constexpr
):
    row = tl.program_id(0)
    labels_ptr += row
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
    if HAS_LABEL:
        label = tl.load(labels_ptr)
        if label == ignore:
            x = x * 0.0
    tl.store(out_ptr + row * stride + cols, x, mask=cols < n_cols)


def masked_scale(x: torch.Tensor, labels: torch.Tensor, has_label: bool) -> torch.Tensor:
    # A dummy pointer with no dtype where there are no labels (Liger's tvd).
    n_rows, n_cols = x.shape
    out = torch.empty_like(x)
    _masked_scale[(n_rows,)](
        x,
        labels if has_label else torch.empty(1, device=x.device),
        out,
        x.stride(0),
        n_cols,
        -100,
        BLOCK=triton.next_power_of_2(n_cols),
        HAS_LABEL=has_label,
    )
    return out
