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
from translator.dialects.common.dtype_facts import entry_dtypes  # noqa: E402
from translator.ir import nodes as ir  # noqa: E402
from validation.equivalence import check_pair  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TILELANG = ROOT / "examples" / "tilelang"
EXAMPLES = sorted(p.stem for p in TILELANG.glob("*.py"))
#: The dtypes each example runs in (default fp32; the other GEMMs cover fp32 dots): fp16 for
#: the accumulator's cast back; flash attention is half precision only (its source asserts so).
DTYPES = {
    "gemm": ("float16",),
    "flash_attention": ("float16",),
    "attention_macros": ("float16",),
    "eager_gemm": ("float16",),
}


@pytest.fixture(autouse=True)
def _repo_cwd(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


#: Examples a target refuses, with what its diagnostic says (the `.refused` golden holds it all).
#: Helion's `hl.tile` does not run to `min(K, ko_begin + share)` of a grid index (measured: the
#: generated min fails under Helion), so contiguous split-K shares are refused into Helion.
REFUSED_INTO = {
    ("gemm_splitk_chunks", "helion"): "ends at the smaller of a size and a value of a grid tile",
}


def test_at_least_fifteen_tilelang_examples_translate_to_triton_and_helion() -> None:
    assert len(EXAMPLES) >= 15
    for dst in ("triton", "helion"):
        goldens = {p.stem for p in (TILELANG / f"expected_{dst}").glob("*.py")}
        refused = {name for name, into in REFUSED_INTO if into == dst}
        assert goldens == set(EXAMPLES) - refused, dst
        for name in refused:
            text = (TILELANG / f"expected_{dst}" / f"{name}.refused").read_text()
            assert REFUSED_INTO[name, dst] in text


@pytest.mark.parametrize(("name", "dst"), sorted(REFUSED_INTO))
def test_a_refused_example_is_refused_where_it_stands(name: str, dst: str) -> None:
    with pytest.raises(TranslationError, match=REFUSED_INTO[name, dst]) as err:
        translate_file(TILELANG / f"{name}.py", "tilelang", dst)
    assert err.value.loc is not None and err.value.loc.line > 1


@pytest.mark.parametrize("name", EXAMPLES)
def test_tilelang_example_and_its_translations_agree_on_cpu(name: str) -> None:
    source = TILELANG / f"{name}.py"
    dtypes = DTYPES.get(name, ("float32",))
    for dst in ("triton", "helion"):
        if (name, dst) in REFUSED_INTO:
            continue  # test_a_refused_example_is_refused_where_it_stands
        golden = TILELANG / f"expected_{dst}" / f"{name}.py"
        report = check_pair(
            source, golden, src_dsl="tilelang", dtypes=dtypes, seeds=(0,), inputs=tilelang_inputs
        )
        assert report.rows, f"{dst}: no case ran"
        assert report.passed, report.format_text()
        assert report.oracles[0][1] == "tilelang"


#: The eager, split-K and persistent examples' translations into cuTile and back into TileLang,
#: checked too (TileLang sides by the CPU oracle; the cuTile side compiled by tileiras and run
#: as its IR in the reference interpreter). cuTile refuses split-K
#: (`expected_cutile/gemm_splitk.refused` says why).
MORE_DIRECTIONS = [
    (name, dst)
    for name in (
        "eager_bias_relu",
        "eager_gemm",
        "gemm_splitk",
        "gemm_splitk_chunks",
        "gemm_persistent",
    )
    for dst in ("cutile", "tilelang")
    if (name, dst) != ("gemm_splitk", "cutile")
]


@pytest.mark.parametrize(
    ("name", "dst"), MORE_DIRECTIONS, ids=[f"{n}-{d}" for n, d in MORE_DIRECTIONS]
)
def test_tilelang_example_and_its_cutile_and_tilelang_translations_agree_on_cpu(
    name: str, dst: str
) -> None:
    golden = TILELANG / f"expected_{dst}" / f"{name}.py"
    report = check_pair(
        TILELANG / f"{name}.py",
        golden,
        src_dsl="tilelang",
        dtypes=DTYPES.get(name, ("float32",)),
        seeds=(0,),
        inputs=tilelang_inputs,
    )
    assert report.rows, "no case ran"
    assert report.passed, report.format_text()
    assert [o[1] for o in report.oracles] == ["tilelang", dst]


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
        # A cuRAND state per thread: numbers by thread, not by element (no IR rand op form).
        ("T.rng_init(42)", "T.rng_init", "torch.Generator"),
        # SIMT programming (TileLang's naive GEMV): each thread picks its row by its index.
        ("tn = T.get_thread_binding(0)", "T.get_thread_binding", "T.reduce_sum"),
        # fp8 (TileLang's per-token cast): the IR has no 8-bit float.
        (
            'q = T.alloc_fragment((block_M, block_N), "float8_e4m3")',
            "8-bit floats have no IR dtype",
            "torch.float8_e4m3fn",
        ),
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


_FACTORY_BIAS_RELU = """
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def bias_relu_kernel(M, N, block_M=16, block_N=128, threads=128):
    @T.prim_func
    def main(
        X: T.Tensor((M, N), T.float32),
        bias: T.Tensor((N,), T.float32),
        Y: T.Tensor((M, N), T.float32),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            x = T.alloc_fragment((block_M, block_N), T.float32)
            b = T.alloc_fragment((block_N,), T.float32)
            T.copy(X[by * block_M, bx * block_N], x)
            T.copy(bias[bx * block_N], b)
            for i, j in T.Parallel(block_M, block_N):
                x[i, j] = T.max(x[i, j] + b[j], 0.0)
            T.copy(x, Y[by * block_M, bx * block_N])

    return main


def bias_relu(x, bias):
    m, n = x.shape
    return bias_relu_kernel(m, n)(x, bias)
"""


def test_an_eager_kernel_reads_into_the_ir_of_the_same_jit_factory(tmp_path: Path) -> None:
    """T.const sizes are the annotated tensors' sizes, T.empty outputs come last (as out_idx
    lists them), the function's defaults are the tunables: kernel for kernel the IR of the
    jit-factory spelling of the same kernel."""
    from translator.ir.printer import format_kernel

    path = tmp_path / "factory.py"
    path.write_text(_FACTORY_BIAS_RELU)
    (factory,) = parse_file(path, "tilelang").kernels
    eager_module = parse_file(TILELANG / "eager_bias_relu.py", "tilelang")
    (eager,) = eager_module.kernels
    assert eager.name == "bias_relu_kernel"  # the function's own name is its host function's
    assert format_kernel(eager) == format_kernel(factory)
    (entry,) = eager_module.entries
    assert entry.name == "bias_relu"
    assert [p.name for p in entry.params] == ["X", "bias", "block_M", "block_N", "threads"]
    (launch,) = entry.launches()
    assert launch.texts == ("X", "bias", "Y")
    # The annotations bind the dtypes TileLang accepts at the call (validation draws those:
    # the GPU run drew fp16 too, which the source rejects) and the ranks.
    assert entry_dtypes(entry) == {
        "X": (("float32",), "annotation"),
        "bias": (("float32",), "annotation"),
    }
    assert [p.rank for p in entry.params[:2]] == [2, 1]
    gemm = parse_file(TILELANG / "eager_gemm.py", "tilelang").kernels[0]
    assert [t.name for t in gemm.grid] == ["by", "bx"]
    assert dict(gemm.configs[0]) == {
        "num_warps": 4,
        "block_N": 64,
        "block_M": 64,
        "block_K": 32,
        "num_stages": 2,
    }
    assert [(p.name, p.dtype) for p in gemm.params] == [
        ("A", ir.DType("float16")),
        ("B", ir.DType("float16")),
        ("C", ir.DType("float16")),
    ]


def test_an_eager_kernel_becomes_a_torch_host_function_of_the_same_signature() -> None:
    """The function stays the public entry: sizes from the tensors' shapes, the output from
    torch.empty, the launch where the T.Kernel block was, the return as written."""
    text = translate_file(TILELANG / "eager_gemm.py", "tilelang", "triton")
    host = text[text.index("\ndef matmul(") :]
    assert "    M, K = A.shape\n    N = B.shape[1]\n" in host
    assert "C = torch.empty((M, N), dtype=torch.float16, device=A.device)" in host
    assert "# tiletrans: dropped the T.Tensor annotations of `A`, `B`" in host
    assert "matmul_kernel[grid](" in host and host.rstrip().endswith("return C")
    assert "T.const" not in host and "T.empty" not in host and "import tilelang" not in text


_EAGER_SCALE = """
import tilelang
import tilelang.language as T


@tilelang.jit
def scale_rows(X, W, alpha: float = 2.0, block_M: int = 8, block_N: int = 32):
    \"\"\"``alpha * X * W[:, None]``.\"\"\"
    M, N = T.const("M, N")
    X: T.Tensor[[M, N], T.float32]
    W: T.Tensor[[M], T.float32]
    Y = T.empty((M, N), T.float32)
    with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
        x = T.alloc_fragment((block_M, block_N), T.float32)
        w = T.alloc_fragment((block_M,), T.float32)
        T.copy(X[by * block_M, bx * block_N], x)
        T.copy(W[by * block_M], w)
        for i, j in T.Parallel(block_M, block_N):
            x[i, j] = alpha * x[i, j] * w[i]
        T.copy(x, Y[by * block_M, bx * block_N])
    return Y
"""


def test_eager_subscript_annotations_and_scalar_parameters(tmp_path: Path) -> None:
    """`T.Tensor[[M, N], dtype]` annotations, comma-separated T.const names, and a float
    parameter the kernel reads: the caller's value reaches the translation's kernel."""
    import torch

    path = tmp_path / "scale_rows.py"
    path.write_text(_EAGER_SCALE)
    (kernel,) = parse_file(path, "tilelang").kernels
    assert [(p.name, p.kind) for p in kernel.params] == [
        ("X", "tensor"),
        ("W", "tensor"),
        ("Y", "tensor"),
        ("alpha", "float"),
    ]
    translated = tmp_path / "scale_rows_triton.py"
    translated.write_text(translate_file(path, "tilelang", "triton"))

    def inputs(entry: str, device: str, dtype: str) -> tuple:
        return (torch.randn(37, 70), torch.randn(37), -0.5)

    report = check_pair(
        path, translated, src_dsl="tilelang", dtypes=("float32",), seeds=(0,), inputs=inputs
    )
    assert report.rows and report.passed, report.format_text()


_EAGER = """
import tilelang
import tilelang.language as T


@tilelang.jit{jit}
def f(A, block_M: int = 32):
    M, N = T.const("M N")
    A: T.Tensor((M, N), T.float32)
    {line}
    with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
        a = T.alloc_fragment((block_M, N), T.float32)
        T.copy(A[bx * block_M, 0], a)
        T.copy(a, C[bx * block_M, 0])
    return C
"""


@pytest.mark.parametrize(
    ("jit", "line", "at", "what", "instead"),
    [
        ("", "C = T.empty((M, K), T.float32)", 10, "`K`", None),
        ("", "C = T.empty((M, N), T.float32); C2 = 1", 10, "body holds", None),
        ("", "C = T.empty((M, N), T.float32)\n    n = T.ceildiv(N, 2)", 11, "not read", "inside"),
        ("(out_idx=[-1])", "C = T.empty((M, N), T.float32)", 6, "out_idx", "T.empty"),
        ("", "C = T.empty((M, N), T.float32)\n    B: T.Tensor((N,), T.float32)", 11, "`B", None),
        ("", "C = T.empty((M, N), T.float32)", 7, "signature", "in the body"),
    ],
    ids=[
        "undeclared-size",
        "two-statements",
        "device-local",
        "out_idx",
        "not-a-parameter",
        "signature-annotation",
    ],
)
def test_what_the_eager_reader_does_not_read_is_a_located_refusal(
    tmp_path: Path, jit: str, line: str, at: int, what: str, instead: str | None
) -> None:
    path = tmp_path / "eager.py"
    text = _EAGER.replace("{jit}", jit).replace("{line}", line)
    if "signature" in what:
        text = text.replace("def f(A,", "def f(A: T.Tensor((M, N), T.float32),")
    path.write_text(text)
    with pytest.raises(TranslationError, match=what) as err:
        translate_file(path, "tilelang", "triton")
    assert err.value.loc is not None and err.value.loc.line == at
    if instead is not None:
        assert err.value.hint is not None and instead in err.value.hint


def test_split_k_and_persistent_kernels_read_into_the_ir_s_loops_and_schedule() -> None:
    """Split-K's interleaved K tiles are the IR's strided loop (the form Triton's split-K lifts
    to); T.Persistent's domain is the grid, its schedule a hint the targets keep or drop."""
    (splitk,) = parse_file(TILELANG / "gemm_splitk.py", "tilelang").kernels
    assert [t.name for t in splitk.grid] == ["bz", "by", "bx"] and splitk.grid[0].scalar
    (loop,) = [s for s in splitk.body if isinstance(s, ir.TileLoop)]
    (k,) = loop.tiles
    assert k.step == ir.Name("split_k") and k.begin == ir.BinOp(
        "*", ir.Name("bz"), ir.Name("block_K")
    )
    assert any(isinstance(s, ir.AtomicRMW) and s.op == "add" for s in splitk.body)
    assert splitk.param("split_k").kind == "int"  # the launch passes the host's split_k
    (persistent,) = parse_file(TILELANG / "gemm_persistent.py", "tilelang").kernels
    assert [t.name for t in persistent.grid] == ["bx", "by"]
    assert persistent.hints.schedule == "persistent_interleaved"
    assert "num_sms" not in {p.name for p in persistent.params}
    helion = translate_file(TILELANG / "gemm_persistent.py", "tilelang", "helion")
    assert 'pid_type="persistent_interleaved"' in helion
    back = translate_file(TILELANG / "expected_helion" / "gemm_persistent.py", "helion", "tilelang")
    assert (
        "T.Persistent(" in back and "with T.Kernel(num_sms, threads=threads) as block_id:" in back
    )


def test_a_row_swizzle_is_the_ir_s_group_size_and_other_orders_are_dropped(
    tmp_path: Path,
) -> None:
    """``T.use_swizzle(panel_size)`` in row order is the grouped program order every DSL
    writes (Triton's GROUP_SIZE_M); the column order and a switched-off swizzle change nothing
    the IR keeps. A TileLang panel of 10 rows becomes Helion's power-of-two group of 8."""
    text = (TILELANG / "gemm_autotune.py").read_text()
    assert "T.use_swizzle(10)" in text
    (kernel,) = parse_file(TILELANG / "gemm_autotune.py", "tilelang").kernels
    (group,) = [t for t in kernel.tunables if t.kind == "group_size"]
    assert group.default == 10
    triton = translate_file(TILELANG / "gemm_autotune.py", "tilelang", "triton")
    assert '"GROUP_SIZE_M": 10' in triton
    helion = translate_file(TILELANG / "gemm_autotune.py", "tilelang", "helion")
    assert "l2_groupings=[8]" in helion
    for spelling in ('T.use_swizzle(10, order="column")', "T.use_swizzle(10, enable=False)"):
        path = tmp_path / "gemm_variant.py"
        path.write_text(text.replace("T.use_swizzle(10)", spelling))
        (kernel,) = parse_file(path, "tilelang").kernels
        assert not [t for t in kernel.tunables if t.kind == "group_size"], spelling
    back = translate_file(TILELANG / "expected_triton" / "gemm_autotune.py", "triton", "tilelang")
    assert "T.use_swizzle(panel_size=" in back


def test_a_whole_tensor_copied_is_its_region_from_the_origin(tmp_path: Path) -> None:
    """``T.copy(gamma, G_smem)`` (TileLang's layer-norm example) copies the whole tensor: the
    same IR as ``T.copy(gamma[0], G_smem)``; it was refused as "no buffer allocated"."""
    from translator.ir.printer import format_kernel

    text = (TILELANG / "layer_norm.py").read_text()
    assert "T.copy(W[0], w)" in text
    path = tmp_path / "whole_copy.py"
    path.write_text(text.replace("T.copy(W[0], w)", "T.copy(W, w)"))
    (whole,) = parse_file(path, "tilelang").kernels
    (region,) = parse_file(TILELANG / "layer_norm.py", "tilelang").kernels
    assert format_kernel(whole) == format_kernel(region)


def test_work_outside_the_persistent_loop_is_a_located_refusal(tmp_path: Path) -> None:
    """A statement beside the T.Persistent loop would run once per program, not per tile."""
    text = (TILELANG / "gemm_persistent.py").read_text()
    loop = "            for bx, by in T.Persistent("
    assert loop in text
    path = tmp_path / "gemm_persistent.py"
    path.write_text(text.replace(loop, "            T.clear(C_local)\n" + loop))
    with pytest.raises(TranslationError, match="persistent kernel") as err:
        translate_file(path, "tilelang", "triton")
    clear_line = text[: text.index(loop)].count("\n") + 1  # where the T.clear now stands
    assert err.value.loc is not None and err.value.loc.line == clear_line
    assert err.value.hint is not None and "T.Persistent loop" in err.value.hint


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

#: The round trips run on the CPU (each compiles two TileLang kernels with g++: a sample).
ROUND_TRIPS = [
    ("elementwise_add", "triton"),
    ("gemm", "helion"),
    ("softmax", "triton"),
    ("layer_norm", "helion"),
    ("gemv", "triton"),
    ("scaled_add", "helion"),
    ("eager_gemm", "triton"),
    ("eager_bias_relu", "helion"),
    ("gemm_splitk", "helion"),
    ("gemm_splitk", "triton"),
    ("gemm_persistent", "helion"),
    ("column_sum_atomic", "helion"),
    ("cumsum", "triton"),
]


#: Translations the other DSL's frontend does not read back, with the reason it gives (none
#: today: split-K's `tl.range(bz * BLOCK_K, K, BLOCK_K * split_k)` reads back as the strided loop
#: it was written from).
NOT_READ_BACK: dict[tuple[str, str], str] = {
    # Contiguous split-K shares: the Triton frontend does not read the program id's digits
    # once `ko_begin = bz * share` mixes the split index into the K loop's bounds.
    ("gemm_splitk_chunks", "triton"): "cannot read the digits",
}


@pytest.mark.parametrize("via", ["triton", "helion"])
def test_every_translation_reads_back_into_tilelang_or_is_refused_with_the_reason(via: str) -> None:
    for name in EXAMPLES:
        golden = TILELANG / f"expected_{via}" / f"{name}.py"
        if (name, via) in REFUSED_INTO:
            continue  # no translation to read back
        if (name, via) in NOT_READ_BACK:
            with pytest.raises(TranslationError, match=NOT_READ_BACK[name, via]) as err:
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
        dtypes=DTYPES.get(name, ("float32",)),
        seeds=(0,),
        inputs=tilelang_inputs,
    )
    assert report.rows, "no case ran"
    assert report.passed, report.format_text()
    assert [o[1] for o in report.oracles] == ["tilelang", "tilelang"]


