# cuTile kernels in the spellings Liger's ops/cutile and NVIDIA's TileGym write: chunk loops
# counted `(n_cols + BLOCK_SIZE - 1) // BLOCK_SIZE` (in a local or in the `range`), lanes built
# with the functional arithmetic `ct.add(ct.arange(TILE), start)`, plain-Python math helpers
# called from kernels (no `@ct.function`), a dtype held in a local, module-level constants
# (`PAD_ZERO`, a mode number) and `ct.load(..., order=...)` in the identity order.
import math

import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]
ConstBool = ct.Constant[bool]

PAD_ZERO = ct.PaddingMode.ZERO
SQRT_2_OVER_PI = 0.7978845608028654
MODE_SILU = 0
MODE_GELU_TANH = 1


def _sigmoid(x):
    denom = 1.0 + ct.exp(-x)
    return ct.truediv(1.0, denom)


def _silu(x):
    return x * _sigmoid(x)


def sigmoid_ct(x_val, BLOCK_SIZE: ct.Constant[int]):
    one = ct.ones((BLOCK_SIZE,), dtype=x_val.dtype)
    neg_x = ct.negative(x_val)
    denom = ct.add(one, ct.exp(neg_x))
    return ct.truediv(one, denom)


def tanh_ct(x_val, BLOCK_SIZE: ct.Constant[int]):
    # tanh(x) = 2 * sigmoid(2 * x) - 1
    two = ct.full((BLOCK_SIZE,), 2.0, dtype=x_val.dtype)
    one = ct.ones((BLOCK_SIZE,), dtype=x_val.dtype)
    sigmoid_2x = sigmoid_ct(ct.mul(two, x_val), BLOCK_SIZE)
    return ct.sub(ct.mul(two, sigmoid_2x), one)


def gelu_tanh_ct(x_val, BLOCK_SIZE: ct.Constant[int]):
    coeff = ct.full((BLOCK_SIZE,), 0.044715, dtype=x_val.dtype)
    cubed = ct.mul(ct.mul(x_val, x_val), x_val)
    inner = ct.mul(
        ct.full((BLOCK_SIZE,), SQRT_2_OVER_PI, dtype=x_val.dtype),
        ct.add(x_val, ct.mul(coeff, cubed)),
    )
    half_x = ct.mul(ct.full((BLOCK_SIZE,), 0.5, dtype=x_val.dtype), x_val)
    return ct.mul(
        half_x, ct.add(ct.ones((BLOCK_SIZE,), dtype=x_val.dtype), tanh_ct(inner, BLOCK_SIZE))
    )


@ct.kernel(occupancy=1)
def _geglu_kernel(a, b, c, n_cols: ConstInt, BLOCK_SIZE: ConstInt, CHECK_BOUNDS: ConstBool):
    """Liger's GEGLU: a chunk loop over the row whose count is spelled with `//`."""
    row_idx = ct.bid(0)
    num_chunks = (n_cols + BLOCK_SIZE - 1) // BLOCK_SIZE
    for ci in range(num_chunks):
        col_idx = ct.add(ct.arange(BLOCK_SIZE, dtype=ct.int32), ci * BLOCK_SIZE)
        a_tile = ct.astype(
            ct.gather(a, (row_idx, col_idx), check_bounds=CHECK_BOUNDS, padding_value=0.0),
            ct.float32,
        )
        b_tile = ct.gather(b, (row_idx, col_idx), check_bounds=CHECK_BOUNDS, padding_value=0.0)
        tanh_arg = SQRT_2_OVER_PI * (a_tile + 0.044715 * a_tile * a_tile * a_tile)
        geglu_a = 0.5 * a_tile * (1.0 + ct.tanh(tanh_arg))
        c_tile = ct.astype(geglu_a, b_tile.dtype) * b_tile
        ct.scatter(c, (row_idx, col_idx), c_tile, check_bounds=CHECK_BOUNDS)


