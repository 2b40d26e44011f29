"""The ``tiletrans`` command line (argparse; rich and the translator imported only when used).

Exit codes (the README's table): 0 success; 1 a difference (``validate``, ``--diff``, ``--check``)
or a stale translation (``check``); 2 the translator refused an input (a located diagnostic);
3 a usage error (bad option, ``-o`` naming an input); 123 an internal error (a tiletrans bug).
No input ever produces a traceback (set ``TILETRANS_DEBUG=1`` to see one for an internal error).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from translator.diagnostics import TranslationError
    from validation.bench import BenchRow
    from validation.equivalence import Report, Row

EXIT_OK, EXIT_DIFFERENT, EXIT_REFUSED, EXIT_USAGE, EXIT_INTERNAL = 0, 1, 2, 3, 123
#: The reader of stdout closed it before the output ended (as a shell reports SIGPIPE).
EXIT_CLOSED_PIPE = 141
#: Which exit code wins when several files end differently (the worst first).
_SEVERITY = (EXIT_INTERNAL, EXIT_USAGE, EXIT_REFUSED, EXIT_DIFFERENT, EXIT_OK)
ISSUES = "https://github.com/tiletrans/tiletrans/issues"
FORMATS = ("text", "json", "github")
CONFIG_KEYS = {"from": "src", "to": "dst", "output-format": "output_format", "jobs": "jobs"}


class UsageError(Exception):
    """A bad command line (exit 3)."""


def worst(codes: Sequence[int]) -> int:
    """The exit code of a run whose files ended with ``codes``."""
    for code in _SEVERITY:
        if code in codes:
            return code
    return EXIT_OK


def safe_text(err: BaseException, limit: int = 500) -> str:
    """``str(err)`` on one line, never raising or recursing past a failure (the error path)."""
    try:
        text = str(err)
    except BaseException:
        text = "<unprintable>"
    text = " ".join(text[: limit * 4].split())
    return text if len(text) <= limit else text[:limit] + " …"


#: Top-level modules of the ``validate`` extra besides the dialects' own packages.
VALIDATE_MODULES = frozenset(("torch", "numpy"))


def _validation_roots() -> frozenset[str]:
    """What ``tiletrans[validate]`` installs: torch, numpy and every dialect's package."""
    roots = set(VALIDATE_MODULES)
    try:
        from translator.dialects import dialects

        for dialect in dialects().values():
            roots.update(r.split(".")[0] for r in dialect.import_roots)
    except Exception:  # the error path: a broken plugin must not hide the message
        pass
    return frozenset(roots)


def missing_extra(err: BaseException) -> str | None:
    """The module of the ``validate`` extra whose absence ``err`` (or an exception it was
    raised while handling) reports, or ``None``: a fresh ``pip install tiletrans`` has none of
    them, which is a missing install, not a tiletrans bug. Walks a bounded number of steps."""
    seen: set[int] = set()
    todo: list[BaseException] = [err]
    roots: frozenset[str] | None = None
    while todo and len(seen) < 64:
        e = todo.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, ImportError):
            root = (e.name or "").split(".")[0]
            roots = _validation_roots() if roots is None else roots
            if root in roots:
                return root
        todo.extend(x for x in (e.__cause__, e.__context__) if x is not None)
    return None


# --------------------------------------------------------------------------------------------------
# Diagnostics


@dataclass
class Diagnostic:
    """One message about one file, whatever the output format."""

    file: str
    line: int
    col: int
    code: str
    message: str
    hint: str | None = None
    severity: str = "error"
    #: The rendered text form (source line and caret included), when there is one.
    text: str | None = None

    def as_json(self) -> dict[str, Any]:
        """The JSON object of ``--output-format json``."""
        return {
            "file": self.file,
            "line": self.line,
            "column": self.col,
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "hint": self.hint,
        }


def from_error(err: TranslationError, fallback: str, source: str | None = None) -> Diagnostic:
    """The diagnostic of a refusal (``source``: the text its location points into)."""
    from translator.diagnostics import render, shorten

    loc = err.loc
    code = "refused"
    if type(err).__name__ == "DialectMismatch":
        code = "dsl-mismatch"
    elif err.message.startswith("too deep for tiletrans"):
        code = "too-deep"
    elif err.message.startswith("syntax error"):
        code = "syntax-error"
    try:
        text = str(render(err, source))
    except BaseException:
        text = f"{loc or fallback}: error: {safe_text(err)}"
    return Diagnostic(
        file=loc.file if loc else fallback,
        line=loc.line if loc else 1,
        col=(loc.col + 1) if loc else 1,
        code=code,
        # Code quoted in a message is cut in every format (a refusal quoting a 500-term sum).
        message=shorten(err.message),
        hint=shorten(err.hint) if err.hint else err.hint,
        text=text,
    )


def internal(err: BaseException, file: str) -> Diagnostic:
    """The diagnostic of an internal error (a tiletrans bug): one line, never a traceback."""
    name = type(err).__name__
    return Diagnostic(
        file=file,
        line=1,
        col=1,
        code="internal-error",
        message=f"internal error: {name}: {safe_text(err)}",
        hint=f"this is a tiletrans bug; please report it at {ISSUES} with the input file "
        "(rerun with TILETRANS_DEBUG=1 for a traceback)",
    )


