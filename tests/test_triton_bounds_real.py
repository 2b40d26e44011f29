"""Bounds proofs that production Triton leaves to its host: unmasked whole-block accesses whose
wrapper refuses sizes that are not a multiple of the block (``tests/data/triton_bounds/``).

``assert x.numel() % 128 == 0`` / ``if n % BLOCK: raise`` before a launch of ``n // BLOCK``
programs makes every block lie in the tensor; the IR keeps its tiles masked, so the translations
compute what the source computes on every size the host accepts. Each translation is run against
its source on CPU at sizes the host check accepts; the variants without a usable host check are
refused with the check that would make them pass.
"""

from __future__ import annotations

import os

os.environ["TRITON_INTERPRET"] = "1"
os.environ.pop("HELION_INTERPRET", None)

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
import torch  # noqa: E402
from lifted import lifted  # noqa: E402

from translator.api import parse_file, parse_source, translate_file  # noqa: E402
from translator.diagnostics import TranslationError  # noqa: E402
from translator.ir import nodes as ir  # noqa: E402
from translator.ir.visit import all_exprs  # noqa: E402
from validation.equivalence import check_pair  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "triton_bounds"
WHOLE = DATA / "host_divisible.py"
GROUPS = DATA / "host_divisible_groups.py"
COUNTS = DATA / "count_masks.py"
ROW_STATS = DATA / "row_stats.py"
STRIDES = DATA / "constexpr_strides.py"
SLOTS = DATA / "slot_division.py"
HALVES = DATA / "half_tiles.py"
SLOTS_3D = DATA / "slot_division_3d.py"


def _inputs(entry: str, device: str, dtype: str):
    """Sizes the wrappers accept (multiples of their blocks), of ragged row counts."""
    dt = getattr(torch, dtype)
    g = torch.Generator().manual_seed(0)

    def randn(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=g).to(dt).to(device)

    return {
        "group_quant": lambda: (randn(7, 3 * 64),),
        "silu": lambda: (randn(5, 3, 128),),
        "row_scale": lambda: (randn(7, 96), randn(96)),
        "token_counts": lambda: (torch.randint(0, 40, (7, 53), generator=g).to(device), 40),
        "scale_all": lambda: (randn(3, 5, 67), 0.5),
        # Rows of 12 columns: halves of 6, padded to 8 lanes.
        "rope": lambda: (randn(7, 12), randn(7, 6), randn(7, 6)),
        # Padding slots (-1) among slots of a 5-block cache of 4 rows per block.
        "cache_blocks": lambda: (
            randn(9, 16),
            torch.zeros(5, 16).to(dt).to(device),
            _slots(device),
        ),
        "cache_rows": lambda: (
            randn(9, 16),
            torch.zeros(5, 4, 16).to(dt).to(device),
            _slots(device),
        ),
    }.get(entry, lambda: None)()


def _slots(device: str) -> torch.Tensor:
    return torch.tensor([3, -1, 7, 19, 0, -1, 12, 5, 16], device=device)


def _check(source: Path, dst: str, tmp_path: Path) -> None:
    out = tmp_path / f"{source.stem}_{dst}.py"
    out.write_text(translate_file(source, "triton", dst))
    report = check_pair(
        source, out, src_dsl="triton", dtypes=("float32", "float16"), seeds=(0,), inputs=_inputs
    )
    assert report.rows and report.passed, report.format_text()


@pytest.mark.parametrize("dst", ["helion", "triton", "tilelang", "cutile"])
def test_whole_block_kernels_match_the_source_on_sizes_the_host_accepts(
    dst: str, tmp_path: Path
) -> None:
    _check(WHOLE, dst, tmp_path)


@pytest.mark.parametrize("dst", ["helion", "triton", "tilelang"])
def test_groupwise_quant_matches_the_source(dst: str, tmp_path: Path) -> None:
    # `in_ptr` keeps its name: `in` would be a keyword in the translated signature.
    _check(GROUPS, dst, tmp_path)


def test_the_host_check_becomes_the_tile_extent_and_a_masked_reduction() -> None:
    (entry,) = lifted(parse_file(GROUPS, "triton"))
    (kernel,) = entry.kernels()
    (tile,) = kernel.grid
    assert tile.extent == ir.SizeOf("x_flat", 0)
    (amax,) = [e for e in all_exprs(kernel.body) if isinstance(e, ir.Reduce)]
    # Lanes past the end do not exist on the sizes the host accepts: leaving them out is exact.
    assert amax.masked
    asserts = [s for s in entry.body if isinstance(s, ir.Assert)]
    assert len(asserts) == 1  # the host check stays in the translated wrapper


