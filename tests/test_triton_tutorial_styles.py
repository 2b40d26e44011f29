"""Constructs of Triton's own tutorials (layer norm's backward, grouped GEMM) and the library
styles that copy them, read by the Triton frontend: each kernel here is the team's own, in the
tutorial's style. What translates is run against the source on the CPU (``TRITON_INTERPRET=1``;
TileLang through its C target, cuTile through the IR interpreter); what cannot is refused where
the construct is, with what to write instead."""

from __future__ import annotations

import os
from pathlib import Path

os.environ["TRITON_INTERPRET"] = "1"
os.environ.pop("HELION_INTERPRET", None)

import pytest  # noqa: E402
from lifted import lifted  # noqa: E402

from translator.api import parse_file, parse_source, translate_file  # noqa: E402
from translator.diagnostics import TranslationError  # noqa: E402
from translator.ir import nodes as ir  # noqa: E402
from translator.ir.visit import walk_stmts  # noqa: E402
from validation.equivalence import check_pair  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"


def test_a_spin_lock_is_refused_with_the_atomic_accumulation_to_write():
    path = DATA / "triton_spin_lock.py"
    with pytest.raises(TranslationError) as info:
        parse_file(path, "triton")
    err = info.value
    text = path.read_text().splitlines()
    spin = next(i for i, line in enumerate(text, 1) if "while tl.atomic_cas(" in line)
    assert (err.loc.line, err.loc.col) == (spin, text[spin - 1].index("tl.atomic_cas"))
    release = next(i for i, line in enumerate(text, 1) if "tl.atomic_xchg(lock, 0)" in line)
    assert f"spins on a lock: up to `tl.atomic_xchg(lock, 0)` (line {release})" in err.message
    assert "one program at a time stores `part`" in err.message
    assert "`tl.atomic_add(part, share, mask=...)`" in (err.hint or "")


def test_a_spin_wait_on_something_else_keeps_the_general_refusal():
    # A compare-and-swap that is no `while ...: pass` spin is no lock this module recognises.
    text = (DATA / "triton_spin_lock.py").read_text()
    text = text.replace(
        "    while tl.atomic_cas(lock, 0, 1) == 1:\n        pass\n",
        "    old = tl.atomic_cas(lock, 0, 1)\n",
    )
    with pytest.raises(TranslationError) as info:
        parse_source(text, "lock.py", "triton")
    assert info.value.message == "`tl.atomic_cas` is not supported yet"


def test_group_rows_by_a_program_id_digit_are_an_index_of_the_atomic():
    (entry,) = lifted(parse_file(DATA / "triton_group_atomic_rows.py", "triton"))
    kernel = entry.kernels()[0]
    (atomic,) = [s for s in walk_stmts(kernel.body) if isinstance(s, ir.AtomicRMW)]
    (row,) = [t.name for t in kernel.grid]
    # `row % GROUP` of the grid's own index: the program id is not split into grid dims.
    # (The inline kernel reads the host's names: GROUP is bound to the host's `group`.)
    assert atomic.index[0] == ir.ScalarIndex(ir.BinOp("%", ir.Name(row), ir.Name("group")))


@pytest.mark.parametrize("dst", ["helion", "triton", "tilelang", "cutile"])
def test_group_atomic_rows_translate_and_compute_what_the_source_does(dst: str, tmp_path: Path):
    src = DATA / "triton_group_atomic_rows.py"
    out = tmp_path / f"group_atomic_rows_{dst}.py"
    out.write_text(translate_file(src, "triton", dst))
    report = check_pair(src, out, src_dsl="triton", dtypes=("float32", "float16"), seeds=(0,))
    assert report.passed, report.format_text()


def test_a_whole_row_kernel_in_unsloths_style_translates(tmp_path: Path):
    src = DATA / "triton_row_relu.py"
    out = tmp_path / "row_relu_helion.py"
    out.write_text(translate_file(src, "triton", "helion"))
    report = check_pair(src, out, src_dsl="triton", dtypes=("float32",), seeds=(0,))
    assert report.passed, report.format_text()


