"""The IR as a runnable module: the source's host code as written, each launch running the IR
kernel in the reference interpreter.

This is how a frontend is checked against its source without any backend: both modules run the
same host code (autograd Functions, helpers, branches), and differ only in what runs the kernels.
Validation executes the source file, and says so.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

from translator.dialects.common.backend import Backend
from translator.dialects.common.passthrough import KernelCode, LaunchCode
from translator.ir import nodes as ir
from translator.ir.interpreter import run_kernel

_LAUNCH = "__tiletrans_run_ir_kernel__"


class _ReferenceBackend(Backend):
    """Launches become calls of the reference interpreter; no kernel is defined."""

    name = "ir"

    def imports(self, module: ir.Module) -> tuple[str, ...]:
        return ()

    def kernel_code(self, kernel: ir.Kernel, module: ir.Module) -> KernelCode:
        return KernelCode("")

    def launch_code(self, kernel: ir.Kernel, launch: ir.Launch, module: ir.Module) -> LaunchCode:
        return LaunchCode(f"{_LAUNCH}({kernel.name!r}, {', '.join(launch.texts)})")


def reference_source(module: ir.Module) -> str:
    """The Python text of ``module``'s reference module."""
    return _ReferenceBackend().emit(module)


def load_reference(
    module: ir.Module, config: dict[str, int] | None = None, name: str | None = None
) -> ModuleType:
    """Execute ``module``'s reference module and return it (its functions are the source's)."""
    text = reference_source(module)
    kernels = {k.name: k for k in module.kernels}

    def launch(kernel_name: str, *args: Any) -> None:
        kernel = kernels[kernel_name]
        run_kernel(kernel, dict(zip((p.name for p in kernel.params), args)), config)

    mod = ModuleType(name or f"tiletrans_reference_{Path(module.path).stem}")
    mod.__file__ = f"<IR of {module.path}>"
    vars(mod)[_LAUNCH] = launch
    exec(compile(text, mod.__file__, "exec"), vars(mod))
    return mod


__all__ = ["load_reference", "reference_source"]
