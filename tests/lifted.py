"""A test-side view of parsed IR: each host function with its kernels written in place, reading
the host's names, as the frontend tests check it (``kernels()``, ``tunable``, ``configs``)."""

from __future__ import annotations

import dataclasses

from translator.ir import nodes as ir
from translator.ir.outline import inline_launches


@dataclasses.dataclass(frozen=True)
class Lifted(ir.Entry):
    """A host function's IR with its kernels in place (:class:`~translator.ir.nodes.InlineKernel`)."""

    @classmethod
    def of(cls, module: ir.Module, entry: ir.Entry) -> Lifted:
        inlined = inline_launches(entry, {k.name: k for k in module.kernels})
        return cls(**{f.name: getattr(inlined, f.name) for f in dataclasses.fields(inlined)})

    def kernels(self) -> list[ir.InlineKernel]:
        """The kernels this function launches, in place."""
        return [s for s in self.body if isinstance(s, ir.InlineKernel)]

    def tunable(self, name: str) -> ir.Tunable:
        """The tunable called ``name`` of one of its kernels."""
        return next(t for k in self.kernels() for t in k.tunables if t.name == name)

    @property
    def configs(self) -> tuple:
        """The configs of its one kernel."""
        (kernel,) = self.kernels()
        return kernel.configs


def lifted(module: ir.Module) -> list[Lifted]:
    """Every host function of ``module`` that launches kernels, as :class:`Lifted`."""
    return [Lifted.of(module, e) for e in module.entries]
