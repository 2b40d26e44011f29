"""Autotuned constexprs read as values (`SCALE`) and as blocks (`BLOCK`) beside runtime
arguments spelled as their lowercase names: kernel parameters `scale` and `block`, the
latter passed the host value `shift`. The tunables get names of their own."""

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
def scale_kernel(x_ptr, out_ptr, n, scale, block, BLOCK: tl.constexpr, SCALE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, x * scale + block * SCALE, mask=mask)


def scale_shift(x: torch.Tensor, scale: float, shift: float) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK"]),)
    scale_kernel[grid](x, out, n, scale, shift)
    return out
