"""Per-entry state of the Helion frontend: what each name is, sizes, tiles and tunables."""

from __future__ import annotations

from dataclasses import dataclass, field

from translator.ir import nodes as ir
from translator.ir.shapes import ScalarType, TensorType, TypeEnv


@dataclass
class EntryScope:
    """Everything the frontend knows about the names of one ``@helion.kernel`` function.

    ``sizes`` maps ``(tensor, dim)`` to the host expression that names that size, so that
    ``out.size(0)`` and ``m`` come out as the same extent. ``block_order`` lists block-size
    tunables in the order Helion numbers ``Config.block_sizes``.
    """

    path: str
    env: TypeEnv = field(default_factory=TypeEnv)
    sizes: dict[tuple[str, int], ir.Expr] = field(default_factory=dict)
    like: dict[str, str] = field(default_factory=dict)
    alloc_shapes: dict[str, tuple[ir.Expr, ...]] = field(default_factory=dict)
    registered_blocks: dict[str, str] = field(default_factory=dict)
    block_order: list[str] = field(default_factory=list)
    tunable_defaults: dict[str, int] = field(default_factory=dict)
    used_names: set[str] = field(default_factory=set)
    specialized: list[str] = field(default_factory=list)
    constexpr_params: list[str] = field(default_factory=list)

    def is_tensor(self, name: str) -> bool:
        """Whether ``name`` is a host tensor."""
        return isinstance(self.env.vars.get(name), TensorType)

    def is_host_scalar(self, name: str) -> bool:
        """Whether ``name`` is a host scalar (parameter or size)."""
        return isinstance(self.env.vars.get(name), ScalarType)

    def size_expr(self, tensor: str, dim: int) -> ir.Expr:
        """The canonical host expression for ``tensor.size(dim)``."""
        seen = set()
        while (tensor, dim) not in self.sizes and tensor in self.like and tensor not in seen:
            seen.add(tensor)
            tensor = self.like[tensor]
        if (tensor, dim) in self.sizes:
            return self.sizes[(tensor, dim)]
        shape = self.alloc_shapes.get(tensor)
        if shape is not None and -len(shape) <= dim < len(shape):
            return shape[dim]
        return ir.SizeOf(tensor, dim)

    def rank(self, tensor: str) -> int | None:
        """The rank of host tensor ``tensor`` where known."""
        t = self.env.vars.get(tensor)
        return t.rank if isinstance(t, TensorType) else None

    def fresh(self, base: str) -> str:
        """A new local name starting with ``base``."""
        name, i = base, 1
        while name in self.used_names or name in self.env.vars:
            i += 1
            name = f"{base}_{i}"
        self.used_names.add(name)
        return name

    def new_block_tunable(self, base: str) -> str:
        """A new block-size tunable, numbered after the ones before it (as Helion numbers them)."""
        name = self.fresh(base)
        self.block_order.append(name)
        return name
