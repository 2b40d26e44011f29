"""The one padding rule (translator/ir/padding.py) computes what torch computes on the same values.

Every frontend and backend follows pads through ops with :func:`fold_pad`; where it returns a
number, that number must be what the op gives on those lanes at run time (torch's semantics are
the IR's), including the IEEE corners that decide whether a mask may be dropped: ``x / 0``,
``0 * inf``, NaN through ``maximum``.
"""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from translator.ir.padding import BINARY, UNARY, fold_pad

VALUES = [0.0, -0.0, 1.0, -2.5, 3.0, math.inf, -math.inf, math.nan]

TORCH_UNARY = {
    "neg": torch.neg,
    "not": torch.logical_not,
    "abs": torch.abs,
    "exp": torch.exp,
    "exp2": torch.exp2,
    "log": torch.log,
    "log2": torch.log2,
    "log1p": torch.log1p,
    "sqrt": torch.sqrt,
    "rsqrt": torch.rsqrt,
    "sigmoid": torch.sigmoid,
    "relu": torch.relu,
    "floor": torch.floor,
    "ceil": torch.ceil,
    "cos": torch.cos,
    "sin": torch.sin,
    "tanh": torch.tanh,
    "erf": torch.erf,
    "gelu": F.gelu,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "silu": F.silu,
}
TORCH_BINARY = {
    "+": torch.add,
    "-": torch.sub,
    "*": torch.mul,
    "/": torch.div,
    "maximum": torch.maximum,
    "minimum": torch.minimum,
    "<": torch.lt,
    "<=": torch.le,
    ">": torch.gt,
    ">=": torch.ge,
    "==": torch.eq,
    "!=": torch.ne,
}


def _same(folded: float, expected: float) -> bool:
    if math.isnan(expected):
        return math.isnan(folded)
    return folded == pytest.approx(expected, rel=1e-6, abs=1e-12)


def test_every_op_the_rule_folds_has_a_torch_reference() -> None:
    assert set(UNARY) == set(TORCH_UNARY) and set(BINARY) == set(TORCH_BINARY)


@pytest.mark.parametrize("op", sorted(UNARY))
def test_unary_folds_agree_with_torch(op: str) -> None:
    for v in VALUES:
        folded = fold_pad(op, [v])
        if folded is None:
            continue
        expected = float(TORCH_UNARY[op](torch.tensor([v], dtype=torch.float64))[0])
        assert _same(folded, expected), (op, v, folded, expected)


@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_folds_agree_with_torch(op: str) -> None:
    for a in VALUES:
        for b in VALUES:
            folded = fold_pad(op, [a, b])
            assert folded is not None, (op, a, b)
            t = TORCH_BINARY[op](
                torch.tensor([a], dtype=torch.float64), torch.tensor([b], dtype=torch.float64)
            )
            assert _same(folded, float(t[0])), (op, a, b, folded, float(t[0]))


def test_where_picks_a_branch_on_a_known_condition_or_equal_branches() -> None:
    assert fold_pad("where", [1.0, 2.0, None]) == 2.0
    assert fold_pad("where", [0.0, None, -math.inf]) == -math.inf
    assert fold_pad("where", [None, 5.0, 5.0]) == 5.0
    assert fold_pad("where", [None, 5.0, 4.0]) is None


def test_unknown_operands_absorb_only_under_the_finite_policy() -> None:
    # Valid data is finite: 0 * x is 0, -inf - x is -inf, maximum(inf, x) is inf ...
    assert fold_pad("*", [0.0, None], unknown="finite") == 0.0
    assert fold_pad("-", [-math.inf, None], unknown="finite") == -math.inf
    assert fold_pad("-", [None, -math.inf], unknown="finite") == math.inf
    assert fold_pad("maximum", [None, math.inf], unknown="finite") == math.inf
    assert math.isnan(fold_pad("+", [math.nan, None], unknown="finite"))  # type: ignore[arg-type]
    # ... but a value that may be anything (inf, NaN) decides nothing.
    for op, pads in [("*", [0.0, None]), ("-", [-math.inf, None]), ("maximum", [None, math.inf])]:
        assert fold_pad(op, pads) is None
    assert fold_pad("+", [1.0, None], unknown="finite") is None
