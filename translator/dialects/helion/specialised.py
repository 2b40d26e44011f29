"""Helion epilogues, locations: the text a specialisation rewrote, and per line of it the source
line it came from, so that diagnostics and IR locations raised on the rewritten text point into
the file the user wrote.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field

from translator.diagnostics import TranslationError
from translator.ir.loc import Loc


@dataclass
class Specialised:
    """The rewritten module text and, per rewritten line (0-based), its source line (1-based)."""

    text: str
    source_line: list[int]
    kernel_notes: dict[str, str] = field(default_factory=dict)  # kernel name -> note
    specialisations: set[str] = field(default_factory=set)  # the kernel functions added

    def loc(self, loc: Loc | None, original: list[str], rewritten: list[str]) -> Loc | None:
        """``loc`` (in the rewritten text) as a position in the source the user wrote."""
        if loc is None or not 1 <= loc.line <= len(self.source_line):
            return loc
        line = self.source_line[loc.line - 1]
        new = rewritten[loc.line - 1]
        old = original[line - 1] if line <= len(original) else ""
        if new.strip() != old.strip() or not new.strip():
            return Loc(loc.file, line, 0)
        # The same code, indented as the source has it (a folded branch is dedented).
        shift = (len(old) - len(old.lstrip())) - (len(new) - len(new.lstrip()))
        return Loc(loc.file, line, max(loc.col + shift, 0))


_LINE = re.compile(r"\bline (\d+)\b")


def relocate(error: TranslationError, spec: Specialised, source: str) -> TranslationError:
    """``error`` (raised on the rewritten text) located in ``source``, and the lines its
    message names (``bound under `if p:` (line 40)``) too."""
    error.loc = spec.loc(error.loc, source.splitlines(), spec.text.splitlines())

    def line(match: re.Match[str]) -> str:
        n = int(match.group(1))
        return f"line {spec.source_line[n - 1]}" if 1 <= n <= len(spec.source_line) else match[0]

    error.message = _LINE.sub(line, error.message)
    if error.hint is not None:
        error.hint = _LINE.sub(line, error.hint)
    return error


def relocate_tree(obj: object, spec: Specialised, source: str) -> object:
    """``obj`` (an IR value) with every :class:`Loc` in it moved into ``source``."""
    original, rewritten = source.splitlines(), spec.text.splitlines()
    memo: dict[int, object] = {}

    def walk(value: object) -> object:
        if isinstance(value, Loc):
            return spec.loc(value, original, rewritten)
        if id(value) in memo:
            return memo[id(value)]
        out = value
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            changes = {}
            for f in dataclasses.fields(value):
                old = getattr(value, f.name)
                new = walk(old)
                if new is not old:
                    changes[f.name] = new
            if changes:
                out = dataclasses.replace(value, **changes)  # type: ignore[type-var]
        elif isinstance(value, tuple):
            items = tuple(walk(v) for v in value)
            if any(a is not b for a, b in zip(items, value)):
                out = items
        memo[id(value)] = out
        return out

    return walk(obj)


def line_map(source: str, text: str) -> list[int]:
    """For each line of ``text`` (a rewrite of ``source``), the source line it came from: the
    same line where the two agree, else the nearest earlier identical source line (a copied
    kernel line), else the first source line of the changed region."""
    old, new = source.splitlines(), text.splitlines()
    out = [1] * len(new)
    import difflib  # here: most translations never get here (~5 ms of start-up)

    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        next_i = i1
        for j in range(j1, j2):
            if tag == "equal":
                out[j] = i1 + (j - j1) + 1
                continue
            # The same code reindented in the changed region (a folded branch), in order.
            moved = [
                i for i in range(next_i, i2) if old[i].strip() == new[j].strip() and new[j].strip()
            ]
            if moved:
                out[j] = moved[0] + 1
                next_i = moved[0] + 1
                continue
            same = [i for i, line in enumerate(old) if line == new[j] and line.strip()]
            before = [i for i in same if i < i1]
            out[j] = (before[-1] if before else same[0] if same else min(i1, len(old) - 1)) + 1
    return out
