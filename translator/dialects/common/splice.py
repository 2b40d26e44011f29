"""Rendered kernel text carried through host-code assembly without being parsed into libcst.

A backend renders each kernel as text. Parsing that text into libcst nodes only to insert them
into the edited host module, then printing them again, was a fifth of a translation's time
(TileLang's 84 translations: 0.45 s of 2.4). What the assembly asks of a kernel is small: the
names it defines (dead-host removal leaves them), the names it reads (they keep host statements
and imports alive), and its place in the module. So a kernel's text stands in the tree as one
placeholder definition whose body reads what the text reads, and the text replaces the
placeholder's lines once the module is printed (:func:`splice_into`). The printed text is what
libcst would have printed for the parsed statements (``tests/test_passthrough_tree.py``).
"""

from __future__ import annotations

import ast
from collections.abc import Collection
from dataclasses import dataclass

import libcst as cst

from translator.dialects.common.dead_host import reading_block

_PREFIX = "__tiletrans_kernel_text_"


@dataclass(frozen=True)
class KernelText:
    """One rendered kernel text, ready to stand in the edited tree."""

    name: str  # the placeholder's name
    body: str  # the statements' lines (the first statement's first line on)
    leading: tuple[str, ...]  # comment lines above the first statement
    defines: frozenset[str]  # module-level names its statements bind
    reads: tuple[str, ...]  # every name it reads (an over-approximation, as dead-host's)
    #: Each top-level ``def``: its name and the 0-based line in ``body`` where it begins.
    def_lines: tuple[tuple[str, int], ...]


def kernel_text_name(index: int, nonce: str = "") -> str:
    """The name of the ``index``-th placeholder of a module. ``nonce`` (fresh per module) keeps
    the name out of anything the module's own text could contain, a string literal say."""
    return f"{_PREFIX}{nonce}{index}__"


def kernel_text(text: str, index: int) -> KernelText:
    """``text`` (module-level statements) as a :class:`KernelText` named by ``index``."""
    tree = ast.parse(text)
    lines = text.splitlines()
    if not tree.body:
        return KernelText(kernel_text_name(index), "", (), frozenset(), (), ())
    first = _first_line(tree.body[0])
    leading = tuple(line.strip() for line in lines[:first] if line.strip().startswith("#"))
    body = lines[first:]
    while body and not body[-1].strip():
        body.pop()
    defines: set[str] = set()
    def_lines = []
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defines.add(stmt.name)
            if isinstance(stmt, ast.FunctionDef):
                def_lines.append((stmt.name, _first_line(stmt) - first))
        elif isinstance(stmt, ast.Assign):
            defines.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            defines.add(stmt.target.id)
    reads = sorted({n.id for n in ast.walk(tree) if isinstance(n, ast.Name)})
    return KernelText(
        kernel_text_name(index),
        "\n".join(body) + "\n",
        leading,
        frozenset(defines),
        tuple(reads),
        tuple(def_lines),
    )


def _first_line(stmt: ast.stmt) -> int:
    """The 0-based line where ``stmt`` begins (its first decorator, for a definition)."""
    decorators = getattr(stmt, "decorator_list", ())
    return min([stmt.lineno, *(d.lineno for d in decorators)]) - 1


def placeholder(kernel: KernelText) -> cst.FunctionDef:
    """The definition standing for ``kernel`` in the tree: named for it, its body the block
    dead-host removal stubs a kernel's body with (what the text reads)."""
    leading = [cst.EmptyLine(comment=cst.Comment(line)) for line in kernel.leading]
    return cst.FunctionDef(
        name=cst.Name(kernel.name),
        params=cst.Parameters(),
        body=reading_block(kernel.reads),
        leading_lines=leading,
    )


def with_decorators(
    kernel: KernelText, decorators: tuple[str, ...], only: Collection[str] | None = None
) -> KernelText:
    """``kernel`` with ``decorators`` put above the decorators of each of its definitions (of
    those named in ``only``, where given: a helper the backend writes beside the kernel is no
    kernel)."""
    if not decorators:
        return kernel
    lines = kernel.body.splitlines()
    extra = [f"@{d}" for d in decorators]
    for name, at in sorted(kernel.def_lines, key=lambda d: d[1], reverse=True):
        if only is None or name in only:
            lines[at:at] = extra
    return KernelText(
        kernel.name,
        "\n".join(lines) + "\n",
        kernel.leading,
        kernel.defines,
        kernel.reads,
        kernel.def_lines,
    )


def splice_into(code: str, kernels: dict[str, KernelText], newline: str = "\n") -> str:
    """``code`` with each placeholder's lines replaced by its kernel's text (lines ended by
    ``newline``, the module's own)."""
    if not kernels:
        return code
    out: list[str] = []
    lines = code.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        line = lines[i]
        name = line[4 : line.find("(")] if line.startswith(f"def {_PREFIX}") else None
        if name in kernels:
            kernel = kernels[name]
            body = kernel.body
            out.append(body if newline == "\n" else body.replace("\n", newline))
            # The placeholder: its `def` line, `pass`, then the tuple of reads, each on one line
            # (the body at the module's indentation, whatever that is).
            i += 3 if kernel.reads else 2
            continue
        out.append(line)
        i += 1
    return "".join(out)
