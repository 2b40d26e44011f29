"""Host passthrough: the translated module is the source module, edited.

A frontend records in the IR's :class:`~translator.ir.nodes.HostPlan` where the source defines its
kernels and where it launches them; a backend renders each kernel's definition and each launch in
its DSL (:class:`~translator.dialects.common.backend.Backend`). :func:`assemble` applies both to the
source with libcst, so that everything else (imports, module constants and helpers, classes and
autograd Functions, host branches and contexts, comments and docstrings) stays byte for byte as
written:

* each ``define`` edit replaces a source kernel definition by the target definitions (decorators
  the frontend kept, a library's caching wrapper say, stay on top); ``insert`` puts them before a
  host function (a Helion kernel function's loops become launches of kernels defined above it);
* each launch site becomes the target's launch: an expression in place of the source's launch
  expression, or statements in place of a source statement (a Helion loop); statements a launch
  needs first (a grid function) go before the statement that holds it, and its ``# tiletrans:``
  notes above;
* ``remove``/``replace`` edits drop or rewrite what only the source DSL needs (a Helion
  ``hl.register_block_size`` line, a config constant nothing else reads);
* imports of the source DSL that nothing reads any more are dropped, the target's added after the
  last import, and a provenance header goes on top.
"""

from __future__ import annotations

import builtins
import dataclasses
import re
import secrets
import sys
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import libcst as cst
from libcst.metadata import PositionProvider

from translator import __version__
from translator.diagnostics import TranslationError
from translator.dialects.common.dead_host import remove_dead_host
from translator.dialects.common.formatting import MAX_LINE, wrap_lines
from translator.dialects.common.splice import (
    KernelText,
    kernel_text,
    kernel_text_name,
    placeholder,
    splice_into,
    with_decorators,
)
from translator.dialects.cst_utils import (
    bound_names,
    children,
    import_bindings,
    is_a,
    name_nodes,
    names_in,
    parsed,
    walk,
    without_provenance,
)
from translator.ir import nodes as ir
from translator.provenance import header as provenance_header


@dataclass(frozen=True)
class LaunchCode:
    """What a backend writes for one launch: ``expr`` (one line; the passthrough wraps it at the
    site's indentation) replaces the source's launch; ``prelude`` statements go before the
    statement that holds it; ``notes`` are ``tiletrans:`` comments; ``imports`` what the launch
    needs imported."""

    expr: str
    prelude: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    imports: tuple[str, ...] = ()


@dataclass(frozen=True)
class KernelCode:
    """A kernel definition in the target DSL (decorators and ``def``), and the import lines it
    needs beyond the DSL's own."""

    text: str
    imports: tuple[str, ...] = ()
    #: The definitions in ``text`` that take the source kernel's kept decorators (all of them
    #: where ``None``; a helper the backend writes beside the kernel is left out).
    decorated: tuple[str, ...] | None = None


@dataclass
class Rendering:
    """Everything a backend contributes to one module."""

    kernels: dict[str, KernelCode]
    launches: dict[int, LaunchCode]
    imports: tuple[str, ...]
    command: str
    notes: list[str] = field(default_factory=list)
    #: Import statements of the source (as written, one line) the target cannot keep: TileLang
    #: resolves a kernel's annotations through its closure, which string annotations
    #: (``from __future__ import annotations``) defeat.
    drop_imports: tuple[str, ...] = ()
    #: The target DSL's name: a source kernel's kept decorators stay only in its own DSL.
    target: str = ""


def assemble(module: ir.Module, rendering: Rendering) -> str:
    """The translated module: ``module``'s carried source with ``rendering`` applied."""
    plan = module.host
    if plan is None:
        raise TranslationError("the IR module carries no host code to translate", None)
    wrapper = parsed(plan.source)
    positions = wrapper.resolve(PositionProvider)
    editor = _Editor(module, plan, rendering, positions, wrapper.module)
    tree = wrapper.module.visit(editor)
    missing = set(range(len(plan.sites))) - editor.done_sites
    if missing:
        site = plan.sites[min(missing)].span
        raise TranslationError(
            "a kernel launch could not be rewritten in place",
            ir.Loc(module.path, site.start_line, site.start_col),
            "launch kernels in statements or expressions of their own",
        )
    tree = _drop_unused(tree, editor.if_unused)
    # The edited tree serves the dead-host analysis as it is, as the parse of its text would
    # (no code generation and parse): the analysis tells statements and reads apart by
    # identity, and the editor puts no node object in two places (a snippet it inserts twice
    # is parsed twice; tests/test_passthrough_tree.py).
    tree = _header_as_parsed(tree)
    tree = remove_dead_host(
        tree,
        source=plan.source,
        source_wrapper=wrapper,
        skip={*editor.spliced, *_kernel_names(rendering)},
        fresh=True,
    )
    tree = _fix_imports(tree, plan.packages, rendering.imports, rendering.drop_imports)
    if _FUTURE_ANNOTATIONS in rendering.drop_imports:
        tree = _quote_type_checking_annotations(tree)
    tree = _with_header(tree, module, rendering.command)
    return wrap_generated_comments(splice_into(tree.code, editor.spliced, tree.default_newline))


_FUTURE_ANNOTATIONS = "from __future__ import annotations"


