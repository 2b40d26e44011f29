"""``tiletrans migrate``: translate a kernel library, file by file, in worker processes.

Each ``.py`` file under the given paths is read (never imported) and its DSL detected from its
imports; files that use no DSL tiletrans reads (or already the target DSL) are left as they are
(copied with ``-o``). The others are translated in ``-j`` worker processes, and with ``--validate``
each translated pair is run on the same inputs and compared (validation imports and runs both).
Nothing is written without ``-o DIR`` (the tree's layout kept) or ``--write`` (in place); writes are
atomic. A summary table counts outcomes per DSL pair; ``--report FILE.md`` writes one row per file
and, with matplotlib, PNG plots beside it (:mod:`translator.report_plots`). ``--executor ray``
sends each file's validation to a Ray cluster as one task (:func:`validate_on_ray`).
"""

from __future__ import annotations

import os
import shutil
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from translator.cli import (
    EXIT_DIFFERENT,
    EXIT_INTERNAL,
    EXIT_OK,
    EXIT_REFUSED,
    EXIT_USAGE,
    Diagnostic,
    Outcome,
    Reporter,
    UsageError,
    internal,
    safe_text,
    same_file,
    translate_one,
    unified_diff,
    why_not_written,
    worst,
    write_atomic,
    write_output,
)

if TYPE_CHECKING:
    import argparse

#: Outcome columns of the summary, in order.
COLUMNS = ("translated + verified", "translated", "refused", "error")


@dataclass
class Job:
    """One file to migrate."""

    file: str
    rel: str
    target: str | None
    src: str | None
    dst: str
    validate: str | None = None
    #: Also time both sides once they are equivalent (``--bench``, CUDA only).
    bench: bool = False


@dataclass
class Result:
    """What became of one file (picklable: it comes back from a worker)."""

    job: Job
    outcome: Outcome
    pair: str = ""
    column: str = "error"
    verified: bool | None = None
    validation: str | None = None
    #: Source time / translation time (median over the entries), when benchmarked.
    speed: float | None = None
    extra: list[Diagnostic] = field(default_factory=list)


def detect_kernel(path: str, dst: str, src: str | None, text: str | None = None) -> str | None:
    """The DSL to translate ``path`` from (``None``: no kernel tiletrans reads, or already
    ``dst``; copied as it is; ``"?"``: unreadable or ambiguous, the translation says why).
    ``text``: the file's text when it was read already."""
    from translator.api import read_source
    from translator.dialects import dialects, source_dialects

    if src is not None:
        return src
    if text is None:
        try:
            text = read_source(path)
        except Exception:
            return "?"  # unreadable: let the translation say why
    scores = {n: dialects()[n].detect(text) for n in source_dialects()}
    best = max(scores.values(), default=0)
    found = [n for n, s in scores.items() if s == best and s > 0]
    if not found:
        return None
    if len(found) > 1:
        return "?"
    return None if found[0] == dst else found[0]


def work(job: Job) -> Result:
    """Detect, translate (and validate) one file; runs in a worker process; never raises.

    Detection runs here, not in the parent, so that reading and scanning a large tree is spread
    over the workers too; a file with no kernel to translate comes back ``skipped``.
    """
    try:
        src, text = job.src, None
        if src is None:
            from translator.api import read_source

            try:
                text = read_source(job.file)
            except Exception:
                text = None  # the translation reads it again and says why
            src = detect_kernel(job.file, job.dst, None, text) if text is not None else "?"
            if src is None:
                return Result(job, Outcome(job.file, "skipped"), "", "skipped")
        outcome = translate_one(
            job.file,
            None if src == "?" else src,
            job.dst,
            output=job.target if job.target else None,
            text=text,
        )
        pair = f"{outcome.src or (src if src != '?' else None) or '?'} → {job.dst}"
        result = Result(job, outcome, pair, "translated" if outcome.text else outcome.status)
        if outcome.text is not None and job.validate:
            _validate(result)
        return result
    except BaseException as err:  # a worker must always answer
        if isinstance(err, KeyboardInterrupt):
            raise
        outcome = Outcome(job.file, "error", diagnostic=internal(err, job.file))
        return Result(job, outcome, f"{job.src or '?'} → {job.dst}", "error")


