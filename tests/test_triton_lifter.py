"""Tests of the Triton lifter's structure (``translator.dialects.triton.lift_*``).

* the dispatch tables: every handler is a lifter method, and no name is handled both by a fixed
  handler and by a grammar table (so the order in which they are consulted cannot matter);
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import libcst as cst  # noqa: E402
import pytest  # noqa: E402

from translator.dialects.triton import lift_dispatch as dispatch  # noqa: E402
from translator.dialects.triton.frontend_device import KernelLifter  # noqa: E402
from translator.grammar import load_grammar  # noqa: E402

TABLES = [
    dispatch.CALLS,
    dispatch.FAMILIES,
    dispatch.BUILTINS,
    dispatch.METHODS,
    dispatch.EFFECTS,
    dispatch.EXPRESSIONS,
    dispatch.STATEMENTS,
    dispatch.SMALL_STATEMENTS,
]


@pytest.mark.parametrize("table", TABLES, ids=lambda t: t.what)
def test_every_handler_is_a_lifter_method(table: dispatch.Table) -> None:
    assert table
    for key, handler in table.items():
        assert getattr(KernelLifter, handler.__name__) is handler, (key, handler)


def test_grammar_tables_and_fixed_handlers_are_disjoint() -> None:
    front = load_grammar("triton")["frontend"]
    seen: dict[str, str] = {name: "a fixed handler" for name in dispatch.CALLS}
    for family in [*dispatch.FAMILIES, "unsupported"]:
        for name in front[family]:
            assert name not in seen, f"`tl.{name}` is in [frontend.{family}] and {seen[name]}"
            seen[name] = f"[frontend.{family}]"
    for name in front["identity_hints"]["names"]:
        assert name not in seen, f"`tl.{name}` is an identity hint and {seen[name]}"


def test_a_key_is_handled_once() -> None:
    table = dispatch.Table("test")
    table.register("x")(len)
    with pytest.raises(ValueError, match="two handlers for the test 'x'"):
        table.register("x")(len)


def test_statement_tables_are_keyed_by_libcst_node_kind() -> None:
    assert dispatch.STATEMENTS.keys() == {cst.SimpleStatementLine, cst.For, cst.If}
    assert cst.Call in dispatch.EXPRESSIONS and cst.Name in dispatch.EXPRESSIONS
