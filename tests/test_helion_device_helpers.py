"""Module helper functions called from Helion device code (pytorch/helion's
``segment_reduction`` calls ``_segmented_scan_helion`` in its loop): inlined as Helion traces
them, or refused at the construct that cannot be inlined, located in the helper.

The accepted kernels run against their source on the CPU (Triton and Helion under
``TRITON_INTERPRET=1``, TileLang on its C target, cuTile through the IR interpreter).
"""

from __future__ import annotations

import os

# Kernels run in Triton's interpreter; set it before anything imports triton.
os.environ["TRITON_INTERPRET"] = "1"

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from translator.api import translate_file, translate_source  # noqa: E402
from translator.diagnostics import TranslationError  # noqa: E402
from validation.equivalence import check_pair  # noqa: E402

DATA = Path(__file__).parent / "data"
SOURCE = DATA / "helion_device_helpers.py"
HEADER = "import helion\nimport helion.language as hl\nimport torch\n\n\n"
KERNEL = (
    "@helion.kernel()\n"
    "def scaled(x: torch.Tensor) -> torch.Tensor:\n"
    "    out = torch.empty_like(x)\n"
    "    for tile in hl.tile(x.size(0)):\n"
    "        out[tile] = _scale(x[tile], 2.0)\n"
    "    return out\n"
)


@pytest.mark.parametrize("target", ["triton", "tilelang", "cutile"])
def test_helpers_called_in_device_code_are_inlined_and_compute_what_helion_does(
    target: str, tmp_path: Path
) -> None:
    text = translate_file(SOURCE, "helion", target)
    # Every helper is inlined: none is left in the module (they call helion code).
    for helper in ("_tanh_gelu", "_centered_rstd", "_rows_f32", "_affine", "_store_rows"):
        assert helper not in text, helper
    if target == "triton":
        # The helper's `centered` is renamed apart from the kernel's own `centered`, which
        # takes the helper's first result; `_tanh_gelu` inlined twice has two `inner`s.
        assert "centered_2 = inner - mean" in text
        assert "centered = centered_2" in text
        assert "inner_2 = 0.7978845608028654 * (x_2 + 0.044715 * x_2 * x_2 * x_2)" in text
    translated = tmp_path / f"helpers_{target}.py"
    translated.write_text(text)
    report = check_pair(SOURCE, translated, dtypes=("float32",), seeds=(0,))
    assert {row.entry for row in report.rows} == {"layer_norm_gelu", "gelu_residual"}
    assert report.passed, report.format_text()


def test_a_helper_host_code_calls_too_stays_in_the_translation() -> None:
    text = translate_source(
        HEADER
        + "def _scale(v: torch.Tensor, s: float) -> torch.Tensor:\n"
        + "    return v * s\n\n\n"
        + KERNEL
        + "\n\ndef twice_on_host(x: torch.Tensor) -> torch.Tensor:\n"
        + "    return _scale(x, 2.0)\n",
        "k.py",
        "helion",
        "triton",
    )
    assert "def _scale(v: torch.Tensor, s: float)" in text
    assert "tl.store(out_ptr + offs_tile * stride_out0, v * 2.0" in text


def _refusal(helper: str) -> tuple[TranslationError, list[str]]:
    text = HEADER + helper + "\n\n" + KERNEL
    with pytest.raises(TranslationError) as err:
        translate_source(text, "k.py", "helion", "triton")
    assert err.value.loc is not None
    return err.value, text.splitlines()


def test_an_early_return_in_a_helper_is_refused_where_it_is() -> None:
    err, lines = _refusal(
        "def _scale(v, s):\n    if s == 0.0:\n        return v\n    return v * s\n"
    )
    assert "a `return` before the end in `_scale`" in err.message
    assert "torch.where" in (err.hint or "")
    assert lines[err.loc.line - 1].strip() == "return v"


def test_a_recursive_helper_is_refused_at_its_call() -> None:
    err, lines = _refusal("def _scale(v, s):\n    return _scale(v, s) * s\n")
    assert "`_scale` calls itself (_scale -> _scale)" in err.message
    assert lines[err.loc.line - 1].strip() == "return _scale(v, s) * s"


def test_a_decorated_helper_is_refused_at_its_decorator() -> None:
    err, lines = _refusal(
        "import functools\n\n\n@functools.cache\ndef _scale(v, s):\n    return v * s\n"
    )
    assert "`_scale` is decorated" in err.message
    assert lines[err.loc.line - 1] == "@functools.cache"


def test_what_device_code_cannot_read_in_a_helper_is_located_in_the_helper() -> None:
    err, lines = _refusal("def _scale(v, s):\n    pair = (v, s)\n    return v * s\n")
    # The message quotes the helper as inlined (its `s` is the caller's 2.0); the location is
    # the helper's line.
    assert "unsupported expression `(v, 2.0)`" in err.message
    assert lines[err.loc.line - 1] == "    pair = (v, s)"
    assert lines[err.loc.line - 1][err.loc.col :] == "v, s)"  # as a tuple in a kernel is


def test_a_helper_called_with_a_missing_argument_is_refused() -> None:
    err, _ = _refusal("def _scale(v, s, t):\n    return v * s * t\n")
    assert "`_scale(...)` misses its argument `t`" in err.message
