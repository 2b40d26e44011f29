"""Styles of the public Helion examples (pytorch/helion ``examples/``) the frontend reads, and the
ones it refuses with a diagnostic that says what to write instead.

Each accepted style is translated to Triton and run against its source on the CPU
(``TRITON_INTERPRET=1``) at sizes that reach the style's edge (several row blocks, a ragged
last one); each refusal is checked for its location, its message and its help.
"""

from __future__ import annotations

import os

# Kernels run in Triton's interpreter; set it before anything imports triton.
os.environ["TRITON_INTERPRET"] = "1"

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from translator.api import parse_source, translate_file, translate_source  # noqa: E402
from translator.diagnostics import TranslationError  # noqa: E402
from translator.ir import nodes as ir  # noqa: E402
from validation.equivalence import check_pair  # noqa: E402

HEADER = "import helion\nimport helion.language as hl\nimport torch\n\n\n"

# rms_norm's backward: dw partials, one row per block of rows, in a buffer the host sizes by the
# kernel's registered row block.
PARTIALS = (
    HEADER
    + "@helion.kernel({config})\n"
    + "def col_sums(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:\n"
    + "    block_m = hl.register_block_size(x.size(0))\n"
    + "    partial = x.new_empty([helion.cdiv(x.size(0), block_m), *w.shape], "
    + "dtype=torch.float32)\n"
    + "    n = hl.specialize(w.size(0))\n"
    + "    for rows in hl.tile(x.size(0), block_size=block_m):\n"
    + "        acc = w.new_zeros(n, dtype=torch.float32)\n"
    + "        for sub in hl.tile(rows.begin, rows.end):\n"
    + "            acc += (x[sub, :].to(torch.float32) * w[None, :].to(torch.float32)).sum(0)\n"
    + "        partial[rows.id, :] = acc\n"
    + "    return partial.sum(0)\n"
)


def _translate(tmp_path: Path, text: str, name: str = "k.py") -> tuple[Path, str]:
    source = tmp_path / name
    source.write_text(text)
    return source, translate_file(source, "helion", "triton")


def _assert_equivalent(source: Path, text: str, tmp_path: Path, **sizes: int) -> None:
    translated = tmp_path / f"{source.stem}_triton.py"
    translated.write_text(text)
    report = check_pair(source, translated, dtypes=("float32",), seeds=(0,), sizes=sizes)
    assert report.passed, report.format_text()


def test_a_registered_block_host_code_reads_is_fixed_at_helions_default(tmp_path: Path) -> None:
    source, text = _translate(tmp_path, PARTIALS.format(config=""))
    # The host binds the block as a plain int (Helion's default block, no config names one),
    # sizes the partials by it in plain Python, and the kernel's row tile is that block.
    assert "was `hl.register_block_size(x.size(0))`: host code sizes" in text
    assert "    block_m = 32\n" in text
    assert "[(x.size(0) + block_m - 1) // block_m, *w.shape]" in text
    assert "import helion" not in text and "helion.cdiv" not in text
    assert "pid_rows * 32 + tl.arange(0, 32)" in text
    # The row block is in no config; the loop inside one row block is searched up to it.
    assert '"BLOCK_M"' not in text and "block_m=" not in text
    assert '"BLOCK_SIZE_SUB": 32' in text and '"BLOCK_SIZE_SUB": 1024' not in text
    # 70 rows: three row blocks, the last ragged.
    _assert_equivalent(source, text, tmp_path, **{"x.size(0)": 70})


def test_a_fixed_block_takes_the_first_configs_value_and_drops_configs_of_another(
    tmp_path: Path,
) -> None:
    config = (
        "configs=[helion.Config(block_sizes=[16, 8], num_warps=2), "
        "helion.Config(block_sizes=[64, 8], num_warps=8), "
        "helion.Config(block_sizes=[16, 16], num_warps=4)]"
    )
    source, text = _translate(tmp_path, PARTIALS.format(config=config))
    assert "    block_m = 16\n" in text and "fixed at the first config's block" in text
    # The config that chose a 64-row block cannot run with the host's buffer: it is dropped.
    assert "num_warps=8" not in text
    assert '"BLOCK_SIZE_SUB": 8' in text and '"BLOCK_SIZE_SUB": 16' in text
    _assert_equivalent(source, text, tmp_path, **{"x.size(0)": 70})


