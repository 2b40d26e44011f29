"""cuTile (NVIDIA, ``import cuda.tile as ct``): ``@ct.kernel`` functions that load and store tiles
by tile index, launched with ``ct.launch(stream, grid, kernel, args)`` from host code."""

from translator.dialects.base import Dialect

DIALECT = Dialect(
    name="cutile",
    description="cuTile: @ct.kernel tile programs launched by ct.launch(stream, grid, kernel, args)",
    frontend="translator.dialects.cutile.frontend:parse",
    backend="translator.dialects.cutile.backend:CutileBackend",
    runner="translator.dialects.cutile.runner:RUNNER",
    hint_keys=("cutile.whole_blocks", "cutile.same_sizes"),
    examples="examples/cutile",
)
