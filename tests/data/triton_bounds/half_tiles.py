"""Block sizes spelt as expressions of constexprs (the Liger RoPE idiom): a half-head tile
``tl.arange(0, pad_hd // 2)`` with ``pad_hd = next_power_of_2(head_dim)``, masked by
``hd // 2``, and the right half addressed ``hd // 2`` further on."""

import torch
import triton
import triton.language as tl


@triton.jit
def _rope_kernel(
    q_ptr,
    cos_ptr,
    sin_ptr,
    q_row_stride,
    cos_row_stride,
    hd: tl.constexpr,
    pad_hd: tl.constexpr,
):
    pid = tl.program_id(0)
    q_ptr += pid * q_row_stride
    cos_ptr += pid * cos_row_stride
    sin_ptr += pid * cos_row_stride
    offs = tl.arange(0, pad_hd // 2)
    mask = offs < hd // 2
    cos = tl.load(cos_ptr + offs, mask=mask, other=0)
    sin = tl.load(sin_ptr + offs, mask=mask, other=0)
    x1 = tl.load(q_ptr + offs, mask=mask, other=0)
    x2 = tl.load(q_ptr + offs + hd // 2, mask=mask, other=0)
    tl.store(q_ptr + offs, x1 * cos - x2 * sin, mask=mask)
    tl.store(q_ptr + offs + hd // 2, x2 * cos + x1 * sin, mask=mask)


def rope(q: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor):
    """Rotates the halves of each row of ``q`` (n_rows, head_dim) in place by the row's
    ``cos``/``sin`` (n_rows, head_dim // 2)."""
    n_rows, head_dim = q.shape
    assert cos.shape == (n_rows, head_dim // 2) and sin.shape == cos.shape
    pad_hd = triton.next_power_of_2(head_dim)
    _rope_kernel[(n_rows,)](q, cos, sin, q.stride(0), cos.stride(0), head_dim, pad_hd)
    return q
