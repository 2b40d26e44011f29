"""Running cuTile kernels for validation.

On a GPU, cuTile runs itself. On the CPU there is no cuTile interpreter, so a launch is proved in
two steps (the oracle the validation report names, :data:`ORACLE`):

1. the kernel compiles to a cubin for sm_90 (``cuda.tile.compilation.export_kernel`` with
   ``tileiras``), specialised on the launch's dtypes, ranks and constants: what cuTile's compiler
   checks (tile shapes, mma operand and accumulator shapes, dtypes, narrowing stores) is checked;
2. the kernel's IR, read back from its own source file by the cuTile frontend, runs in the IR
   reference interpreter on the launch's arguments (tensors written in place).

A tuned launch's ``ct.tune.exhaustive_search`` cannot time anything on the CPU: there every config
of the space is checked to launch one program per tile with its trial arguments, and the first is
the best (as Triton's runner pins an autotuner's first config), which the launch then compiles.
With :data:`COMPILE_EVERY_CONFIG` every config compiles for sm_90 too (0.1-0.5 s each on an idle
CPU, seconds on a loaded one: tests that prove a space turn it on, equivalence runs do not).

``prepare("cpu")`` installs that as ``ct.launch`` for CPU tensors, and lets host code ask for
``torch.cuda.current_stream()`` (the stream cuTile launches take) on a machine without CUDA. The
host code around launches runs for real; only the kernels run as their IR.
"""

from __future__ import annotations

import inspect
import io
import os
import weakref
from collections.abc import Callable
from typing import Any

from translator.dialects.base import Runner

ORACLE = (
    "compiled to an sm_90 cubin by tileiras, then run as its IR (read back by the cuTile "
    "frontend) in the reference interpreter"
)

_PARSED: dict[tuple[str, float], Any] = {}
#: Per kernel object (weakly: a module loaded for one validation goes away, and a later
#: kernel must not inherit its entries through a reused id), the specialisations compiled for
#: sm_90 and the configs of a search compiled.
_COMPILED: weakref.WeakKeyDictionary[Any, set[tuple]] = weakref.WeakKeyDictionary()
_SEARCHED: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()
#: "SMs" of a CPU device (a persistent launch's grid), as Helion's runner has.
CPU_SMS = 4
#: Whether the CPU search compiles every config of a space for sm_90 (else only the chosen one,
#: when the launch after the search compiles it).
COMPILE_EVERY_CONFIG = False
_original_launch: Callable[..., Any] | None = None
_original_search: Callable[..., Any] | None = None


class CpuLaunchError(RuntimeError):
    """A launch the CPU oracle cannot prove (a grid that is not one program per tile...)."""


def _kernel_ir(kernel: Any) -> Any:
    """The IR of a ``@ct.kernel`` object, read from its source file (cached by mtime)."""
    from translator.dialects.cutile.frontend import parse

    fn = kernel._pyfunc
    path = inspect.getsourcefile(fn)
    if path is None:
        raise CpuLaunchError(f"no source file for kernel {fn.__name__}")
    key = (path, os.path.getmtime(path))
    if key not in _PARSED:
        with open(path) as f:
            _PARSED[key] = parse(f.read(), path)
    return _PARSED[key].kernel(fn.__name__)


def _constraint(value: Any) -> Any:
    import cuda.tile as ct
    import torch
    from cuda.tile.compilation import ArrayConstraint, ScalarConstraint

    if isinstance(value, torch.Tensor):
        dtype = getattr(ct, "bool_" if value.dtype == torch.bool else str(value.dtype)[6:])
        return ArrayConstraint(
            dtype,
            value.dim(),
            index_dtype=ct.int32,
            stride_lower_bound_incl=0,
            alias_groups=(),
            may_alias_internally=False,
        )
    if isinstance(value, bool):
        return ScalarConstraint(ct.bool_)
    if isinstance(value, int):
        return ScalarConstraint(ct.int32)
    return ScalarConstraint(ct.float32)


