"""A kernel split on a ``str`` choice (``reduction == "none"``, whose branches allocate the
output with two ranks): in the copy where the choice is ``"none"``, a test of another value
(``if reduction == "mean":``) is false, so its branch is dead code and not type-checked against
the other copy's buffers. Each translation runs against its Helion source on the CPU
(``TRITON_INTERPRET=1``) for every value of the choice."""

from __future__ import annotations

import os

# Kernels run in Triton's interpreter; set it before anything imports triton.
os.environ["TRITON_INTERPRET"] = "1"

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from translator.api import translate_source  # noqa: E402
from validation.equivalence import check_pair  # noqa: E402

# Liger-style losses: per-element for "none", per-row sums or means otherwise.
SQ_ERR = """import helion
import helion.language as hl
import torch


@helion.kernel(config=helion.Config(block_sizes=[16, 32], num_warps=4))
def sq_err(pred: torch.Tensor, target: torch.Tensor, reduction: str = "mean") -> torch.Tensor:
    m, n = pred.size()
    if reduction == "none":
        loss = torch.zeros([m, n], dtype=torch.float32, device=pred.device)
    else:
        loss = torch.zeros([m], dtype=torch.float32, device=pred.device)
    for tile_m in hl.tile(m):
        row_sum = hl.zeros([tile_m], dtype=torch.float32)
        for tile_n in hl.tile(n):
            diff = pred[tile_m, tile_n].to(torch.float32) - target[tile_m, tile_n].to(torch.float32)
            if reduction == "none":
                loss[tile_m, tile_n] = diff * diff
            else:
                row_sum = row_sum + torch.sum(diff * diff, dim=-1)
        if reduction == "mean":
            loss[tile_m] = row_sum / n
        {other_if} reduction == "sum":
            loss[tile_m] = row_sum
    return loss
"""


def _inputs(reduction: str):
    def inputs(entry: str, device: str, dtype: str) -> tuple:
        import torch

        torch.manual_seed(0)
        pred = torch.randn(20, 45, device=device, dtype=getattr(torch, dtype))
        target = torch.randn(20, 45, device=device, dtype=getattr(torch, dtype))
        return (pred, target, reduction)

    return inputs


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("other_if", ["elif", "if"])
def test_tests_of_other_values_are_dead_in_the_copy_of_one_value(
    tmp_path: Path, reduction: str, other_if: str
) -> None:
    text = SQ_ERR.format(other_if=other_if)
    source = tmp_path / "sq_err.py"
    source.write_text(text)
    translated = tmp_path / "sq_err_triton.py"
    out = translate_source(text, str(source), "helion", "triton")
    translated.write_text(out)
    report = check_pair(
        source, translated, dtypes=("float32",), seeds=(0,), inputs=_inputs(reduction)
    )
    assert report.passed, report.format_text()
