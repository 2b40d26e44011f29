"""Optional tensor parameters that device code tests (``if shift_labels is not None:`` in a
loop), specialised per launch on whether they are None, before parsing.

Helion specialises a kernel on the None-ness of its arguments: a launch with ``bias=None``
compiles a kernel without ``bias``, one with a tensor a kernel that reads it. No target kernel
takes None for a tensor, so this pass does the same in the source: the kernel function becomes
one copy per case, each with the tests of that case folded (``x is None`` is ``True`` or
``False``, the dead branch gone; the None case loses the parameter), and a plain function of
the kernel's name and signature calls the copy the arguments choose. Everything after reads an
ordinary module; :func:`~.specialised.line_map` points its lines back into the source.

Refused: a parameter the function rebinds (``bias = torch.zeros(...) if bias is None else
bias`` is read as a default on the host already), more than :data:`MAX_OPTIONAL` such
parameters in one kernel, and a kernel the module uses other than by calling it.
"""

from __future__ import annotations

import itertools
import textwrap
from collections.abc import Callable, Sequence

import libcst as cst

from translator.diagnostics import TranslationError
from translator.dialects.cst_utils import (
    Locator,
    bound_names,
    import_aliases,
    name_nodes,
    parse_source,
    resolve,
    source_of,
    walk,
)
from translator.dialects.helion.specialised import Specialised, line_map

#: At most this many optional tensors per kernel are specialised on (2**n copies).
MAX_OPTIONAL = 2

_TRUE, _FALSE = cst.Name("True"), cst.Name("False")


def specialise_optional(
    source: str,
    path: str,
    is_kernel: Callable[[cst.FunctionDef, dict[str, str]], bool],
    loops: set[str],
) -> Specialised | None:
    """``source`` with each kernel whose device code tests an optional tensor split per case,
    or ``None`` where no kernel does (nothing is rewritten). ``loops`` are the qualified names
    of the calls a device loop iterates (``helion.language.tile``)."""
    if " None" not in source:
        return None
    try:
        wrapper = parse_source(source, path)
    except TranslationError:
        return None  # the ordinary parse reports the syntax error
    module = wrapper.module
    locate = Locator(wrapper, path)
    aliases = import_aliases(module)
    tested: dict[str, list[str]] = {}
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef) and is_kernel(stmt, aliases):
            params = _device_tested(stmt, aliases, loops)
            if params:
                _check(stmt, params, locate)
                tested[stmt.name.value] = params
    if not tested:
        return None
    _check_only_called(module, set(tested), locate)
    body: list[cst.BaseStatement] = []
    added: set[str] = set()
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value in tested:
            copies, dispatcher = _split(stmt, tested[stmt.name.value])
            body.extend(copies)
            body.append(dispatcher)
            added |= {c.name.value for c in copies}
        else:
            body.append(stmt)
    text = module.with_changes(body=body).code
    return Specialised(text, line_map(source, text), {}, added)


# ------------------------------------------------------------------------------------------------


def _optional_tensor_params(fn: cst.FunctionDef) -> list[str]:
    """Parameters annotated as a tensor or None (``Tensor | None``, ``Optional[Tensor]``)
    whose default is None."""
    out = []
    for p in (*fn.params.params, *fn.params.kwonly_params):
        if p.annotation is None or not (
            isinstance(p.default, cst.Name) and p.default.value == "None"
        ):
            continue
        spelt = source_of(p.annotation.annotation).replace(" ", "")
        if "Tensor" in spelt and ("None" in spelt or spelt.startswith(("Optional[", "typing.Opt"))):
            out.append(p.name.value)
    return out


def _none_test(node: cst.CSTNode, names: Sequence[str]) -> tuple[str, bool] | None:
    """``(x, True)`` for ``x is None``, ``(x, False)`` for ``x is not None`` (``x`` in
    ``names``), else ``None``."""
    if not (
        isinstance(node, cst.Comparison)
        and len(node.comparisons) == 1
        and isinstance(node.left, cst.Name)
        and node.left.value in names
    ):
        return None
    target = node.comparisons[0]
    if not (isinstance(target.comparator, cst.Name) and target.comparator.value == "None"):
        return None
    if isinstance(target.operator, cst.Is):
        return node.left.value, True
    if isinstance(target.operator, cst.IsNot):
        return node.left.value, False
    return None


