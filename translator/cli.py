"""The ``tiletrans`` command line.

Exit codes: 0 success; 1 validation found a difference; 2 the input was refused (unreadable file,
syntax error, no kernel, unsupported construct, bad option) or an internal error. Refusals are
rendered by :func:`translator.diagnostics.render` on stderr; no input ever produces a traceback
(set ``TILETRANS_DEBUG=1`` to see one for an internal error).
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer

from translator.diagnostics import TranslationError, render
from translator.ir.nodes import FLOAT_DTYPES, Loc

if TYPE_CHECKING:
    from validation.bench import BenchRow
    from validation.equivalence import Report

EXIT_OK, EXIT_DIFFERENT, EXIT_REFUSED = 0, 1, 2
ISSUES = "https://github.com/tiletrans/tiletrans/issues"

app = typer.Typer(
    name="tiletrans",
    help="Translate GPU tile kernels between DSLs and validate translations.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
)

T = TypeVar("T")

FromOpt = Annotated[
    str | None, typer.Option("--from", help="Source DSL (default: detected from its imports).")
]
ToOpt = Annotated[str, typer.Option("--to", help="Target DSL.")]
OutOpt = Annotated[
    Path | None, typer.Option("-o", "--output", help="Write here instead of stdout.")
]
FileArg = Annotated[Path, typer.Argument(help="Kernel source file.", show_default=False)]


def _err(text: str) -> None:
    # Plain writes, not rich: diagnostics hold brackets (``x[tile_m, :]``) that rich would eat as
    # markup, and the caret must line up with the source line above it.
    sys.stderr.write(text.rstrip("\n") + "\n")
    sys.stderr.flush()


def _source_text(path: Path) -> str | None:
    try:
        return path.read_text()
    except (OSError, UnicodeDecodeError):
        return None


def _guard(action: Callable[[], T], source: Path | None) -> T:
    """Run ``action``; turn every failure into a diagnostic and exit code 2."""
    try:
        return action()
    except TranslationError as err:
        text = None
        if err.loc is not None:
            text = _source_text(Path(err.loc.file))
        elif source is not None:
            text = _source_text(source)
        _err(str(render(err, text)))
        raise typer.Exit(EXIT_REFUSED) from None
    except typer.Exit:
        raise
    except KeyboardInterrupt:
        _err("interrupted")
        raise typer.Exit(130) from None
    except Exception as err:
        if os.environ.get("TILETRANS_DEBUG"):
            traceback.print_exc()
        msg = " ".join(str(err).split())
        _err(
            f"{source or '<input>'}: internal error: {type(err).__name__}: {msg}\n"
            f"help: this is a tiletrans bug; please report it at {ISSUES} with the input file "
            "(rerun with TILETRANS_DEBUG=1 for a traceback)"
        )
        raise typer.Exit(EXIT_REFUSED) from None


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except FileNotFoundError:
        raise TranslationError(
            f"cannot read {path}: no such file", Loc(str(path), 1, 0), "check the path"
        ) from None
    except IsADirectoryError:
        raise TranslationError(
            f"cannot read {path}: it is a directory", Loc(str(path), 1, 0), "pass a .py file"
        ) from None
    except (OSError, UnicodeDecodeError) as err:
        raise TranslationError(f"cannot read {path}: {err}", Loc(str(path), 1, 0)) from None


def _write(text: str, output: Path | None) -> None:
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        output.write_text(text)
    except OSError as err:
        raise TranslationError(
            f"cannot write {output}: {err.strerror or err}", None, "check the output path"
        ) from None
    _err(f"wrote {output}")


def _translate(file: Path, src: str | None, dst: str, output: Path | None) -> None:
    from translator.api import translate_source

    def run() -> None:
        text = translate_source(_read(file), str(file), src, dst)
        _write(text, output)

    _guard(run, file)


def _pair_command(src: str, dst: str) -> None:
    """``tiletrans SRC2DST FILE [-o OUT]`` for a pair of dialects."""

    def command(file: FileArg, output: OutOpt = None) -> None:
        _translate(file, src, dst, output)

    command.__doc__ = f"Translate a {src} kernel file to {dst} (stdout unless -o)."
    app.command(f"{src}2{dst}")(command)


def _pair_commands() -> None:
    from translator.dialects import source_dialects, target_dialects

    for src in source_dialects():
        for dst in target_dialects():
            if src != dst:
                _pair_command(src, dst)


_pair_commands()


@app.command("translate")
def translate(file: FileArg, dst: ToOpt, src: FromOpt = None, output: OutOpt = None) -> None:
    """Translate FILE from one DSL to another."""
    _translate(file, src, dst, output)


@app.command("ir")
def show_ir(
    file: FileArg,
    src: FromOpt = None,
    dst: Annotated[
        str | None, typer.Option("--to", help="Run this target's passes (with --after).")
    ] = None,
    after: Annotated[
        str | None, typer.Option("--after", help="Print the IR after this pass.")
    ] = None,
) -> None:
    """Print the tile IR of FILE (after a target's pass, with --to and --after)."""
    from translator.api import parse_source
    from translator.ir.passes import ir_after
    from translator.ir.printer import format_module

    def run() -> None:
        module = parse_source(_read(file), str(file), src)
        if after is not None or dst is not None:
            module = ir_after(module, dst, after)
        _write(format_module(module), None)

    _guard(run, file)


@app.command("validate")
def validate(
    source: Annotated[Path, typer.Argument(help="The original kernel file.", show_default=False)],
    translated: Annotated[
        Path, typer.Argument(help="Its translation (a Python file).", show_default=False)
    ],
    src: FromOpt = None,
    device: Annotated[str, typer.Option(help="cpu (each DSL's interpreter) or cuda.")] = "cpu",
    bench: Annotated[bool, typer.Option("--bench", help="Also time both sides (cuda).")] = False,
    dtype: Annotated[
        list[str] | None, typer.Option("--dtype", help="Input dtype; repeat for several.")
    ] = None,
    seed: Annotated[
        list[int] | None, typer.Option("--seed", help="Seed; repeat for several.")
    ] = None,
    size: Annotated[
        list[str] | None, typer.Option("--size", help="Override a size class: NAME=VALUE.")
    ] = None,
    inputs: Annotated[
        str | None,
        typer.Option(
            "--inputs",
            help="FILE.py:FUNC; FUNC(entry, device, dtype) returns the positional arguments "
            "of function `entry` as a tuple, or None to let tiletrans synthesise them.",
        ),
    ] = None,
) -> None:
    """Run SOURCE and TRANSLATED on the same random inputs and compare (exit 1 on a difference)."""
    if device not in ("cpu", "cuda"):
        _err(f"error: --device must be cpu or cuda, not {device!r}")
        raise typer.Exit(EXIT_REFUSED)
    if bench and device != "cuda":
        _err("error: --bench needs --device cuda: interpreter timings say nothing about GPU speed")
        raise typer.Exit(EXIT_REFUSED)
    sizes = _guard(lambda: _parse_sizes(size or []), None)
    bad = sorted(set(dtype or ()) - set(FLOAT_DTYPES))
    if bad:
        _err(f"error: unknown --dtype {', '.join(bad)}\nhelp: use one of {', '.join(FLOAT_DTYPES)}")
        raise typer.Exit(EXIT_REFUSED)
    from validation.equivalence import prepare_runtimes

    # Before anything imports a DSL: runtimes read their settings once.
    prepare_runtimes(device)
    for path in (source, translated):
        _guard(lambda p=path: _read(p), path)

    def run() -> int:
        from validation.equivalence import check_pair, load_inputs
        from validation.inputs import UnknownSizeError

        given = None
        if inputs is not None:
            try:
                given = load_inputs(inputs)
            except Exception as err:
                raise TranslationError(
                    f"--inputs {inputs}: {type(err).__name__}: {err}",
                    None,
                    "name a function of a Python file: --inputs FILE.py:FUNC",
                ) from None
        try:
            report = check_pair(
                source,
                translated,
                src_dsl=src,
                device=device,
                dtypes=tuple(dtype) if dtype else None,
                seeds=tuple(seed if seed is not None else (0, 1)),
                sizes=sizes,
                inputs=given,
            )
        except UnknownSizeError as err:
            hint = f"size names of {source.name}: {', '.join(err.known)}"
            raise TranslationError(f"--size: {err}", None, hint) from None
        _print_report(report)
        if bench and report.passed:
            from validation.bench import BenchUnavailable, bench_pair

            try:
                rows = bench_pair(source, translated, src_dsl=src, device=device, sizes=sizes)
            except BenchUnavailable as err:
                raise TranslationError(str(err), None, "run on a machine with a CUDA GPU") from None
            _print_bench(rows)
        elif bench:
            _err("note: --bench skipped: timing a translation that differs means nothing")
        return EXIT_OK if report.passed else EXIT_DIFFERENT

    raise typer.Exit(_guard(run, source))


def _parse_sizes(items: list[str]) -> dict[str, int | float]:
    """``NAME=VALUE`` overrides: integers for size classes, numbers for scalar parameters."""
    sizes: dict[str, int | float] = {}
    for item in items:
        name, sep, value = (part.strip() for part in item.partition("="))
        number = _number(value)
        if not sep or not name or number is None:
            raise TranslationError(
                f"bad --size {item!r}", None, "write --size NAME=VALUE, e.g. --size m=100"
            )
        sizes[name] = number
    return sizes


def _number(text: str) -> int | float | None:
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return None


def _print_report(report: Report) -> None:
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
    console = Console(width=max(100, Console().width))
    console.print(table)
    for r in report.failures():
        if r.detail:
            console.print(Text(f"{r.entry} {r.dtype} seed={r.seed}: {r.detail}", style="red"))
    for note in report.notes:
        console.print(Text(f"note: {note}", style="yellow"))
    verdict = "equivalent" if report.passed else "DIFFERENT"
    console.print(Text(verdict, style="bold green" if report.passed else "bold red"))


def _print_bench(rows: list[BenchRow]) -> None:
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
    Console().print(table)


def main() -> None:
    """Console entry point."""
    app()


if __name__ == "__main__":
    main()
