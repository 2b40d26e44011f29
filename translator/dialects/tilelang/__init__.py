"""TileLang (tile-ai): ``@tilelang.jit`` factories returning a ``@T.prim_func``, or eager-style
``@tilelang.jit`` kernels (``T.const`` sizes, ``T.empty`` outputs), with ``T.Kernel``,
fragments, ``T.copy``, ``T.gemm`` and ``T.Parallel`` loops."""

from translator.dialects.base import Dialect

DIALECT = Dialect(
    name="tilelang",
    description="TileLang: @tilelang.jit factories of T.prim_func kernels and eager kernels",
    frontend="translator.dialects.tilelang.frontend:parse",
    backend="translator.dialects.tilelang.backend:TileLangBackend",
    runner="translator.dialects.tilelang.runner:RUNNER",
    examples="examples/tilelang",
)
