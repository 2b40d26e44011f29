"""GPU timing without any DSL's helpers: CUDA events around each call, L2 flushed in between.

The method of ``triton.testing.do_bench`` (which the earlier benchmark tables used), written
against torch alone so that validation names no DSL: the number of warm-up calls and timed
calls comes from time budgets in milliseconds; before each call a 256 MiB buffer is zeroed so
that the call starts with a cold L2; the result is the median of the timed calls.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Any

_FLUSH_BYTES = 256 * 2**20


def median_ms(fn: Callable[[], Any], warmup: float = 25.0, rep: float = 100.0) -> float:
    """The median time of ``fn()`` in milliseconds on the current CUDA device."""
    import torch

    flush = torch.empty(_FLUSH_BYTES // 4, dtype=torch.int32, device="cuda")
    fn()
    torch.cuda.synchronize()
    # Estimate one call's time from five, to size the warm-up and the timed runs.
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(5):
        flush.zero_()
        fn()
    end.record()
    torch.cuda.synchronize()
    estimate = max(start.elapsed_time(end) / 5, 1e-3)
    for _ in range(max(1, int(warmup / estimate))):
        fn()
    count = max(1, int(rep / estimate))
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(count)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(count)]
    for s, e in zip(starts, ends):
        flush.zero_()
        s.record()
        fn()
        e.record()
    torch.cuda.synchronize()
    return float(statistics.median(s.elapsed_time(e) for s, e in zip(starts, ends)))


__all__ = ["median_ms"]
