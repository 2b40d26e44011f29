"""GEMM ``C = A @ B`` in TileLang's eager style: the sizes are symbols read from the tensors
(``T.const``), the tensors are annotated in the body, and the kernel allocates and returns its
output (``T.empty``); calling ``matmul(a, b)`` compiles for those shapes and runs."""

import tilelang
import tilelang.language as T


@tilelang.jit
def matmul(
    A,
    B,
    block_M: int = 64,
    block_N: int = 64,
    block_K: int = 32,
    num_stages: int = 2,
    threads: int = 128,
):
    """``A @ B`` of fp16 matrices, accumulated in fp32 and returned in fp16."""
    M, N, K = T.const("M N K")
    A: T.Tensor((M, K), T.float16)
    B: T.Tensor((K, N), T.float16)
    C = T.empty((M, N), T.float16)

    with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
        A_shared = T.alloc_shared((block_M, block_K), T.float16)
        B_shared = T.alloc_shared((block_K, block_N), T.float16)
        C_local = T.alloc_fragment((block_M, block_N), T.float32)
        T.clear(C_local)
        for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
            T.copy(A[by * block_M, ko * block_K], A_shared)
            T.copy(B[ko * block_K, bx * block_N], B_shared)
            T.gemm(A_shared, B_shared, C_local)
        T.copy(C_local, C[by * block_M, bx * block_N])
    return C
