"""The TileLang backend on the CPU: translations of the Helion and Triton examples compute what
their sources compute (ragged sizes, outputs poisoned), what the backend relies on at ragged
edges is what TileLang 0.1.15 does, and what it cannot write is refused with a located
diagnostic.

TileLang kernels run through the dialect's runner (``translator/dialects/tilelang/runner.py``):
each kernel is lowered to sm_90a CUDA as written (a compile check) and run through the C target
after the validation-only rewrite (shared/fragment -> local, T.Parallel -> T.grid).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

os.environ["TRITON_INTERPRET"] = "1"

import pytest  # noqa: E402
import torch  # noqa: E402

from translator.api import translate_file  # noqa: E402
from validation.equivalence import check_pair, load_inputs  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TILELANG_SPLITK = ROOT / "examples" / "tilelang" / "gemm_splitk.py"

# Every translation into TileLang (the refused examples are listed in scripts/update_goldens.py).
GOLDENS = [
    (src, golden.stem)
    for src in ("helion", "triton")
    for golden in sorted((ROOT / "examples" / src / "expected_tilelang").glob("*.py"))
]


@pytest.fixture(autouse=True)
def _repo_cwd(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def test_every_helion_and_triton_example_translates() -> None:
    assert len([g for g in GOLDENS if g[0] == "helion"]) == 18
    assert len([g for g in GOLDENS if g[0] == "triton"]) == 18


@pytest.mark.parametrize(("src", "name"), GOLDENS, ids=[f"{s}-{n}" for s, n in GOLDENS])
def test_tilelang_translation_matches_source_on_cpu(src: str, name: str) -> None:
    source = ROOT / "examples" / src / f"{name}.py"
    golden = ROOT / "examples" / src / "expected_tilelang" / f"{name}.py"
    report = check_pair(source, golden, src_dsl=src, seeds=(0,))
    assert report.rows, "no case ran"
    assert report.passed, report.format_text()


_EDGE = """
import tilelang
import tilelang.language as T


@tilelang.jit
def edge(m, n, block=32):
    @T.prim_func
    def main(x: T.Tensor((m, n), "float32"), out: T.Tensor((m, n), "float32")):
        with T.Kernel(T.ceildiv(n, block), T.ceildiv(m, block), threads=128) as (bx, by):
            tile = T.alloc_fragment((block, block), "float32")
            T.copy(x[by * block, bx * block], tile)
            for i, j in T.Parallel(block, block):
                tile[i, j] = tile[i, j] + 1.0
            T.copy(tile, out[by * block, bx * block])

    return main


@tilelang.jit
def padded_sum(m, n, block=32):
    @T.prim_func
    def main(x: T.Tensor((m, n), "float32"), out: T.Tensor((m, 64), "float32")):
        with T.Kernel(T.ceildiv(m, block), threads=128) as (bx,):
            tile = T.alloc_fragment((block, 64), "float32")
            T.copy(x[bx * block, 0], tile)
            T.copy(tile, out[bx * block, 0])

    return main
"""


def test_t_copy_reads_zero_past_the_edge_and_writes_only_inside(tmp_path: Path) -> None:
    """What the backend's loads and stores rely on (tilelang 0.1.15, C target)."""
    import torch

    from validation.equivalence import prepare_runtimes
    from validation.runners import load_module

    prepare_runtimes("cpu")
    path = tmp_path / "edge.py"
    path.write_text(_EDGE)
    mod = load_module(path, "edge")
    x = torch.randn(45, 70)
    out = torch.full((45, 70), float("nan"))
    mod.edge(45, 70)(x, out)
    # Writes stop at the edge of `out` (nothing past it to poison) and every lane inside is x + 1.
    assert torch.equal(out, x + 1.0)
    # A copy into a region wider than the tensor: the lanes past column 37 read 0.
    y = torch.randn(45, 37)
    wide = torch.full((45, 64), float("nan"))
    mod.padded_sum(45, 37)(y, wide)
    assert torch.equal(wide[:, :37], y)
    assert torch.equal(wide[:, 37:], torch.zeros(45, 27))


