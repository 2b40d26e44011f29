"""The translator's public API: parse a file into the IR, translate between DSLs."""

from __future__ import annotations

import dataclasses
import io
import tokenize
from pathlib import Path
from typing import TYPE_CHECKING

from translator.diagnostics import TranslationError
from translator.dialects import detect, dialects, get_dialect, source_dialects
from translator.ir.loc import Loc
from translator.limits import caused_by_recursion, check_limits, deepest_statement, too_deep

if TYPE_CHECKING:
    from translator.ir.nodes import Module


class DialectMismatch(TranslationError):
    """``--from`` names a DSL the file does not import, while it imports another one."""

    def __init__(self, message: str, loc: Loc, hint: str, detected: str) -> None:
        super().__init__(message, loc, hint)
        self.detected = detected


def decode_source(data: bytes, path: str) -> str:
    """The text of a Python file's bytes, in the encoding its ``# coding:`` line declares (PEP 263;
    UTF-8 by default)."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as err:
        raise TranslationError(
            f"cannot read {path}: {err.msg}",
            Loc(path, err.lineno or 1, 0),
            "declare a known encoding",
        ) from None
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as err:
        line = data[: getattr(err, "start", 0)].count(b"\n") + 1
        raise TranslationError(
            f"cannot read {path}: not valid {encoding}",
            Loc(path, line, 0),
            "save the file as UTF-8 or declare its encoding with a `# coding: NAME` line",
        ) from None
    return text[1:] if text.startswith("\ufeff") else text


def check_dialect(source: str, path: str, dsl: str) -> None:
    """Refuse a file that imports another DSL and not ``dsl`` (an explicit ``--from``)."""
    table = dialects()
    if dsl not in table or table[dsl].detect(source) > 0:
        return
    scores = {n: table[n].detect(source) for n in source_dialects() if n != dsl}
    best = max(scores.values(), default=0)
    found = [n for n, s in scores.items() if s == best and s > 0]
    if len(found) == 1:
        other = found[0]
        raise DialectMismatch(
            f"{path} looks like {other} (it imports {other}, not {dsl}), but it was read as {dsl}",
            Loc(path, 1, 0),
            f"translate it from {other}: --from {other}, or `tiletrans {other}2<target>`",
            other,
        )


#: The IR of the last few sources read (key: text, path, DSL asked for, the dialect table),
#: most recent last: translating one file into several DSLs reads it once. The IR is immutable
#: (frozen dataclasses of tuples); a refusal is not kept (it is raised again each time).
_READ: dict[tuple, Module] = {}
_READ_KEEP = 4


def parse_source(source: str, path: str, dsl: str | None = None) -> Module:
    """The IR of ``source`` (text of a ``dsl`` file called ``path``; ``None``: detected)."""
    key = (source, path, dsl, tuple(map(id, dialects().values())))
    module = _READ.pop(key, None)
    if module is None:
        module = _parse_source(source, path, dsl)
    _READ[key] = module
    while len(_READ) > _READ_KEEP:
        del _READ[next(iter(_READ))]
    return module


def _parse_source(source: str, path: str, dsl: str | None) -> Module:
    check_limits(source, path)
    if dsl is not None:
        get_dialect(dsl)
        check_dialect(source, path, dsl)
    dialect = get_dialect(dsl or detect(source, path))
    if dialect.frontend is None:
        raise TranslationError(f"tiletrans cannot read {dialect.name} yet", Loc(path, 1, 0))
    try:
        module = dialect.parse(source, path)
    except Exception as err:
        from translator.ir.shapes import IRTypeError  # only on this path: not at start-up

        if isinstance(err, TranslationError):
            if err.loc is None and err.node is not None:
                err.loc = _locate_node(err.node, source, path)
            if err.loc is None:
                # Never an unlocated refusal: the file, where nothing nearer is known.
                err.loc = Loc(path, 1, 0)
            raise
        if isinstance(err, IRTypeError):
            # A frontend let an ill-typed kernel through (a name used, never defined): the
            # kernel's fault, where the type check stopped, as the Helion frontend says it.
            raise TranslationError(
                f"kernel does not type-check: {err}",
                err.loc or Loc(path, 1, 0),
                "define every name a kernel reads before reading it",
            ) from None
        # Within the limits, a mix of constructs can still exhaust the recursion limit; libcst
        # may then raise something else while handling the RecursionError (a KeyError).
        if not caused_by_recursion(err):
            raise
        raise too_deep(deepest_statement(source, path)) from None
    if not module.source_hash:
        import hashlib

        module = dataclasses.replace(
            module, source_hash=hashlib.sha256(source.encode()).hexdigest()
        )
    return module


def _locate_node(node: object, source: str, path: str) -> Loc | None:
    """Where ``node`` (a syntax node a refusal carries) stands in ``source``: through the parse
    every frontend shares, else (a node of a rewritten copy) where its text first occurs."""
    import libcst as cst

    from translator.dialects.cst_utils import Locator, parsed, source_of

    if not isinstance(node, cst.CSTNode):
        return None
    try:
        loc = Locator(parsed(source), path)(node)
    except (cst.ParserSyntaxError, KeyError):
        loc = None
    if loc is not None:
        return loc
    at = source.find(source_of(node))
    if at < 0:
        return None
    line = source.count("\n", 0, at) + 1
    return Loc(path, line, at - (source.rfind("\n", 0, at) + 1))


def read_source(path: str | Path) -> str:
    """The text of the file at ``path`` (never imported)."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except IsADirectoryError:
        raise TranslationError(
            f"cannot read {p}: it is a directory", Loc(str(p), 1, 0), "pass a .py file"
        ) from None
    except FileNotFoundError:
        raise TranslationError(
            f"cannot read {p}: no such file", Loc(str(p), 1, 0), "check the path"
        ) from None
    except OSError as err:
        raise TranslationError(f"cannot read {p}: {err.strerror}", Loc(str(p), 1, 0)) from None
    return decode_source(data, str(p))


def parse_file(path: str | Path, dsl: str | None = None) -> Module:
    """The IR of the ``dsl`` file at ``path`` (``None``: detected from its imports)."""
    return parse_source(read_source(path), str(path), dsl)


def emit(module: Module, dst: str) -> str:
    """``module`` written in ``dst``."""
    dialect = get_dialect(dst)
    if dialect.backend is None:
        raise TranslationError(f"tiletrans cannot write {dst} yet", None)
    try:
        return dialect.make_backend().emit(module)
    except Exception as err:
        if not caused_by_recursion(err):
            raise
        # No source text here to find the deepest statement in: the caller that has it
        # (translator.cli.translate_one) locates an unlocated too-deep refusal.
        raise too_deep(None) from None


def translate_source(
    source: str,
    path: str,
    src: str | None,
    dst: str,
    *,
    output: str | None = None,
    header_path: str | None = None,
) -> str:
    """``source`` written in ``src`` (``None``: detected), translated to ``dst``.

    The provenance header names ``header_path`` (default ``path``) and a re-run command that
    writes ``output`` when given.
    """
    get_dialect(dst)
    module = parse_source(source, path, src)
    text = emit(module, dst)
    if output is not None or header_path is not None:
        from translator.provenance import restamp

        text = restamp(text, header_path or path, output, module.source_dialect, dst)
    return text


def translate_file(
    path: str | Path, src: str | None, dst: str, *, output: str | None = None
) -> str:
    """The file at ``path`` translated from ``src`` (``None``: detected) to ``dst``."""
    return translate_source(read_source(path), str(path), src, dst, output=output)
