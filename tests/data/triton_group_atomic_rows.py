"""Per-group partial sums of ``x * dy`` rows (the layer-norm tutorial's backward, written with
atomics instead of its lock): program ``row`` adds its share into row ``row % GROUP`` of the
partial sums, and a second kernel reduces the groups."""

import torch
import triton
import triton.language as tl


@triton.jit
def _group_partials_kernel(X, DY, Part, stride, N, GROUP: tl.constexpr, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    dy = tl.load(DY + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    group_id = row % GROUP
    tl.atomic_add(Part + group_id * N + cols, x * dy, mask=mask)


@triton.jit
def _sum_groups_kernel(Part, Out, G, N, BLOCK_G: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    cols = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_G, BLOCK_N), dtype=tl.float32)
    for start in range(0, G, BLOCK_G):
        rows = start + tl.arange(0, BLOCK_G)
        mask = (rows[:, None] < G) & (cols[None, :] < N)
        acc += tl.load(Part + rows[:, None] * N + cols[None, :], mask=mask, other=0.0)
    tl.store(Out + cols, tl.sum(acc, axis=0), mask=cols < N)


def weight_grad(x: torch.Tensor, dy: torch.Tensor) -> torch.Tensor:
    """``(x * dy).sum(0)`` for 2-d ``x`` and ``dy`` of one shape, through group partials."""
    M, N = x.shape
    group = 8 if N > 64 else 4
    part = torch.zeros((group, N), dtype=torch.float32, device=x.device)
    out = torch.empty((N,), dtype=torch.float32, device=x.device)
    BLOCK_N = triton.next_power_of_2(N)
    _group_partials_kernel[(M,)](x, dy, part, x.stride(0), N, GROUP=group, BLOCK_N=BLOCK_N)
    _sum_groups_kernel[(triton.cdiv(N, 32),)](part, out, group, N, BLOCK_G=4, BLOCK_N=32)
    return out
