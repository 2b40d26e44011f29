"""``if not FLAG:`` on a constexpr flag (Liger's ``if not NO_AUX: aux_ptr += row``): the
negated test is decided by the flag as ``if FLAG:`` is, so a pointer it advances is the flag's
choice, read again under the same test. Each translation runs against its Triton source on the
CPU (``TRITON_INTERPRET=1``) for both values of the flag."""

from __future__ import annotations

import os

# Kernels run in Triton's interpreter; set it before anything imports triton.
os.environ["TRITON_INTERPRET"] = "1"

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from translator.api import translate_source  # noqa: E402
from validation.equivalence import check_pair  # noqa: E402

KERNEL = """import torch
import triton
import triton.language as tl


@triton.jit
def _rows(x_ptr, out_ptr, aux_ptr, stride, n_cols, BLOCK: tl.constexpr, NO_AUX: tl.constexpr):
    row = tl.program_id(0)
    if not NO_AUX:
        aux_ptr += row
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=0.0)
    tl.store(out_ptr + row * stride + cols, x * 2.0, mask=cols < n_cols)
    if not NO_AUX:
        tl.store(aux_ptr, tl.sum(x, axis=0))


def rows(x: torch.Tensor, aux: torch.Tensor, {param}: bool):
    n_rows, n_cols = x.shape
    out = torch.empty_like(x)
    _rows[(n_rows,)](
        x, out, aux, x.stride(0), n_cols, BLOCK=triton.next_power_of_2(n_cols), NO_AUX={flag}
    )
    return out, aux
"""


def _inputs(no_aux: bool):
    def inputs(entry: str, device: str, dtype: str) -> tuple:
        import torch

        torch.manual_seed(0)
        x = torch.randn(13, 37, device=device, dtype=getattr(torch, dtype))
        aux = torch.zeros(13, device=device, dtype=getattr(torch, dtype))
        return (x, aux, no_aux)

    return inputs


@pytest.mark.parametrize("target", ["helion", "tilelang", "cutile"])
@pytest.mark.parametrize("no_aux", [False, True])
def test_a_negated_flag_decides_the_pointer_it_advances(
    tmp_path: Path, target: str, no_aux: bool
) -> None:
    text = KERNEL.format(param="no_aux", flag="no_aux")
    source = tmp_path / "rows.py"
    source.write_text(text)
    translated = tmp_path / f"rows_{target}.py"
    translated.write_text(translate_source(text, str(source), "triton", target))
    report = check_pair(
        source,
        translated,
        src_dsl="triton",
        dtypes=("float32",),
        seeds=(0,),
        inputs=_inputs(no_aux),
    )
    assert report.passed, report.format_text()