# --------------------------------------------------------------------------------------------------
# TileLang's example-folder style: undecorated factories compiled by tilelang.compile


_COMPILED = """
import tilelang
import tilelang.language as T


def scale(M, N, block_M, block_N, threads, dtype="float32"):
    @T.prim_func
    def main(X: T.Tensor((M, N), dtype), Y: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            x = T.alloc_fragment((block_M, block_N), dtype)
            T.copy(X[by * block_M, bx * block_N], x)
            for i, j in T.Parallel(block_M, block_N):
                x[i, j] = x[i, j] * 2.0
            T.copy(x, Y[by * block_M, bx * block_N])

    return main


def double(x):
    m, n = x.shape
{host}
"""


def _compiled(tmp_path: Path, host: str) -> Path:
    path = tmp_path / "compiled.py"
    path.write_text(_COMPILED.replace("{host}", host))
    return path


@pytest.mark.parametrize(
    "host",
    [
        "    kernel = tilelang.compile(scale(m, n, 32, 64, 128), out_idx=[-1])\n"
        "    return kernel(x)",
        "    func = scale(m, n, 32, 64, 128)\n"
        "    kernel = tilelang.compile(func, out_idx=-1, target='cuda')\n"
        "    return kernel(x)",
        "    return tilelang.jit(out_idx=[1])(scale(m, n, block_M=32, block_N=64, threads=128))(x)",
        "    config = {'block_M': 32, 'block_N': 64, 'threads': 128}\n"
        "    kernel = tilelang.compile(scale(m, n, **config), out_idx=[-1])\n"
        "    return kernel(x)",
    ],
    ids=["compile-of-call", "compile-of-name", "jit-called", "spread-config"],
)
def test_an_undecorated_factory_takes_its_out_idx_from_what_compiles_it(
    tmp_path: Path, host: str
) -> None:
    """The compile call's out_idx makes Y an output the host allocates; its arguments are the
    launch values of the tile sizes; the statements that built the kernel go."""
    module = parse_file(_compiled(tmp_path, host), "tilelang")
    (kernel,) = module.kernels
    assert kernel.name == "scale"
    assert dict(kernel.configs[0]) == {"block_N": 64, "block_M": 32, "num_warps": 4}
    (launch,) = module.entries[0].launches()
    assert len(launch.setup) == 1 and "torch.empty((m, n)" in launch.setup[0]
    text = translate_file(_compiled(tmp_path, host), "tilelang", "triton")
    host = text[text.index("\ndef double") :]
    assert "tilelang" not in host and "func = " not in host and "config = " not in host


