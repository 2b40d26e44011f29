"""The parsed line's source and the token-level facts read from it (:class:`_Source`), and
the builders that write format elements, with ruff's parenthesizing helpers
(:class:`_Builder`); :class:`_Unsupported` rejects a line this package does not format."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from translator.dialects.common.formatting.document import (
    EXPAND_PARENT,
    EXPANDED,
    FIRST_LINE,
    FLAT,
    HARD,
    SOFT,
    SOFT_OR_SPACE,
    SPACE,
    Condition,
    Element,
    _FitsExpandedTag,
    _GroupTag,
    _text,
)
from translator.dialects.common.formatting.predicates import _closing_bracket


class _Unsupported(Exception):
    """The line uses a construct this package does not format; it is kept as it is."""


# ---------------------------------------------------------------------------------------------
# Building the document from the AST (ruff_python_formatter, for the node types used here).
# ---------------------------------------------------------------------------------------------
# Node levels: not parenthesized (``None``), inside optional parentheses (their group id), or
# inside real parentheses.
PARENTHESIZED = "parenthesized"


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