class Reporter:
    """Prints diagnostics and notes as ``--output-format``, ``--quiet`` and ``--verbose`` say.

    Text diagnostics go to stderr as they come; ``json`` (one array) and ``github`` (workflow
    commands) go to stdout unless stdout carries a translation, then to stderr.
    """

    def __init__(self, fmt: str = "text", quiet: bool = False, verbose: bool = False) -> None:
        self.fmt = fmt
        self.quiet = quiet
        self.verbose = verbose
        self.code_on_stdout = False
        self.diagnostics: list[Diagnostic] = []

    def _machine_stream(self) -> Any:
        return sys.stderr if self.code_on_stdout else sys.stdout

    def report(self, diag: Diagnostic) -> None:
        """Record ``diag`` and print it (text and github: now; json: at :meth:`finish`)."""
        self.diagnostics.append(diag)
        if self.fmt == "text":
            text = (
                diag.text or f"{diag.file}:{diag.line}:{diag.col}: {diag.severity}: {diag.message}"
            )
            if diag.text is None and diag.hint:
                text += f"\nhelp: {diag.hint}"
            _write_err(text)
        elif self.fmt == "github":
            level = "error" if diag.severity == "error" else "warning"
            msg = diag.message + (f" (help: {diag.hint})" if diag.hint else "")
            msg = msg.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
            stream = self._machine_stream()
            stream.write(
                f"::{level} file={_github_property(diag.file)},line={diag.line},col={diag.col},"
                f"title=tiletrans {diag.code}::{msg}\n"
            )
            stream.flush()

    def note(self, text: str) -> None:
        """A progress note (``wrote out.py``), silenced by ``--quiet``."""
        if not self.quiet:
            _write_err(text)

    def detail(self, text: str) -> None:
        """A note for ``--verbose`` only."""
        if self.verbose and not self.quiet:
            _write_err(text)

    def finish(self) -> None:
        """Print what waits for the end (the json array)."""
        if self.fmt == "json":
            import json

            stream = self._machine_stream()
            json.dump([d.as_json() for d in self.diagnostics], stream, indent=2)
            stream.write("\n")
            stream.flush()


def _github_property(value: str) -> str:
    """``value`` escaped as a workflow command's property (as @actions/core escapes them): a
    ``,`` or ``:`` in a path would otherwise end the property early."""
    for char, code in (("%", "%25"), ("\r", "%0D"), ("\n", "%0A"), (":", "%3A"), (",", "%2C")):
        value = value.replace(char, code)
    return value


def _write_err(text: str) -> None:
    # Plain writes, not rich: diagnostics hold brackets (``x[tile_m, :]``) that rich would eat as
    # markup, and the caret must line up with the source line above it.
    sys.stderr.write(text.rstrip("\n") + "\n")
    sys.stderr.flush()


# --------------------------------------------------------------------------------------------------
# Files


def read_input(path: str, display: str | None = None) -> tuple[str, str]:
    """``(text, name for messages)`` of ``path`` (``-``: stdin)."""
    from translator.api import decode_source, read_source

    if path == "-":
        name = display or "<stdin>"
        return decode_source(sys.stdin.buffer.read(), name), name
    return read_source(path), path


