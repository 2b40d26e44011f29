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
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from translator.diagnostics import TranslationError
from translator.dialects.common.dtype_facts import with_documented_dtypes
from translator.dialects.common.host_api import HostFunction, api_entries, host_functions
from translator.dialects.common.torch_host import AllocError, read_alloc
from translator.dialects.cst_utils import (
    BINARY_OPERATORS,
    Locator,
    call_args,
    import_aliases,
    is_provenance,
    literal,
    parse_source,
    resolve,
    source_of,
    statement_comments,
    substitute_names,
)
from translator.dialects.cst_utils import names_in as cst_names_in
from translator.dialects.triton.frontend_configs import (
    FunctionRef,
    NotStatic,
    autotune_configs,
    static_value,
)
from translator.dialects.triton.frontend_launch import Launch
from translator.dialects.triton.host_values import (
    HArgs,
    HDevice,
    HDType,
    HFact,
    HGrid,
    HOpaque,
    HScalar,
    HShape,
    HStatic,
    HStride,
    HTensor,
    HTuple,
)
from translator.grammar import load_grammar
from translator.ir import nodes as ir
from translator.ir.outline import OutlineNaming, outline_entry
from translator.ir.printer import format_expr
from translator.ir.renaming import names_in, rename
from translator.ir.shapes import IRTypeError, ScalarType, TensorType, TypeEnv
from translator.ir.verifier import verify, without_ill_typed_facts
from translator.naming import unique

# ==================================================================================================
# Module level


@dataclass
class KernelDef:
    """A ``@triton.jit`` function launched from host code."""

    fn: cst.FunctionDef
    params: list[str]
    constexprs: set[str]
    defaults: dict[str, cst.BaseExpression]
    configs: list[tuple[dict[str, int], dict[str, int]]] | None  # (meta, knobs) per config
    module: ModuleInfo
    # @triton.heuristics, in the order Triton evaluates them (outermost decorator first):
    # meta-parameter -> the body of `lambda args: ...`.
    heuristics: list[tuple[str, cst.BaseExpression, str]] = field(default_factory=list)
    # Host descriptor parameter -> block keys, set by the autotune configs' pre_hook.
    descriptor_blocks: dict[str, tuple] = field(default_factory=dict)
    hook_node: cst.CSTNode | None = None
    # Decorators tiletrans does not read (a library's caching wrapper): kept, outermost first.
    kept_decorators: list[str] = field(default_factory=list)
    # Module-level names the decorators read (a config list, a config function, a hook).
    consumed: set[str] = field(default_factory=set)
    # How the kernel uses each parameter: pointer | stride | int | float | constexpr.
    param_kinds: dict[str, str] = field(default_factory=dict)
    # `tiletrans:` notes on what reading its decorators assumed (for above its translation).
    notes: list[str] = field(default_factory=list)


@dataclass
class ModuleInfo:
    path: str
    module: cst.Module
    aliases: dict[str, str]
    grammar: dict
    locate: Locator
    jit: dict[str, cst.FunctionDef] = field(default_factory=dict)
    jit_helpers: dict[str, cst.FunctionDef] = field(default_factory=dict)
    functions: dict[str, cst.FunctionDef] = field(default_factory=dict)
    constants: dict[str, int | float] = field(default_factory=dict)
    kernels: dict[str, KernelDef] = field(default_factory=dict)
    # Every host function that launches a kernel.
    launch_hosts: list[HostFunction] = field(default_factory=list)
    # Module-level statements by the names they bind (for the host plan's removals).
    statements: dict[str, cst.CSTNode] = field(default_factory=dict)
    # Host statements the translation drops (a kernel's `.warmup(...)`), found while reading them.
    host_edits: list[ir.HostEdit] = field(default_factory=list)


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
    derived = derived_wrappers(wrapper.module, path)
    text = source
    if derived:
        text = source.rstrip("\n") + "\n" + derived
        wrapper = parse_source(text, path)
    module = wrapper.module
    info = ModuleInfo(
        path, module, import_aliases(module), load_grammar("triton"), Locator(wrapper, path)
    )
    _collect(info)
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
                f"the lifted kernel does not type-check: {err}", err.loc
            ) from None
        entries.append(dataclasses.replace(entry, public=public))
        kernels.extend(outlined)
    if not entries:
        raise TranslationError(
            "no function in this file launches a @triton.jit kernel",
            ir.Loc(path, 1, 0),
            "add a wrapper that calls `kernel[grid](...)` and returns the outputs",
        )
    kernels, entries = _merge_variants(kernels, entries)
    entries.extend(api_entries(module, entries, set(info.jit), info.locate))
    entries = with_documented_dtypes(module, entries)
    result = ir.Module(
        path=path,
        entries=tuple(entries),
        kernels=tuple(kernels),
        host=ir.HostPlan(
            source=text,
            sites=tuple(sites),
            edits=tuple(_module_edits(info, kernels)),
            packages=tuple(info.grammar["packages"]),
        ),
        docstring=module.get_docstring(clean=False),
        header_comments=tuple(
            line.comment.value[1:].strip()
            for line in module.header
            if line.comment is not None
            and not line.comment.value.startswith("#!")
            and not is_provenance(line.comment.value)
        ),
        source_hash=hashlib.sha256(source.encode()).hexdigest(),
        source_dialect="triton",
    )
    try:
        verify(result)
    except IRTypeError as err:
        raise TranslationError(f"the lifted kernel does not type-check: {err}", err.loc) from None
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


def _collect(info: ModuleInfo) -> None:
    g = info.grammar["frontend"]
    for stmt in info.module.body:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            info.statements[stmt.name.value] = stmt
        if isinstance(stmt, cst.FunctionDef):
            decorators = [_decorator_name(d, info.aliases) for d in stmt.decorators]
            if g["kernel"]["decorator"] in decorators:
                info.jit[stmt.name.value] = stmt
            else:
                info.functions[stmt.name.value] = stmt
        elif isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if (
                    isinstance(small, cst.Assign)
                    and len(small.targets) == 1
                    and isinstance(small.targets[0].target, cst.Name)
                ):
                    info.statements[small.targets[0].target.value] = stmt
                    value = _const_int(small.value, info.constants)
                    if value is not None:
                        info.constants[small.targets[0].target.value] = value
    launched: set[str] = set()
    for function in host_functions(info.module, skip=info.jit):
        names = _launched_names(function.node) & set(info.jit)
        if names:
            launched |= names
            info.launch_hosts.append(function)
    for name, fn in info.jit.items():
        if name in launched:
            info.kernels[name] = _kernel_def(fn, info)
        else:
            info.jit_helpers[name] = fn


# Tensor methods that return a tensor of the same shape, dtype and values.
_COPIES = frozenset({"contiguous", "clone", "detach"})

# Tensor methods that return a strided view of the same elements in another dim order.
_LAYOUT_VIEWS = frozenset({"transpose", "permute", "swapaxes", "swapdims", "mT", "t"})


def _copies_only(node: cst.If) -> set[str]:
    """Names that every binding inside ``node`` rebinds to a copy of themselves
    (``x = x.contiguous()``)."""
    copies: Counter[str] = Counter()

    class Visitor(cst.CSTVisitor):
        def visit_Assign(self, a: cst.Assign) -> None:
            value = a.value
            for t in a.targets:
                if (
                    isinstance(t.target, cst.Name)
                    and isinstance(value, cst.Call)
                    and isinstance(value.func, cst.Attribute)
                    and isinstance(value.func.value, cst.Name)
                    and value.func.value.value == t.target.value
                    and value.func.attr.value in _COPIES
                    and not value.args
                ):
                    copies[t.target.value] += 1

    node.visit(Visitor())
    bindings = Counter(_bound_names(node))
    return {name for name, n in copies.items() if bindings[name] == n}


