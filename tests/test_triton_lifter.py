"""Tests of the Triton lifter's structure (``translator.dialects.triton.lift_*``).

* the dispatch tables: every handler is a lifter method, and no name is handled both by a fixed
  handler and by a grammar table (so the order in which they are consulted cannot matter), but
  for the names in ``SHADOWED``, which the grammar lists for its op tables' sake and the lifter
  reads before consulting them (fixed handlers come first);
* the typed symbols: each kind's spelling inside IR trees, read back to the same symbol.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import libcst as cst  # noqa: E402
import pytest  # noqa: E402

from translator.dialects.triton import lift_dispatch as dispatch  # noqa: E402
from translator.dialects.triton.frontend_affine import Atoms, ir_text, poly  # noqa: E402
from translator.dialects.triton.frontend_device import KernelLifter  # noqa: E402
from translator.dialects.triton.symbols import (  # noqa: E402
    Sym,
    SymKind,
    kind_of,
    param_name,
    parse_lane,
    parse_sym,
)
from translator.grammar import load_grammar  # noqa: E402
from translator.ir import nodes as ir  # noqa: E402

TABLES = [
    dispatch.CALLS,
    dispatch.FAMILIES,
    dispatch.BUILTINS,
    dispatch.METHODS,
    dispatch.EFFECTS,
    dispatch.EFFECT_FAMILIES,
    dispatch.EXPRESSIONS,
    dispatch.STATEMENTS,
    dispatch.SMALL_STATEMENTS,
]


@pytest.mark.parametrize("table", TABLES, ids=lambda t: t.what)
def test_every_handler_is_a_lifter_method(table: dispatch.Table) -> None:
    assert table
    for key, handler in table.items():
        assert getattr(KernelLifter, handler.__name__) is handler, (key, handler)


# Fixed handlers that read a name before the grammar table that also holds it: `tl.cdiv` is index
# arithmetic (an integer cdiv), listed in [frontend.pointwise] so that the frontend spells the op.
# `tl.rand`/`tl.randn` check their arguments (n_rounds) in a fixed handler, which then takes
# the op from [frontend.pointwise] like any pointwise call.
SHADOWED = {"cdiv": "pointwise", "rand": "pointwise", "randn": "pointwise"}


def _short_names(grammar: dict, table) -> list[str]:
    """The names of a grammar table keyed by dotted names, after the ``device_module`` prefix."""
    prefix = grammar["device_module"] + "."
    assert all(key.startswith(prefix) for key in table), sorted(table)
    return [key.removeprefix(prefix) for key in table]


@pytest.mark.parametrize(
    ("fixed", "families", "extra"),
    [
        (dispatch.CALLS, dispatch.FAMILIES, ["unsupported"]),
        (dispatch.EFFECTS, dispatch.EFFECT_FAMILIES, []),
    ],
    ids=["calls", "effects"],
)
def test_grammar_tables_and_fixed_handlers_are_disjoint(fixed, families, extra) -> None:
    grammar = load_grammar("triton")
    front = grammar["frontend"]
    seen: dict[str, str] = {name: "a fixed handler" for name in fixed}
    for family in [*families, *extra]:
        for name in _short_names(grammar, front[family]):
            if SHADOWED.get(name) == family and name in fixed:
                continue
            assert name not in seen, f"`tl.{name}` is in [frontend.{family}] and {seen[name]}"
            seen[name] = f"[frontend.{family}]"
    if fixed is dispatch.CALLS:
        for name in _short_names(grammar, front["identity_hints"]["names"]):
            assert name not in seen, f"`tl.{name}` is an identity hint and {seen[name]}"


def test_a_key_is_handled_once() -> None:
    table = dispatch.Table("test")
    table.register("x")(len)
    with pytest.raises(ValueError, match="two handlers for the test 'x'"):
        table.register("x")(len)


def test_statement_tables_are_keyed_by_libcst_node_kind() -> None:
    assert dispatch.STATEMENTS.keys() == {cst.SimpleStatementLine, cst.For, cst.If, cst.While}
    assert cst.Call in dispatch.EXPRESSIONS and cst.Name in dispatch.EXPRESSIONS


SPELLINGS = [
    (Sym.pid(1), "%pid1"),
    (Sym.num_programs(0), "%np0"),
    (Sym.loop_counter(12), "%it12"),
    (Sym.lane("BLOCK_N", -1), "%l-1:BLOCK_N"),
    (Sym.lane(64, -2), "%l-2:64"),
    (Sym.param("stride_xm"), "%p:stride_xm"),
    (Sym.param("x_desc#shape0"), "%p:x_desc#shape0"),
    (Sym.opaque("NUM_SMS"), "%q:NUM_SMS"),
    (Sym.data(3), "%d3"),
    (Sym.atom("pid % n"), "%t:pid % n"),
    (Sym.swizzle("m"), "%sm"),
    (Sym.row(0), "%row0"),
]


@pytest.mark.parametrize(("sym", "text"), SPELLINGS, ids=[t for _, t in SPELLINGS])
def test_a_symbol_is_spelt_and_read_back(sym: Sym, text: str) -> None:
    assert sym.text == text
    assert sym.expr == ir.Name(text)
    assert parse_sym(text) == sym
    assert kind_of(text) is sym.kind


def test_every_kind_has_a_spelling() -> None:
    assert {s.kind for s, _ in SPELLINGS} == set(SymKind)


@pytest.mark.parametrize("text", ["x", "BLOCK_M", "?M", "%", "%pid", "%itx", "%zz"])
def test_other_names_are_no_symbols(text: str) -> None:
    assert parse_sym(text) is None
    assert kind_of(text) is None


def test_lanes_and_parameters_read_back_typed() -> None:
    assert parse_lane("%l-2:64") == (64, -2)
    assert parse_lane("%l-1:BLOCK") == ("BLOCK", -1)
    assert parse_lane("%pid0") is None
    assert param_name("%p:N") == "N"
    assert param_name("%q:N") is None


def test_atoms_and_diagnostics_use_the_vocabulary() -> None:
    atoms = Atoms()
    tree = ir.BinOp("%", Sym.pid(0).expr, Sym.param("n").expr)
    ((atom,),) = poly(tree, atoms)
    assert kind_of(atom) is SymKind.ATOM and atoms.trees[atom] == tree
    lanes = ir.BinOp(
        "+", ir.BinOp("*", Sym.pid(0).expr, Sym.param("BLOCK").expr), Sym.lane("BLOCK", -1).expr
    )
    assert ir_text(lanes) == "tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)"
