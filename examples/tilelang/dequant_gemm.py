"""Weight-only int8 GEMM: ``C = A @ (W * scale)`` with int8 weights dequantised per column in
shared memory before ``T.gemm``."""

import tilelang
import tilelang.language as T
import torch


@tilelang.jit(out_idx=[-1])
def dequant_matmul(M, N, K, block_M=64, block_N=64, block_K=32, threads=128, dtype="float16"):
    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        W: T.Tensor((K, N), "int8"),
        Scale: T.Tensor((N,), dtype),
        C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            W_q = T.alloc_fragment((block_K, block_N), "int8")
            scale = T.alloc_fragment((block_N,), dtype)
            W_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), "float32")
            T.copy(Scale[bx * block_N], scale)
            T.clear(C_local)
            for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
                T.copy(A[by * block_M, ko * block_K], A_shared)
                T.copy(W[ko * block_K, bx * block_N], W_q)
                for k, j in T.Parallel(block_K, block_N):
                    W_shared[k, j] = T.cast(W_q[k, j], dtype) * scale[j]
                T.gemm(A_shared, W_shared, C_local)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main


def dequant_gemm(a: torch.Tensor, w: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    """``a @ (w * scale)`` for activations ``a`` (M, K), int8 weights ``w`` (K, N) and per-column
    scales ``scale`` (N,) in the dtype of ``a``."""
    m, k = a.shape
    _, n = w.shape
    return dequant_matmul(m, n, k, dtype=a.dtype)(a, w, scale)
