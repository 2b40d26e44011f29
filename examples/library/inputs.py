"""Inputs for the library corpus's public functions where tiletrans cannot shape them itself.

``tiletrans validate SRC OUT --inputs examples/library/inputs.py:inputs`` calls
``inputs(entry, device, dtype)`` for every public function it checks; a tuple is that function's
positional arguments, ``None`` lets tiletrans synthesise them from the IR. These are the functions
whose shapes the host code decides in ways the IR does not hold: an optional bias checked against
the last dim by a host ``if``, a ``normalized_shape`` tuple, tensors that a kernel reads
row by row through their strides (which says nothing of their row counts), an index tensor whose rank only an
assert in another function states, an upstream gradient that must match the output, a head dim that must be even.
"""

from __future__ import annotations

import math

import torch

# Ragged sizes: rows, columns, and a contraction dim; none a multiple of 16.
M, N, K = 17, 37, 45


#: The largest input made (bytes): made on the CPU first (the same numbers on every device), an
#: input sized past the host's memory would swap for minutes instead of failing.
_MAX_INPUT_BYTES = 8 << 30


def _randn(*shape: int, device: str, dtype: str) -> torch.Tensor:
    torch_dtype = getattr(torch, dtype)
    size = math.prod(shape) * torch_dtype.itemsize
    if size > _MAX_INPUT_BYTES:
        raise ValueError(f"an input of shape {shape} ({size / 2**30:.0f} GiB) is too large")
    return torch.randn(*shape, dtype=torch_dtype).to(device)


