"""Line wrapping for emitted code, producing exactly what ``ruff format`` produces.

The emitters write code one physical line at a time; :func:`wrap_lines` splits every logical line
that is wider than :data:`MAX_LINE` columns (or that carries a magic trailing comma) the way
``ruff format`` would, so that running ruff on an emitted file changes nothing.

How it works
------------
Ruff's formatter follows Black's style but not Black's implementation: instead of recursively
trying right-hand splits, it builds a document of "format elements" (text, soft line breaks,
groups, conditional content, ...) for each statement and prints it with a Prettier-style printer
that decides, group by group, whether the content fits on the rest of the line ("flat") or breaks
("expanded").  The corner cases only come out the same if the same decisions are taken, so this
module is a small port of the relevant parts of ruff (``ruff_python_formatter`` for the document,
``ruff_formatter``'s printer for the layout):

1. :func:`_parse` reads the logical line with :mod:`ast` (headers such as ``if x:`` or ``def f():``
   get a dummy body, decorators a dummy function, a line ending in ``,`` is one entry of a bracket
   the emitter already exploded).  Parentheses around nodes and magic trailing commas are found by
   looking at the characters next to the nodes, never inside strings.
2. :class:`_DocBuilder` (with its bases) writes ruff's format elements node by node.  The Black
   rules this covers, in ruff's terms:

   * right-hand side of assignments, ``return``, ``assert``, conditions: optional ("invisible")
     parentheses only if the content does not fit otherwise -- ``maybe_parenthesize_expression``
     with ``can_omit_optional_parentheses`` (Black's ``can_omit_invisible_parens``: at most one
     delimiter of the highest priority, and the expression starts or ends with a bracket), so
     ``x = a + f(...)`` splits ``f``'s brackets while ``x = a + b * c + d`` gets parentheses;
     names and constants are parenthesized only if that makes them fit (``best_fit_parenthesize``),
     subscript and tuple targets are split only after the value (``best_fitting`` variants);
   * delimiter priorities: a chain of binary operators splits before its loosest operators, all
     of them at once, keeping tighter ones together (from the loosest: conditional expression,
     ``or``/``and``, comparisons, ``|``, ``^``, ``&``, shifts, ``+ -``, ``* / // % @``, ``~``,
     ``**``); ``**`` between simple operands hugs (``x**2``);
   * brackets (calls, subscripts, lists, tuples, dicts, sets, comprehensions): first the content on
     one indented line ("hugging"), then one item per line with a trailing comma (only with more
     than one item); a magic trailing comma forces the explosion; a sole argument keeps its own
     parentheses; empty brackets never split;
   * attribute chains with two or more calls are split before the dots inside parentheses
     ("fluent" style); a call on a right-hand side splits its own brackets rather than being
     parenthesized when its opening bracket fits;
   * conditional expressions, lambdas (ruff parenthesizes long lambda bodies; an assigned lambda
     splits its body first), slices (with Black's spacing for complex bounds), unary operators,
     keyword and starred arguments, walrus, decorators, ``def`` headers (parameters, defaults,
     ``*``/``/``, return annotations), ``for``/``if``/``elif``/``while`` headers, annotated and
     augmented assignments, ``raise ... from ...``.

3. :class:`_Printer` prints the document like ruff's printer: a group is flat if everything up to
   the next line break fits in 100 columns (Unicode width), ``fits_expanded`` content is measured
   expanded, ``best_fitting`` takes the first variant that fits, conditional content follows the
   mode of the group it names, and forced breaks propagate to the enclosing groups.  Continuation
   lines are indented 4 spaces per level on top of the statement's own indentation.

Left out (such lines are returned unchanged): lines with comments (ruff moves trailing comments
into the brackets), implicitly concatenated and multi-line strings, ``await``/``yield``,
``with``/``class``/``del``/``import``/``global`` statements, PEP 695 type parameters, parameter or
dictionary-entry lines of a construct the emitter already exploded, and ruff's *preview* style.
Lines are never joined: a construct the emitter wrote over several lines stays as written.  The
result is checked by re-parsing it; if its AST differs from the input's, the input line is kept.
Lines that fit and carry no magic trailing comma are left alone (ruff keeps them too; the other
normalisations ruff does, such as quotes, are the emitters' job).
"""

from __future__ import annotations

import ast
import io
import math
import re
import tokenize
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache

MAX_LINE = 100
_INDENT = 4


def wrap_lines(lines: list[str]) -> list[str]:
    """``lines`` with every over-long logical line split the way ``ruff format`` splits it."""
    out: list[str] = []
    for line in lines:
        if _width(line) > MAX_LINE or _may_have_magic_comma(line):
            out.extend(_format_line(line) or [line])
        else:
            out.append(line)
    return out


def string_literal(value: str) -> str:
    """``value`` as a Python string literal in double quotes (the house style of emitted code)."""
    body = repr(value)[1:-1] if "'" not in value else repr(value)[1:-1].replace("\\'", "'")
    return '"' + body.replace('"', '\\"') + '"'


def float_literal(value: float) -> str:
    """``value`` as Python source: ``repr`` except for the non-finite values, which have no
    literal (``float("-inf")``, ``float("nan")``)."""
    if math.isinf(value):
        return 'float("inf")' if value > 0 else 'float("-inf")'
    if math.isnan(value):
        return 'float("nan")'
    return repr(value)


# A comma directly before a closing bracket (outside strings): a candidate magic trailing comma.
_MAGIC_COMMA = re.compile(r",\s*[)\]}]")
_STRING = re.compile(r"""[rRbBuUfF]{0,2}("[^"\\]*(?:\\.[^"\\]*)*"|'[^'\\]*(?:\\.[^'\\]*)*')""")


def _may_have_magic_comma(line: str) -> bool:
    return "," in line and bool(_MAGIC_COMMA.search(_STRING.sub('""', line)))


class _Unsupported(Exception):
    """The line uses a construct this module does not format; it is kept as it is."""


# ---------------------------------------------------------------------------------------------
# Entry point: parse one logical line, build ruff's document, print it.
# ---------------------------------------------------------------------------------------------

_HEADER = re.compile(r"(async\s+def|def|if|elif|while|for|async\s+for)\b")


@lru_cache(maxsize=1024)
def _format_line(line: str) -> tuple[str, ...] | None:
    """The ruff formatting of ``line`` (one logical line), or ``None`` if unsupported. Cached:
    a module translated into several DSLs wraps its carried host lines once."""
    stripped = line.strip()
    if not stripped or _has_comment(stripped):
        return None
    indent = len(line) - len(line.lstrip())
    try:
        source, statement, kind = _parse(stripped)
        builder = _DocBuilder(source)
        builder.statement(statement, kind)
        document = builder.out
        _propagate_expand(document)
        lines = _Printer(indent).print(document)
    except (_Unsupported, SyntaxError, ValueError, KeyError, IndexError, tokenize.TokenError):
        return None
    return tuple(lines) if _same_ast(stripped, lines, indent, kind) else None


