"""Optional pointer arguments tested in a Triton kernel (``tests/data/triton_constructs/
optional_pointers.py``): ``if ptr:``, ``ptr is not None`` and ``ptr is None`` are settled per
launch, as Triton settles them (a ``None`` argument is a constexpr): a launch that passes
``None`` gets the kernel without the branch, one that passes an allocation or an annotated
tensor the kernel with it. Helion and Triton are checked against the source by
``test_triton_constructs``; here the IR, TileLang (C target) and cuTile (sm_90 compile + IR
interpreter), and what is refused: a tensor that may or may not be None.
"""

from __future__ import annotations

import os

os.environ["TRITON_INTERPRET"] = "1"
os.environ.pop("HELION_INTERPRET", None)

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
import torch  # noqa: E402
from lifted import lifted  # noqa: E402

from translator.api import parse_file, parse_source, translate_file  # noqa: E402
from translator.diagnostics import TranslationError  # noqa: E402
from translator.ir import nodes as ir  # noqa: E402
from translator.ir.visit import all_exprs, walk_stmts  # noqa: E402
from validation.equivalence import check_pair  # noqa: E402

SOURCE = Path(__file__).resolve().parent / "data" / "triton_constructs" / "optional_pointers.py"


def test_each_launch_compiles_the_branches_its_arguments_choose() -> None:
    entries = {e.name: e for e in lifted(parse_file(SOURCE, "triton"))}
    for name, read, absent in (("shift_rows", "bias", "scale"), ("scale_rows", "scale", "bias")):
        (kernel,) = entries[name].kernels()
        assert not [s for s in walk_stmts(kernel.body) if isinstance(s, ir.If)]
        loaded = {e.tensor for e in all_exprs(kernel.body) if isinstance(e, ir.Load)}
        assert len(loaded) == 2 and "x" in loaded, (name, loaded)
        assert any(t.startswith(read) for t in loaded) and not any(
            t.startswith(absent) for t in loaded
        ), (name, loaded)
    # `if bias_ptr is None: x = x * 0.5` only where no bias is passed.
    (scaled,) = entries["scale_rows"].kernels()
    assert any(
        isinstance(e, ir.BinOp) and e.op == "*" and e.rhs == ir.Const(0.5)
        for e in all_exprs(scaled.body)
    )
    (shifted,) = entries["shift_rows"].kernels()
    assert not any(e == ir.Const(0.5) for e in all_exprs(shifted.body))


def _inputs(entry: str, device: str, dtype: str) -> tuple:
    g = torch.Generator().manual_seed(0)
    dt = getattr(torch, dtype)
    x = torch.randn(5, 19, generator=g).to(device=device, dtype=dt)
    if entry == "shift_rows":
        return (x, torch.randn(19, generator=g).to(device=device, dtype=dt))
    return (x, torch.rand(5, generator=g).to(device=device, dtype=dt) + 0.5)


@pytest.mark.parametrize("dst", ["tilelang", "cutile"])
def test_the_translation_computes_what_each_launch_computes(dst: str, tmp_path: Path) -> None:
    out = tmp_path / f"optional_pointers_{dst}.py"
    out.write_text(translate_file(SOURCE, "triton", dst))
    report = check_pair(
        SOURCE, out, src_dsl="triton", dtypes=("float32", "float16"), seeds=(0,), inputs=_inputs
    )
    assert {r.entry for r in report.rows} == {"shift_rows", "scale_rows"}
    assert report.passed, report.format_text()


def _refusal(old: str, new: str) -> TranslationError:
    text = SOURCE.read_text()
    assert old in text
    with pytest.raises(TranslationError) as info:
        parse_source(text.replace(old, new), str(SOURCE), "triton")
    return info.value


def test_a_tensor_that_may_be_none_is_refused_where_the_kernel_tests_it() -> None:
    # Unannotated, `bias` may be None in some calls and a tensor in others: one translated
    # kernel cannot be both.
    err = _refusal(
        "def shift_rows(x: torch.Tensor, bias: torch.Tensor)",
        "def shift_rows(x: torch.Tensor, bias)",
    )
    assert "`bias_ptr` tests whether a tensor was passed" in err.message
    assert "`bias`, an unannotated parameter that may be None" in err.message
    assert err.loc.line == 18 and "bias: torch.Tensor" in (err.hint or "")


def test_a_kernel_the_module_never_launches_cannot_settle_its_none_tests() -> None:
    # SGLang's kv-indices kernels: launched from other modules, with a tensor or None.
    text = (
        "import triton\nimport triton.language as tl\n\n\n"
        "@triton.jit\n"
        "def copy_kernel(src_ptr, start_ptr, dst_ptr, n, BLOCK: tl.constexpr):\n"
        "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
        "    start = 0\n"
        "    if start_ptr:\n"
        "        start = tl.load(start_ptr)\n"
        "    x = tl.load(src_ptr + offs, mask=offs < n, other=0.0)\n"
        "    tl.store(dst_ptr + offs, x + start, mask=offs < n)\n"
    )
    with pytest.raises(TranslationError) as info:
        parse_source(text, "kv_copy.py", "triton")
    err = info.value
    assert "never launches the kernel: whether it is None is each caller's" in err.message
    assert err.loc.line == 9 and "passing a tensor or None" in (err.hint or "")


def test_is_compares_with_none_only() -> None:
    err = _refusal("if scale_ptr is not None:", "if scale_ptr is not bias_ptr:")
    assert "`is` compares with None only" in err.message and err.loc.line == 21


_OPTIONAL_BIAS = """from typing import Optional

import torch
import triton
import triton.language as tl


@triton.jit
def _k(x_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    if b_ptr is None:
        x += 1.0
    else:
        x += tl.load(b_ptr + offs, mask=m)
    tl.store(out_ptr + offs, x, mask=m)


def add_opt(x: torch.Tensor, b: {annotation}):
    n = x.numel()
    out = torch.empty_like(x)
    _k[(triton.cdiv(n, 128),)](x, b, out, n, BLOCK=128)
    return out
"""


@pytest.mark.parametrize(
    "annotation", ["Optional[torch.Tensor] = None", "torch.Tensor | None", "torch.Tensor = None"]
)
def test_an_optional_parameter_passed_as_the_pointer_is_refused_where_tested(annotation: str):
    # Found in review: `b: Optional[torch.Tensor] = None` had been read as a tensor that is never
    # None, which dropped the kernel's `is None` branch and crashed on `b=None`.
    with pytest.raises(TranslationError, match="it may be None in some calls") as err:
        parse_source(_OPTIONAL_BIAS.replace("{annotation}", annotation), "k.py", "triton")
    assert err.value.loc is not None and err.value.loc.line == 13
