"""All bundled examples of one DSL into every target DSL, in one fresh process (imports
included): issue 13's measurement (TileLang: 21 examples x 4 targets = 84 translations).

    python -m benchmarks.translate_all [--from tilelang|all] [--to DSL]

Prints the number of translations (and refusals), wall seconds and CPU seconds
(``time.process_time``) since the process started timing, before the first import of the
translator. Run it under ``/usr/bin/time -f "%e %U %S"`` to include the interpreter's start.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from", dest="src", default="tilelang", help="a DSL, or `all`")
    parser.add_argument("--to", dest="dst", default=None, help="one DSL (default: every one)")
    opts = parser.parse_args(argv)
    wall0, cpu0 = time.perf_counter(), time.process_time()
    from translator.api import translate_file
    from translator.diagnostics import TranslationError
    from translator.dialects import target_dialects

    sources = list(target_dialects()) if opts.src == "all" else [opts.src]
    targets = [opts.dst] if opts.dst else list(target_dialects())
    count = refused = 0
    for src in sources:
        for example in sorted((ROOT / "examples" / src).glob("*.py")):
            for dst in targets:
                count += 1
                try:
                    translate_file(example, src, dst)
                except TranslationError:
                    refused += 1
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    print(f"{count} translations ({refused} refused): {wall:.2f} s wall, {cpu:.2f} s CPU")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
