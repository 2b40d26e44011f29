"""Triton constructs outside the bundled examples (``tests/data/triton_constructs/``): each kernel
is lifted, its IR checked for the construct, and its Helion and Triton translations run against
the source under ``TRITON_INTERPRET=1`` at ragged sizes."""

from __future__ import annotations

import os
from pathlib import Path

os.environ["TRITON_INTERPRET"] = "1"
os.environ.pop("HELION_INTERPRET", None)

import pytest  # noqa: E402
from lifted import Lifted, lifted  # noqa: E402

from translator.api import parse_file, translate_file  # noqa: E402
from translator.ir import nodes as ir  # noqa: E402
from translator.ir.visit import all_exprs, walk_stmts  # noqa: E402
from validation.equivalence import check_pair  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "triton_constructs"
KERNELS = sorted(p.stem for p in DATA.glob("*.py"))


def lift(name: str) -> Lifted:
    (entry,) = lifted(parse_file(DATA / f"{name}.py", "triton"))
    return entry


def exprs(entry: ir.Entry, kind: type) -> list:
    return [e for e in all_exprs(entry.body) if isinstance(e, kind)]


@pytest.mark.parametrize("dst", ["helion", "triton"])
@pytest.mark.parametrize("name", KERNELS)
def test_translation_matches_the_source(name: str, dst: str, tmp_path: Path) -> None:
    out = tmp_path / f"{name}_{dst}.py"
    out.write_text(translate_file(DATA / f"{name}.py", "triton", dst))
    report = check_pair(
        DATA / f"{name}.py", out, src_dsl="triton", dtypes=("float32", "float16"), seeds=(0,)
    )
    assert report.passed, report.format_text()


def test_arg_reductions_over_identity_lanes_are_masked():
    entry = lift("row_reductions")
    reductions = {(r.op, r.keepdim, r.masked) for r in exprs(entry, ir.Reduce)}
    # argmax over a load padded with -inf, argmin over a where(mask, x, inf): both masked, so
    # Helion (which leaves out-of-bounds lanes out) computes the same index.
    assert {
        ("argmax", False, True),
        ("argmin", False, True),
        ("max", True, True),
        ("sum", True, True),
    } <= reductions
    ops = {c.op for c in exprs(entry, ir.Call)}
    assert {"fma", "sigmoid", "exp2", "log2", "abs", "sqrt", "rsqrt", "maximum", "minimum"} <= ops
    helion = translate_file(DATA / "row_reductions.py", "triton", "helion")
    # A whole row's lanes are all valid in Helion: no `hl.arange(N) < N` test is emitted.
    assert "hl.arange(N) < N" not in helion and "torch.argmin(" in helion


def test_transposes_and_expand_dims_are_layout_ops():
    entry = lift("transposes")
    assert len(exprs(entry, ir.Permute)) == 2
    assert exprs(entry, ir.ExpandDims)


def test_pipelined_and_static_loops_and_atomic_max():
    entry = lift("loops_and_atomics")
    tile_loop, index_loop = [s for s in walk_stmts(entry.body) if isinstance(s, ir.TileLoop)]
    assert tile_loop.num_stages == 2 and tile_loop.tiles[0].name == "tile_bn"
    assert [s.op for s in walk_stmts(entry.body) if isinstance(s, ir.AtomicRMW)] == ["max"]
    # tl.static_range(REPS) with REPS=3: a loop of three plain indices.
    (index,) = index_loop.tiles
    assert index.scalar and index.extent == ir.Const(3)


def test_host_fills_of_non_finite_values_are_carried_as_written():
    fill = 'mx = torch.full((M,), float("-inf"), device=x.device, dtype=torch.float32)'
    assert fill in (DATA / "loops_and_atomics.py").read_text()
    for dst in ("helion", "triton"):
        text = translate_file(DATA / "loops_and_atomics.py", "triton", dst)
        assert fill in text, dst


def test_dot_precision_options_keep_an_fp32_dot():
    entry = lift("dot_options")
    (dot,) = exprs(entry, ir.Dot)
    assert dot.out_dtype == ir.F32 and dot.acc is not None


def test_config_spaces_are_evaluated_statically_in_the_autotuners_order():
    entry = lift("config_space")
    # The space the source's `space(pre_hook=set_blocks, stages=3)` builds, spelled out here.
    want = [
        {"bm": bm, "bn": bn, "num_warps": w, "num_stages": 3}
        for bm in (16, 32)
        for bn in (16, 32, 64)
        for w in (1, 2)
        if bm <= bn <= 2 * bm and not (bm == 16 and w == 2)
    ]
    want.append({"bm": 8, "bn": 128, "num_warps": 4, "num_stages": 3})  # triton.Config's default
    assert [dict(c) for c in entry.configs] == want
    # The pre_hook's block shapes name the kernel's BM/BN: both descriptors are tiles of the grid.
    (load,) = exprs(entry, ir.Load)
    assert load.tensor == "x" and load.index == (ir.TileIndex("tile_bm"), ir.TileIndex("tile_bn"))


def test_config_filters_are_evaluated_per_config():
    entry = lift("config_filter")

    # The attention tutorial's shape: `list(filter(keep, configs))` over a comprehension whose
    # stages a platform test chooses (both branches read: [1] then [2, 3]); spelled out here.
    def keep(bm: int, bn: int, s: int, w: int) -> bool:
        return not (bm * bn < 32 * 64 and w == 4) and not (s == 3 and bn == 16)

    want = [
        {"block_m": bm, "block_n": bn, "num_warps": w, "num_stages": s}
        for bm in (16, 32)
        for bn in (16, 64)
        for s in (1, 2, 3)
        for w in (2, 4)
        if keep(bm, bn, s, w)
    ]
    assert [dict(c) for c in entry.configs] == want
    helion = translate_file(DATA / "config_filter.py", "triton", "helion")
    assert "both branches of `if is_hip()`" in helion


@pytest.mark.parametrize("dst", ["tilelang", "cutile"])
def test_a_filtered_config_space_translates_to_tilelang_and_cutile(dst: str, tmp_path: Path):
    out = tmp_path / f"config_filter_{dst}.py"
    out.write_text(translate_file(DATA / "config_filter.py", "triton", dst))
    report = check_pair(
        DATA / "config_filter.py", out, src_dsl="triton", dtypes=("float16",), seeds=(0,)
    )
    assert report.passed, report.format_text()


def test_refuses_a_config_filter_that_is_no_module_function():
    from translator.api import parse_source
    from translator.diagnostics import TranslationError

    text = (DATA / "config_filter.py").read_text()
    text = text.replace("filter(keep, configs)", "filter(lambda c: True, configs)")
    with pytest.raises(TranslationError) as info:
        parse_source(text, "config_filter.py", "triton")
    assert "a filter of autotune configs must be a function of this module" in info.value.message
    assert info.value.loc.line == 33


