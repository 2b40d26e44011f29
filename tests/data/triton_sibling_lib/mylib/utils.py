"""Helpers the library's kernels import (team-written, in the style of FlagGems' and unsloth's
utils modules)."""

import triton
import triton.language as tl

jit_decorator = triton.jit


@triton.jit
def _sigmoid(x):
    return 1.0 / (1.0 + tl.exp(-x))


@triton.jit
def silu(x):
    return x * _sigmoid(x)


@triton.jit
def program_id(axis: tl.constexpr):
    # FlagGems' triton_lang_extension style: a wrapper that forwards to tl.
    return tl.program_id(axis)


SCALE = 3.0


@triton.jit
def scaled(x):
    return x * SCALE
