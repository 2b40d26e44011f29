"""Host time per launch of a Triton translation, before and after its sizes became
``tl.constexpr`` (2e7e459): launches only, no synchronisation inside the timed loop.

    source .devbundle/setup.sh && python -m benchmarks.launch_overhead_probe
"""

from __future__ import annotations

import os
import re
import statistics
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


def main() -> None:
    inputs = load_module(ROOT / "examples/library/inputs.py", "ovh_inputs")
    inputs.M, inputs.N = 8192, 4096
    for module, entry in CASES:
        args = inputs.inputs(entry, "cuda", "float16")
        new = load_module(
            ROOT / f"examples/library/helion/expected_triton/{module}.py", f"n_{module}"
        )
        old = load_module(ROOT / f"benchmarks/_old_{module}.py", f"o_{module}")
        for label, mod in (("before (runtime sizes)", old), ("after (constexpr sizes)", new)):
            print(
                f"{module}.{entry} {label}: {_host_us(getattr(mod, entry), args):.1f} us/call host"
            )


if __name__ == "__main__":
    main()
