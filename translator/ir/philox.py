"""The IR's counter-based random numbers, computed exactly on any torch device.

``rand(seed, offsets)`` and ``randn(seed, offsets)`` (:data:`translator.ir.ops.RANDOM_OPS`) are
Triton's ``tl.rand``/``tl.randn`` (``triton/language/random.py``): 10 rounds of Philox 4x32 per
lane, keyed by the seed's low and high 32 bits, on the counter (offset's low 32 bits, its high
32 bits for a 64-bit offset else 0, 0, 0). Helion's ``hl.rand`` runs the same rounds on int64
offsets. torch has no uint32 arithmetic, so the words live in int64 tensors masked to 32 bits
and the 32x32-bit products are taken in 16-bit halves (a full product overflows int64).
"""

from __future__ import annotations

from collections.abc import Callable

import torch

from translator.ir.ops import PHILOX_ROUNDS

MASK32 = 0xFFFFFFFF
PHILOX_KEY_A = 0x9E3779B9
PHILOX_KEY_B = 0xBB67AE85
PHILOX_ROUND_A = 0xD2511F53
PHILOX_ROUND_B = 0xCD9E8D57
#: The largest float32 ``s`` with ``(2**31 - 1) * s < 1`` (Triton's uint_to_uniform_float).
UNIFORM_SCALE = 4.6566127342e-10
#: Box-Muller's floor on the first uniform (log(0) would be -inf).
BOX_MULLER_MIN = 1.0e-7
TWO_PI = 6.283185307179586


def _mul_hi_lo(a: int, b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The high and low 32-bit words of the 64-bit product of ``a`` and each word of ``b``."""
    a0, a1 = a & 0xFFFF, a >> 16
    b0, b1 = b & 0xFFFF, b >> 16
    t = a0 * b0
    w0, k = t & 0xFFFF, t >> 16
    t = a1 * b0 + k
    w1, w2 = t & 0xFFFF, t >> 16
    t = a0 * b1 + w1
    lo = ((t & 0xFFFF) << 16) | w0
    hi = (a1 * b1 + w2 + (t >> 16)) & MASK32
    return hi, lo & MASK32


def philox(
    seed: int | torch.Tensor, offsets: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """The four 32-bit output words (in int64 tensors) of Philox 4x32-10 per offset."""
    wide = offsets.dtype == torch.int64
    off = offsets.to(torch.int64)
    seed64 = torch.as_tensor(seed, dtype=torch.int64, device=off.device)
    c0 = off & MASK32
    c1 = (off >> 32) & MASK32 if wide else torch.zeros_like(off)
    c2 = torch.zeros_like(off)
    c3 = torch.zeros_like(off)
    k0, k1 = seed64 & MASK32, (seed64 >> 32) & MASK32
    for _ in range(PHILOX_ROUNDS):
        hi_b, lo_b = _mul_hi_lo(PHILOX_ROUND_B, c2)
        hi_a, lo_a = _mul_hi_lo(PHILOX_ROUND_A, c0)
        c0, c1, c2, c3 = hi_b ^ c1 ^ k0, lo_b, hi_a ^ c3 ^ k1, lo_a
        k0, k1 = (k0 + PHILOX_KEY_A) & MASK32, (k1 + PHILOX_KEY_B) & MASK32
    return c0, c1, c2, c3


def uniform(word: torch.Tensor) -> torch.Tensor:
    """A 32-bit word as a float32 in ``[0, 1)``: read as int32, folded to ``x >= 0`` by ``~x``,
    scaled (Triton's ``uint_to_uniform_float``)."""
    signed = torch.where(word >= 2**31, word - 2**32, word)
    magnitude = torch.where(signed < 0, -signed - 1, signed)
    scale = torch.tensor(UNIFORM_SCALE, dtype=torch.float32, device=word.device)
    return magnitude.to(torch.float32) * scale


def rand(seed: int | torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    """``tl.rand(seed, offsets)``: a uniform float32 in ``[0, 1)`` per offset."""
    return uniform(philox(seed, offsets)[0])


def randn(seed: int | torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    """``tl.randn(seed, offsets)``: a standard normal float32 per offset (Box-Muller of the
    first two words)."""
    c0, c1, _, _ = philox(seed, offsets)
    u1 = torch.clamp_min(uniform(c0), BOX_MULLER_MIN)
    theta = uniform(c1) * torch.tensor(TWO_PI, dtype=torch.float32, device=c0.device)
    radius = torch.sqrt(torch.log(u1) * -2.0)
    return radius * torch.cos(theta)


#: The reference of each op of :data:`translator.ir.ops.RANDOM_OPS`.
RANDOM: dict[str, Callable[[int | torch.Tensor, torch.Tensor], torch.Tensor]] = {
    "rand": rand,
    "randn": randn,
}