def _has_comment(text: str) -> bool:
    """Whether ``text`` holds a comment (ruff moves comments around; not supported here)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return "#" in _STRING.sub('""', text)
    return any(token.type == tokenize.COMMENT for token in tokens)


def _parse(text: str) -> tuple[str, ast.AST, str]:
    """``(source, node, kind)``: the statement (or decorator, or sequence entry) on ``text``."""
    if text.startswith("@"):
        module = ast.parse(text + "\ndef _():\n    pass\n")
        return text, module.body[0].decorator_list[0], "decorator"
    if text.endswith(":") and _HEADER.match(text):
        kind = "elif" if text.startswith("elif") else "header"
        source = "if" + text[4:] if kind == "elif" else text
        module = ast.parse(source + "\n    pass\n")
        return source, module.body[0], kind
    if text.endswith(","):
        # A line inside an exploded bracket (``    triton.Config(...),``): one sequence entry.
        # Emitted code has no bare tuple statements, so this is the only reading; other such
        # lines (parameters with annotations, dictionary entries) are not supported.
        source = "_(\n" + text + "\n)"
        call = ast.parse(source).body[0].value
        entries = [*call.args, *call.keywords]
        if len(entries) != 1:
            raise _Unsupported("several entries on one line")
        return source, entries[0], "entry"
    module = ast.parse(text)
    if len(module.body) != 1:
        raise _Unsupported
    return text, module.body[0], "statement"


def _same_ast(text: str, lines: list[str], indent: int, kind: str) -> bool:
    """Whether the wrapped ``lines`` parse to the same tree as ``text`` (a safety net)."""
    wrapped = "\n".join(line[indent:] if line.strip() else line for line in lines)
    suffix = {"decorator": "\ndef _():\n    pass\n", "header": "\n    pass\n"}.get(kind, "")
    if kind == "elif":
        text, wrapped, suffix = "if" + text[4:], "if" + wrapped[4:], "\n    pass\n"
    if kind == "entry":
        text, wrapped = "_(\n" + text + "\n)", "_(\n" + wrapped + "\n)"
    try:
        before = ast.dump(ast.parse(text + suffix))
        after = ast.dump(ast.parse(wrapped + suffix))
    except SyntaxError:
        return False
    return before == after


# ---------------------------------------------------------------------------------------------
# Format elements (ruff_formatter's IR).  Elements are tuples; tags carry mutable payloads.
# ---------------------------------------------------------------------------------------------

FLAT, EXPANDED = "flat", "expanded"
# Measure modes: up to the first line break, all lines, all lines allowing over-long text.
FIRST_LINE, ALL_LINES, ALL_LINES_OVERFLOW = "first", "all", "overflow"

SPACE = ("space",)
SOFT = ("line", "soft")
SOFT_OR_SPACE = ("line", "soft_or_space")
HARD = ("line", "hard")
EXPAND_PARENT = ("expand_parent",)

Element = tuple
Condition = tuple  # (mode, group id or None)


class _GroupTag:
    """Payload of a (conditional) group's start tag: its id, its mode (``flat``, ``expand`` or
    ``propagated`` from a forced break inside) and, for a conditional group, the condition under
    which it acts as a group."""

    __slots__ = ("id", "mode", "condition")

    def __init__(self, group_id: int | None, mode: str, condition: Condition | None = None):
        self.id = group_id
        self.mode = mode
        self.condition = condition


class _FitsExpandedTag:
    """Payload of ``fits_expanded``: measure the content expanded when the condition holds."""

    __slots__ = ("condition", "propagate")

    def __init__(self, condition: Condition | None):
        self.condition = condition
        self.propagate = False


def _width(text: str) -> int:
    """Display columns of ``text``: ruff measures lines by their Unicode width."""
    if text.isascii():
        return len(text)
    width = 0
    for char in text:
        if not unicodedata.combining(char):
            width += 2 if unicodedata.east_asian_width(char) in "WF" else 1
    return width


def _text(value: str) -> Element:
    return ("text", value, _width(value))


def _will_break(elements: list[Element]) -> bool:
    """ruff's ``will_break``: the content contains a forced line break (content measured with
    ``fits_expanded`` does not count)."""
    ignore = 0
    for element in elements:
        kind = element[0]
        if kind == "start" and element[1] == "fits_expanded":
            ignore += 1
        elif kind == "end" and element[1] == "fits_expanded":
            ignore -= 1
        elif not ignore and _element_will_break(element):
            return True
    return False


def _element_will_break(element: Element) -> bool:
    kind = element[0]
    if kind == "start":
        return element[1] in ("group", "cgroup") and element[2].mode != "flat"
    if kind == "interned":
        return _will_break(element[1])
    if kind == "best_fitting":
        # Even the flattest variant breaks.
        return _will_break(element[1][0])
    return kind == "expand_parent" or element == HARD


def _propagate_expand(elements: list[Element]) -> None:
    """ruff's ``Document::propagate_expand``: groups containing a forced break expand."""
    enclosing: list[tuple] = []

    def expand_parent() -> None:
        if enclosing:
            top = enclosing[-1]
            if top[0] == "group" and top[1].mode == "flat":
                top[1].mode = "propagated"
            elif top[0] == "fits":
                top[1].propagate = True

    def walk(items: list[Element]) -> bool:
        expands = False
        for element in items:
            kind = element[0]
            element_expands = False
            if kind == "start":
                tag = element[1]
                if tag in ("group", "cgroup"):
                    enclosing.append(("group", element[2]))
                elif tag == "bfp":
                    enclosing.append(("bfp", expands))
                    expands = False
                    continue
                elif tag == "fits_expanded":
                    enclosing.append(("fits", element[2], expands))
            elif kind == "end":
                tag = element[1]
                if tag in ("group", "cgroup"):
                    element_expands = enclosing.pop()[1].mode != "flat"
                elif tag == "bfp":
                    expands = enclosing.pop()[1]
                    continue
                elif tag == "fits_expanded":
                    expands = enclosing.pop()[2]
                    continue
            elif kind == "interned":
                element_expands = walk(element[1])
            elif kind == "best_fitting":
                enclosing.append(("best_fitting",))
                for variant in element[1]:
                    walk(variant)
                enclosing.pop()
                continue
            elif kind == "expand_parent" or element == HARD:
                element_expands = True
            if element_expands:
                expands = True
                expand_parent()
        return expands

    walk(elements)


# ---------------------------------------------------------------------------------------------
# The printer (ruff_formatter::printer), reduced to the elements used here.
# ---------------------------------------------------------------------------------------------

Args = tuple  # (indent level, print mode, measure mode)
_ROOT_ARGS: Args = (0, EXPANDED, FIRST_LINE)


class _Queue:
    """A stack of element slices being consumed (ruff's ``PrintQueue`` / ``FitsQueue``)."""

    __slots__ = ("frames",)

    def __init__(self, frames: list[list] | None = None):
        self.frames = frames if frames is not None else []

    def copy(self) -> _Queue:
        return _Queue([[items, index] for items, index in self.frames])

    def push(self, items: list[Element]) -> None:
        self.frames.append([items, 0])

    def pop_slice(self) -> None:
        self.frames.pop()

    def pop(self) -> Element | None:
        frames = self.frames
        while frames:
            top = frames[-1]
            items, index = top
            if index < len(items):
                top[1] = index + 1
                return items[index]
            frames.pop()
        return None

    def skip_content(self, tag: str) -> None:
        depth = 1
        while (element := self.pop()) is not None:
            if element[0] == "start" and element[1] == tag:
                depth += 1
            elif element[0] == "end" and element[1] == tag:
                depth -= 1
                if depth == 0:
                    return


class _Printer:
    """Prints a document: ruff's printer with a 100 column limit and 4-space indents, on top of
    ``base`` columns of statement indentation."""

    def __init__(self, base: int, width: int = MAX_LINE):
        self.base = base
        self.width = width
        self.lines: list[str] = []
        self.current: list[str] = [" " * base]
        self.has_text = False
        self.line_width = base
        self.pending_indent: int | None = None
        self.measured_fits = False
        self.modes: dict[int, str] = {}

    def print(self, document: list[Element]) -> list[str]:
        queue = _Queue()
        queue.push(document)
        stack: list[tuple[str, Args]] = [("root", _ROOT_ARGS)]
        while (element := queue.pop()) is not None:
            self.print_element(element, queue, stack)
        return [*self.lines, "".join(self.current).rstrip()]

    # -- printing -------------------------------------------------------------------------------

    def print_text(self, text: str, width: int) -> None:
        if self.pending_indent is not None:
            indent = self.base + _INDENT * self.pending_indent
            self.current.append(" " * indent)
            self.line_width += indent
            self.pending_indent = None
        self.current.append(text)
        self.line_width += width
        self.has_text = True

    def newline(self, indent: int) -> None:
        if self.has_text:
            self.lines.append("".join(self.current).rstrip())
            self.current = []
            self.has_text = False
            self.line_width = 0
            # The next group has to measure again whether it fits.
            self.measured_fits = False
        self.pending_indent = indent

    def print_element(self, element: Element, queue: _Queue, stack: list) -> None:
        args = stack[-1][1]
        kind = element[0]
        if kind == "text":
            self.print_text(element[1], element[2])
        elif kind == "space":
            self.print_text(" ", 1)
        elif kind == "line":
            if args[1] == FLAT and element[1] != "hard":
                if element[1] == "soft_or_space":
                    self.print_text(" ", 1)
            else:
                self.newline(args[0])
        elif kind == "expand_parent":
            pass
        elif kind == "interned":
            queue.push(element[1])
        elif kind == "best_fitting":
            self.print_best_fitting(element[1], element[2], queue, stack)
        elif kind == "start":
            self.print_start(element[1], element[2], args, queue, stack)
        else:
            tag = element[1]
            if tag == "bfp" and args[1] == EXPANDED:
                _pop(stack, "indent")
                queue.push([HARD, _text(")")])
            _pop(stack, tag)

    def print_start(self, tag: str, payload, args: Args, queue: _Queue, stack: list) -> None:
        if tag == "group":
            if payload.mode != "flat":
                mode = EXPANDED
            else:
                mode = self.flat_group_mode("group", payload.id, args, queue, stack)
            if payload.id is not None:
                self.modes[payload.id] = mode
            stack.append(("group", (args[0], mode, args[2])))
        elif tag == "cgroup":
            mode_, group_id = payload.condition
            expected = args[1] if group_id is None else self.modes[group_id]
            if expected == mode_:
                if payload.mode != "flat":
                    mode = EXPANDED
                else:
                    mode = self.flat_group_mode("cgroup", None, args, queue, stack)
                stack.append(("cgroup", (args[0], mode, args[2])))
            else:
                stack.append(("cgroup", args))
        elif tag == "ccontent":
            mode_, group_id = payload
            current = args[1] if group_id is None else self.modes[group_id]
            if mode_ == current:
                stack.append(("ccontent", args))
            else:
                queue.skip_content("ccontent")
        elif tag == "indent":
            stack.append(("indent", (args[0] + 1, args[1], args[2])))
        elif tag == "indent_if":
            if self.modes[payload] == EXPANDED:
                args = (args[0] + 1, args[1], args[2])
            stack.append(("indent_if", args))
        elif tag == "fits_expanded":
            condition = payload.condition
            if condition is None or condition[0] == (
                args[1] if condition[1] is None else self.modes[condition[1]]
            ):
                # The content was measured expanded; its own groups must measure again.
                self.measured_fits = False
            stack.append(("fits_expanded", args))
        elif tag == "bfp":
            self.print_best_fit_parenthesize(payload, args, queue, stack)
        else:  # bf_entry
            stack.append((tag, args))

    def print_best_fit_parenthesize(self, group_id, args: Args, queue: _Queue, stack: list):
        opening = [_text("("), ("start", "indent", None), HARD]
        if self.flat_group_mode("bfp", group_id, args, queue, stack) == FLAT:
            mode = FLAT
        else:
            # Parenthesize only if the content then fits; otherwise leave it unparenthesized.
            if group_id is not None:
                self.modes[group_id] = EXPANDED
            stack.append(("bfp", (args[0], args[1], ALL_LINES)))
            queue.push(opening)
            fits = self.fits(queue, stack)
            queue.pop_slice()
            stack.pop()
            mode = EXPANDED if fits else FLAT
        if group_id is not None:
            self.modes[group_id] = mode
        if mode == EXPANDED:
            queue.push(opening)
        stack.append(("bfp", (args[0], mode, args[2])))

    def print_best_fitting(self, variants: list, mode: str, queue: _Queue, stack: list) -> None:
        args = stack[-1][1]
        if args[1] == FLAT and self.measured_fits:
            queue.push(variants[0])
            self.print_entry(queue, stack, args)
            return
        self.measured_fits = True
        for variant in variants[:-1]:
            queue.push(variant[1:])
            stack.append(("bf_entry", (args[0], FLAT, mode)))
            fits = self.fits(queue, stack)
            stack.pop()
            queue.pop_slice()
            if fits:
                queue.push(variant)
                self.print_entry(queue, stack, (args[0], FLAT, args[2]))
                return
        queue.push(variants[-1])
        self.print_entry(queue, stack, (args[0], EXPANDED, args[2]))

    def print_entry(self, queue: _Queue, stack: list, args: Args) -> None:
        queue.pop()  # the entry's start tag
        stack.append(("bf_entry", args))
        depth = 1
        while (element := queue.pop()) is not None:
            if element[0] == "start" and element[1] == "bf_entry":
                depth += 1
            elif element[0] == "end" and element[1] == "bf_entry":
                depth -= 1
                if depth == 0:
                    _pop(stack, "bf_entry")
                    return
            self.print_element(element, queue, stack)

    def flat_group_mode(self, tag: str, group_id, args: Args, queue: _Queue, stack: list) -> str:
        if args[1] == FLAT and self.measured_fits:
            # An enclosing group already measured that this one fits.
            return FLAT
        self.measured_fits = True
        if group_id is not None:
            self.modes[group_id] = FLAT
        stack.append((tag, (args[0], FLAT, args[2])))
        fits = self.fits(queue, stack)
        stack.pop()
        return FLAT if fits else EXPANDED

    def fits(self, queue: _Queue, stack: list) -> bool:
        return _Measurer(self, queue.copy(), list(stack)).fits()


