"""The translator's public API: parse a file into the IR, translate between DSLs."""

from __future__ import annotations

from pathlib import Path

from translator.diagnostics import TranslationError
from translator.dialects import backends, frontends
from translator.ir.nodes import Loc, Module


def parse_source(source: str, path: str, dsl: str) -> Module:
    """The IR of ``source`` (text of a ``dsl`` file called ``path``)."""
    parsers = frontends()
    if dsl not in parsers:
        raise TranslationError(
            f"no frontend for {dsl!r} yet", None, f"supported sources: {', '.join(sorted(parsers))}"
        )
    return parsers[dsl](source, path)


def parse_file(path: str | Path, dsl: str) -> Module:
    """The IR of the ``dsl`` file at ``path`` (read as text; never imported)."""
    p = Path(path)
    try:
        source = p.read_text()
    except OSError as err:
        raise TranslationError(f"cannot read {p}: {err.strerror}", Loc(str(p), 1, 0)) from None
    return parse_source(source, str(path), dsl)


def translate_source(source: str, path: str, src: str, dst: str) -> str:
    """``source`` written in ``src``, translated to ``dst``."""
    emitters = backends()
    if dst not in emitters:
        raise TranslationError(
            f"no backend for {dst!r} yet", None, f"supported targets: {', '.join(sorted(emitters))}"
        )
    return emitters[dst](parse_source(source, path, src))


def translate_file(path: str | Path, src: str, dst: str) -> str:
    """The file at ``path`` translated from ``src`` to ``dst``."""
    emitters = backends()
    if dst not in emitters:
        raise TranslationError(
            f"no backend for {dst!r} yet", None, f"supported targets: {', '.join(sorted(emitters))}"
        )
    return emitters[dst](parse_file(path, src))
