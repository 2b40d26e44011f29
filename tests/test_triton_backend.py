"""Triton backend behaviour beyond the examples' goldens."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from translator.api import translate_file, translate_source
from translator.diagnostics import TranslationError
from translator.grammar import load_grammar
from validation.equivalence import check_pair

DATA = Path(__file__).resolve().parent / "data"
HELION = Path(__file__).resolve().parent.parent / "examples" / "helion"


def test_kernels_without_configs_get_a_hopper_autotune_space() -> None:
    # The spaces by role are tested in test_tuning_space.py; here: both kernels of one module.
    text = translate_file(DATA / "helion_no_config.py", "helion", "triton")
    row_kernel, dot_kernel = text.split("def _rowmax_kernel")[0], text.split("def _mm_kernel")[0]
    rows = load_grammar("triton")["backend"]["default_space"]["rows"]["configs"]
    dots = load_grammar("triton")["backend"]["default_space"]["dot"]["configs"]
    assert row_kernel.count("triton.Config(") == len(rows)
    assert dot_kernel.count("triton.Config(") - row_kernel.count("triton.Config(") == len(dots)
    assert '"BLOCK_SIZE_K": 64' in dot_kernel
    assert 'key=["m", "k", "n"]' in dot_kernel


def test_row_max_min_and_dot_without_configs_are_equivalent(tmp_path: Path) -> None:
    # Helion cannot autotune under the CPU interpreter, so the source gets fixed configs here.
    source = tmp_path / "source.py"
    source.write_text(
        (DATA / "helion_no_config.py")
        .read_text()
        .replace(
            "@helion.kernel()\ndef rowmax",
            "@helion.kernel(config=helion.Config(block_sizes=[2]))\ndef rowmax",
        )
        .replace(
            "@helion.kernel()\ndef mm",
            "@helion.kernel(config=helion.Config(block_sizes=[16, 16, 16]))\ndef mm",
        )
    )
    text = translate_file(source, "helion", "triton")
    # amax and amin over the whole row are masked reductions.
    assert 'tl.max(tl.where(mask_n[None, :], x, float("-inf")), axis=1)' in text
    translated = tmp_path / "translated.py"
    translated.write_text(text)
    report = check_pair(source, translated, dtypes=("float32",), seeds=(0,))
    assert report.passed, report.format_text()


def _stages(text: str) -> list[int]:
    return [int(v) for v in re.findall(r"num_stages=(\d+)", text)]


@pytest.mark.parametrize(("stages", "emitted"), [(4, 3), (2, 1), (1, 1)])
def test_batched_dot_in_a_loop_keeps_the_sources_shared_memory(stages: int, emitted: int) -> None:
    # bmm's [1, BM, BK] x [1, BK, BN] dot becomes a 2-D tl.dot, which buffers both operands
    # at every stage: one stage less keeps the source's shared memory per CTA.
    source = (HELION / "bmm.py").read_text().replace("num_stages=4", f"num_stages={stages}")
    text = translate_source(source, "bmm.py", "helion", "triton")
    assert _stages(text) == [emitted]
    assert ("tiletrans: num_stages" in text) == (stages != emitted)


def test_dots_with_an_operand_from_outside_the_loop_keep_their_stages() -> None:
    # attention's q is loaded once per program and p is computed: no stage is saved.
    text = translate_file(HELION / "attention.py", "helion", "triton")
    assert _stages(text) == [3]
    assert "tiletrans: num_stages" not in text


def test_refuses_a_host_op_in_device_code_that_triton_cannot_spell():
    from translator.diagnostics import TranslationError

    # An atomic in the heuristic's unmasked branch keeps the branches apart, so the branch test
    # `M % min(next_power_of_2(M), 32) == 0` stays in the kernel, where Triton has no
    # next_power_of_2: a diagnostic at the launch, not a KeyError.
    root = Path(__file__).resolve().parents[1]
    text = (
        (root / "examples" / "triton" / "heuristics.py")
        .read_text()
        .replace("tl.store(out_ptrs, out)\n", "tl.atomic_add(out_ptrs, out)\n", 1)
    )
    with pytest.raises(TranslationError) as info:
        translate_source(text, "heuristics.py", "triton", "triton")
    assert "`next_power_of_2` has no Triton device spelling" in info.value.message
    assert info.value.loc is not None and "compute `next_power_of_2(...)` on the host" in (
        info.value.hint or ""
    )


def test_log1p_of_small_values_is_exact(tmp_path: Path) -> None:
    # `tl.log(1.0 + x)` rounds 1 + 1e-6 * x first and kept 2.7-3.6 % relative error here, which
    # failed validation; libdevice's log1p is exact, and the module imports libdevice for it.
    text = translate_file(DATA / "helion_log1p.py", "helion", "triton")
    assert "from triton.language.extra import libdevice" in text
    assert "libdevice.log1p(" in text and "tl.log(1.0 +" not in text
    translated = tmp_path / "translated.py"
    translated.write_text(text)
    report = check_pair(str(DATA / "helion_log1p.py"), translated, seeds=(0,))
    assert report.passed, report.format_text()


def test_tile_transpose_like_and_squeeze_translate(tmp_path: Path) -> None:
    # `.T`, `torch.zeros_like(tile)`, `.squeeze(d)`, `.contiguous()` of a tile, a reduction of
    # a whole tile without `dim=` and `hl.register_block_size(lo, hi)` in Helion code were refused.
    source = DATA / "helion_tile_methods.py"
    text = translate_file(source, "helion", "triton")
    assert "tl.trans(" in text and "tl.zeros((" in text and "tl.reshape(" in text
    _assert_equivalent(source, text, tmp_path)


_VAR_MEAN_REFERENCE = """
import torch