def _pop(stack: list, tag: str) -> Args:
    kind, args = stack.pop()
    if kind != tag:
        raise ValueError(f"mismatched tags {kind} / {tag}")
    return args


class _Measurer:
    """ruff's ``FitsMeasurer``: does the rest of the queue fit up to the first line break?"""

    def __init__(self, printer: _Printer, queue: _Queue, stack: list):
        self.printer = printer
        self.queue = queue
        self.stack = stack
        self.pending_indent = printer.pending_indent
        self.line_width = printer.line_width

    def fits(self) -> bool:
        while (element := self.queue.pop()) is not None:
            result = self.fits_element(element)
            if result is not None:
                return result
        return True

    def text(self, width: int, args: Args) -> bool | None:
        if self.pending_indent is not None:
            self.line_width += self.printer.base + _INDENT * self.pending_indent
            self.pending_indent = None
        self.line_width += width
        if self.line_width > self.printer.width and args[2] != ALL_LINES_OVERFLOW:
            return False
        return None

    def fits_element(self, element: Element) -> bool | None:
        stack = self.stack
        args = stack[-1][1]
        kind = element[0]
        if kind == "text":
            return self.text(element[2], args)
        if kind == "space":
            return self.text(1, args)
        if kind == "line":
            if args[1] == FLAT:
                if element[1] == "soft_or_space":
                    return self.text(1, args)
                if element[1] == "hard":
                    return True
            elif args[2] == FIRST_LINE:
                return True
            else:
                self.line_width = 0
                self.pending_indent = args[0]
            return None
        if kind == "interned":
            self.queue.push(element[1])
            return None
        if kind == "best_fitting":
            variants, mode = element[1], element[2]
            if args[1] == FLAT:
                variant, args = variants[0], (args[0], args[1], mode)
            else:
                variant = variants[-1]
            stack.append(("bf_entry", args))
            self.queue.push(variant[1:])
            return None
        if kind == "expand_parent":
            return None
        if kind == "end":
            tag = element[1]
            if tag == "bfp" and args[1] == EXPANDED and stack[-1][0] == "indent":
                stack.pop()
                outer = _pop(stack, "bfp")
                self.line_width = 0
                self.pending_indent = outer[0]
                return self.text(1, outer)
            _pop(stack, tag)
            return None
        return self.fits_start(element[1], element[2], args)

    def fits_start(self, tag: str, payload, args: Args) -> bool | None:
        stack, modes = self.stack, self.printer.modes
        if tag == "group":
            mode = args[1] if payload.mode == "flat" else EXPANDED
            stack.append(("group", (args[0], mode, args[2])))
            if payload.id is not None:
                modes[payload.id] = mode
        elif tag == "cgroup":
            mode_, group_id = payload.condition
            if mode_ == (args[1] if group_id is None else modes[group_id]):
                mode = args[1] if payload.mode == "flat" else EXPANDED
                stack.append(("cgroup", (args[0], mode, args[2])))
            else:
                stack.append(("cgroup", args))
        elif tag == "ccontent":
            mode_, group_id = payload
            if mode_ == (args[1] if group_id is None else modes[group_id]):
                stack.append(("ccontent", args))
            else:
                self.queue.skip_content("ccontent")
        elif tag == "indent":
            stack.append(("indent", (args[0] + 1, args[1], args[2])))
        elif tag == "indent_if":
            if modes[payload] == EXPANDED:
                args = (args[0] + 1, args[1], args[2])
            stack.append(("indent_if", args))
        elif tag == "fits_expanded":
            if args[1] == EXPANDED:
                stack.append(("fits_expanded", args))
            else:
                condition = payload.condition
                if condition is None or condition[0] == (
                    args[1] if condition[1] is None else modes[condition[1]]
                ):
                    # Measure the content fully expanded, allowing over-long lines.
                    stack.append(("fits_expanded", (args[0], EXPANDED, ALL_LINES_OVERFLOW)))
                elif payload.propagate:
                    return False
                else:
                    stack.append(("fits_expanded", args))
        elif tag == "bfp":
            if payload is not None:
                modes[payload] = args[1]
            stack.append(("bfp", args))
        else:  # bf_entry
            stack.append((tag, args))
        return None


# ---------------------------------------------------------------------------------------------
# Building the document from the AST (ruff_python_formatter, for the node types used here).
# ---------------------------------------------------------------------------------------------

# Parenthesize modes (ruff's ``Parenthesize``) and ``needs_parentheses`` answers.
OPTIONAL, IF_BREAKS, IF_REQUIRED = "optional", "if_breaks", "if_required"
IF_BREAKS_PARENTHESIZED, IF_BREAKS_PARENTHESIZED_NESTED = "ibp", "ibp_nested"
MULTILINE, ALWAYS, BEST_FIT, NEVER = "multiline", "always", "best_fit", "never"
PRESERVE = "preserve"
# Node levels: not parenthesized (``None``), inside optional parentheses (their group id), or
# inside real parentheses.
PARENTHESIZED = "parenthesized"

# ruff's ``OperatorPrecedence``, lowest binding last (splits happen there first).
P_NONE, P_ATTRIBUTE, P_POWER, P_INVERT, P_TERM, P_ARITH, P_SHIFT = range(7)
P_BIT_AND, P_BIT_XOR, P_BIT_OR, P_COMPARE, P_BOOL, P_CONDITIONAL = range(7, 13)

_BINARY = {
    ast.Add: ("+", P_ARITH),
    ast.Sub: ("-", P_ARITH),
    ast.Mult: ("*", P_TERM),
    ast.MatMult: ("@", P_TERM),
    ast.Div: ("/", P_TERM),
    ast.Mod: ("%", P_TERM),
    ast.FloorDiv: ("//", P_TERM),
    ast.Pow: ("**", P_POWER),
    ast.LShift: ("<<", P_SHIFT),
    ast.RShift: (">>", P_SHIFT),
    ast.BitOr: ("|", P_BIT_OR),
    ast.BitXor: ("^", P_BIT_XOR),
    ast.BitAnd: ("&", P_BIT_AND),
}
_COMPARE = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
}
_UNARY = {ast.Invert: "~", ast.Not: "not", ast.UAdd: "+", ast.USub: "-"}
# Statements where a walrus must keep its parentheses.
_WALRUS_NEEDS_PARENTHESES = (
    ast.AnnAssign,
    ast.Assign,
    ast.AugAssign,
    ast.Assert,
    ast.Return,
    ast.For,
    ast.FunctionDef,
    ast.Delete,
)
_SEQUENCE_BRACKETS = {ast.List: ("[", "]"), ast.Set: ("{", "}")}


