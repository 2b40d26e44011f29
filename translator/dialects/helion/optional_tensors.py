"""Compile-time tests in a Helion kernel, specialised per launch before parsing: optional
tensors that device code tests (``if shift_labels is not None:`` in a loop), and string choices
whose host branches allocate a tensor the loops store (``if reduction == "none": loss =
torch.zeros_like(y)`` else a 1-d ``loss``, as Helion's ``kl_div`` does).

Helion specialises a kernel on the None-ness of its arguments and on the values of its ``str``
arguments: a launch with ``bias=None`` compiles a kernel without ``bias``, one with
``reduction="none"`` a kernel whose ``loss`` is 2-d. No target kernel takes None for a tensor or
a tensor of either rank, so this pass does the same in the source: the kernel function becomes
one copy per case of its tests, each with them folded (``x is None``, ``mode == "none"`` are
``True`` or ``False``, the dead branch gone; a None case loses the parameter), and a plain
function of the kernel's name and signature calls the copy the arguments choose. Everything
after reads an ordinary module; :func:`~.specialised.line_map` points its lines back into the
source.

Refused: a tested parameter the function rebinds (``bias = torch.zeros(...) if bias is None
else bias`` is read as a default on the host already), more than :data:`MAX_TESTS` tests in one
kernel, and a kernel the module uses other than by calling it.
"""

from __future__ import annotations

import itertools
import re
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass

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

#: At most this many tests per kernel are specialised on (2**n copies).
MAX_TESTS = 2


@dataclass(frozen=True)
class Test:
    """A compile-time test of a parameter: ``param is None`` (``literal`` None) or
    ``param == literal`` (a string)."""

    param: str
    literal: str | None = None

    def spelt(self, holds: bool) -> str:
        """The test (``holds``) or its negation, as the choosing function writes it."""
        if self.literal is None:
            return f"{self.param} is {'' if holds else 'not '}None"
        quoted = (
            repr(self.literal)
            if '"' in self.literal or "\\" in self.literal
            else f'"{self.literal}"'
        )
        return f"{self.param} {'==' if holds else '!='} {quoted}"

    def words(self, holds: bool) -> str:
        """The case, as the name of its copy says it (``without_bias``, ``reduction_none``)."""
        if self.literal is None:
            return f"{'without' if holds else 'with'}_{self.param}"
        word = re.sub(r"\W+", "_", self.literal).strip("_") or "empty"
        return f"{self.param}_{'' if holds else 'not_'}{word}"


_TRUE, _FALSE = cst.Name("True"), cst.Name("False")


def specialise_optional(
    source: str,
    path: str,
    is_kernel: Callable[[cst.FunctionDef, dict[str, str]], bool],
    loops: set[str],
    choices: frozenset[str] = frozenset(),
) -> Specialised | None:
    """``source`` with each kernel whose device code tests an optional tensor split per case,
    or ``None`` where no kernel does (nothing is rewritten). ``loops`` are the qualified names
    of the calls a device loop iterates (``helion.language.tile``); ``choices`` the tests of
    host ``if`` statements whose branches allocate a tensor with two ranks (as written, the
    frontend found them), which kernels testing them are split on too."""
    if " None" not in source and not choices:
        return None
    try:
        wrapper = parse_source(source, path)
    except TranslationError:
        return None  # the ordinary parse reports the syntax error
    module = wrapper.module
    locate = Locator(wrapper, path)
    aliases = import_aliases(module)
    tested: dict[str, list[Test]] = {}
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef) and is_kernel(stmt, aliases):
            tests = _device_tested(stmt, aliases, loops) + _rank_choices(stmt, choices)
            if tests:
                _check(stmt, tests, locate)
                tested[stmt.name.value] = tests
    if not tested:
        return None
    _check_only_called(module, set(tested), locate)
    body: list[cst.BaseStatement] = []
    added: set[str] = set()
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value in tested:
            copies, dispatcher = _split(stmt, tested[stmt.name.value], aliases)
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


def _test(node: cst.CSTNode, params: set[str]) -> tuple[Test, bool] | None:
    """The test ``node`` is, of one of ``params``, and whether it holds where the test does
    (``x is not None``: the test ``x is None``, negated), else ``None``."""
    if not (
        isinstance(node, cst.Comparison)
        and len(node.comparisons) == 1
        and isinstance(node.left, cst.Name)
        and node.left.value in params
    ):
        return None
    param, target = node.left.value, node.comparisons[0]
    operator, comparator = target.operator, target.comparator
    if isinstance(comparator, cst.Name) and comparator.value == "None":
        if isinstance(operator, (cst.Is, cst.IsNot)):
            return Test(param), isinstance(operator, cst.Is)
        return None
    if isinstance(comparator, cst.SimpleString) and isinstance(operator, (cst.Equal, cst.NotEqual)):
        value = comparator.evaluated_value
        if isinstance(value, str):
            return Test(param, value), isinstance(operator, cst.Equal)
    return None


