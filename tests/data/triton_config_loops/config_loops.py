"""Autotune configs built by code rather than written as literals (team-written in the styles
of Triton examples' ``get_autotune_config()`` and itertools-built lists)."""

import itertools

import torch
import triton
import triton.language as tl


def get_autotune_config():
    configs = []
    for block in [64, 128]:
        for warps in [2, 4]:
            if block * warps <= 256:
                configs.append(triton.Config({"BLOCK": block}, num_warps=warps))
    configs.extend([triton.Config({"BLOCK": 32}, num_warps=1)])
    return configs


PRODUCT_CONFIGS = [
    triton.Config({"BLOCK": b}, num_warps=w) for b, w in itertools.product([32, 64], [1, 2])
]


@triton.autotune(configs=get_autotune_config(), key=["n"])
@triton.jit
def _double(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m) * 2.0, mask=m)


@triton.autotune(configs=PRODUCT_CONFIGS, key=["n"])
@triton.jit
def _shift(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m) + 1.0, mask=m)


def double(x: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)
    n = x.numel()
    _double[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, n)
    return y


def shift(x: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)
    n = x.numel()
    _shift[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, n)
    return y
