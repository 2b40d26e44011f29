"""Running TileLang kernels for validation.

On the CPU (measured on tilelang 0.1.15 without a GPU), every kernel a ``@tilelang.jit``
factory (or an eager-style ``@tilelang.jit`` function) compiles is checked and run in two ways:

* as written, lowered to CUDA for ``sm_90a`` (``tilelang.lower`` inside a
  ``tvm.target.Target({"kind": "cuda", "arch": "sm_90a"})``; no nvcc needed): a compile check
  that catches what TileLang's layout inference and gemm lowering refuse;
* numerically, through TileLang's C target with the Cython execution backend, after a
  validation-only rewrite that the C target needs: ``T.alloc_shared``/``T.alloc_fragment`` ->
  ``T.alloc_local``, ``T.Parallel`` -> ``T.grid``, ``T.Pipelined`` -> ``T.serial``,
  ``T.cumsum`` -> serial loops (the C target has no cumsum lowering). Blocks then
  run one after another and threads and pipelining are ignored, so the run checks arithmetic and
  ragged edges, not races or layouts. The rewrite swaps the ``tilelang.language`` functions only
  while the factory builds the CPU variant; nothing is written to the user's files.

A module that compiles an undecorated factory's prim_func itself (``tilelang.compile(f,
out_idx=...)``) gets the same two builds: ``T.prim_func`` builds the CPU variant beside the
kernel as written, and ``tilelang.compile`` checks the one and builds the other.

An autotuned factory (``@tilelang.autotune``) runs at its defaults (the first config) on the
CPU, which cannot time configs.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from translator.dialects.base import Runner
from translator.ir import nodes as ir

#: The CUDA target of the compile check (the string form "cuda -arch=sm_90" is rejected).
CUDA_CHECK_TARGET = {"kind": "cuda", "arch": "sm_90a"}


@contextlib.contextmanager
def cpu_variant() -> Iterator[None]:
    """While active, ``tilelang.language`` builds kernels the C target can run."""
    import tilelang.language as T

    saved = {
        k: getattr(T, k)
        for k in ("alloc_shared", "alloc_fragment", "Parallel", "Pipelined", "cumsum")
    }

    def local(shape, dtype, *args, **kwargs):  # type: ignore[no-untyped-def]
        return T.alloc_local(shape, dtype)

    def serial(start, stop=None, num_stages=None, *args, **kwargs):  # type: ignore[no-untyped-def]
        return T.serial(start) if stop is None else T.serial(start, stop)

    def grid(*extents, **kwargs):  # type: ignore[no-untyped-def]
        return T.grid(*extents)

    T.alloc_shared = local
    T.alloc_fragment = local
    T.Parallel = grid
    T.Pipelined = serial
    T.cumsum = _serial_cumsum()
    try:
        yield
    finally:
        for k, v in saved.items():
            setattr(T, k, v)


def _serial_cumsum() -> object:
    """``T.cumsum(src, dst, dim)`` as serial loops (the C target has no cumsum lowering): each
    lane adds its predecessor along ``dim`` (1-D and 2-D buffers, forward scans)."""
    import tilelang.language as T

    @T.macro
    def cumsum(src, dst=None, dim=0, reverse=False):  # type: ignore[no-untyped-def]
        if dst is None:
            dst = src
        if len(src.shape) == 1:
            for j in T.serial(src.shape[0]):
                dst[j] = src[j] + T.if_then_else(j > 0, dst[T.max(j - 1, 0)], 0)
        elif dim == 1 or dim == -1:
            for i, j in T.grid(src.shape[0], src.shape[1]):
                dst[i, j] = src[i, j] + T.if_then_else(j > 0, dst[i, T.max(j - 1, 0)], 0)
        else:
            for j, i in T.grid(src.shape[0], src.shape[1]):
                dst[j, i] = src[j, i] + T.if_then_else(j > 0, dst[T.max(j - 1, 0), i], 0)

    return cumsum


def check_compiles(func: object) -> None:
    """Lower ``func`` (a ``T.prim_func`` as written) to sm_90a CUDA; raises what TileLang
    raises."""
    import tilelang
    import tvm

    with tvm.target.Target(CUDA_CHECK_TARGET):
        tilelang.lower(func)


def compile_for_cpu(jit: object, args: tuple, kwargs: dict) -> object:
    """The kernel ``jit`` (a ``JITImpl``) compiles for ``args``, checked for sm_90a and built
    for the C target."""

    check_compiles(jit.get_tir(*args, **kwargs))  # type: ignore[attr-defined]
    if getattr(jit, "mode", None) == "eager":
        func = _eager_cpu_tir(jit.func, args, kwargs)  # type: ignore[attr-defined]
    else:
        # The factory itself, not `get_tir`: TileLang caches the prim_func it built per
        # argument tuple, and that one is the kernel as written.
        with cpu_variant():
            func = jit.func.orig_func(*args, **kwargs)  # type: ignore[attr-defined]
    return build_for_c(func, jit.out_idx)  # type: ignore[attr-defined]


def build_for_c(func: object, out_idx: object) -> object:
    """``func`` (a prim_func built under :func:`cpu_variant`) compiled for TileLang's C target."""
    import tilelang
    import tvm

    # TileLang's own compile, also where validation replaced it (`_prepare_compiled`).
    compile = getattr(tilelang.compile, "__wrapped__", tilelang.compile)
    with tvm.target.Target("c"):
        return compile(
            func,
            out_idx=out_idx,
            target="c",
            target_host="c",
            execution_backend="cython",
            # g++ cannot convert TileLang's C vector types between half and float.
            pass_configs={"tirx.disable_vectorize": True},
        )