def test_a_config_filter_that_is_not_static_keeps_every_config():
    from translator.api import parse_source, translate_source

    text = (DATA / "config_filter.py").read_text()
    assert text.count("conf.num_warps == 4") == 1
    # The GPU's capability decides: every config stays (the space may only grow), noted.
    text = text.replace("conf.num_warps == 4", "torch.cuda.get_device_capability()[0] == 9")
    (entry,) = lifted(parse_source(text, "config_filter.py", "triton"))
    # The `elif` it would reach drops (s == 3, bn == 16) only past the unread test.
    assert len(entry.configs) == 2 * 2 * 3 * 2
    helion = translate_source(text, "config_filter.py", "triton", "helion")
    assert "where `keep()` reads `torch.cuda.get_device_capability()`" in helion


def test_refuses_config_spaces_that_are_not_static(tmp_path: Path):
    from translator.api import parse_source
    from translator.diagnostics import TranslationError

    text = (
        (DATA / "config_space.py")
        .read_text()
        .replace("for w in [1, 2]", "for w in [torch.cuda.device_count()]")
    )
    with pytest.raises(TranslationError) as info:
        parse_source(text, "config_space.py", "triton")
    err = info.value
    assert "cannot read the autotune configs statically" in err.message
    assert "`torch.cuda.device_count()` is not a literal" in err.message
    assert err.loc.line == 23 and "comprehension over literal lists" in (err.hint or "")


@pytest.mark.parametrize(
    ("edit", "line", "what"),
    [
        # The helper may add anything: outside another backend's branch, refused.
        (
            (
                '    if x.device.type == "xpu":\n        set_large_grf_mode(kernel_args)\n',
                "    set_large_grf_mode(kernel_args)\n",
            ),
            30,
            "set_large_grf_mode(kernel_args)",
        ),
        # An entry set in a branch before the launch: the launch may or may not get it.
        (
            (
                "    kernel_args.update(num_stages=1)\n",
                "    if n_rows > 8:\n        kernel_args.update(num_stages=1)\n",
            ),
            33,
            "kernel_args.update(num_stages=1)",
        ),
    ],
)
def test_launch_keywords_the_frontend_cannot_follow_are_refused_where_they_change(
    edit: tuple[str, str], line: int, what: str
) -> None:
    from translator.api import parse_source
    from translator.diagnostics import TranslationError

    text = (DATA / "launch_keywords.py").read_text()
    assert edit[0] in text
    with pytest.raises(TranslationError) as info:
        parse_source(text.replace(*edit), "launch_keywords.py", "triton")
    err = info.value
    assert f"`kernel_args` is changed by `{what}`" in err.message
    assert "the keywords `**kernel_args` passes are unknown" in err.message
    assert err.loc.line == line and "pass them explicitly" in (err.hint or "")


def test_the_tutorials_tma_matmul_reads_b_as_n_by_k_and_picks_the_fp16_path():
    entry = lift("tutorial_tma_matmul")
    loads = {ld.tensor: ld for ld in exprs(entry, ir.Load)}
    assert loads["b"].index == (ir.TileIndex("tile_n"), ir.TileIndex("tile_k"))
    (dot,) = exprs(entry, ir.Dot)
    assert isinstance(dot.rhs, ir.Permute)  # `tl.dot(a, b.T, acc)`
    # `dtype = tl.float8e4nv if FP8_OUTPUT else tl.float16` with FP8_OUTPUT=False: only the fp16
    # branch is compiled, so only it is lifted.
    assert any(
        isinstance(c, ir.Cast) and c.dtype == ir.DType("float16") for c in exprs(entry, ir.Cast)
    )
    # The configs come from `matmul_get_configs(pre_hook=...)`: 2 x 2 x 2 x 2 of them.
    assert len(entry.configs) == 16


def test_refuses_the_tutorials_fp8_switch_with_what_to_write():
    from translator.api import parse_source
    from translator.diagnostics import TranslationError

    text = (
        (DATA / "tutorial_tma_matmul.py")
        .read_text()
        .replace("FP8_OUTPUT=False", "FP8_OUTPUT=dtype == torch.float8_e4m3fn")
    )
    with pytest.raises(TranslationError) as info:
        parse_source(text, "tutorial_tma_matmul.py", "triton")
    assert "fp8 dtypes (`torch.float8_e4m3fn`) are not supported yet" in info.value.message
    assert "FP8_OUTPUT=False" in (info.value.hint or "")


def test_a_language_dtype_the_ir_lacks_is_named_in_the_refusal():
    # The persistent-matmul tutorial compares `c_ptr.dtype.element_ty == tl.float8e4nv`; the
    # refusal said "`tl` is not defined in this kernel".
    from translator.api import parse_source
    from translator.diagnostics import TranslationError

    text = (DATA / "launch_keywords.py").read_text()
    text = text.replace(
        "    tl.store(y_ptr + offs, x * scale, mask=mask)",
        "    if y_ptr.dtype.element_ty == tl.float8e4nv:\n        x = x * 2\n"
        "    tl.store(y_ptr + offs, x * scale, mask=mask)",
    )
    with pytest.raises(TranslationError) as info:
        parse_source(text, "fp8_switch.py", "triton")
    # Refused at the test, as a choice by the tensor's dtype the IR cannot carry.
    assert "by whether a tensor holds `tl.float8e4nv`" in info.value.message
    assert "no fp8 type" in info.value.message and info.value.loc.line == 22


def test_refuses_a_grid_function_that_does_more_than_name_values():
    from translator.api import parse_source
    from translator.diagnostics import TranslationError

    text = (
        (DATA / "tutorial_tma_matmul.py")
        .read_text()
        .replace(
            '        BLOCK_N = META["BLOCK_SIZE_N"]\n',
            '        BLOCK_N = META["BLOCK_SIZE_N"]\n        print(BLOCK_N)\n',
        )
    )
    with pytest.raises(TranslationError) as info:
        parse_source(text, "tutorial_tma_matmul.py", "triton")
    assert "unsupported statement in the grid function `grid`" in info.value.message
    assert "may only name values" in (info.value.hint or "")
    assert (
        info.value.loc is not None
        and info.value.loc.line == text.splitlines().index("        print(BLOCK_N)") + 1
    )


def test_refuses_a_config_that_leaves_out_an_autotuned_meta_parameter():
    from translator.api import parse_source
    from translator.diagnostics import TranslationError

    text = (
        (DATA / "config_space.py")
        .read_text()
        .replace('{"BM": BASE // 2, "BN": 8 * BASE}', '{"BM": BASE // 2}')
    )
    with pytest.raises(TranslationError) as info:
        parse_source(text, "config_space.py", "triton")
    assert "does not set `BN`, which other configs of the autotuner set" in info.value.message
    assert info.value.loc is not None and info.value.loc.line == 25  # the skinny fallback


def test_a_row_stride_shared_by_tensors_of_one_layout_indexes_each_by_its_own():
    entry = lift("shared_row_stride")
    # `out.stride(-2)` offsets `x` and `gate` too: each is read at its own row, and the
    # assumption that they share the output's row stride is kept as a hint.
    loads = {ld.tensor: ld for ld in exprs(entry, ir.Load)}
    assert len(loads) == 2, loads
    for ld in loads.values():
        assert isinstance(ld.index[0], (ir.ScalarIndex, ir.TileIndex))
        assert isinstance(ld.index[1], ir.FullIndex)
    borrowed = dict(entry.hints)["borrowed_stride"]
    # Both inputs read with the output's row stride, each at its own rows.
    assert {t for t, _, _ in borrowed} == set(loads)
    assert all(d == 0 for _, d, _ in borrowed)