def _refusal(source: Path, old: str, new: str) -> TranslationError:
    text = source.read_text()
    assert old in text
    with pytest.raises(TranslationError) as info:
        parse_source(text.replace(old, new), str(source), "triton")
    return info.value


def test_without_the_host_check_the_refusal_names_the_check() -> None:
    err = _refusal(
        WHOLE,
        '    assert x.numel() % 128 == 0, "pad the input to a multiple of 128 elements"\n',
        "",
    )
    assert "not masked along tile" in err.message
    assert "assert x.numel() % 128 == 0" in (err.hint or "")


def test_a_check_against_a_smaller_divisor_proves_nothing() -> None:
    # A multiple of 64 need not be one of 128: the last block may still run past the end.
    err = _refusal(WHOLE, "assert x.numel() % 128 == 0", "assert x.numel() % 64 == 0")
    assert "not masked along tile" in err.message


def test_a_check_in_another_branch_proves_nothing_after_it() -> None:
    err = _refusal(
        WHOLE,
        '    assert x.numel() % 128 == 0, "pad the input to a multiple of 128 elements"\n',
        "    if x.dim() == 2:\n        assert x.numel() % 128 == 0\n",
    )
    assert "not masked along tile" in err.message


def test_a_check_of_an_unrelated_size_proves_nothing() -> None:
    err = _refusal(WHOLE, "if N % 32:", "if M % 32:")
    assert "not masked along tile `tile_n`" in err.message
    assert "assert x.shape[1] % 32 == 0" in (err.hint or "")


def test_a_second_tensor_of_unproven_size_is_refused_with_the_equality_to_assert() -> None:
    err = _refusal(WHOLE, "    assert w.shape == (N,)\n", "")
    assert "the load from `w` is not masked" in err.message
    assert "assert w.numel() == x.shape[1]" in (err.hint or "")


def test_a_block_the_wrapper_receives_is_refused_precisely() -> None:
    text = WHOLE.read_text()
    text = text.replace(
        "def silu(x: torch.Tensor):", "def silu(x: torch.Tensor, block: int = 128):"
    )
    text = text.replace("x.numel() % 128 == 0", "x.numel() % block == 0")
    text = text.replace(
        "(x.numel() // 128,)](x, y, BLOCK=128)", "(x.numel() // block,)](x, y, BLOCK=block)"
    )
    with pytest.raises(TranslationError) as info:
        parse_source(text, str(WHOLE), "triton")
    err = info.value
    assert "not masked along tile" in err.message
    assert "a value the wrapper receives" in (err.hint or "")


def test_floor_division_programs_without_a_check_are_refused_at_the_grid() -> None:
    # Masked accesses but `n // BLOCK` programs and no check: the last partial block is never
    # visited, which no translation with cdiv tiles reproduces.
    text = WHOLE.read_text()
    text = text.replace(
        "x = tl.load(x_ptr + offs).to(tl.float32)",
        "x = tl.load(x_ptr + offs, mask=offs < n).to(tl.float32)",
    )
    text = text.replace(
        "tl.store(y_ptr + offs, (x * tl.sigmoid(x)).to(y_ptr.dtype.element_ty))",
        "tl.store(y_ptr + offs, (x * tl.sigmoid(x)).to(y_ptr.dtype.element_ty), mask=offs < n)",
    )
    text = text.replace(
        "def _silu_kernel(x_ptr, y_ptr, BLOCK", "def _silu_kernel(x_ptr, y_ptr, n, BLOCK"
    )
    text = text.replace("](x, y, BLOCK=128)", "](x, y, x.numel(), BLOCK=128)")
    text = text.replace(
        '    assert x.numel() % 128 == 0, "pad the input to a multiple of 128 elements"\n', ""
    )
    with pytest.raises(TranslationError) as info:
        parse_source(text, str(WHOLE), "triton")
    assert "the grid launches" in info.value.message


@pytest.mark.parametrize("dst", ["helion", "triton", "tilelang", "cutile"])
def test_masks_against_a_constexpr_count_of_the_tensor_match_the_source(
    dst: str, tmp_path: Path
) -> None:
    # `elem_cnt: tl.constexpr` launched as `math.prod(indices.shape)`: the tensor's element
    # count, so `offsets < elem_cnt` bounds the tile by the tensor's extent.
    if dst == "cutile":
        with pytest.raises(TranslationError) as info:
            translate_file(COUNTS, "triton", dst)
        assert "atomic at gathered indices" in info.value.message
        return
    _check(COUNTS, dst, tmp_path)


