"""Run a GPU benchmark twice: first as parallel shards that fill the compile caches, then whole.

    source .devbundle/setup.sh && python -m benchmarks.warm_shards N MODULE [ARGS...]

A device call has minutes, and most of a TileLang or cuTile benchmark's time is compiling
(TVM and nvcc, tileiras), one kernel after another on one of the machine's 16 cores. The
TileLang, cuTile, Triton and Helion compilers all keep their kernels in on-disk caches that
later processes reuse, so ``N`` shards of ``python -m MODULE ARGS --shard i/N`` run side by side
compile every kernel once in parallel (their output, in a temporary folder, is discarded: their
timings overlap on one GPU and mean nothing; they run with ``TILETRANS_WARM_SHARD=1``, which a
module may read to skip its timings).
Then ``python -m MODULE ARGS`` runs alone, in the foreground, with ``$OUT`` as given: its
equivalence checks and timings are the figures to report, its compiles cache hits.

``MODULE`` must take ``--shard I/N`` (``gpu_library``, ``gpu_tilelang``, ``gpu_cutile``).
Prints how long each phase took.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time


def main(argv: list[str]) -> int:
    if len(argv) < 2 or not argv[0].isdigit():
        print(__doc__, file=sys.stderr)
        return 2
    shards, module, args = int(argv[0]), argv[1], argv[2:]
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="warm-shards-") as tmp:
        procs = []
        for i in range(1, shards + 1):
            out = os.path.join(tmp, f"out{i}")
            os.makedirs(out)
            log = open(os.path.join(tmp, f"warm{i}.log"), "w")  # noqa: SIM115 (closed below)
            cmd = [sys.executable, "-m", module, *args, "--shard", f"{i}/{shards}"]
            procs.append((subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                           env={**os.environ, "OUT": out, "TILETRANS_WARM_SHARD": "1"}), log))  # fmt: skip
        failed = 0
        for proc, log in procs:
            failed += proc.wait() != 0
            log.close()
    warm = time.perf_counter() - start
    print(f"warm-up: {shards} shards in {warm:.0f} s ({failed} exited non-zero)", flush=True)
    start = time.perf_counter()
    code = subprocess.call([sys.executable, "-m", module, *args])
    print(f"measured run: {time.perf_counter() - start:.0f} s", flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
