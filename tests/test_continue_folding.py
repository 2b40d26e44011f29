"""`continue` in a device loop, folded into `if`/`else` (translator/dialects/common/continues.py).

Before/after pairs of the rewrite, and a Helion kernel that skips ignored rows with `continue`,
whose IR is the IR of the same kernel written with `else:` (Helion 1.5 itself rejects
`continue`, so the structured kernel is the one run against the translation).
"""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from translator.api import parse_source, translate_source
from translator.dialects.common.continues import fold_continues
from translator.ir.printer import format_module
from validation.equivalence import check_pair


def _folded(loop: str) -> str:
    """The loop's source with its body's continues folded."""
    module = cst.parse_module(loop)
    (loop_node,) = module.body
    assert isinstance(loop_node, cst.For)
    body, _ = fold_continues(loop_node.body.body)
    new = loop_node.with_changes(body=loop_node.body.with_changes(body=body))
    return module.with_changes(body=[new]).code


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (
            "for i in r:\n    if a:\n        x = 1\n        continue\n    y = 2\n",
            "for i in r:\n    if a:\n        x = 1\n    else:\n        y = 2\n",
        ),
        (  # nested: the rest runs on both paths that do not skip
            "for i in r:\n    if a:\n        if b:\n            continue\n    y = 2\n",
            "for i in r:\n    if a:\n        if b:\n            pass\n        else:\n"
            "            y = 2\n    else:\n        y = 2\n",
        ),
        (  # an elif chain, and a one-line body
            "for i in r:\n    if a: continue\n    elif b:\n        x = 1\n    y = 2\n",
            "for i in r:\n    if a:\n        pass\n    elif b:\n        x = 1\n        y = 2\n"
            "    else:\n        y = 2\n",
        ),
        (  # a continue of an inner loop is that loop's
            "for i in r:\n    for j in s:\n        if a:\n            continue\n        x = 1\n",
            "for i in r:\n    for j in s:\n        if a:\n            continue\n        x = 1\n",
        ),
        (  # a bare continue ends the body
            "for i in r:\n    x = 1\n    continue\n    y = 2\n",
            "for i in r:\n    x = 1\n",
        ),
    ],
)
def test_fold_continues(before: str, after: str) -> None:
    assert _folded(before) == after


_SKIPPING = '''
import helion
import helion.language as hl
import torch


@helion.kernel(config=helion.Config(block_sizes=[32, 32]))
def masked_row_scale(x: torch.Tensor, labels: torch.Tensor, ignore_index: int = -100) -> torch.Tensor:
    """Rows whose label is ``ignore_index`` get zeros; the others are scaled by their label."""
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m in hl.tile(m, block_size=1):
        label = labels[tile_m.begin]
        if label == ignore_index:
            for tile_z in hl.tile(n):
                out[tile_m, tile_z] = torch.zeros_like(x[tile_m, tile_z])
            {skip}
        {indent}for tile_n in hl.tile(n):
        {indent}    out[tile_m, tile_n] = x[tile_m, tile_n] * label
    return out
'''

_CONTINUE = _SKIPPING.replace("{skip}", "continue").replace("{indent}", "")
_ELSE = (
    _SKIPPING.replace("{skip}", "")
    .replace("        {indent}for", "        else:\n            for")
    .replace("{indent}    out", "        out")
)


def _inputs(entry: str, device: str, dtype: str) -> tuple:
    import torch

    g = torch.Generator().manual_seed(0)
    x = torch.randn(13, 70, generator=g).to(device=device, dtype=getattr(torch, dtype))
    labels = torch.randint(-1, 3, (13,), generator=g).to(device)
    return (x, labels, -1)


def test_a_helion_kernel_that_skips_rows_with_continue(tmp_path: Path) -> None:
    # Same IR as the kernel written with `else:` (names and lines aside: compare the kernels).
    def kernel_text(source: str) -> str:
        text = format_module(parse_source(source, "k.py", "helion"))
        return text[text.index("kernel ") : text.index("\nentry ")]

    assert kernel_text(_CONTINUE) == kernel_text(_ELSE)
    translated = translate_source(_CONTINUE, "skip.py", "helion", "triton")
    assert "else:" in translated and "continue" not in translated
    # The structured source runs in Helion; the translation of the `continue` form matches it.
    source = tmp_path / "structured.py"
    source.write_text(_ELSE)
    out = tmp_path / "skip_triton.py"
    out.write_text(translated)
    report = check_pair(
        source, out, src_dsl="helion", dtypes=("float32",), seeds=(0,), inputs=_inputs
    )
    assert report.rows and report.passed, report.format_text()
