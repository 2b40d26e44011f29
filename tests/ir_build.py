"""Hand-built IR in the shape frontends give it.

Tests write a kernel where its host function launches it, reading the host's names
(:class:`~translator.ir.nodes.InlineKernel`), as a Helion kernel is written; :func:`hand_module`
outlines every such kernel into a self-contained :class:`~translator.ir.nodes.Kernel` and a
:class:`~translator.ir.nodes.Launch`, as the frontends do, and verifies the result.
"""

from __future__ import annotations

import dataclasses

from translator.ir import nodes as ir
from translator.ir.outline import OutlineNaming, outline_entry
from translator.ir.verifier import verify


def inline_entry(
    name: str,
    params: tuple[ir.Param, ...],
    body: tuple[ir.Stmt, ...] | list[ir.Stmt],
    tunables: tuple[ir.Tunable, ...] = (),
    configs: tuple[tuple[tuple[str, int], ...], ...] = (),
    hints: ir.Hints | None = None,
) -> ir.Entry:
    """An entry whose in-place kernels share ``tunables``, ``configs`` and ``hints`` (what used
    to be said once per entry). A kernel that sets its own keeps them."""
    shared = {"tunables": tunables, "configs": configs, "hints": hints or ir.Hints()}
    default = ir.InlineKernel("", (), ())

    def share(stmt: ir.Stmt) -> ir.Stmt:
        if not isinstance(stmt, ir.InlineKernel):
            return stmt
        changes = {k: v for k, v in shared.items() if getattr(stmt, k) == getattr(default, k)}
        return dataclasses.replace(stmt, **changes)

    return ir.Entry(name, tuple(params), tuple(share(s) for s in body))


def hand_module(
    path: str, *entries: ir.Entry, constexpr: set[str] | frozenset[str] = frozenset()
) -> ir.Module:
    """A verified module of ``entries``, each in-place kernel outlined (kernels in the order the
    entries launch them). ``constexpr`` names host scalars the kernels are compiled for."""
    outlined: list[ir.Entry] = []
    kernels: list[ir.Kernel] = []
    naming = OutlineNaming(constexpr=set(constexpr))
    for entry in entries:
        e, ks = outline_entry(entry, naming)
        outlined.append(e)
        kernels.extend(ks)
    module = ir.Module(path, tuple(outlined), tuple(kernels))
    verify(module)
    return module


def only_kernel(module: ir.Module) -> ir.Kernel:
    """The one kernel of ``module``."""
    (kernel,) = module.kernels
    return kernel


def replace_kernel(module: ir.Module, kernel: ir.Kernel) -> ir.Module:
    """``module`` with its kernel of ``kernel``'s name replaced by ``kernel``."""
    assert any(k.name == kernel.name for k in module.kernels), kernel.name
    kernels = tuple(kernel if k.name == kernel.name else k for k in module.kernels)
    return dataclasses.replace(module, kernels=kernels)


__all__ = ["hand_module", "inline_entry", "only_kernel", "replace_kernel"]