class _Source:
    """The parsed line's source text and the token-level facts ruff reads from it: node
    offsets, parentheses around nodes, trailing commas."""

    def __init__(self, source: str):
        self.source = source
        self.lines = source.split("\n")
        self.offsets = [0]
        for line in self.lines:
            self.offsets.append(self.offsets[-1] + len(line) + 1)

    def pos(self, line: int, column: int) -> int:
        text = self.lines[line - 1]
        if not text.isascii():
            column = len(text.encode()[:column].decode())
        return self.offsets[line - 1] + column

    def start(self, node: ast.AST) -> int:
        if isinstance(node, ast.GeneratorExp) and getattr(node, "_bare", False):
            return self.pos(node.lineno, node.col_offset) + 1
        return self.pos(node.lineno, node.col_offset)

    def end(self, node: ast.AST) -> int:
        if isinstance(node, ast.GeneratorExp) and getattr(node, "_bare", False):
            return self.pos(node.end_lineno, node.end_col_offset) - 1
        return self.pos(node.end_lineno, node.end_col_offset)

    def text_of(self, node: ast.AST) -> str:
        return self.source[self.start(node) : self.end(node)]

    def next_char(self, index: int, skip: str = " \t\n") -> str:
        while index < len(self.source) and self.source[index] in skip:
            index += 1
        return self.source[index] if index < len(self.source) else ""

    def prev_char(self, index: int) -> str:
        index -= 1
        while index >= 0 and self.source[index] in " \t\n":
            index -= 1
        return self.source[index] if index >= 0 else ""

    def paren(self, node: ast.AST) -> bool:
        """ruff's ``is_expression_parenthesized``: ``(`` before and ``)`` after the node."""
        return self.next_char(self.end(node)) == ")" and self.prev_char(self.start(node)) == "("

    def trailing_comma(self, after: int, end: int) -> bool:
        """ruff's ``has_trailing_comma``: a comma follows (skipping closing parentheses)."""
        index = after
        while index < end and self.source[index] in " \t\n)":
            index += 1
        return index < end and self.source[index] == ","

    def tuple_parenthesized(self, node: ast.Tuple) -> bool:
        """Whether the tuple has its own parentheses (Python includes them in its range)."""
        text = self.text_of(node)
        return text.startswith("(") and _closing_bracket(text) == len(text) - 1

    def mark_bare_generators(self, tree: ast.AST) -> None:
        """Flags generator expressions that are the sole argument of a call without their own
        parentheses (``sum(x for x in y)``): Python gives them the call's parentheses."""
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
                (argument,) = node.args
                if isinstance(argument, ast.GeneratorExp):
                    opening = self.end(node.func)
                    while self.source[opening] in " \t\n":
                        opening += 1
                    argument._bare = opening == self.start(argument)  # type: ignore[attr-defined]


class _Builder(_Source):
    """Writes format elements into :attr:`out` (ruff_formatter's builders and the Python
    formatter's parenthesizing helpers).  :attr:`level` is ruff's node level: ``None`` outside
    parentheses, the group id of enclosing optional parentheses, or ``PARENTHESIZED``."""

    def __init__(self, source: str):
        super().__init__(source)
        self.out: list[Element] = []
        self.level: str | int | None = None
        self.next_id = 0
        self.remove_soft_lines = False

    def new_id(self) -> int:
        self.next_id += 1
        return self.next_id

    @contextmanager
    def at_level(self, level: str | int | None) -> Iterator[None]:
        saved, self.level = self.level, level
        try:
            yield
        finally:
            self.level = saved

    def token(self, value: str) -> None:
        self.out.append(_text(value))

    def space(self) -> None:
        self.out.append(SPACE)

    def soft(self) -> None:
        if not self.remove_soft_lines:
            self.out.append(SOFT)

    def soft_or_space(self) -> None:
        self.out.append(SPACE if self.remove_soft_lines else SOFT_OR_SPACE)

    def wrap(self, start: Element, content: Callable[[], None], end: Element) -> None:
        self.out.append(start)
        content()
        self.out.append(end)

    def group(self, content: Callable[[], None], group_id: int | None = None, expand=False):
        tag = _GroupTag(group_id, "expand" if expand else "flat")
        self.wrap(("start", "group", tag), content, ("end", "group"))

    def conditional_group(self, content: Callable[[], None], condition: Condition) -> None:
        tag = _GroupTag(None, "flat", condition)
        self.wrap(("start", "cgroup", tag), content, ("end", "cgroup"))

    def if_group_breaks(self, content: Callable[[], None], group_id: int | None = None) -> None:
        if not self.remove_soft_lines:
            self.conditional(content, EXPANDED, group_id)

    def if_group_fits(self, content: Callable[[], None], group_id: int | None = None) -> None:
        self.conditional(content, FLAT, group_id)

    def conditional(self, content: Callable[[], None], mode: str, group_id: int | None) -> None:
        self.wrap(("start", "ccontent", (mode, group_id)), content, ("end", "ccontent"))

    def indent(self, content: Callable[[], None]) -> None:
        self.wrap(("start", "indent", None), content, ("end", "indent"))

    def soft_block_indent(self, content: Callable[[], None]) -> None:
        self.indent(lambda: (self.soft(), content()))
        self.soft()

    def block_indent(self, content: Callable[[], None]) -> None:
        self.indent(lambda: (self.out.append(HARD), content()))
        self.out.append(HARD)

    def fits_expanded(self, content: Callable[[], None], condition: Condition | None = None):
        tag = _FitsExpandedTag(condition)
        self.wrap(("start", "fits_expanded", tag), content, ("end", "fits_expanded"))

    def capture(self, content: Callable[[], None]) -> list[Element]:
        saved, self.out = self.out, []
        try:
            content()
            return self.out
        finally:
            self.out = saved

    def memoized(self, content: Callable[[], None]) -> tuple[Callable[[], None], list[Element]]:
        """ruff's ``memoized``: format once, reuse the same elements (and group ids)."""
        elements = self.capture(content)
        return (lambda: self.out.append(("interned", elements))), elements

    def best_fitting(self, variants: list[Callable[[], None]], mode: str = FIRST_LINE) -> None:
        start, end = ("start", "bf_entry", None), ("end", "bf_entry")
        built = [[start, *self.capture(variant), end] for variant in variants]
        self.out.append(("best_fitting", built, mode))

    def best_fit_parenthesize(self, content: Callable[[], None], group_id: int | None) -> None:
        self.wrap(("start", "bfp", group_id), content, ("end", "bfp"))

    # -- parentheses (expression/parentheses.rs, builders.rs) ---------------------------------------

    def parenthesized(self, left: str, content: Callable[[], None], right: str) -> None:
        outer = self.level

        def indented() -> None:
            self.group(lambda: self.soft_block_indent(content))

        with self.at_level(PARENTHESIZED):
            self.token(left)
            if isinstance(outer, int):
                # Expanding these brackets must not force the enclosing optional parentheses.
                self.fits_expanded(indented, (FLAT, outer))
            else:
                indented()
            self.token(right)

    def empty_parenthesized(self, left: str, right: str) -> None:
        self.group(lambda: (self.token(left), self.token(right)))

    def optional_parentheses(self, content: Callable[[], None]) -> None:
        group_id = self.new_id()

        def inner() -> None:
            self.if_group_breaks(lambda: self.token("("))
            self.wrap(
                ("start", "indent_if", group_id),
                lambda: (self.soft(), content()),
                ("end", "indent_if"),
            )
            self.soft()
            self.if_group_breaks(lambda: self.token(")"))

        with self.at_level(group_id):
            self.group(inner, group_id)

    def parenthesize_if_expands(self, content: Callable[[], None], indent: bool = True) -> None:
        def inner() -> None:
            self.if_group_breaks(lambda: self.token("("))
            if indent:
                self.soft_block_indent(content)
            else:
                content()
            self.if_group_breaks(lambda: self.token(")"))

        with self.at_level(PARENTHESIZED):
            self.group(inner)

    def in_parentheses_only_group(self, content: Callable[[], None]) -> None:
        if isinstance(self.level, int):
            self.conditional_group(content, (EXPANDED, self.level))
        elif self.level == PARENTHESIZED:
            self.group(content)
        else:
            content()

    def in_parentheses_only_soft_line_break_or_space(self) -> None:
        if isinstance(self.level, int):
            self.if_group_breaks(lambda: self.out.append(SOFT_OR_SPACE), self.level)
            self.if_group_fits(self.space, self.level)
        elif self.level == PARENTHESIZED:
            self.out.append(SOFT_OR_SPACE)
        else:
            self.space()

    def in_parentheses_only_soft_line_break(self) -> None:
        if isinstance(self.level, int):
            self.if_group_breaks(lambda: self.out.append(SOFT), self.level)
        elif self.level == PARENTHESIZED:
            self.out.append(SOFT)

    def in_parentheses_only_if_group_breaks(self, content: Callable[[], None]) -> None:
        if isinstance(self.level, int):
            self.if_group_breaks(content, self.level)
        elif self.level == PARENTHESIZED:
            self.if_group_breaks(content)

    def join_comma_separated(self, entries: list[tuple[int, Callable[[], None]]], end: int):
        """``join_comma_separated``: ``a, b`` with a trailing comma if the group breaks."""
        for index, (_, content) in enumerate(entries):
            if index:
                self.token(",")
                self.soft_or_space()
            content()
        if entries:
            magic = self.trailing_comma(entries[-1][0], end)
            if magic or len(entries) > 1:
                self.if_group_breaks(lambda: self.token(","))
            if magic:
                self.out.append(EXPAND_PARENT)