def write_atomic(path: str, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and a rename, so that
    a reader (or a crash) never sees half a file; an existing file's mode is kept."""
    import tempfile

    from translator.diagnostics import TranslationError

    folder = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tiletrans-", suffix=".tmp", dir=folder)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(_encode(text))
            if os.path.exists(path):
                os.chmod(tmp, os.stat(path).st_mode & 0o7777)
            else:
                os.chmod(tmp, 0o644)
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
    except OSError as err:
        why = why_not_written(path, err)
        raise TranslationError(
            f"cannot write {path}: {why}", None, "check the output path"
        ) from None


def why_not_written(path: str, err: OSError) -> str:
    """What stopped ``path`` from being written, in words (``err``: the error raised)."""
    # makedirs says only "File exists" when a file stands where a folder must be.
    blocker = os.path.dirname(os.path.abspath(path))
    while blocker and not os.path.exists(blocker):
        blocker = os.path.dirname(blocker)
    if blocker and os.path.isfile(blocker):
        return f"{os.path.relpath(blocker)} is a file, not a folder"
    return err.strerror or str(err)


def write_output(path: str, text: str, rep: Reporter) -> int:
    """:func:`write_atomic`, a failure (a read-only or missing place, a file where a folder must
    be) reported as a ``cannot-write`` diagnostic at ``path``; the exit code it asks for: 3, the
    command line named an output that cannot be written (not a tiletrans bug), the other files
    going on."""
    from translator.diagnostics import TranslationError

    try:
        write_atomic(path, text)
    except TranslationError as err:
        rep.report(Diagnostic(path, 1, 1, "cannot-write", err.message, err.hint))
        return EXIT_USAGE
    return EXIT_OK


def _encode(text: str) -> bytes:
    """``text`` in the encoding its ``# coding:`` line declares (UTF-8 without one)."""
    import re

    for line in text.split("\n", 2)[:2]:
        m = re.match(r"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)", line)
        if m:
            try:
                return text.encode(m.group(1))
            except (LookupError, UnicodeEncodeError):
                break
    return text.encode("utf-8")


def same_file(a: str, b: str) -> bool:
    """Whether paths ``a`` and ``b`` name one file (existing or not)."""
    if a == "-" or b == "-":
        return False
    try:
        if os.path.exists(a) and os.path.exists(b):
            return os.path.samefile(a, b)
    except OSError:
        pass
    return os.path.realpath(a) == os.path.realpath(b)


def python_files(paths: Sequence[str]) -> list[tuple[str, str]]:
    """``(file, path relative to its root)`` for every path: a file as given (``-`` too), a
    directory walked for ``*.py`` files (hidden folders and ``__pycache__`` skipped, sorted)."""
    out: list[tuple[str, str]] = []
    for path in paths:
        if path != "-" and os.path.isdir(path):
            for folder, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
                for name in sorted(files):
                    if name.endswith(".py"):
                        full = os.path.join(folder, name)
                        out.append((full, os.path.relpath(full, path)))
        else:
            out.append((path, os.path.basename(path) if path != "-" else "-"))
    return out


def unified_diff(old: str | None, new: str, a: str, b: str) -> str:
    """The unified diff from ``old`` (``None``: the file ``a`` does not exist yet, named
    ``/dev/null`` as git and ``patch`` expect of a new file) to ``new``."""
    import difflib

    return "".join(
        difflib.unified_diff(
            (old or "").splitlines(keepends=True),
            new.splitlines(keepends=True),
            "/dev/null" if old is None else f"a/{a}",
            f"b/{b}",
        )
    )


# --------------------------------------------------------------------------------------------------
# Configuration: [tool.tiletrans] in the nearest pyproject.toml


def find_config(start: str | None = None) -> str | None:
    """The nearest ``pyproject.toml`` above ``start`` (default: the current directory) that has a
    ``[tool.tiletrans]`` table."""
    folder = os.path.abspath(start or os.getcwd())
    while True:
        candidate = os.path.join(folder, "pyproject.toml")
        if os.path.isfile(candidate):
            try:
                with open(candidate, "rb") as f:
                    if b"[tool.tiletrans]" in f.read():
                        return candidate
            except OSError:
                return None
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def load_config(path: str) -> dict[str, Any]:
    """The ``[tool.tiletrans]`` table of ``path`` (keys checked: a typo is a usage error)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib

    try:
        with open(path, "rb") as f:
            table = tomllib.load(f).get("tool", {}).get("tiletrans", {})
    except (OSError, ValueError) as err:
        raise UsageError(f"{path}: cannot read [tool.tiletrans]: {safe_text(err)}") from None
    unknown = sorted(set(table) - set(CONFIG_KEYS))
    if unknown:
        raise UsageError(
            f"{path}: unknown [tool.tiletrans] key(s) {', '.join(unknown)} "
            f"(known: {', '.join(sorted(CONFIG_KEYS))})"
        )
    fmt = table.get("output-format")
    if fmt is not None and fmt not in FORMATS:
        raise UsageError(f"{path}: output-format must be one of {', '.join(FORMATS)}")
    jobs = table.get("jobs")
    if jobs is not None and (not isinstance(jobs, int) or jobs < 1):
        raise UsageError(f"{path}: jobs must be a positive integer")
    return table


def apply_config(args: argparse.Namespace) -> None:
    """Fill the options the command line left unset from ``[tool.tiletrans]``."""
    path = None if getattr(args, "no_config", False) else find_config()
    table = load_config(path) if path else {}
    for key, dest in CONFIG_KEYS.items():
        if key in table and getattr(args, dest, "missing") is None:
            setattr(args, dest, table[key])
    if getattr(args, "output_format", None) is None:
        args.output_format = "text"


# --------------------------------------------------------------------------------------------------
# Translating one file


@dataclass
class Outcome:
    """What became of one input."""

    file: str
    status: str  # "translated", "refused", "error", "skipped"
    text: str | None = None
    src: str | None = None
    diagnostic: Diagnostic | None = None
    seconds: float = 0.0
    #: The source's text and name when it came from stdin (there is no file to read it again
    #: from: a diff's old side).
    stdin: tuple[str, str] | None = None


def translate_one(
    path: str,
    src: str | None,
    dst: str,
    *,
    output: str | None = None,
    stdin_name: str | None = None,
    text: str | None = None,
) -> Outcome:
    """Translate one file; every failure becomes the outcome's diagnostic (never an exception)."""
    import time

    from translator.diagnostics import TranslationError

    start = time.perf_counter()
    name = stdin_name or "<stdin>" if path == "-" else path
    source: str | None = text
    try:
        from translator.api import emit as emit_module
        from translator.api import parse_source
        from translator.provenance import restamp

        if source is None:
            source, name = read_input(path, stdin_name)
        module = parse_source(source, name, src)
        result = emit_module(module, dst)
        result = restamp(result, name, output, module.source_dialect, dst, stdin=path == "-")
        return Outcome(
            path,
            "translated",
            result,
            module.source_dialect,
            seconds=time.perf_counter() - start,
            stdin=(source, name) if path == "-" else None,
        )
    except TranslationError as err:
        if err.loc is None and err.message.startswith("too deep") and source is not None:
            err = _too_deep(source, name)  # the backend ran out of recursion: point somewhere
        shown = source
        if err.loc is not None and err.loc.file not in (name, path):
            shown = None
        diag = from_error(err, name, shown)
        return Outcome(path, "refused", diagnostic=diag, seconds=time.perf_counter() - start)
    except (KeyboardInterrupt, BrokenPipeError):  # the user's, or the reader's, end
        raise
    except Exception as err:
        from translator.limits import caused_by_recursion

        # A RecursionError, or an exception raised while handling one (libcst's position
        # provider turns one into a KeyError): the input is too deep, not a tiletrans bug.
        if caused_by_recursion(err):
            diag = from_error(_too_deep(source or "", name), name, source)
            return Outcome(path, "refused", diagnostic=diag, seconds=time.perf_counter() - start)
        if os.environ.get("TILETRANS_DEBUG"):
            import traceback

            traceback.print_exc()
        return Outcome(path, "error", diagnostic=internal(err, name))


def _too_deep(source: str, name: str) -> TranslationError:
    """The too-deep refusal of ``source``, at its deepest statement."""
    from translator.limits import deepest_statement, too_deep

    return too_deep(deepest_statement(source, name))


def exit_code(outcome: Outcome) -> int:
    """The exit code one outcome asks for."""
    return {"refused": EXIT_REFUSED, "error": EXIT_INTERNAL}.get(outcome.status, EXIT_OK)


# --------------------------------------------------------------------------------------------------
# Commands


def cmd_translate(args: argparse.Namespace, rep: Reporter) -> int:
    """``translate`` and the ``a2b`` commands."""
    if args.dst is None:
        raise UsageError('--to is required (or set `to = "DSL"` in [tool.tiletrans])')
    _check_dialects(args)
    files = python_files(args.paths)
    if not files:
        raise UsageError("no Python files under " + ", ".join(args.paths))
    if sum(1 for f, _ in files if f == "-") > 1:
        raise UsageError("`-` (stdin) may be given once")
    several = len(files) > 1 or any(os.path.isdir(p) for p in args.paths if p != "-")
    out = args.output
    if out is not None:
        out_is_dir = several or os.path.isdir(out) or out.endswith(("/", os.sep))
        targets = [(f, os.path.join(out, rel) if out_is_dir else out) for f, rel in files]
    elif several and not args.diff:
        raise UsageError(
            "several inputs need -o DIR (or --diff); "
            "use `tiletrans migrate` to translate a tree in place"
        )
    else:
        targets = [(f, None) for f, _ in files]
    if args.check and out is None:
        raise UsageError("--check compares translations with the files -o names; give -o")
    for _f, target in targets:
        if target is not None and any(same_file(target, g) for g, _ in files):
            raise UsageError(f"-o {target} is an input: refusing to overwrite a source")
    # Translations or diffs on stdout: json and github diagnostics go to stderr.
    rep.code_on_stdout = out is None or args.diff
    codes: list[int] = []
    for i, (f, target) in enumerate(targets):
        if i:
            resume_gc()  # the first file paid the start-up: collect as usual for the others
        outcome = translate_one(
            f, args.src, args.dst, output=target, stdin_name=args.stdin_filename
        )
        codes.append(exit_code(outcome))
        if outcome.diagnostic is not None:
            rep.report(outcome.diagnostic)
        if outcome.text is None:
            continue
        rep.detail(f"{f}: {outcome.src} -> {args.dst} in {outcome.seconds * 1000:.0f} ms")
        codes.append(_deliver(outcome.text, f, target, args, rep, outcome.stdin))
    return worst(codes)


def _deliver(
    text: str,
    source: str,
    target: str | None,
    args: argparse.Namespace,
    rep: Reporter,
    stdin: tuple[str, str] | None = None,
) -> int:
    """Print, diff, check or write one translation; the exit code it asks for (``stdin``: the
    source's text and name, when it was read from stdin)."""
    old = None
    if target is not None and os.path.exists(target):
        try:
            with open(target, encoding="utf-8", errors="replace") as f:
                old = f.read()
        except OSError:
            old = None
    if args.diff:
        # Without -o: from the source to its translation (stdin's text under its name).
        base: str | None = old
        name = target or source
        if target is None:
            base, name = stdin if stdin is not None else (_source_text(source), source)
        diff = unified_diff(base, text, name, name)
        if diff:
            sys.stdout.write(diff)
            sys.stdout.flush()
        return EXIT_DIFFERENT if diff else EXIT_OK
    if args.check:
        if old == text:
            return EXIT_OK
        rep.report(
            Diagnostic(
                target or source,
                1,
                1,
                "would-change",
                f"{target} would be {'rewritten' if old is not None else 'created'}",
                "run without --check to write it",
                severity="warning",
            )
        )
        return EXIT_DIFFERENT
    if target is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return EXIT_OK
    code = write_output(target, text, rep)
    if code == EXIT_OK:
        rep.note(f"wrote {target}")
    return code


def _source_text(path: str) -> str:
    try:
        return read_input(path)[0] if path != "-" else ""
    except Exception:
        return ""


def _check_dialects(args: argparse.Namespace) -> None:
    from translator.dialects import dialects, source_dialects, target_dialects

    known = dialects()
    if args.dst not in known or args.dst not in target_dialects():
        hint = ", ".join(target_dialects())
        raise UsageError(f"--to {args.dst}: unknown target DSL (tiletrans writes {hint})")
    src = getattr(args, "src", None)
    if src is not None and (src not in known or src not in source_dialects()):
        hint = ", ".join(source_dialects())
        raise UsageError(f"--from {src}: unknown source DSL (tiletrans reads {hint})")


def cmd_ir(args: argparse.Namespace, rep: Reporter) -> int:
    """Print the tile IR of each file (one ``module NAME`` after another)."""
    from translator.diagnostics import TranslationError

    rep.code_on_stdout = True  # the IR: json and github diagnostics go to stderr
    files = python_files(args.paths)
    if not files:
        raise UsageError("no Python files under " + ", ".join(args.paths))
    if sum(1 for f, _ in files if f == "-") > 1:
        raise UsageError("`-` (stdin) may be given once")
    codes = []
    for i, (path, _) in enumerate(files):
        if i:
            resume_gc()  # the first file paid the start-up: collect as usual for the others
        source: str | None = None
        try:
            from translator.api import parse_source
            from translator.ir.passes import ir_after
            from translator.ir.printer import format_module

            source, name = read_input(path, args.stdin_filename)
            module = parse_source(source, name, args.src)
            if args.after is not None or args.dst is not None:
                module = ir_after(module, args.dst, args.after)
            sys.stdout.write(format_module(module))
            sys.stdout.flush()
            codes.append(EXIT_OK)
        except TranslationError as err:
            shown = source if source is not None else _source_text(path)
            rep.report(from_error(err, path, shown))
            codes.append(EXIT_REFUSED)
        except BrokenPipeError:  # the reader of stdout is gone: the end of every file's output
            raise
        except Exception as err:
            from translator.limits import caused_by_recursion

            # As translate_one: a file too deep is refused at its deepest statement, and any
            # other failure is this file's internal error, not the end of the others.
            if caused_by_recursion(err) and source is not None:
                rep.report(from_error(_too_deep(source, path), path, source))
                codes.append(EXIT_REFUSED)
                continue
            if os.environ.get("TILETRANS_DEBUG"):
                import traceback

                traceback.print_exc()
            rep.report(internal(err, path))
            codes.append(EXIT_INTERNAL)
    return worst(codes)


def cmd_validate(args: argparse.Namespace, rep: Reporter) -> int:
    """Run a source and its translation on the same inputs and compare."""
    from translator.diagnostics import TranslationError
    from translator.ir.nodes import FLOAT_DTYPES

    if args.bench and args.device != "cuda":
        raise UsageError(
            "--bench needs --device cuda: interpreter timings say nothing about GPU speed"
        )
    bad = sorted(set(args.dtype or ()) - set(FLOAT_DTYPES))
    if bad:
        raise UsageError(f"unknown --dtype {', '.join(bad)} (use one of {', '.join(FLOAT_DTYPES)})")
    sizes = _parse_sizes(args.size or [])
    if "-" in (args.source, args.translated):
        raise UsageError(
            "validate imports and runs both files, so it reads them from disk: save stdin to a "
            "file and name it (`-` is not read here)"
        )
    for path in (args.source, args.translated):
        try:
            read_input(path)
        except TranslationError as err:
            rep.report(from_error(err, path))
            return EXIT_REFUSED
    from validation.equivalence import prepare_runtimes

    # Before anything imports a DSL: runtimes read their settings once.
    prepare_runtimes(args.device)
    from validation.equivalence import check_pair, load_inputs
    from validation.inputs import UnknownSizeError

    given = None
    if args.inputs is not None:
        try:
            given = load_inputs(args.inputs)
        except Exception as err:
            raise UsageError(
                f"--inputs {args.inputs}: {type(err).__name__}: {safe_text(err)} "
                "(name a function of a Python file: --inputs FILE.py:FUNC)"
            ) from None
    try:
        report = check_pair(
            args.source,
            args.translated,
            src_dsl=args.src,
            device=args.device,
            dtypes=tuple(args.dtype) if args.dtype else None,
            seeds=tuple(args.seed if args.seed is not None else (0, 1)),
            sizes=sizes,
            inputs=given,
        )
    except UnknownSizeError as err:
        name = os.path.basename(args.source)
        raise UsageError(f"--size: {err} (size names of {name}: {', '.join(err.known)})") from None
    except TranslationError as err:
        rep.report(from_error(err, args.source, _source_text(args.source)))
        return EXIT_REFUSED
    # The tables are for people: on stdout in text mode, on stderr when stdout carries json
    # or github diagnostics for a machine.
    tables = sys.stdout if rep.fmt == "text" else sys.stderr
    _print_report(report, tables)
    unshaped = _unshaped(report, args.source)
    if unshaped is not None:
        rep.report(unshaped)
        return EXIT_REFUSED
    if not report.passed:
        rep.report(_difference(report, args.source, args.translated))
    if args.bench and report.passed:
        from validation.bench import BenchUnavailable, bench_pair

        try:
            rows = bench_pair(
                args.source, args.translated, src_dsl=args.src, device=args.device, sizes=sizes
            )
        except BenchUnavailable as err:
            rep.report(
                Diagnostic(args.source, 1, 1, "bench", str(err), "run on a machine with a CUDA GPU")
            )
            return EXIT_REFUSED
        _print_bench(rows, tables)
    elif args.bench:
        rep.note("note: --bench skipped: timing a translation that differs means nothing")
    return EXIT_OK if report.passed else EXIT_DIFFERENT


def _parse_sizes(items: list[str]) -> dict[str, int | float]:
    """``NAME=VALUE`` overrides: integers for size classes, numbers for scalar parameters."""
    sizes: dict[str, int | float] = {}
    for item in items:
        name, sep, value = (part.strip() for part in item.partition("="))
        number = _number(value)
        if not sep or not name or number is None:
            raise UsageError(f"bad --size {item!r}: write --size NAME=VALUE, e.g. --size m=100")
        sizes[name] = number
    return sizes


def _number(text: str) -> int | float | None:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return None


#: What a failed row's detail starts with where nothing was compared: validation could not
#: shape the entry's inputs, or the source itself did not run (a `main()` that asks for a GPU,
#: a source written for another DSL version). Neither says the translation differs.
_NOT_RUN = {
    "inputs: ": "inputs",
    "source does not import: ": "source",
    "source raised ": "source",
}


def _not_run(row: Row) -> str | None:
    """``"inputs"`` or ``"source"`` where ``row`` failed before anything was compared."""
    return next((why for prefix, why in _NOT_RUN.items() if row.detail.startswith(prefix)), None)


def _unshaped(report: Report, source: str) -> Diagnostic | None:
    """The diagnostic of a pair validation could not run: every failed row is an entry whose
    inputs could not be shaped or whose source did not run (nothing was compared there, so
    nothing is known to differ)."""
    if not report.rows:
        return Diagnostic(
            source,
            1,
            1,
            "inputs",
            "found no function to compare: no public function of the source reaches a kernel "
            "launch through calls validation can follow",
            "add a public function that launches the kernels (or calls a function that does)",
        )
    failed = report.failures()
    if not failed or any(_not_run(r) is None for r in failed):
        return None
    unshaped = [r for r in failed if _not_run(r) == "inputs"]
    if unshaped:
        entries = sorted({r.entry for r in unshaped})
        why = unshaped[0].detail.removeprefix("inputs: ")
        return Diagnostic(
            source,
            1,
            1,
            "inputs",
            f"cannot shape the inputs of {', '.join(entries)}, so they were not compared: {why}",
            "pass --inputs FILE.py:FUNC, a function (entry, device, dtype), all strings, -> the "
            "arguments (or None to derive them)",
        )
    entries = sorted({r.entry for r in failed})
    return Diagnostic(
        source,
        1,
        1,
        "source",
        f"the source did not run for {', '.join(entries)}, so they were not compared: "
        f"{failed[0].detail}",
        "run the source on its own first; pass --inputs FILE.py:FUNC for inputs it accepts",
    )


def _difference(report: Report, source: str, translated: str) -> Diagnostic:
    """The diagnostic of a pair that differs (its worst rows named)."""
    failed = sorted((r for r in report.failures() if _not_run(r) is None), key=lambda r: -r.error)
    what = "; ".join(
        f"{r.entry} {r.dtype} seed={r.seed}: rel. error {r.error:.3g}" for r in failed[:3]
    )
    return Diagnostic(
        translated,
        1,
        1,
        "different",
        f"does not compute what {source} computes ({what or 'see the table'})",
        "the table lists every row compared; a fresh translation that differs from its source "
        f"is a tiletrans bug: please report it at {ISSUES}",
    )


def _print_report(report: Report, stream: Any = None) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table(title=f"{report.source} vs {report.translated} ({report.device})")
    for col in ("entry", "dtype", "seed", "sizes", "rel. error", "tolerance", "result"):
        table.add_column(col)
    for r in report.rows:
        sizes = ", ".join(f"{k}={v}" for k, v in r.sizes.items())
        result = Text("pass", style="green") if r.passed else Text("FAIL", style="bold red")
        table.add_row(
            r.entry,
            r.dtype,
            str(r.seed),
            Text(sizes),
            f"{r.error:.3g}",
            f"{r.tolerance:.0e}",
            result,
        )
    console = Console(file=stream or sys.stdout, width=max(100, Console().width))
    console.print(table)
    for r in report.failures():
        if r.detail:
            console.print(Text(f"{r.entry} {r.dtype} seed={r.seed}: {r.detail}", style="red"))
    for note in report.notes:
        console.print(Text(f"note: {note}", style="yellow"))
    if report.passed:
        verdict = "equivalent"
    elif (unrun := _unshaped(report, report.source)) is not None:
        verdict = f"NOT COMPARED ({unrun.code})"
    else:
        verdict = "DIFFERENT"
    console.print(Text(verdict, style="bold green" if report.passed else "bold red"))


def _print_bench(rows: list[BenchRow], stream: Any = None) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="timings (median, ms)")
    for col in ("entry", "dtype", "sizes", "source", "translated", "speedup"):
        table.add_column(col)
    for r in rows:
        sizes = ", ".join(f"{k}={v}" for k, v in r.sizes.items())
        table.add_row(
            r.entry,
            r.dtype,
            sizes,
            f"{r.t_source_ms:.4f}",
            f"{r.t_translated_ms:.4f}",
            f"{r.speedup:.2f}x",
        )
    Console(file=stream or sys.stdout).print(table)


