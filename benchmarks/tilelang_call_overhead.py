"""Host time of one call of an autotuned TileLang factory whose kernel is already tuned (CPU).

    python -m benchmarks.tilelang_call_overhead

Why the TileLang backend puts ``@functools.cache`` above ``@tilelang.autotune``: TileLang
0.1.15's ``AutoTuneImpl.__call__`` builds a new ``AutoTuner`` (and resolves its compile
target) on every call before it looks the tuned kernel up in its cache, and the translated
host wrapper calls the factory at every launch. No GPU is needed: the tuned kernel is stood in
by an object placed in the autotuner's own cache under the key the call computes, so only the
lookup is timed. Prints microseconds a call, median of 7 rounds of 2,000 calls.
"""

from __future__ import annotations

import functools
import statistics
import time
from collections.abc import Callable


def _per_call_us(fn: Callable[[], object], calls: int = 2000, rounds: int = 7) -> float:
    fn()
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        times.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(times)


def main() -> None:
    import tilelang
    import tilelang.language as T
    from tilelang.autotuner.tuner import _normalize_value

    @tilelang.autotune(configs=[{"block": 128}, {"block": 256}])
    @tilelang.jit(target={"kind": "cuda", "arch": "sm_90a"})
    def scale(x_shape, x_strides, x_dtype, block=128):
        @T.prim_func
        def main(x: T.StridedTensor(x_shape, x_strides, x_dtype)):
            with T.Kernel(T.ceildiv(x_shape[0], block), threads=128) as bx:
                T.evaluate(bx)

        return main

    args = ((16384, 4096), (4096, 1), "float16")
    scale.jit_impl.initialize_jit_mode(*args)
    key = (_normalize_value(args, sort_dict_items=True), _normalize_value({}, sort_dict_items=True))
    tuned = object()  # the kernel the search would have picked
    scale._tuner_cache[key] = (tuned, {"block": 128})
    assert scale(*args) is tuned
    memoized = functools.cache(scale)
    assert memoized(*args) is tuned
    print(f"tilelang {tilelang.__version__}, one call of a tuned factory (us):")
    print(f"  through tilelang.autotune's lookup: {_per_call_us(lambda: scale(*args)):.1f}")
    print(f"  through @functools.cache above it:  {_per_call_us(lambda: memoized(*args)):.2f}")


if __name__ == "__main__":
    main()
