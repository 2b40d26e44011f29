"""Command-line start-up and throughput: hyperfine-style medians of whole ``tiletrans`` runs.

    python -m benchmarks.cli_speed [--runs 30] [--warmup 3] [--library 1000] [--jobs 2]

Each command runs ``--warmup`` times unmeasured, then ``--runs`` times; the table gives the median,
the minimum and the mean ± standard deviation of the wall time of each whole process (start-up,
imports, work, exit), like ``hyperfine -N``. ``python -c pass`` is the floor every Python command
pays on the machine. ``--library N`` also times ``tiletrans migrate`` of a generated library of N
kernel files (:mod:`benchmarks.migrate_speed`), three runs.

The console script is the installed ``tiletrans`` (``--tiletrans PATH`` to pick another; the
script's real path, not a pyenv shim, whose ``pyenv exec`` adds about 60 ms); it imports this
checkout's ``translator`` (``PYTHONPATH`` is set to the repository). The checkout is
byte-compiled first (``compileall``), as ``pip install`` does for an installed package: with
``PYTHONDONTWRITEBYTECODE=1`` set, as on the project's machines, every run would otherwise
compile the translator's modules again. The warm-up runs fill tiletrans's on-disk cache of
parsed grammars and compiled templates (:mod:`translator.cache`), as any earlier run does.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


#: CPU seconds (user + system) of each timed process, by command, filled by :func:`timed`.
CPU: dict[str, list[float]] = {}


def timed(cmd: list[str], runs: int, warmup: int, cwd: Path) -> list[float]:
    """Wall seconds of ``runs`` runs of ``cmd`` (after ``warmup`` unmeasured ones); their CPU
    seconds go to :data:`CPU` (less inflated than wall time by other jobs on the machine)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    times = []
    cpu = CPU.setdefault(" ".join(cmd), [])
    for i in range(warmup + runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run(
            cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        elapsed = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode not in (0, 2):
            raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}: {proc.stderr.decode()}")
        if i >= warmup:
            times.append(elapsed)
            cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return times


def row(name: str, times: list[float], cpu: list[float]) -> str:
    ms = [t * 1000 for t in times]
    spread = statistics.stdev(ms) if len(ms) > 1 else 0.0
    return (
        f"| `{name}` | {len(ms)} | **{statistics.median(ms):.0f}** | {min(ms):.0f} | "
        f"{statistics.mean(ms):.0f} ± {spread:.0f} | {statistics.median(cpu) * 1000:.0f} |"
    )


def versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    parts = [f"Python {platform.python_version()}"]
    for pkg in ("libcst", "jinja2", "rich"):
        try:
            parts.append(f"{pkg} {version(pkg)}")
        except PackageNotFoundError:
            parts.append(f"{pkg} (missing)")
    parts.append(f"{os.cpu_count()} CPUs ({platform.machine()})")
    with contextlib.suppress(OSError):
        parts.append("load average " + " ".join(f"{x:.1f}" for x in os.getloadavg()))
    return ", ".join(parts)


def real_path(exe: str) -> str:
    """``exe`` itself, or the program a pyenv shim would run (the shim is a bash script)."""
    try:
        with open(exe, "rb") as f:
            shim = b"pyenv" in f.read(400) and b"exec" in f.read(400)
    except OSError:
        return exe
    if not shim:
        return exe
    found = subprocess.run(
        ["pyenv", "which", os.path.basename(exe)], capture_output=True, text=True
    ).stdout.strip()
    return found or exe


def compile_checkout() -> None:
    """Byte-compile the checkout's packages (what ``pip install`` does for installed ones)."""
    for pkg in ("translator", "validation"):
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", str(ROOT / pkg)],
            check=True,
            stdout=subprocess.DEVNULL,
        )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--library", type=int, default=0, help="files in the migrate benchmark")
    parser.add_argument("--jobs", type=int, default=2, help="migrate -j")
    parser.add_argument("--tiletrans", default=shutil.which("tiletrans"))
    opts = parser.parse_args(argv)
    if opts.tiletrans is None:
        raise SystemExit("no tiletrans on PATH: pip install -e . (or --tiletrans PATH)")
    exe = [real_path(opts.tiletrans)]
    py = sys.executable
    compile_checkout()
    commands = [
        ("python -c pass", [py, "-c", "pass"]),
        ("tiletrans --version", [*exe, "--version"]),
        ("tiletrans --help", [*exe, "--help"]),
        (
            "tiletrans helion2triton examples/helion/add.py",
            [*exe, "helion2triton", "examples/helion/add.py"],
        ),
        (
            "tiletrans helion2triton examples/helion/softmax.py",
            [*exe, "helion2triton", "examples/helion/softmax.py"],
        ),
        (
            "tiletrans triton2helion examples/triton/softmax.py",
            [*exe, "triton2helion", "examples/triton/softmax.py"],
        ),
    ]
    print(f"{versions()}; {opts.runs} runs after {opts.warmup} warm-ups; wall ms per process\n")
    print("| command | runs | median | min | mean ± sd | median CPU |")
    print("|---|---|---|---|---|---|")
    for name, cmd in commands:
        times = timed(cmd, opts.runs, opts.warmup, ROOT)
        print(row(name, times, CPU[" ".join(cmd)]), flush=True)
    if opts.library:
        from benchmarks.migrate_speed import make_library

        with tempfile.TemporaryDirectory(prefix="tiletrans-lib-") as tmp:
            lib = Path(tmp) / "lib"
            make_library(lib, opts.library)
            out = Path(tmp) / "out"
            cmd = [*exe, "migrate", str(lib), "--to", "triton", "-o", str(out), "-q"]
            cmd += ["-j", str(opts.jobs)]
            name = f"tiletrans migrate LIB({opts.library} files) --to triton -o OUT -j {opts.jobs}"
            print(row(name, timed(cmd, 3, 0, ROOT), CPU[" ".join(cmd)]), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