def _negated_conjuncts(test: cst.BaseExpression) -> list[cst.BaseExpression] | None:
    """``not test`` as a conjunction of comparisons, for ``if test: raise``: ``a != b or c``
    gives ``[a == b, not c]`` when every disjunct is a single ``!=``/``==`` comparison; else
    ``None``."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.Or):
        left, right = _negated_conjuncts(test.left), _negated_conjuncts(test.right)
        return None if left is None or right is None else left + right
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        comp = test.comparisons[0]
        flipped = {cst.NotEqual: cst.Equal, cst.Equal: cst.NotEqual}.get(type(comp.operator))
        if flipped is not None:
            return [test.with_changes(comparisons=[comp.with_changes(operator=flipped())])]
    return None


def _decorator_name(d: cst.Decorator, aliases: dict[str, str]) -> str | None:
    target = d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator
    return resolve(target, aliases)


def _const_int(node: cst.BaseExpression, constants: dict) -> int | float | None:
    """A module-level number (``BLOCK = 2 ** 10``) from literals and earlier constants."""
    try:
        value = static_value(node, {}, constants)
    except NotStatic:
        return None
    is_number = isinstance(value, (int, float)) and not isinstance(value, bool)
    return value if is_number else None  # type: ignore[return-value]


def _launched_names(fn: cst.FunctionDef) -> set[str]:
    names: set[str] = set()

    class V(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            if isinstance(node.func, cst.Subscript) and isinstance(node.func.value, cst.Name):
                names.add(node.func.value.value)

    fn.visit(V())
    return names


def _kernel_def(fn: cst.FunctionDef, info: ModuleInfo) -> KernelDef:
    g = info.grammar["frontend"]
    params, constexprs, defaults = [], set(), {}
    ps = fn.params
    if ps.star_arg not in (None, cst.MaybeSentinel.DEFAULT) or ps.star_kwarg is not None:
        raise TranslationError(
            "kernels with *args/**kwargs are not supported",
            info.locate(fn),
            "list the kernel's parameters",
        )
    for p in (*ps.posonly_params, *ps.params, *ps.kwonly_params):
        params.append(p.name.value)
        if p.annotation is not None and resolve(p.annotation.annotation, info.aliases) == (
            f"{info.grammar['device_module']}.constexpr"
        ):
            constexprs.add(p.name.value)
        if p.default is not None:
            defaults[p.name.value] = p.default
    configs = None
    hook: FunctionRef | None = None
    heuristics: list[tuple[str, cst.BaseExpression, str]] = []
    kept: list[str] = []
    consumed: set[str] = set()
    config_notes: list[str] = []
    for d in fn.decorators:
        name = _decorator_name(d, info.aliases)
        if name == g["kernel"]["heuristics"]:
            heuristics += _heuristics(d, info)
            continue
        if name == g["kernel"]["autotune"]:
            configs, hook = autotune_configs(d, info, config_notes)
            consumed |= {n for n in cst_names_in(d) if n in info.statements}
        elif name not in (g["kernel"]["decorator"],):
            # A decorator tiletrans does not read (a library's caching or registration
            # wrapper) stays above the translated kernel.
            kept.append(source_of(d.decorator))
    _prescan(fn, info, set())
    for key, _, _ in heuristics:
        if key not in constexprs:
            raise TranslationError(
                f"@triton.heuristics sets `{key}`, which is no tl.constexpr "
                f"parameter of `{fn.name.value}`",
                info.locate(fn),
            )
    kernel = KernelDef(
        fn, params, constexprs, defaults, configs, info, heuristics, kept_decorators=kept,
        consumed=consumed, notes=config_notes,
    )  # fmt: skip
    from translator.dialects.triton.frontend_wrapper import param_kinds

    kernel.param_kinds = param_kinds(fn, info.aliases)
    if hook is not None:
        from translator.dialects.triton.frontend_descriptors import block_shape_hook

        kernel.descriptor_blocks = block_shape_hook(info.functions[hook.name], info)
        kernel.hook_node = hook.node
    return kernel


def _heuristics(d: cst.Decorator, info: ModuleInfo) -> list[tuple[str, cst.BaseExpression, str]]:
    """``@triton.heuristics({"NAME": lambda args: expr, ...})``: (name, expr, args name)."""
    call = d.decorator
    args, kwargs = call_args(call) if isinstance(call, cst.Call) else ([], {})
    table = args[0] if args else kwargs.get("values")
    if not isinstance(table, cst.Dict):
        raise TranslationError(
            "@triton.heuristics needs a dict literal of lambdas",
            info.locate(d),
            'write @triton.heuristics({"NAME": lambda args: ...})',
        )
    out = []
    for el in table.elements:
        if not isinstance(el, cst.DictElement) or not isinstance(el.key, cst.SimpleString):
            raise TranslationError(
                "@triton.heuristics keys must be string literals", info.locate(el)
            )
        fn = el.value
        if not isinstance(fn, cst.Lambda) or len(fn.params.params) != 1:
            raise TranslationError(
                "a heuristic must be `lambda args: ...`",
                info.locate(fn),
                'compute the value from args["NAME"] in a lambda',
            )
        out.append((literal(el.key), fn.body, fn.params.params[0].name.value))
    return out


def _prescan(fn: cst.FunctionDef, info: ModuleInfo, seen: set[str]) -> None:
    """Refuse constructs this slice does not lift, at their first use in a kernel or its helpers,
    before any host code is interpreted (so the diagnostic names the real reason)."""
    seen.add(fn.name.value)
    lang = info.grammar["device_module"] + "."
    unsupported = info.grammar["frontend"]["unsupported"]
    calls: list[cst.Call] = []
    whiles: list[cst.While] = []

    class V(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            calls.append(node)

        def visit_While(self, node: cst.While) -> None:
            whiles.append(node)

    fn.body.visit(V())
    for call in calls:
        name = resolve(call.func, info.aliases) or ""
        if (
            isinstance(call.func, cst.Name)
            and call.func.value in info.jit
            and (call.func.value not in seen)
        ):
            _prescan(info.jit[call.func.value], info, seen)
        if name.startswith(lang):
            short = name[len(lang) :].removeprefix("math.")
            reason = unsupported.get(lang + short)  # keyed by dotted names
            if reason is not None:
                raise TranslationError(
                    f"`tl.{short}` is not supported yet", info.locate(call), reason
                )
    if whiles:
        # Refused after the calls (a pointer table is the deeper reason in a grouped GEMM) and
        # before its body's values (program-dependent bounds, num_programs) are
        # met one by one with reasons that would hide this one.
        raise TranslationError(
            "a `while` loop in a kernel: its trip count is decided as each program runs, and "
            "the IR's loops run a trip count the launch fixes",
            info.locate(whiles[0]),
            "loop with `for i in range(...)` over bounds the host can compute. A Stream-K "
            "schedule (persistent programs each taking an equal share of all tiles' K "
            "iterations, partial tiles summed with atomics) has no form in the IR or in "
            "Helion, whose programs own whole tiles: write the data-parallel GEMM (Helion "
            "`for tile_m, tile_n in hl.tile([m, n])`, persistent with "
            '`pid_type="persistent_blocked"` in its config), or split-K over a fixed number '
            "of K splits with atomics",
        )


# ==================================================================================================
# Host values


# ==================================================================================================
# Entries


class EntryBuilder:
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
        order of sums and products (compared as polynomials over their atoms)."""
        from translator.dialects.triton import frontend_affine as af

        ca, cb = self.canonical(a), self.canonical(b)
        if format_expr(ca) == format_expr(cb):
            return True
        atoms = af.Atoms()
        return af.same_poly(af.poly(ca, atoms), af.poly(cb, atoms))

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
        for name in _bound_names(node):
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
            if k in ("derived_wrapper", "rank_specialized", "constexpr")
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
                out.append(ir.Param(name, "object", None, annotation))
                self.names.add(name)
                self.scope[name] = HOpaque(f"`{name}` is no tensor or scalar")
                continue
            if p.default is not None:
                try:
                    value = literal(p.default)
                except ValueError:
                    out.append(ir.Param(name, "object", None, annotation))
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
                    out.append(ir.Param(name, "object", None, annotation))
                    self.names.add(name)
                    self.scope[name] = HOpaque(f"`{name}` may be None")
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
                t = HTensor(name, name, ir.DTypeOf(name), guessed=annotation is None)
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

    def host_block(self, nodes: list[cst.BaseStatement]) -> HTuple | Any:
        """Host statements; returns the value of a trailing ``return`` in helper functions."""
        for node in nodes:
            comments = statement_comments(node)
            if comments:
                self.pending_comments.extend(comments)
            if isinstance(node, cst.SimpleStatementLine):
                if self.kernel_warmup(node):
                    continue
                for small in node.body:
                    r = self._modelled(lambda small=small: self.host_small(small), small)
                    if r is not _NO_RETURN and r is not None:
                        return r
                continue
            if isinstance(node, cst.If):
                if not self._modelled(lambda node=node: self.host_if(node) or True, None):
                    self.host_branches(node)
                continue
            if isinstance(node, cst.FunctionDef):
                self._modelled(lambda node=node: self.host_def(node) or True, node)
                continue
            self.host_compound(node)
        return _NO_RETURN

    def _modelled(self, step, carried_node: cst.CSTNode | None) -> Any:
        """Run ``step`` (the model of one host statement); where the frontend cannot model it,
        the statement is carried instead: its IR is undone and the names it binds go opaque.

        Returns ``step``'s result, or ``None`` where the statement was carried. Refusals of
        device code (a launched kernel the frontend cannot lift) are not host code and pass."""
        from translator.dialects.triton.lifted import Refusal

        mark = (len(self.body), list(self.pending_comments), dict(self.scope))
        try:
            return step()
        except Refusal:
            raise
        except TranslationError as err:
            if getattr(err, "device", False):
                raise
            del self.body[mark[0] :]
            self.pending_comments = mark[1]
            self.scope = mark[2]
            if carried_node is not None:
                self.carried(carried_node, err)
            return None

    def host_branches(self, node: cst.If) -> None:
        """A host ``if`` the frontend does not model as a whole: each branch is read in turn (its
        launches lifted with what is known there); names any branch binds are opaque after."""
        self.complete = False
        before = dict(self.scope)
        branch: cst.CSTNode | None = node
        while branch is not None:
            suite = branch.body if isinstance(branch, (cst.If, cst.Else)) else None
            if isinstance(suite, cst.IndentedBlock):
                saved = dict(self.scope)
                self.host_block(list(suite.body))
                self.scope = saved
            branch = branch.orelse if isinstance(branch, cst.If) else None
        self.carried(node)
        self.keep_copied_tensors(node, before)

    def host_compound(self, node: cst.BaseStatement) -> None:
        """``with``, loops, ``try`` and other compound statements: carried as written; their
        bodies are read for launches (a ``with torch.cuda.device(x.device):`` around one)."""
        self.complete = False
        if isinstance(node, cst.With):
            for item in node.items:
                if item.asname is not None:
                    for name in _bound_names(item.asname):
                        self.scope[name] = HOpaque(f"`{name}` is bound by a `with`")
            if isinstance(node.body, cst.IndentedBlock):
                self.host_block(list(node.body.body))
            return
        if isinstance(node, (cst.For, cst.While, cst.Try)):
            self.carried(node)  # loop-carried names are unknown inside the body too
            if isinstance(node.body, cst.IndentedBlock):
                saved = dict(self.scope)
                self.host_block(list(node.body.body))
                self.scope = saved
            self.carried(node)
            return
        self.carried(node)

    def host_def(self, node: cst.FunctionDef) -> None:
        """A local ``def grid(meta): return (...)``: a grid function, like a lambda."""
        body = (
            list(node.body.body)
            if isinstance(node.body, cst.IndentedBlock)
            else list(node.body.body)
        )
        if node.get_docstring() is not None:
            body = body[1:]
        ret = body[-1] if body else None
        if (
            not (
                isinstance(ret, cst.SimpleStatementLine)
                and len(ret.body) == 1
                and isinstance(ret.body[0], cst.Return)
                and ret.body[0].value is not None
            )
            or node.decorators
        ):
            raise self.error(
                node,
                f"local function `{node.name.value}` is not a grid function",
                "define launch grids as `def grid(meta): return (...)` or a lambda",
            )
        # `BLOCK_M = META["BLOCK_SIZE_M"]` before the return: names for parts of the grid,
        # substituted into it (each may use the ones before).
        local: dict[str, cst.BaseExpression] = {}
        for stmt in body[:-1]:
            small = (
                stmt.body[0]
                if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
                else None
            )
            if not (
                isinstance(small, cst.Assign)
                and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Name)
            ):
                raise self.error(
                    stmt,
                    f"unsupported statement in the grid function `{node.name.value}`",
                    "a grid function may only name values "
                    '(`BLOCK_M = META["BLOCK_M"]`) and return the grid',
                )
            local[small.targets[0].target.value] = substitute_names(small.value, local)
        ps = node.params
        params = tuple(p.name.value for p in (*ps.posonly_params, *ps.params))
        self.scope[node.name.value] = HGrid(
            params, substitute_names(ret.body[0].value, local), node
        )

    def host_small(self, node: cst.BaseSmallStatement) -> Any:
        if isinstance(node, cst.Assign):
            if len(node.targets) != 1:
                raise self.error(node, "chained assignment is not supported")
            self.host_assign(node.targets[0].target, node.value, node)
        elif isinstance(node, cst.AnnAssign) and node.value is not None:
            self.host_assign(node.target, node.value, node)
        elif isinstance(node, cst.Assert):
            self.host_assert(node)
        elif isinstance(node, cst.Expr):
            v = node.value
            if isinstance(v, (cst.SimpleString, cst.ConcatenatedString)):
                return _NO_RETURN
            if isinstance(v, cst.Call) and isinstance(v.func, cst.Subscript):
                self.launch(v)
                return _NO_RETURN
            if self.is_runtime_setup(v):
                self.note(
                    f"tiletrans: dropped `{self.src(v)}`: runtime setup that cannot change results"
                )
                return _NO_RETURN
            if (
                isinstance(v, cst.Call)
                and isinstance(v.func, cst.Attribute)
                and (v.func.attr.value == "copy_")
            ):
                self.copy_into(v)
                return _NO_RETURN
            raise self.error(node, f"unsupported host statement `{self.src(node)[:60]}`")
        elif isinstance(node, cst.Return):
            if self.depth:
                # A helper's result is named after what the caller assigns it to.
                return (
                    self.hval(node.value, self.result_names[-1])
                    if node.value is not None
                    else HStatic(None)
                )
            self.host_return(node)
        elif isinstance(node, cst.Pass):
            pass
        elif isinstance(node, cst.Raise):
            self.complete = False
        else:
            raise self.error(node, f"unsupported host statement `{self.src(node)[:60]}`")
        return _NO_RETURN

    def kernel_warmup(self, line: cst.SimpleStatementLine) -> bool:
        """``kernel.warmup(...)`` (or ``compiled = kernel.warmup(...)`` with ``compiled`` unused):
        it compiles the Triton kernel ahead of its first launch and cannot change results. The
        translation drops the line (a target kernel compiles at its first call) and says so."""
        if len(line.body) != 1:
            return False
        small = line.body[0]
        target = None
        if isinstance(small, cst.Assign) and len(small.targets) == 1:
            target, value = small.targets[0].target, small.value
        elif isinstance(small, cst.Expr):
            value = small.value
        else:
            return False
        if not (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Attribute)
            and value.func.attr.value == "warmup"
            and isinstance(value.func.value, cst.Name)
            and value.func.value.value in self.info.jit
        ):
            return False
        if target is not None:
            if not isinstance(target, cst.Name):
                raise self.error(
                    small, "unpacking the result of a kernel's warmup is not supported"
                )
            rest = self.fn.deep_remove(line)
            if rest is not None and target.value in cst_names_in(rest):
                raise self.error(
                    small,
                    f"`{target.value}`, the compiled kernel `{self.src(value)[:40]}` returns, is "
                    "used: the translation has no Triton compiled kernel to give it",
                    "launch the kernel with kernel[grid](...) and drop the warmup",
                )
        kernel = value.func.value.value
        self.info.host_edits.append(
            ir.HostEdit(
                "remove",
                self.locate.span(line),
                note=(
                    f"tiletrans: dropped `{self.src(small)}`: it compiles the Triton kernel "
                    f"`{kernel}` ahead of its first launch; the translation compiles at its first "
                    "call"
                ),
            )
        )
        return True

    def is_runtime_setup(self, node: cst.BaseExpression) -> bool:
        """A call that only configures the runtime (``triton.set_allocator``)."""
        return (
            isinstance(node, cst.Call)
            and resolve(node.func, self.aliases)
            in self.grammar["frontend"]["host"]["runtime_setup"]
        )

    def copy_into(self, node: cst.Call) -> None:
        """``buf.copy_(x)`` into a buffer just allocated with ``x``'s shape: from here on ``buf``
        holds ``x``'s values in another layout, which the IR (logical indexing) reads as ``x``."""
        assert isinstance(node.func, cst.Attribute)
        buf, args = self.hval(node.func.value), [a.value for a in node.args]
        src = self.hval(args[0]) if len(args) == 1 else None
        target = node.func.value
        fresh = [
            i
            for i, s in enumerate(self.body)
            if isinstance(s, ir.Alloc) and isinstance(buf, HTensor) and s.target == buf.name
        ]
        if not (
            isinstance(buf, HTensor)
            and isinstance(src, HTensor)
            and isinstance(target, cst.Name)
            and fresh
            and fresh[-1] == len(self.body) - 1
            and self._same_shape(buf, src)
        ):
            raise self.error(
                node,
                f"unsupported in-place copy `{self.src(node)}`",
                "copy only into a buffer allocated just before with the source's "
                "shape (a re-pitched copy)",
            )
        dropped = self.body.pop()
        self.pending_comments[:0] = dropped.comments
        self.note(
            f"tiletrans: `{buf.source}` is a re-laid-out copy of `{src.source}`, read as "
            f"`{src.source}` (the IR indexes tensors logically)"
        )
        self.scope[target.value] = dataclasses.replace(src, copy=True)

    def _same_shape(self, a: HTensor, b: HTensor) -> bool:
        if a.rank is None or a.rank != b.rank:
            return False
        return all(
            self.same_value(ir.SizeOf(a.name, d), ir.SizeOf(b.name, d)) for d in range(a.rank)
        )

    def host_if(self, node: cst.If) -> None:
        body = list(node.body.body) if isinstance(node.body, cst.IndentedBlock) else []
        default = _none_default(node)
        if default is not None:
            # `if x is None: x = e` for an optional parameter.
            name, value_node = default
            current = self.scope.get(name)
            value = self.hval(value_node)
            if isinstance(current, HScalar) and isinstance(value, HScalar):
                self.bind(
                    name, HScalar(ir.Call("if_none", (current.expr, value.expr)), value.kind), node
                )
                return
        if (
            node.orelse is None
            and body
            and all(
                isinstance(st, cst.SimpleStatementLine)
                and all(isinstance(s, cst.Expr) and self.is_runtime_setup(s.value) for s in st.body)
                for st in body
            )
        ):
            self.note(
                f"tiletrans: dropped `if {self.src(node.test)}: ...`: runtime setup that "
                "cannot change results"
            )
            return
        if (
            node.orelse is None
            and len(body) == 1
            and isinstance(body[0], cst.SimpleStatementLine)
            and isinstance(body[0].body[0], cst.Raise)
        ):
            # `if cond: raise E(msg)` is an assert of `not cond`.
            raise_node = body[0].body[0]
            msg = None
            exc = raise_node.exc
            if isinstance(exc, cst.Call) and exc.args:
                msg = self.message(exc.args[0].value)
            self.note(f"tiletrans: was `if {self.src(node.test)}: raise ...`")
            parts = _negated_conjuncts(node.test)
            if parts is not None:
                # `if x.shape != (a, b) or n != m: raise`: what each assert would prove (ranks,
                # equal sizes), as `assert x.shape == (a, b)` and `assert n == m` do.
                for part in parts:
                    self.assert_part(part, msg, node)
                return
            test = self.scalar(node.test)
            self.emit(ir.Assert(ir.UnaryOp("not", test), msg, loc=self.locate(node)))
            return
        # Branches that only assign: the names become opaque (launch knobs such as num_warps).
        assigned: list[str] = []
        branch: cst.CSTNode | None = node
        while branch is not None:
            suite = branch.body if isinstance(branch, (cst.If, cst.Else)) else None
            for st in suite.body if isinstance(suite, cst.IndentedBlock) else []:
                if not (
                    isinstance(st, cst.SimpleStatementLine)
                    and all(
                        isinstance(s, cst.Assign)
                        and all(isinstance(t.target, cst.Name) for t in s.targets)
                        for s in st.body
                    )
                ):
                    raise self.error(
                        st,
                        "host branches may only assign values (or raise)",
                        "compute launch parameters with expressions",
                    )
                for s in st.body:
                    for t in s.targets:  # type: ignore[union-attr]
                        assigned.append(t.target.value)  # type: ignore[union-attr]
            branch = branch.orelse if isinstance(branch, cst.If) else None
        before = dict(self.scope)
        for name in assigned:
            self.scope[name] = HOpaque(f"`{name}` is assigned in a branch of a host `if`")
        self.keep_copied_tensors(node, before)

    def keep_copied_tensors(self, node: cst.If, before: dict[str, Any]) -> None:
        """`if x.stride(-1) != 1: x = x.contiguous()`: whichever branch ran, ``x`` has the shape
        it had (and the layout it was known to have before, the weaker fact)."""
        for name in _copies_only(node):
            if isinstance(before.get(name), HTensor):
                self.scope[name] = before[name]

    def host_assign(
        self, target: cst.BaseExpression, value_node: cst.BaseExpression, node: cst.CSTNode
    ) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            names = [e.value for e in target.elements]
            if not all(isinstance(n, cst.Name) for n in names):
                raise self.error(node, "unpack into plain names")
            value = self.hval(value_node)
            if isinstance(value, HShape):
                self.shape_unpack([n.value for n in names], value.tensor, node)  # type: ignore
                return
            if isinstance(value, HTuple) and len(value.items) == len(names):
                for n, v in zip(names, value.items):
                    self.bind(n.value, v, node)  # type: ignore[union-attr]
                return
            if isinstance(value, HOpaque):
                for n in names:
                    self.scope[n.value] = value  # type: ignore[union-attr]
                return
            raise self.error(node, f"cannot unpack `{self.src(value_node)}`")
        if not isinstance(target, cst.Name):
            raise self.error(node, f"unsupported assignment target `{self.src(target)}`")
        self.bind(target.value, self.hval(value_node, target.value), node)

    def bind(self, name: str, value: Any, node: cst.CSTNode) -> None:
        if isinstance(value, HScalar):
            if (
                isinstance(value.expr, ir.Name)
                and value.expr.id in self.names
                and not (value.expr.id.startswith("?"))
            ):
                self.scope[name] = value
                return
            irname = self.fresh(name)
            self.canon[irname] = value.expr
            self.emit(ir.Assign(irname, value.expr, loc=self.locate(node)))
            self.types.vars[irname] = ScalarType(
                ir.F32 if value.kind == "float" else ir.BOOL if value.kind == "bool" else ir.I32,
                weak=True,
            )
            self.scope[name] = HScalar(ir.Name(irname), value.kind)
            return
        if isinstance(value, HTensor):
            self.scope[name] = value
            return
        self.scope[name] = value

    def shape_unpack(self, names: list[str], t: HTensor, node: cst.CSTNode) -> None:
        if t.rank is not None and t.rank != len(names):
            raise self.error(node, f"`{t.source}` has {t.rank} dims, unpacked into {len(names)}")
        self.set_rank(t, len(names))
        targets: list[str | None] = []
        for i, n in enumerate(names):
            if n == "_":
                targets.append(None)
                continue
            irname = self.fresh(n)
            targets.append(irname)
            self.canon[irname] = ir.SizeOf(t.name, i)
            self.scope[n] = HScalar(ir.Name(irname))
        self.emit(ir.ShapeUnpack(tuple(targets), t.name, loc=self.locate(node)))

    def host_return(self, node: cst.Return) -> None:
        loc = self.locate(node)
        if node.value is None:
            self.emit(ir.Return(None, loc=loc))
            return
        items = node.value.elements if isinstance(node.value, cst.Tuple) else None
        values = (
            [self.return_item(e.value) for e in items]
            if items is not None
            else [self.return_item(node.value)]
        )
        value: ir.Expr = ir.TupleExpr(tuple(values)) if items is not None else values[0]
        self.emit(ir.Return(value, loc=loc))

    def return_item(self, node: cst.BaseExpression) -> ir.Expr:
        v = self.hval(node, "out")
        if isinstance(v, HTensor):
            return ir.Name(v.name)
        if isinstance(v, HScalar) and isinstance(v.expr, ir.Name):
            return v.expr
        raise self.error(
            node, f"cannot return `{self.src(node)}`", "return host tensors or sizes by name"
        )

    # ------------------------------------------------------------------ asserts

    def message(self, node: cst.BaseExpression) -> str:
        """An assert message as entry-level source: inside an inlined helper, whose names the
        entry does not have, an f-string becomes the literal text of its template."""
        if self.depth and not isinstance(node, cst.SimpleString):
            return repr(source_of(node).lstrip("fF").strip("\"'"))
        return source_of(node)

    def host_assert(self, node: cst.Assert) -> None:
        msg = self.message(node.msg) if node.msg is not None else None
        for part in _conjuncts(node.test):
            self.assert_part(part, msg, node)

    def assert_part(self, test: cst.BaseExpression, msg: str | None, node: cst.Assert) -> None:
        loc = self.locate(node)
        text = self.src(test)
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
            comp = test.comparisons[0]
            lhs, rhs = self.hval(test.left), self.hval(comp.comparator)
            lhs, rhs = (
                HFact(f"stride{v.dim}", v.tensor) if isinstance(v, HStride) else v
                for v in (lhs, rhs)
            )
            if isinstance(lhs, HDType) and isinstance(rhs, HDType):
                lhs = HFact("dtype")
            if isinstance(comp.operator, cst.Equal):
                if isinstance(lhs, HFact) or isinstance(rhs, HFact):
                    fact = lhs if isinstance(lhs, HFact) else rhs
                    other = rhs if fact is lhs else lhs
                    if (
                        fact.kind == "dim"
                        and isinstance(other, HScalar)
                        and isinstance(other.expr, ir.Const)
                    ):
                        assert fact.tensor is not None
                        self.require_rank(fact.tensor, int(other.expr.value), node, text)
                        return
                    if (
                        fact.kind.startswith("stride")
                        and isinstance(other, HScalar)
                        and (other.expr == ir.Const(1))
                    ):
                        assert fact.tensor is not None
                        d = int(fact.kind[6:])
                        if d == -1 or (fact.tensor.rank is not None and d == fact.tensor.rank - 1):
                            fact.tensor.unit_last = True
                        self.note(
                            f"tiletrans: dropped `assert {text}`: the IR indexes tensors "
                            "logically, so this layout check only rejects inputs"
                        )
                        return
                    if fact.kind == "dtype":
                        self.note(
                            f"tiletrans: dropped `assert {text}`: dtype checks are not "
                            "expressible in the IR; it only rejects inputs"
                        )
                        return
                if isinstance(lhs, HShape) and isinstance(rhs, HShape):
                    a, b = lhs.tensor, rhs.tensor
                    if a.rank is None and b.rank is not None:
                        a.rank = b.rank
                    elif b.rank is None and a.rank is not None:
                        b.rank = a.rank
                    self.emit(
                        ir.Assert(
                            ir.BinOp("==", ir.ShapeOf(a.name), ir.ShapeOf(b.name)), msg, loc=loc
                        )
                    )
                    return
                if (
                    isinstance(lhs, HTuple)
                    and isinstance(rhs, HTuple)
                    and len(lhs.items) == len(rhs.items)
                    and all(isinstance(x, HScalar) for x in lhs.items + rhs.items)
                ):
                    for a, b in zip(lhs.items, rhs.items):
                        self.emit(ir.Assert(ir.BinOp("==", a.expr, b.expr), msg, loc=loc))
                    return
                if isinstance(lhs, HShape) and isinstance(rhs, HTuple):
                    t = lhs.tensor
                    self.require_rank(t, len(rhs.items), node, text)
                    for i, item in enumerate(rhs.items):
                        if not isinstance(item, HScalar):
                            raise self.error(test, f"cannot compare the shape of `{t.source}`")
                        self.emit(
                            ir.Assert(ir.BinOp("==", ir.SizeOf(t.name, i), item.expr), msg, loc=loc)
                        )
                        self.equal_sizes(item.expr, ir.SizeOf(t.name, i))
                    return
            if (
                isinstance(comp.operator, cst.In)
                and isinstance(lhs, HScalar)
                and isinstance(rhs, (HTuple,))
                and all(isinstance(i, HScalar) for i in rhs.items)
            ):
                cond: ir.Expr | None = None
                for item in rhs.items:
                    eq = ir.BinOp("==", lhs.expr, item.expr)
                    cond = eq if cond is None else ir.BinOp("or", cond, eq)
                if cond is not None:
                    self.emit(ir.Assert(cond, msg, loc=loc))
                    return
            if isinstance(lhs, HScalar) and isinstance(rhs, HScalar):
                op = {
                    cst.Equal: "==",
                    cst.NotEqual: "!=",
                    cst.LessThan: "<",
                    cst.LessThanEqual: "<=",
                    cst.GreaterThan: ">",
                    cst.GreaterThanEqual: ">=",
                }.get(type(comp.operator))
                if op is not None:
                    self.emit(ir.Assert(ir.BinOp(op, lhs.expr, rhs.expr), msg, loc=loc))
                    if op == "==":
                        self.equal_sizes(lhs.expr, rhs.expr)
                    if (
                        op in (">", ">=")
                        and isinstance(rhs.expr, ir.Const)
                        and (rhs.expr.value > 0 or (op == ">" and rhs.expr.value == 0))
                    ):
                        self.positive.add(format_expr(lhs.expr))
                    return
        v = self.hval(test)
        if isinstance(v, HFact) and v.kind == "contiguous":
            assert v.tensor is not None
            v.tensor.contiguous = v.tensor.unit_last = True
            self.note(
                f"tiletrans: dropped `assert {text}`: the IR indexes tensors logically, "
                "so this layout check only rejects inputs"
            )
            return
        if isinstance(v, HScalar) and v.kind == "bool":
            self.emit(ir.Assert(v.expr, msg, loc=loc))
            return
        raise self.error(
            test,
            f"cannot express `assert {text}` in the IR",
            "assert sizes (x.shape[i] == n), shapes (x.shape == y.shape), ranks "
            "(x.dim() == 2) or layouts (x.is_contiguous())",
        )

    def named_size(self, e: ir.Expr) -> ir.Expr:
        """``e`` as the wrapper's name for that size (``M`` of ``M, K = a.shape``), if any."""
        for v in self.scope.values():
            if (
                isinstance(v, HScalar)
                and isinstance(v.expr, ir.Name)
                and isinstance(self.canon.get(v.expr.id), ir.SizeOf)
                and self.same_value(v.expr, e)
            ):
                return v.expr
        return e

    def equal_sizes(self, a: ir.Expr, b: ir.Expr) -> None:
        """After ``assert a.shape[i] == b.shape[j]``: the two sizes are one value (a kernel may
        bound a tile by either, as host descriptors over `a` and `b` do)."""
        ca, cb = self.canonical(a), self.canonical(b)
        if isinstance(cb, ir.SizeOf) and ca != cb and ((cb.tensor, cb.dim) not in self.size_canon):
            self.size_canon[(cb.tensor, cb.dim)] = ca

    def set_rank(self, t: HTensor, rank: int) -> None:
        """``t`` has ``rank`` dims, and so has each tensor it was re-laid-out from."""
        t.rank = rank
        x = t.rank_like
        while x is not None and x.rank is None:
            # Stated in the IR too, so that what reads the entry (input synthesis) knows it.
            x.rank = rank
            self.emit(ir.ShapeUnpack((None,) * rank, x.name))
            x = x.rank_like

    def require_rank(self, t: HTensor, rank: int, node: cst.CSTNode, text: str) -> None:
        if t.rank is not None and t.rank != rank:
            raise self.error(node, f"`{t.source}` has {t.rank} dims here, not {rank}")
        self.set_rank(t, rank)
        self.emit(
            ir.ShapeUnpack(
                (None,) * rank,
                t.name,
                comments=(f"tiletrans: rank check of `assert {text}`",),
                loc=self.locate(node),
            )
        )

    # ------------------------------------------------------------------ host expressions

    def scalar(self, node: cst.BaseExpression) -> ir.Expr:
        v = self.hval(node)
        if isinstance(v, HScalar):
            return v.expr
        if isinstance(v, HOpaque):
            raise self.error(
                node, f"`{self.src(node)}` cannot be evaluated by the frontend: {v.why}"
            )
        raise self.error(node, f"`{self.src(node)}` is not a host scalar")

    def hval(self, node: cst.BaseExpression, target: str | None = None) -> Any:
        """The host value of ``node``; tensor-producing calls emit their IR statements.

        Within one launch, a call written twice (`x.reshape(-1)` passed with its own
        `x.reshape(-1).stride(0)`) is one value."""
        if isinstance(node, cst.Call) and self.launch_values is not None:
            key = self.src(node)
            if key not in self.launch_values:
                self.launch_values[key] = self._hval(node, target)
            return self.launch_values[key]
        return self._hval(node, target)

    def _hval(self, node: cst.BaseExpression, target: str | None = None) -> Any:
        if isinstance(node, cst.Name):
            if node.value in ("True", "False"):
                return HScalar(ir.Const(node.value == "True"), "bool")
            if node.value == "None":
                return HStatic(None)
            if node.value in self.scope:
                return self.scope[node.value]
            if node.value in self.info.constants:
                c = self.info.constants[node.value]
                return HScalar(ir.Const(c), "float" if isinstance(c, float) else "int")
            if node.value in self.info.functions:
                return HStatic(("function", node.value))
            self.refuse_unsupported(node, resolve(node, self.aliases))
            raise self.error(node, f"`{node.value}` is not defined in the wrapper")
        if isinstance(node, (cst.Integer, cst.Float)):
            v = node.evaluated_value
            return HScalar(ir.Const(v), "float" if isinstance(v, float) else "int")
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
            value = node.evaluated_value
            return HScalar(ir.Const(value), "str") if isinstance(value, str) else HStatic(value)
        if isinstance(node, cst.Tuple | cst.List | cst.Set):
            return HTuple(tuple(self.hval(e.value) for e in node.elements), node)
        if isinstance(node, cst.Lambda):
            return HGrid(tuple(p.name.value for p in node.params.params), node.body, node)
        if isinstance(node, cst.Attribute):
            return self.attribute(node)
        if isinstance(node, cst.Subscript):
            return self.subscript(node, target)
        if isinstance(node, cst.Call):
            return self.host_call(node, target)
        if isinstance(node, cst.BinaryOperation):
            return self.arith(node)
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
            v = self.hval(node.expression)
            if isinstance(v, HScalar):
                if isinstance(v.expr, ir.Const):
                    return HScalar(ir.Const(-v.expr.value), v.kind)
                return HScalar(ir.UnaryOp("-", v.expr), v.kind)
            return HOpaque(f"`{self.src(node)}`")
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            v = self.hval(node.expression)
            if isinstance(v, HScalar):
                return HScalar(ir.UnaryOp("not", v.expr), "bool")
            return HOpaque(f"`{self.src(node)}`")
        if isinstance(node, cst.Comparison) and len(node.comparisons) == 1:
            comp = node.comparisons[0]
            a, b = self.hval(node.left), self.hval(comp.comparator)
            op = {
                cst.Equal: "==",
                cst.NotEqual: "!=",
                cst.LessThan: "<",
                cst.LessThanEqual: "<=",
                cst.GreaterThan: ">",
                cst.GreaterThanEqual: ">=",
            }.get(type(comp.operator))
            if op and isinstance(a, HScalar) and isinstance(b, HScalar):
                return HScalar(ir.BinOp(op, a.expr, b.expr), "bool")
            return HOpaque(f"`{self.src(node)}`")
        if isinstance(node, cst.BooleanOperation):
            a, b = self.hval(node.left), self.hval(node.right)
            if isinstance(a, HScalar) and isinstance(b, HScalar):
                op = "and" if isinstance(node.operator, cst.And) else "or"
                return HScalar(ir.BinOp(op, a.expr, b.expr), "bool")
            return HOpaque(f"`{self.src(node)}`")
        if isinstance(node, cst.IfExp):
            test, a, b = (self.hval(x) for x in (node.test, node.body, node.orelse))
            if all(isinstance(x, HScalar) for x in (test, a, b)) and a.kind == b.kind:
                return HScalar(ir.Call("where", (test.expr, a.expr, b.expr)), a.kind)
            return HOpaque(f"the conditional `{self.src(node)}`")
        return HOpaque(f"`{self.src(node)[:50]}`")

    def refuse_unsupported(self, node: cst.Name | cst.Attribute, name: str | None) -> None:
        """Raise the grammar's diagnostic if ``name`` (what ``node`` resolves to) is something
        the frontend refuses (``[frontend.unsupported_host]``)."""
        g = self.grammar["frontend"]
        reason = g["unsupported_host"].get(name)
        if reason is not None:
            what, instead = g["unsupported_host_reasons"][reason]
            raise self.error(node, what.format(name=name), instead.format(name=name))

    def attribute(self, node: cst.Attribute) -> Any:
        name = resolve(node, self.aliases)
        self.refuse_unsupported(node, name)
        if name is not None and name.startswith("torch."):
            dt = self.dtype_from_name(name, "torch")
            if dt is not None:
                return HDType(dt)
        base = self.hval(node.value)
        attr = node.attr.value
        if isinstance(base, HTensor):
            if attr == "shape":
                return HShape(base)
            if attr == "dtype":
                return HDType(base.cast or self.tensor_dtype(base))
            if attr == "device":
                return HDevice(base)
            if attr == "ndim":
                return HFact("dim", base)
            if attr == "is_cuda":
                return HOpaque("the device of an input")
            if attr == "T":
                raise self.error(node, "transposed host tensors are not supported yet")
        if isinstance(base, HDType) and attr == "itemsize":
            return HOpaque("the element size of a dtype", 1, 8)
        return HOpaque(f"`{self.src(node)}`")

    def tensor_dtype(self, t: HTensor) -> ir.DTypeExpr:
        return t.dtype

    def subscript(self, node: cst.Subscript, target: str | None = None) -> Any:
        inner = node.value
        if isinstance(inner, cst.Call) and any(isinstance(s.slice, cst.Slice) for s in node.slice):
            fn = resolve(inner.func, self.aliases)
            if fn in self.grammar["frontend"]["host_alloc"] and "like" not in (fn or ""):
                return self.alloc(inner, fn, target, logical=list(node.slice))
        base = self.hval(node.value)
        if (
            isinstance(base, (HShape, HTuple))
            and len(node.slice) == 1
            and isinstance(node.slice[0].slice, cst.Index)
        ):
            idx = self.hval(node.slice[0].slice.value)
            if isinstance(idx, HScalar) and isinstance(idx.expr, ir.Const):
                i = int(idx.expr.value)
                if isinstance(base, HShape):
                    t = base.tensor
                    if t.rank is not None and i < 0:
                        i += t.rank
                    return HScalar(ir.SizeOf(t.name, i))
                return base.items[i]
        if (
            isinstance(base, HShape)
            and len(node.slice) == 1
            and isinstance(node.slice[0].slice, cst.Slice)
        ):
            sl = node.slice[0].slice
            bounds = [self.hval(b) if b is not None else None for b in (sl.lower, sl.upper)]
            rank = base.tensor.rank
            if (
                sl.step is None
                and all(
                    b is None or (isinstance(b, HScalar) and isinstance(b.expr, ir.Const))
                    for b in bounds
                )
                and (rank is not None or bounds[1] is not None and bounds[1].expr.value >= 0)
            ):
                lo = int(bounds[0].expr.value) if bounds[0] is not None else 0
                hi = int(bounds[1].expr.value) if bounds[1] is not None else rank
                if rank is not None:
                    lo, hi = (x + rank if x < 0 else x for x in (lo, hi))
                return HTuple(tuple(HScalar(ir.SizeOf(base.tensor.name, i)) for i in range(lo, hi)))
        if isinstance(base, HShape):
            raise self.error(
                node,
                f"`{self.src(node)}`: this slice of a shape is not supported",
                "index the shape with constants, or slice it with constant bounds",
            )
        if isinstance(base, HStatic) and base.value == "meta":
            raise self.error(node, "`meta[...]` outside a grid lambda")
        if (
            isinstance(base, HArgs)
            and len(node.slice) == 1
            and isinstance(node.slice[0].slice, cst.Index)
        ):
            key = self.hval(node.slice[0].slice.value)
            name = (
                key.expr.value
                if isinstance(key, HScalar) and isinstance(key.expr, ir.Const)
                else None
            )
            if name not in base.values:
                raise self.error(node, f"`{self.src(node)}` reads no argument of the launch")
            return base.values[name]
        return HOpaque(f"`{self.src(node)}`")

    def arith(self, node: cst.BinaryOperation) -> Any:
        op = BINARY_OPERATORS.get(type(node.operator))
        if op in ("&", "|", "^"):
            op = None  # host bit operations: not modelled
        a, b = self.hval(node.left), self.hval(node.right)
        if op is None:
            return HOpaque(f"`{self.src(node)}`")
        if isinstance(a, HScalar) and isinstance(b, HScalar):
            kind = "float" if "float" in (a.kind, b.kind) or op in ("/",) else "int"
            if (
                isinstance(a.expr, ir.Const)
                and isinstance(b.expr, ir.Const)
                and op in ("+", "-", "*", "//")
                and kind == "int"
            ):
                x, y = a.expr.value, b.expr.value
                if op != "//" or y:
                    return HScalar(
                        ir.Const({"+": x + y, "-": x - y, "*": x * y, "//": x // y if y else 0}[op])
                    )
            return HScalar(ir.BinOp(op, a.expr, b.expr), kind)
        lo_hi = _interval_arith(op, a, b)
        return HOpaque(f"`{self.src(node)}` (it reads {self._why(a, b)})", *lo_hi)

    def _why(self, *vals: Any) -> str:
        for v in vals:
            if isinstance(v, HOpaque):
                return v.why
        return "values the IR has no form for"

    def host_call(self, node: cst.Call, target: str | None) -> Any:
        fn = resolve(node.func, self.aliases)
        g = self.grammar["frontend"]
        if isinstance(node.func, cst.Subscript):
            raise self.error(node, "a kernel launch must be a statement of its own")
        op = g["scalar_pointwise"].get(fn or "")
        if op is not None:
            args, _ = call_args(node)
            vals = [self.hval(a) for a in args]
            if all(isinstance(v, HScalar) for v in vals):
                return HScalar(ir.Call(op, tuple(v.expr for v in vals)))
            return HOpaque(f"`{self.src(node)}` (it reads {self._why(*vals)})")
        if (
            fn in ("min", "max") and not node.func.value.startswith("torch")
            if isinstance(node.func, cst.Name)
            else False
        ):
            return self.min_max(fn, node)
        if fn == "len":
            return HOpaque("len(...)")
        if fn == "float" or fn == "int":
            args, _ = call_args(node)
            try:
                return HScalar(ir.Const(float(literal(node))), "float")  # type: ignore[arg-type]
            except (ValueError, TypeError):
                return HOpaque(f"`{self.src(node)}`")
        if isinstance(node.func, cst.Name) and node.func.value in self.info.functions:
            return self.inline_host(node.func.value, node, target)
        descriptor = g["host"]["descriptor"]
        if fn in (descriptor, descriptor + ".from_tensor"):
            from translator.dialects.triton.frontend_descriptors import host_descriptor

            return host_descriptor(self, node, from_tensor=fn != descriptor)
        alloc = self.alloc(node, fn, target)
        if alloc is not None:
            return alloc
        if isinstance(node.func, cst.Attribute):
            return self.method(node, target)
        return HOpaque(f"the call `{self.src(node)[:50]}`")

    def min_max(self, fn: str, node: cst.Call) -> Any:
        args, _ = call_args(node)
        vals = [self.hval(a) for a in args]
        # Drop arguments that can never be the result (`65536 // x.element_size()` >= 8192).
        keep = list(vals)
        for v in vals:
            lo, hi = _bounds(v)
            for w in vals:
                if w is v:
                    continue
                wlo, whi = _bounds(w)
                if fn == "min" and lo is not None and whi is not None and lo >= whi and v in keep:
                    keep.remove(v)
                    break
                if fn == "max" and hi is not None and wlo is not None and hi <= wlo and v in keep:
                    keep.remove(v)
                    break
        if not all(isinstance(v, HScalar) for v in keep):
            return HOpaque(f"`{self.src(node)}` (it reads {self._why(*keep)})")
        op = "minimum" if fn == "min" else "maximum"
        out = keep[0].expr
        for v in keep[1:]:
            out = ir.Call(op, (out, v.expr))
        return HScalar(out, "float" if any(v.kind == "float" for v in keep) else "int")

    def inline_host(self, name: str, node: cst.Call, target: str | None = None) -> Any:
        fn = self.info.functions[name]
        body = list(fn.body.body) if isinstance(fn.body, cst.IndentedBlock) else []
        if fn.get_docstring() is not None:
            body = body[1:]
        split = _early_return(body)
        if split is None and not _inlinable(body):
            return HOpaque(f"it calls `{name}`, which the frontend cannot evaluate")
        args, kwargs = call_args(node)
        params = [p.name.value for p in fn.params.params]
        vals = dict(zip(params, (self.hval(a) for a in args)))
        for k, v in kwargs.items():
            vals[k] = self.hval(v)
        saved = self.scope
        self.scope = {**{k: v for k, v in saved.items() if isinstance(v, HTensor)}, **vals}
        self.depth += 1
        self.result_names.append(target)
        try:
            if split is None:
                result = self.host_block(body)
            else:
                mark = (len(self.body), list(self.pending_comments))
                try:
                    result = self.two_paths(name, *split)
                except TranslationError as err:
                    # A helper whose paths the frontend cannot follow is opaque, like any
                    # other value it cannot evaluate; it fails only where something needs it.
                    del self.body[mark[0] :]
                    self.pending_comments = mark[1]
                    result = HOpaque(f"`{name}` cannot be evaluated: {err.message}")
        finally:
            self.depth -= 1
            self.result_names.pop()
            self.scope = saved
        return HOpaque(f"`{name}` returns nothing") if result is _NO_RETURN else result

    def two_paths(self, name: str, prefix: list, early: cst.BaseExpression, rest: list) -> Any:
        """A helper ``prefix; if test: return early; rest``. Where both paths return the same
        tensor's values (``x`` itself, or a re-laid-out copy of it), the test cannot change
        results and is not evaluated; anything else is opaque."""
        notes = len(self.pending_comments)
        if self.host_block(prefix) is not _NO_RETURN:
            return HOpaque(f"`{name}` returns before its early return")
        first = self.hval(early)
        second = self.host_block(rest)
        if (
            isinstance(first, HTensor)
            and isinstance(second, HTensor)
            and (first.name == second.name)
        ):
            del self.pending_comments[notes:]  # the copy's own notes: one says it all
            self.note(
                f"tiletrans: `{name}(...)` returns `{first.source}` or a re-laid-out copy "
                "of it, read as the same values (the IR indexes tensors logically)"
            )
            return dataclasses.replace(second, copy=first.copy or second.copy)
        return HOpaque(f"`{name}` returns different values on its two paths")

    # ------------------------------------------------------------------ tensors

    def alloc(
        self,
        node: cst.Call,
        fn: str | None,
        target: str | None,
        logical: list[cst.BaseSlice] | None = None,
    ) -> HTensor | None:
        """A host allocation; ``logical``: the slices of ``torch.empty(shape)[...]`` that cut an
        over-allocated buffer (a padded row pitch) down to the tensor the code uses."""
        g = self.grammar["frontend"]
        try:
            call = read_alloc(node, fn, g["host_alloc"], g.get("methods", {}).get("host_alloc", {}))
        except AllocError as err:
            raise self.error(err.node, str(err)) from None
        if call is None:
            return None
        base: HTensor | None = None
        if call.base is not None:
            v = self.hval(call.base)
            if not isinstance(v, HTensor):
                return None  # `obj.new_empty(...)` of something no tensor: not an allocation
            base = v
        name = self.fresh(target or "buf")
        dtype: ir.DTypeExpr | None = base.dtype if base is not None else None
        if call.dtype is not None:
            d = self.hval(call.dtype)
            if not isinstance(d, HDType):
                raise self.error(call.dtype, f"unsupported dtype `{self.src(call.dtype)}`")
            dtype = d.dtype
        if call.like is not None:
            like = self.hval(call.like)
            if not isinstance(like, HTensor):
                raise self.error(node, "allocate like a host tensor")
            t = HTensor(
                name,
                target or name,
                dtype or like.dtype,
                like.rank,
                contiguous=like.contiguous,
                unit_last=like.unit_last or like.contiguous,
                like=like,
            )
            self.emit(
                ir.Alloc(
                    name, None, like.name, t.dtype, like.name, call.fill, loc=self.locate(node)
                )
            )
            for d in range(like.rank or 0):
                self.size_canon[(name, d)] = ir.SizeOf(like.name, d)
            self.types.vars[name] = TensorType(t.dtype, like.rank)
            self.tensors[name] = t
            return t
        if logical is not None:
            shape = self.sliced_shape(list(call.shape), logical, node)
        else:
            shape = tuple(self.scalar(s) for s in call.shape)
        device_of = base
        if device_of is None:
            dev = self.hval(call.device) if call.device is not None else None
            if not isinstance(dev, HDevice):
                raise self.error(node, "give the allocation `device=x.device` of an input")
            device_of = dev.tensor
        if dtype is None:
            raise self.error(node, "give the allocation a dtype")
        return self.shaped_alloc(name, target, shape, dtype, device_of, call.fill, node)

    def shaped_alloc(
        self,
        name: str,
        target: str | None,
        shape: tuple[ir.Expr, ...],
        dtype: ir.DTypeExpr,
        device_of: HTensor,
        fill: float | None,
        node: cst.CSTNode,
    ) -> HTensor:
        """A new row-major tensor of ``shape`` on ``device_of``'s device."""
        t = HTensor(name, target or name, dtype, len(shape), contiguous=True, unit_last=True)
        self.emit(ir.Alloc(name, shape, None, dtype, device_of.name, fill, loc=self.locate(node)))
        for d, e in enumerate(shape):
            self.size_canon[(name, d)] = e
        self.types.vars[name] = TensorType(dtype, len(shape))
        self.tensors[name] = t
        return t

    def sliced_shape(
        self, dims: list[cst.BaseExpression], slices: list[cst.BaseSlice], node: cst.CSTNode
    ) -> tuple[ir.Expr, ...]:
        """The shape of ``torch.empty(dims)[slices]``: ``:`` keeps a dim, ``:n`` makes it ``n``
        (the buffer is assumed at least that long, as the source assumes)."""
        if len(slices) != len(dims):
            raise self.error(node, "slice every dim of a padded allocation")
        out = []
        for d, sl in zip(dims, slices):
            s = sl.slice
            if not isinstance(s, cst.Slice) or s.lower is not None or s.step is not None:
                raise self.error(sl, "a padded allocation may only be cut with `:` or `:n`")
            out.append(self.scalar(d) if s.upper is None else self.scalar(s.upper))
        self.note(
            "tiletrans: a padded allocation cut to its logical shape: the IR indexes "
            "tensors logically, the padding only changes strides"
        )
        return tuple(out)

    def method(self, node: cst.Call, target: str | None) -> Any:
        assert isinstance(node.func, cst.Attribute)
        name = node.func.attr.value
        inner = node.func.value
        if (
            name == "element_size"
            and isinstance(inner, cst.Call)
            and resolve(inner.func, self.aliases) in self.grammar["frontend"]["host_alloc"]
        ):
            # `torch.empty((), dtype=d).element_size()`: a dtype's size, not a buffer.
            return HOpaque("the element size of a dtype", 1, 8)
        base = self.hval(inner)
        if isinstance(base, HTensor):
            return self.tensor_method(base, name, node, target)
        if isinstance(base, HStatic) and base.value is None:
            return HOpaque(f"`{self.src(node)}`")
        return HOpaque(f"`{self.src(node)[:50]}`")

    def tensor_method(self, t: HTensor, name: str, node: cst.Call, target: str | None) -> Any:
        args, kwargs = (
            [a.value for a in node.args if not a.star and a.keyword is None],
            {a.keyword.value: a.value for a in node.args if a.keyword is not None},
        )
        if name == "stride" and not args and t.rank is not None:
            return HTuple(tuple(HStride(t, d) for d in range(t.rank)))
        if name == "stride":
            if len(args) != 1:
                raise self.error(node, "use x.stride(d) with one dim")
            d = self.hval(args[0])
            if not (isinstance(d, HScalar) and isinstance(d.expr, ir.Const)):
                raise self.error(node, "x.stride(d) needs a constant d")
            dim = int(d.expr.value)
            return HStride(t, dim)
        if name == "size":
            if not args:
                return HShape(t)
            d = self.hval(args[0])
            if isinstance(d, HScalar) and isinstance(d.expr, ir.Const):
                i = int(d.expr.value)
                if t.rank is not None and i < 0:
                    i += t.rank
                return HScalar(ir.SizeOf(t.name, i))
        if name == "dim":
            return HFact("dim", t)
        if name == "is_contiguous":
            return HFact("contiguous", t)
        if name == "element_size":
            return HOpaque(f"`{t.source}.element_size()` (the IR has no dtype sizes)", 1, 8)
        if name == "numel":
            if t.rank is not None:
                e: ir.Expr = ir.Const(1)
                for d in range(t.rank):
                    e = ir.SizeOf(t.name, d) if d == 0 else ir.BinOp("*", e, ir.SizeOf(t.name, d))
                return HScalar(e)
            return HScalar(ir.SizeOf(self.flat_view(t, node), 0))
        if name in ("reshape", "view"):
            return self.view(t, node, target, args)
        if name == "flatten" and not args:
            return self.view(t, node, target, [cst.Integer("-1")], flat=True)
        if name == "contiguous" and not args:
            out = dataclasses.replace(t, contiguous=True, unit_last=True, copy=True)
            self.tensors[t.name] = t
            return out
        if name in _LAYOUT_VIEWS:
            # A strided view of the same elements (`q.transpose(1, 2)`): kernels that get it
            # read its strides; what the frontend keeps is its rank and dtype.
            rank = len(args) if name == "permute" and len(args) > 1 else t.rank
            return self.carried_tensor(node, t, rank, contiguous=False)
        if name == "clone":
            # A copy in a memory format the source chooses: dense and row-major only when it
            # says so (or the original was); `clone()` of a strided view keeps its strides.
            fmt = kwargs.get("memory_format")
            row_major = (
                resolve(fmt, self.aliases) == "torch.contiguous_format"
                if fmt is not None
                else t.contiguous
            )
            return self.carried_tensor(node, t, t.rank, contiguous=row_major)
        if name == "to":
            target_node = args[0] if args else kwargs.get("dtype")
            d = self.hval(target_node) if target_node is not None else None
            if isinstance(d, HDType) and t.name in self.written:
                # A kernel's output converted on the host (`c.to(a.dtype)` after split-K's fp32
                # accumulation): a new tensor.
                name = self.fresh(target or t.name)
                self.emit(ir.Assign(name, ir.Cast(ir.Name(t.name), d.dtype), loc=self.locate(node)))
                self.types.vars[name] = TensorType(d.dtype, t.rank)
                out = HTensor(
                    name, target or name, d.dtype, t.rank, contiguous=True, unit_last=True, like=t
                )
                self.tensors[name] = out
                for dim in range(t.rank or 0):
                    self.size_canon[(name, dim)] = ir.SizeOf(t.name, dim)
                return out
            if isinstance(d, HDType) and isinstance(d.dtype, ir.DType):
                # A converted copy: device code reads it through a cast of each element.
                out = dataclasses.replace(t, cast=d.dtype, copy=True)
                self.note(f"tiletrans: `{self.src(node)}` is read through element casts")
                return out
            raise self.error(
                node,
                f"unsupported conversion `{self.src(node)}`",
                "convert with x.to(torch.<dtype>)",
            )
        if name in ("stride", "size"):
            raise self.error(node, f"unsupported `{self.src(node)}`")
        return HOpaque(f"`{self.src(node)[:50]}`")

    def carried_tensor(
        self,
        node: cst.CSTNode,
        base: HTensor | str,
        rank: int | None = None,
        contiguous: bool = False,
        text: str | None = None,
    ) -> HTensor:
        """A tensor host code makes that the IR does not model, carried as written (``text``,
        by default ``node``'s source) with the facts known of it. ``base`` is the tensor it is
        made from (a strided view, a copy in another layout: its dtype, and its rank where
        ``rank`` is that rank), or only a name to derive the new one's from (its dtype is then
        its own)."""
        text = text if text is not None else self.src(node)
        name = self.fresh(base if isinstance(base, str) else base.name)
        dtype = base.dtype if isinstance(base, HTensor) else ir.DTypeOf(name)
        same_rank = isinstance(base, HTensor) and rank == base.rank
        t = HTensor(
            name,
            text,
            dtype,
            rank,
            contiguous=contiguous,
            unit_last=contiguous,
            rank_like=base if same_rank else None,  # type: ignore[arg-type]
        )
        self.tensors[name] = t
        self.types.vars[name] = TensorType(dtype, rank)
        self.emit(ir.Carried(name, "tensor", text, rank, loc=self.locate(node)))
        return t

    def flat_view(self, t: HTensor, node: cst.CSTNode) -> str:
        if t.flat is None:
            name = self.fresh(t.name + "_flat")
            self.emit(
                ir.View(
                    name,
                    t.name,
                    (ir.Const(-1),),
                    comments=(f"tiletrans: `{t.source}` addressed as a flat array",),
                    loc=self.locate(node),
                )
            )
            dtype = t.dtype if isinstance(t.dtype, ir.DType) else ir.DTypeOf(name)
            self.types.vars[name] = TensorType(dtype, 1)
            t.flat = name
            ft = HTensor(
                name, t.source, dtype, 1, t.contiguous, t.contiguous or t.unit_last, t.cast, t.copy
            )
            self.tensors[name] = ft
        return t.flat

    def view(
        self, t: HTensor, node: cst.Call, target: str | None, args: list, flat: bool = False
    ) -> HTensor:
        dims: list[ir.Expr] = []
        star_shapes = [a for a in node.args if a.star == "*"]
        if len(args) == 1 and not star_shapes:
            v = self.hval(args[0])
            if isinstance(v, HShape):
                dims = self.shape_exprs(v.tensor, node)
                args = []
            elif isinstance(v, HTuple):
                args = []
                for item in v.items:
                    if not isinstance(item, HScalar):
                        raise self.error(node, "view sizes must be host scalars")
                    dims.append(item.expr)
        for a in node.args:
            if a.keyword is not None:
                raise self.error(node, "view sizes are positional")
            if a.star == "*":
                v = self.hval(a.value)
                if not isinstance(v, HShape):
                    raise self.error(a, f"cannot splat `{self.src(a.value)}`")
                dims += self.shape_exprs(v.tensor, node)
            elif args and a.value in args:
                dims.append(self.scalar(a.value))
        name = self.fresh(target or t.name + "_view")
        rank = len(dims)
        if t.reshape_rank is None:
            t.reshape_rank = rank
        self.emit(ir.View(name, t.name, tuple(dims), loc=self.locate(node)))
        # The view's own dtype (the same as its base's): kernels that get the view name it.
        dtype = t.dtype if isinstance(t.dtype, ir.DType) else ir.DTypeOf(name)
        self.types.vars[name] = TensorType(dtype, rank)
        nt = HTensor(name, target or name, dtype, rank, t.contiguous, t.contiguous, t.cast, t.copy)
        for d, e in enumerate(dims):
            if not (isinstance(e, ir.Const) and e.value == -1):
                self.size_canon[(name, d)] = e
        self.tensors[name] = nt
        return nt

    def shape_exprs(self, t: HTensor, node: cst.CSTNode) -> list[ir.Expr]:
        if t.rank is None:
            # The host code stays as written; only the frontend's model of it would need the
            # rank, so the statement is carried rather than the tensor specialised.
            raise self.error(
                node,
                f"cannot tell the rank of `{t.source}`",
                f"unpack {t.source}.shape or assert {t.source}.dim() == r",
            )
        return [ir.SizeOf(t.name, d) for d in range(t.rank)]

    # ------------------------------------------------------------------ launches

    def launch(self, call: cst.Call) -> None:
        from translator.dialects.triton.frontend_device import KernelLifter

        sub = call.func
        assert isinstance(sub, cst.Subscript)
        if not isinstance(sub.value, cst.Name) or sub.value.value not in self.info.kernels:
            raise self.error(
                call, f"`{self.src(sub.value)}` is not a @triton.jit kernel of this file"
            )
        kernel = self.info.kernels[sub.value.value]
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
        }

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
        from translator.dialects.triton.symbols import param_name

        def meta(name: str) -> ir.Expr | None:
            param = param_name(name)
            return ir.Name(f'META["{param}"]') if param is not None else None

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
        """Host scalar ``name`` must reach kernels as a compile-time constant (a string)."""
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


_NO_RETURN = object()


# ==================================================================================================
# Helpers


def _conjuncts(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(node, cst.BooleanOperation) and isinstance(node.operator, cst.And):
        return _conjuncts(node.left) + _conjuncts(node.right)
    return [node]


def _bounds(v: Any) -> tuple[int | None, int | None]:
    if isinstance(v, HScalar) and isinstance(v.expr, ir.Const) and isinstance(v.expr.value, int):
        return v.expr.value, v.expr.value
    if isinstance(v, HOpaque):
        return v.lo, v.hi
    return None, None


def _interval_arith(op: str, a: Any, b: Any) -> tuple[int | None, int | None]:
    alo, ahi = _bounds(a)
    blo, bhi = _bounds(b)
    if None in (alo, ahi, blo, bhi):
        return None, None
    assert alo is not None and ahi is not None and blo is not None and bhi is not None
    if op == "//" and blo > 0:
        return alo // bhi, ahi // blo
    if op == "*" and alo >= 0 and blo >= 0:
        return alo * blo, ahi * bhi
    if op == "+":
        return alo + blo, ahi + bhi
    return None, None


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


def _bound_names(node: cst.CSTNode) -> list[str]:
    """Names a host statement (or target) binds: assignment and loop targets, ``with ... as``,
    ``def``/``class`` names, imports."""
    out: list[str] = []

    def targets(t: cst.CSTNode) -> None:
        if isinstance(t, cst.Name):
            out.append(t.value)
        elif isinstance(t, (cst.Tuple, cst.List)):
            for e in t.elements:
                targets(e.value)
        elif isinstance(t, cst.StarredElement):
            targets(t.value)

    class V(cst.CSTVisitor):
        def visit_AssignTarget(self, n: cst.AssignTarget) -> None:
            targets(n.target)

        def visit_AnnAssign(self, n: cst.AnnAssign) -> None:
            targets(n.target)

        def visit_AugAssign(self, n: cst.AugAssign) -> None:
            targets(n.target)

        def visit_For(self, n: cst.For) -> None:
            targets(n.target)

        def visit_AsName(self, n: cst.AsName) -> None:
            targets(n.name)

        def visit_FunctionDef(self, n: cst.FunctionDef) -> bool:
            out.append(n.name.value)
            return False

        def visit_ClassDef(self, n: cst.ClassDef) -> bool:
            out.append(n.name.value)
            return False

        def visit_Lambda(self, n: cst.Lambda) -> bool:
            return False

    if isinstance(node, (cst.Name, cst.Tuple, cst.List)):
        targets(node)
    else:
        node.visit(V())
    return out


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


def _none_default(node: cst.If) -> tuple[str, cst.BaseExpression] | None:
    """``(x, e)`` of ``if x is None: x = e`` (no else)."""
    test = node.test
    body = list(node.body.body) if isinstance(node.body, cst.IndentedBlock) else []
    if (
        node.orelse is not None
        or len(body) != 1
        or not isinstance(body[0], cst.SimpleStatementLine)
        or len(body[0].body) != 1
    ):
        return None
    assign = body[0].body[0]
    if not (
        isinstance(test, cst.Comparison)
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].operator, cst.Is)
        and isinstance(test.left, cst.Name)
        and isinstance(test.comparisons[0].comparator, cst.Name)
        and test.comparisons[0].comparator.value == "None"
    ):
        return None
    name = test.left.value
    if not (
        isinstance(assign, cst.Assign)
        and len(assign.targets) == 1
        and isinstance(assign.targets[0].target, cst.Name)
        and assign.targets[0].target.value == name
    ):
        return None
    return name, assign.value


