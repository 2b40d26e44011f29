"""Validation shapes a module's public functions through the calls they make: a parameter passed
on as a view that is the tensor itself at the callee's rank (``x.reshape(-1, x.shape[-1])``)
is shaped for the callee; a reshape to other sizes is not read through."""

from __future__ import annotations

import os
from pathlib import Path

os.environ["TRITON_INTERPRET"] = "1"

import pytest  # noqa: E402

from translator.api import parse_file, parse_source  # noqa: E402
from translator.ir import nodes as ir  # noqa: E402
from validation.equivalence import check_pair  # noqa: E402
from validation.relations import derive  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = ROOT / "examples" / "library"

_LAUNCHER = """
import torch
import triton
import triton.language as tl


@triton.jit
def _scale_kernel(x_ptr, out_ptr, n_cols, stride_x, stride_out, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_x + cols, mask=mask)
    tl.store(out_ptr + row * stride_out + cols, x * 2.0, mask=mask)


def _scale_rows(x2d: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x2d)
    n_rows, n_cols = x2d.shape
    block = triton.next_power_of_2(n_cols)
    _scale_kernel[(n_rows,)](x2d, out, n_cols, x2d.stride(0), out.stride(0), BLOCK=block)
    return out


def scale(x: torch.Tensor) -> torch.Tensor:
{body}
"""


def _entry(body: str):
    module = parse_source(_LAUNCHER.format(body=body), "scale.py", "triton")
    entry = next(e for e in module.entries if e.name == "scale")
    return entry, module


@pytest.mark.parametrize(
    "body",
    [
        "    shape = x.shape\n    return _scale_rows(x.reshape(-1, shape[-1])).view(shape)",
        "    x_2d = x.reshape(-1, x.shape[-1])\n    return _scale_rows(x_2d).view(x.shape)",
        "    return _scale_rows(x.view(-1, x.size(-1)).contiguous())",
        "    return _scale_rows(x.contiguous())",
    ],
)
def test_a_view_that_keeps_the_last_dim_is_shaped_for_the_callee(body: str) -> None:
    entry, module = _entry(body)
    (forward,) = entry.forwards
    assert [q for q, _ in forward.views] == ["x2d"]
    rel = derive(entry, module.kernels, module.entries)
    assert rel.params == ("x",) and rel.ranks == {"x": 2}


@pytest.mark.parametrize(
    "body",
    [
        # Other sizes: the callee's input is not the caller's tensor at any rank.
        "    return _scale_rows(x.reshape(-1, 4))",
        "    return _scale_rows(x.reshape(x.shape[0] * 2, -1))",
        # Another tensor's last dim.
        "    y = x.t()\n    return _scale_rows(x.reshape(-1, y.shape[-1]))",
    ],
)
def test_a_reshape_to_other_sizes_is_not_read_through(body: str) -> None:
    entry, module = _entry(body)
    assert all(not f.views for f in entry.forwards)
    with pytest.raises(ValueError, match="reaches no entry as it is"):
        derive(entry, module.kernels, module.entries)


def test_a_library_module_validates_through_its_autograd_function_without_an_inputs_file() -> None:
    # `dropout(x)` -> `Dropout.apply(x, p, seed)` -> `dropout_fwd(x.reshape(-1, shape[-1]), ...)`:
    # shaped with no `--inputs`, and the Triton golden proved against the source on the CPU.
    source = LIBRARY / "helion" / "dropout.py"
    module = parse_file(source, "helion")
    entry = next(e for e in module.entries if e.name == "dropout")
    assert derive(entry, module.kernels, module.entries).ranks["x"] == 2
    report = check_pair(source, LIBRARY / "helion" / "expected_triton" / "dropout.py", seeds=(0,))
    rows = [r for r in report.rows if r.entry == "dropout"]
    assert rows and all(r.passed for r in rows), report.format_text()


@pytest.mark.parametrize("spelling", ["weight.t()", "weight.T", "weight.transpose(0, 1)"])
def test_a_transposed_weight_is_shaped_as_the_transpose_of_the_callees(spelling: str) -> None:
    # `linear(x, weight)` passes `weight.t()` to `matmul(x, w)`: weight is [N, K] where w is
    # [K, N], so weight's dims take w's classes crosswise.
    text = (LIBRARY / "helion" / "matmul.py").read_text().replace("weight.t()", spelling)
    module = parse_source(text, "matmul.py", "helion")
    entry = next(e for e in module.entries if e.name == "linear")
    rel = derive(entry, module.kernels, module.entries)
    assert rel.ranks["weight"] == 2
    assert rel.dim_class[("weight", 1)] == rel.dim_class[("x", 1)]  # K
    assert rel.dim_class[("weight", 0)] != rel.dim_class[("weight", 1)]


