"""Device code that rebinds a name holding a host value, spelt so that Helion accepts it.

Helion types each variable by where its value comes from. Inside a kernel's loops, a name bound to
a host value (a parameter, a host local, or a device local assigned straight from one: ``q = s``)
keeps the host's type, and assigning it a value computed on the device raises
``CannotModifyHostVariableOnDevice`` (helion 1.4 and 1.5). The IR has no such rule: any frontend
may produce ``q = s`` followed by ``q = q * 1.44``, or ``s = s * 1.44`` for a parameter ``s``.

:func:`separate_host_values` rewrites a kernel before it is written:

* a straight-line rebinding (in the block where the name took the host value, with no read of the
  name outside that block) binds a fresh name instead (``q_2 = q * 1.44``), and later reads follow
  it;
* a rebinding in a nested loop or branch (a value carried around a loop, or merged after a branch)
  cannot change names, so the variable becomes a 0-d tensor from its host binding on (``q =
  hl.full([], s, dtype=torch.float32)``, the form Helion carries through loops); a parameter
  rebound so gets a device copy at the top of the kernel. Only float values can: an integer or
  bool is refused with a diagnostic.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any

from translator.diagnostics import TranslationError
from translator.ir import nodes as ir
from translator.ir.shapes import ScalarType, TileType, TileVarType, TypeEnv
from translator.ir.verifier import walk_kernel
from translator.ir.visit import all_exprs, walk_stmts
from translator.naming import unique


@dataclasses.dataclass(frozen=True)
class _HostValue:
    """A name that holds a host value: where it took it (``block`` ``None``: on the host)."""

    dtype: ir.DTypeExpr | None
    block: int | None


def separate_host_values(
    kernel: ir.Kernel, env: TypeEnv, taken: set[str]
) -> tuple[ir.Kernel, dict[str, ir.DTypeExpr]]:
    """``kernel`` with no device rebinding of a host value, and the names that must be 0-d
    tensors from their first binding on (see the module docstring). ``env`` is the kernel's
    scope on entry (its host names); ``taken`` the names in use, updated with new ones."""
    rebinder = _Rebinder(env, taken)
    body = rebinder.block(kernel.body, depth=0)
    return dataclasses.replace(kernel, body=tuple(rebinder.prelude) + body), rebinder.force


class _Rebinder:
    def __init__(self, env: TypeEnv, taken: set[str]) -> None:
        self.taken = taken
        self.rename: dict[str, str] = {}
        self.origin: dict[str, _HostValue] = {}
        for name, t in env.vars.items():
            if not isinstance(t, TileVarType):
                self.origin[name] = _HostValue(t.dtype if isinstance(t, ScalarType) else None, None)
        self.force: dict[str, ir.DTypeExpr] = {}
        self.prelude: list[ir.Stmt] = []
        # Names bound in each enclosing block so far (innermost last).
        self.bound: list[set[str]] = []
        self.reads: Counter[str] = Counter()
        self.block_reads: dict[int, Counter[str]] = {}

    # ------------------------------------------------------------------ blocks

    def block(self, stmts: tuple[ir.Stmt, ...], depth: int) -> tuple[ir.Stmt, ...]:
        if depth == 0:
            self.reads = _reads(stmts)
        self.block_reads[id(stmts)] = _reads(stmts)
        self.bound.append(set())
        out = tuple(self.stmt(s, stmts, depth) for s in stmts)
        self.bound.pop()
        return out

    def stmt(self, s: ir.Stmt, block: tuple[ir.Stmt, ...], depth: int) -> ir.Stmt:
        if isinstance(s, ir.Assign):
            return self.assign(s, block, depth)
        if isinstance(s, ir.TileLoop):
            tiles = tuple(_subst(t, self.rename) for t in s.tiles)
            return dataclasses.replace(s, tiles=tiles, body=self.block(s.body, depth + 1))
        if isinstance(s, ir.If):
            test = _subst(s.test, self.rename)
            body = self.block(s.body, depth + 1)
            orelse = self.block(s.orelse, depth + 1)
            return dataclasses.replace(s, test=test, body=body, orelse=orelse)
        if isinstance(s, ir.While):
            test = _subst(s.test, self.rename)
            return dataclasses.replace(s, test=test, body=self.block(s.body, depth + 1))
        return _subst(s, self.rename)

    # ------------------------------------------------------------------ assignments

    def assign(self, s: ir.Assign, block: tuple[ir.Stmt, ...], depth: int) -> ir.Stmt:
        value = _subst(s.value, self.rename)
        target = self.rename.get(s.target, s.target)
        held = self.origin.get(target)
        source = self._host_source(value)
        if held is not None and source is None and target not in self.force:
            copied = held.block is None
            target = self._rebind(s, target, held, block, depth)
            if copied and target in self.force:
                # The value carried around the loop is the device copy's, from the top on.
                value = _subst(s.value, self.rename)
        if source is not None:
            self.origin[target] = _HostValue(source.dtype, id(block))
        else:
            self.origin.pop(target, None)
        self.bound[-1].add(s.target)
        return dataclasses.replace(s, target=target, value=value)

    def _host_source(self, value: ir.Expr) -> _HostValue | None:
        """The host value that ``value`` is, unchanged (a plain name or a size)."""
        if isinstance(value, ir.Name):
            return self.origin.get(value.id)
        if isinstance(value, (ir.SizeOf, ir.ShapeOf)):
            return _HostValue(ir.I32, None)
        return None

    def _rebind(
        self, s: ir.Assign, target: str, held: _HostValue, block: tuple[ir.Stmt, ...], depth: int
    ) -> str:
        """The name under which ``s`` binds a device value where ``target`` holds a host one."""
        straight = (held.block is None and depth == 0) or (
            held.block == id(block)
            and (
                depth == 0
                or (
                    not any(s.target in names for names in self.bound[:-1])
                    and self.block_reads[id(block)][s.target] == self.reads[s.target]
                )
            )
        )
        if straight:
            # Nothing merges this binding with the host one: a new name is exact.
            new = unique(s.target, self.taken)
            self.rename[s.target] = new
            return new
        dtype = held.dtype
        if not (isinstance(dtype, ir.DType) and dtype.name in ir.FLOAT_DTYPES):
            raise TranslationError(
                f"`{s.target}` holds a host value and is rebound inside a loop or branch of the "
                "kernel: Helion allows that only for a device value, and only a float can be "
                "made one (a 0-d tensor)",
                s.loc,
                f"compute the new value under a new name instead of rebinding `{s.target}`",
            )
        if held.block is None:
            # A host name: a device copy at the top of the kernel takes its place throughout.
            copy = unique(s.target, self.taken)
            self.prelude.append(ir.Assign(copy, ir.Name(target), loc=s.loc))
            self.rename[s.target] = copy
            self.force[copy] = dtype
            return copy
        self.force[target] = dtype
        return target


def while_carried(kernel: ir.Kernel, env: TypeEnv) -> dict[str, ir.DTypeExpr]:
    """The device scalars a ``while`` loop of ``kernel`` carries, with the dtype of the 0-d
    tensor each must be from its first binding on: Helion carries only tensors through a
    ``while`` (a number there fails to merge: CantCombineTypesInControlFlow). Integers are
    int64, the width Helion computes index arithmetic in, so that a carried value keeps one
    type through the loop (Triton checks that where it compiles the loop)."""
    out: dict[str, ir.DTypeExpr] = {}

    def note(stmt: ir.Stmt, scope: TypeEnv) -> None:
        if not isinstance(stmt, ir.While):
            return
        for s in walk_stmts(stmt.body):
            t = scope.vars.get(s.target) if isinstance(s, ir.Assign) else None
            if isinstance(t, ScalarType) or (isinstance(t, TileType) and not t.dims):
                dtype = t.dtype
                wide = isinstance(dtype, ir.DType) and dtype.name in ir.INT_DTYPES
                out[s.target] = ir.I64 if wide else dtype  # type: ignore[union-attr]

    walk_kernel(kernel, note)
    return out


def _reads(stmts: tuple[ir.Stmt, ...]) -> Counter[str]:
    return Counter(e.id for e in all_exprs(stmts) if isinstance(e, ir.Name))


def _subst(node: Any, rename: dict[str, str]) -> Any:
    """``node`` (an IR node, or a tuple of them) with the names in ``rename`` renamed where read;
    nested statements are left to the caller."""
    if not rename:
        return node
    if isinstance(node, tuple):
        return tuple(_subst(x, rename) for x in node)
    if isinstance(node, ir.Name):
        return dataclasses.replace(node, id=rename.get(node.id, node.id))
    if isinstance(
        node,
        (
            ir.Expr,
            ir.TileVar,
            ir.Store,
            ir.AtomicRMW,
            ir.Return,
            ir.Assert,
            ir.FullDim,
            ir.GatherIndex,
            ir.ScalarIndex,
            ir.FullIndex,
        ),
    ):
        changes = {
            f.name: _subst(getattr(node, f.name), rename)
            for f in dataclasses.fields(node)
            if f.name not in ("loc", "comments")
        }
        return dataclasses.replace(node, **changes)
    return node


__all__ = ["separate_host_values"]
