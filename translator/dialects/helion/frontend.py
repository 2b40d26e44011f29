"""Helion frontend: a module of ``@helion.kernel`` functions → IR :class:`~translator.ir.nodes.Module`.

Pure static analysis with libcst: the input file is never imported or executed. A Helion kernel
function is host code around device loops: each top-level ``hl.tile``/``hl.grid`` loop becomes a
self-contained :class:`~translator.ir.nodes.Kernel` (outlined over the host tensors and scalars it
reads) and the loop itself a launch site. The host statements stay as written in the translation
(the module's :class:`~translator.ir.nodes.HostPlan`); the frontend models the ones it understands
(shape unpacking, allocations, views, asserts, returns) as facts for validation, and carries the
rest untouched. Helion-only host calls are rewritten where the translation needs it:
``hl.register_block_size`` goes (its block becomes a tunable of the kernels), ``hl.specialize(e)``
becomes ``e``.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable
from typing import Any

import libcst as cst

from translator.diagnostics import TranslationError
from translator.dialects.common.dtype_facts import (
    with_documented_dtypes,
    with_proven_kernel_dtypes,
)
from translator.dialects.common.host_api import SCALAR_ANNOTATIONS, api_entries
from translator.dialects.cst_utils import (
    Locator,
    import_aliases,
    literal_or_none,
    name_nodes,
    names_in,
    parse_source,
    resolve,
    source_of,
    statement_comments,
    walk,
)
from translator.dialects.helion.carried import CarriedReader
from translator.dialects.helion.decorator import (
    ConditionalConfig,
    DecoratorReader,
    conditional_configs,
    kernel_decorator,
    refused_kernel_form,
)
from translator.dialects.helion.epilogues import specialise
from translator.dialects.helion.explicit_tuning import drop_tuning_functions
from translator.dialects.helion.expressions import ExprBuilder
from translator.dialects.helion.helpers import module_helpers
from translator.dialects.helion.host import HostReader
from translator.dialects.helion.kernel_functions import (
    KernelFunctionReader,
    is_kernel_function,
    kernel_function_callers,
)
from translator.dialects.helion.loops import LoopReader
from translator.dialects.helion.optional_tensors import specialise_optional
from translator.dialects.helion.scope import BranchRankConflict, EntryScope
from translator.dialects.helion.specialised import Specialised, line_map, relocate, relocate_tree
from translator.dialects.helion.tunables import TunableReader
from translator.grammar import load_grammar
from translator.ir import nodes as ir
from translator.ir.outline import OutlineNaming, outline_entry
from translator.ir.shapes import IRTypeError, host_env
from translator.ir.verifier import verify


def parse(source: str, path: str) -> ir.Module:
    """Parse Helion source text into a verified IR module."""
    grammar = load_grammar("helion")

    def is_kernel(fn: cst.FunctionDef, aliases: dict[str, str]) -> bool:
        return kernel_decorator(fn, aliases, grammar) is not None

    # Kernels that take an epilogue are specialised per call site first (epilogues.py); the
    # rest of the frontend reads the rewritten text, and locations are moved back into `source`.
    _refuse_redefined_kernels(source, path, grammar)
    # A tensor the branches of a host `if` on a string choice allocate with two ranks: read
    # again with the kernels split on that test (optional_tensors.py), as Helion compiles a
    # kernel per value of a `str` argument.
    choices: frozenset[str] = frozenset()
    while True:
        try:
            return _parse_specialised(source, path, is_kernel, grammar, choices)
        except BranchRankConflict as err:
            if err.test is None or err.test in choices:
                raise
            choices |= {err.test}


def _parse_specialised(
    source: str,
    path: str,
    is_kernel: Callable[[cst.FunctionDef, dict[str, str]], bool],
    grammar: dict,
    choices: frozenset[str],
) -> ir.Module:
    """:func:`parse` after the rewrites of :func:`_specialised`."""
    spec = _specialised(source, path, is_kernel, grammar, choices)
    if spec is None:
        return _parse(source, path)
    try:
        module = _parse(spec.text, path, spec.kernel_notes)
    except TranslationError as err:
        raise relocate(err, spec, source) from None
    module = relocate_tree(module, spec, source)
    assert isinstance(module, ir.Module)
    # The specialisations are no functions of the source: validation calls their callers.
    entries = tuple(
        dataclasses.replace(e, public=False) if e.name in spec.specialisations else e
        for e in module.entries
    )
    digest = hashlib.sha256(source.encode()).hexdigest()
    return dataclasses.replace(module, entries=entries, source_hash=digest)


def _specialised(
    source: str,
    path: str,
    is_kernel: Callable[[cst.FunctionDef, dict[str, str]], bool],
    grammar: dict,
    choices: frozenset[str] = frozenset(),
) -> Specialised | None:
    """``source`` rewritten before parsing, or ``None`` where nothing needs it. In order:
    host functions that tune a kernel through Helion's API dropped (explicit_tuning.py),
    kernels split per None-ness of the optional tensors their device code tests
    (optional_tensors.py), kernels that take an epilogue specialised per call site
    (epilogues.py). Each stage reads the text the one before wrote."""
    lang = grammar["frontend"]["language"]
    loops = {lang["tile"], lang["grid"]}
    stages: list[Callable[[str], Specialised | None]] = [
        lambda text: drop_tuning_functions(text, path, is_kernel),
        lambda text: specialise_optional(text, path, is_kernel, loops, choices),
        lambda text: specialise(text, path, is_kernel),
    ]
    done: Specialised | None = None
    for stage in stages:
        text = source if done is None else done.text
        try:
            step = stage(text)
        except TranslationError as err:
            raise (err if done is None else relocate(err, done, source)) from None
        if step is None:
            continue
        if done is None:
            done = step
            continue
        done = Specialised(
            step.text,
            line_map(source, step.text),
            {**done.kernel_notes, **step.kernel_notes},
            done.specialisations | step.specialisations,
        )
    return done


def _refuse_redefined_kernels(source: str, path: str, grammar: dict) -> None:
    """A kernel function defined twice at module level whose name a statement between the two
    definitions reads as the module runs (a decorator, a default, a module-level call): that
    read runs the first, every later call the second, so neither can stand for the name.
    Refused at the second definition (:func:`_shadowed_kernels` drops a first definition
    nothing runs, as Helion's matmul example's first ``matmul_bwd`` is)."""
    if source.count("def ") < 2:
        return
    try:
        wrapper = parse_source(source, path)
    except TranslationError:
        return  # the ordinary parse reports the syntax error
    module, locate = wrapper.module, Locator(wrapper, path)
    _shadowed_kernels(module, import_aliases(module), grammar, locate)


def _shadowed_kernels(
    module: cst.Module, aliases: dict[str, str], grammar: dict, locate: Locator
) -> dict[int, str]:
    """The kernel definitions a later module-level definition of the same name replaces before
    anything runs them: ``id(definition)`` -> its name. Python keeps the last definition, so
    the earlier one is dead code the translation drops."""
    out: dict[int, str] = {}
    seen: dict[str, int] = {}
    body = list(module.body)
    for i, stmt in enumerate(body):
        if not isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            continue
        name = stmt.name.value
        if name in seen and isinstance(stmt, cst.FunctionDef):
            first = body[seen[name]]
            assert isinstance(first, cst.FunctionDef)
            between = body[seen[name] + 1 : i] + [stmt]
            if kernel_decorator(first, aliases, grammar) is not None:
                if any(name in _read_at_import(s) for s in between):
                    where = locate(first)
                    raise TranslationError(
                        f"kernel `{name}` is defined twice (first at line "
                        f"{where.line if where else '?'}), and the module reads the name "
                        "between the two: that read runs the first, later calls the second",
                        locate(stmt.name),
                        "delete the definition no caller should run, or give the two "
                        "different names",
                    )
                out[id(first)] = name
        seen[name] = i
    return out


def _read_at_import(stmt: cst.BaseStatement) -> set[str]:
    """The names a module-level statement reads as the module runs: a function's decorators
    and defaults, a class's bases and body (its methods' decorators and defaults), anything
    else whole."""
    if isinstance(stmt, cst.FunctionDef):
        ps = stmt.params
        parts: list[cst.CSTNode] = [d.decorator for d in stmt.decorators]
        parts += [
            p.default
            for p in (*ps.posonly_params, *ps.params, *ps.kwonly_params)
            if p.default is not None
        ]
        return {n.value for part in parts for n in name_nodes(part)}
    if isinstance(stmt, cst.ClassDef):
        names = {n.value for a in stmt.bases for n in name_nodes(a.value)}
        names |= {n.value for d in stmt.decorators for n in name_nodes(d.decorator)}
        inner = stmt.body.body if isinstance(stmt.body, cst.IndentedBlock) else []
        for s in inner:
            names |= _read_at_import(s)  # type: ignore[arg-type]
        return names
    return {n.value for n in name_nodes(stmt)}


def _parse(source: str, path: str, kernel_notes: dict[str, str] | None = None) -> ir.Module:
    """Parse Helion source text into a verified IR module; ``kernel_notes`` are ``# tiletrans:``
    notes for the translations of some kernels (by name), placed where their decorator was."""
    wrapper = parse_source(source, path)
    module = wrapper.module
    locate = Locator(wrapper, path)
    aliases = import_aliases(module)
    grammar = load_grammar("helion")
    constants = _module_constants(module)
    conditional = conditional_configs(module, aliases, grammar)
    consumed_conditional: set[str] = set()
    entries: list[ir.Entry] = []
    kernels: list[ir.Kernel] = []
    edits: list[ir.HostEdit] = []
    sites: list[ir.Site] = []
    consumed: set[str] = set()
    pure: dict[str, tuple[ir.Kernel, EntryParser]] = {}
    refused = refused_kernel_form(module, aliases, grammar)
    if refused is not None:
        node, what, instead = refused
        raise TranslationError(what, locate(node), instead)
    shadowed = _shadowed_kernels(module, aliases, grammar, locate)
    helpers = module_helpers(module, lambda fn: kernel_decorator(fn, aliases, grammar) is not None)
    inlined: set[str] = set()
    for stmt in module.body:
        if id(stmt) in shadowed:
            # Dead code: the definition below replaces it before anything runs it.
            note = (
                f"tiletrans: dropped a first `{shadowed[id(stmt)]}`, which the one below replaces"
            )
            edits.append(ir.HostEdit("remove", locate.span(stmt), note=note))
            continue
        if isinstance(stmt, cst.FunctionDef) and kernel_decorator(stmt, aliases, grammar):
            parser = EntryParser(stmt, aliases, locate, path, constants, sites, conditional)
            parser.build.helpers.functions = helpers
            parser.build.helpers.reserved = names_in(stmt)
            try:
                entry, entry_kernels = parser.parse()
            except IRTypeError as err:
                raise TranslationError(
                    f"kernel does not type-check: {err}", err.loc or locate(stmt), err.hint
                ) from None
            if entry is not None:
                entries.append(entry)
            else:
                pure[stmt.name.value] = (entry_kernels[0], parser)
            kernels.extend(entry_kernels)
            note = (kernel_notes or {}).get(stmt.name.value)
            if note is not None:
                span = locate.span(stmt)
                parser.edits = [
                    dataclasses.replace(e, note=note)
                    if e.kind == "insert" and e.span == span
                    else e
                    for e in parser.edits
                ]
            edits.extend(parser.edits)
            consumed |= parser.consumed
            consumed_conditional |= parser.consumed_conditional
            inlined |= parser.build.helpers.inlined
    if pure:
        entries.extend(kernel_function_callers(module, pure, locate, sites))
    entries.extend(api_entries(module, entries, set(pure), locate))
    entries = with_documented_dtypes(module, entries)
    kernels = with_proven_kernel_dtypes(module, entries, kernels)
    if not kernels:
        raise TranslationError(
            "no @helion.kernel function in this file",
            ir.Loc(path, 1, 0),
            "decorate the kernel with @helion.kernel(...) and import helion",
        )
    # Module constants only the kernel decorators read (`CONFIG = helion.Config(...)`) go with
    # them, unless host code still reads them.
    for name in sorted(consumed):
        edits.append(ir.HostEdit("remove", locate.span(constants[name]), if_unused=(name,)))
    # Helpers the kernels inlined go too, unless host code calls them (Helion code the
    # translation could not run otherwise).
    for name in sorted(inlined):
        edits.append(ir.HostEdit("remove", locate.span(helpers[name]), if_unused=(name,)))
    for name in sorted(consumed_conditional):
        edits.extend(_drop_conditional_config(module, conditional[name], locate))
    header = _header_comments(module)
    result = ir.Module(
        path=path,
        entries=tuple(entries),
        kernels=tuple(kernels),
        host=ir.HostPlan(
            source=source,
            sites=tuple(sites),
            edits=tuple(edits),
            packages=tuple(grammar["packages"]),
        ),
        docstring=module.get_docstring(clean=False),
        header_comments=header,
        source_hash=hashlib.sha256(source.encode()).hexdigest(),
        source_dialect="helion",
    )
    try:
        verify(result)
    except IRTypeError as err:
        where = err.loc or ir.Loc(path, 1, 0)
        raise TranslationError(f"kernel does not type-check: {err}", where, err.hint) from None
    return result


def _with_rank_guards(guards: list[ir.ShapeUnpack], body: list[ir.Stmt]) -> list[ir.Stmt]:
    """``body`` with each rank guard placed where its tensor exists: first for a parameter
    (guards only raise, so they may go before anything reads the tensors), after the host
    statement that binds it for a tensor host code computes (``idx_wrapped = torch.where(...)``
    before the loop that indexes it)."""
    bound_at: dict[str, int] = {}
    for i, stmt in enumerate(body):
        target = getattr(stmt, "target", None)
        if isinstance(stmt, (ir.Carried, ir.Alloc, ir.View)) and isinstance(target, str):
            bound_at[target] = i
    after: dict[int, list[ir.Stmt]] = {}
    first: list[ir.Stmt] = []
    for guard in guards:
        where = bound_at.get(guard.tensor)
        (first if where is None else after.setdefault(where, [])).append(guard)
    out = list(first)
    for i, stmt in enumerate(body):
        out.append(stmt)
        out.extend(after.get(i, ()))
    return out


def _drop_conditional_config(
    module: cst.Module, conditional: ConditionalConfig, locate: Locator
) -> list[ir.HostEdit]:
    """The edits that drop a conditional config's two statements, which only kernel decorators
    read (the translation's tuning takes the config); where host code reads the name too they
    stay, and so does the Helion they need: refused."""
    decorators = _decorator_reads(module, conditional.name)
    reads = [
        n
        for n in _name_nodes_outside(module, (conditional.default, conditional.branch))
        if n.value == conditional.name and id(n) not in decorators
    ]
    if reads:
        raise TranslationError(
            f"`{conditional.name}` (a helion.Config bound under an `if`) is read by host code "
            "too, which the translation cannot run without Helion",
            locate(reads[0]),
            "read it only in `@helion.kernel(config=...)`",
        )
    test = " ".join(source_of(conditional.branch.test).split())
    note = (
        f"tiletrans: dropped `{conditional.name}`, a helion.Config bound where `{test}`: the "
        "kernel autotunes, that config first"
    )
    return [
        ir.HostEdit("remove", locate.span(conditional.default), note=note),
        ir.HostEdit("remove", locate.span(conditional.branch)),
    ]


def _decorator_reads(module: cst.Module, name: str) -> set[int]:
    """The ``config=NAME`` argument values of the module's decorators, by identity."""
    out: set[int] = set()
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef):
            for dec in stmt.decorators:
                if isinstance(dec.decorator, cst.Call):
                    for arg in dec.decorator.args:
                        value = arg.value
                        if isinstance(value, cst.Name) and value.value == name:
                            out.add(id(value))
    return out


