"""Host code of a Helion kernel function: statements, their placement, and kernel independence."""

from __future__ import annotations

from translator.diagnostics import TranslationError
from translator.dialects.formatting import float_literal
from translator.dialects.helion.kernel_writer import Writer
from translator.grammar import load_grammar
from translator.ir import nodes as ir
from translator.ir.visit import all_exprs, walk_expr, walk_stmts


def split_host(entry: ir.Entry) -> tuple[list[ir.Stmt], list[ir.Kernel], list[ir.Stmt]]:
    """``(host statements run first, kernels, host statements after the last kernel)``.

    Helion refuses statements between top-level loops. Host statements never read what a kernel
    computed (they unpack sizes, allocate, view, assert on shapes), so the ones between kernels
    move up front, unless one rebinds a name that an earlier kernel reads.
    """
    kernels = entry.kernels()
    if not kernels:
        return list(entry.body), [], []
    first = entry.body.index(kernels[0])
    last = entry.body.index(kernels[-1])
    before = list(entry.body[:first])
    read: set[str] = set()
    for s in entry.body[first : last + 1]:
        if isinstance(s, ir.Kernel):
            read |= {e.id for e in all_exprs((s,)) if isinstance(e, ir.Name)}
            continue
        bound = _bound(s)
        if bound & read:
            raise TranslationError(
                f"`{', '.join(sorted(bound & read))}` is rebound between two kernels that read it; "
                "Helion allows no statement between top-level loops",
                getattr(s, "loc", None),
                "bind the new value under a new name",
            )
        before.append(s)
    return before, kernels, list(entry.body[last + 1 :])


def _bound(s: ir.Stmt) -> set[str]:
    if isinstance(s, (ir.Assign, ir.Alloc, ir.View)):
        return {s.target}
    if isinstance(s, ir.ShapeUnpack):
        return {t for t in s.targets if t is not None}
    return set()


def check_independent_kernels(entry: ir.Entry) -> None:
    """Refuse an entry whose kernels depend on each other.

    Helion fuses an entry's top-level loops into one launch whose programs run concurrently, so
    a later kernel must not read or write what an earlier one writes, nor write what it reads.
    Views share their base tensor's memory. Atomic updates of one tensor by the same op commute.
    """
    kernels = entry.kernels()
    if len(kernels) < 2:
        return
    root = _view_roots(entry)
    access = [_accesses(k, root) for k in kernels]
    for i in range(len(kernels)):
        reads_i, writes_i, atomics_i = access[i]
        for j in range(i + 1, len(kernels)):
            reads_j, writes_j, atomics_j = access[j]
            shared_atomics = {t for t, op in atomics_i.items() if atomics_j.get(t) == op}
            clash = (writes_i & (reads_j | writes_j)) | (reads_i & writes_j)
            clash -= shared_atomics - reads_i - reads_j
            if clash:
                raise TranslationError(
                    f"`{entry.name}` launches kernels that depend on each other through "
                    f"{', '.join(f'`{t}`' for t in sorted(clash))}; Helion runs all top-level "
                    "loops of a kernel function concurrently, in one launch",
                    kernels[j].loc,
                    "split the source into one kernel function per dependent loop",
                )


def _view_roots(entry: ir.Entry) -> dict[str, str]:
    root: dict[str, str] = {}
    for s in entry.body:
        if isinstance(s, ir.View):
            root[s.target] = root.get(s.tensor, s.tensor)
    return root


def _accesses(kernel: ir.Kernel, root: dict[str, str]):
    reads: set[str] = set()
    writes: set[str] = set()
    atomics: dict[str, str | None] = {}
    for s in walk_stmts(kernel.body):
        if isinstance(s, (ir.Store, ir.AtomicRMW)):
            t = root.get(s.tensor, s.tensor)
            writes.add(t)
            if isinstance(s, ir.AtomicRMW):
                # Two different ops on one tensor do not commute: mark it as mixed.
                atomics[t] = s.op if atomics.get(t, s.op) == s.op else None
    for e in all_exprs(kernel.body):
        if isinstance(e, ir.Load):
            reads.add(root.get(e.tensor, e.tensor))
    plain = {
        root.get(s.tensor, s.tensor) for s in walk_stmts(kernel.body) if isinstance(s, ir.Store)
    }
    for t in plain:
        atomics.pop(t, None)
    return reads, writes, {t: op for t, op in atomics.items() if op is not None}


# --------------------------------------------------------------------------------------------------
# statements


def host_line(s: ir.Stmt, w: Writer, specialized: set[str]) -> str:
    """One host statement as Python (``w`` writes its expressions)."""
    spell = load_grammar("helion")["backend"]
    if isinstance(s, ir.ShapeUnpack):
        targets = ", ".join(t or "_" for t in s.targets)
        return f"{targets}{',' if len(s.targets) == 1 else ''} = {s.tensor}.size()"
    if isinstance(s, ir.Alloc):
        return f"{s.target} = {_alloc(s, w, spell['host_alloc'])}"
    if isinstance(s, ir.View):
        return f"{s.target} = {s.tensor}.view({', '.join(w.text(d) for d in s.shape)})"
    if isinstance(s, ir.Assert):
        return f"assert {w.text(s.test)}" + (f", {s.msg}" if s.msg else "")
    if isinstance(s, ir.Assign):
        value = w.text(s.value)
        if s.target in specialized:
            value = f"{spell['language']['specialize']}({value})"
        return f"{s.target} = {value}"
    if isinstance(s, ir.Return):
        return "return" if s.value is None else f"return {w.text(s.value)}"
    raise TranslationError(
        f"host statement `{type(s).__name__}` has no Helion spelling", getattr(s, "loc", None)
    )


def _alloc(s: ir.Alloc, w: Writer, fns: dict[str, str]) -> str:
    fill = s.fill
    kind = (
        "empty" if fill is None else "zeros" if fill == 0.0 else "ones" if fill == 1.0 else "full"
    )
    fill_arg = f", {float_literal(fill)}" if kind == "full" else ""
    if s.like is not None:
        dtype = "" if s.dtype == ir.DTypeOf(s.like) else f", dtype={w.dtype(s.dtype)}"
        return f"{fns[kind + '_like']}({s.like}{fill_arg}{dtype})"
    shape = "[" + ", ".join(w.text(d) for d in s.shape or ()) + "]"
    return f"{fns[kind]}({shape}{fill_arg}, dtype={w.dtype(s.dtype)}, device={s.device_of}.device)"


__all__ = ["check_independent_kernels", "host_line", "split_host", "walk_expr"]