def _device_tested(fn: cst.FunctionDef, aliases: dict[str, str], loops: set[str]) -> list[str]:
    """The optional tensor parameters of ``fn`` its device loops test for None."""
    optional = _optional_tensor_params(fn)
    if not optional:
        return []
    found: list[str] = []

    def in_loop(node: cst.CSTNode) -> bool:
        test = _none_test(node, optional)
        if test is not None and test[0] not in found:
            found.append(test[0])
        return True

    def enter(node: cst.CSTNode) -> bool:
        if (
            isinstance(node, cst.For)
            and isinstance(node.iter, cst.Call)
            and resolve(node.iter.func, aliases) in loops
        ):
            walk(node.body, in_loop)
            return False
        return True

    walk(fn.body, enter)
    return [p for p in optional if p in found]


def _check(fn: cst.FunctionDef, params: list[str], locate: Locator) -> None:
    rebound = set(bound_names(fn.body))
    for p in params:
        if p in rebound:
            raise TranslationError(
                f"`{p}` is tested for None in device code and rebound in `{fn.name.value}`: "
                "tiletrans specialises the kernel on whether the argument is None, which a "
                "rebinding changes",
                locate(fn.name),
                f"bind the value to a new name (`{p}_or_zeros = ...`) and test `{p}` itself",
            )
    if len(params) > MAX_OPTIONAL:
        listed = ", ".join(f"`{p}`" for p in params)
        raise TranslationError(
            f"`{fn.name.value}` tests {len(params)} optional tensors ({listed}) for None in "
            f"device code: tiletrans specialises on at most {MAX_OPTIONAL} "
            f"({2**MAX_OPTIONAL} kernels)",
            locate(fn.name),
            "split the kernel, or pass tensors (zeros) where None is passed",
        )