def _name_nodes_outside(module: cst.Module, skip: tuple[cst.CSTNode, ...]) -> list[cst.Name]:
    """Every ``Name`` of the module outside the statements ``skip``."""
    found: list[cst.Name] = []
    skipped = {id(s) for s in skip}

    def enter(node: cst.CSTNode) -> bool | list[cst.CSTNode]:
        if id(node) in skipped or isinstance(node, (cst.Import, cst.ImportFrom)):
            return False
        if isinstance(node, cst.Attribute):
            return [node.value]  # `obj.config` reads `obj`, not a name `config`
        if isinstance(node, cst.Arg):
            return [node.value]  # a keyword's name (`config=`) is no read
        if isinstance(node, cst.Name):
            found.append(node)
        return True

    walk(module, enter)
    return found


def _header_comments(module: cst.Module) -> tuple[str, ...]:
    lines = []
    for line in module.header:
        if line.comment is not None and not line.comment.value.startswith("#!"):
            lines.append(line.comment.value[1:].strip())
    return tuple(lines)


def _module_constants(module: cst.Module) -> dict[str, cst.SimpleStatementLine]:
    """Module-level ``NAME = value`` statements by name (configs kernels name, say)."""
    out: dict[str, cst.SimpleStatementLine] = {}
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
            small = stmt.body[0]
            if (
                isinstance(small, cst.Assign)
                and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Name)
            ):
                out[small.targets[0].target.value] = stmt
    return out


