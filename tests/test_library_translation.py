"""The library-style corpus translates, and each translation computes what its source computes.

``examples/library/{triton,helion}/*.py`` are kernel modules written the way production libraries
are (autograd Functions, launch helpers, host branches, device guards, module constants, configs
as names, configless Helion kernels, unknown decorators): host code the translation carries. For
every module with a golden in the other DSL (``expected_<dsl>/``; ``tests/test_golden.py`` checks
the goldens are what the translator writes), :func:`validation.equivalence.check_pair` runs
every public function of source and golden on the CPU, in the Triton interpreter, forward and
(for modules with an autograd Function) backward through ``torch.autograd.grad``. Inputs are
synthesised from the IR where it can shape them and come from ``examples/library/inputs.py``
otherwise, as ``tiletrans validate --inputs`` would take them.

Two Triton modules are refused, with a located diagnostic: `reductions.py` (its first-stage
reduction's block is computed by the host, `next_power_of_2(ceil(sqrt(M)))`, and the IR has no
launch-passed blocks) and `grouped_gemm.py` (groups reached through a table of addresses).
The stream-K GEMM (`streamk_gemm.py`, a `while` over each program's share of the K iterations)
translates into Helion and back; cuTile refuses it (`expected_cutile/streamk_gemm.refused`).
"""

from __future__ import annotations

import os

# Kernels run in Triton's interpreter; set it before anything imports triton.
os.environ["TRITON_INTERPRET"] = "1"

import re  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from validation.equivalence import check_pair, load_inputs  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = ROOT / "examples" / "library"
INPUTS = "examples/library/inputs.py:inputs"


# Modules whose cuTile goldens are not run here: the cuTile oracle on the CPU compiles every
# kernel with tileiras and runs it in the IR interpreter, 110 s for kl_div alone on 2 cores,
# beyond what CI can spend on the corpus. Their goldens are still checked to be what the
# translator writes (tests/test_golden.py); their Helion/Triton translations run here.
CUTILE_NOT_RUN = {
    "triton/dropout.py",
    "helion/group_norm.py",
    "triton/splitk_gemm.py",
    # Run at one small shape in test_causal_attention_cutile_golden_on_cpu.
    "helion/causal_attention.py",
    "triton/fused_linear_cross_entropy.py",
    "helion/geglu.py",
    "helion/layer_norm_grad.py",
    "helion/mixed_matmul.py",
    "triton/embedding.py",
    "triton/jsd.py",
    "triton/kl_div.py",
    "triton/log_softmax.py",
    "triton/attention_bwd.py",
    # The cuTile frontend does not read a `str` kernel parameter or string constants back
    # (`ACTIVATION: str`, `ACTIVATION == "gelu"`), and its oracle runs the golden as IR.
    "triton/matmul_activation.py",
    "helion/kl_div_rows.py",
    # The cuTile frontend, which its oracle reads the golden with, does not read back a grid
    # over a fixed block (`rows = ct.bid(0)` stepping `rows * 32`): "indexes no tile".
    "helion/rms_norm_blocked.py",
    # Nor a tile grid the launch counts by an int (`ct.cdiv(num_seqs, B)`) whose tiles also
    # load from a longer array (`offsets`, num_seqs + 1 entries): it measures the grid by
    # `offsets` and the launch check fails ("launches 6 programs for 7 tiles").
    "helion/jagged.py",
    "helion/jagged_features.py",
    # Nor a whole-dim tile constant shared by prefixes of several arrays' dims (`BLOCK_HALF`
    # over `half` of q, k, cos and sin): it ties the constant to q's whole dim 3.
    "triton/rope.py",
}


def _pairs() -> list[tuple[Path, Path]]:
    out = []
    for folder in sorted(p for p in LIBRARY.iterdir() if p.is_dir()):
        for source in sorted(folder.glob("*.py")):
            for golden in sorted(folder.glob(f"expected_*/{source.name}")):
                rel = source.relative_to(LIBRARY).as_posix()
                if golden.parent.name == "expected_cutile" and rel in CUTILE_NOT_RUN:
                    continue
                out.append((source, golden))
    return out


