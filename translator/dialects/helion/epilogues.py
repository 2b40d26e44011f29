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
passthrough included, sees an ordinary module. :class:`~.specialised.Specialised` maps each
line of the rewritten text back to the source line it came from, so diagnostics and IR locations
still point into the file the user wrote; :mod:`.epilogue_inlining` writes an epilogue into a
kernel body.
"""

from __future__ import annotations

import builtins
import dataclasses
import textwrap
from collections.abc import Callable, Iterator

import libcst as cst

from translator.diagnostics import TranslationError
from translator.dialects.cst_utils import (
    Locator,
    calls_named,
    import_aliases,
    module_level_names,
    parse_source,
    resolve,
)
from translator.dialects.helion.epilogue_inlining import Epilogue, EpilogueInliner
from translator.dialects.helion.specialised import Specialised, line_map

_CALLABLE_NAMES = {"Callable", "typing.Callable", "collections.abc.Callable"}
_BUILTINS = set(dir(builtins))
_NO_SPACE = cst.SimpleWhitespace("")
_HINT_PASS = (
    "pass a lambda or a module-level function at the call (`{kernel}(..., lambda acc, tile: "
    "...)`): tiletrans gives each such call a kernel of its own with the epilogue inlined"
)


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
        line_map(source, text),
        rewriter.kernel_notes(),
        {spec for _, spec in rewriter.specs},
    )


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
        self.module_names = module_level_names(module)
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
                    other = self._other_use(name, stmt, calls)
                    if other is None and specs[name]:
                        # Every use passes its epilogue: the specialisations are the kernel.
                        body.extend(specs[name])
                        continue
                    where = other if other is not None else p
                    use = (
                        f"`{cst.Module([]).code_for_node(other).strip()}` uses `{name}`"
                        if other is not None
                        else f"no call of `{name}` passes `{p.name.value}`"
                    )
                    raise self.error(
                        where,
                        f"{use} other than in a call that passes `{p.name.value}`, an epilogue "
                        f"without a default: the translation has a kernel per epilogue a call "
                        f"passes, and no `{name}` of its own",
                        f"call `{name}(..., {p.name.value}=lambda acc, tile: ...)` there, or "
                        f"give `{p.name.value}` a default (`= lambda acc, tile: acc`)",
                    )
                body.append(self._kernel_copy(stmt, name, default, {}, None))
                body.extend(specs[name])
            else:
                body.append(stmt)
        module = self.module.with_changes(body=body)
        module = module.visit(_ReplaceCalls(calls))
        return _drop_unused_callable_import(module)

    def _other_use(
        self, name: str, definition: cst.FunctionDef, calls: dict[cst.Call, cst.Call]
    ) -> cst.CSTNode | None:
        """The first statement that reads kernel ``name`` other than as the callee of a call
        rewritten to a specialisation (``kernel.autotune(args)``, ``f = kernel``), or None."""
        callees = {id(call.func) for call in calls}
        for stmt in self.module.body:
            if stmt is definition:
                continue
            for n in _names(stmt):
                if n.value == name and id(n) not in callees:
                    return _statement_of(stmt, n)
        return None

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
        local = _local_function(caller, node) if caller is not None else None
        if local is not None:
            # A function the caller defines (Helion's addmm: `def addmm_epilogue(acc, tile)`
            # in the autograd Function's forward): a lambda by another spelling, whose reads of
            # the caller's names are its closure.
            epilogue = self._function_epilogue(local)
            bound = set(epilogue.params) | {
                t.target.value  # type: ignore[attr-defined]
                for stmt in epilogue.prelude
                for small in stmt.body
                if isinstance(small, cst.Assign)
                for t in small.targets
            }
            free: list[str] = []
            for part in (*epilogue.prelude, epilogue.value):
                for name in _names(part):
                    n = name.value
                    if n in bound or n in self.module_names or n in _BUILTINS or n in free:
                        continue
                    free.append(n)
            return dataclasses.replace(epilogue, free=tuple(free))
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
        # A lambda, or a function the caller defines, closes over the caller's names: a
        # specialisation per call.
        lambdas = any(
            isinstance(v, cst.Lambda) or _local_function(caller, v) is not None
            for v in passed.values()
        )
        if not lambdas and (kernel, str(key)) in by_function:
            spec = by_function[(kernel, str(key))]
            extra: list[str] = []
        else:
            label = "_".join(e.label.strip("_") for e in epilogues.values())
            # `_kernel_label`, also for a private `_kernel` (not `__kernel_label`).
            base = kernel.lstrip("_")
            spec = self._fresh(f"_{label}" if base in label else f"_{base}_{label}")
            if not lambdas:
                by_function[(kernel, str(key))] = spec
            annotations = {**_local_annotations(caller, self.aliases), **_param_annotations(caller)}
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
        body = fn.body.visit(EpilogueInliner(epilogues, taken, self.error))
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


class _ReplaceCalls(cst.CSTTransformer):
    def __init__(self, calls: dict[cst.Call, cst.Call]) -> None:
        self.calls = calls

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        return self.calls.get(original, updated)


def _local_function(caller: cst.FunctionDef, node: cst.BaseExpression) -> cst.FunctionDef | None:
    """The function ``node`` names where ``caller``'s body defines it, at its top level, and
    binds that name nowhere else; else ``None``."""
    if not isinstance(node, cst.Name) or not isinstance(caller.body, cst.IndentedBlock):
        return None
    defs = [
        s for s in caller.body.body if isinstance(s, cst.FunctionDef) and s.name.value == node.value
    ]
    bound = [n for n in _names(caller.body) if n.value == node.value]
    # Any binding of the name besides the def makes it ambiguous.
    targets = [
        target
        for s in caller.body.body
        if isinstance(s, cst.SimpleStatementLine)
        for small in s.body
        for target in (
            [t.target for t in small.targets]
            if isinstance(small, cst.Assign)
            else [small.target]
            if isinstance(small, (cst.AnnAssign, cst.AugAssign))
            else []
        )
    ]
    rebinds = sum(1 for t in targets for n in _names(t) if n.value == node.value)
    return defs[0] if len(defs) == 1 and bound and not rebinds else None


#: Torch functions that return one tensor: a caller's local bound to a call of one is a tensor
#: an epilogue may read (Helion's addmm reads `torch.broadcast_to(bias, [m, n])`).
_TENSOR_FUNCTIONS = {
    f"torch.{name}"
    for name in (
        "broadcast_to", "empty", "zeros", "ones", "full", "empty_like", "zeros_like",
        "ones_like", "full_like", "tensor", "as_tensor", "randn", "rand", "randint",
        "randn_like", "rand_like", "arange",
    )
}  # fmt: skip


def _local_annotations(fn: cst.FunctionDef, aliases: dict[str, str]) -> dict[str, cst.Annotation]:
    """``torch.Tensor`` for each name ``fn``'s body binds once, at its top level, to a call of
    a torch function that returns one tensor; the annotation itself for each name it binds
    once with one (``bias: torch.Tensor = make_bias(n)``)."""
    if not isinstance(fn.body, cst.IndentedBlock):
        return {}
    found: dict[str, int] = {}
    tensors: set[str] = set()
    annotated: dict[str, cst.Annotation] = {}
    for stmt in fn.body.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if (
                isinstance(small, cst.AnnAssign)
                and isinstance(small.target, cst.Name)
                and small.value is not None
            ):
                found[small.target.value] = found.get(small.target.value, 0) + 1
                annotated[small.target.value] = small.annotation
                continue
            if not isinstance(small, cst.Assign):
                continue
            for t in small.targets:
                for name in _names(t.target):
                    found[name.value] = found.get(name.value, 0) + 1
                if (
                    isinstance(t.target, cst.Name)
                    and isinstance(small.value, cst.Call)
                    and resolve(small.value.func, aliases) in _TENSOR_FUNCTIONS
                ):
                    tensors.add(t.target.value)
    tensor = cst.Annotation(cst.parse_expression("torch.Tensor"))
    out = {n: tensor for n in sorted(tensors) if found[n] == 1}
    out.update({n: a for n, a in sorted(annotated.items()) if found[n] == 1})
    return out


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


def _statement_of(root: cst.CSTNode, target: cst.CSTNode) -> cst.CSTNode:
    """The innermost simple statement (or compound statement header) under ``root`` that holds
    ``target``, for a diagnostic's location; ``root`` where none does."""
    found: list[cst.CSTNode] = []

    class V(cst.CSTVisitor):
        def __init__(self) -> None:
            self.stack: list[cst.CSTNode] = []

        def on_visit(self, node: cst.CSTNode) -> bool:
            if node is target:
                found.extend(s for s in self.stack if isinstance(s, cst.BaseSmallStatement))
                return False
            self.stack.append(node)
            return not found

        def on_leave(self, original_node: cst.CSTNode) -> None:
            if self.stack and self.stack[-1] is original_node:
                self.stack.pop()

    root.visit(V())
    return found[-1] if found else root
