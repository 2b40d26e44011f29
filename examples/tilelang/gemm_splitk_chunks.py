"""Split-K GEMM ``C = A @ B`` over contiguous shares of K, the way TileLang's
``example_tilelang_gemm_splitk`` splits it: a third grid axis gives each of ``split_k`` programs
per output tile one run of ``split_size`` K columns, starting at ``bz * split_size``, and each
adds its partial product into the fp32 output with ``T.atomic_add``.

The share is a whole number of ``block_K`` tiles (``T.ceildiv(K, block_K * split_k)`` of them),
so shares neither overlap nor leave a tail of K uncovered at any ``K``; the last one runs past
``K`` and its copies read zeros there."""

import tilelang
import tilelang.language as T
import torch


@tilelang.jit
def matmul_splitk_chunks(
    M,
    N,
    K,
    split_k=3,
    block_M=64,
    block_N=64,
    block_K=32,
    num_stages=2,
    threads=128,
    dtype="float16",
):
    accum_dtype = "float"
    split_size = T.ceildiv(K, block_K * split_k) * block_K

    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        C: T.Tensor((M, N), "float32"),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), split_k, threads=threads) as (
            bx,
            by,
            bz,
        ):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for ko in T.Pipelined(T.ceildiv(split_size, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, bz * split_size + ko * block_K], A_shared)
                T.copy(B[bz * split_size + ko * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            for i, j in T.Parallel(block_M, block_N):
                T.atomic_add(C[by * block_M + i, bx * block_N + j], C_local[i, j])

    return main


def gemm_splitk_chunks(a: torch.Tensor, b: torch.Tensor, split_k: int = 3) -> torch.Tensor:
    """``a @ b`` of 2-D tensors, K cut into ``split_k`` contiguous shares; the result in
    ``a.dtype``."""
    m, k = a.shape
    _, n = b.shape
    # The atomics add into this buffer, so it starts at zero.
    c = torch.zeros((m, n), dtype=torch.float32, device=a.device)
    matmul_splitk_chunks(m, n, k, split_k, dtype=a.dtype)(a, b, c)
    return c.to(a.dtype)
