"""Persistent Triton programs that carry partial sums from one row to the next
(``tests/data/triton_constructs/program_partials.py``, the backward of Liger's DyT/RMSNorm).

``for row in range(pid, n_rows, tl.num_programs(a))`` whose iterations are independent is a grid
over rows; one that carries a value (a per-program partial gradient, stored once after the
loop and summed on the host) keeps its programs: the program id is a plain index of a grid of as
many programs as the launch asks, and the loop visits rows ``pid, pid + G, ...``. Helion and
Triton are checked against the source by ``test_triton_constructs``; here the IR, TileLang (C
target) and cuTile (sm_90 compile + IR interpreter), and what stays refused.
"""

from __future__ import annotations

import os

os.environ["TRITON_INTERPRET"] = "1"
os.environ.pop("HELION_INTERPRET", None)

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from lifted import lifted  # noqa: E402

from translator.api import parse_file, parse_source, translate_file  # noqa: E402
from translator.diagnostics import TranslationError  # noqa: E402
from translator.ir import nodes as ir  # noqa: E402
from translator.ir.visit import all_exprs, walk_stmts  # noqa: E402
from validation.equivalence import check_pair  # noqa: E402

SOURCE = Path(__file__).resolve().parent / "data" / "triton_constructs" / "program_partials.py"


def _row_loop(kernel: ir.InlineKernel) -> ir.TileVar:
    (loop,) = [s for s in walk_stmts(kernel.body) if isinstance(s, ir.TileLoop)]
    (row,) = loop.tiles
    return row


def test_a_carried_persistent_loop_keeps_its_programs_and_strides_over_rows() -> None:
    entries = {e.name: e for e in lifted(parse_file(SOURCE, "triton"))}
    (two_d,) = entries["softsign_backward"].kernels()
    tile_n, first_row = two_d.grid
    assert not tile_n.scalar and first_row.scalar
    assert first_row.extent == ir.Name("num_programs")  # the launch's count, not the rows
    row = _row_loop(two_d)
    assert row.scalar and row.block == ir.Const(1)
    # Rows first_row, first_row + G, ... below n_rows: the program id, without its int64 cast.
    assert row.begin == ir.Name("first_row") and row.step == ir.Name("num_programs")
    assert row.extent == ir.SizeOf("x", 0)
    assert two_d.hints.schedule is None  # a grid of programs, not a persistent schedule
    (one_d,) = entries["rms_scale_grad"].kernels()
    (pid,) = one_d.grid
    row = _row_loop(one_d)
    assert row.begin == ir.Name(pid.name) and row.step == ir.Name("num_programs")
    # `dy_ptr + row * n_cols + cols` with `n_cols: tl.constexpr` (no stride passed): rows of
    # n_cols elements, read as a 2-d view, not a gather of flat offsets.
    loads = [e for e in all_exprs(one_d.body) if isinstance(e, ir.Load)]
    assert not any(isinstance(i, ir.GatherIndex) for e in loads for i in e.index)
    assert any(e.tensor == "dy_rows" for e in loads), [e.tensor for e in loads]


@pytest.mark.parametrize("dst", ["tilelang", "cutile"])
def test_the_translation_computes_the_source_s_partials(dst: str, tmp_path: Path) -> None:
    out = tmp_path / f"program_partials_{dst}.py"
    text = translate_file(SOURCE, "triton", dst)
    out.write_text(text)
    loop = {
        "tilelang": "T.serial(T.ceildiv(x_shape[0] - bx, num_programs))",
        "cutile": "for row in range(first_row, x.shape[0], num_programs):",
    }[dst]
    assert loop in text, text
    report = check_pair(SOURCE, out, src_dsl="triton", dtypes=("float32", "float16"), seeds=(0,))
    assert report.rows and report.passed, report.format_text()


def _refusal(old: str, new: str) -> TranslationError:
    text = SOURCE.read_text()
    assert old in text
    with pytest.raises(TranslationError) as info:
        parse_source(text.replace(old, new), str(SOURCE), "triton")
    return info.value


def test_a_pointer_advanced_over_a_program_s_rows_is_refused() -> None:
    err = _refusal(
        "        rstd = tl.load(rstd_ptr + row)\n",
        "        rstd = tl.load(rstd_ptr)\n        rstd_ptr += tl.num_programs(0)\n",
    )
    assert "`rstd_ptr` is advanced in a loop over a program's share of the rows" in err.message
    assert err.loc.line == 68 and "row * stride" in (err.hint or "")


def test_lanes_riding_on_a_program_s_row_index_are_refused() -> None:
    err = _refusal(
        "tl.store(dx_ptr + row * stride_row + cols, alpha * g, mask=mask)",
        "tl.store(dx_ptr + row * BLOCK_N + tl.arange(0, BLOCK_N), alpha * g, "
        "mask=row * BLOCK_N + tl.arange(0, BLOCK_N) < n_rows)",
    )
    assert "ride on `row`" in err.message and err.loc.line == 20


def test_a_row_kernel_the_module_never_launches_names_why_no_wrapper_is_derived() -> None:
    # A kernel launched elsewhere (Liger's JSD goes through a dispatcher): one program per row,
    # and only the host knows how many rows.
    text = (
        "import triton\nimport triton.language as tl\n\n\n"
        "@triton.jit\n"
        "def row_scale_kernel(x_ptr, x_stride, y_ptr, y_stride, n_cols, BLOCK: tl.constexpr):\n"
        "    row = tl.program_id(0).to(tl.int64)\n"
        "    cols = tl.arange(0, BLOCK)\n"
        "    x = tl.load(x_ptr + row * x_stride + cols, mask=cols < n_cols, other=0.0)\n"
        "    tl.store(y_ptr + row * y_stride + cols, 2.0 * x, mask=cols < n_cols)\n"
    )
    with pytest.raises(TranslationError) as info:
        parse_source(text, "rows_only.py", "triton")
    err = info.value
    assert "never launches `row_scale_kernel`" in err.message
    assert "tl.program_id(0) is a plain index" in err.message
    assert err.loc.line == 6 and "kernel[(n_rows,)]" in (err.hint or "")
