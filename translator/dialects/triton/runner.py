"""Running Triton kernels for validation: the CPU interpreter and pinned autotuners."""

from __future__ import annotations

import os
import sys

from translator.dialects.base import Runner


def _prepare(device: str) -> None:
    """On the CPU: Triton's interpreter (``TRITON_INTERPRET=1``, read when kernels are decorated),
    stand-ins for the libdevice functions it lacks, and bounds checks on its memory accesses."""
    if device != "cpu":
        return
    os.environ["TRITON_INTERPRET"] = "1"
    from translator.dialects.triton import bounds_guard, libdevice_shim

    libdevice_shim.install()
    bounds_guard.install()


def _warning() -> str | None:
    if "triton" in sys.modules and os.environ.get("TRITON_INTERPRET") != "1":
        return "triton was imported before TRITON_INTERPRET=1 was set"
    return None


def _pin(obj: object) -> bool:
    """An autotuned kernel keeps its first config only (the interpreter cannot benchmark)."""
    from triton.runtime.autotuner import Autotuner

    if isinstance(obj, Autotuner) and isinstance(obj.configs, list) and len(obj.configs) > 1:
        obj.configs = obj.configs[:1]
        return True
    return False


RUNNER = Runner(prepare=_prepare, warning=_warning, pin=_pin)