def normalize(x, eps):
    row = x.float()
    var, mean = torch.var_mean(row, dim=-1, keepdim=True, correction=0)
    return ((row - mean) * torch.rsqrt(var + eps)).to(x.dtype)


def row_stats(x):
    var, mean = torch.var_mean(x.float(), dim=1)
    return var, mean


def rebound(x):
    var, mean = torch.var_mean(x.float(), dim=-1, keepdim=True)
    return (var * 2.0 + mean).expand(x.shape).contiguous()
"""


def test_var_mean_over_a_ragged_row_is_torch_s(tmp_path: Path) -> None:
    # Helion's layer-norm example opens with `torch.var_mean(..., correction=0)`. The
    # translation is checked against torch itself at a ragged row (37 of 64 lanes): Helion
    # 1.5.1 counts the padded lanes' deviations there (1-1.5 % off torch at n=37, exact at 64).
    text = translate_file(DATA / "helion_var_mean.py", "helion", "triton")
    translated = tmp_path / "var_mean_triton.py"
    translated.write_text(text)
    reference = tmp_path / "var_mean_torch.py"
    reference.write_text(_VAR_MEAN_REFERENCE)
    report = check_pair(str(translated), reference, "triton", seeds=(0,), sizes={"n": 37})
    assert {r.entry for r in report.rows} == {"normalize", "row_stats", "rebound"}
    assert report.passed, report.format_text()


@pytest.mark.parametrize(
    ("spelling", "message"),
    [
        ("torch.var(row, -1, False)", "passed by position"),
        ("torch.var(row, dim=-1, unbiased=UNBIASED)", "`unbiased=` must be True or False"),
    ],
)
def test_a_variance_whose_correction_is_not_written_out_is_refused(
    spelling: str, message: str
) -> None:
    # The third positional argument is torch's legacy `unbiased`, and a name's value is not
    # known: either, read as a default, divided by the wrong count.
    from translator.api import parse_source

    text = (DATA / "helion_var_mean.py").read_text()
    text = "UNBIASED = False\n" + text.replace(
        "mean + 0.0 * torch.var(row, dim=-1, unbiased=False)", f"mean + 0.0 * {spelling}"
    )
    with pytest.raises(TranslationError) as info:
        parse_source(text, "var_mean.py", "helion")
    assert message in info.value.message


def test_zeros_shaped_by_the_tiles_block_sizes_are_tiles(tmp_path: Path) -> None:
    # Helion's kl_div example accumulates into `hl.zeros([block_size_m, block_size_n])` inside
    # the loops over tiles of those blocks; the broadcast against the tiles was refused.
    source = DATA / "helion_block_zeros.py"
    text = translate_file(source, "helion", "triton")
    assert "kl_loss = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)" in text
    _assert_equivalent(source, text, tmp_path)


def test_a_bounded_block_size_keeps_its_bounds_without_configs() -> None:
    from translator.api import parse_source
    from translator.ir.printer import format_kernel

    text = (DATA / "helion_tile_methods.py").read_text()
    text = text.replace(
        "@helion.kernel(config=helion.Config(block_sizes=[32, 64]))", "@helion.kernel()"
    ).replace("register_block_size(16, 128)", "register_block_size(64, 128)")
    module = parse_source(text, "bounded.py", "helion")
    (kernel,) = [k for k in module.kernels if "row_sums" in k.name]
    assert "tunable block_n: block_size = 64 in [64, 128]" in format_kernel(kernel)


def test_a_dot_of_two_dtypes_casts_the_narrower_operand(tmp_path: Path) -> None:
    # Helion's hl.dot promotes both operands to torch.promote_types of theirs before tl.dot
    # (helion/_compiler/matmul_utils.py: emit_tl_dot_with_padding); tl.dot rejects operands of
    # two dtypes at compile time, so the translation casts the narrower one: an fp16 tile with
    # an fp32 tile, and a tile of the input's (any float) dtype with an fp32 tile.
    text = translate_file(DATA / "helion_mixed_dot.py", "helion", "triton")
    dots = [line.strip() for line in text.splitlines() if "tl.dot(" in line]
    assert dots == [
        "acc = tl.dot(a.to(tl.float32), b, acc)",
        "acc = tl.dot(x_2.to(tl.float32), tl.where(mask_k[:, None], b, 0.0), acc)",
    ]
    translated = tmp_path / "translated.py"
    translated.write_text(text)
    report = check_pair(str(DATA / "helion_mixed_dot.py"), translated, seeds=(0,))
    assert report.passed, report.format_text()
    assert {row.dtype for row in report.rows} == {"float32", "float16"}


def test_float16_with_bfloat16_promotes_to_float32() -> None:
    from translator.ir import nodes as ir
    from translator.ir.shapes import promote

    # As torch.promote_types: neither half type holds the other.
    assert promote(ir.DType("float16"), ir.DType("bfloat16")) == ir.F32
    assert promote(ir.DType("bfloat16"), ir.DType("float32")) == ir.F32
    assert promote(ir.DType("float16"), ir.DType("float16")) == ir.DType("float16")


FLOOR_OPS = """\
import torch
import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[32]))
def floor_ops(
    a: torch.Tensor, b: torch.Tensor, x: torch.Tensor, y: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    q = torch.empty_like(a)
    r = torch.empty_like(a)
    f = torch.empty_like(x)
    for tile in hl.tile(a.size(0)):
        q[tile] = a[tile] // b[tile]
        r[tile] = a[tile] % b[tile]
        f[tile] = x[tile] % y[tile]
    return q, r, f
"""


def test_floor_division_and_remainder_keep_pythons_signs(tmp_path: Path) -> None:
    # Helion (torch) rounds `//` toward -inf and gives `%` the divisor's sign; Triton's operators
    # are C's. The translation was silently wrong on negative operands: -7 // 2 gave -3.
    import os

    import torch

    from validation.runners import load_module

    os.environ["TRITON_INTERPRET"] = "1"
    text = translate_source(FLOOR_OPS, "floor_ops.py", "helion", "triton")
    assert "tl.where(" in text
    path = tmp_path / "floor_ops_triton.py"
    path.write_text(text)
    translated = load_module(path, "floor_ops_triton")
    g = torch.Generator().manual_seed(0)
    a = torch.randint(-50, 50, (100,), generator=g, dtype=torch.int32)
    b = torch.randint(1, 9, (100,), generator=g, dtype=torch.int32)
    b = torch.where(torch.rand(100, generator=g) < 0.5, -b, b)
    x = torch.randn(100, generator=g) * 10
    y = torch.randn(100, generator=g)
    q, r, f = translated.floor_ops(a, b, x, y)
    assert torch.equal(q, a // b) and torch.equal(r, a % b)
    torch.testing.assert_close(f, torch.remainder(x, y))


def test_floor_division_of_floats_is_refused_where_it_is() -> None:
    # (Of a tensor whose dtype is known only at run time it is written as for integers, which
    # Triton refuses to compile for floats: loud, not wrong.)
    source = FLOOR_OPS.replace(
        "f[tile] = x[tile] % y[tile]", "f[tile] = x[tile].float() // y[tile].float()"
    )
    with pytest.raises(TranslationError) as err:
        translate_source(source, "floor_ops.py", "helion", "triton")
    assert "`//` of floating-point values" in str(err.value)
    assert err.value.loc is not None
    assert "x[tile].float() // y[tile].float()" in source.splitlines()[err.value.loc.line - 1]


def test_host_idioms_of_helion_kernels_translate(tmp_path: Path) -> None:
    # `m, k = x.size(0), x.size(1)` and `dtype=torch.promote_types(...)` were refused; the
    # batched dot over views read its dtype off `q_in_ptr`, which the kernel was not passed.
    source = DATA / "helion_host_idioms.py"
    text = translate_file(source, "helion", "triton")
    assert "dtype=torch.promote_types(x.dtype, y.dtype)" in text
    assert "q_in_ptr,\n" in text and "q_in_ptr.dtype.element_ty" in text
    _assert_equivalent(source, text, tmp_path)


def test_a_host_transposed_view_reads_its_base_and_the_launch_spells_it() -> None:
    # `k_view = k_in.reshape(...).transpose(1, 2)`: the kernel indexes the reshape (the IR's
    # tensor) with the index permuted, and the launch reads it back off the carried view.
    from translator.api import parse_file

    source = DATA / "helion_host_idioms.py"
    text = translate_file(source, "helion", "triton")
    assert "k_view.transpose(1, 2)," in text
    module = parse_file(source, "helion")
    (kernel,) = [k for k in module.kernels if "transposed" in k.name]
    assert any(p.name == "k_view_base" for p in kernel.params)


def test_a_fixed_block_sizes_host_partials_and_a_registered_one_is_fixed(tmp_path) -> None:
    source = DATA / "helion_block_partials.py"
    _assert_equivalent(source, translate_file(source, "helion", "triton"), tmp_path)
    # A registered block host code reads is fixed at its config's value, as a plain int the
    # host sizes its buffer by (tests/test_helion_real_styles.py holds the details).
    registered = tmp_path / "registered.py"
    registered.write_text(
        source.read_text()
        .replace("block_m = 32", "block_m = hl.register_block_size(m)")
        .replace("helion.Config()", "helion.Config(block_sizes=[16])")
    )
    text = translate_file(registered, "helion", "triton")
    assert "    block_m = 16\n" in text
    _assert_equivalent(registered, text, tmp_path)


def test_a_block_named_by_a_host_int_bound_twice_is_refused() -> None:
    from translator.api import parse_source
    from translator.diagnostics import TranslationError

    # Rebound under a branch, `block_m` may not be the literal's 32 (the buffer and the tiles
    # would disagree); a module constant the function shadows likewise.
    text = (DATA / "helion_block_partials.py").read_text()
    text = text.replace(
        "    block_m = 32\n", "    block_m = 32\n    if m > 64:\n        block_m = 64\n"
    )
    with pytest.raises(TranslationError) as info:
        parse_source(text, "partials.py", "helion")
    assert "a name bound once to one" in info.value.message


def test_a_per_lane_sum_over_a_loop_becomes_a_sum_per_tile(tmp_path) -> None:
    # `acc = hl.zeros([tile_m, block_n])`, `acc += x[tile_m, tile_n]`, `acc.sum(-1)`: a lane
    # of `block_n` is no tile of the IR, so each tile's sum is added instead.
    from translator.api import parse_source

    source = DATA / "helion_lane_sum.py"
    text = translate_file(source, "helion", "triton")
    assert "acc = acc + tl.sum(" in text
    _assert_equivalent(source, text, tmp_path)
    # Read any other way than its sum over the lanes, it is refused.
    other = source.read_text().replace("acc.sum(-1)", "acc.sum(0)")
    with pytest.raises(TranslationError) as info:
        parse_source(other, "lane.py", "helion")
    assert "sums lanes over a loop" in info.value.message


def _assert_equivalent(source: Path, text: str, tmp_path: Path) -> None:
    """``text``, the translation of ``source``, computes what it computes (one seed, CPU)."""
    translated = tmp_path / "translated.py"
    translated.write_text(text)
    report = check_pair(str(source), translated, seeds=(0,))
    assert report.passed, report.format_text()


ALIASED_UPDATE = """\
from __future__ import annotations

import helion
import helion.language as hl
import torch


@helion.kernel(configs=[helion.Config(block_sizes=[32]), helion.Config(block_sizes=[64])])
def affine(x: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
    for tile in hl.tile(x.size(0)):
        out[tile] = x[tile] * 2.0 + 1.0
    return out


def affine_(x: torch.Tensor) -> torch.Tensor:
    return affine(x, x)


def affine_into(x: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
    return affine(x, out)


def affine_in_place(x: torch.Tensor) -> torch.Tensor:
    return affine_into(x, x)
"""


def _autotuners_run_every_trial(module: object) -> int:
    """Make each multi-config ``@triton.autotune`` of ``module`` time its configs by running
    them, three runs each on the launch's own tensors, as it does on a GPU (the CPU interpreter
    has no timer; validation pins the first config instead). Returns how many were set."""
    from triton.runtime.autotuner import Autotuner

    def bench(kernel_call, quantiles):  # noqa: ANN001, ARG001 - Triton's do_bench signature
        for _ in range(3):
            kernel_call()
        return [1.0, 1.0, 1.0]

    tuners = [v for v in vars(module).values() if isinstance(v, Autotuner) and len(v.configs) > 1]
    for tuner in tuners:
        tuner.do_bench = bench
    return len(tuners)


def test_a_launch_passing_one_tensor_as_two_parameters_is_restored_after_each_trial(
    tmp_path: Path,
) -> None:
    # `affine(x, x)` updates x in place through two pointer parameters: the kernel reads `x`
    # and writes `out`, neither read and written, so nothing was restored and every timed trial
    # of the autotuner applied the update once more.
    import torch

    from validation.equivalence import use_interpreter
    from validation.runners import load_module

    source = tmp_path / "affine.py"
    source.write_text(ALIASED_UPDATE)
    translated = tmp_path / "affine_triton.py"
    translated.write_text(translate_file(source, "helion", "triton"))
    use_interpreter()
    module = load_module(translated, "translated")
    assert _autotuners_run_every_trial(module) == 1
    # A new size each call: the autotuner searches once per key (the sizes).
    for n, call in (
        (37, lambda x: module.affine_(x)),
        (53, lambda x: module.affine_in_place(x)),  # aliased one call further up
        (71, lambda x: module.affine(x, torch.empty_like(x))),
    ):
        x = torch.randn(n)
        torch.testing.assert_close(call(x.clone()), x * 2.0 + 1.0)


def test_tensors_aliased_through_calls_are_found_a_call_further_up() -> None:
    from translator.api import parse_source
    from translator.ir.aliasing import aliased_writes

    direct = "def affine_(x: torch.Tensor) -> torch.Tensor:\n    return affine(x, x)\n"
    assert direct in ALIASED_UPDATE
    module = parse_source(ALIASED_UPDATE.replace(direct, ""), "affine.py", "helion")
    (kernel,) = module.kernels
    # affine_in_place(x) -> affine_into(x, x) -> affine(x, out): the written `out` is `x`.
    assert aliased_writes(kernel, module) == {"out"}
    without = ALIASED_UPDATE.replace(direct, "").replace(
        "affine_into(x, x)", "affine_into(x, x * 2)"
    )
    module = parse_source(without, "affine.py", "helion")
    assert aliased_writes(module.kernels[0], module) == set()
