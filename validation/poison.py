"""Poisoned allocations: uninitialised memory that cannot pass for a result.

Inside :func:`poisoned_allocations`, ``torch.empty``, ``torch.empty_like``, ``torch.empty_strided``
and ``Tensor.new_empty`` return tensors filled with NaN (floats), a large sentinel (integers) or
``True`` (bools). An output element a kernel forgets to write then fails the comparison instead of
matching by luck (freshly mapped memory is often zero on both sides). Helion's generated host code
allocates through these same torch functions, so both sides of a comparison are poisoned alike.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

#: The finite fill of :func:`poisoned_allocations` ``(finite=True)``: a value no test input makes.
FINITE_POISON = -12344.0


def poison_value(dtype: Any, finite: bool = False) -> float | int | bool:
    """The fill value for a tensor of ``dtype`` (for floats NaN, or :data:`FINITE_POISON`)."""
    import torch

    if dtype == torch.bool:
        return True
    if dtype.is_floating_point or dtype.is_complex:
        return FINITE_POISON if finite else float("nan")
    return torch.iinfo(dtype).max


def _poisoned(fn: Callable[..., Any], finite: bool) -> Callable[..., Any]:
    import torch

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        out = fn(*args, **kwargs)
        if isinstance(out, torch.Tensor) and out.numel() and out.device.type != "meta":
            with torch.no_grad():
                out.fill_(poison_value(out.dtype, finite))
        return out

    wrapper.__wrapped__ = fn  # type: ignore[attr-defined]
    wrapper.__name__ = getattr(fn, "__name__", "empty")
    wrapper.__doc__ = getattr(fn, "__doc__", None)
    return wrapper


def _build_device_constructors() -> None:
    """Have torch build its set of device-taking constructors now, from the real functions.

    ``with torch.device(d):`` gives ``d`` to the calls found in a set of torch functions that torch
    builds once, on first use, and caches for the process. Built while the poisoned wrappers stand
    in, the set would hold the wrappers, and every later ``torch.empty`` under a device context in
    this process (a source's ``with torch.device(x.device): out = torch.empty(...)``) would land on
    the CPU.
    """
    with contextlib.suppress(ImportError, AttributeError):
        from torch.utils._device import _device_constructors

        _device_constructors()


@contextlib.contextmanager
def poisoned_allocations(finite: bool = False) -> Iterator[None]:
    """Poison torch's uninitialised allocations for the duration of the block (nestable).

    ``finite``: fill floats with :data:`FINITE_POISON` instead of NaN, which tells an element a
    kernel left unwritten from one it computed as NaN (validation of sources that compute NaN or
    inf runs both sides under both poisons)."""
    import torch

    targets: list[tuple[Any, str]] = [
        (torch, "empty"),
        (torch, "empty_like"),
        (torch, "empty_strided"),
        (torch.Tensor, "new_empty"),
    ]
    _build_device_constructors()
    saved = [(obj, name, getattr(obj, name)) for obj, name in targets]
    try:
        for obj, name, fn in saved:
            setattr(obj, name, _poisoned(fn, finite))
        yield
    finally:
        for obj, name, fn in saved:
            setattr(obj, name, fn)