def cmd_check(args: argparse.Namespace, rep: Reporter) -> int:
    """``check``: are generated translations up to date (and equivalent, with --validate)?"""
    from translator.checking import check_paths

    return check_paths(args, rep)


def cmd_migrate(args: argparse.Namespace, rep: Reporter) -> int:
    """``migrate``: translate a library, file by file, in worker processes."""
    from translator.migrate import migrate

    return migrate(args, rep)


# --------------------------------------------------------------------------------------------------
# The parser


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are :class:`UsageError` (exit 3), not exit 2."""

    def error(self, message: str) -> Any:  # type: ignore[override]
        raise UsageError(f"{message}\n{self.format_usage().rstrip()}")


def _dialect_names() -> tuple[list[str], list[str]]:
    try:
        from translator.dialects import source_dialects, target_dialects

        return source_dialects(), target_dialects()
    except Exception:  # a broken plugin must not break --help
        return [], []


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``tiletrans`` argument parser (one subcommand per command).

    With ``command`` (the first argument) naming a command, only that command's subparser is
    built: the others cannot be reached by a command line that starts with it, and building all
    17 (each a parser with its own formatter, its options' actions and gettext look-ups of
    argparse's messages) was ~10 ms of every run. Anything else (``--help``, a typo) gets all.
    """
    from translator import __version__

    sources, targets = _dialect_names()
    pairs = [f"{src}2{dst}" for src in sources for dst in targets if src != dst]
    if command not in ("translate", "ir", "validate", "check", "migrate", *pairs):
        command = None

    def wanted(name: str) -> bool:
        return command is None or command == name

    common = _Parser(add_help=False)
    common.add_argument("-q", "--quiet", action="store_true", help="print diagnostics only")
    common.add_argument("-v", "--verbose", action="store_true", help="say more about each file")
    common.add_argument(
        "--output-format",
        choices=FORMATS,
        default=None,
        help="diagnostics as text (stderr), json (one array) or github (workflow commands)",
    )
    common.add_argument(
        "--no-config", action="store_true", help="ignore [tool.tiletrans] in pyproject.toml"
    )
    parser = _Parser(
        prog="tiletrans",
        description="Translate GPU tile kernels between DSLs (statically: never importing them) "
        "and validate translations.",
        epilog="exit codes: 0 ok; 1 a difference or a stale file; 2 an input refused; "
        "3 usage error; 123 internal error. Defaults come from [tool.tiletrans] in the "
        "nearest pyproject.toml (from, to, output-format, jobs).",
    )
    parser.add_argument("--version", action="version", version=f"tiletrans {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    def translation_options(p: argparse.ArgumentParser) -> None:
        p.add_argument("paths", nargs="+", metavar="PATH", help="files or folders; `-` reads stdin")
        p.add_argument(
            "-o", "--output", help="write here (a folder for several inputs), not stdout"
        )
        p.add_argument("--diff", action="store_true", help="print a diff instead of writing")
        p.add_argument(
            "--check", action="store_true", help="write nothing; exit 1 if an -o file would change"
        )
        p.add_argument("--stdin-filename", help="the name of stdin's file, for messages")

    if wanted("translate"):
        t = sub.add_parser(
            "translate", parents=[common], help="translate files from one DSL to another"
        )
        translation_options(t)
        t.add_argument("--to", dest="dst", choices=targets or None, help="target DSL")
        t.add_argument(
            "--from", dest="src", choices=sources or None, help="source DSL (default: detected)"
        )
        t.set_defaults(run=cmd_translate)
    for src in sources:
        for dst in targets:
            if src != dst and wanted(f"{src}2{dst}"):
                p = sub.add_parser(
                    f"{src}2{dst}", parents=[common], help=f"translate {src} files to {dst}"
                )
                translation_options(p)
                p.set_defaults(run=cmd_translate, src=src, dst=dst, fixed=True)
    if wanted("ir"):
        _ir_parser(sub, common, sources, targets)
    if wanted("validate"):
        _validate_parser(sub, common, sources)
    if wanted("check"):
        _check_parser(sub, common)
    if wanted("migrate"):
        _migrate_parser(sub, common, sources, targets)
    return parser


def _ir_parser(
    sub: Any, common: argparse.ArgumentParser, sources: list[str], targets: list[str]
) -> None:
    i = sub.add_parser("ir", parents=[common], help="print the tile IR of files")
    i.add_argument("paths", nargs="+", metavar="PATH", help="files or folders; `-` reads stdin")
    i.add_argument("--from", dest="src", choices=sources or None, help="source DSL")
    i.add_argument("--to", dest="dst", choices=targets or None, help="run this target's passes")
    i.add_argument("--after", help="print the IR after this pass")
    i.add_argument("--stdin-filename", help="the name of stdin's file, for messages")
    i.set_defaults(run=cmd_ir)


def _validate_parser(sub: Any, common: argparse.ArgumentParser, sources: list[str]) -> None:
    v = sub.add_parser(
        "validate",
        parents=[common],
        help="run a source and its translation on the same inputs and compare "
        "(imports and runs both files)",
        description="Run SOURCE and TRANSLATED on the same random inputs and compare (exit 1 "
        "on a difference). Validation imports and runs both files (and --inputs); translation "
        "never does.",
    )
    v.add_argument("source", metavar="SOURCE")
    v.add_argument("translated", metavar="TRANSLATED")
    v.add_argument("--from", dest="src", choices=sources or None, help="source DSL")
    v.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    v.add_argument("--bench", action="store_true", help="also time both sides (cuda)")
    v.add_argument("--dtype", action="append", help="input dtype; repeat for several")
    v.add_argument("--seed", action="append", type=int, help="seed; repeat for several")
    v.add_argument("--size", action="append", help="override a size class: NAME=VALUE")
    v.add_argument(
        "--inputs",
        help="FILE.py:FUNC; FUNC(entry, device, dtype), all three strings (a function name, "
        "'cpu' or 'cuda', 'float16'...), returns the positional arguments of function `entry` "
        "as a tuple, or None to let tiletrans synthesise them",
    )
    v.set_defaults(run=cmd_validate)


def _check_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    c = sub.add_parser(
        "check",
        parents=[common],
        help="exit 1 if a generated translation is stale (its source changed)",
        description="Check generated translations against the sources their headers name: exit "
        "1 when a source changed since (stale), or, with --validate, when a pair no longer "
        "computes the same (validation imports and runs both files).",
    )
    c.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="generated files or folders; `-` reads one generated file from stdin",
    )
    c.add_argument(
        "--fix",
        action="store_true",
        help="regenerate stale translations (with `-`: print the file, regenerated if stale)",
    )
    c.add_argument(
        "--stdin-filename",
        help="where stdin's file lives: named in messages; its source is looked for from there",
    )
    c.add_argument(
        "--validate", action="store_true", help="also run each pair on the CPU and compare"
    )
    c.set_defaults(run=cmd_check)