def _module_numbers(constants: dict[str, cst.SimpleStatementLine]) -> dict[str, int | float]:
    """The module constants that are numbers computed from literals, earlier such constants,
    arithmetic and ``math`` (``SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)``): device code
    reads them as the constants they are."""
    import ast
    import math

    out: dict[str, int | float] = {}
    functions = {"sqrt": math.sqrt, "log": math.log, "exp": math.exp, "log2": math.log2}
    operators = {
        ast.Add: lambda a, b: a + b,
        ast.Sub: lambda a, b: a - b,
        ast.Mult: lambda a, b: a * b,
        ast.Div: lambda a, b: a / b,
        ast.FloorDiv: lambda a, b: a // b,
        ast.Pow: lambda a, b: a**b,
    }

    def value(n: ast.AST) -> int | float:
        if isinstance(n, ast.Constant) and type(n.value) in (int, float):
            return n.value
        if isinstance(n, ast.Name) and n.id in out:
            return out[n.id]
        if (
            isinstance(n, ast.Attribute)
            and isinstance(n.value, ast.Name)
            and n.value.id == "math"
            and n.attr in ("pi", "e", "inf")
        ):
            return getattr(math, n.attr)
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
            v = value(n.operand)
            return -v if isinstance(n.op, ast.USub) else v
        if isinstance(n, ast.BinOp) and type(n.op) in operators:
            return operators[type(n.op)](value(n.left), value(n.right))
        if (
            isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and isinstance(n.func.value, ast.Name)
            and n.func.value.id == "math"
            and n.func.attr in functions
            and len(n.args) == 1
            and not n.keywords
        ):
            return functions[n.func.attr](value(n.args[0]))
        raise ValueError(n)

    for name, stmt in constants.items():
        small = stmt.body[0]
        assert isinstance(small, cst.Assign)
        try:
            tree = ast.parse(cst.Module([]).code_for_node(small.value), mode="eval")
            out[name] = value(tree.body)
        except (SyntaxError, ValueError, ArithmeticError):
            continue
    return out


