"""Exact GELU of a 1-D tensor, ``0.5 * x * (1 + erf(x / sqrt(2)))``, one block of lanes per
program."""

import tilelang
import tilelang.language as T
import torch


@tilelang.jit(out_idx=[-1])
def gelu_kernel(N, block=256, threads=128, dtype="float32"):
    @T.prim_func
    def main(X: T.Tensor((N,), dtype), Y: T.Tensor((N,), dtype)):
        with T.Kernel(T.ceildiv(N, block), threads=threads) as bx:
            x = T.alloc_fragment((block,), "float32")
            y = T.alloc_fragment((block,), dtype)
            T.copy(X[bx * block], x)
            for i in T.Parallel(block):
                y[i] = 0.5 * x[i] * (1.0 + T.erf(x[i] * 0.7071067811865476))
            T.copy(y, Y[bx * block])

    return main


def gelu(x: torch.Tensor) -> torch.Tensor:
    """GELU (erf form) of a 1-D tensor."""
    (n,) = x.shape
    return gelu_kernel(n, dtype=x.dtype)(x)