def _early_return(body: list[cst.BaseStatement]) -> tuple[list, cst.BaseExpression, list] | None:
    """``(prefix, value, rest)`` of a body ``prefix; if test: return value; rest`` whose prefix
    and rest are otherwise inlinable."""
    for i, st in enumerate(body):
        if not isinstance(st, cst.If):
            continue
        inner = list(st.body.body) if isinstance(st.body, cst.IndentedBlock) else []
        if (
            st.orelse is not None
            or len(inner) != 1
            or not isinstance(inner[0], cst.SimpleStatementLine)
            or len(inner[0].body) != 1
            or not isinstance(inner[0].body[0], cst.Return)
        ):
            return None
        value = inner[0].body[0].value
        prefix, rest = body[:i], body[i + 1 :]
        if value is None or not _inlinable(prefix) or not _inlinable(rest):
            return None
        return prefix, value, rest
    return None


def _inlinable(body: list[cst.BaseStatement]) -> bool:
    for i, st in enumerate(body):
        if isinstance(st, cst.SimpleStatementLine):
            for s in st.body:
                if isinstance(s, cst.Return) and i != len(body) - 1:
                    return False
                if (
                    isinstance(s, cst.Expr)
                    and isinstance(s.value, cst.Call)
                    and isinstance(s.value.func, cst.Attribute)
                    and s.value.func.attr.value == "copy_"
                ):
                    continue
                if not isinstance(s, (cst.Assign, cst.Return, cst.Assert, cst.Pass)):
                    return False
            continue
        if isinstance(st, cst.If):
            ok = True

            class V(cst.CSTVisitor):
                def visit_Return(self, n: cst.Return) -> None:
                    nonlocal ok
                    ok = False

            st.visit(V())
            if not ok:
                return False
            continue
        return False
    return True


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
