"""GEMM in cuTile with a grouped tile order, as cuTile's matmul sample swizzles its block ids.

One flat block id per output tile; consecutive ids walk ``GROUP_SIZE_M`` rows of tiles column by
column, so the blocks resident together read the same rows of ``A`` from L2.
"""

from __future__ import annotations

import cuda.tile as ct
import torch


@ct.kernel
def gemm_grouped_kernel(
    A,
    B,
    C,
    TM: ct.Constant[int],
    TN: ct.Constant[int],
    TK: ct.Constant[int],
    GROUP_SIZE_M: ct.Constant[int],
):
    bid = ct.bid(0)
    num_bid_m = ct.cdiv(A.shape[0], TM)
    num_bid_n = ct.cdiv(B.shape[1], TN)
    num_bid_in_group = GROUP_SIZE_M * num_bid_n
    group_id = bid // num_bid_in_group
    first_bid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_bid_m - first_bid_m, GROUP_SIZE_M)
    bid_m = first_bid_m + (bid % group_size_m)
    bid_n = (bid % num_bid_in_group) // group_size_m

    acc = ct.full((TM, TN), 0, dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(TM, TK))):
        a = ct.load(A, index=(bid_m, k), shape=(TM, TK), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(k, bid_n), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bid_m, bid_n), tile=ct.astype(acc, C.dtype))


def gemm_grouped(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``a @ b`` for 2-D fp16 tensors, accumulated in fp32, blocks in groups of 4 tile rows."""
    m, k = a.shape
    k2, n = b.shape
    assert k == k2, "inner dimensions must match"
    c = torch.empty((m, n), device=a.device, dtype=a.dtype)
    grid = (ct.cdiv(m, 128) * ct.cdiv(n, 128), 1, 1)
    ct.launch(torch.cuda.current_stream(), grid, gemm_grouped_kernel, (a, b, c, 128, 128, 64, 4))
    return c
