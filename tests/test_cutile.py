"""The cuTile dialect on the CPU: translations into cuTile, its oracle, and its frontend.

cuTile has no CPU execution, so each launch of a cuTile translation is proved in two steps by the
dialect's runner (``translator/dialects/cutile/runner.py``): the kernel compiles to an sm_90 cubin
(``tileiras``, specialised on the launch's dtypes and constants), and its IR, read back from the
emitted file by the cuTile frontend, runs in the IR reference interpreter on the launch's
arguments. ``check_pair`` runs the source (Triton's interpreter) against that on the same seeded,
ragged inputs.

* every checked-in cuTile translation of a Helion or Triton example computes what its source does
  (fp32 and fp16), and the report names the oracle;
* the oracle is not vacuous: a wrong kernel fails numerically, and what cuTile's compiler refuses
  (a narrowing store) fails the launch with the compiler's location;
* cuTile's own examples (``examples/cutile/``) read into IR and translate to Triton and Helion.
"""

from __future__ import annotations

import os

os.environ["TRITON_INTERPRET"] = "1"

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
import torch  # noqa: E402

from translator.api import parse_file, translate_file  # noqa: E402
from translator.diagnostics import TranslationError  # noqa: E402
from validation.equivalence import check_pair, use_interpreter  # noqa: E402
from validation.runners import load_module  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TRANSLATIONS = sorted(
    p
    for src in ("helion", "triton")
    for p in (ROOT / "examples" / src / "expected_cutile").glob("*.py")
)


