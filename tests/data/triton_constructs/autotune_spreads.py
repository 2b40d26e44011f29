"""Library-style autotuning (FLA's utils): the config space runs over module-level lists, one of
them chosen by a platform test the translator cannot evaluate; every ``@triton.autotune`` spreads
a shared dict of cache options; the launch grid is a one-line ``def``."""

import inspect

import torch
import triton
import triton.language as tl

IS_HIP = torch.version.hip is not None
ROWS_LIST = [2, 4, 8]
WARPS_LIST = [1, 2, 4] if IS_HIP else [2, 4, 8]

SUPPORTS_AUTOTUNE_CACHE = "cache_results" in inspect.signature(triton.autotune).parameters
autotune_cache_kwargs = {"cache_results": True} if SUPPORTS_AUTOTUNE_CACHE else {}


@triton.autotune(
    configs=[
        triton.Config({"BM": BM}, num_warps=num_warps)
        for num_warps in WARPS_LIST
        for BM in ROWS_LIST
    ],
    key=["N"],
    **autotune_cache_kwargs,
)
@triton.jit
def row_scale_fwd_kernel(x, w, y, M, N, stride_m, BM: tl.constexpr, BN: tl.constexpr):
    i_m = tl.program_id(0)
    rows = i_m * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    b_x = tl.load(x + rows[:, None] * stride_m + cols[None, :], mask=mask, other=0.0)
    b_w = tl.load(w + cols, mask=cols < N, other=0.0)
    b_y = b_x.to(tl.float32) * b_w.to(tl.float32)[None, :]
    tl.store(y + rows[:, None] * stride_m + cols[None, :], b_y.to(y.dtype.element_ty), mask=mask)


def row_scale(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """``x * w`` with ``w`` broadcast over the rows of the 2-d ``x``."""
    assert x.stride(-1) == 1
    M, N = x.shape
    y = torch.empty_like(x)
    BN = triton.next_power_of_2(N)

    def grid(meta): return (triton.cdiv(M, meta["BM"]),)  # noqa: E704  # fmt: skip

    row_scale_fwd_kernel[grid](x, w, y, M, N, x.stride(0), BN=BN)
    return y
