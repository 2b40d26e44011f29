"""Grouped GEMM over a pointer table (Triton tutorial 08 / MoE expert style).

``grouped_matmul(a_list, b_list)`` computes ``[a @ b for a, b in zip(a_list, b_list)]`` for
groups of different sizes in one persistent launch: the host writes each group's base
addresses, sizes and leading strides into small device tables, and ``NUM_SM`` programs walk the
tiles of all groups in turn, reading a group's matrices through pointers loaded from the tables
(``tl.load(a_ptrs + g).to(tl.pointer_type(tl.float16))``).
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl

NUM_SM = 4  # programs of the persistent launch (the SM count on a GPU)


@triton.jit
def grouped_matmul_kernel(
    group_a_ptrs,
    group_b_ptrs,
    group_c_ptrs,
    group_gemm_sizes,
    g_lds,
    group_size,
    NUM_SM: tl.constexpr,
    BLOCK_SIZE_M: tl.constexpr,
    BLOCK_SIZE_N: tl.constexpr,
    BLOCK_SIZE_K: tl.constexpr,
):
    tile_idx = tl.program_id(0)
    last_problem_end = 0
    for g in range(group_size):
        # This group's sizes, leading strides and tiles.
        gm = tl.load(group_gemm_sizes + g * 3)
        gn = tl.load(group_gemm_sizes + g * 3 + 1)
        gk = tl.load(group_gemm_sizes + g * 3 + 2)
        num_m_tiles = tl.cdiv(gm, BLOCK_SIZE_M)
        num_n_tiles = tl.cdiv(gn, BLOCK_SIZE_N)
        num_tiles = num_m_tiles * num_n_tiles
        while tile_idx >= last_problem_end and tile_idx < last_problem_end + num_tiles:
            lda = tl.load(g_lds + g * 3)
            ldb = tl.load(g_lds + g * 3 + 1)
            ldc = tl.load(g_lds + g * 3 + 2)
            a_ptr = tl.load(group_a_ptrs + g).to(tl.pointer_type(tl.float16))
            b_ptr = tl.load(group_b_ptrs + g).to(tl.pointer_type(tl.float16))
            c_ptr = tl.load(group_c_ptrs + g).to(tl.pointer_type(tl.float16))
            tile_idx_in_gemm = tile_idx - last_problem_end
            tile_m_idx = tile_idx_in_gemm // num_n_tiles
            tile_n_idx = tile_idx_in_gemm % num_n_tiles
            offs_am = tile_m_idx * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
            offs_bn = tile_n_idx * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
            offs_k = tl.arange(0, BLOCK_SIZE_K)
            accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
            for kk in range(0, tl.cdiv(gk, BLOCK_SIZE_K)):
                k_mask = offs_k < gk - kk * BLOCK_SIZE_K
                a = tl.load(
                    a_ptr + offs_am[:, None] * lda + (kk * BLOCK_SIZE_K + offs_k)[None, :],
                    mask=(offs_am[:, None] < gm) & k_mask[None, :],
                    other=0.0,
                )
                b = tl.load(
                    b_ptr + (kk * BLOCK_SIZE_K + offs_k)[:, None] * ldb + offs_bn[None, :],
                    mask=k_mask[:, None] & (offs_bn[None, :] < gn),
                    other=0.0,
                )
                accumulator = tl.dot(a, b, accumulator)
            c_ptrs = c_ptr + offs_am[:, None] * ldc + offs_bn[None, :]
            c_mask = (offs_am[:, None] < gm) & (offs_bn[None, :] < gn)
            tl.store(c_ptrs, accumulator.to(tl.float16), mask=c_mask)
            # The next tile of this persistent program.
            tile_idx += NUM_SM
        last_problem_end = last_problem_end + num_tiles


def grouped_matmul(a_list: list[torch.Tensor], b_list: list[torch.Tensor]) -> list[torch.Tensor]:
    """``[a @ b for a, b in zip(a_list, b_list)]`` for fp16 row-major groups of any sizes."""
    assert len(a_list) == len(b_list), "one b per a"
    device = a_list[0].device
    a_addrs, b_addrs, c_addrs, sizes, lds, c_list = [], [], [], [], [], []
    for a, b in zip(a_list, b_list):
        assert a.dtype == b.dtype == torch.float16 and a.shape[1] == b.shape[0]
        a, b = a.contiguous(), b.contiguous()
        m, k = a.shape
        n = b.shape[1]
        c = torch.empty((m, n), device=device, dtype=torch.float16)
        a_addrs.append(a.data_ptr())
        b_addrs.append(b.data_ptr())
        c_addrs.append(c.data_ptr())
        sizes += [m, n, k]
        lds += [a.stride(0), b.stride(0), c.stride(0)]
        c_list.append(c)
    group_size = len(a_list)
    d_a = torch.tensor(a_addrs, device=device)
    d_b = torch.tensor(b_addrs, device=device)
    d_c = torch.tensor(c_addrs, device=device)
    d_sizes = torch.tensor(sizes, dtype=torch.int32, device=device)
    d_lds = torch.tensor(lds, dtype=torch.int32, device=device)
    grouped_matmul_kernel[(NUM_SM,)](
        d_a,
        d_b,
        d_c,
        d_sizes,
        d_lds,
        group_size,
        NUM_SM=NUM_SM,
        BLOCK_SIZE_M=32,
        BLOCK_SIZE_N=32,
        BLOCK_SIZE_K=32,
    )
    return c_list