def compile_for_sm90(kernel: Any, args: tuple, constants: set[int]) -> None:
    """Compile ``kernel`` for sm_90 as the launch specialises it (cached); raises the
    compiler's error, which names the kernel's file, line and column."""
    from cuda.tile.compilation import CallingConvention, KernelSignature, export_kernel

    params = [a if i in constants else _constraint(a) for i, a in enumerate(args)]
    key = tuple(repr(p) for p in params)
    compiled = _COMPILED.setdefault(kernel, set())
    if key in compiled:
        return
    sig = KernelSignature(params, calling_convention=CallingConvention.cutile_python_v1())
    export_kernel(kernel, [sig], io.BytesIO(), gpu_code="sm_90", output_format="cubin")
    compiled.add(key)


def cpu_launch(stream: Any, grid: tuple, kernel: Any, args: tuple, **_: Any) -> None:
    """``ct.launch`` on CPU tensors: compile for sm_90, then run the kernel's IR."""
    import torch

    from translator.dialects.cutile.frontend import SAME_SIZES, WHOLE_BLOCKS
    from translator.ir.interpreter import run_kernel

    if not any(isinstance(a, torch.Tensor) and a.device.type == "cpu" for a in args):
        assert _original_launch is not None
        return _original_launch(stream, grid, kernel, args, **_)
    k = _kernel_ir(kernel)
    names = list(inspect.signature(kernel._pyfunc).parameters)
    values = dict(zip(names, args))
    # `ct.Constant` parameters are compiled in, whether the IR has them as tunables or as
    # compile-time values its body reads.
    params = {p.name for p in k.params if not p.constexpr}
    constants = {i for i, n in enumerate(names) if n not in params}
    compile_for_sm90(kernel, args, constants)
    config = {t.name: int(values[t.name]) for t in k.tunables if t.name in values}
    for const, tensor, dim in k.hints.extra(WHOLE_BLOCKS, ()):
        if values[const] < values[tensor].size(dim):
            raise CpuLaunchError(
                f"{k.name}: whole-dim tile {const}={values[const]} does not cover "
                f"{tensor}.shape[{dim}] = {values[tensor].size(dim)}"
            )
    for a, da, b, db in k.hints.extra(SAME_SIZES, ()):
        size_a = values[a] if da < 0 else values[a].size(da)
        if size_a != values[b].size(db):
            what = a if da < 0 else f"{a}.shape[{da}]"
            raise CpuLaunchError(
                f"{k.name}: {what} = {size_a} stands for {b}.shape[{db}] = {values[b].size(db)}"
            )
    _check_grid(k, grid, values, config)
    # Kernels write their arrays in place as cuTile's do, beneath autograd (an array the host
    # holds with requires_grad, such as a cached gradient, is written like any other).
    with torch.no_grad():
        run_kernel(k, {p.name: values[p.name] for p in k.params}, config)
    return None


def cpu_search(
    search_space: Any, stream: Any, grid_fn: Any, kernel: Any, args_fn: Any, *a: Any, **kw: Any
) -> Any:
    """``ct.tune.exhaustive_search`` on CPU tensors: every config launches one program per tile
    (and compiles for sm_90, with :data:`COMPILE_EVERY_CONFIG`); the first config is the
    result's best (nothing is timed)."""
    import torch
    from cuda.tile.tune import Measurement, TuningResult

    first_args = args_fn(search_space[0])
    if not any(isinstance(x, torch.Tensor) and x.device.type == "cpu" for x in first_args):
        assert _original_search is not None
        return _original_search(search_space, stream, grid_fn, kernel, args_fn, *a, **kw)
    # The kernel, or a function of the config picking its compiler-hint variant.
    kernel_of = (lambda _: kernel) if hasattr(kernel, "_pyfunc") else kernel
    k = _kernel_ir(kernel_of(search_space[0]))
    names = list(inspect.signature(kernel_of(search_space[0])._pyfunc).parameters)
    params = {p.name for p in k.params if not p.constexpr}
    constants = {i for i, n in enumerate(names) if n not in params}
    for i, cfg in enumerate(search_space):
        args = args_fn(cfg)
        values = dict(zip(names, args))
        # Each config compiles once per kernel (its first dtypes); the chosen first config
        # compiles at every launch's specialisation anyway.
        variant = kernel_of(cfg)
        searched = _SEARCHED.setdefault(variant, set())
        if COMPILE_EVERY_CONFIG and i > 0 and repr(cfg) not in searched:
            compile_for_sm90(variant, args, constants)
            searched.add(repr(cfg))
        config = {t.name: int(values[t.name]) for t in k.tunables if t.name in values}
        _check_grid(k, grid_fn(cfg), values, config)
    measured = [
        Measurement(config=cfg, mean_us=0.0, num_samples=0, error_margin_us=0.0)
        for cfg in search_space
    ]
    return TuningResult(best=measured[0], successes=tuple(measured), failures=())