def _type_checking_names(tree: cst.Module) -> set[str]:
    """Names the module imports only under ``if TYPE_CHECKING:`` (``Callable`` for
    annotations): unbound when the module runs."""
    names: set[str] = set()
    spellings = _type_checking_spellings(tree)
    for stmt in tree.body:
        test = stmt.test if isinstance(stmt, cst.If) else None
        if test is None or cst.Module([]).code_for_node(test) not in spellings:
            continue
        for inner in stmt.body.body:
            for small in getattr(inner, "body", ()):
                if isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(
                    small.names, cst.ImportStar
                ):
                    for alias in small.names:
                        bound = alias.asname.name if alias.asname is not None else alias.name
                        if isinstance(bound, cst.Name):
                            names.add(bound.value)
                        elif isinstance(bound, cst.Attribute):
                            names.add(cst.Module([]).code_for_node(bound).split(".")[0])
    return names


def _type_checking_spellings(tree: cst.Module) -> set[str]:
    """How the module spells ``typing.TYPE_CHECKING`` (``TYPE_CHECKING``, ``typing.
    TYPE_CHECKING``, and through its imports' aliases: ``from typing import TYPE_CHECKING as
    TC``, ``import typing as t``)."""
    out = {"TYPE_CHECKING", "typing.TYPE_CHECKING"}
    for stmt in tree.body:
        for small in getattr(stmt, "body", ()) if isinstance(stmt, cst.SimpleStatementLine) else ():
            if isinstance(small, (cst.Import, cst.ImportFrom)):
                for local, full in import_bindings(small):
                    if full == "typing.TYPE_CHECKING":
                        out.add(local)
                    elif full == "typing":
                        out.add(f"{local}.TYPE_CHECKING")
    return out


def _module_bindings(stmt: cst.CSTNode) -> set[str]:
    """The names a module-level statement binds (imports included)."""
    names = set(bound_names(stmt))

    def enter(node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.Import, cst.ImportFrom)):
            names.update(local for local, _ in import_bindings(node))
        return not isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda))

    walk(stmt, enter)
    return names


class _QuoteAnnotations(cst.CSTTransformer):
    """Annotations that read any of ``names`` as strings (never evaluated); with ``bound``,
    also those evaluated where they are defined (not in a function's body) that read a name
    neither ``bound`` nor a builtin (a class the module defines further down)."""

    def __init__(self, names: set[str], bound: set[str] | None = None) -> None:
        self.names = names
        self.bound = bound
        self.bodies: set[int] = set()
        self.depth = 0

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.bodies.add(id(node.body))
        return True

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> bool:
        if id(node) in self.bodies:
            self.depth += 1
        return True

    def leave_IndentedBlock(
        self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock
    ) -> cst.IndentedBlock:
        if id(original_node) in self.bodies:
            self.depth -= 1
        return updated_node

    def leave_Annotation(
        self, original_node: cst.Annotation, updated_node: cst.Annotation
    ) -> cst.Annotation:
        value = updated_node.annotation
        if isinstance(value, (cst.SimpleString, cst.ConcatenatedString)):
            return updated_node
        read = [n.value for n in name_nodes(value)]
        unbound = (
            self.bound is not None
            and self.depth == 0
            and any(n not in self.bound and not hasattr(builtins, n) for n in read)
        )
        if not unbound and not any(n in self.names for n in read):
            return updated_node
        code = cst.Module([]).code_for_node(value)
        quote = "'" if '"' in code else '"'
        return updated_node.with_changes(annotation=cst.SimpleString(f"{quote}{code}{quote}"))


def _quote_type_checking_annotations(tree: cst.Module) -> cst.Module:
    """Without ``from __future__ import annotations`` (TileLang's translations drop it), the
    annotations of a function are evaluated where it is defined: those that read names imported
    only under ``if TYPE_CHECKING:`` (``-> Callable``), or names the module binds only further
    down, are written as strings, as the future import made every annotation."""
    names = _type_checking_names(tree)
    tree = tree.visit(_QuoteAnnotations(names)) if names else tree
    # An annotation evaluated as its statement runs (a def's parameters and return, a class's
    # or the module's variable annotations) that reads a name the module binds only further
    # down (`def f() -> Pair:` above `class Pair`) would raise NameError: quoted too.
    body: list[cst.BaseStatement] = []
    bound: set[str] = set()
    for stmt in tree.body:
        own = _module_bindings(stmt)
        if isinstance(stmt, cst.ClassDef):  # its body's names are bound as it runs
            own_body = {n for st in stmt.body.body for n in _module_bindings(st)}
            body.append(stmt.visit(_QuoteAnnotations(set(), (bound | own_body) - names)))
        else:
            body.append(stmt.visit(_QuoteAnnotations(set(), bound - names)))
        bound |= own
    return tree.with_changes(body=body)


#: Comment lines tiletrans writes into host code (its notes, the rank checks' why); the
#: source's own comments are carried as they are.
_GENERATED_COMMENT = re.compile(r"^(\s*)# (tiletrans: |Written for \d+-d )")


