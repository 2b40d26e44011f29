"""TileLang (tile-ai): ``@tilelang.jit`` factories returning a ``@T.prim_func`` with
``T.Kernel``, fragments, ``T.copy``, ``T.gemm`` and ``T.Parallel`` loops."""

from translator.dialects.base import Dialect

DIALECT = Dialect(
    name="tilelang",
    description="TileLang: @tilelang.jit factories of T.prim_func kernels (T.Kernel, T.copy, T.gemm)",
    frontend="translator.dialects.tilelang.frontend:parse",
    backend="translator.dialects.tilelang.backend:TileLangBackend",
    runner="translator.dialects.tilelang.runner:RUNNER",
    examples="examples/tilelang",
)
