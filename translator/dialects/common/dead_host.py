"""Dead host code: carried statements that only the source's launches read, removed.

Host code is carried as written, but a launch rewritten for the target often leaves behind what
only the source's launch read: ``BLOCK_SIZE = triton.next_power_of_2(n)`` and ``num_warps = ...``
that became the kernel's config, a ``grid = lambda meta: ...`` the target launches without (or
redefines), a ``n_elements = x.numel()`` only that grid read. :func:`remove_dead_host` removes
those statements when they are

* **dead**: a flow-sensitive liveness analysis of each host function (libcst's scope analysis
  says which names are the function's own and which a nested function or comprehension
  captures; captured, ``global``/``nonlocal`` names and functions that call ``locals()``,
  ``vars()``, ``eval`` or ``exec`` are left alone) finds nothing reading the binding before it is
  bound again, or, at module level, a ``_private`` name nothing in the module reads;
* **pure**: the right side only reads names, constants, tensor metadata (:data:`PURE_ATTRIBUTES`,
  :data:`PURE_METHODS`), does arithmetic, builds tuples/lists/dicts/lambdas, and calls functions
  known to have no side effects: Python builtins and ``math`` (:data:`PYTHON_PURE_CALLS`), each
  grammar's ``pure_host_calls`` (``triton.cdiv``, ``triton.next_power_of_2``, ``ct.cdiv``), and
  module functions whose own bodies are pure (assignments, ``if``, ``return``); a nested ``def``
  without decorators is pure too. Pure means without side effects: an error only a malformed
  input raises there (``x.size(3)`` of a 2-D tensor, a division by zero) is not kept;
* **new**: dead only in the translation. What the source itself leaves unread (``source``) is
  the author's and is kept.

Never removed: public module-level names, tuple unpacking that could fail (``m, n = x.shape``;
only a literal right side loses dead elements), augmented assignments (they may mutate a
tensor), statements in kernels (``skip``), in ``try``/``match`` bodies or in inline suites, and
the last statement of a block. A removed statement's comments are kept: onto the next statement
if that binds the same name again (the source's ``grid`` comment onto the target's ``grid``),
else in place followed by a ``# tiletrans:`` line naming what was dropped. Removal repeats until
nothing more is dead (the grid lambda first, then the ``n_elements`` only it read).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import libcst as cst
from libcst.metadata import BaseAssignment, MetadataWrapper, Scope, ScopeProvider

from translator.dialects.cst_utils import Wrapper, children

#: Builtins and ``math`` functions without side effects (qualified names).
PYTHON_PURE_CALLS = frozenset(
    {
        *(
            f"builtins.{name}"
            for name in (
                "abs",
                "bool",
                "divmod",
                "float",
                "int",
                "len",
                "max",
                "min",
                "pow",
                "round",
                "tuple",
            )
        ),
        *(
            f"math.{name}"
            for name in ("ceil", "floor", "sqrt", "log", "log2", "exp", "gcd", "prod", "isqrt")
        ),
    }
)
#: Methods of tensors and numbers that only read metadata.
PURE_METHODS = frozenset(
    {"size", "stride", "numel", "nelement", "dim", "element_size", "is_contiguous", "bit_length"}
)
#: Attributes of tensors and devices that only read metadata.
PURE_ATTRIBUTES = frozenset(
    {
        "shape",
        "dtype",
        "device",
        "ndim",
        "itemsize",
        "type",
        "index",
        "multi_processor_count",
        # Of a driver target (`get_current_target().backend`, the tutorials' `is_hip()`).
        "backend",
        "arch",
    }
)
#: Calls that make a function's locals visible by name: such a function is left alone.
_INTROSPECTION = frozenset({"locals", "vars", "eval", "exec"})


@cache
def grammar_pure_calls() -> frozenset[str]:
    """Every dialect grammar's ``pure_host_calls`` (dotted names after imports)."""
    from translator.dialects import dialects
    from translator.grammar import load_grammar

    out: set[str] = set()
    for name in dialects():
        try:
            out.update(load_grammar(name).get("pure_host_calls", ()))
        except FileNotFoundError:  # a plugin dialect without a grammar file
            continue
    return frozenset(out)