def wrap_generated_comments(text: str, width: int = MAX_LINE) -> str:
    """``text`` with each over-long comment line tiletrans wrote split at spaces into lines of
    at most ``width`` characters (a word longer than that stays whole)."""
    out: list[str] = []
    for line in text.split("\n"):
        match = _GENERATED_COMMENT.match(line)
        if match is None or len(line) <= width:
            out.append(line)
            continue
        prefix = f"{match.group(1)}# "
        out.extend(
            textwrap.wrap(
                line[len(prefix) :],
                width=width,
                initial_indent=prefix,
                subsequent_indent=prefix,
                break_long_words=False,
                break_on_hyphens=False,
            )
        )
    return "\n".join(out)


def _header_as_parsed(tree: cst.Module) -> cst.Module:
    """``tree`` with the lines above its first statement in the module header, where the
    parser puts them (an edit can give the first statement comment lines of its own)."""
    if not tree.body or not getattr(tree.body[0], "leading_lines", ()):
        return tree
    first = tree.body[0]
    return tree.with_changes(
        header=[*tree.header, *first.leading_lines],  # type: ignore[union-attr]
        body=[first.with_changes(leading_lines=()), *tree.body[1:]],
    )


def _at_or_above(root: cst.CSTNode, positions, keys: set[tuple]) -> set[int]:
    """Ids of the nodes under ``root`` whose span is in ``keys``, and of all their ancestors.

    By ancestry, not by span containment: a node's comments and decorators lie outside its
    span (a decorator precedes its ``def``)."""
    if not keys:
        return set()
    spans, known = _spans(root, positions)
    frozen = frozenset(keys)
    if frozen in known:
        return known[frozen]
    targets = {id(node) for key in keys for node in spans.get(key, ())}
    out: set[int] = set()
    known[frozen] = out
    if not targets:
        return out
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
        stack.extend((child, False) for child in children(node))
    return out


#: Per parsed source (its module, kept alive here so that its id stays its own): its nodes by
#: span, and the answers of :func:`_at_or_above` so far (by keys; callers only read them). One
#: source translated into several targets is walked once (a lookup in libcst's position map
#: hashes the node in Python).
_SPANS: dict[
    int,
    tuple[cst.CSTNode, dict[tuple, list[cst.CSTNode]], dict[frozenset, set[int]]],
] = {}
_SPANS_KEEP = 4


def _spans(
    root: cst.CSTNode, positions
) -> tuple[dict[tuple, list[cst.CSTNode]], dict[frozenset, set[int]]]:
    entry = _SPANS.pop(id(root), None)
    if entry is None or entry[0] is not root:
        spans: dict[tuple, list[cst.CSTNode]] = {}
        for node, pos in positions.items():
            key = (pos.start.line, pos.start.column, pos.end.line, pos.end.column)
            spans.setdefault(key, []).append(node)
        entry = (root, spans, {})
    _SPANS[id(root)] = entry
    while len(_SPANS) > _SPANS_KEEP:
        del _SPANS[next(iter(_SPANS))]
    return entry[1], entry[2]


def _kernel_names(rendering: Rendering) -> set[str]:
    """The module-level names the rendered kernels define (dead-host removal leaves them)."""
    names = set(rendering.kernels)
    for code in rendering.kernels.values():
        names |= _kernel_text(code.text).defines
    return names


@lru_cache(maxsize=64)
def _kernel_text(text: str) -> KernelText:
    return kernel_text(text, 0)


# --------------------------------------------------------------------------------------------------


def _key(span: ir.Span) -> tuple[int, int, int, int]:
    return (span.start_line, span.start_col, span.end_line, span.end_col)


def _statements(text: str) -> list[cst.BaseStatement]:
    """The statements of ``text``; comments above the first stay with it (libcst files them
    under the module header). A new list each call (callers replace items); the nodes may be
    shared with an earlier call on the same text (nodes are immutable)."""
    return list(_parsed_statements(text))


@lru_cache(maxsize=64)
def _parsed_statements(text: str) -> tuple[cst.BaseStatement, ...]:
    # A kernel's text is parsed to find the names it defines and again to insert it: once here.
    return _parse_statements(text)


def _parse_statements(text: str) -> tuple[cst.BaseStatement, ...]:
    module = cst.parse_module(text)
    body = list(module.body)
    header = [line for line in module.header if line.comment is not None]
    if body and header:
        body[0] = _with_leading(body[0], [*header, *getattr(body[0], "leading_lines", ())])
    return tuple(body)


def _comment_lines(notes: Sequence[str], indent: bool = True) -> list[cst.EmptyLine]:
    out = []
    for note in notes:
        text = note if note.startswith("tiletrans:") else f"tiletrans: {note}"
        out.append(cst.EmptyLine(indent=indent, comment=cst.Comment(f"# {text}")))
    return out