class _Expressions(_Builder):
    """Expressions, following ruff's node formatters: ``expr`` is ``FormatExpr`` (parentheses
    ``PRESERVE``/``ALWAYS``/``NEVER``), ``maybe_parenthesize`` is
    ``maybe_parenthesize_expression``, and the node methods are the nodes' ``FormatNodeRule``."""

    def __init__(self, source: str):
        super().__init__(source)
        # A lambda assigned by a statement prefers to parenthesize its own body.
        self.assignment_lambda: ast.AST | None = None

    def expr(self, node: ast.AST, parentheses: str = PRESERVE) -> None:
        """ruff's ``FormatExpr``."""
        if self.paren(node) if parentheses == PRESERVE else parentheses == ALWAYS:
            self.parenthesized("(", lambda: self.fields(node), ")")
        else:
            self.fields(node)

    def fields(self, node: ast.AST) -> None:
        """The node's own formatting (``FormatNodeRule::fmt_fields``) with default options."""
        if isinstance(node, (ast.BinOp, ast.BoolOp, ast.Compare)):
            self.binary_like(node)
        elif isinstance(node, ast.Call):
            self.call(node)
        elif isinstance(node, ast.Attribute):
            self.attribute(node)
        elif isinstance(node, ast.Subscript):
            self.subscript(node)
        elif isinstance(node, (ast.Name, ast.Constant, ast.JoinedStr)):
            self.atom(node)
        elif isinstance(node, ast.Tuple):
            self.tuple_(node)
        elif isinstance(node, (ast.List, ast.Set)):
            left, right = _SEQUENCE_BRACKETS[type(node)]
            if not node.elts:
                self.empty_parenthesized(left, right)
            else:
                entries = [(self.end(e), self.entry(e)) for e in node.elts]
                end = self.end(node)
                self.parenthesized(left, lambda: self.join_comma_separated(entries, end), right)
        elif isinstance(node, ast.Dict):
            self.dict_(node)
        elif isinstance(node, ast.UnaryOp):
            self.unary(node)
        elif isinstance(node, ast.IfExp):
            self.if_exp(node)
        elif isinstance(node, ast.Lambda):
            self.lambda_(node, "assignment" if node is self.assignment_lambda else "default")
        elif isinstance(node, ast.Starred):
            self.token("*")
            self.expr(node.value)
        elif isinstance(node, ast.NamedExpr):
            target = node.target
            self.group(
                lambda: (self.expr(target), self.in_parentheses_only_soft_line_break_or_space())
            )
            self.token(":=")
            self.space()
            self.expr(node.value)
        elif isinstance(node, ast.Slice):
            self.slice(node)
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            self.comprehension_expr(node)
        else:
            raise _Unsupported(type(node).__name__)

    def entry(self, node: ast.AST) -> Callable[[], None]:
        return lambda: self.expr(node)

    def atom(self, node: ast.AST) -> None:
        text = self.text_of(node)
        if _is_string(node) and _count_strings(text) != 1:
            raise _Unsupported("implicit concatenation")
        self.token(text)

    def needs_parentheses(self, node: ast.AST, parent: ast.AST | None) -> str:
        """ruff's ``NeedsParentheses::needs_parentheses``."""
        if isinstance(node, (ast.Call, ast.Attribute, ast.Subscript)):
            if self.is_fluent(node):
                return MULTILINE
            inner = node.func if isinstance(node, ast.Call) else node.value
            if self.paren(inner):
                return NEVER
            answer = self.needs_parentheses(inner, node)
            is_function = isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef))
            is_return_annotation = is_function and parent.returns is node
            if answer == BEST_FIT and isinstance(node, ast.Subscript) and is_return_annotation:
                # A subscript return annotation: optional parentheses only without parameters.
                return NEVER if _has_parameters(parent.args) else MULTILINE
            return answer
        if isinstance(node, (ast.Name, ast.Constant, ast.JoinedStr)):
            return BEST_FIT
        if isinstance(node, ast.UnaryOp):
            if self.paren(node.operand):
                return NEVER
            return self.needs_parentheses(node.operand, node)
        if isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
            return NEVER
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            return NEVER
        if isinstance(node, ast.NamedExpr) and isinstance(parent, _WALRUS_NEEDS_PARENTHESES):
            return ALWAYS
        return MULTILINE

    def maybe_parenthesize(self, node: ast.AST, parent: ast.AST | None, mode: str) -> None:
        """ruff's ``maybe_parenthesize_expression``."""
        if mode == OPTIONAL and self.paren(node):
            self.expr(node, ALWAYS)
            return
        needs = self.needs_parentheses(node, parent)
        if needs != ALWAYS and self.level is not None:
            # An enclosing pair of parentheses already allows breaking.
            if mode == IF_BREAKS_PARENTHESIZED_NESTED:
                self.parenthesize_if_expands(lambda: self.expr(node, NEVER))
            else:
                self.expr(node, NEVER)
            return

        def unparenthesized() -> None:
            self.expr(node, NEVER)

        if needs == MULTILINE:
            if mode == IF_REQUIRED:
                unparenthesized()
            elif node is self.assignment_lambda or self.can_omit_optional_parentheses(node):
                # A lambda in an assignment expands its own body first (ruff's
                # ``ExprLambdaLayout::Assignment``) and only then gets parenthesized.
                self.optional_parentheses(unparenthesized)
            else:
                self.parenthesize_if_expands(unparenthesized)
        elif needs == BEST_FIT:
            if mode in (IF_BREAKS_PARENTHESIZED, IF_BREAKS_PARENTHESIZED_NESTED):
                if self.can_omit_optional_parentheses(node):
                    self.optional_parentheses(unparenthesized)
                else:
                    self.parenthesize_if_expands(unparenthesized)
            elif mode in (OPTIONAL, IF_REQUIRED):
                unparenthesized()
            else:
                group_id = self.new_id()
                with self.at_level(group_id):
                    self.best_fit_parenthesize(unparenthesized, group_id)
        elif needs == NEVER:
            unparenthesized()
        else:
            self.expr(node, ALWAYS)

    def has_own_parentheses(self, node: ast.AST) -> str | None:
        """``None``, ``"empty"`` or ``"non_empty"`` (ruff's ``has_own_parentheses``)."""
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.Subscript)):
            return "non_empty"
        if isinstance(node, ast.GeneratorExp):
            return None if getattr(node, "_bare", False) else "non_empty"
        if isinstance(node, (ast.List, ast.Set)):
            return "non_empty" if node.elts else "empty"
        if isinstance(node, ast.Tuple) and self.tuple_parenthesized(node):
            return "non_empty" if node.elts else "empty"
        if isinstance(node, ast.Dict):
            return "non_empty" if node.keys else "empty"
        if isinstance(node, ast.Call):
            return "non_empty" if node.args or node.keywords else "empty"
        return None

    def has_parentheses(self, node: ast.AST) -> str | None:
        own = self.has_own_parentheses(node)
        if own == "non_empty":
            return own
        return "non_empty" if self.paren(node) else own

    def can_omit_optional_parentheses(self, node: ast.AST) -> bool:
        """ruff's ``can_omit_optional_parentheses`` (Black's ``can_omit_invisible_parens``)."""
        visitor = _CanOmitVisitor(self)
        visitor.visit_subexpression(node)
        if not visitor.any_parenthesized:
            return False
        if visitor.max_count > 1:
            return False
        if visitor.max_precedence in (P_NONE, P_ATTRIBUTE):
            return True

        def is_parenthesized(expression: ast.AST | None) -> bool:
            # Don't break subscripts except in parenthesized context; it looks weird.
            return (
                isinstance(expression, ast.AST)
                and not isinstance(expression, ast.Subscript)
                and self.has_parentheses(expression) == "non_empty"
            )

        return is_parenthesized(visitor.last) or is_parenthesized(visitor.first)

    def is_fluent(self, node: ast.AST) -> bool:
        """``CallChainLayout::from_expression`` is ``Fluent``: two or more attribute accesses
        on calls or subscripts (or on a parenthesized root)."""
        count = 0
        while True:
            if isinstance(node, ast.Attribute):
                value = node.value
                if self.paren(value):
                    count += 1
                    break
                if isinstance(value, (ast.Call, ast.Subscript)):
                    count += 1
                node = value
            elif isinstance(node, (ast.Call, ast.Subscript)):
                inner = node.func if isinstance(node, ast.Call) else node.value
                if self.paren(inner):
                    break
                node = inner
            else:
                break
        return count >= 2

    def chain_layout(self, layout: str, node: ast.AST) -> str:
        """``CallChainLayout::apply_in_node``."""
        if layout != "default":
            return layout
        if self.level is not None and self.is_fluent(node):
            return "fluent"
        return "non_fluent"

    def chain_value(self, value: ast.AST, layout: str) -> None:
        """Formats the value of an attribute, call or subscript in a call chain."""
        if isinstance(value, ast.Attribute):
            self.attribute(value, layout)
        elif isinstance(value, ast.Call):
            self.call(value, layout)
        elif isinstance(value, ast.Subscript):
            self.subscript(value, layout)
        else:
            self.expr(value, NEVER)

    def attribute(self, node: ast.Attribute, layout: str = "default") -> None:
        chain = self.chain_layout(layout, node)

        def inner() -> None:
            value = node.value
            parenthesize = _is_base_ten_number(value, self.text_of(value)) or self.paren(value)
            if parenthesize:
                self.expr(value, ALWAYS)
            elif chain == "fluent":
                self.chain_value(value, chain)
            else:
                self.expr(value, NEVER)
            if chain == "fluent" and (parenthesize or isinstance(value, (ast.Call, ast.Subscript))):
                self.soft()
            self.token(".")
            self.token(node.attr)

        if layout == "default" and chain == "fluent":
            self.group(inner)
        else:
            inner()

    def call(self, node: ast.Call, layout: str = "default") -> None:
        chain = self.chain_layout(layout, node)

        def inner() -> None:
            if self.paren(node.func):
                self.expr(node.func, ALWAYS)
            else:
                self.chain_value(node.func, chain)
            self.arguments(node)

        if layout == "default" and chain == "fluent":
            self.group(inner)
        else:
            inner()

    def arguments(self, node: ast.Call) -> None:
        arguments = sorted([*node.args, *node.keywords], key=self.start)
        if not arguments:
            self.empty_parenthesized("(", ")")
            return
        end = self.end(node)
        if len(node.args) == 1 and not node.keywords:
            (argument,) = node.args
            if isinstance(argument, ast.GeneratorExp):
                entries = [(self.end(argument), lambda: self.generator(argument, True))]
            else:
                parenthesized = self.single_argument_parenthesized(argument, end)
                parentheses = ALWAYS if parenthesized else NEVER
                entries = [(self.end(argument), lambda: self.expr(argument, parentheses))]
        else:
            entries = [(self.end(a), self.argument(a)) for a in arguments]
        self.parenthesized(
            "(", lambda: self.group(lambda: self.join_comma_separated(entries, end)), ")"
        )

    def argument(self, node: ast.AST) -> Callable[[], None]:
        if isinstance(node, ast.keyword):
            return lambda: self.keyword(node)
        return lambda: self.expr(node)

    def keyword(self, node: ast.keyword) -> None:
        if node.arg is None:
            self.token("**")
        else:
            self.token(node.arg)
            self.token("=")
        self.expr(node.value)

    def single_argument_parenthesized(self, argument: ast.AST, end: int) -> bool:
        index, seen = self.end(argument), False
        while index < end:
            char = self.source[index]
            index += 1
            if char in " \t\n,":
                continue
            if char != ")":
                return False
            if seen:
                return True
            seen = True
        return False

    def subscript(self, node: ast.Subscript, layout: str = "default") -> None:
        chain = self.chain_layout(layout, node)

        def inner() -> None:
            if self.paren(node.value):
                self.expr(node.value, ALWAYS)
            else:
                self.chain_value(node.value, chain)
            if isinstance(node.slice, ast.Tuple):
                self.parenthesized("[", lambda: self.tuple_(node.slice, "preserve"), "]")
            else:
                self.parenthesized("[", lambda: self.expr(node.slice), "]")

        if layout == "default" and chain == "fluent":
            self.group(inner)
        else:
            inner()


