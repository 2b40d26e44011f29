"""``@triton.jit`` helpers and ``triton.jit`` aliases a Triton file imports from its library's
other modules (``from .utils import triton_tanh``, ``from ..utils import triton_jit``), read from
disk (:mod:`translator.dialects.common.sibling_modules`) and taken in as if written in the file.

A helper is taken in only where it means in the file what it means in its own module: every
module-level name its body (and decorator) reads is bound the same way in both (the same import
of ``triton.language as tl``, say), or is another helper of its module taken in with it. Its
source is appended to the file's (as derived wrappers are), so the file's own positions are
unchanged. What cannot be taken in is recorded with why, for the diagnostic at the call.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass, field

import libcst as cst

from translator.dialects.common.sibling_modules import (
    ImportedName,
    find_module,
    imported_names,
    looked_in,
)
from translator.dialects.cst_utils import dotted, import_aliases, resolve

_JIT = "triton.jit"


@dataclass
class Siblings:
    """What the file takes from its siblings: appended helper source, aliases, and why each
    imported name it could not take stayed out."""

    text: str = ""
    aliases: dict[str, str] = field(default_factory=dict)
    misses: dict[str, str] = field(default_factory=dict)
    helpers: list[str] = field(default_factory=list)
    #: Each taken helper's file, for diagnostics inside it.
    sources: dict[str, str] = field(default_factory=dict)


def _read_names(node: cst.CSTNode) -> set[str]:
    """The heads of the names ``node`` reads (``tl`` of ``tl.sum``)."""
    names: set[str] = set()

    class V(cst.CSTVisitor):
        def visit_Name(self, n: cst.Name) -> None:
            names.add(n.value)

        def visit_Attribute(self, n: cst.Attribute) -> bool:
            n.value.visit(self)
            return False

        def visit_Param(self, n: cst.Param) -> bool:
            if n.default is not None:
                n.default.visit(self)
            if n.annotation is not None:
                n.annotation.visit(self)
            return False

        def visit_Arg(self, n: cst.Arg) -> bool:
            n.value.visit(self)
            return False

    node.visit(V())
    return names


def _bound_locally(fn: cst.FunctionDef) -> set[str]:
    """Parameters and names a function assigns (never module-level reads)."""
    out = {p.name.value for p in (*fn.params.params, *fn.params.kwonly_params)}

    class V(cst.CSTVisitor):
        def visit_AssignTarget(self, n: cst.AssignTarget) -> None:
            out.update(_read_names(n.target))

        def visit_AugAssign(self, n: cst.AugAssign) -> None:
            out.update(_read_names(n.target))

        def visit_For(self, n: cst.For) -> None:
            out.update(_read_names(n.target))

    fn.body.visit(V())
    return out


def _assigned_name(module: cst.Module, name: str, aliases: dict[str, str]) -> str | None:
    """The dotted name a module-level ``name = a.b`` of ``module`` binds ``name`` to (resolved
    through its imports), if that is its only module-level binding."""
    found = []
    for stmt in module.body:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) and stmt.name.value == name:
            return None
        for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.Assign) and any(
                isinstance(t.target, cst.Name) and t.target.value == name for t in small.targets
            ):
                found.append(resolve(small.value, aliases))
    return found[0] if len(found) == 1 else None


def _is_jit(fn: cst.FunctionDef, aliases: dict[str, str]) -> bool:
    for d in fn.decorators:
        target = d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator
        if resolve(target, aliases) == _JIT:
            return True
    return False


def read_siblings(module: cst.Module, path: str, used: set[str]) -> Siblings:
    """What ``module`` (at ``path``) takes from the modules it imports ``used`` names from."""
    out = Siblings()
    own = import_aliases(module)
    defined = {s.name.value for s in module.body if isinstance(s, (cst.FunctionDef, cst.ClassDef))}
    for local, imp in imported_names(module).items():
        if local not in used or local in defined:
            continue
        if own.get(local, "").startswith(("triton.", "torch.")):
            continue
        file, foreign = find_module(path, imp.module, imp.level)
        if file is None or foreign is None:
            out.misses[local] = (
                f"its module `{imp.spelled}` is not on disk beside this file (looked for "
                f"{looked_in(path, imp.module, imp.level)})"
            )
            continue
        _take(local, imp, file, foreign, own, defined, out)
    for stmt in module.body:
        for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
            if not isinstance(small, cst.Import):
                continue
            for alias in small.names:
                if alias.asname is None or not isinstance(alias.asname.name, cst.Name):
                    continue
                local, full = alias.asname.name.value, dotted(alias.name) or ""
                if local not in used or full.startswith(("triton", "torch")):
                    continue
                file, _ = find_module(path, full, 0)
                out.misses[local] = (
                    f"it is called through the module alias `{local}` of `{full}` "
                    + (
                        f"(read from {file}); tiletrans inlines helpers imported by name "
                        f"(`from {full} import NAME`)"
                        if file is not None
                        else f"(not on disk: looked for {looked_in(path, full, 0)})"
                    )
                )
    return out


def _take(
    local: str,
    imp: ImportedName,
    file: str,
    foreign: cst.Module,
    own: dict[str, str],
    defined: set[str],
    out: Siblings,
) -> None:
    theirs = import_aliases(foreign)
    if imp.name in theirs and local != imp.name:
        out.misses[local] = f"`{file}` binds `{imp.name}`, imported under another name here"
        return
    alias = theirs.get(imp.name) or _assigned_name(foreign, imp.name, theirs)
    if alias is not None:
        # `triton_jit_decorator = triton.jit` (or an import of it) in the sibling.
        if alias == _JIT or alias.startswith("triton."):
            out.aliases[local] = alias
        else:
            out.misses[local] = f"`{file}` binds `{imp.name}` to `{alias}`, which is no Triton name"
        return
    functions = {s.name.value: s for s in foreign.body if isinstance(s, cst.FunctionDef)}
    fn = functions.get(imp.name)
    if fn is None or not _is_jit(fn, theirs):
        out.misses[local] = f"`{file}` defines no @triton.jit function `{imp.name}`"
        return
    if local != imp.name:
        out.misses[local] = f"`{imp.name}` of `{file}` is imported under another name"
        return
    # The helper and the sibling helpers it calls, each reading only names bound alike here.
    taken: dict[str, cst.FunctionDef] = {}
    pending = [imp.name]
    while pending:
        name = pending.pop()
        if name in taken:
            continue
        if name != imp.name and (name in defined or name in own):
            out.misses[local] = f"`{name}` of `{file}`, which it calls, is bound otherwise here"
            return
        if out.sources.get(name, file) != file:
            # Two modules' helpers of one name would be one function in the appended text.
            out.misses[local] = (
                f"`{name}` of `{file}`, which it calls, has the name of a helper taken from "
                f"`{out.sources[name]}`"
            )
            return
        f = functions[name]
        taken[name] = f
        reads = _read_names(f) - _bound_locally(f) - set(dir(builtins))
        for n in sorted(reads):
            if n in functions and n not in taken:
                if not _is_jit(functions[n], theirs):
                    out.misses[local] = f"`{name}` of `{file}` calls `{n}`, no @triton.jit function"
                    return
                pending.append(n)
            elif n in functions:
                continue
            elif theirs.get(n) is None:
                out.misses[local] = (
                    f"`{name}` of `{file}` reads `{n}`, a name of its own module that this file "
                    "does not bind"
                )
                return
            elif own.get(n) != theirs[n]:
                out.misses[local] = (
                    f"`{name}` of `{file}` reads `{n}` (`{theirs[n]}` there), which this file "
                    "binds otherwise or not at all"
                )
                return
    for name, f in taken.items():
        code = cst.Module(body=[f]).code.strip("\n")
        out.text += f"\n\n{code}\n"
        out.helpers.append(name)
        out.sources[name] = file


def names_read(module: cst.Module) -> set[str]:
    """Every name ``module`` reads (an over-approximation of those it uses)."""
    return _read_names(module)


def import_from_names(small: cst.BaseSmallStatement) -> tuple[str, ...]:
    """The local names a ``from ... import ...`` binds (empty for anything else)."""
    if not isinstance(small, cst.ImportFrom) or isinstance(small.names, cst.ImportStar):
        return ()
    return tuple(
        a.asname.name.value if a.asname is not None else a.name.value  # type: ignore[union-attr]
        for a in small.names
        if isinstance(a.name, cst.Name)
    )
