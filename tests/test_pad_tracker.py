"""Masks a backend leaves out because the invalid lanes already hold what the mask would put there
(translator/ir/pad_tracker.py, translator/ir/signs.py's positive scales).

The cuTile probe measured what each redundant `ct.where` costs (BENCHMARKS.md: FlashAttention
0.22x -> 0.72x of its Triton source with one `where` left instead of five; cross entropy 0.17x ->
0.46x). Dropping a mask is exact only where the analysis proves it; these tests pin both sides:
the masks go where the proof holds (a host-asserted positive scale), and stay where it does not.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import torch

from translator.api import parse_source, translate_source
from translator.ir.signs import positive_names, positive_params

ROOT = Path(__file__).resolve().parent.parent
ATTENTION = ROOT / "examples/triton/attention.py"
ASSERT = '    assert sm_scale > 0, "sm_scale must be positive"\n'


def _attention_source(with_assert: bool) -> str:
    text = ATTENTION.read_text()
    assert text.count(ASSERT) == 1
    return text if with_assert else text.replace(ASSERT, "")


def _kernel_loop(cutile: str) -> str:
    """The cuTile kernel's key loop (from its `for` to the `m_i` update)."""
    start = cutile.index("    for tile_n in range(")
    return cutile[start : cutile.index("        m_i = m_ij", start)]


def test_a_host_asserted_scale_and_the_locals_made_from_it_are_positive() -> None:
    module = parse_source(_attention_source(True), "attention.py", "triton")
    (kernel,) = module.kernels
    assert positive_params(kernel, module) == {"sm_scale"}
    assert {"sm_scale", "qk_scale", "qk_scale_2"} <= positive_names(kernel, module)


SCALED_SUM = """
import torch
import triton
import triton.language as tl


@triton.jit
def scaled_sum_kernel(x_ptr, out_ptr, n, scale, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr, tl.sum(x * scale, axis=0))


def scaled_sum(x: torch.Tensor, scale: float) -> torch.Tensor:
    out = torch.empty(1, device=x.device, dtype=torch.float32)
    {check}
    scaled_sum_kernel[(1,)](x, out, x.numel(), scale, BLOCK=triton.next_power_of_2(x.numel()))
    return out
"""


@pytest.mark.parametrize(
    "check, proved",
    [
        ("assert scale > 0", True),
        ("assert scale > 0.5 and x.numel() > 0", True),
        ("assert scale >= 0", False),
        ("assert scale != 0", False),
        ("pass", False),
    ],
)
def test_only_an_assert_that_bounds_the_scale_above_zero_proves_it_positive(
    check: str, proved: bool
) -> None:
    module = parse_source(SCALED_SUM.format(check=check), "scaled_sum.py", "triton")
    (kernel,) = module.kernels
    assert ("scale" in positive_params(kernel, module)) == proved


def test_flash_attention_keeps_one_mask_when_its_scale_is_positive() -> None:
    loop = _kernel_loop(translate_source(_attention_source(True), "a.py", "triton", "cutile"))
    # The source's own `where` on the scores; the max, the sum and both MMA operands read
    # lanes that already hold -inf (scores), 0 (probabilities) or 0 (zero-padded values).
    assert loop.count("ct.where(") == 1, loop
    assert re.search(r"ct\.sum\(p, axis=1\)", loop), loop


def test_unknown_scores_are_masked_once_where_they_are_bound() -> None:
    # Helion masks reductions itself, so its attention never sets the padded scores to -inf:
    # they hold q . 0 = 0, and exp(0 - max) is not 0. One `where` where the scores are bound
    # (to the max's identity) serves the max, and makes the probabilities 0 for the sum and
    # the MMA: one mask instead of three.
    text = translate_source(
        (ROOT / "examples/helion/attention.py").read_text(), "a.py", "helion", "cutile"
    )
    loop = text[text.index("    for tile_n in range(") :]
    assert loop.count("ct.where(") == 1, loop
    assert "qk = ct.where(" in loop and "ct.max(qk, axis=1)" in loop and "ct.sum(p, axis=1)" in loop


def test_a_row_loaded_for_a_max_is_padded_with_its_identity() -> None:
    # Helion's softmax loads its row (the IR pads it with 0) and takes its max: the load pads
    # with -inf instead, which makes the max exact and exp(x - max) 0 for the sum. No `where`.
    text = translate_source(
        (ROOT / "examples/helion/softmax.py").read_text(), "s.py", "helion", "cutile"
    )
    assert "padding_mode=ct.PaddingMode.NEG_INF" in text and "ct.where(" not in text, text


