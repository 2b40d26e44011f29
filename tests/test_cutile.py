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
import re

os.environ["TRITON_INTERPRET"] = "1"

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
import torch  # noqa: E402

from translator.api import parse_file, parse_source, translate_file, translate_source  # noqa: E402
from translator.diagnostics import TranslationError  # noqa: E402
from translator.ir import nodes as ir  # noqa: E402
from translator.ir.visit import all_exprs, kernel_exprs, walk_stmts  # noqa: E402
from translator.provenance import provenance_lines  # noqa: E402
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
    launch = '(ct.cdiv(m, cfg["BLOCK_SIZE_M"]), ct.cdiv(n, cfg["BLOCK_SIZE_N"]), 1),\n        _relu'
    assert launch in text
    bad = tmp_path / "relu.py"
    bad.write_text(text.replace(launch, launch.replace('ct.cdiv(m, cfg["BLOCK_SIZE_M"])', "1")))
    use_interpreter()
    module = load_module(bad, "translated")
    with pytest.raises(RuntimeError, match="launches 1 programs for 2 tiles"):
        module.relu(torch.randn(70, 50))


@pytest.mark.parametrize(
    ("example", "construct"),
    [
        ("examples/helion/gelu.py", "no erf"),
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
        "softmax_exp2": lambda: (randn(37, 300),),
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
        # 9 tiles of 1024 (the last one ragged) over 4 CPU "SMs": programs walk 3 tiles each.
        # K = 200: 7 K tiles of 32 (the last ragged) shared by 4 splits, 2 of them for some.
        "splitk_gemm": lambda: (randn(70, 200), randn(200, 90)),
        "persistent_axpy": lambda: (randn(8500), randn(8500), 0.5),
        # 2 x 3 tiles of 128 (both ragged), groups of 4 rows: one group, cut to 2 rows.
        "gemm_grouped": lambda: (randn(200, 70), randn(70, 300)),
        # 5 experts over 61 of 66 sorted tokens: one expert empty, one of 41 rows (a ragged
        # second row tile), rows 61.. owned by no expert and never written (a translation that
        # wrote past an expert's end would write there, or over the next expert's rows).
        "moe_grouped_gemm": lambda: (
            randn(66, 40),
            randn(5, 40, 70),
            torch.tensor([0, 7, 7, 48, 55, 61], dtype=torch.int32, device=device),
        ),
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
    # `BLOCK_SIZE_N_DWDB`, a module constant the Triton source launches its column-block grid
    # with: the cuTile launch passes that host value (to its grid and to every trial of its
    # search), never a default baked in.
    text = (ROOT / "examples/library/triton/expected_cutile/layer_norm.py").read_text()
    assert text.count("(ct.cdiv(N, BLOCK_SIZE_N_DWDB), 1, 1)") == 2
    assert '"BLOCK_SIZE_N": ' not in text


def test_a_streaming_chunk_the_host_computes_is_searched() -> None:
    # Liger's `BLOCK_SIZE = min(32768, next_power_of_2(V))` sizes the chunk of an online
    # log-sum-exp loop for Triton at 32 warps; any chunk computes the same sums, and in cuTile
    # 32768 ran at 0.46x the source where 2048 and 8192 ran at 1.1x and 1.0x (H100 probe).
    text = (ROOT / "examples/triton/expected_cutile/cross_entropy.py").read_text()
    space = text.split("CROSS_ENTROPY_FORWARD_KERNEL_CONFIGS = [")[1].split("]")[0]
    chunks = [int(v) for v in re.findall(r'"BLOCK_SIZE": (\d+)', space)]
    assert chunks[0] == 2048 and {2048, 8192, 32768} == set(chunks), space
    assert 'cfg["BLOCK_SIZE"]' in text and "next_power_of_2" not in text
    # A chunk over several rows stays within the grammar's tile budget (rows x chunk).
    kl = (ROOT / "examples/library/triton/expected_cutile/kl_div.py").read_text()
    for rows, chunk in re.findall(r'\{"ROWS": (\d+), "BLOCK_SIZE": (\d+)', kl):
        assert int(chunk) == 16384 or int(rows) * int(chunk) <= 8192, (rows, chunk)


def test_a_chunk_a_host_buffer_is_sized_by_stays_the_hosts() -> None:
    # One output column per chunk (`out[row, tile_i.id]`, `n_chunks = cdiv(n_cols, BLOCK)`):
    # another chunk size would write other columns. The host's BLOCK is passed to every trial.
    source = ROOT / "tests/data/triton_chunk_sums.py"
    text = translate_source(source.read_text(), str(source), "triton", "cutile")
    assert 'cfg["BLOCK"]' not in text and '"BLOCK": ' not in text
    assert '(x, out, cfg["ROWS"], BLOCK, cfg["USE_TMA"])' in text


def test_dot_tiles_the_host_fixes_are_searched_over_cutiles_space() -> None:
    # Triton's attention launches at BLOCK_M = 64 and a BLOCK_N its host picks by head dim
    # (for Triton's registers); cuTile searches its own attention tiles (128x128 ran at 0.91x
    # the source where 64x64 ran at 0.57x, H100 probe), the grid following the config.
    text = (ROOT / "examples/triton/expected_cutile/attention.py").read_text()
    space = text.split("_ATTN_FWD_CONFIGS = [")[1].split("\n]")[0]
    assert '{"BLOCK_M": 128, "BLOCK_N": 128}' in space
    assert '(ct.cdiv(q.size(2), cfg["BLOCK_M"]), q.size(1), q.size(0))' in text
    assert "BLOCK_N = 64 if" not in text  # the host's choice no longer reaches the launch


def test_dot_tiles_a_host_buffer_is_sized_by_stay_the_hosts(tmp_path: Path) -> None:
    # The host sizes the partial results by cdiv(M, BLOCK_M), one row per row block: another
    # BLOCK_M would write past them. The launch passes the host's tiles, and no search.
    source = ROOT / "tests/data/triton_partials_by_block.py"
    text = translate_source(source.read_text(), str(source), "triton", "cutile")
    assert "exhaustive_search" not in text
    assert "(a, b, c, BLOCK_M, BLOCK_N, BLOCK_K)" in text


# --------------------------------------------------------------------------------------------------
# Tuning spaces: ct.tune.exhaustive_search in, ct.tune.exhaustive_search out

TUNED = CUTILE / "gemm_autotune.py"


def _configs(module) -> list[dict[str, int]]:
    (kernel,) = module.kernels
    return [dict(c) for c in kernel.configs]


def test_a_cutile_tuning_space_is_read_as_the_kernels_configs() -> None:
    module = parse_file(TUNED, "cutile")
    configs = _configs(module)
    # itertools.product((64, 128), (64, 128), (32, 64)), in the order the search tries them.
    assert len(configs) == 8 and configs[0] == {"TM": 64, "TN": 64, "TK": 32}
    assert configs[-1] == {"TM": 128, "TN": 128, "TK": 64}
    (kernel,) = module.kernels
    assert kernel.tunable("TK").choices == (32, 64)
    # Triton autotunes over the same space, Helion gets it as its configs.
    triton_text = (CUTILE / "expected_triton" / TUNED.name).read_text()
    assert triton_text.count("triton.Config(") == 8
    assert 'triton.Config({"TM": 128, "TN": 128, "TK": 64})' in triton_text
    helion_text = (CUTILE / "expected_helion" / TUNED.name).read_text()
    assert helion_text.count("helion.Config(block_sizes=") == 8
    # The source's tuning code (search, cache, space, its itertools import) is cuTile's alone.
    for text in (triton_text, helion_text):
        text = text.split('"""', 2)[2]  # the code after the module docstring
        assert "exhaustive_search" not in text and "_gemm_best" not in text
        assert "GEMM_CONFIGS" not in text and "itertools" not in text and "cfg" not in text


def test_an_autotuned_triton_kernel_searches_its_configs_in_cutile() -> None:
    text = (ROOT / "examples/triton/expected_cutile/matmul.py").read_text()
    # The six @triton.autotune configs, knobs cuTile decides itself left out, then the dot tiles
    # of cuTile's own space they lack: the source's tiles were chosen for its warp counts
    # (128x256x64 at 8 warps ran 46 TFLOP/s in cuTile on the H200, 128x128x64 595).
    configs = text.split("MATMUL_KERNEL_CONFIGS = [")[1].split("]")[0]
    entries = re.findall(
        r'\{"BLOCK_SIZE_M": (\d+), "BLOCK_SIZE_N": (\d+), "BLOCK_SIZE_K": (\d+), '
        r'"GROUP_SIZE_M": 8\}',
        configs,
    )
    source = [
        tuple(str(v) for v in c)
        for c in _block_configs(parse_file(ROOT / "examples/triton/matmul.py", "triton"))
    ]
    assert entries[:6] == source and len(entries) == 10
    assert ("128", "128", "64") in entries[6:]
    assert "num_warps" not in configs
    host = text.split("def matmul(")[1]
    # Searched once per shape key, the best cached, trial launches writing a clone of the output.
    # (`key` is the source's autotune argument: the translation's own is `tuned_key`.)
    assert "if tuned_key not in _matmul_kernel_best:" in host
    assert "ct.tune.exhaustive_search(" in host and "c.clone()" in host
    assert host.index("ct.tune.exhaustive_search(") < host.index("ct.launch(")
    # The source's grouped order is kept: its group size is a tunable of every config, the
    # grid one-dimensional over all the output tiles.
    assert 'cfg["BLOCK_SIZE_K"],\n                cfg["GROUP_SIZE_M"],\n' in host
    assert (
        'ct.cdiv(a.size(0), cfg["BLOCK_SIZE_M"]) * ct.cdiv(b.size(1), cfg["BLOCK_SIZE_N"])' in host
    )


def test_a_configless_helion_kernel_searches_its_roles_space_in_cutile() -> None:
    from translator.api import translate_source
    from translator.grammar import load_grammar

    source = (
        "import helion\nimport helion.language as hl\nimport torch\n\n\n"
        "@helion.kernel()\n"
        "def mm(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:\n"
        "    m, k = x.size()\n"
        "    _, n = y.size()\n"
        "    out = torch.empty([m, n], dtype=x.dtype, device=x.device)\n"
        "    for tile_m, tile_n in hl.tile([m, n]):\n"
        "        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)\n"
        "        for tile_k in hl.tile(k):\n"
        "            acc = torch.addmm(acc, x[tile_m, tile_k], y[tile_k, tile_n])\n"
        "        out[tile_m, tile_n] = acc.to(out.dtype)\n"
        "    return out\n"
    )
    text = translate_source(source, "k.py", "helion", "cutile")
    space = load_grammar("cutile")["backend"]["default_space"]["dot"]["configs"]
    module = parse_source(text, "k.py", "cutile")
    got = [tuple(c.values()) for c in _configs(module)]
    assert got == [(c["m"], c["n"], c["k"]) for c in space]
    assert "ct.tune.exhaustive_search(" in text


def test_the_tuned_form_round_trips_and_keeps_its_space(tmp_path: Path) -> None:
    golden = CUTILE / "expected_cutile" / TUNED.name
    again = tmp_path / TUNED.name
    again.write_text(translate_file(golden, "cutile", "cutile"))

    # cuTile -> cuTile of the emitted form is a fixed point (but for the provenance header,
    # whose wrapped lines are as many as its paths need).
    def body(text: str) -> list[str]:
        lines = text.splitlines()
        header = provenance_lines(lines[:12])
        return [line for i, line in enumerate(lines) if i not in header]

    assert body(again.read_text()) == body(golden.read_text())
    assert _configs(parse_file(again, "cutile")) == _configs(parse_file(TUNED, "cutile"))
    # Triton -> cuTile -> Triton keeps the autotune configs, first one first (cuTile's own dot
    # tiles after them).
    source = ROOT / "examples/triton/matmul.py"
    back = parse_source(
        translate_file(ROOT / "examples/triton/expected_cutile/matmul.py", "cutile", "triton"),
        "m.py",
        "triton",
    )
    want = _block_configs(parse_file(source, "triton"))
    assert _block_configs(back)[: len(want)] == want


def _block_configs(module) -> list[tuple[int, ...]]:
    """Each config's block sizes, in the order of the kernel's block-size tunables."""
    (kernel,) = module.kernels
    blocks = [t.name for t in kernel.tunables if t.kind == "block_size"]
    return [tuple(dict(c)[b] for b in blocks) for c in kernel.configs]


def test_every_config_of_a_tuned_launch_compiles_for_sm90(monkeypatch: pytest.MonkeyPatch) -> None:
    from translator.dialects.cutile import runner

    use_interpreter()
    monkeypatch.setattr(runner, "COMPILE_EVERY_CONFIG", True)
    compiled: list[tuple] = []
    real = runner.compile_for_sm90

    def counting(kernel, args, constants):  # noqa: ANN001, ANN202
        compiled.append(tuple(args[i] for i in sorted(constants)))
        return real(kernel, args, constants)

    monkeypatch.setattr(runner, "compile_for_sm90", counting)
    module = load_module(CUTILE / "expected_cutile" / TUNED.name, "tuned")
    a, b = torch.randn(70, 40), torch.randn(40, 50)
    torch.testing.assert_close(module.gemm(a, b), a @ b, rtol=1e-4, atol=1e-4)
    # Seven trial configs in the search, then the chosen (first) one at the launch.
    assert len(set(compiled)) == 8 and compiled[-1] == (64, 64, 32)


@pytest.mark.parametrize("example", ["attention", "cross_entropy"])
def test_every_searched_tile_and_chunk_compiles_for_sm90(
    example: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The spaces the backend now searches beyond the source's own tiles (the attention space's
    # 128x128, the 8192-lane chunk) compile for sm_90 at every config, and the launch (its first
    # config, on the CPU) still computes the source's result.
    import torch.nn.functional as F

    from translator.dialects.cutile import runner

    use_interpreter()
    monkeypatch.setattr(runner, "COMPILE_EVERY_CONFIG", True)
    compiled: list[tuple] = []
    real = runner.compile_for_sm90

    def counting(kernel, args, constants):  # noqa: ANN001, ANN202
        compiled.append(tuple(args[i] for i in sorted(constants)))
        return real(kernel, args, constants)

    monkeypatch.setattr(runner, "compile_for_sm90", counting)
    module = load_module(ROOT / "examples/triton/expected_cutile" / f"{example}.py", example)
    space_name = next(n for n in vars(module) if n.endswith("_CONFIGS"))
    if example == "attention":
        q, k, v = (torch.randn(1, 2, 37, 64) for _ in range(3))
        got, want = module.attention(q, k, v), F.scaled_dot_product_attention(q, k, v)
    else:
        x, y = torch.randn(3, 100), torch.randint(0, 100, (3,))
        got, want = module.cross_entropy(x, y), F.cross_entropy(x, y, reduction="none")
    torch.testing.assert_close(got, want, rtol=2e-3, atol=2e-3)
    assert len(set(compiled)) == len(getattr(module, space_name)) >= 6


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            ("            quiet=True,\n", "            lambda cfg: {'occupancy': 2},\n"),
            "hints_fn other than a dict of config values",
        ),
        (('    {"TM": tm, "TN": tn, "TK": tk}\n', "    make(tm, tn, tk)\n"), "not read"),
        (("gemm_kernel,\n            # Trial", "other_kernel,\n            # Trial"), "@ct.kernel"),
    ],
    ids=["hints", "space", "kernel"],
)
def test_a_tuning_space_the_frontend_cannot_read_is_a_located_diagnostic(
    tmp_path: Path, edit: tuple[str, str], message: str
) -> None:
    text = TUNED.read_text()
    old, new = edit
    assert old in text
    bad = tmp_path / TUNED.name
    bad.write_text(text.replace(old, new))
    with pytest.raises(TranslationError, match=message) as err:
        translate_file(bad, "cutile", "triton")
    assert err.value.loc is not None and err.value.loc.file == str(bad)
    assert err.value.loc.line > 1 and err.value.hint


