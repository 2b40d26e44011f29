"""The dialects: one frontend (source → IR) and/or backend (IR → source) per DSL.

Adding a DSL means adding its folder here, its grammar table and its templates, and registering
its frontend and backend below; nothing in ``translator.ir`` changes.
"""

from __future__ import annotations

from collections.abc import Callable

from translator.ir.nodes import Module

Frontend = Callable[[str, str], Module]
Backend = Callable[[Module], str]


def frontends() -> dict[str, Frontend]:
    """DSL name → parser of source text (``parse(source, path)``)."""
    from translator.dialects.helion.frontend import parse as parse_helion
    from translator.dialects.triton.frontend import parse as parse_triton

    return {"helion": parse_helion, "triton": parse_triton}


def backends() -> dict[str, Backend]:
    """DSL name → emitter of source text from an IR module."""
    from translator.dialects.helion.backend import emit as emit_helion
    from translator.dialects.triton.backend import emit as emit_triton

    return {"triton": emit_triton, "helion": emit_helion}