@pytest.mark.parametrize(
    ("cast", "why"),
    [
        ("gate.to(tl.int16, bitcast=True)", "`bitcast=True` is not supported yet"),
        ('tl.cast(gate, tl.float16, fp_downcast_rounding="rtz")', "fp_downcast_rounding="),
        ("gate.cast(tl.float16, None, True)", "`bitcast=True` is not supported yet"),
    ],
)
def test_refuses_bit_casts_and_other_roundings_with_where(cast: str, why: str):
    from translator.api import parse_source
    from translator.diagnostics import TranslationError

    source = (DATA / "shared_row_stride.py").read_text()
    text = source.replace("gate.cast(tl.float32)", cast)
    assert text != source
    with pytest.raises(TranslationError) as info:
        parse_source(text, "shared_row_stride.py", "triton")
    err = info.value
    assert why in err.message and err.loc.line == 27
    assert "keep this kernel in Triton" in (err.hint or "")


def test_rows_of_a_tensor_of_any_rank_are_read_through_a_row_view():
    (entry,) = [
        e for e in lifted(parse_file(DATA / "rows_by_numel.py", "triton")) if e.name == "max_scale"
    ]
    views = [s for s in entry.body if isinstance(s, ir.View)]
    # `inp + pid * N + cols` over `M = inp.numel() // N` rows: a [-1, N] view, read by row.
    rows = [v for v in views if v.tensor == "inp" and len(v.shape) == 2]
    assert rows and rows[0].shape[1] == ir.Name("N")
    loads = [ld for ld in exprs(entry, ir.Load) if ld.tensor == rows[0].target]
    assert loads and all(len(ld.index) == 2 for ld in loads)
    # `num_warps` from a named heuristic is a launch knob (dropped: it depends on sizes), and
    # the block from the other one a tunable capped at 64.
    (kernel,) = [k for k in entry.kernels() if k.name == "row_max_kernel"]
    (block,) = [t for t in kernel.tunables if t.kind == "block_size"]
    assert block.default == 64 and block.fit
    knobs = [t for t in kernel.tunables if t.kind == "num_warps"]
    assert [t.choices for t in knobs] == [()]  # not pinned to one value of the size heuristic


def test_a_two_dim_lane_accumulator_becomes_a_per_row_sum_in_the_loop():
    module = parse_file(DATA / "rows_by_numel.py", "triton")
    (kernel,) = [k for k in module.kernels if k.name == "row_sum_kernel"]
    loops = [s for s in walk_stmts(kernel.body) if isinstance(s, ir.TileLoop)]
    sums = [e for s in loops for e in all_exprs(s.body) if isinstance(e, ir.Reduce)]
    assert [(r.op, r.axis) for r in sums] == [("sum", 1)]
    helion = translate_file(DATA / "rows_by_numel.py", "triton", "helion")
    assert "hl.zeros([tile_m], dtype=torch.float32)" in helion


def test_the_tutorial_style_function_reads_an_opaque_block_as_a_stand_in_tunable():
    (entry,) = [
        e
        for e in lifted(parse_file(DATA / "tutorial_rms_norm.py", "triton"))
        if e.name == "RMSNorm.forward"
    ]
    (kernel,) = entry.kernels()
    assert [t.name for t in kernel.tunables if t.kind == "block_size"] == ["block_size"]
    # `y = torch.empty_like(x)` of any rank, offset by `x_arg.stride(0)`: rows of N elements.
    (view,) = [s for s in entry.body if isinstance(s, ir.View) and s.tensor == "y"]
    assert view.shape[0] == ir.Const(-1)
    text = translate_file(DATA / "tutorial_rms_norm.py", "triton", "helion")
    assert "y.view(-1, x_arg.size(1))" in text
    module = parse_file(DATA / "tutorial_rms_norm.py", "triton")
    public = {e.name for e in module.entries if e.public}
    assert "rms_norm_last_dim" in public  # through `rms_norm = RMSNorm.apply`


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        # Columns past the row length: a [-1, N] view would not read what row * N + col does.
        (
            "x = tl.load(inp + pid * N + cols, mask=mask, other=0.0)",
            "x = tl.load(inp + pid * N + cols, mask=cols < 2 * N, other=0.0)",
            "",
        ),
        # `tl.sum(acc)` of a 2-d lane accumulator is a grand total, not the kept dim.
        (
            "total = tl.sum(acc, axis=1)[:, None]",
            "total = tl.sum(acc) + tl.zeros([BLOCK_M, 1], dtype=tl.float32)",
            "a per-lane accumulator is read as tl.sum(acc, axis=1)",
        ),
        # A transposed tensor is not row-major: no strides passed is no license to assume so.
        (
            "    M, N = x.shape\n    out = torch.empty(M, dtype=torch.float32",
            "    x = x.t()\n    M, N = x.shape\n    out = torch.empty(M, dtype=torch.float32",
            "",
        ),
    ],
    ids=["columns-past-the-row", "lane-sum-without-axis", "transposed-not-row-major"],
)
def test_row_addressing_refuses_what_a_view_would_misread(old: str, new: str, message: str):
    from translator.api import parse_source
    from translator.diagnostics import TranslationError

    source = (DATA / "rows_by_numel.py").read_text()
    text = source.replace(old, new)
    assert text != source
    with pytest.raises(TranslationError) as info:
        parse_source(text, "rows_by_numel.py", "triton")
    assert message in info.value.message and info.value.loc is not None


def test_round_takes_halves_away_from_zero_exactly(tmp_path: Path):
    import torch

    # libdevice.round is C's round; `floor(x + 0.5)` would round 0.49999997 up in float32.
    out = tmp_path / "idioms_helion.py"
    out.write_text(translate_file(DATA / "library_idioms.py", "triton", "helion"))
    halves = [0.49999997, -0.49999997, 0.5, -0.5, 1.5, -2.5, 2.5, 0.0, -0.0, 3.4999998]

    def inputs(entry: str, device: str, dtype: str):
        if entry != "quantize":
            return None
        return (torch.tensor(halves * 13, dtype=torch.float32, device=device), 1.0)

    report = check_pair(
        DATA / "library_idioms.py", out, src_dsl="triton", dtypes=("float32",), seeds=(0,),
        inputs=inputs,
    )  # fmt: skip
    assert report.passed, report.format_text()
    assert any(r.entry == "quantize" for r in report.rows)


def test_a_dtype_called_on_a_value_is_a_cast():
    # Liger-Kernel's online softmax starts its running max as `m = tl.float32(-float("inf"))`.
    from translator.api import parse_source

    text = (DATA / "launch_keywords.py").read_text()
    old = "    tl.store(y_ptr + offs, x * scale, mask=mask)"
    assert old in text
    text = text.replace(old, "    tl.store(y_ptr + offs, x * tl.float32(2.0), mask=mask)")
    (kernel,) = parse_source(text, "dtype_call.py", "triton").kernels
    casts = [e for e in all_exprs(kernel.body) if isinstance(e, ir.Cast)]
    assert any(c.value == ir.Const(2.0) and c.dtype == ir.F32 for c in casts), casts


