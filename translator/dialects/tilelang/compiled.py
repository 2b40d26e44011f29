"""Undecorated TileLang factories, the style of TileLang's example folder::

    def matmul(M, N, K, block_M, block_N, block_K, dtype="float16"):
        @T.prim_func
        def main(A: T.Tensor((M, K), dtype), ...):
            ...

        return main

    kernel = tilelang.compile(matmul(m, n, k, 128, 128, 32), out_idx=[-1])
    c = kernel(a, b)

A module-level function without decorators that returns its ``@T.prim_func`` is a kernel
factory; what compiles it (``tilelang.compile(f, out_idx=...)`` or ``tilelang.jit(out_idx=...)
(f)``, of a factory call or of a name bound to one) gives its ``out_idx``. A factory the module
never compiles has none: its outputs are arguments."""

from __future__ import annotations

import libcst as cst

from translator.dialects.tilelang.factory import build_options
from translator.dialects.tilelang.model import ModuleFacts, decorator_of


def plain_factory(fn: cst.FunctionDef, mod: ModuleFacts, g: dict) -> bool:
    """Whether ``fn`` is an undecorated function that defines a ``@T.prim_func`` and returns it
    (its first ``return``: TileLang's examples leave dead returns after it)."""
    if fn.decorators:
        return False
    prims = {
        s.name.value
        for s in fn.body.body
        if isinstance(s, cst.FunctionDef) and decorator_of(s, mod, g["kernel"]["prim_func"])
    }
    for s in fn.body.body:
        small = s.body[0] if isinstance(s, cst.SimpleStatementLine) else None
        if isinstance(small, cst.Return):
            return isinstance(small.value, cst.Name) and small.value.value in prims
    return False


def compiled_of(
    call: cst.Call, mod: ModuleFacts, g: dict
) -> tuple[cst.BaseExpression, cst.Call] | None:
    """``(what is compiled, the call holding the options)`` of ``tilelang.compile(f, ...)``,
    ``tilelang.jit(f, ...)`` or ``tilelang.jit(...)(f)``; ``None`` for any other call."""
    name = mod.name_of(call.func)
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    if name in g["kernel"]["compile"] or name == g["kernel"]["decorator"]:
        return (positional[0], call) if positional else None
    inner = call.func
    if (
        isinstance(inner, cst.Call)
        and mod.name_of(inner.func) == g["kernel"]["decorator"]
        and len(positional) == 1
        and not [a for a in inner.args if a.keyword is None]
    ):
        return positional[0], inner
    return None


class _Compiles(cst.CSTVisitor):
    """Every ``name = factory(...)`` and every compile call of the module."""

    def __init__(self, mod: ModuleFacts, g: dict, factories: set[str]) -> None:
        self.mod = mod
        self.g = g
        self.factories = factories
        self.bound: dict[str, str] = {}
        self.compiles: list[tuple[cst.BaseExpression, cst.Call]] = []

    def visit_Assign(self, node: cst.Assign) -> None:
        value = node.value
        if (
            len(node.targets) == 1
            and isinstance(node.targets[0].target, cst.Name)
            and isinstance(value, cst.Call)
            and isinstance(value.func, cst.Name)
            and value.func.value in self.factories
        ):
            self.bound[node.targets[0].target.value] = value.func.value

    def visit_Call(self, node: cst.Call) -> None:
        found = compiled_of(node, self.mod, self.g)
        if found is not None:
            self.compiles.append(found)


def compiled_factory(
    built: cst.BaseExpression, factories: set[str], bound: dict[str, str]
) -> str | None:
    """The factory ``built`` is a call of (``matmul(...)``), or names a call of."""
    if isinstance(built, cst.Call) and isinstance(built.func, cst.Name):
        return built.func.value if built.func.value in factories else None
    if isinstance(built, cst.Name):
        return bound.get(built.value)
    return None


def compiled_out_idx(
    module: cst.Module, mod: ModuleFacts, g: dict, factories: set[str]
) -> dict[str, list[int]]:
    """The ``out_idx`` each undecorated factory is compiled with (the same at every compile call
    of it, else a located refusal)."""
    found = _Compiles(mod, g, factories)
    module.visit(found)
    out: dict[str, tuple[list[int], cst.Call]] = {}
    for built, options in found.compiles:
        name = compiled_factory(built, factories, found.bound)
        if name is None:
            continue
        out_idx = build_options(options, mod, "tilelang.compile")
        if name in out and out[name][0] != out_idx:
            first = mod.locate(out[name][1])
            raise mod.error(
                options,
                f"`{name}` is compiled with out_idx={out_idx} here and "
                f"out_idx={out[name][0]} at line {first.line}",
                "compile each factory with one out_idx",
            )
        out.setdefault(name, (out_idx, options))
    return {name: out[name][0] if name in out else [] for name in factories}


__all__ = ["compiled_factory", "compiled_of", "compiled_out_idx", "plain_factory"]