@pytest.fixture(autouse=True)
def _repo_cwd(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def _source(golden: Path) -> Path:
    return golden.parent.parent / golden.name


@pytest.mark.parametrize("golden", TRANSLATIONS, ids=lambda p: f"{p.parent.parent.name}-{p.stem}")
def test_translation_into_cutile_matches_its_source_on_cpu(golden: Path) -> None:
    report = check_pair(_source(golden), golden, dtypes=("float32", "float16"), seeds=(0,))
    assert report.rows, "no case ran"
    assert report.passed, report.format_text()
    (_, dsl, how) = report.oracles[1]
    assert dsl == "cutile" and "sm_90" in how and "reference interpreter" in how


def test_a_wrong_cutile_kernel_fails_the_oracle(tmp_path: Path) -> None:
    text = (ROOT / "examples/helion/expected_cutile/add.py").read_text()
    assert text.count("            + ct.load(") == 1
    bad = tmp_path / "add.py"
    bad.write_text(text.replace("            + ct.load(", "            - ct.load("))
    report = check_pair(ROOT / "examples/helion/add.py", bad, dtypes=("float32",), seeds=(0,))
    assert report.rows and not report.passed


def test_what_the_cutile_compiler_refuses_fails_the_launch(tmp_path: Path) -> None:
    text = (ROOT / "examples/helion/expected_cutile/matmul.py").read_text()
    cast = "tile=ct.astype(acc, out.dtype)"
    assert cast in text
    bad = tmp_path / "matmul.py"
    bad.write_text(text.replace(cast, "tile=acc"))  # an fp32 tile stored into an fp16 array
    use_interpreter()
    module = load_module(bad, "translated")
    x, y = torch.randn(33, 40, dtype=torch.float16), torch.randn(40, 20, dtype=torch.float16)
    with pytest.raises(Exception, match="cannot implicitly cast float32 to float16") as err:
        module.matmul(x, y)
    assert f"{bad}" in str(err.value)
    module.matmul(x.float(), y.float())  # the same kernel on fp32 arrays compiles and runs


def test_a_launch_that_is_not_one_program_per_tile_is_refused_by_the_oracle(
    tmp_path: Path,
) -> None:
    text = (ROOT / "examples/helion/expected_cutile/relu.py").read_text()
    assert "(ct.cdiv(m, 64), ct.cdiv(n, 128), 1)" in text
    bad = tmp_path / "relu.py"
    bad.write_text(text.replace("(ct.cdiv(m, 64), ct.cdiv(n, 128), 1)", "(1, ct.cdiv(n, 128), 1)"))
    use_interpreter()
    module = load_module(bad, "translated")
    with pytest.raises(RuntimeError, match="launches 1 programs for 2 tiles"):
        module.relu(torch.randn(70, 50))


@pytest.mark.parametrize(
    ("example", "construct"),
    [
        ("examples/helion/gelu.py", "no erf"),
        ("examples/triton/matmul_splitk.py", "skips tiles"),
    ],
)
def test_what_cutile_cannot_express_is_a_located_diagnostic(example: str, construct: str) -> None:
    with pytest.raises(TranslationError, match=construct) as err:
        translate_file(example, None, "cutile")
    assert err.value.loc is not None and err.value.loc.file == example
    assert err.value.hint


def test_the_frontend_reads_back_what_the_backend_writes() -> None:
    for golden in TRANSLATIONS:
        module = parse_file(golden, "cutile")
        source = parse_file(_source(golden), None)
        assert len(module.kernels) == len(source.kernels), golden


# --------------------------------------------------------------------------------------------------
# cuTile sources: examples/cutile/ against their translations (cuTile side by the oracle above)

CUTILE = ROOT / "examples" / "cutile"
SOURCE_GOLDENS = sorted(CUTILE.glob("expected_*/*.py"))


def _cutile_inputs(entry: str, device: str, dtype: str) -> tuple:
    """Ragged inputs (sizes that are multiples of no tile) of each cuTile example's entry."""
    d = getattr(torch, dtype)

    def randn(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, dtype=d, device=device)

    table = {
        "vector_add": lambda: (randn(3001), randn(3001)),
        "softmax": lambda: (randn(37, 300),),
        "rms_norm": lambda: (randn(45, 129), randn(129), 1e-6),
        "gemm": lambda: (randn(150, 72), randn(72, 130)),
        "scaled_permute": lambda: (
            randn(777),
            torch.randperm(777, device=device).to(torch.int32),
            0.5,
        ),
        "transpose": lambda: (randn(70, 45),),
        "bmm": lambda: (randn(3, 40, 36), randn(3, 36, 70)),
        "layer_norm": lambda: (randn(21, 100), randn(100), randn(100), 1e-5),
        "rope": lambda: (randn(37, 48), randn(37, 24), randn(37, 24)),
        "swiglu": lambda: (randn(45, 150), randn(45, 150)),
        "cross_entropy": lambda: (
            randn(13, 100),
            torch.randint(0, 100, (13,), device=device),
        ),
        "leaky_relu": lambda: (randn(7, 111), 0.1),
        "row_argmax": lambda: (randn(19, 40),),
        "attention": lambda: (randn(2, 40, 16), randn(2, 40, 16), randn(2, 40, 16)),
        "column_sum": lambda: (randn(70, 100),),
    }
    return table[entry]()


@pytest.mark.parametrize("golden", SOURCE_GOLDENS, ids=lambda p: f"{p.parent.name[9:]}-{p.stem}")
def test_cutile_example_and_its_translation_agree_on_cpu(golden: Path) -> None:
    source = CUTILE / golden.name
    report = check_pair(
        source,
        golden,
        src_dsl="cutile",
        dtypes=("float32", "float16"),
        seeds=(0,),
        inputs=_cutile_inputs,
    )
    assert report.rows, "no case ran"
    assert report.passed, report.format_text()
    assert report.oracles[0][1] == "cutile" and "sm_90" in report.oracles[0][2]


def test_every_cutile_example_reads_into_ir_and_compiles_for_sm90() -> None:
    use_interpreter()
    for example in sorted(CUTILE.glob("*.py")):
        module = parse_file(example, "cutile")
        assert module.kernels and module.host is not None and module.host.sites, example


def test_an_atomic_at_computed_indices_is_a_located_diagnostic(tmp_path: Path) -> None:
    text = (CUTILE / "column_sum.py").read_text()
    cols = "    cols = bn * TN + ct.arange(TN, dtype=ct.int32)\n"
    assert cols in text
    bad = tmp_path / "column_sum.py"
    # Element indices loaded from memory are no tile region: refused where they are used.
    bad.write_text(text.replace(cols, "    cols = ct.load(out, index=(bn,), shape=(TN,))\n"))
    with pytest.raises(TranslationError, match="atomic at element indices") as err:
        translate_file(bad, "cutile", "triton")
    assert (
        err.value.loc is not None
        and err.value.loc.line == text.count("\n", 0, text.index("    ct.atomic_add(")) + 1
    )
    assert err.value.hint


def test_a_tile_size_the_source_host_computes_is_passed_not_baked() -> None:
    # `BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(V))` in the Triton source: the
    # cuTile launch passes that host value (a 32768-lane tile for 17 columns before).
    text = (ROOT / "examples/library/triton/expected_cutile/cross_entropy.py").read_text()
    assert text.count("(grad_input, grad_output.view(-1), BLOCK_SIZE)") == 2
    assert "32768)" not in text
