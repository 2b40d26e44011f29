"""FLA-style row kernels over ``x.view(-1, x.shape[-1])`` of a tensor of any rank: the host passes
the row length ``D`` and the kernels address rows as ``i_t * D`` (a block pointer of shape
``(T, D)`` and strides ``(D, 1)``, or a pointer advanced by ``i_t * D``), so the tensors are read
as row-major; the block is the whole row, ``BD = next_power_of_2(D)`` capped at 64 KB."""

import torch
import triton
import triton.language as tl

BT_LIST = [2, 4, 8]


@triton.autotune(
    configs=[
        triton.Config({"BT": BT}, num_warps=num_warps) for num_warps in [1, 2] for BT in BT_LIST
    ],
    key=["D"],
)
@triton.jit
def rms_scale_fwd_kernel(x, y, T, D: tl.constexpr, BD: tl.constexpr, BT: tl.constexpr):
    i_t = tl.program_id(0)
    p_x = tl.make_block_ptr(x, (T, D), (D, 1), (i_t * BT, 0), (BT, BD), (1, 0))
    p_y = tl.make_block_ptr(y, (T, D), (D, 1), (i_t * BT, 0), (BT, BD), (1, 0))
    b_x = tl.load(p_x, boundary_check=(0, 1), padding_option="zero").to(tl.float32)
    b_rms = tl.sqrt(tl.sum(b_x * b_x, 1) / D + 1e-6)
    b_y = b_x / b_rms[:, None]
    tl.store(p_y, b_y.to(p_y.dtype.element_ty), boundary_check=(0, 1))


@triton.jit
def rms_scale_fwd_kernel1(x, y, D, BD: tl.constexpr):
    i_t = tl.program_id(0)
    x += i_t * D
    y += i_t * D
    cols = tl.arange(0, BD)
    mask = cols < D
    b_x = tl.load(x + cols, mask=mask, other=0.0).to(tl.float32)
    b_rms = tl.sqrt(tl.sum(b_x * b_x) / D + 1e-6)
    tl.store(y + cols, (b_x / b_rms).to(y.dtype.element_ty), mask=mask)


def rms_scale(x: torch.Tensor) -> torch.Tensor:
    """Each last-dim row of ``x`` divided by its root mean square."""
    x_shape_og = x.shape
    x = x.view(-1, x.shape[-1])
    y = torch.empty_like(x)
    T, D = x.shape[0], x.shape[-1]
    # Less than 64 KB per row.
    MAX_FUSED_SIZE = 65536 // x.element_size()
    BD = min(MAX_FUSED_SIZE, triton.next_power_of_2(D))
    if D > BD:
        raise RuntimeError("rows of 64 KB and more are not supported")
    if D <= 64:

        def grid(meta): return (triton.cdiv(T, meta["BT"]),)  # noqa: E704  # fmt: skip

        rms_scale_fwd_kernel[grid](x, y, T, D=D, BD=BD)
    else:
        rms_scale_fwd_kernel1[(T,)](x, y, D, BD=BD)
    return y.view(x_shape_og)


def rms_scale_rows(x: torch.Tensor) -> torch.Tensor:
    """:func:`rms_scale` through the one-row-per-program kernel, whatever the row length."""
    x_shape_og = x.shape
    x = x.view(-1, x.shape[-1])
    y = torch.empty_like(x)
    T, D = x.shape[0], x.shape[-1]
    rms_scale_fwd_kernel1[(T,)](x, y, D, BD=triton.next_power_of_2(D))
    return y.view(x_shape_og)