def inputs(entry: str, device: str, dtype: str) -> tuple | None:
    """The positional arguments of ``entry`` (a public function of a corpus file)."""

    def rand(*shape: int) -> torch.Tensor:
        return _randn(*shape, device=device, dtype=dtype)

    if entry in ("cross_entropy", "cross_entropy_forward"):
        target = torch.randint(0, N, (M,)).to(device)
        return rand(M, N), target, -100, "mean"
    if entry == "fused_residual":
        return rand(M, N), rand(M, N), rand(N), 0.5
    if entry == "layer_norm":
        return rand(M, N), (N,), rand(N), rand(N), 1e-5
    if entry == "linear":
        return rand(M, K), rand(N, K), rand(N)
    if entry == "rms_norm":
        return rand(M, N), rand(N), 1e-6
    if entry in ("rms_norm_blocked", "rms_norm_blocked_bwd"):
        # Rows over several of the backward's row blocks (32 by default), the last ragged.
        rows = 4 * M
        if entry == "rms_norm_blocked":
            return rand(rows, N), rand(N), 1e-6
        x = rand(rows, N)
        rstd = torch.rsqrt(x.float().pow(2).mean(-1) + 1e-6)
        return rand(rows, N), x, rand(N), rstd
    if entry == "addmm":
        return rand(N), rand(M, K), rand(K, N), 0.5, 2.0
    if entry == "broadcast_add":
        # A row vector broadcast over the rows of a matrix.
        return rand(M, N), rand(N)
    if entry == "scaled_sum":
        return rand(3, M, 5), rand(3, M, 5), 0.5
    if entry == "kl_div_rows_bwd":
        # The upstream gradient of a reduced loss: one value, expanded on the host.
        return torch.tensor(0.5, device=device), rand(M, N), "batchmean"
    if entry in ("softmax", "log_softmax"):  # the Helion ones pass the kernel to a helper
        return (rand(M, N),)
    if entry == "swiglu_backward":
        return rand(M, N), rand(M, N), rand(M, N)
    if entry in ("rope_forward", "liger_rotary_pos_emb"):
        # [bsz, n_head, seq_len, head_dim] with fewer key heads; head_dim even (the host checks).
        # Ragged at validation sizes; a llama-like layer (32 query, 8 key heads of 128) at M rows
        # of positions when benchmarks set M, N, K large.
        if M < 1024:
            bsz, seq_len, n_qh, n_kh, head_dim = 2, 5, 3, 2, 2 * (N // 2)
        else:
            bsz, seq_len, n_qh, n_kh, head_dim = 2, M // 2, 32, 8, 128
        q, k = rand(bsz, n_qh, seq_len, head_dim), rand(bsz, n_kh, seq_len, head_dim)
        cos, sin = rand(seq_len, head_dim), rand(seq_len, head_dim)
        return q, k, cos, sin
    if entry == "log_softmax_forward":
        # Rows longer than MAX_ONE_PASS take the looped kernel: two rows of 8200.
        return (rand(2 if M < 1024 else M, 8200),)
    if entry == "log_softmax_backward":
        return torch.log_softmax(rand(M, N).float(), -1).to(rand(1).dtype), rand(M, N)
    if entry == "kl_div":
        # Log-probabilities against probabilities; "sum" keeps the per-row partial sums.
        y_pred = torch.log_softmax(rand(M, N).float(), -1).to(rand(1).dtype)
        y_true = torch.softmax(rand(M, N).float(), -1).to(rand(1).dtype)
        return y_pred, y_true, "sum"
    if entry == "kldiv_forward_triton":
        y_pred = torch.log_softmax(rand(M, N).float(), -1).to(rand(1).dtype)
        return y_pred, rand(M, N), True, "none", 1e-10
    if entry == "kldiv_backward_triton":
        return rand(M, N), torch.tensor(0.5, device=device), rand(M, N), False
    if entry in ("jsd", "jsd_forward"):
        # Student and teacher log-probabilities; labels with ignored rows.
        x = torch.log_softmax(rand(M, N).float(), -1).to(rand(1).dtype)
        y = torch.log_softmax(rand(M, N).float(), -1).to(rand(1).dtype)
        labels = torch.randint(0, N, (M,))
        labels[::3] = -100
        if entry == "jsd":
            return x, y, labels.to(device), 0.3, -100
        return x, y, None, 0.0, -100, False
    if entry == "jsd_backward":
        return rand(M, N), torch.tensor(2.0, device=device)
    if entry in ("embedding", "embedding_forward", "embedding_backward"):
        # A table of N rows of K columns; [3, M] indices that repeat (atomics race on rows).
        weight = rand(N, K)
        indices = torch.randint(0, N // 4, (3, M)).to(device)
        if entry == "embedding":
            return weight, indices
        if entry == "embedding_forward":
            return weight, indices
        return rand(3, M, K), indices, weight
    if entry in ("w8a16_matmul", "linear_w8a16"):
        # int8 weights [K, N] with per-column fp32 scales; activations in the row's dtype.
        w = torch.randint(-127, 128, (K, N), dtype=torch.int8).to(device)
        scale = (torch.rand(N) / 64).to(device)
        x = rand(M, K) if entry == "w8a16_matmul" else rand(3, 5, K)
        return x, w, scale
    if entry == "quantize_weight":
        return (rand(K, N),)
    if entry == "layer_norm_bwd":
        x, dy = rand(M, N), rand(M, N)
        mean = x.float().mean(-1)
        rstd = torch.rsqrt(x.float().var(-1, unbiased=False) + 1e-5)
        return dy, x, rand(N), mean, rstd
    if entry == "layer_norm_fwd":
        return rand(M, N), rand(N), rand(N), 1e-5
    if entry == "geglu_bwd":
        return rand(M, N), rand(M, N), rand(M, N)
    if entry in ("fused_linear_cross_entropy", "fused_linear_cross_entropy_forward"):
        # A vocabulary wider than the hidden size: two chunks of 8 of 16 rows (one chunk shape,
        # so the Helion translation compiles once per dtype; tests/test_library_sources.py
        # runs a ragged last chunk of the source).
        target = torch.randint(0, N, (16,))
        target[::4] = -100
        return rand(16, 13), rand(N, 13), target.to(device), -100, 0.1, "mean"
    if entry in ("causal_attention", "causal_attention_fwd"):
        # A ragged sequence of 37 and a head dim of 16 (loaded whole).
        # At benchmark sizes 4 x 8 heads of N: enough programs to fill the GPU.
        batch, heads = (2, 3) if M < 1024 else (4, 8)
        q, k, v = (rand(batch, heads, N, 16) for _ in range(3))
        if entry == "causal_attention":
            return q, k, v
        return q.view(-1, N, 16), k.view(-1, N, 16), v.view(-1, N, 16), 0.25
    if entry == "flash_attention":
        # [Z, H, N_CTX, HEAD_DIM]: a ragged sequence of 37 (two blocks of 32, the last ragged);
        # one batch of two heads keeps the interpreter's CPU run short.
        # At benchmark sizes 4 x 8 heads of N.
        batch, heads = (1, 2) if M < 1024 else (4, 8)
        q, k, v = (rand(batch, heads, N, 16) for _ in range(3))
        return q, k, v, 0.25
    if entry == "linear_decode":
        return rand(2, 5, 300), rand(N, 300)
    if entry == "splitk_gemm":
        # K = 300: two rounds of 4 splits of 64, the last ragged.
        return rand(M, 300), rand(300, N)
    if entry == "streamk_matmul":
        # 2 x 3 output tiles of 16 x 16, 3 K iterations each (the last ragged): 18 iterations
        # over the module's 5 programs, so programs start and stop inside tiles and share them.
        return rand(M, K), rand(K, N)
    if entry in ("jagged_sum", "jagged_mean"):
        # Six sequences of 3, 0, 40, 1, 7 and 2 rows (one empty, one of several row blocks)
        # of N features: `offsets` are their starts and the total (B + 1 entries). At
        # benchmark sizes, M / 4 sequences of up to 255 rows (about 2 GiB of fp16 at N = 4096).
        lengths = (
            torch.tensor([3, 0, 40, 1, 7, 2]) if M < 1024 else torch.randint(0, 256, (M // 4,))
        )
        offsets = torch.cat([torch.zeros(1, dtype=torch.int64), lengths.cumsum(0)])
        return rand(int(lengths.sum()), N), offsets.to(device)
    if entry == "jagged_feature_mean":
        # Seven sequences of 3, 0, 40, 1, 7, 2 and 5 rows of N features, each keeping 1 to N
        # of them (one all of them).
        lengths = torch.tensor([3, 0, 40, 1, 7, 2, 5])
        offsets = torch.cat([torch.zeros(1, dtype=torch.int64), lengths.cumsum(0)])
        counts = torch.tensor([1, 5, N, 12, N - 1, 3, 30])
        return rand(int(lengths.sum()), N), offsets.to(device), counts.to(device), N
    if entry in ("moe_grouped_matmul", "moe_grouped_matmul_from_counts", "moe_grouped_gemm"):
        # Five experts given 5, 0, 37, 1 and 20 tokens (one without any, one of several row
        # tiles) of K features, each with a [K, N] weight; offsets in int64 for the Helion
        # module and int32 for the Triton one (both are what routers produce). At benchmark
        # sizes, 8 experts of up to M / 4 tokens each.
        experts = 5 if M < 1024 else 8
        counts = torch.tensor([5, 0, 37, 1, 20]) if M < 1024 else torch.randint(0, M // 4, (8,))
        x, w = rand(int(counts.sum()), K), rand(experts, K, N)
        if entry == "moe_grouped_matmul_from_counts":
            return x, w, counts.to(device)
        offsets = torch.cat([torch.zeros(1, dtype=torch.int64), counts.cumsum(0)])
        if entry == "moe_grouped_gemm":
            offsets = offsets.to(torch.int32)
        return x, w, offsets.to(device)
    if entry == "group_norm":
        # 6 channels in 3 groups over a ragged 5 x 7 image; at benchmark sizes 256 channels in
        # 32 groups over 64 x 64 images, a batch of 32 (64 MiB of fp16, past the L2).
        if M >= 1024:
            return rand(32, 256, 64, 64), 32, rand(256), rand(256), 1e-5
        return rand(2, 6, 5, 7), 3, rand(6), rand(6), 1e-5
    if entry == "group_norm_fwd":
        if M >= 1024:  # the same as group_norm's benchmark input, as the kernel sees it
            return rand(32, 32, 8, 4096), rand(32, 8), rand(32, 8), 1e-5
        return rand(2, 3, 2, 35), rand(3, 2), rand(3, 2), 1e-5
    if entry == "group_norm_bwd":
        # (grad_out, x, weight, mean, rstd) as the forward saves them; rstd positive.
        n, g, cpg, hw = (32, 32, 8, 4096) if M >= 1024 else (2, 3, 2, 35)
        x = rand(n, g, cpg, hw)
        mean = x.float().mean(dim=(2, 3))
        rstd = torch.rsqrt(x.float().var(dim=(2, 3), unbiased=False) + 1e-5)
        return rand(n, g, cpg, hw), x, rand(g, cpg), mean, rstd
    if entry == "seeded_dropout":
        return rand(3, M, N), 0.3, 7
    # In-kernel dropout: p in [0, 1) and a seed past 2**32 (both key words of Philox).
    if entry in ("low_mem_dropout", "dropout"):
        return rand(3, M, N), 0.3, 2**33 + 7
    if entry == "dropout_fwd":
        return rand(M, N), 0.3, 11
    if entry == "dropout_add":
        return rand(M, N), rand(M, N), 0.25, 5
    if entry == "softmax_backward":
        return rand(M, N), torch.softmax(rand(M, N).float(), dim=-1).to(getattr(torch, dtype))
    # The rest tiletrans could synthesise at validation sizes; they are here so that
    # benchmarks/gpu_library.py, which times only what this function shapes, times them too.
    if entry in ("swiglu_fwd", "swiglu", "swiglu_forward", "geglu", "add", "axpby", "scaled_add"):
        return rand(M, N), rand(M, N)
    if entry == "swiglu_bwd":
        return rand(M, N), rand(M, N), rand(M, N)
    if entry in ("softmax_lastdim", "log_softmax_lastdim", "softmax_forward", "leaky_relu"):
        return (rand(M, N),)
    if entry == "matmul":
        return rand(M, K), rand(K, N)
    if entry in ("matmul_bias", "matmul_bias_relu"):
        return rand(M, K), rand(K, N), rand(N)
    if entry == "matmul_gelu":
        return rand(M, K), rand(K, N)
    if entry == "matmul_residual":
        return rand(M, K), rand(K, N), rand(M, N), 0.5
    if entry == "layer_norm_fwd":
        return rand(M, N), rand(N), rand(N), 1e-5
    if entry == "rms_norm_fwd":
        return rand(M, N), rand(N), 1e-6
    if entry == "cross_entropy_backward":  # a gradient per row: the kernel that scales rows
        return rand(M, N), rand(M)
    return None
