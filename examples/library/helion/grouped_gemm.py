"""Mixture-of-experts grouped GEMM in Helion: every expert multiplies its own tokens by its own
weight, in one launch (the offsets-based, "jagged" layout MoE layers use after routing).

Layout: the router sorts the tokens by expert, so ``x`` is ``[total_tokens, hidden]`` with expert
``e``'s tokens in rows ``group_offsets[e]:group_offsets[e + 1]``; ``w`` is ``[experts, hidden,
out_features]`` (one ``[K, N]`` weight per expert) and ``group_offsets`` holds ``experts + 1``
row numbers (int32 or int64), from 0 to ``total_tokens``. ``out[rows of e] = x[rows of e] @ w[e]``.
An expert the router gave no token has ``group_offsets[e] == group_offsets[e + 1]``: its programs
run no row tile and write nothing.

One program per expert: it loads its expert's two offsets and walks that expert's rows a tile at a
time (the last tile masked at the group's end), each row tile across the output's column tiles,
accumulating in fp32 over K.
"""

from __future__ import annotations

import helion
import helion.language as hl
import torch

# Rows per tile, columns per tile, then the contraction step. Small tiles, so that ragged groups
# cross several row tiles at test sizes; a GPU deployment would tune these.
GROUPED_GEMM_CONFIG = helion.Config(block_sizes=[16, 32, 16], num_warps=4)


@helion.kernel(config=GROUPED_GEMM_CONFIG)
def _grouped_matmul(x: torch.Tensor, w: torch.Tensor, group_offsets: torch.Tensor) -> torch.Tensor:
    """``out[group_offsets[e]:group_offsets[e + 1]] = x[those rows] @ w[e]`` for every expert."""
    total_tokens, hidden = x.size()
    num_experts, hidden2, out_features = w.size()
    assert hidden == hidden2, f"size mismatch {hidden} != {hidden2}"
    out_dtype = torch.promote_types(x.dtype, w.dtype)
    out = torch.empty([total_tokens, out_features], dtype=out_dtype, device=x.device)
    for expert in hl.grid(num_experts):
        start = group_offsets[expert]
        end = group_offsets[expert + 1]
        for tile_m in hl.tile(start, end):
            for tile_n in hl.tile(out_features):
                acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
                for tile_k in hl.tile(hidden):
                    acc = torch.addmm(acc, x[tile_m, tile_k], w[expert, tile_k, tile_n])
                out[tile_m, tile_n] = acc.to(out_dtype)
    return out


def moe_grouped_matmul(
    x: torch.Tensor, w: torch.Tensor, group_offsets: torch.Tensor
) -> torch.Tensor:
    """The grouped GEMM of expert-sorted tokens ``x`` [T, K] with expert weights ``w`` [E, K, N].

    ``group_offsets`` [E + 1] are the experts' first rows and the total; experts may be empty.
    """
    if group_offsets.dim() != 1 or group_offsets.numel() != w.size(0) + 1:
        raise ValueError(
            f"group_offsets must hold experts + 1 = {w.size(0) + 1} row numbers, "
            f"got shape {tuple(group_offsets.shape)}"
        )
    return _grouped_matmul(x, w, group_offsets)


def moe_grouped_matmul_from_counts(
    x: torch.Tensor, w: torch.Tensor, tokens_per_expert: torch.Tensor
) -> torch.Tensor:
    """The same GEMM from the router's token count per expert (``[E]``, as a top-k router's
    histogram gives them): the offsets are their running sum from 0."""
    group_offsets = torch.zeros(
        tokens_per_expert.numel() + 1, dtype=torch.int64, device=tokens_per_expert.device
    )
    group_offsets[1:] = torch.cumsum(tokens_per_expert, 0)
    return moe_grouped_matmul(x, w, group_offsets)