def _validate(result: Result) -> None:
    """Run the pair of ``result`` and compare (the translation in a temporary file)."""
    import tempfile

    from validation.equivalence import check_pair, prepare_runtimes

    job, text = result.job, result.outcome.text
    assert text is not None and job.validate is not None
    prepare_runtimes(job.validate)
    with tempfile.TemporaryDirectory(prefix="tiletrans-migrate-") as tmp:
        path = os.path.join(tmp, os.path.basename(job.file))
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        try:
            report = check_pair(
                job.file, path, src_dsl=result.outcome.src, device=job.validate, seeds=(0,)
            )
        except Exception as err:
            result.verified = False
            result.validation = f"validation failed: {type(err).__name__}"
            return
        result.verified = report.passed
        if report.passed and job.bench:
            _bench(result, path)
    if report.passed:
        result.column = "translated + verified"
        result.validation = "equivalent"
    else:
        worst_row = max(report.failures(), key=lambda r: r.error, default=None)
        result.validation = "DIFFERENT" + (
            f" ({worst_row.entry} {worst_row.dtype}: {worst_row.error:.3g})" if worst_row else ""
        )
        result.extra.append(
            Diagnostic(
                job.file,
                1,
                1,
                "different",
                f"the translation does not compute what {job.file} computes: {result.validation}",
                "run tiletrans validate on the pair for the details",
            )
        )


def _bench(result: Result, translated: str) -> None:
    """Time both sides of an equivalent pair (``translated``: the translation's file)."""
    import statistics

    from validation.bench import bench_pair

    job = result.job
    try:
        rows = bench_pair(job.file, translated, src_dsl=result.outcome.src, device=job.validate)
    except Exception as err:
        result.extra.append(
            Diagnostic(job.file, 1, 1, "bench", f"not benchmarked: {err}", None, "warning")
        )
        return
    speeds = [r.speedup for r in rows if r.speedup > 0]
    if speeds:
        result.speed = statistics.median(speeds)


def remote_validate(
    name: str, source: str, translated: str, src: str, dst: str, device: str, bench: bool
) -> dict[str, Any]:
    """Validate one pair where it runs (a Ray task on any node of a cluster): both texts are
    written to a temporary folder there, so no file system is shared with the caller. Returns
    the fields of :class:`Result` that validation sets, and where it ran."""
    import platform
    import tempfile

    with tempfile.TemporaryDirectory(prefix="tiletrans-remote-") as tmp:
        path = os.path.join(tmp, os.path.basename(name))
        with open(path, "w", encoding="utf-8") as f:
            f.write(source)
        job = Job(path, os.path.basename(name), None, src, dst, device, bench)
        result = Result(job, Outcome(path, "translated", translated, src), "", "translated")
        _validate(result)
    extra = [(d.code, d.message.replace(path, name), d.hint, d.severity) for d in result.extra]
    return {
        "column": result.column,
        "verified": result.verified,
        "validation": result.validation,
        "speed": result.speed,
        "extra": extra,
        "where": f"{platform.node()} pid {os.getpid()}",
    }