def test_a_registered_block_only_the_loops_read_stays_tuned() -> None:
    text = translate_source(
        HEADER
        + "@helion.kernel()\n"
        + "def double(x: torch.Tensor) -> torch.Tensor:\n"
        + "    block_m = hl.register_block_size(x.size(0))\n"
        + "    out = torch.empty_like(x)\n"
        + "    for tile in hl.tile(x.size(0), block_size=block_m):\n"
        + "        out[tile] = x[tile] * 2.0\n"
        + "    return out\n",
        "k.py",
        "helion",
        "triton",
    )
    assert "block_m = 32" not in text and "BLOCK_M: tl.constexpr" in text


def test_a_spliced_shape_of_a_tensor_no_statement_ranks_is_refused() -> None:
    text = PARTIALS.format(config="").replace("w[None, :]", "w")
    with pytest.raises(TranslationError) as err:
        parse_source(text, "k.py", "helion")
    assert "splices in the shape of `w`, whose rank nothing before it states" in err.value.message
    assert "n, = w.shape" in (err.value.hint or "")
    assert err.value.loc is not None
    line = text.splitlines()[err.value.loc.line - 1]
    assert line[err.value.loc.col :].startswith("*w.shape")


def test_new_zeros_of_a_host_tensor_in_device_code_is_a_tile_of_its_dtype(
    tmp_path: Path,
) -> None:
    # `w.new_zeros(n)` without dtype= takes w's dtype; `new_full` its fill.
    source, text = _translate(
        tmp_path,
        HEADER
        + "@helion.kernel()\n"
        + "def fill(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:\n"
        + "    m, n = x.size()\n"
        + "    n = hl.specialize(n)\n"
        + "    out = torch.empty_like(x)\n"
        + "    for tile_m in hl.tile(m):\n"
        + "        base = w.new_full([tile_m, n], 0.5) + w.new_zeros([tile_m, n])\n"
        + "        out[tile_m, :] = x[tile_m, :] + base * w[None, :]\n"
        + "    return out\n",
    )
    assert "tl.full((BLOCK_SIZE_M, BLOCK_N), 0.5, dtype=w_ptr.dtype.element_ty)" in text
    _assert_equivalent(source, text, tmp_path)


# Helion's KL divergence: the loss buffer the host allocates by the reduction mode.
KL_DIV = (
    HEADER
    + "@helion.kernel()\n"
    + "def kl(y: torch.Tensor, t: torch.Tensor, reduction: str = 'none') -> torch.Tensor:\n"
    + "    bt, v = y.shape\n"
    + "    if reduction == 'none':\n"
    + "        loss = torch.zeros_like(y)\n"
    + "    else:\n"
    + "        loss = torch.zeros({rows}, dtype=torch.float32, device=y.device)\n"
    + "    for tile_bt in hl.tile(bt):\n"
    + "        acc = hl.zeros([tile_bt], dtype=torch.float32)\n"
    + "        for tile_v in hl.tile(v):\n"
    + "            term = t[tile_bt, tile_v] * (torch.log(t[tile_bt, tile_v]) - y[tile_bt, tile_v])\n"
    + "            if reduction == 'none':\n"
    + "                loss[tile_bt, tile_v] = term\n"
    + "            else:\n"
    + "                acc += term.sum(-1)\n"
    + "        if reduction != 'none':\n"
    + "            {row_store} = acc\n"
    + "    return loss\n"
)


def test_a_buffer_allocated_with_two_ranks_by_a_string_choice_is_split_per_side() -> None:
    # Helion compiles a kernel per value of a `str` argument; the translation one per side of
    # the test that allocates (CPU equivalence: test_helion_optional_tensors.py).
    module = parse_source(KL_DIV.format(rows="(bt,)", row_store="loss[tile_bt]"), "k.py", "helion")
    assert sorted(k.name for k in module.kernels) == [
        "_kl_reduction_none_kernel",
        "_kl_reduction_not_none_kernel",
    ]