class _CompoundExpressions(_Expressions):
    """Tuples, dictionaries, operators, conditional expressions, lambdas, slices and
    comprehensions."""

    def tuple_(self, node: ast.Tuple, option: str = "default") -> None:
        elements = node.elts
        parenthesized = self.tuple_parenthesized(node)
        end = self.end(node)
        entries = [(self.end(e), self.entry(e)) for e in elements]

        def sequence() -> None:
            self.join_comma_separated(entries, end)

        if not elements:
            self.empty_parenthesized("(", ")")
        elif len(elements) == 1:
            if option == "preserve" and not parenthesized:
                self.expr(elements[0])
                if self.trailing_comma(self.end(elements[0]), end):
                    self.token(",")
            else:
                self.parenthesized("(", lambda: (self.expr(elements[0]), self.token(",")), ")")
        elif parenthesized and option != "never_preserve":
            self.parenthesized("(", sequence, ")")
        elif option == "never":
            for index, element in enumerate(elements):
                if index:
                    self.group(lambda: (self.token(","), self.space()))
                self.expr(element)
        elif option == "preserve":
            self.group(sequence)
        elif option == "never_preserve" or (option == "optional" and len(elements) == 2):
            self.optional_parentheses(sequence)
        else:
            self.parenthesize_if_expands(sequence)

    def dict_(self, node: ast.Dict) -> None:
        if not node.keys:
            self.empty_parenthesized("{", "}")
            return

        def pair(key: ast.AST | None, value: ast.AST) -> Callable[[], None]:
            if key is None:
                return lambda: self.group(lambda: (self.token("**"), self.expr(value)))
            return lambda: self.group(
                lambda: (self.expr(key), self.token(":"), self.space(), self.expr(value))
            )

        entries = [(self.end(v), pair(k, v)) for k, v in zip(node.keys, node.values)]
        end = self.end(node)
        self.parenthesized("{", lambda: self.join_comma_separated(entries, end), "}")

    def unary(self, node: ast.UnaryOp) -> None:
        self.token(_UNARY[type(node.op)])
        if isinstance(node.op, ast.Not):
            self.space()
        operand = node.operand
        if isinstance(operand, ast.BinOp) and isinstance(operand.op, ast.Pow):
            self.expr(operand, ALWAYS)
        else:
            self.expr(operand)

    def if_exp(self, node: ast.IfExp, nested: bool = False) -> None:
        def inner() -> None:
            self.expr(node.body)
            self.in_parentheses_only_soft_line_break_or_space()
            self.token("if")
            self.space()
            self.expr(node.test)
            self.in_parentheses_only_soft_line_break_or_space()
            self.token("else")
            self.space()
            orelse = node.orelse
            if isinstance(orelse, ast.IfExp) and not self.paren(orelse):
                self.if_exp(orelse, nested=True)
            else:
                self.in_parentheses_only_group(lambda: self.expr(orelse))

        if nested:
            inner()
        else:
            self.in_parentheses_only_group(inner)

    def lambda_(self, node: ast.Lambda, layout: str) -> None:
        self.token("lambda")
        if _has_parameters(node.args):
            self.space()
            # The parameters of a lambda always stay on one line.
            saved, self.remove_soft_lines = self.remove_soft_lines, True
            try:
                self.parameters(node.args, lambda_parameters=True)
            finally:
                self.remove_soft_lines = saved
        self.token(":")
        self.space()
        body = node.body

        def format_body() -> None:
            if isinstance(body, (ast.Call, ast.Subscript)):
                if self.is_fluent(body):
                    self.parenthesize_if_expands(lambda: self.expr(body, NEVER))
                    return
                content, elements = self.memoized(lambda: self.expr(body, NEVER))
                if _will_break(elements):
                    self.out.append(EXPAND_PARENT)
                self.best_fitting(
                    [
                        content,
                        lambda: self.group(content, expand=True),
                        lambda: (self.token("("), self.block_indent(content), self.token(")")),
                    ]
                )
            elif self.has_own_parentheses(body) is not None:
                self.expr(body)
            else:
                self.parenthesize_if_expands(lambda: self.expr(body, NEVER))

        if layout == "assignment":
            self.fits_expanded(format_body)
        else:
            format_body()

    def slice(self, node: ast.Slice) -> None:
        lower, upper, step = node.lower, node.upper, node.step
        simple = all(part is None or _is_simple_slice_part(part) for part in (lower, upper, step))
        end = self.end(node)
        after_upper = self.end(upper) if upper is not None else None
        if lower is not None:
            self.expr(lower)
            if not simple:
                self.space()
        self.token(":")
        if upper is not None:
            if not simple:
                self.space()
            self.expr(upper)
        else:
            first_colon = self.source.index(":", self.end(lower) if lower else self.start(node))
            after_upper = first_colon + 1
        if self.next_char(after_upper, " \t\n)") == ":" and after_upper < end:
            if not simple and (upper is not None or step is None):
                self.space()
            self.token(":")
            if step is not None:
                if not simple:
                    self.space()
                self.expr(step)

    def comprehension_expr(self, node: ast.AST) -> None:
        if isinstance(node, ast.GeneratorExp):
            self.generator(node, False)
            return
        left, right = {ast.ListComp: "[]", ast.SetComp: "{}", ast.DictComp: "{}"}[type(node)]
        self.parenthesized(left, lambda: self.group(lambda: self.comprehension_body(node)), right)

    def generator(self, node: ast.GeneratorExp, preserve: bool) -> None:
        if preserve and getattr(node, "_bare", False):
            self.comprehension_body(node)
        else:
            self.parenthesized("(", lambda: self.group(lambda: self.comprehension_body(node)), ")")

    def comprehension_body(self, node: ast.AST) -> None:
        if isinstance(node, ast.DictComp):
            self.group(
                lambda: (
                    self.expr(node.key),
                    self.token(":"),
                    self.space(),
                    self.expr(node.value),
                )
            )
        else:
            self.group(lambda: self.expr(node.elt))
        for generator in node.generators:
            self.soft_or_space()
            self.comprehension(generator)

    def comprehension(self, node: ast.comprehension) -> None:
        if node.is_async:
            self.token("async")
            self.space()
        self.token("for")
        self.space()
        if isinstance(node.target, ast.Tuple):
            self.tuple_(node.target, "never")
        else:
            self.expr(node.target)
        self.space()
        self.token("in")
        self.space()
        self.expr(node.iter)
        for condition in node.ifs:
            self.soft_or_space()
            self.token("if")
            self.space()
            self.expr(condition)

    # -- binary-like expressions (expression/binary_like.rs) ----------------------------------------

    def binary_like(self, node: ast.AST) -> None:
        parts: list = []
        self.flatten(node, parts)
        self.in_parentheses_only_group(lambda: self.binary_slice(parts))

    def flatten(self, node: ast.AST, parts: list) -> None:
        """Operands at even and ``(symbol, precedence)`` operators at odd indices."""
        if isinstance(node, ast.BinOp):
            self.flatten_operand(node.left, parts)
            parts.append(_BINARY[type(node.op)])
            self.flatten_operand(node.right, parts)
        elif isinstance(node, ast.Compare):
            self.flatten_operand(node.left, parts)
            for operator, comparator in zip(node.ops, node.comparators):
                parts.append((_COMPARE[type(operator)], P_COMPARE))
                self.flatten_operand(comparator, parts)
        else:
            symbol = "and" if isinstance(node.op, ast.And) else "or"
            for index, value in enumerate(node.values):
                if index:
                    parts.append((symbol, P_BOOL))
                self.flatten_operand(value, parts)

    def flatten_operand(self, node: ast.AST, parts: list) -> None:
        if isinstance(node, (ast.BinOp, ast.Compare, ast.BoolOp)) and not self.paren(node):
            self.flatten(node, parts)
        else:
            parts.append(node)

    def binary_slice(self, parts: list) -> None:
        """Splits before the lowest-precedence operators, all of them or none."""
        if len(parts) == 1:
            self.operand(parts[0])
            return
        lowest = max(parts[index][1] for index in range(1, len(parts), 2))
        last = -1
        for index in range(1, len(parts), 2):
            symbol, precedence = parts[index]
            if precedence != lowest:
                continue
            left, right = parts[last + 1 : index], parts[index + 1 :]
            is_pow = symbol == "**" and self.simple_power(left[-1], right[0])
            self.binary_side(left)
            if is_pow:
                self.in_parentheses_only_soft_line_break()
            else:
                self.in_parentheses_only_soft_line_break_or_space()
            self.token(symbol)
            if is_pow:
                self.in_parentheses_only_if_group_breaks(self.space)
            else:
                self.space()
            last = index
        self.binary_side(parts[last + 1 :])

    def binary_side(self, parts: list) -> None:
        if len(parts) == 1:
            self.operand(parts[0])
        else:
            self.in_parentheses_only_group(lambda: self.binary_slice(parts))

    def operand(self, node: ast.AST) -> None:
        self.expr(node, ALWAYS if self.paren(node) else NEVER)

    def simple_power(self, left: ast.AST, right: ast.AST) -> bool:
        return (
            _is_simple_power_operand(left)
            and _is_simple_power_operand(right)
            and not self.paren(left)
            and not self.paren(right)
        )

    # -- parameters (other/parameters.rs) -----------------------------------------------------------

    def parameters(self, args: ast.arguments, lambda_parameters: bool = False) -> None:
        entries: list[Callable[[], None]] = []
        last_end: int | None = None
        positional = [*args.posonlyargs, *args.args]
        defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
        for index, (parameter, default) in enumerate(zip(positional, defaults)):
            entries.append(self.parameter(parameter, default))
            last_end = self.end(default if default is not None else parameter)
            if args.posonlyargs and index == len(args.posonlyargs) - 1:
                entries.append(lambda: self.token("/"))
        if args.vararg is not None:
            entries.append(self.star_parameter("*", args.vararg))
            last_end = self.end(args.vararg)
        elif args.kwonlyargs:
            entries.append(lambda: self.token("*"))
        for parameter, default in zip(args.kwonlyargs, args.kw_defaults):
            entries.append(self.parameter(parameter, default))
            last_end = self.end(default if default is not None else parameter)
        if args.kwarg is not None:
            entries.append(self.star_parameter("**", args.kwarg))
            last_end = self.end(args.kwarg)
        magic = last_end is not None and self.trailing_comma(last_end, len(self.source))

        def inner() -> None:
            for index, entry in enumerate(entries):
                if index:
                    self.token(",")
                    if self.level is not None:
                        self.soft_or_space()
                    else:
                        self.space()
                entry()
            if lambda_parameters:
                if magic:
                    self.token(",")
            else:
                self.if_group_breaks(lambda: self.token(","))
                if magic:
                    self.out.append(HARD)

        count = len(positional) + len(args.kwonlyargs) + (args.vararg is not None)
        count += args.kwarg is not None
        if lambda_parameters:
            self.group(inner)
            return
        with self.at_level(PARENTHESIZED):
            if count == 0:
                self.empty_parenthesized("(", ")")
            elif count == 1 and not args.posonlyargs and not args.kwonlyargs:
                self.token("(")
                self.soft_block_indent(inner)
                self.token(")")
            else:
                self.token("(")
                self.soft_block_indent(lambda: self.group(inner))
                self.token(")")

    def parameter(self, parameter: ast.arg, default: ast.AST | None) -> Callable[[], None]:
        def fmt() -> None:
            self.token(parameter.arg)
            if parameter.annotation is not None:
                self.token(":")
                self.space()
                self.expr(parameter.annotation)
            if default is not None:
                if parameter.annotation is not None:
                    self.space()
                    self.token("=")
                    self.space()
                else:
                    self.token("=")
                self.expr(default)

        return fmt

    def star_parameter(self, star: str, parameter: ast.arg) -> Callable[[], None]:
        def fmt() -> None:
            self.token(star)
            self.token(parameter.arg)
            if parameter.annotation is not None:
                self.token(":")
                self.space()
                self.expr(parameter.annotation)

        return fmt