def validate_on_ray(
    results: list[Result], device: str, bench: bool, address: str | None, rep: Reporter
) -> None:
    """Validate every translated result on a Ray cluster: one task per file, each asking for a
    GPU on ``cuda`` (``num_gpus=1``: Ray runs as many at once as the cluster has GPUs). Connects
    to ``address`` (``auto``, ``ray://host:10001``; default ``$RAY_ADDRESS``, else a local Ray
    started for this run), or uses the Ray this process already initialised."""
    try:
        import ray
    except ImportError:
        raise UsageError("--executor ray needs Ray: pip install 'tiletrans[ray]'") from None
    pending = [r for r in results if r.outcome.text is not None]
    if not pending:
        return
    started = False
    if not ray.is_initialized():
        kwargs: dict[str, Any] = {"log_to_driver": False}
        if address is None and not os.environ.get("RAY_ADDRESS"):
            kwargs["include_dashboard"] = False  # a local instance for this run only
        ray.init(address=address, **kwargs)
        started = True
    try:
        task = ray.remote(remote_validate).options(
            num_cpus=1, num_gpus=1 if device == "cuda" else 0, max_retries=0
        )
        refs = {}
        for r in pending:
            with open(r.job.file, encoding="utf-8", errors="replace") as f:
                source = f.read()
            ref = task.remote(
                r.job.file, source, r.outcome.text, r.outcome.src or "", r.job.dst, device, bench
            )
            refs[ref] = r
        rep.note(f"validating {len(refs)} pair(s) as Ray tasks ({device})")
        for ref, r in refs.items():
            try:
                got = ray.get(ref)
            except Exception as err:  # the task died (a node lost, an import error there)
                r.verified = False
                r.validation = f"validation failed on Ray: {type(err).__name__}"
                r.extra.append(
                    Diagnostic(r.job.file, 1, 1, "ray", r.validation, safe_text(err, 300), "error")
                )
                continue
            r.column, r.verified, r.speed = got["column"], got["verified"], got["speed"]
            r.validation = f"{got['validation']} (Ray: {got['where']})"
            r.extra += [
                Diagnostic(r.job.file, 1, 1, code, message, hint, severity)
                for code, message, hint, severity in got["extra"]
            ]
    finally:
        if started:
            ray.shutdown()


def _jobs(args: argparse.Namespace) -> tuple[list[Job], list[tuple[str, str]]]:
    """The files to translate and the ``(file, target)`` pairs to copy as they are."""
    from translator.cli import python_files

    for path in args.paths:
        if path == "-":
            raise UsageError("migrate reads files and folders, not stdin (use translate -)")
        if not os.path.exists(path):
            raise UsageError(f"{path}: no such file or folder")
    roots = [p if os.path.isdir(p) else os.path.dirname(os.path.abspath(p)) for p in args.paths]
    base = os.path.commonpath([os.path.abspath(r) for r in roots])
    if args.output is not None:
        for path in args.paths:
            if same_file(args.output, path):
                raise UsageError(f"-o {args.output} is an input: use --write to migrate in place")
    jobs: list[Job] = []
    copies: list[tuple[str, str]] = []
    seen: set[str] = set()
    for path in args.paths:
        for file, _ in python_files([path]):
            full = os.path.abspath(file)
            if full in seen:
                continue
            seen.add(full)
            rel = os.path.relpath(full, base)
            if args.output is not None:
                target: str | None = os.path.join(args.output, rel)
            elif args.write or args.diff or args.check:
                # In place. --diff and --check without -o show or test what --write would
                # write, as `ruff format --diff` does; they write nothing.
                target = file
            else:
                target = None
            # With Ray, workers here only translate; validation goes to the cluster.
            here = args.validate if getattr(args, "executor", "local") == "local" else None
            jobs.append(Job(file, rel, target, args.src, args.dst, here, args.bench))
    if args.output is not None:
        # Non-Python files of the folders (data, docs) come along too.
        for path in args.paths:
            if os.path.isdir(path):
                for folder, dirs, files in os.walk(path):
                    dirs[:] = sorted(
                        d for d in dirs if not d.startswith(".") and d != "__pycache__"
                    )
                    for name in sorted(files):
                        if not name.endswith(".py"):
                            full = os.path.join(folder, name)
                            rel = os.path.relpath(os.path.abspath(full), base)
                            copies.append((full, os.path.join(args.output, rel)))
    return jobs, copies


def _warm(jobs: list[Job]) -> None:
    """Import, in this process, what the workers will need (libcst, the frontends that may read
    the files, the target's backend), so that forked workers start with it instead of each
    importing it again (about half a second of CPU per worker)."""
    from translator.dialects import dialects, get_dialect, source_dialects
    from translator.dialects.base import load

    try:
        import translator.api  # noqa: F401
        from translator.provenance import restamp  # noqa: F401

        srcs = {j.src for j in jobs if j.src is not None} or set(source_dialects())
        for name in srcs & set(dialects()):
            load(get_dialect(name).frontend)
        for name in {j.dst for j in jobs}:
            load(get_dialect(name).backend)
    except Exception:  # a broken dialect: the worker that needs it reports it
        pass


