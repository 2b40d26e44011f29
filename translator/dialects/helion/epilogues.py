"""Callable kernel parameters (a user epilogue) specialised per call site, before parsing.

Helion's examples take ``epilogue: Callable[[Tensor, tuple[Tensor, ...]], Tensor] = lambda acc,
tile: acc`` and call it on each accumulator tile; Helion traces the callable a caller passes
into the kernel it compiles for that caller. No target DSL takes a Python callable of tiles (a
Triton kernel takes pointers and numbers), so this pass does what Helion's tracing does, in the
source: every call site that passes a lambda or a module-level function gets a kernel function of
its own with that epilogue inlined (the lambda's free variables become parameters of the
specialisation, passed by the call), and the kernel keeps its name with its default inlined.
A call that passes anything else (a parameter, an attribute, a call's result) cannot be seen
statically and is refused with a located diagnostic.

The rewrite is textual (libcst in, Python text out) so that everything after it, host
passthrough included, sees an ordinary module. :class:`Specialised` maps each line of the
rewritten text back to the source line it came from, so diagnostics and IR locations still point
into the file the user wrote.
"""

from __future__ import annotations

import builtins
import dataclasses
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import libcst as cst

from translator.diagnostics import TranslationError
from translator.dialects.cst_utils import (
    Locator,
    calls_named,
    import_aliases,
    parse_source,
    resolve,
)
from translator.ir.loc import Loc

_CALLABLE_NAMES = {"Callable", "typing.Callable", "collections.abc.Callable"}
_BUILTINS = set(dir(builtins))
_NO_SPACE = cst.SimpleWhitespace("")
_HINT_PASS = (
    "pass a lambda or a module-level function at the call (`{kernel}(..., lambda acc, tile: "
    "...)`): tiletrans gives each such call a kernel of its own with the epilogue inlined"
)


@dataclass(frozen=True)
class Epilogue:
    """What a call passes for a callable parameter: parameter names, the statements to run
    first (a module function's assignments) and the value it returns."""

    params: tuple[str, ...]
    prelude: tuple[cst.SimpleStatementLine, ...]
    value: cst.BaseExpression
    label: str  # what the specialisation is named after
    free: tuple[str, ...] = ()  # names the caller must pass in (a lambda's closure)


@dataclass
class Specialised:
    """The rewritten module text and, per rewritten line (0-based), its source line (1-based)."""

    text: str
    source_line: list[int]
    kernel_notes: dict[str, str] = field(default_factory=dict)  # kernel name -> note
    specialisations: set[str] = field(default_factory=set)  # the kernel functions added

    def loc(self, loc: Loc | None, original: list[str], rewritten: list[str]) -> Loc | None:
        """``loc`` (in the rewritten text) as a position in the source the user wrote."""
        if loc is None or not 1 <= loc.line <= len(self.source_line):
            return loc
        line = self.source_line[loc.line - 1]
        same = rewritten[loc.line - 1] == original[line - 1] if line <= len(original) else False
        return Loc(loc.file, line, loc.col if same else 0)


def specialise(
    source: str, path: str, is_kernel: Callable[[cst.FunctionDef, dict[str, str]], bool]
) -> Specialised | None:
    """``source`` with every callable parameter of a kernel inlined, or ``None`` when no kernel
    takes one (the common case: nothing is rewritten)."""
    if "Callable" not in source and "lambda" not in source:
        return None
    try:
        wrapper = parse_source(source, path)
    except TranslationError:
        return None  # the ordinary parse reports the syntax error
    module = wrapper.module
    locate = Locator(wrapper, path)
    aliases = import_aliases(module)
    kernels = {
        stmt.name.value: stmt
        for stmt in module.body
        if isinstance(stmt, cst.FunctionDef) and is_kernel(stmt, aliases)
    }
    callable_params = {
        name: found for name, fn in kernels.items() if (found := _callable_params(fn, aliases))
    }
    if not callable_params:
        return None
    rewriter = _Rewriter(module, locate, aliases, kernels, callable_params)
    new_module = rewriter.run()
    text = new_module.code
    return Specialised(
        text,
        _line_map(source, text),
        rewriter.kernel_notes(),
        {spec for _, spec in rewriter.specs},
    )


