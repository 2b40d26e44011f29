"""Host functions that tune a Helion kernel through Helion's own API, dropped before parsing.

pytorch/helion's examples keep a developer's tuning routine beside the kernel
(``best_config = matmul_with_epilogue.autotune(args, force=True)``, then
``best_config.save(...)``): it drives Helion's autotuner and writes a Helion config, which the
translation has no counterpart of (its kernels tune over their own configs as they run). A
module-level function that calls ``kernel.autotune(...)`` and that nothing in the module calls
is dropped, with a ``# tiletrans:`` note where it was; one the module calls is refused there.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from translator.diagnostics import TranslationError
from translator.dialects.cst_utils import (
    Locator,
    import_aliases,
    name_nodes,
    parse_source,
    walk,
)
from translator.dialects.helion.specialised import Specialised, line_map


def drop_tuning_functions(
    source: str, path: str, is_kernel: Callable[[cst.FunctionDef, dict[str, str]], bool]
) -> Specialised | None:
    """``source`` without its functions that call ``kernel.autotune(...)``, or ``None`` where
    it has none."""
    if ".autotune(" not in source:
        return None
    try:
        wrapper = parse_source(source, path)
    except TranslationError:
        return None  # the ordinary parse reports the syntax error
    module = wrapper.module
    locate = Locator(wrapper, path)
    aliases = import_aliases(module)
    kernels = {
        s.name.value
        for s in module.body
        if isinstance(s, cst.FunctionDef) and is_kernel(s, aliases)
    }
    tuning = {
        s.name.value: kernel
        for s in module.body
        if isinstance(s, cst.FunctionDef)
        and s.name.value not in kernels
        and (kernel := _tuned_kernel(s, kernels)) is not None
    }
    if not tuning:
        return None
    _refuse_called(module, tuning, locate)
    body: list[cst.BaseStatement] = []
    notes: list[cst.EmptyLine] = []
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value in tuning:
            name, kernel = stmt.name.value, tuning[stmt.name.value]
            text = (
                f"# tiletrans: dropped `{name}`, which tuned `{kernel}` through Helion's "
                "`Kernel.autotune`: the translation tunes over its own configs"
            )
            notes = [*stmt.leading_lines, cst.EmptyLine(comment=cst.Comment(text))]
            continue
        if notes and hasattr(stmt, "leading_lines"):
            stmt = stmt.with_changes(leading_lines=[*notes, cst.EmptyLine(), cst.EmptyLine()])
            notes = []
        body.append(stmt)
    new = module.with_changes(body=body)
    if notes:
        new = new.with_changes(footer=[*new.footer, *notes])
    text = new.code
    return Specialised(text, line_map(source, text))


def _tuned_kernel(fn: cst.FunctionDef, kernels: set[str]) -> str | None:
    """The kernel ``fn`` calls ``.autotune(...)`` of, if any."""
    found: list[str] = []

    def enter(node: cst.CSTNode) -> bool:
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "autotune"
            and isinstance(node.func.value, cst.Name)
            and node.func.value.value in kernels
        ):
            found.append(node.func.value.value)
        return not found

    walk(fn.body, enter)
    return found[0] if found else None


def _refuse_called(module: cst.Module, tuning: dict[str, str], locate: Locator) -> None:
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value in tuning:
            continue
        for n in name_nodes(stmt):
            if n.value in tuning:
                kernel = tuning[n.value]
                raise TranslationError(
                    f"`{n.value}` tunes `{kernel}` through Helion's `Kernel.autotune`, which "
                    "the translation has no counterpart of, and the module uses it here",
                    locate(n),
                    f"keep `{n.value}` in a module of its own that runs Helion, or delete this use",
                )


__all__ = ["drop_tuning_functions"]