def _pool(workers: int, gpus: list[str] | None = None) -> Any:
    """A process pool; on Linux its workers are forked from this (warmed) process. With
    ``gpus`` (``--validate cuda``: one worker per visible GPU), each worker takes one of them
    for its own before anything in it initialises CUDA (:func:`_pin_gpu`)."""
    import multiprocessing
    import sys
    from concurrent.futures import ProcessPoolExecutor

    # fork is safe here: no thread runs yet (the progress bar starts after the pool). Elsewhere
    # (macOS, Windows) the platform's default start method; workers import what they need.
    context = multiprocessing.get_context("fork") if sys.platform == "linux" else None
    if not gpus:
        return ProcessPoolExecutor(max_workers=workers, mp_context=context)
    queue = (context or multiprocessing.get_context()).Queue()
    for gpu in gpus:
        queue.put(gpu)
    return ProcessPoolExecutor(
        max_workers=min(workers, len(gpus)),
        mp_context=context,
        initializer=_pin_gpu,
        initargs=(queue,),
    )


def _pin_gpu(queue: Any) -> None:
    """Pool initializer: this worker sees one GPU, the next one nobody took (workers on one
    GPU each, not all on the first: CUDA numbers the visible devices from 0 in every process)."""
    os.environ["CUDA_VISIBLE_DEVICES"] = queue.get(timeout=60)