# --------------------------------------------------------------------------------------------------
# A persistent kernel: programs walk tiles with a stride of ct.num_blocks(0)

PERSISTENT = CUTILE / "persistent_axpy.py"


def test_a_persistent_loop_is_the_grid_tile_with_a_persistent_schedule() -> None:
    (kernel,) = parse_file(PERSISTENT, "cutile").kernels
    assert kernel.hints.schedule == "persistent_interleaved"
    assert [t.name for t in kernel.grid] == ["t"] and kernel.grid[0].block == "TILE"
    helion_text = (CUTILE / "expected_helion" / PERSISTENT.name).read_text()
    assert 'pid_type="persistent_interleaved"' in helion_text
    cutile_text = (CUTILE / "expected_cutile" / PERSISTENT.name).read_text()
    assert "for t in range(ct.bid(0), ct.cdiv(x.shape[0], TILE), ct.num_blocks(0)):" in cutile_text
    # (a searched launch: the TMA switch of its loads, at the source's tile)
    assert '(min(num_sms, ct.cdiv(x.size(0), cfg["TILE"])), 1, 1)' in cutile_text


def test_a_persistent_launch_runs_fewer_programs_than_tiles(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from translator.dialects.cutile import runner

    use_interpreter()
    grids: list[tuple] = []
    real = runner._check_grid

    def recording(k, grid, values, config):  # noqa: ANN001, ANN202
        grids.append(tuple(grid))
        return real(k, grid, values, config)

    monkeypatch.setattr(runner, "_check_grid", recording)
    module = load_module(CUTILE / "expected_cutile" / PERSISTENT.name, "persistent")
    x, y = torch.randn(8500), torch.randn(8500)
    torch.testing.assert_close(module.persistent_axpy(x, y, 0.5), 0.5 * x + y)
    # 9 tiles of 1024 on the CPU's 4 "SMs" (the search's trials and the launch alike).
    assert set(grids) == {(runner.CPU_SMS, 1, 1)} and runner.CPU_SMS < 9


def test_work_after_a_persistent_loop_is_a_located_diagnostic(tmp_path: Path) -> None:
    text = PERSISTENT.read_text()
    store = "        ct.store(out, index=(t,), tile=ct.astype(alpha * xt + yt, out.dtype))\n"
    assert store in text
    bad = tmp_path / PERSISTENT.name
    bad.write_text(text.replace(store, store + "    ct.store(out, index=(0,), tile=xt)\n"))
    with pytest.raises(TranslationError, match="after a persistent tile loop") as err:
        translate_file(bad, "cutile", "triton")
    assert err.value.loc is not None and err.value.loc.line == 20 and err.value.hint


def test_a_loop_from_a_loaded_offset_reads_a_view_sliced_to_its_rows() -> None:
    # A grouped GEMM's rows of one expert: the loop counts the tiles of a view of the rows
    # `start` to `end`, made inside the loop (an empty last group would start the view at the
    # array's end, out of slice's bounds), and the view reads back as the IR's loop from `start`.
    out = translate_file(ROOT / "examples/library/helion/grouped_gemm.py", "helion", "cutile")
    loop = "    for tile_m in range(ct.cdiv(end - start, BLOCK_SIZE_M)):\n"
    assert loop + "        out_m = out.slice(axis=0, start=start, stop=end)\n" in out
    assert "ct.load(\n                            x_m," in out
    back = translate_source(out, "grouped_cutile.py", "cutile", "triton")
    assert "for start_m in range(start, end, BLOCK_SIZE_M):" in back


def test_a_sliced_loop_tile_on_the_whole_array_is_a_located_diagnostic(tmp_path: Path) -> None:
    text = translate_file(ROOT / "examples/library/helion/grouped_gemm.py", "helion", "cutile")
    bad = tmp_path / "grouped.py"
    assert "ct.store(out_m, index=(tile_m, tile_n)" in text
    bad.write_text(
        text.replace(
            "ct.store(out_m, index=(tile_m, tile_n)", "ct.store(out, index=(tile_m, tile_n)"
        )
    )
    with pytest.raises(TranslationError, match="counts the tiles of rows from an offset") as err:
        translate_file(bad, "cutile", "triton")
    assert err.value.loc is not None and err.value.hint


def test_annotation_aliases_and_one_element_gathers_are_read(tmp_path: Path) -> None:
    # NVIDIA's samples name the constant annotation once (`ConstInt = ct.Constant[int]`) and
    # read one offset with `ct.gather(offsets, e)` (a 0-d tile): the IR's tunable and scalar load.
    module = parse_file(CUTILE / "moe_grouped_gemm.py", "cutile")
    (kernel,) = module.kernels
    assert {t.name for t in kernel.tunables} == {"TM", "TN", "TK"}
    starts = [s for s in kernel.body if isinstance(s, ir.Assign) and s.target in ("start", "end")]
    assert [s.value.index for s in starts] == [
        (ir.ScalarIndex(ir.Name("expert")),),
        (ir.ScalarIndex(ir.BinOp("+", ir.Name("expert"), ir.Const(1))),),
    ]
    masked = (
        (CUTILE / "moe_grouped_gemm.py")
        .read_text()
        .replace(
            "ct.gather(expert_offsets, expert)",
            "ct.gather(expert_offsets, expert, mask=expert < 4)",
        )
    )
    with pytest.raises(TranslationError, match="mask on a one-element ct.gather") as err:
        translate_source(masked, "moe.py", "cutile", "triton")
    assert err.value.loc is not None and err.value.loc.line == 23 and err.value.hint


ROW_ATOMIC = """\
import torch
import triton
import triton.language as tl


@triton.jit
def row_accumulate_kernel(x_ptr, out_ptr, n_cols, stride_x, stride_out, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=0.0)
    tl.atomic_add(out_ptr + row * stride_out + cols, x * 2.0, mask=mask)


def row_accumulate(x: torch.Tensor) -> torch.Tensor:
    out = torch.ones_like(x)
    n_rows, n_cols = x.shape
    row_accumulate_kernel[(n_rows,)](
        x, out, n_cols, x.stride(0), out.stride(0), BLOCK=triton.next_power_of_2(n_cols)
    )
    return out
"""


def test_an_atomic_over_a_whole_row_of_one_program_translates_both_ways(tmp_path: Path) -> None:
    # The row is the program's one index (no lanes, no region dim): an internal error
    # (IndexError) in the cuTile backend, and the cuTile frontend did not read the row's lanes.
    source = tmp_path / "row_accumulate.py"
    source.write_text(ROW_ATOMIC)
    golden = tmp_path / "row_accumulate_cutile.py"
    golden.write_text(translate_file(source, "triton", "cutile"))
    assert "ct.atomic_add(" in golden.read_text()
    report = check_pair(source, golden, dtypes=("float32",), seeds=(0,))
    assert report.rows and report.passed, report.format_text()


def _flat(text: str) -> str:
    """``text`` without whitespace: formatting may wrap a call over lines."""
    return re.sub(r"\s+", "", text)


def test_float_ops_of_narrow_tiles_compute_in_float32_as_the_ir_says() -> None:
    # The IR's exp gives float32 (what the CPU oracle computes); cuTile's ct.exp of an fp16 tile
    # would compute and return fp16, and a softmax's sum would then add fp16 numbers on the
    # GPU only. The translation converts the operand first; a float32 operand stays as it is.
    # Once float32, exp takes Triton's precision (ex2.approx), which cuTile allows on float32 only.
    text = _flat(translate_file(ROOT / "examples/helion/softmax.py", "helion", "cutile"))
    approx = "rounding_mode=ct.RoundingMode.APPROX"
    assert f"ct.exp(ct.astype(softmax_in-softmax_max,ct.float32),{approx})" in text
    text = _flat(translate_file(ROOT / "examples/helion/silu.py", "helion", "cutile"))
    assert f"ct.exp(-x_tile,{approx})" in text  # x_tile is float32 already


def test_float32_division_and_exp_take_the_sources_precision() -> None:
    # Triton's (and so Helion's) fp32 `/` is div.full and tl.exp is ex2.approx; cuTile's `/` and
    # ct.exp default to the IEEE-rounded forms, 15-20 % slower on memory-bound kernels.
    text = _flat(translate_file(ROOT / "examples/triton/softmax.py", "triton", "cutile"))
    assert "ct.truediv(numerator,denominator[:,None],rounding_mode=ct.RoundingMode.FULL)" in text
    assert "ct.exp(row_minus_max,rounding_mode=ct.RoundingMode.APPROX)" in text
    # Division of tiles in the inputs' dtype (fp16 or fp32 at run time) stays `/`: cuTile
    # refuses the FULL rounding mode on fp16 tiles.
    src = (
        "import helion\nimport helion.language as hl\nimport torch\n\n\n"
        "@helion.kernel(config=helion.Config(block_sizes=[64]))\n"
        "def ratio(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:\n"
        "    out = torch.empty_like(x)\n"
        "    for tile in hl.tile(x.size(0)):\n"
        "        out[tile] = x[tile] / y[tile]\n"
        "    return out\n"
    )
    text = translate_source(src, "ratio.py", "helion", "cutile")
    assert "truediv" not in text and " / " in text


def test_cutile_reads_truediv_as_division() -> None:
    src = (
        "import cuda.tile as ct\n\n\n"
        "@ct.kernel\n"
        "def k(x, out, B: ct.Constant[int]):\n"
        "    i = ct.bid(0)\n"
        "    t = ct.astype(ct.load(x, index=(i,), shape=(B,)), ct.float32)\n"
        "    y = ct.truediv(t, 1.0 + t * t, rounding_mode=ct.RoundingMode.FULL)\n"
        "    ct.store(out, index=(i,), tile=ct.astype(y, out.dtype))\n"
    )
    module = parse_source(src, "k.py", "cutile")
    (kernel,) = module.kernels
    assign = next(s for s in kernel.body if isinstance(s, ir.Assign) and s.target == "y")
    assert isinstance(assign.value, ir.BinOp) and assign.value.op == "/"


def test_atomics_are_relaxed_and_row_kernels_search_tma() -> None:
    # The IR's atomics are updates nobody reads back: relaxed order (ACQ_REL fences each lane,
    # 6.6x slower split-K on an H100). Dot operands keep the TMA unit.
    text = translate_file(ROOT / "examples/triton/matmul_splitk.py", "triton", "cutile")
    assert "memory_order=ct.MemoryOrder.RELAXED" in text
    assert "allow_tma" not in text
    # A kernel without dots passes a searched switch to its loads and stores (TMA was 2.6x
    # slower for a softmax row, 10 % faster for an rms norm's): every tile config both ways,
    # without TMA first (the default).
    text = translate_file(ROOT / "examples/triton/softmax.py", "triton", "cutile")
    assert text.count("allow_tma=USE_TMA") == 2  # the row's load and its store
    assert "USE_TMA: ct.Constant[bool]" in text
    space = re.findall(r'\{"ROWS": (\d+), "USE_TMA": (True|False)\}', text)
    assert space[:2] == [("4", "False"), ("4", "True")]
    assert len(space) == 2 * len({rows for rows, _ in space})
    # Read back, the switch is no tunable: the IR holds the row counts once each.
    (kernel,) = parse_source(text, "softmax_cutile.py", "cutile").kernels
    assert [dict(c)["ROWS"] for c in kernel.configs] == [4, 1, 2, 8, 16]


# A grouped tile order: one flat block id mapped to row and column tiles in groups.
GROUPED = CUTILE / "gemm_grouped.py"


def test_a_grouped_tile_order_is_the_2d_grid_with_a_group_size_tunable() -> None:
    (kernel,) = parse_file(GROUPED, "cutile").kernels
    assert [t.name for t in kernel.grid] == ["bid_m", "bid_n"]
    (group,) = [t for t in kernel.tunables if t.kind == "group_size"]
    assert group.default == 4  # the launch's argument, not the frontend's default
    # The statements that only computed the order are gone from the IR body.
    body = repr(kernel.body)
    assert "num_bid_in_group" not in body and "first_bid_m" not in body
    # Every backend writes the order back in its own spelling; cuTile's reads back alike.
    triton_text = (CUTILE / "expected_triton" / GROUPED.name).read_text()
    assert (
        '"GROUP_SIZE_M": 4' in triton_text and "group_id = pid // num_pid_in_group" in triton_text
    )
    helion_text = (CUTILE / "expected_helion" / GROUPED.name).read_text()
    assert "l2_groupings=[4]" in helion_text
    again = parse_file(CUTILE / "expected_cutile" / GROUPED.name, "cutile").kernels[0]
    assert [t.name for t in again.grid] == ["bid_m", "bid_n"]
    assert [(t.kind, t.default) for t in again.tunables] == [
        (t.kind, t.default) for t in kernel.tunables
    ]


def test_a_grouped_order_over_a_group_size_that_is_not_a_constant_is_located(
    tmp_path: Path,
) -> None:
    text = GROUPED.read_text()
    bad = tmp_path / GROUPED.name
    bad.write_text(
        text.replace("    GROUP_SIZE_M: ct.Constant[int],\n", "    GROUP_SIZE_M,\n")
        .replace("    bid = ct.bid(0)\n", "    bid = ct.bid(0)\n    group = GROUP_SIZE_M + 0\n")
        .replace("GROUP_SIZE_M * num_bid_n", "group * num_bid_n")
        .replace("group_id * GROUP_SIZE_M", "group_id * group")
        .replace("first_bid_m, GROUP_SIZE_M)", "first_bid_m, group)")
    )
    with pytest.raises(TranslationError, match="group size .* is not a ct.Constant") as err:
        translate_file(bad, "cutile", "triton")
    assert err.value.loc is not None and err.value.loc.file == str(bad) and err.value.hint


def test_a_grouped_kernel_launched_on_a_2d_grid_is_refused_by_the_oracle(tmp_path: Path) -> None:
    text = GROUPED.read_text()
    flat = "grid = (ct.cdiv(m, 128) * ct.cdiv(n, 128), 1, 1)"
    assert flat in text
    bad = tmp_path / GROUPED.name
    bad.write_text(text.replace(flat, "grid = (ct.cdiv(m, 128), ct.cdiv(n, 128), 1)"))
    use_interpreter()
    module = load_module(bad, "source")
    a, b = torch.randn(200, 70).half(), torch.randn(70, 300).half()
    with pytest.raises(
        RuntimeError, match=r"grouped tile order over 2 x 3 tiles launches \(2, 3, 1\)"
    ):
        module.gemm_grouped(a, b)
    good = load_module(GROUPED, "source")
    torch.testing.assert_close(
        good.gemm_grouped(a, b), (a.float() @ b.float()).half(), atol=1e-2, rtol=1e-2
    )


def test_dot_kernels_search_the_occupancy_hint_as_kernel_variants() -> None:
    text = (ROOT / "examples/triton/expected_cutile/matmul.py").read_text()
    # Occupancy 2 beside each 128x128 (and 64x256) config, right after it; one kernel object
    # per occupancy, made once at module level (replace_hints gives each its own JIT cache).
    assert (
        "MATMUL_KERNEL_BY_OCCUPANCY = {1: matmul_kernel, "
        "2: matmul_kernel.replace_hints(occupancy=2)}" in text
    )
    host = text.split("def matmul(")[1]
    assert 'lambda cfg: MATMUL_KERNEL_BY_OCCUPANCY[cfg.get("occupancy", 1)],' in host
    assert host.count('MATMUL_KERNEL_BY_OCCUPANCY[cfg.get("occupancy", 1)]') == 2
    # Read back: the hint is no tunable of the IR, the tile configs are the translation's own.
    (again,) = parse_file(ROOT / "examples/triton/expected_cutile/matmul.py", "cutile").kernels
    assert all("occupancy" not in dict(c) for c in again.configs)
    assert len(again.configs) == 10
    # Element-wise kernels get no hint.
    assert "replace_hints" not in (ROOT / "examples/helion/expected_cutile/relu.py").read_text()


def test_a_hints_fn_over_config_values_is_read_and_its_keys_dropped(tmp_path: Path) -> None:
    text = (CUTILE / "gemm_autotune.py").read_text()
    assert "quiet=True" in text
    entry = '{"TM": tm, "TN": tn, "TK": tk}'
    assert entry in text
    hinted = text.replace(
        "quiet=True", 'lambda cfg: {"occupancy": cfg["occupancy"]}, quiet=True'
    ).replace(entry, '{"TM": tm, "TN": tn, "TK": tk, "occupancy": 1}')
    bad = tmp_path / "gemm_autotune.py"
    bad.write_text(hinted)
    plain = parse_file(CUTILE / "gemm_autotune.py", "cutile").kernels[0]
    assert parse_file(bad, "cutile").kernels[0].configs == plain.configs
    other = hinted.replace('{"occupancy": cfg["occupancy"]}', "make_hints(cfg)")
    bad.write_text(other)
    with pytest.raises(TranslationError, match="hints_fn other than a dict") as err:
        parse_file(bad, "cutile")
    assert err.value.loc is not None and err.value.hint


def test_tile_sizes_a_launch_passes_by_local_names_are_the_first_config(tmp_path: Path) -> None:
    text = GROUPED.read_text()
    launch = "(a, b, c, 128, 128, 64, 4))"
    assert launch in text
    local = tmp_path / GROUPED.name
    local.write_text(
        text.replace(
            "    grid = (ct.cdiv(m, 128)",
            "    tm, tn, tk = 128, 128, 64\n    group = 4\n    grid = (ct.cdiv(m, 128)",
        ).replace(launch, "(a, b, c, tm, tn, tk, group))")
    )
    (kernel,) = parse_file(local, "cutile").kernels
    assert dict(kernel.configs[0]) == {"TM": 128, "TN": 128, "TK": 64, "group_size": 4}
    # A name bound twice is no constant the frontend can read: the default tile stands.
    twice = text.replace(
        "    grid = (ct.cdiv(m, 128)", "    tm = 128\n    tm = 32\n    grid = (ct.cdiv(m, 128)"
    )
    local.write_text(twice.replace(launch, "(a, b, c, tm, 128, 64, 4))"))
    (kernel,) = parse_file(local, "cutile").kernels
    assert dict(kernel.configs[0])["TM"] == 64 and dict(kernel.configs[0])["TN"] == 128


def test_a_persistent_schedule_the_translation_does_not_keep_is_said() -> None:
    # Triton's persistent matmul walks a 2-D grid of tiles; cuTile's translation launches one
    # block per tile (grouped), and says so where the launch is.
    (kernel,) = parse_file(ROOT / "examples/triton/matmul_persistent.py", "triton").kernels
    assert kernel.hints.schedule == "persistent_interleaved" and len(kernel.grid) == 2
    text = (ROOT / "examples/triton/expected_cutile/matmul_persistent.py").read_text()
    text = re.sub(r"\s*\n\s*#\s*", " ", text)  # comment lines joined
    assert "persistent_interleaved schedule over a 2-D grid is written one block per tile" in text
    # A 1-D persistent source keeps its loop and gets no such note.
    kept = (CUTILE / "expected_cutile" / PERSISTENT.name).read_text()
    assert "is written one block" not in kept


def _swizzle_helper_form(tmp_path: Path, returned: str = "bid_m, bid_n") -> Path:
    """The grouped GEMM example with its order in a ``swizzle_2d`` helper, as cuTile's samples
    write it (the helper returns ``returned``)."""
    text = GROUPED.read_text()
    start = text.index("    bid = ct.bid(0)\n")
    end = text.index("\n\n    acc = ")
    order = text[start:end]
    helper = (
        "@ct.function\ndef swizzle_2d(A, B, TM, TN, GROUP_SIZE_M):\n"
        + order
        + f"\n    return {returned}\n\n\n"
    )
    path = tmp_path / GROUPED.name
    path.write_text(
        text.replace(order, "    bid_m, bid_n = swizzle_2d(A, B, TM, TN, GROUP_SIZE_M)").replace(
            "@ct.kernel\n", helper + "@ct.kernel\n"
        )
    )
    return path


def test_a_grouped_order_in_a_helper_reads_as_the_inline_one(tmp_path: Path) -> None:
    (inline,) = parse_file(GROUPED, "cutile").kernels
    (helper,) = parse_file(_swizzle_helper_form(tmp_path), "cutile").kernels
    assert helper.grid == inline.grid and helper.tunables == inline.tunables
    assert helper.configs == inline.configs and repr(helper.body) == repr(inline.body)
    # The helper is device code: it goes with the kernel, and no other target imports cuTile.
    triton_text = translate_file(tmp_path / GROUPED.name, "cutile", "triton")
    assert "swizzle_2d" not in triton_text and "cuda.tile" not in triton_text
    assert "group_id = pid // num_pid_in_group" in triton_text
    # The helper form runs on the CPU oracle (compiled for sm_90, its IR interpreted).
    use_interpreter()
    module = load_module(tmp_path / GROUPED.name, "helper_form")
    a, b = torch.randn(200, 70).half(), torch.randn(70, 300).half()
    torch.testing.assert_close(
        module.gemm_grouped(a, b), (a.float() @ b.float()).half(), atol=1e-2, rtol=1e-2
    )


def test_a_tuple_returning_helper_is_a_located_diagnostic_that_says_what_to_write(
    tmp_path: Path,
) -> None:
    # Two values that are no grouped order of tiles: not read, and the help says what to write.
    bad = _swizzle_helper_form(tmp_path, returned="bid_m + 1, bid_n")
    with pytest.raises(TranslationError, match="only `name = value` assignments") as err:
        parse_file(bad, "cutile")
    assert err.value.loc is not None and err.value.loc.file == str(bad)
    assert "swizzle_2d helper's assignments" in err.value.hint


def test_a_local_the_grouped_order_shares_with_the_kernel_stays(tmp_path: Path) -> None:
    # `rows` sizes the order's row tiles and is read again after the loop: its assignment must
    # stay in the kernel (only what the order alone reads goes with it).
    text = GROUPED.read_text()
    store = "    ct.store(C, index=(bid_m, bid_n), tile=ct.astype(acc, C.dtype))\n"
    count = "    num_bid_m = ct.cdiv(A.shape[0], TM)\n"
    assert store in text and count in text
    shared = tmp_path / GROUPED.name
    shared.write_text(
        text.replace(count, "    rows = A.shape[0]\n    num_bid_m = ct.cdiv(rows, TM)\n").replace(
            store, "    acc = acc * (rows - rows + 1)\n" + store
        )
    )
    (kernel,) = parse_file(shared, "cutile").kernels
    assert [t.name for t in kernel.grid] == ["bid_m", "bid_n"]
    body = repr(kernel.body)
    assert "'rows'" in body and "num_bid_in_group" not in body
    use_interpreter()
    module = load_module(shared, "shared_local")
    a, b = torch.randn(200, 70).half(), torch.randn(70, 300).half()
    torch.testing.assert_close(
        module.gemm_grouped(a, b), (a.float() @ b.float()).half(), atol=1e-2, rtol=1e-2
    )


def test_a_tile_size_read_as_a_number_and_module_numbers_are_read(tmp_path: Path) -> None:
    # A `ct.Constant[int]` tile size the body also reads as a number (`t / TILE`), and a module
    # constant computed from math (`INV_LOG_2 = 1.0 / math.log(2)`): cuTile folds both in.
    import math

    from translator.ir.visit import kernel_exprs

    src = tmp_path / "scale.py"
    src.write_text(
        "import math\n\nimport cuda.tile as ct\nimport torch\n\nINV_LOG_2 = 1.0 / math.log(2)\n\n\n"
        "@ct.kernel\ndef scale_kernel(x, o, TILE: ct.Constant[int]):\n"
        "    b = ct.bid(0)\n"
        "    t = ct.load(x, index=(b,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)\n"
        "    ct.store(o, index=(b,), tile=t / TILE * INV_LOG_2)\n\n\n"
        "def scale(x: torch.Tensor) -> torch.Tensor:\n"
        "    o = torch.empty_like(x)\n"
        "    grid = (ct.cdiv(x.shape[0], 128), 1, 1)\n"
        "    ct.launch(torch.cuda.current_stream(), grid, scale_kernel, (x, o, 128))\n"
        "    return o\n"
    )
    module = parse_file(src, "cutile")
    (kernel,) = module.kernels
    consts = [e for e in kernel_exprs(kernel) if isinstance(e, ir.Const)]
    assert any(
        abs(c.value - 1.0 / math.log(2)) < 1e-12 for c in consts if isinstance(c.value, float)
    )
    out = tmp_path / "scale_triton.py"
    out.write_text(translate_file(src, "cutile", "triton"))
    assert "/ TILE" in out.read_text(), out.read_text()


KEEPDIMS_LOCAL = """\
import cuda.tile as ct
import torch


@ct.kernel
def centre_kernel(x, out, TILE_M: ct.Constant[int], TILE_N: ct.Constant[int]):
    bid = ct.bid(0)
    keep = True
    t = ct.load(x, index=(bid, 0), shape=(TILE_M, TILE_N), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(bid, 0), tile=t - ct.sum(t, axis=1, keepdims=keep))


def centre(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    tile_n = 1 << (x.shape[1] - 1).bit_length()
    grid = (ct.cdiv(x.shape[0], 4), 1, 1)
    ct.launch(torch.cuda.current_stream(), grid, centre_kernel, (x, out, 4, tile_n))
    return out
"""


def test_a_keepdims_flag_bound_to_a_local_is_read_as_its_value(tmp_path: Path) -> None:
    # `keepdims=keep` was read as False (only the literal `True` counted): the row sums became
    # a [TILE_M] tile that broadcast along the columns.
    source = tmp_path / "centre.py"
    source.write_text(KEEPDIMS_LOCAL)
    (kernel,) = parse_file(source, "cutile").kernels
    (reduce,) = [e for e in all_exprs(kernel.body) if isinstance(e, ir.Reduce)]
    assert reduce.keepdim
    use_interpreter()
    module = load_module(source, "centre")
    x = torch.randn(16, 16)  # square: a wrong broadcast would not fail on shapes
    torch.testing.assert_close(module.centre(x), x - x.sum(1, keepdim=True))
    # A flag whose value is not a constant is a located diagnostic, not False.
    varying = KEEPDIMS_LOCAL.replace("keep = True", "keep = bid > 0")
    with pytest.raises(TranslationError, match="keepdims=keep") as err:
        translate_source(varying, "centre.py", "cutile", "triton")
    assert err.value.loc is not None and err.value.loc.line == 10 and err.value.hint


def test_an_axis_less_arg_reduction_of_a_2d_tile_is_a_located_diagnostic() -> None:
    # ct.argmax(x) indexes the flattened tile; reduced dim by dim it would be the argmax of the
    # first step's indices (0 for a (1, TILE) row).
    text = (CUTILE / "softmax_exp2.py").read_text()
    reduction = "den = ct.sum(num)"
    assert reduction in text
    bad = text.replace(reduction, "den = ct.astype(ct.argmax(num), ct.float32)")
    with pytest.raises(TranslationError, match="ct.argmax` without an axis of a 2-d tile") as err:
        translate_source(bad, "softmax_exp2.py", "cutile", "triton")
    assert err.value.loc is not None and err.value.loc.line == 19 and err.value.hint


# --------------------------------------------------------------------------------------------------
# TileGym's element-wise style: element offsets, ct.gather/ct.scatter, ct.Constant scalars

ELEMENTWISE = ROOT / "tests" / "data" / "cutile_elementwise.py"


def _elementwise_inputs(entry: str, device: str, dtype: str) -> tuple:
    """Ragged inputs: 1073 elements in tiles of 256, rows of 40 of a 64-lane tile."""
    d = getattr(torch, dtype)

    def randn(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, dtype=d, device=device)

    return {
        "leaky_scale": lambda: (randn(37, 29), 0.2),
        "gated_rows": lambda: (randn(13, 80),),
        "row_affine": lambda: (randn(9, 64), randn(64), randn(64), 1e-3),
        "hashed_keep": lambda: (randn(1073), 12345, 0.3),
    }[entry]()


def test_element_offsets_gather_and_scatter_read_as_tile_accesses() -> None:
    # `pid * BLOCK + ct.arange(BLOCK)` through locals is tile `pid`'s lanes: its gather is a tile
    # load padded with padding_value, its scatter a tile store; a block id a gather indexes by
    # itself is one row per program, and `ct.arange(TILE)` of a row the whole dim it is stored to.
    module = parse_file(ELEMENTWISE, "cutile")
    leaky, gated, affine, hashed = module.kernels
    (pid,) = leaky.grid
    assert (pid.name, pid.extent, pid.block) == ("pid", ir.SizeOf("x", 0), "BLOCK_SIZE")
    loads = [e for e in kernel_exprs(leaky) if isinstance(e, ir.Load)]
    assert [(e.tensor, e.index, e.other) for e in loads] == [("x", (ir.TileIndex("pid"),), 0.0)]
    (store,) = [s for s in walk_stmts(leaky.body) if isinstance(s, ir.Store)]
    assert store.index == (ir.TileIndex("pid"),)
    assert [(p.name, p.kind) for p in leaky.params] == [
        ("x", "tensor"),
        ("y", "tensor"),
        ("ALPHA", "float"),
    ]
    (row,) = gated.grid  # `row = bid` is the block id under another name
    assert row.scalar and row.extent == ir.SizeOf("x", 0)
    gate, up = [e for e in kernel_exprs(gated) if isinstance(e, ir.Load)]
    # `cols` covers out's dim 1 (where it is stored); x is read there, in bounds.
    assert gate.index[1] == ir.GatherIndex(ir.Name("cols")) and gate.mask is not None
    assert "cols" in repr(up.index[1]) and "HIDDEN" in repr(up.index[1]) and up.mask is not None
    (out,) = [s for s in walk_stmts(gated.body) if isinstance(s, ir.Store)]
    assert out.index == (ir.ScalarIndex(ir.Name("bid")), ir.FullIndex(ir.SizeOf("out", 1)))
    assert "TILE" in {p.name for p in affine.params}
    # ct.Constant scalars the body reads are compile-time parameters of their kinds.
    assert {(p.name, p.kind, p.constexpr) for p in hashed.params if p.kind != "tensor"} == {
        ("P", "float", True),
        ("SEED", "int", True),
        ("TRAINING", "bool", True),
    }


def test_the_elementwise_style_computes_what_torch_does() -> None:
    # The oracle's reading of the source against torch itself: a frontend that padded the
    # shifted gather or dropped the tail tile would fail here before any translation runs.
    use_interpreter()
    module = load_module(ELEMENTWISE, "elementwise_source")
    x = torch.randn(37, 29)
    torch.testing.assert_close(module.leaky_scale(x, 0.2), torch.where(x > 0, x, 0.2 * x))
    x = torch.randn(13, 80)
    a, b = x.chunk(2, -1)
    torch.testing.assert_close(module.gated_rows(x), a * torch.exp(-torch.relu(a)) * b)
    x, w, bias = torch.randn(9, 64), torch.randn(64), torch.randn(64)
    want = (x - x.mean(-1, keepdim=True)) * w + bias + 1e-3
    torch.testing.assert_close(module.row_affine(x, w, bias, 1e-3), want, rtol=1e-5, atol=1e-5)
    # The hash in int32, wrapping as cuTile's does; `if TRAINING:` on a ct.Constant[bool].
    x = torch.randn(1073)
    offsets = torch.arange(1073, dtype=torch.int32)
    combined = offsets * 1103515245 + 12345
    hashed = ((combined ^ (combined * 747796405)) & 0x7FFFFF00) | 0x55
    keep = hashed.float() / 2147483647.0 > 0.3
    assert 0 < int(keep.sum()) < 1073
    want = torch.where(keep, x * (1.0 / (1.0 - 0.3)), torch.zeros_like(x))
    torch.testing.assert_close(module.hashed_keep(x, 12345, 0.3), want)


@pytest.mark.parametrize("target", ["triton", "helion", "tilelang"])
def test_the_elementwise_style_translates_and_matches_on_cpu(target: str, tmp_path: Path) -> None:
    # TileLang too: the gathers TileGym masks by bounds (`ct.gather(x, (row, cols + HIDDEN))`,
    # a load predicate in the IR) are element loops that read where the predicate holds.
    translated = tmp_path / f"elementwise_{target}.py"
    translated.write_text(translate_file(ELEMENTWISE, "cutile", target))
    report = check_pair(
        ELEMENTWISE,
        translated,
        src_dsl="cutile",
        dtypes=("float32", "float16"),
        seeds=(0,),
        inputs=_elementwise_inputs,
    )
    assert report.rows and report.passed, report.format_text()


GENERIC_LAUNCHER = ROOT / "tests" / "data" / "cutile_generic_launcher.py"


@pytest.mark.parametrize("target", ["triton", "helion"])
def test_a_launcher_generic_over_its_kernel_is_read_at_its_calls(
    target: str, tmp_path: Path
) -> None:
    # TileGym's `_launch_silu_kernel(kernel, args, grid, key)`: each call names the kernel and
    # builds its argument tuple, so each call is the launch; the launcher (a cuTile occupancy
    # search and ct.launch) goes.
    text = translate_file(GENERIC_LAUNCHER, "cutile", target)
    assert "_launch_tuned" not in text and "exhaustive_search" not in text
    assert "ct.launch" not in text
    translated = tmp_path / f"launcher_{target}.py"
    translated.write_text(text)
    report = check_pair(
        GENERIC_LAUNCHER,
        translated,
        src_dsl="cutile",
        dtypes=("float32",),
        seeds=(0,),
        inputs=lambda entry, device, dtype: (torch.randn(3001, dtype=getattr(torch, dtype)),),
    )
    assert report.rows and report.passed, report.format_text()


def test_a_launcher_call_it_cannot_follow_is_a_located_diagnostic() -> None:
    text = GENERIC_LAUNCHER.read_text().replace(
        "    _launch_tuned(_square_kernel, args,",
        "    kernel = _square_kernel\n    _launch_tuned(kernel, args,",
    )
    with pytest.raises(TranslationError, match="call of the launcher `_launch_tuned`") as err:
        translate_source(text, "launcher.py", "cutile", "triton")
    assert err.value.loc is not None and err.value.loc.line == 50 and err.value.hint
    # A launch of a kernel the function's parameters do not all give stays refused, and says
    # what it launches.
    local = GENERIC_LAUNCHER.read_text().replace(
        "ct.launch(stream, grid, tuned_kernel, args)",
        "ct.launch(stream, (1,), tuned_kernel, args)",
    )
    with pytest.raises(TranslationError) as err:
        translate_source(local, "launcher.py", "cutile", "triton")
    assert "bound from its parameter `kernel`" in str(err.value)
    assert "only a launch of a @ct.kernel" in str(err.value)
    assert err.value.loc is not None and err.value.loc.line == 43


_LAUNCH_LINE = "    ct.launch(stream, grid, tuned_kernel, args)\n"


@pytest.mark.parametrize(
    ("edit", "line", "what"),
    [
        # The review's repro: each of these was deleted with the launcher (3*x^2 became x^2).
        (_LAUNCH_LINE, 43, None),
        (_LAUNCH_LINE.replace("ct.launch", "grid = (grid[0] * 2,)\n    ct.launch"), 43, "`grid`"),
        (_LAUNCH_LINE.replace("ct.launch", "args[1].fill_(1.0)\n    ct.launch"), 43, "`args`"),
        (_LAUNCH_LINE + "    args[1].mul_(3.0)\n", 44, "`args`"),
        (_LAUNCH_LINE + "    print(cache_key)\n", 44, "after its launch"),
        (_LAUNCH_LINE.replace("ct.launch", "print(cache_key)\n    ct.launch"), 43, "not read"),
        (_LAUNCH_LINE.replace("ct.launch", "args = args[:2]\n    ct.launch"), 43, "`args`"),
        (_LAUNCH_LINE.replace("ct.launch", "kernel = None\n    ct.launch"), 43, "`kernel`"),
    ],
)
def test_a_launcher_doing_more_than_its_launch_is_a_located_diagnostic(
    edit: str, line: int, what: str | None
) -> None:
    # The launcher goes (its calls become the target's launches), so a statement of it other
    # than the stream, the kernel's search/cache and the launch would be lost: refused, located.
    text = GENERIC_LAUNCHER.read_text()
    assert _LAUNCH_LINE in text
    text = text.replace(_LAUNCH_LINE, edit)
    if what is None:  # the unedited launcher still translates
        assert "_launch_tuned" not in translate_source(text, "launcher.py", "cutile", "triton")
        return
    with pytest.raises(TranslationError, match="launcher `_launch_tuned`") as err:
        translate_source(text, "launcher.py", "cutile", "triton")
    assert what in str(err.value) and err.value.hint
    assert err.value.loc is not None and err.value.loc.line == line


def test_launch_arguments_in_a_variable_are_a_located_diagnostic() -> None:
    text = GENERIC_LAUNCHER.read_text().replace(
        "ct.launch(stream, grid, tuned_kernel, args)",
        "ct.launch(stream, grid, _square_kernel, args)",
    )
    with pytest.raises(TranslationError, match="arguments `args` are not a literal tuple") as err:
        translate_source(text, "launcher.py", "cutile", "triton")
    assert err.value.loc is not None and err.value.loc.line == 43 and err.value.hint


def test_what_the_elementwise_reading_cannot_prove_is_located() -> None:
    text = ELEMENTWISE.read_text()
    # A reduction over a gather at `cols + HIDDEN`: cuTile's lanes past out's row hold x's
    # data there, the IR's the padding.
    summed = text.replace(
        "    result = gate * ct.exp(",
        "    up = up - ct.max(up, axis=0)\n    result = gate * ct.exp(",
    )
    assert summed != text
    with pytest.raises(TranslationError, match="reduction reads the lanes of this ct.gather"):
        translate_source(summed, "elementwise.py", "cutile", "triton")
    # A bit cast has no IR form (a shift does now: the IR's `>>`).
    shifted = text.replace(
        "x_f32 = x_tile.astype(ct.float32)",
        "x_f32 = ct.astype(ct.bitwise_rshift(offsets, 1), ct.float32)",
    )
    assert "offsets >> 1" in translate_source(shifted, "elementwise.py", "cutile", "triton")
    cast = text.replace(
        "x_f32 = x_tile.astype(ct.float32)", "x_f32 = ct.bitcast(offsets, ct.float32)"
    )
    with pytest.raises(TranslationError, match="bitcast` is not supported") as err:
        translate_source(cast, "elementwise.py", "cutile", "triton")
    assert err.value.hint
    # A block id no access reads: the help names the tile and element forms, not split-K.
    unread = text.replace(
        "    offsets = ct.arange(BLOCK_SIZE, dtype=ct.int32) + block_start",
        "    offsets = ct.arange(BLOCK_SIZE, dtype=ct.int32)",
    )
    with pytest.raises(TranslationError, match="`pid = ct.bid\\(0\\)` indexes no tile") as err:
        translate_source(unread, "elementwise.py", "cutile", "triton")
    assert "ct.arange(TILE" in (err.value.hint or "") and "SPLIT_K" not in (err.value.hint or "")


SCRIPT = ROOT / "tests" / "data" / "cutile_script_softmax.py"


@pytest.mark.parametrize("target", ["triton", "helion"])
def test_a_launch_at_module_level_is_rewritten(
    target: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # cutile-examples launch at module level (or under `if __name__ == "__main__":`): that
    # launch is a site like a host function's, else the translation would keep a ct.launch of
    # a kernel that is no longer cuTile's.
    import triton

    autotune = triton.autotune
    # The script launches while it loads, before validation could pin a config: the CPU
    # interpreter cannot time the warp counts Triton's translation searches, so it gets one.
    monkeypatch.setattr(triton, "autotune", lambda configs, **kw: autotune(configs[:1], **kw))
    use_interpreter()
    source = load_module(SCRIPT, "script_softmax_source")
    torch.testing.assert_close(source.y, torch.softmax(source.x, dim=-1))
    translated = tmp_path / f"script_softmax_{target}.py"
    text = translate_file(SCRIPT, "cutile", target)
    assert "ct.launch" not in text
    translated.write_text(text)
    module = load_module(translated, f"script_softmax_{target}")
    torch.testing.assert_close(module.y, torch.softmax(module.x, dim=-1))


def test_a_gather_at_shifted_tile_lanes_pads_past_the_array(tmp_path: Path) -> None:
    # `ct.gather(x, offsets + 1)`: the last valid lane reads past the array, which cuTile's
    # bounds check pads; a scatter there would write past it, which the IR's store cannot skip.
    text = ELEMENTWISE.read_text()
    shifted = tmp_path / "shifted.py"
    shifted.write_text(
        text.replace("ct.gather(x, offsets, padding_value=0)", "ct.gather(x, offsets + 1)")
    )
    use_interpreter()
    module = load_module(shifted, "shifted_source")
    x = torch.randn(37, 29)
    flat = torch.cat([x.reshape(-1)[1:], torch.zeros(1)]).reshape(37, 29)
    torch.testing.assert_close(module.leaky_scale(x, 0.2), torch.where(flat > 0, flat, 0.2 * flat))
    translated = tmp_path / "shifted_triton.py"
    translated.write_text(translate_file(shifted, "cutile", "triton"))
    report = check_pair(
        shifted,
        translated,
        src_dsl="cutile",
        dtypes=("float32",),
        seeds=(0,),
        inputs=_elementwise_inputs,
    )
    assert report.rows and report.passed, report.format_text()
    scattered = text.replace("ct.scatter(y, offsets,", "ct.scatter(y, offsets + 1,")
    with pytest.raises(TranslationError, match="ct.scatter at lanes computed otherwise") as err:
        translate_source(scattered, "elementwise.py", "cutile", "triton")
    assert err.value.loc is not None and err.value.loc.line == 20 and err.value.hint


_ROUNDING_KERNEL = """import cuda.tile as ct

ConstInt = ct.Constant[int]


@ct.kernel
def _half_kernel(x, y, TILE: ConstInt):
    bid = ct.bid(0)
    offsets = bid * TILE + ct.arange(TILE, dtype=ct.int32)
    t = ct.gather(x, offsets)
    ct.scatter(y, offsets, CAST)


def half(x):
    y = x.new_empty(x.shape, dtype=x.dtype)
    ct.launch(None, (ct.cdiv(x.numel(), 1024),), _half_kernel, (x, y, 1024))
    return y
"""


@pytest.mark.parametrize("form", ["ct.astype(t, ct.float16{})", "t.astype(ct.float16{})"])
@pytest.mark.parametrize("mode", ["RZ", "RM", "RP", "RA"])
def test_an_astype_rounding_mode_other_than_nearest_is_a_located_diagnostic(
    form: str, mode: str
) -> None:
    # The IR cast rounds to nearest even: `rounding_mode=ct.RoundingMode.RZ` was dropped
    # (truncation became rounding). Refused at the keyword.
    cast = form.format(f", rounding_mode=ct.RoundingMode.{mode}")
    text = _ROUNDING_KERNEL.replace("CAST", cast)
    with pytest.raises(TranslationError, match=f"rounding_mode=ct.RoundingMode.{mode}") as err:
        translate_source(text, "rounding.py", "cutile", "triton")
    assert err.value.loc is not None and err.value.loc.line == 11 and err.value.hint
    col = text.splitlines()[10].index("rounding_mode")  # 0-based
    assert err.value.loc.col == col


@pytest.mark.parametrize("form", ["ct.astype(t, ct.float16{})", "t.astype(ct.float16{})"])
def test_an_astype_rounding_to_nearest_reads_as_the_default_cast(form: str) -> None:
    default = translate_source(
        _ROUNDING_KERNEL.replace("CAST", form.format("")), "r.py", "cutile", "triton"
    )
    for mode in ("ct.RoundingMode.RN", "None"):
        text = _ROUNDING_KERNEL.replace("CAST", form.format(f", rounding_mode={mode}"))
        got = translate_source(text, "r.py", "cutile", "triton")
        # The same code (the header names the source's hash, which differs).
        assert _no_hash(got) == _no_hash(default) and "rz" not in got.lower()


def _no_hash(text: str) -> str:
    return re.sub(r"sha256 [0-9a-f]+", "", text)


_SHIFT_KERNEL = """import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def _shift_kernel(x, y, TILE: ConstInt):
    bid = ct.bid(0)
    offsets = bid * TILE + ct.arange(TILE, dtype=ct.int32)
    t = ct.gather(x, offsets)
    ct.scatter(y, offsets, SHIFTED)


def shift(x: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.numel(), 256),), _shift_kernel, (x, y, 256))
    return y
"""


@pytest.mark.parametrize(
    "shifted",
    [
        "ct.bitwise_xor(ct.bitwise_rshift(t, 3), ct.bitwise_lshift(t, 2))",
        "(t >> 3) ^ (t << 2)",
    ],
)
@pytest.mark.parametrize("target", ["triton", "helion"])
def test_bit_shift_calls_read_as_the_shift_operators(
    shifted: str, target: str, tmp_path: Path
) -> None:
    # ct.bitwise_rshift/lshift are cuTile's `>>`/`<<` (arithmetic on signed integers, as the
    # IR's `>>`): they were refused as having no IR op. Negative inputs check the sign shift.
    source = tmp_path / "shift.py"
    source.write_text(_SHIFT_KERNEL.replace("SHIFTED", shifted))
    text = translate_file(source, "cutile", target)
    assert ">> 3" in text and "<< 2" in text
    translated = tmp_path / f"shift_{target}.py"
    translated.write_text(text)
    report = check_pair(
        source,
        translated,
        src_dsl="cutile",
        dtypes=("float32",),  # a size class only: the input is int32 whatever it says
        seeds=(0,),
        inputs=lambda entry, device, dtype: (
            torch.randint(-(2**20), 2**20, (1000,), dtype=torch.int32, device=device),
        ),
    )
    assert report.rows and report.passed, report.format_text()


# --------------------------------------------------------------------------------------------------
# One-element loads and a module-level compiler-hint variant (Liger's cuTile DyT style)

SCALAR_LOAD = ROOT / "tests" / "data" / "cutile_scalar_load.py"


def _scalar_load_inputs(entry: str, device: str, dtype: str) -> tuple:
    d = getattr(torch, dtype)
    return (torch.randn(2500, dtype=d, device=device), torch.rand(1, dtype=d, device=device) + 0.5)


def test_a_one_element_load_is_a_scalar_and_a_hint_variant_launches_its_kernel(
    tmp_path: Path,
) -> None:
    module = parse_file(SCALAR_LOAD, "cutile")
    (kernel,) = module.kernels
    scalar = [e for e in kernel_exprs(kernel) if isinstance(e, ir.Load) and e.tensor == "alpha"]
    assert [e.index for e in scalar] == [(ir.ScalarIndex(ir.Const(0)),)]
    translated = tmp_path / "scalar_load_triton.py"
    text = translate_file(SCALAR_LOAD, "cutile", "triton")
    assert "tl.load(alpha_ptr)" in text and "replace_hints" not in text
    translated.write_text(text)
    report = check_pair(
        SCALAR_LOAD,
        translated,
        src_dsl="cutile",
        dtypes=("float32", "float16"),
        seeds=(0,),
        inputs=_scalar_load_inputs,
    )
    assert report.rows and report.passed, report.format_text()


# --------------------------------------------------------------------------------------------------
# Gathers and scatters mixed with tile and whole-dim indices, loads masked by data

GATHERS = ROOT / "tests" / "data" / "helion_gathers.py"


def test_gathers_scatters_and_data_masks_become_ct_gather_and_ct_scatter(tmp_path: Path) -> None:
    """Each index of a gather or scatter is spread over its own axes (`ids[:, None]`, the
    column tile's lanes `[None, :]`), the lanes past the tiles are masked, and a predicate on
    data joins the mask; the oracle reads the translation back and runs it against Helion."""
    from test_tilelang_backend import gather_inputs

    text = translate_file(GATHERS.relative_to(ROOT), "helion", "cutile")
    # scaled_lookup: the ids' tile down the rows, the column tile's lanes (named once, as its
    # mask is) across.
    assert "lanes_d = tile_d * BLOCK_SIZE_D + ct.arange(BLOCK_SIZE_D, dtype=ct.int32)" in text
    assert ")[:, None],\n                lanes_d[None, :],\n" in text, text
    assert "mask=mask_b[:, None] & mask_d[None, :]," in text, text
    # permute_rows writes through its index; keep_prefix's load is masked by the lengths.
    assert text.count("ct.scatter(") == 1 and text.count("ct.gather(") == 3, text
    assert "(lanes_m[:, None], lanes_n[None, :]),\n" in text, text
    assert "mask=mask_m[:, None] & mask_n[None, :] & inside," in text, text
    assert text.count("check_bounds=False") == 4, text
    translated = tmp_path / "helion_gathers_cutile.py"
    translated.write_text(text)
    report = check_pair(GATHERS, translated, src_dsl="helion", seeds=(0,), inputs=gather_inputs)
    assert {row.entry for row in report.rows} == {
        "scaled_lookup",
        "target_margin",
        "permute_rows",
        "keep_prefix",
        "zero_dropped_rows",
    }
    assert report.passed, report.format_text()


_MASKED_SCATTER = """import cuda.tile as ct
import torch


@ct.kernel
def keep_kernel(x, y, n: int, TILE: ct.Constant[int]):
    bid = ct.bid(0)
    lanes = bid * TILE + ct.arange(TILE, dtype=ct.int32)
    vals = ct.gather(x, lanes)
    ct.scatter(y, lanes, vals, mask=vals > 0)


def keep(x: torch.Tensor) -> torch.Tensor:
    y = torch.zeros_like(x)
    n = x.shape[0]
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(n, 128), 1, 1), keep_kernel, (x, y, n, 128))
    return y
"""


def test_a_scatter_masked_by_data_is_a_located_refusal() -> None:
    # The IR's stores mask only lanes past their tiles: `mask=vals > 0` has no form there.
    with pytest.raises(TranslationError, match="ct.scatter mask other than") as err:
        translate_source(_MASKED_SCATTER, "keep.py", "cutile", "triton")
    assert err.value.loc is not None and err.value.loc.line == 10 and err.value.hint


def test_the_masked_permutation_runs_as_tilelang_element_loops() -> None:
    # examples/cutile/gather_scatter.py into TileLang: `x[where_from[i]]` read and
    # `out[where_from[i]]` written under the lanes' guard, against cuTile's oracle.
    golden = ROOT / "examples" / "cutile" / "expected_tilelang" / "gather_scatter.py"
    text = golden.read_text()
    assert "x[where_from[i]]" in text and "out[where_from[i]] = " in text, text
    report = check_pair(
        ROOT / "examples" / "cutile" / "gather_scatter.py",
        golden,
        src_dsl="cutile",
        dtypes=("float32", "float16"),
        seeds=(0,),
        inputs=_cutile_inputs,
    )
    assert report.rows and report.passed, report.format_text()