def test_an_undecorated_factory_compiled_nowhere_takes_its_outputs_as_arguments(
    tmp_path: Path,
) -> None:
    path = _compiled(tmp_path, "    return x")
    text = path.read_text().replace(
        "block_M, block_N, threads,", "block_M=32, block_N=64, threads=128,"
    )
    path.write_text(text)
    (kernel,) = parse_file(path, "tilelang").kernels
    assert [p.name for p in kernel.params if p.kind == "tensor"] == ["X", "Y"]


@pytest.mark.parametrize(
    ("host", "line", "what"),
    [
        (
            "    a = tilelang.compile(scale(m, n, 32, 64, 128), out_idx=[-1])\n"
            "    b = tilelang.compile(scale(m, n, 32, 64, 128), out_idx=[0])\n"
            "    return a(x), b(x)",
            22,
            "out_idx=[0] here and out_idx=[-1] at line 21",
        ),
        (
            "    kernel = tilelang.compile(scale(m, n, 32, 64, 128), out_idx=[-1])\n"
            "    y = kernel(x)\n"
            "    return y, kernel.get_profiler()",
            23,
            "the kernel `kernel` is used here otherwise than called",
        ),
        (
            "    y = tilelang.compile(scale(m, n, 32, 64, 128), out_idx=[-1])(x)\n"
            "    return y, run_elsewhere(scale)",
            22,
            "`scale` is used here otherwise than built",
        ),
        (
            "    kernel = tilelang.compile(scale(m, n, *sizes), out_idx=[-1])\n"
            "    return kernel(x)",
            21,
            "*args, or **kwargs of no literal dict",
        ),
        (
            "    kernel = tilelang.compile(scale(m, n, 32, 64, 128), out_idx=[-1], bogus=1)\n"
            "    return kernel(x)",
            21,
            "tilelang.compile's `bogus=` is not read",
        ),
    ],
    ids=["two-out-idx", "profiler", "passed-on", "star-args", "unknown-option"],
)
def test_what_the_compiled_style_does_not_read_is_a_located_refusal(
    tmp_path: Path, host: str, line: int, what: str
) -> None:
    path = _compiled(tmp_path, host)
    with pytest.raises(TranslationError) as err:
        translate_file(path, "tilelang", "triton")
    assert what in str(err.value)
    assert err.value.loc is not None and err.value.loc.line == line


