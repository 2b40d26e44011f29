"""Weight-only int4 dequantisation, the unpacking half of an int4 GEMM.

``packed`` holds two signed 4-bit weights per int8 byte, the weight of even row ``2 * k`` in the
low nibble and that of odd row ``2 * k + 1`` in the high one; each column has its own scale.
"""

from __future__ import annotations

import helion
import helion.language as hl
import torch


@helion.kernel(config=helion.Config(block_sizes=[8, 16], num_warps=4))
def int4_unpack(packed: torch.Tensor, scales: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The even and the odd rows of the weights ``packed`` holds, scaled, in float32."""
    assert packed.dtype == torch.int8, "two int4 weights per int8 byte"
    k_half, n = packed.size()
    even = torch.empty([k_half, n], dtype=torch.float32, device=packed.device)
    odd = torch.empty([k_half, n], dtype=torch.float32, device=packed.device)
    for tile_k, tile_n in hl.tile([k_half, n]):
        byte = packed[tile_k, tile_n]
        scale = scales[tile_n].to(torch.float32)
        # The low nibble masked to 4 bits, then sign-extended by hand: no narrow-int shifts.
        lo = (byte & 0xF).to(torch.int32)
        lo = torch.where(lo >= 8, lo - 16, lo)
        # An arithmetic shift of the signed byte keeps the high nibble's sign.
        hi = (byte >> 4).to(torch.int32)
        even[tile_k, tile_n] = lo.to(torch.float32) * scale[None, :]
        odd[tile_k, tile_n] = hi.to(torch.float32) * scale[None, :]
    return even, odd


@helion.kernel(config=helion.Config(block_sizes=[32], num_warps=4))
def int4_pack(lo: torch.Tensor, hi: torch.Tensor) -> torch.Tensor:
    """Pack two int32 tensors of values in [-8, 8) into one byte each, ``lo`` in the low
    nibble, ``hi`` in the high one."""
    assert lo.dtype == torch.int32 and hi.dtype == torch.int32, "int4 values as int32"
    (n,) = lo.size()
    out = torch.empty([n], dtype=torch.int32, device=lo.device)
    for tile in hl.tile(n):
        nibbles = (lo[tile] & 0xF) | ((hi[tile] & 0xF) << 4)
        # Bytes above 127 are negative int8 values: `x ^ 0x80` - 0x80 sign-extends bit 7.
        out[tile] = (nibbles ^ 0x80) - 0x80
    return out


@helion.kernel(config=helion.Config(block_sizes=[16, 16, 16], num_warps=4))
def int4_matmul(a: torch.Tensor, packed: torch.Tensor) -> torch.Tensor:
    """``a @ w`` for ``w`` [K, N] the int4 weights ``packed`` [K // 2, N] holds: each packed
    row's low nibbles multiply the even columns of ``a``, its high nibbles the odd ones."""
    assert packed.dtype == torch.int8, "two int4 weights per int8 byte"
    m, _ = a.size()
    k_half, n = packed.size()
    out = torch.empty([m, n], dtype=torch.float32, device=a.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k_half):
            byte = packed[tile_k, tile_n]
            lo = (byte & 0xF).to(torch.int32)
            lo = torch.where(lo >= 8, lo - 16, lo)
            hi = (byte >> 4).to(torch.int32)
            a_even = a[tile_m, tile_k.index * 2]
            a_odd = a[tile_m, tile_k.index * 2 + 1]
            acc = hl.dot(a_even, lo.to(a.dtype), acc=acc)
            acc = hl.dot(a_odd, hi.to(a.dtype), acc=acc)
        out[tile_m, tile_n] = acc
    return out
