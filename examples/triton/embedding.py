"""Embedding lookup (row gather) ``out[i, :] = weight[indices[i], :]``.

A 2-D grid tiles the flattened index list (``BLOCK_N`` lookups) by the
embedding dimension (``BLOCK_D`` columns); each program gathers a
``[BLOCK_N, BLOCK_D]`` tile from the table.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def embedding_forward_kernel(
    embeddings_ptr,
    indices_ptr,
    output_ptr,
    n_elements,
    embedding_dim,
    stride_weight,
    stride_out,
    BLOCK_N: tl.constexpr,
    BLOCK_D: tl.constexpr,
):
    pid_n = tl.program_id(0)
    pid_d = tl.program_id(1)

    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask_n = offs_n < n_elements
    # int64 indices: row * stride may exceed int32 for large tables.
    idx = tl.load(indices_ptr + offs_n, mask=mask_n, other=0).to(tl.int64)

    offs_d = pid_d * BLOCK_D + tl.arange(0, BLOCK_D)
    mask_d = offs_d < embedding_dim
    mask = mask_n[:, None] & mask_d[None, :]

    embedding_offsets = idx[:, None] * stride_weight + offs_d[None, :]
    embeddings = tl.load(embeddings_ptr + embedding_offsets, mask=mask, other=0.0)

    output_offsets = offs_n[:, None].to(tl.int64) * stride_out + offs_d[None, :]
    tl.store(output_ptr + output_offsets, embeddings, mask=mask)


def embedding(indices: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """Look up ``indices`` (any shape, integer) in ``weight`` [num_embeddings, embedding_dim]."""
    assert weight.dim() == 2 and weight.stride(1) == 1, "weight rows must be contiguous"
    ori_shape = indices.shape
    indices = indices.reshape(-1).contiguous()
    n_elements = indices.numel()
    embedding_dim = weight.shape[1]
    output = torch.empty((n_elements, embedding_dim), device=weight.device, dtype=weight.dtype)

    BLOCK_N = 64
    BLOCK_D = min(triton.next_power_of_2(embedding_dim), 128)
    grid = lambda meta: (
        triton.cdiv(n_elements, meta["BLOCK_N"]),
        triton.cdiv(embedding_dim, meta["BLOCK_D"]),
    )
    embedding_forward_kernel[grid](
        weight,
        indices,
        output,
        n_elements,
        embedding_dim,
        weight.stride(0),
        output.stride(0),
        BLOCK_N=BLOCK_N,
        BLOCK_D=BLOCK_D,
    )
    return output.view(*ori_shape, embedding_dim)