def test_a_value_where_a_reduction_takes_its_axis_is_refused_with_the_pairwise_form():
    # Liger's `new_m = tl.max(m, blk_max)` reads `blk_max` as the axis.
    from translator.api import parse_source
    from translator.diagnostics import TranslationError

    text = (DATA / "launch_keywords.py").read_text()
    old = "    tl.store(y_ptr + offs, x * scale, mask=mask)"
    text = text.replace(old, "    m = tl.max(x, scale)\n" + old)
    with pytest.raises(TranslationError) as info:
        parse_source(text, "max_axis.py", "triton")
    assert "the axis of `tl.max` must be an integer, not `scale`" in info.value.message
    assert "`tl.max(x, scale)` is not valid Triton" in info.value.message
    assert "write `tl.maximum(x, scale)`" in (info.value.hint or "")
    line = text.splitlines().index("    m = tl.max(x, scale)") + 1
    assert info.value.loc is not None and info.value.loc.line == line


def test_a_launch_under_n_at_most_block_reads_its_lanes_as_the_whole_row():
    # `if n_cols <= BLOCK_SIZE:` around the one-block kernel, BLOCK_SIZE capped below n_cols
    # otherwise; the backward gets the forward's block size as a parameter.
    library = DATA.parents[2] / "examples" / "library" / "triton"
    module = parse_file(library / "softmax_function.py", "triton")
    single = next(k for k in module.kernels if k.name == "_softmax_single_block_forward_kernel")
    assert not [t for t in single.tunables if t.kind == "block_size"]
    backward = next(k for k in module.kernels if k.name == "_softmax_multi_block_backward_kernel")
    assert [t.name for t in backward.tunables if t.kind == "block_size"] == ["block_size"]
    assert "SoftmaxFunction.apply" in {e.name for e in module.entries if e.public}


@pytest.mark.parametrize("dst", ["helion", "tilelang"])
def test_a_load_padded_with_a_loaded_value_reads_as_a_where_on_its_mask(
    dst: str, tmp_path: Path
) -> None:
    # `tl.load(p, mask=mask, other=m)` with `m` loaded: `tl.where(mask, tl.load(p, mask=mask,
    # other=0), m)`. Helion shows only valid lanes, so its translation is the plain load.
    src = Path(__file__).resolve().parent / "data" / "triton_pad_with_value.py"
    out = tmp_path / f"pad_with_value_{dst}.py"
    out.write_text(translate_file(src, "triton", dst))
    if dst == "helion":
        assert "x_tile = X[row, :]" in out.read_text(), out.read_text()
    report = check_pair(src, out, src_dsl="triton", seeds=(0,), dtypes=("float32",))
    assert report.rows and report.passed, report.format_text()


def test_floor_division_of_unannotated_parameters_is_host_integer_arithmetic():
    # Liger's `channels_per_group = num_channels // num_groups`, passed to the kernel: the
    # unannotated parameters are integers, not the tensors an unannotated parameter is guessed.
    from translator.api import parse_source

    text = (
        "import torch\nimport triton\nimport triton.language as tl\n\n\n"
        "@triton.jit\n"
        "def _scale_kernel(x_ptr, y_ptr, n, per_group, BLOCK: tl.constexpr):\n"
        "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
        "    mask = offs < n\n"
        "    x = tl.load(x_ptr + offs, mask=mask)\n"
        "    tl.store(y_ptr + offs, x * per_group, mask=mask)\n\n\n"
        "def scale_by_group(x, num_channels, num_groups):\n"
        "    per_group = num_channels // num_groups\n"
        "    y = torch.empty_like(x)\n"
        "    n = x.numel()\n"
        "    _scale_kernel[(triton.cdiv(n, 128),)](x, y, n, per_group, BLOCK=128)\n"
        "    return y\n"
    )
    module = parse_source(text, "floor_div.py", "triton")
    (entry,) = [e for e in module.entries if e.name == "scale_by_group"]
    kinds = {p.name: p.kind for p in entry.params}
    assert kinds["num_channels"] == kinds["num_groups"] == "int", kinds
    from translator.ir.printer import format_entry

    assert "per_group = num_channels // num_groups" in format_entry(entry), format_entry(entry)


def test_autotune_spreads_and_module_lists_are_read_with_notes():
    entry = lift("autotune_spreads")
    # WARPS_LIST's test is not static: both branches' warps, in order; ROWS_LIST by name
    # (the IR names the tunable after the tile it sizes).
    want = [{"bm": bm, "num_warps": w, "num_stages": 3} for w in (1, 2, 4, 8) for bm in (2, 4, 8)]
    assert [dict(c) for c in entry.configs] == want
    text = translate_file(DATA / "autotune_spreads.py", "triton", "helion")
    assert "dropped `**autotune_cache_kwargs` of @triton.autotune (cache_results)" in text
    assert "`WARPS_LIST` read as the values of both branches of its `if IS_HIP`" in text


def test_an_imported_spread_of_autotune_options_is_noted_not_read():
    from translator.api import parse_source

    text = (DATA / "autotune_spreads.py").read_text()
    binding = 'autotune_cache_kwargs = {"cache_results": True} if SUPPORTS_AUTOTUNE_CACHE else {}'
    assert binding in text
    text = text.replace(binding, "from fla.utils import autotune_cache_kwargs")
    module = parse_source(text, "autotune_spreads.py", "triton")
    notes = "\n".join(e.note or "" for e in module.host.edits)
    assert (
        "`**autotune_cache_kwargs` of @triton.autotune (imported from fla.utils) is not read"
        in (notes)
    )


@pytest.mark.parametrize(
    ("edit", "message", "line", "col"),
    [
        # A positional spread: refused where it is written (it was "<input>: error").
        (
            ("    **autotune_cache_kwargs,\n", "    *autotune_cache_kwargs,\n"),
            "star arguments (`*autotune_cache_kwargs`) are not supported here",
            26,
            4,
        ),
        # A spread that sets an option which changes what the tuner leaves behind.
        (
            ('{"cache_results": True} if', '{"cache_results": True, "reset_to_zero": ["y"]} if'),
            "gives @triton.autotune `reset_to_zero=`, which tiletrans reads only where it is",
            26,
            4,
        ),
        # A module dict whose keys a call computes.
        (
            ('{"cache_results": True} if', "dict(cache_options()) if"),
            "cannot read which options `**autotune_cache_kwargs` gives @triton.autotune",
            26,
            4,
        ),
    ],
)
def test_autotune_spreads_tiletrans_cannot_read_are_refused_at_the_spread(
    edit: tuple[str, str], message: str, line: int, col: int
) -> None:
    from translator.api import parse_source
    from translator.diagnostics import TranslationError

    text = (DATA / "autotune_spreads.py").read_text()
    assert edit[0] in text
    with pytest.raises(TranslationError) as info:
        parse_source(text.replace(*edit), "autotune_spreads.py", "triton")
    err = info.value
    assert message in err.message
    assert (err.loc.line, err.loc.col) == (line, col), err.loc