def test_values_an_unmasked_reduction_reads_keep_their_padding() -> None:
    # The frontend proved what an unmasked reduction's invalid lanes hold: neither the value
    # it reads nor what that value is computed from may be padded otherwise.
    from translator.ir import nodes as ir
    from translator.ir.pad_tracker import names_read_unmasked

    body = (
        ir.Assign("b", ir.BinOp("*", ir.Name("a"), ir.Const(2.0))),
        ir.Assign("c", ir.Reduce("sum", ir.Name("b"), 0, masked=False)),
        ir.Assign("d", ir.Reduce("max", ir.Name("e"), 0)),
    )
    assert names_read_unmasked(body) == {"a", "b"}


SUM_OF_SCALED = """
import torch
import triton
import triton.language as tl


@triton.jit
def scaled_lse_kernel(x_ptr, out_ptr, x_row_stride, n_cols, scale, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * x_row_stride + offs, mask=offs < n_cols, other=float("-inf"))
    m = tl.max(x * scale, axis=0)
    tl.store(out_ptr + row, tl.sum(tl.exp(x * scale - m), axis=0))


def scaled_lse(x: torch.Tensor, scale: float) -> torch.Tensor:
    out = torch.empty(x.shape[0], device=x.device, dtype=torch.float32)
    {check}
    scaled_lse_kernel[(x.shape[0],)](
        x, out, x.stride(0), x.shape[1], scale, BLOCK=triton.next_power_of_2(x.shape[1])
    )
    return out
"""


def test_a_scale_the_host_proves_above_zero_drops_the_mask() -> None:
    text = translate_source(
        SUM_OF_SCALED.format(check="assert scale > 0"), "lse.py", "triton", "cutile"
    )
    body = text[text.index("def scaled_lse_kernel") : text.index("def scaled_lse(")]
    assert "ct.where(" not in body, body


def test_the_unmasked_translation_still_matches_its_source_at_a_ragged_size(tmp_path: Path) -> None:
    """The CPU oracle (sm_90 compile + IR interpreter) on the unmasked form, 1000 columns in a
    1024-lane block, with scores large enough that a wrong pad would show."""
    from validation.equivalence import check_pair

    source = tmp_path / "lse.py"
    source.write_text(SUM_OF_SCALED.format(check="assert scale > 0"))
    target = tmp_path / "lse_cutile.py"
    target.write_text(translate_source(source.read_text(), str(source), "triton", "cutile"))
    assert "ct.where(" not in target.read_text()

    def inputs(entry: str, device: str, dtype: str) -> tuple:
        x = torch.randn(3, 1000, dtype=getattr(torch, dtype), device=device) * 4
        return (x, 0.5)

    report = check_pair(source, target, dtypes=("float32",), seeds=(0,), inputs=inputs)
    assert report.rows and report.passed, report.format_text()


def test_lanes_from_a_load_that_pads_with_nothing_are_unread_through_names() -> None:
    """A load without a pad (cuTile's default padding of a whole-row tile the launch makes the
    row's size) leaves lanes the frontend proved never read: they stay known as such through
    the values computed from them, and stop being so once a name is rebound from other data.
    (The TileLang backend may then pad them with a reduction's identity; any other unknown
    padding is refused there.)"""
    from translator.ir import nodes as ir
    from translator.ir.pad_tracker import PadTracker
    from translator.ir.shapes import TensorType, TypeEnv, infer

    row = ir.FullDim(ir.SizeOf("x", 1))
    whole = (ir.ScalarIndex(ir.Const(0)), ir.FullIndex(row.extent))
    env = TypeEnv(vars={"x": TensorType(ir.F32, 2)})
    tracker = PadTracker(lambda: env)
    scaled = ir.BinOp("*", ir.Load("x", whole, None), ir.Const(2.0))
    assert tracker.unread_along(scaled, row)
    tracker.bind("y", scaled)
    env.vars["y"] = infer(scaled, env)
    shifted = ir.Call("exp", (ir.BinOp("-", ir.Name("y"), ir.Const(1.0)),))
    assert tracker.unread_along(shifted, row)
    assert not tracker.unread_along(ir.Load("x", whole, 0.0), row)
    tracker.bind("y", ir.Load("x", whole, 0.0))
    assert not tracker.unread_along(ir.Name("y"), row)
