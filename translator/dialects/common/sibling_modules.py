"""Modules an input file imports from, found on disk beside it and read (never imported).

Translation reads one file, but a library being migrated keeps its small helpers in sibling
modules (``from .utils import triton_tanh``, ``from ..utils import libentry``, FlagGems'
``import flag_gems.utils.triton_lang_extension as tle``). Where the imported module's source is on
disk relative to the input file (or under a library root named by ``TILETRANS_LIBRARY_ROOT``,
``os.pathsep``-separated), a frontend may read it to take what it defines statically: a helper's
definition, a decorator alias. Where it is not, the places looked in make the diagnostic.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst

from translator.dialects.cst_utils import dotted

#: The environment variable that names library roots to look for absolute imports under.
LIBRARY_ROOT_ENV = "TILETRANS_LIBRARY_ROOT"


@dataclass(frozen=True)
class ImportedName:
    """``from <module> import <name> as <local>``: ``level`` leading dots (0: absolute)."""

    local: str
    module: str
    level: int
    name: str

    @property
    def spelled(self) -> str:
        """The module as the import spells it (``.utils``, ``flag_gems.utils``)."""
        return "." * self.level + self.module


def imported_names(module: cst.Module) -> dict[str, ImportedName]:
    """Each name a module-level ``from ... import ...`` binds (under a version-guard ``if`` or
    ``try`` too), the first binding winning."""
    out: dict[str, ImportedName] = {}

    def scan(stmts: Sequence[cst.BaseStatement]) -> None:
        for stmt in stmts:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.ImportFrom) and not isinstance(
                        small.names, cst.ImportStar
                    ):
                        base = dotted(small.module) if small.module is not None else ""
                        level = len(small.relative)
                        for alias in small.names:
                            if not isinstance(alias.name, cst.Name):
                                continue
                            local = (
                                alias.asname.name.value  # type: ignore[union-attr]
                                if alias.asname is not None
                                else alias.name.value
                            )
                            out.setdefault(
                                local, ImportedName(local, base or "", level, alias.name.value)
                            )
            elif isinstance(stmt, (cst.If, cst.Try)):
                scan(stmt.body.body)  # type: ignore[union-attr]

    scan(module.body)
    return out


def library_roots() -> list[str]:
    """The library roots ``TILETRANS_LIBRARY_ROOT`` names."""
    return [p for p in os.environ.get(LIBRARY_ROOT_ENV, "").split(os.pathsep) if p]


def module_candidates(path: str, module: str, level: int) -> list[str]:
    """The files that could hold ``module`` imported from the file at ``path``: for a relative
    import, beside it (``level`` 1) or above; for an absolute one, under each directory above
    it (the library's root is one of them when the file sits in its package) and each library
    root."""
    parts = [p for p in module.split(".") if p]
    here = os.path.dirname(os.path.abspath(path))
    if level > 0:
        bases = [here]
        for _ in range(level - 1):
            bases = [os.path.dirname(bases[0])]
    else:
        bases = []
        d = here
        while True:
            bases.append(d)
            parent = os.path.dirname(d)
            if parent == d:
                break
            d = parent
        bases += [os.path.abspath(r) for r in library_roots()]
    out = []
    for base in bases:
        stem = os.path.join(base, *parts) if parts else base
        out += (
            [stem + ".py", os.path.join(stem, "__init__.py")]
            if parts
            else [os.path.join(stem, "__init__.py")]
        )
    return out


@functools.lru_cache(maxsize=64)
def _read(path: str, mtime: float) -> cst.Module | None:
    try:
        with open(path, encoding="utf-8") as f:
            return cst.parse_module(f.read())
    except (OSError, UnicodeDecodeError, cst.ParserSyntaxError):
        return None


def find_module(path: str, module: str, level: int) -> tuple[str | None, cst.Module | None]:
    """The first candidate file of ``module`` (:func:`module_candidates`) that exists, parsed
    (``None`` where it does not parse), or ``(None, None)``."""
    for candidate in module_candidates(path, module, level):
        if os.path.isfile(candidate):
            return candidate, _read(candidate, os.path.getmtime(candidate))
    return None, None


def looked_in(path: str, module: str, level: int) -> str:
    """Where :func:`find_module` looked, for a diagnostic: the first candidates, shortened."""
    found = module_candidates(path, module, level)
    shown = [os.path.relpath(c) if not c.startswith("..") else c for c in found[:2]]
    more = f" and {len(found) - 2} more places above it" if len(found) > 2 else ""
    return ", ".join(shown) + more
