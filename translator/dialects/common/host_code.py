"""Host code as Python/torch: printing host expressions and, for IR that carries no source, whole
host functions.

Host code is plain torch in every DSL. A translation carries the source's host code as written, so
backends only print the host values a launch passes (:class:`HostPrinter`, which spells a kernel's
parameters as the launch site wrote its arguments). IR built by hand or read back from an IR file
has no source to carry: :func:`with_synthesized_host` prints its modelled entries as Python
functions and makes each launch a site, after which it translates like any parsed module.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from translator.diagnostics import TranslationError
from translator.dialects.common.formatting import float_literal, wrap_lines
from translator.dialects.common.printer import ATOM, ExprPrinter, comment_lines
from translator.ir import nodes as ir
from translator.ir.printer import UNARY_PRECEDENCE, unary_text

# torch spellings of IR dtypes and of the host scalar functions host code may call.
TORCH_DTYPES = {
    "float16": "torch.float16",
    "bfloat16": "torch.bfloat16",
    "float32": "torch.float32",
    "float64": "torch.float64",
    "int8": "torch.int8",
    "int16": "torch.int16",
    "int32": "torch.int32",
    "int64": "torch.int64",
    "uint8": "torch.uint8",
    "bool": "torch.bool",
}
HOST_CALLS = {
    "cdiv": "(({0}) + ({1}) - 1) // ({1})",
    "next_power_of_2": "1 << (int({0}) - 1).bit_length()",
    "sqrt": "math.sqrt({0})",
    "exp": "math.exp({0})",
    "log": "math.log({0})",
    "maximum": "max({0}, {1})",
    "minimum": "min({0}, {1})",
}


def host_atom(text: str) -> str:
    """Host source ``text`` safe to put ``.attr`` or ``[i]`` after."""
    if _is_dotted(text) or _is_call(text):
        return text
    return f"({text})"


def _is_dotted(text: str) -> bool:
    return all(part.isidentifier() for part in text.split("."))


def _is_call(text: str) -> bool:
    """``f(...)``/``x.view(-1)``: a name or attribute chain ending in one balanced call."""
    if not text.endswith(")") or "(" not in text:
        return False
    if not _is_dotted(text[: text.index("(")]):
        return False
    depth = 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0 and i != len(text) - 1:
                return False
    return True


class HostPrinter(ExprPrinter):
    """Host expressions as Python: names spelt through ``texts`` (a kernel's parameters as the
    launch site wrote them), scalar functions through ``calls`` (a DSL's ``triton.cdiv``, or
    plain Python). Call it on an expression (and the least precedence its place needs)."""

    language = "host code"

    def __init__(
        self,
        texts: Mapping[str, str] | None = None,
        calls: Mapping[str, str] | None = None,
        dtypes: Mapping[str, str] | None = None,
    ) -> None:
        self.texts = dict(texts or {})
        self.calls = dict(calls or HOST_CALLS)
        self.dtypes = dict(dtypes or TORCH_DTYPES)
        self.uses_math = False

    def __call__(self, e: ir.Expr, prec: int = 0) -> str:
        return self.text(e, prec)

    def name(self, name: str) -> str:
        """How the host spells ``name``: the launch site's text for it, or the name itself."""
        return self.texts.get(name, name)

    def tensor_dtype(self, tensor: str) -> str:
        """``x.dtype`` (``(a + b).dtype`` where the site passed an expression)."""
        return f"{host_atom(self.name(tensor))}.dtype"

    def _ex_Name(self, e: ir.Name) -> tuple[str, int]:
        text = self.name(e.id)
        # A site's text may be any expression: bare where it binds as tight as a name, else
        # parenthesised everywhere but at the top level and in a ternary's branches.
        return text, (ATOM if _is_dotted(text) or _is_call(text) else 1)

    def _ex_Const(self, e: ir.Const) -> tuple[str, int]:
        # Host constants go bare, negative ones too (the device printers parenthesise those).
        return (float_literal(e.value) if isinstance(e.value, float) else repr(e.value)), ATOM

    def _ex_SizeOf(self, e: ir.SizeOf) -> tuple[str, int]:
        return f"{host_atom(self.name(e.tensor))}.size({e.dim})", ATOM

    def _ex_ShapeOf(self, e: ir.ShapeOf) -> tuple[str, int]:
        return f"{host_atom(self.name(e.tensor))}.shape", ATOM

    def _ex_UnaryOp(self, e: ir.UnaryOp) -> tuple[str, int]:
        # The IR printer's spelling, `not` included (its operand parenthesised as `-`'s is).
        return unary_text(e.op, self.text(e.operand, UNARY_PRECEDENCE)), UNARY_PRECEDENCE

    def _ex_Cast(self, e: ir.Cast) -> tuple[str, int]:
        return f"{self.text(e.value, ATOM)}.to({self.dtype(e.dtype)})", ATOM

    def _ex_Call(self, e: ir.Call) -> tuple[str, int]:
        if e.op == "where":
            c, a, b = (self.text(x, 2) for x in e.args)
            return f"{a} if {c} else {b}", 1
        if e.op == "if_none":
            value, fallback = (self.text(x, 2) for x in e.args)
            return f"{fallback} if {value} is None else {value}", 1
        template = self.calls.get(e.op)
        if template is None:
            raise TranslationError(f"`{e.op}` has no host spelling", e.loc)
        self.uses_math = self.uses_math or template.startswith("math.")
        text = template.format(*(self.text(a) for a in e.args))
        # A template that is no single call (`cdiv`'s `((a) + (b) - 1) // (b)`) is an operator
        # expression: it needs parentheses inside any other (`x // cdiv(a, b)`).
        return text, (ATOM if _is_call(text) else 0)

    def _ex_TupleExpr(self, e: ir.TupleExpr) -> tuple[str, int]:
        return ", ".join(self.text(i) for i in e.items), ATOM


