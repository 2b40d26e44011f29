"""Helion → Triton → Helion round trips of the Helion examples.

For every Helion example (``examples/helion/NAME.py``), its checked-in Triton translation
(``examples/helion/expected_triton/NAME.py``) is read back by the Triton frontend:

* translated to Helion, it computes what the Helion source computes (CPU, ``TRITON_INTERPRET=1``,
  ragged sizes, fp32 and fp16);
* its IR is the source's IR up to the kinds of difference :data:`EXPECTED` lists for the example
  (each explained in :data:`ir_compare.KINDS`); every listed kind must be needed, so a new
  difference or a stale explanation fails.
"""

from __future__ import annotations

import os

# Kernels run in Triton's interpreter; set it before anything imports triton.
os.environ["TRITON_INTERPRET"] = "1"

import difflib  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from ir_compare import KINDS, normal_form  # noqa: E402

from translator.api import parse_file, translate_file  # noqa: E402
from validation.equivalence import check_pair  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples" / "helion").glob("*.py"))


@pytest.fixture(autouse=True)
def _repo_cwd(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def _triton(example: Path) -> Path:
    return example.parent / "expected_triton" / example.name


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_round_trip_matches_source_on_cpu(example: Path, tmp_path: Path) -> None:
    helion = translate_file(os.path.relpath(_triton(example), ROOT), "triton", "helion")
    translated = tmp_path / example.name
    translated.write_text(helion)
    report = check_pair(os.path.relpath(example, ROOT), translated, seeds=(0,))
    assert report.rows, "no case ran"
    assert report.passed, report.format_text()


# Which kinds of difference (tests/ir_compare.py: KINDS) separate each example's IR from the IR
# read back from its Triton translation.
EXPECTED: dict[str, set[str]] = {
    "add": {"hints", "named_values", "sizes", "tunables"},
    "attention": {"hints", "names", "partial_dims", "sizes", "unit_tiles"},
    "bmm": {"hints", "named_values", "sizes", "unit_tiles"},
    "cross_entropy": {"commutative", "hints", "named_values", "sizes", "tunables"},
    "cross_entropy_onehot": {"broadcast", "hints", "named_values", "sizes", "tunables"},
    "exp": {"fp32_operands", "hints", "named_values", "names", "param_facts", "tunables"},
    "gelu": {"hints", "named_values", "sizes", "spelled_ops", "tunables"},
    "layer_norm": {"hints", "named_values", "sizes", "tunables", "unit_tiles"},
    "matmul": {"hints", "named_values", "sizes", "tunables"},
    "matmul_bias_act": {"hints", "named_values", "names", "sizes", "spelled_ops", "tunables"},
    "relu": {"hints", "named_values", "sizes", "spelled_ops", "tunables"},
    "rms_norm": {"hints", "named_values", "sizes", "tunables", "unit_tiles"},
    "row_mean": {"hints", "named_values", "sizes", "tunables"},
    "row_sum": {"hints", "named_values", "sizes", "tunables"},
    "scaled_add": {"hints", "named_values", "sizes", "tunables"},
    "silu": {"hints", "named_values", "sizes", "tunables"},
    "softmax": {"fp32_operands", "hints", "sizes", "tunables"},
    "softmax_two_pass": {"hints", "named_values", "names", "sizes", "tunables"},
}


def test_every_example_has_its_differences_listed() -> None:
    assert sorted(EXPECTED) == [p.stem for p in EXAMPLES]
    assert set().union(*EXPECTED.values()) <= set(KINDS)


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_round_trip_ir_differs_only_as_listed(example: Path) -> None:
    source = parse_file(os.path.relpath(example, ROOT), "helion")
    back = parse_file(os.path.relpath(_triton(example), ROOT), "triton")
    kinds = EXPECTED[example.stem]
    a, b = normal_form(source, kinds), normal_form(back, kinds)
    assert a == b, "\n".join(difflib.unified_diff(a.splitlines(), b.splitlines(), lineterm=""))
    for kind in sorted(kinds):
        rest = kinds - {kind}
        assert normal_form(source, rest) != normal_form(back, rest), (
            f"{example.stem}: `{kind}` is listed but the IRs agree without it"
        )
