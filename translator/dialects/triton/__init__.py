"""Triton (OpenAI): ``@triton.jit`` SPMD kernels launched as ``kernel[grid](...)``."""

from translator.dialects.base import Dialect

DIALECT = Dialect(
    name="triton",
    description="Triton: @triton.jit kernels launched kernel[grid](...) from host code",
    frontend="translator.dialects.triton.frontend:parse",
    backend="translator.dialects.triton.backend:TritonBackend",
    runner="translator.dialects.triton.runner:RUNNER",
    examples="examples/triton",
)
