"""Row-scaled GEMM ``C = diag(s) (A @ B)`` written the way TileLang's example folder writes
kernels: an undecorated factory whose tile sizes have no defaults, compiled where it runs; a
public ``scaled_matmul`` that picks its tile sizes in local names; and ``main()``/``benchmark()``
that check and time the kernel through TileLang's profiler."""

import argparse

import tilelang
import tilelang.language as T
import torch


def scaled_matmul_kernel(M, N, K, block_M, block_N, block_K, threads, num_stages, dtype="float16"):
    accum_dtype = "float"

    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        S: T.Tensor((M,), accum_dtype),
        C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, ko * block_K], A_shared)
                T.copy(B[ko * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            for i, j in T.Parallel(block_M, block_N):
                C_local[i, j] = C_local[i, j] * S[by * block_M + i]
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main


def ref_program(A, B, S):
    return (S[:, None] * (A.float() @ B.float())).to(A.dtype)


def scaled_matmul(a: torch.Tensor, b: torch.Tensor, s: torch.Tensor) -> torch.Tensor:
    """``s[:, None] * (a @ b)`` for fp16 ``a`` (M, K), ``b`` (K, N) and fp32 row scales ``s``."""
    m, k = a.shape
    _, n = b.shape
    block_M, block_N = 32, 64
    block_K = 32
    kernel = tilelang.compile(
        scaled_matmul_kernel(m, n, k, block_M, block_N, block_K, 128, 2), out_idx=[-1]
    )
    return kernel(a, b, s)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--m", type=int, default=4096)
    parser.add_argument("--n", type=int, default=4096)
    parser.add_argument("--k", type=int, default=4096)
    parser.add_argument("--block-m", type=int, default=128)
    args = parser.parse_args()
    M, N, K = args.m, args.n, args.k
    total_flops = 2 * M * N * K

    kernel = tilelang.compile(
        scaled_matmul_kernel(M, N, K, args.block_m, 128, 32, 128, 3), out_idx=[-1]
    )
    profiler = kernel.get_profiler(tensor_supply_type=tilelang.TensorSupplyType.Randn)
    profiler.assert_allclose(ref_program, rtol=1e-2, atol=1e-2)
    latency = profiler.do_bench(warmup=100)
    print(f"Latency: {latency:.3f} ms")
    print(f"TFlops: {total_flops / latency * 1e-9:.1f}")


def benchmark():
    kernel = tilelang.compile(
        scaled_matmul_kernel(4096, 4096, 4096, 128, 128, 32, 128, 3), out_idx=[-1]
    )
    profiler = kernel.get_profiler()
    return profiler.do_bench()


if __name__ == "__main__":
    main()
