"""``tl.debug_barrier()``: a barrier among the threads of one program.

The IR runs a program's statements in order, so what a barrier adds is only felt where the
memory one side of it touches is touched by the other side too, and one of the two writes it
(Liger's cross entropy stores a row of ``X`` and then reads or overwrites elements of it): there,
a target without the barrier may let threads overtake one another, and the IR has no barrier of a
program's threads to carry. Everywhere else the barrier orders nothing the kernel observes, and
it is read as nothing. Accesses are found on the syntax (``tl.load``/``tl.store``/atomics and
descriptor or block-pointer loads and stores), each attributed to the tensors its pointer
expression can reach through the kernel's assignments: an over-approximation, so that a barrier
is dropped only where no tensor is both written on one side and touched on the other.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from translator.dialects.cst_utils import names_in, resolve, walk
from translator.dialects.triton.lift_dispatch import handles_effect

#: Atomics in neither the grammar's table of atomics nor its refusals (refused as unknown
#: calls where lifted, but a barrier may be read first): read-modify-writes all the same.
_OTHER_ATOMICS = ("atomic_and", "atomic_or", "atomic_xor")


def _memory_calls(grammar, lang: str) -> tuple[frozenset[str], frozenset[str]]:
    """The calls of the language that read, and those that write, memory through their
    ``pointer`` argument: ``load``, ``store`` and the grammar's atomics (read-modify-writes)."""
    prefix = lang + "."
    named = (*grammar["frontend"].get("atomics", {}), *grammar["frontend"].get("unsupported", {}))
    atomics = {n[len(prefix) :] for n in named if n.startswith(prefix + "atomic_")}
    atomics |= set(_OTHER_ATOMICS)
    return frozenset({"load", *atomics}), frozenset({"store", *atomics})


def _pointer_arg(n: cst.Call) -> cst.BaseExpression | None:
    """The ``pointer`` argument of a ``tl.load``/``tl.store``/atomic call, bound as the
    signatures bind it (``pointer`` first, or by keyword); ``None`` where a star argument
    hides it."""
    for a in n.args:
        if a.star:
            return None
        if a.keyword is None:
            return a.value
        if a.keyword.value == "pointer":
            return a.value
    return None


@dataclass(frozen=True)
class _Access:
    """One memory access of a kernel: where it is, which tensors it may touch, whether it
    writes."""

    at: tuple[int, int]
    tensors: frozenset[str]
    writes: bool
    line: int


class BarriersMixin:
    """``tl.debug_barrier()`` statements of :class:`KernelLifter`."""

    @handles_effect("debug_barrier")
    def debug_barrier(self, name: str, node: cst.Call) -> None:
        """Read as nothing where no tensor is written on one side of the barrier and touched on
        the other (within the loops around it, both sides are each iteration's); refused
        otherwise, naming the tensor and the two accesses."""
        fn = self.fn
        if not _contains(fn, node):
            raise self.error(
                node,
                "`tl.debug_barrier()` in a @triton.jit helper is not supported",
                "call it in the kernel itself",
            )
        here = self.locate.span(node)
        at = (here.start_line, here.start_col)
        loops = [
            self.locate.span(loop)
            for loop in _nodes(fn.body, (cst.For, cst.While))
            if _contains(loop, node)
        ]
        # Inside a loop, each iteration's accesses after the barrier come before the next one.
        outer = min(loops, key=lambda s: (s.start_line, s.start_col)) if loops else None

        def side(a: _Access) -> set[str]:
            inside = outer is not None and (
                (outer.start_line, outer.start_col) <= a.at <= (outer.end_line, outer.end_col)
            )
            if inside:
                return {"before", "after"}
            return {"before"} if a.at < at else {"after"}

        accesses = _accesses(fn, self)
        conflicts = [
            (first, second, tensor)
            for first in accesses
            for second in accesses
            if "before" in side(first)
            and "after" in side(second)
            and (first.writes or second.writes)
            for tensor in sorted(first.tensors & second.tensors)
        ]
        if not conflicts:
            return
        # The pair in source order first (a loop's own accesses also meet across iterations).
        first, second, tensor = min(
            conflicts, key=lambda c: (c[0].at >= c[1].at, c[0].at, c[1].at, c[2])
        )
        other = (
            f"the one at line {second.line}"
            if second is not first
            else "itself in the next iteration"
        )
        raise self.error(
            node,
            f"this barrier orders the access to `{tensor}` at line {first.line} against "
            f"{other}, an order among the threads of one program that the IR does not carry",
            "keep the values in registers between the two accesses (compute the stored "
            "value once and use it), or keep this kernel in Triton",
        )


