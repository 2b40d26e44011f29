# Element-wise cuTile kernels written the way NVIDIA's TileGym writes them: a block id, element
# offsets `bid * TILE + ct.arange(TILE)` built through locals, `ct.gather` (bounds-checked, padded)
# and `ct.scatter`; row kernels index `(row, cols)`; compile-time scalars are `ct.Constant`
# parameters; tiles are converted with method chains.
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def _leaky_scale_kernel(x, y, ALPHA: ct.Constant[float], BLOCK_SIZE: ConstInt):
    pid = ct.bid(0)
    block_start = pid * BLOCK_SIZE
    offsets = ct.arange(BLOCK_SIZE, dtype=ct.int32) + block_start
    # Lanes past the end read 0 and are not written back.
    x_tile = ct.gather(x, offsets, padding_value=0)
    x_f32 = x_tile.astype(ct.float32)
    y_f32 = ct.where(x_f32 > 0.0, x_f32, x_f32 * ALPHA)
    ct.scatter(y, offsets, ct.astype(y_f32, y.dtype))


@ct.kernel
def _gated_rows_kernel(x, out, TILE_SIZE: ConstInt, HIDDEN: ConstInt):
    bid = ct.bid(0)  # one row per program
    row = bid
    cols = ct.arange(TILE_SIZE, dtype=ct.int32)
    # The gate half is read at lanes up to TILE_SIZE (past `HIDDEN` they read the up half, and
    # are not stored); the up half's lanes past the row read 0.
    gate = ct.gather(x, (row, cols), check_bounds=True).astype(ct.float32)
    up = ct.gather(x, (row, cols + HIDDEN), check_bounds=True).astype(ct.float32)
    result = gate * ct.exp(-ct.maximum(gate, ct.zeros((TILE_SIZE,), dtype=ct.float32))) * up
    ct.scatter(out, (row, cols), ct.astype(result, out.dtype), check_bounds=True)


@ct.kernel
def _row_affine_kernel(x, w, b, o, eps: float, TILE: ct.Constant):
    row = ct.bid(0)
    t = ct.load(x, (row, 0), (1, TILE), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)
    mean = ct.sum(t) / TILE
    t = t - mean
    w_t = ct.load(w, (0,), (TILE,), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)
    b_t = ct.load(b, (0,), (TILE,), padding_mode=ct.PaddingMode.ZERO).astype(ct.float32)
    t = t * w_t.reshape((1, TILE)) + b_t.reshape((1, TILE)) + eps
    ct.store(o, (row, 0), t.astype(o.dtype))


@ct.kernel
def _hashed_keep_kernel(
    x,
    output,
    P: ct.Constant[float],
    SEED: ct.Constant[int],
    TILE_SIZE: ConstInt,
    TRAINING: ct.Constant[bool],
):
    """Keeps each element with probability about ``1 - P`` by a hash of its offset."""
    bid = ct.bid(0)
    tile_start = bid * TILE_SIZE
    offsets = ct.arange(TILE_SIZE, dtype=ct.int32) + tile_start
    x_tile = ct.gather(x, offsets, padding_value=0)
    output_tile = x_tile
    if TRAINING:
        combined = offsets * 1103515245 + ct.full((TILE_SIZE,), SEED, dtype=ct.int32)
        hashed = ct.bitwise_xor(combined, combined * 747796405)
        hashed = ct.bitwise_or(ct.bitwise_and(hashed, 0x7FFFFF00), 0x55)
        keep = ct.astype(hashed, ct.float32) / 2147483647.0 > P
        scale = ct.full((TILE_SIZE,), 1.0 / (1.0 - P), dtype=x_tile.dtype)
        output_tile = ct.where(keep, x_tile * scale, ct.zeros((TILE_SIZE,), dtype=x_tile.dtype))
    ct.scatter(output, offsets, output_tile)


def _next_power_of_2(n: int) -> int:
    return 1 << (n - 1).bit_length()


def leaky_scale(x: torch.Tensor, alpha: float = 0.1) -> torch.Tensor:
    """``where(x > 0, x, alpha * x)`` over a flat view of ``x``."""
    y = torch.empty_like(x)
    x_flat, y_flat = x.reshape(-1), y.view(-1)
    n_elements = x_flat.numel()
    BLOCK_SIZE = 256
    grid = ((n_elements + BLOCK_SIZE - 1) // BLOCK_SIZE, 1, 1)
    ct.launch(
        torch.cuda.current_stream(),
        grid,
        _leaky_scale_kernel,
        (x_flat, y_flat, alpha, BLOCK_SIZE),
    )
    return y


def gated_rows(x: torch.Tensor) -> torch.Tensor:
    """``a * exp(-relu(a)) * b`` for ``a, b = x.chunk(2, -1)``, row by row."""
    hidden = x.shape[-1] // 2
    out = torch.empty((x.shape[0], hidden), dtype=x.dtype, device=x.device)
    tile_size = _next_power_of_2(hidden)
    ct.launch(
        torch.cuda.current_stream(),
        (x.shape[0],),
        _gated_rows_kernel,
        (x, out, tile_size, hidden),
    )
    return out


def row_affine(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor, eps: float) -> torch.Tensor:
    """``(x - mean(x, -1)) * w + b + eps`` per row (``x.shape[1]`` a power of two)."""
    o = torch.empty_like(x)
    n_rows, n_cols = x.shape
    ct.launch(
        torch.cuda.current_stream(), (n_rows, 1, 1), _row_affine_kernel, (x, w, b, o, eps, n_cols)
    )
    return o


def hashed_keep(x: torch.Tensor, seed: int, p: float = 0.5) -> torch.Tensor:
    """``x / (1 - p)`` where a hash of the element's offset and ``seed`` keeps it, else 0."""
    output = torch.empty_like(x)
    n_elements = x.numel()
    TILE_SIZE = 512
    grid = ((n_elements + TILE_SIZE - 1) // TILE_SIZE, 1, 1)
    ct.launch(
        torch.cuda.current_stream(),
        grid,
        _hashed_keep_kernel,
        (x.view(-1), output.view(-1), p, seed, TILE_SIZE, True),
    )
    return output
