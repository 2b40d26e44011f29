"""What the cuTile frontend's readers share about one file (kernels, launches, constants)."""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from translator.diagnostics import TranslationError
from translator.dialects.common.host_api import HostFunction
from translator.dialects.cst_utils import Locator, resolve


@dataclass
class ModuleFacts:
    """What the lifters share about one file."""

    path: str
    locate: Locator
    aliases: dict[str, str]
    helpers: dict[str, cst.FunctionDef]
    kernel_defs: dict[str, cst.FunctionDef] = field(default_factory=dict)
    #: Module-level ``NAME = <int>`` constants (tile sizes a launch passes by name).
    module_ints: dict[str, int] = field(default_factory=dict)
    #: Other module-level numbers kernels read (``INV_LOG_2 = 1.0 / math.log(2)``).
    module_numbers: dict[str, int | float] = field(default_factory=dict)
    #: Module-level ``NAME = value`` bindings made once (``PAD_ZERO = ct.PaddingMode.ZERO``).
    module_values: dict[str, cst.BaseExpression] = field(default_factory=dict)
    #: Module-level annotation aliases, ``ConstInt = ct.Constant[int]`` (NVIDIA's samples).
    annotation_aliases: dict[str, cst.Subscript] = field(default_factory=dict)
    launch_constants: dict[str, dict[int, int]] = field(default_factory=dict)
    #: Per kernel, what each launch's grid measures: ``{axis: (argument position, dim)}`` where
    #: the grid extent is ``<argument>.size(dim)`` (or its ``ct.cdiv`` by a tile size).
    launch_grid_dims: dict[str, list[dict[int, tuple[int, int]]]] = field(default_factory=dict)
    #: Per kernel, each launch's grid extents and argument texts (a block id that indexes no
    #: tile, split-K's split, counts what the launch passes for it).
    launch_texts: dict[str, list[tuple[list[str], list[str]]]] = field(default_factory=dict)
    #: The kernel each ``ct.launch`` call runs (by the call's id): its name, or the kernel whose
    #: compiler-hint variant it picks.
    launched: dict[int, str] = field(default_factory=dict)
    #: The argument tuple of each launch site (by the call's id): the ``ct.launch``'s own, or
    #: the one a launcher's caller builds.
    launch_args: dict[int, cst.Tuple] = field(default_factory=dict)
    #: Host functions that launch what their callers pass (by name): replaced by the launches
    #: at their calls, they go with the kernels.
    launchers: dict[str, HostFunction] = field(default_factory=dict)
    #: Module-level ``name = kernel.replace_hints(...)`` statements whose only uses are
    #: launches: removed with the kernels (a compiler hint changes no result).
    hint_variants: dict[str, cst.SimpleStatementLine] = field(default_factory=dict)
    #: Per kernel, the configs host code searches with ``ct.tune.exhaustive_search``
    #: (constant parameter -> value; the first is the default).
    spaces: dict[str, list[dict[str, int]]] = field(default_factory=dict)

    def name_of(self, node: cst.BaseExpression) -> str | None:
        return resolve(node, self.aliases)

    def error(self, node: cst.CSTNode, what: str, hint: str | None = None) -> TranslationError:
        return TranslationError(what, self.locate(node), hint)
