"""``tiletrans check``: are generated translations still what their sources give?

A translation's provenance header (:mod:`translator.provenance`) names its source (a relative path)
and the sha256 of the source's text. ``check`` re-hashes the source: a different hash means the
source changed since the translation was generated (stale, exit 1); ``--fix`` regenerates it with
the header's command; ``--validate`` also runs the pair on the CPU and compares (exit 1 on a
difference). Files without a tiletrans header are skipped, so the hook can be given any file.
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
    exit_code,
    from_error,
    python_files,
    translate_one,
    worst,
    write_atomic,
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
    """Check one file; the exit code it asks for."""
    from translator.api import read_source
    from translator.diagnostics import TranslationError
    from translator.provenance import read_header, source_hash

    try:
        text = read_source(path)
    except TranslationError as err:
        rep.report(from_error(err, path))
        return EXIT_REFUSED
    prov = read_header(text)
    if prov is None:
        rep.detail(f"{path}: not a tiletrans translation, skipped")
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
        return EXIT_DIFFERENT
    try:
        current = source_hash(read_source(source))
    except TranslationError as err:
        rep.report(from_error(err, source))
        return EXIT_REFUSED
    if current != prov.digest:
        if args.fix:
            return regenerate(path, source, prov, rep)
        rep.report(
            Diagnostic(
                path,
                1,
                1,
                "stale",
                f"stale: {prov.source} changed since this translation was generated "
                f"(sha256 {current}, header says {prov.digest})",
                f"regenerate it: tiletrans check --fix {path}",
            )
        )
        return EXIT_DIFFERENT
    rep.detail(f"{path}: up to date with {prov.source}")
    if args.validate:
        return validate_pair(source, path, prov, rep)
    return EXIT_OK


def regenerate(path: str, source: str, prov: Provenance, rep: Reporter) -> int:
    """Translate ``source`` again into ``path`` (the header's DSL pair)."""
    if prov.dst is None:
        rep.report(
            Diagnostic(path, 1, 1, "bad-header", "the header names no target DSL", "regenerate it")
        )
        return EXIT_REFUSED
    outcome = translate_one(source, prov.src, prov.dst, output=path)
    if outcome.diagnostic is not None:
        rep.report(outcome.diagnostic)
    if outcome.text is None:
        return exit_code(outcome)
    write_atomic(path, outcome.text)
    rep.note(f"regenerated {path} from {source}")
    return EXIT_OK


def validate_pair(source: str, path: str, prov: Provenance, rep: Reporter) -> int:
    """Run ``source`` and its translation ``path`` on the CPU and compare."""
    from translator.diagnostics import TranslationError
    from validation.equivalence import check_pair, prepare_runtimes

    prepare_runtimes("cpu")
    try:
        report = check_pair(source, path, src_dsl=prov.src, device="cpu", seeds=(0,))
    except TranslationError as err:
        rep.report(from_error(err, source))
        return EXIT_REFUSED
    if report.passed:
        rep.detail(f"{path}: equivalent to {source}")
        return EXIT_OK
    failed = report.failures()
    what = "; ".join(f"{r.entry} {r.dtype}: rel. error {r.error:.3g}" for r in failed[:3])
    rep.report(
        Diagnostic(
            path,
            1,
            1,
            "different",
            f"no longer computes what {prov.source} computes ({what})",
            f"regenerate it (tiletrans check --fix {path}) or compare with tiletrans validate",
        )
    )
    return EXIT_DIFFERENT


def check_paths(args: argparse.Namespace, rep: Reporter) -> int:
    """``tiletrans check PATH...``."""
    codes = [check_file(f, args, rep) for f, _ in python_files(args.paths)]
    stale = codes.count(EXIT_DIFFERENT)
    if stale:
        rep.note(f"{stale} of {len(codes)} file(s) stale or different")
    return worst(codes)


__all__ = ["check_file", "check_paths", "locate_source", "project_root"]
