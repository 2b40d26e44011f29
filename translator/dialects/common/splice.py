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
from dataclasses import dataclass

import libcst as cst

_PREFIX = "__tiletrans_kernel_text_"


@dataclass(frozen=True)
class KernelText:
    """One rendered kernel text, ready to stand in the edited tree."""

    name: str  # the placeholder's name
    body: str  # the statements' lines (the first statement's first line on)
    leading: tuple[str, ...]  # comment lines above the first statement
    defines: frozenset[str]  # module-level names its statements bind
    reads: tuple[str, ...]  # every name it reads (an over-approximation, as dead-host's)
    def_lines: tuple[int, ...]  # 0-based line in ``body`` where each top-level def begins


def kernel_text_name(index: int) -> str:
    """The name of the ``index``-th placeholder of a module."""
    return f"{_PREFIX}{index}__"


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
                def_lines.append(_first_line(stmt) - first)
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
    """The definition standing for ``kernel`` in the tree: named for it, reading its reads."""
    body: list[cst.BaseStatement] = [cst.SimpleStatementLine(body=[cst.Pass()])]
    if kernel.reads:
        # Commas as the parser gives them: the edited tree is the parse of its text.
        last = len(kernel.reads) - 1
        read = cst.Tuple(
            [
                cst.Element(
                    cst.Name(n),
                    comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
                    if i < last
                    else (cst.Comma() if last == 0 else cst.MaybeSentinel.DEFAULT),
                )
                for i, n in enumerate(kernel.reads)
            ]
        )
        body.append(cst.SimpleStatementLine(body=[cst.Expr(read)]))
    leading = [cst.EmptyLine(comment=cst.Comment(line)) for line in kernel.leading]
    return cst.FunctionDef(
        name=cst.Name(kernel.name),
        params=cst.Parameters(),
        body=cst.IndentedBlock(body=body),
        leading_lines=leading,
    )


def with_decorators(kernel: KernelText, decorators: tuple[str, ...]) -> KernelText:
    """``kernel`` with ``decorators`` put above the decorators of each of its definitions."""
    if not decorators:
        return kernel
    lines = kernel.body.splitlines()
    extra = [f"@{d}" for d in decorators]
    for at in sorted(kernel.def_lines, reverse=True):
        lines[at:at] = extra
    return KernelText(
        kernel.name,
        "\n".join(lines) + "\n",
        kernel.leading,
        kernel.defines,
        kernel.reads,
        kernel.def_lines,
    )


def splice_into(code: str, kernels: dict[str, KernelText]) -> str:
    """``code`` with each placeholder's lines replaced by its kernel's text."""
    if not kernels:
        return code
    out: list[str] = []
    lines = code.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith(f"def {_PREFIX}"):
            kernel = kernels[line[4 : line.index("(")]]
            out.append(kernel.body)
            # The placeholder: its `def` line, `pass`, then the tuple of reads, each on one line
            # (the body at the module's indentation, whatever that is).
            i += 3 if kernel.reads else 2
            continue
        out.append(line)
        i += 1
    return "".join(out)