def test_a_buffer_allocated_with_two_ranks_by_host_branches_is_refused_at_the_store() -> None:
    # A test of sizes is no compile-time choice: nothing to split on.
    text = KL_DIV.format(rows="(bt,)", row_store="loss[tile_bt]").replace(
        "    if reduction == 'none':\n        loss", "    if bt > 64:\n        loss"
    )
    with pytest.raises(TranslationError) as err:
        parse_source(text, "k.py", "helion")
    assert "`loss` is allocated 1-d or 2-d by the branches of the host statement at line 9" in (
        err.value.message
    )
    assert "`torch.zeros((m, 1), ...)`" in (err.value.hint or "")
    assert "`out[tile_m, 0] = ...`" in (err.value.hint or "")
    assert err.value.loc is not None
    line = text.splitlines()[err.value.loc.line - 1]
    assert line.strip() == "loss[tile_bt, tile_v] = term"


def test_a_buffer_allocated_with_one_rank_by_host_branches_is_carried(tmp_path: Path) -> None:
    # What the refusal says to write: a column per row, stored at column 0.
    source, text = _translate(tmp_path, KL_DIV.format(rows="(bt, 1)", row_store="loss[tile_bt, 0]"))
    assert "    if reduction == 'none':\n        loss = torch.zeros_like(y)\n" in text
    assert "reduction: tl.constexpr" in text
    _assert_equivalent(source, text, tmp_path)
    _assert_equivalent(source, text.replace("'none'", "'sum'", 1), tmp_path)


def test_a_name_one_branch_binds_says_where_when_read_later() -> None:
    body = (
        HEADER
        + "@helion.kernel()\n"
        + "def f(x: torch.Tensor, flag: hl.constexpr) -> torch.Tensor:\n"
        + "    out = torch.empty_like(x)\n"
        + "    for tile in hl.tile(x.size(0)):\n"
        + "        v = x[tile]\n"
        + "{branches}"
        + "        out[tile] = v * scale\n"
        + "    return out\n"
    )
    one_side = "        if flag:\n            scale = torch.exp(v)\n"
    two_types = (
        "        if flag == 1:\n            scale = 2\n"
        "        elif flag == 2:\n            scale = x.size(0)\n"
        "        else:\n            scale = 1.5\n"
    )
    for branches, why, test in (
        (one_side, "is bound on one side of `if flag:` (line {}) only", "if flag:"),
        (
            two_types,
            "is bound to an int32 scalar and a float32 scalar by the two sides of "
            "`if flag == 2:` (line {})",
            "elif flag == 2:",
        ),
    ):
        text = body.format(branches=branches)
        why = why.format(text.splitlines().index(f"        {test}") + 1)
        with pytest.raises(TranslationError) as err:
            parse_source(text, "k.py", "helion")
        assert f"`scale` {why}, so it has no one value here" in err.value.message
        assert "bind `scale` to one type on every path" in (err.value.hint or "")
        assert err.value.loc is not None
        assert text.splitlines()[err.value.loc.line - 1][err.value.loc.col :].startswith("scale")


def _alloc_of(text: str, name: str) -> ir.Alloc:
    from translator.ir.visit import walk_stmts

    module = parse_source(text, "k.py", "helion")
    (entry,) = module.entries
    return next(s for s in walk_stmts(entry.body) if isinstance(s, ir.Alloc) and s.target == name)


def test_an_allocation_by_a_whole_shape_is_shaped_like_that_tensor() -> None:
    # Helion's add example: `torch.empty(x.shape, ...)` of a broadcast `x` has x's shape, however
    # many dims; it was read as a 1-d buffer of one size that no target could spell.
    body = (
        HEADER
        + "@helion.kernel()\n"
        + "def add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:\n"
        + "{unpack}"
        + "    out = torch.empty(x.shape, dtype=torch.promote_types(x.dtype, y.dtype), "
        + "device=x.device)\n"
        + "    for tile in hl.tile(out.size()):\n"
        + "        out[tile] = x[tile] + y[tile]\n"
        + "    return out\n"
    )
    unknown = _alloc_of(body.format(unpack=""), "out")
    assert unknown.shape is None and unknown.like == "x"
    with pytest.raises(TranslationError) as err:
        parse_source(body.format(unpack="    m, n = x.shape\n"), "k.py", "helion")
    # Of a 2-d `x`, the sizes are x's: the one loop target is then refused, saying what to bind.
    assert "`out` is 2-d, so hl.tile(out.size()) yields 2 tiles, but the loop binds 1" in (
        err.value.message
    )
    assert "for tile_0, tile_1 in" in (err.value.hint or "")


