"""Helpers shared by the GPU benchmark scripts (``gpu_examples``, ``gpu_triton_examples``).

Nothing here imports triton or helion at module level, so a script can still set
``TRITON_INTERPRET=1`` (:func:`validation.equivalence.use_interpreter`) after importing this.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent


def rel_err(out, ref) -> float:
    """‖out − ref‖ / ‖ref‖ in float64; ``inf`` for a shape mismatch or any non-finite output.
    Tuples of tensors (a wrapper's several outputs) give the largest error of their pairs."""
    if isinstance(out, tuple) or isinstance(ref, tuple):
        if not (isinstance(out, tuple) and isinstance(ref, tuple)) or len(out) != len(ref):
            return math.inf
        return max((rel_err(o, r) for o, r in zip(out, ref)), default=0.0)
    if out.shape != ref.shape:
        return math.inf
    o, r = out.double(), ref.double()
    if not torch.isfinite(o).all():
        return math.inf
    return float((o - r).norm() / r.norm().clamp_min(1e-30))


def outputs(value) -> tuple:
    """A kernel's result as a tuple (tuple-returning wrappers stay as they are)."""
    return value if isinstance(value, tuple) else (value,)


def bench(fn: Callable[[], object]) -> float:
    """Median milliseconds of ``fn`` (``triton.testing.do_bench``, warm-up 25 ms, 200 ms of reps)."""
    import triton.testing

    return float(triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median"))


def bench_graph(fn: Callable[[], object]) -> float | None:
    """Median milliseconds of ``fn`` replayed from a CUDA graph (``do_bench_cudagraph``): device
    time without the host's launch overhead; ``None`` where ``fn`` cannot be captured."""
    import triton.testing

    try:
        fn()  # compiled and warm before capture
        torch.cuda.synchronize()
        return float(triton.testing.do_bench_cudagraph(fn, rep=200, return_mode="median"))
    except Exception:  # capture refused (host syncs, allocator): no device-only time
        torch.cuda.synchronize()
        return None


def bench_pair(
    source: Callable[[], object], translated: Callable[[], object], rounds: int = 3
) -> dict[str, float | None]:
    """Source and translation timed in alternating rounds (so that clock and thermal drift fall on
    both), each round a :func:`bench`; the medians over rounds, plus each side's CUDA-graph time
    (:func:`bench_graph`) for the device-only ratio."""
    import statistics

    src, tr = [], []
    for _ in range(rounds):
        src.append(bench(source))
        tr.append(bench(translated))
    out: dict[str, float | None] = {
        "src_ms": statistics.median(src),
        "tr_ms": statistics.median(tr),
        "src_graph_ms": bench_graph(source),
        "tr_graph_ms": bench_graph(translated),
    }
    out["ratio"] = out["src_ms"] / out["tr_ms"]
    g_src, g_tr = out["src_graph_ms"], out["tr_graph_ms"]
    out["graph_ratio"] = g_src / g_tr if g_src and g_tr else None
    return out


def helion_fn(kernel, args: tuple):
    """The Helion kernel compiled for ``args`` with its first config (no autotuning)."""
    bound = kernel.bind(args)
    configs = list(kernel.configs)
    return bound.compile_config(configs[0]) if configs else bound


def dist_version(name: str) -> str:
    """The installed distribution's version."""
    from importlib.metadata import version

    return version(name)


def helion_version() -> str:
    """Helion's version, or ``missing``."""
    try:
        import helion

        return getattr(helion, "__version__", None) or dist_version("helion")
    except Exception:  # pragma: no cover - reported in the table
        return "missing"