class _Editor(cst.CSTTransformer):
    def __init__(
        self,
        module: ir.Module,
        plan: ir.HostPlan,
        rendering: Rendering,
        positions,
        root: cst.Module,
    ) -> None:
        super().__init__()
        self.module = module
        self.rendering = rendering
        self.positions = positions
        # Module-level functions and classes by name: what a kept decorator is, where the
        # module defines it.
        self.definitions = {
            stmt.name.value: stmt
            for stmt in root.body
            if isinstance(stmt, (cst.FunctionDef, cst.ClassDef))
        }
        self.edits: dict[tuple, list[ir.HostEdit]] = {}
        self.if_unused: list[tuple[tuple, tuple[str, ...]]] = []
        for edit in plan.edits:
            if edit.span is None:
                continue
            if edit.kind == "remove" and edit.if_unused:
                self.if_unused.append((_key(edit.span), edit.if_unused))
                continue
            self.edits.setdefault(_key(edit.span), []).append(edit)
        self.sites = {_key(s.span): i for i, s in enumerate(plan.sites) if not s.statement}
        self.statement_sites = {_key(s.span): i for i, s in enumerate(plan.sites) if s.statement}
        self.site_spans = {i: site.span for i, site in enumerate(plan.sites)}
        # The nodes at or above an edit or a launch site: the only ones whose subtrees change.
        self.wanted = _at_or_above(
            root, positions, {*self.edits, *self.sites, *self.statement_sites}
        )
        self.lines = plan.source.splitlines()
        self.launch_of = {}
        for entry in module.entries:
            for launch in entry.launches():
                if launch.site is not None:
                    self.launch_of[launch.site] = launch
        self.done_sites: set[int] = set()
        # Texts whose (cached) statements are in the edited tree already: a second use gets a
        # parse of its own, so that no node object is in the tree twice.
        self.used: set[str] = set()
        # Placeholder name -> the kernel text it stands for (`splice.py`), one per use.
        self.spliced: dict[str, KernelText] = {}
        self.nonce = secrets.token_hex(4)
        # Placeholders for removed statements whose comments move to the next statement.
        # By id, each with its node: held here so that no later node can take a freed
        # marker's id (a marker replaced by a second edit of the same statement is freed).
        self.markers: dict[int, cst.SimpleStatementLine] = {}
        # Per enclosing statement: preludes and notes of the launches inside it.
        self.pending: list[tuple[list[str], list[str]]] = []
        # Per statement being rebuilt: whether an expression in it was replaced.
        self.expression_edited: list[bool] = []

    def _statements(self, text: str) -> list[cst.BaseStatement]:
        """The statements of ``text`` (see :func:`_statements`), for the edited tree."""
        if text in self.used:
            return list(_parse_statements(text))
        self.used.add(text)
        return _statements(text)

    # ------------------------------------------------------------------ lookup

    def _span(self, node: cst.CSTNode) -> tuple | None:
        pos = self.positions.get(node)
        if pos is None:
            return None
        return (pos.start.line, pos.start.column, pos.end.line, pos.end.column)

    # ------------------------------------------------------------------ statements

    def on_visit(self, node: cst.CSTNode) -> bool:
        if is_a(node, cst.BaseStatement):
            self.pending.append(([], []))
            self.expression_edited.append(False)
        # A subtree without edits or sites comes back unchanged: libcst would only rebuild it
        # (most of a module), so it is not entered. Its root still gets `on_leave`, which
        # changes nothing for a node without an edit or site of its own.
        return id(node) in self.wanted

    def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode):  # type: ignore[override]
        if isinstance(updated, (cst.IndentedBlock, cst.Module)):
            return self._fold_markers(updated)
        key = self._span(original)
        if isinstance(original, cst.Decorator):
            for edit in self.edits.get(key, ()) if key else ():
                if edit.kind == "remove":
                    return cst.RemovalSentinel.REMOVE
            return updated
        if is_a(original, cst.BaseExpression) and key is not None:
            return self._expression(original, updated, key)
        if not is_a(original, cst.BaseStatement):
            return updated
        prelude, notes = self.pending.pop()
        if self.expression_edited.pop() and isinstance(updated, cst.SimpleStatementLine):
            updated = self._rewrapped(updated, self.indent_of(original))
        replacement: list[cst.BaseStatement] = [updated]  # type: ignore[list-item]
        if key is not None and key in self.statement_sites:
            site = self.statement_sites[key]
            replacement = self._statement_site(updated, site, prelude, notes)
            prelude, notes = [], []
        for edit in self.edits.get(key, ()) if key is not None else ():
            replacement = self._apply(edit, replacement, updated)
        if prelude or notes:
            replacement = self._with_prelude(replacement, prelude, notes, self.indent_of(original))
        if not replacement:
            return cst.RemovalSentinel.REMOVE
        if len(replacement) == 1:
            return replacement[0]
        return cst.FlattenSentinel(replacement)

    def _rewrapped(self, stmt: cst.SimpleStatementLine, indent: str) -> cst.SimpleStatementLine:
        """``stmt``, an expression in it replaced, wrapped as the formatter would where that
        made a line too long (Helion's `helion.cdiv(a, b)` spelt `(a + b - 1) // b`)."""
        bare = stmt.with_changes(leading_lines=[])
        text = cst.Module(body=[bare]).code.rstrip("\n")
        if all(len(indent) + len(line) <= MAX_LINE for line in text.splitlines()):
            return stmt
        new = _statements_at([text], indent, self._statements)
        if len(new) != 1 or not isinstance(new[0], cst.SimpleStatementLine):
            return stmt
        return new[0].with_changes(leading_lines=stmt.leading_lines)

    def _fold_markers(self, block: cst.IndentedBlock | cst.Module) -> cst.CSTNode:
        """Give the comments of removed statements to the statements after them."""
        body: list[cst.BaseStatement] = []
        carried: list[cst.EmptyLine] = []
        for stmt in block.body:
            if self.markers.get(id(stmt)) is stmt:
                carried.extend(stmt.leading_lines)  # type: ignore[union-attr]
                continue
            if carried:
                stmt = _with_leading(stmt, [*carried, *getattr(stmt, "leading_lines", ())])
                carried = []
            body.append(stmt)
        if carried:
            body.append(cst.SimpleStatementLine(body=[cst.Pass()], leading_lines=carried))
        return block.with_changes(body=body)

    def _apply(
        self, edit: ir.HostEdit, current: list[cst.BaseStatement], original: cst.CSTNode
    ) -> list[cst.BaseStatement]:
        leading = list(getattr(original, "leading_lines", ()))
        if edit.kind == "define":
            # A library's wrapper of a kernel object (FlagGems' `@libentry()` reads a Triton
            # kernel's `arg_names`) wraps the source DSL's kernels only: into another DSL it
            # stays only where the module defines it as a plain wrapper of any callable.
            same = self.rendering.target in ("", self.module.source_dialect)
            keep = [d for d in edit.keep if same or self._portable(d)]
            defs = self._definitions(edit.kernels, tuple(keep))
            dropped = [
                f"tiletrans: dropped `@{d}`, which wraps {self.module.source_dialect} kernels"
                for d in edit.keep
                if d not in keep
            ]
            if defs:
                own = list(getattr(defs[0], "leading_lines", ()))
                notes = _comment_lines(_notes(edit) + dropped)
                defs[0] = _with_leading(defs[0], leading + notes + own)
            return defs
        if edit.kind == "insert":
            defs = self._definitions(edit.kernels, ())
            if defs and leading and leading[0].comment is None:
                # The definitions take the blank lines above the function; it gets two more.
                own = list(getattr(defs[0], "leading_lines", ()))
                defs[0] = _with_leading(defs[0], leading + own)
                current = [_with_leading(current[0], _blank(2))] + current[1:]
            if edit.note and current:
                # Said above the host function that stays (what became of its signature).
                first = current[0]
                lines = list(getattr(first, "leading_lines", ())) + _comment_lines(_notes(edit))
                current = [_with_leading(first, lines), *current[1:]]
            return defs + current
        if edit.kind == "remove":
            if edit.note or any(line.comment for line in leading):
                # Its comments (and the note saying why it went) stay for what follows.
                marker = cst.SimpleStatementLine(
                    body=[cst.Pass()], leading_lines=leading + _comment_lines(_notes(edit))
                )
                self.markers[id(marker)] = marker
                return [marker]
            return []
        if edit.kind == "replace":
            new = self._statements(edit.text)
            if new:
                new[0] = _with_leading(new[0], leading + _comment_lines(_notes(edit)))
            return new
        raise TranslationError(f"unknown host edit {edit.kind!r}", None)

    def _portable(self, decorator: str) -> bool:
        """Whether kept decorator ``decorator`` (its text) wraps any callable: defined in the
        module, with no use of a kernel object's own API (an imported one cannot be told, so
        it is taken for the source DSL's: a library's kernel registry, say)."""
        name = decorator.split("(")[0].strip()
        if name not in self.definitions:
            return False
        # The definition and every module definition it reaches (`libentry()` returning a
        # `LibEntry(fn)` whose class reads `fn.arg_names`).
        seen, todo, code = set(), [name], []
        while todo:
            current = todo.pop()
            if current in seen or current not in self.definitions:
                continue
            seen.add(current)
            node = self.definitions[current]
            code.append(cst.Module([]).code_for_node(node))
            todo.extend(n for n in names_in(node) if n in self.definitions)
        return not any(word in text for text in code for word in _KERNEL_OBJECT_API)

    def _definitions(
        self, kernels: tuple[str, ...], keep: tuple[str, ...]
    ) -> list[cst.BaseStatement]:
        out: list[cst.BaseStatement] = []
        for i, name in enumerate(kernels):
            code = self.rendering.kernels[name]
            shape = _kernel_text(code.text)
            if not shape.body:
                continue
            placeholder_name = kernel_text_name(len(self.spliced), self.nonce)
            text = with_decorators(
                dataclasses.replace(shape, name=placeholder_name), keep, code.decorated
            )
            self.spliced[text.name] = text
            stmt: cst.BaseStatement = placeholder(text)
            if i > 0:
                stmt = _with_leading(stmt, _blank(2) + list(stmt.leading_lines))
            out.append(stmt)
        return out

    def _statement_site(
        self,
        stmt: cst.CSTNode,
        site: int,
        prelude: list[str],
        notes: list[str],
    ) -> list[cst.BaseStatement]:
        code = self._launch_code(site)
        self.done_sites.add(site)
        indent, _ = self._layout(site)
        new = _statements_at([*prelude, *code.prelude, code.expr], indent, self._statements)
        leading = list(getattr(stmt, "leading_lines", ())) + _comment_lines([*notes, *code.notes])
        leading += _own_comments(new[0])
        if isinstance(new[0], cst.FunctionDef) and indent:
            leading = _blank_first(leading)
        new[0] = _with_leading(new[0], leading)
        return new

    def _with_prelude(
        self, stmts: list[cst.BaseStatement], prelude: list[str], notes: list[str], indent: str
    ) -> list[cst.BaseStatement]:
        if not stmts:
            return stmts
        first = stmts[0]
        leading = list(getattr(first, "leading_lines", ()))
        new = _statements_at(prelude, indent, self._statements) if prelude else []
        if new:
            nested_def = isinstance(new[-1], cst.FunctionDef) and bool(indent)
            lines = leading + _comment_lines(notes) + _own_comments(new[0])
            new[0] = _with_leading(new[0], _blank_first(lines) if nested_def else lines)
            return [*new, _with_leading(first, _blank(1) if nested_def else []), *stmts[1:]]
        return [_with_leading(first, leading + _comment_lines(notes)), *stmts[1:]]

    # ------------------------------------------------------------------ expressions

    def _expression(self, original: cst.CSTNode, updated: cst.CSTNode, key: tuple) -> cst.CSTNode:
        if key in self.sites and isinstance(original, cst.Call):
            site = self.sites[key]
            code = self._launch_code(site)
            self.done_sites.add(site)
            if self.pending:
                self.pending[-1][0].extend(code.prelude)
                self.pending[-1][1].extend(code.notes)
            indent, prefix = self._layout(site)
            return _keep_parens(updated, _expression_at(code.expr, indent, prefix))
        for edit in self.edits.get(key, ()):
            if edit.kind == "replace":
                if edit.note and self.pending:
                    self.pending[-1][1].append(edit.note)
                if self.expression_edited:
                    self.expression_edited[-1] = True
                return _keep_parens(updated, cst.parse_expression(edit.text))
        return updated

    def _layout(self, site: int) -> tuple[str, str]:
        """The indentation of the statement holding ``site`` and what precedes the site on
        its line (``y = ``)."""
        span = self.site_spans[site]
        line = self.lines[span.start_line - 1]
        indent = line[: len(line) - len(line.lstrip())]
        return indent, line[len(indent) : span.start_col]

    def indent_of(self, stmt: cst.CSTNode) -> str:
        pos = self.positions.get(stmt)
        if pos is None:
            return ""
        line = self.lines[pos.start.line - 1]
        return line[: len(line) - len(line.lstrip())]

    def _launch_code(self, site: int) -> LaunchCode:
        code = self.rendering.launches.get(site)
        if code is None:
            span = self.module.host.sites[site].span if self.module.host else None
            loc = ir.Loc(self.module.path, span.start_line, span.start_col) if span else None
            raise TranslationError("no launch was rendered for this launch site", loc)
        return code


