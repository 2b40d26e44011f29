"""Setup every test worker shares: kernels run on Triton's CPU interpreter, bounds-checked."""

from __future__ import annotations

import os

import pytest


def pytest_configure(config: pytest.Config) -> None:
    """Check every load, store and atomic of every interpreted kernel in the worker.

    Under ``TRITON_INTERPRET=1`` a store past a tensor dereferences a raw host pointer: a kernel
    that does so in one test corrupts the worker's heap, and a later test in the same worker
    fails at random (an attribute missing from an autograd ctx, under pytest-xdist's ordering).
    Validation installs the guard for the runs it makes; tests that launch kernels themselves
    get it here, so such a store fails the test that made it.
    """
    os.environ.setdefault("TRITON_INTERPRET", "1")
    from translator.dialects.triton import bounds_guard

    bounds_guard.install()
