"""Grammars are the source of truth for spellings, in one schema for every DSL.

For each dialect the registry knows that has a grammar (nothing here names a DSL):

* the grammar follows :data:`translator.grammar.GRAMMAR_SCHEMA`, and the schema's validator
  rejects copies with a table missing, a value of the wrong shape or an unknown table, naming
  the file and the key;
* its backend spells, lowers (``[backend.lowered.*]``) or refuses (``[backend.refused.*]``, with
  the reason) every op of every IR family (:data:`translator.ir.ops.OP_FAMILIES`), and names no
  op the IR does not have;
* its frontend and backend agree: a backend spelling that is a plain call of the operands
  (``tl.exp({0})``, ``torch.sum``) is read back by the frontend as the same IR op; every
  function a composed spelling calls (``tl.log(1.0 + {0})``) is one the frontend reads; every
  frontend entry maps to an IR op, which the backend then spells, lowers or refuses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import libcst as cst
import pytest

from translator.dialects import dialects
from translator.dialects.cst_utils import import_aliases, resolve
from translator.grammar import (
    GRAMMAR_SCHEMA,
    GrammarError,
    grammar_path,
    load_grammar,
    load_grammar_file,
)
from translator.ir import nodes as ir
from translator.ir.ops import OP_FAMILIES, POINTWISE_OPS

NAMES = sorted(name for name in dialects() if grammar_path(name).exists())
#: The grammars with a frontend half, and those with both halves.
READING = [n for n in NAMES if "frontend" in load_grammar(n)]
BOTH = [n for n in READING if "backend" in load_grammar(n)]
# Frontend tables whose values are IR ops (or dtypes, composites): what a spelling can read as.
_READING_TABLES = (*OP_FAMILIES, "scalar_pointwise", "composites")


def test_the_registry_has_dialects_with_grammars() -> None:
    assert NAMES, "no dialect with a grammar: the tests below would check nothing"


# --------------------------------------------------------------------------------------------------
# Reading spellings


def aliases_of(grammar: dict[str, Any]) -> dict[str, str]:
    """The names a grammar's ``imports`` bind, as a frontend resolves them (``tl`` ->
    ``triton.language``), with the imports a backend adds where a kernel needs them
    (``[backend.kernel]`` keys ending in ``_import``: Triton's libdevice)."""
    extra = [v for k, v in grammar["backend"]["kernel"].items() if k.endswith("_import")]
    return import_aliases(cst.parse_module("\n".join([*grammar["imports"], *extra]) + "\n"))


@dataclass(frozen=True)
class Spelling:
    """A backend spelling as the frontend would meet it: ``direct`` the (resolved) callee when
    the spelling is that callee, or a call of it on the operands in order and nothing else;
    ``callees`` every function it calls."""

    direct: str | None
    callees: tuple[str, ...]


def read_spelling(text: str, aliases: dict[str, str]) -> Spelling:
    operands = [f"_operand{i}" for i in range(8)]
    # `{dtype}` (the result dtype, cuTile's fma) reads as one dtype spelling.
    tree = cst.parse_expression(text.format(*operands, dtype="ct.float32"))
    calls: list[cst.Call] = []

    class Calls(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            calls.append(node)

    tree.visit(Calls())
    callees = tuple(name for c in calls if (name := resolve(c.func, aliases)) is not None)
    if (name := resolve(tree, aliases)) is not None:
        return Spelling(name, callees)
    plain = (
        isinstance(tree, cst.Call)
        and all(a.keyword is None and not a.star for a in tree.args)
        and [a.value.value if isinstance(a.value, cst.Name) else None for a in tree.args]
        == operands[: len(tree.args)]
    )
    return Spelling(callees[0] if plain else None, callees)


def test_read_spelling_tells_plain_calls_from_composed_ones() -> None:
    aliases = {"m": "pkg.mod"}
    assert read_spelling("m.f({0}, {1})", aliases) == Spelling("pkg.mod.f", ("pkg.mod.f",))
    assert read_spelling("m.sum", aliases).direct == "pkg.mod.sum"
    assert read_spelling("m.f({1}, {0})", aliases).direct is None
    assert read_spelling("m.f({0}, 0.0)", aliases).direct is None
    assert read_spelling('m.f({0}, mode="x")', aliases).direct is None
    assert read_spelling("2.0 * m.g(m.f({0}))", aliases) == Spelling(
        None, ("pkg.mod.g", "pkg.mod.f")
    )


# --------------------------------------------------------------------------------------------------
# The schema


@pytest.mark.parametrize("name", NAMES)
def test_the_grammar_follows_the_schema(name: str) -> None:
    grammar = load_grammar_file(grammar_path(name))
    dialect = dialects()[name]
    # A dialect that reads (writes) its DSL needs the tables its frontend (backend) reads.
    assert (dialect.frontend is not None) <= ("frontend" in grammar)
    assert (dialect.backend is not None) <= ("backend" in grammar)


def _without_table(text: str, table: str) -> str:
    """``text`` (TOML) without the table ``[table]``: its header up to the next header."""
    lines = text.splitlines(keepends=True)
    start = lines.index(f"[{table}]\n")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("[")), len(lines))
    return "".join(lines[:start] + lines[end:])