def _own_comments(stmt: cst.BaseStatement) -> list[cst.EmptyLine]:
    """The comment lines a prelude statement was written with (a check's why): they follow
    the comments of the source statement the prelude goes before."""
    return [line for line in getattr(stmt, "leading_lines", ()) if line.comment is not None]


def _statements_at(
    texts: Sequence[str],
    indent: str,
    statements: Callable[[str], list[cst.BaseStatement]] = _statements,
) -> list[cst.BaseStatement]:
    """Statements written for a block at ``indent``: long lines are wrapped at that indentation
    (the continuation lines of a bracket keep their absolute indentation in the output), and a
    nested ``def`` gets the blank lines around it that formatters put there. Module-level
    statements come from ``statements`` (the editor's: no node object twice in its tree)."""
    # A tab-indented host block: the snippet is parsed at spaces (the formatter re-indents in
    # spaces), and its nested blocks then print at their own indentation after the tab.
    indent = indent.replace("\t", "    ")
    lines = [indent + line if line else line for text in texts for line in text.splitlines()]
    source = "\n".join(wrap_lines(lines)) + "\n"
    if not indent:
        stmts = statements(source)
    else:
        block = cst.parse_module("if True:\n" + source).body[0]
        assert isinstance(block, cst.If) and isinstance(block.body, cst.IndentedBlock)
        stmts = list(block.body.body)
    if indent:
        for i, stmt in enumerate(stmts):
            if isinstance(stmt, cst.FunctionDef):
                stmts[i] = _with_leading(stmt, _blank_first(list(stmt.leading_lines)))
                if i + 1 < len(stmts):
                    after = stmts[i + 1]
                    stmts[i + 1] = _with_leading(after, [*_blank(1), *after.leading_lines])
    return stmts


