"""The dtypes a host function documents for its tensor parameters.

Validation synthesises inputs; the dtypes it picks must be ones the source accepts. A source says
which in three places, read here in this order of authority:

- checks: ``assert x.dtype == torch.float16``, ``assert w.dtype in (torch.int8, torch.int16)``,
  ``if x.dtype != torch.bfloat16: raise ...``, ``if x.dtype not in (...): raise ...``;
- annotations in jaxtyping's style: ``x: Float16[Tensor, "m k"]``, ``w: Int8[torch.Tensor, ...]``;
- the docstring's argument list: ``x (torch.Tensor): activations, float16 or bfloat16.``
  (``name:`` or ``name (...)`` opening a line, up to the next such line).

The result is a fact on the entry, hint ``documented_dtypes``: ``((param, (dtype, ...), how),
...)`` with dtype names of :data:`translator.ir.nodes.DTYPE_NAMES`, most preferred first, and
``how`` one of :data:`SOURCES`. Checks and annotations are binding (the source rejects or mistypes
anything else); a docstring is a preference ("typically float16"). Translation never needs it.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

import libcst as cst

from translator.dialects.common.host_api import host_functions
from translator.dialects.cst_utils import bound_names, dotted
from translator.ir import nodes as ir
from translator.ir.visit import walk_stmts

#: The entry hint that holds the facts.
HINT = "documented_dtypes"
#: Where a fact comes from, most authoritative first; the first two bind.
SOURCES = ("check", "annotation", "docstring")
BINDING = frozenset(SOURCES[:2])

#: ``torch.<attr>`` -> IR dtype name.
TORCH_DTYPES = {
    "float16": "float16",
    "half": "float16",
    "bfloat16": "bfloat16",
    "float32": "float32",
    "float": "float32",
    "float64": "float64",
    "double": "float64",
    "int8": "int8",
    "int16": "int16",
    "int32": "int32",
    "int": "int32",
    "int64": "int64",
    "long": "int64",
    "uint8": "uint8",
    "bool": "bool",
}

#: jaxtyping annotation heads that name one dtype.
ANNOTATION_DTYPES = {
    "Float16": "float16",
    "BFloat16": "bfloat16",
    "Float32": "float32",
    "Float64": "float64",
    "Int8": "int8",
    "Int16": "int16",
    "Int32": "int32",
    "Int64": "int64",
    "UInt8": "uint8",
    "Bool": "bool",
}

#: Words a docstring uses for a dtype.
_DOC_WORDS = {
    **{name: name for name in ir.DTYPE_NAMES if name != "bool"},
    "fp16": "float16",
    "half": "float16",
    "bf16": "bfloat16",
    "fp32": "float32",
    "fp64": "float64",
}
_DOC_WORD = re.compile(r"\b(" + "|".join(sorted(_DOC_WORDS, key=len, reverse=True)) + r")\b")


def with_documented_dtypes(module: cst.Module, entries: Sequence[ir.Entry]) -> list[ir.Entry]:
    """``entries`` with the ``documented_dtypes`` hint on each whose function documents any."""
    functions = {f.qualname: f.node for f in host_functions(module)}
    out = []
    for entry in entries:
        fn = functions.get(entry.name)
        facts = documented_dtypes(fn, [p.name for p in entry.params]) if fn is not None else {}
        # Facts a frontend put on the entry itself (a DSL's own tensor annotations) win.
        facts = {**facts, **entry_dtypes(entry)}
        if facts:
            rest = tuple(h for h in entry.hints if h[0] != HINT)
            hints = (*rest, (HINT, tuple((p, ds, how) for p, (ds, how) in facts.items())))
            entry = dataclasses.replace(entry, hints=hints)
        out.append(entry)
    return out


def documented_dtypes(
    fn: cst.FunctionDef, params: Sequence[str]
) -> dict[str, tuple[tuple[str, ...], str]]:
    """The dtypes ``fn`` documents for each of ``params`` and where it says so (the most
    authoritative place of :data:`SOURCES`)."""
    own = set(params)
    found: dict[str, tuple[tuple[str, ...], str]] = {}
    readers = (_checked(fn, own), _annotated(fn, own), _docstring(fn, params))
    for how, source in zip(SOURCES, readers):
        for name, dtypes in source.items():
            found.setdefault(name, (dtypes, how))
    return {p: found[p] for p in params if p in found}


def proven_dtypes(fn: cst.FunctionDef, params: Sequence[str]) -> dict[str, str]:
    """The one dtype each of ``params`` has wherever ``fn`` runs on: checked by a statement of
    the function's own block (``assert x.dtype == torch.float16``, ``if x.dtype !=
    torch.float16: raise ...``) and never rebound in the function. (A check in a branch, or of
    several dtypes, proves nothing of a launch; :func:`documented_dtypes` still reads them.)"""
    own = set(params) - set(bound_names(fn.body))
    out: dict[str, str] = {}
    body = fn.body.body if isinstance(fn.body, cst.IndentedBlock) else ()
    for stmt in body:
        tests: list[tuple[cst.BaseExpression, bool]] = []
        if isinstance(stmt, cst.SimpleStatementLine):
            tests = [(s.test, False) for s in stmt.body if isinstance(s, cst.Assert)]
        elif isinstance(stmt, cst.If) and _raises_only(stmt):
            tests = [(stmt.test, True)]
        for test, negated in tests:
            for name, dtypes in _check_facts(test, negated, own):
                if len(dtypes) == 1:
                    out.setdefault(name, dtypes[0])
    return out


def with_proven_kernel_dtypes(
    module: cst.Module, entries: Sequence[ir.Entry], kernels: Sequence[ir.Kernel]
) -> list[ir.Kernel]:
    """``kernels`` with the dtype of each tensor parameter that every launch passes a tensor of
    one proven dtype (:func:`proven_dtypes` of the launching function's parameter): what the
    launch proves, as :class:`ir.Param` means it. A dot of two such operands of different
    dtypes can then be promoted as its source DSL promotes it."""
    functions = {f.qualname: f.node for f in host_functions(module)}
    seen: dict[tuple[str, int], set[str | None]] = {}
    for entry in entries:
        fn = functions.get(entry.name)
        proven = proven_dtypes(fn, [p.name for p in entry.params]) if fn is not None else {}
        carried = {s.target: s.source for s in entry.body if isinstance(s, ir.Carried)}
        for launch in (s for s in walk_stmts(entry.body) if isinstance(s, ir.Launch)):
            for i, arg in enumerate(launch.args):
                name = arg.id if isinstance(arg, ir.Name) else None
                name = carried.get(name, name) if name is not None else None
                seen.setdefault((launch.kernel, i), set()).add(proven.get(name or ""))
    out = []
    for kernel in kernels:
        params = list(kernel.params)
        for i, p in enumerate(params):
            found = seen.get((kernel.name, i), set())
            if p.kind == "tensor" and p.dtype is None and len(found) == 1 and None not in found:
                params[i] = dataclasses.replace(p, dtype=ir.DType(next(iter(found))))  # type: ignore[arg-type]
        out.append(dataclasses.replace(kernel, params=tuple(params)))
    return out


def entry_dtypes(entry: ir.Entry) -> dict[str, tuple[tuple[str, ...], str]]:
    """The ``documented_dtypes`` hint of ``entry``: param -> (dtypes, where it is said)."""
    return {p: (ds, how) for p, ds, how in dict(entry.hints).get(HINT, ())}


def _checked(fn: cst.FunctionDef, own: set[str]) -> dict[str, tuple[str, ...]]:
    """Dtypes from asserts and ``if ...: raise`` checks on ``x.dtype``."""
    out: dict[str, tuple[str, ...]] = {}

    def read(test: cst.BaseExpression, negated: bool) -> None:
        for name, dtypes in _check_facts(test, negated, own):
            out.setdefault(name, dtypes)

    class Visitor(cst.CSTVisitor):
        def visit_Assert(self, node: cst.Assert) -> None:
            read(node.test, negated=False)

        def visit_If(self, node: cst.If) -> None:
            if _raises_only(node):
                read(node.test, negated=True)

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is fn  # not the checks of nested functions

    fn.visit(Visitor())
    return out


def _check_facts(
    test: cst.BaseExpression, negated: bool, own: set[str]
) -> list[tuple[str, tuple[str, ...]]]:
    """``(param, dtypes)`` that ``test`` checks (``x.dtype == torch.float16``, ``w.dtype in
    (...)``, conjoined; ``negated``: the test of an ``if ...: raise``, read through ``or``)."""
    if isinstance(test, cst.BooleanOperation) and isinstance(
        test.operator, cst.Or if negated else cst.And
    ):
        return _check_facts(test.left, negated, own) + _check_facts(test.right, negated, own)
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return []
    op = test.comparisons[0].operator
    if not isinstance(op, (cst.NotEqual, cst.NotIn) if negated else (cst.Equal, cst.In)):
        return []
    left, right = test.left, test.comparisons[0].comparator
    if isinstance(op, (cst.Equal, cst.NotEqual)) and _param_dtype(right, own):
        left, right = right, left
    name, dtypes = _param_dtype(left, own), _dtype_list(right)
    return [(name, dtypes)] if name and dtypes else []


def _raises_only(node: cst.If) -> bool:
    """Whether ``node`` is ``if test: raise ...`` with no ``else``."""
    body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
    return (
        node.orelse is None
        and len(body) == 1
        and isinstance(body[0], cst.SimpleStatementLine)
        and isinstance(body[0].body[0], cst.Raise)
    )


def _param_dtype(node: cst.BaseExpression, own: set[str]) -> str | None:
    """``x`` for ``x.dtype`` of a parameter ``x``."""
    if (
        isinstance(node, cst.Attribute)
        and node.attr.value == "dtype"
        and isinstance(node.value, cst.Name)
        and node.value.value in own
    ):
        return node.value.value
    return None


def _dtype_list(node: cst.BaseExpression) -> tuple[str, ...]:
    """``torch.float16`` or a tuple/list/set of such, as IR dtype names (empty if any is not)."""
    items = (
        [e.value for e in node.elements]
        if isinstance(node, (cst.Tuple, cst.List, cst.Set))
        else [node]
    )
    names = []
    for item in items:
        name = dotted(item)
        head, _, attr = (name or "").rpartition(".")
        if head != "torch" or attr not in TORCH_DTYPES:
            return ()
        names.append(TORCH_DTYPES[attr])
    return tuple(dict.fromkeys(names))


def _annotated(fn: cst.FunctionDef, own: set[str]) -> dict[str, tuple[str, ...]]:
    """Dtypes from jaxtyping-style annotations, ``Float16[Tensor, "m k"]``."""
    out: dict[str, tuple[str, ...]] = {}
    for param in (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params):
        ann = param.annotation.annotation if param.annotation is not None else None
        if param.name.value in own and isinstance(ann, cst.Subscript):
            head = (dotted(ann.value) or "").rpartition(".")[2]
            if head in ANNOTATION_DTYPES:
                out[param.name.value] = (ANNOTATION_DTYPES[head],)
    return out


def _docstring(fn: cst.FunctionDef, params: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """Dtypes named in the docstring's description of each parameter."""
    doc = fn.get_docstring()
    if not doc:
        return {}
    opener = re.compile(r"^\s*(\*{0,2}\w+)\s*(\(|:)")
    out: dict[str, tuple[str, ...]] = {}
    current: str | None = None
    text: dict[str, list[str]] = {}
    for line in doc.splitlines():
        m = opener.match(line)
        if m:
            current = m.group(1) if m.group(1) in params else None
        if current is not None:
            text.setdefault(current, []).append(line)
    for name, lines in text.items():
        words = _DOC_WORD.findall(" ".join(lines))
        if words:
            out[name] = tuple(dict.fromkeys(_DOC_WORDS[w] for w in words))
    return out


__all__ = [
    "BINDING",
    "HINT",
    "SOURCES",
    "documented_dtypes",
    "entry_dtypes",
    "with_documented_dtypes",
]