PAIRS = _pairs()
# Triton goldens of Helion modules that the Triton frontend refuses to read back, with a located
# diagnostic (a part of its message): forms the Helion frontend writes and the Triton frontend
# does not lift yet. Their translations are still run against their sources above.
READ_BACK_REFUSED = {
    # The loop over one fixed row block's rows: `range(pid * 32, min(pid * 32 + 32, m), BLOCK)`.
    ("helion/rms_norm_blocked.py", "expected_triton"): "does not step through whole tile_sub",
    # Rows up to the longest sequence of a tile of them (`hl.tile(lengths.amax())`), masked by
    # each sequence's length: a bound the kernel loads.
    ("helion/jagged_features.py", "expected_triton"): "is not masked along tile `tile_r`",
}
# Public functions that launch nothing (config and settings helpers) or only build decorators.
NOT_LAUNCHING = {
    "is_cuda",
    "get_cuda_autotune_config",
    "get_fallback_autotune_config",
    "get_autotune_config",
    "calculate_settings",
    "ensure_contiguous",
    "libentry",
    "get_num_warps",
    "jsd_backward",
    "quantize_weight",
    "gelu_tanh",
}


@pytest.fixture(autouse=True)
def _repo_cwd(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def test_every_library_module_but_the_refused_has_a_golden() -> None:
    from test_golden import GOLDENS

    translated = {source.relative_to(LIBRARY).as_posix() for source, _ in PAIRS}
    # Every module is run against a golden of the other of Helion and Triton.
    assert all(
        any(g.parent.name in ("expected_helion", "expected_triton") for s, g in PAIRS if s == p)
        for p in {source for source, _ in PAIRS}
    )
    every = {p.relative_to(LIBRARY).as_posix() for p in LIBRARY.glob("*/*.py")}
    refused = {
        f"{Path(folder).relative_to('examples/library').as_posix()}/{stem}.py"
        for folder, stem in GOLDENS.REFUSED
        if folder.startswith("examples/library/")
    }
    assert (
        every - translated
        == refused
        == {
            "triton/reductions.py",
            "triton/grouped_gemm.py",
        }
    )
    assert len(translated) >= 12


@pytest.mark.parametrize(
    "pair", PAIRS, ids=lambda p: f"{p[0].parent.name}-{p[1].parent.name}-{p[0].stem}"
)
def test_library_translation_matches_source_on_cpu(pair: tuple[Path, Path]) -> None:
    from test_library_sources import PUBLIC_API

    source, golden = pair
    report = check_pair(
        os.path.relpath(source, ROOT),
        os.path.relpath(golden, ROOT),
        seeds=(0,),
        inputs=load_inputs(INPUTS),
    )
    assert report.passed, report.format_text()
    # Every public function that launches a kernel was run, in both dtypes.
    api = PUBLIC_API[source.relative_to(LIBRARY).as_posix()] - NOT_LAUNCHING
    checked = {row.entry for row in report.rows}
    assert api <= checked, f"not checked: {sorted(api - checked)}"
    assert {row.dtype for row in report.rows} == {"float32", "float16"}
    # A configless Helion kernel runs at Helion's default config on the CPU, and the report says so.
    if "@helion.kernel()" in source.read_text():
        assert any("Helion's default config" in note for note in report.notes), report.notes


def test_a_module_whose_api_is_an_autograd_function_is_checked_through_apply() -> None:
    """Liger-Kernel style: no public function, only `SoftmaxFunction`, whose backward gets the
    forward's block size through the autograd context. Validation calls `SoftmaxFunction.apply`
    (forward and gradients), on rows that fit one block and on rows that take the online
    kernel (longer than the module's MAX_FUSED_SIZE, 4096)."""
    source = "examples/library/triton/softmax_function.py"
    golden = "examples/library/triton/expected_helion/softmax_function.py"
    for sizes in (None, {"batch": 2, "n_cols": 4133}):
        report = check_pair(source, golden, seeds=(0,), dtypes=("float32",), sizes=sizes)
        assert report.passed, report.format_text()
        assert {row.entry for row in report.rows} == {"SoftmaxFunction.apply"}


@pytest.mark.parametrize(
    "pair", PAIRS, ids=lambda p: f"{p[0].parent.name}-{p[1].parent.name}-{p[0].stem}"
)
def test_library_translation_translates_back(pair: tuple[Path, Path], tmp_path: Path) -> None:
    """A golden is a module of the other DSL like any other: it translates back to the source's
    DSL, and the round trip computes what the source computes (fp32, one seed: the translation
    itself is checked in both dtypes above)."""
    from translator.api import translate_file
    from translator.diagnostics import TranslationError

    source, golden = pair
    back = tmp_path / source.name
    refused = READ_BACK_REFUSED.get((source.relative_to(LIBRARY).as_posix(), golden.parent.name))
    if refused is not None:
        with pytest.raises(TranslationError) as err:
            translate_file(golden, golden.parent.name.removeprefix("expected_"), source.parent.name)
        assert refused in err.value.message and err.value.loc is not None
        return
    back.write_text(
        translate_file(golden, golden.parent.name.removeprefix("expected_"), source.parent.name)
    )
    report = check_pair(
        os.path.relpath(source, ROOT),
        back,
        dtypes=("float32",),
        seeds=(0,),
        inputs=load_inputs(INPUTS),
    )
    assert report.passed, report.format_text()


@pytest.mark.parametrize(
    ("name", "where", "what"),
    [
        ("reductions", r"reductions\.py:\d+:\d+: error: ", "but the kernel's tiles need"),
        (
            "grouped_gemm",
            r"grouped_gemm\.py:46:50: error: `tl\.pointer_type` is not supported yet",
            "stack the groups into one zero-padded tensor ([G, max_m, k] and [G, k, max_n]) "
            "and use a batched GEMM",
        ),
    ],
)
def test_refused_library_modules_say_where_and_why(name: str, where: str, what: str) -> None:
    path = f"examples/library/triton/{name}.py"
    run = subprocess.run(
        [sys.executable, "-m", "translator.cli", "triton2helion", path],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert run.returncode == 2 and not run.stdout
    assert re.search(where, run.stderr) and what in run.stderr and "help: " in run.stderr
    assert "Traceback" not in run.stderr


def test_a_grid_tile_offset_by_a_loaded_group_start_says_to_loop() -> None:
    # The other common MoE form: a grid over (experts, row tiles of the busiest expert, column
    # tiles), rows `start + pid_m * BLOCK_M + tl.arange(0, BLOCK_M)` masked `< end`. The IR's
    # grid tiles start at 0 and end at a host size; the help names the loop
    # examples/library/triton/moe_grouped_gemm.py is written with.
    path = "tests/data/triton_moe_grid_grouped_gemm.py"
    run = subprocess.run(
        [sys.executable, "-m", "translator.cli", "triton2helion", path],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert run.returncode == 2 and not run.stdout
    line = next(
        n
        for n, text in enumerate(Path(ROOT / path).read_text().splitlines(), 1)
        if "offs_m = start + pid_m * BLOCK_M" in text
    )
    assert re.search(
        rf"triton_moe_grid_grouped_gemm\.py:{line}:14: error: cannot tell which tile", run.stderr
    )
    assert "help: a program's tile offset by a value the kernel loads" in run.stderr
    assert "`for row in range(start, end, BLOCK)`" in run.stderr
    assert "Traceback" not in run.stderr


def _translated_and_equivalent(
    source: str, tmp_path: Path, expected: tuple[str, ...], inputs=None
) -> None:
    """Translate ``source`` (a Triton module under ``tests/data``) to Helion, check the output
    says each of ``expected``, and run both on the CPU (``inputs`` as ``check_pair`` takes it)."""
    from translator.api import translate_file

    text = translate_file(source, "triton", "helion")
    for snippet in expected:
        assert snippet in text, snippet
    out = tmp_path / Path(source).name
    out.write_text(text)
    report = check_pair(source, out, seeds=(0,), inputs=inputs)
    assert report.passed, report.format_text()


def test_a_plain_kernel_decorator_is_kept_and_one_of_kernel_objects_dropped(
    tmp_path: Path,
) -> None:
    # The library's registration decorator, a wrapper of any callable, still wraps the kernel,
    # now a Helion one.
    _translated_and_equivalent(
        "tests/data/triton_decorated_kernel.py", tmp_path, ("@libentry()\n@helion.kernel(",)
    )
    # FlagGems' real one wraps the JITFunction in a class that reads its `arg_names`: it cannot
    # wrap a Helion kernel, so it is dropped there, with a note; into Triton it stays.
    from translator.api import translate_source

    source = Path("tests/data/triton_decorated_kernel.py").read_text()
    text = source.replace(
        "    def decorator(fn):\n        return fn\n",
        "    def decorator(fn):\n        return LibEntry(fn)\n",
    ).replace(
        "\n\ndef libentry():",
        "\n\nclass LibEntry(triton.KernelInterface):\n"
        "    def __init__(self, fn):\n        self.fn = fn\n        self.arg_names = fn.arg_names\n"
        "\n\ndef libentry():",
    )
    assert "LibEntry(fn)" in text and "class LibEntry" in text
    helion = translate_source(text, "decorated.py", "triton", "helion")
    assert (
        "# tiletrans: dropped `@libentry()`, which wraps triton kernels\n@helion.kernel(" in helion
    )
    same = translate_source(text, "decorated.py", "triton", "triton")
    assert "@libentry()\n@triton" in same


def test_layout_changes_around_a_launch_are_carried_with_their_rank(tmp_path: Path) -> None:
    # `xt = x.transpose(0, 1).clone(memory_format=torch.contiguous_format)`, then the launch gets
    # `xt`, `xt.stride(0)` and `n_cols` from `xt.shape`: refused before the frontend knew what a
    # transpose and a clone keep (the rank and dtype; row-major only with that memory format).
    # Inputs are synthesised: the rank of `x` comes from the unpack of its transposed copy.
    _translated_and_equivalent(
        "tests/data/triton_transposed_copy.py",
        tmp_path,
        (
            "xt = x.transpose(0, 1).clone(memory_format=torch.contiguous_format)",
            "_scale_rows(xt, scale)",
        ),
    )


def test_tile_read_shifted_by_a_host_value_is_an_indexed_load(tmp_path: Path) -> None:
    # `tl.load(x_ptr + offs + 1, mask=offs < n - 1)`: the lanes of a tile plus one, refused
    # before ("the IR has no shifted tiles"); now a gather of those integers.
    _translated_and_equivalent(
        "tests/data/triton_shifted_read.py", tmp_path, ("hl.load(x, [1 + tile.index])",)
    )


def test_row_prefix_reads_only_the_prefix(tmp_path: Path) -> None:
    import torch

    # `cols < n` of a row of `x.size(1)` elements, where nothing says n is that size: the IR's
    # whole-dim index covers [0, n), and Helion spells it `x[row, :n]` (not `:`, which reads
    # the whole row: a silent wrong sum before). Here n is 23 of 40 columns.
    def prefixes(entry: str, device: str, dtype: str) -> tuple:
        return torch.randn(5, 40, dtype=getattr(torch, dtype), device=device), 23

    _translated_and_equivalent(
        "tests/data/triton_row_prefix.py",
        tmp_path,
        ("x[row, :n]", "n: hl.constexpr"),
        inputs=prefixes,
    )


def test_a_kernel_warmup_is_dropped_with_a_note(tmp_path: Path) -> None:
    # `kernel = _neg.warmup(...)` is Triton's compiled-kernel API: the Helion kernel has none, so
    # carrying the line was a runtime AttributeError; it only compiles ahead, so it goes.
    _translated_and_equivalent(
        "tests/data/triton_warmup.py", tmp_path, ("# tiletrans: dropped `_neg.warmup(",)
    )
    from translator.api import translate_file

    text = translate_file("tests/data/triton_warmup.py", "triton", "helion")
    assert [line for line in text.splitlines() if ".warmup(" in line] == [
        line for line in text.splitlines() if line.lstrip().startswith("# tiletrans: dropped")
    ]


def test_a_used_warmed_up_kernel_is_refused() -> None:
    from translator.api import translate_source
    from translator.diagnostics import TranslationError

    source = (ROOT / "tests/data/triton_warmup.py").read_text()
    source = source.replace("    _neg.warmup(", "    compiled = _neg.warmup(").replace(
        "    return out", "    assert compiled.n_regs > 0\n    return out"
    )
    with pytest.raises(TranslationError) as info:
        translate_source(source, "warm.py", "triton", "helion")
    assert "`compiled`, the compiled kernel" in info.value.message
    assert info.value.loc is not None and info.value.loc.line > 0


def test_autotune_that_zeroes_outputs_translates_and_its_tuner_leaves_them_alone(
    tmp_path: Path,
) -> None:
    # Split-K under @triton.autotune(reset_to_zero=["c_ptr"]): the autotuner zeroes the atomics'
    # output around each timed run. TileLang's autotuner times configs on tensors of its own,
    # so the launch sees `c` as the host made it; the translation says so and computes what
    # the source does (CPU: first config).
    from translator.api import translate_file

    path = "tests/data/triton_splitk_reset_to_zero.py"
    out = tmp_path / "splitk_tl.py"
    out.write_text(translate_file(path, "triton", "tilelang"))
    assert "# tiletrans: read `reset_to_zero=` of @triton.autotune" in out.read_text()
    report = check_pair(path, str(out), src_dsl="triton", seeds=(0,), dtypes=("float32",))
    assert report.rows and report.passed, report.format_text()


def test_in_kernel_dropout_translates_both_ways(tmp_path: Path) -> None:
    # Seeded dropout draws Philox numbers keyed by the seed and each element's offset (the IR's
    # rand op). The Helion translation inlines Triton's own draw at the same offsets (hl.rand is
    # the same Philox, several times slower), so the draws are the same numbers.
    _translated_and_equivalent(
        "tests/data/triton_dropout.py",
        tmp_path,
        (
            'hl.inline_triton(\n            "tl.rand({0}, {1})",\n            args=(seed, tile.index),',
        ),
    )
    from translator.api import translate_file

    text = translate_file("tests/data/helion_dropout.py", "helion", "triton")
    assert "keep = tl.rand(seed, offs_tile) > p" in text
    assert 'key=["x_size0"]' in text  # a seed is no size: no re-tuning per seed
    out = tmp_path / "helion_dropout.py"
    out.write_text(text)
    report = check_pair("tests/data/helion_dropout.py", out, seeds=(0,))
    assert report.passed, report.format_text()


def test_helion_explicit_offsets_translate_to_triton(tmp_path: Path) -> None:
    # Helion 1.5's `hl.rand([], seed=..., offsets=...)` draws at the offsets given, in int64.
    from translator.api import translate_source

    source = (ROOT / "tests/data/helion_dropout.py").read_text()
    edit = ("hl.rand([tile], seed=seed)", "hl.rand([], seed=seed, offsets=tile.index * 3 + 1)")
    src = tmp_path / "offsets.py"
    src.write_text(source.replace(*edit))
    text = translate_source(src.read_text(), str(src), "helion", "triton")
    assert "tl.rand(seed, (offs_tile * 3 + 1).to(tl.int64))" in text
    out = tmp_path / "offsets_triton.py"
    out.write_text(text)
    report = check_pair(str(src), out, seeds=(0,), dtypes=("float32",))
    assert report.passed, report.format_text()


_DROPOUT = "tests/data/triton_dropout.py"
_HELION_DROPOUT = "tests/data/helion_dropout.py"


def test_triton_draws_at_any_offsets_translate_to_helion_and_back(tmp_path: Path) -> None:
    # Offsets that are no element's row-major index (Helion's hl.rand has no such counter) are
    # drawn at as written: the inlined `tl.rand` takes them as Triton does. The Helion output
    # reads back (its frontend knows the snippet) into the same Triton draw.
    from translator.api import translate_source

    source = (
        (ROOT / _DROPOUT)
        .read_text()
        .replace("tl.rand(seed, offsets)", "tl.rand(seed, offsets * 2 + 7)")
    )
    src = tmp_path / "spaced.py"
    src.write_text(source)
    helion_text = translate_source(source, str(src), "triton", "helion")
    assert "args=(seed, 7 + 2 * tile.index)" in helion_text
    helion_out = tmp_path / "spaced_helion.py"
    helion_out.write_text(helion_text)
    assert check_pair(str(src), helion_out, seeds=(0,)).passed
    back = translate_source(helion_text, str(helion_out), "helion", "triton")
    assert "tl.rand(seed, 7 + 2 * offs_tile)" in back
    back_out = tmp_path / "spaced_back.py"
    back_out.write_text(back)
    report = check_pair(str(src), back_out, seeds=(0,))
    assert report.passed, report.format_text()


_WIDE_INDEX_DROPOUT = """
import torch
import triton
import triton.language as tl


@triton.jit
def _drop_kernel(x_ptr, out_ptr, n_elements, p, seed, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets.to(tl.int64), mask=mask)
    r = tl.rand(seed, offsets - 5)
    tl.store(out_ptr + offsets.to(tl.int64), tl.where(r > p, x / (1 - p), 0.0), mask=mask)


def drop(x: torch.Tensor, p: float, seed: int) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    _drop_kernel[(triton.cdiv(n, 128),)](x, out, n, p, seed, BLOCK=128)
    return out
"""

_DROP_INPUTS = """
import torch


def inputs(entry, device, dtype):
    return (torch.randn(300, dtype=getattr(torch, dtype)).to(device), 0.4, 7)
"""


def test_draws_keep_their_offsets_dtype_under_64_bit_indices(tmp_path: Path) -> None:
    # A source that widens its addresses gets `index_dtype=torch.int64` in Helion, where a
    # tile's index is then int64; `tl.rand` draws another stream for int64 offsets (negative
    # ones differ), so the inlined draw casts back to the source's int32. Read back, a Helion
    # draw at lane indices under int64 indexing is the int64 stream.
    from translator.api import translate_source

    src = tmp_path / "wide.py"
    src.write_text(_WIDE_INDEX_DROPOUT)
    (tmp_path / "inp.py").write_text(_DROP_INPUTS)
    inputs = load_inputs(f"{tmp_path / 'inp.py'}:inputs")
    helion_text = translate_source(_WIDE_INDEX_DROPOUT, str(src), "triton", "helion")
    assert "index_dtype=torch.int64" in helion_text
    assert "args=(seed, (-5 + tile.index).to(torch.int32))" in helion_text
    helion_out = tmp_path / "wide_helion.py"
    helion_out.write_text(helion_text)
    assert check_pair(str(src), helion_out, seeds=(0,), inputs=inputs).passed
    uncast = tmp_path / "wide_helion_int64.py"
    uncast.write_text(helion_text.replace("(-5 + tile.index).to(torch.int32)", "-5 + tile.index"))
    back = translate_source(uncast.read_text(), str(uncast), "helion", "triton")
    assert "tl.rand(seed, (-5 + offs_tile).to(tl.int64))" in back
    back_out = tmp_path / "wide_back.py"
    back_out.write_text(back)
    report = check_pair(str(uncast), back_out, seeds=(0,), inputs=inputs)
    assert report.passed, report.format_text()


def test_a_draw_at_a_scalar_offset_translates_to_helion(tmp_path: Path) -> None:
    # One number per program (`tl.rand(seed, pid_m)`): a 0-d draw, `output_like=hl.zeros([])`.
    from translator.api import translate_source

    source = (ROOT / "examples/library/triton/seeded_dropout.py").read_text()
    edited = source.replace(
        "keep = tl.rand(seed, rows[:, None] * n_cols + cols[None, :]) > p",
        "keep = tl.rand(seed, pid_m) > p",
    )
    assert edited != source
    src = tmp_path / "scalar_draw.py"
    src.write_text(edited)
    text = translate_source(edited, str(src), "triton", "helion")
    assert "output_like=hl.zeros([], dtype=torch.float32)" in text
    out = tmp_path / "scalar_draw_helion.py"
    out.write_text(text)
    report = check_pair(str(src), out, seeds=(0,), inputs=load_inputs(INPUTS))
    assert report.passed, report.format_text()


def test_unknown_inlined_triton_is_refused_at_its_call(tmp_path: Path) -> None:
    src = tmp_path / "inline.py"
    src.write_text(
        (ROOT / _HELION_DROPOUT)
        .read_text()
        .replace(
            "hl.rand([tile], seed=seed)",
            'hl.inline_triton("tl.randn({0}, {1})", args=(seed, tile.index), output_like=x[tile])',
        )
    )
    run = subprocess.run(
        [sys.executable, "-m", "translator.cli", "translate", "--from", "helion", "--to",
         "triton", str(src)],
        capture_output=True, text=True, cwd=ROOT,
    )  # fmt: skip
    assert run.returncode == 2 and not run.stdout, run.stderr
    assert re.search(r"inline\.py:\d+:\d+: error: only the inlined Triton snippets", run.stderr)
    assert "known: `tl.rand({0}, {1})`" in run.stderr
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize(
    ("path", "edit", "dst", "what", "instead"),
    [
        (
            _DROPOUT,
            ("tl.rand(seed, offsets)", "tl.randn(seed, offsets)"),
            "helion",
            "Helion has no seeded normal draw",
            "torch.randn",
        ),
        (
            _DROPOUT,
            ("tl.rand(seed, offsets)", "tl.rand(seed, offsets, n_rounds=7)"),
            "helion",
            "n_rounds other than 10",
            "drop n_rounds",
        ),
        (
            _DROPOUT,
            ("tl.rand(seed, offsets)", "tl.randint(seed, offsets)"),
            "helion",
            "`tl.randint` is not supported yet",
            "uint32",
        ),
        (_DROPOUT, None, "cutile", "cuTile cannot spell `rand`", "torch.Generator"),
        (_DROPOUT, None, "tilelang", "TileLang has no spelling of `rand`", "torch.Generator"),
        (
            _HELION_DROPOUT,
            ("hl.rand([tile], seed=seed)", "hl.randint([tile], 0, 10, seed=seed)"),
            "triton",
            "`hl.randint` is not supported yet",
            "hl.rand([tile], seed=seed)",
        ),
        (
            _HELION_DROPOUT,
            ("hl.tile(x.size(0))", "hl.tile(1, x.size(0))"),
            "triton",
            "hl.rand over `tile`, which is no block of lanes from 0",
            "offsets=",
        ),
    ],
)
def test_random_numbers_refused_where_no_exact_spelling_exists(
    path: str, edit: tuple[str, str] | None, dst: str, what: str, instead: str
) -> None:
    from translator.api import translate_source
    from translator.diagnostics import TranslationError

    source = (ROOT / path).read_text()
    if edit is not None:
        assert edit[0] in source
        source = source.replace(*edit)
    src = "helion" if "helion" in path else "triton"
    with pytest.raises(TranslationError) as info:
        translate_source(source, path, src, dst)
    assert what in info.value.message and instead in (info.value.hint or "")
    assert info.value.loc is not None and info.value.loc.line > 0


def test_an_in_place_kernel_tuned_with_restore_value_is_restored_in_every_triton_tuning(
    tmp_path: Path,
) -> None:
    # An in-place kernel (x += y) tuned with restore_value=["x_ptr"]: the autotuner puts `x`
    # back after each timed run. Helion's autotuner runs trials on clones of the tensors a
    # kernel mutates; a Triton translation (here of that Helion translation) restores them
    # itself, as a kernel that reads and writes a tensor needs under a multi-config autotune.
    from translator.api import translate_source

    text = (
        "import torch\nimport triton\nimport triton.language as tl\n\n\n"
        "@triton.autotune(\n"
        "    configs=[triton.Config({'BLOCK': 128}), triton.Config({'BLOCK': 256})],\n"
        "    key=['n'],\n"
        "    restore_value=['x_ptr'],\n"
        ")\n"
        "@triton.jit\n"
        "def add_inplace_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):\n"
        "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
        "    mask = offs < n\n"
        "    x = tl.load(x_ptr + offs, mask=mask)\n"
        "    tl.store(x_ptr + offs, x + tl.load(y_ptr + offs, mask=mask), mask=mask)\n\n\n"
        "def add_(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:\n"
        "    n = x.numel()\n"
        "    add_inplace_kernel[lambda meta: (triton.cdiv(n, meta['BLOCK']),)](x, y, n)\n"
        "    return x\n"
    )
    src = tmp_path / "inplace.py"
    src.write_text(text)
    helion = tmp_path / "inplace_helion.py"
    helion.write_text(translate_source(text, str(src), "triton", "helion"))
    assert "# tiletrans: read `restore_value=` of @triton.autotune" in helion.read_text()
    report = check_pair(str(src), str(helion), src_dsl="triton", seeds=(0,), dtypes=("float32",))
    assert report.rows and report.passed, report.format_text()
    back = translate_source(helion.read_text(), str(helion), "helion", "triton")
    assert 'restore_value=["x_ptr"]' in back, back


def test_causal_attention_cutile_golden_on_cpu() -> None:
    # The read-back accumulator is `zeros([tile_m, BLOCK_HEAD_DIM])` (q's head dim) and the MMA
    # adds a product over v's (`BLOCK_V2`): the sum has the accumulator's dims, so the output
    # store of q's shape types (it raised "not a unit-dim change" before 2026-12-07). Small
    # ragged inputs: the whole corpus run skips this module for CI time.
    import torch

    def inputs(entry: str, device: str, dtype: str) -> tuple | None:
        g = torch.Generator().manual_seed(0)
        shape = {"causal_attention_fwd": (6, 37, 45), "causal_attention": (2, 3, 37, 45)}
        if entry not in shape:
            return None
        qkv = tuple(
            torch.randn(*shape[entry], generator=g).to(device=device, dtype=getattr(torch, dtype))
            for _ in range(3)
        )
        return (*qkv, 45**-0.5) if entry == "causal_attention_fwd" else qkv

    report = check_pair(
        "examples/library/helion/causal_attention.py",
        "examples/library/helion/expected_cutile/causal_attention.py",
        dtypes=("float32",),
        seeds=(0,),
        inputs=inputs,
    )
    assert report.passed, report.format_text()