def _expression_at(text: str, indent: str, prefix: str) -> cst.BaseExpression:
    """An expression placed after ``prefix`` on a line indented ``indent``, wrapped to fit."""
    lines = wrap_lines([indent + prefix + text])
    first = lines[0][len(indent) + len(prefix) :]
    # libcst writes the enclosing block's indentation before each continuation line itself.
    rest = [line[len(indent) :] if line.startswith(indent) else line for line in lines[1:]]
    return cst.parse_expression("\n".join([first, *rest]))


#: What a decorator that wraps a DSL's kernel objects reads of them (a Triton JITFunction's
#: `arg_names`, `fn.run(...)`, `KernelInterface` subclasses) or names.
_KERNEL_OBJECT_API = ("arg_names", "KernelInterface", "JITFunction", ".run(", "triton.", "helion.")


def _notes(edit: ir.HostEdit) -> list[str]:
    return edit.note.split("\n") if edit.note else []


def _blank(n: int) -> list[cst.EmptyLine]:
    return [cst.EmptyLine(indent=False) for _ in range(n)]


def _at_most_blank(lines: list[cst.EmptyLine], n: int) -> list[cst.EmptyLine]:
    """``lines`` with runs of blank lines cut to ``n`` (what formatters allow)."""
    out: list[cst.EmptyLine] = []
    run = 0
    for line in lines:
        run = run + 1 if line.comment is None else 0
        if run <= n:
            out.append(line)
    return out


