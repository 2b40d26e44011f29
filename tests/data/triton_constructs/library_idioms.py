"""Idioms of production Triton modules around a kernel: a module constant declared
``tl.constexpr`` (Liger), a libdevice function bound to a module name (Unsloth's version
guard), a config function that builds its list in locals (FlagGems' ``cfggen``), a constexpr
flag the launch computes (``HAS_BIAS=bias is not None``), a constexpr branch that changes a
value's dtype, and ``tl.assume``."""

import torch
import triton
import triton.language as tl

try:
    from triton.language.extra import libdevice

    fast_tanh = libdevice.tanh
except ImportError:  # older Triton
    fast_tanh = tl.math.tanh

_GELU_TANH: tl.constexpr = tl.constexpr(1)


def cfggen():
    blocks = [32, 64]
    configs = [triton.Config({"BLOCK": b}, num_warps=4) for b in blocks]
    return configs


@triton.autotune(configs=cfggen(), key=["n"])
@triton.jit
def _bias_gelu_kernel(x_ptr, bias_ptr, y_ptr, n, ACT: tl.constexpr, HAS_BIAS: tl.constexpr,
                      UPCAST: tl.constexpr, BLOCK: tl.constexpr):  # fmt: skip
    pid = tl.program_id(0)
    tl.assume(pid >= 0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    # Liger's casting modes: a constexpr branch may change a value's dtype.
    if UPCAST == 1:
        x = x.to(tl.float32)
    if HAS_BIAS:
        x += tl.load(bias_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    if ACT == _GELU_TANH:
        y = 0.5 * x * (1.0 + fast_tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))
    else:
        y = x
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def bias_gelu(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """``gelu_tanh(x + bias)`` elementwise over flat ``x`` and ``bias`` of one size."""
    y = torch.empty_like(x)
    n = x.numel()
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK"]),)  # noqa: E731
    _bias_gelu_kernel[grid](x, bias, y, n, ACT=1, HAS_BIAS=bias is not None, UPCAST=1)
    return y


@triton.jit
def _row_absmax_kernel(x_ptr, out_ptr, n_cols, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    # Padding with 0 is safe for a max of magnitudes (per-token quantisation scales).
    x = tl.load(x_ptr + row * stride_row + cols, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row, tl.max(tl.abs(x.to(tl.float32)), axis=0))


def row_absmax(x: torch.Tensor) -> torch.Tensor:
    """The largest magnitude of each row of 2-d ``x``, in fp32."""
    out = torch.empty(x.shape[0], dtype=torch.float32, device=x.device)
    _row_absmax_kernel[(x.shape[0],)](
        x, out, x.shape[1], x.stride(0), BLOCK=triton.next_power_of_2(x.shape[1])
    )
    return out


@triton.jit
def _scaled(x, how: tl.constexpr):
    if how == "double":
        x = x * tl.math.rsqrt(0.25)  # a math function of a Python number: 2.0
    return x


@triton.jit
def _scale_kernel(x_ptr, y_ptr, n, mode: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    # The string is compared in a helper, as attorch's apply_act_func does.
    tl.store(y_ptr + offs, _scaled(x, mode), mask=mask)


def _scale_forward(x, y, mode):
    # Unannotated, as library helpers are: `mode` is a string because the kernel compares it
    # with one.
    n = x.numel()
    _scale_kernel[(triton.cdiv(n, 128),)](x, y, n, mode=mode, BLOCK=128)
    return y


def scale(x: torch.Tensor, mode: str = "double") -> torch.Tensor:
    """``2 * x`` for ``mode="double"``, else ``x``."""
    return _scale_forward(x, torch.empty_like(x), mode)


def _negate_block(args):
    block = triton.next_power_of_2(args["n"])
    return min(block, 64)


@triton.heuristics({"BLOCK": _negate_block, "NEG": lambda args: bool(args["NEG"])})
@triton.jit
def _maybe_negate_kernel(x_ptr, y_ptr, n, NEG: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    if NEG:
        x = -x
    tl.store(y_ptr + offs, x, mask=mask)


def negate(x: torch.Tensor) -> torch.Tensor:
    """``-x``: a heuristic with locals sizes the block, and one rereads a launch flag."""
    y = torch.empty_like(x)
    n = x.numel()
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK"]),)  # noqa: E731
    _maybe_negate_kernel[grid](x, y, n, NEG=1)
    return y


@triton.jit
def _double_kernel(x_ptr, y_ptr, size, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < size
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)


def double(x: torch.Tensor) -> torch.Tensor:
    """``2 * x``, over ``x.flatten()`` sized by ``len()`` (attorch's spelling)."""
    flat = x.flatten()
    size = len(flat)
    out = torch.empty_like(flat)
    _double_kernel[(triton.cdiv(size, 128),)](flat, out, size, BLOCK=128)
    return out.view_as(x)


@triton.heuristics(
    {
        "EVEN_M": lambda args: args["M"] % args["BLOCK_M"] == 0,
        "EVEN_N": lambda args: args["N"] % args["BLOCK_N"] == 0,
    }
)
@triton.jit
def _shift_kernel(x_ptr, y_ptr, M, N, stride_xm, stride_ym,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  EVEN_M: tl.constexpr, EVEN_N: tl.constexpr):  # fmt: skip
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    x_ptrs = x_ptr + rm[:, None] * stride_xm + rn[None, :]
    y_ptrs = y_ptr + rm[:, None] * stride_ym + rn[None, :]
    # Python's `and` on constexpr flags, as kernels that skip masks on even sizes write it.
    if EVEN_M and EVEN_N:
        tl.store(y_ptrs, tl.load(x_ptrs) + 1.0)
    else:
        mask = (rm[:, None] < M) & (rn[None, :] < N)
        tl.store(y_ptrs, tl.load(x_ptrs, mask=mask, other=0.0) + 1.0, mask=mask)


def shift(x: torch.Tensor) -> torch.Tensor:
    """``x + 1`` over a 2-d ``x`` with a unit last stride."""
    M, N = x.shape
    y = torch.empty_like(x)
    grid = (triton.cdiv(M, 16), triton.cdiv(N, 32))
    _shift_kernel[grid](x, y, M, N, x.stride(0), y.stride(0), BLOCK_M=16, BLOCK_N=32)
    return y


@triton.jit
def _quantize_kernel(x_ptr, q_ptr, n, inv_scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    # C's round (halves away from zero), as int8 quantisation kernels round.
    q = libdevice.round(x * inv_scale)
    tl.store(q_ptr + offs, tl.minimum(tl.maximum(q, -127.0), 127.0), mask=mask)


def quantize(x: torch.Tensor, scale: float = 0.05) -> torch.Tensor:
    """``clamp(round(x / scale), -127, 127)`` in fp32, halves rounded away from zero."""
    q = torch.empty_like(x, dtype=torch.float32)
    n = x.numel()
    _quantize_kernel[(triton.cdiv(n, 128),)](x, q, n, 1.0 / scale, BLOCK=128)
    return q
