"""``tiletrans migrate`` of a generated library: wall time of whole runs, median of several.

    python -m benchmarks.migrate_speed [--files 1000] [--jobs 2] [--runs 3] [--keep DIR]

The library is made from the bundled Helion examples: ``--files`` renamed copies in nested
folders (``pkg00/helion_softmax_0042.py``, 100 per folder), each made distinct by a first line
naming the copy, so that no two files have the same text (nothing may be reused between
files: the benchmark measures translating ``--files`` different sources). Each run is
``tiletrans migrate LIB --to triton -o OUT -j JOBS -q`` into a fresh output folder, after one
unmeasured warm-up run on a 20-file library (which fills the on-disk cache of grammars and
templates, as any earlier run does). The table gives the median, minimum and maximum, the
per-file median, and the load average before and after, because on a shared machine other
jobs' load inflates every figure: re-run on a quiet machine for the record.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.cli_speed import ROOT, compile_checkout, real_path, versions


def make_library(folder: Path, n: int) -> list[Path]:
    """``n`` distinct kernel files made from the bundled Helion examples (each one a file that
    ``migrate --to triton`` translates), in folders of 100."""
    sources = sorted((ROOT / "examples" / "helion").glob("*.py"))
    made = []
    for i in range(n):
        src = sources[i % len(sources)]
        dst = folder / f"pkg{i // 100:02d}" / f"{src.parent.name}_{src.stem}_{i:04d}.py"
        dst.parent.mkdir(parents=True, exist_ok=True)
        text = src.read_text(encoding="utf-8")
        dst.write_text(f"# benchmark library: copy {i} of {src.name}\n{text}", encoding="utf-8")
        made.append(dst)
    return made


def run_once(exe: list[str], lib: Path, out: Path, jobs: int) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system, the process and its workers) of one
    ``migrate`` into a fresh ``out`` (which it checks was written). CPU time is what other
    jobs' load inflates least: on a quiet machine, wall ≈ CPU / jobs plus the serial part."""
    if out.exists():
        shutil.rmtree(out)
    cmd = [*exe, "migrate", str(lib), "--to", "triton", "-o", str(out), "-q", "-j", str(jobs)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}:\n{proc.stderr[-2000:]}")
    written = sum(1 for _ in out.rglob("*.py"))
    if written != sum(1 for _ in lib.rglob("*.py")):
        raise SystemExit(f"migrate wrote {written} files for {lib}")
    return elapsed, cpu


def load() -> str:
    try:
        return " ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "?"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tiletrans", default=shutil.which("tiletrans"))
    parser.add_argument("--keep", type=Path, help="make the library here and keep it")
    opts = parser.parse_args(argv)
    if opts.tiletrans is None:
        raise SystemExit("no tiletrans on PATH: pip install -e . (or --tiletrans PATH)")
    exe = [real_path(opts.tiletrans)]
    compile_checkout()
    with tempfile.TemporaryDirectory(prefix="tiletrans-migrate-") as tmp:
        root = opts.keep or Path(tmp)
        lib, out = root / "lib", root / "out"
        if lib.exists():
            shutil.rmtree(lib)
        make_library(lib, opts.files)
        warm = root / "warm"
        make_library(warm, 20)
        run_once(exe, warm, root / "warm_out", opts.jobs)
        before = load()
        runs = [run_once(exe, lib, out, opts.jobs) for _ in range(opts.runs)]
        after = load()
    times = [wall for wall, _ in runs]
    cpus = [cpu for _, cpu in runs]
    print(f"{versions()}; load average before {before}, after {after}\n")
    print("| command | runs | median wall s | min s | max s | median CPU s | CPU ms per file |")
    print("|---|---|---|---|---|---|---|")
    med, cpu = statistics.median(times), statistics.median(cpus)
    print(
        f"| `tiletrans migrate LIB({opts.files} files) --to triton -o OUT -j {opts.jobs}` | "
        f"{len(times)} | **{med:.1f}** | {min(times):.1f} | {max(times):.1f} | {cpu:.1f} | "
        f"{cpu / opts.files * 1000:.1f} |"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