def _blank_first(lines: list[cst.EmptyLine]) -> list[cst.EmptyLine]:
    """``lines`` opening with one blank line (formatters put one before a nested ``def``)."""
    if lines and lines[0].comment is None:
        return lines
    return [*_blank(1), *lines]


def _with_leading(stmt: cst.BaseStatement, lines: list[cst.EmptyLine]) -> cst.BaseStatement:
    if hasattr(stmt, "leading_lines"):
        return stmt.with_changes(leading_lines=lines)
    return stmt


def _keep_parens(old: cst.CSTNode, new: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(old, cst.BaseExpression) and (old.lpar or old.rpar):
        return new.with_changes(lpar=old.lpar, rpar=old.rpar)
    return new


# --------------------------------------------------------------------------------------------------
# Cleanup: unused statements and imports, the header


def _names_read(tree: cst.CSTNode, skip: cst.CSTNode | None = None) -> set[str]:
    """Names read anywhere outside import statements (and outside ``skip``)."""
    names: set[str] = set()
    stack = [tree]
    while stack:
        node = stack.pop()
        # By exact type: libcst's node classes have no subclasses, and a failing `isinstance`
        # against one goes through ABCMeta for every node.
        kind = type(node)
        if node is skip or kind is cst.Import or kind is cst.ImportFrom:
            continue
        if kind is cst.Name:
            names.add(node.value)
            continue  # a name's only children are its parentheses
        stack.extend(children(node))
    return names


def _drop_unused(tree: cst.Module, if_unused: list[tuple[tuple, tuple[str, ...]]]) -> cst.Module:
    """Remove module statements the source DSL alone needed (a config constant), unless the
    translation still reads what they bind."""
    if not if_unused:
        return tree
    # Re-read from text: the edited tree can hold one node in several places, and `skip` below
    # is by identity. Positions changed with the edits: find the statements by the names they
    # bind instead.
    module = cst.parse_module(tree.code)
    names = {n for _, ns in if_unused for n in ns}
    body = []
    for stmt in module.body:
        bound = _module_binding(stmt)
        if bound is not None and bound in names:
            others = _names_read(module, skip=stmt)
            if bound not in others:
                continue
        imported = _imported_names(stmt)
        # `from .utils import silu` of helpers the kernels now hold (Triton's siblings).
        if (
            imported
            and set(imported) <= names
            and not set(imported) & _names_read(module, skip=stmt)
        ):
            continue
        body.append(stmt)
    return module.with_changes(body=body)


def _imported_names(stmt: cst.CSTNode) -> tuple[str, ...]:
    """The names a lone ``from ... import a, b`` statement binds (empty otherwise)."""
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1):
        return ()
    small = stmt.body[0]
    if not isinstance(small, cst.ImportFrom) or isinstance(small.names, cst.ImportStar):
        return ()
    return tuple(
        a.asname.name.value if a.asname is not None else a.name.value  # type: ignore[union-attr]
        for a in small.names
        if isinstance(a.name, cst.Name)
    )


def _module_binding(stmt: cst.CSTNode) -> str | None:
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return stmt.name.value
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
        small = stmt.body[0]
        if (
            isinstance(small, cst.Assign)
            and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name)
        ):
            return small.targets[0].target.value
    return None