def _device_tested(fn: cst.FunctionDef, aliases: dict[str, str], loops: set[str]) -> list[Test]:
    """The None tests of optional tensor parameters in ``fn``'s device loops."""
    optional = set(_optional_tensor_params(fn))
    found: list[Test] = []
    for loop in _device_loops(fn, aliases, loops):
        for node in _comparisons(loop.body):
            test = _test(node, optional)
            if test is not None and test[0].literal is None and test[0] not in found:
                found.append(test[0])
    order = _optional_tensor_params(fn)
    return sorted(found, key=lambda t: order.index(t.param))


def _rank_choices(fn: cst.FunctionDef, choices: frozenset[str]) -> list[Test]:
    """The tests of ``fn``'s host ``if`` statements that are among ``choices`` and test a
    ``str`` parameter (Helion compiles a kernel per value of a ``str`` argument)."""
    params = {
        p.name.value
        for p in (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params)
        if p.annotation is not None and source_of(p.annotation.annotation) == "str"
    }
    if not choices or not params or not isinstance(fn.body, cst.IndentedBlock):
        return []
    found: list[Test] = []
    for stmt in fn.body.body:
        if not isinstance(stmt, cst.If) or " ".join(source_of(stmt.test).split()) not in choices:
            continue
        test = _test(stmt.test, params)
        if test is not None and test[0] not in found:
            found.append(test[0])
    return found


def _device_loops(fn: cst.FunctionDef, aliases: dict[str, str], loops: set[str]) -> list[cst.For]:
    """The outermost device loops of ``fn``."""
    out: list[cst.For] = []

    def enter(node: cst.CSTNode) -> bool:
        if (
            isinstance(node, cst.For)
            and isinstance(node.iter, cst.Call)
            and resolve(node.iter.func, aliases) in loops
        ):
            out.append(node)
            return False
        return True

    walk(fn.body, enter)
    return out


def _comparisons(node: cst.CSTNode) -> list[cst.Comparison]:
    out: list[cst.Comparison] = []

    def enter(n: cst.CSTNode) -> bool:
        if isinstance(n, cst.Comparison):
            out.append(n)
        return True

    walk(node, enter)
    return out


def _check(fn: cst.FunctionDef, tests: list[Test], locate: Locator) -> None:
    rebound = set(bound_names(fn.body))
    for t in tests:
        if t.param in rebound:
            raise TranslationError(
                f"`{t.spelt(True)}` is tested and `{t.param}` rebound in `{fn.name.value}`: "
                "tiletrans specialises the kernel on that test of the argument, which a "
                "rebinding changes",
                locate(fn.name),
                f"bind the value to a new name (`{t.param}_value = ...`) and test `{t.param}` "
                "itself",
            )
    if len(tests) > MAX_TESTS:
        listed = ", ".join(f"`{t.spelt(True)}`" for t in tests)
        raise TranslationError(
            f"`{fn.name.value}` specialises on {len(tests)} tests ({listed}): tiletrans "
            f"specialises on at most {MAX_TESTS} ({2**MAX_TESTS} kernels)",
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


def _split(
    fn: cst.FunctionDef, tests: list[Test], aliases: dict[str, str]
) -> tuple[list[cst.FunctionDef], cst.FunctionDef]:
    """One kernel copy per case of ``tests``, and the function that chooses among them."""
    copies: list[cst.FunctionDef] = []
    cases: list[tuple[dict[Test, bool], str, set[str]]] = []
    for holds in itertools.product((False, True), repeat=len(tests)):
        case = dict(zip(tests, holds))
        words = [t.words(h) for t, h in case.items()]
        name = f"_{fn.name.value.lstrip('_')}_{'_'.join(words)}"
        body = _without_dead_fills(fn.body.visit(_Fold(case)), aliases)
        # A None parameter nothing reads once its tests are folded goes; one host code still
        # reads (`print(bias)`) stays, None as the caller passed it.
        read = {n.value for n in name_nodes(body)}
        dropped = {
            t.param for t, h in case.items() if t.literal is None and h and t.param not in read
        }
        copy = fn.with_changes(
            name=cst.Name(name),
            body=body,
            params=_without_params(fn.params, dropped),
            leading_lines=[cst.EmptyLine(), cst.EmptyLine()] if copies else fn.leading_lines,
        )
        copies.append(copy)
        cases.append((case, name, dropped))
    return copies, _dispatcher(fn, tests, cases)


#: Calls that only make a filled tile or tensor: one nothing reads is dead code.
_FILLS = {
    "helion.language.zeros",
    "helion.language.full",
    "torch.zeros",
    "torch.ones",
    "torch.full",
    "torch.empty",
    "torch.zeros_like",
    "torch.empty_like",
    "torch.full_like",
}


def _without_dead_fills(body: cst.BaseSuite, aliases: dict[str, str]) -> cst.BaseSuite:
    """``body`` without the fills that a folded branch left unread (``row_sum =
    hl.zeros([tile_m])`` whose sums were in the other case's branch): a buffer nothing reads
    has no layout some targets can infer (TileLang)."""
    while dead := _dead_fills(body, aliases):
        body = body.visit(_Remove(dead))
    return body


def _dead_fills(body: cst.BaseSuite, aliases: dict[str, str]) -> set[cst.CSTNode]:
    """The statements of ``body`` that bind a fill (:data:`_FILLS`) nothing reads."""
    read = _names_read(body)
    dead: set[cst.CSTNode] = set()

    def enter(node: cst.CSTNode) -> bool:
        if isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1:
            small = node.body[0]
            if (
                isinstance(small, cst.Assign)
                and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Name)
                and small.targets[0].target.value not in read
                and isinstance(small.value, cst.Call)
                and resolve(small.value.func, aliases) in _FILLS
            ):
                dead.add(node)
        return True

    walk(body, enter)
    return dead