def test_lane_indices_spelt_through_names_read_as_written_out() -> None:
    """``start_x = bx * block_N`` and ``x = start_x + local_x`` index the tensors as the tile's
    lanes; nothing reads the names after that, so they are not in the IR."""
    (kernel,) = parse_file(TILELANG / "compiled_add.py", "tilelang").kernels
    from translator.ir.visit import walk_stmts

    assigned = {s.target for s in walk_stmts(kernel.body) if isinstance(s, ir.Assign)}
    assert not assigned & {"start_x", "start_y", "x", "y"}
    loads = [s for s in walk_stmts(kernel.body) if isinstance(s, ir.Store)]
    assert [s.index for s in loads] == [(ir.TileIndex("by"), ir.TileIndex("bx"))]


def test_a_knob_without_a_default_or_a_read_launch_is_tuned_from_a_stand_in(
    tmp_path: Path,
) -> None:
    """TileLang's example folder builds kernels as `f(M, N, 128, 128, 32)` in a `main()` or from
    argparse values: the translation tunes such knobs from a stand-in (a 64-wide tile, 4 warps)
    and says so; a module-level build is still refused where it is."""
    path = _compiled(tmp_path, "    return x")
    (kernel,) = parse_file(path, "tilelang").kernels
    blocks = {t.name: t.default for t in kernel.tunables if t.kind == "block_size"}
    assert blocks == {"block_M": 64, "block_N": 64}, kernel.tunables
    assert any("`block_M` has no default" in c for c in kernel.doc_comments)
    text = translate_file(path, "tilelang", "triton")
    assert 'triton.Config({"BLOCK_M": 64, "BLOCK_N": 64}' in text
    path = _compiled(
        tmp_path, "    return x\n\n\nkernel = tilelang.compile(scale(4, 4, 32, 64, 128))"
    )
    with pytest.raises(TranslationError) as err:
        translate_file(path, "tilelang", "triton")
    assert "otherwise than built and launched in a function" in str(err.value)
    assert err.value.loc is not None and err.value.loc.line == 24


