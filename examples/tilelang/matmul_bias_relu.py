"""``relu(A @ B + bias)``: a pipelined GEMM with a fused epilogue over the accumulator."""

import tilelang
import tilelang.language as T
import torch


@tilelang.jit(out_idx=[-1])
def matmul_bias_relu_kernel(
    M, N, K, block_M=64, block_N=64, block_K=32, num_stages=2, threads=128, dtype="float16"
):
    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        Bias: T.Tensor((N,), dtype),
        C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            bias = T.alloc_fragment((block_N,), "float32")
            C_local = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(C_local)
            for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, ko * block_K], A_shared)
                T.copy(B[ko * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(Bias[bx * block_N], bias)
            for i, j in T.Parallel(block_M, block_N):
                C_local[i, j] = T.max(C_local[i, j] + bias[j], 0.0)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main


def matmul_bias_relu(a: torch.Tensor, b: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """``relu(a @ b + bias)`` of fp16/fp32 operands, accumulated in fp32."""
    m, k = a.shape
    _, n = b.shape
    kernel = matmul_bias_relu_kernel(m, n, k, dtype=a.dtype)
    return kernel(a, b, bias)
