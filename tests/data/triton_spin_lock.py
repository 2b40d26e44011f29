"""Per-group partial sums of ``x * dy`` rows, accumulated under a spin lock per group (the
layer-norm tutorial's backward style): refused with the atomic accumulation to write instead."""

import torch
import triton
import triton.language as tl


@triton.jit
def _group_partials_kernel(
    X, DY, Part, Locks, stride, N, GROUP: tl.constexpr, BLOCK_N: tl.constexpr
):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    dy = tl.load(DY + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    group = row % GROUP
    lock = Locks + group
    seen = lock + GROUP
    part = Part + group * N + cols
    share = x * dy
    while tl.atomic_cas(lock, 0, 1) == 1:
        pass
    if tl.load(seen) == 0:
        tl.atomic_xchg(seen, 1)
    else:
        share += tl.load(part, mask=mask)
    tl.store(part, share, mask=mask)
    tl.debug_barrier()
    tl.atomic_xchg(lock, 0)


def group_partials(x: torch.Tensor, dy: torch.Tensor, group: int = 4) -> torch.Tensor:
    """``part[g] = sum of x[r] * dy[r] over the rows r with r % group == g``."""
    M, N = x.shape
    part = torch.zeros((group, N), dtype=torch.float32, device=x.device)
    locks = torch.zeros(2 * group, dtype=torch.int32, device=x.device)
    BLOCK_N = triton.next_power_of_2(N)
    _group_partials_kernel[(M,)](x, dy, part, locks, x.stride(0), N, GROUP=group, BLOCK_N=BLOCK_N)
    return part
