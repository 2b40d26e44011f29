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
from typing import Any

import libcst as cst

from translator.diagnostics import TranslationError
from translator.dialects.common.dtype_facts import with_documented_dtypes
from translator.dialects.common.host_api import (
    SCALAR_ANNOTATIONS,
    api_entries,
    host_functions,
    signature,
)
from translator.dialects.common.torch_host import AllocError, read_alloc
from translator.dialects.cst_utils import (
    Locator,
    call_args,
    import_aliases,
    parse_source,
    resolve,
    source_of,
    statement_comments,
)
from translator.dialects.helion.epilogues import relocate, relocate_tree, specialise
from translator.dialects.helion.expressions import ExprBuilder, literal_or_none
from translator.dialects.helion.scope import EntryScope
from translator.grammar import load_grammar
from translator.ir import nodes as ir
from translator.ir.outline import OutlineNaming, outline_entry, outline_kernel
from translator.ir.shapes import IRTypeError, ScalarType, TensorType, host_env
from translator.ir.verifier import verify, walk_entry
from translator.naming import tile_suffix

# `str` parameters are compile-time choices (Helion specialises on their value), only compared.
# Tensor methods whose result is a tensor of the same rank.
_SAME_RANK_METHODS = {
    "contiguous", "clone", "detach", "to", "float", "half", "bfloat16", "double", "int",
    "long", "cuda", "cpu", "transpose", "permute", "t", "abs", "neg", "exp", "sigmoid",
    "type_as", "expand_as", "view_as", "reshape_as",
}  # fmt: skip
_SCALAR_FUNCTIONS = {"float": "float", "int": "int", "bool": "bool"}


def parse(source: str, path: str) -> ir.Module:
    """Parse Helion source text into a verified IR module."""
    grammar = load_grammar("helion")

    def is_kernel(fn: cst.FunctionDef, aliases: dict[str, str]) -> bool:
        return _kernel_decorator(fn, aliases, grammar) is not None

    # Kernels that take an epilogue are specialised per call site first (epilogues.py); the
    # rest of the frontend reads the rewritten text, and locations are moved back into `source`.
    spec = specialise(source, path, is_kernel)
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


def _parse(source: str, path: str, kernel_notes: dict[str, str] | None = None) -> ir.Module:
    """Parse Helion source text into a verified IR module; ``kernel_notes`` are ``# tiletrans:``
    notes for the translations of some kernels (by name), placed where their decorator was."""
    wrapper = parse_source(source, path)
    module = wrapper.module
    locate = Locator(wrapper, path)
    aliases = import_aliases(module)
    grammar = load_grammar("helion")
    constants = _module_constants(module)
    entries: list[ir.Entry] = []
    kernels: list[ir.Kernel] = []
    edits: list[ir.HostEdit] = []
    sites: list[ir.Site] = []
    consumed: set[str] = set()
    pure: dict[str, tuple[ir.Kernel, EntryParser]] = {}
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef) and _kernel_decorator(stmt, aliases, grammar):
            parser = EntryParser(stmt, aliases, locate, path, constants, sites)
            try:
                entry, entry_kernels = parser.parse()
            except IRTypeError as err:
                raise TranslationError(f"kernel does not type-check: {err}", err.loc) from None
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
    if pure:
        entries.extend(_callers(module, pure, locate, sites))
    entries.extend(api_entries(module, entries, set(pure), locate))
    entries = with_documented_dtypes(module, entries)
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
        raise TranslationError(f"kernel does not type-check: {err}", err.loc) from None
    return result


def _callers(
    module: cst.Module,
    pure: dict[str, tuple[ir.Kernel, EntryParser]],
    locate: Locator,
    sites: list[ir.Site],
) -> list[ir.Entry]:
    """The host functions that call kernel functions (a ``@helion.kernel`` that only runs one
    loop): each call is a launch site, its arguments the kernel's parameters."""
    out: list[ir.Entry] = []
    for function in host_functions(module):
        fn, qualname, public = function.node, function.qualname, function.public
        calls = _calls_of(fn, set(pure))
        if not calls:
            continue
        bound = [(call, *pure[call.func.value]) for call in calls]  # type: ignore[union-attr]
        bound_texts = [_bind_call(call, kernel, parser) for call, kernel, parser in bound]
        # An unannotated parameter takes the kind of the first kernel parameter it is passed to
        # as is (`eps` of an autograd Function's forward is a float); otherwise a tensor.
        passed_as: dict[str, str] = {}
        for (_, kernel, _), texts in zip(bound, bound_texts):
            for p, text in zip(kernel.params, texts):
                passed_as.setdefault(text, p.kind)
        params = tuple(
            dataclasses.replace(p, kind=passed_as.get(p.name, "tensor"))
            if p.kind == "object"
            else p
            for p in signature(function, unannotated="object")
        )
        known = {p.name for p in params}
        body: list[ir.Stmt] = []
        for (call, kernel, _), texts in zip(bound, bound_texts):
            args: list[ir.Expr] = []
            for p, text in zip(kernel.params, texts):
                if text in known:
                    args.append(ir.Name(text))
                    continue
                # A value the caller computes: carried as written, typed by the parameter.
                name = f"{p.name}_arg{len(body)}"
                rank = p.rank if p.kind == "tensor" else None
                body.append(ir.Carried(name, p.kind, text, rank, loc=locate(call)))
                args.append(ir.Name(name))
            sites.append(ir.Site(locate.span(call), statement=False))
            body.append(
                ir.Launch(kernel.name, tuple(args), texts, site=len(sites) - 1, loc=locate(call))
            )
        out.append(
            ir.Entry(
                name=qualname,
                params=params,
                body=tuple(body),
                complete=False,
                public=public,
                loc=locate(fn),
            )
        )
    return out


