"""Elementwise operators in the FlagGems style: registered kernels behind device guards.

``add`` computes ``x + alpha * y``; ``leaky_relu`` is differentiable through an autograd
Function whose backward launches its own kernel. Kernels carry the library's registration
decorator (``@libentry()``, caching of launch metadata in the real library; a no-op here) above
``@triton.autotune``, and launches run under the library's device guard.
"""

from __future__ import annotations

import contextlib
import logging

import torch
import triton
import triton.language as tl

logger = logging.getLogger(__name__)


def libentry():
    """Kernel registration hook (caching of launch metadata in the real library)."""

    def decorator(fn):
        return fn

    return decorator


class torch_device_fn:
    """Device-generic guard, so the same host code runs on CUDA and on CPU (interpreter)."""

    @staticmethod
    def device(device: torch.device):
        if device.type == "cuda":
            return torch.cuda.device(device)
        return contextlib.nullcontext()


POINTWISE_CONFIGS = [
    triton.Config({"BLOCK_SIZE": 1024}, num_warps=4),
    triton.Config({"BLOCK_SIZE": 2048}, num_warps=8),
]


def _on_device_only(configs, named_args, **kwargs):
    # Benchmarking needs a GPU driver: elsewhere keep the first config only.
    first = next(iter(named_args.values()))
    return configs if first.is_cuda else configs[:1]


POINTWISE_PRUNE = {"early_config_prune": _on_device_only}


@libentry()
@triton.autotune(configs=POINTWISE_CONFIGS, key=["n_elements"], prune_configs_by=POINTWISE_PRUNE)
@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, alpha, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + alpha * y, mask=mask)


@libentry()
@triton.autotune(configs=POINTWISE_CONFIGS, key=["n_elements"], prune_configs_by=POINTWISE_PRUNE)
@triton.jit
def leaky_relu_forward_kernel(x_ptr, out_ptr, n_elements, slope, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    out = tl.where(x > 0, x, x * slope)
    tl.store(out_ptr + offsets, out.to(out_ptr.dtype.element_ty), mask=mask)


@libentry()
@triton.autotune(configs=POINTWISE_CONFIGS, key=["n_elements"], prune_configs_by=POINTWISE_PRUNE)
@triton.jit
def leaky_relu_backward_kernel(x_ptr, dy_ptr, dx_ptr, n_elements, slope, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    dy = tl.load(dy_ptr + offsets, mask=mask).to(tl.float32)
    dx = tl.where(x > 0, dy, dy * slope)
    tl.store(dx_ptr + offsets, dx.to(dx_ptr.dtype.element_ty), mask=mask)


def _grid(n_elements: int):
    return lambda meta: (triton.cdiv(n_elements, meta["BLOCK_SIZE"]),)


def add(x: torch.Tensor, y: torch.Tensor, *, alpha: float = 1.0) -> torch.Tensor:
    """``x + alpha * y`` for tensors of one shape."""
    logger.debug("GEMS ADD")
    if x.shape != y.shape:
        raise ValueError(f"shapes differ: {tuple(x.shape)} and {tuple(y.shape)}")
    x, y = x.contiguous(), y.contiguous()
    out = torch.empty_like(x)
    n_elements = out.numel()
    with torch_device_fn.device(x.device):
        add_kernel[_grid(n_elements)](x, y, out, n_elements, alpha)
    return out


class LeakyRelu(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x: torch.Tensor, slope: float) -> torch.Tensor:
        logger.debug("GEMS LEAKY_RELU FORWARD")
        x = x.contiguous()
        out = torch.empty_like(x)
        n_elements = x.numel()
        with torch_device_fn.device(x.device):
            leaky_relu_forward_kernel[_grid(n_elements)](x, out, n_elements, slope)
        ctx.save_for_backward(x)
        ctx.slope = slope
        return out

    @staticmethod
    def backward(ctx, dy: torch.Tensor):
        logger.debug("GEMS LEAKY_RELU BACKWARD")
        (x,) = ctx.saved_tensors
        dy = dy.contiguous()
        dx = torch.empty_like(x)
        n_elements = x.numel()
        with torch_device_fn.device(x.device):
            leaky_relu_backward_kernel[_grid(n_elements)](x, dy, dx, n_elements, ctx.slope)
        return dx, None


def leaky_relu(x: torch.Tensor, negative_slope: float = 0.01) -> torch.Tensor:
    """``torch.nn.functional.leaky_relu(x, negative_slope)``, differentiable in ``x``."""
    return LeakyRelu.apply(x, negative_slope)
