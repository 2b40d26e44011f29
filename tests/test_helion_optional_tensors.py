"""Optional tensors tested in Helion device code (pytorch/helion's ``jsd`` tests
``shift_labels is not None`` in its loop): specialised per launch on None-ness, as Helion
does, and run against the source on the CPU in every case (Triton and Helion under
``TRITON_INTERPRET=1``, TileLang on its C target, cuTile through the IR interpreter).
"""

from __future__ import annotations

import os
import re

# Kernels run in Triton's interpreter; set it before anything imports triton.
os.environ["TRITON_INTERPRET"] = "1"

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from translator.api import translate_file, translate_source  # noqa: E402
from translator.diagnostics import TranslationError  # noqa: E402
from validation.equivalence import check_pair  # noqa: E402

SOURCE = Path(__file__).parent / "data" / "helion_optional_tensors.py"
HEADER = "import helion\nimport helion.language as hl\nimport torch\n\n\n"


def _cases(entry: str, device: str, dtype: str) -> tuple | None:
    """Each seed a case of None-ness: seed 0 passes every optional tensor, the others leave
    out one or both (``check_pair`` seeds torch before it asks for the inputs)."""
    import torch

    case = torch.initial_seed()
    dt = getattr(torch, dtype)
    x = torch.randn(37, 45, dtype=dt, device=device)
    if entry == "residual_rms_norm":
        residual = torch.randn(37, 45, dtype=dt, device=device) if case in (0, 1) else None
        scale = torch.rand(37, dtype=dt, device=device) + 0.5 if case in (0, 2) else None
        return x, residual, scale
    if entry == "masked_fill_rows":
        keep = torch.randint(0, 2, (77,), device=device) if case % 2 == 0 else None
        return torch.randn(77, dtype=dt, device=device), keep
    return None


@pytest.mark.parametrize("target", ["triton", "tilelang", "cutile"])
def test_a_kernel_is_specialised_on_each_optional_tensor_it_tests_in_device_code(
    target: str, tmp_path: Path
) -> None:
    text = translate_file(SOURCE, "helion", target)
    for case in ("with_residual_with_row_scale", "without_residual_without_row_scale"):
        assert f"def _residual_rms_norm_{case}(" in text
    assert "if residual is not None and row_scale is None:\n" in text
    assert "return _masked_fill_rows_without_keep(x)\n" in text
    # The None case has no parameter for the tensor; the host test of it is folded too.
    tail = text[text.index("def _residual_rms_norm_without_residual_without_row_scale(") :]
    head = tail[: tail.index("\n    return out\n")]
    code = head.split('"""')[-1]  # after the docstring, which names them
    assert not re.search(r"\bresidual\b", code) and not re.search(r"\brow_scale\b", code)
    translated = tmp_path / f"optional_{target}.py"
    translated.write_text(text)
    report = check_pair(SOURCE, translated, dtypes=("float32",), seeds=(0, 1, 2, 3), inputs=_cases)
    assert {row.entry for row in report.rows} == {"residual_rms_norm", "masked_fill_rows"}
    assert len(report.rows) == 8
    assert report.passed, report.format_text()


def _refused(kernel: str) -> TranslationError:
    with pytest.raises(TranslationError) as err:
        translate_source(HEADER + kernel, "k.py", "helion", "triton")
    assert err.value.loc is not None
    return err.value


def test_an_optional_tensor_the_kernel_rebinds_is_refused() -> None:
    err = _refused(
        "@helion.kernel()\n"
        "def f(x: torch.Tensor, b: torch.Tensor | None = None) -> torch.Tensor:\n"
        "    if b is None:\n"
        "        b = torch.zeros_like(x)\n"
        "    out = torch.empty_like(x)\n"
        "    for tile in hl.tile(x.size(0)):\n"
        "        out[tile] = x[tile] + b[tile] if b is not None else x[tile]\n"
        "    return out\n"
    )
    assert "`b is None` is tested and `b` rebound in `f`" in err.message
    assert err.loc.line == 7


def test_three_optional_tensors_tested_in_device_code_are_refused() -> None:
    params = ", ".join(f"{n}: torch.Tensor | None = None" for n in "abc")
    tests = " + ".join(f"(0.0 if {n} is None else {n}[tile])" for n in "abc")
    err = _refused(
        "@helion.kernel()\n"
        f"def f(x: torch.Tensor, {params}) -> torch.Tensor:\n"
        "    out = torch.empty_like(x)\n"
        "    for tile in hl.tile(x.size(0)):\n"
        f"        out[tile] = x[tile] + {tests}\n"
        "    return out\n"
    )
    assert "`f` specialises on 3 tests (`a is None`, `b is None`, `c is None`)" in err.message
    assert "at most 2 (4 kernels)" in err.message