def remove_dead_host(
    tree: cst.Module,
    *,
    source: str | None = None,
    source_wrapper: MetadataWrapper | None = None,
    skip: Collection[str] = (),
    pure_calls: Collection[str] | None = None,
    fresh: bool = False,
) -> cst.Module:
    """``tree`` without its dead, pure host statements (see the module docstring).

    ``source`` is the module the translation came from (what is dead there already is kept);
    ``skip`` names the module-level definitions not to touch (the translated kernels);
    ``pure_calls`` the qualified names of side-effect-free functions (by default Python's and
    every grammar's ``pure_host_calls``). ``source_wrapper``, when given, is ``source`` already
    parsed (its scopes perhaps resolved already: spares a second parse and analysis). ``fresh``
    says that no node object appears twice in ``tree`` (it was just parsed from text, say), so
    the metadata wrapper need not copy it first (the copy cost a tenth of a translation).
    """
    calls = frozenset(pure_calls if pure_calls is not None else grammar_pure_calls())
    calls |= PYTHON_PURE_CALLS
    analysed, originals = _with_skipped_bodies_stubbed(tree, skip)
    wrapper = Wrapper(analysed, unsafe_skip_copy=fresh)
    found = _Analysis(wrapper, skip, calls, frozenset()).run()
    if not found.keys:
        return tree
    if source is not None:
        # What the source leaves unread is the author's: found again with that kept.
        original = source_wrapper
        if original is None:
            try:
                original = Wrapper(cst.parse_module(source), unsafe_skip_copy=True)
            except cst.ParserSyntaxError:
                original = None
        if original is not None:
            kept = frozenset(_Analysis(original, skip, calls, frozenset(), rounds=1).run().keys)
            if kept & found.keys:
                found = _Analysis(wrapper, skip, calls, kept).run()
    if not found.keys:
        return tree
    pruned = wrapper.module.visit(_Remover(found, wrapper.module))
    if not originals:
        return pruned
    # Kernels are never removed: the stubbed ones come back in order, perhaps rebuilt (given
    # the comments of a statement removed above them) or copied (by the metadata wrapper).
    pending = list(originals)
    body = []
    for stmt in pruned.body:
        if pending and type(stmt) is cst.FunctionDef and stmt.body.deep_equals(pending[0][0]):
            stmt = stmt.with_changes(body=pending.pop(0)[1])
        body.append(stmt)
    assert not pending, "a kernel stub was lost"
    return pruned.with_changes(body=body)


def _with_skipped_bodies_stubbed(
    tree: cst.Module, skip: Collection[str]
) -> tuple[cst.Module, list[tuple[cst.IndentedBlock, cst.BaseSuite]]]:
    """``tree`` with the body of each module-level function named in ``skip`` (the translated
    kernels, never analysed) cut to one statement that reads what the body read, and each
    stub body with the original, in order.

    What a kernel's body reads keeps module names alive, and that is all the analysis asks of
    it; scope analysis of the bodies themselves was half its cost. A body with ``global`` or
    ``nonlocal`` statements is kept whole (the analysis reads those declarations)."""
    originals: list[tuple[cst.IndentedBlock, cst.BaseSuite]] = []
    body: list[cst.BaseStatement] = []
    for stmt in tree.body:
        if (
            type(stmt) is cst.FunctionDef
            and stmt.name.value in skip
            and isinstance(stmt.body, cst.IndentedBlock)
        ):
            reads, declared = _module_reads(stmt.body)
            if not declared:
                stub = reading_block(sorted(reads))
                originals.append((stub, stmt.body))
                stmt = stmt.with_changes(body=stub)
        body.append(stmt)
    if not originals:
        return tree, originals
    return tree.with_changes(body=body), originals


def reading_block(names: Sequence[str]) -> cst.IndentedBlock:
    """``pass`` and, when there are any, one statement reading ``names`` (a tuple, its commas
    as the parser gives them, so that a tree holding it is the parse of its text)."""
    lines = [cst.SimpleStatementLine(body=[cst.Pass()])]
    if names:
        last = len(names) - 1
        read = cst.Tuple(
            [
                cst.Element(
                    cst.Name(n),
                    comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
                    if i < last
                    else (cst.Comma() if last == 0 else cst.MaybeSentinel.DEFAULT),
                )
                for i, n in enumerate(names)
            ]
        )
        lines.append(cst.SimpleStatementLine(body=[cst.Expr(read)]))
    return cst.IndentedBlock(body=lines)


# --------------------------------------------------------------------------------------------------
# Analysis


@dataclass
class _Found:
    """What one round of analysis found dead."""

    #: Whole statements (``SimpleStatementLine``/``FunctionDef``) to remove, by identity.
    remove: dict[int, tuple[str, ...]] = field(default_factory=dict)
    #: Small statements (``Assign``) inside lines that stay, to remove: id -> names.
    remove_small: dict[int, tuple[str, ...]] = field(default_factory=dict)
    #: Literal tuple assignments losing elements: id of the ``Assign`` -> indices dropped.
    drop_elements: dict[int, tuple[int, ...]] = field(default_factory=dict)
    #: ``(scope, name)`` of everything found dead (a source's are kept in its translation).
    keys: set[tuple[str, str]] = field(default_factory=set)
    #: The nodes behind the ids above.
    nodes: dict[int, cst.CSTNode] = field(default_factory=dict)


#: Per node type whose children are not all reads: the children that are (an attribute's
#: ``.name`` and an argument's ``keyword=`` are no reads, nor a definition's or parameter's name).
#: By exact type (libcst's node classes have no subclasses): ``isinstance`` against libcst's
#: classes goes through ``ABCMeta`` for every node that fails it, a tenth of the analysis.
_PICK: dict[type, Callable[[Any], Sequence[cst.CSTNode | None]]] = {
    cst.Attribute: lambda n: (n.value,),
    cst.Arg: lambda n: (n.value,),
    cst.Param: lambda n: (n.annotation, n.default),
    cst.FunctionDef: lambda n: (*n.decorators, n.params, n.returns, n.body),
    cst.ClassDef: lambda n: (*n.decorators, *n.bases, *n.keywords, n.body),
}
_NAME = cst.Name


def _reads(*nodes: cst.CSTNode | None, gone: Collection[int] = ()) -> set[str]:
    """Names ``nodes`` read (over-approximated: any ``Name`` that is not an attribute, keyword,
    parameter or definition name), outside the nodes in ``gone``."""
    names: set[str] = set()
    stack = [node for node in nodes if node is not None]
    pick = _PICK.get
    while stack:
        node = stack.pop()
        if gone and id(node) in gone:
            continue
        kind = type(node)
        if kind is _NAME:
            # A name's only children are its parentheses.
            names.add(node.value)
            continue
        chosen = pick(kind)
        if chosen is None:
            stack.extend(children(node))
        else:
            stack.extend(c for c in chosen(node) if c is not None)
    return names


