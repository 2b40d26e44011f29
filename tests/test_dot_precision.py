"""The input precision of float32 dots (``ir.Dot.precision``): every frontend resolves its DSL's
default into it, every backend spells it only where it differs from its own default.

Measured on the H200 (BENCHMARKS.md): Triton's default tf32 ``tl.dot`` and cuTile's IEEE
``ct.mma`` differ by 7.7e-4 relative on fp32 GEMMs, so the precision is semantics the
translation must keep. Sources are small edits of the examples, read as text (never imported).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import pytest

from translator.api import emit, parse_source
from translator.diagnostics import TranslationError
from translator.ir import nodes as ir
from translator.ir.printer import format_expr
from translator.ir.shapes import IRTypeError, dot_precision
from translator.ir.verifier import verify
from translator.ir.visit import kernel_exprs

ROOT = Path(__file__).resolve().parent.parent
TRITON_DOT = (ROOT / "tests/data/triton_constructs/dot_options.py").read_text()
HELION_MATMUL = (ROOT / "examples/helion/matmul.py").read_text()
CUTILE_GEMM = (ROOT / "examples/cutile/gemm.py").read_text()
TILELANG_GEMM = (ROOT / "examples/tilelang/gemm_transpose_b.py").read_text()
IEEE_CALL = 'input_precision="ieee", '


def dots(module: ir.Module) -> list[ir.Dot]:
    return [e for k in module.kernels for e in kernel_exprs(k) if isinstance(e, ir.Dot)]


def precisions(source: str, dsl: str) -> list[str | None]:
    return [d.precision for d in dots(parse_source(source, f"{dsl}_src.py", dsl))]


def edit(source: str, old: str, new: str) -> str:
    assert old in source, old
    return source.replace(old, new)


def triton_with(option: str) -> str:
    """The Triton K-loop GEMM with ``option`` (``k=v, ``) in place of its input_precision."""
    return edit(TRITON_DOT, IEEE_CALL, option)


# --------------------------------------------------------------------------- frontends


@pytest.mark.parametrize(
    ("option", "want"),
    [
        ("", "tf32"),  # tl.dot's default
        (IEEE_CALL, "ieee"),
        ('input_precision="tf32x3", ', "tf32x3"),
        ('input_precision="tf32", ', "tf32"),
        ("allow_tf32=False, ", "ieee"),
        ("allow_tf32=True, ", "tf32"),
    ],
)
def test_triton_frontend_resolves_tl_dot_precision(option: str, want: str) -> None:
    assert precisions(triton_with(option), "triton") == [want]


def test_triton_frontend_leaves_fp16_dots_without_precision() -> None:
    source = edit(triton_with(""), "tl.dot(a, b,", "tl.dot(a.to(tl.float16), b.to(tl.float16),")
    assert precisions(source, "triton") == [None]


def test_triton_frontend_refuses_a_precision_the_ir_has_not() -> None:
    with pytest.raises(TranslationError, match="bf16x3") as err:
        parse_source(triton_with('input_precision="bf16x3", '), "t.py", "triton")
    assert err.value.loc is not None and err.value.loc.line > 1


def test_helion_frontend_reads_the_kernel_setting_else_tf32() -> None:
    assert precisions(HELION_MATMUL, "helion") == ["tf32"]
    for value in ("ieee", "tf32x3", "tf32"):
        source = edit(
            HELION_MATMUL, "static_shapes=True,", f'static_shapes=True, dot_precision="{value}",'
        )
        assert precisions(source, "helion") == [value]


def test_helion_frontend_refuses_an_unknown_setting() -> None:
    source = edit(HELION_MATMUL, "static_shapes=True,", 'static_shapes=True, dot_precision="fast",')
    with pytest.raises(TranslationError, match="dot_precision"):
        parse_source(source, "h.py", "helion")


CUTILE_MMA = "acc = ct.mma(a, b, acc)"


@pytest.mark.parametrize(
    ("mma", "prelude", "want"),
    [
        (CUTILE_MMA, "", "ieee"),  # ct.mma multiplies float32 exactly
        ("acc = ct.mma(ct.astype(a, ct.tfloat32), ct.astype(b, ct.tfloat32), acc)", "", "tf32"),
        (
            "acc = ct.mma(ct.astype(a, ct.tfloat32, rounding_mode=ct.RoundingMode.RZ), "
            "ct.astype(b, ct.tfloat32, rounding_mode=ct.RoundingMode.RZ), acc)",
            "",
            "tf32",
        ),
        (
            "acc = ct.mma(ct.astype(a, a_mma), ct.astype(b, b_mma), acc)",
            "    a_mma = ct.tfloat32 if A.dtype == ct.float32 else A.dtype\n"
            "    b_mma = ct.tfloat32 if B.dtype == ct.float32 else B.dtype\n",
            "tf32",
        ),
    ],
)
def test_cutile_frontend_reads_tfloat32_operands_as_a_tf32_dot(
    mma: str, prelude: str, want: str
) -> None:
    source = edit(CUTILE_GEMM, CUTILE_MMA, mma)
    source = edit(source, "    bm = ct.bid(0)\n", prelude + "    bm = ct.bid(0)\n")
    module = parse_source(source, "c.py", "cutile")
    (dot,) = dots(module)
    assert dot.precision == want
    # A cast to tf32 is the precision, not a value: the operands are the loaded tiles, as
    # float32 (`ct.tfloat32` of an fp16 tile holds its values exactly) or as the tensor's own
    # dtype (the conditional form, which is fp16 where the tensor is).
    as_f32 = "ct.astype(a, ct.tfloat32" in mma
    for operand, name in ((dot.lhs, "a"), (dot.rhs, "b")):
        assert operand == (ir.Cast(ir.Name(name), ir.F32) if as_f32 else ir.Name(name))


def test_cutile_frontend_refuses_one_tf32_operand() -> None:
    source = edit(CUTILE_GEMM, CUTILE_MMA, "acc = ct.mma(ct.astype(a, ct.tfloat32), b, acc)")
    with pytest.raises(TranslationError, match="tfloat32"):
        parse_source(source, "c.py", "cutile")


def test_tilelang_t_gemm_of_float32_is_tf32_and_of_fp16_has_no_precision() -> None:
    # The factory's dtype comes from the launch (`dtype=x.dtype`): it may be float32.
    assert precisions(TILELANG_GEMM, "tilelang") == ["tf32"]
    fp16 = TILELANG_GEMM.replace("block_K), dtype)", 'block_K), "float16")')
    assert precisions(fp16, "tilelang") == [None]


# --------------------------------------------------------------------------- IR


def test_verifier_checks_the_precision() -> None:
    source = edit(TRITON_DOT, "tl.dot(a, b,", "tl.dot(a.to(tl.float32), b.to(tl.float32),")
    module = parse_source(source, "t.py", "triton")
    (kernel,) = module.kernels
    for bad, message in ((None, "needs its input precision"), ("fast", "none of")):
        mutated = _replace_dots(kernel, bad)
        with pytest.raises(IRTypeError, match=message):
            verify(dataclasses.replace(module, kernels=(mutated,)))


def test_printer_prints_the_precision() -> None:
    a, b = ir.Name("a"), ir.Name("b")
    assert (
        format_expr(ir.Dot(a, b, None, precision="ieee"))
        == "dot(a, b, out=float32, precision=ieee)"
    )


def test_precision_is_kept_only_where_an_operand_may_be_float32() -> None:
    f16 = ir.DType("float16")
    assert dot_precision(f16, f16, "tf32") is None
    assert dot_precision(ir.F32, f16, "ieee") == "ieee"
    assert dot_precision(ir.DTypeOf("x"), f16, "tf32") == "tf32"  # a run-time dtype


def _rewrite(node: object, fn: Callable[[object], object]) -> object:
    """``node`` (an IR tree of frozen dataclasses and tuples) with ``fn`` applied bottom-up."""
    if isinstance(node, tuple):
        return tuple(_rewrite(n, fn) for n in node)
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        changes = {f.name: _rewrite(getattr(node, f.name), fn) for f in dataclasses.fields(node)}
        return fn(dataclasses.replace(node, **changes))
    return node


def _replace_dots(kernel: ir.Kernel, precision: str | None) -> ir.Kernel:
    def set_precision(e: object) -> object:
        return dataclasses.replace(e, precision=precision) if isinstance(e, ir.Dot) else e

    return _rewrite(kernel, set_precision)  # type: ignore[return-value]


# --------------------------------------------------------------------------- backends


def translate(source: str, src: str, dst: str) -> str:
    return emit(parse_source(source, f"{src}_src.py", src), dst)


def test_triton_backend_writes_input_precision_only_where_not_tf32() -> None:
    assert 'tl.dot(a_tile, b_tile, acc, input_precision="ieee")' in translate(
        TRITON_DOT, "triton", "triton"
    )
    assert 'input_precision="' not in translate(triton_with(""), "triton", "triton")
    tf32x3 = translate(triton_with('input_precision="tf32x3", '), "triton", "triton")
    assert 'input_precision="tf32x3"' in tf32x3
    # cuTile's IEEE mma into Triton.
    assert 'input_precision="ieee"' in translate(CUTILE_GEMM, "cutile", "triton")


def test_helion_backend_writes_dot_precision_only_where_not_tf32() -> None:
    helion = translate(TRITON_DOT, "triton", "helion")
    decorator = helion[helion.index("@helion.kernel(") : helion.index("\ndef ")]
    assert 'dot_precision="ieee"' in decorator, decorator
    assert "dot_precision" not in translate(triton_with(""), "triton", "helion")
    assert 'dot_precision="ieee"' in translate(CUTILE_GEMM, "cutile", "helion")


def test_helion_backend_refuses_a_kernel_whose_dots_differ() -> None:
    module = parse_source(TRITON_DOT, "t.py", "triton")
    (kernel,) = module.kernels
    (dot,) = dots(module)
    twice = _map(kernel, dot, ir.BinOp("+", dot, dataclasses.replace(dot, precision="tf32")))
    with pytest.raises(TranslationError, match="dot_precision") as err:
        emit(dataclasses.replace(module, kernels=(twice,)), "helion")
    assert err.value.loc is not None


def _map(kernel: ir.Kernel, old: ir.Expr, new: ir.Expr) -> ir.Kernel:
    return _rewrite(kernel, lambda e: new if e == old else e)  # type: ignore[return-value]


def test_cutile_backend_truncates_operands_to_tfloat32_only_for_tf32() -> None:
    tf32 = translate(triton_with(""), "triton", "cutile")
    # The Triton pointers' element type is the run-time tensor's: cast where it is float32.
    assert "a_mma_dtype = ct.tfloat32 if a.dtype == ct.float32 else a.dtype" in tf32
    assert "ct.astype(a_tile, a_mma_dtype, rounding_mode=ct.RoundingMode.RZ)" in tf32
    ieee = translate(TRITON_DOT, "triton", "cutile")
    assert "tfloat32" not in ieee and "ct.mma(a_tile, b_tile, acc)" in ieee


def test_cutile_backend_casts_a_float32_tile_straight_to_tfloat32() -> None:
    source = edit(triton_with(""), "tl.dot(a, b,", "tl.dot(a.to(tl.float32), b.to(tl.float32),")
    text = translate(source, "triton", "cutile")
    assert "ct.astype(a_tile, ct.tfloat32, rounding_mode=ct.RoundingMode.RZ)" in text


def test_tilelang_backend_says_where_t_gemm_cannot_keep_ieee() -> None:
    text = translate(TRITON_DOT, "triton", "tilelang")
    assert "the source multiplied them in IEEE float32" in text
    assert "T.gemm rounds" not in translate(triton_with(""), "triton", "tilelang")


# --------------------------------------------------------------------------- round trips


@pytest.mark.parametrize("via", ["helion", "cutile", "triton"])
@pytest.mark.parametrize("option", ["", IEEE_CALL, 'input_precision="tf32x3", '])
def test_precision_survives_a_round_trip(option: str, via: str) -> None:
    source = triton_with(option)
    want = precisions(source, "triton")
    if via == "cutile" and want == ["tf32x3"]:
        want = ["ieee"]  # cuTile has no tf32x3: IEEE, the product it approximates
    assert precisions(translate(source, "triton", via), via) == want