def test_a_reshape_of_a_transpose_is_not_read_through() -> None:
    text = (
        (LIBRARY / "helion" / "matmul.py")
        .read_text()
        .replace("w_t = weight.t()", "w_t = weight.t().reshape(-1, weight.shape[0])")
    )
    module = parse_source(text, "matmul.py", "helion")
    entry = next(e for e in module.entries if e.name == "linear")
    assert entry.forwards and all("w" not in dict(f.args) for f in entry.forwards)


def test_linear_validates_through_the_transposed_weight_without_an_inputs_file() -> None:
    source = LIBRARY / "helion" / "matmul.py"
    report = check_pair(source, LIBRARY / "helion" / "expected_triton" / "matmul.py", seeds=(0,))
    rows = [r for r in report.rows if r.entry == "linear"]
    assert rows and all(r.passed for r in rows), report.format_text()


def test_a_transpose_inside_an_autograd_function_is_kept_through_the_public_call() -> None:
    # `linear_fn(x, weight)` -> `Linear.apply(x, weight)` -> `matmul(x, weight.t())`: the
    # transpose is two calls down, and still read crosswise.
    text = (LIBRARY / "helion" / "matmul.py").read_text() + (
        "\n\nclass Linear(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x, weight):\n"
        "        return matmul(x, weight.t())\n"
        "\n\ndef linear_fn(x: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:\n"
        "    return Linear.apply(x, weight)\n"
    )
    module = parse_source(text, "matmul.py", "helion")
    entry = next(e for e in module.entries if e.name == "linear_fn")
    rel = derive(entry, module.kernels, module.entries)
    assert rel.dim_class[("weight", 1)] == rel.dim_class[("x", 1)]
    assert rel.dim_class[("weight", 0)] != rel.dim_class[("x", 1)]


@pytest.mark.parametrize(
    "rebinding",
    [
        "    x_2d, other = x_2d.t(), 0\n",
        "    for x_2d in (x,):\n        pass\n",
        "    x_2d += 0\n",
    ],
)
def test_a_local_bound_again_is_no_view(rebinding: str) -> None:
    body = "    x_2d = x.reshape(-1, x.shape[-1])\n" + rebinding + "    return _scale_rows(x_2d)"
    entry, _ = _entry(body)
    assert all(not f.views for f in entry.forwards)


_FLAT = """

@triton.jit
def _flat_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1.0, mask=mask)


def _inc_flat(v: torch.Tensor) -> torch.Tensor:
    assert v.dim() == 1
    out = torch.empty_like(v)
    n = v.shape[0]
    _flat_kernel[(triton.cdiv(n, 64),)](v, out, n, BLOCK=64)
    return out
"""


def test_a_call_passing_the_tensor_as_it_is_shapes_it_before_a_view() -> None:
    # `flatten()` is the tensor itself at rank 1, `_scale_rows` takes it at rank 2 as it is: the
    # direct call decides (it was the flattened one, first in source order, drawing x 1-d).
    body = "    if x.dim() == 1:\n        return _inc_flat(x.flatten())\n    return _scale_rows(x)"
    module = parse_source(_LAUNCHER.format(body=body) + _FLAT, "scale.py", "triton")
    entry = next(e for e in module.entries if e.name == "scale")
    assert derive(entry, module.kernels, module.entries).ranks == {"x": 2}


def test_a_view_of_another_rank_than_the_callee_takes_is_not_read_through() -> None:
    # `x.reshape(-1, x.shape[-1])` is 2-d; `_inc_flat` takes 1-d: no shaping from this call.
    body = "    return _inc_flat(x.reshape(-1, x.shape[-1]))"
    module = parse_source(_LAUNCHER.format(body=body) + _FLAT, "scale.py", "triton")
    entry = next(e for e in module.entries if e.name == "scale")
    with pytest.raises(ValueError, match="as a 2-d view, where it takes 1-d"):
        derive(entry, module.kernels, module.entries)


