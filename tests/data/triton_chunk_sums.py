"""Per-chunk row sums: the host sizes the output by the chunk, one column per chunk."""

import torch
import triton
import triton.language as tl


@triton.jit
def chunk_sums_kernel(x_ptr, out_ptr, n_cols, n_chunks, stride_x, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    for i in range(0, tl.cdiv(n_cols, BLOCK)):
        offs = i * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride_x + offs, mask=offs < n_cols, other=0.0)
        tl.store(out_ptr + row * n_chunks + i, tl.sum(x, axis=0))


def chunk_sums(x: torch.Tensor) -> torch.Tensor:
    n_rows, n_cols = x.shape
    BLOCK = min(1024, triton.next_power_of_2(n_cols))
    n_chunks = triton.cdiv(n_cols, BLOCK)
    out = torch.empty((n_rows, n_chunks), device=x.device, dtype=torch.float32)
    chunk_sums_kernel[(n_rows,)](x, out, n_cols, n_chunks, x.stride(0), BLOCK=BLOCK)
    return out