def _check_grid(k: Any, grid: tuple, values: dict, config: dict) -> None:
    """The launch grid must be one program per tile of the IR grid (the IR's meaning)."""
    persistent = (k.hints.schedule or "").startswith("persistent")
    if len(k.grid) == 2 and any(t.kind == "group_size" for t in k.tunables):
        # A grouped tile order: one flat block id per tile of the two grid dims.
        counts = [_tile_count(t, values, config) for t in k.grid]
        if any(c is None for c in counts):
            return
        want = counts[0] * counts[1]  # type: ignore[operator]
        if tuple(grid) + (1,) * (3 - len(grid)) != (want, 1, 1):
            raise CpuLaunchError(
                f"{k.name}: a grouped tile order over {counts[0]} x {counts[1]} tiles launches "
                f"{tuple(grid)}; the CPU oracle proves launches of one block per tile"
            )
        return
    for axis, t in enumerate(k.grid):
        want = _tile_count(t, values, config)
        if want is None:
            continue
        have = grid[axis] if axis < len(grid) else 1
        if persistent and 1 <= have <= want:
            continue  # fewer programs, each walking every have-th tile (the frontend read so)
        if have != want:
            raise CpuLaunchError(
                f"{k.name}: grid dim {axis} launches {have} programs for {want} tiles of "
                f"`{t.name}`; the CPU oracle proves launches of one program per tile"
            )


def _tile_count(t: Any, values: dict, config: dict) -> int | None:
    """The tiles of grid tile ``t`` at this launch, where its extent is an array's size."""
    from translator.ir import nodes as ir

    if not isinstance(t.extent, ir.SizeOf):
        return None
    block = t.block.value if isinstance(t.block, ir.Const) else config[t.block]
    return -(-values[t.extent.tensor].size(t.extent.dim) // block)


def _prepare(device: str) -> None:
    global _original_launch, _original_search
    if device != "cpu":
        return
    try:
        import cuda.tile as ct
    except ImportError:  # cuTile not installed: its files cannot run anyway
        return
    import torch

    if _original_launch is None:
        import cuda.tile.tune as tune

        _original_launch = ct.launch
        ct.launch = cpu_launch
        _original_search = tune.exhaustive_search
        tune.exhaustive_search = cpu_search
    if not torch.cuda.is_available():
        # The stream argument cuTile launches take; the CPU oracle ignores it.
        torch.cuda.current_stream = lambda device=None: None  # type: ignore[assignment]
        # A persistent launch sizes its grid by the SM count: a CPU device has CPU_SMS, fewer
        # than the tiles of any test size, so each program walks several tiles.
        real = torch.cuda.get_device_properties
        if not getattr(real, "_tiletrans_cpu", False):

            def get_device_properties(device: Any = None) -> Any:
                if getattr(device, "type", device) == "cpu":
                    from types import SimpleNamespace

                    return SimpleNamespace(multi_processor_count=CPU_SMS)
                return real(device)

            get_device_properties._tiletrans_cpu = True  # type: ignore[attr-defined]
            torch.cuda.get_device_properties = get_device_properties  # type: ignore[assignment]


def _oracle(device: str) -> str | None:
    return f"kernels {ORACLE}" if device == "cpu" else None


RUNNER = Runner(prepare=_prepare, oracle=_oracle)