def _calls_of(fn: cst.FunctionDef, names: set[str]) -> list[cst.Call]:
    """The calls of functions called one of ``names`` inside ``fn``, in source order."""
    calls: list[cst.Call] = []

    class V(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            if isinstance(node.func, cst.Name) and node.func.value in names:
                calls.append(node)

    fn.visit(V())
    return calls


def _bind_call(call: cst.Call, kernel: ir.Kernel, parser: EntryParser) -> tuple[str, ...]:
    """The source text of each kernel parameter at a call of a kernel function."""
    values: dict[str, str] = {}
    names = [p.name for p in kernel.params]
    position = 0
    for a in call.args:
        if a.star:
            raise parser.error(
                call, "a kernel function called with star arguments", "pass the arguments by name"
            )
        text = " ".join(source_of(a.value).split())
        if a.keyword is not None:
            values[a.keyword.value] = text
        else:
            if position >= len(names):
                raise parser.error(call, f"too many arguments for kernel `{kernel.name}`")
            values[names[position]] = text
            position += 1
    texts = []
    for p in parser.param_nodes:
        name = p.name.value
        if name in values:
            texts.append(values[name])
        elif p.default is not None:
            texts.append(source_of(p.default))
        else:
            raise parser.error(call, f"kernel `{kernel.name}` is called without `{name}`")
    return tuple(texts)


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


def _kernel_decorator(
    fn: cst.FunctionDef, aliases: dict[str, str], grammar: dict
) -> cst.Decorator | None:
    for dec in fn.decorators:
        target = dec.decorator.func if isinstance(dec.decorator, cst.Call) else dec.decorator
        if resolve(target, aliases) == grammar["frontend"]["kernel"]["decorator"]:
            return dec
    return None


class EntryParser:
    """Parses one ``@helion.kernel`` function."""

    def __init__(
        self,
        fn: cst.FunctionDef,
        aliases: dict[str, str],
        locate: Locator,
        path: str,
        constants: dict[str, cst.SimpleStatementLine] | None = None,
        sites: list[ir.Site] | None = None,
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
        self.pure = False  # a kernel function: one loop and nothing else
        self.param_nodes: list[cst.Param] = []
        self.current_line: cst.SimpleStatementLine | None = None
        self.complete = True

    def error(self, node: cst.CSTNode, message: str, hint: str | None = None) -> TranslationError:
        return TranslationError(message, self.locate(node), hint)

    # ------------------------------------------------------------------------------ entry

    def parse(self) -> tuple[ir.Entry | None, list[ir.Kernel]]:
        """The host function and the kernels its loops are; a kernel function (one that only
        runs one loop) is a kernel itself: no entry, and its callers launch it."""
        fn = self.fn
        self.pure = _is_kernel_function(fn, self.aliases, self.grammar)
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
        # Guards only raise, so they may go first, before anything reads the tensors.
        body = [*self.scope.rank_guards, *body]
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
        constexpr |= {p.name for p in params if p.kind == "str"}
        if self.pure:
            return None, [self._kernel_function(entry, constexpr)]
        entry, kernels = outline_entry(entry, OutlineNaming(constexpr=constexpr))
        dec = _kernel_decorator(fn, self.aliases, self.grammar)
        assert dec is not None
        self.edits.append(ir.HostEdit("remove", self.locate.span(dec)))
        self.edits.append(
            ir.HostEdit("insert", self.locate.span(fn), kernels=tuple(k.name for k in kernels))
        )
        return entry, kernels

    def _kernel_function(self, entry: ir.Entry, constexpr: set[str]) -> ir.Kernel:
        """A ``@helion.kernel`` that only runs one loop: the kernel, its parameters the
        function's, in order (its callers pass them as they would to the function)."""
        envs: dict[int, Any] = {}

        def capture(stmt: ir.Stmt, env: Any) -> None:
            if isinstance(stmt, ir.InlineKernel):
                envs[id(stmt)] = env.child()

        walk_entry(entry, capture)
        (inline,) = [s for s in entry.body if isinstance(s, ir.InlineKernel)]
        kernel, _ = outline_kernel(inline, envs[id(inline)], OutlineNaming(constexpr=constexpr))
        env = envs[id(inline)]
        params = []
        for p in entry.params:
            t = env.vars.get(p.name)
            if p.kind == "object" or t is None:
                raise self.error(self.fn, f"kernel parameter `{p.name}` is no tensor or scalar")
            if isinstance(t, TensorType):
                dtype = t.dtype if isinstance(t.dtype, ir.DType) else None
                params.append(ir.Param(p.name, "tensor", p.default, p.annotation, t.rank, dtype))
            else:
                params.append(
                    dataclasses.replace(p, constexpr=p.name in constexpr or p.kind == "str")
                )
        self.param_nodes = [
            p for p in (*self.fn.params.posonly_params, *self.fn.params.params,
                        *self.fn.params.kwonly_params)
        ]  # fmt: skip
        # The whole definition becomes the target's kernel; other decorators stay on it.
        keep = tuple(
            source_of(d.decorator)
            for d in self.fn.decorators
            if d is not _kernel_decorator(self.fn, self.aliases, self.grammar)
        )
        self.edits = [
            ir.HostEdit(
                "define", self.locate.span(self.fn), kernels=(self.fn.name.value,), keep=keep
            )
        ]
        return dataclasses.replace(
            kernel,
            name=self.fn.name.value,
            params=tuple(params),
            docstring=entry.docstring,
            loc=self.locate(self.fn),
        )

    def _hints(self) -> ir.Hints:
        """The decorator's settings in the IR's words."""
        h = self.hints
        return ir.Hints(
            schedule=h.get("pid_type"),
            index_bits=64 if h.get("index_dtype") == "int64" else None,
            fast_math=h.get("fast_math"),
            static_shapes=h.get("static_shapes"),
            autotune=True if not self.config_nodes else None,
        )

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

    # ------------------------------------------------------------------------------ configs

    def _decorator(self) -> None:
        dec = _kernel_decorator(self.fn, self.aliases, self.grammar)
        assert dec is not None
        if not isinstance(dec.decorator, cst.Call):
            return
        _, kwargs = call_args(dec.decorator)
        config_name = self.grammar["frontend"]["kernel"]["config"]
        if "config" in kwargs:
            node = self._named_constant(kwargs["config"])
            if not (isinstance(node, cst.Call) and resolve(node.func, self.aliases) == config_name):
                raise self.error(
                    kwargs["config"],
                    "config= must be a helion.Config(...) call or a module-level name bound to one",
                )
            self.config_nodes.append(node)
        if "configs" in kwargs:
            node = self._named_constant(kwargs["configs"])
            if not isinstance(node, (cst.List, cst.Tuple)):
                raise self.error(node, "configs= must be a list of helion.Config(...)")
            for element in node.elements:
                v = element.value
                if not (isinstance(v, cst.Call) and resolve(v.func, self.aliases) == config_name):
                    raise self.error(v, "configs= entries must be helion.Config(...) calls")
                self.config_nodes.append(v)
        setting = self.grammar["backend"]["kernel"]["dot_precision_setting"]
        if setting in kwargs:
            value = literal_or_none(kwargs[setting])
            if value not in ir.DOT_PRECISIONS:
                raise self.error(
                    kwargs[setting],
                    f"{setting}= must be a literal string, one of "
                    + ", ".join(repr(p) for p in ir.DOT_PRECISIONS),
                )
            self.build.dot_precision = str(value)
        if "static_shapes" in kwargs:
            self.hints["static_shapes"] = bool(literal_or_none(kwargs["static_shapes"]))
        if "fast_math" in kwargs:
            self.hints["fast_math"] = bool(literal_or_none(kwargs["fast_math"]))
        if "index_dtype" in kwargs:
            dtype = self.grammar["frontend"]["dtypes"].get(
                resolve(kwargs["index_dtype"], self.aliases) or ""
            )
            if dtype is None:
                raise self.error(kwargs["index_dtype"], "index_dtype= must be a torch dtype")
            self.hints["index_dtype"] = dtype

    def _named_constant(self, node: cst.BaseExpression) -> cst.BaseExpression:
        """``CONFIG`` bound at module level to a value: that value (the translation drops the
        constant unless host code reads it too)."""
        if isinstance(node, cst.Name) and node.value in self.constants:
            stmt = self.constants[node.value]
            small = stmt.body[0]
            assert isinstance(small, cst.Assign)
            self.consumed.add(node.value)
            return small.value
        return node

    def _tunables(self) -> tuple[tuple[ir.Tunable, ...], tuple[tuple[tuple[str, int], ...], ...]]:
        """Block sizes (in Helion's numbering), num_warps and num_stages, from the configs."""
        configs: list[dict[str, int]] = []
        hint_keys = set(self.grammar["frontend"]["kernel"]["hint_keys"])
        launch_keys = self.grammar["frontend"]["kernel"]["launch_keys"]
        blocks = self.scope.block_order
        for node in self.config_nodes:
            positional, kwargs = call_args(node)
            if positional:
                raise self.error(node, "pass helion.Config options as keywords")
            values: dict[str, int] = {}
            for key, value_node in kwargs.items():
                value = literal_or_none(value_node)
                if key == "block_sizes":
                    if not isinstance(value, list) or not all(isinstance(v, int) for v in value):
                        raise self.error(value_node, "block_sizes must be a list of integers")
                    if len(value) != len(blocks):
                        raise self.error(
                            value_node,
                            f"block_sizes has {len(value)} entries but the kernel has "
                            f"{len(blocks)} tiled loops ({', '.join(blocks) or 'none'})",
                            "give one block size per hl.tile dimension, in order",
                        )
                    values.update(zip(blocks, value))
                elif key in launch_keys:
                    if not isinstance(value, int):
                        raise self.error(value_node, f"{key} must be an integer")
                    values[key] = value
                elif key == "l2_groupings":
                    if isinstance(value, list) and value and isinstance(value[0], int):
                        values["group_size"] = value[0]
                elif key in hint_keys:
                    if key == "pid_type":
                        self._pid_type(value, value_node, first=not configs)
                    # Other options steer Helion's own code generation (indexing strategy,
                    # loop orders, unrolling); they are performance hints the Triton output does
                    # not need for correctness.
                else:
                    raise self.error(value_node, f"unknown helion.Config option `{key}`")
            configs.append(values)
        defaults = configs[0] if configs else {}
        tunables = []
        for name in blocks:
            choices = tuple(sorted({c[name] for c in configs if name in c}))
            choices = choices or self.scope.block_choices.get(name, ())
            default = defaults.get(name, self.scope.tunable_defaults.get(name, 32))
            tunables.append(ir.Tunable(name, "block_size", default, choices))
        for name, cap in self.scope.fitted_blocks.items():
            tunables.append(ir.Tunable(name, "block_size", cap, (), fit=True))
        # Helion's own defaults where a config leaves a knob out (num_stages=1, not Triton's 3).
        for key, fallback in (("num_warps", 4), ("num_stages", 1), ("group_size", 1)):
            present = [c[key] for c in configs if key in c]
            if present or key != "group_size":
                tunables.append(
                    ir.Tunable(key, key, defaults.get(key, fallback), tuple(sorted(set(present))))
                )
        names = [t.name for t in tunables]
        full_configs = []
        for c in configs:
            full = {n: c.get(n, next(t.default for t in tunables if t.name == n)) for n in names}
            full_configs.append(tuple(full.items()))
        return tuple(tunables), tuple(full_configs)

    def _pid_type(self, value: Any, node: cst.BaseExpression, first: bool) -> None:
        """``pid_type=`` of a config: the first (default) config's is the entry's hint."""
        if isinstance(node, cst.Name) and node.value == "None":
            return  # Helion's default ("flat")
        pid_types = self.grammar["frontend"]["kernel"]["pid_types"]
        if value not in pid_types:
            raise self.error(
                node,
                f"unsupported pid_type `{source_of(node)}`",
                f"use one of {', '.join(repr(p) for p in pid_types)}",
            )
        if first:
            # The IR has one pid_type per entry; it only steers performance.
            self.hints["pid_type"] = value

    # ------------------------------------------------------------------------------ host

    def _host_block(self, nodes: list[cst.BaseStatement]) -> list[ir.Stmt]:
        out: list[ir.Stmt] = []
        for node in nodes:
            comments = statement_comments(node)
            if isinstance(node, cst.For) and self._is_device_loop(node):
                kernel = self._kernel(node, comments)
                out.append(kernel)
                continue
            if isinstance(node, cst.SimpleStatementLine):
                self.current_line = node
                for i, small in enumerate(node.body):
                    try:
                        stmts = self._host_small(small)
                    except TranslationError as err:
                        stmts = self._carried(small, err)
                    if stmts and i == 0:
                        first = stmts[0]
                        stmts[0] = _with_comments(first, comments)
                    out.extend(stmts)
                continue
            self._carried(node, None)
        return out

    def _is_device_loop(self, node: cst.For) -> bool:
        it = node.iter
        fn = resolve(it.func, self.aliases) if isinstance(it, cst.Call) else None
        lang = self.grammar["frontend"]["language"]
        return fn in (lang["tile"], lang["grid"])

    # ------------------------------------------------------------------------------ carried

    def _carried(self, node: cst.CSTNode, why: TranslationError | None) -> list[ir.Stmt]:
        """A host statement the IR does not model: it stays in the translation as written.

        What it binds is told from the code where it can be (a tensor of known rank, a scalar, a
        dtype) so that kernels may read it; the entry's facts are incomplete from here on.
        Helion-only host calls cannot be carried into another DSL: those are refused.
        """
        dsl = self._dsl_call(node)
        if dsl is not None:
            if why is not None:
                raise why
            raise self.error(
                dsl,
                f"`{source_of(dsl)}` is Helion host code inside a host statement tiletrans "
                "carries as written",
                "move the hl.* call into a statement of its own (`n = hl.specialize(...)`)",
            )
        if _contains_device_loop(node, self):
            raise self.error(
                node,
                "a device loop nested in host control flow is not supported",
                "put hl.tile/hl.grid loops at the top level of the kernel function",
            )
        self.complete = False
        out: list[ir.Stmt] = []
        for name, value, index in _assignments(node):
            stmt = self._bind_carried(name, value, index)
            if stmt is not None:
                out.append(stmt)
        return out

    def _dsl_call(self, node: cst.CSTNode) -> cst.Call | None:
        """The first call of a Helion API inside ``node``, if any."""
        found: list[cst.Call] = []
        roots = tuple(self.grammar["packages"])

        class V(cst.CSTVisitor):
            def visit_Call(self, call: cst.Call) -> None:
                name = resolve(call.func, outer.aliases) or ""
                if not found and name.split(".")[0] in roots:
                    found.append(call)

        outer = self
        node.visit(V())
        return found[0] if found else None

    def _bind_carried(
        self, name: str, value: cst.BaseExpression | None, index: int | None
    ) -> ir.Carried | None:
        """Type ``name``, bound by carried host code to ``value`` (item ``index`` of it)."""
        env = self.scope.env.vars
        self.scope.used_names.add(name)
        self.scope.dtype_aliases.pop(name, None)
        self.scope.unknown.pop(name, None)
        kind = self._carried_kind(value, index)
        text = source_of(value) if value is not None else name
        if isinstance(kind, TensorType):
            env[name] = TensorType(ir.DTypeOf(name), kind.rank)
            return ir.Carried(name, "tensor", text, kind.rank)
        if isinstance(kind, ScalarType):
            env[name] = kind
            scalar = "float" if kind.dtype == ir.F32 else "bool" if kind.dtype == ir.BOOL else "int"
            return ir.Carried(name, scalar, text)
        env.pop(name, None)
        if kind == "dtype":
            self.scope.dtype_aliases[name] = self._static_dtype(value)
        else:
            self.scope.unknown[name] = text
        return None

    def _carried_kind(self, value: cst.BaseExpression | None, index: int | None) -> object:
        """What a carried value is: a ``TensorType``/``ScalarType``, ``"dtype"`` or ``None``."""
        if value is None:
            return None
        if isinstance(value, (cst.Integer, cst.Float)):
            return ScalarType(ir.F32 if isinstance(value, cst.Float) else ir.I32, weak=True)
        fn = resolve(value.func, self.aliases) if isinstance(value, cst.Call) else None
        if (
            self._static_dtype(value) is not None
            or fn in self.grammar["frontend"]["host"]["dtype_functions"]
        ):
            return "dtype"
        if isinstance(value, cst.Attribute) and value.attr.value == "dtype":
            return "dtype"
        if isinstance(value, cst.Call):
            args, _ = call_args(value)
            if isinstance(value.func, cst.Name) and value.func.value in _SCALAR_FUNCTIONS:
                kind = _SCALAR_FUNCTIONS[value.func.value]
                dtype = {"float": ir.F32, "int": ir.I32, "bool": ir.BOOL}[kind]
                return ScalarType(dtype, weak=True)
            if fn in self.grammar["frontend"]["host"]["tensor_functions"]:
                ranks = [self.scope.rank(a.value) for a in args if isinstance(a, cst.Name)]
                known = [r for r in ranks if r is not None]
                rank = max(known) if known and len(known) == len(ranks) else None
                return TensorType(ir.F32, rank)
            if isinstance(value.func, cst.Attribute) and isinstance(value.func.value, cst.Name):
                base, method = value.func.value.value, value.func.attr.value
                if self.scope.is_tensor(base):
                    rank = self.scope.rank(base)
                    if method in ("view", "reshape"):
                        shape = args
                        if len(args) == 1 and isinstance(args[0], (cst.List, cst.Tuple)):
                            shape = [e.value for e in args[0].elements]
                        starred = isinstance(value.args[0].star, str) and value.args[0].star
                        return TensorType(ir.F32, None if starred else len(shape))
                    if method == "flatten" and not args:
                        return TensorType(ir.F32, 1)
                    if method == "unsqueeze":
                        return TensorType(ir.F32, rank + 1 if rank is not None else None)
                    if method in _SAME_RANK_METHODS:
                        return TensorType(ir.F32, rank)
                    if method in ("size", "numel", "stride", "dim", "element_size"):
                        return ScalarType(ir.I32, weak=True)
        if isinstance(value, cst.Name):
            t = self.scope.env.vars.get(value.value)
            if isinstance(t, (TensorType, ScalarType)):
                return t
            if value.value in self.scope.dtype_aliases:
                return "dtype"
        return None

    def _static_dtype(self, node: cst.BaseExpression | None) -> ir.DType | None:
        """``torch.float32`` (or an alias of one) as an IR dtype."""
        if node is None:
            return None
        name = resolve(node, self.aliases)
        table = self.grammar["frontend"]["dtypes"]
        if name in table:
            return ir.DType(table[name])
        if isinstance(node, cst.Name):
            return self.scope.dtype_aliases.get(node.value)
        return None

    def _host_small(self, node: cst.BaseSmallStatement) -> list[ir.Stmt]:
        loc = self.locate(node)
        build = self.build
        build.device = False
        if isinstance(node, cst.Assign):
            if len(node.targets) != 1:
                raise self.error(node, "chained assignment is not supported")
            target = node.targets[0].target
            value = node.value
            if isinstance(target, (cst.Tuple, cst.List)):
                return [self._shape_unpack(target, value, node)]
            if not isinstance(target, cst.Name):
                raise self.error(node, "host assignments must bind a name")
            return self._host_assign(target.value, value, node)
        if isinstance(node, cst.AnnAssign) and isinstance(node.target, cst.Name) and node.value:
            return self._host_assign(node.target.value, node.value, node)
        if isinstance(node, cst.Assert):
            test = build.expr(node.test)
            self._learn_equalities(test)
            # Host code is plain Python in every DSL, so the message travels as written.
            msg = source_of(node.msg) if node.msg is not None else None
            return [ir.Assert(test, msg, loc=loc)]
        if isinstance(node, cst.Return):
            if node.value is None:
                return [ir.Return(None, loc=loc)]
            if isinstance(node.value, cst.Tuple):
                items = tuple(self._return_item(e.value) for e in node.value.elements)
                return [ir.Return(ir.TupleExpr(items), loc=loc)]
            return [ir.Return(self._return_item(node.value), loc=loc)]
        if isinstance(node, cst.Expr) and isinstance(
            node.value, (cst.SimpleString, cst.ConcatenatedString)
        ):
            return []
        if isinstance(node, cst.Pass):
            return []
        raise self.error(node, f"unsupported host statement `{source_of(node).strip()}`")

    def _learn_equalities(self, test: ir.Expr) -> None:
        """Sizes an assert states equal become one size for the kernels."""
        if isinstance(test, ir.BinOp) and test.op in ("and", "&"):
            self._learn_equalities(test.lhs)
            self._learn_equalities(test.rhs)
        elif isinstance(test, ir.BinOp) and test.op == "==":
            a, b = test.lhs, test.rhs
            if isinstance(a, ir.ShapeOf) and isinstance(b, ir.ShapeOf):
                rank = self.scope.rank(a.tensor) or self.scope.rank(b.tensor) or 0
                for name in (a.tensor, b.tensor):
                    # Equal shapes have equal ranks: the assert states the other's rank.
                    t = self.scope.env.vars.get(name)
                    if rank and isinstance(t, TensorType) and t.rank is None:
                        self.scope.env.vars[name] = TensorType(t.dtype, rank)
                for d in range(rank):
                    self.scope.unify(ir.SizeOf(a.tensor, d), ir.SizeOf(b.tensor, d))
            else:
                self.scope.unify(a, b)

    def _return_item(self, node: cst.BaseExpression) -> ir.Expr:
        if isinstance(node, cst.Name) and node.value in self.scope.env.vars:
            return ir.Name(node.value)
        raise self.error(
            node,
            f"return `{source_of(node)}`: return host tensors by name",
            "bind the value to a name first",
        )

    def _shape_unpack(
        self, target: cst.Tuple | cst.List, value: cst.BaseExpression, node: cst.CSTNode
    ) -> ir.Stmt:
        tensor = None
        if isinstance(value, cst.Attribute) and value.attr.value == "shape":
            tensor = value.value
        elif (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Attribute)
            and (value.func.attr.value == "size" and not value.args)
        ):
            tensor = value.func.value
        if not isinstance(tensor, cst.Name) or not self.scope.is_tensor(tensor.value):
            raise self.error(
                node, "tuple assignment on the host must unpack `x.size()` or `x.shape`"
            )
        names: list[str | None] = []
        for i, element in enumerate(target.elements):
            v = element.value
            if not isinstance(v, cst.Name):
                raise self.error(v, "unpack sizes into plain names")
            name = None if v.value == "_" else v.value
            names.append(name)
            if name is not None:
                self.scope.unify(ir.Name(name), ir.SizeOf(tensor.value, i))
                self.scope.used_names.add(name)
        stmt = ir.ShapeUnpack(tuple(names), tensor.value, loc=self.locate(node))
        known = self.scope.rank(tensor.value)
        if known is not None and known != len(names):
            raise self.error(
                node, f"`{tensor.value}` is {known}-d but unpacked into {len(names)} sizes"
            )
        t = self.scope.env.vars[tensor.value]
        assert isinstance(t, TensorType)
        self.scope.env.vars[tensor.value] = TensorType(t.dtype, len(names))
        for name in names:
            if name is not None:
                self.scope.env.vars[name] = ScalarType(ir.I32, weak=True)
        return stmt

    def _host_assign(
        self, name: str, value: cst.BaseExpression, node: cst.CSTNode
    ) -> list[ir.Stmt]:
        loc = self.locate(node)
        if self.scope.is_tensor(name):
            raise self.error(
                node,
                f"rebinding tensor `{name}` on the host is not supported",
                "allocate outputs under a new name",
            )
        alloc = self._alloc(name, value)
        if alloc is not None:
            self.scope.env.vars[name] = TensorType(
                alloc.dtype,
                len(alloc.shape) if alloc.shape is not None else self.scope.rank(alloc.like or ""),
            )
            if alloc.like is not None:
                self.scope.like[name] = alloc.like
            elif alloc.shape is not None:
                self.scope.alloc_shapes[name] = alloc.shape
            self.scope.used_names.add(name)
            return [_with_loc(alloc, loc)]
        view = self._view(name, value)
        if view is not None:
            return [view]
        if isinstance(value, cst.Call):
            fn = resolve(value.func, self.aliases)
            lang = self.grammar["frontend"]["language"]
            if fn == lang["register_block_size"]:
                return self._register_block_size(name, value)
            fitted = self._fitted_block(name, value)
            if fitted is not None:
                return fitted
            if fn == lang["specialize"]:
                args, _ = call_args(value)
                inner = self.build.expr(args[0])
                # Other DSLs take the value as it is (the kernel parameter is a constexpr):
                # `n = hl.specialize(n)` goes, `n = hl.specialize(x.size(1))` keeps its value.
                if isinstance(args[0], cst.Name) and args[0].value == name:
                    self._remove_line(
                        value, "hl.specialize", "the kernels take it as a compile-time constant"
                    )
                else:
                    self.edits.append(
                        ir.HostEdit(
                            "replace",
                            self.locate.span(value),
                            text=source_of(args[0]),
                            note="tiletrans: was `hl.specialize(...)`: the kernels take it as "
                            "a compile-time constant",
                        )
                    )
                self.scope.specialized.append(name)
                self.scope.env.vars[name] = ScalarType(ir.I32, weak=True)
                self.scope.used_names.add(name)
                return [ir.Assign(name, inner, loc=loc)]
        expr = self.build.expr(value)
        t = self.build.type_of(expr, node)
        if (
            isinstance(t, TensorType)
            and isinstance(expr, ir.Cast)
            and isinstance(expr.value, ir.Name)
        ):
            # `out = c.to(a.dtype)`: a converted copy of a whole tensor (after a kernel).
            self.scope.env.vars[name] = t
            self.scope.like[name] = expr.value.id
            self.scope.used_names.add(name)
            return [ir.Assign(name, expr, loc=loc)]
        if not isinstance(t, ScalarType):
            raise self.error(
                node,
                f"unsupported host value `{source_of(value)}`",
                "host code may compute scalars, allocate tensors and convert them (`x.to(dtype)`)",
            )
        self.scope.env.vars[name] = t
        self.scope.used_names.add(name)
        return [ir.Assign(name, expr, loc=loc)]

    def _view(self, name: str, value: cst.BaseExpression) -> ir.Stmt | None:
        """``y = x.view(...)``/``.reshape(...)``/``.flatten()`` of a host tensor."""
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)):
            return None
        base = value.func.value
        method = value.func.attr.value
        if method not in ("view", "reshape", "flatten") or not (
            isinstance(base, cst.Name) and self.scope.is_tensor(base.value)
        ):
            return None
        args, kwargs = call_args(value)
        if kwargs or (method == "flatten" and args):
            raise self.error(
                value, f"unsupported `.{method}()` arguments", "use x.view(-1) or x.view(m, n)"
            )
        if method == "flatten":
            shape: tuple[ir.Expr, ...] = (ir.Const(-1),)
        else:
            nodes = (
                [e.value for e in args[0].elements]
                if len(args) == 1 and isinstance(args[0], (cst.List, cst.Tuple))
                else args
            )
            shape = tuple(self.build.expr(n) for n in nodes)
        t = self.scope.env.vars[base.value]
        assert isinstance(t, TensorType)
        self.scope.env.vars[name] = TensorType(t.dtype, len(shape))
        self.scope.used_names.add(name)
        return ir.View(name, base.value, shape, loc=self.locate(value))

    def _fitted_block(self, name: str, call: cst.Call) -> list[ir.Stmt] | None:
        """``bs = min(cap, helion.next_power_of_2(hl.specialize(n)))``: a block sized to the data
        it tiles, at most ``cap`` lanes (the form the backend writes for such a block), or
        ``None`` for any other call."""
        if not (isinstance(call.func, cst.Name) and call.func.value == "min"):
            return None
        args, kwargs = call_args(call)
        if len(args) != 2 or kwargs:
            return None
        caps = [a for a in args if isinstance(literal_or_none(a), int)]
        sizes = [a for a in args if isinstance(a, cst.Call)]
        if len(caps) != 1 or len(sizes) != 1:
            return None
        size = sizes[0]
        power = resolve(size.func, self.aliases)
        inner, _ = call_args(size)
        if power != "helion.next_power_of_2" or len(inner) != 1:
            return None
        spec = inner[0]
        if not (
            isinstance(spec, cst.Call)
            and resolve(spec.func, self.aliases)
            == self.grammar["frontend"]["language"]["specialize"]
        ):
            return None
        self.build.expr(call_args(spec)[0][0])  # a size the kernel can read
        cap = literal_or_none(caps[0])
        assert isinstance(cap, int)
        self._remove_line(call, "min", "the kernels size this block themselves")
        tunable = self.scope.fresh(name)
        self.scope.fitted_blocks[tunable] = cap
        self.scope.registered_blocks[name] = tunable
        self.scope.env.vars[tunable] = ScalarType(ir.I32, weak=True)
        return []

    def _register_block_size(self, name: str, call: cst.Call) -> list[ir.Stmt]:
        """``bs = hl.register_block_size(n)``: ``bs`` names a block-size tunable from here on.
        ``hl.register_block_size(lo, hi)`` bounds it: without configs, its choices are the powers
        of two in ``[lo, hi]`` and its default the one nearest Helion's 32."""
        args, kwargs = call_args(call)
        if len(args) not in (1, 2) or kwargs:
            raise self.error(
                call, "hl.register_block_size takes a size, or a lowest and a highest block"
            )
        bounds = None
        if len(args) == 2:
            lo, hi = (literal_or_none(a) for a in args)
            if not (isinstance(lo, int) and isinstance(hi, int) and 0 < lo <= hi):
                raise self.error(
                    call, "hl.register_block_size(lo, hi) needs integer literals 0 < lo <= hi"
                )
            bounds = (lo, hi)
        else:
            self.build.expr(args[0])
        self._remove_line(
            call, "hl.register_block_size", "the kernels tune this block size themselves"
        )
        tunable = self.scope.new_block_tunable(name)
        if bounds is not None:
            lo, hi = bounds
            powers = tuple(1 << k for k in range(hi.bit_length()) if lo <= 1 << k <= hi)
            if not powers:
                raise self.error(call, f"no power-of-two block lies in [{lo}, {hi}]")
            self.scope.block_choices[tunable] = powers
            self.scope.tunable_defaults[tunable] = min(powers, key=lambda p: abs(p - 32))
        self.scope.registered_blocks[name] = tunable
        self.scope.env.vars[tunable] = ScalarType(ir.I32, weak=True)
        return []

    def _alloc_dtype(self, node: cst.BaseExpression, target: str) -> ir.DTypeExpr:
        """The dtype= of an allocation of ``target``; a dtype carried host code computes is the
        new tensor's own (and names it from then on: ``.to(out_dtype)`` is ``.to(out.dtype)``)."""
        if isinstance(node, cst.Name) and node.value in self.scope.dtype_aliases:
            known = self.scope.dtype_aliases[node.value]
            if known is None:
                self.scope.dtype_aliases[node.value] = ir.DTypeOf(target)
                return ir.DTypeOf(target)
            return known
        return self.build.dtype(node)

    def _remove_line(self, node: cst.CSTNode, what: str, why: str) -> None:
        """The translation drops the host statement of ``node`` (consumed by the kernels)."""
        line = self.current_line
        if line is None or len(line.body) != 1:
            raise self.error(node, f"put `{what}(...)` on a line of its own")
        text = " ".join(source_of(line.body[0]).split())
        note = f"tiletrans: dropped `{text}`: {why}"
        self.edits.append(ir.HostEdit("remove", self.locate.span(line), note=note))

    def _alloc(self, name: str, value: cst.BaseExpression) -> ir.Alloc | None:
        if not isinstance(value, cst.Call):
            return None
        g = self.grammar["frontend"]
        try:
            call = read_alloc(
                value,
                resolve(value.func, self.aliases),
                g["host_alloc"],
                g["methods"]["host_alloc"],
            )
        except AllocError as err:
            raise self.error(err.node, str(err)) from None
        if call is None:
            return None
        base = None
        if call.base is not None:
            if not (isinstance(call.base, cst.Name) and self.scope.is_tensor(call.base.value)):
                return None  # `obj.new_empty(...)` of something no host tensor
            base = call.base.value
        if call.like is not None:
            like = call.like
            if not isinstance(like, cst.Name) or not self.scope.is_tensor(like.value):
                raise self.error(value, "allocate like a host tensor")
            dtype = (
                self._alloc_dtype(call.dtype, name)
                if call.dtype is not None
                else ir.DTypeOf(like.value)
            )
            if dtype == ir.DTypeOf(like.value):
                dtype = self._dtype_of_tensor(like.value)
            return ir.Alloc(name, None, like.value, dtype, like.value, call.fill)
        shape = tuple(self.build.expr(s) for s in call.shape)
        for s, node in zip(shape, call.shape):
            if not isinstance(self.build.type_of(s, node), ScalarType):
                raise self.error(node, "allocation sizes must be host scalars")
        source = base
        if source is None:
            device_node = call.device
            if device_node is None:
                raise self.error(value, "give the output a device, e.g. device=x.device")
            if not (
                isinstance(device_node, cst.Attribute)
                and device_node.attr.value == "device"
                and isinstance(device_node.value, cst.Name)
                and self.scope.is_tensor(device_node.value.value)
            ):
                raise self.error(device_node, "device= must be `x.device` of an input tensor")
            source = device_node.value.value
        if call.dtype is not None:
            dtype = self._alloc_dtype(call.dtype, name)
        elif base is not None:
            dtype = self._dtype_of_tensor(base)
        else:
            raise self.error(value, "give the output a dtype, e.g. dtype=x.dtype")
        return ir.Alloc(name, shape, None, dtype, source, call.fill)

    def _dtype_of_tensor(self, tensor: str) -> ir.DTypeExpr:
        t = self.scope.env.vars[tensor]
        assert isinstance(t, TensorType)
        return t.dtype

    # ------------------------------------------------------------------------------ kernels

    def _kernel(self, node: cst.For, comments: tuple[str, ...]) -> ir.InlineKernel:
        if node.orelse is not None:
            raise self.error(node, "for-else is not supported")
        tiles = self.tile_vars(node, top_level=True)
        self.kernels += 1
        # `_name_kernel`, also for a private `_name` (not `__name_kernel`).
        name = f"_{self.fn.name.value.lstrip('_')}_kernel" + (
            f"_{self.kernels}" if self.kernels > 1 else ""
        )
        saved = self.scope.env
        self.scope.env = saved.child()
        for t in tiles:
            self.scope.env.bind_tile(t)
        from translator.dialects.helion.device import DeviceParser

        self.scope.partial_dims = []
        body = DeviceParser(self).block(node.body)
        self.scope.env = saved
        site = None
        if not self.pure:
            self.sites.append(ir.Site(self.locate.span(node), statement=True))
            site = len(self.sites) - 1
        return ir.InlineKernel(
            name,
            tiles,
            tuple(body),
            comments,
            site=site,
            partial_dims=tuple(self.scope.partial_dims),
            loc=self.locate(node),
        )

    def tile_vars(self, node: cst.For, top_level: bool) -> tuple[ir.TileVar, ...]:
        """The tile variables a ``for ... in hl.tile(...)``/``hl.grid(...)`` loop binds."""
        it = node.iter
        fn = resolve(it.func, self.aliases) if isinstance(it, cst.Call) else None
        lang = self.grammar["frontend"]["language"]
        if fn not in (lang["tile"], lang["grid"]):
            what = "kernel loops" if top_level else "device loops"
            raise self.error(
                node,
                f"{what} must iterate over hl.tile(...) or hl.grid(...)",
                "write `for tile in hl.tile(n):`",
            )
        assert isinstance(it, cst.Call)
        scalar = fn == lang["grid"]
        args, kwargs = call_args(it)
        targets = _target_names(node.target)
        if targets is None:
            raise self.error(
                node.target, "loop targets must be names, e.g. `for tile_m, tile_n in ...`"
            )
        begins: list[ir.Expr | None]
        step: ir.Expr | None = None
        step_node = kwargs.pop("step", None) if scalar else None
        if scalar and len(args) == 3 and step_node is None:
            step_node = args.pop()
        if step_node is not None:
            # hl.grid(begin, end, step): every step-th index (the backend's strided hl.grid).
            if top_level:
                raise self.error(
                    it,
                    "a kernel's grid cannot skip indices",
                    "launch over every index and branch on it in the body",
                )
            if len(targets) != 1 or isinstance(args[0], (cst.List, cst.Tuple)):
                raise self.error(
                    it,
                    "hl.grid with a step is read for one dimension only",
                    "loop over each dimension in a loop of its own",
                )
            step = self.build.expr(step_node)
        if len(args) == 2 and not isinstance(args[0], (cst.List, cst.Tuple)):
            begins, extents = [self.build.expr(args[0])], [self.build.expr(args[1])]
        elif len(args) == 1:
            begins, extents = [], self._extents(args[0], len(targets))
            begins = [None] * len(extents)
        else:
            raise self.error(it, "hl.tile takes a size, a list of sizes, or (begin, end)")
        if len(extents) != len(targets):
            raise self.error(node, f"{len(targets)} loop targets for {len(extents)} tiled dims")
        block_node = kwargs.pop("block_size", None)
        if kwargs:
            raise self.error(it, f"unsupported hl.tile options {sorted(kwargs)}")
        blocks = self._block_specs(block_node, len(extents), it)
        tiles = []
        for target, begin, extent, block in zip(targets, begins, extents, blocks):
            if scalar:
                if step is not None and begin == ir.Const(0):
                    begin = None  # the backend spells a strided grid from 0 with its begin
                tiles.append(ir.TileVar(target, extent, ir.Const(1), begin, scalar=True, step=step))
                continue
            if block is None:
                block = self.scope.new_block_tunable("block_size_" + tile_suffix(target))
            tiles.append(ir.TileVar(target, extent, block, begin))
            self.scope.used_names.add(target)
        return tuple(tiles)

    def _extents(self, node: cst.BaseExpression, count: int) -> list[ir.Expr]:
        if isinstance(node, (cst.List, cst.Tuple)):
            return [self.build.expr(e.value) for e in node.elements]
        tensor = None
        if isinstance(node, cst.Attribute) and node.attr.value == "shape":
            tensor = node.value
        elif (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and (node.func.attr.value == "size" and not node.args)
        ):
            tensor = node.func.value
        if isinstance(tensor, cst.Name) and self.scope.is_tensor(tensor.value):
            name = tensor.value
            rank = self.scope.rank(name)
            if rank is None:
                # Helion yields one tile per dim of the tensor's actual rank.
                targets = f"{count} loop target{'s' if count != 1 else ''}"
                self.scope.assume_rank(name, count, f"`hl.tile({source_of(node)})` has {targets}")
            elif rank != count:
                targets = ", ".join(f"tile_{i}" for i in range(rank))
                raise self.error(
                    node,
                    f"`{name}` is {rank}-d, so hl.tile({source_of(node)}) "
                    f"yields {rank} tiles, but the loop binds {count}",
                    f"bind one loop target per dim: `for {targets} in ...`",
                )
            return [self.scope.size_expr(name, i) for i in range(count)]
        return [self.build.expr(node)]

    def _block_specs(
        self, node: cst.BaseExpression | None, n: int, where: cst.CSTNode
    ) -> list[str | ir.Const | None]:
        if node is None:
            return [None] * n
        items = (
            [e.value for e in node.elements] if isinstance(node, (cst.List, cst.Tuple)) else [node]
        )
        if len(items) != n:
            raise self.error(where, f"block_size has {len(items)} entries for {n} dims")
        out: list[str | ir.Const | None] = []
        for item in items:
            value = literal_or_none(item)
            if isinstance(value, int):
                out.append(ir.Const(value))
            elif isinstance(item, cst.Name) and item.value == "None":
                out.append(None)
            elif isinstance(item, cst.Name) and item.value in self.scope.registered_blocks:
                out.append(self.scope.registered_blocks[item.value])
            else:
                raise self.error(
                    item, "block_size must be an int, None or hl.register_block_size(...)"
                )
        return out


