"""TileLang's test and benchmark harness in host code.

TileLang's example folder checks and times each kernel through the compiled kernel object::

    def main():
        kernel = matmul(M, N, K, 128, 128, 32)
        profiler = kernel.get_profiler(tensor_supply_type=tilelang.TensorSupplyType.Randn)
        profiler.assert_allclose(ref_program, rtol=0.01, atol=0.01)
        latency = profiler.do_bench(warmup=500)
        print(f"Latency: {latency} ms")

``get_profiler``, ``get_kernel_source``, an autotuned kernel's ``.latency`` and ``.config`` are
TileLang's JIT kernel's own API: a translated kernel (a Triton ``JITFunction``, a Helion kernel, a
cuTile kernel) has none of it, and the inputs the profiler draws come from TileLang's adapter. In
a harness function (``main``, ``benchmark``, ``check_*``, ``test_*``, ``profile_*``; the grammar's
``harness_functions``) the statements that read the kernel object that way are dropped with a
``# tiletrans:`` note, and so is each later statement of the function that reads what a dropped
one bound (the ``print`` of a latency, the TFLOP/s computed from it); the dead-host pass then
removes what only they read. What the profiler checked and timed is what ``tiletrans validate``
(and ``--bench``) proves of the translation against its source on the same inputs.

A dropped value that decides a branch or a loop, or leaves through anything but a plain statement
or a ``return`` of the harness, is refused where it goes; a ``return`` of one (``benchmark()``
returning ``profiler.do_bench()``) becomes a bare ``return`` with a note saying what it returned.
Outside harness functions the kernel object's API stays a refusal (an API function returning its
profiler).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from translator.diagnostics import TranslationError
from translator.dialects.cst_utils import bound_names, name_nodes, source_of, target_name_nodes
from translator.dialects.tilelang.model import ModuleFacts

#: The statements a dropped value may reach and go with it: they bind names, report or check.
_DROPPABLE = (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Expr, cst.Assert, cst.Pass)


def is_harness(name: str, patterns: list[str]) -> bool:
    """Whether a host function named ``name`` is a test/benchmark harness: one of ``patterns``
    (``main``), or starting with one that ends in ``*`` (``check*``)."""
    return any(name.startswith(p[:-1]) if p.endswith("*") else name == p for p in patterns)


@dataclass
class Harness:
    """What a harness function loses: each dropped statement with its note (``None`` for one
    that only reads what an earlier dropped one bound), the returns that become bare, and the
    kernel names (``Name`` node ids) those statements read."""

    dropped: list[tuple[cst.SimpleStatementLine, str | None]] = field(default_factory=list)
    #: ``return`` statements of a dropped value, with the note on the bare ``return``
    returns: list[tuple[cst.SimpleStatementLine, str]] = field(default_factory=list)
    #: ids of the kernels' ``Name`` nodes in the dropped statements (no misuse of the kernel)
    reads: set[int] = field(default_factory=set)
    problems: list[TranslationError] = field(default_factory=list)


class _Reader:
    """Walks one harness function's statements in order, tracking the names bound from the
    kernel object (``profiler``, ``latency``) until they are bound again by a kept statement."""

    def __init__(self, kernels: set[str], mod: ModuleFacts) -> None:
        self.kernels = kernels
        self.mod = mod
        self.tainted: dict[str, str] = {}
        self.out = Harness()
        #: per kernel: the attributes the dropped statements read of it, and the index of the
        #: first of them in ``out.dropped`` (which gets the one note)
        self.api: dict[str, tuple[list[str], int]] = {}
        #: how many compound statements enclose the statement being read
        self.depth = 0
        #: nested ``def``/``class`` helpers kept so far, with the outer names they read (read
        #: when called: one a later dropped statement binds would be unbound there)
        self.helpers: list[tuple[cst.FunctionDef | cst.ClassDef, set[str]]] = []

    def kernel_api(self, node: cst.CSTNode) -> list[cst.Attribute]:
        """The ``kernel.attr`` reads in ``node`` of a kernel the function builds."""
        found: list[cst.Attribute] = []

        class V(cst.CSTVisitor):
            def visit_Attribute(self, n: cst.Attribute) -> None:
                if isinstance(n.value, cst.Name) and n.value.value in kernels:
                    found.append(n)

            def visit_FunctionDef(self, n: cst.FunctionDef) -> bool:
                return False

        kernels = self.kernels
        node.visit(V())
        return found

    def reads(self, node: cst.CSTNode) -> list[cst.Name]:
        """The tainted names ``node`` reads (a name an assignment binds is no read)."""
        binds: set[int] = set()

        class V(cst.CSTVisitor):
            def visit_AssignTarget(self, n: cst.AssignTarget) -> None:
                binds.update(id(t) for t in target_name_nodes(n.target))

            def visit_AnnAssign(self, n: cst.AnnAssign) -> None:
                binds.update(id(t) for t in target_name_nodes(n.target))

            def visit_NamedExpr(self, n: cst.NamedExpr) -> None:
                binds.update(id(t) for t in target_name_nodes(n.target))

        node.visit(V())
        return [n for n in name_nodes(node) if n.value in self.tainted and id(n) not in binds]

    def block(self, stmts: tuple[cst.BaseStatement, ...] | list[cst.BaseStatement]) -> None:
        for s in stmts:
            handler = _HANDLERS.get(type(s))
            if handler is not None:
                handler(self, s)
            else:
                self.compound(s)

    def line(self, s: cst.SimpleStatementLine) -> None:
        api = self.kernel_api(s)
        tainted = self.reads(s)
        if not api and not tainted:
            if self.depth == 0:
                # Bound again by a statement that stays, on every path (in a branch or a loop
                # it may not be: the name stays tainted there).
                for name in bound_names(s):
                    self.tainted.pop(name, None)
            return
        what = source_of(api[0]).strip() if api else self.tainted[tainted[0].value]
        small = s.body
        if len(small) == 1 and isinstance(small[0], cst.Return):
            self.out.returns.append((s, _return_note(small[0])))
        elif all(isinstance(x, _DROPPABLE) for x in small):
            self.out.dropped.append((s, None))
            for a in api:
                kernel = a.value.value  # type: ignore[attr-defined]
                attrs, _ = self.api.setdefault(kernel, ([], len(self.out.dropped) - 1))
                if a.attr.value not in attrs:
                    attrs.append(a.attr.value)
            for name in bound_names(s):
                self.tainted[name] = what
            for helper, outer in self.helpers:
                if outer & set(bound_names(s)):
                    self.out.problems.append(self._helper_refusal(helper))
        else:
            self.out.problems.append(self._refusal(s, api, tainted))
            return
        self.out.reads |= {id(n) for n in name_nodes(s) if n.value in self.kernels}

    def compound(self, s: cst.BaseStatement) -> None:
        """An ``if``/``for``/``while``/``with``/``try``: its header must not read what goes;
        its blocks are read in order (a name bound again in one branch stays tainted: it may
        not be)."""
        headers: list[cst.CSTNode] = []
        if isinstance(s, (cst.If, cst.While)):
            headers = [s.test]
        elif isinstance(s, cst.For):
            headers = [s.iter]
        elif isinstance(s, cst.With):
            headers = list(s.items)
        for h in headers:
            api, tainted = self.kernel_api(h), self.reads(h)
            if api or tainted:
                self.out.problems.append(self._refusal(h, api, tainted))
                return
        if isinstance(s, (cst.FunctionDef, cst.ClassDef)):
            # A nested helper: kept, its calls too (they may be launches), so it may read no
            # name a dropped statement binds, before it or (read when called) after it.
            outer = _outer_reads(s)
            if outer & set(self.tainted) or self.kernel_api(s.body):
                self.out.problems.append(self._helper_refusal(s))
            else:
                self.helpers.append((s, outer))
            return
        self.depth += 1
        for block in _blocks(s):
            self.block(block)
        self.depth -= 1

    def _helper_refusal(self, s: cst.FunctionDef | cst.ClassDef) -> TranslationError:
        read = sorted(_outer_reads(s) & set(self.tainted))
        what = (
            f"`{read[0]}`, which holds what `{self.tainted[read[0]]}` gave"
            if read
            else ("TileLang's kernel API")
        )
        return self.mod.error(
            s,
            f"the nested `{s.name.value}` reads {what}; tiletrans drops that statement from "
            "the test or benchmark but keeps the helper and its calls, which would not run",
            f"read the value where it is bound instead of in `{s.name.value}`, or pass it to "
            f"`{s.name.value}` as an argument from a statement that is dropped too",
        )

    def _refusal(
        self, node: cst.CSTNode, api: list[cst.Attribute], tainted: list[cst.Name]
    ) -> TranslationError:
        if api:
            what = f"`{source_of(api[0]).strip()}`, TileLang's kernel API,"
        else:
            name = tainted[0].value
            what = f"`{name}`, which holds what `{self.tainted[name]}` gave,"
        return self.mod.error(
            node,
            f"this reads {what} beyond the plain statements of a test or benchmark that "
            "tiletrans drops with it",
            "keep what TileLang's kernel object gives to assignments, prints, asserts and a "
            "return (they go: the translation has no such object), or check with torch on the "
            "kernel's outputs",
        )


def _outer_reads(s: cst.FunctionDef | cst.ClassDef) -> set[str]:
    """The names nested helper ``s`` reads that it does not bind itself (its parameters'
    defaults and its decorators included)."""
    own = set(bound_names(s.body))
    read = {n.value for n in name_nodes(s.body)}
    for d in s.decorators:
        read |= {n.value for n in name_nodes(d)}
    if isinstance(s, cst.FunctionDef):
        ps = s.params
        star = [ps.star_arg] if isinstance(ps.star_arg, cst.Param) else []
        kw = [ps.star_kwarg] if ps.star_kwarg is not None else []
        for p in [*ps.posonly_params, *ps.params, *star, *ps.kwonly_params, *kw]:
            own.add(p.name.value)
            if p.default is not None:
                read |= {n.value for n in name_nodes(p.default)}
    return read - own


def _blocks(s: cst.BaseStatement) -> list[list[cst.BaseStatement]]:
    """The statement lists directly inside compound statement ``s`` (``else``/``except``/
    ``finally`` included)."""
    out: list[list[cst.BaseStatement]] = []
    stack: list[cst.CSTNode] = [s]
    while stack:
        node = stack.pop(0)
        body = getattr(node, "body", None)
        if isinstance(body, cst.IndentedBlock):
            out.append(list(body.body))
        for attr in ("orelse", "handlers", "finalbody"):
            more = getattr(node, attr, None)
            if isinstance(more, (list, tuple)):
                stack.extend(more)
            elif more is not None:
                stack.append(more)
    return out


def _note(kernel: str, attrs: list[str]) -> str:
    """The note on the first dropped statement that reads ``kernel.attr`` (``attrs``: all the
    attributes the dropped statements read of it)."""
    read = ", ".join(f"`.{a}`" for a in attrs)
    return (
        f"tiletrans: dropped what reads `{kernel}`'s {read} (TileLang's kernel API)\n"
        "`tiletrans validate --bench` checks and times the translation instead"
    )


def _return_note(ret: cst.Return) -> str:
    """The note on a harness ``return`` of a dropped value, now bare."""
    value = source_of(ret.value).strip() if ret.value is not None else ""
    return (
        f"tiletrans: this returned `{value}` (TileLang's kernel object)\n"
        "`tiletrans validate --bench` times the translation instead"
    )


_HANDLERS = {cst.SimpleStatementLine: _Reader.line}


def harness_reads(fn: cst.FunctionDef, kernels: set[str], mod: ModuleFacts) -> Harness:
    """What harness function ``fn`` drops of its reads of the kernel objects ``kernels`` (the
    names it binds to built kernels)."""
    reader = _Reader(kernels, mod)
    if isinstance(fn.body, cst.IndentedBlock):
        reader.block(list(fn.body.body))
    for kernel, (attrs, first) in reader.api.items():
        line, _ = reader.out.dropped[first]
        reader.out.dropped[first] = (line, _note(kernel, attrs))
    return reader.out


__all__ = ["Harness", "harness_reads", "is_harness"]
