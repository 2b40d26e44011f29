"""SwiGLU in cuTile: ``silu(gate) * up`` elementwise over 2-D tiles, computed in fp32."""

from __future__ import annotations

import cuda.tile as ct
import torch


@ct.kernel
def swiglu_kernel(gate, up, out, TM: ct.Constant[int], TN: ct.Constant[int]):
    bm = ct.bid(0)
    bn = ct.bid(1)
    g = ct.astype(
        ct.load(gate, index=(bm, bn), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO), ct.float32
    )
    u = ct.astype(
        ct.load(up, index=(bm, bn), shape=(TM, TN), padding_mode=ct.PaddingMode.ZERO), ct.float32
    )
    silu = g / (1.0 + ct.exp(-g))
    ct.store(out, index=(bm, bn), tile=ct.astype(silu * u, out.dtype))


def swiglu(gate: torch.Tensor, up: torch.Tensor) -> torch.Tensor:
    """``F.silu(gate) * up`` for two 2-D tensors of one shape."""
    assert gate.shape == up.shape
    m, n = gate.shape
    out = torch.empty_like(gate)
    grid = (ct.cdiv(m, 32), ct.cdiv(n, 128), 1)
    ct.launch(torch.cuda.current_stream(), grid, swiglu_kernel, (gate, up, out, 32, 128))
    return out
