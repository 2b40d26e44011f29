"""Diagnostics: what the translator refuses, where, and what to write instead."""

from __future__ import annotations

from dataclasses import dataclass

from translator.ir.loc import Loc


class TranslationError(Exception):
    """A construct the translator refuses, with its location and a suggested rewrite.

    The CLI renders it as ``file:line:col: error: message``, the source line with a caret and
    ``help: hint``, and exits with code 2.
    """

    def __init__(self, message: str, loc: Loc | None = None, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.loc = loc
        self.hint = hint


@dataclass(frozen=True)
class Rendered:
    """A diagnostic as plain text lines."""

    lines: tuple[str, ...]

    def __str__(self) -> str:
        return "\n".join(self.lines)


def render(error: TranslationError, source: str | None) -> Rendered:
    """Format ``error`` against the source text (which may be ``None`` when unavailable)."""
    where = str(error.loc) if error.loc else "<input>"
    lines = [f"{where}: error: {error.message}"]
    if error.loc and source is not None:
        src_lines = source.splitlines()
        if 1 <= error.loc.line <= len(src_lines):
            text = src_lines[error.loc.line - 1]
            gutter = f"{error.loc.line:>5} | "
            lines.append(gutter + text)
            lines.append(" " * (len(gutter) + error.loc.col) + "^")
    if error.hint:
        lines.append(f"help: {error.hint}")
    return Rendered(tuple(lines))
