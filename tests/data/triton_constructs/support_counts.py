"""A sparsemax-style backward: the sum and count of the gradient over each row's support
(``o > 0``), in chunks of a block size the host computes. The padded lanes load 0, so the
condition is false there and ``tl.where(supp, 1.0, 0.0)`` pads with the sum's identity."""

import torch
import triton
import triton.language as tl


@triton.jit
def _support_mean_kernel(o_ptr, go_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc_sum = tl.zeros((), dtype=tl.float32)
    acc_cnt = tl.zeros((), dtype=tl.float32)
    for i in range(0, tl.cdiv(n_cols, BLOCK)):
        offs = i * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n_cols
        o = tl.load(o_ptr + row * stride + offs, mask=mask, other=0.0).to(tl.float32)
        go = tl.load(go_ptr + row * stride + offs, mask=mask, other=0.0).to(tl.float32)
        supp = o > 0.0
        acc_sum += tl.sum(tl.where(supp, go, 0.0))
        acc_cnt += tl.sum(tl.where(supp, 1.0, 0.0))
    tl.store(out_ptr + row, acc_sum / tl.maximum(acc_cnt, 1e-9))


def support_mean(o: torch.Tensor, go: torch.Tensor) -> torch.Tensor:
    """The mean of ``go`` over the lanes where ``o`` is positive, per row."""
    m, n = o.shape
    out = torch.empty(m, dtype=torch.float32, device=o.device)
    BLOCK = triton.next_power_of_2(min(n, 1024))
    _support_mean_kernel[(m,)](o, go, out, n, o.stride(0), BLOCK=BLOCK)
    return out