def _migrate_parser(
    sub: Any, common: argparse.ArgumentParser, sources: list[str], targets: list[str]
) -> None:
    m = sub.add_parser(
        "migrate",
        parents=[common],
        help="translate a library: files and folders, in parallel, with a summary",
    )
    m.add_argument("paths", nargs="+", metavar="SRC", help="files or folders")
    m.add_argument("--to", dest="dst", choices=targets or None, help="target DSL")
    m.add_argument(
        "--from", dest="src", choices=sources or None, help="source DSL (default: per file)"
    )
    where = m.add_mutually_exclusive_group()
    where.add_argument("-o", "--output", help="write the translated tree here")
    where.add_argument("--write", action="store_true", help="replace the sources in place")
    m.add_argument("-j", "--jobs", type=int, default=None, help="worker processes (default: cores)")
    m.add_argument(
        "--validate",
        choices=("cpu", "cuda"),
        default=None,
        help="run each translated pair and compare (imports and runs both)",
    )
    m.add_argument(
        "--executor",
        choices=("local", "ray"),
        default="local",
        help="where --validate runs: worker processes here, or one Ray task per file "
        "(num_gpus=1 on cuda; needs tiletrans[ray] here and tiletrans[validate] on the nodes)",
    )
    m.add_argument(
        "--ray-address",
        default=None,
        help="the Ray cluster for --executor ray (default: $RAY_ADDRESS, else a local Ray)",
    )
    m.add_argument(
        "--bench",
        action="store_true",
        help="with --validate cuda: also time each equivalent pair (speed ratios in --report)",
    )
    m.add_argument(
        "--report",
        metavar="FILE.md",
        help="write a Markdown report, with PNG plots beside it (needs tiletrans[report])",
    )
    m.add_argument(
        "--diff",
        action="store_true",
        help="write nothing; print a diff of each file -o (or, without it, --write) would write",
    )
    m.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 if a file -o (or, without it, --write) would write changes",
    )
    m.set_defaults(run=cmd_migrate)


