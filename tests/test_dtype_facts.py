"""The dtypes a source documents for its tensors, and validation trying them first."""

from __future__ import annotations

import os
from pathlib import Path

os.environ["TRITON_INTERPRET"] = "1"

import libcst as cst  # noqa: E402

from translator.api import parse_file, translate_file  # noqa: E402
from translator.dialects.common.dtype_facts import documented_dtypes, proven_dtypes  # noqa: E402
from translator.ir import nodes as ir  # noqa: E402
from validation.equivalence import check_pair, row_dtypes  # noqa: E402
from validation.equivalence import documented_dtypes as entry_documented  # noqa: E402

DATA = Path(__file__).resolve().parent / "data"


def facts(src: str) -> dict[str, tuple[str, ...]]:
    fn = cst.parse_module(src).body[0]
    assert isinstance(fn, cst.FunctionDef)
    names = [p.name.value for p in fn.params.params]
    return documented_dtypes(fn, names)


def test_reads_dtype_asserts_and_raising_checks():
    src = (
        "def f(x, w, b, s):\n"
        "    assert w.dtype == torch.int8 and x.shape == w.shape\n"
        "    assert torch.float16 == s.dtype\n"
        "    if x.dtype not in (torch.float16, torch.bfloat16):\n"
        "        raise TypeError('x')\n"
        "    if b.dtype != torch.float32 or s.dtype != torch.float16:\n"
        "        raise TypeError('b')\n"
    )
    assert facts(src) == {
        "x": (("float16", "bfloat16"), "check"),
        "w": (("int8",), "check"),
        "b": (("float32",), "check"),
        "s": (("float16",), "check"),
    }


def test_a_check_that_does_not_raise_says_nothing():
    src = "def f(x):\n    if x.dtype != torch.float16:\n        x = x.half()\n"
    assert facts(src) == {}


def test_reads_jaxtyping_annotations_and_docstring_arguments():
    src = (
        "def f(x: Float16[Tensor, 'm k'], w: torch.Tensor, y, z):\n"
        '    """Scale.\n\n'
        "    Args:\n"
        "        x: ignored here, the annotation wins: fp32.\n"
        "        w (torch.Tensor): weights, bf16 or fp16,\n"
        "            of shape (K,).\n"
        "        y: no dtype named.\n"
        "        z: scales, float32.\n"
        '    """\n'
    )
    assert facts(src) == {
        "x": (("float16",), "annotation"),
        "w": (("bfloat16", "float16"), "docstring"),
        "z": (("float32",), "docstring"),
    }


def test_rows_take_the_checked_dtypes_the_device_can_run():
    documented = {"x": (("bfloat16", "float16"), "check"), "w": (("int8",), "check")}
    assert row_dtypes(documented, None, "cpu") == [("float16", {"w": "int8"})]
    assert row_dtypes(documented, None, "cuda") == [
        ("bfloat16", {"w": "int8"}),
        ("float16", {"w": "int8"}),
    ]
    # Explicit dtypes win; a tensor checked to other dtypes keeps its first runnable one.
    assert row_dtypes(documented, ["float32"], "cpu") == [
        ("float32", {"x": "float16", "w": "int8"})
    ]


def test_a_docstring_orders_the_rows_but_binds_nothing():
    assert [d for d, _ in row_dtypes({}, None, "cpu")] == ["float32", "float16"]
    documented = {"x": (("float16",), "docstring"), "w": (("int8",), "check")}
    assert row_dtypes(documented, None, "cpu") == [
        ("float16", {"w": "int8"}),
        ("float32", {"w": "int8"}),
    ]


def test_a_public_function_inherits_the_dtypes_of_the_entry_it_forwards_to(tmp_path: Path):
    src = (DATA / "triton_int8_scale.py").read_text()
    src += (
        "\n\ndef scale_weights(activations, weights):\n"
        "    return int8_scale(activations, weights, 0.5)\n"
    )
    path = tmp_path / "forwarded.py"
    path.write_text(src)
    module = parse_file(path, "triton")
    public = next(e for e in module.entries if e.name == "scale_weights")
    assert entry_documented(public, module.entries) == {
        "activations": (("float16", "float32"), "docstring"),
        "weights": (("int8",), "check"),
    }


def test_validation_runs_int8_weights_with_the_documented_activation_dtypes(tmp_path: Path):
    source = DATA / "triton_int8_scale.py"
    out = tmp_path / "int8_scale_helion.py"
    out.write_text(translate_file(source, "triton", "helion"))
    report = check_pair(source, out, src_dsl="triton", seeds=(0,))
    assert report.passed, report.format_text()
    # The source asserts int8 weights: with float weights it would raise, so every row passing
    # shows the weights were int8; the activations follow the docstring's order.
    assert [r.dtype for r in report.rows] == ["float16", "float32"]
    assert any("w: int8 (check)" in n for n in report.notes)


def proven(src: str) -> dict[str, str]:
    fn = cst.parse_module(src).body[0]
    assert isinstance(fn, cst.FunctionDef)
    return proven_dtypes(fn, [p.name.value for p in fn.params.params])


def test_a_dtype_is_proven_by_a_check_of_the_functions_own_block_on_a_name_never_rebound():
    src = (
        "def f(x, w, b, c, d):\n"
        "    assert x.dtype == torch.float16 and w.dtype == torch.bfloat16\n"
        "    if b.dtype != torch.float32:\n"
        "        raise TypeError(b.dtype)\n"
        "    if d is not None:\n"
        "        assert d.dtype == torch.float16\n"  # in a branch: proves nothing
        "    assert c.dtype in (torch.float16, torch.bfloat16)\n"  # several: proves nothing
        "    x = x.contiguous()\n"  # rebound: the check says nothing of what is launched
    )
    assert proven(src) == {"w": "bfloat16", "b": "float32"}


MIXED_DOT = """\
import torch
import helion
import helion.language as hl


@helion.kernel(config=helion.Config(block_sizes=[16, 16, 16]))
def mm(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    \"\"\"fp16 activations times bf16 weights: Helion promotes both to fp32 for the dot.\"\"\"
    assert x.dtype == torch.float16 and w.dtype == torch.bfloat16
    m, k = x.size()
    _, n = w.size()
    out = torch.empty([m, n], dtype=torch.float32, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = hl.dot(x[tile_m, tile_k], w[tile_k, tile_n], acc=acc)
        out[tile_m, tile_n] = acc
    return out
"""


def test_a_dot_of_two_checked_dtypes_is_promoted_in_triton(tmp_path: Path):
    # tl.dot takes one dtype: `tl.dot(fp16, bf16)` (what was written) does not compile.
    source = tmp_path / "mixed_dot.py"
    source.write_text(MIXED_DOT)
    kernel = parse_file(source, "helion").kernels[0]
    assert kernel.param("x").dtype == ir.DType("float16")
    assert kernel.param("w").dtype == ir.DType("bfloat16")
    translated = tmp_path / "mixed_dot_triton.py"
    translated.write_text(translate_file(source, "helion", "triton"))
    assert "tl.dot(x_2.to(tl.float32), w_2.to(tl.float32), acc)" in translated.read_text()
    report = check_pair(source, translated, seeds=(0,))
    assert report.passed, report.format_text()
    assert {row.dtype for row in report.rows} == {"float16"}  # x's: the documented one