def _fix_imports(
    tree: cst.Module,
    packages: tuple[str, ...],
    wanted: tuple[str, ...],
    drop: tuple[str, ...] = (),
) -> cst.Module:
    read = _names_read(tree)
    # What the translation's own imports bind (`tl` -> triton.language): a source import binding
    # the same name to its own package (`import tilelang as tl`) would shadow the target's.
    taken = {
        local: full
        for line in wanted
        for small in cst.parse_statement(line).body  # type: ignore[attr-defined]
        if isinstance(small, (cst.Import, cst.ImportFrom))
        for local, full in import_bindings(small)
    }
    body: list[cst.BaseStatement] = []
    last_import = -1
    present: set[str] = set()
    orphaned: list[cst.EmptyLine] = []  # blank lines and comments above dropped imports
    for stmt in tree.body:
        if orphaned and hasattr(stmt, "leading_lines"):
            # Right after the module docstring formatters keep one blank line, elsewhere two.
            after_doc = len(body) == 1 and _is_docstring(body[0])
            lines = _at_most_blank([*orphaned, *stmt.leading_lines], 1 if after_doc else 2)
            stmt = stmt.with_changes(leading_lines=lines)
            orphaned = []
        if isinstance(stmt, cst.SimpleStatementLine) and all(
            isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body
        ):
            # The statement itself, not the comments above it (Helion's examples put a
            # `# Imports` heading over `from __future__ import annotations`).
            own = cst.Module(body=[stmt.with_changes(leading_lines=[])]).code.strip()
            keep = own not in drop
            for small in stmt.body:
                pairs = import_bindings(small)  # type: ignore[arg-type]
                from_source = all(full.split(".")[0] in packages for _, full in pairs)
                if from_source and pairs and not any(local in read for local, _ in pairs):
                    keep = False
                if from_source and any(taken.get(local, full) != full for local, full in pairs):
                    keep = False
            if keep:
                body.append(stmt)
                last_import = len(body) - 1
                present.add(own)
            else:
                orphaned = list(stmt.leading_lines)
            continue
        body.append(stmt)
    # Host code is torch in every DSL: code the translation adds may read it too.
    if "torch" in read:
        wanted = (*wanted, "import torch")
    new = [
        line
        for line in dict.fromkeys(wanted)
        if line not in present and _binds(line) not in _bound_by_imports(body)
    ]
    standard = [line for line in new if _is_standard_library(line)]
    third_party = _first_third_party_import(body)
    if standard and third_party is not None:
        # Standard-library imports the translation adds go above the third-party ones, as
        # isort and ruff order them; the blank lines above that import move up with them.
        new = [line for line in new if line not in standard]
        stmts = _statements("\n".join(standard) + "\n")
        if not _imports_standard_library(body[third_party - 1] if third_party else None):
            # The first import of the module: the blank lines above the third-party import
            # move up with them, a blank line then parts the two groups.
            above = list(body[third_party].leading_lines)
            comment = next((i for i, line in enumerate(above) if line.comment), len(above))
            stmts[0] = _with_leading(stmts[0], above[:comment])
            body[third_party] = _with_leading(body[third_party], _blank(1) + above[comment:])
        body[third_party:third_party] = stmts
        last_import += len(stmts)
    if new:
        stmts = _statements("\n".join(new) + "\n")
        if last_import >= 0:
            at = last_import + 1
        else:
            at = 1 if body and _is_docstring(body[0]) else 0
            if at:
                stmts[0] = _with_leading(stmts[0], [cst.EmptyLine()])
        body[at:at] = stmts
        after = at + len(stmts)
        if after < len(body) and isinstance(body[after], (cst.FunctionDef, cst.ClassDef)):
            # A definition right after the imports keeps its two blank lines (it had one
            # when it followed the module docstring, the dropped imports between them).
            lines = list(body[after].leading_lines)
            blank = next((i for i, line in enumerate(lines) if line.comment), len(lines))
            if blank < 2:
                body[after] = _with_leading(body[after], _blank(2 - blank) + lines)
    return tree.with_changes(body=body)


def _is_standard_library(line: str) -> bool:
    """Whether the import statement ``line`` imports from Python's standard library."""
    stmt = cst.parse_statement(line)
    assert isinstance(stmt, cst.SimpleStatementLine)
    pairs = import_bindings(stmt.body[0])  # type: ignore[arg-type]
    return bool(pairs) and all(full.split(".")[0] in sys.stdlib_module_names for _, full in pairs)


def _imports_standard_library(stmt: cst.BaseStatement | None) -> bool:
    """Whether ``stmt`` is an import statement of standard-library modules only."""
    if not (
        isinstance(stmt, cst.SimpleStatementLine)
        and all(isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body)
    ):
        return False
    return all(
        full.split(".")[0] in sys.stdlib_module_names
        for small in stmt.body
        for _, full in import_bindings(small)  # type: ignore[arg-type]
    )


def _first_third_party_import(body: list[cst.BaseStatement]) -> int | None:
    """The index of the module's first import of a package outside the standard library."""
    for i, stmt in enumerate(body):
        if not (
            isinstance(stmt, cst.SimpleStatementLine)
            and all(isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body)
        ):
            continue
        for small in stmt.body:
            for _, full in import_bindings(small):  # type: ignore[arg-type]
                root = full.split(".")[0]
                if root != "__future__" and root not in sys.stdlib_module_names:
                    return i
    return None


def _binds(line: str) -> str:
    stmt = cst.parse_statement(line)
    assert isinstance(stmt, cst.SimpleStatementLine)
    pairs = import_bindings(stmt.body[0])  # type: ignore[arg-type]
    return pairs[0][0] if pairs else ""


def _bound_by_imports(body: list[cst.BaseStatement]) -> set[str]:
    out: set[str] = set()
    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, (cst.Import, cst.ImportFrom)):
                    out |= {local for local, _ in import_bindings(small)}
    return out


def _is_docstring(stmt: cst.BaseStatement) -> bool:
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Expr)
        and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def _with_header(tree: cst.Module, module: ir.Module, command: str) -> cst.Module:
    header = without_provenance(tree.header)
    while header and header[0].comment is None:
        header = header[1:]
    ours = provenance_header(__version__, module.path, module.source_hash, command)
    # An encoding declaration must stay on line 1 or 2 (PEP 263) to keep meaning anything.
    coding = [
        line
        for line in header[:2]
        if line.comment and re.match(r"^[ \t\f]*#.*?coding[:=]", line.comment.value)
    ]
    header = [line for line in header if line not in coding]
    lines = [cst.EmptyLine(comment=cst.Comment(c)) for c in ours]
    return tree.with_changes(header=coding[:1] + lines + header)


__all__ = ["KernelCode", "LaunchCode", "Rendering", "assemble"]
