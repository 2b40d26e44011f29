"""GEMM with an autotune space (``@tilelang.autotune``) and rasterised program order."""

import tilelang
import tilelang.language as T
import torch


@tilelang.autotune(
    configs=[
        {"block_M": 128, "block_N": 128, "block_K": 64, "num_stages": 3, "threads": 256},
        {"block_M": 64, "block_N": 128, "block_K": 32, "num_stages": 4, "threads": 128},
        {"block_M": 128, "block_N": 64, "block_K": 32, "num_stages": 3, "threads": 128},
    ],
)
@tilelang.jit(out_idx=[-1])
def matmul_tuned(
    M, N, K, block_M=128, block_N=128, block_K=64, num_stages=3, threads=256, dtype="float16"
):
    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), "float32")
            # L2-friendly program order: a hint, results do not depend on it.
            T.use_swizzle(10)
            T.clear(C_local)
            for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, ko * block_K], A_shared)
                T.copy(B[ko * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main


def matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``a @ b``, tiles chosen by TileLang's autotuner."""
    m, k = a.shape
    _, n = b.shape
    # By name: the autotuner keys its cache with json, which cannot encode a torch.dtype.
    return matmul_tuned(m, n, k, dtype=str(a.dtype).removeprefix("torch."))(a, b)
