"""Signs of scalars a kernel can prove.

Integer scalars that are never negative: where ``//`` and ``%`` mean the same whether a DSL
truncates them (C's rule, Triton's) or floors them (Python's, the IR's).

A kernel's sizes, tile indices and block sizes are never negative, nor is a scalar a grid dim
counts (no program runs where it is below 1); so are the integer
parameters every launch passes a size or what the host computes from sizes (a stream-K kernel's
``iters_per_tile = cdiv(K, BLOCK_K)``), and the device locals whose every assignment is computed
from such values with ``+``, ``*``, ``//``, ``%``, ``cdiv``, ``minimum`` and ``maximum``. Locals a
loop carries count too: the analysis keeps the largest set of locals each of whose assignments
is nonnegative when the set's members are (an invariant every iteration keeps).
"""

from __future__ import annotations

from collections.abc import Callable, Container

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
    # A scalar a grid dim counts (`split_k` programs along it) is at least 1 in every
    # program that runs: with none there is no program.
    known |= {t.extent.id for t in kernel.grid if isinstance(t.extent, ir.Name)}
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

    def unpacked(s: ir.Stmt) -> set[str]:
        if isinstance(s, ir.ShapeUnpack):
            return {t for t in s.targets if t is not None}
        return set()

    return _passed_by_every_launch(kernel, module, "int", nonnegative, unpacked)


def _passed_by_every_launch(
    kernel: ir.Kernel,
    module: ir.Module | None,
    kind: str,
    holds: Callable[[ir.Expr, Container[str]], bool],
    facts_of: Callable[[ir.Stmt], set[str]],
) -> frozenset[str]:
    """The ``kind`` parameters of ``kernel`` for which every launch passes a value that
    ``holds``, given the host names known to hold it: those ``facts_of`` a host statement
    gives, and those assigned a value that holds (until reassigned one that does not)."""
    if module is None:
        return frozenset()
    passed: dict[str, list[bool]] = {}
    for entry in module.entries:
        facts: set[str] = set()
        for s in entry.body:
            facts |= facts_of(s)
            if isinstance(s, ir.Assign):
                if holds(s.value, facts):
                    facts.add(s.target)
                else:
                    facts.discard(s.target)
            elif isinstance(s, ir.Launch) and s.kernel == kernel.name:
                for p, arg in zip(kernel.params, s.args):
                    passed.setdefault(p.name, []).append(holds(arg, facts))
    return frozenset(
        p.name
        for p in kernel.params
        if p.kind == kind and passed.get(p.name) and all(passed[p.name])
    )


# --- positive floats ------------------------------------------------------------------------
#
# Float scalars that are above 0 (perhaps +inf, never NaN): a softmax scale the host asserts
# positive. With one, ``-inf * scale`` is ``-inf`` and ``max(x) * scale`` is the max of
# ``x * scale``, which is what lets a backend see that FlashAttention's masked scores stay
# masked (:mod:`translator.ir.pad_tracker`).


def positive(e: ir.Expr, known: Container[str]) -> bool:
    """Whether scalar ``e`` is above 0 (or +inf) and never NaN, given that the names in
    ``known`` are."""
    if isinstance(e, ir.Const):
        return isinstance(e.value, (int, float)) and not isinstance(e.value, bool) and e.value > 0
    if isinstance(e, ir.Name):
        return e.id in known
    if isinstance(e, ir.Cast):
        return positive(e.value, known)
    if isinstance(e, ir.BinOp) and e.op in ("*", "+"):
        return positive(e.lhs, known) and positive(e.rhs, known)
    if isinstance(e, ir.BinOp) and e.op == "/":
        # inf / inf is NaN: only a finite positive divisor, a constant.
        return positive(e.lhs, known) and isinstance(e.rhs, ir.Const) and positive(e.rhs, known)
    return False


def _asserted_positive(test: ir.Expr) -> set[str]:
    """Names a host ``assert`` proves above 0: ``x > c`` or ``c < x`` with ``c >= 0``, and each
    side of an ``and``."""
    if isinstance(test, ir.BinOp) and test.op == "and":
        return _asserted_positive(test.lhs) | _asserted_positive(test.rhs)
    if not isinstance(test, ir.BinOp) or test.op not in (">", "<"):
        return set()
    name, bound = (test.lhs, test.rhs) if test.op == ">" else (test.rhs, test.lhs)
    if (
        isinstance(name, ir.Name)
        and isinstance(bound, ir.Const)
        and isinstance(bound.value, (int, float))
        and bound.value >= 0
    ):
        return {name.id}
    return set()


def positive_params(kernel: ir.Kernel, module: ir.Module | None) -> frozenset[str]:
    """Float parameters of ``kernel`` that every launch passes a value above 0: a positive
    constant, or a name a host ``assert`` before the launch proves positive."""

    def asserted(s: ir.Stmt) -> set[str]:
        return _asserted_positive(s.test) if isinstance(s, ir.Assert) else set()

    return _passed_by_every_launch(kernel, module, "float", positive, asserted)


def positive_names(kernel: ir.Kernel, module: ir.Module | None = None) -> frozenset[str]:
    """The float parameters and device locals of ``kernel`` that are above 0: the parameters of
    :func:`positive_params`, and the locals assigned once, from positive values."""
    known = set(positive_params(kernel, module))
    assigned: dict[str, list[ir.Expr]] = {}
    for s in walk_stmts(kernel.body):
        if isinstance(s, ir.Assign):
            assigned.setdefault(s.target, []).append(s.value)
    known -= set(assigned)  # a parameter the body rebinds is not the value the host checked
    grew = True
    while grew:
        grew = False
        for name, values in assigned.items():
            if name not in known and len(values) == 1 and positive(values[0], known):
                known.add(name)
                grew = True
    return frozenset(known)
