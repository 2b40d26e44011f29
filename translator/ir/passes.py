"""IR passes and the pass manager: every pass is checked by the verifier after it runs.

A pass rewrites each kernel of a module (a backend's preparation, say: grid tiles of block 1 made
plain indices). :func:`run_passes` runs a list of them in order and verifies every kernel after
each one, so a pass that breaks the IR is caught where it runs; ``tiletrans ir FILE --to DSL
--after PASS`` prints the module after one of them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from translator.diagnostics import TranslationError
from translator.ir import nodes as ir
from translator.ir.shapes import IRTypeError
from translator.ir.verifier import verify


@dataclass(frozen=True)
class Pass:
    """A named kernel rewrite (``run(kernel) -> kernel``), semantics preserving."""

    name: str
    description: str
    run: Callable[[ir.Kernel], ir.Kernel]


def run_passes(
    module: ir.Module, passes: Sequence[Pass], stop_after: str | None = None
) -> ir.Module:
    """``module`` with ``passes`` applied in order (up to and including ``stop_after``), the IR
    verified after each."""
    names = [p.name for p in passes]
    if stop_after is not None and stop_after not in names:
        raise TranslationError(
            f"no pass {stop_after!r}", None, f"passes: {', '.join(names) or 'none'}"
        )
    for p in passes:
        module = dataclasses.replace(module, kernels=tuple(p.run(k) for k in module.kernels))
        try:
            verify(module)
        except IRTypeError as err:
            # Where the type error has no place of its own, the kernel it is in (the first one
            # the pass changed that fails to verify) places the refusal.
            loc = err.loc or next(
                (k.loc for k in module.kernels if _fails(k) and k.loc is not None), None
            )
            raise TranslationError(
                f"pass {p.name!r} broke the IR: {err}",
                loc,
                "this is a tiletrans bug: please report it with the input file; rewriting the "
                "kernel's indexing may avoid it",
            ) from None
        if p.name == stop_after:
            break
    return module


def _fails(kernel: ir.Kernel) -> bool:
    """Whether ``kernel`` alone fails to verify."""
    from translator.ir.verifier import verify_kernel

    try:
        verify_kernel(kernel)
    except IRTypeError:
        return True
    return False


def ir_after(module: ir.Module, dst: str | None, after: str | None) -> ir.Module:
    """``module`` after target ``dst``'s passes up to ``after`` (all of them if ``None``)."""
    from translator.dialects import get_dialect

    if dst is None:
        raise TranslationError("--after needs --to: passes belong to a target", None)
    backend = get_dialect(dst).make_backend()
    return run_passes(module, backend.passes(), after)


__all__ = ["Pass", "ir_after", "run_passes"]
