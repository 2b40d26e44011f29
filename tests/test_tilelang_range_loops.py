"""Python ``range`` loops in a prim_func (TVMScript's ``T.serial``) over a count the kernel
names (``num_k_step = T.ceildiv(N, blk_k)``), as TileLang's ``rms_norm`` example writes them:
read as the tile loops they count, computing what the source computes on the CPU. What that
example does beyond it is refused where it stands: an accumulator shaped by the loop's block,
written before the loop and reduced after it, and a loop walking its tiles backwards."""

from __future__ import annotations

import os

os.environ["TRITON_INTERPRET"] = "1"

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from translator.api import parse_file, translate_file  # noqa: E402
from translator.diagnostics import TranslationError  # noqa: E402
from translator.ir import nodes as ir  # noqa: E402
from translator.ir.visit import walk_stmts  # noqa: E402
from validation.equivalence import check_pair  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RMS = ROOT / "tests" / "data" / "tilelang_rms_norm_blocked.py"


def _ragged(entry: str, device: str, dtype: str) -> tuple:
    """45 rows in blocks of 4, 150 columns in blocks of 64: both edges ragged."""
    import torch

    return (torch.randn(45, 150, generator=torch.Generator().manual_seed(0)).to(device),)


def _variant(tmp_path: Path, old: str, new: str) -> Path:
    source = RMS.read_text()
    assert old in source
    path = tmp_path / "variant.py"
    path.write_text(source.replace(old, new))
    return path


def test_range_loops_are_the_tile_loops_they_count() -> None:
    (kernel,) = parse_file(RMS, "tilelang").kernels
    loops = [s for s in walk_stmts(kernel.body) if isinstance(s, ir.TileLoop)]
    assert [(t.name, t.block, t.extent) for s in loops for t in s.tiles] == [
        ("k", "blk_k", ir.SizeOf("A", 1)),
        ("k", "blk_k", ir.SizeOf("A", 1)),
    ]
    # The count's name is no scalar of the kernel (only the loops read it).
    assert not any(
        isinstance(s, ir.Assign) and s.target == "num_k_step" for s in walk_stmts(kernel.body)
    )


@pytest.mark.parametrize("dst", ["triton", "helion", "cutile", "tilelang"])
def test_range_loops_compute_what_the_source_does(tmp_path: Path, dst: str) -> None:
    translated = tmp_path / f"rms_{dst}.py"
    translated.write_text(translate_file(RMS, "tilelang", dst))
    report = check_pair(
        RMS, translated, src_dsl="tilelang", dtypes=("float32",), seeds=(0,), inputs=_ragged
    )
    assert [row.entry for row in report.rows] == ["rms_norm"]
    assert report.passed, report.format_text()


def test_a_block_size_read_before_its_loops_is_the_tunable(tmp_path: Path) -> None:
    """`num_k_step` also read as a scalar (here, to scale the mean): a let of the kernel that
    reads the tunable `blk_k`, not a tile's block size outside its loop."""
    path = _variant(
        tmp_path,
        "A_powsum[i] = T.rsqrt(A_powsum[i] / N + 1e-12)",
        "A_powsum[i] = T.rsqrt(A_powsum[i] / (num_k_step * blk_k) + 1e-12)",
    )
    (kernel,) = parse_file(path, "tilelang").kernels
    lets = {s.target: s.value for s in walk_stmts(kernel.body) if isinstance(s, ir.Assign)}
    assert lets["num_k_step"] == ir.Call("cdiv", (ir.SizeOf("A", 1), ir.Name("blk_k")))


def test_an_accumulator_of_the_loop_s_block_reduced_after_it_is_refused(tmp_path: Path) -> None:
    """`rms_norm_splitk`: per-lane partial sums over the loop's tiles, cleared before the loop
    and reduced after it; a loop's tile lives only inside the loop."""
    source = RMS.read_text()
    for old, new in [
        ("            T.clear(A_powsum)\n", "            T.clear(A_sq)\n"),
        (
            "A_sq[i, j] = A_shared[i, j] * A_shared[i, j]",
            "A_sq[i, j] += A_shared[i, j] * A_shared[i, j]",
        ),
        (
            "                T.reduce_sum(A_sq, A_part, dim=1)\n"
            "                for i in T.Parallel(blk_m):\n"
            "                    A_powsum[i] += A_part[i]\n",
            "            T.reduce_sum(A_sq, A_powsum, dim=1)\n",
        ),
    ]:
        assert old in source
        source = source.replace(old, new)
    path = tmp_path / "splitk_style.py"
    path.write_text(source)
    with pytest.raises(TranslationError) as err:
        translate_file(path, "tilelang", "triton")
    assert "`A_sq` is shaped by the block of loop `k` and written here, outside that loop" in str(
        err.value
    )
    line = next(i for i, s in enumerate(path.read_text().splitlines(), 1) if "T.clear(A_sq)" in s)
    assert err.value.loc is not None and err.value.loc.line == line
    assert err.value.hint and "T.reduce_sum(A_sq, partial" in err.value.hint


def test_a_loop_walking_its_tiles_backwards_is_refused(tmp_path: Path) -> None:
    path = _variant(
        tmp_path,
        "T.copy(A_shared, B[bx * blk_m, k * blk_k])",
        "T.copy(A_shared, B[bx * blk_m, (num_k_step - 1 - k) * blk_k])",
    )
    with pytest.raises(TranslationError, match=r"is not `k \* blk_k`") as err:
        translate_file(path, "tilelang", "triton")
    assert err.value.loc is not None