# --------------------------------------------------------------------------------------------------
# Entry points


def _main(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:
        argv = ["--help"]
    if argv == ["--version"]:  # without building the parser (which lists the dialects)
        from translator import __version__

        sys.stdout.write(f"tiletrans {__version__}\n")
        return EXIT_OK
    parser = build_parser(argv[0])
    try:
        args = parser.parse_args(argv)
    except SystemExit as done:  # --help, --version
        return int(done.code or 0)
    if getattr(args, "run", None) is None:
        parser.print_help()
        return EXIT_USAGE
    apply_config(args)
    rep = Reporter(args.output_format, args.quiet, args.verbose)
    from translator.cache import compiled_dataclasses

    if args.run in (cmd_translate, cmd_ir):
        pause_gc()
    # A command imports libcst and the IR, whose dataclasses were a fifth of a one-file run.
    try:
        with compiled_dataclasses():
            code = args.run(args, rep)
    finally:
        rep.finish()
    return code


#: Set by :func:`app`: this process ends when :func:`main` returns (not so under
#: :func:`invoke`, or for a program that calls :func:`main`).
_PROCESS_ENDS = False
#: Whether :func:`pause_gc` turned automatic garbage collection off (until :func:`resume_gc`).
_GC_PAUSED = False


def pause_gc() -> None:
    """No automatic garbage collection until :func:`resume_gc` or the end of the process.

    The first file of a run imports libcst, the IR and two dialects (thousands of classes,
    functions and dicts, all alive to the end) and builds its trees: the collector's passes
    over those objects, which find nothing to free, were 10-20 ms of a one-file translation.
    Objects are still freed when their last reference goes; only cycles wait. Only for a
    process that ends after the command (:func:`app`): a command that reads several files
    calls :func:`resume_gc` before the second, so all but the first run as usual.
    """
    global _GC_PAUSED
    import gc

    if _PROCESS_ENDS and gc.isenabled():
        gc.disable()
        _GC_PAUSED = True


def resume_gc() -> None:
    """Automatic garbage collection on again, if :func:`pause_gc` turned it off."""
    global _GC_PAUSED
    if _GC_PAUSED:
        import gc

        _GC_PAUSED = False
        gc.enable()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return its exit code (never raises, except for SystemExit)."""
    try:
        return _main(argv)
    except UsageError as err:
        _write_err(f"tiletrans: error: {err}")
        return EXIT_USAGE
    except KeyboardInterrupt:
        _write_err("interrupted")
        return 130
    except BrokenPipeError:
        # The reader closed stdout (`tiletrans ... | head`): not a tiletrans bug.
        _drop_stdout()
        return EXIT_CLOSED_PIPE
    except Exception as err:
        from translator.limits import TOO_DEEP, caused_by_recursion

        missing = missing_extra(err)
        if missing is not None:
            _write_err(
                f"tiletrans: error: validation needs `{missing}`, which is not installed: "
                'pip install "tiletrans[validate]" (torch and the DSLs validation runs kernels '
                "with; translation alone needs none of them)"
            )
            return EXIT_USAGE
        if caused_by_recursion(err):  # an input too deep for a command with no file at hand
            _write_err(
                f"tiletrans: error: {TOO_DEEP}\nhelp: split long chains and deep nesting into "
                "named intermediate values or smaller functions"
            )
            return EXIT_REFUSED
        if os.environ.get("TILETRANS_DEBUG"):
            import traceback

            traceback.print_exc()
        diag = internal(err, "<tiletrans>")
        _write_err(f"{diag.message}\nhelp: {diag.hint}")
        return EXIT_INTERNAL


def _drop_stdout() -> None:
    """Point stdout at /dev/null (its reader is gone), so that no later flush fails again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is no file descriptor (captured): nothing to fix
        pass
    finally:
        os.close(devnull)


def app() -> NoReturn:
    """Console entry point (kept under its old name): exits with :func:`main`'s code."""
    global _PROCESS_ENDS
    _PROCESS_ENDS = True
    exit_now(main())


def exit_now(code: int) -> NoReturn:
    """End the process with ``code``, without the interpreter's teardown where that is safe.

    A one-file translation leaves libcst's ~250 node classes, the IR and the trees it built in
    memory; the interpreter's shutdown (clearing every module, a final garbage collection,
    freeing each object) was about 30 ms of a 200 ms run, all of it work whose result nobody
    sees. So: run what was registered with :mod:`atexit` (as shutdown would), flush stdout and
    stderr, and leave with ``os._exit``. Every file tiletrans writes is closed by then (written
    under ``with``). Where that is not known to be safe, exit normally: a thread other than the
    main one still running (shutdown would join it), or a Python without CPython's
    ``atexit._run_exitfuncs``. A flush into a pipe its reader closed ends the process with
    :data:`EXIT_CLOSED_PIPE`, quietly; any other failing flush takes the normal path.
    """
    import atexit

    threading = sys.modules.get("threading")
    run_exitfuncs = getattr(atexit, "_run_exitfuncs", None)
    if run_exitfuncs is None or (
        threading is not None
        and (threading.active_count() > 1 or getattr(threading, "_threading_atexits", None))
    ):
        sys.exit(code)
    try:
        run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # the output's end, buffered until now, had no reader left
        _drop_stdout()
        os._exit(EXIT_CLOSED_PIPE)
    except BaseException:
        sys.exit(code)
    os._exit(code)


@dataclass
class Result:
    """What :func:`invoke` captured of one in-process run."""

    exit_code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        """stdout and stderr together."""
        return self.stdout + self.stderr


def invoke(argv: Sequence[str], stdin: str | bytes = b"") -> Result:
    """Run the command line in this process with ``argv``, capturing its output (for tests)."""
    import io

    data = stdin.encode() if isinstance(stdin, str) else stdin
    old = sys.stdin, sys.stdout, sys.stderr
    out, err = io.StringIO(), io.StringIO()
    sys.stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
    sys.stdout, sys.stderr = out, err
    try:
        code = main([str(a) for a in argv])
    finally:
        sys.stdin, sys.stdout, sys.stderr = old
    return Result(code, out.getvalue(), err.getvalue())


Command = Callable[[argparse.Namespace, Reporter], int]

if __name__ == "__main__":
    app()
