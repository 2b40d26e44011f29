"""Stream-K (``examples/library/triton/streamk_gemm.py``): a ``while`` over each program's share of
a GEMM's K iterations, through every part that reads or writes it.

* the Triton frontend: the IR it lifts (a while loop over carried scalars, the output tile and
  the K tile as loops over one tile at computed ids), run by the reference interpreter against
  the source in Triton's interpreter; and what it refuses, with where and why;
* the Triton backend writes the source's shape back (offsets, not loops, for the one-tile loops;
  plain ``//`` of the nonnegative scalars), and it computes what the source computes;
* the Helion backend writes what a Helion engineer would (``hl.grid`` programs, a ``while`` over
  0-d int64 tensors, ``hl.tile`` between per-program bounds), the Helion frontend reads it back;
* cuTile and TileLang refuse it with a located diagnostic.

The library tests (``tests/test_library_translation.py``) run the Helion golden and its round
trip against the source on the CPU.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

os.environ["TRITON_INTERPRET"] = "1"
os.environ.pop("HELION_INTERPRET", None)

import pytest  # noqa: E402
import torch  # noqa: E402
from ir_build import hand_module, inline_entry  # noqa: E402

from translator.api import emit, parse_file, parse_source, translate_file  # noqa: E402
from translator.diagnostics import TranslationError  # noqa: E402
from translator.dialects import get_dialect  # noqa: E402
from translator.ir import nodes as ir  # noqa: E402
from translator.ir.interpreter import run_kernel, run_module  # noqa: E402
from translator.ir.single_tile import at_extent, at_id  # noqa: E402
from translator.ir.visit import walk_stmts  # noqa: E402
from validation.equivalence import check_pair  # noqa: E402
from validation.runners import load_module, pin_first_configs  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "examples" / "library" / "triton" / "streamk_gemm.py"
GOLDEN = ROOT / "examples" / "library" / "triton" / "expected_helion" / "streamk_gemm.py"
SIZES = [(17, 45, 37), (16, 16, 16), (64, 48, 100), (5, 70, 3)]


def kernel_of(module: ir.Module) -> ir.Kernel:
    (kernel,) = module.kernels
    return kernel


def loops(kernel: ir.Kernel) -> list[ir.TileLoop]:
    return [s for s in walk_stmts(kernel.body) if isinstance(s, ir.TileLoop)]


# --------------------------------------------------------------------------------------------------
# The Triton frontend


def test_the_lifted_kernel_walks_its_share_in_a_while_loop() -> None:
    kernel = kernel_of(parse_file(SOURCE, "triton"))
    (pid,) = kernel.grid
    assert pid.scalar and pid.extent == ir.Const(5)  # NUM_SM programs
    start, last, loop = kernel.body
    assert isinstance(start, ir.Assign) and start.target == "start_iter"
    assert isinstance(last, ir.Assign) and last.target == "last_iter"
    assert isinstance(loop, ir.While)
    assert loop.test == ir.BinOp("<", ir.Name("start_iter"), ir.Name("last_iter"))
    assert loop.comments == ("One pass per tile this program's range of iterations touches.",)
    # The carried value is rebound at the end of every pass.
    assert loop.body[-1] == ir.Assign("start_iter", ir.Name("end_iter"))
    names = [s.target for s in loop.body if isinstance(s, ir.Assign)]
    assert names[:5] == ["tile_id", "tile_iter", "end_iter", "pid_m", "pid_n"]


def test_tiles_at_computed_ids_are_loops_over_one_tile() -> None:
    kernel = kernel_of(parse_file(SOURCE, "triton"))
    output, walk, k = loops(kernel)
    tm, tn = output.tiles
    assert (at_id(tm), at_extent(tm)) == (ir.Name("pid_m"), ir.SizeOf("a", 0))
    assert (at_id(tn), at_extent(tn)) == (ir.Name("pid_n"), ir.SizeOf("b", 1))
    # `for it in range(start_iter, end_iter)` is a loop of indices; its K tile is tile
    # `it - tile_iter` of K, the one each iteration reads.
    (it,) = walk.tiles
    assert it.scalar and it.begin == ir.Name("start_iter") and it.extent == ir.Name("end_iter")
    (tk,) = k.tiles
    assert at_id(tk) == ir.BinOp("-", ir.Name("it"), ir.Name("tile_iter"))
    assert at_extent(tk) == ir.SizeOf("a", 1)
    # The block sizes the tile ids are computed with are the tiles' tunables.
    pid_m = next(s for s in walk_stmts(kernel.body) if getattr(s, "target", "") == "pid_m")
    assert "block_n" in repr(pid_m.value) and "BLOCK_N" not in repr(pid_m.value)


@pytest.mark.parametrize("m, n, k", SIZES)
def test_the_lifted_ir_computes_what_the_source_computes(m: int, n: int, k: int) -> None:
    module = parse_file(SOURCE, "triton")
    source = load_module(SOURCE, "streamk_source")
    a, b = torch.randn(m, k), torch.randn(k, n)
    ref = source.streamk_matmul(a, b)
    torch.testing.assert_close(run_module(module, "streamk_matmul", a, b), ref)
    torch.testing.assert_close(ref, a @ b, rtol=1e-4, atol=1e-4)


def _edited(old: str, new: str) -> str:
    text = SOURCE.read_text()
    assert old in text, old
    return text.replace(old, new, 1)


def _refusal(text: str) -> TranslationError:
    with pytest.raises(TranslationError) as info:
        parse_source(text, str(SOURCE), "triton")
    assert info.value.loc is not None and info.value.loc.line > 0
    return info.value


def _line_of(text: str, snippet: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if snippet in line)


def test_a_while_else_is_refused() -> None:
    text = _edited(
        "        start_iter = end_iter\n",
        "        start_iter = end_iter\n    else:\n        pass\n",
    )
    err = _refusal(text)
    assert err.message == "while-else is not supported"
    assert err.loc.line == _line_of(text, "while start_iter < last_iter")  # type: ignore[union-attr]


def test_a_carried_tile_is_refused() -> None:
    text = _edited(
        "    while start_iter < last_iter:\n",
        "    lanes = tl.arange(0, BLOCK_M)\n    while start_iter < last_iter:\n"
        "        lanes = lanes + 1\n",
    )
    err = _refusal(text)
    assert "`lanes` is carried from one iteration of this while loop to the next" in err.message
    assert "carry only scalars" in (err.hint or "")


def test_a_quotient_of_a_value_that_may_turn_negative_is_refused() -> None:
    # `end_iter - 1` may be negative: Triton's `//` truncates and the IR's floors there.
    err = _refusal(_edited("start_iter = end_iter", "start_iter = end_iter - 1"))
    assert "`//`" in err.message and "toward zero" in err.message
    assert err.loc.line == _line_of(SOURCE.read_text(), "tile_id = start_iter //")  # type: ignore[union-attr]


def test_an_unmasked_store_beside_a_computed_tile_is_refused() -> None:
    # Where the tile starts past the dim's end the IR runs no trip, the source one with every
    # lane masked: a store the tile does not mask would then differ.
    text = _edited(
        "        tl.atomic_add(c_ptrs",
        "        tl.store(c_ptr, 0.0)\n        tl.atomic_add(c_ptrs",
    )
    err = _refusal(text)
    assert "start at a tile the program computes" in err.message
    assert "every store must be masked by them" in err.message


def test_num_programs_of_an_axis_of_tiles_is_refused() -> None:
    err = _refusal(_edited("tl.num_programs(0)", "tl.num_programs(1)"))
    assert err.loc is not None


# --------------------------------------------------------------------------------------------------
# The Triton backend


def test_triton_writes_the_sources_shape_back(tmp_path: Path) -> None:
    text = translate_file(SOURCE, "triton", "triton")
    for line in (
        "    while start_iter < last_iter:",
        "        tile_id = start_iter // iters_per_tile",
        "        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)",
        "        for it in range(start_iter, end_iter):",
        "            offs_k = (it - tile_iter) * BLOCK_K + tl.arange(0, BLOCK_K)",
        "        start_iter = end_iter",
    ):
        assert line in text, line
    # Every quotient is of nonnegative values: no correction for Triton's truncation.
    assert "tl.where(" not in text
    out = tmp_path / "streamk_gemm.py"
    out.write_text(text)
    report = check_pair(SOURCE, out, src_dsl="triton", seeds=(0,))
    assert report.passed, report.format_text()


def count_positive_module() -> ir.Module:
    """``while x[i] > 0: i += 1`` (one program counting the leading positive elements): a
    while loop whose test loads."""
    i = ir.Name("i")
    body = (
        ir.Assign("i", ir.Const(0)),
        ir.While(
            ir.BinOp(">", ir.Load("x", (ir.ScalarIndex(i),), other=None), ir.Const(0.0)),
            (ir.Assign("i", ir.BinOp("+", i, ir.Const(1))),),
        ),
        ir.Store("out", (ir.ScalarIndex(ir.Const(0)),), ir.Cast(i, ir.F32)),
    )
    host = (
        ir.ShapeUnpack(("n",), "x"),
        ir.Alloc("out", (ir.Const(1),), None, ir.F32, "x", 0.0),
        ir.InlineKernel("count", (ir.TileVar("g", ir.Const(1), ir.Const(1), scalar=True),), body),
        ir.Return(ir.Name("out")),
    )
    return hand_module("count.py", inline_entry("count_positive", (ir.Param("x", "tensor"),), host))


@pytest.mark.parametrize("dst", ["triton", "helion"])
def test_a_while_test_that_loads_is_computed_again_each_pass(dst: str, tmp_path: Path) -> None:
    # Triton gives the load a line of its own; Helion fails to generate code for a load in a
    # while test (1.4.0 and 1.5.1), so the test is named: computed before the loop and at the
    # end of every pass.
    text = emit(count_positive_module(), dst)
    assert "    while cond:" in text
    assert text.count("cond = ") == 2
    (tmp_path / "count.py").write_text(text)
    prepare = get_dialect(dst).make_runner().prepare
    assert prepare is not None
    prepare("cpu")
    module = load_module(tmp_path / "count.py", f"count_{dst}")
    pin_first_configs(module)
    out = module.count_positive(torch.tensor([3.0, 2.0, 5.0, -1.0, 4.0]))
    assert out.tolist() == [3.0]


# --------------------------------------------------------------------------------------------------
# The Helion backend and frontend


def test_helion_writes_what_a_helion_engineer_would() -> None:
    text = GOLDEN.read_text()
    for line in (
        "    for pid in hl.grid(5):",
        "        start_iter = hl.full([], pid * helion.cdiv(total_iters, 5), dtype=torch.int64)",
        "        while start_iter < last_iter:",
        "                block_size=[block_m, block_n],",
        "                    acc = torch.addmm(acc, a_tile, b_tile)",
        "                hl.atomic_add(c, [tile_m, tile_n], acc)",
        "            start_iter = end_iter",
    ):
        assert line in text, line
    # The K iterations of the pass are one hl.tile loop between the bounds they cover.
    assert "(start_iter - tile_iter) * block_k," in text
    assert "torch.clamp((end_iter - tile_iter) * block_k, max=a.size(1))," in text
    assert "for it in" not in text


def test_the_helion_frontend_reads_the_golden_back() -> None:
    kernel = kernel_of(parse_file(GOLDEN, "helion"))
    (loop,) = [s for s in kernel.body if isinstance(s, ir.While)]
    output, k = loops(kernel)
    assert [at_id(t) for t in output.tiles] == [ir.Name("pid_m"), ir.Name("pid_n")]
    (tk,) = k.tiles
    assert tk.begin == ir.BinOp(
        "*", ir.BinOp("-", ir.Name("start_iter"), ir.Name("tile_iter")), ir.Name("block_k")
    )


@pytest.mark.parametrize("m, n, k", SIZES[:2])
def test_the_helion_golden_read_back_computes_what_the_source_computes(
    m: int, n: int, k: int
) -> None:
    # The golden's host code is carried, not modelled: its kernel runs on the source's values.
    source = load_module(SOURCE, "streamk_source")
    a, b = torch.randn(m, k), torch.randn(k, n)
    iters_per_tile = -(-k // 16)
    total_iters = -(-m // 16) * -(-n // 16) * iters_per_tile
    c = torch.zeros(m, n)
    args = {"a": a, "b": b, "c": c, "iters_per_tile": iters_per_tile, "total_iters": total_iters}
    run_kernel(kernel_of(parse_file(GOLDEN, "helion")), args)
    torch.testing.assert_close(c, source.streamk_matmul(a, b))


# --------------------------------------------------------------------------------------------------
# cuTile and TileLang


@pytest.mark.parametrize("dst", ["cutile", "tilelang"])
def test_cutile_and_tilelang_refuse_with_where_and_why(dst: str) -> None:
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "translator.cli",
            "translate",
            "--from",
            "triton",
            "--to",
            dst,
            str(SOURCE.relative_to(ROOT)),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert run.returncode == 2 and not run.stdout
    assert "streamk_gemm.py:46:5: error: a `while` loop whose trip count each program decides" in (
        run.stderr
    )
    assert "    while start_iter < last_iter:" in run.stderr
    assert "help: write the data-parallel GEMM" in run.stderr
    assert "Traceback" not in run.stderr


def test_a_grid_of_the_sm_count_the_host_queries_is_a_kernel_parameter() -> None:
    # Production stream-K launches one program per SM, a count the host queries at run time:
    # `tl.num_programs(0)` is then the kernel parameter the grid is sized by.
    text = _edited(
        "    streamk_kernel[(NUM_SM,)](",
        "    num_sm = torch.cuda.get_device_properties(a.device).multi_processor_count\n"
        "    streamk_kernel[(num_sm,)](",
    )
    from translator.api import translate_source

    out = translate_source(text, str(SOURCE), "triton", "helion")
    assert "    for pid in hl.grid(num_sm):" in out
    assert "pid * helion.cdiv(total_iters, num_sm)" in out
    assert "streamk_kernel(a, b, c, iters_per_tile, total_iters, num_sm)" in out
    (kernel,) = parse_source(out, "streamk_gemm.py", "helion").kernels
    assert kernel.grid[0].extent == ir.Name("num_sm")
