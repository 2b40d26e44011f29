"""Layer norm of each row: ``(x - mean) / sqrt(var + eps) * w + b``, two reductions per row over
a power-of-two fragment whose lanes past the row's end are masked."""

import tilelang
import tilelang.language as T
import torch


@tilelang.jit(out_idx=[-1])
def layer_norm_kernel(M, N, eps, block_M=2, threads=128, dtype="float32"):
    N_pad = tilelang.math.next_power_of_2(N)

    @T.prim_func
    def main(
        X: T.Tensor((M, N), dtype),
        W: T.Tensor((N,), dtype),
        Bias: T.Tensor((N,), dtype),
        Y: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(M, block_M), threads=threads) as bx:
            x = T.alloc_fragment((block_M, N_pad), "float32")
            w = T.alloc_fragment((N_pad,), "float32")
            b = T.alloc_fragment((N_pad,), "float32")
            masked = T.alloc_fragment((block_M, N_pad), "float32")
            mean = T.alloc_fragment((block_M,), "float32")
            centered = T.alloc_fragment((block_M, N_pad), "float32")
            squares = T.alloc_fragment((block_M, N_pad), "float32")
            rstd = T.alloc_fragment((block_M,), "float32")
            y = T.alloc_fragment((block_M, N_pad), dtype)
            T.copy(X[bx * block_M, 0], x)
            T.copy(W[0], w)
            T.copy(Bias[0], b)
            for i, j in T.Parallel(block_M, N_pad):
                masked[i, j] = T.if_then_else(j < N, x[i, j], 0.0)
            T.reduce_sum(masked, mean, dim=1)
            for i in T.Parallel(block_M):
                mean[i] = mean[i] * (T.float32(1.0) / N)
            for i, j in T.Parallel(block_M, N_pad):
                centered[i, j] = x[i, j] - mean[i]
            for i, j in T.Parallel(block_M, N_pad):
                squares[i, j] = T.if_then_else(j < N, centered[i, j] * centered[i, j], 0.0)
            T.reduce_sum(squares, rstd, dim=1)
            for i in T.Parallel(block_M):
                rstd[i] = T.rsqrt(rstd[i] / N + eps)
            for i, j in T.Parallel(block_M, N_pad):
                # A per-lane temporary, as TileLang's own layer-norm example writes it.
                norm = centered[i, j] * rstd[i]
                y[i, j] = norm * w[j] + b[j]
            T.copy(y, Y[bx * block_M, 0])

    return main


def layer_norm(
    x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, eps: float = 1e-5
) -> torch.Tensor:
    """Layer norm over the last dim of ``x`` (M, N) with affine ``weight`` and ``bias`` (N,)."""
    m, n = x.shape
    kernel = layer_norm_kernel(m, n, eps, dtype=x.dtype)
    return kernel(x, weight, bias)