def test_a_jagged_tile_loop_is_refused_with_the_dense_loop_that_computes_the_same() -> None:
    # Helion's jagged_mean: `hl.jagged_tile(counts)` masks stores too, which the IR cannot; the
    # help spells the dense loop (examples/library/helion/jagged_features.py is that form).
    text = (
        HEADER
        + "@helion.kernel()\n"
        + "def f(x: torch.Tensor, counts: torch.Tensor) -> torch.Tensor:\n"
        + "    out = torch.zeros_like(x)\n"
        + "    for tile_b in hl.tile(x.size(0)):\n"
        + "        n = counts[tile_b]\n"
        + "        for tile_m in hl.jagged_tile(n):\n"
        + "            out[tile_b, tile_m] = x[tile_b, tile_m] * 2.0\n"
        + "    return out\n"
    )
    with pytest.raises(TranslationError) as err:
        parse_source(text, "k.py", "helion")
    assert "hl.jagged_tile(n) (a loop to `n.amax()` whose every load and store" in (
        err.value.message
    )
    assert "the IR masks loads by a predicate, but not stores" in err.value.message
    hint = err.value.hint or ""
    assert "`for tile_m in hl.tile(n.amax()):`" in hint
    assert "`mask = tile_m.index[None, :] < n[:, None]`" in hint
    assert "`torch.where(mask, v, 0)` into a zeroed output" in hint
    assert err.value.loc is not None
    line = text.splitlines()[err.value.loc.line - 1]
    assert line[err.value.loc.col :].startswith("hl.jagged_tile(n)")


def test_a_scalar_named_like_a_tensors_tilelang_shape_is_renamed_in_the_factory(
    tmp_path: Path,
) -> None:
    # Helion's rms_norm binds `weight_shape = hl.specialize(weight.size(0))` beside the tensor
    # `weight`, whose TileLang factory takes `weight_shape` for its shape: the factory's
    # parameter for the scalar is renamed, and the launch passes both by position.
    text = (
        HEADER
        + "@helion.kernel()\n"
        + "def scale(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:\n"
        + "    m, n = x.size()\n"
        + "    weight_shape = hl.specialize(weight.size(0))\n"
        + "    out = torch.empty_like(x)\n"
        + "    for tile_m in hl.tile(m):\n"
        + "        row = x[tile_m, :]\n"
        + "        out[tile_m, :] = row * weight[None, :] + weight_shape - row**3 * 0.5\n"
        + "    return out\n"
    )
    translated = translate_source(text, "k.py", "helion", "tilelang")
    # `row**3` (rms_norm's `rsqrt_m**3`): TileLang's expressions take no `**`.
    assert "row[i, j] * row[i, j] * row[i, j] * 0.5" in translated
    assert "    n,\n    weight_shape_2,\n    block_size_m=32," in translated
    assert "weight: T.StridedTensor(weight_shape, weight_strides, weight_dtype)" in translated
    assert "+ weight_shape_2" in translated
    # The host keeps the source's name; the factory is called with it in the renamed slot.
    assert "        n,\n        weight_shape,\n    )(x, weight, out)" in translated
    source = tmp_path / "k.py"
    source.write_text(text)
    target = tmp_path / "k_tilelang.py"
    target.write_text(translated)
    report = check_pair(source, target, dtypes=("float32",), seeds=(0,))
    assert report.passed, report.format_text()


def test_tile_index_functions_are_the_tiles_attributes(tmp_path: Path) -> None:
    # Helion's concatenate example: `hl.tile_index(tile)`, the older spelling of `tile.index`.
    text = (
        HEADER
        + "@helion.kernel(config=helion.Config(block_sizes=[16]))\n"
        + "def shifted(x: torch.Tensor) -> torch.Tensor:\n"
        + "    out = torch.empty_like(x)\n"
        + "    for tile in hl.tile(x.size(0)):\n"
        + "        out[tile] = x[tile] + hl.tile_index(tile).to(x.dtype) + hl.tile_begin(tile)\n"
        + "    return out\n"
    )
    source, translated = _translate(tmp_path, text)
    assert "hl.tile_index" not in translated
    _assert_equivalent(source, translated, tmp_path)


