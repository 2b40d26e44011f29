"""Host time per launch of a Triton translation, before and after its sizes became
``tl.constexpr`` (2e7e459): launches only, no synchronisation inside the timed loop.

    source .devbundle/setup.sh && python -m benchmarks.launch_overhead_probe

Prints the host microseconds per call of each; writes where that time goes (cProfile, by own
time) to ``$OUT/launch_profile.txt``.
"""

from __future__ import annotations

import cProfile
import io
import os
import pstats
import re
import statistics
import tempfile
import time
from pathlib import Path

import torch

from benchmarks.common import ROOT
from validation.runners import load_module

CASES = (("layer_norm", "layer_norm_fwd"), ("group_norm", "group_norm"))
OUT = Path(os.environ.get("OUT", "/tmp"))


def _runtime_sizes(text: str) -> str:
    """``text`` as emitted before 2e7e459: the lower-case (size) parameters that are
    ``tl.constexpr`` taken as runtime values again; block sizes (upper case) stay."""
    return re.sub(r"^(    [a-z_][a-z0-9_]*): tl\.constexpr,$", r"\1,", text, flags=re.M)


def _host_us(fn, args, calls: int = 2000) -> float:
    for _ in range(20):
        fn(*args)
    torch.cuda.synchronize()
    rounds = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn(*args)
        rounds.append((time.perf_counter() - t0) / calls * 1e6)
        torch.cuda.synchronize()
    return statistics.median(rounds)


def _profile(fn, args, calls: int = 2000) -> str:
    """The 12 functions with the most own time over ``calls`` launches (where the host time goes)."""
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(calls):
        fn(*args)
    profiler.disable()
    torch.cuda.synchronize()
    stream = io.StringIO()
    pstats.Stats(profiler, stream=stream).sort_stats("tottime").print_stats(12)
    return stream.getvalue()


def main() -> None:
    inputs = load_module(ROOT / "examples/library/inputs.py", "ovh_inputs")
    inputs.M, inputs.N = 8192, 4096
    tmp = Path(tempfile.mkdtemp(prefix="ovh-"))
    for module, entry in CASES:
        args = inputs.inputs(entry, "cuda", "float16")
        golden = ROOT / f"examples/library/helion/expected_triton/{module}.py"
        new = load_module(golden, f"n_{module}")
        old_path = tmp / f"old_{module}.py"
        old_path.write_text(_runtime_sizes(golden.read_text()))
        old = load_module(old_path, f"o_{module}")
        variants = (("before (runtime sizes)", old), ("after (constexpr sizes)", new))
        for label, mod in variants:
            us = _host_us(getattr(mod, entry), args)
            print(f"{module}.{entry} {label}: {us:.1f} us/call host", flush=True)
        with (OUT / "launch_profile.txt").open("a") as report:
            for label, mod in variants:
                report.write(f"--- profile, {module}.{entry} {label}\n")
                report.write(_profile(getattr(mod, entry), args))


if __name__ == "__main__":
    main()