def relocate(error: TranslationError, spec: Specialised, source: str) -> TranslationError:
    """``error`` (raised on the rewritten text) located in ``source``."""
    error.loc = spec.loc(error.loc, source.splitlines(), spec.text.splitlines())
    return error


def relocate_tree(obj: object, spec: Specialised, source: str) -> object:
    """``obj`` (an IR value) with every :class:`Loc` in it moved into ``source``."""
    original, rewritten = source.splitlines(), spec.text.splitlines()
    memo: dict[int, object] = {}

    def walk(value: object) -> object:
        if isinstance(value, Loc):
            return spec.loc(value, original, rewritten)
        if id(value) in memo:
            return memo[id(value)]
        out = value
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            changes = {}
            for f in dataclasses.fields(value):
                old = getattr(value, f.name)
                new = walk(old)
                if new is not old:
                    changes[f.name] = new
            if changes:
                out = dataclasses.replace(value, **changes)  # type: ignore[type-var]
        elif isinstance(value, tuple):
            items = tuple(walk(v) for v in value)
            if any(a is not b for a, b in zip(items, value)):
                out = items
        memo[id(value)] = out
        return out

    return walk(obj)


# ------------------------------------------------------------------------------------------------


def _callable_params(fn: cst.FunctionDef, aliases: dict[str, str]) -> dict[str, cst.Param]:
    """The parameters of ``fn`` annotated ``Callable[...]`` or defaulting to a lambda."""
    out = {}
    for p in (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params):
        annotation = p.annotation.annotation if p.annotation is not None else None
        if isinstance(annotation, cst.Subscript):
            annotation = annotation.value
        named = annotation is not None and resolve(annotation, aliases) in _CALLABLE_NAMES
        if named or isinstance(p.default, cst.Lambda):
            out[p.name.value] = p
    return out


def _names(node: cst.CSTNode) -> Iterator[cst.Name]:
    """Every name ``node`` reads or binds (attribute names and keyword names excluded)."""

    class V(cst.CSTVisitor):
        def __init__(self) -> None:
            self.found: list[cst.Name] = []

        def visit_Name(self, node: cst.Name) -> None:
            self.found.append(node)

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            node.value.visit(self)
            return False

        def visit_Arg(self, node: cst.Arg) -> bool:
            node.value.visit(self)
            return False

    v = V()
    node.visit(v)
    return iter(v.found)


def _is_atom(node: cst.BaseExpression) -> bool:
    """Whether ``node`` needs no parentheses as an operand."""
    simple = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float)
    return isinstance(node, simple) or bool(node.lpar)


def _paren(node: cst.BaseExpression) -> cst.BaseExpression:
    return (
        node
        if _is_atom(node)
        else node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    )


class _Substitute(cst.CSTTransformer):
    """Replaces names by expressions; ``t[i]`` of a name bound to a tuple by its ``i``-th item."""

    def __init__(self, values: dict[str, cst.BaseExpression]) -> None:
        self.values = values

    def leave_Subscript(
        self, original: cst.Subscript, updated: cst.Subscript
    ) -> cst.BaseExpression:
        base = original.value
        if isinstance(base, cst.Name) and isinstance(self.values.get(base.value), cst.Tuple):
            items = self.values[base.value].elements  # type: ignore[attr-defined]
            if len(original.slice) == 1:
                index = original.slice[0].slice
                if isinstance(index, cst.Index) and isinstance(index.value, cst.Integer):
                    i = int(index.value.value)
                    if -len(items) <= i < len(items):
                        return items[i].value.deep_clone()
        return updated

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        if original.value in self.values:
            return _paren(self.values[original.value].deep_clone())
        return updated

    def leave_Attribute(
        self, original: cst.Attribute, updated: cst.Attribute
    ) -> cst.BaseExpression:
        # The attribute's own name is no variable: keep it whatever the value became.
        return updated.with_changes(attr=original.attr)


