"""Source locations (a module of its own so that diagnostics import no IR)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Loc:
    """A position in a source file (1-based line, 0-based column, as libcst reports them)."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col + 1}"


__all__ = ["Loc"]