def _accesses(fn: cst.FunctionDef, lifter) -> list[_Access]:
    """The memory accesses of ``fn``, each with the tensors its pointer may reach."""
    lang = lifter.lang + "."
    reading, writing = _memory_calls(lifter.grammar, lifter.lang)
    points = _points_to(fn, lifter)
    found: list[_Access] = []

    def visit(n: cst.CSTNode) -> bool:
        if not isinstance(n, cst.Call) or not n.args:
            return True
        name = resolve(n.func, lifter.aliases) or ""
        short = name[len(lang) :] if name.startswith(lang) else None
        target: cst.BaseExpression | None = None
        writes = False
        if short in reading or short in writing:
            writes = short in writing
            target = _pointer_arg(n)
            if target is None:
                # No pointer to attribute: whatever any argument reaches (over-approximated).
                tensors = frozenset().union(*(_reach(a.value, points) for a in n.args))
                found.append(_Access(_start(n, lifter), tensors, writes, _start(n, lifter)[0]))
                return True
        elif isinstance(n.func, cst.Attribute) and n.func.attr.value in ("load", "store"):
            # `desc.load([...])`, `desc.store([...], v)`: a tensor descriptor.
            target, writes = n.func.value, n.func.attr.value == "store"
        elif isinstance(n.func, cst.Name) and n.func.value in lifter.launch.kernel.module.jit:
            # A helper may read and write whatever pointers it is given.
            tensors = frozenset().union(*(_reach(a.value, points) for a in n.args))
            if tensors:
                found.append(_Access(_start(n, lifter), tensors, True, _start(n, lifter)[0]))
            return True
        if target is not None:
            tensors = _reach(target, points)
            found.append(_Access(_start(n, lifter), tensors, writes, _start(n, lifter)[0]))
        return True

    walk(fn.body, visit)
    return found


def _points_to(fn: cst.FunctionDef, lifter) -> dict[str, frozenset[str]]:
    """For each name of ``fn``: the launch's tensors its value may be derived from (through
    any assignment, to a fixpoint). A parameter starts as the tensor the launch passes."""
    out: dict[str, frozenset[str]] = {}
    ps = fn.params
    for p in (*ps.posonly_params, *ps.params, *ps.kwonly_params):
        b = lifter.launch.bindings.get(p.name.value)
        if b is not None and b.kind in ("tensor", "descriptor"):
            out[p.name.value] = frozenset({b.tensor or p.name.value})
    flows: list[tuple[str, cst.BaseExpression]] = []

    def visit(n: cst.CSTNode) -> bool:
        if isinstance(n, cst.Assign):
            for t in n.targets:
                flows.extend((name, n.value) for name in names_in(t.target))
        elif isinstance(n, (cst.AugAssign, cst.AnnAssign)) and n.value is not None:
            flows.extend((name, n.value) for name in names_in(n.target))
        return True

    walk(fn.body, visit)
    changed = True
    while changed:
        changed = False
        for name, value in flows:
            reach = out.get(name, frozenset()) | _reach(value, out)
            if reach != out.get(name, frozenset()):
                out[name] = reach
                changed = True
    return out


def _reach(node: cst.CSTNode, points: dict[str, frozenset[str]]) -> frozenset[str]:
    return frozenset().union(*(points.get(n, frozenset()) for n in names_in(node)))


def _start(node: cst.CSTNode, lifter) -> tuple[int, int]:
    span = lifter.locate.span(node)
    return (span.start_line, span.start_col)


def _nodes(root: cst.CSTNode, kinds: tuple[type, ...]) -> list[cst.CSTNode]:
    found: list[cst.CSTNode] = []

    def visit(n: cst.CSTNode) -> bool:
        if isinstance(n, kinds):
            found.append(n)
        return True

    walk(root, visit)
    return found


def _contains(root: cst.CSTNode, node: cst.CSTNode) -> bool:
    hit = False

    def visit(n: cst.CSTNode) -> bool:
        nonlocal hit
        hit = hit or n is node
        return not hit

    walk(root, visit)
    return hit