def _check_only_called(module: cst.Module, kernels: set[str], locate: Locator) -> None:
    """A kernel split per case becomes a plain function: a use of its name other than a
    call (``kernel.autotune(...)``, ``kernel.configs``) would find no kernel there."""
    callees: set[int] = set()

    def enter(node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
            callees.add(id(node.func))
        return True

    walk(module, enter)
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value in kernels:
            continue
        for n in name_nodes(stmt):
            if n.value in kernels and id(n) not in callees:
                raise TranslationError(
                    f"`{n.value}` is used other than called: tiletrans specialises it on "
                    "whether its optional tensors are None, and the function of its name only "
                    "chooses the kernel",
                    locate(n),
                    f"only call `{n.value}(...)`",
                )


def _split(fn: cst.FunctionDef, params: list[str]) -> tuple[list[cst.FunctionDef], cst.FunctionDef]:
    """One kernel copy per None-ness of ``params``, and the function that chooses among them."""
    copies: list[cst.FunctionDef] = []
    cases: list[tuple[dict[str, bool], str, set[str]]] = []
    for nones in itertools.product((False, True), repeat=len(params)):
        case = dict(zip(params, nones))
        words = [f"{'without' if none else 'with'}_{p}" for p, none in case.items()]
        name = f"_{fn.name.value.lstrip('_')}_{'_'.join(words)}"
        body = fn.body.visit(_Fold(case))
        # A None parameter nothing reads once its tests are folded goes; one host code still
        # reads (`print(bias)`) stays, None as the caller passed it.
        read = {n.value for n in name_nodes(body)}
        dropped = {p for p, none in case.items() if none and p not in read}
        copy = fn.with_changes(
            name=cst.Name(name),
            body=body,
            params=_without_params(fn.params, dropped),
            leading_lines=[cst.EmptyLine(), cst.EmptyLine()] if copies else fn.leading_lines,
        )
        copies.append(copy)
        cases.append((case, name, dropped))
    return copies, _dispatcher(fn, params, cases)


def _without_params(params: cst.Parameters, dropped: set[str]) -> cst.Parameters:
    def keep(ps: Sequence[cst.Param]) -> list[cst.Param]:
        kept = [p for p in ps if p.name.value not in dropped]
        if kept and ps and kept[-1] is not ps[-1]:
            # The last parameter went: the new last one ends as it did (a trailing comma and
            # the line break before `)`, or nothing).
            kept[-1] = kept[-1].with_changes(comma=ps[-1].comma)
        return kept

    return params.with_changes(params=keep(params.params), kwonly_params=keep(params.kwonly_params))


def _dispatcher(
    fn: cst.FunctionDef, params: list[str], cases: list[tuple[dict[str, bool], str, set[str]]]
) -> cst.FunctionDef:
    """``fn`` as a plain function that calls the copy its arguments' None-ness chooses."""
    lines = []
    doc = fn.get_docstring(clean=False)
    if doc is not None:
        first = fn.body.body[0]  # type: ignore[union-attr]
        lines.append(cst.Module([first.with_changes(leading_lines=[])]).code.rstrip("\n"))
    for i, (case, name, dropped) in enumerate(cases):
        args = ", ".join(_passed(fn.params, dropped))
        call = f"return {name}({args})"
        if i == len(cases) - 1:
            lines.append(call)
            continue
        test = " and ".join(f"{p} is {'' if none else 'not '}None" for p, none in case.items())
        lines.append(f"if {test}:\n    {call}")
    block = "\n".join(lines)
    body = cst.parse_module(block + "\n").body
    listed = " and ".join(f"`{p}`" for p in params)
    note = (
        f"tiletrans: a kernel per case of {listed} passed or None, chosen here, as Helion "
        f"specialises `{fn.name.value}` on None"
    )
    comments = [cst.EmptyLine(comment=cst.Comment(f"# {line}")) for line in textwrap.wrap(note, 96)]
    return fn.with_changes(
        decorators=[],
        body=cst.IndentedBlock(body=body),
        leading_lines=[cst.EmptyLine(), cst.EmptyLine(), *comments],
    )


def _passed(params: cst.Parameters, dropped: set[str]) -> list[str]:
    """The arguments of a copy's call: positional parameters by position, keyword-only ones by
    name; the parameters that copy dropped left out."""
    positional = (*params.posonly_params, *params.params)
    out = [p.name.value for p in positional if p.name.value not in dropped]
    out += [
        f"{p.name.value}={p.name.value}"
        for p in params.kwonly_params
        if p.name.value not in dropped
    ]
    return out


class _Fold(cst.CSTTransformer):
    """Folds the None tests of one case and the branches they decide."""

    def __init__(self, case: dict[str, bool]) -> None:
        super().__init__()
        self.case = case

    def leave_Comparison(
        self, original: cst.Comparison, updated: cst.Comparison
    ) -> cst.BaseExpression:
        test = _none_test(original, list(self.case))
        if test is None:
            return updated
        name, is_none = test
        return _TRUE if self.case[name] == is_none else _FALSE

    def leave_UnaryOperation(
        self, original: cst.UnaryOperation, updated: cst.UnaryOperation
    ) -> cst.BaseExpression:
        value = _truth(updated.expression)
        if isinstance(updated.operator, cst.Not) and value is not None:
            return _FALSE if value else _TRUE
        return updated

    def leave_BooleanOperation(
        self, original: cst.BooleanOperation, updated: cst.BooleanOperation
    ) -> cst.BaseExpression:
        left = _truth(updated.left)
        is_and = isinstance(updated.operator, cst.And)
        if left is not None:
            # `True and e` is e, `False and e` False; `True or e` True, `False or e` e.
            return updated.right if left == is_and else updated.left
        return updated

    def leave_IfExp(self, original: cst.IfExp, updated: cst.IfExp) -> cst.BaseExpression:
        value = _truth(updated.test)
        if value is None:
            return updated
        return updated.body if value else updated.orelse

    def leave_If(
        self, original: cst.If, updated: cst.If
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
        value = _truth(updated.test)
        if value is None:
            return updated
        if value:
            kept = list(updated.body.body)  # type: ignore[attr-defined]
        elif isinstance(updated.orelse, cst.Else):
            kept = list(updated.orelse.body.body)  # type: ignore[attr-defined]
        elif isinstance(updated.orelse, cst.If):
            kept = [updated.orelse]
        else:
            return cst.RemoveFromParent()
        if kept and hasattr(kept[0], "leading_lines"):
            kept[0] = kept[0].with_changes(leading_lines=updated.leading_lines)  # type: ignore[union-attr]
        return cst.FlattenSentinel(kept)

    def leave_IndentedBlock(
        self, original: cst.IndentedBlock, updated: cst.IndentedBlock
    ) -> cst.IndentedBlock:
        if updated.body:
            return updated
        return updated.with_changes(body=[cst.SimpleStatementLine([cst.Pass()])])


def _truth(node: cst.BaseExpression) -> bool | None:
    """``True``/``False`` for those literals (as folding wrote them), else ``None``."""
    if isinstance(node, cst.Name) and node.value in ("True", "False") and not node.lpar:
        return node.value == "True"
    return None


__all__ = ["MAX_OPTIONAL", "specialise_optional"]
