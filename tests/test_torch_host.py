"""The shared reader of torch allocation calls (``translator/dialects/common/torch_host.py``)."""

from __future__ import annotations

import libcst as cst
import pytest

from translator.dialects import dialects
from translator.dialects.common.torch_host import AllocError, read_alloc
from translator.grammar import load_grammar

FUNCTIONS = {
    "torch.empty": "empty",
    "torch.full": "full",
    "torch.zeros_like": "zeros_like",
}
METHODS = {"new_ones": "ones"}


def _read(code: str, function: str | None):
    node = cst.parse_expression(code)
    assert isinstance(node, cst.Call)
    return read_alloc(node, function, FUNCTIONS, METHODS)


def _text(node: cst.CSTNode | None) -> str | None:
    return None if node is None else cst.Module([]).code_for_node(node)


def test_shape_dtype_device_and_fill() -> None:
    call = _read("torch.empty((m, n), dtype=torch.float16, device=x.device)", "torch.empty")
    assert call is not None and call.kind == "empty" and call.fill is None
    assert [_text(s) for s in call.shape] == ["m", "n"]
    assert _text(call.dtype) == "torch.float16" and _text(call.device) == "x.device"
    full = _read("torch.full([m], -1.5, dtype=torch.float32, device=d)", "torch.full")
    assert full is not None and full.kind == "full" and full.fill == -1.5
    assert [_text(s) for s in full.shape] == ["m"]


def test_like_and_new_allocations() -> None:
    like = _read("torch.zeros_like(x)", "torch.zeros_like")
    assert like is not None and like.kind == "zeros" and like.fill == 0.0
    assert _text(like.like) == "x" and like.shape == ()
    new = _read("x.new_ones(m, n)", None)
    assert new is not None and new.kind == "ones" and _text(new.base) == "x"
    assert [_text(s) for s in new.shape] == ["m", "n"]


def test_not_an_allocation() -> None:
    assert _read("torch.matmul(a, b)", "torch.matmul") is None
    assert _read("x.new_tensor(a)", None) is None


def test_what_it_cannot_read_is_located() -> None:
    with pytest.raises(AllocError) as err:
        _read("torch.empty(m, pin_memory=True)", "torch.empty")
    assert "pin_memory" in str(err.value) and isinstance(err.value.node, cst.Call)
    with pytest.raises(AllocError, match="number literals"):
        _read("torch.full([m], value, device=d)", "torch.full")


def test_every_dialect_grammar_names_allocators_the_reader_knows() -> None:
    from translator.ir import nodes as ir

    readers = [n for n in sorted(dialects()) if "frontend" in load_grammar(n)]
    assert readers, "no dialect has a frontend"
    for name in readers:
        table = load_grammar(name)["frontend"]["host_alloc"]
        assert table and set(table.values()) <= set(ir.ALLOC_KINDS), name
