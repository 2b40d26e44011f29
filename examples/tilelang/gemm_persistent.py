"""Persistent GEMM ``C = A @ B``, after TileLang's gemm_persistent example: the kernel launches
one program per SM (``num_sms``), and ``T.Persistent`` hands each program the output tiles
``block_id, block_id + num_sms, ...`` in turn until every tile of the (M, N) grid is done."""

import tilelang
import tilelang.language as T
import torch


@tilelang.jit(out_idx=[-1])
def matmul_persistent(
    M,
    N,
    K,
    block_M=64,
    block_N=64,
    block_K=32,
    num_stages=2,
    threads=128,
    num_sms=132,
    dtype="float16",
):
    accum_dtype = "float"

    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(num_sms, threads=threads) as block_id:
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            for bx, by in T.Persistent(
                [T.ceildiv(M, block_M), T.ceildiv(N, block_N)], num_sms, block_id
            ):
                T.clear(C_local)
                for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                    T.copy(A[bx * block_M, ko * block_K], A_shared)
                    T.copy(B[ko * block_K, by * block_N], B_shared)
                    T.gemm(A_shared, B_shared, C_local)
                T.copy(C_local, C[bx * block_M, by * block_N])

    return main


def gemm_persistent(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``a @ b`` of 2-D tensors of one dtype, accumulated in fp32."""
    m, k = a.shape
    _, n = b.shape
    # One program per SM; on the CPU (serial blocks) a few, so that each loops over tiles.
    num_sms = torch.cuda.get_device_properties(a.device).multi_processor_count if a.is_cuda else 4
    return matmul_persistent(m, n, k, num_sms=num_sms, dtype=a.dtype)(a, b)