def test_a_conditional_expression_on_a_runtime_scalar_is_a_select():
    entry = lift("runtime_choices")
    wheres = [c for c in exprs(entry, ir.Call) if c.op == "where"]
    # `-inf if la == inf else la` twice, and the two weights' choice by `la >= lb`.
    assert len(wheres) >= 3
    conds = {c.args[0].op for c in wheres if isinstance(c.args[0], ir.BinOp)}
    assert {"==", ">="} <= conds


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        # A branch that loads: a select would read what the source's branch skips.
        (
            ("1.0 / se if la >= lb else", "tl.load(a_lse + row + 1) if la >= lb else"),
            "its branch calls `tl.load`, which both branches of a select would run",
        ),
        # A tile condition: Triton takes one branch for the whole program.
        (
            ("merged = va * wa + vb * wb", "merged = va if va > vb else vb"),
            "chooses by a tile, not a scalar",
        ),
    ],
)
def test_runtime_choices_a_select_cannot_express_are_refused(
    edit: tuple[str, str], message: str
) -> None:
    from translator.api import parse_source
    from translator.diagnostics import TranslationError

    text = (DATA / "runtime_choices.py").read_text()
    assert edit[0] in text
    changed = text.replace(*edit)
    with pytest.raises(TranslationError) as info:
        parse_source(changed, "runtime_choices.py", "triton")
    err = info.value
    assert message in err.message
    assert edit[1].split(" if ")[0].strip() in changed.splitlines()[err.loc.line - 1]
    assert "tl.where(cond, a, b)" in (err.hint or "")


def test_a_flag_that_only_widens_offsets_reads_as_the_wide_offsets():
    module = parse_file(DATA / "long_indexing.py", "triton")
    assert {k.name for k in module.kernels} == {"_geglu_fwd_kernel", "_scale_kernel"}
    for kernel in module.kernels:
        # No branch is left: both compute the same lanes, read in 64-bit offsets.
        assert not [s for s in walk_stmts(kernel.body) if isinstance(s, ir.If)], kernel.name
        assert kernel.hints.index_bits == 64, kernel.name


def test_branches_whose_offsets_differ_beyond_their_width_are_still_refused():
    from translator.api import parse_source
    from translator.diagnostics import TranslationError

    text = (DATA / "long_indexing.py").read_text()
    edit = ("offsets = offsets.to(tl.int64)\n", "offsets = offsets.to(tl.int64) + 1\n")
    assert edit[0] in text
    with pytest.raises(TranslationError) as info:
        parse_source(text.replace(*edit), "long_indexing.py", "triton")
    # The flag decides the offsets (Triton compiles a kernel per value), but `mask` reads them
    # where nothing decides it: refused at that read, naming the branch that changed them.
    assert info.value.message == (
        "`offsets` is changed under `if LONG_INDEXING:` (line 50) and read here, where the "
        "constexpr `LONG_INDEXING` is not decided"
    )
    assert info.value.loc.line == 52  # `mask = offsets < n_elements`


def test_a_barrier_between_accesses_to_different_tensors_orders_nothing():
    entry = lift("inplace_barrier")
    stores = [s.tensor for s in walk_stmts(entry.body) if isinstance(s, ir.Store)]
    assert stores == ["x", "lse"]  # the row, then its log-sum-exp: in the source's order


@pytest.mark.parametrize(
    ("edit", "lines"),
    [
        # Read back after the barrier what was stored before it (Liger's X[y] correction).
        (
            ("lse = m + tl.log(d)", "lse = m + tl.log(d) + tl.load(X_ptr).to(tl.float32)"),
            (21, 26),
        ),
        # Overwrite after the barrier an element loaded (and stored) before it.
        (
            ("    lse = m + tl.log(d)\n", "    lse = m + tl.log(d)\n    tl.store(X_ptr, lse)\n"),
            (17, 27),
        ),
        # A barrier in a loop: the store after it comes before the next iteration's load.
        (
            (
                "    tl.debug_barrier()\n",
                "    for _ in range(2):\n        tl.debug_barrier()\n"
                "        tl.store(X_ptr + offsets, x, mask=offsets < n_cols)\n",
            ),
            (17, 26),
        ),
    ],
)
def test_a_barrier_that_orders_accesses_to_one_tensor_is_refused(
    edit: tuple[str, str], lines: tuple[int, int]
) -> None:
    from translator.api import parse_source
    from translator.diagnostics import TranslationError

    text = (DATA / "inplace_barrier.py").read_text()
    assert edit[0] in text
    with pytest.raises(TranslationError) as info:
        parse_source(text.replace(*edit), "inplace_barrier.py", "triton")
    err = info.value
    first, second = lines
    assert (
        f"this barrier orders the access to `x` at line {first} against the one at line "
        f"{second}" in err.message
    ), err.message
    assert "tl.debug_barrier()" in text.replace(*edit).splitlines()[err.loc.line - 1]


@pytest.mark.parametrize(
    ("edit", "message", "hint"),
    [
        # FlagGems' dropout: Philox counters as uint32 words.
        (
            ("random = tl.rand(seed, offsets)", "random = tl.rand(seed, offsets.to(tl.uint32))"),
            "`tl.uint32` is not supported: the IR's integers are signed, apart from uint8",
            "use `tl.rand(seed, offsets)` instead of tl.philox and uint32 counters",
        ),
        (
            (
                "random = tl.rand(seed, offsets)",
                "random, r1, r2, r3 = tl.philox(seed, offsets, offsets, offsets, offsets)",
            ),
            "`tl.philox` is not supported yet",
            "tl.philox returns four uint32 words per counter",
        ),
    ],
)
def test_unsigned_words_and_raw_philox_are_refused_with_what_to_draw_instead(
    edit: tuple[str, str], message: str, hint: str
) -> None:
    from translator.api import parse_source
    from translator.diagnostics import TranslationError

    text = (DATA.parent / "triton_dropout.py").read_text()
    assert edit[0] in text
    with pytest.raises(TranslationError) as info:
        parse_source(text.replace(*edit), "triton_dropout.py", "triton")
    err = info.value
    assert message in err.message and hint in (err.hint or "")
    assert err.loc.line == 15


def test_rows_of_a_view_of_a_parameter_are_read_as_row_major_and_the_assumption_recorded():
    module = parse_file(DATA / "rows_of_views.py", "triton")
    entries = {e.name: e for e in module.entries}
    for name in ("rms_scale", "rms_scale_rows"):
        hints = dict(entries[name].hints)
        # `x.view(-1, x.shape[-1])` has the caller's strides: addressed as `i_t * D + col`, the
        # kernel reads it (and `torch.empty_like(x)`) as row-major, an assumption kept.
        assumed = hints.get("assumed_row_major", ())
        assert len(assumed) == 2, (name, hints)
    kernel = module.kernel("rms_scale_fwd_kernel")
    (load,) = [e for e in all_exprs(kernel.body) if isinstance(e, ir.Load)]
    assert load.other == 0.0  # padding_option="zero"