def test_helion_scans_and_atomics_become_t_cumsum_and_t_atomic_add(tmp_path: Path) -> None:
    """The IR's scans and atomics in TileLang's own words, computing what the Helion source
    computes on ragged sizes (the atomics' last column tile runs past the end)."""
    source = ROOT / "tests" / "data" / "helion_scan_atomic.py"
    text = translate_file(source.relative_to(ROOT), "helion", "tilelang")
    assert "T.cumsum(scan_in, tmp_2, dim=1)" in text
    assert "T.atomic_add(out[bx * block_size_n], out_part)" in text
    translated = tmp_path / "helion_scan_atomic.py"
    translated.write_text(text)
    report = check_pair(source, translated, src_dsl="helion", dtypes=("float32",), seeds=(0,))
    assert {row.entry for row in report.rows} == {"row_cumsum", "column_sum"}
    assert report.passed, report.format_text()
    assert report.oracles[1][1] == "tilelang"


def test_an_atomic_at_lanes_is_a_guarded_t_atomic_add_per_lane(tmp_path: Path) -> None:
    """An atomic whose region is no tile region T.atomic_add can take whole (a scalar row
    index beside a tile) goes lane by lane, guarded to the tensor's edge."""
    import dataclasses

    from translator.api import parse_file
    from translator.dialects.tilelang.backend import emit
    from translator.ir import nodes as ir

    module = parse_file(TILELANG_SPLITK, "tilelang")
    (kernel,) = module.kernels
    atomic = next(s for s in kernel.body if isinstance(s, ir.AtomicRMW))
    # The same partial tile added into row 0 of each column tile: `C[0, tile_n]`.
    rows = (ir.ScalarIndex(ir.Const(0)), atomic.index[1])
    body = tuple(
        dataclasses.replace(s, index=rows, value=ir.Reduce("sum", s.value, 0)) if s is atomic else s
        for s in kernel.body
    )
    module = dataclasses.replace(module, kernels=(dataclasses.replace(kernel, body=body),))
    text = emit(module)
    assert "for i in T.Parallel(block_N):" in text
    assert "if bx * block_N + i < B_shape[1]:" in text
    assert "T.atomic_add(C[0, bx * block_N + i], " in text


def test_a_load_only_multiplied_goes_straight_to_shared_memory() -> None:
    """Triton's `a = tl.load(..., mask=k < K, other=0.0)` then `tl.dot(a, b, acc)`: the named
    loads are `T.copy`-ed into the shared buffers T.gemm reads (T.copy reads 0 past the edge), as
    inline loads are, not into fragments re-masked into shared buffers element by element (the
    GPU run: same tile, 305 against 610 TFLOP/s for the inline form)."""
    text = translate_file("examples/triton/matmul.py", "triton", "tilelang")
    assert "a_tile = T.alloc_shared(" in text and "b_tile = T.alloc_shared(" in text, text
    assert "T.gemm(a_tile, b_tile, accumulator" in text, text
    assert "T.if_then_else" not in text, text


def test_a_cast_stored_right_away_is_converted_by_the_copy(tmp_path: Path) -> None:
    """Triton's `c = acc.to(tl.float16)` then `tl.store(c_ptrs, c, mask)`: `T.copy` from the
    fp32 accumulator converts, where a second fragment filled by a T.Parallel cast cost
    registers (553 against 635 TFLOP/s for the 4096^3 GEMM on the H100). A cast read twice
    keeps its fragment."""
    text = translate_file("examples/triton/matmul.py", "triton", "tilelang")
    assert "T.copy(accumulator, c[by * block_size_m, bx * block_size_n])" in text, text
    assert "T.cast(accumulator" not in text, text
    src = tmp_path / "twice.py"
    src.write_text(
        "import torch\nimport triton\nimport triton.language as tl\n\n\n"
        "@triton.jit\ndef twice_kernel(x_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):\n"
        "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
        "    mask = offs < n\n"
        "    acc = tl.load(x_ptr + offs, mask=mask).to(tl.float32) * 2.0\n"
        "    y = acc.to(tl.float16)\n"
        "    tl.store(y_ptr + offs, y, mask=mask)\n"
        "    tl.store(z_ptr + offs, y, mask=mask)\n\n\n"
        "def twice(x: torch.Tensor):\n"
        "    y, z = torch.empty_like(x), torch.empty_like(x)\n"
        "    n = x.numel()\n"
        "    twice_kernel[(triton.cdiv(n, 256),)](x, y, z, n, BLOCK=256)\n"
        "    return y, z\n"
    )
    out = tmp_path / "twice_tl.py"
    out.write_text(translate_file(str(src), "triton", "tilelang"))
    assert "T.cast(acc[" in out.read_text(), out.read_text()
    report = check_pair(src, out, src_dsl="triton", seeds=(0,))
    assert report.rows and report.passed, report.format_text()


