"""A Helion kernel that takes an epilogue callable: specialised per call site, or refused.

``examples/library/helion/matmul_epilogue.py`` (its goldens and CPU equivalence are in
``tests/test_library_translation.py``) covers the translated forms: a lambda closing over the
caller's tensor and float, a module function with a local, the default. Here: what the rewrite
writes, and the located refusals for what it cannot see.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from translator.api import translate_source
from translator.diagnostics import TranslationError

ROOT = Path(__file__).resolve().parents[1]
SOURCE = (ROOT / "examples/library/helion/matmul_epilogue.py").read_text()
PATH = "examples/library/helion/matmul_epilogue.py"


def _line_of(text: str, snippet: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if snippet in line)


def test_each_call_site_gets_a_kernel_with_its_epilogue_inlined() -> None:
    out = translate_source(SOURCE, PATH, "helion", "triton")
    # The default (the identity) inlined into `matmul`, which keeps its name and loses the
    # parameter, with a note saying so; one kernel per call site that passes an epilogue.
    assert "def matmul(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:" in out
    assert "# tiletrans: `epilogue` inlined: `matmul` runs its default" in out
    for kernel in ("_matmul_bias_relu_kernel", "_matmul_gelu_tanh_kernel"):
        assert f"def {kernel}(" in out
    # The lambda's closure (`residual`, `alpha`) became parameters, passed by the caller.
    assert "return _matmul_residual(x, w, residual, alpha)" in out
    assert "(acc * alpha + residual.to(tl.float32)).to(out_ptr.dtype.element_ty)" in out
    # The module function's local and return, inlined before the store.
    assert "inner = 0.7978845608028654 * (acc + 0.044715 * acc * acc * acc)" in out
    # No callable is left to import or call (the docstrings still speak of the epilogue).
    assert "import Callable" not in out and "lambda acc" not in out and "= epilogue(" not in out


def _refusal(source: str) -> TranslationError:
    with pytest.raises(TranslationError) as info:
        translate_source(source, PATH, "helion", "triton")
    assert info.value.loc is not None and info.value.hint
    return info.value


def test_an_epilogue_the_caller_receives_is_refused_where_it_is_passed() -> None:
    source = SOURCE + (
        "\n\ndef matmul_with(x: torch.Tensor, w: torch.Tensor, fn: Callable) -> torch.Tensor:\n"
        "    return matmul(x, w, fn)\n"
    )
    err = _refusal(source)
    assert err.message == (
        "the epilogue passed to kernel `matmul` is `fn`, a parameter of `matmul_with`, which "
        "tiletrans cannot see when it translates"
    )
    assert (err.loc.line, err.loc.col) == (_line_of(source, "return matmul(x, w, fn)"), 24)
    assert "pass a lambda or a module-level function at the call" in err.hint


def test_an_epilogue_used_other_than_called_is_refused() -> None:
    source = SOURCE.replace(
        "        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)\n",
        "        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)\n        f = epilogue\n",
        1,
    )
    err = _refusal(source)
    assert "the epilogue `epilogue` is used here other than called" in err.message
    assert err.loc.line == _line_of(source, "f = epilogue")


def test_an_epilogue_function_with_a_branch_is_refused_at_the_branch() -> None:
    source = SOURCE.replace(
        "    inner = 0.7978845608028654",
        "    if acc is None:\n        return acc\n    inner = 0.7978845608028654",
    )
    err = _refusal(source)
    assert "inlines only assignments to names followed by one `return`" in err.message
    assert err.loc.line == _line_of(source, "if acc is None:")
    assert "torch.where" in err.hint


def test_an_epilogue_reading_an_unannotated_local_is_refused() -> None:
    source = SOURCE.replace(
        "    return matmul(x, w, lambda acc, tile: torch.relu(",
        "    b = bias\n    return matmul(x, w, lambda acc, tile: torch.relu(",
    ).replace("bias[tile[1]]", "b[tile[1]]")
    err = _refusal(source)
    assert "reads `b`, a local of `matmul_bias_relu` whose type tiletrans does not know" in (
        err.message
    )
    assert err.loc.line == _line_of(source, "lambda acc, tile: torch.relu(")


CLOSURE = (ROOT / "examples/library/helion/addmm_closure.py").read_text()
CLOSURE_PATH = "examples/library/helion/addmm_closure.py"


def test_an_epilogue_the_caller_defines_is_inlined_with_its_closure() -> None:
    # Helion's addmm: `def addmm_epilogue(acc, tile)` inside the Function's forward, reading
    # the forward's scalars and a local broadcast of the bias.
    out = translate_source(CLOSURE, CLOSURE_PATH, "helion", "triton")
    assert "def _gemm_scale_and_add_bias_kernel(" in out
    # Its closure in the caller's order: the local tensor first, then the parameters.
    assert "out = _gemm_scale_and_add_bias(x, w, bias_2d, alpha, beta)" in out
    assert "    bias_2d: torch.Tensor,\n    alpha: float,\n    beta: float,\n" in out
    assert "scaled = alpha * acc" in out


def test_a_local_epilogue_bound_twice_is_refused() -> None:
    source = CLOSURE.replace(
        "        out = gemm(x, w, scale_and_add_bias)\n",
        "        scale_and_add_bias = None\n        out = gemm(x, w, scale_and_add_bias)\n",
    )
    with pytest.raises(TranslationError) as info:
        translate_source(source, CLOSURE_PATH, "helion", "triton")
    assert "the epilogue passed to kernel `gemm` is `scale_and_add_bias`" in info.value.message
    assert info.value.loc is not None
    assert info.value.loc.line == _line_of(source, "out = gemm(x, w, scale_and_add_bias)")


def test_an_epilogue_reading_a_local_of_unknown_type_says_so() -> None:
    source = CLOSURE.replace(
        "bias_2d = torch.broadcast_to(bias, [m, n])", "bias_2d = bias.expand(m, n)"
    )
    err = _refusal(source)
    assert "reads `bias_2d`, a local of `forward` whose type tiletrans does not know" in (
        err.message
    )


def test_a_kernel_defined_twice_keeps_the_second_unless_the_first_runs() -> None:
    # Helion's matmul example defines `matmul_bwd` twice; Python keeps the second, so the first
    # is dead code the translation drops, with a note where it was.
    kernel = CLOSURE[CLOSURE.index("@helion.kernel") : CLOSURE.index("class AddMM")]
    source = CLOSURE + "\n\n" + kernel.replace("tile by tile", "tile by tile, again")
    out = translate_source(source, CLOSURE_PATH, "helion", "triton")
    assert "# tiletrans: dropped a first `gemm`, which the one below replaces" in out
    assert out.count("def gemm(") == 1 and "tile by tile, again" in out
    # A module-level read between the two runs the first: neither can stand for the name.
    read = CLOSURE.replace("class AddMM(", "PLAIN_GEMM = gemm\n\n\nclass AddMM(") + "\n\n" + kernel
    with pytest.raises(TranslationError) as info:
        translate_source(read, CLOSURE_PATH, "helion", "triton")
    first = _line_of(read, "def gemm(")
    assert info.value.message == (
        f"kernel `gemm` is defined twice (first at line {first}), and the module reads the "
        "name between the two: that read runs the first, later calls the second"
    )
    assert info.value.loc is not None and info.value.loc.line > first
    assert read.splitlines()[info.value.loc.line - 1].startswith("def gemm(")
    assert "give the two different names" in (info.value.hint or "")
