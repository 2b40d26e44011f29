"""An autotuned `SCALE` read as a value beside a runtime argument `scale`: the tunable standing
for `SCALE` is named apart from it (it was `scale`, and the argument merged with it)."""

import torch
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 64, "SCALE": 2}),
        triton.Config({"BLOCK": 128, "SCALE": 2}),
    ],
    key=["n"],
)
@triton.jit
def scale_kernel(x_ptr, out_ptr, n, scale, BLOCK: tl.constexpr, SCALE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, x * scale + SCALE, mask=mask)


def scale_add(x: torch.Tensor, scale: float) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK"]),)
    scale_kernel[grid](x, out, n, scale)
    return out