def test_split_k_operands_go_through_registers_and_lower_at_ragged_shapes(tmp_path: Path) -> None:
    # TileLang 0.1.15 generates no CUDA for global->shared copies in a pipelined loop whose trip
    # count is the program's own (split-K's K loop) at some ragged shapes: 129x4001x131 failed
    # on the GPU with "Downcast from tirx.Sub to ir.IntImm failed", and so does lowering here.
    # Such a loop copies its operands into registers first, which lowers.
    import torch

    from translator.dialects.tilelang.runner import check_compiles
    from validation.runners import load_module

    out = tmp_path / "splitk_tl.py"
    out.write_text(translate_file("examples/triton/matmul_splitk.py", "triton", "tilelang"))
    jit = load_module(out, "splitk_tl").matmul_splitk_kernel
    m, k, n = 129, 4001, 131
    a, b = torch.empty(m, k, dtype=torch.float16), torch.empty(k, n, dtype=torch.float16)
    c = torch.empty(m, n)
    args = (a.shape, a.stride(), "float16", b.shape, b.stride(), "float16")
    args += (c.shape, c.stride(), "float32", 4)
    check_compiles(jit.get_tir(*args))


def test_dot_operands_are_copied_through_tma_at_large_tiles_only(tmp_path: Path) -> None:
    """TMA copies of the dot operands make TileLang 0.1.15 warp-specialize the pipelined K loop
    (a producer warpgroup, 240 registers a consumer thread: 1 CTA per SM on the H100): what
    makes 128x128 tiles fast, while 64x64 ran at 0.52-0.61x Triton. The factory decides by tile
    size; only the global->shared operand copies carry the hint (not the store)."""
    import tilelang
    import torch
    import tvm

    from translator.dialects.tilelang.runner import CUDA_CHECK_TARGET
    from validation.runners import load_module

    text = translate_file("examples/triton/matmul_block_ptr.py", "triton", "tilelang")
    assert "    use_tma = block_m * block_n >= 128 * 128\n" in text, text
    assert text.count("disable_tma=not use_tma") == 2, text
    assert "T.copy(accumulator, c[by * block_m, bx * block_n])\n" in text, text
    out = tmp_path / "block_ptr_tl.py"
    out.write_text(text)
    jit = load_module(out, "block_ptr_tl").matmul_block_ptr_kernel
    a = torch.empty(256, 256, dtype=torch.float16)
    args = (a.shape, a.stride(), "float16") * 3

    def cuda(block_m: int, block_n: int, block_k: int) -> str:
        func = jit.get_tir(*args, block_m=block_m, block_n=block_n, block_k=block_k)
        with tvm.target.Target(CUDA_CHECK_TARGET):
            return tilelang.lower(func).kernel_source

    small, large = cuda(64, 64, 32), cuda(128, 128, 64)
    # Small tiles: cp.async into shared memory, one warpgroup, no register reallocation.
    assert "tma_load" not in small and "warpgroup_reg_alloc" not in small
    assert "cp_async_gs" in small and "__launch_bounds__(128, 1)" in small
    # Large tiles: TMA loads by a producer warpgroup beside the 128 MMA threads.
    assert "tma_load" in large and "warpgroup_reg_alloc" in large
    assert "__launch_bounds__(256, 1)" in large