def test_a_reduction_over_a_block_pointer_load_without_padding_is_refused_with_the_option():
    from translator.api import parse_source
    from translator.diagnostics import TranslationError

    text = (DATA / "rows_of_views.py").read_text()
    edit = ('boundary_check=(0, 1), padding_option="zero")', "boundary_check=(0, 1))")
    assert edit[0] in text
    with pytest.raises(TranslationError) as info:
        parse_source(text.replace(*edit), "rows_of_views.py", "triton")
    err = info.value
    assert "a block pointer load without padding_option=" in err.message
    assert 'padding_option="zero"' in (err.hint or "") and err.loc.line == 25  # the tl.sum


def test_an_optional_pointer_is_settled_by_what_the_launch_passes():
    # `if bias_ptr:` where the launch passes `bias: torch.Tensor`: true, as Triton settles it
    # (tests/test_triton_optional_pointers.py has the None side); unannotated, `bias` may be
    # None in some calls: refused, naming what to write.
    from translator.api import parse_source
    from translator.diagnostics import TranslationError

    text = (DATA / "library_idioms.py").read_text()
    assert "    if HAS_BIAS:\n" in text
    text = text.replace("    if HAS_BIAS:\n", "    if bias_ptr:\n")
    module = parse_source(text, "lib.py", "triton")
    kernel = next(k for k in module.kernels if k.name == "_bias_gelu_kernel")
    assert not [s for s in walk_stmts(kernel.body) if isinstance(s, ir.If)]
    assert any(isinstance(e, ir.Load) and "bias" in e.tensor for e in all_exprs(kernel.body))
    unannotated = text.replace("bias: torch.Tensor) -> torch.Tensor:", "bias) -> torch.Tensor:")
    with pytest.raises(TranslationError) as info:
        parse_source(unannotated, "lib.py", "triton")
    err = info.value
    assert "`bias`, an unannotated parameter that may be None" in err.message
    assert err.loc.line == 39 and "bias: torch.Tensor" in (err.hint or "")


def test_tunables_take_names_no_runtime_argument_holds():
    # `SCALE` read as a value and `BLOCK` as a block, beside runtime parameters `scale` and
    # `block`: each tunable is named apart from them, so neither argument merges with it
    # (test_translation_matches_the_source runs the kernel at scale != SCALE).
    (kernel,) = lift("tunable_names").kernels()
    tunables = {t.name: t.kind for t in kernel.tunables if t.kind in ("int", "block_size")}
    assert tunables == {"block_2": "block_size", "scale_2": "int"}
    helion = translate_file(DATA / "tunable_names.py", "triton", "helion")
    assert "out[tile] = x_tile * scale + block * scale_2" in helion
    tilelang = translate_file(DATA / "tunable_names.py", "triton", "tilelang")
    assert "T.ceildiv(x_shape[0], block_2)" in tilelang


@pytest.mark.parametrize(
    "store",
    [
        "tl.store(value=tl.zeros([BLOCK], dtype=tl.float32), pointer=X_ptr + offs, mask=m)",
        "tl.store(X_ptr + offs, tl.zeros([BLOCK], dtype=tl.float32), m)",
        "tl.atomic_xchg(val=tl.zeros([BLOCK], dtype=tl.float32), pointer=X_ptr + offs, mask=m)",
    ],
)
def test_a_barrier_sees_an_access_whose_pointer_is_passed_by_keyword(store: str) -> None:
    # The stored value reaches no tensor: only the `pointer=` argument ties the store to `x`,
    # which the load after the barrier reads back.
    from translator.api import parse_source
    from translator.diagnostics import TranslationError

    text = (
        "import torch\nimport triton\nimport triton.language as tl\n\n\n"
        "@triton.jit\n"
        "def k(X_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
        "    offs = tl.arange(0, BLOCK)\n"
        "    m = offs < n\n"
        "    x = tl.load(X_ptr + offs, mask=m, other=0.0)\n"
        f"    {store}\n"
        "    tl.debug_barrier()\n"
        "    y = tl.load(X_ptr + offs, mask=m, other=0.0)\n"
        "    tl.store(out_ptr + offs, x + y, mask=m)\n\n\n"
        "def f(x):\n"
        "    out = torch.empty_like(x)\n"
        "    k[(1,)](x, out, x.numel(), BLOCK=triton.next_power_of_2(x.numel()))\n"
        "    return out\n"
    )
    with pytest.raises(TranslationError) as info:
        parse_source(text, "barrier_keywords.py", "triton")
    err = info.value
    assert (err.loc.line, err.loc.col) == (12, 4), err.loc  # the barrier
    assert "orders the access to `x` at line 11 against the one at line 13" in err.message


@pytest.mark.parametrize(
    ("choice", "message", "hint"),
    [
        (
            "src = a if s > 0 else b",
            "`a if s > 0 else b` chooses between pointers by `s > 0`",
            "select the loaded values (`tl.where(s > 0, tl.load(a + offs, mask=m), "
            "tl.load(b + offs, mask=m))`)",
        ),
        (
            "dt = tl.float16 if s > 0 else tl.float32; src = a",
            "`tl.float16 if s > 0 else tl.float32` chooses a dtype by `s > 0`",
            "make the flag a `tl.constexpr` parameter passed a literal at each launch",
        ),
    ],
)
def test_runtime_choices_of_pointers_and_dtypes_are_refused_with_what_to_write(
    choice: str, message: str, hint: str
) -> None:
    from translator.api import parse_source
    from translator.diagnostics import TranslationError

    text = (
        "import torch\nimport triton\nimport triton.language as tl\n\n\n"
        "@triton.jit\n"
        "def pick_kernel(out, a, b, sel, N, BLOCK: tl.constexpr):\n"
        "    row = tl.program_id(0)\n"
        "    s = tl.load(sel + row)\n"
        f"    {choice}\n"
        "    cols = tl.arange(0, BLOCK)\n"
        "    v = tl.load(src + row * N + cols, mask=cols < N, other=0.0)\n"
        "    tl.store(out + row * N + cols, v, mask=cols < N)\n\n\n"
        "def pick(a, b, sel):\n"
        "    n_rows, n = a.shape\n"
        "    out = torch.empty_like(a)\n"
        "    pick_kernel[(n_rows,)](out, a, b, sel, n, BLOCK=triton.next_power_of_2(n))\n"
        "    return out\n"
    )
    with pytest.raises(TranslationError) as info:
        parse_source(text, "choices.py", "triton")
    err = info.value
    assert message in err.message, err.message
    assert hint in (err.hint or ""), err.hint
    assert err.loc.line == 10 and " if s > 0 else " in text.splitlines()[9][err.loc.col :]