# --------------------------------------------------------------------------------------------------
# Autotune spaces built by module functions


def test_autotune_configs_built_by_a_module_function_are_the_tuning_space() -> None:
    (kernel,) = parse_file(TILELANG / "autotuned_scale.py", "tilelang").kernels
    rows = [dict(c) for c in kernel.configs]
    assert len(rows) == 8
    assert {(r["block_M"], r["block_N"], r["num_warps"]) for r in rows} == {
        (m, n, w) for m in (16, 32) for n in (64, 128) for w in (4, 8)
    }
    text = translate_file(TILELANG / "autotuned_scale.py", "tilelang", "triton")
    assert "def get_configs" not in text  # only the decorator read it


_TUNED = """
import itertools
import tilelang
import tilelang.language as T
from tilelang.autotuner import *


{builder}


@autotune(configs={configs}, warmup=3, rep=20)
@tilelang.jit(out_idx=[-1])
def scale(M, N, block_M=32, block_N=64, threads=128):
    @T.prim_func
    def main(X: T.Tensor((M, N), "float32"), Y: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            x = T.alloc_fragment((block_M, block_N), "float32")
            T.copy(X[by * block_M, bx * block_N], x)
            T.copy(x, Y[by * block_M, bx * block_N])

    return main


def copy(x):
    m, n = x.shape
    return scale(m, n)(x)
"""

