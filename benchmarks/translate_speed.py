"""Translation speed: CPU time to translate every example (parse, verify, emit), in one process.

    python -m benchmarks.translate_speed [--repeat 5]

Prints per-example and total CPU seconds (``time.process_time``), the best of ``--repeat`` runs;
the first, cold run (imports, grammar loading) is reported separately.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _translate_all(examples: list[Path]) -> dict[str, float]:
    from translator.api import translate_file

    times = {}
    for example in examples:
        t0 = time.process_time()
        translate_file(example, "helion", "triton")
        times[example.stem] = time.process_time() - t0
    return times


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    opts = parser.parse_args(argv)
    examples = sorted((ROOT / "examples" / "helion").glob("*.py"))
    t0 = time.process_time()
    cold = _translate_all(examples)
    cold_total = time.process_time() - t0
    runs = [_translate_all(examples) for _ in range(opts.repeat)]
    best = {name: min(r[name] for r in runs) for name in cold}
    for name, t in best.items():
        print(f"{name:24s} {t * 1000:8.1f} ms")
    print(f"{'total (warm, best of ' + str(opts.repeat) + ')':24s} {sum(best.values()):8.3f} s CPU")
    print(f"{'total (cold, first run)':24s} {cold_total:8.3f} s CPU, {len(examples)} examples")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
