"""Which tensor parameters of a kernel the module's host code may pass one tensor for.

A launch that passes the same tensor as two parameters (``affine(x, x)`` into a kernel that
reads ``x`` and writes ``out``) updates that tensor in place although no one parameter is both
read and written: a target whose autotuner times configs on the launch's own tensors must put
it back after each trial. What is read here is what the frontends modelled: the launches'
arguments, the views and carried names they go through, and the calls (:class:`ir.Forward`)
from host function to host function. A call the module does not model (a user's script
calling the public function with one tensor twice) is not seen.
"""

from __future__ import annotations

import re

from translator.ir import nodes as ir
from translator.ir.visit import walk_stmts

_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


def aliased_writes(kernel: ir.Kernel, module: ir.Module) -> set[str]:
    """The tensor parameters ``kernel`` writes (stores or atomics) that some modelled launch
    of it passes the same tensor as another of its tensor parameters."""
    written = {s.tensor for s in walk_stmts(kernel.body) if isinstance(s, (ir.Store, ir.AtomicRMW))}
    tensors = [p.name for p in kernel.params if p.kind == "tensor"]
    pairs = _aliased_param_pairs(module)
    out: set[str] = set()
    for entry in module.entries:
        for launch in entry.launches():
            if launch.kernel != kernel.name:
                continue
            roots = {
                p.name: _root(entry, arg)
                for p, arg in zip(kernel.params, launch.args)
                if p.name in tensors
            }
            for p in written & roots.keys():
                for q, root in roots.items():
                    same = root == roots[p] or (roots[p], root) in pairs.get(entry.name, set())
                    if q != p and root is not None and same:
                        out.add(p)
    return out


def _root(entry: ir.Entry, arg: ir.Expr) -> str | None:
    """The host name whose tensor a launch argument is: through views of it and carried
    copies of a plain name (``_k_x_0 = x``); ``None`` for anything else."""
    if not isinstance(arg, ir.Name):
        return None
    bound = {s.target: s for s in walk_stmts(entry.body) if isinstance(s, (ir.View, ir.Carried))}
    name, seen = arg.id, set()
    while name in bound and name not in seen:
        seen.add(name)
        s = bound[name]
        if isinstance(s, ir.View):
            name = s.tensor
        elif s.kind == "tensor" and _IDENTIFIER.fullmatch(s.source.strip()):
            name = s.source.strip()
        else:
            break
    return name


def _aliased_param_pairs(module: ir.Module) -> dict[str, set[tuple[str, str]]]:
    """Entry -> ordered pairs of its parameters some modelled call passes one value for:
    directly (``affine(x, x)``), or passing on two of the caller's parameters that a call of
    the caller aliases (to a fixpoint)."""
    pairs: dict[str, set[tuple[str, str]]] = {e.name: set() for e in module.entries}
    changed = True
    while changed:
        changed = False
        for caller in module.entries:
            for call in caller.forwards:
                if call.callee not in pairs:
                    continue
                for a, x in call.args:
                    for b, y in call.args:
                        same = (
                            isinstance(x, ir.Name)
                            and isinstance(y, ir.Name)
                            and (x == y or (x.id, y.id) in pairs[caller.name])
                        )
                        if a != b and same and (a, b) not in pairs[call.callee]:
                            pairs[call.callee].add((a, b))
                            changed = True
    return pairs
