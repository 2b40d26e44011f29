"""Triton frontend: ``@triton.jit`` kernels and the host wrappers that launch them → IR.

Pure static analysis with libcst: the input is never imported or executed. Each module-level
function that launches a kernel (``kernel[grid](...)``) becomes an IR :class:`~translator.ir.nodes.Entry`
of the same name, parameters, docstring and return. Its host statements are interpreted
symbolically (:class:`EntryBuilder`): shape unpacking, allocations, views, asserts, sizes and block
sizes; values the IR cannot express (device queries, ``x.element_size()``, launch knobs computed
on the host) stay opaque and are refused only where something that can change results needs them.
Each launch binds the kernel's parameters to host values (:class:`Launch`): pointers to tensors,
``x.stride(d)`` to (tensor, dim), sizes to host expressions, ``tl.constexpr`` block sizes to tunables
(``@triton.autotune`` configs, launch literals) or host constants; the kernel body is then lifted by
:mod:`translator.dialects.triton.frontend_device`.

Where the frontend departs from the letter of the source (never from what it computes on inputs
the source accepts), it says so in a comment on the IR statement or an entry hint:

* layout asserts (``x.is_contiguous()``, ``x.stride(-1) == 1``) and dtype asserts are dropped: the
  IR indexes tensors logically, so they only reject inputs; pointer offsets without a stride
  (``row_ptr + cols``) are read as unit-stride last dims, which the source assumes
  (hint ``assumed_unit_stride`` lists tensors no assert or allocation proves it for);
* ``assert x.dim() == r`` and ``assert w.shape == (n,)`` become shape unpacking guards;
* a tensor of unknown rank that is viewed back to its own shape (``y.view(*x.shape)``) is
  specialised to the rank of the flattening reshape (hint ``rank_specialized``; a guard raises for
  other ranks): the IR cannot view to a shape of unknown rank;
* block sizes the host computes as ``min(triton.next_power_of_2(n), C)`` become tunables with
  default ``C`` (the IR has no host-computed block sizes), and reductions over them need padded
  lanes that provably hold the identity.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from typing import Any

import libcst as cst

from translator.diagnostics import TranslationError
from translator.dialects.common.dtype_facts import with_documented_dtypes
from translator.dialects.common.host_api import api_entries
from translator.dialects.cst_utils import (
    Locator,
    bound_names,
    children,
    import_aliases,
    literal,
    parse_source,
    resolve,
    source_of,
    statement_comments,
    without_provenance,
)
from translator.dialects.triton.frontend_launch import Launch
from translator.dialects.triton.frontend_module import (
    KernelDef,
    ModuleInfo,
    collect_module,
    default_of,
    imported_launch,
)
from translator.dialects.triton.host_divisibility import (
    Divisibility,
    divides,
    divisibility_of,
    like_counts,
    with_exact_quotients,
)
from translator.dialects.triton.host_expressions import HostExpressions
from translator.dialects.triton.host_statements import HostStatements
from translator.dialects.triton.host_tensors import HostTensors
from translator.dialects.triton.host_values import (
    HOpaque,
    HScalar,
    HTensor,
)
from translator.dialects.triton.sibling_helpers import (
    import_from_names,
    names_read,
    read_siblings,
)
from translator.grammar import load_grammar
from translator.ir import nodes as ir
from translator.ir.outline import OutlineNaming, outline_entry
from translator.ir.printer import format_expr
from translator.ir.renaming import names_in, rename
from translator.ir.shapes import IRTypeError, ScalarType, TensorType, TypeEnv
from translator.ir.verifier import verify, without_ill_typed_facts
from translator.naming import unique


def parse(source: str, path: str) -> ir.Module:
    """Parse Triton source text into a verified IR module.

    Every function that launches a kernel (module functions, methods of classes such as autograd
    Functions, helpers) is read for the facts its launches need; its code is carried into the
    translation as written, each launch rewritten. Kernels that nothing launches get a wrapper
    derived from their signature (:mod:`translator.dialects.triton.frontend_wrapper`), appended
    to the source and lifted like a written one.
    """
    from translator.dialects.triton.frontend_wrapper import derived_wrappers

    wrapper = parse_source(source, path)
    # Helpers and decorator aliases imported from the library's other modules, read from disk
    # and appended (the file's own positions unchanged), as derived wrappers are.
    siblings = read_siblings(wrapper.module, path, names_read(wrapper.module))
    if siblings.text:
        source = source.rstrip("\n") + "\n" + siblings.text
        wrapper = parse_source(source, path)
    derived = derived_wrappers(
        wrapper.module, path, Locator(wrapper, path), extra_aliases=siblings.aliases
    )
    text = source
    if derived:
        text = source.rstrip("\n") + "\n" + derived
        wrapper = parse_source(text, path)
    module = wrapper.module
    info = ModuleInfo(
        path,
        module,
        {**import_aliases(module), **siblings.aliases},
        load_grammar("triton"),
        Locator(wrapper, path),
    )
    info.sibling_misses = siblings.misses
    info.sibling_sources = siblings.sources
    taken = {*siblings.helpers, *siblings.aliases}
    for stmt in module.body:
        for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
            names = import_from_names(small)
            if names and set(names) <= taken:
                # `from .utils import silu`: what it imports is in the kernels now.
                info.host_edits.append(
                    ir.HostEdit("remove", info.locate.span(stmt), if_unused=names)
                )
    collect_module(info)
    entries: list[ir.Entry] = []
    kernels: list[ir.Kernel] = []
    sites: list[ir.Site] = []
    for host in info.launch_hosts:
        fn, qualname, public = host.node, host.qualname, host.public
        builder = EntryBuilder(info, fn, qualname, sites)
        try:
            entry = without_ill_typed_facts(builder.build())
            entry, outlined = outline_entry(entry, builder.naming())
        except IRTypeError as err:
            raise TranslationError(
                f"the lifted kernel does not type-check: {err}", err.loc, err.hint
            ) from None
        entries.append(dataclasses.replace(entry, public=public))
        kernels.extend(outlined)
    if not entries:
        imported = imported_launch(module, info)
        if imported is not None:
            node, name, origin = imported
            raise TranslationError(
                f"`{name}` is launched here but defined in `{origin}`: tiletrans translates a "
                "kernel together with the functions that launch it, in one module",
                info.locate(node),
                f"move this launching function into `{origin}` beside the kernel (translating "
                f"`{origin}` alone gives each unlaunched kernel a derived wrapper)",
            )
        for stmt in module.body:
            for d in stmt.decorators if isinstance(stmt, cst.FunctionDef) else ():
                head = d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator
                why = info.sibling_misses.get(head.value) if isinstance(head, cst.Name) else None
                if why is not None:
                    # vLLM's `@triton_jit_decorator`, imported from `vllm.triton_utils`.
                    raise TranslationError(
                        f"`@{head.value}` on `{stmt.name.value}` is imported, and tiletrans "
                        f"cannot tell whether it is triton.jit: {why}",
                        info.locate(d),
                        "decorate the kernel with @triton.jit, or translate the file where its "
                        "library's modules are on disk beside it (or name the library's root in "
                        "TILETRANS_LIBRARY_ROOT)",
                    )
        raise TranslationError(
            "no function in this file launches a @triton.jit kernel",
            ir.Loc(path, 1, 0),
            "add a wrapper that calls `kernel[grid](...)` and returns the outputs",
        )
    kernels, entries = _merge_variants(kernels, entries)
    edits = _module_edits(info, kernels)
    _refuse_unlifted_uses(info, sites, edits)
    entries.extend(api_entries(module, entries, set(info.jit), info.locate))
    entries = with_documented_dtypes(module, entries)
    result = ir.Module(
        path=path,
        entries=tuple(entries),
        kernels=tuple(kernels),
        host=ir.HostPlan(
            source=text,
            sites=tuple(sites),
            edits=tuple(edits),
            packages=tuple(info.grammar["packages"]),
        ),
        docstring=module.get_docstring(clean=False),
        header_comments=tuple(
            line.comment.value[1:].strip()
            for line in without_provenance(module.header)
            if line.comment is not None and not line.comment.value.startswith("#!")
        ),
        source_hash=hashlib.sha256(source.encode()).hexdigest(),
        source_dialect="triton",
    )
    try:
        verify(result)
    except IRTypeError as err:
        raise TranslationError(
            f"the lifted kernel does not type-check: {err}", err.loc, err.hint
        ) from None
    return result


def _merge_variants(
    kernels: list[ir.Kernel], entries: list[ir.Entry]
) -> tuple[list[ir.Kernel], list[ir.Entry]]:
    """One kernel per name: a kernel launched from several sites is lifted at each; identical
    liftings are one kernel, different ones (other constants, other layouts) are numbered."""
    out: list[ir.Kernel] = []
    renames: list[str] = []
    for k in kernels:
        same = next((o for o in out if _variant_of(o.name) == k.name and _same_kernel(o, k)), None)
        if same is not None:
            renames.append(same.name)
            continue
        taken = {o.name for o in out}
        name, n = k.name, 1
        while name in taken:
            n += 1
            name = f"{k.name}_v{n}"
        renames.append(name)
        out.append(dataclasses.replace(k, name=name) if name != k.name else k)
    # Launches name their kernels in the order they were lifted.
    order = iter(renames)
    new_entries = []
    for e in entries:
        body = tuple(
            dataclasses.replace(s, kernel=next(order)) if isinstance(s, ir.Launch) else s
            for s in e.body
        )
        new_entries.append(dataclasses.replace(e, body=body))
    return out, new_entries


def _variant_of(name: str) -> str:
    base, _, n = name.rpartition("_v")
    return base if base and n.isdigit() else name


def _same_kernel(a: ir.Kernel, b: ir.Kernel) -> bool:
    return dataclasses.replace(a, name=b.name) == b


def _module_edits(info: ModuleInfo, kernels: list[ir.Kernel]) -> list[ir.HostEdit]:
    """What changes in the carried module: each launched kernel's definition becomes its
    translation; jit helpers (inlined into the kernels) go; module names only the kernels'
    decorators read (configs, config functions, hooks) go unless host code still reads them."""
    by_source: dict[str, list[str]] = {}
    for k in kernels:
        by_source.setdefault(_variant_of(k.name), []).append(k.name)
    edits: list[ir.HostEdit] = []
    for name, fn in info.jit.items():
        span = info.locate.span(fn)
        if name in info.kernels and name in by_source:
            kd = info.kernels[name]
            edits.append(
                ir.HostEdit(
                    "define",
                    span,
                    kernels=tuple(by_source[name]),
                    keep=tuple(kd.kept_decorators),
                    note="\n".join(kd.notes) or None,
                )
            )
        else:
            edits.append(ir.HostEdit("remove", span))
    consumed: set[str] = set()
    for kd in info.kernels.values():
        consumed |= kd.consumed
    for name in sorted(consumed):
        node = info.statements.get(name)
        if node is not None:
            edits.append(ir.HostEdit("remove", info.locate.span(node), if_unused=(name,)))
    return edits + info.host_edits


def _refuse_unlifted_uses(info: ModuleInfo, sites: list[ir.Site], edits: list[ir.HostEdit]) -> None:
    """Refuse a use of a ``@triton.jit`` function in host code that no launch site or edit
    covers (a launch inside a lambda, say): the function is replaced or removed in the
    translation, so that use would be left naming nothing."""
    covered = [site.span for site in sites] + [e.span for e in edits if e.span is not None]

    def inside(span: ir.Span) -> bool:
        return any(
            (c.start_line, c.start_col) <= (span.start_line, span.start_col)
            and (span.end_line, span.end_col) <= (c.end_line, c.end_col)
            for c in covered
        )

    stack: list[cst.CSTNode] = [
        stmt
        for stmt in info.module.body
        if not (isinstance(stmt, cst.FunctionDef) and stmt.name.value in info.jit)
    ]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Attribute):
            stack.append(node.value)  # `x.add_kernel` names no kernel
            continue
        if isinstance(node, cst.ImportFrom):
            continue  # `from .utils import silu`: a helper read from its module, which stays
        if isinstance(node, cst.Name):
            if node.value in info.jit and not inside(info.locate.span(node)):
                raise TranslationError(
                    f"`{node.value}` is used here in a way tiletrans does not translate: the "
                    "kernel is replaced in the translation, and this use would name nothing",
                    info.locate(node),
                    f"launch it as `{node.value}[grid](...)` in a statement or expression of "
                    "the host function itself (not inside a lambda or a nested function)",
                )
            continue
        stack.extend(children(node))


# ==================================================================================================
# Host values


# ==================================================================================================
# Entries


class EntryBuilder(HostStatements, HostExpressions, HostTensors):
    """Interprets one host function that launches kernels, for the facts its launches need.

    Statements it cannot model are carried (they stay in the translation as written): the names
    they bind become opaque, which only matters where a launch needs their value."""

    def __init__(
        self,
        info: ModuleInfo,
        fn: cst.FunctionDef,
        qualname: str | None = None,
        sites: list[ir.Site] | None = None,
    ) -> None:
        self.info = info
        self.fn = fn
        self.qualname = qualname or fn.name.value
        self.sites = sites if sites is not None else []
        self.launches: dict[int, Launch] = {}  # by launch site
        self.launch_values: dict[str, Any] | None = None  # calls evaluated in this launch
        self.scalar_params: dict[str, str] = {}  # unannotated parameters launches read as numbers
        self.spelt: dict[str, str] = {}  # carried host values -> their source text
        self.carried_names: dict[object, str] = {}  # opaque value id or text -> carried name
        self.complete = True
        self.locate = info.locate
        self.aliases = info.aliases
        self.grammar = info.grammar
        self.scope: dict[str, Any] = {}
        self.body: list[ir.Stmt] = []
        self.pending_comments: list[str] = []
        self.names: set[str] = set()
        self.types = TypeEnv()
        self.canon: dict[str, ir.Expr] = {}
        self.size_canon: dict[tuple[str, int], ir.Expr] = {}
        self.tensors: dict[str, HTensor] = {}
        # Views of tensors of no known rank as rows: (tensor, row length) -> view name.
        self.row_views: dict[tuple[str, ir.Expr], str] = {}
        self.tunables: dict[str, ir.Tunable] = {}
        self.tunable_canon: dict[str, ir.Expr] = {}
        self.configs: list[dict[str, int]] = []
        self.config_source: str | None = None
        self.hints: dict[str, Any] = {}
        self.assumed_unit: list[str] = []
        self.guards: list[tuple[str, int, str]] = []  # (tensor, rank, why)
        self.depth = 0
        self.result_names: list[str | None] = []  # per inlined helper: the caller's target
        self.positive: set[str] = set()  # host scalars asserted > 0 (as formatted expressions)
        self.written: set[str] = set()  # tensors a launched kernel writes
        self.opaque_names: dict[int, tuple[object, ir.Name]] = {}  # see _opaque_expr
        self.derived = False  # a wrapper tiletrans derived from a kernel's signature
        # Conditions of the host `if` branches being read (`n_cols <= BLOCK_SIZE` around a
        # one-block launch): what a launch there may rely on.
        self.branch_facts: list[ir.Expr] = []
        # `a % b == 0` the host asserts before the launches after it (host_divisibility).
        self.divisible: list[Divisibility] = []

    def error(self, node: cst.CSTNode, message: str, hint: str | None = None) -> TranslationError:
        return TranslationError(message, self.locate(node), hint)

    def src(self, node: cst.CSTNode) -> str:
        return " ".join(source_of(node).split())

    # ------------------------------------------------------------------ context for the lifter

    def type_env(self) -> TypeEnv:
        return self.types

    def taken_names(self) -> set[str]:
        return set(self.names) | set(self.tunables)

    def tunable_names(self) -> set[str]:
        return set(self.tunables)

    def module_constant(self, name: str) -> int | float | None:
        return self.info.constants.get(name)

    def dtype_from_name(self, name: str, which: str) -> ir.DType | None:
        dtype = self.grammar["frontend"]["dtypes"].get(name)
        return ir.DType(dtype) if dtype is not None else None

    def canonical(self, e: ir.Expr, depth: int = 0) -> ir.Expr:
        """``e`` with host names replaced by their definitions, sizes by their representatives."""
        from translator.dialects.triton.ir_rewrite import map_names, simplify

        def fn(name: str) -> ir.Expr | None:
            if name in self.canon and depth < 20:
                return self.canonical(self.canon[name], depth + 1)
            if name in self.tunable_canon:
                return self.tunable_canon[name]
            return None

        out = map_names(e, fn)

        def sizes(x: ir.Expr) -> ir.Expr:
            if isinstance(x, ir.SizeOf):
                t = self.tensors.get(x.tensor)
                d = x.dim
                if t is not None and t.rank is not None and d < 0:
                    d += t.rank
                # A size learned before the rank was known is keyed from the back.
                keys = [(x.tensor, d)]
                if t is not None and t.rank is not None and d >= 0:
                    keys.append((x.tensor, d - t.rank))
                for key in keys:
                    if key in self.size_canon and depth < 20:
                        return self.canonical(self.size_canon[key], depth + 1)
                if t is not None and t.like is not None and depth < 20:
                    # Allocated `*_like` another tensor before its rank was known.
                    return self.canonical(ir.SizeOf(t.like.name, d), depth + 1)
                return ir.SizeOf(x.tensor, d)
            if isinstance(x, ir.BinOp):
                return dataclasses.replace(x, lhs=sizes(x.lhs), rhs=sizes(x.rhs))
            if isinstance(x, ir.Call):
                return dataclasses.replace(x, args=tuple(sizes(a) for a in x.args))
            if isinstance(x, ir.UnaryOp):
                return dataclasses.replace(x, operand=sizes(x.operand))
            return x

        return simplify(sizes(out))

    def is_positive(self, e: ir.Expr) -> bool:
        """Whether host scalar ``e`` is provably > 0: positive constants, scalars asserted
        positive, and products, quotients and powers of those."""
        if isinstance(e, ir.Const):
            return not isinstance(e.value, (bool, str)) and e.value is not None and e.value > 0
        if format_expr(e) in self.positive:
            return True
        if isinstance(e, ir.Name) and e.id in self.canon:
            return self.is_positive(self.canon[e.id])
        if isinstance(e, ir.BinOp) and e.op in ("*", "/"):
            return self.is_positive(e.lhs) and self.is_positive(e.rhs)
        if isinstance(e, ir.BinOp) and e.op == "**":
            return self.is_positive(e.lhs)
        return False

    def at_default_config(self, e: ir.Expr) -> object:
        """The value of host expression ``e`` with every tunable at its default (the block sizes
        the host computes replaced by the tunables that stand for them), or ``None`` where it
        still depends on input sizes."""
        stand_ins = {
            format_expr(self.canonical(canon)): ir.Const(self.tunables[name].default)
            for name, canon in self.tunable_canon.items()
        }

        def fold(x: ir.Expr) -> ir.Expr:
            text = format_expr(x)
            if text in stand_ins:
                return stand_ins[text]
            if isinstance(x, ir.BinOp):
                return dataclasses.replace(x, lhs=fold(x.lhs), rhs=fold(x.rhs))
            if isinstance(x, ir.Call):
                return dataclasses.replace(x, args=tuple(fold(a) for a in x.args))
            return x

        return _evaluate(fold(self.canonical(e)))

    def same_value(self, a: ir.Expr, b: ir.Expr) -> bool:
        """Whether two host expressions are equal: the same after canonicalisation, up to the
        order of sums and products (compared as polynomials over their atoms), and ``n // b``
        equal to ``cdiv(n, b)`` where the host asserts ``n % b == 0``."""
        ca, cb = self.canonical(a), self.canonical(b)
        if self._same_canonical(ca, cb):
            return True
        if not self.divisible:
            return False
        # `n // BLOCK` programs where the host asserts `n % BLOCK == 0`: `cdiv(n, BLOCK)`.
        ea = with_exact_quotients(ca, self._divides_canonical)
        eb = with_exact_quotients(cb, self._divides_canonical)
        return (ea, eb) != (ca, cb) and self._same_canonical(ea, eb)

    def _same_canonical(self, ca: ir.Expr, cb: ir.Expr) -> bool:
        from translator.dialects.triton import frontend_affine as af

        if format_expr(ca) == format_expr(cb):
            return True
        atoms = af.Atoms()
        return af.same_poly(af.poly(ca, atoms), af.poly(cb, atoms))

    def same_size(self, a: ir.Expr, b: ir.Expr) -> bool:
        """:meth:`same_value`, also where the element counts of a tensor and of one allocated
        ``*_like`` it stand for each other (``out.numel()`` of ``out = torch.empty_like(x)``)."""
        if self.same_value(a, b):
            return True
        la, lb = (like_counts(self.canonical(e), self.tensors) for e in (a, b))
        return self._same_canonical(la, lb)

    def divides(self, n: ir.Expr, b: ir.Expr) -> bool:
        """Whether a host check before the launch guarantees that ``b`` divides ``n``."""
        return self._divides_canonical(self.canonical(n), self.canonical(b))

    def _divides_canonical(self, n: ir.Expr, b: ir.Expr) -> bool:
        facts = [(self.canonical(a), self.canonical(d)) for a, d in self.divisible]
        return divides(facts, self.tensors, self._same_canonical, n, b)

    def is_one(self, e: ir.Expr) -> bool:
        return self.canonical(e) == ir.Const(1)

    # ------------------------------------------------------------------ names

    def fresh(self, base: str) -> str:
        return unique(base, self.names)

    def bind_tensor(self, source_name: str, t: HTensor) -> None:
        self.scope[source_name] = t
        self.tensors[t.name] = t

    def emit(self, stmt: ir.Stmt) -> None:
        if self.pending_comments:
            stmt = dataclasses.replace(stmt, comments=tuple(self.pending_comments) + stmt.comments)
            self.pending_comments = []
        self.body.append(stmt)
        if isinstance(stmt, ir.Assert):
            fact = divisibility_of(stmt.test)
            if fact is not None:
                self.divisible.append(fact)
        if isinstance(stmt, ir.Assign):
            self.types.vars[stmt.target] = (
                ScalarType(ir.I32, weak=True)
                if not isinstance(stmt.value, ir.Const) or not isinstance(stmt.value.value, float)
                else ScalarType(ir.F32, weak=True)
            )
        elif isinstance(stmt, ir.ShapeUnpack):
            t = self.types.vars.get(stmt.tensor)
            if isinstance(t, TensorType):
                self.types.vars[stmt.tensor] = TensorType(t.dtype, len(stmt.targets))
            for n in stmt.targets:
                if n is not None:
                    self.types.vars[n] = ScalarType(ir.I32, weak=True)

    def note(self, text: str) -> None:
        self.pending_comments.append(text)

    # ------------------------------------------------------------------ build

    def naming(self) -> OutlineNaming:
        """How the kernels this function launches name and spell what they read: a kernel's
        own parameter names, and each argument as the launch wrote it."""
        return OutlineNaming(
            param=lambda k, host, kind: self.launches[k.site].param_name(host, kind),
            text=lambda k, host: self.launches[k.site].arg_text(host),
            order=lambda k, host: self.launches[k.site].param_order(host),
            constexpr=set(self.hints.get("constexpr", ())),
        )

    def carried(self, node: cst.CSTNode, cause: TranslationError | None = None) -> None:
        """A host statement the frontend does not model: carried as written; what it binds is
        opaque from here on (the entry's facts are incomplete). ``cause`` says why, for a launch
        that turns out to need the value."""
        self.complete = False
        for name in bound_names(node):
            why = f"`{name}` is computed by host code tiletrans carries"
            self.scope[name] = HOpaque(why, cause=cause)

    def build(self) -> ir.Entry:
        fn = self.fn
        params = self._params()
        body_nodes = list(fn.body.body) if isinstance(fn.body, cst.IndentedBlock) else []
        docstring = fn.get_docstring(clean=True)
        if docstring is not None:
            body_nodes = body_nodes[1:]
        self.host_block(body_nodes)
        if not any(isinstance(s, ir.Return) for s in self.body):
            if self.derived:
                # A derived wrapper returns what the kernel writes, in parameter order.
                outs = [
                    ir.Name(p.name.value)
                    for p in self.fn.params.params
                    if p.name.value in self.written
                    or (
                        p.name.value in self.tensors
                        and self.tensors[p.name.value].flat in self.written
                    )
                ]
                value: ir.Expr | None = (
                    outs[0] if len(outs) == 1 else (ir.TupleExpr(tuple(outs)) if outs else None)
                )
                if value is not None:
                    self.hints["derived_wrapper"] = self.hints["derived_wrapper"].rstrip() + (
                        f"\n    return {format_expr(value).strip('()')}\n"
                    )
                self.note(
                    "tiletrans: a wrapper derived from the kernel's signature: one "
                    "program per tile, returning the tensors the kernel writes"
                )
                self.emit(ir.Return(value))
            else:
                self.emit(ir.Return(None))
        body = self._finish_body()
        hints = {
            k: v
            for k, v in self.hints.items()
            if k
            in (
                "derived_wrapper",
                "rank_specialized",
                "constexpr",
                "borrowed_stride",
                "assumed_row_major",
            )
        }
        if self.assumed_unit:
            hints["assumed_unit_stride"] = tuple(dict.fromkeys(self.assumed_unit))
        returns = source_of(fn.returns.annotation) if fn.returns is not None else None
        params = tuple(
            dataclasses.replace(p, kind=self.scalar_params[p.name])
            if p.name in self.scalar_params
            else p
            for p in params
        )
        return _settle_tile_names(
            ir.Entry(
                name=self.qualname,
                params=params,
                body=tuple(body),
                docstring=docstring,
                return_annotation=returns,
                comments=tuple(statement_comments(fn)),
                hints=tuple(sorted(hints.items())),
                complete=self.complete,
                loc=self.locate(fn),
            )
        )

    def _params(self) -> tuple[ir.Param, ...]:
        out = []
        ps = self.fn.params
        if ps.star_arg not in (None, cst.MaybeSentinel.DEFAULT) or ps.star_kwarg is not None:
            # `*args`/`**kwargs` stay as written; what they hold is opaque to the facts.
            self.complete = False
            for star in (ps.star_arg, ps.star_kwarg):
                if isinstance(star, cst.Param):
                    self.names.add(star.name.value)
                    self.scope[star.name.value] = HOpaque(f"`{star.name.value}` is a star argument")
        all_params = (*ps.posonly_params, *ps.params, *ps.kwonly_params)
        for i, p in enumerate(all_params):
            name = p.name.value
            annotation = source_of(p.annotation.annotation) if p.annotation is not None else None
            default = None
            kind = "tensor"
            optional = _optional_of(annotation)
            if annotation in ("int", "float", "bool", "str"):
                kind = annotation
            elif optional is not None:
                kind = optional
            elif (annotation is not None and "Tensor" not in annotation) or (
                i == 0 and "." in self.qualname and name in ("self", "cls", "ctx")
            ):
                # Something the IR has no value for (a method's ctx, an object): opaque.
                out.append(ir.Param(name, "object", default_of(p), annotation))
                self.names.add(name)
                self.scope[name] = HOpaque(f"`{name}` is no tensor or scalar")
                continue
            if p.default is not None:
                try:
                    value = literal(p.default)
                except ValueError:
                    out.append(ir.Param(name, "object", default_of(p), annotation))
                    self.names.add(name)
                    self.scope[name] = HOpaque(f"`{name}` defaults to a non-literal")
                    continue
                if (value is None and kind not in ("int", "float", "bool")) or (
                    value is not None
                    and isinstance(value, str) != (kind == "str")
                    and (annotation is not None)
                ):
                    # An optional tensor (`bias=None`), or a default of another type: a value
                    # the facts cannot type; the code stays as written.
                    out.append(ir.Param(name, "object", ir.Const(value), annotation))
                    self.names.add(name)
                    self.scope[name] = HOpaque(f"`{name}` may be None", may_be_none=value is None)
                    continue
                default = ir.Const(value)
                if annotation is None:
                    kind = (
                        "float"
                        if isinstance(value, float)
                        else "bool"
                        if isinstance(value, bool)
                        else "str"
                        if isinstance(value, str)
                        else "int"
                    )
            out.append(ir.Param(name, kind, default, annotation))
            self.names.add(name)
            if kind == "tensor":
                t = HTensor(
                    name,
                    name,
                    ir.DTypeOf(name),
                    guessed=annotation is None,
                    optional=_may_be_none(annotation),
                )
                self.bind_tensor(name, t)
                self.types.vars[name] = TensorType(ir.DTypeOf(name))
            else:
                self.scope[name] = HScalar(ir.Name(name), kind)
                self.types.vars[name] = ScalarType(
                    {"int": ir.I32, "float": ir.F32, "bool": ir.BOOL, "str": ir.STR}[kind],
                    weak=True,
                )
        return tuple(out)

    def _finish_body(self) -> list[ir.Stmt]:
        from translator.dialects.triton.ir_rewrite import map_stmt

        # Rank guards first: they only raise, so they go before everything else.
        guards = []
        for name, rank, why in self.guards:
            guards.append(
                ir.ShapeUnpack(
                    (None,) * rank,
                    name,
                    comments=(f"tiletrans: specialised to {rank}-d `{name}`: {why}",),
                )
            )
        body = guards + self.body

        # Negative dims of tensors whose rank is now known.
        def fix(e: ir.Expr) -> ir.Expr:
            return _normalize_dims(e, self.tensors)

        body = [_map_host_stmt(s, fix, map_stmt) for s in body]
        # Dead host scalars (launch knobs, block sizes the IR does not need).
        while True:
            used: set[str] = set()
            for s in body:
                used |= _names_used(s)
            dead = [
                i for i, s in enumerate(body) if isinstance(s, ir.Assign) and (s.target not in used)
            ]
            if not dead:
                break
            for i in reversed(dead):
                stmt = body.pop(i)
                if stmt.comments and i < len(body):
                    body[i] = dataclasses.replace(
                        body[i], comments=stmt.comments + body[i].comments
                    )
        return body

    def _tunables(self) -> tuple[tuple[ir.Tunable, ...], tuple]:
        tunables = list(self.tunables.values())
        names = {t.name for t in tunables}
        defaults = self.configs[0] if self.configs else {}
        for knob, fallback in (("num_warps", 4), ("num_stages", 3)):
            if knob not in names:
                present = sorted({c[knob] for c in self.configs if knob in c})
                tunables.append(
                    ir.Tunable(knob, knob, defaults.get(knob, fallback), tuple(present))
                )
        configs = []
        order = [t.name for t in tunables]
        for c in self.configs:
            full = {n: c.get(n, next(t.default for t in tunables if t.name == n)) for n in order}
            configs.append(tuple(full.items()))
        return tuple(tunables), tuple(configs)

    # ------------------------------------------------------------------ host statements

    # ------------------------------------------------------------------ asserts

    # ------------------------------------------------------------------ host expressions

    # ------------------------------------------------------------------ tensors

    # ------------------------------------------------------------------ launches

    def launch(self, call: cst.Call) -> None:
        from translator.dialects.triton.frontend_device import KernelLifter

        sub = call.func
        assert isinstance(sub, cst.Subscript)
        name = sub.value.value if isinstance(sub.value, cst.Name) else None
        name = self.info.warmup_aliases.get(self.qualname, {}).get(name, name)  # type: ignore[arg-type]
        if name not in self.info.kernels:
            raise self.error(
                call, f"`{self.src(sub.value)}` is not a @triton.jit kernel of this file"
            )
        kernel = self.info.kernels[name]
        # Each kernel has its own tunables and configs; host facts are shared.
        self.tunables, self.tunable_canon, self.configs = {}, {}, []
        for key in ("pid_type",):
            self.hints.pop(key, None)
        launch = Launch(self, kernel, call)
        self.launch_values = {}
        try:
            launch.bind()
            launch.grid = launch.eval_grid(sub)
            self.derived = self.derived or launch.derived
            lifter = KernelLifter(launch)
            k = lifter.lift()
        except TranslationError as err:
            err.device = True  # type: ignore[attr-defined]
            raise
        finally:
            self.launch_values = None
        if launch.derived:
            self.hints["derived_wrapper"] = self.runnable_wrapper(launch)
        launch.none_placeholders()
        for s in launch.pre:
            self.emit(s)
        comments = tuple(self.pending_comments)
        self.pending_comments = []
        self.sites.append(ir.Site(self.locate.span(call), statement=False))
        site = len(self.sites) - 1
        self.launches[site] = launch
        launch.record_configs()
        tunables, configs = self._tunables()
        hints = ir.Hints(
            schedule=self.hints.get("pid_type"),
            # The source computes offsets in 64 bits (`pid.to(tl.int64)`, against int32
            # overflow); other DSLs are told to index so too.
            index_bits=64 if _casts_to_int64(kernel.fn, self.info) else None,
            fast_math=True if _uses_fast_math(list(k.body)) else None,
            # A Triton kernel compiles once for every shape (it specialises only on sizes
            # divisible by 16 or equal to 1): a target that would recompile per shape, as
            # Helion's default does, should not (and Helion's static shapes were measured
            # 2x slower on a looped log-softmax: benchmarks.gpu_gap_probe).
            static_shapes=False,
            extras=_restored(kernel, launch),
        )
        k = self.sizes_of_passed_tensors(k, launch)
        inline = ir.InlineKernel(
            name=k.name,
            grid=k.grid,
            body=k.body,
            comments=comments + tuple(launch.notes),
            docstring=k.docstring,
            doc_comments=k.doc_comments,
            tunables=tunables,
            configs=configs,
            hints=hints,
            site=site,
            tuned=launch.tuned_texts(),
            block_texts=launch.block_texts(),
            partial_dims=k.partial_dims,
            loc=k.loc,
        )
        self.body.append(inline)
        from translator.ir.visit import walk_stmts

        self.written |= {
            s.tensor for s in walk_stmts(k.body) if isinstance(s, (ir.Store, ir.AtomicRMW))
        }

    def sizes_of_passed_tensors(self, k: ir.InlineKernel, launch: Launch) -> ir.InlineKernel:
        """Host sizes the kernel reads (`N` of `N = x.shape[1]`, passed as an argument) as
        sizes of the tensors the launch passes (`x.size(1)`): the kernel then needs no
        argument for them, and every DSL can read them off its tensors."""
        from translator.dialects.triton.ir_rewrite import map_names, map_stmt

        passed = {
            name
            for b in launch.bindings.values()
            if b.kind in ("tensor", "descriptor") and b.htensor is not None
            for name in (b.htensor.name, b.htensor.flat)
            if name is not None
        } | set(launch.row_views)

        def size(name: str) -> ir.Expr | None:
            if name not in self.canon and name not in self.names:
                return None
            c = self.canonical(ir.Name(name))
            if isinstance(c, ir.SizeOf) and c.tensor in passed and c.dim >= 0:
                t = self.tensors.get(c.tensor)
                if t is not None and t.rank is not None and c.dim < t.rank:
                    return c
            return None

        def fix(e: ir.Expr) -> ir.Expr:
            return map_names(e, size)

        return _map_host_stmt(k, fix, map_stmt)  # type: ignore[return-value]

    def runnable_wrapper(self, launch: Launch) -> str:
        """The derived wrapper as runnable Python: its grid one program per tile. Validation
        runs the source kernel through it (the file itself has no wrapper to call)."""
        from translator.dialects.triton.frontend_affine import rename
        from translator.dialects.triton.frontend_wrapper import DERIVED_GRID
        from translator.dialects.triton.symbols import SymKind, parse_sym

        def meta(name: str) -> ir.Expr | None:
            # A parameter's symbol, or an opaque block's (one the wrapper's caller passes).
            sym = parse_sym(name)
            if sym is None or sym.kind not in (SymKind.PARAM, SymKind.OPAQUE):
                return None
            return ir.Name(f'META["{sym.name}"]')

        axes = [
            format_expr(rename(launch.derived_axes[a], meta)).replace("cdiv(", "triton.cdiv(")
            for a in range(max(launch.derived_axes, default=-1) + 1)
        ]
        text = self.info.module.code_for_node(self.fn)
        grid = f"(lambda META: ({', '.join(axes)},))"
        return text.replace(DERIVED_GRID, grid)

    def carried_scalar(self, node: cst.BaseExpression, kind: str, value: object) -> ir.Name:
        """A host number written as ``node`` that the frontend cannot evaluate (its opaque
        ``value``), as a name the kernels may read (a :class:`~translator.ir.nodes.Carried`
        fact, spelt as written). One value, or one text, is one name."""
        text = self.src(node)
        known = self.carried_names.get(id(value)) or self.carried_names.get(text)
        if known is not None:
            return ir.Name(known)
        base = text if text.isidentifier() else "host_value"
        name = self.fresh(base)
        self.names.add(name)
        self.types.vars[name] = ScalarType(ir.I32 if kind == "int" else ir.F32, weak=True)
        self.emit(ir.Carried(name, kind, text, loc=self.locate(node)))
        self.spelt[name] = text
        # Kept alive by the scope or the binding that holds it: ids stay unique.
        self.carried_names[id(value)] = self.carried_names[text] = name  # type: ignore[index]
        return ir.Name(name)

    def source_name(self, ir_name: str) -> str | None:
        """The host variable that holds IR value ``ir_name`` at this point, if any."""
        if ir_name in self.spelt:
            return self.spelt[ir_name]
        if ir_name in self.scope and ir_name in self.names:
            v = self.scope[ir_name]
            if (isinstance(v, HScalar) and v.expr == ir.Name(ir_name)) or (
                isinstance(v, HTensor) and v.name == ir_name
            ):
                return ir_name
        for name, v in self.scope.items():
            if isinstance(v, HScalar) and v.expr == ir.Name(ir_name):
                return name
            if isinstance(v, HTensor) and v.name == ir_name:
                return name
        return None

    def mark_constexpr(self, name: str) -> None:
        """Host scalar ``name`` must reach kernels as a compile-time constant (a string, a
        flag that decides branches)."""
        self.hints["constexpr"] = tuple(dict.fromkeys((*self.hints.get("constexpr", ()), name)))

    def record_tunable(self, t: ir.Tunable, canon: ir.Expr | None) -> None:
        old = self.tunables.get(t.name)
        if old is not None and old != t:
            raise TranslationError(
                f"two kernels disagree on tunable {t.name}", self.locate(self.fn)
            )
        self.tunables[t.name] = t
        if canon is not None:
            self.tunable_canon[t.name] = canon
        self.types.vars.setdefault(t.name, ScalarType(ir.I32, weak=True))


# ==================================================================================================
# Helpers


_FOLD_BINOPS = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "//": lambda a, b: a // b,
    "%": lambda a, b: a % b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
}


def _evaluate(e: ir.Expr) -> object:
    """A host expression of constants evaluated, or ``None`` if it reads anything else."""
    if isinstance(e, ir.Const):
        return e.value
    if isinstance(e, ir.BinOp) and e.op in _FOLD_BINOPS:
        a, b = _evaluate(e.lhs), _evaluate(e.rhs)
        if a is None or b is None or (e.op in ("//", "%") and b == 0):
            return None
        return _FOLD_BINOPS[e.op](a, b)
    if isinstance(e, ir.Call):
        args = [_evaluate(a) for a in e.args]
        if any(a is None for a in args):
            return None
        if e.op == "where":
            return args[1] if args[0] else args[2]
        if e.op in ("minimum", "maximum"):
            return (min if e.op == "minimum" else max)(args)
        if e.op == "next_power_of_2":
            return 1 << (int(args[0]) - 1).bit_length()
        if e.op == "cdiv":
            return -(-int(args[0]) // int(args[1]))
    return None


def _restored(kernel: KernelDef, launch: Launch) -> tuple[tuple[str, object], ...]:
    """``triton.reset_to_zero`` and ``triton.restore_value``: the tensors (IR names) the
    source's autotuner zeroes or restores around its timed runs, for a Triton translation to do
    the same."""
    out = []
    for option in ("reset_to_zero", "restore_value"):
        names = tuple(
            b.tensor
            for key, p in kernel.restored
            if key == option and (b := launch.bindings.get(p)) is not None and b.tensor is not None
        )
        if names:
            out.append((f"triton.{option}", names))
    return tuple(out)


def _casts_to_int64(fn: cst.FunctionDef, info: ModuleInfo) -> bool:
    """Whether a kernel (or a jit helper it calls) converts values to ``tl.int64``
    (``x.to(tl.int64)``, ``tl.cast(x, tl.int64)``): in Triton kernels that is how offsets are
    kept from overflowing int32 (``tl.program_id(0).to(tl.int64) * stride``)."""
    lang = info.grammar["device_module"]
    int64, cast = f"{lang}.int64", f"{lang}.cast"
    found = False
    seen: set[str] = set()

    class V(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            nonlocal found
            func = node.func
            is_to = isinstance(func, cst.Attribute) and func.attr.value == "to"
            is_cast = resolve(func, info.aliases) == cast
            if (is_to and node.args) or (is_cast and len(node.args) > 1):
                dtype = node.args[0 if is_to else 1].value
                found = found or resolve(dtype, info.aliases) == int64
            if (
                isinstance(func, cst.Name)
                and func.value in info.jit_helpers
                and (func.value not in seen)
            ):
                seen.add(func.value)
                info.jit_helpers[func.value].visit(self)

    fn.visit(V())
    return found


def _uses_fast_math(body: list[ir.Stmt]) -> bool:
    """Whether a kernel body computes transcendental functions, which Triton's ``tl.exp``,
    ``tl.log``... do with fast approximations (other DSLs call exact-rounding libraries unless
    told)."""
    from translator.ir.ops import POINTWISE_OPS
    from translator.ir.visit import all_exprs

    return any(
        isinstance(e, ir.Call) and POINTWISE_OPS[e.op].result == "float"
        for e in all_exprs(tuple(body))
    )


def _may_be_none(annotation: str | None) -> bool:
    """Whether a parameter's annotation admits None (``Optional[...]``, ``... | None``)."""
    if annotation is None:
        return False
    text = annotation.replace(" ", "")
    return text.startswith(("Optional[", "typing.Optional[")) or "None" in text.split("|")


def _optional_of(annotation: str | None) -> str | None:
    """``"float"`` for ``float | None`` / ``Optional[float]`` (and int, bool, str likewise)."""
    if annotation is None:
        return None
    text = annotation.replace(" ", "")
    for kind in ("int", "float", "bool", "str"):
        if text in (
            f"{kind}|None",
            f"None|{kind}",
            f"Optional[{kind}]",
            f"typing.Optional[{kind}]",
        ):
            return kind
    return None


def _names_used(s: ir.Stmt) -> set[str]:
    from translator.ir.visit import all_exprs, child_exprs, index_exprs

    names: set[str] = set()

    def add(e: ir.Expr) -> None:
        stack = [e]
        while stack:
            x = stack.pop()
            if isinstance(x, ir.Name):
                names.add(x.id)
            elif isinstance(x, (ir.SizeOf, ir.Load)):
                names.add(x.tensor)
            elif isinstance(x, ir.Full):
                for d in x.shape:
                    if isinstance(d, ir.FullDim):
                        stack.append(d.extent)
            elif isinstance(x, ir.Arange) and isinstance(x.dim, ir.FullDim):
                stack.append(x.dim.extent)
            stack.extend(child_exprs(x))

    for e in all_exprs((s,)):
        add(e)
    from translator.ir.visit import walk_stmts

    for st in walk_stmts((s,)):
        if isinstance(st, (ir.Store, ir.AtomicRMW)):
            for e in index_exprs(st.index):
                add(e)
        if isinstance(st, (ir.InlineKernel, ir.TileLoop)):
            for t in st.grid if isinstance(st, ir.InlineKernel) else st.tiles:
                add(t.extent)
                if isinstance(t.block, str):
                    names.add(t.block)
    return names


def _normalize_dims(e: ir.Expr, tensors: dict[str, HTensor]) -> ir.Expr:
    def fix(x: ir.Expr) -> ir.Expr:
        if isinstance(x, ir.SizeOf) and x.dim < 0:
            t = tensors.get(x.tensor)
            if t is not None and t.rank is not None:
                return ir.SizeOf(x.tensor, x.dim + t.rank)
        return x

    def walk(x: ir.Expr) -> ir.Expr:
        x = fix(x)
        changes = {}
        for f in dataclasses.fields(x):
            if f.name == "loc":
                continue
            v = getattr(x, f.name)
            nv = _walk_value(v, walk)
            if nv is not v:
                changes[f.name] = nv
        return dataclasses.replace(x, **changes) if changes else x

    return walk(e)


def _walk_value(v: Any, walk):
    if isinstance(v, ir.Expr):
        return walk(v)
    if isinstance(v, (ir.ScalarIndex, ir.GatherIndex)):
        return type(v)(walk(v.value))
    if isinstance(v, ir.FullIndex) and v.extent is not None:
        return ir.FullIndex(walk(v.extent))
    if isinstance(v, ir.FullDim):
        return ir.FullDim(walk(v.extent))
    if isinstance(v, tuple):
        new = tuple(_walk_value(x, walk) for x in v)
        return v if all(a is b for a, b in zip(new, v)) else new
    return v


def _map_host_stmt(s: ir.Stmt, fix, map_stmt) -> ir.Stmt:
    def index(item: ir.IndexItem) -> ir.IndexItem:
        return _walk_value(item, fix) if not isinstance(item, (ir.TileIndex, ir.NewAxis)) else item

    if isinstance(s, ir.InlineKernel):
        grid = tuple(dataclasses.replace(t, extent=fix(t.extent)) for t in s.grid)
        return dataclasses.replace(
            s,
            grid=grid,
            body=tuple(map_stmt(b, fix, index) for b in s.body),
            partial_dims=tuple(fix(e) for e in s.partial_dims),
        )
    if isinstance(s, ir.Assign):
        return dataclasses.replace(s, value=fix(s.value))
    if isinstance(s, ir.Assert):
        return dataclasses.replace(s, test=fix(s.test))
    if isinstance(s, ir.Alloc) and s.shape is not None:
        return dataclasses.replace(s, shape=tuple(fix(d) for d in s.shape))
    if isinstance(s, ir.View):
        return dataclasses.replace(s, shape=tuple(fix(d) for d in s.shape))
    return s


def _settle_tile_names(entry: ir.Entry) -> ir.Entry:
    """Give a tile back the name a dropped tile held (``tile_k_2`` becomes ``tile_k``).

    The device lifter names a tile when an offset first looks like one, and some turn out not to
    be (split-K's ``pid_k * BLOCK_K + tl.arange(0, BLOCK_K)`` only starts the strided K loop, whose
    tile is the real one); the suffixed name would otherwise spread into every emitted name.
    """
    from translator.ir.visit import walk_stmts

    tiles = [
        t.name
        for s in walk_stmts(entry.body)
        if isinstance(s, (ir.InlineKernel, ir.TileLoop))
        for t in (s.grid if isinstance(s, ir.InlineKernel) else s.tiles)
    ]
    used = names_in(entry)
    mapping: dict[str, str] = {}
    for name in tiles:
        match = re.fullmatch(r"(tile(?:_\w+?)?)_\d+", name)
        if match and match.group(1) not in used and match.group(1) not in mapping.values():
            mapping[name] = match.group(1)
    return rename(entry, mapping)  # type: ignore[return-value]


__all__ = ["parse"]
