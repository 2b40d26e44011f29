"""CPU equivalence of every Helion example with its checked-in Triton translation.

Both sides run under Triton's interpreter (``TRITON_INTERPRET=1``) on the same synthesised ragged
inputs (sizes that are multiples of no block size), fp32 and fp16, two seeds, outputs poisoned.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from validation.equivalence import check_pair

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples" / "helion").glob("*.py"))


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_translation_matches_source_on_cpu(example: Path) -> None:
    translated = example.parent / "expected_triton" / example.name
    report = check_pair(example, translated)
    assert report.rows, "no case ran"
    assert report.passed, report.format_text()


TRITON_EXAMPLES = sorted((ROOT / "examples" / "triton" / "expected_helion").glob("*.py"))


@pytest.mark.parametrize("golden", TRITON_EXAMPLES, ids=lambda p: p.stem)
def test_triton_to_helion_matches_source_on_cpu(golden: Path) -> None:
    source = ROOT / "examples" / "triton" / golden.name
    report = check_pair(source, golden, src_dsl="triton", seeds=(0,))
    assert report.rows, "no case ran"
    assert report.passed, report.format_text()


def test_triton2helion_cli_prints_helion(tmp_path: Path) -> None:

    from translator.cli import invoke

    out = tmp_path / "softmax_helion.py"
    result = invoke(["triton2helion", str(ROOT / "examples/triton/softmax.py"), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "@helion.kernel" in out.read_text()
