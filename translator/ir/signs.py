"""Integer scalars that are never negative: where ``//`` and ``%`` mean the same whether a DSL
truncates them (C's rule, Triton's) or floors them (Python's, the IR's).

A kernel's sizes, tile indices and block sizes are never negative; so are the integer
parameters every launch passes a size or what the host computes from sizes (a stream-K kernel's
``iters_per_tile = cdiv(K, BLOCK_K)``), and the device locals whose every assignment is computed
from such values with ``+``, ``*``, ``//``, ``%``, ``cdiv``, ``minimum`` and ``maximum``. Locals a
loop carries count too: the analysis keeps the largest set of locals each of whose assignments
is nonnegative when the set's members are (an invariant every iteration keeps).
"""

from __future__ import annotations

from collections.abc import Container

from translator.ir import nodes as ir
from translator.ir.visit import walk_stmts

# Calls whose result is nonnegative when all their operands are; `maximum` needs only one.
_ALL_OPERANDS = ("cdiv", "minimum")


def nonnegative(e: ir.Expr, known: Container[str]) -> bool:
    """Whether integer ``e`` is never negative, given that the names in ``known`` are not."""
    if isinstance(e, ir.Const):
        return isinstance(e.value, (int, float)) and e.value >= 0
    if isinstance(e, (ir.SizeOf, ir.TileAttr, ir.Arange)):
        return True
    if isinstance(e, ir.Name):
        return e.id in known
    if isinstance(e, (ir.Cast, ir.ExpandDims, ir.Broadcast)):
        return nonnegative(e.value, known)
    if isinstance(e, ir.Full):
        return nonnegative(e.value, known)
    if isinstance(e, ir.BinOp) and e.op in ("+", "*", "//", "%"):
        return nonnegative(e.lhs, known) and nonnegative(e.rhs, known)
    if isinstance(e, ir.Call) and e.op in _ALL_OPERANDS:
        return all(nonnegative(a, known) for a in e.args)
    if isinstance(e, ir.Call) and e.op == "maximum":
        return any(nonnegative(a, known) for a in e.args)
    if isinstance(e, ir.Call) and e.op == "where":
        return all(nonnegative(a, known) for a in e.args[1:])
    return False


def nonnegative_names(kernel: ir.Kernel, module: ir.Module | None = None) -> frozenset[str]:
    """The parameters, tiles and device locals of ``kernel`` that are never negative."""
    params = nonnegative_params(kernel, module)
    known = set(params) | {t.name for t in kernel.tunables}
    known |= {t.name for t in kernel.grid if t.begin is None or nonnegative(t.begin, known)}
    assigned = [s for s in walk_stmts(kernel.body) if isinstance(s, ir.Assign)]
    loops = [t for s in walk_stmts(kernel.body) if isinstance(s, ir.TileLoop) for t in s.tiles]
    candidates = {s.target for s in assigned} | {t.name for t in loops}
    # A parameter the body rebinds keeps its place only if its first value is nonnegative too.
    rebound = {p.name for p in kernel.params} & candidates
    known -= rebound
    candidates -= rebound - params
    while True:
        assumed = known | candidates
        broken = {s.target for s in assigned if not nonnegative(s.value, assumed)}
        broken |= {
            t.name for t in loops if t.begin is not None and not nonnegative(t.begin, assumed)
        }
        if not broken & candidates:
            return frozenset(assumed)
        candidates -= broken


def nonnegative_params(kernel: ir.Kernel, module: ir.Module | None) -> frozenset[str]:
    """Integer parameters of ``kernel`` that every launch of it passes a nonnegative value."""
    if module is None:
        return frozenset()
    passed: dict[str, list[bool]] = {}
    for entry in module.entries:
        facts: set[str] = set()
        for s in entry.body:
            if isinstance(s, ir.ShapeUnpack):
                facts.update(t for t in s.targets if t is not None)
            elif isinstance(s, ir.Assign):
                if nonnegative(s.value, facts):
                    facts.add(s.target)
                else:
                    facts.discard(s.target)
            elif isinstance(s, ir.Launch) and s.kernel == kernel.name:
                for p, arg in zip(kernel.params, s.args):
                    passed.setdefault(p.name, []).append(nonnegative(arg, facts))
    return frozenset(
        p.name
        for p in kernel.params
        if p.kind == "int" and passed.get(p.name) and all(passed[p.name])
    )