def test_a_condition_on_padded_lanes_picks_the_branch_its_padding_decides(tmp_path: Path):
    """``o > 0`` is false on lanes loaded with 0, so ``tl.where(o > 0, 1.0, 0.0)`` pads with 0,
    the sum's identity; ``o >= 0`` is true there, and the count would take the padded lanes."""
    from translator.diagnostics import TranslationError

    source = (DATA / "support_counts.py").read_text()
    assert "helion.language" in translate_file(DATA / "support_counts.py", "triton", "helion")
    path = tmp_path / "support_counts_ge.py"
    path.write_text(source.replace("supp = o > 0.0", "supp = o >= 0.0"))
    with pytest.raises(TranslationError, match="they hold 1.0"):
        translate_file(path, "triton", "helion")


def test_a_dtype_test_the_launch_fixes_is_decided_when_lifting():
    entry = lift("dtype_branch")
    body = list(walk_stmts(entry.body))
    # Out is float32 (the host allocates it so): the `==` branch only, and no `!=` branch.
    assert not [s for s in body if isinstance(s, ir.If)]
    assert not [c for c in exprs(entry, ir.Call) if c.op == "minimum"]
    assert [c.dtype for c in exprs(entry, ir.Cast)] == [ir.F32]


@pytest.mark.parametrize(
    ("edit", "message", "hint"),
    [
        (
            ("dtype=torch.float32, device", "dtype=x.dtype, device"),
            "tests a tensor's dtype, which the host does not fix here",
            "pass the choice as a tl.constexpr",
        ),
        (
            ("Out.dtype.element_ty == tl.float32", "Out.dtype.element_ty == tl.float8e4nv"),
            "by whether a tensor holds `tl.float8e4nv`: the IR has no fp8 type",
            "keep the fp8 path in a kernel of its own",
        ),
    ],
)
def test_refuses_dtype_tests_it_cannot_decide(edit: tuple[str, str], message: str, hint: str):
    from translator.api import parse_source
    from translator.diagnostics import TranslationError

    text = (DATA / "dtype_branch.py").read_text()
    assert text.count(edit[0]) == 1
    text = text.replace(*edit)
    with pytest.raises(TranslationError) as info:
        parse_source(text, "dtype_branch.py", "triton")
    err = info.value
    assert message in err.message and hint in (err.hint or "")
    line = text.splitlines()[err.loc.line - 1]
    assert line.strip().startswith("if Out.dtype.element_ty")


def _load_module(path: Path, name: str):
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_optional_outputs_are_read_under_their_compile_time_flags() -> None:
    # `partial.stride(0) if need else 0` beside `NEED=need`: the stride is the partial's own
    # stride under `if NEED:`; the flags reach the kernel as compile-time values.
    module = parse_file(DATA / "optional_outputs.py", "triton")
    kernel = module.kernel("_center_backward_kernel")
    flags = {p.name: p.constexpr for p in kernel.params if p.name.startswith("NEED_")}
    assert flags == {"NEED_DSCALE": True, "NEED_DSHIFT": True}
    guarded = [
        (s.test, inner.tensor)
        for s in walk_stmts(kernel.body)
        if isinstance(s, ir.If)
        for inner in s.body
        if isinstance(inner, ir.Store)
    ]
    assert guarded == [(ir.Name("NEED_DSCALE"), "dscale"), (ir.Name("NEED_DSHIFT"), "dshift")]


@pytest.mark.parametrize("needs", [(False, True), (True, False), (False, False)])
def test_optional_outputs_left_out_are_none_in_the_helion_translation(
    needs: tuple[bool, bool], tmp_path: Path
) -> None:
    # Triton compiles a kernel per flag value, so a tensor passed as None is never touched where
    # its flag is off; Helion's `hl.constexpr` flag propagates only the branch taken.
    import torch

    text = translate_file(DATA / "optional_outputs.py", "triton", "helion")
    assert "NEED_DSCALE: hl.constexpr" in text
    out = tmp_path / "optional_outputs_helion.py"
    out.write_text(text)
    source = _load_module(DATA / "optional_outputs.py", "optional_outputs_src")
    translated = _load_module(out, "optional_outputs_helion")
    gen = torch.Generator().manual_seed(0)
    dy, x = torch.randn(11, 37, generator=gen), torch.randn(11, 37, generator=gen)
    expected = source.center_backward(dy, x, *needs)
    got = translated.center_backward(dy, x, *needs)
    assert (
        [g is None for g in got]
        == [e is None for e in expected]
        == [False, *(not n for n in needs)]
    )
    for e, g in zip(expected, got):
        if e is not None:
            torch.testing.assert_close(g, e)


@pytest.mark.parametrize("wanted", [True, False])
def test_a_pointer_advanced_under_a_flag_is_read_under_it(wanted: bool, tmp_path: Path) -> None:
    # `if RETURN_LSE_SQ: lse_sq_ptr += row * stride` and the store under the same flag later:
    # the advanced pointer where the flag is on; the output may be None where it is off.
    import torch

    module = parse_file(DATA / "optional_outputs.py", "triton")
    kernel = module.kernel("_row_logsumexp_kernel")
    (flagged,) = [s for s in walk_stmts(kernel.body) if isinstance(s, ir.If)]
    assert flagged.test == ir.Name("RETURN_LSE_SQ") and kernel.param("RETURN_LSE_SQ").constexpr
    (store,) = flagged.body
    assert isinstance(store, ir.Store) and store.tensor == "lse_sq"
    text = translate_file(DATA / "optional_outputs.py", "triton", "helion")
    assert "RETURN_LSE_SQ: hl.constexpr" in text
    out = tmp_path / "optional_outputs_helion.py"
    out.write_text(text)
    source = _load_module(DATA / "optional_outputs.py", "optional_outputs_src_lse")
    translated = _load_module(out, "optional_outputs_helion_lse")
    x = torch.randn(7, 37, generator=torch.Generator().manual_seed(1))
    (lse, lse_sq), (got, got_sq) = (
        source.row_logsumexp(x, wanted),
        translated.row_logsumexp(x, wanted),
    )
    torch.testing.assert_close(got, lse)
    assert (got_sq is None) == (lse_sq is None) == (not wanted)
    if wanted:
        torch.testing.assert_close(got_sq, lse_sq)


def test_a_pointer_advanced_under_a_flag_and_read_where_it_is_undecided_is_refused() -> None:
    from translator.api import parse_source
    from translator.diagnostics import TranslationError

    text = (DATA / "optional_outputs.py").read_text()
    old = "    if RETURN_LSE_SQ:\n        tl.store(lse_sq_ptr, lse * lse)"
    assert old in text
    text = text.replace(old, "    tl.store(lse_sq_ptr, lse * lse)")
    with pytest.raises(TranslationError) as info:
        parse_source(text, "undecided.py", "triton")
    err = info.value
    lines = text.splitlines()
    flag_line = lines.index("    if RETURN_LSE_SQ:") + 1
    assert err.message == (
        f"`lse_sq_ptr` is changed under `if RETURN_LSE_SQ:` (line {flag_line}) and read here, "
        "where the constexpr `RETURN_LSE_SQ` is not decided"
    )
    assert lines[err.loc.line - 1][err.loc.col :].startswith("lse_sq_ptr, lse * lse)")


