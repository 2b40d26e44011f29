"""FlagGems-style reductions over the last dim of a tensor of any rank: the host counts rows as
``x.numel() // N`` and the kernel addresses ``row * N + col`` in the contiguous input; the
block size and warps come from named heuristic functions."""

import torch
import triton
import triton.language as tl


def libentry():
    def decorator(fn):
        return fn

    return decorator


def heur_block_n(args):
    return min(triton.next_power_of_2(args["N"]), 64)


def heur_num_warps(args):
    if args["N"] <= 32:
        return 2
    elif args["N"] <= 1024:
        return 4
    else:
        return 8


@libentry()
@triton.heuristics({"BLOCK_N": heur_block_n, "num_warps": heur_num_warps})
@triton.jit
def row_max_kernel(inp, out, M, N, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    best = tl.full([], float("-inf"), dtype=tl.float32)
    for off in range(0, N, BLOCK_N):
        cols = off + tl.arange(0, BLOCK_N)
        vals = tl.load(inp + pid * N + cols, mask=cols < N, other=float("-inf"))
        best = tl.maximum(best, tl.max(vals.to(tl.float32), axis=0))
    tl.store(out + pid, best)


@libentry()
@triton.jit
def row_scale_kernel(inp, scale, out, N, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(inp + pid * N + cols, mask=mask, other=0.0)
    s = tl.load(scale + pid)
    tl.store(out + pid * N + cols, (x / s).to(out.dtype.element_ty), mask=mask)


def max_scale(inp: torch.Tensor) -> torch.Tensor:
    """Each last-dim row of ``inp`` divided by its largest element."""
    N = inp.shape[-1]
    M = inp.numel() // N
    inp = inp.contiguous()
    row_max = torch.empty(M, dtype=torch.float32, device=inp.device)
    with torch.cuda.device(inp.device):
        row_max_kernel[(M,)](inp, row_max, M, N)
    out = torch.empty_like(inp)
    row_scale_kernel[(M,)](inp, row_max, out, N, BLOCK_N=triton.next_power_of_2(N))
    return out


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_M": m, "BLOCK_N": n}, num_warps=4) for m in [2, 4] for n in [16, 64]
    ],
    key=["M", "N"],
)
@triton.jit
def row_sum_kernel(inp, out, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]
    row_mask = rows < M
    # One partial sum per lane of the block, reduced once after the loop.
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for off in range(0, N, BLOCK_N):
        cols = off + tl.arange(0, BLOCK_N)[None, :]
        a = tl.load(inp + rows * N + cols, row_mask & (cols < N), other=0.0).to(tl.float32)
        acc += a
    total = tl.sum(acc, axis=1)[:, None]
    tl.store(out + rows, total, row_mask)


def row_sums(inp: torch.Tensor, *, dtype: torch.dtype | None = None) -> torch.Tensor:
    """The sums of ``inp`` over its last dim, in ``dtype`` (fp32 by default)."""
    shape = list(inp.shape)
    N = shape[-1]
    M = inp.numel() // N
    inp = inp.contiguous()
    out = torch.empty(M, dtype=dtype or torch.float32, device=inp.device)
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]),)  # noqa: E731
    row_sum_kernel[grid](inp, out, M, N)
    return out.view(shape[:-1])


@triton.jit
def row_mean_square_kernel(x, out, N, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    v = tl.load(x + row * N + cols, mask=cols < N, other=0.0).to(tl.float32)
    tl.store(out + row, tl.sum(v * v, axis=0) / N)


def row_mean_squares(x: torch.Tensor) -> torch.Tensor:
    """The mean square of each row of 2-d ``x`` (taken as row-major: no strides are passed)."""
    M, N = x.shape
    out = torch.empty(M, dtype=torch.float32, device=x.device)
    row_mean_square_kernel[(M,)](x, out, N, BLOCK_N=triton.next_power_of_2(N))
    return out