class _DocBuilder(_CompoundExpressions):
    """Builds the document of one statement, decorator or sequence entry."""

    def statement(self, node: ast.AST, kind: str) -> None:
        self.mark_bare_generators(node)
        if kind == "decorator":
            self.token("@")
            self.maybe_parenthesize(node, None, OPTIONAL)
        elif kind == "entry":
            # One entry of an exploded (magic trailing comma) bracket: the brackets are expanded.
            with self.at_level(PARENTHESIZED):
                self.argument(node)()
                self.token(",")
        elif isinstance(node, ast.Assign):
            self.assign(node)
        elif isinstance(node, ast.AugAssign):
            self.aug_assign(node)
        elif isinstance(node, ast.AnnAssign):
            self.ann_assign(node)
        elif isinstance(node, ast.Return):
            self.token("return")
            value = node.value
            if isinstance(value, ast.Tuple):
                self.space()
                self.tuple_(value, "optional")
            elif value is not None:
                self.space()
                if isinstance(value, ast.Lambda):
                    self.assignment_lambda = value
                self.last_expression(value, node)
        elif isinstance(node, ast.Expr):
            value = node.value
            if isinstance(value, ast.BinOp) and isinstance(
                value.op, (ast.BitOr, ast.BitXor, ast.LShift, ast.RShift, ast.Add, ast.Sub)
            ):
                self.maybe_parenthesize(value, node, OPTIONAL)
            else:
                self.expr(value)
        elif isinstance(node, ast.Assert):
            self.token("assert")
            self.space()
            self.maybe_parenthesize(node.test, node, IF_BREAKS)
            if node.msg is not None:
                self.token(",")
                self.space()
                self.maybe_parenthesize(node.msg, node, IF_BREAKS_PARENTHESIZED)
        elif isinstance(node, ast.Raise):
            self.token("raise")
            if node.exc is not None:
                self.space()
                self.maybe_parenthesize(node.exc, node, OPTIONAL)
            if node.cause is not None:
                self.space()
                self.token("from")
                self.space()
                self.maybe_parenthesize(node.cause, node, OPTIONAL)
        elif kind == "statement" and isinstance(node, ast.stmt) and hasattr(node, "body"):
            raise _Unsupported("compound statement with its body on the same line")
        elif isinstance(node, (ast.If, ast.While)):
            keyword = "elif" if kind == "elif" else "if" if isinstance(node, ast.If) else "while"
            self.token(keyword)
            self.space()
            self.maybe_parenthesize(node.test, node, IF_BREAKS)
            self.token(":")
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            self.for_header(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.function_header(node)
        else:
            raise _Unsupported(type(node).__name__)

    def assign(self, node: ast.Assign) -> None:
        first, rest = node.targets[0], node.targets[1:]
        if isinstance(node.value, ast.Lambda):
            self.assignment_lambda = node.value
        if rest:
            self.expr(first)
            self.equals("=")
            for target in rest[:-1]:
                if self.should_parenthesize_target(target):
                    self.parenthesize_if_expands(lambda target=target: self.expr(target, NEVER))
                else:
                    self.expr(target, NEVER)
                self.equals("=")
            self.right_to_left(rest[-1], "=", node.value, node)
        elif self.has_target_own_parentheses(first) and not self.paren(first):
            self.right_to_left(first, "=", node.value, node)
        else:
            self.expr(first)
            self.equals("=")
            self.last_expression(node.value, node)

    def aug_assign(self, node: ast.AugAssign) -> None:
        operator = _BINARY[type(node.op)][0] + "="
        if isinstance(node.value, ast.Lambda):
            self.assignment_lambda = node.value
        if self.has_target_own_parentheses(node.target) and not self.paren(node.target):
            self.right_to_left(node.target, operator, node.value, node)
        else:
            self.expr(node.target)
            self.equals(operator)
            self.last_expression(node.value, node)

    def ann_assign(self, node: ast.AnnAssign) -> None:
        if isinstance(node.value, ast.Lambda):
            self.assignment_lambda = node.value
        self.expr(node.target)
        self.token(":")
        self.space()
        if node.value is None:
            self.last_expression(node.annotation, node)
        elif self.is_splittable(node.annotation):
            self.right_to_left(node.annotation, "=", node.value, node)
        else:
            self.expr(node.annotation, NEVER)
            self.equals("=")
            self.last_expression(node.value, node)

    def is_splittable(self, node: ast.AST) -> bool:
        """ruff's ``is_splittable_expression``: the expression has split points of its own."""
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return bool(node.elts)
        if isinstance(node, ast.Dict):
            return bool(node.keys)
        if isinstance(node, ast.UnaryOp):
            return self.is_splittable(node.operand)
        if isinstance(node, ast.Call):
            return bool(node.args or node.keywords) or self.paren(node.func)
        if isinstance(node, (ast.Lambda, ast.Starred, ast.Attribute)):
            inner = node.body if isinstance(node, ast.Lambda) else node.value
            return self.paren(inner) or self.is_splittable(inner)
        return isinstance(
            node,
            (ast.Compare, ast.BinOp, ast.BoolOp, ast.IfExp, ast.GeneratorExp, ast.Subscript)
            + (ast.ListComp, ast.SetComp, ast.DictComp, ast.Await, ast.YieldFrom),
        )

    def equals(self, operator: str) -> None:
        self.space()
        self.token(operator)
        self.space()

    def has_target_own_parentheses(self, target: ast.AST) -> bool:
        return isinstance(target, ast.Tuple) or self.has_own_parentheses(target) is not None

    def should_parenthesize_target(self, target: ast.AST) -> bool:
        return not (
            self.has_target_own_parentheses(target)
            or self.attribute_with_parenthesized_value(target)
        )

    def attribute_with_parenthesized_value(self, target: ast.AST) -> bool:
        if isinstance(target, ast.Attribute):
            return self.has_parentheses(
                target.value
            ) is not None or self.attribute_with_parenthesized_value(target.value)
        if isinstance(target, ast.Subscript):
            return True
        if isinstance(target, ast.Call):
            return bool(target.args or target.keywords)
        return False

    def inlines_comments(self, value: ast.AST) -> bool:
        """ruff's ``should_inline_comments``: names and constants (the unsplittable values)."""
        return isinstance(value, (ast.Name, ast.Constant, ast.JoinedStr))

    def last_expression(self, value: ast.AST, statement: ast.AST) -> None:
        """``FormatStatementsLastExpression::LeftToRight``."""
        if self.inlines_comments(value):
            # Parenthesize the value only if that makes it fit.
            self.best_fit_parenthesize(lambda: self.expr(value, NEVER), self.new_id())
        else:
            self.maybe_parenthesize(value, statement, IF_BREAKS)

    def right_to_left(self, target: ast.AST, operator: str, value: ast.AST, statement) -> None:
        """``FormatStatementsLastExpression::RightToLeft``: prefer parenthesizing the value
        over splitting the target."""
        best_fit = (
            isinstance(value, (ast.Attribute, ast.Call, ast.Subscript))
            and self.needs_parentheses(value, statement) == BEST_FIT
        )
        if not self.inlines_comments(value) and not best_fit:
            self.before_operator(target)
            self.equals(operator)
            self.maybe_parenthesize(value, statement, IF_BREAKS)
            return
        last_target, target_elements = self.memoized(lambda: self.before_operator(target))
        if _will_break(target_elements):
            last_target()
            self.equals(operator)
            self.expr(value, NEVER)
            return
        format_value, _ = self.memoized(lambda: self.expr(value, NEVER))

        def single_line() -> None:
            last_target()
            self.equals(operator)
            format_value()

        def flat_target_parenthesize_value() -> None:
            last_target()
            self.equals(operator)
            self.token("(")
            self.group(lambda: self.soft_block_indent(format_value), expand=True)
            self.token(")")

        def split_target_flat_value() -> None:
            self.group(last_target, expand=True)
            self.equals(operator)
            format_value()

        if isinstance(value, (ast.Call, ast.Subscript, ast.Attribute)):

            def value_own_parentheses() -> None:
                last_target()
                self.equals(operator)
                self.group(format_value, expand=True)

            variants = [single_line, value_own_parentheses]
        else:
            variants = [single_line]
        self.best_fitting([*variants, flat_target_parenthesize_value, split_target_flat_value])

    def before_operator(self, target: ast.AST) -> None:
        if self.should_parenthesize_target(target):
            if self.can_omit_optional_parentheses(target):
                self.optional_parentheses(lambda: self.expr(target, NEVER))
            else:
                self.parenthesize_if_expands(lambda: self.expr(target, NEVER))
        else:
            self.expr(target, NEVER)

    def for_header(self, node: ast.For | ast.AsyncFor) -> None:
        if isinstance(node, ast.AsyncFor):
            self.token("async")
            self.space()
        self.token("for")
        self.space()
        if isinstance(node.target, ast.Tuple):
            self.tuple_(node.target, "never_preserve")
        else:
            self.maybe_parenthesize(node.target, node.target, IF_BREAKS)
        self.space()
        self.token("in")
        self.space()
        self.maybe_parenthesize(node.iter, node, IF_BREAKS)
        self.token(":")

    def function_header(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        if node.decorator_list or getattr(node, "type_params", None):
            raise _Unsupported("decorated or generic function")
        if isinstance(node, ast.AsyncFunctionDef):
            self.token("async")
            self.space()
        self.token("def")
        self.space()
        self.token(node.name)

        def inner() -> None:
            self.parameters(node.args)
            returns = node.returns
            if returns is None:
                return
            self.space()
            self.token("->")
            self.space()
            if isinstance(returns, ast.Tuple):
                self.expr(returns, NEVER)
            else:
                mode = IF_BREAKS if _has_parameters(node.args) else IF_BREAKS_PARENTHESIZED
                self.maybe_parenthesize(returns, node, mode)

        self.group(inner)
        self.token(":")


class _CanOmitVisitor:
    """``CanOmitOptionalParenthesesVisitor``: the highest-precedence unparenthesized operator
    (and how often it occurs), and the first and last sub-expressions."""

    def __init__(self, builder: _Expressions):
        self.builder = builder
        self.max_precedence = P_NONE
        self.max_count = 0
        self.any_parenthesized = False
        self.last: ast.AST | None = None
        self.first: ast.AST | str | None = None

    def update(self, precedence: int, count: int = 1) -> None:
        if precedence > self.max_precedence:
            self.max_precedence, self.max_count = precedence, count
        elif precedence == self.max_precedence:
            self.max_count += count

    def visit_expr(self, node: ast.AST) -> None:
        self.last = node
        if self.builder.paren(node):
            self.any_parenthesized = True
        else:
            self.visit_subexpression(node)
        if self.first is None:
            self.first = node

    def visit_subexpression(self, node: ast.AST) -> None:
        builder = self.builder
        if isinstance(node, (ast.Dict, ast.List, ast.Set, ast.ListComp, ast.SetComp, ast.DictComp)):
            self.any_parenthesized = True
            return
        if isinstance(node, ast.Tuple) and builder.tuple_parenthesized(node):
            self.any_parenthesized = True
            return
        if isinstance(node, ast.GeneratorExp) and not getattr(node, "_bare", False):
            self.any_parenthesized = True
            return
        if isinstance(node, ast.BoolOp):
            self.update(P_BOOL, len(node.values) - 1)
        elif isinstance(node, ast.BinOp):
            self.update(_BINARY[type(node.op)][1])
        elif isinstance(node, ast.IfExp):
            self.update(P_CONDITIONAL, 2)
        elif isinstance(node, ast.Compare):
            self.update(P_COMPARE, len(node.ops))
        elif isinstance(node, (ast.Call, ast.Subscript)):
            self.any_parenthesized = True
            self.visit_expr(node.func if isinstance(node, ast.Call) else node.value)
            self.last = node
            return
        elif isinstance(node, ast.Attribute):
            self.visit_expr(node.value)
            if builder.has_parentheses(node.value) is not None:
                self.update(P_ATTRIBUTE)
            self.last = node
            return
        elif isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.Invert):
                self.update(P_INVERT)
            if self.first is None:
                self.first = "token"
        elif isinstance(node, (ast.Lambda, ast.Await, ast.Yield, ast.YieldFrom, ast.Starred)):
            if self.first is None:
                self.first = "token"
        elif isinstance(node, (ast.Constant, ast.Name, ast.JoinedStr, ast.Slice)):
            return
        for child in _children(node):
            self.visit_expr(child)


def _children(node: ast.AST) -> list[ast.AST]:
    """The expression children of ``node`` in source order (ruff's ``walk_expr``)."""
    if isinstance(node, ast.IfExp):
        return [node.body, node.test, node.orelse]
    if isinstance(node, ast.Lambda):
        args = node.args
        defaults = [d for d in [*args.defaults, *args.kw_defaults] if d is not None]
        return [*defaults, node.body]
    if isinstance(node, ast.GeneratorExp):
        children = [node.elt]
        for generator in node.generators:
            children += [generator.target, generator.iter, *generator.ifs]
        return children
    return [child for child in ast.iter_child_nodes(node) if isinstance(child, ast.expr)]


def _has_parameters(args: ast.arguments) -> bool:
    return bool(args.posonlyargs or args.args or args.vararg or args.kwonlyargs or args.kwarg)


def _is_string(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (str, bytes))
    return isinstance(node, ast.JoinedStr)


def _count_strings(text: str) -> int:
    """How many string literals ``text`` (the source of a string expression) consists of."""
    count, index = 0, 0
    while index < len(text):
        char = text[index]
        if char.isspace():
            index += 1
            continue
        while index < len(text) and text[index] not in "\"'":
            index += 1
        quote = (
            text[index : index + 3] if text[index : index + 3] in ('"""', "'''") else text[index]
        )
        index += len(quote)
        while index < len(text) and not text.startswith(quote, index):
            index += 2 if text[index] == "\\" else 1
        index += len(quote)
        count += 1
    return count


def _closing_bracket(text: str) -> int:
    """The index of the bracket closing the one ``text`` starts with (strings are skipped)."""
    depth = 0
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.OP and token.string in "([{":
            depth += 1
        elif token.type == tokenize.OP and token.string in ")]}":
            depth -= 1
            if depth == 0:
                return offsets[token.start[0] - 1] + token.start[1]
    return -1


def _is_base_ten_number(node: ast.AST, text: str) -> bool:
    if not isinstance(node, ast.Constant) or isinstance(node.value, bool):
        return False
    if isinstance(node.value, float):
        return True
    return isinstance(node.value, int) and text[:2].lower() not in ("0x", "0o", "0b")


def _is_simple_power_operand(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp):
        return not isinstance(node.op, ast.Not) and _is_simple_power_operand(node.operand)
    if isinstance(node, ast.Constant):
        return not isinstance(node.value, (str, bytes))
    if isinstance(node, ast.Name):
        return True
    if isinstance(node, ast.Attribute):
        return _is_simple_power_operand(node.value)
    return False


def _is_simple_slice_part(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp) and not isinstance(node.op, ast.Not):
        return _is_simple_slice_part(node.operand)
    return isinstance(node, (ast.Constant, ast.Name))
