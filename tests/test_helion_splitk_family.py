"""Constructs of the split-K family of public Helion kernels (pytorch/helion ``examples/``:
``matmul_split_k``, ``split_k_barrier``, ``jsd``, ``template_via_closure``, ``int4_gemm``):
bit operations on integer tiles, user tunables (``hl.register_tunable``), block sizes the host
computes, and epilogue callables.

Accepted constructs are translated to Triton and run against their source on the CPU
(``TRITON_INTERPRET=1``); refusals are checked for their location, message and help.
"""

from __future__ import annotations

import os

# Kernels run in Triton's interpreter; set it before anything imports triton.
os.environ["TRITON_INTERPRET"] = "1"

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from translator.api import translate_file, translate_source  # noqa: E402
from translator.diagnostics import TranslationError  # noqa: E402
from validation.equivalence import check_pair  # noqa: E402

DATA = Path(__file__).parent / "data"
HEADER = "import helion\nimport helion.language as hl\nimport torch\n\n\n"


def _full_range_bytes(entry: str, device: str, dtype: str) -> tuple | None:
    """Inputs whose bytes use all 8 bits: the validator's default integers lie in [-8, 8),
    where shifting by 3 or by 4 gives the same (0 or -1), so they would hide a wrong shift."""
    import torch

    gen = torch.Generator().manual_seed(7)
    if entry == "int4_unpack":
        packed = torch.randint(-128, 128, (37, 45), generator=gen, dtype=torch.int8)
        scales = torch.rand(45, generator=gen, dtype=torch.float32) + 0.5
        return packed.to(device), scales.to(device)
    if entry == "int4_pack":
        lo = torch.randint(-8, 8, (77,), generator=gen, dtype=torch.int32)
        hi = torch.randint(-8, 8, (77,), generator=gen, dtype=torch.int32)
        return lo.to(device), hi.to(device)
    return None


@pytest.mark.parametrize("target", ["triton", "helion"])
def test_shifts_and_masks_of_integer_tiles_unpack_int4_as_the_source_does(
    target: str, tmp_path: Path
) -> None:
    source = DATA / "helion_int4_dequant.py"
    text = translate_file(source, "helion", target)
    # The arithmetic shift of the signed byte and the nibble masks are the source's operators.
    assert "(byte >> 4)" in text and "(byte & 15)" in text
    assert "& 15) << 4" in text and "^ 128) - 128" in text
    translated = tmp_path / f"int4_{target}.py"
    translated.write_text(text)
    report = check_pair(
        source, translated, dtypes=("float32",), seeds=(0,), inputs=_full_range_bytes
    )
    assert report.passed, report.format_text()


@pytest.mark.parametrize("target", ["tilelang", "cutile"])
def test_shifts_of_integer_tiles_are_spelt_in_every_backend(target: str) -> None:
    text = translate_file(DATA / "helion_int4_dequant.py", "helion", target)
    assert "byte >> 4" in text.replace("byte[i, j] >> 4", "byte >> 4")
    assert "<< 4" in text


def test_a_shift_of_a_float_tile_is_refused_where_it_is_written() -> None:
    source = (
        HEADER
        + "@helion.kernel()\n"
        + "def halve(x: torch.Tensor) -> torch.Tensor:\n"
        + "    out = torch.empty_like(x)\n"
        + "    for tile in hl.tile(x.size(0)):\n"
        + "        out[tile] = x[tile].to(torch.float32) >> 1\n"
        + "    return out\n"
    )
    with pytest.raises(TranslationError) as info:
        translate_source(source, "k.py", "helion", "triton")
    err = info.value
    assert err.loc is not None and err.loc.line == 10
    assert "`>>` of float32 operands (it takes integers)" in err.message
