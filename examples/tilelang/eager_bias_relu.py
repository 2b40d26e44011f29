"""``Y = relu(X + bias)`` with the bias broadcast over rows, in TileLang's eager style (sizes
from ``T.const``, annotated tensors, a ``T.empty`` output the kernel returns)."""

import tilelang
import tilelang.language as T


@tilelang.jit
def bias_relu(X, bias, block_M: int = 16, block_N: int = 128, threads: int = 128):
    """``relu(X + bias[None, :])`` for fp32 ``X`` (M, N) and ``bias`` (N,)."""
    M, N = T.const("M N")
    X: T.Tensor((M, N), T.float32)
    bias: T.Tensor((N,), T.float32)
    Y = T.empty((M, N), T.float32)

    with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
        x = T.alloc_fragment((block_M, block_N), T.float32)
        b = T.alloc_fragment((block_N,), T.float32)
        T.copy(X[by * block_M, bx * block_N], x)
        T.copy(bias[bx * block_N], b)
        for i, j in T.Parallel(block_M, block_N):
            x[i, j] = T.max(x[i, j] + b[j], 0.0)
        T.copy(x, Y[by * block_M, bx * block_N])
    return Y