def _simple_names(target: cst.BaseExpression) -> list[str] | None:
    """The names a target binds if it is a name or a (nested) tuple/list of names, else None."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        out: list[str] = []
        for el in target.elements:
            if isinstance(el, cst.StarredElement):
                return None
            sub = _simple_names(el.value)
            if sub is None:
                return None
            out.extend(sub)
        return out
    return None


def _descendants(node: cst.CSTNode) -> set[int]:
    """The ids of ``node`` and every node under it."""
    out: set[int] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        out.add(id(current))
        stack.extend(children(current))
    return out


def _has_comments(node: cst.CSTNode) -> bool:
    return "#" in cst.Module(body=[]).code_for_node(node)


class _Analysis:
    """Which host statements of ``wrapper``'s module are dead and pure: rounds of analysis, each
    seeing the module without what the rounds before found (at most ``rounds``)."""

    def __init__(
        self,
        wrapper: MetadataWrapper,
        skip: Collection[str],
        calls: frozenset[str],
        kept: frozenset[tuple[str, str]],
        rounds: int = 100,
    ) -> None:
        self.module = wrapper.module
        self.scopes = wrapper.resolve(ScopeProvider)
        self.rounds = rounds
        # Nodes inside what earlier rounds removed: their reads no longer count.
        self.gone: set[int] = set()
        self.skip = set(skip)
        self.calls = calls
        self.kept = kept
        self.found = _Found()
        # Every name the module reads (no `gone` yet: what rounds remove still counts here, as
        # it did for the checks below), and the names declared global or nonlocal.
        self.module_reads, self.declared = _module_reads(self.module)
        self._pure_functions: dict[str, bool] = {}
        self.functions = {
            s.name.value: s for s in self.module.body if isinstance(s, cst.FunctionDef)
        }
        # Break/continue targets of the loops being analysed: (live at the head, after).
        self.loops: list[tuple[set[str], set[str]]] = []
        # The function being analysed: its qualified name and the names it may lose.
        self.qualname = ""
        self.removable: set[str] = set()

    def run(self) -> _Found:
        """Rounds of :meth:`_round` until one finds nothing new."""
        for _ in range(self.rounds):
            before = self._size()
            self._round()
            if self._size() == before:
                break
            self._forget_found()
        return self.found

    def _size(self) -> tuple[int, int, int]:
        f = self.found
        return (len(f.remove), len(f.remove_small), sum(len(d) for d in f.drop_elements.values()))

    def _forget_found(self) -> None:
        """Put every node of what was found so far in ``gone``."""
        f = self.found
        roots: list[cst.CSTNode] = [f.nodes[i] for i in (*f.remove, *f.remove_small)]
        for i, drop in f.drop_elements.items():
            assign = f.nodes[i]
            assert isinstance(assign, cst.Assign)
            target, value = assign.targets[0].target, assign.value
            assert isinstance(target, (cst.Tuple, cst.List))
            assert isinstance(value, (cst.Tuple, cst.List))
            roots += [target.elements[j] for j in drop] + [value.elements[j] for j in drop]
        for root in roots:
            if id(root) not in self.gone:
                self.gone |= _descendants(root)

    def _r(self, *nodes: cst.CSTNode | None) -> set[str]:
        """What ``nodes`` read, outside what was found."""
        return _reads(*nodes, gone=self.gone)

    def _round(self) -> None:
        """Analyse every host function and the module's private names."""
        self._module_level()
        for stmt in self.module.body:
            if id(stmt) in self.found.remove:
                continue
            if isinstance(stmt, cst.FunctionDef) and stmt.name.value not in self.skip:
                self._function(stmt, stmt.name.value)
            elif isinstance(stmt, cst.ClassDef) and stmt.name.value not in self.skip:
                for inner in stmt.body.body:
                    if isinstance(inner, cst.FunctionDef):
                        self._function(inner, f"{stmt.name.value}.{inner.name.value}")
        return self.found

    # ------------------------------------------------------------------ purity

    def _qualified(self, node: cst.CSTNode) -> set[str]:
        scope = self.scopes.get(node)
        if scope is None:
            return set()
        return {q.name for q in scope.get_qualified_names_for(node)}

    def pure(self, e: cst.BaseExpression | None) -> bool:
        """Whether evaluating ``e`` has no side effects (see the module docstring)."""
        if e is None:
            return True
        if isinstance(
            e,
            (
                cst.Name,
                cst.Integer,
                cst.Float,
                cst.Imaginary,
                cst.SimpleString,
                cst.ConcatenatedString,
                cst.Ellipsis,
            ),
        ):
            return True
        if isinstance(e, cst.FormattedString):
            return all(
                self.pure(p.expression)
                for p in e.parts
                if isinstance(p, cst.FormattedStringExpression)
            )
        if isinstance(e, cst.Attribute):
            if e.attr.value in PURE_ATTRIBUTES:
                return self.pure(e.value)
            # An attribute of an imported module (`torch.float16`, `math.pi`).
            return bool(self._qualified(e)) and self._rooted_at_import(e)
        if isinstance(e, cst.Subscript):
            return self.pure(e.value) and all(self._pure_slice(s.slice) for s in e.slice)
        if isinstance(e, cst.BinaryOperation):
            return self.pure(e.left) and self.pure(e.right)
        if isinstance(e, cst.UnaryOperation):
            return self.pure(e.expression)
        if isinstance(e, cst.BooleanOperation):
            return self.pure(e.left) and self.pure(e.right)
        if isinstance(e, cst.Comparison):
            return self.pure(e.left) and all(self.pure(c.comparator) for c in e.comparisons)
        if isinstance(e, cst.IfExp):
            return self.pure(e.test) and self.pure(e.body) and self.pure(e.orelse)
        if isinstance(e, (cst.Tuple, cst.List, cst.Set)):
            return all(self.pure(el.value) for el in e.elements)
        if isinstance(e, cst.Dict):
            return all(
                self.pure(el.value) and (not isinstance(el, cst.DictElement) or self.pure(el.key))
                for el in e.elements
            )
        if isinstance(e, cst.Lambda):
            return self._pure_params(e.params)
        if isinstance(e, cst.Call):
            return self._pure_call(e)
        return False

    def _pure_slice(self, s: cst.BaseSlice) -> bool:
        if isinstance(s, cst.Index):
            return self.pure(s.value)
        if isinstance(s, cst.Slice):
            return self.pure(s.lower) and self.pure(s.upper) and self.pure(s.step)
        return False

    def _pure_params(self, params: cst.Parameters) -> bool:
        every = [*params.posonly_params, *params.params, *params.kwonly_params]
        return all(self.pure(p.default) for p in every)

    def _rooted_at_import(self, e: cst.Attribute) -> bool:
        root: cst.BaseExpression = e
        while isinstance(root, cst.Attribute):
            root = root.value
        if not isinstance(root, cst.Name):
            return False
        scope = self.scopes.get(root)
        if scope is None:
            return False
        assignments = list(scope[root.value])
        return bool(assignments) and all(
            isinstance(getattr(a, "node", None), (cst.Import, cst.ImportFrom)) for a in assignments
        )

    def _pure_call(self, call: cst.Call) -> bool:
        if not all(self.pure(a.value) for a in call.args):
            return False
        func = call.func
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value in PURE_METHODS
            and not (self._qualified(func) and self._rooted_at_import(func))
        ):
            # A metadata method of a tensor or number (`x.size(0)`, `n.bit_length()`).
            return self.pure(func.value)
        names = self._qualified(func)
        if not names:
            return False
        return all(n in self.calls or self._pure_function(n) for n in names)

    def _pure_function(self, name: str) -> bool:
        """Whether ``name`` is a module function (defined once, undecorated) whose body only
        assigns pure values to its locals, branches on pure tests and returns pure values."""
        if name in self._pure_functions:
            return self._pure_functions[name]
        fn = self.functions.get(name)
        if fn is None or fn.decorators or not self._defined_once(name):
            return False
        self._pure_functions[name] = False  # recursion: not known pure
        result = self._pure_params(fn.params) and self._pure_body(fn.body.body)
        self._pure_functions[name] = result
        return result

    def _defined_once(self, name: str) -> bool:
        scope = self.scopes.get(self.module.body[0]) if self.module.body else None
        if scope is None:
            return False
        return len(list(scope.assignments[name])) == 1

    def _pure_body(self, stmts: Sequence[cst.BaseStatement]) -> bool:
        for stmt in stmts:
            if isinstance(stmt, cst.If):
                orelse = stmt.orelse
                branches = [stmt.body.body]
                if isinstance(orelse, cst.Else):
                    branches.append(orelse.body.body)
                elif isinstance(orelse, cst.If):
                    branches.append([orelse])
                if not self.pure(stmt.test) or not all(self._pure_body(b) for b in branches):
                    return False
                continue
            if not isinstance(stmt, cst.SimpleStatementLine):
                return False
            for small in stmt.body:
                if isinstance(small, cst.Pass):
                    continue
                if isinstance(small, cst.Expr) and isinstance(
                    small.value, (cst.SimpleString, cst.ConcatenatedString)
                ):
                    continue
                if isinstance(small, cst.Return) and self.pure(small.value):
                    continue
                if (
                    isinstance(small, cst.Assign)
                    and self.pure(small.value)
                    and all(isinstance(t.target, cst.Name) for t in small.targets)
                ):
                    continue
                if (
                    isinstance(small, cst.AnnAssign)
                    and isinstance(small.target, cst.Name)
                    and self.pure(small.value)
                ):
                    continue
                return False
        return True

    def _pure_def(self, fn: cst.FunctionDef) -> bool:
        return not fn.decorators and self._pure_params(fn.params) and not _has_comments(fn.body)

    # ------------------------------------------------------------------ module level

    def _module_level(self) -> None:
        if not self.module.body:
            return
        scope = self.scopes.get(self.module.body[0])
        if scope is None or {"globals", *_INTROSPECTION} & self.module_reads:
            return
        exported = _all_names(self.module)

        def candidate(name: str) -> bool:
            return (
                name.startswith("_")
                and not name.startswith("__")
                and name not in self.skip
                and name not in exported
                and ("", name) not in self.kept
            )

        for stmt in self.module.body:
            if id(stmt) in self.found.remove:
                continue
            name = self._module_binding(stmt, candidate)
            if name is None:
                continue
            assignments = list(scope.assignments[name])
            if len(assignments) != 1 or self._referenced(assignments[0]):
                continue
            self.found.remove[id(stmt)] = (name,)
            self.found.nodes[id(stmt)] = stmt
            self.found.keys.add(("", name))

    def _referenced(self, assignment: BaseAssignment) -> bool:
        """Whether anything outside what was found reads ``assignment``."""
        return any(id(ref.node) not in self.gone for ref in assignment.references)

    def _module_binding(
        self, stmt: cst.BaseStatement, candidate: Callable[[str], bool]
    ) -> str | None:
        """The one name ``stmt`` binds, if ``candidate`` accepts it and binding it is its only
        (pure) effect. Purity, the costly part (a function's code is generated to look for
        comments), is asked last."""
        if isinstance(stmt, cst.FunctionDef):
            name = stmt.name.value
            return name if candidate(name) and self._pure_def(stmt) else None
        if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
            return None
        small = stmt.body[0]
        if isinstance(small, cst.Assign) and len(small.targets) == 1:
            target, value = small.targets[0].target, small.value
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            target, value = small.target, small.value
        else:
            return None
        if isinstance(target, cst.Name) and candidate(target.value) and self.pure(value):
            return target.value
        return None

    # ------------------------------------------------------------------ functions

    def _function(self, fn: cst.FunctionDef, qualname: str) -> None:
        if not fn.body.body or not isinstance(fn.body, cst.IndentedBlock):
            return
        scope = self.scopes.get(fn.body.body[0])
        # What a function reads, the module reads: most modules read none of these at all.
        if scope is None or (
            _INTROSPECTION & self.module_reads and _INTROSPECTION & _reads(fn.body)
        ):
            return
        self.qualname = qualname
        self.removable = self._removable(scope, qualname)
        self.loops = []
        self._block(fn.body.body, set(), record=True)

    def _removable(self, scope: Scope, qualname: str) -> set[str]:
        """The function's own names no other scope reads and no declaration shares."""
        out = set()
        for assignment in scope.assignments:
            name = assignment.name
            if name in self.declared or (qualname, name) in self.kept:
                continue
            if assignment.scope is not scope:
                continue
            everything = list(scope.assignments[name])
            if all(
                ref.scope is scope or id(ref.node) in self.gone
                for a in everything
                for ref in a.references
            ):
                out.add(name)
        return out

    def _block(
        self,
        stmts: Sequence[cst.BaseStatement],
        live: set[str],
        *,
        record: bool,
    ) -> set[str]:
        """Live names before ``stmts`` given ``live`` after them (dead ones found on the way
        when ``record``). The last statement of a block is never removed."""
        live = set(live)
        for i in range(len(stmts) - 1, -1, -1):
            if id(stmts[i]) in self.found.remove:
                continue
            last = i == len(stmts) - 1
            if last and _assignments_only(stmts[i]):
                # Kept however dead (a block needs a statement): what it reads stays live, as
                # `num_warps` does for the tutorial's `occupancy = ... // num_warps`.
                live = (live - _binds(stmts[i])) | self._r(stmts[i])
                continue
            live = self._statement(stmts[i], live, record=record and not last, deep=record)
        return live

    def _statement(
        self, stmt: cst.BaseStatement, live: set[str], *, record: bool, deep: bool
    ) -> set[str]:
        if isinstance(stmt, cst.SimpleStatementLine):
            return self._line(stmt, live, record)
        if isinstance(stmt, cst.FunctionDef):
            name = stmt.name.value
            if name in self.removable and name not in live and self._pure_def(stmt):
                if record:
                    self._mark(stmt, (name,))
                return live
            return (live - {name}) | self._r(stmt)
        if isinstance(stmt, cst.If) and record and self._dead_branches(stmt, live):
            # `if is_hip(): occupancy = ... else: occupancy = ...` that only a dropped launch
            # grid read: the whole statement goes.
            self._mark(stmt, tuple(sorted(_bound_in(stmt))))
            return live
        if isinstance(stmt, cst.If) and isinstance(stmt.body, cst.IndentedBlock):
            out = self._r(stmt.test) | self._block(stmt.body.body, live, record=deep)
            orelse = stmt.orelse
            if isinstance(orelse, cst.Else) and isinstance(orelse.body, cst.IndentedBlock):
                out |= self._block(orelse.body.body, live, record=deep)
            elif isinstance(orelse, cst.If):
                out |= self._statement(orelse, live, record=record, deep=deep)
            elif orelse is None:
                out |= live
            else:
                out |= live | self._r(orelse)
            return out
        if isinstance(stmt, (cst.For, cst.While)):
            return self._loop(stmt, live, deep)
        if isinstance(stmt, cst.With) and isinstance(stmt.body, cst.IndentedBlock):
            reads = self._r(*(item.item for item in stmt.items))
            return reads | live | self._block(stmt.body.body, live, record=deep)
        # try/match/class and inline suites: nothing inside is removed.
        return live | self._r(stmt)

    def _dead_branches(self, stmt: cst.If, live: set[str]) -> bool:
        """Whether ``stmt`` (with its ``elif``/``else``) only binds removable names nothing
        reads after it, by pure assignments under pure tests."""
        bound = _bound_in(stmt)
        if not bound or bound & live or not bound <= self.removable:
            return False
        branch: cst.CSTNode | None = stmt
        while branch is not None:
            if isinstance(branch, cst.If) and not self.pure(branch.test):
                return False
            body = getattr(branch, "body", None)
            if not isinstance(body, cst.IndentedBlock):
                return False
            for inner in body.body:
                if isinstance(inner, cst.If):
                    if not self._dead_branches(inner, live):
                        return False
                elif not _assignments_only(inner) or not all(
                    self.pure(small.value)  # type: ignore[attr-defined]
                    and all(_simple_names(t) is not None for t in _targets(small))
                    for small in inner.body  # type: ignore[attr-defined]
                ):
                    # `y[0] = 5.0`, `ctx.x = v`: a write, not a dead binding.
                    return False
            branch = branch.orelse if isinstance(branch, cst.If) else None
        return True

    def _loop(self, stmt: cst.For | cst.While, live: set[str], deep: bool) -> set[str]:
        header = (
            self._r(stmt.iter, stmt.target) if isinstance(stmt, cst.For) else self._r(stmt.test)
        )
        after = set(live)
        if stmt.orelse is not None:
            if isinstance(stmt.orelse.body, cst.IndentedBlock):
                after |= self._block(stmt.orelse.body.body, live, record=deep)
            else:
                after |= self._r(stmt.orelse)
        head = header | after | live
        if not isinstance(stmt.body, cst.IndentedBlock):
            return head | self._r(stmt.body)
        for _ in range(100):
            self.loops.append((head, live))
            new = head | self._block(stmt.body.body, head, record=False)
            self.loops.pop()
            if new == head:
                break
            head = new
        self.loops.append((head, live))
        self._block(stmt.body.body, head, record=deep)
        self.loops.pop()
        return head

    def _line(self, stmt: cst.SimpleStatementLine, live: set[str], record: bool) -> set[str]:
        dead: list[tuple[cst.BaseSmallStatement, tuple[str, ...]]] = []
        for small in reversed(stmt.body):
            if id(small) in self.found.remove_small:
                dead.append((small, self.found.remove_small[id(small)]))
                continue
            live, gone = self._small(small, live, record)
            if gone is not None:
                dead.append((small, gone))
        if record and dead:
            if len(dead) == len(stmt.body):
                self._mark(stmt, tuple(n for _, names in dead for n in names))
            else:
                for small, names in dead:
                    self.found.remove_small[id(small)] = names
                    self.found.nodes[id(small)] = small
                    self.found.keys.update((self.qualname, n) for n in names)
        return live

    def _small(
        self, small: cst.BaseSmallStatement, live: set[str], record: bool
    ) -> tuple[set[str], tuple[str, ...] | None]:
        """Live names before ``small``, and the names it binds if it is dead."""
        if isinstance(small, cst.Break) and self.loops:
            return live | self.loops[-1][1], None
        if isinstance(small, cst.Continue) and self.loops:
            return live | self.loops[-1][0], None
        if isinstance(small, cst.Assign):
            return self._assign(small, [t.target for t in small.targets], small.value, live, record)
        if isinstance(small, cst.AnnAssign) and small.value is not None:
            return self._assign(small, [small.target], small.value, live, record)
        return live | self._r(small), None

    def _assign(
        self,
        small: cst.Assign | cst.AnnAssign,
        targets: list[cst.BaseExpression],
        value: cst.BaseExpression,
        live: set[str],
        record: bool,
    ) -> tuple[set[str], tuple[str, ...] | None]:
        bound = [_simple_names(t) for t in targets]
        if any(b is None for b in bound):
            return live | self._r(small), None
        names = [n for b in bound for n in b or ()]
        dead = [n in self.removable and n not in live for n in names]
        literal = isinstance(value, (cst.Tuple, cst.List)) and not any(
            isinstance(el, cst.StarredElement) for el in value.elements
        )
        unpacks = any(isinstance(t, (cst.Tuple, cst.List)) for t in targets)
        if all(dead) and self.pure(value) and (not unpacks or literal):
            return live, tuple(names)
        after = (live - set(names)) | self._r(value)
        after |= {n for t in targets if not isinstance(t, cst.Name) for n in self._r(t)} - set(
            names
        )
        # `BLOCK_M, BLOCK_N, BLOCK_K = 64, 64, 32` with only BLOCK_K dead: drop that element.
        if (
            record
            and literal
            and isinstance(small, cst.Assign)
            and len(targets) == 1
            and isinstance(targets[0], (cst.Tuple, cst.List))
            and isinstance(value, (cst.Tuple, cst.List))
            and len(targets[0].elements) == len(value.elements)
            and all(isinstance(el.value, cst.Name) for el in targets[0].elements)
            and len(set(names)) == len(names)
        ):
            drop = tuple(
                i
                for i, (n, el) in enumerate(zip(names, value.elements))
                if dead[i] and self.pure(el.value)
            )
            if drop:
                self.found.drop_elements[id(small)] = drop
                self.found.nodes[id(small)] = small
                self.found.keys.update((self.qualname, names[i]) for i in drop)
                kept = [el for i, el in enumerate(value.elements) if i not in drop]
                after = (live - set(names)) | self._r(*(el.value for el in kept))
        return after, None

    def _mark(self, stmt: cst.BaseStatement, names: tuple[str, ...]) -> None:
        self.found.remove[id(stmt)] = names
        self.found.nodes[id(stmt)] = stmt
        self.found.keys.update((self.qualname, n) for n in names)