_ELEMENTWISE_CONFIGS = """def get_configs(M, N):
    block_M = [32, 64]
    block_N = [64]
    threads = [128, 256]
    configs = list(itertools.product(block_M, block_N, threads))
    return [{"block_M": bm, "block_N": bn, "threads": th} for bm, bn, th in configs]"""

_ROLLER_CONFIGS = """def get_configs(M, N, with_roller=False):
    if with_roller:
        return roller_hints(M, N)
    return [{"block_M": 32}]"""


def test_a_star_imported_autotune_reads_configs_of_a_function_of_host_values(
    tmp_path: Path,
) -> None:
    """``get_configs(M, N)`` never reads M and N: the space folds without them."""
    path = tmp_path / "tuned.py"
    path.write_text(
        _TUNED.replace("{builder}", _ELEMENTWISE_CONFIGS).replace("{configs}", "get_configs(M, N)")
    )
    (kernel,) = parse_file(path, "tilelang").kernels
    assert [dict(c)["block_M"] for c in kernel.configs] == [32, 32, 64, 64]
    assert [dict(c)["num_warps"] for c in kernel.configs] == [4, 8, 4, 8]


@pytest.mark.parametrize(
    ("builder", "configs", "line", "what"),
    [
        (_ROLLER_CONFIGS, "get_configs(M, N, True)", 10, "`roller_hints` is not a function"),
        (_ROLLER_CONFIGS, "get_configs(M, N, flag)", 9, "`flag` is only known"),
        ("", "load_configs('space.json')", 11, "`load_configs` is not a function tiletrans folds"),
        ("", "[{'block_M': 32.5}]", 11, "not a dict of names to ints"),
    ],
    ids=["branch-reads-host-value", "branch-on-host-value", "unknown-function", "float-value"],
)
def test_autotune_configs_that_do_not_fold_are_a_located_refusal(
    tmp_path: Path, builder: str, configs: str, line: int, what: str
) -> None:
    path = tmp_path / "tuned.py"
    path.write_text(_TUNED.replace("{builder}", builder).replace("{configs}", configs))
    with pytest.raises(TranslationError) as err:
        translate_file(path, "tilelang", "triton")
    assert "the autotune configs are not read statically" in str(err.value)
    assert what in str(err.value)
    assert err.value.loc is not None and err.value.loc.line == line
    assert err.value.hint and "itertools.product" in err.value.hint


