"""Row-scaled copy ``Y = X * w[:, None]`` written as TileLang's example folder writes scripts:
a ``@tilelang.jit`` factory, a public ``row_scale`` host function, and script code under
``if __name__ == "__main__":`` that builds the kernel at module level, launches it, checks the
result, and profiles a build it picks in an ``if`` (both arms bind ``kernel``)."""

import argparse

import tilelang
import tilelang.language as T
import torch


@tilelang.jit(out_idx=[-1])
def row_scale_kernel(M, N, block_M=32, block_N=64, threads=128, dtype="float32"):
    @T.prim_func
    def main(
        X: T.Tensor((M, N), dtype),
        W: T.Tensor((M,), dtype),
        Y: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            x_local = T.alloc_fragment((block_M, block_N), dtype)
            T.copy(X[by * block_M, bx * block_N], x_local)
            for i, j in T.Parallel(block_M, block_N):
                x_local[i, j] = x_local[i, j] * W[by * block_M + i]
            T.copy(x_local, Y[by * block_M, bx * block_N])

    return main


def row_scale(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """``x * w[:, None]`` for ``x`` (M, N) and row weights ``w`` (M,)."""
    m, n = x.shape
    kernel = row_scale_kernel(m, n)
    return kernel(x, w)


def ref_program(x, w):
    return x * w[:, None]


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--m", type=int, default=70)
    parser.add_argument("--n", type=int, default=90)
    parser.add_argument("--tune", action="store_true")
    args = parser.parse_args([])
    M, N = args.m, args.n
    device = "cuda" if torch.cuda.is_available() else "cpu"
    x = torch.randn(M, N, device=device)
    w = torch.rand(M, device=device) + 0.5

    kernel = row_scale_kernel(M, N, block_M=16, block_N=32)
    y = kernel(x, w)
    torch.testing.assert_close(y, ref_program(x, w), rtol=1e-5, atol=1e-5)
    print("script launch: ok")

    if args.tune:
        kernel = row_scale_kernel(M, N, block_M=64, block_N=64, threads=256)
    else:
        kernel = row_scale_kernel(M, N)
    profiler = kernel.get_profiler()
    profiler.assert_allclose(ref_program, rtol=1e-5, atol=1e-5)
    latency = profiler.do_bench()
    print(f"TileLang: {latency:.3f} ms")