def _required_tables(grammar: dict[str, Any]) -> list[str]:
    """``section.table`` for every table the schema requires of the sections ``grammar`` has."""
    return [
        f"{section}.{table}"
        for section, spec in GRAMMAR_SCHEMA.keys.items()
        if section in grammar and spec.shape == "section"
        for table, sub in spec.keys.items()
        if sub.required and sub.shape == "spellings"
    ]


@pytest.mark.parametrize("name", NAMES)
def test_the_schema_rejects_a_grammar_without_a_required_table(name: str, tmp_path: Path) -> None:
    text = grammar_path(name).read_text()
    tables = _required_tables(load_grammar(name))
    assert tables
    for table in tables:
        copy = tmp_path / f"{name}.toml"
        copy.write_text(_without_table(text, table))
        with pytest.raises(GrammarError) as err:
            load_grammar_file(copy)
        assert str(copy) in str(err.value)
        assert f"[{table}] is missing" in str(err.value)


@pytest.mark.parametrize("name", NAMES)
def test_the_schema_rejects_wrong_shapes_and_unknown_tables(name: str, tmp_path: Path) -> None:
    text = grammar_path(name).read_text()
    copy = tmp_path / f"{name}.toml"
    copy.write_text(re.sub(r"(?m)^packages = .*$", 'packages = "one"', text))
    with pytest.raises(GrammarError, match=r"`packages` must be a list of strings"):
        load_grammar_file(copy)
    section = next(s for s in ("backend", "frontend") if s in load_grammar(name))
    copy.write_text(text.replace(f"[{section}.scans]\n", f"[{section}.scan]\n"))
    with pytest.raises(GrammarError) as err:
        load_grammar_file(copy)
    assert f"`{section}.scan` is not in the grammar schema" in str(err.value)
    assert f"[{section}.scans] is missing" in str(err.value)


# --------------------------------------------------------------------------------------------------
# Every IR op is spelled, lowered or refused


def _backend(name: str) -> dict[str, Any]:
    grammar = load_grammar(name)
    if "backend" not in grammar:
        pytest.skip(f"{name} has no backend")
    return grammar["backend"]


@pytest.mark.parametrize("name", NAMES)
def test_the_backend_spells_lowers_or_refuses_every_ir_op(name: str) -> None:
    back = _backend(name)
    problems = []
    for family in {*back["lowered"], *back["refused"]} - set(OP_FAMILIES):
        problems.append(f"[backend.lowered/refused.{family}]: no IR op family `{family}`")
    for family, ops in OP_FAMILIES.items():
        ways = {
            "spelled": back[family],
            "lowered": back["lowered"].get(family, {}),
            "refused": back["refused"].get(family, {}),
        }
        for op in ops:
            found = [way for way, table in ways.items() if op in table]
            if not found:
                problems.append(f"{family} `{op}` is neither spelled, lowered nor refused")
            elif len(found) > 1:
                problems.append(f"{family} `{op}` is {' and '.join(found)}")
        for way, table in ways.items():
            for op, text in table.items():
                if op not in ops:
                    problems.append(f"{way} {family} `{op}` is no IR op")
                if way != "spelled" and not text.strip():
                    problems.append(f"{way} {family} `{op}` gives no reason")
    if "host_dtypes" in back and set(back["host_dtypes"]) != set(ir.DTYPE_NAMES):
        problems.append("[backend.host_dtypes] does not spell exactly the IR dtypes")
    for table in ("scalar_pointwise", "clamp"):
        for op in set(back.get(table, {})) - set(POINTWISE_OPS):
            problems.append(f"[backend.{table}] `{op}` is no IR pointwise op")
    for op in back.get("fp32_only", {}).get("ops", ()):
        if op not in back["pointwise"]:
            problems.append(f"[backend.fp32_only] `{op}` has no [backend.pointwise] template")
    assert not problems, f"{grammar_path(name)}:\n" + "\n".join(problems)


# --------------------------------------------------------------------------------------------------
# Frontend and backend agree


def _both(name: str) -> tuple[dict[str, Any], dict[str, Any], dict[str, str]]:
    grammar = load_grammar(name)
    return grammar["frontend"], grammar["backend"], aliases_of(grammar)


def _as_read(name: str | None, grammar: dict[str, Any]) -> str | None:
    """``name`` as the frontend looks it up: a device function under one of its math namespaces
    (``triton.language.extra.libdevice.log1p``) as if it were in the device module."""
    module = grammar.get("device_module")
    if name is None or not module or not name.startswith(module + "."):
        return name
    rest = name[len(module) + 1 :]
    for prefix in grammar["frontend"].get("math_namespaces", {}).get("prefixes", ()):
        rest = rest.removeprefix(prefix)
    return f"{module}.{rest}"