def test_a_transpose_is_read_only_into_a_2d_parameter() -> None:
    # `transpose(-1, -2)` of a 3-d batch is no 2-d transpose: the direct call shapes x 3-d.
    text = _LAUNCHER.format(body="    return _scale_rows(x)").replace(
        "def scale(x: torch.Tensor)", "def _unused(x: torch.Tensor)"
    ) + (
        "\n\n@triton.jit\n"
        "def _b_kernel(x_ptr, out_ptr, M, N, sxb, sxm, sob, som, BLOCK: tl.constexpr):\n"
        "    b = tl.program_id(0)\n"
        "    m = tl.program_id(1)\n"
        "    cols = tl.arange(0, BLOCK)\n"
        "    mask = cols < N\n"
        "    x = tl.load(x_ptr + b * sxb + m * sxm + cols, mask=mask)\n"
        "    tl.store(out_ptr + b * sob + m * som + cols, x * 2.0, mask=mask)\n"
        "\n\ndef _bscale(x: torch.Tensor) -> torch.Tensor:\n"
        "    B, M, N = x.shape\n"
        "    out = torch.empty((B, M, N), device=x.device, dtype=x.dtype)\n"
        "    block = triton.next_power_of_2(N)\n"
        "    _b_kernel[(B, M)](x, out, M, N, x.stride(0), x.stride(1), out.stride(0),"
        " out.stride(1), BLOCK=block)\n"
        "    return out\n"
        "\n\ndef scale(x: torch.Tensor, swap: bool = False) -> torch.Tensor:\n"
        "    if swap:\n"
        "        return _bscale(x.transpose(-1, -2))\n"
        "    return _bscale(x)\n"
    )
    module = parse_source(text, "scale.py", "triton")
    entry = next(e for e in module.entries if e.name == "scale")
    assert derive(entry, module.kernels, module.entries).ranks == {"x": 3}


def test_a_call_in_a_nested_function_reads_no_outer_local() -> None:
    # `x2` in `inner` is inner's own parameter, not the outer view of the same name.
    body = (
        "    x2 = x.reshape(-1, x.shape[-1])\n"
        "\n"
        "    def inner(x2):\n"
        "        return _scale_rows(x2)\n"
        "\n"
        "    return inner(x.reshape(-1, 4))"
    )
    entry, module = _entry(body)
    assert all(not f.views for f in entry.forwards)
    with pytest.raises(ValueError, match="reaches no entry as it is"):
        derive(entry, module.kernels, module.entries)


def test_a_caller_of_a_checked_rank_is_not_shaped_by_a_view_of_another() -> None:
    # `x` is asserted 3-d; `x.reshape(-1, x.shape[-1])` is x itself only when x is 2-d.
    body = "    assert x.dim() == 3\n    return _scale_rows(x.reshape(-1, x.shape[-1]))"
    entry, module = _entry(body)
    with pytest.raises(ValueError, match="is 3-d, and reaches _scale_rows as a 2-d view"):
        derive(entry, module.kernels, module.entries)


def test_a_kernel_passed_to_a_dispatch_helper_is_read_through_the_helper() -> None:
    # `softmax(x, dim)` -> `_apply_lastdim(softmax_lastdim, x, dim)`, which runs
    # `kernel(x.contiguous())`: the call of `softmax_lastdim` with the caller's `x`.
    module = parse_file(LIBRARY / "helion" / "softmax.py", "helion")
    for name, callee in (("softmax", "softmax_lastdim"), ("log_softmax", "log_softmax_lastdim")):
        entry = next(e for e in module.entries if e.name == name)
        assert any(
            f.callee == callee and dict(f.args) == {"x": ir.Name("x")} for f in entry.forwards
        )
        assert derive(entry, module.kernels, module.entries).ranks == {"x": 2}


@pytest.mark.parametrize(
    ("helper_call", "shaped"),
    [
        ("kernel(v.contiguous())", True),
        ("kernel(v.reshape(-1, v.shape[-1]))", True),
        # Not the tensor itself at any rank the callee takes: nothing read through.
        ("kernel(v.reshape(-1, 4))", False),
        ("kernel(v.flatten())", False),  # 1-d where `_scale_rows` unpacks 2 dims
    ],
)
def test_what_a_dispatch_helper_passes_its_kernel_decides(helper_call: str, shaped: bool) -> None:
    text = _LAUNCHER.format(body="    return _dispatch(_scale_rows, x)") + (
        f"\n\ndef _dispatch(kernel, v):\n    return {helper_call}\n"
    )
    module = parse_source(text, "scale.py", "triton")
    entry = next(e for e in module.entries if e.name == "scale")
    if shaped:
        assert derive(entry, module.kernels, module.entries).ranks == {"x": 2}
    else:
        with pytest.raises(ValueError):
            derive(entry, module.kernels, module.entries)
