"""Diagnostics: what the translator refuses, where, and what to write instead."""

from __future__ import annotations

import re
from dataclasses import dataclass

from translator.ir.loc import Loc


class TranslationError(Exception):
    """A construct the translator refuses, with its location and a suggested rewrite.

    The CLI renders it as ``file:line:col: error: message``, the source line with a caret and
    ``help: hint``, and exits with code 2.

    A helper that sees a syntax node but not the file's positions (``call_args``) passes the
    ``node`` instead of a ``loc``; whoever reads the file locates it
    (:func:`translator.api.parse_source`), so no refusal reaches the user without a line.
    """

    def __init__(
        self,
        message: str,
        loc: Loc | None = None,
        hint: str | None = None,
        *,
        node: object | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.loc = loc
        self.hint = hint
        self.node = node


@dataclass(frozen=True)
class Rendered:
    """A diagnostic as plain text lines."""

    lines: tuple[str, ...]

    def __str__(self) -> str:
        return "\n".join(self.lines)


#: The most characters of a source line a diagnostic echoes. A longer line (minified code, a
#: generated 500-term sum: thousands of characters) is shown as this many around the column.
EXCERPT = 100
#: The most characters of code a message quotes between backticks before eliding its middle.
QUOTE = 80
ELLIPSIS = "…"

_QUOTED = re.compile(r"`([^`\n]+)`")


def excerpt(text: str, col: int, width: int = EXCERPT) -> tuple[str, int]:
    """``(shown, caret)``: ``text`` (a source line) cut to ``width`` characters around column
    ``col`` (0-based), an ellipsis marking each cut end, and where ``col`` lands in ``shown``.
    A line that fits is shown whole."""
    col = min(max(col, 0), len(text))
    if len(text) <= width:
        return text, col
    # The caret a little left of the middle: what leads up to the construct explains it more
    # often than what follows. The ellipses count in the width.
    inner = width - 2
    start = max(0, min(col - inner * 2 // 5, len(text) - inner))
    if start == 0:
        inner += 1  # no ellipsis on the left
    elif start + inner >= len(text) - 1:
        start, inner = len(text) - inner - 1, inner + 1  # none on the right
    end = start + inner
    left = ELLIPSIS if start > 0 else ""
    right = ELLIPSIS if end < len(text) else ""
    return left + text[start:end] + right, len(left) + col - start


def shorten(message: str, limit: int = QUOTE) -> str:
    """``message`` with every code quote (between backticks) longer than ``limit`` characters cut
    to its start and end around an ellipsis (a refusal quoting a whole 500-term expression)."""

    def cut(m: re.Match[str]) -> str:
        code = m.group(1)
        if len(code) <= limit:
            return m.group(0)
        tail = limit // 4
        head, end = code[: limit - tail - 3], code[-tail:]
        # At a space near the cut where there is one, so that no token is split in two.
        if " " in head[-tail // 2 :]:
            head = head.rsplit(" ", 1)[0]
        if " " in end[: tail // 2]:
            end = end.split(" ", 1)[1]
        return f"`{head.rstrip()} {ELLIPSIS} {end.lstrip()}`"

    return _QUOTED.sub(cut, message)


def render(error: TranslationError, source: str | None) -> Rendered:
    """Format ``error`` against the source text (which may be ``None`` when unavailable): the
    location and message, the source line with a caret under the column (cut around the column
    when longer than :data:`EXCERPT`), and the hint. Code quoted in the message and the hint is
    :func:`shorten`-ed."""
    where = str(error.loc) if error.loc else "<input>"
    lines = [f"{where}: error: {shorten(error.message)}"]
    if error.loc and source is not None:
        src_lines = source.splitlines()
        if 1 <= error.loc.line <= len(src_lines):
            text, caret = excerpt(src_lines[error.loc.line - 1], error.loc.col)
            gutter = f"{error.loc.line:>5} | "
            lines.append(gutter + text)
            lines.append(" " * (len(gutter) + caret) + "^")
    if error.hint:
        lines.append(f"help: {shorten(error.hint)}")
    return Rendered(tuple(lines))
