"""Mixture-of-experts grouped GEMM in cuTile, over tokens the router has sorted by expert.

Expert ``e`` owns rows ``expert_offsets[e]:expert_offsets[e + 1]`` of ``x`` [tokens, K] and
multiplies them by its weight ``w[e]`` [K, N]. One block per (expert, column tile): it reads its
expert's two offsets, views the expert's rows as an array of their own (``Array.slice``), and
walks them ``TM`` rows at a time, so that the last row tile of each expert is padded at the
expert's end, not the tensor's. An expert with no tokens runs no row tile: the grid needs no
host sync on the routing. Rows past the last offset (tokens the router dropped) are not written.
"""

from __future__ import annotations

import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def moe_gemm_kernel(X, W, Out, expert_offsets, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    expert = ct.bid(0)
    bn = ct.bid(1)
    start = ct.gather(expert_offsets, expert)
    end = ct.gather(expert_offsets, expert + 1)
    for bm in range(ct.cdiv(end - start, TM)):
        # Views made inside the loop: an expert with no rows never slices at all.
        x_rows = X.slice(axis=0, start=start, stop=end)
        out_rows = Out.slice(axis=0, start=start, stop=end)
        acc = ct.full((TM, TN), 0, dtype=ct.float32)
        for k in range(ct.num_tiles(X, axis=1, shape=(TM, TK))):
            a = ct.load(x_rows, index=(bm, k), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO)
            b = ct.load(
                W, index=(expert, k, bn), shape=(1, TK, TN), padding_mode=ct.PaddingMode.ZERO
            )
            acc = ct.mma(a, ct.reshape(b, (TK, TN)), acc)
        ct.store(out_rows, index=(bm, bn), tile=ct.astype(acc, Out.dtype))


def moe_grouped_gemm(
    x: torch.Tensor, w: torch.Tensor, expert_offsets: torch.Tensor
) -> torch.Tensor:
    """``out[rows of e] = x[rows of e] @ w[e]`` for expert-sorted tokens ``x`` [T, K], expert
    weights ``w`` [E, K, N] and ``expert_offsets`` [E + 1], int32, non-decreasing from 0 to at most
    T (experts may have no tokens)."""
    tokens, k = x.shape
    experts, k2, n = w.shape
    assert k == k2, "hidden sizes differ"
    assert expert_offsets.shape == (experts + 1,), "expert_offsets needs experts + 1 entries"
    out = torch.empty((tokens, n), device=x.device, dtype=x.dtype)
    grid = (experts, ct.cdiv(n, 64), 1)
    ct.launch(
        torch.cuda.current_stream(), grid, moe_gemm_kernel, (x, w, out, expert_offsets, 64, 64, 32)
    )
    return out