def _refused(text: str) -> TranslationError:
    with pytest.raises(TranslationError) as info:
        parse_source(text, "relu.py", "triton")
    return info.value


def _line_of(text: str, needle: str) -> tuple[int, int]:
    """The 1-based line and 0-based column of ``needle``'s first occurrence in ``text``."""
    for number, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return number, line.index(needle)
    raise AssertionError(needle)


def test_a_raw_address_passed_for_a_pointer_is_refused_at_the_argument():
    # Unsloth's ReLU passes `y.data_ptr()`: an int, which Triton cannot load through.
    text = (
        (DATA / "triton_row_relu.py")
        .read_text()
        .replace("output_ptr=y,", "output_ptr=y.data_ptr(),")
    )
    err = _refused(text)
    assert (err.loc.line, err.loc.col) == _line_of(text, "y.data_ptr()")
    assert "`y.data_ptr()` passes `output_ptr` a raw address, an integer" in err.message
    assert "pass the tensor itself (`y`)" in (err.hint or "")


def test_lanes_of_a_fixed_block_say_what_the_launch_sets():
    # Unsloth's ReLU launches BLOCK_SIZE = 1024 over whole rows: columns past 1024 are skipped.
    text = (DATA / "triton_row_relu.py").read_text()
    text = text.replace("BLOCK_SIZE = triton.next_power_of_2(n_cols)", "BLOCK_SIZE = 1024")
    err = _refused(text)
    assert (err.loc.line, err.loc.col) == _line_of(text, "tl.load(row_start_ptr")
    assert "every program covers only the first BLOCK_SIZE elements of the dim" in err.message
    assert "the launch sets BLOCK_SIZE = 1024, not the dim's size" in err.message
    assert "`BLOCK_SIZE=triton.next_power_of_2(n)`" in (err.hint or "")


@pytest.mark.parametrize("dst", ["helion", "triton", "tilelang", "cutile"])
def test_digits_of_a_row_program_id_index_per_head_values(dst: str, tmp_path: Path):
    # `pid % H` and `pid // H` of a program id that is itself the row: values, not grid dims.
    src = DATA / "triton_head_scales.py"
    (entry,) = lifted(parse_file(src, "triton"))
    (kernel,) = entry.kernels()
    (pid,) = [t.name for t in kernel.grid]
    assigned = {s.target: s.value for s in walk_stmts(kernel.body) if isinstance(s, ir.Assign)}
    # (Read through their flat views: the kernel indexes them by one offset.)
    by_head, by_batch = assigned["scale_tile"], assigned["shift_tile"]
    assert by_head.index == (ir.ScalarIndex(ir.BinOp("%", ir.Name(pid), ir.Name("H"))),)
    assert by_batch.index == (ir.ScalarIndex(ir.BinOp("//", ir.Name(pid), ir.Name("H"))),)
    out = tmp_path / f"head_scales_{dst}.py"
    out.write_text(translate_file(src, "triton", dst))
    report = check_pair(src, out, src_dsl="triton", dtypes=("float32", "float16"), seeds=(0,))
    assert report.passed, report.format_text()


def test_a_jit_helper_imported_from_another_module_is_refused_at_its_call():
    # FlagGems' dropout calls `uint_to_uniform_float`, imported from its utils: no body here.
    text = (DATA / "triton_row_relu.py").read_text()
    text = text.replace("import triton\n", "import triton\nfrom .activations import leaky\n", 1)
    text = text.replace("tl.where(row > 0, row, row * slope)", "leaky(row, slope)")
    err = _refused(text)
    assert (err.loc.line, err.loc.col) == _line_of(text, "leaky(row, slope)")
    assert "`leaky` is imported from `activations` and cannot be inlined" in err.message
    # Where it looked for the module (translation reads a library's modules on disk).
    assert "its module `.activations` is not on disk beside this file (looked for" in err.message
    assert "activations.py" in err.message
    assert "copy `leaky` into this file as a @triton.jit helper" in (err.hint or "")