class EntryParser(
    DecoratorReader, HostReader, CarriedReader, LoopReader, TunableReader, KernelFunctionReader
):
    """Parses one ``@helion.kernel`` function: the entry (its parameters and host statements)
    and the kernels its device loops are. Each part is read by a mixin of its own module:
    the decorator (:mod:`.decorator`), host statements (:mod:`.host`), carried host code
    (:mod:`.carried`), device loops and block sizes (:mod:`.loops`), user tunables
    (:mod:`.tunables`), kernel functions (:mod:`.kernel_functions`)."""

    def __init__(
        self,
        fn: cst.FunctionDef,
        aliases: dict[str, str],
        locate: Locator,
        path: str,
        constants: dict[str, cst.SimpleStatementLine] | None = None,
        sites: list[ir.Site] | None = None,
        conditional: dict[str, ConditionalConfig] | None = None,
    ) -> None:
        self.fn = fn
        self.aliases = aliases
        self.locate = locate
        self.grammar = load_grammar("helion")
        self.scope = EntryScope(path)
        self.build = ExprBuilder(self.scope, aliases, locate)
        self.build.numbers = _module_numbers(constants or {})
        self.kernels = 0
        self.config_nodes: list[cst.Call] = []
        self.hints: dict[str, Any] = {}
        self.constants = constants or {}
        self.sites = sites if sites is not None else []
        self.edits: list[ir.HostEdit] = []
        self.consumed: set[str] = set()  # module constants the decorator reads
        self.conditional = conditional or {}
        self.consumed_conditional: set[str] = set()  # conditional configs it reads
        self.pure = False  # a kernel function: one loop and nothing else
        self.param_nodes: list[cst.Param] = []
        self.current_line: cst.SimpleStatementLine | None = None
        self.complete = True

    def error(self, node: cst.CSTNode, message: str, hint: str | None = None) -> TranslationError:
        return TranslationError(message, self.locate(node), hint)

    def parse(self) -> tuple[ir.Entry | None, list[ir.Kernel]]:
        """The host function and the kernels its loops are; a kernel function (one that only
        runs one loop) is a kernel itself: no entry, and its callers launch it."""
        fn = self.fn
        self.pure = is_kernel_function(fn, self.aliases, self.grammar)
        params = self._params()
        self.scope.env = host_env(ir.Entry(fn.name.value, params, ()))
        for p in params:
            self.scope.used_names.add(p.name)
        self._decorator()
        body_nodes = list(fn.body.body) if isinstance(fn.body, cst.IndentedBlock) else []
        docstring = fn.get_docstring(clean=True)
        if docstring is not None:
            body_nodes = body_nodes[1:]
        body = self._host_block(body_nodes)
        body = _with_rank_guards(self.scope.rank_guards, body)
        tunables, configs = self._tunables()
        hints = self._hints()
        body = [
            dataclasses.replace(s, tunables=tunables, configs=configs, hints=hints)
            if isinstance(s, ir.InlineKernel)
            else s
            for s in body
        ]
        returns = source_of(fn.returns.annotation) if fn.returns is not None else None
        entry = ir.Entry(
            name=fn.name.value,
            params=params,
            body=tuple(body),
            docstring=docstring,
            return_annotation=returns,
            comments=tuple(statement_comments(fn)),
            complete=self.complete,
            # A kernel named `_...` is the module's own (a host function wraps it), as a host
            # function so named is: validation calls the wrappers, not it.
            public=not fn.name.value.startswith("_"),
            loc=self.locate(fn),
        )
        constexpr = set(self.scope.specialized) | set(self.scope.constexpr_params)
        # `str` parameters are compile-time choices (Helion specialises on their value), only
        # compared.
        constexpr |= {p.name for p in params if p.kind == "str"}
        if self.pure:
            return None, [self._kernel_function(entry, constexpr)]
        spelled = self.scope.spelled
        naming = OutlineNaming(
            text=lambda kernel, host: spelled.get(host, host), constexpr=constexpr
        )
        entry, kernels = outline_entry(entry, naming)
        dec = kernel_decorator(fn, self.aliases, self.grammar)
        assert dec is not None
        self.edits.append(ir.HostEdit("remove", self.locate.span(dec)))
        self.edits.append(
            ir.HostEdit("insert", self.locate.span(fn), kernels=tuple(k.name for k in kernels))
        )
        return entry, kernels

    def _params(self) -> tuple[ir.Param, ...]:
        params = []
        fn_params = self.fn.params
        if fn_params.star_arg not in (None, cst.MaybeSentinel.DEFAULT) or fn_params.star_kwarg:
            raise self.error(
                self.fn,
                "kernels with *args or **kwargs are not supported",
                "list the parameters explicitly",
            )
        for p in (*fn_params.posonly_params, *fn_params.params, *fn_params.kwonly_params):
            name = p.name.value
            annotation = source_of(p.annotation.annotation) if p.annotation is not None else None
            default = None
            kind = "tensor"
            if annotation is not None:
                resolved = resolve(p.annotation.annotation, self.aliases)
                refused = self.grammar["frontend"]["unsupported"].get(resolved or "")
                if refused is not None:
                    spelt = (resolved or "").replace("helion.language.", "hl.")
                    raise self.error(
                        p.annotation.annotation, f"`{spelt}` parameters are not supported", refused
                    )
                if annotation in SCALAR_ANNOTATIONS:
                    kind = SCALAR_ANNOTATIONS[annotation]
                elif resolved == self.grammar["frontend"]["language"]["constexpr"]:
                    kind = "int"
                    self.scope.constexpr_params.append(name)
                elif resolved not in ("torch.Tensor", None) and "Tensor" not in annotation:
                    raise self.error(
                        p,
                        f"unsupported parameter annotation `{annotation}`",
                        "annotate parameters as torch.Tensor, int, float, bool or str",
                    )
            if p.default is not None:
                value = literal_or_none(p.default)
                if value is None and not (
                    isinstance(p.default, cst.Name) and p.default.value == "None"
                ):
                    raise self.error(p.default, "parameter defaults must be literals")
                # `None` marks an optional parameter (resolved with `if_none` on the host).
                default = ir.Const(value)
                if value is not None and annotation is None:
                    kind = (
                        "str"
                        if isinstance(value, str)
                        else "float"
                        if isinstance(value, float)
                        else "bool"
                        if isinstance(value, bool)
                        else "int"
                    )
            params.append(ir.Param(name, kind, default, annotation))
        return tuple(params)


__all__ = ["parse"]
