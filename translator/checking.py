"""``tiletrans check``: are generated translations still what their sources give?

A translation's provenance header (:mod:`translator.provenance`) names its source (a relative path)
and the sha256 of the source's text. ``check`` re-hashes the source: a different hash means the
source changed since the translation was generated (stale, exit 1); ``--fix`` regenerates it with
the header's command; ``--validate`` also runs the pair on the CPU and compares (exit 1 on a
difference). Files without a tiletrans header are skipped, so the hook can be given any file, and
so are files migrated in place (``migrate --write``: their source is gone).

``-`` reads a generated file's text from stdin (an editor's buffer), ``--stdin-filename`` naming
where it lives: messages name that path, and the source is looked for relative to it. With
``--fix`` the fresh translation (or the text as it came, when up to date) goes to stdout, as
``ruff check --fix -`` prints the fixed file.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from translator.cli import (
    EXIT_DIFFERENT,
    EXIT_OK,
    EXIT_REFUSED,
    Diagnostic,
    Reporter,
    UsageError,
    exit_code,
    from_error,
    python_files,
    read_input,
    translate_one,
    worst,
    write_output,
)

if TYPE_CHECKING:
    import argparse

    from translator.provenance import Provenance


def project_root(path: str) -> str | None:
    """The nearest folder above ``path`` holding ``.git`` or ``pyproject.toml``."""
    folder = os.path.dirname(os.path.abspath(path))
    while True:
        if any(os.path.exists(os.path.join(folder, m)) for m in (".git", "pyproject.toml")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def locate_source(generated: str, prov: Provenance) -> str | None:
    """Where the source a header names is: relative to the current folder, to the generated
    file's project root, or to the generated file's folder (the first that exists)."""
    candidates = [prov.source]
    root = project_root(generated)
    if root is not None:
        candidates.append(os.path.join(root, prov.source))
    candidates.append(os.path.join(os.path.dirname(generated), prov.source))
    for candidate in candidates:
        if os.path.isfile(candidate):
            return os.path.relpath(candidate) if not os.path.isabs(prov.source) else candidate
    return None


def check_file(path: str, args: argparse.Namespace, rep: Reporter) -> int:
    """Check one file (``-``: stdin, named by ``--stdin-filename``); the exit code it asks
    for."""
    from translator.api import read_source
    from translator.diagnostics import TranslationError
    from translator.provenance import read_header, source_hash

    stdin = path == "-"
    try:
        text, name = read_input(path, getattr(args, "stdin_filename", None))
    except TranslationError as err:
        rep.report(from_error(err, path))
        return EXIT_REFUSED
    if stdin:
        # Messages (and where the source is looked for) use the name the buffer was given.
        path = name

    def echo() -> None:
        # `--fix -` prints the file whatever became of it, so that an editor's buffer is
        # never replaced by nothing.
        if stdin and args.fix:
            _stdout(text)

    prov = read_header(text)
    if prov is None:
        rep.detail(f"{path}: not a tiletrans translation, skipped")
        echo()
        return EXIT_OK
    if prov.in_place:
        rep.detail(f"{path}: migrated in place from {prov.src}: no source to check it against")
        echo()
        return EXIT_OK
    source = locate_source(path, prov)
    if source is None:
        rep.report(
            Diagnostic(
                path,
                1,
                1,
                "missing-source",
                f"the source this file was generated from, {prov.source}, does not exist",
                "restore the source, or delete the translation",
            )
        )
        echo()
        return EXIT_DIFFERENT
    try:
        current = source_hash(read_source(source))
    except TranslationError as err:
        rep.report(from_error(err, source))
        echo()
        return EXIT_REFUSED
    if current != prov.digest:
        if args.fix:
            return regenerate(path, source, prov, rep, stdin=stdin, text=text)
        rep.report(
            Diagnostic(
                path,
                1,
                1,
                "stale",
                f"stale: {prov.source} changed since this translation was generated "
                f"(sha256 {current}, header says {prov.digest})",
                f"regenerate it: tiletrans check --fix {_fix_args(path, stdin)}",
            )
        )
        return EXIT_DIFFERENT
    rep.detail(f"{path}: up to date with {prov.source}")
    echo()
    if args.validate:
        if stdin:
            return _validate_text(source, path, text, prov, rep)
        return validate_pair(source, path, prov, rep)
    return EXIT_OK


def _fix_args(path: str, stdin: bool) -> str:
    """How ``check --fix`` is told about ``path`` (a file read from stdin is given again)."""
    import shlex

    if not stdin:
        return shlex.quote(path)
    named = "" if path.startswith("<") else f" --stdin-filename {shlex.quote(path)}"
    return f"-{named} (with the file on stdin; the fixed file is printed)"


def _stdout(text: str) -> None:
    import sys

    sys.stdout.write(text)
    sys.stdout.flush()


def regenerate(
    path: str,
    source: str,
    prov: Provenance,
    rep: Reporter,
    *,
    stdin: bool = False,
    text: str | None = None,
) -> int:
    """Translate ``source`` again into ``path`` (the header's DSL pair); ``stdin``: print it
    instead (``text``, the stale file as read, when it cannot be regenerated)."""
    from translator.dialects import source_dialects, target_dialects

    bad = None
    if prov.dst is None:
        bad = "the header's re-run command names no target DSL"
    elif prov.dst not in target_dialects() or (
        prov.src is not None and prov.src not in source_dialects()
    ):
        bad = f"the header's re-run command names an unknown DSL pair ({prov.src} to {prov.dst})"
    if bad is not None:
        # Located at the file checked, not at its source: it is the header that is wrong.
        rep.report(
            Diagnostic(
                path,
                1,
                1,
                "bad-header",
                bad,
                f"translate {prov.source} again with `tiletrans translate {prov.source} --to DSL "
                f"-o {path}`",
            )
        )
        if stdin and text is not None:
            _stdout(text)
        return EXIT_REFUSED
    outcome = translate_one(source, prov.src, prov.dst, output=path)
    if outcome.diagnostic is not None:
        rep.report(outcome.diagnostic)
    if outcome.text is None:
        if stdin and text is not None:
            _stdout(text)
        return exit_code(outcome)
    if stdin:
        _stdout(outcome.text)
        rep.note(f"regenerated {path} from {source} (on stdout)")
        return EXIT_OK
    code = write_output(path, outcome.text, rep)
    if code == EXIT_OK:
        rep.note(f"regenerated {path} from {source}")
    return code


def _validate_text(source: str, name: str, text: str, prov: Provenance, rep: Reporter) -> int:
    """:func:`validate_pair` for a translation read from stdin: validation imports it, so it
    goes to a temporary file first (under its own name, which messages use)."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="tiletrans-check-") as tmp:
        path = os.path.join(tmp, os.path.basename(name) or "stdin.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        code = validate_pair(source, path, prov, rep, shown=name)
    return code


def validate_pair(
    source: str, path: str, prov: Provenance, rep: Reporter, shown: str | None = None
) -> int:
    """Run ``source`` and its translation ``path`` on the CPU and compare (``shown``: the
    name messages give the translation, when not ``path``)."""
    from translator.diagnostics import TranslationError
    from validation.equivalence import check_pair, prepare_runtimes

    prepare_runtimes("cpu")
    try:
        report = check_pair(source, path, src_dsl=prov.src, device="cpu", seeds=(0,))
    except TranslationError as err:
        rep.report(from_error(err, source))
        return EXIT_REFUSED
    name = shown or path
    if report.passed:
        rep.detail(f"{name}: equivalent to {source}")
        return EXIT_OK
    failed = report.failures()
    what = "; ".join(f"{r.entry} {r.dtype}: rel. error {r.error:.3g}" for r in failed[:3])
    rep.report(
        Diagnostic(
            name,
            1,
            1,
            "different",
            f"no longer computes what {prov.source} computes ({what})",
            f"regenerate it (tiletrans check --fix {name}) or compare with tiletrans validate",
        )
    )
    return EXIT_DIFFERENT


def check_paths(args: argparse.Namespace, rep: Reporter) -> int:
    """``tiletrans check PATH...``."""
    if args.paths.count("-") > 1:
        raise UsageError("`-` (stdin) may be given once")
    if args.fix and "-" in args.paths and len(args.paths) > 1:
        # stdout carries the fixed stdin file; other files' fixes would have nowhere to go
        # that a reader of stdout could tell apart from it.
        raise UsageError("check --fix reads `-` (stdin) alone: give no other path with it")
    rep.code_on_stdout = args.fix and "-" in args.paths
    codes = [check_file(f, args, rep) for f, _ in python_files(args.paths)]
    stale = codes.count(EXIT_DIFFERENT)
    if stale:
        rep.note(f"{stale} of {len(codes)} file(s) stale or different")
    return worst(codes)


__all__ = ["check_file", "check_paths", "locate_source", "project_root"]
