"""Launch arguments the host computes into locals and conditionals (``tests/data/
triton_host_locals/host_locals.py``, team-written in the styles of FlagGems, applied-ai and
Liger wrappers): strides of a tensor the frontend does not follow (`a_flat.stride(0)` of a
``torch.chunk`` half), per-optional-tensor strides set under ``if init is not None:`` (or an
if/else, or ``s if init is not None else 0`` locals) read under the launch's
``HAS_INIT=init is not None`` flag, an optional output that is None unless a flag asks for it,
and a dummy label pointer with no dtype. Each translation is checked on the CPU against the
source, with the optional tensors given and absent; what stays refused is asserted precisely.
"""

from __future__ import annotations

import os

os.environ["TRITON_INTERPRET"] = "1"
os.environ.pop("HELION_INTERPRET", None)

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
import torch  # noqa: E402

from translator.api import parse_source, translate_file  # noqa: E402
from translator.diagnostics import TranslationError  # noqa: E402
from validation.equivalence import check_pair  # noqa: E402

SOURCE = Path(__file__).resolve().parent / "data" / "triton_host_locals" / "host_locals.py"
ENTRIES = {
    "gate_rows",
    "shift_add",
    "shift_add_else",
    "shift_add_ifexp",
    "row_sums",
    "masked_scale",
}


def _inputs(given: bool):
    def inputs(entry: str, device: str, dtype: str) -> tuple:
        g = torch.Generator().manual_seed(0)
        dt = getattr(torch, dtype)
        x = torch.randn(5, 37, generator=g).to(device=device, dtype=dt)
        if entry == "gate_rows":
            return (torch.randn(2, 3, 46, generator=g).to(device=device, dtype=dt),)
        if entry.startswith("shift_add"):
            # A transposed `init`: its strides are not x's.
            init = torch.randn(37, 5, generator=g).to(device=device, dtype=dt).t()
            return (x, init) if given else (x,)
        if entry == "row_sums":
            return (x, given)
        labels = torch.tensor([3, -100, 7, -100, 0], device=device)
        return (x, labels, given)

    return inputs


@pytest.mark.parametrize("dst", ["helion", "tilelang", "cutile"])
def test_host_computed_arguments_translate_to_what_the_source_computes(
    dst: str, tmp_path: Path
) -> None:
    out = tmp_path / f"host_locals_{dst}.py"
    out.write_text(translate_file(SOURCE, "triton", dst))
    for given in (True, False):
        report = check_pair(
            SOURCE, out, src_dsl="triton", dtypes=("float32",), seeds=(0,), inputs=_inputs(given)
        )
        assert {r.entry for r in report.rows} == ENTRIES
        assert report.passed, (given, report.format_text())


def test_a_tensor_that_may_be_none_gets_a_stand_in_at_the_launch() -> None:
    # TileLang's factory reads the shape, strides and dtype of each tensor it is passed: the
    # optional ones are replaced by an empty tensor where the source passes None.
    text = translate_file(SOURCE, "triton", "tilelang")
    assert "(sums if sums is not None else torch.empty((0,), dtype=x.dtype" in text
    assert "(init if init is not None else torch.empty((0, 0), dtype=x.dtype" in text


def _refusal(old: str, new: str) -> TranslationError:
    text = SOURCE.read_text()
    assert old in text
    with pytest.raises(TranslationError) as info:
        parse_source(text.replace(old, new), str(SOURCE), "triton")
    return info.value


def test_a_branch_stride_with_no_flag_on_its_test_is_refused() -> None:
    # The launch's flag is not the `if`'s test: which side the kernel sees is unknown.
    err = _refusal(
        "        HAS_INIT=init is not None,\n    )\n    return out\n\n\ndef shift_add_else",
        "        HAS_INIT=n_cols > 0,\n    )\n    return out\n\n\ndef shift_add_else",
    )
    assert "kernel parameter `stride_init_row` is not bound to a value the IR can use" in str(err)
    assert "is assigned in a branch of a host `if`" in str(err)


def test_a_flag_guarded_stride_read_outside_its_flag_is_refused() -> None:
    err = _refusal(
        "    x = tl.load(x_ptr + row * stride_x_row + cols, mask=mask, other=0.0)\n    if HAS_INIT:",
        "    x = tl.load(x_ptr + row * stride_x_row + cols, mask=mask, other=0.0)\n"
        "    x += stride_init_col\n    if HAS_INIT:",
    )
    assert "may read only where the constexpr `HAS_INIT` is True" in str(err)


def test_a_rebound_name_is_not_the_test_the_flag_was_bound_to() -> None:
    # `init` is rebound between the `if` and the launch: the flag tests another value.
    err = _refusal(
        "        stride_init_col = init.stride(1)\n    _shift_add",
        "        stride_init_col = init.stride(1)\n    init = x.flip(0)\n    _shift_add",
    )
    assert "not bound to a value the IR can use" in str(err)
