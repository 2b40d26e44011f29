"""A host-computed value inside a triton.Config (a device query): refused with a diagnostic."""

from __future__ import annotations

import torch
import triton
import triton.language as tl


def num_sms() -> int:
    if torch.cuda.is_available():
        return torch.cuda.get_device_properties("cuda").multi_processor_count
    return 4


@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 128, "NUM_SM": num_sms()}),
        triton.Config({"BLOCK": 256, "NUM_SM": num_sms()}),
    ],
    key=["n"],
)
@triton.jit
def _persistent_copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr, NUM_SM: tl.constexpr):
    pid = tl.program_id(0)
    num_tiles = tl.cdiv(n, BLOCK)
    for tile in range(pid, num_tiles, NUM_SM):
        offs = tile * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


def copy(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    _persistent_copy[lambda meta: (min(meta["NUM_SM"], triton.cdiv(n, meta["BLOCK"])),)](x, out, n)
    return out
