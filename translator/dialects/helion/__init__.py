"""Helion (PyTorch's tile DSL): ``@helion.kernel`` functions whose top-level ``hl.tile`` loops are
the kernels."""

from translator.dialects.base import Dialect

DIALECT = Dialect(
    name="helion",
    description="Helion: @helion.kernel functions, hl.tile loops over torch ops",
    frontend="translator.dialects.helion.frontend:parse",
    backend="translator.dialects.helion.backend:HelionBackend",
    runner="translator.dialects.helion.runner:RUNNER",
    examples="examples/helion",
)