def test_a_specialised_kernel_used_other_than_called_is_refused() -> None:
    err = _refused(
        "@helion.kernel()\n"
        "def f(x: torch.Tensor, b: torch.Tensor | None = None) -> torch.Tensor:\n"
        "    out = torch.empty_like(x)\n"
        "    for tile in hl.tile(x.size(0)):\n"
        "        out[tile] = x[tile] if b is None else x[tile] + b[tile]\n"
        "    return out\n"
        "\n\nconfig = f.autotune((torch.randn(8),))\n"
    )
    assert "`f` is used other than called" in err.message
    assert err.loc.line == 14


def test_a_refusal_in_a_folded_branch_points_at_the_source_line_and_column() -> None:
    # The `with b` copy dedents the branch; the diagnostic is still where the source has it.
    text = (
        HEADER
        + "@helion.kernel()\n"
        + "def f(x: torch.Tensor, b: torch.Tensor | None = None) -> torch.Tensor:\n"
        + "    out = torch.empty_like(x)\n"
        + "    for tile in hl.tile(x.size(0)):\n"
        + "        out[tile] = x[tile]\n"
        + "        if b is not None:\n"
        + "            out[tile] = x[tile] + b[tile]\n"
        + "            del x\n"
        + "    return out\n"
    )
    with pytest.raises(TranslationError) as err:
        translate_source(text, "k.py", "helion", "triton")
    assert "unsupported device statement `del x`" in err.value.message
    assert err.value.loc is not None
    assert (err.value.loc.line, err.value.loc.col) == (13, 12)


CHOICE = Path(__file__).parent / "data" / "helion_string_choice.py"


def _reductions(entry: str, device: str, dtype: str) -> tuple | None:
    """Seed 0, 1, 2: `reduction` "none", "sum", "mean" (the seed picks the case)."""
    import torch

    reduction = ("none", "sum", "mean")[torch.initial_seed() % 3]
    dt = getattr(torch, dtype)
    pred = torch.randn(37, 45, dtype=dt, device=device)
    return pred, torch.randn(37, 45, dtype=dt, device=device), reduction


@pytest.mark.parametrize("target", ["triton", "tilelang", "cutile"])
def test_a_string_choice_that_allocates_two_ranks_is_specialised_per_side(
    target: str, tmp_path: Path
) -> None:
    text = translate_file(CHOICE, "helion", target)
    # The per-element copy allocates `loss` 2-d, the other 1-d; each is folded to its side.
    none = text[text.index("def _squared_error_reduction_none(") :]
    rows = text[text.index("def _squared_error_reduction_not_none(") :]
    assert "loss = torch.zeros([m, n], dtype=torch.float32" in none.split("return total")[0]
    assert "loss = torch.zeros([m], dtype=torch.float32" in rows.split("return total")[0]
    assert 'if reduction != "none":\n        return _squared_error_reduction_not_none(' in text
    translated = tmp_path / f"choice_{target}.py"
    translated.write_text(text)
    report = check_pair(
        CHOICE, translated, dtypes=("float32",), seeds=(0, 1, 2), inputs=_reductions
    )
    assert len(report.rows) == 3
    assert report.passed, report.format_text()


def test_a_message_that_names_a_line_names_the_source_line() -> None:
    # The specialisation moves the kernel's lines; `(line N)` in a message is the user's line.
    text = (
        HEADER
        + "@helion.kernel()\n"
        + "def f(x: torch.Tensor, b: torch.Tensor | None = None, flag: bool = True) -> torch.Tensor:\n"
        + "    out = torch.empty_like(x)\n"
        + "    for tile in hl.tile(x.size(0)):\n"
        + "        v = x[tile] if b is None else x[tile] + b[tile]\n"
        + "        if flag:\n"
        + "            w = v * 2.0\n"
        + "        if flag:\n"
        + "            out[tile] = w\n"
        + "    return out\n"
    )
    with pytest.raises(TranslationError) as err:
        translate_source(text, "k.py", "helion", "triton")
    assert "`w` is bound on one side of `if flag:` (line 11) only" in err.value.message
    assert err.value.loc is not None and err.value.loc.line == 14
