"""The spelling of the Triton lifter's index symbols."""

from __future__ import annotations

from translator.dialects.triton import frontend_affine as af
from translator.ir import nodes as ir


def ir_text(e: ir.Expr | None) -> str:
    """An expression for a diagnostic, index symbols spelt as the source spells them."""
    if e is None:
        return "?"
    from translator.ir.printer import format_expr

    def fn(name: str) -> ir.Expr | None:
        lane = af.parse_lane(name)
        if lane is not None:
            key, axis = lane
            suffix = "" if axis == -1 else "[" + ", ".join([":"] + ["None"] * (-axis - 1)) + "]"
            return ir.Name(f"tl.arange(0, {key}){suffix}")
        if name.startswith("%pid"):
            return ir.Name(f"tl.program_id({name[4:]})")
        if name.startswith("%np"):
            return ir.Name(f"tl.num_programs({name[3:]})")
        if name.startswith("%it"):
            return ir.Name(f"<iteration of loop {name[3:]}>")
        if name.startswith("%p:"):
            return ir.Name(name[3:])
        if name in ("%sm", "%sn"):
            return ir.Name("pid_" + name[2])
        if name.startswith("%"):
            return ir.Name("<value>")
        return None

    if isinstance(e, ir.Name) and e.id.startswith("?"):
        return "<" + e.id[1:].rsplit("#", 1)[0] + ">"
    return format_expr(af.rename(e, fn))