# --------------------------------------------------------------------------------------------------
# @T.macro steps and loops that name no block


_MACRO = """
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def k(M, N, block_M=32, block_N=32):
    @T.macro
    def double(a: T.FragmentBuffer((block_M, block_N), "float32")):
        for i, j in T.Parallel(block_M, block_N):
            a[i, j] = a[i, j] * 2.0

    @T.prim_func
    def main(A: T.Tensor((M, N), "float32"), C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            a = T.alloc_fragment((block_M, block_N), "float32")
            T.copy(A[by * block_M, bx * block_N], a)
            {line}
            T.copy(a, C[by * block_M, bx * block_N])

    return main


def f(x):
    m, n = x.shape
    return k(m, n)(x)
"""


def test_a_macro_reads_as_its_body_in_place(tmp_path: Path) -> None:
    from translator.ir.printer import format_kernel

    kernels = []
    for line in (
        "double(a)",
        "for i, j in T.Parallel(block_M, block_N):\n                a[i, j] = a[i, j] * 2.0",
    ):
        path = tmp_path / "macro.py"
        path.write_text(_MACRO.replace("{line}", line))
        kernels.append(format_kernel(parse_file(path, "tilelang").kernels[0]))
    assert kernels[0] == kernels[1]
    assert "* 2.0" in kernels[0]


@pytest.mark.parametrize(
    ("line", "col", "what"),
    [
        ("double(C)", 19, "called with `C` for its parameter `a`"),
        ("double(a=a, b=a)", 12, "called with 2 arguments"),
    ],
)
def test_a_macro_called_otherwise_is_a_located_refusal(
    tmp_path: Path, line: str, col: int, what: str
) -> None:
    path = tmp_path / "macro.py"
    path.write_text(_MACRO.replace("{line}", line))
    with pytest.raises(TranslationError) as err:
        translate_file(path, "tilelang", "triton")
    assert what in str(err.value)
    assert err.value.loc is not None and (err.value.loc.line, err.value.loc.col) == (18, col)


def test_a_loop_that_names_no_block_is_the_cause_the_refusal_gives(tmp_path: Path) -> None:
    """``for k in T.Pipelined(loop_range)`` (a causal bound) names no block size: the refusal at
    the buffer its block shapes says so, with the loop's line."""
    text = (TILELANG / "flash_attention.py").read_text()
    count = "T.Pipelined(T.ceildiv(seq_len, block_N), num_stages=num_stages)"
    assert count in text
    path = tmp_path / "attention.py"
    path.write_text(text.replace(count, "T.Pipelined(loop_range, num_stages=num_stages)"))
    with pytest.raises(TranslationError) as err:
        translate_file(path, "tilelang", "triton")
    loop_line = text[: text.index(count)].count("\n") + 1
    assert f"the loop at line {loop_line} counts `loop_range`" in str(err.value)
    assert err.value.loc is not None and err.value.loc.line < loop_line
    assert err.value.hint and "T.ceildiv(extent, block)" in err.value.hint