# --------------------------------------------------------------------------------------------------
# Host functions for IR without a source

_LAUNCH = "__tiletrans_launch_"


def with_synthesized_host(module: ir.Module) -> ir.Module:
    """``module`` with host code printed from its entries (every one must be fully modelled),
    each launch a site of that code. Modules that carry their source are returned as they are."""
    if module.host is not None:
        return module
    module = _kernels_apart_from_host_names(module)
    printer = HostPrinter()
    lines: list[str] = []
    if module.docstring:
        lines += [f'"""{module.docstring}"""', ""]
    lines += ["import torch"]
    entries = []
    count = 0
    for entry in module.entries:
        if not entry.complete:
            raise TranslationError(f"`{entry.name}` has host code the IR does not model", entry.loc)
        body = []
        for s in entry.body:
            if isinstance(s, ir.Launch):
                texts = tuple(printer(a) for a in s.args)
                s = dataclasses.replace(s, texts=texts, site=count)
                body.append(s)
                count += 1
            else:
                body.append(s)
        entry = dataclasses.replace(entry, body=tuple(body))
        entries.append(entry)
        lines += ["", "", *_function_lines(entry, printer)]
    if printer.uses_math:
        lines.insert(lines.index("import torch"), "import math")
    source = "\n".join(lines).strip("\n") + "\n"
    sites, first_def = _launch_sites(source, count)
    # Every kernel is defined before the first host function.
    edits = (ir.HostEdit("insert", first_def, kernels=tuple(k.name for k in module.kernels)),)
    return dataclasses.replace(
        module,
        entries=tuple(entries),
        host=ir.HostPlan(source=source, sites=sites, edits=edits if first_def else ()),
    )


def _kernels_apart_from_host_names(module: ir.Module) -> ir.Module:
    """Kernels renamed where a host function binds their name (a kernel `k` beside
    `m, k = a.size()`): the printed host code launches them by name."""
    from translator.ir.renaming import names_in

    taken = {e.name for e in module.entries}
    for e in module.entries:
        taken |= names_in(e)
    renames: dict[str, str] = {}
    for k in module.kernels:
        if k.name in taken:
            new, i = f"{k.name}_kernel", 1
            while new in taken or new in renames.values():
                i += 1
                new = f"{k.name}_kernel_{i}"
            renames[k.name] = new
    if not renames:
        return module
    kernels = tuple(
        dataclasses.replace(k, name=renames.get(k.name, k.name)) for k in module.kernels
    )
    entries = tuple(
        dataclasses.replace(
            e,
            body=tuple(
                dataclasses.replace(s, kernel=renames.get(s.kernel, s.kernel))
                if isinstance(s, ir.Launch)
                else s
                for s in e.body
            ),
        )
        for e in module.entries
    )
    return dataclasses.replace(module, kernels=kernels, entries=entries)


def _function_lines(entry: ir.Entry, printer: HostPrinter) -> list[str]:
    params = []
    for p in entry.params:
        text = p.name + (f": {p.annotation}" if p.annotation else "")
        if p.default is not None:
            text += (" = " if p.annotation else "=") + printer(p.default)
        params.append(text)
    returns = f" -> {entry.return_annotation}" if entry.return_annotation else ""
    lines = [f"def {entry.name}({', '.join(params)}){returns}:"]
    if entry.docstring:
        doc = entry.docstring.replace("\n", "\n    ")
        lines.append(f'    """{doc}"""' if "\n" not in doc else f'    """{doc}\n    """')
    body = []
    for s in entry.body:
        body.extend(comment_lines(s))
        body.extend(host_statement(s, printer).splitlines())
    if not body:
        body = ["pass"]
    lines.extend(wrap_lines([f"    {line}" for line in body]))
    return lines


