"""MoE grouped GEMM launched over (experts, row tiles of the busiest expert, column tiles):
each program offsets its rows by its expert's first token and masks rows past the expert's last
(a tile wholly past it reads and stores nothing). tiletrans refuses the grid tile offset by a
loaded value; examples/library/triton/moe_grouped_gemm.py loops over each expert's row tiles."""

from __future__ import annotations

import torch
import triton
import triton.language as tl

MOE_CONFIGS = [
    triton.Config({"BLOCK_M": 16, "BLOCK_N": 32, "BLOCK_K": 16}, num_warps=4, num_stages=2),
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, num_warps=4, num_stages=3),
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 64}, num_warps=8, num_stages=3),
]


def _first_config_off_device(configs, named_args, **kwargs):
    # Timing configs needs a GPU: elsewhere (the interpreter) keep the first one.
    return configs if named_args["x_ptr"].is_cuda else configs[:1]


@triton.autotune(
    configs=MOE_CONFIGS,
    key=["N", "K"],
    prune_configs_by={"early_config_prune": _first_config_off_device},
)
@triton.jit
def _moe_grouped_gemm_kernel(
    x_ptr,
    w_ptr,
    out_ptr,
    expert_offsets_ptr,
    N,
    K,
    stride_xm,
    stride_xk,
    stride_we,
    stride_wk,
    stride_wn,
    stride_om,
    stride_on,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
):
    expert = tl.program_id(0)
    pid_m = tl.program_id(1)
    pid_n = tl.program_id(2)
    start = tl.load(expert_offsets_ptr + expert)
    end = tl.load(expert_offsets_ptr + expert + 1)

    # Rows of this program's tile of its expert; past the expert's last token, masked.
    offs_m = start + pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    mask_m = offs_m < end
    mask_n = offs_n < N
    x_ptrs = x_ptr + offs_m[:, None] * stride_xm + offs_k[None, :] * stride_xk
    w_ptrs = w_ptr + expert * stride_we + offs_k[:, None] * stride_wk + offs_n[None, :] * stride_wn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        mask_k = offs_k < K - k * BLOCK_K
        a = tl.load(x_ptrs, mask=mask_m[:, None] & mask_k[None, :], other=0.0)
        b = tl.load(w_ptrs, mask=mask_k[:, None] & mask_n[None, :], other=0.0)
        acc = tl.dot(a, b, acc)
        x_ptrs += BLOCK_K * stride_xk
        w_ptrs += BLOCK_K * stride_wk
    out_ptrs = out_ptr + offs_m[:, None] * stride_om + offs_n[None, :] * stride_on
    tl.store(out_ptrs, acc.to(out_ptr.dtype.element_ty), mask=mask_m[:, None] & mask_n[None, :])


def moe_grouped_gemm(
    x: torch.Tensor, w: torch.Tensor, expert_offsets: torch.Tensor
) -> torch.Tensor:
    """``out[rows of e] = x[rows of e] @ w[e]`` for expert-sorted tokens ``x`` [T, K], expert
    weights ``w`` [E, K, N] and ``expert_offsets`` [E + 1] (experts may have no tokens)."""
    assert x.dim() == 2 and w.dim() == 3, "x [tokens, K], w [experts, K, N]"
    assert x.shape[1] == w.shape[1], "hidden sizes differ"
    assert expert_offsets.shape == (w.shape[0] + 1,), "expert_offsets needs experts + 1 entries"
    T, K = x.shape
    E, _, N = w.shape
    out = torch.empty((T, N), dtype=x.dtype, device=x.device)

    # The busiest expert sets the row-tile count (one host sync on the routing).
    max_tokens = int(expert_offsets.diff().max())

    def grid(meta):
        return (E, triton.cdiv(max_tokens, meta["BLOCK_M"]), triton.cdiv(N, meta["BLOCK_N"]))

    _moe_grouped_gemm_kernel[grid](
        x,
        w,
        out,
        expert_offsets,
        N,
        K,
        x.stride(0),
        x.stride(1),
        w.stride(0),
        w.stride(1),
        w.stride(2),
        out.stride(0),
        out.stride(1),
    )
    return out