_ROWS = """
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def rows(M, N, blk_m=4):
    BN = {extent}

    @T.prim_func
    def main(X: T.Tensor((M, N), "float32"), Y: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(M, blk_m), threads=128) as bx:
            x = T.alloc_fragment({shape}, "float32")
            {copy}
            T.copy(x, Y[bx * blk_m, 0])

    return main


def f(x):
    m, n = x.shape
    return rows(m, n)(x)
"""


@pytest.mark.parametrize(
    ("extent", "shape", "copy", "line", "what", "instead"),
    [
        (
            "N",
            "(1, N)",
            "T.copy(X[bx * blk_m + 1, 0], x)",
            14,
            "region start `bx * blk_m + 1` of a dim the buffer holds one lane of",
            "T.copy(X[bx * blk_m, 0], X_smem)",
        ),
        (
            "min(tilelang.next_power_of_2(N), 1024)",
            "(blk_m, BN)",
            "T.copy(X[bx * blk_m, 0], x)",
            8,
            "padded to a power of two up to a cap",
            "BN = tilelang.math.next_power_of_2(N)",
        ),
    ],
    ids=["single-row-region", "capped-row"],
)
def test_row_forms_that_are_not_read_are_located_refusals(
    tmp_path: Path, extent: str, shape: str, copy: str, line: int, what: str, instead: str
) -> None:
    path = tmp_path / "rows.py"
    path.write_text(
        _ROWS.replace("{extent}", extent).replace("{shape}", shape).replace("{copy}", copy)
    )
    with pytest.raises(TranslationError) as err:
        translate_file(path, "tilelang", "triton")
    assert what in str(err.value)
    assert err.value.loc is not None and err.value.loc.line == line
    assert err.value.hint and instead in err.value.hint


def test_tilelang_s_top_level_next_power_of_2_pads_a_whole_row(tmp_path: Path) -> None:
    """``tilelang.next_power_of_2`` (``tl.next_power_of_2`` in TileLang's examples) is
    ``tilelang.math.next_power_of_2``: a whole row padded to a power of two."""
    path = tmp_path / "rows.py"
    path.write_text(
        _ROWS.replace("{extent}", "tilelang.next_power_of_2(N)")
        .replace("{shape}", "(blk_m, BN)")
        .replace("{copy}", "T.copy(X[bx * blk_m, 0], x)")
    )
    text = translate_file(path, "tilelang", "triton")
    assert "BLOCK_X_SIZE1=triton.next_power_of_2(x.size(1))" in text


def test_tilelang_s_programmatic_autotuner_gives_the_tuning_space_and_its_driver_raises() -> None:
    """``AutoTuner.from_kernel(kernel=<closure calling the factory>, configs=get_configs(M, N))``:
    the configs, renamed through the closure's call, are the kernel's; the function that ran the
    autotuner keeps its signature and raises, with a note."""
    (kernel,) = parse_file(TILELANG / "compiled_add.py", "tilelang").kernels
    assert {
        (dict(c)["block_M"], dict(c)["block_N"], dict(c)["num_warps"]) for c in kernel.configs
    } == {(m, n, w) for m in (32, 64) for n in (64, 128) for w in (4, 8)}
    text = translate_file(TILELANG / "compiled_add.py", "tilelang", "triton")
    assert "AutoTuner.from_kernel" not in text and "import AutoTuner" not in text
    assert "def get_configs" not in text
    assert "# tiletrans: `tune` drove TileLang's AutoTuner over `elementwise_add`" in text
    stub = text[text.index("def tune(M, N):") :]
    assert stub.splitlines()[2].strip().startswith("raise NotImplementedError(")


def test_an_autotuner_over_something_else_is_a_located_refusal(tmp_path: Path) -> None:
    text = (TILELANG / "compiled_add.py").read_text()
    call = 'return elementwise_add(M, N, block_M, block_N, "float32", "float32", threads)'
    assert call in text
    path = tmp_path / "compiled_add.py"
    path.write_text(text.replace(call, "return None"))
    with pytest.raises(TranslationError, match="other than a nested function") as err:
        translate_file(path, "tilelang", "triton")
    line = text[: text.index("AutoTuner.from_kernel(")].count("\n") + 1
    assert err.value.loc is not None and err.value.loc.line == line