def test_an_autotuned_translation_takes_views_that_are_not_row_major() -> None:
    # TileLang's autotuner times configs on new row-major tensors, so the launch of an autotuned
    # factory goes through `_row_major` copies (and `_copied_back` for what it writes). A
    # transposed operand takes the copy; the pitched `out` of matmul_host_descriptor (N % 8 != 0
    # with fp16) is written back through it.
    import torch

    def transposed(entry: str, device: str, dtype: str) -> tuple | None:
        g = torch.Generator().manual_seed(0)
        dt = getattr(torch, dtype)
        x = torch.randn(45, 37, generator=g).to(device=device, dtype=dt).t()
        y = torch.randn(45, 29, generator=g).to(device=device, dtype=dt)
        assert not x.is_contiguous()
        return (x, y) if entry == "matmul" else None

    golden = ROOT / "examples/helion/expected_tilelang/matmul.py"
    assert "_row_major(x)" in golden.read_text()
    report = check_pair(
        ROOT / "examples/helion/matmul.py",
        golden,
        src_dsl="helion",
        dtypes=("float32",),
        seeds=(0,),
        inputs=transposed,
    )
    assert report.rows, "no case ran"
    assert report.passed, report.format_text()

    def pitched(entry: str, device: str, dtype: str) -> tuple | None:
        g = torch.Generator().manual_seed(1)
        a = torch.randn(33, 37, generator=g).to(device=device, dtype=torch.float16)
        b = torch.randn(37, 29, generator=g).to(device=device, dtype=torch.float16)
        return (a, b) if entry == "matmul_host_descriptor" else None

    golden = ROOT / "examples/triton/expected_tilelang/matmul_host_descriptor.py"
    assert "(c, c_row_major)" in golden.read_text()
    report = check_pair(
        ROOT / "examples/triton/matmul_host_descriptor.py",
        golden,
        src_dsl="triton",
        dtypes=("float16",),
        seeds=(0,),
        inputs=pitched,
    )
    assert report.rows, "no case ran"
    assert report.passed, report.format_text()


def test_row_major_launch_takes_fresh_names_and_keeps_decorators_on_the_factory() -> None:
    # Review of 9f0c858: the source's `c_row_major` was overwritten by the prelude, and a kept
    # decorator of the source kernel landed on the `_row_major`/`_copied_back` helpers too.
    from translator.api import translate_source

    source = (ROOT / "examples/triton/matmul.py").read_text()
    assert "    return c\n" in source
    clashing = source.replace(
        "    return c\n", "    c_row_major = torch.zeros(3)\n    return c, c_row_major\n"
    )
    out = translate_source(clashing, "matmul.py", "triton", "tilelang")
    assert "c_row_major_2 = " in out.replace("b_row_major, c_row_major_2 =", "c_row_major_2 =")
    assert "(c, c_row_major_2)" in out
    assert "return c, c_row_major\n" in out

    helion = (
        "import helion\nimport helion.language as hl\nimport torch\n\n\n"
        "def traced(fn):\n    return fn\n\n\n"
        "@traced\n@helion.kernel(\n    static_shapes=True,\n    configs=[\n"
        "        helion.Config(block_sizes=[128, 128, 64], num_warps=4, num_stages=4),\n"
        "        helion.Config(block_sizes=[64, 128, 64], num_warps=4, num_stages=4),\n"
        "    ],\n)\n"
        "def matmul_into(x: torch.Tensor, y: torch.Tensor, out: torch.Tensor) -> None:\n"
        "    for tile_m, tile_n in hl.tile([x.size(0), y.size(1)]):\n"
        "        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)\n"
        "        for tile_k in hl.tile(x.size(1)):\n"
        "            acc = torch.addmm(acc, x[tile_m, tile_k], y[tile_k, tile_n])\n"
        "        out[tile_m, tile_n] = acc.to(out.dtype)\n"
    )
    out = translate_source(helion, "matmul_into.py", "helion", "tilelang")
    assert out.count("@traced\n") == 1
    # The source's decorator stays outermost, above the memo of the tuned kernel.
    assert re.search(r"@traced\n(#.*\n)*@functools\.cache\n@tilelang\.autotune\(", out), out
    assert "\ndef _row_major(" in out and "@traced\ndef _row_major" not in out


