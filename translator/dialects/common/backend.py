"""The interface every backend implements, and what they share.

A backend writes IR kernels in its DSL: :meth:`Backend.kernel_code` renders one kernel's
definition, :meth:`Backend.launch_code` one launch of it at a site of the carried host code.
:meth:`Backend.emit` verifies the module, renders every kernel and launch and hands them to the
host passthrough (:func:`~translator.dialects.common.passthrough.assemble`). Hooks a backend does
not implement refuse with a diagnostic, never a traceback.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from typing import ClassVar

from translator.diagnostics import TranslationError
from translator.dialects.common.host_code import rank_checks, with_synthesized_host
from translator.dialects.common.passthrough import KernelCode, LaunchCode, Rendering, assemble
from translator.grammar import load_grammar
from translator.ir import nodes as ir
from translator.ir.passes import Pass, run_passes
from translator.ir.verifier import verify


class Backend:
    """One DSL's writer of kernels and launches."""

    #: The dialect's name (``triton``); its grammar is ``grammars/<name>.toml``.
    name: ClassVar[str] = ""

    def kernel_code(self, kernel: ir.Kernel, module: ir.Module) -> KernelCode:
        """The definition of ``kernel`` in this DSL."""
        raise TranslationError(f"the {self.name} backend cannot write kernels yet", kernel.loc)

    def launch_code(self, kernel: ir.Kernel, launch: ir.Launch, module: ir.Module) -> LaunchCode:
        """One launch of ``kernel`` (its arguments spelt at the site as ``launch.texts``)."""
        raise TranslationError(f"the {self.name} backend cannot write launches yet", launch.loc)

    def passes(self) -> list[Pass]:
        """The IR passes this backend runs before writing (none by default)."""
        return []

    def imports(self, module: ir.Module) -> tuple[str, ...]:
        """The import lines every translation into this DSL needs."""
        return tuple(load_grammar(self.name)["imports"])

    def dropped_imports(self, module: ir.Module) -> tuple[str, ...]:
        """Import lines of the source this DSL's translation must not keep (none by default)."""
        return ()

    def command(self, module: ir.Module) -> str:
        """The command that regenerates the translation (for its provenance header)."""
        from translator.provenance import command

        return command(module.source_dialect, self.name, module.path, None)

    def render(self, module: ir.Module) -> Rendering:
        """Every kernel definition and launch of ``module``."""
        kernels = {}
        for k in module.kernels:
            with _located_at(k.loc):
                kernels[k.name] = self.kernel_code(k, module)
        launches: dict[int, LaunchCode] = {}
        for entry in module.entries:
            checks = rank_checks(entry.body)
            for launch in entry.launches():
                if launch.site is not None:
                    kernel = module.kernel(launch.kernel)
                    with _located_at(launch.loc or kernel.loc):
                        code = self.launch_code(kernel, launch, module)
                    code = dataclasses.replace(code, prelude=(*checks, *code.prelude))
                    launches[launch.site] = _with_outputs(code, launch, module)
        imports = list(self.imports(module))
        for code in kernels.values():
            imports.extend(code.imports)
        for code in launches.values():
            imports.extend(code.imports)
        return Rendering(
            kernels,
            launches,
            tuple(dict.fromkeys(imports)),
            self.command(module),
            drop_imports=self.dropped_imports(module),
            target=self.name,
        )

    def emit(self, module: ir.Module) -> str:
        """The translation of ``module`` into this DSL (the IR is verified first)."""
        verify(module)
        module = run_passes(module, self.passes())
        # IR with no source to carry (built by hand): its modelled host code, printed.
        module = with_synthesized_host(module)
        return assemble(module, self.render(module))


__all__ = ["Backend"]


@contextlib.contextmanager
def _located_at(loc: ir.Loc | None) -> Iterator[None]:
    """A refusal raised without a location inside the block is located at ``loc`` (the kernel
    or launch being written): an IR node made without a source position (a value a heuristic
    computes, say) still gives the user a line to look at."""
    try:
        yield
    except TranslationError as err:
        if err.loc is None:
            err.loc = loc
        raise


def _with_outputs(code: LaunchCode, launch: ir.Launch, module: ir.Module) -> LaunchCode:
    """``code`` for a launch whose source runtime allocated outputs (:attr:`ir.Launch.setup`):
    the allocations go first, and an expression site launches as a statement of its own before
    the statement that holds it, which reads the launch's :attr:`ir.Launch.value` instead."""
    if not launch.setup and launch.value is None:
        return code
    statement = (
        module.host is not None
        and launch.site is not None
        and module.host.sites[launch.site].statement
    )
    if statement or launch.value is None:
        return dataclasses.replace(code, prelude=(*launch.setup, *code.prelude))
    return dataclasses.replace(
        code, expr=launch.value, prelude=(*launch.setup, *code.prelude, code.expr)
    )


def refuse_load_predicates(kernel: ir.Kernel, language: str, hint: str) -> None:
    """Refuse, at the load, a kernel whose loads carry a predicate (``ir.Load.mask``: a
    jagged batch's ``k < nnz``) for a backend that cannot spell one."""
    from translator.ir.visit import kernel_exprs

    for e in kernel_exprs(kernel):
        if isinstance(e, ir.Load) and e.mask is not None:
            raise TranslationError(
                f"{language} cannot write the load of `{e.tensor}` masked by a condition on "
                "data (a jagged batch's `k < nnz`): its loads mask only lanes past a tile's "
                "bounds",
                e.loc or kernel.loc,
                hint,
            )