class _Rewriter:
    """Builds the specialisations and rewrites the calls of one module."""

    def __init__(
        self,
        module: cst.Module,
        locate: Locator,
        aliases: dict[str, str],
        kernels: dict[str, cst.FunctionDef],
        callable_params: dict[str, dict[str, cst.Param]],
    ) -> None:
        self.module = module
        self.locate = locate
        self.aliases = aliases
        self.kernels = kernels
        self.callable_params = callable_params
        self.specs: list[tuple[str, str]] = []  # (kernel, specialisation)
        self.module_names = _module_names(module)
        self.functions = {
            s.name.value: s
            for s in module.body
            if isinstance(s, cst.FunctionDef) and s.name.value not in kernels
        }
        self.lambdas = {
            s.body[0].targets[0].target.value: s.body[0].value  # type: ignore[attr-defined]
            for s in module.body
            if isinstance(s, cst.SimpleStatementLine)
            and len(s.body) == 1
            and isinstance(s.body[0], cst.Assign)
            and len(s.body[0].targets) == 1
            and isinstance(s.body[0].targets[0].target, cst.Name)
            and isinstance(s.body[0].value, cst.Lambda)
        }
        self.taken = set(self.module_names)

    def error(self, node: cst.CSTNode, message: str, hint: str | None = None) -> TranslationError:
        return TranslationError(message, self.locate(node), hint)

    def kernel_notes(self) -> dict[str, str]:
        """Per kernel that took a callable: what became of it (the translation has no
        callable parameter, so a caller outside this module that passes one gets a TypeError)."""
        out = {}
        for kernel, params in self.callable_params.items():
            names = ", ".join(f"`{p}`" for p in params)
            specs = [s for k, s in self.specs if k == kernel]
            where = (
                f"; the calls in this module that pass one call {', '.join(specs)}" if specs else ""
            )
            text = f"{names} inlined: `{kernel}` runs its default{where}"
            out[kernel] = "\n".join(textwrap.wrap(text, 86))
        return out

    def run(self) -> cst.Module:
        for name, params in self.callable_params.items():
            self._check_uses(self.kernels[name], params)
        # Specialisations, by kernel, in order of first use; and the rewritten calls.
        specs: dict[str, list[cst.FunctionDef]] = {name: [] for name in self.callable_params}
        by_function: dict[tuple[str, str], str] = {}
        calls: dict[cst.Call, cst.Call] = {}
        for caller in self._callers():
            for call in calls_named(caller, set(self.callable_params)):
                kernel = call.func.value  # type: ignore[attr-defined]
                new = self._specialise_call(caller, call, kernel, specs[kernel], by_function)
                if new is not None:
                    calls[call] = new
        body: list[cst.BaseStatement] = []
        for stmt in self.module.body:
            if isinstance(stmt, cst.FunctionDef) and stmt.name.value in self.callable_params:
                name = stmt.name.value
                default = {
                    p: self._epilogue(param.default, name, None)
                    for p, param in self.callable_params[name].items()
                    if param.default is not None
                }
                missing = set(self.callable_params[name]) - set(default)
                if missing:
                    p = self.callable_params[name][sorted(missing)[0]]
                    raise self.error(
                        p,
                        f"`{p.name.value}` of kernel `{name}` has no default, so `{name}` "
                        "itself has no epilogue to translate with",
                        f"give it one (`{p.name.value}: Callable[...] = lambda acc, tile: acc`)",
                    )
                body.append(self._kernel_copy(stmt, name, default, {}, None))
                body.extend(specs[name])
            else:
                body.append(stmt)
        module = self.module.with_changes(body=body)
        module = module.visit(_ReplaceCalls(calls))
        return _drop_unused_callable_import(module)

    # -------------------------------------------------------------------------- reading

    def _check_uses(self, fn: cst.FunctionDef, params: dict[str, cst.Param]) -> None:
        """Every use of a callable parameter in the kernel is a call of it."""
        called: set[int] = set()

        class Calls(cst.CSTVisitor):
            def visit_Call(self, node: cst.Call) -> None:
                if isinstance(node.func, cst.Name) and node.func.value in params:
                    called.add(id(node.func))

        fn.body.visit(Calls())
        for name in _names(fn.body):
            if name.value in params and id(name) not in called:
                raise self.error(
                    name,
                    f"the epilogue `{name.value}` is used here other than called",
                    f"only call it (`{name.value}(acc, (tile_m, tile_n))`): tiletrans inlines "
                    "the call",
                )

    def _callers(self) -> Iterator[cst.FunctionDef]:
        for stmt in self.module.body:
            if isinstance(stmt, cst.FunctionDef) and stmt.name.value not in self.callable_params:
                yield stmt
            elif isinstance(stmt, cst.ClassDef) and isinstance(stmt.body, cst.IndentedBlock):
                yield from (m for m in stmt.body.body if isinstance(m, cst.FunctionDef))

    def _epilogue(
        self, node: cst.BaseExpression, kernel: str, caller: cst.FunctionDef | None
    ) -> Epilogue:
        """What ``node``, passed for a callable parameter of ``kernel``, computes."""
        if isinstance(node, cst.Name) and node.value in self.lambdas:
            return dataclasses.replace(
                self._epilogue(self.lambdas[node.value], kernel, None), label=node.value
            )
        if isinstance(node, cst.Lambda):
            ps = node.params
            if (
                ps.star_arg not in (None, cst.MaybeSentinel.DEFAULT)
                or ps.star_kwarg
                or any(p.default is not None for p in (*ps.posonly_params, *ps.params))
                or ps.kwonly_params
            ):
                raise self.error(
                    node,
                    "an epilogue lambda with defaults or starred parameters",
                    "take exactly the parameters the kernel passes (`lambda acc, tile: ...`)",
                )
            params = tuple(p.name.value for p in (*ps.posonly_params, *ps.params))
            free = []
            for name in _names(node.body):
                n = name.value
                if n in params or n in self.module_names or n in _BUILTINS or n in free:
                    continue
                free.append(n)
            if free and caller is None:
                raise self.error(
                    node,
                    f"this epilogue reads `{free[0]}`, which is no module-level name",
                    "a default or module-level epilogue can read only its parameters and "
                    "module-level names",
                )
            label = caller.name.value if caller is not None else kernel
            return Epilogue(params, (), node.body, label, tuple(free))
        if isinstance(node, cst.Name) and node.value in self.functions:
            fn = self.functions[node.value]
            return self._function_epilogue(fn)
        what = "a parameter" if caller is not None and node is not None else "a value"
        if isinstance(node, cst.Name) and caller is not None and node.value in _param_names(caller):
            what = f"`{node.value}`, a parameter of `{caller.name.value}`"
        else:
            what = f"`{cst.Module([]).code_for_node(node)}`"
        raise self.error(
            node,
            f"the epilogue passed to kernel `{kernel}` is {what}, which tiletrans cannot see "
            "when it translates",
            _HINT_PASS.format(kernel=kernel),
        )

    def _function_epilogue(self, fn: cst.FunctionDef) -> Epilogue:
        """A module function used as an epilogue: assignments and one ``return``."""
        ps = fn.params
        if (
            ps.star_arg not in (None, cst.MaybeSentinel.DEFAULT)
            or ps.star_kwarg
            or ps.kwonly_params
        ):
            raise self.error(
                fn, f"epilogue `{fn.name.value}` takes starred or keyword-only parameters"
            )
        params = tuple(p.name.value for p in (*ps.posonly_params, *ps.params))
        body = list(fn.body.body) if isinstance(fn.body, cst.IndentedBlock) else [fn.body]
        if fn.get_docstring() is not None:
            body = body[1:]
        prelude: list[cst.SimpleStatementLine] = []
        for i, stmt in enumerate(body):
            last = i == len(body) - 1
            small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) else None
            if (
                last
                and isinstance(small, cst.Return)
                and small.value is not None
                and len(stmt.body) == 1  # type: ignore[union-attr]
            ):
                return Epilogue(params, tuple(prelude), small.value, fn.name.value)
            if (
                not last
                and isinstance(small, cst.Assign)
                and len(stmt.body) == 1  # type: ignore[union-attr]
                and all(isinstance(t.target, cst.Name) for t in small.targets)
            ):
                prelude.append(stmt)  # type: ignore[arg-type]
                continue
            raise self.error(
                stmt,
                f"epilogue `{fn.name.value}` is inlined into the kernel, and tiletrans inlines "
                "only assignments to names followed by one `return`",
                "write the epilogue as `name = ...` lines and a final `return ...` (branch "
                "with `torch.where`)",
            )
        raise self.error(fn, f"epilogue `{fn.name.value}` returns nothing", "return the tile")

    # -------------------------------------------------------------------------- writing

    def _specialise_call(
        self,
        caller: cst.FunctionDef,
        call: cst.Call,
        kernel: str,
        specs: list[cst.FunctionDef],
        by_function: dict[tuple[str, str], str],
    ) -> cst.Call | None:
        """The call of the specialisation ``call`` needs (``None``: the kernel as it is)."""
        fn = self.kernels[kernel]
        order = [p.name.value for p in (*fn.params.posonly_params, *fn.params.params)]
        order += [p.name.value for p in fn.params.kwonly_params]
        callables = self.callable_params[kernel]
        passed: dict[str, cst.BaseExpression] = {}
        kept: list[cst.Arg] = []
        position = 0
        for arg in call.args:
            if arg.star:
                raise self.error(
                    call,
                    f"kernel `{kernel}` takes an epilogue and is called with starred arguments",
                    "pass the arguments by position or name",
                )
            name = arg.keyword.value if arg.keyword is not None else None
            if name is None:
                name = order[position] if position < len(order) else None
                position += 1
            if name in callables:
                passed[name] = arg.value
            else:
                kept.append(arg)
        if not passed:
            return None
        epilogues = {p: self._epilogue(v, kernel, caller) for p, v in passed.items()}
        key = tuple(sorted((p, e.label) for p, e in epilogues.items()))
        lambdas = any(isinstance(v, cst.Lambda) for v in passed.values())
        if not lambdas and (kernel, str(key)) in by_function:
            spec = by_function[(kernel, str(key))]
            extra: list[str] = []
        else:
            label = "_".join(e.label.strip("_") for e in epilogues.values())
            spec = self._fresh(f"_{label}" if kernel in label else f"_{kernel}_{label}")
            if not lambdas:
                by_function[(kernel, str(key))] = spec
            annotations = _param_annotations(caller)
            # In the caller's order of parameters, which is how a reader expects them passed.
            free = {n for e in epilogues.values() for n in e.free}
            extra = [n for n in annotations if n in free]
            extra += sorted(free - set(extra))
            for n in extra:
                if n not in annotations:
                    raise self.error(
                        passed[next(p for p, e in epilogues.items() if n in e.free)],
                        f"this epilogue reads `{n}`, a local of `{caller.name.value}` whose "
                        "type tiletrans does not know",
                        f"read only annotated parameters of `{caller.name.value}` in the "
                        f"epilogue (`{n}: torch.Tensor` or `{n}: float`)",
                    )
            doc = " and ".join(
                f"``{caller.name.value}``'s lambda"
                if isinstance(passed[p], cst.Lambda)
                else f"``{e.label}``"
                for p, e in epilogues.items()
            )
            copy = self._kernel_copy(
                fn,
                spec,
                epilogues,
                {n: annotations[n] for n in extra},
                f"``{kernel}`` with {doc} as its epilogue, inlined.",
            )
            specs.append(copy)
            self.specs.append((kernel, spec))
        keyword = any(a.keyword is not None for a in kept)
        added = [
            cst.Arg(
                cst.Name(n),
                keyword=cst.Name(n) if keyword else None,
                equal=cst.AssignEqual(_NO_SPACE, _NO_SPACE)
                if keyword
                else cst.MaybeSentinel.DEFAULT,
            )
            for n in extra
        ]
        # Written on one line (`f(a, b)`): the formatter of the translation breaks it if long.
        args = [
            a.with_changes(comma=cst.MaybeSentinel.DEFAULT, whitespace_after_arg=_NO_SPACE)
            for a in (*kept, *added)
        ]
        return call.with_changes(func=cst.Name(spec), args=args, whitespace_before_args=_NO_SPACE)

    def _fresh(self, name: str) -> str:
        out, i = name, 2
        while out in self.taken:
            out, i = f"{name}{i}", i + 1
        self.taken.add(out)
        return out

    def _kernel_copy(
        self,
        fn: cst.FunctionDef,
        name: str,
        epilogues: dict[str, Epilogue],
        extra: dict[str, cst.Annotation],
        docstring: str | None,
    ) -> cst.FunctionDef:
        """``fn`` named ``name`` with its callable parameters gone (their calls inlined) and
        ``extra`` parameters (the epilogues' closures) after the others."""
        callables = self.callable_params[fn.name.value]
        taken = {n.value for n in _names(fn)} - set(callables)

        def keep(p: cst.Param) -> bool:
            return p.name.value not in callables

        params = fn.params
        new_params = [p for p in params.params if keep(p)]
        new_params += [cst.Param(cst.Name(n), annotation=a) for n, a in extra.items()]
        # Written afresh (`a: T, b: T`): the formatter of the translation breaks long lines.
        new_params = [
            p.with_changes(comma=cst.MaybeSentinel.DEFAULT, whitespace_after_param=_NO_SPACE)
            for p in new_params
        ]
        params = params.with_changes(
            posonly_params=[p for p in params.posonly_params if keep(p)],
            params=new_params,
            kwonly_params=[p for p in params.kwonly_params if keep(p)],
        )
        body = fn.body.visit(_Inline(epilogues, taken, self))
        if docstring is not None and isinstance(body, cst.IndentedBlock):
            stmts = list(body.body)
            doc = cst.SimpleStatementLine([cst.Expr(cst.SimpleString(f'"""{docstring}"""'))])
            if fn.get_docstring() is not None:
                stmts[0] = doc
            else:
                stmts.insert(0, doc)
            body = body.with_changes(body=stmts)
        out = fn.with_changes(
            name=cst.Name(name), params=params, body=body, whitespace_before_params=_NO_SPACE
        )
        if name != fn.name.value:
            out = out.with_changes(leading_lines=[cst.EmptyLine(), cst.EmptyLine()])
        return _one_parameter_a_line_if_long(out)