def test_the_future_import_goes_even_under_a_comment_heading(tmp_path: Path) -> None:
    # TileLang reads a prim_func's string annotations in the factory's closure only for the
    # names its body reads: `x_strides` was undefined at run time. Helion's examples put a
    # `# Imports` heading over the import, which hid it from the drop.
    from translator.api import translate_source

    text = (ROOT / "examples" / "helion" / "add.py").read_text()
    assert "from __future__ import annotations\n" in text
    text = text.replace(
        "from __future__ import annotations\n",
        "# %%\n# Imports\n# -------\nfrom __future__ import annotations\n",
        1,
    )
    src = tmp_path / "add_heading.py"
    src.write_text(text)
    out = tmp_path / "add_heading_tl.py"
    out.write_text(translate_source(text, str(src), "helion", "tilelang"))
    assert "from __future__ import annotations" not in out.read_text()
    report = check_pair(src, out, src_dsl="helion", seeds=(0,), dtypes=("float32",))
    assert report.rows and report.passed, report.format_text()


_BROADCAST = """
from __future__ import annotations

import helion
import helion.language as hl
import torch


@helion.kernel(config=helion.Config(block_sizes=[16]))
def scale_rows(x: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m in hl.tile(m):
        out[tile_m, :] = x[tile_m, :] * r[tile_m, :]
    return out
"""


def test_a_whole_dim_of_one_element_broadcasts_against_a_wider_one(tmp_path: Path) -> None:
    # `r[tile_m, :]` of an [m, 1] tensor times `x[tile_m, :]` (torch broadcasting in Helion):
    # r's fragment has one column, read at `j % its block`; it was read at `j`.
    import torch

    src = tmp_path / "scale_rows.py"
    src.write_text(_BROADCAST)
    out = tmp_path / "scale_rows_tl.py"
    out.write_text(translate_file(str(src), "helion", "tilelang"))
    assert "r_tile[i, j % r_shape_1_block]" in out.read_text(), out.read_text()

    def inputs(entry: str, device: str, dtype: str) -> tuple:
        dt = getattr(torch, dtype)
        return torch.randn(37, 45, dtype=dt), torch.randn(37, 1, dtype=dt)

    report = check_pair(src, out, src_dsl="helion", seeds=(0,), dtypes=("float32",), inputs=inputs)
    assert report.rows and report.passed, report.format_text()


def test_a_gemm_tile_too_small_for_the_configs_warps_caps_the_threads(tmp_path: Path) -> None:
    # Helion's 16x16x16 GEMM config on 4 warps: T.gemm splits a tile over warps of 16 rows by
    # 8 columns, so TileLang 0.1.15 found no warp partition ("No valid warp partition for
    # T.gemm: M=16") and the translation raised. The factory caps the threads.
    text = (ROOT / "examples" / "library" / "helion" / "matmul_epilogue.py").read_text()
    assert "block_sizes=[16, 16, 16], num_warps=4" in text
    out = tmp_path / "matmul_epilogue_tl.py"
    out.write_text(
        translate_file("examples/library/helion/matmul_epilogue.py", "helion", "tilelang")
    )
    cap = "threads = min(threads, 32 * max(1, block_size_m // 16) * max(1, block_size_n // 8))"
    assert cap in out.read_text(), out.read_text()
    report = check_pair(
        "examples/library/helion/matmul_epilogue.py",
        out,
        src_dsl="helion",
        seeds=(0,),
        dtypes=("float32",),
        inputs=load_inputs("examples/library/inputs.py:inputs"),
    )
    assert report.rows and report.passed, report.format_text()


