"""Triton backend behaviour beyond the examples' goldens."""

from __future__ import annotations

from pathlib import Path

from translator.api import translate_file
from validation.equivalence import check_pair

DATA = Path(__file__).resolve().parent / "data"


def test_kernels_without_configs_get_a_hopper_autotune_space() -> None:
    text = translate_file(DATA / "helion_no_config.py", "helion", "triton")
    row_kernel, dot_kernel = text.split("def _rowmax_kernel")[0], text.split("def _mm_kernel")[0]
    assert row_kernel.count("triton.Config(") == 4  # the grammar's "rows" space
    assert dot_kernel.count("triton.Config(") - row_kernel.count("triton.Config(") == 5
    assert '"BLOCK_SIZE_K": 64' in dot_kernel
    assert 'key=["m", "k", "n"]' in dot_kernel


def test_row_max_min_and_dot_without_configs_are_equivalent(tmp_path: Path) -> None:
    # Helion cannot autotune under the CPU interpreter, so the source gets fixed configs here.
    source = tmp_path / "source.py"
    source.write_text(
        (DATA / "helion_no_config.py")
        .read_text()
        .replace("@helion.kernel()\ndef rowmax", "@helion.kernel(config=helion.Config(block_sizes=[2]))\ndef rowmax")
        .replace("@helion.kernel()\ndef mm", "@helion.kernel(config=helion.Config(block_sizes=[16, 16, 16]))\ndef mm")
    )
    text = translate_file(source, "helion", "triton")
    # amax and amin over the whole row are masked reductions.
    assert 'tl.max(tl.where(mask_n[None, :], x, float("-inf")), axis=1)' in text
    translated = tmp_path / "translated.py"
    translated.write_text(text)
    report = check_pair(source, translated, dtypes=("float32",), seeds=(0,))
    assert report.passed, report.format_text()