def _gpu_ids() -> list[str]:
    """The visible CUDA devices, as ``CUDA_VISIBLE_DEVICES`` names them, found without
    initialising CUDA in this process (its forked workers must still be able to choose):
    ``$CUDA_VISIBLE_DEVICES`` when set, else ``nvidia-smi -L``; none without either."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        return [d.strip() for d in visible.split(",") if d.strip() and d.strip() != "-1"]
    import subprocess

    try:
        out = subprocess.run(
            ["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30, check=True
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    count = sum(1 for line in out.splitlines() if line.startswith("GPU "))
    return [str(i) for i in range(count)]


def run_jobs(
    jobs: list[Job], workers: int, progress: bool, gpus: list[str] | None = None
) -> list[Result]:
    """Every job's result, in the jobs' order (``workers`` processes; 1: in this process;
    ``gpus``: one worker per GPU, each pinned to its own)."""
    results: list[Result | None] = [None] * len(jobs)
    parallel = workers > 1 and len(jobs) > 1
    pool = None
    futures: dict[Any, int] = {}
    if parallel:
        _warm(jobs)
        pool = _pool(workers, gpus)
        # Every job submitted (which forks the workers) before the progress bar's thread starts.
        futures = {pool.submit(work, job): i for i, job in enumerate(jobs)}
    bar = None
    if progress and jobs:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

        bar = Progress(
            "[progress.description]{task.description}",
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            transient=True,
        )
    task = None
    if bar is not None:
        bar.start()
        task = bar.add_task("translating", total=len(jobs))
    try:
        if pool is None:
            for i, job in enumerate(jobs):
                results[i] = work(job)
                if bar is not None and task is not None:
                    bar.advance(task)
        else:
            from concurrent.futures import as_completed

            for future in as_completed(futures):
                i = futures[future]
                try:
                    results[i] = future.result()
                except BaseException as err:  # a worker that died (a signal)
                    if isinstance(err, KeyboardInterrupt):
                        raise
                    job = jobs[i]
                    outcome = Outcome(job.file, "error", diagnostic=internal(err, job.file))
                    results[i] = Result(job, outcome, f"? → {job.dst}", "error")
                if bar is not None and task is not None:
                    bar.advance(task)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
        if bar is not None:
            bar.stop()
    return [r for r in results if r is not None]


def summary(results: list[Result], copied: int) -> dict[str, Counter[str]]:
    """Outcome counts per DSL pair."""
    table: dict[str, Counter[str]] = {}
    for r in results:
        table.setdefault(r.pair, Counter())[r.column] += 1
    if copied:
        table.setdefault("no kernel (left as is)", Counter())["copied"] = copied
    return table


def print_summary(table: dict[str, Counter[str]], seconds: float, files: int) -> None:
    """The summary table on stderr."""
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"tiletrans migrate: {files} file(s) in {seconds:.1f} s")
    t.add_column("DSL pair")
    for col in COLUMNS:
        t.add_column(col, justify="right")
    copied = 0
    for pair, counts in sorted(table.items()):
        if pair.startswith("no kernel"):
            # Not an outcome of a translation: its own line under the table, not a number in
            # the error column.
            copied += counts["copied"]
            continue
        t.add_row(pair, *(str(counts.get(c, 0)) for c in COLUMNS))
    console = Console(stderr=True)
    console.print(t)
    if copied:
        console.print(f"{copied} file(s) with no kernel to translate: copied as they are")


def write_report(
    path: str, results: list[Result], table: dict[str, Counter[str]], rep: Reporter | None = None
) -> int:
    """The Markdown report: the summary and its plots (PNG files beside the report, when
    matplotlib is installed), then one row per file. The exit code it asks for: with ``rep``,
    a report that cannot be written is its diagnostic (exit 3); without, it raises."""
    lines = ["# tiletrans migrate report", "", "| DSL pair | " + " | ".join(COLUMNS) + " |"]
    lines.append("|---" * (len(COLUMNS) + 1) + "|")
    for pair, counts in sorted(table.items()):
        if not pair.startswith("no kernel"):
            lines.append(f"| {pair} | " + " | ".join(str(counts.get(c, 0)) for c in COLUMNS) + " |")
    ratios = [r.speed for r in results if r.speed is not None]
    from translator.report_plots import PlotsUnavailable, write_plots

    try:
        for title, png in write_plots(path, table, COLUMNS, ratios):
            lines += ["", f"![{title}]({png})"]
    except (PlotsUnavailable, OSError) as err:
        lines += ["", f"(No plots: {safe_text(err)}.)"]
        if rep is not None:
            rep.note(f"note: --report without plots: {safe_text(err)}")
    lines += [
        "",
        "| file | DSL pair | outcome | validation | speed ratio | diagnostic | ms |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in results:
        diag = r.outcome.diagnostic
        said = f"{diag.file}:{diag.line}:{diag.col}: {diag.message}" if diag else ""
        said = said.replace("|", "\\|").replace("\n", " ")
        speed = f"{r.speed:.3f}" if r.speed is not None else ""
        lines.append(
            f"| `{r.job.rel}` | {r.pair} | {r.column} | {r.validation or ''} | {speed} | {said} | "
            f"{r.outcome.seconds * 1000:.0f} |"
        )
    if ratios:
        import statistics

        lines += [
            "",
            f"Speed ratios (source time / translation time, median over each file's entries; "
            f"above 1 the translation is faster): median {statistics.median(ratios):.3f} over "
            f"{len(ratios)} files, min {min(ratios):.3f}, max {max(ratios):.3f}.",
            "",
        ]
    else:
        lines += [
            "",
            "Speed ratios: not measured (pass `--validate cuda --bench` on a machine with a "
            "CUDA GPU).",
            "",
        ]
    if rep is None:
        write_atomic(path, "\n".join(lines))
        return EXIT_OK
    return write_output(path, "\n".join(lines), rep)


def _check_validation_installed() -> None:
    """Fail now, as a usage error, when ``--validate`` lacks what every pair needs (torch,
    numpy, triton: a fresh ``pip install tiletrans`` has none), not once per file in the
    workers as an internal error. Looked up, not imported: the runtimes must be imported after
    :func:`validation.equivalence.prepare_runtimes` has set them up."""
    import importlib.util

    for name in ("numpy", "torch", "triton"):
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            raise UsageError(
                f"--validate needs `{name}`, which is not installed: "
                'pip install "tiletrans[validate]"'
            )


def migrate(args: argparse.Namespace, rep: Reporter) -> int:
    """``tiletrans migrate``."""
    if args.dst is None:
        raise UsageError('--to is required (or set `to = "DSL"` in [tool.tiletrans])')
    from translator.cli import _check_dialects

    _check_dialects(args)
    if args.jobs is not None and args.jobs < 1:
        raise UsageError("-j must be at least 1")
    if args.bench and args.validate != "cuda":
        raise UsageError("--bench times translations on a GPU: pass --validate cuda with it")
    if args.executor == "ray" and not args.validate:
        raise UsageError("--executor ray runs validation tasks: pass --validate cpu|cuda with it")
    if args.validate and args.executor == "local":
        _check_validation_installed()
    start = time.perf_counter()
    jobs, copies = _jobs(args)
    workers = args.jobs or os.cpu_count() or 1
    gpus = None
    if args.validate == "cuda" and args.executor == "local":
        gpus = _gpu_ids()
        workers = min(workers, len(gpus) or 1)
    results = run_jobs(jobs, workers, progress=not args.quiet, gpus=gpus)
    if args.executor == "ray" and args.validate:
        validate_on_ray(
            [r for r in results if r.column != "skipped"],
            args.validate,
            args.bench,
            args.ray_address,
            rep,
        )
    # Files with no kernel to translate: copied as they are with -o (with the other files).
    copies += [
        (r.job.file, r.job.target)
        for r in results
        if r.column == "skipped" and r.job.target is not None and r.job.target != r.job.file
    ]
    results = [r for r in results if r.column != "skipped"]
    codes: list[int] = []
    writing = (args.output is not None or args.write) and not (args.diff or args.check)
    # Diffs go to stdout: machine-readable diagnostics (json, github) go to stderr from the
    # first one on, not interleaved with them.
    rep.code_on_stdout = bool(args.diff)
    for r in results:
        out = r.outcome
        if out.diagnostic is not None:
            rep.report(out.diagnostic)
            codes.append(EXIT_INTERNAL if out.status == "error" else EXIT_REFUSED)
        for d in r.extra:
            rep.report(d)
            if d.severity == "error":  # a difference; a pair left unbenchmarked is a warning
                codes.append(EXIT_DIFFERENT)
        if out.text is None:
            continue
        target = r.job.target
        old = None
        if target is not None and os.path.exists(target):
            with open(target, encoding="utf-8", errors="replace") as f:
                old = f.read()
        if args.diff:
            name = target or r.job.file
            diff = unified_diff(old, out.text, name, name)
            if diff:
                import sys

                sys.stdout.write(diff)
                sys.stdout.flush()
                codes.append(EXIT_DIFFERENT)
        elif args.check:
            if target is not None and old != out.text:
                what = "would be rewritten" if old is not None else "would be created"
                rep.report(
                    Diagnostic(
                        target,
                        1,
                        1,
                        "would-change",
                        f"{target} {what}",
                        "run without --check to write it",
                        "warning",
                    )
                )
                codes.append(EXIT_DIFFERENT)
        elif writing and target is not None:
            codes.append(write_output(target, out.text, rep))
    copied = 0
    if args.output is not None and writing:
        for file, target in copies:
            try:
                os.makedirs(os.path.dirname(os.path.abspath(target)), exist_ok=True)
                shutil.copy2(file, target)
            except OSError as err:
                rep.report(
                    Diagnostic(
                        target,
                        1,
                        1,
                        "cannot-write",
                        f"cannot copy {file} to {target}: {why_not_written(target, err)}",
                        "check the output path",
                    )
                )
                codes.append(EXIT_USAGE)
                continue
            copied += 1
    elif args.output is not None:
        copied = len(copies)
    table = summary(results, copied)
    seconds = time.perf_counter() - start
    if not args.quiet:
        print_summary(table, seconds, len(results) + len(copies))
    if not (args.output is not None or args.write or args.diff or args.check):
        rep.note(
            "nothing written: pass -o DIR (a translated copy of the tree) or --write (in place)"
        )
    if args.report:
        code = write_report(args.report, results, table, rep)
        codes.append(code)
        if code == EXIT_OK:
            rep.note(f"wrote {args.report}")
    return worst(codes) if codes else EXIT_OK


__all__ = ["Job", "Result", "detect_kernel", "migrate", "run_jobs", "work"]
