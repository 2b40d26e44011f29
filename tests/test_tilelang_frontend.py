"""The TileLang frontend: ``examples/tilelang/`` read into the IR, translated to Triton and Helion,
and each translation computing what its TileLang source computes on the CPU.

The TileLang side runs through the dialect's CPU oracle (``translator/dialects/tilelang/runner.py``:
the kernel as written lowered to sm_90a CUDA, then run on TileLang's C target after the
validation-only rewrite); the Triton side in Triton's interpreter, the Helion side through Helion
on the interpreter. Inputs are ragged (sizes that are multiples of no block size) and come from
``tests/tilelang_inputs.py``. Each example's two directions run in one test, so the TileLang
source compiles once (TileLang caches the kernel in memory).

Hardware-only forms are refused with a located diagnostic and exit code 2, never a traceback.
"""

from __future__ import annotations

import os

os.environ["TRITON_INTERPRET"] = "1"

import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from tilelang_inputs import tilelang_inputs  # noqa: E402

from translator.api import parse_file, translate_file  # noqa: E402
from translator.diagnostics import TranslationError  # noqa: E402
from translator.ir import nodes as ir  # noqa: E402
from validation.equivalence import check_pair  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TILELANG = ROOT / "examples" / "tilelang"
EXAMPLES = sorted(p.stem for p in TILELANG.glob("*.py"))
#: The dtypes each example runs in (default fp32; the other GEMMs cover fp32 dots): fp16 for
#: the accumulator's cast back; flash attention is half precision only (its source asserts so).
DTYPES = {"gemm": ("float16",), "flash_attention": ("float16",)}


