"""TileLang in the tile-ai examples' spellings: ``import tilelang as tl`` with ``tl.cdiv``
tile counts (in ``T.Kernel`` and in factory locals) and ``T.alloc_var`` scalars
(tests/data/tilelang_tl_idioms.py), read into IR, translated and run against the source on the
CPU (TileLang's C-target variant); what stays unread is a located diagnostic."""

from __future__ import annotations

import os

os.environ["TRITON_INTERPRET"] = "1"

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from translator.api import parse_file, translate_file, translate_source  # noqa: E402
from translator.diagnostics import TranslationError  # noqa: E402
from translator.ir import nodes as ir  # noqa: E402
from translator.ir.visit import walk_stmts  # noqa: E402
from validation.equivalence import check_pair  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TL_IDIOMS = ROOT / "tests" / "data" / "tilelang_tl_idioms.py"


def _inputs(entry: str, device: str, dtype: str) -> tuple:
    import torch

    # Ragged in both dims: 3 row blocks of 32 (the last partial), 2 column blocks of 64.
    return (torch.randn(70, 100, generator=torch.Generator().manual_seed(0)).to(device),)


def test_tl_cdiv_counts_and_a_variable_read_into_ir() -> None:
    (kernel,) = parse_file(TL_IDIOMS, "tilelang").kernels
    by, bx = kernel.grid
    assert (by.extent, by.block) == (ir.SizeOf("X", 0), "block_M")
    assert (bx.extent, bx.block) == (ir.SizeOf("X", 1), "block_N")
    # The variable starts at zero and each `decay = ...` stores a float32 value to it.
    writes = [s for s in walk_stmts(kernel.body) if isinstance(s, ir.Assign)]
    assert [s.target for s in writes][:3] == ["decay"] * 3
    assert writes[0].value == ir.Cast(ir.Const(0), ir.F32)


@pytest.mark.parametrize("dst", ["triton", "helion", "cutile"])
def test_tl_idioms_translate_and_match_on_cpu(tmp_path: Path, dst: str) -> None:
    translated = tmp_path / f"tl_idioms_{dst}.py"
    translated.write_text(translate_file(TL_IDIOMS, "tilelang", dst))
    report = check_pair(
        TL_IDIOMS, translated, src_dsl="tilelang", dtypes=("float32",), seeds=(0,), inputs=_inputs
    )
    assert [row.entry for row in report.rows] == ["decay_rows"]
    assert report.passed, report.format_text()


@pytest.mark.parametrize(
    ("old", "new", "what"),
    [
        (
            "            decay = decay * 0.5 + 0.25\n",
            "            decay = decay * 0.5 + 0.25\n"
            "            for i in T.Parallel(block_M):\n"
            "                decay = decay + 1.0\n",
            "a T.alloc_var, is written in a T.Parallel loop",
        ),
        (
            'decay = T.alloc_var("float32")',
            'decay = T.alloc_var("float32", scope="shared")',
            "in the local.var scope is read",
        ),
    ],
    ids=["parallel-write", "scope"],
)
def test_what_a_variable_cannot_mean_is_a_located_diagnostic(old: str, new: str, what: str) -> None:
    source = TL_IDIOMS.read_text()
    assert old in source
    text = source.replace(old, new)
    with pytest.raises(TranslationError) as err:
        translate_source(text, "tl_idioms.py", "tilelang", "triton")
    assert what in str(err.value)
    line = next(
        i for i, ln in enumerate(text.splitlines(), 1) if new.strip().splitlines()[-1].strip() in ln
    )
    assert err.value.loc is not None and err.value.loc.line == line