def _module_reads(module: cst.CSTNode) -> tuple[set[str], set[str]]:
    """What :func:`_reads` of the whole module gives, and the names its ``global`` and
    ``nonlocal`` statements declare: one walk (declarations are statements, and that walk
    enters every statement)."""
    names: set[str] = set()
    declared: set[str] = set()
    stack: list[cst.CSTNode] = [module]
    pick = _PICK.get
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is _NAME:
            names.add(node.value)
            continue
        if kind is cst.Global or kind is cst.Nonlocal:
            declared.update(n.name.value for n in node.names)
        chosen = pick(kind)
        if chosen is None:
            stack.extend(children(node))
        else:
            stack.extend(c for c in chosen(node) if c is not None)
    return names, declared


def _all_names(module: cst.Module) -> set[str]:
    """The strings in a module-level ``__all__`` (and any name mentioned in a string there)."""
    out: set[str] = set()
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                targets: Iterable[cst.BaseExpression] = ()
                if isinstance(small, (cst.Assign,)):
                    targets = [t.target for t in small.targets]
                elif isinstance(small, (cst.AugAssign, cst.AnnAssign)):
                    targets = [small.target]
                if any(isinstance(t, cst.Name) and t.value == "__all__" for t in targets):
                    text = cst.Module(body=[]).code_for_node(small)
                    out.update(part.strip("'\" ,[]()") for part in text.split())
    return out


