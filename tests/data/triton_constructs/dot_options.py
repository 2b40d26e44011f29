"""tl.dot with acc=, input_precision= and out_dtype= in a K loop."""

import torch
import triton
import triton.language as tl


@triton.jit
def k(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    sam,
    sak,
    sbk,
    sbn,
    scm,
    scn,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BM + tl.arange(0, BM)
    offs_n = pid_n * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for kk in range(0, tl.cdiv(K, BK)):
        offs_k = kk * BK + tl.arange(0, BK)
        a = tl.load(
            a_ptr + offs_m[:, None] * sam + offs_k[None, :] * sak,
            mask=(offs_m[:, None] < M) & (offs_k[None, :] < K),
            other=0.0,
        )
        b = tl.load(
            b_ptr + offs_k[:, None] * sbk + offs_n[None, :] * sbn,
            mask=(offs_k[:, None] < K) & (offs_n[None, :] < N),
            other=0.0,
        )
        acc = tl.dot(a, b, acc=acc, input_precision="ieee", out_dtype=tl.float32)
    tl.store(
        c_ptr + offs_m[:, None] * scm + offs_n[None, :] * scn,
        acc,
        mask=(offs_m[:, None] < M) & (offs_n[None, :] < N),
    )


def f(a: torch.Tensor, b: torch.Tensor):
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=torch.float32)
    k[(triton.cdiv(M, 16), triton.cdiv(N, 16))](
        a,
        b,
        c,
        M,
        N,
        K,
        a.stride(0),
        a.stride(1),
        b.stride(0),
        b.stride(1),
        c.stride(0),
        c.stride(1),
        BM=16,
        BN=16,
        BK=16,
    )
    return c