def test_a_fragment_read_only_under_branches_is_filled_by_a_parallel_loop(tmp_path: Path) -> None:
    # kl_div_rows' forward keeps a per-row partial sum only where `reduction != "none"`.
    # `reduction` is a factory argument, so TileLang drops those branches at
    # `reduction="none"`; a fragment only `T.clear` then touched had no layout ("can not be
    # inferred") and kl_div_elementwise failed to compile. A T.Parallel fill gives it one.
    source = "examples/library/helion/kl_div_rows.py"
    golden = tmp_path / "kl_div_rows.py"
    golden.write_text(translate_file(source, "helion", "tilelang"))
    kernel = golden.read_text().split("def _kl_div_rows_fwd_kernel(")[1].split("\n\n\n")[0]
    assert 'if reduction == "none":' in kernel and "T.clear(row)" not in kernel
    report = check_pair(
        source,
        golden,
        src_dsl="helion",
        seeds=(0,),
        dtypes=("float32",),
        inputs=load_inputs("examples/library/inputs.py:inputs"),
    )
    assert report.passed, report.format_text()
    # Both modes ran: the elementwise loss (branches dropped) and the batch mean (kept).
    assert {"kl_div_elementwise", "kl_div_batchmean"} <= {row.entry for row in report.rows}


GATHERS = ROOT / "tests" / "data" / "helion_gathers.py"


def gather_inputs(entry: str, device: str, dtype: str) -> tuple:
    """Ragged inputs of ``tests/data/helion_gathers.py``: ids that repeat and skip rows, a
    permutation (a scatter's rows written once each), lengths from 0 to the whole row."""
    g = torch.Generator().manual_seed(0)
    d = getattr(torch, dtype)

    def randn(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=g).to(device=device, dtype=d)

    def ints(high: int, n: int) -> torch.Tensor:
        return torch.randint(0, high, (n,), generator=g).to(device)

    return {
        "scaled_lookup": lambda: (ints(23, 37), randn(23, 45), 0.5),
        "target_margin": lambda: (randn(13, 37), ints(37, 13)),
        "permute_rows": lambda: (randn(29, 45), torch.randperm(29, generator=g).to(device)),
        "keep_prefix": lambda: (randn(19, 45), ints(46, 19)),
        "zero_dropped_rows": lambda: (randn(3, 19, 45), ints(2, 57).reshape(3, 19)),
    }[entry]()


def test_gathers_scatters_and_data_masks_are_guarded_element_loops(tmp_path: Path) -> None:
    """A gathered dim reads its index tile at the loop's lanes (`table[ids[...], ...]`, as
    TileLang's own examples write), a scatter writes through it under the lanes' guard, and a
    load masked by data (`extra_mask=`) reads only where its predicate holds; all compute what
    the Helion source computes at ragged sizes."""
    text = translate_file(GATHERS.relative_to(ROOT), "helion", "tilelang")
    assert "table[ids[by * block_size_b + i], bx * block_size_d + j]" in text, text
    assert "flat[(bx * block_size_n + i) * v + targets[bx * block_size_n + i]]" in text, text
    assert "if by * block_size_m + i < m and bx * block_size_n + j < n:" in text, text
    assert "out[dest[by * block_size_m + i], bx * block_size_n + j] = " in text, text
    assert "bx * block_size_n + j < n and inside[i, j]," in text, text
    # zero_dropped_rows: a loop over (rows, columns) tiles is the two loops, nested.
    assert "for m_o in T.serial(T.ceildiv(m, block_size_m)):" in text, text
    assert "    for n_o in T.serial(T.ceildiv(n, block_size_n)):" in text, text
    assert "T.Not(kept[i])" in text, text
    translated = tmp_path / "helion_gathers_tilelang.py"
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


_HEADER = """
import torch
import triton
import triton.language as tl
"""

_WHERE_ONE = (
    _HEADER
    + """

@triton.jit
def _where_one_kernel(x_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + offs, mask=offs < n_cols, other=0.0).to(tl.float32)
    # The lanes past n_cols hold 1.0, and the unmasked sum counts them.
    y = tl.where(offs < n_cols, x, 1.0)
    tl.store(out_ptr + row, tl.sum(y, axis=0))


def sum_padded_with_ones(x: torch.Tensor) -> torch.Tensor:
    m, n = x.shape
    out = torch.empty(m, dtype=torch.float32, device=x.device)
    _where_one_kernel[(m,)](x, out, n, x.stride(0), BLOCK=triton.next_power_of_2(n))
    return out
"""
)