class _Remove(cst.CSTTransformer):
    def __init__(self, statements: set[cst.CSTNode]) -> None:
        super().__init__()
        self.statements = statements

    def leave_SimpleStatementLine(
        self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine | cst.RemovalSentinel:
        return cst.RemoveFromParent() if original in self.statements else updated

    def leave_IndentedBlock(
        self, original: cst.IndentedBlock, updated: cst.IndentedBlock
    ) -> cst.IndentedBlock:
        if updated.body:
            return updated
        return updated.with_changes(body=[cst.SimpleStatementLine([cst.Pass()])])


def _names_read(node: cst.CSTNode) -> set[str]:
    """The names ``node`` reads (every name but a plain assignment's targets)."""
    targets: set[int] = set()

    def enter(n: cst.CSTNode) -> bool:
        if isinstance(n, cst.AssignTarget) and isinstance(n.target, cst.Name):
            targets.add(id(n.target))
        return True

    walk(node, enter)
    return {n.value for n in name_nodes(node) if id(n) not in targets}


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
    fn: cst.FunctionDef, tests: list[Test], cases: list[tuple[dict[Test, bool], str, set[str]]]
) -> cst.FunctionDef:
    """``fn`` as a plain function that calls the copy its arguments choose."""
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
        test = " and ".join(t.spelt(h) for t, h in case.items())
        lines.append(f"if {test}:\n    {call}")
    block = "\n".join(lines)
    body = cst.parse_module(block + "\n").body
    listed = " and ".join(f"`{t.spelt(True)}`" for t in tests)
    on = sorted({"None-ness" if t.literal is None else "strings" for t in tests}, reverse=True)
    note = (
        f"tiletrans: a kernel per case of {listed}, chosen here, as Helion specialises "
        f"`{fn.name.value}` on {' and '.join(on)}"
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
    """Folds the tests of one case and the branches they decide."""

    def __init__(self, case: dict[Test, bool]) -> None:
        super().__init__()
        self.case = case
        self.params = {t.param for t in case}
        self.elifs: set[int] = set()

    def leave_Comparison(
        self, original: cst.Comparison, updated: cst.Comparison
    ) -> cst.BaseExpression:
        found = _test(original, self.params)
        if found is None:
            return updated
        test, holds = found
        if test in self.case:
            return _TRUE if self.case[test] == holds else _FALSE
        if test.literal is not None and any(
            t.param == test.param and t.literal is not None and t.literal != test.literal and h
            for t, h in self.case.items()
        ):
            # `reduction == "mean"` in the copy where `reduction == "none"` holds: another
            # string, so the test fails there (and that branch is dead code, its types moot).
            return _FALSE if holds else _TRUE
        return updated

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

    def visit_If(self, node: cst.If) -> None:
        if isinstance(node.orelse, cst.If):
            self.elifs.add(id(node.orelse))

    def leave_If(
        self, original: cst.If, updated: cst.If
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
        if id(original) in self.elifs:
            # An `elif` is folded by the `if` it belongs to (it cannot become statements).
            return updated
        updated = updated.with_changes(orelse=_folded_elif(updated.orelse))
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


def _folded_elif(orelse: cst.If | cst.Else | None) -> cst.If | cst.Else | None:
    """The ``elif`` chain ``orelse`` with its folded tests decided: a true one is the ``else``,
    a false one gives way to what follows it."""
    while isinstance(orelse, cst.If):
        value = _truth(orelse.test)
        if value is None:
            return orelse.with_changes(orelse=_folded_elif(orelse.orelse))
        if value:
            return cst.Else(body=orelse.body)
        orelse = orelse.orelse
    return orelse


def _truth(node: cst.BaseExpression) -> bool | None:
    """``True``/``False`` for those literals (as folding wrote them), else ``None``."""
    if isinstance(node, cst.Name) and node.value in ("True", "False") and not node.lpar:
        return node.value == "True"
    return None


__all__ = ["MAX_TESTS", "Test", "specialise_optional"]
