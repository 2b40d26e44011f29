"""tl.expand_dims, tl.trans and tl.permute: a tile stored transposed."""

import torch
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, b_ptr, y_ptr, z_ptr, M, N, sxm, sym, szm, BM: tl.constexpr, BN: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BM + tl.arange(0, BM)
    offs_n = pid_n * BN + tl.arange(0, BN)
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    x = tl.load(x_ptr + offs_m[:, None] * sxm + offs_n[None, :], mask=mask, other=0.0)
    b = tl.load(b_ptr + offs_n, mask=offs_n < N, other=0.0)
    x = x + tl.expand_dims(b, 0)
    # y is x transposed: y[n, m] = x[m, n]
    tl.store(
        y_ptr + offs_n[:, None] * sym + offs_m[None, :],
        tl.trans(x),
        mask=(offs_n[:, None] < N) & (offs_m[None, :] < M),
    )
    tl.store(
        z_ptr + offs_n[:, None] * szm + offs_m[None, :],
        tl.permute(x * 2, (1, 0)),
        mask=(offs_n[:, None] < N) & (offs_m[None, :] < M),
    )


def f(x: torch.Tensor, b: torch.Tensor):
    M, N = x.shape
    assert x.is_contiguous()
    y = torch.empty((N, M), device=x.device, dtype=x.dtype)
    z = torch.empty((N, M), device=x.device, dtype=x.dtype)
    k[(triton.cdiv(M, 16), triton.cdiv(N, 32))](
        x, b, y, z, M, N, x.stride(0), y.stride(0), z.stride(0), BM=16, BN=32
    )
    return y, z
