"""The translator's public API: parse a file into the IR, translate between DSLs."""

from __future__ import annotations

from pathlib import Path

from translator.diagnostics import TranslationError
from translator.dialects import detect, get_dialect
from translator.ir.nodes import Loc, Module


def parse_source(source: str, path: str, dsl: str | None = None) -> Module:
    """The IR of ``source`` (text of a ``dsl`` file called ``path``; ``None``: detected)."""
    dialect = get_dialect(dsl or detect(source, path))
    if dialect.frontend is None:
        raise TranslationError(f"tiletrans cannot read {dialect.name} yet", Loc(path, 1, 0))
    return dialect.parse(source, path)


def read_source(path: str | Path) -> str:
    """The text of the file at ``path`` (never imported)."""
    p = Path(path)
    try:
        return p.read_text()
    except OSError as err:
        raise TranslationError(f"cannot read {p}: {err.strerror}", Loc(str(p), 1, 0)) from None


def parse_file(path: str | Path, dsl: str | None = None) -> Module:
    """The IR of the ``dsl`` file at ``path`` (``None``: detected from its imports)."""
    return parse_source(read_source(path), str(path), dsl)


def emit(module: Module, dst: str) -> str:
    """``module`` written in ``dst``."""
    dialect = get_dialect(dst)
    if dialect.backend is None:
        raise TranslationError(f"tiletrans cannot write {dst} yet", None)
    return dialect.make_backend().emit(module)


def translate_source(source: str, path: str, src: str | None, dst: str) -> str:
    """``source`` written in ``src`` (``None``: detected), translated to ``dst``."""
    get_dialect(dst)
    return emit(parse_source(source, path, src), dst)


def translate_file(path: str | Path, src: str | None, dst: str) -> str:
    """The file at ``path`` translated from ``src`` (``None``: detected) to ``dst``."""
    return translate_source(read_source(path), str(path), src, dst)
