"""Spin locks in Triton kernels, recognised so that their refusal says what the kernel does.

Triton's layer-norm tutorial accumulates partial weight gradients under a lock::

    while tl.atomic_cas(Lock, 0, 1) == 1:
        pass
    ...                      # read, add and store the group's row (and a first-visit count)
    tl.atomic_xchg(Lock, 0)

The IR has no lock or critical section, and no target DSL spells one (Helion, TileLang and cuTile
have atomics but no spin-wait). What such a section computes is usually an atomic accumulation,
but proving that needs facts the kernel alone does not give: that every address the section
touches is owned by one lock, that the first-visit protocol (``if count == 0``: store without
reading) only ever sees a buffer the host zeroed, and that the stored dtype rounds as an atomic
add of the program's share would. So the frontend refuses, and the diagnostic names the lock,
its release and the stores it guards, and the atomic adds to write instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst

from translator.dialects.cst_utils import resolve, source_of, walk


@dataclass(frozen=True)
class SpinLock:
    """A ``while tl.atomic_cas(lock, ...) ...: pass`` and what it guards."""

    lock: str  # the lock's pointer, as written
    release: cst.Call | None  # `tl.atomic_xchg(lock, 0)` after it in the same block, if any
    stores: tuple[cst.Call, ...]  # the `tl.store`s between the spin and the release


def spin_lock_of(
    call: cst.Call, fn: cst.FunctionDef, aliases: dict[str, str], lang: str
) -> SpinLock | None:
    """The spin lock ``call`` (a ``tl.atomic_cas``) acquires in ``fn``, if it is the test of a
    ``while`` whose body only passes; else ``None``."""
    found: list[SpinLock] = []

    def visit(node: cst.CSTNode) -> bool:
        body = getattr(node, "body", None)
        stmts = getattr(body, "body", None)
        if isinstance(stmts, Sequence) and not found:
            lock = _scan(list(stmts), call, aliases, lang)
            if lock is not None:
                found.append(lock)
        return not found

    walk(fn, visit)
    return found[0] if found else None


def _scan(
    stmts: list[cst.CSTNode], call: cst.Call, aliases: dict[str, str], lang: str
) -> SpinLock | None:
    for i, stmt in enumerate(stmts):
        if not (isinstance(stmt, cst.While) and _contains(stmt.test, call) and _spins(stmt)):
            continue
        if not call.args:
            return None
        lock = source_of(call.args[0].value)
        release = None
        stores: list[cst.Call] = []
        for later in stmts[i + 1 :]:
            for c in _calls(later):
                name = resolve(c.func, aliases) or ""
                if (
                    name == f"{lang}.atomic_xchg"
                    and c.args
                    and (source_of(c.args[0].value) == lock)
                ):
                    release = c
                    break
                if name == f"{lang}.store":
                    stores.append(c)
            if release is not None:
                break
        return SpinLock(lock, release, tuple(stores))
    return None


def _spins(loop: cst.While) -> bool:
    """The loop's body does nothing but wait (``pass``)."""
    body = loop.body
    if loop.orelse is not None:
        return False
    if isinstance(body, cst.SimpleStatementSuite):
        return all(isinstance(s, cst.Pass) for s in body.body)
    return all(
        isinstance(s, cst.SimpleStatementLine) and all(isinstance(x, cst.Pass) for x in s.body)
        for s in body.body
    )


def _contains(node: cst.CSTNode, target: cst.CSTNode) -> bool:
    hit: list[cst.CSTNode] = []

    def visit(n: cst.CSTNode) -> bool:
        if n is target:
            hit.append(n)
        return not hit

    walk(node, visit)
    return bool(hit)


def _calls(node: cst.CSTNode) -> list[cst.Call]:
    out: list[cst.Call] = []

    def visit(n: cst.CSTNode) -> bool:
        if isinstance(n, cst.Call):
            out.append(n)
        return True

    walk(node, visit)
    return out
