"""Split-K GEMM ``C = A @ B``, after TileLang's gemm_splitk example: a third grid axis splits
the K tiles between ``split_k`` programs per output tile, and each adds its partial product into
the fp32 output with ``T.atomic_add``.

Program ``bz`` takes the K tiles ``bz, bz + split_k, bz + 2 * split_k, ...`` (interleaved, as
Triton's split-K tutorial does): contiguous chunks of ``K // split_k`` (TileLang's example) are
only right when ``split_k * block_K`` divides ``K``, interleaved tiles at every ``K``. Tiles past
``K`` read zeros and add nothing."""

import tilelang
import tilelang.language as T
import torch


@tilelang.jit
def matmul_splitk(
    M,
    N,
    K,
    split_k=4,
    block_M=64,
    block_N=64,
    block_K=32,
    num_stages=2,
    threads=128,
    dtype="float16",
):
    accum_dtype = "float"

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
            for ko in T.Pipelined(T.ceildiv(K, block_K * split_k), num_stages=num_stages):
                T.copy(A[by * block_M, (ko * split_k + bz) * block_K], A_shared)
                T.copy(B[(ko * split_k + bz) * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            # The split_k partial tiles of this output tile meet here.
            for i, j in T.Parallel(block_M, block_N):
                T.atomic_add(C[by * block_M + i, bx * block_N + j], C_local[i, j])

    return main


def gemm_splitk(a: torch.Tensor, b: torch.Tensor, split_k: int = 4) -> torch.Tensor:
    """``a @ b`` of 2-D tensors, K split over ``split_k`` programs; the result in ``a.dtype``."""
    m, k = a.shape
    _, n = b.shape
    # The atomics add into this buffer, so it starts at zero.
    c = torch.zeros((m, n), dtype=torch.float32, device=a.device)
    matmul_splitk(m, n, k, split_k, dtype=a.dtype)(a, b, c)
    return c.to(a.dtype)