def _one_parameter_a_line_if_long(fn: cst.FunctionDef) -> cst.FunctionDef:
    """``fn`` with its parameters one a line (as ruff formats them) if its header passes 100
    columns: carried host code is not reformatted, and this header is tiletrans's."""
    header = cst.Module([]).code_for_node(
        fn.with_changes(
            body=cst.SimpleStatementSuite([cst.Pass()]), decorators=[], leading_lines=[]
        )
    )
    if len(header.splitlines()[0]) <= 100:
        return fn
    ps = fn.params
    code = cst.Module([]).code_for_node
    texts = [
        p.name.value
        + (f": {code(p.annotation.annotation)}" if p.annotation is not None else "")
        + (f" = {code(p.default)}" if p.default is not None else "")
        for p in (*ps.posonly_params, *ps.params)
    ]
    returns = f" -> {code(fn.returns.annotation)}" if fn.returns else ""
    lines = "".join(f"    {t},\n" for t in texts)
    model = cst.parse_statement(f"def f(\n{lines}){returns}:\n    pass\n")
    assert isinstance(model, cst.FunctionDef)
    return fn.with_changes(
        params=model.params, whitespace_before_params=model.whitespace_before_params
    )


class _Inline(cst.CSTTransformer):
    """Inlines the calls of callable parameters in a kernel body."""

    def __init__(
        self, epilogues: dict[str, Epilogue], taken: set[str], rewriter: _Rewriter
    ) -> None:
        self.epilogues = epilogues
        self.taken = taken
        self.rewriter = rewriter
        self.pending: list[cst.SimpleStatementLine] = []
        self.made: set[int] = set()

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if not (isinstance(original.func, cst.Name) and original.func.value in self.epilogues):
            return updated
        e = self.epilogues[original.func.value]
        if len(updated.args) != len(e.params) or any(
            a.keyword is not None or a.star for a in updated.args
        ):
            raise self.rewriter.error(
                original,
                f"the epilogue is called with {len(updated.args)} argument(s) and takes "
                f"{len(e.params)}",
                "pass the accumulator and the tiles by position",
            )
        values: dict[str, cst.BaseExpression] = {}
        for p, a in zip(e.params, updated.args):
            values[p] = a.value
        # The epilogue's own names (a function's locals) must not clash with the kernel's.
        renames: dict[str, cst.BaseExpression] = {}
        for stmt in e.prelude:
            for t in stmt.body[0].targets:  # type: ignore[attr-defined]
                local = t.target.value
                fresh = local
                while fresh in self.taken:
                    fresh = f"{fresh}_"
                self.taken.add(fresh)
                renames[local] = cst.Name(fresh)
        subst = _Substitute({**values, **renames})
        for stmt in e.prelude:
            new = stmt.visit(subst)
            self.pending.append(new.with_changes(leading_lines=[]))  # type: ignore[union-attr]
        value = e.value.visit(subst)
        value = _paren(value)  # type: ignore[arg-type]
        self.made.add(id(value))
        return value

    def leave_SimpleStatementLine(
        self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement]:
        # An inlined value that is a statement's whole right-hand side needs no parentheses.
        small = updated.body[0] if len(updated.body) == 1 else None
        if isinstance(small, (cst.Assign, cst.Return)) and small.value is not None:
            v = small.value
            if id(v) in self.made and v.lpar:
                updated = updated.with_changes(
                    body=[small.with_changes(value=v.with_changes(lpar=[], rpar=[]))]
                )
        if not self.pending:
            return updated
        stmts = [*self.pending, updated]
        self.pending = []
        stmts[0] = stmts[0].with_changes(leading_lines=updated.leading_lines)
        stmts[-1] = updated.with_changes(leading_lines=[])
        return cst.FlattenSentinel(stmts)