@pytest.fixture(autouse=True)
def _repo_cwd(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def test_at_least_fifteen_tilelang_examples_translate_to_triton_and_helion() -> None:
    assert len(EXAMPLES) >= 15
    for dst in ("triton", "helion"):
        goldens = {p.stem for p in (TILELANG / f"expected_{dst}").glob("*.py")}
        assert goldens == set(EXAMPLES), dst


@pytest.mark.parametrize("name", EXAMPLES)
def test_tilelang_example_and_its_translations_agree_on_cpu(name: str) -> None:
    source = TILELANG / f"{name}.py"
    dtypes = DTYPES.get(name, ("float32",))
    for dst in ("triton", "helion"):
        golden = TILELANG / f"expected_{dst}" / f"{name}.py"
        report = check_pair(
            source, golden, src_dsl="tilelang", dtypes=dtypes, seeds=(0,), inputs=tilelang_inputs
        )
        assert report.rows, f"{dst}: no case ran"
        assert report.passed, report.format_text()
        assert report.oracles[0][1] == "tilelang"


def test_the_oracle_is_not_vacuous(tmp_path: Path) -> None:
    """A TileLang source that computes something else fails against the same golden."""
    text = (TILELANG / "elementwise_add.py").read_text()
    wrong = "C_local[i, j] = A_local[i, j] - B_local[i, j]"
    assert "C_local[i, j] = A_local[i, j] + B_local[i, j]" in text
    bad = tmp_path / "elementwise_add.py"
    bad.write_text(text.replace("C_local[i, j] = A_local[i, j] + B_local[i, j]", wrong))
    golden = TILELANG / "expected_triton" / "elementwise_add.py"
    report = check_pair(
        bad, golden, src_dsl="tilelang", dtypes=("float32",), seeds=(0,), inputs=tilelang_inputs
    )
    assert report.rows and not report.passed


def test_the_ir_says_what_the_source_does() -> None:
    """Grid order, tunables from the factory's defaults and autotune configs, K loop stages,
    outputs allocated before the launch."""
    gemm = parse_file(TILELANG / "gemm.py", "tilelang")
    (kernel,) = gemm.kernels
    assert [t.name for t in kernel.grid] == ["by", "bx"]
    assert dict(kernel.configs[0]) == {
        "num_warps": 4,
        "block_N": 128,
        "block_M": 128,
        "block_K": 32,
        "num_stages": 3,
    }
    (launch,) = gemm.entries[0].launches()
    assert launch.setup == ("_c = torch.empty((m, n), dtype=a.dtype, device=a.device)",)
    assert launch.value == "_c"
    tuned = parse_file(TILELANG / "gemm_autotune.py", "tilelang").kernels[0]
    assert len(tuned.configs) == 3
    assert dict(tuned.configs[1])["num_warps"] == 4 and dict(tuned.configs[0])["num_warps"] == 8
    loops = [s for s in tuned.body if isinstance(s, ir.TileLoop)]
    assert loops and loops[0].num_stages == 3


_KERNEL = """
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def k(M, N, block_M=32, block_N=32):
    @T.prim_func
    def main(A: T.Tensor((M, N), "float32"), C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            a = T.alloc_shared((block_M, block_N), "float32")
            T.copy(A[by * block_M, bx * block_N], a)
            {line}
            T.copy(a, C[by * block_M, bx * block_N])

    return main


def f(a):
    m, n = a.shape
    return k(m, n)(a)
"""


@pytest.mark.parametrize(
    ("line", "what", "instead"),
    [
        ("T.annotate_layout({a: None})", "T.annotate_layout", "infer layouts"),
        ("T.mbarrier_wait_parity(0, 0)", "T.mbarrier_wait_parity", "T.Pipelined"),
        ("T.tcgen05_gemm(a, a, a)", "T.tcgen05_gemm", "T.gemm"),
        ("T.wgmma_gemm(a, a, a)", "T.wgmma_gemm", "T.gemm"),
        ("T.ptx_commit_group()", "T.ptx_commit_group", "T.copy"),
    ],
)
def test_hardware_only_forms_are_located_refusals(
    tmp_path: Path, line: str, what: str, instead: str
) -> None:
    """Each hardware-only form is refused where it stands, saying what to write instead."""
    path = tmp_path / "hw.py"
    path.write_text(_KERNEL.replace("{line}", line))
    with pytest.raises(TranslationError) as err:
        translate_file(path, "tilelang", "triton")
    assert what in str(err.value)
    assert err.value.loc is not None and err.value.loc.line == 13
    assert err.value.hint and instead in err.value.hint


def test_a_refusal_through_the_cli_is_a_diagnostic_with_exit_code_2(tmp_path: Path) -> None:
    """file:line:col, the source line, what to write instead; exit 2, no traceback."""
    line = "T.annotate_layout({a: None})"
    path = tmp_path / "hw.py"
    path.write_text(_KERNEL.replace("{line}", line))
    run = subprocess.run(
        [sys.executable, "-m", "translator", "translate", str(path), "--to", "helion"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert run.returncode == 2
    assert f"{path}:13:13: error:" in run.stderr and "Traceback" not in run.stderr
    assert line in run.stderr and "help:" in run.stderr


@pytest.mark.parametrize(
    ("line", "what"),
    [
        ("T.reduce_max(a, C, dim=1)", "no buffer allocated"),
        ("a[0, 0] = 1.0", "does not write every lane"),
        ("T.gemm(a, a, a, policy=T.GemmWarpPolicy.FullRow, k_pack=2, bogus=1)", "bogus"),
    ],
)
def test_what_the_frontend_does_not_read_is_a_located_refusal(
    tmp_path: Path, line: str, what: str
) -> None:
    path = tmp_path / "bad.py"
    path.write_text(_KERNEL.replace("{line}", line))
    with pytest.raises(TranslationError) as err:
        translate_file(path, "tilelang", "triton")
    assert what in str(err.value)
    assert err.value.loc is not None and err.value.loc.file == str(path)
    assert err.value.loc.line == 13


def test_an_unmasked_padded_row_reduction_is_refused(tmp_path: Path) -> None:
    text = (TILELANG / "softmax.py").read_text()
    masked = 'T.if_then_else(j < N, x[i, j], -T.infinity("float32"))'
    assert masked in text
    path = tmp_path / "softmax.py"
    path.write_text(text.replace(masked, "x[i, j]"))  # lanes past N hold the copy's 0
    with pytest.raises(TranslationError, match="past the row's end hold 0.0") as err:
        translate_file(path, "tilelang", "helion")
    assert err.value.hint is not None and "T.if_then_else(j < N" in err.value.hint


def test_eager_style_kernels_are_a_located_refusal(tmp_path: Path) -> None:
    path = tmp_path / "eager.py"
    path.write_text(
        "import tilelang\nimport tilelang.language as T\n\n\n"
        "@tilelang.jit\ndef add(A, B):\n    M, N = T.const('M N')\n    C = T.empty((M, N))\n"
        "    return C\n"
    )
    with pytest.raises(TranslationError, match="eager-style") as err:
        translate_file(path, "tilelang", "triton")
    assert err.value.loc is not None and err.value.loc.line == 6


def test_translation_never_imports_the_tilelang_source(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.py"
    bomb.write_text(
        (TILELANG / "elementwise_add.py").read_text()
        + "\nraise SystemExit('the translator executed its input')\n"
    )
    assert "def add(" in translate_file(bomb, "tilelang", "triton")


# --------------------------------------------------------------------------------------------------
# Round trips: TileLang -> Triton/Helion (the goldens) -> TileLang, the result checked against
# the TileLang source (both sides through the TileLang CPU oracle).

#: Round trips the TileLang backend refuses, with the reason it gives.
NOT_WRITTEN_BACK = {"column_sum_atomic": "AtomicRMW", "cumsum": "scans"}
#: The round trips run on the CPU (each compiles two TileLang kernels with g++: a sample).
ROUND_TRIPS = [
    ("elementwise_add", "triton"),
    ("gemm", "helion"),
    ("softmax", "triton"),
    ("layer_norm", "helion"),
    ("gemv", "triton"),
    ("scaled_add", "helion"),
]


def test_every_translation_reads_back_into_tilelang_or_is_refused_with_the_reason() -> None:
    for via in ("triton", "helion"):
        for name in EXAMPLES:
            golden = TILELANG / f"expected_{via}" / f"{name}.py"
            if name in NOT_WRITTEN_BACK:
                with pytest.raises(TranslationError, match=NOT_WRITTEN_BACK[name]) as err:
                    translate_file(golden, via, "tilelang")
                assert err.value.loc is not None
                continue
            text = translate_file(golden, via, "tilelang")
            assert "@T.prim_func" in text, (via, name)


@pytest.mark.parametrize(("name", "via"), ROUND_TRIPS, ids=[f"{n}-{v}" for n, v in ROUND_TRIPS])
def test_round_trip_through_another_dsl_computes_what_the_tilelang_source_does(
    tmp_path: Path, name: str, via: str
) -> None:
    golden = TILELANG / f"expected_{via}" / f"{name}.py"
    back = tmp_path / f"{name}.py"
    back.write_text(translate_file(golden, via, "tilelang"))
    report = check_pair(
        TILELANG / f"{name}.py",
        back,
        src_dsl="tilelang",
        dtypes=("float32",),
        seeds=(0,),
        inputs=tilelang_inputs,
    )
    assert report.rows, "no case ran"
    assert report.passed, report.format_text()
    assert [o[1] for o in report.oracles] == ["tilelang", "tilelang"]
