"""Tiled matrix multiplication and a ``linear`` layer built on it (Triton tutorial style).

``matmul`` computes ``a @ b`` with fp32 accumulation; ``linear`` flattens the
leading dimensions of its input, multiplies by ``weight.T`` through the strides
(no transpose copy) and, when a bias is given, applies it with a second,
elementwise kernel (optionally fused with a ReLU).
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def is_cuda() -> bool:
    return DEVICE.type == "cuda" and torch.version.hip is None


def get_cuda_autotune_config():
    return [
        triton.Config(
            {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 64},
            num_stages=3,
            num_warps=8,
        ),
        triton.Config(
            {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 32}, num_stages=4, num_warps=4
        ),
        triton.Config(
            {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 32},
            num_stages=4,
            num_warps=4,
        ),
        triton.Config(
            {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 32}, num_stages=5, num_warps=2
        ),
    ]


def get_fallback_autotune_config():
    # The interpreter (and other non-CUDA targets) cannot benchmark: offer a single config.
    return [
        triton.Config({"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 32, "BLOCK_SIZE_K": 16}, num_warps=4)
    ]


def get_autotune_config():
    if is_cuda():
        return get_cuda_autotune_config()
    return get_fallback_autotune_config()


@triton.autotune(configs=get_autotune_config(), key=["M", "N", "K"])
@triton.jit
def matmul_kernel(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    stride_am,
    stride_ak,
    stride_bk,
    stride_bn,
    stride_cm,
    stride_cn,
    BLOCK_SIZE_M: tl.constexpr,
    BLOCK_SIZE_N: tl.constexpr,
    BLOCK_SIZE_K: tl.constexpr,
):
    """Kernel for computing the matmul C = A x B. A has shape (M, K), B (K, N), C (M, N)."""
    pid_m = tl.program_id(axis=0)
    pid_n = tl.program_id(axis=1)

    offs_am = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_bn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)

    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        offs_k = k * BLOCK_SIZE_K + tl.arange(0, BLOCK_SIZE_K)
        a = tl.load(
            a_ptr + offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak,
            mask=(offs_am[:, None] < M) & (offs_k[None, :] < K),
            other=0.0,
        )
        b = tl.load(
            b_ptr + offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn,
            mask=(offs_k[:, None] < K) & (offs_bn[None, :] < N),
            other=0.0,
        )
        accumulator = tl.dot(a, b, accumulator)
    c = accumulator.to(c_ptr.dtype.element_ty)

    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


@triton.jit
def _relu(x):
    return tl.maximum(x, 0.0)


@triton.jit
def _add_bias_kernel(
    C_ptr, Bias_ptr, M, N, stride_cm, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr
):
    offs_m = tl.program_id(0) * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_n = tl.program_id(1) * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    c = tl.load(C_ptr + offs_m[:, None] * stride_cm + offs_n[None, :], mask=mask, other=0.0)
    bias = tl.load(Bias_ptr + offs_n, mask=offs_n < N, other=0.0)
    out = c.to(tl.float32) + bias[None, :].to(tl.float32)
    tl.store(
        C_ptr + offs_m[:, None] * stride_cm + offs_n[None, :],
        out.to(C_ptr.dtype.element_ty),
        mask=mask,
    )


@triton.jit
def _add_bias_relu_kernel(
    C_ptr, Bias_ptr, M, N, stride_cm, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr
):
    offs_m = tl.program_id(0) * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_n = tl.program_id(1) * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    c = tl.load(C_ptr + offs_m[:, None] * stride_cm + offs_n[None, :], mask=mask, other=0.0)
    bias = tl.load(Bias_ptr + offs_n, mask=offs_n < N, other=0.0)
    out = _relu(c.to(tl.float32) + bias[None, :].to(tl.float32))
    tl.store(
        C_ptr + offs_m[:, None] * stride_cm + offs_n[None, :],
        out.to(C_ptr.dtype.element_ty),
        mask=mask,
    )


def matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``a @ b`` for 2-D ``a`` [M, K] and ``b`` [K, N] of any strides."""
    # Check constraints.
    assert a.shape[1] == b.shape[0], "Incompatible dimensions"
    M, K = a.shape
    K, N = b.shape
    # Allocates output.
    c = torch.empty((M, N), device=a.device, dtype=a.dtype)
    # 2D launch grid where each block gets its own tile of C.
    matmul_kernel[
        lambda META: (triton.cdiv(M, META["BLOCK_SIZE_M"]), triton.cdiv(N, META["BLOCK_SIZE_N"]))
    ](
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
    )
    return c


def linear(
    x: torch.Tensor,
    weight: torch.Tensor,
    bias: torch.Tensor | None = None,
    activation: str | None = None,
) -> torch.Tensor:
    """``x @ weight.T (+ bias)``, optionally followed by ReLU, for ``x`` of shape [..., K]."""
    if activation not in (None, "relu"):
        raise ValueError(f"unsupported activation {activation!r}")
    if activation is not None and bias is None:
        raise ValueError("the fused activation is applied with the bias; pass a bias")
    x_2d = x.reshape(-1, x.shape[-1])
    out = matmul(x_2d, weight.t())
    M, N = out.shape
    if bias is not None:
        BLOCK_SIZE_M, BLOCK_SIZE_N = 16, 32
        grid = (triton.cdiv(M, BLOCK_SIZE_M), triton.cdiv(N, BLOCK_SIZE_N))
        if activation == "relu":
            _add_bias_relu_kernel[grid](
                out, bias, M, N, out.stride(0), BLOCK_SIZE_M=BLOCK_SIZE_M, BLOCK_SIZE_N=BLOCK_SIZE_N
            )
        else:
            _add_bias_kernel[grid](
                out, bias, M, N, out.stride(0), BLOCK_SIZE_M=BLOCK_SIZE_M, BLOCK_SIZE_N=BLOCK_SIZE_N
            )
    return out.view(*x.shape[:-1], N)
