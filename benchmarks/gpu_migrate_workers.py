"""`tiletrans migrate --validate cuda` on a machine with several GPUs: one worker per GPU.

    source .devbundle/setup.sh && python -m benchmarks.gpu_migrate_workers [--files N]

Copies the bundled Helion and Triton examples into a temporary library, migrates it to Triton
and Helion respectively (``--validate cuda``, ``-j`` larger than the GPU count) with the
installed CLI in a subprocess, and watches ``nvidia-smi --query-compute-apps`` every 0.2 s while
it runs: which processes hold a CUDA context on which GPU. What it checks, and prints last:

- every visible GPU was used, by its own process (a worker on one GPU only, as many workers
  as GPUs: ``-j`` is capped at the GPU count);
- every file came back ``translated + verified`` in the report;
- the same migrate with ``CUDA_VISIBLE_DEVICES`` set to one GPU, for the wall times side by side.

Exit status 1 when a check fails. The CPU test of the same pinning is
``tests/test_workflow.py::test_validate_cuda_pins_one_gpu_per_worker``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from benchmarks.common import ROOT


def _gpus() -> dict[str, str]:
    """uuid -> index of every GPU the driver shows."""
    out = subprocess.run(
        ["nvidia-smi", "--query-gpu=index,uuid", "--format=csv,noheader"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    pairs = [line.split(", ") for line in out.strip().splitlines()]
    return {uuid.strip(): index.strip() for index, uuid in pairs}


class _Watcher(threading.Thread):
    """Samples which pids hold a CUDA context on which GPU until stopped."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.seen: dict[int, set[str]] = {}
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            out = subprocess.run(
                ["nvidia-smi", "--query-compute-apps=pid,gpu_uuid", "--format=csv,noheader"],
                capture_output=True,
                text=True,
            ).stdout
            for line in out.strip().splitlines():
                if ", " in line:
                    pid, uuid = line.split(", ", 1)
                    self.seen.setdefault(int(pid), set()).add(uuid.strip())
            time.sleep(0.2)


def _library(tmp: Path, files: int) -> Path:
    """Helion and Triton examples with a translation golden (they validate as bundled)."""
    lib = tmp / "lib"
    for dsl, dst in (("helion", "triton"), ("triton", "helion")):
        (lib / dsl).mkdir(parents=True)
        names = sorted(p.name for p in (ROOT / "examples" / dsl / f"expected_{dst}").glob("*.py"))
        for name in names[: files // 2]:
            shutil.copy(ROOT / "examples" / dsl / name, lib / dsl / name)
    return lib


def _migrate(lib: Path, out: Path, env: dict[str, str]) -> tuple[float, dict, str]:
    """Both halves of the library migrated; wall seconds, pid -> GPUs seen, the reports."""
    watcher = _Watcher()
    watcher.start()
    start = time.perf_counter()
    reports = []
    for dsl, dst in (("helion", "triton"), ("triton", "helion")):
        report = out / f"{dsl}.md"
        cmd = [sys.executable, "-m", "translator.cli", "migrate", str(lib / dsl), "--to", dst,
               "-o", str(out / dsl), "--validate", "cuda", "-j", "8", "--quiet",
               "--report", str(report)]  # fmt: skip
        done = subprocess.run(cmd, env=env, capture_output=True, text=True)
        print(f"$ {' '.join(cmd[1:])}\n  exit {done.returncode}", flush=True)
        if done.returncode not in (0, 1, 2):
            print(done.stderr[-3000:], flush=True)
        reports.append(report.read_text() if report.is_file() else "(no report)")
    wall = time.perf_counter() - start
    watcher.stop.set()
    watcher.join()
    return wall, watcher.seen, "\n".join(reports)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=16, help="files in all (half each DSL)")
    opts = parser.parse_args(argv)
    gpus = _gpus()
    print(f"GPUs: {len(gpus)}", flush=True)
    env = {k: v for k, v in os.environ.items() if k != "CUDA_VISIBLE_DEVICES"}
    with tempfile.TemporaryDirectory(prefix="gpu-migrate-") as tmp_name:
        tmp = Path(tmp_name)
        lib = _library(tmp, opts.files)
        files = sum(1 for _ in lib.rglob("*.py"))
        wall_all, seen, reports = _migrate(lib, tmp / "all", env)
        wall_one, seen_one, _ = _migrate(lib, tmp / "one", {**env, "CUDA_VISIBLE_DEVICES": "0"})
    # The parent (this script) holds no context; the migrate processes' workers do.
    workers = {pid: {gpus.get(u, u) for u in uuids} for pid, uuids in seen.items()}
    used = set().union(*workers.values()) if workers else set()
    rows = [line for line in reports.splitlines() if line.startswith("| `")]
    verified = sum("| translated + verified |" in line for line in rows)
    for line in rows:
        if "| translated + verified |" not in line:
            print(line[:300])
    checks = {
        "every GPU used": used == set(gpus.values()),
        "each worker on one GPU": all(len(g) == 1 for g in workers.values()),
        "workers per migrate == GPUs": len(workers) <= 2 * len(gpus),
        f"all {files} files verified": verified == files,
        "one-GPU run stays on GPU 0": {g for u in seen_one.values() for g in u}
        <= {u for u, i in gpus.items() if i == "0"},
    }
    print("\nworkers (pid: GPUs it held a context on):")
    for pid, g in sorted(workers.items()):
        print(f"  {pid}: {sorted(g)}")
    print(f"\nfiles {files}, verified {verified}")
    print(f"wall, all {len(gpus)} GPUs: {wall_all:.1f} s; one GPU: {wall_one:.1f} s")
    for name, ok in checks.items():
        print(f"{'ok  ' if ok else 'FAIL'} {name}")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