def _eager_cpu_tir(func: object, args: tuple, kwargs: dict) -> object:
    """The prim_func of an eager-style kernel (``T.const`` sizes, ``T.empty`` outputs) for
    ``args``, traced afresh under :func:`cpu_variant` (TileLang 0.1.15 caches the trace of the
    kernel as written per non-tensor arguments; this one is not cached)."""
    bound = func._argument_binder.bind(args, kwargs)  # type: ignore[attr-defined]
    # Both phases trace the body: the symbolic one and the one that substitutes the sizes.
    with cpu_variant():
        template = func._build_tir_template(**bound.compile_kwargs)  # type: ignore[attr-defined]
        return template.get_tir(
            func.tensor_args,  # type: ignore[attr-defined]
            bound.tensor_args,
            bound.compile_kwargs,
        )


def _prepare(device: str) -> None:
    if device != "cpu":
        return
    try:
        from tilelang.autotuner.tuner import AutoTuneImpl
        from tilelang.jit import JITImpl
    except ImportError:
        return
    if getattr(JITImpl.compile, "_tiletrans_cpu", False):
        return

    def compile(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        return compile_for_cpu(self, args, kwargs)

    def tuned_call(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        # No timing on the CPU: the factory's defaults are its first config.
        return self.jit_impl(*args, **kwargs)

    compile._tiletrans_cpu = True  # type: ignore[attr-defined]
    JITImpl.compile = compile
    AutoTuneImpl.__call__ = tuned_call
    _prepare_compiled()


#: ``id(prim_func as written)`` -> (that prim_func, its CPU variant), for ``tilelang.compile``.
_CPU_VARIANTS: dict[int, tuple[object, object]] = {}


def _prepare_compiled() -> None:
    """Undecorated factories (TileLang's example-folder style) return a prim_func that the
    module compiles with ``tilelang.compile(func, out_idx=...)``: the prim_func exists before
    the compile call, so ``T.prim_func`` builds the CPU variant beside it (TVMScript parses the
    function again while :func:`cpu_variant` swaps the ``tilelang.language`` functions), and
    ``tilelang.compile`` checks the one as written for sm_90a and builds the variant for C."""
    import tilelang
    import tilelang.language as T

    written_prim_func = T.prim_func

    def prim_func(func=None, *args, **kwargs):  # type: ignore[no-untyped-def]
        if func is None or args or kwargs:
            return written_prim_func(func, *args, **kwargs)
        written = written_prim_func(func)
        with cpu_variant():
            _CPU_VARIANTS[id(written)] = (written, written_prim_func(func))
        return written

    def compile(func, out_idx=None, *args, **kwargs):  # type: ignore[no-untyped-def]
        check_compiles(func)
        _, cpu = _CPU_VARIANTS.get(id(func), (None, func))
        return build_for_c(cpu, out_idx)

    compile.__wrapped__ = tilelang.compile  # type: ignore[attr-defined]
    T.prim_func = prim_func
    tilelang.compile = compile


def _pin(obj: object) -> bool:
    """An autotuned factory keeps its first config (the source's first) only."""
    try:
        from tilelang.autotuner.tuner import AutoTuneImpl
    except ImportError:
        return False
    # Through a memoising decorator (`@functools.cache` above `@tilelang.autotune`).
    obj = getattr(obj, "__wrapped__", obj)
    configs = getattr(obj, "configs", None)
    if isinstance(obj, AutoTuneImpl) and isinstance(configs, list) and len(configs) > 1:
        obj.configs = configs[:1]
        return True
    return False


def _explain(module: ir.Module, device: str) -> list[str]:
    if device != "cpu":
        return []
    return [
        "kernels are lowered to sm_90a CUDA as written (a compile check) and run through "
        "TileLang's C target after a validation-only rewrite (shared/fragment -> local, "
        "T.Parallel -> T.grid): arithmetic and edges are checked, not threads or layouts"
    ]


RUNNER = Runner(prepare=_prepare, pin=_pin, explain=_explain)