def test_a_barrier_between_top_level_loops_is_the_order_of_their_kernels(tmp_path: Path) -> None:
    # Helion's squeeze-and-excitation backward: `hl.barrier()` between phases of one kernel. Each
    # top-level loop is a kernel of its own here, launched after the one before it.
    text = (
        HEADER
        + "@helion.kernel(config=helion.Config(block_sizes=[16, 16]))\n"
        + "def two_phases(x: torch.Tensor) -> torch.Tensor:\n"
        + "    y = torch.empty_like(x)\n"
        + "    out = torch.empty_like(x)\n"
        + "    for tile in hl.tile(x.size(0)):\n"
        + "        y[tile] = x[tile] * 2.0\n"
        + "    hl.barrier()\n"
        + "    for tile in hl.tile(x.size(0)):\n"
        + "        out[tile] = y[tile] + y[(tile.index + 1) % x.size(0)]\n"
        + "    return out\n"
    )
    source, translated = _translate(tmp_path, text)
    assert "# tiletrans: dropped `hl.barrier()`" in translated
    assert "hl.barrier" not in translated.replace("# tiletrans: dropped `hl.barrier()`", "")
    # The source cannot run here (a grid-wide barrier waits forever in the interpreter): the
    # translation is checked against what the source computes, written in torch.
    import torch

    from validation.runners import load_module

    out = tmp_path / "two_phases_triton.py"
    out.write_text(translated)
    x = torch.randn(37)
    y = x * 2.0
    torch.testing.assert_close(load_module(out, "translated").two_phases(x), y + y.roll(-1))


_TUNED = (
    HEADER
    + "@helion.kernel(config=helion.Config(block_sizes=[32], num_warps=4))\n"
    + "def scale(x: torch.Tensor) -> torch.Tensor:\n"
    + "    out = torch.empty_like(x)\n"
    + "    for tile in hl.tile(x.size(0)):\n"
    + "        out[tile] = x[tile] * 2.0\n"
    + "    return out\n"
    + "\n\n"
    + "def autotune(n: int) -> None:\n"
    + '    x = torch.randn([n], device="cuda")\n'
    + "    best_config = scale.autotune((x,), force=True)\n"
    + '    best_config.save("best_config.json")\n'
)


def test_a_function_that_tunes_through_helions_api_is_dropped_with_a_note(
    tmp_path: Path,
) -> None:
    # pytorch/helion's template_via_closure keeps `autotune(n, k, m)` beside its kernel.
    source, text = _translate(tmp_path, _TUNED)
    assert "def autotune(" not in text and "scale.autotune(" not in text
    assert "# tiletrans: dropped `autotune`, which tuned `scale` through Helion's" in text
    _assert_equivalent(source, text, tmp_path, **{"x.size(0)": 77})


def test_a_tuning_function_the_module_calls_is_refused_where_it_is_called() -> None:
    text = _TUNED + "\n\nif __name__ == '__main__':\n    autotune(1024)\n"
    with pytest.raises(TranslationError) as err:
        translate_source(text, "k.py", "helion", "triton")
    assert "`autotune` tunes `scale` through Helion's `Kernel.autotune`" in err.value.message
    assert err.value.loc is not None
    line = text.splitlines()[err.value.loc.line - 1]
    assert line[err.value.loc.col :] == "autotune(1024)"


def test_a_jagged_tensor_parameter_is_refused_at_its_annotation() -> None:
    # pytorch/helion's jagged_dense_add takes `jt: hl.JaggedTensor` and reads `jt.num_rows`.
    text = (
        HEADER
        + "@helion.kernel()\n"
        + "def add(jt: hl.JaggedTensor, y: torch.Tensor) -> torch.Tensor:\n"
        + "    out = y.clone()\n"
        + "    for tile_row in hl.tile(jt.num_rows):\n"
        + "        for tile_col in hl.tile(jt.max_length):\n"
        + "            out[tile_row, tile_col] = out[tile_row, tile_col] + jt[tile_row, tile_col]\n"
        + "    return out\n"
    )
    with pytest.raises(TranslationError) as err:
        translate_source(text, "k.py", "helion", "triton")
    assert err.value.message == "`hl.JaggedTensor` parameters are not supported"
    assert "pass its values and offsets as two tensors" in (err.value.hint or "")
    assert err.value.loc is not None
    line = text.splitlines()[err.value.loc.line - 1]
    assert line[err.value.loc.col :].startswith("hl.JaggedTensor, y")