def _is_data_sized_block(value: cst.Call, aliases: dict[str, str]) -> bool:
    """``min(cap, helion.next_power_of_2(...))``: a block sized to the data, which sets up the
    loop like a registered block size does."""
    if not (isinstance(value.func, cst.Name) and value.func.value == "min"):
        return False
    return any(
        isinstance(a.value, cst.Call)
        and (resolve(a.value.func, aliases) or "").endswith("next_power_of_2")
        for a in value.args
    )


def _is_kernel_function(fn: cst.FunctionDef, aliases: dict[str, str], grammar: dict) -> bool:
    """A ``@helion.kernel`` whose body is one device loop and what sets it up: registered block
    sizes, specialised parameters, a bare ``return``. Such a function is a kernel: it computes
    into the tensors it is passed and returns nothing."""
    body = list(fn.body.body) if isinstance(fn.body, cst.IndentedBlock) else []
    if fn.get_docstring() is not None:
        body = body[1:]
    lang = grammar["frontend"]["language"]
    loops = 0
    for stmt in body:
        if isinstance(stmt, cst.For):
            it = stmt.iter
            name = resolve(it.func, aliases) if isinstance(it, cst.Call) else None
            if name not in (lang["tile"], lang["grid"]):
                return False
            loops += 1
            continue
        if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
            return False
        small = stmt.body[0]
        if isinstance(small, cst.Pass):
            continue
        if isinstance(small, cst.Return):
            if small.value is not None and not (
                isinstance(small.value, cst.Name) and small.value.value == "None"
            ):
                return False
            continue
        if not (isinstance(small, cst.Assign) and isinstance(small.value, cst.Call)):
            return False
        call = resolve(small.value.func, aliases)
        if call == lang["register_block_size"]:
            continue
        if _is_data_sized_block(small.value, aliases):
            continue
        args = small.value.args
        target = small.targets[0].target
        if not (
            call == lang["specialize"]
            and len(args) == 1
            and isinstance(target, cst.Name)
            and isinstance(args[0].value, cst.Name)
            and args[0].value.value == target.value
        ):
            return False
    return loops == 1


