"""Helion frontend, kernel functions: a ``@helion.kernel`` whose body is one device loop and what
sets it up is a kernel itself (it computes into the tensors it is passed and returns nothing), not
an entry; the host functions that call it are the entries, each call a launch site.

:class:`KernelFunctionReader` is a mixin of
:class:`translator.dialects.helion.frontend.EntryParser` (split out so that each file reads one
part of a kernel function); :func:`kernel_function_callers` reads the module's host functions.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import libcst as cst

from translator.dialects.common.host_api import host_functions, signature
from translator.dialects.cst_utils import Locator, calls_named, resolve, source_of
from translator.dialects.helion.decorator import kernel_decorator
from translator.ir import nodes as ir
from translator.ir.outline import OutlineNaming, outline_kernel
from translator.ir.shapes import TensorType
from translator.ir.verifier import walk_entry

if TYPE_CHECKING:
    from translator.dialects.helion.frontend import EntryParser


class KernelFunctionReader:
    """A kernel function read as the kernel it is."""

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
            if d is not kernel_decorator(self.fn, self.aliases, self.grammar)
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


def is_kernel_function(fn: cst.FunctionDef, aliases: dict[str, str], grammar: dict) -> bool:
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


def kernel_function_callers(
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
        calls = calls_named(fn, set(pure))
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