@ct.kernel
def _rms_scale_kernel(x, y, n_cols: ConstInt, eps: float, BLOCK: ConstInt):
    """Two passes over a row: the sum of squares, then the scaled row (count inline)."""
    row = ct.bid(0)
    total = 0.0
    for ci in range((n_cols + (BLOCK - 1)) // BLOCK):
        cols = ct.add(ci * BLOCK, ct.arange(BLOCK, dtype=ct.int32))
        xs = ct.astype(ct.gather(x, (row, cols), check_bounds=True, padding_value=0.0), ct.float32)
        total = ct.add(total, ct.sum(ct.mul(xs, xs)))
    rstd = ct.rsqrt(total / n_cols + eps)
    n_chunks = ct.cdiv(n_cols, BLOCK)
    for cj in range(n_chunks):
        cols = cj * BLOCK + ct.arange(BLOCK, dtype=ct.int32)
        xs = ct.astype(ct.gather(x, (row, cols), check_bounds=True, padding_value=0.0), ct.float32)
        ct.scatter(y, (row, cols), ct.astype(ct.mul(xs, rstd), y.dtype), check_bounds=True)


@ct.kernel
def _activation_kernel(y, x, n_elements: ConstInt, BLOCK_SIZE: ConstInt, mode: ConstInt):
    """TileGym's element-wise style: lanes from `ct.add`, math in plain helpers."""
    pid = ct.bid(0)
    block_start = pid * BLOCK_SIZE
    offsets = ct.add(ct.arange(BLOCK_SIZE, dtype=ct.int32), block_start)
    dtype = y.dtype
    x_tile = ct.astype(ct.gather(x, offsets, padding_value=0), ct.float32)
    if mode == MODE_GELU_TANH:  # noqa: SIM108 (TileGym branches on the mode)
        out = gelu_tanh_ct(x_tile, BLOCK_SIZE)
    else:
        out = _silu(x_tile)
    ct.scatter(y, offsets, ct.astype(out, dtype), check_bounds=True)


@ct.kernel
def _swiglu_tile_kernel(a, b, c, TILE_M: ConstInt, TILE_N: ConstInt):
    """Tile loads in the identity order, padded through a module-level mode."""
    bm = ct.bid(0)
    bn = ct.bid(1)
    out_dtype = c.dtype
    a_t = ct.load(a, index=(bm, bn), shape=(TILE_M, TILE_N), order=(0, 1), padding_mode=PAD_ZERO)
    b_t = ct.load(b, index=(bm, bn), shape=(TILE_M, TILE_N), order="C", padding_mode=PAD_ZERO)
    a32 = a_t.astype(ct.float32)
    silu = a32 * _sigmoid(a32)
    ct.store(
        c,
        index=(bm, bn),
        tile=ct.astype(ct.sub(ct.mul(silu, b_t.astype(ct.float32)), ct.negative(a32)), out_dtype),
    )


def _block_size(n: int, cap: int) -> int:
    return min(max(1 << (n - 1).bit_length(), 16), cap)


def geglu(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``gelu_tanh(a) * b`` per row, in chunks of at most 64 columns."""
    n_rows, n_cols = a.shape
    c = torch.empty_like(a)
    BLOCK_SIZE = _block_size(n_cols, 64)
    aligned = n_cols % BLOCK_SIZE == 0
    ct.launch(
        torch.cuda.current_stream(),
        (n_rows, 1, 1),
        _geglu_kernel,
        (a, b, c, int(n_cols), int(BLOCK_SIZE), not aligned),
    )
    return c


def rms_scale(x: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """``x * rsqrt(mean(x * x, -1) + eps)`` per row."""
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    ct.launch(
        torch.cuda.current_stream(), (n_rows, 1, 1), _rms_scale_kernel, (x, y, n_cols, eps, 32)
    )
    return y


def activation(x: torch.Tensor, mode: int) -> torch.Tensor:
    """``silu(x)`` (mode 0) or tanh-approximated ``gelu(x)`` (mode 1), element-wise."""
    y = torch.empty_like(x)
    n_elements = x.numel()
    BLOCK_SIZE = 128
    grid = (math.ceil(n_elements / BLOCK_SIZE), 1, 1)
    ct.launch(
        torch.cuda.current_stream(),
        grid,
        _activation_kernel,
        (y.view(-1), x.view(-1), n_elements, BLOCK_SIZE, mode),
    )
    return y


def swiglu_tiles(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``silu(a) * b + a`` in 2-D tiles."""
    m, n = a.shape
    c = torch.empty_like(a)
    ct.launch(
        torch.cuda.current_stream(),
        (ct.cdiv(m, 16), ct.cdiv(n, 32), 1),
        _swiglu_tile_kernel,
        (a, b, c, 16, 32),
    )
    return c
