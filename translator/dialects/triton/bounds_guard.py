"""Out-of-bounds accesses in Triton's CPU interpreter become errors instead of heap corruption.

On a GPU a kernel that reads or writes past its tensors usually gets garbage or corrupts a
neighbour silently; under ``TRITON_INTERPRET=1`` the same access dereferences a raw host pointer.
A stray write there corrupts the Python process's heap, and the crash that follows can deadlock
in a signal handler (TVM's, once TileLang is imported) instead of exiting: one wrong translation
then hangs a whole validation run. So while a kernel runs under the interpreter, every pointer
that a load, store or atomic actually dereferences (its mask's live lanes) must fall inside the
storage of one of the kernel's tensor arguments; anything else raises :class:`OutOfBounds`,
which the interpreter reports as the kernel's error and validation reports as a failed pair.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np


class OutOfBounds(IndexError):
    """A kernel dereferenced memory outside every tensor it was given."""


#: ``(first byte, one past the last byte)`` of each tensor argument's storage, for the launch
#: that is running now (the interpreter runs one launch at a time).
_extents: list[tuple[int, int]] = []
_installed = False
_off = 0


@contextmanager
def unguarded() -> Iterator[None]:
    """Run kernels without the check: for a kernel that reaches tensors it was not passed,
    through a table of their addresses (a grouped GEMM), which the guard cannot follow."""
    global _off
    _off += 1
    try:
        yield
    finally:
        _off -= 1


def _storages(arg: Any) -> list[tuple[int, int]]:
    if isinstance(arg, tuple | list):
        return [e for item in arg for e in _storages(item)]
    base = getattr(arg, "base", None)
    if base is not None and hasattr(base, "untyped_storage") and not hasattr(arg, "data_ptr"):
        return _storages(base)  # a tensor descriptor
    if not hasattr(arg, "untyped_storage"):
        return []
    storage = arg.untyped_storage()
    return [(storage.data_ptr(), storage.data_ptr() + storage.nbytes())]


def _check(ptrs: Any, mask: Any, access: str) -> None:
    if not _extents or _off:
        return
    from triton.runtime.interpreter import _get_np_dtype

    pointers = np.asarray(ptrs.data, dtype=np.uint64)
    if mask is not None:
        live = np.broadcast_to(np.asarray(mask.data, dtype=bool), pointers.shape)
        pointers = pointers[live]
    pointers = pointers.ravel()
    if pointers.size == 0:
        return
    width = np.uint64(np.dtype(_get_np_dtype(ptrs.get_element_ty())).itemsize)
    inside = np.zeros(pointers.shape, dtype=bool)
    for first, end in _extents:
        inside |= (pointers >= np.uint64(first)) & (pointers + width <= np.uint64(end))
    if not inside.all():
        outside = int((~inside).sum())
        raise OutOfBounds(
            f"{access} of {outside} element(s) outside every tensor argument of the kernel "
            "(a missing or wrong mask, or a grid larger than the data)"
        )


def install() -> None:
    """Wrap the interpreter's memory operations; idempotent."""
    global _installed
    if _installed:
        return
    from triton.runtime.interpreter import GridExecutor, InterpreterBuilder

    init_args = GridExecutor._init_args_hst
    restore_args = GridExecutor._restore_args_dev

    def _init_args_hst(self: Any, args_dev: Any, kwargs: Any) -> Any:
        args_hst, kwargs_hst = init_args(self, args_dev, kwargs)
        _extents[:] = _storages(list(args_hst) + list(kwargs_hst.values()))
        return args_hst, kwargs_hst

    def _restore_args_dev(self: Any, *args: Any, **kwargs: Any) -> Any:
        _extents.clear()
        return restore_args(self, *args, **kwargs)

    load = InterpreterBuilder.create_masked_load
    store = InterpreterBuilder.create_masked_store
    rmw = InterpreterBuilder.create_atomic_rmw
    cas = InterpreterBuilder.create_atomic_cas

    # Every caller passes the pointers and the mask positionally; the rest (cache modifiers,
    # semantics) may come by keyword (descriptor loads do) and pass through untouched.
    def create_masked_load(self: Any, ptrs: Any, mask: Any, *rest: Any, **kw: Any) -> Any:
        _check(ptrs, mask, "load")
        return load(self, ptrs, mask, *rest, **kw)

    def create_masked_store(
        self: Any, ptrs: Any, value: Any, mask: Any, *rest: Any, **kw: Any
    ) -> Any:
        _check(ptrs, mask, "store")
        return store(self, ptrs, value, mask, *rest, **kw)

    def create_atomic_rmw(
        self: Any, op: Any, ptr: Any, val: Any, mask: Any, *rest: Any, **kw: Any
    ) -> Any:
        _check(ptr, mask, "atomic")
        return rmw(self, op, ptr, val, mask, *rest, **kw)

    def create_atomic_cas(self: Any, ptr: Any, *rest: Any, **kw: Any) -> Any:
        _check(ptr, None, "atomic")
        return cas(self, ptr, *rest, **kw)

    GridExecutor._init_args_hst = _init_args_hst
    GridExecutor._restore_args_dev = _restore_args_dev
    InterpreterBuilder.create_masked_load = create_masked_load
    InterpreterBuilder.create_masked_store = create_masked_store
    InterpreterBuilder.create_atomic_rmw = create_atomic_rmw
    InterpreterBuilder.create_atomic_cas = create_atomic_cas
    _installed = True
