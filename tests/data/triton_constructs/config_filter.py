"""Autotune configs in the fused-attention tutorial's style: a module-level comprehension whose
stages are chosen by a platform test the translator cannot evaluate, narrowed by a module function
that reads each config's meta-parameters and warps (``list(filter(keep, configs))``)."""

import torch
import triton
import triton.language as tl


def is_hip():
    return torch.version.hip is not None


configs = [
    triton.Config({"BLOCK_M": bm, "BLOCK_N": bn}, num_stages=s, num_warps=w)
    for bm in [16, 32]
    for bn in [16, 64]
    for s in ([1] if is_hip() else [2, 3])
    for w in [2, 4]
]


def keep(conf):
    block_m = conf.kwargs["BLOCK_M"]
    block_n = conf.kwargs["BLOCK_N"]
    if block_m * block_n < 32 * 64 and conf.num_warps == 4:
        return False
    elif conf.num_stages == 3:
        return block_n != 16
    return True


@triton.autotune(list(filter(keep, configs)), key=["M", "N"])
@triton.jit
def _scaled_residual_kernel(
    X,
    R,
    Out,
    M,
    N,
    stride_xm,
    stride_rm,
    stride_om,
    scale,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    x = tl.load(X + offs_m[:, None] * stride_xm + offs_n[None, :], mask=mask, other=0.0)
    r = tl.load(R + offs_m[:, None] * stride_rm + offs_n[None, :], mask=mask, other=0.0)
    out = x.to(tl.float32) * scale + r.to(tl.float32)
    tl.store(
        Out + offs_m[:, None] * stride_om + offs_n[None, :], out.to(Out.dtype.element_ty), mask=mask
    )


def scaled_residual(x: torch.Tensor, r: torch.Tensor, scale: float) -> torch.Tensor:
    """``x * scale + r`` for 2-d ``x`` and ``r`` of one shape."""
    assert x.shape == r.shape
    M, N = x.shape
    out = torch.empty_like(x)
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]), triton.cdiv(N, meta["BLOCK_N"]))
    _scaled_residual_kernel[grid](x, r, out, M, N, x.stride(0), r.stride(0), out.stride(0), scale)
    return out