# --------------------------------------------------------------------------------------------------
# Removal


class _Remover(cst.CSTTransformer):
    """Removes what :class:`_Analysis` found, keeping the comments of what it removes."""

    def __init__(self, found: _Found, root: cst.Module) -> None:
        super().__init__()
        self.found = found
        # The nodes at or above what is removed: the only ones whose subtrees change.
        self.wanted = _at_or_above(root, set(found.nodes))

    def on_visit(self, node: cst.CSTNode) -> bool:
        # A subtree without removals comes back unchanged: libcst would only rebuild it (most
        # of the module), so it is not entered. Its root still gets its `leave_` hook, which
        # changes nothing there.
        return id(node) in self.wanted

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign) -> cst.Assign:
        drop = self.found.drop_elements.get(id(original))
        if not drop:
            return updated
        target = updated.targets[0].target
        value = updated.value
        assert isinstance(target, (cst.Tuple, cst.List)) and isinstance(
            value, (cst.Tuple, cst.List)
        )
        t_els = [el for i, el in enumerate(target.elements) if i not in drop]
        v_els = [el for i, el in enumerate(value.elements) if i not in drop]
        if len(t_els) == 1:
            return updated.with_changes(
                targets=[updated.targets[0].with_changes(target=t_els[0].value)],
                value=v_els[0].value,
            )
        last = cst.MaybeSentinel.DEFAULT
        t_els[-1] = t_els[-1].with_changes(comma=last)
        v_els[-1] = v_els[-1].with_changes(comma=last)
        return updated.with_changes(
            targets=[updated.targets[0].with_changes(target=target.with_changes(elements=t_els))],
            value=value.with_changes(elements=v_els),
        )

    def leave_SimpleStatementLine(
        self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine:
        if not any(id(s) in self.found.remove_small for s in original.body):
            return updated
        body = [
            new
            for old, new in zip(original.body, updated.body)
            if id(old) not in self.found.remove_small
        ]
        body[-1] = body[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
        return updated.with_changes(body=body)

    def leave_IndentedBlock(
        self, original: cst.IndentedBlock, updated: cst.IndentedBlock
    ) -> cst.IndentedBlock:
        return updated.with_changes(body=self._body(original.body, updated.body, blank=1))

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        return updated.with_changes(body=self._body(original.body, updated.body, blank=2))

    def _body(
        self,
        original: Sequence[cst.BaseStatement],
        updated: Sequence[cst.BaseStatement],
        blank: int,
    ) -> list[cst.BaseStatement]:
        removed = [id(s) in self.found.remove for s in original]
        if not any(removed):
            return list(updated)
        out: list[cst.BaseStatement] = []
        # Lines of removed statements for the next statement: in place (blank lines, comments
        # followed by a note), and comments that move onto it because it binds the same name.
        carried: list[cst.EmptyLine] = []
        moved: list[cst.EmptyLine] = []
        for i, (old, new) in enumerate(zip(original, updated)):
            if not removed[i]:
                if carried or moved or (not out and i > 0):
                    own = list(getattr(new, "leading_lines", ()))
                    gap = _blank_prefix(own)
                    lines = [*carried, *own[:gap], *moved, *own[gap:]]
                    if not out:  # now the block's first statement
                        lines = lines[_blank_prefix(lines) :]
                    new = new.with_changes(leading_lines=_at_most_blank(lines, blank))  # type: ignore[union-attr]
                    carried, moved = [], []
                out.append(new)
                continue
            names = self.found.remove[id(old)]
            leading = list(getattr(old, "leading_lines", ()))
            trailing = _trailing_comment(old)
            if trailing is not None:
                leading.append(cst.EmptyLine(comment=trailing))
            if not any(line.comment is not None for line in leading):
                carried.extend(leading)
                continue
            nxt = next((original[j] for j in range(i + 1, len(original)) if not removed[j]), None)
            gap = _blank_prefix(leading)
            if nxt is not None and set(names) & _binds(nxt):
                carried.extend(leading[:gap])
                moved.extend(leading[gap:])
            else:
                # The note names this statement's names and those of the removed statements
                # without comments of their own that follow it.
                run = list(names)
                for j in range(i + 1, len(original)):
                    if not removed[j] or _comments_of(original[j]):
                        break
                    run.extend(self.found.remove[id(original[j])])
                note = cst.Comment(f"# tiletrans: {_what(tuple(dict.fromkeys(run)))}")
                carried.extend([*moved, *leading, cst.EmptyLine(comment=note)])
                moved = []
        if any(line.comment is not None for line in [*carried, *moved]):
            out.append(cst.SimpleStatementLine(body=[cst.Pass()], leading_lines=[*carried, *moved]))
        return out


#: The node types that can hold a statement or a small statement (what the analysis finds):
#: the walk below enters no other (expressions, most of a module, hold none). Found by each
#: class's MRO, not ``issubclass``: against libcst's abstract bases that goes through
#: ``ABCMeta`` for every pair (a few ms of every translation's start-up); the same classes.
_HOLDER_BASES = frozenset(
    (
        cst.Module,
        cst.BaseCompoundStatement,
        cst.BaseSuite,
        cst.SimpleStatementLine,
        cst.Else,
        cst.Finally,
        cst.ExceptHandler,
        getattr(cst, "ExceptStarHandler", cst.ExceptHandler),
        cst.MatchCase,
    )
)
_HOLDERS = frozenset(
    kind
    for kind in vars(cst).values()
    if isinstance(kind, type) and not _HOLDER_BASES.isdisjoint(kind.__mro__)
)


def _at_or_above(root: cst.CSTNode, targets: set[int]) -> set[int]:
    """Ids of the nodes under ``root`` whose id is in ``targets`` (statements and small
    statements), and of all their ancestors."""
    out: set[int] = set()
    path: list[int] = []
    # Iterative: (node, whether its children are done).
    stack: list[tuple[cst.CSTNode, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            path.pop()
            continue
        path.append(id(node))
        stack.append((node, True))
        if id(node) in targets:
            out.update(path)
        if type(node) in _HOLDERS:
            stack.extend((child, False) for child in children(node))
    return out


def _blank_prefix(lines: Sequence[cst.EmptyLine]) -> int:
    """How many blank lines open ``lines``."""
    n = 0
    while n < len(lines) and lines[n].comment is None:
        n += 1
    return n


def _trailing_comment(stmt: cst.CSTNode) -> cst.Comment | None:
    if isinstance(stmt, cst.SimpleStatementLine):
        return stmt.trailing_whitespace.comment
    if isinstance(stmt, cst.FunctionDef) and isinstance(stmt.body, cst.IndentedBlock):
        return stmt.body.header.comment
    return None


def _targets(small: cst.BaseSmallStatement) -> list[cst.BaseExpression]:
    """The targets an assignment binds."""
    if isinstance(small, cst.Assign):
        return [t.target for t in small.targets]
    if isinstance(small, cst.AnnAssign):
        return [small.target]
    return []


def _bound_in(stmt: cst.If) -> set[str]:
    """The names the statements of ``stmt``'s branches bind (``None`` parts aside)."""
    out: set[str] = set()
    branch: cst.CSTNode | None = stmt
    while branch is not None:
        body = getattr(branch, "body", None)
        for inner in body.body if isinstance(body, cst.IndentedBlock) else ():
            out |= _bound_in(inner) if isinstance(inner, cst.If) else _binds(inner)
        branch = branch.orelse if isinstance(branch, cst.If) else None
    return out


def _assignments_only(stmt: cst.BaseStatement) -> bool:
    """Whether ``stmt`` is a line of assignments only."""
    return isinstance(stmt, cst.SimpleStatementLine) and all(
        isinstance(small, (cst.Assign, cst.AnnAssign)) for small in stmt.body
    )


def _binds(stmt: cst.CSTNode) -> set[str]:
    """Names ``stmt`` binds by assignment or definition."""
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return {stmt.name.value}
    out: set[str] = set()
    if isinstance(stmt, cst.SimpleStatementLine):
        for small in stmt.body:
            if isinstance(small, cst.Assign):
                for t in small.targets:
                    out.update(_simple_names(t.target) or ())
            elif isinstance(small, cst.AnnAssign):
                out.update(_simple_names(small.target) or ())
    return out


def _what(names: tuple[str, ...]) -> str:
    """The note on removed statements whose comments stay."""
    shown = ", ".join(f"`{n}`" for n in names)
    return f"dropped {shown}, which nothing in the translation reads"


def _comments_of(stmt: cst.CSTNode) -> bool:
    """Whether ``stmt`` has comment lines above it or a comment after it."""
    leading = getattr(stmt, "leading_lines", ())
    return any(line.comment is not None for line in leading) or _trailing_comment(stmt) is not None


def _at_most_blank(lines: list[cst.EmptyLine], n: int) -> list[cst.EmptyLine]:
    """``lines`` with runs of blank lines cut to ``n``."""
    out: list[cst.EmptyLine] = []
    run = 0
    for line in lines:
        run = run + 1 if line.comment is None else 0
        if run <= n:
            out.append(line)
    return out


__all__ = [
    "PURE_ATTRIBUTES",
    "PURE_METHODS",
    "PYTHON_PURE_CALLS",
    "grammar_pure_calls",
    "remove_dead_host",
]