_BRANCHED = (
    _HEADER
    + """

@triton.jit
def _branched_kernel(x_ptr, out_ptr, n_cols, stride, ones, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + offs, mask=offs < n_cols, other=0.0).to(tl.float32)
    y = tl.where(offs < n_cols, x, 0.0)
    if ones > 0:
        # Only on this branch do the lanes past the edge hold 1.0.
        y = tl.where(offs < n_cols, x, 1.0)
    tl.store(out_ptr + row, tl.sum(y, axis=0))


def branched_padding(x: torch.Tensor, ones: int) -> torch.Tensor:
    m, n = x.shape
    out = torch.empty(m, dtype=torch.float32, device=x.device)
    _branched_kernel[(m,)](x, out, n, x.stride(0), ones, BLOCK=triton.next_power_of_2(n))
    return out
"""
)


def test_an_unmasked_sum_reads_the_padding_the_ir_says(tmp_path: Path) -> None:
    """Before an unmasked reduction the select loop writes the lanes past the edge with the
    value the IR gives them (1.0 from the `tl.where`), not the sum's identity."""
    source = tmp_path / "where_one.py"
    source.write_text(_WHERE_ONE)
    text = translate_file(source, "triton", "tilelang")
    assert "T.if_then_else(i < x_shape[1], y[i], 1.0)" in text
    translated = tmp_path / "where_one_tl.py"
    translated.write_text(text)
    report = check_pair(source, translated, src_dsl="triton", dtypes=("float32",), seeds=(0,))
    assert report.passed, report.format_text()


def test_an_unmasked_sum_of_lanes_set_in_a_branch_is_refused(tmp_path: Path) -> None:
    """After an `if` that rebinds a value, its invalid lanes hold one of two numbers: the sum
    is refused at its line (the backend had padded with the last binding's 1.0: wrong
    numbers whenever the branch is not taken)."""
    from translator.diagnostics import TranslationError

    source = tmp_path / "branched.py"
    source.write_text(_BRANCHED)
    with pytest.raises(TranslationError) as err:
        translate_file(source, "triton", "tilelang")
    line = _BRANCHED[: _BRANCHED.index("tl.store(out_ptr + row, tl.sum(y")].count("\n") + 1
    assert err.value.loc is not None and err.value.loc.line == line
    assert "cannot tell" in str(err.value)


_BOOL_MASKS = """
import helion
import helion.language as hl
import torch


@helion.kernel(config=helion.Config(block_sizes=[16, 32]))
def keep_valid_pairs(x: torch.Tensor, row_ids: torch.Tensor, col_ids: torch.Tensor, rows: int) -> torch.Tensor:
    m, n = x.shape
    out = torch.empty_like(x)
    for tile_m, tile_n in hl.tile([m, n]):
        row_valid = row_ids[tile_m] < rows
        col_valid = col_ids[tile_n] < n
        # A 2-D mask from two 1-D ones, as MoE kernels build their load masks.
        both = row_valid[:, None] & col_valid[None, :]
        out[tile_m, tile_n] = torch.where(both, x[tile_m, tile_n], 0.0)
    return out
"""


def _bool_mask_inputs(entry: str, device: str, dtype: str) -> tuple:
    g = torch.Generator().manual_seed(0)
    x = torch.randn(37, 70, generator=g).to(device=device, dtype=getattr(torch, dtype))
    row_ids = torch.randint(0, 40, (37,), generator=g).to(device)
    col_ids = torch.randint(0, 90, (70,), generator=g).to(device)
    return (x, row_ids, col_ids, 30)