class _ReplaceCalls(cst.CSTTransformer):
    def __init__(self, calls: dict[cst.Call, cst.Call]) -> None:
        self.calls = calls

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        return self.calls.get(original, updated)


def _param_names(fn: cst.FunctionDef) -> set[str]:
    ps = fn.params
    return {p.name.value for p in (*ps.posonly_params, *ps.params, *ps.kwonly_params)}


def _param_annotations(fn: cst.FunctionDef) -> dict[str, cst.Annotation]:
    ps = fn.params
    return {
        p.name.value: p.annotation
        for p in (*ps.posonly_params, *ps.params, *ps.kwonly_params)
        if p.annotation is not None
    }


def _module_names(module: cst.Module) -> set[str]:
    """Names bound at module level: imports, definitions, assignments."""
    out = set(import_aliases(module))
    for stmt in module.body:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            out.add(stmt.name.value)
        elif isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Assign):
                    out |= {t.target.value for t in small.targets if isinstance(t.target, cst.Name)}
                elif isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                    out.add(small.target.value)
    return out


def _drop_unused_callable_import(module: cst.Module) -> cst.Module:
    """``from typing import Callable`` goes once nothing reads ``Callable``."""
    reads = sum(1 for n in _names(module) if n.value == "Callable")
    body: list[cst.BaseStatement] = []
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], cst.ImportFrom):
            imp = stmt.body[0]
            if not isinstance(imp.names, cst.ImportStar):
                names = [
                    a for a in imp.names if not (a.evaluated_name == "Callable" and reads == 1)
                ]
                if not names:
                    continue
                if len(names) != len(imp.names):
                    names[-1] = names[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
                    stmt = stmt.with_changes(body=[imp.with_changes(names=names)])
        body.append(stmt)
    return module.with_changes(body=body)


def _line_map(source: str, text: str) -> list[int]:
    """For each line of ``text`` (a rewrite of ``source``), the source line it came from: the
    same line where the two agree, else the nearest earlier identical source line (a copied
    kernel line), else the first source line of the changed region."""
    old, new = source.splitlines(), text.splitlines()
    out = [1] * len(new)
    import difflib  # here: most translations never get here (~5 ms of start-up)

    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, _i2, j1, j2 in matcher.get_opcodes():
        for j in range(j1, j2):
            if tag == "equal":
                out[j] = i1 + (j - j1) + 1
                continue
            same = [i for i, line in enumerate(old) if line == new[j] and line.strip()]
            before = [i for i in same if i < i1]
            out[j] = (before[-1] if before else same[0] if same else min(i1, len(old) - 1)) + 1
    return out