def rank_checks(stmts: Sequence[ir.Stmt]) -> tuple[str, ...]:
    """The host checks of the ranks the kernels assume (:attr:`ir.ShapeUnpack.assumed`) among
    ``stmts``, one ``if`` per rank: a translation written for that rank refuses any other
    instead of computing something else."""
    by_rank: dict[int, list[ir.ShapeUnpack]] = {}
    for s in stmts:
        if isinstance(s, ir.ShapeUnpack) and s.assumed:
            by_rank.setdefault(len(s.targets), []).append(s)
    checks = []
    for n, group in by_rank.items():
        names = [s.tensor for s in group]
        listed = ", ".join(f"`{t}`" for t in names)
        test = " or ".join(f"{t}.dim() != {n}" for t in names)
        if len(names) == 1:
            t = names[0]
            message = f'f"`{t}` must be {n}-d, not {{{t}.dim()}}-d"'
        else:
            message = f'"{", ".join(names)} must be {n}-d"'
        checks.append(
            f"# Written for {n}-d {listed}: {'; '.join(s.assumed or '' for s in group)}.\n"
            f"if {test}:\n"
            f"    raise ValueError({message})"
        )
    return tuple(checks)


def host_statement(s: ir.Stmt, printer: HostPrinter) -> str:
    """One modelled host statement as Python."""
    p = printer
    if isinstance(s, ir.ShapeUnpack) and s.assumed:
        return rank_checks([s])[0]
    if isinstance(s, ir.ShapeUnpack):
        targets = ", ".join(t or "_" for t in s.targets)
        if len(s.targets) == 1:
            targets = f"({targets},)"
        return f"{targets} = {s.tensor}.shape"
    if isinstance(s, ir.Alloc):
        return f"{s.target} = {_alloc(s, p)}"
    if isinstance(s, ir.View):
        return f"{s.target} = {s.tensor}.view({', '.join(p(d) for d in s.shape)})"
    if isinstance(s, ir.Assert):
        msg = f", {s.msg}" if s.msg else ""
        return f"assert {p(s.test)}{msg}"
    if isinstance(s, ir.Assign):
        return f"{s.target} = {p(s.value)}"
    if isinstance(s, ir.Carried):
        return f"{s.target} = {s.source}"
    if isinstance(s, ir.Launch):
        return f"{_LAUNCH}{s.site}({', '.join(s.texts)})"
    if isinstance(s, ir.Return):
        if s.value is None:
            return "return"
        return f"return {p(s.value)}"
    raise TranslationError(f"{type(s).__name__} is no host statement", getattr(s, "loc", None))


def _alloc(s: ir.Alloc, p: HostPrinter) -> str:
    fill = s.fill
    if s.like is not None:
        same_dtype = s.dtype == ir.DTypeOf(s.like)
        dtype = "" if same_dtype else f", dtype={p.dtype(s.dtype)}"
        if fill is None:
            return f"torch.empty_like({s.like}{dtype})"
        if fill == 0.0:
            return f"torch.zeros_like({s.like}{dtype})"
        return f"torch.full_like({s.like}, {float_literal(fill)}{dtype})"
    shape = "[" + ", ".join(p(d) for d in s.shape or ()) + "]"
    opts = f"dtype={p.dtype(s.dtype)}, device={s.device_of}.device"
    if fill is None:
        return f"torch.empty({shape}, {opts})"
    if fill == 0.0:
        return f"torch.zeros({shape}, {opts})"
    return f"torch.full({shape}, {float_literal(fill)}, {opts})"


def _launch_sites(source: str, count: int) -> tuple[tuple[ir.Site, ...], ir.Span | None]:
    """The launch sites of printed host code, and the span of its first function."""
    wrapper = MetadataWrapper(cst.parse_module(source), unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    spans: dict[int, ir.Span] = {}
    first = next((s for s in wrapper.module.body if isinstance(s, cst.FunctionDef)), None)
    first_span = None
    if first is not None:
        pos = positions[first]
        first_span = ir.Span(pos.start.line, pos.start.column, pos.end.line, pos.end.column)

    class V(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            if isinstance(node.func, cst.Name) and node.func.value.startswith(_LAUNCH):
                pos = positions[node]
                spans[int(node.func.value[len(_LAUNCH) :])] = ir.Span(
                    pos.start.line, pos.start.column, pos.end.line, pos.end.column
                )

    wrapper.module.visit(V())
    return tuple(ir.Site(spans[i], statement=False) for i in range(count)), first_span


__all__ = ["HostPrinter", "host_atom", "host_statement", "with_synthesized_host"]