def _contains_device_loop(node: cst.CSTNode, parser: EntryParser) -> bool:
    found = []

    class V(cst.CSTVisitor):
        def visit_For(self, n: cst.For) -> None:
            if parser._is_device_loop(n):
                found.append(n)

    node.visit(V())
    return bool(found)


def _assignments(
    node: cst.CSTNode,
) -> list[tuple[str, cst.BaseExpression | None, int | None]]:
    """Names a host statement binds: (name, value it is bound to, index into a tuple value)."""
    out: list[tuple[str, cst.BaseExpression | None, int | None]] = []

    def targets(target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        if isinstance(target, cst.Name):
            out.append((target.value, value, None))
        elif isinstance(target, (cst.Tuple, cst.List)):
            for i, element in enumerate(target.elements):
                if isinstance(element.value, cst.Name):
                    out.append((element.value.value, value, i))

    class V(cst.CSTVisitor):
        def visit_Assign(self, n: cst.Assign) -> None:
            for t in n.targets:
                targets(t.target, n.value)

        def visit_AnnAssign(self, n: cst.AnnAssign) -> None:
            targets(n.target, n.value)

        def visit_AugAssign(self, n: cst.AugAssign) -> None:
            targets(n.target, None)

        def visit_For(self, n: cst.For) -> None:
            targets(n.target, None)

        def visit_WithItem(self, n: cst.WithItem) -> None:
            if n.asname is not None:
                targets(n.asname.name, None)  # type: ignore[arg-type]

        def visit_FunctionDef(self, n: cst.FunctionDef) -> bool:
            out.append((n.name.value, None, None))
            return False

    node.visit(V())
    return out


def _target_names(node: cst.BaseExpression) -> list[str] | None:
    if isinstance(node, cst.Name):
        return [node.value]
    if isinstance(node, (cst.Tuple, cst.List)):
        names = []
        for e in node.elements:
            if not isinstance(e.value, cst.Name):
                return None
            names.append(e.value.value)
        return names
    return None


def _with_comments(stmt: ir.Stmt, comments: tuple[str, ...]) -> ir.Stmt:
    if not comments:
        return stmt
    import dataclasses

    return dataclasses.replace(stmt, comments=comments + stmt.comments)


def _with_loc(stmt: ir.Stmt, loc: ir.Loc | None) -> ir.Stmt:
    import dataclasses

    return dataclasses.replace(stmt, loc=loc)


__all__ = ["parse"]