def test_a_2d_bool_mask_is_kept_as_bytes_and_lowers_to_cuda(tmp_path: Path) -> None:
    """TileLang 0.1.15 vectorises a T.Parallel loop writing a 2-D bool fragment that combines
    bools into `boolx16`, which it cannot lower to CUDA; such a mask is a uint8 fragment written
    by a select and read back with `!= 0`. The check lowers the kernel to sm_90a as written and runs
    it on the C target against the Helion source."""
    source = tmp_path / "bool_masks.py"
    source.write_text(_BOOL_MASKS)
    text = translate_file(source, "helion", "tilelang")
    assert re.search(r'both = T.alloc_fragment\(\(\w+, \w+\), "uint8"\)', text), text
    assert "both[i, j] != T.uint8(0)" in text, text
    translated = tmp_path / "bool_masks_tl.py"
    translated.write_text(text)
    report = check_pair(
        source,
        translated,
        src_dsl="helion",
        dtypes=("float32",),
        seeds=(0,),
        inputs=_bool_mask_inputs,
    )
    assert report.rows and report.passed, report.format_text()


def test_the_search_space_keeps_the_sources_configs_first_then_adds_measured_variants() -> None:
    """The source's configs come first and in order (its first config stays the factory's
    default); then its largest dot tiles pipelined 4 deep and with TileLang's own swizzle
    panel of 10, which Triton's GROUP_SIZE_M=8 is not (measured, BENCHMARKS.md)."""
    import ast

    text = translate_file("examples/triton/matmul.py", "triton", "tilelang")
    call = next(
        node
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "autotune"
    )
    configs = ast.literal_eval(next(k.value for k in call.keywords if k.arg == "configs"))
    source = [c for c in configs if c["group_size"] == 8]
    assert configs[: len(source)] == source and len(source) == 7
    assert (source[0]["block_size_m"], source[0]["block_size_n"]) == (128, 256)
    panels = configs[len(source) :]
    assert panels and all(c["group_size"] == 10 for c in panels)
    assert {(c["block_size_m"], c["block_size_n"]) for c in panels} == {(128, 256)}
    assert {c["num_stages"] for c in panels} == {3, 4}


PADDING = ROOT / "tests" / "data" / "tilelang_padding"


def _padding_inputs(entry: str, device: str, dtype: str) -> tuple:
    g = torch.Generator().manual_seed(0)
    x = (torch.rand(5, 37, generator=g) * 0.5).to(device=device, dtype=getattr(torch, dtype))
    return {"sums": (x, x.clone()), "both_pos": (x - 0.25, 0.25 - x)}.get(entry, (x,))


@pytest.mark.parametrize("name", ["rebind_sum", "reused_sums", "both_positive"])
def test_padding_follows_each_binding_of_a_rebound_name(name: str, tmp_path: Path) -> None:
    """A reduction in the statement that rebinds a name reads the padding of the value before
    it (`xt = where(m, xt + sum(xt), 1.0)`); a buffer that a copy once left 0 past the edge
    keeps no such fact once rewritten; a name rebound to a combination of bools is a byte mask
    from its first binding. Each was wrong numbers or a kernel that did not lower (review)."""
    source = PADDING / f"{name}.py"
    text = translate_file(source, "cutile", "tilelang")
    translated = tmp_path / f"{name}_tl.py"
    translated.write_text(text)
    report = check_pair(
        source,
        translated,
        src_dsl="cutile",
        dtypes=("float32",),
        seeds=(0,),
        inputs=_padding_inputs,
    )
    assert report.rows and report.passed, report.format_text()


def test_lanes_no_load_defines_are_padded_freely_only_where_nothing_else_decides_them() -> None:
    from translator.diagnostics import TranslationError

    # The softmax reads the lanes its undefined padding leaves (the launch sizes the tile to
    # the row): any padding is right, the reduction's identity is written.
    assert "T.reduce_max" in translate_file(PADDING / "inplace_softmax.py", "cutile", "tilelang")
    # `where(valid, x, 1.0) + shift`: the lanes hold 1.0 + shift, which the IR does not fold.
    with pytest.raises(TranslationError, match="cannot tell"):
        translate_file(PADDING / "shifted_sum.py", "cutile", "tilelang")
