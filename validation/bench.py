"""Timing a translation against its source on a CUDA GPU.

Both sides run on the same fresh random inputs, sized so that their total exceeds the L2 cache
(50 MB on H100, 60 MB on H200; the default target is 64 MiB) so that timings reflect memory
traffic rather than cache hits. Each side is compiled (and autotuned, where it autotunes) by one
untimed call, then timed with :func:`validation.timing.median_ms` (``do_bench``'s method: warm-up
and repetitions from 25 ms and 100 ms budgets, L2 flushed before each call, the median).
``speedup = t_source / t_translated``: above 1 the translation is faster.

On the CPU there is nothing to measure (the interpreter's timings say nothing about GPU speed):
:func:`bench_pair` raises :class:`BenchUnavailable`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from validation.relations import Relations
from validation.runners import call_entry

L2_TARGET_BYTES = 64 * 2**20
# Dims loaded whole into one block (a softmax row) get a realistic fixed size instead of growing
# with the others; a whole dim that feeds a dot (a head dim) must stay small enough for registers.
FULL_DIM_SIZE = 1024
DOT_FULL_DIM_SIZE = 64


class BenchUnavailable(RuntimeError):
    """Benchmarking was asked for where it cannot run (no CUDA device)."""


@dataclass(frozen=True)
class BenchRow:
    """Timings of one entry."""

    entry: str
    dtype: str
    t_source_ms: float
    t_translated_ms: float
    speedup: float
    error: float
    passed: bool
    sizes: Mapping[str, int] = field(default_factory=dict)


def _elem_bytes(dtype: str) -> int:
    return {"float16": 2, "bfloat16": 2, "float32": 4, "float64": 8}.get(dtype, 4)


def bench_sizes(
    rel: Relations,
    dtype: str = "float16",
    min_bytes: int = L2_TARGET_BYTES,
    sizes: Mapping[str, int] | None = None,
) -> dict[str, int]:
    """Class sizes whose inputs total at least ``min_bytes``.

    Overridden and literal classes keep their size; whole-loaded dims get a fixed size; the tiled
    classes grow together, keeping their ragged proportions, until the inputs are big enough.
    """
    from validation.inputs import class_sizes, shapes

    base = class_sizes(rel, sizes, strict=False)
    sizes = dict(sizes or {})
    grow: list[str] = []
    for c in rel.classes:
        if any(a in sizes for a in c.aliases) or c.const is not None:
            continue
        if "tile" not in c.uses and c.uses & {"full", "dot"}:
            base[c.name] = DOT_FULL_DIM_SIZE if "dot" in c.uses else FULL_DIM_SIZE
        else:
            grow.append(c.name)

    def scaled(f: float) -> dict[str, int]:
        return {k: (max(1, round(v * f)) if k in grow else v) for k, v in base.items()}

    def total(s: dict[str, int]) -> int:
        n = 0
        for t, shape in shapes(rel, s).items():
            width = 8 if t in rel.index_tensors else _elem_bytes(dtype)
            n += math.prod(shape) * width
        return n

    if not grow or total(base) >= min_bytes:
        return base
    lo, hi = 1.0, 2.0
    while total(scaled(hi)) < min_bytes:
        lo, hi = hi, hi * 2
        if hi > 2**40:
            raise ValueError(f"{rel.entry}: inputs do not grow with their sizes")
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if total(scaled(mid)) < min_bytes else (lo, mid)
    return scaled(hi)


def bench_pair(
    source_path: str | Path,
    translated_path: str | Path,
    src_dsl: str | None = None,
    device: str = "cuda",
    dtype: str = "float16",
    sizes: Mapping[str, int] | None = None,
    seed: int = 0,
    min_bytes: int = L2_TARGET_BYTES,
    warmup: int = 25,
    rep: int = 100,
) -> list[BenchRow]:
    """Time every entry of SOURCE and TRANSLATED on ``device`` (CUDA only)."""
    if not device.startswith("cuda"):
        raise BenchUnavailable(
            f"benchmarking needs a CUDA device, not {device!r}: CPU interpreters' timings "
            "say nothing about GPU speed"
        )
    import torch

    if not torch.cuda.is_available():
        raise BenchUnavailable("benchmarking needs a CUDA device and torch sees none")
    from translator.api import parse_file
    from validation.compare import compare
    from validation.inputs import synthesize
    from validation.relations import derive
    from validation.runners import get_entry, load_module
    from validation.timing import median_ms

    module = parse_file(source_path, src_dsl)
    src_mod = load_module(source_path, "source")
    dst_mod = load_module(translated_path, "translated")
    rows = []
    for entry in (e for e in module.entries if e.public):
        try:
            rel = derive(entry, module.kernels, module.entries)
        except ValueError:
            continue  # inputs it cannot shape: `validate` reports them; the others are timed
        csize = bench_sizes(rel, dtype, min_bytes, sizes)
        inputs = synthesize(rel, device, dtype, seed, {**(sizes or {}), **csize}, strict=False)
        args = [inputs[p] for p in rel.params]
        fns = {
            "source": get_entry(src_mod, entry.name),
            "translated": get_entry(dst_mod, entry.name),
        }
        outs: dict[str, Any] = {}
        times: dict[str, float] = {}
        for role, fn in fns.items():
            call_args = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
            outs[role] = call_entry(fn, call_args)  # compile and autotune outside the timing
            torch.cuda.synchronize()
            times[role] = median_ms(_bound(fn, call_args), warmup=warmup, rep=rep)
        result = compare(outs["translated"], outs["source"], dtype, rel.has_dot)
        rows.append(
            BenchRow(
                entry=entry.name,
                dtype=dtype,
                t_source_ms=times["source"],
                t_translated_ms=times["translated"],
                speedup=times["source"] / times["translated"],
                error=result.error,
                passed=result.passed,
                sizes=csize,
            )
        )
    return rows


def _bound(fn: Callable[..., Any], args: list[Any]) -> Callable[[], Any]:
    return lambda: call_entry(fn, args)