@pytest.mark.parametrize("name", BOTH)
def test_the_frontend_reads_back_what_the_backend_writes(name: str) -> None:
    front, back, aliases = _both(name)
    grammar = load_grammar(name)
    known = {spelling for table in _READING_TABLES for spelling in front.get(table, {})}
    # Device-language entry points (ct.astype, ct.where...) are read structurally, by role.
    known |= set(front.get("language", {}).values())
    # The backend's host dtypes are read by the same frontend table as its device dtypes.
    pairs = [(family, family) for family in OP_FAMILIES if family in back]
    pairs += [("host_dtypes", "dtypes")] if "host_dtypes" in back else []
    pairs += [("composites", "composites")] if "composites" in back else []
    problems = []
    for table, reader in pairs:
        for op, text in back[table].items():
            spelling = read_spelling(text, aliases)
            direct = _as_read(spelling.direct, grammar)
            if direct is not None:
                read = front.get(reader, {}).get(direct)
                if read != op:
                    problems.append(
                        f"[backend.{table}] {op} = {text!r}: the frontend reads "
                        f"`{direct}` as {read!r}"
                    )
                continue
            for callee in spelling.callees:
                if callee not in known:
                    problems.append(
                        f"[backend.{table}] {op} = {text!r} calls `{callee}`, which the "
                        "frontend does not read"
                    )
    # Host numbers: where the frontend models a spelling at all, it reads the same op. (Some
    # host calls, Python's max/min say, are read in code or carried as they are.)
    readers = {**front["pointwise"], **front["scalar_pointwise"]}
    for op, text in back["scalar_pointwise"].items():
        direct = read_spelling(text, aliases).direct
        if direct in readers and readers[direct] != op:
            problems.append(
                f"[backend.scalar_pointwise] {op} = {text!r}: the frontend reads `{direct}` "
                f"as {readers[direct]!r}"
            )
    for table in ("kernel", "language"):
        for role, text in back.get(table, {}).items():
            theirs = front.get(table, {}).get(role)
            if isinstance(text, str) and isinstance(theirs, str):
                ours = read_spelling(text, aliases).direct
                if ours != theirs:
                    problems.append(
                        f"[backend.{table}] {role} = {text!r} is `{ours}`, the frontend's "
                        f"is `{theirs}`"
                    )
    assert not problems, f"{grammar_path(name)}:\n" + "\n".join(problems)


@pytest.mark.parametrize("name", READING)
def test_every_frontend_entry_is_an_ir_op_the_backend_handles(name: str) -> None:
    grammar = load_grammar(name)
    front = grammar["frontend"]
    back = grammar.get("backend")
    methods = front.get("methods", {})
    problems = []
    for table in set(methods) - {*OP_FAMILIES, "composites", "host_alloc"}:
        problems.append(f"[frontend.methods.{table}] is no frontend table")
    for family, ops in OP_FAMILIES.items():
        handled = (
            {**back[family], **back["lowered"].get(family, {}), **back["refused"].get(family, {})}
            if back is not None
            else {}
        )
        tables = [(f"frontend.{family}", front[family])]
        tables += [(f"frontend.methods.{family}", methods[family])] if family in methods else []
        for where, table in tables:
            for spelling, op in table.items():
                if op not in ops:
                    problems.append(f"[{where}] {spelling!r} = {op!r} is no IR {family} op")
                elif back is not None and op not in handled:
                    problems.append(
                        f"[{where}] {spelling!r} = {op!r}: the backend neither spells, lowers "
                        "nor refuses it"
                    )
    for spelling, op in front["scalar_pointwise"].items():
        if op not in POINTWISE_OPS:
            problems.append(f"[frontend.scalar_pointwise] {spelling!r} = {op!r} is no IR op")
        elif back is not None and op not in back["scalar_pointwise"]:
            problems.append(
                f"[frontend.scalar_pointwise] {spelling!r} = {op!r}: the backend cannot write "
                "it on host numbers"
            )
    for where, table in (
        ("host_alloc", front["host_alloc"]),
        *([("methods.host_alloc", methods["host_alloc"])] if "host_alloc" in methods else []),
    ):
        for spelling, kind in table.items():
            if kind not in ir.ALLOC_KINDS:
                problems.append(f"[frontend.{where}] {spelling!r} = {kind!r} is no allocation kind")
    # A construct refused by name must not also be read as something.
    known = {spelling for table in _READING_TABLES for spelling in front.get(table, {})}
    for spelling in set(front["unsupported"]) & known:
        problems.append(f"[frontend.unsupported] {spelling!r} is also read by an op table")
    assert not problems, f"{grammar_path(name)}:\n" + "\n".join(problems)
