"""Triton → Helion → Triton round trips of the Triton examples.

For every Triton example with a Helion golden (``examples/triton/expected_helion/NAME.py``):

* the golden reads back through the Helion frontend and translates to Triton, and that Triton
  computes what the Triton source computes (CPU, ``TRITON_INTERPRET=1``, ragged sizes);
* the kernels read back from the golden are the source's kernels up to the kinds of difference
  :data:`EXPECTED` lists for the example (each explained in :data:`ir_compare.KINDS`); every
  listed kind must be needed, so a new difference or a stale explanation fails.
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
GOLDENS = sorted((ROOT / "examples" / "triton" / "expected_helion").glob("*.py"))


@pytest.fixture(autouse=True)
def _repo_cwd(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def _source(golden: Path) -> str:
    return os.path.relpath(ROOT / "examples" / "triton" / golden.name, ROOT)


@pytest.mark.parametrize("golden", GOLDENS, ids=lambda p: p.stem)
def test_helion_golden_back_to_triton_matches_source_on_cpu(golden: Path, tmp_path: Path) -> None:
    triton_text = translate_file(os.path.relpath(golden, ROOT), "helion", "triton")
    translated = tmp_path / golden.name
    translated.write_text(triton_text)
    report = check_pair(_source(golden), translated, src_dsl="triton", seeds=(0,))
    assert report.rows, "no case ran"
    assert report.passed, report.format_text()


# Which kinds of difference (tests/ir_compare.py: KINDS) separate each example's kernels from the
# kernels read back from its Helion golden.
EXPECTED: dict[str, set[str]] = {
    "add": {"block_names", "pads", "tunables"},
    "attention": {"block_names", "hints", "unit_tile"},
    "cross_entropy": {"pads", "param_facts", "tunables", "zero_d"},
    "embedding": {"block_names", "reshape", "tunables"},
    "geglu": {"block_names", "tunables"},
    "heuristics": {"tunables"},
    "layer_norm": {"pads", "param_facts", "tunables", "zero_d"},
    "matmul": {"tunables"},
    "matmul_act": {"tunables"},
    "matmul_block_ptr": {"block_names", "tunables"},
    "matmul_descriptor": {"block_names", "tunables"},
    "matmul_host_descriptor": {"tunables"},
    "matmul_persistent": {"tunables"},
    "matmul_splitk": {"param_facts", "tunables", "unit_tile"},
    "rms_norm": {"param_facts", "sizes", "tunables"},
    "row_sum": {"block_names", "tunables"},
    "softmax": {"pads", "tunables"},
    "swiglu": {"tunables"},
}


def test_every_golden_has_its_differences_listed() -> None:
    assert sorted(EXPECTED) == [p.stem for p in GOLDENS]
    assert set().union(*EXPECTED.values()) <= set(KINDS)


@pytest.mark.parametrize("golden", GOLDENS, ids=lambda p: p.stem)
def test_helion_golden_keeps_the_kernels(golden: Path) -> None:
    source = parse_file(_source(golden), "triton")
    back = parse_file(os.path.relpath(golden, ROOT), "helion")
    kinds = EXPECTED[golden.stem]
    a, b = normal_form(source, kinds), normal_form(back, kinds)
    assert a == b, "\n".join(difflib.unified_diff(a.splitlines(), b.splitlines(), lineterm=""))
    for kind in sorted(kinds):
        rest = kinds - {kind}
        assert normal_form(source, rest) != normal_form(back, rest), (
            f"{golden.stem}: `{kind}` is listed but the kernels agree without it"
        )


def test_every_kind_explains_some_round_trip() -> None:
    from test_round_trip_helion import EXPECTED as HELION_EXPECTED

    used = set().union(*EXPECTED.values(), *HELION_EXPECTED.values())
    assert used == set(KINDS), f"kinds no round trip needs: {sorted(set(KINDS) - used)}"