@pytest.mark.parametrize("dst", ["tilelang", "cutile"])
def test_optional_outputs_translate_to_tilelang_and_cutile(dst: str, tmp_path: Path) -> None:
    out = tmp_path / f"optional_outputs_{dst}.py"
    out.write_text(translate_file(DATA / "optional_outputs.py", "triton", dst))
    report = check_pair(
        DATA / "optional_outputs.py", out, src_dsl="triton", dtypes=("float32",), seeds=(0,)
    )
    assert report.passed, report.format_text()


def test_a_stride_passed_under_a_negated_flag_test_is_the_same_binding() -> None:
    # `0 if not need else partial.stride(0)`: the partial's stride where NEED is on.
    from translator.api import parse_source

    text = (DATA / "optional_outputs.py").read_text()
    old = "partial_dshift.stride(0) if need_dshift else 0,"
    assert old in text
    negated = text.replace(old, "0 if not need_dshift else partial_dshift.stride(0),")
    assert parse_source(negated, "negated.py", "triton").kernels == (
        parse_source(text, "plain.py", "triton").kernels
    )


def test_a_flag_guarded_parameter_read_outside_its_flag_is_refused() -> None:
    from translator.api import parse_source
    from translator.diagnostics import TranslationError

    text = (DATA / "optional_outputs.py").read_text()
    old = "    if NEED_DSHIFT:\n        tl.store(dshift_ptr + pid * dshift_stride"
    assert old in text
    text = text.replace(
        old, "    if NEED_DSCALE:\n        tl.store(dshift_ptr + pid * dshift_stride"
    )
    with pytest.raises(TranslationError) as info:
        parse_source(text, "guarded.py", "triton")
    err = info.value
    assert err.message == (
        "kernel parameter `dshift_stride` is passed `partial_dshift.stride(0) if need_dshift "
        "else 0`, which the kernel may read only where the constexpr `NEED_DSHIFT` is True"
    )
    assert "read `dshift_stride` only under `if NEED_DSHIFT:`" in (err.hint or "")
    line = text.splitlines()[err.loc.line - 1]
    assert line[err.loc.col :].startswith("dshift_stride")


_MODE_KERNEL = """import torch
import triton
import triton.language as tl

_KEEP: tl.constexpr = tl.constexpr(0)
_UPCAST: tl.constexpr = tl.constexpr(1)


@triton.jit
def _twice_kernel(x_ptr, out_ptr, n, mode: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    if mode == _UPCAST:
        x = x.to(tl.float32)
    tl.store(out_ptr + offs, x * 2, mask=offs < n)


"""


def test_a_run_time_mode_that_changes_a_dtype_is_refused_with_one_launch_per_value() -> None:
    # Liger's rms_norm: `if casting_mode == _CASTING_MODE_LLAMA: X_row = X_row.to(tl.float32)`
    # with `casting_mode` passed from the host at run time.
    from translator.api import parse_source
    from translator.diagnostics import TranslationError

    text = _MODE_KERNEL + (
        "def twice(x, mode):\n"
        "    out = torch.empty_like(x, dtype=torch.float32)\n"
        "    n = x.numel()\n"
        "    _twice_kernel[(triton.cdiv(n, 128),)](x, out, n, mode, BLOCK=128)\n"
        "    return out\n"
    )
    with pytest.raises(TranslationError) as info:
        parse_source(text, "modes.py", "triton")
    err = info.value
    assert err.message == (
        "`x` changes dtype in a branch of this `if` (from its tensor's dtype to float32): the "
        "test reads the tl.constexpr `mode` (passed `mode`), which the launch computes at run "
        "time, and a translated kernel keeps one dtype per value"
    )
    assert "one kernel per value" in (err.hint or "")
    assert text.splitlines()[err.loc.line - 1][err.loc.col :] == "mode == _UPCAST:"


def test_one_launch_per_mode_value_is_one_kernel_per_value(tmp_path: Path) -> None:
    # What the refusal above says to write: each launch binds the mode to a literal.
    text = _MODE_KERNEL + (
        "def twice(x, upcast: bool):\n"
        "    out = torch.empty_like(x, dtype=torch.float32)\n"
        "    n = x.numel()\n"
        "    if upcast:\n"
        "        _twice_kernel[(triton.cdiv(n, 128),)](x, out, n, 1, BLOCK=128)\n"
        "    else:\n"
        "        _twice_kernel[(triton.cdiv(n, 128),)](x, out, n, 0, BLOCK=128)\n"
        "    return out\n"
    )
    src = tmp_path / "modes.py"
    src.write_text(text)
    module = parse_file(src, "triton")
    assert sorted(k.name for k in module.kernels) == ["_twice_kernel", "_twice_kernel_v2"]
    out = tmp_path / "modes_helion.py"
    out.write_text(translate_file(src, "triton", "helion"))
    report = check_pair(src, out, src_dsl="triton", dtypes=("float16",), seeds=(0,))
    assert report.passed, report.format_text()


@pytest.mark.parametrize("renamed", [False, True])
def test_a_parameter_rebound_under_a_flag_is_refused_unless_given_a_new_name(
    renamed: bool, tmp_path: Path
) -> None:
    # Liger's `if HAS_SOFTCAPPING: softcap = softcap.to(tl.float32)`, then reads under the flag
    # (here `cap * 0.5`: the interpreter cannot call `.to` on a Python float).
    from translator.api import parse_source
    from translator.diagnostics import TranslationError

    cap = "cap_f32" if renamed else "cap"
    text = (
        "import torch\nimport triton\nimport triton.language as tl\n\n\n"
        "@triton.jit\n"
        "def _capped_kernel(x_ptr, out_ptr, n, cap, BLOCK: tl.constexpr, HAS_CAP: tl.constexpr):\n"
        "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
        "    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0).to(tl.float32)\n"
        "    if HAS_CAP:\n"
        f"        {cap} = cap * 0.5\n"
        "    if HAS_CAP:\n"
        f"        x = tl.minimum(x, {cap})\n"
        "    tl.store(out_ptr + offs, x, mask=offs < n)\n\n\n"
        "def capped(x: torch.Tensor, cap: float, has_cap: bool):\n"
        "    out = torch.empty_like(x, dtype=torch.float32)\n"
        "    n = x.numel()\n"
        "    _capped_kernel[(triton.cdiv(n, 64),)](x, out, n, cap, BLOCK=64, HAS_CAP=has_cap)\n"
        "    return out\n"
    )
    if not renamed:
        with pytest.raises(TranslationError) as info:
            parse_source(text, "capped.py", "triton")
        err = info.value
        assert err.message == (
            "`cap` is rebound in one branch of this `if` to a value the other branch does not hold"
        )
        assert "(`if FLAG: cap_2 = ...`)" in (err.hint or "") and err.loc.line == 10
        return
    src = tmp_path / "capped.py"
    src.write_text(text)
    out = tmp_path / "capped_helion.py"
    out.write_text(translate_file(src, "triton", "helion"))
    report = check_pair(src, out, src_dsl="triton", dtypes=("float32",), seeds=(0,))
    assert report.passed, report.format_text()