def test_a_count_of_another_size_is_refused() -> None:
    err = _refusal(COUNTS, "M = math.prod(indices.shape)", "M = math.prod(indices.shape[:1])")
    assert "is not masked" in err.message or "mask" in err.message


@pytest.mark.parametrize("dst", ["helion", "triton", "tilelang", "cutile"])
def test_row_block_stats_stored_without_a_mask_match_the_source(dst: str, tmp_path: Path) -> None:
    _check(ROW_STATS, dst, tmp_path)


def test_row_blocks_tuned_past_one_row_are_refused() -> None:
    # With 4 rows per program the unmasked stat stores of the last block run past `M`.
    err = _refusal(
        ROW_STATS,
        '{"BLOCK_ROW_SIZE": 1, "BLOCK_COL_SIZE": 64}',
        '{"BLOCK_ROW_SIZE": 4, "BLOCK_COL_SIZE": 64}',
    )
    assert "the store into `mean` is not masked along tile" in err.message


@pytest.mark.parametrize("dst", ["helion", "triton", "tilelang", "cutile"])
def test_constexpr_row_strides_are_read_as_strides(dst: str, tmp_path: Path) -> None:
    _check(STRIDES, dst, tmp_path)


def test_a_constexpr_stride_of_the_wrong_dim_is_refused() -> None:
    # `X.stride(1)` (1 for a contiguous X) as the row step would overlap the rows: no 2-d view.
    err = _refusal(STRIDES, "        X.stride(0),\n", "        X.stride(1),\n")
    assert "the offset into `X` has terms with and without the stride of its last dim" in (
        err.message
    )


@pytest.mark.parametrize("dst", ["helion", "triton", "tilelang", "cutile"])
def test_division_of_a_slot_after_negative_slots_returned_matches_the_source(
    dst: str, tmp_path: Path
) -> None:
    _check(SLOTS, dst, tmp_path)


@pytest.mark.parametrize("dst", ["triton", "tilelang"])
def test_paged_cache_slot_division_matches_the_source(dst: str, tmp_path: Path) -> None:
    _check(SLOTS_3D, dst, tmp_path)


@pytest.mark.parametrize(
    "old, new",
    [
        ("    if slot < 0:\n        return\n", ""),  # negative slots reach the division
        ("if slot < 0:", "if slot > 100:"),  # returns for other slots
    ],
)
def test_division_of_a_slot_that_may_be_negative_is_refused(old: str, new: str) -> None:
    err = _refusal(SLOTS, old, new)
    assert "`//` on device values is not supported" in err.message


@pytest.mark.parametrize("dst", ["helion", "triton", "tilelang"])
def test_half_head_tiles_of_a_constexpr_expression_match_the_source(
    dst: str, tmp_path: Path
) -> None:
    # `tl.arange(0, pad_hd // 2)` with `pad_hd = next_power_of_2(head_dim)`: the whole of
    # `head_dim // 2` (cuTile's output scatters through a half-dim mask that its reader for
    # the CPU check does not take yet).
    _check(HALVES, dst, tmp_path)


def test_a_half_tile_masked_by_another_extent_is_refused() -> None:
    err = _refusal(HALVES, "mask = offs < hd // 2", "mask = offs < hd")
    assert "the mask bounds tl.arange(0, pad_hd // 2) by head_dim" in err.message


def test_an_expression_of_an_autotuned_block_is_refused() -> None:
    text = HALVES.read_text()
    text = text.replace("def rope(", "def rope_tuned(").replace(
        "_rope_kernel[(n_rows,)](q, cos, sin, q.stride(0), cos.stride(0), head_dim, pad_hd)",
        "_rope_kernel[(n_rows,)](q, cos, sin, q.stride(0), cos.stride(0), head_dim, "
        "min(pad_hd, 64))",
    )
    with pytest.raises(TranslationError) as info:
        parse_source(text, str(HALVES), "triton")
    assert "block size `pad_hd // 2` is computed on the host" in info.value.message


def test_int_of_host_sizes_and_strides_is_the_value_itself(tmp_path: Path) -> None:
    # vLLM's wrappers pass `int(x.stride(0))` and `int(cache.size(1))`.
    text = SLOTS.read_text()
    old = "x.stride(0), cache.stride(0), 4, d)"
    assert old in text
    source = tmp_path / "slot_division_int.py"
    source.write_text(text.replace(old, "int(x.stride(0)), int(cache.stride(0)), 4, int(d))"))
    _check(source, "helion", tmp_path)
