"""Merging two partial attention states (SGLang's merge_state): the log-sum-exp of each part is a
runtime scalar that a Python conditional expression cleans up before the merge (an infinite lse
marks an empty part), and the weight of each part is chosen the same way."""

import torch
import triton
import triton.language as tl


@triton.jit
def merge_states_kernel(
    out,  # [num_rows, head_size]
    out_lse,  # [num_rows]
    a_out,
    a_lse,
    b_out,
    b_lse,
    head_size,
    stride_row,
    BLOCK_D: tl.constexpr,
):
    row = tl.program_id(0)
    la = tl.load(a_lse + row).to(tl.float32)
    lb = tl.load(b_lse + row).to(tl.float32)
    la = float("-inf") if la == float("inf") else la
    lb = float("-inf") if lb == float("inf") else lb

    m = tl.maximum(la, lb)
    se = tl.exp(la - m) + tl.exp(lb - m)
    tl.store(out_lse + row, (tl.log(se) + m).to(out_lse.dtype.element_ty))

    cols = tl.arange(0, BLOCK_D)
    mask = cols < head_size
    va = tl.load(a_out + row * stride_row + cols, mask=mask, other=0.0).to(tl.float32)
    vb = tl.load(b_out + row * stride_row + cols, mask=mask, other=0.0).to(tl.float32)
    # The larger part's weight is exp(0) / se; the other's is what is left of 1.
    wa = 1.0 / se if la >= lb else 1.0 - 1.0 / se
    wb = 1.0 - wa
    merged = va * wa + vb * wb
    tl.store(out + row * stride_row + cols, merged.to(out.dtype.element_ty), mask=mask)


def merge_states(
    a_out: torch.Tensor, a_lse: torch.Tensor, b_out: torch.Tensor, b_lse: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """The merged values and log-sum-exp of two attention parts over the same rows."""
    num_rows, head_size = a_out.shape
    out = torch.empty_like(a_out)
    out_lse = torch.empty_like(a_lse)
    merge_states_kernel[(num_rows,)](
        out,
        out_lse,
        a_out,
        a_lse,
        b_out,
        b_lse,
        head_size,
        a_out.stride(0),
        BLOCK_D=triton.next_power_of_2(head_size),
    )
    return out, out_lse
