"""One printer base for every backend: dispatch, precedence, names and grammar spellings.

Every backend prints the same IR as Python source of its DSL, and most of the work is shared:
finding the method that spells a node, parenthesising by Python's precedence, indenting
statements, carrying source comments, looking spellings up in the dialect's grammar. This module
holds that work once so that a new backend writes only what its DSL spells differently.

* :class:`ExprPrinter` prints expressions. A subclass spells a node kind ``K`` by defining
  ``_ex_K(self, e) -> (text, precedence)``; the methods are collected into a per-class table
  (:attr:`ExprPrinter.expr_spellings`) when the class is defined, TVMScript-style, and a kind
  with no method is refused with a located :class:`TranslationError` (``"Triton cannot spell
  the IR expression `Scan`"``), never a traceback. Names, constants and the Python operators are
  spelt here already, with hooks for where the DSLs differ (what ``and`` means on tiles, how
  ``not`` is written, how arithmetic operands are promoted).
* :class:`CodePrinter` adds device code: the dialect's grammar tables, a type environment,
  statement dispatch (``_st_K`` methods, same rules), indented output lines and the comments a
  statement carries.

The backend hooks of Helion's own compiler (``_compiler/backend.py``) follow the same idea: a
base whose every hook refuses until a backend says how.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from translator.diagnostics import TranslationError
from translator.dialects.common.formatting import float_literal, string_literal
from translator.grammar import load_grammar
from translator.ir import nodes as ir
from translator.ir.printer import (
    ATOM_PRECEDENCE,
    NOT_PRECEDENCE,
    PRECEDENCE,
    UNARY_PRECEDENCE,
    operand_precedence,
)
from translator.ir.shapes import TileType, TypeEnv, dims_of, dtype_of, infer

#: The precedence of an atom (name, literal, call, subscript): never parenthesised.
ATOM = ATOM_PRECEDENCE

ExprSpelling = Callable[[Any, Any], tuple[str, int]]
StmtSpelling = Callable[[Any, Any], None]


def _collect(cls: type, prefix: str, base: type) -> dict[type, Any]:
    """The ``prefix<Kind>`` methods of ``cls`` (inherited ones included), keyed by IR node class.

    A method whose suffix names no IR node of ``base`` is a ``TypeError`` when the class is
    defined: a misspelt ``_ex_Brodcast`` would otherwise never be called, and the node it meant
    would be refused as unsupported. A method set to ``None`` withdraws an inherited spelling.
    """
    table: dict[type, Any] = {}
    for attr in dir(cls):
        if not attr.startswith(prefix):
            continue
        kind = attr[len(prefix) :]
        node = getattr(ir, kind, None)
        if not (isinstance(node, type) and issubclass(node, base)):
            raise TypeError(
                f"{cls.__name__}.{attr}: `ir.{kind}` is no IR {base.__name__.lower()} node"
            )
        method = getattr(cls, attr)
        if method is not None:
            table[node] = method
    return table


def comment_lines(stmt: ir.Stmt) -> list[str]:
    """The source comments carried above ``stmt``, as lines (``#`` alone for an empty one)."""
    return [f"# {c}" if c else "#" for c in stmt.comments]


class ExprPrinter:
    """Prints IR expressions as Python source of one DSL, parenthesised by Python precedence.

    Subclasses set :attr:`language` (the DSL's name in messages), :attr:`dtypes` (IR dtype name
    -> spelling) and define ``_ex_<Kind>`` methods for the node kinds the DSL spells, each
    returning the text and its precedence (:data:`translator.ir.printer.PRECEDENCE`'s numbers,
    :data:`ATOM` for atoms).
    """

    #: The DSL's name in diagnostics (``"Helion"``).
    language: ClassVar[str] = "this DSL"
    #: The hint of the refusal of a node kind with no spelling.
    refusal_hint: ClassVar[str | None] = None
    #: Node class -> the method spelling it; built for each class when it is defined.
    expr_spellings: ClassVar[dict[type, ExprSpelling]]
    #: IR dtype name -> its spelling (``"float32"`` -> ``"torch.float32"``).
    dtypes: Mapping[str, str] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.expr_spellings = _collect(cls, "_ex_", ir.Expr)

    # ------------------------------------------------------------------ dispatch

    def refuse(self, message: str, node: object, hint: str | None = None) -> TranslationError:
        """A refusal located at ``node`` (an IR node with a ``loc``, or anything without one)."""
        return TranslationError(message, getattr(node, "loc", None), hint)

    def ex(self, e: ir.Expr) -> tuple[str, int]:
        """The text of ``e`` and its precedence.

        Raises :class:`TranslationError` located at ``e`` when this printer has no spelling for
        its kind (an IR node newer than the backend refuses rather than fails with a traceback).
        """
        spelling = self.expr_spellings.get(type(e))
        if spelling is None:
            raise self.refuse(
                f"{self.language} cannot spell the IR expression `{type(e).__name__}` yet",
                e,
                self.refusal_hint,
            )
        return spelling(self, e)

    def text(self, e: ir.Expr, prec: int = 0) -> str:
        """The text of ``e``, parenthesised if it binds looser than ``prec``."""
        s, p = self.ex(e)
        return f"({s})" if p < prec else s

    # ------------------------------------------------------------------ grammar spellings

    def dtype(self, dt: ir.DTypeExpr) -> str:
        """The spelling of a dtype: from :attr:`dtypes`, or :meth:`tensor_dtype` for a tensor's."""
        if isinstance(dt, ir.DTypeOf):
            return self.tensor_dtype(dt.tensor)
        spelt = self.dtypes.get(dt.name)
        if spelt is None:
            raise TranslationError(f"{self.language} cannot spell the dtype `{dt.name}`", None)
        return spelt

    def tensor_dtype(self, tensor: str) -> str:
        """The element type of tensor ``tensor`` (``x.dtype``); unsupported by default."""
        raise TranslationError(
            f"{self.language} cannot spell the element type of tensor `{tensor}`", None
        )

    # ------------------------------------------------------------------ spellings every DSL shares

    def _ex_Name(self, e: ir.Name) -> tuple[str, int]:
        return e.id, ATOM

    def _ex_Const(self, e: ir.Const) -> tuple[str, int]:
        v = e.value
        if isinstance(v, str):
            return string_literal(v), ATOM
        if v is None:
            return "None", ATOM
        if isinstance(v, float) and not math.isfinite(v):
            return float_literal(v), ATOM  # no literal: `float("inf")`, a call
        # A negative number is a unary minus: `(-1) ** k` needs its parentheses.
        negative = not isinstance(v, bool) and v < 0
        return repr(v), (UNARY_PRECEDENCE if negative else ATOM)

    def _ex_BinOp(self, e: ir.BinOp) -> tuple[str, int]:
        op = e.op
        if op in ("and", "or") and self.elementwise_logic(e):
            # Tiles combine elementwise: `&`/`|` on booleans.
            op = "&" if op == "and" else "|"
            return f"{self.truth(e.lhs, op)} {op} {self.truth(e.rhs, op)}", PRECEDENCE[op]
        lp, rp = operand_precedence(op)
        lhs, rhs = self.binop_operands(e, lp, rp)
        return f"{lhs} {op} {rhs}", PRECEDENCE[op]

    def _ex_UnaryOp(self, e: ir.UnaryOp) -> tuple[str, int]:
        if e.op != "not":
            return f"{e.op}{self.text(e.operand, UNARY_PRECEDENCE)}", UNARY_PRECEDENCE
        form = self.negation(e.operand)
        if form == "~":
            return f"~{self.text(e.operand, UNARY_PRECEDENCE)}", UNARY_PRECEDENCE
        if form == "== 0":
            p = PRECEDENCE["=="]
            return f"{self.text(e.operand, p + 1)} == 0", p
        return f"not {self.text(e.operand, NOT_PRECEDENCE)}", NOT_PRECEDENCE

    # ------------------------------------------------------------------ hooks of the operators

    def elementwise_logic(self, e: ir.BinOp) -> bool:
        """Whether ``and``/``or`` in ``e`` are spelt ``&``/``|`` (on tiles); Python's by default."""
        return False

    def logic_operand_precedence(self, op: str) -> int:
        """The precedence a boolean operand of ``&``/``|`` (``op``) must have to go bare."""
        return PRECEDENCE[op] + 1

    def truth(self, e: ir.Expr, op: str) -> str:
        """``e`` as an operand of elementwise ``op`` (``&``/``|``); ``e`` is boolean by default."""
        return self.text(e, self.logic_operand_precedence(op))

    def binop_operands(self, e: ir.BinOp, lhs_prec: int, rhs_prec: int) -> tuple[str, str]:
        """The texts of ``e``'s operands at the least precedences Python needs of them (a
        backend that converts operands, as torch's dtype promotion needs, hooks in here)."""
        return self.text(e.lhs, lhs_prec), self.text(e.rhs, rhs_prec)

    def negation(self, operand: ir.Expr) -> str:
        """How ``not operand`` is spelt: ``"not"`` (Python's, the default), ``"~"`` (a boolean
        tile) or ``"== 0"`` (a non-boolean one)."""
        return "not"


ExprPrinter.expr_spellings = _collect(ExprPrinter, "_ex_", ir.Expr)


class CodePrinter(ExprPrinter):
    """Prints a kernel's device code: expressions, and statements as indented lines.

    Subclasses set :attr:`dialect` (the grammar whose ``[backend.*]`` tables are
    :attr:`spell`) and define ``_st_<Kind>`` methods for the statements they write; a kind with
    no method is refused like an expression's.
    """

    #: The grammar's name (``grammars/<dialect>.toml``).
    dialect: ClassVar[str] = ""
    #: Statement class -> the method writing it; built for each class when it is defined.
    stmt_spellings: ClassVar[dict[type, StmtSpelling]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.stmt_spellings = _collect(cls, "_st_", ir.Stmt)

    def __init__(self, env: TypeEnv, indent: int = 0) -> None:
        self.env = env
        #: The dialect's ``[backend.*]`` tables (``self.spell["pointwise"]["exp"]``).
        self.spell: dict[str, Any] = load_grammar(self.dialect)["backend"]
        self.dtypes = self.spell["dtypes"]
        self.lines: list[str] = []
        self.indent = indent

    def type_of(self, e: ir.Expr) -> Any:
        """The IR type of ``e`` in the current scope."""
        return infer(e, self.env)

    # ------------------------------------------------------------------ statements

    def emit(self, line: str) -> None:
        """Append one line at the current indentation."""
        self.lines.append("    " * self.indent + line)

    def comments(self, stmt: ir.Stmt) -> None:
        """Write the source comments standing before ``stmt``."""
        for line in comment_lines(stmt):
            self.emit(line)

    def stmt(self, s: ir.Stmt) -> None:
        """Write one statement, after its comments."""
        self.comments(s)
        spelling = self.stmt_spellings.get(type(s))
        if spelling is None:
            raise self.refuse(
                f"{self.language} cannot spell the IR statement `{type(s).__name__}` yet", s
            )
        spelling(self, s)

    def block(self, stmts: tuple[ir.Stmt, ...]) -> None:
        """Write an indented block (``pass`` when empty)."""
        self.indent += 1
        for s in stmts:
            self.stmt(s)
        if not stmts:
            self.emit("pass")
        self.indent -= 1

    def branch(self, stmts: tuple[ir.Stmt, ...]) -> None:
        """Write the body of one branch of an ``if`` (a block by default; a backend that scopes
        its types or padding per branch hooks in here)."""
        self.block(stmts)

    def _st_If(self, s: ir.If, keyword: str = "if") -> None:
        self.emit(f"{keyword} {self.text(s.test)}:")
        self.branch(s.body)
        (chained,) = s.orelse if len(s.orelse) == 1 else (None,)
        if isinstance(chained, ir.If) and not chained.comments:
            # `else: if` reads as `elif` (an `if` with comments of its own keeps its block).
            self._st_If(chained, "elif")
        elif s.orelse:
            self.emit("else:")
            self.branch(s.orelse)
        if s.orelse and keyword == "if":
            from translator.ir.verifier import if_joins

            # What both branches bind lives on after the `if`.
            for name, t in if_joins(s, self.env).items():
                self.env.vars.setdefault(name, t)

    # ------------------------------------------------------------------ typed operator hooks

    def elementwise_logic(self, e: ir.BinOp) -> bool:
        """``and``/``or`` is elementwise where an operand is a tile."""
        return any(isinstance(self.type_of(x), TileType) for x in (e.lhs, e.rhs))

    def truth(self, e: ir.Expr, op: str) -> str:
        """``e`` as an operand of ``&``/``|``: a boolean as it is, any other value compared
        with 0 (``&`` on integers would be bitwise)."""
        if dtype_of(self.type_of(e)) == ir.BOOL:
            return super().truth(e, op)
        return f"({self.text(e, PRECEDENCE['!='] + 1)} != 0)"

    def negation(self, operand: ir.Expr) -> str:
        """``~`` for a boolean tile, ``not`` for a boolean scalar, ``== 0`` for other values."""
        t = self.type_of(operand)
        if dtype_of(t) != ir.BOOL:
            return "== 0"
        return "~" if isinstance(t, TileType) else "not"

    # ------------------------------------------------------------------ layout every DSL shares

    def _ex_ExpandDims(self, e: ir.ExpandDims) -> tuple[str, int]:
        # NumPy's `x[:, None]`, which torch and Triton both read; a DSL without it overrides.
        # Nested insertions are one subscript (`x[None, None, :]`, not `x[None, :][:, None, :]`).
        axes: list[int] = []
        inner: ir.Expr = e
        while isinstance(inner, ir.ExpandDims):
            axes.append(inner.axis)
            inner = inner.value
        parts = [":"] * len(dims_of(self.type_of(inner)))
        for axis in reversed(axes):
            parts.insert(axis if axis >= 0 else len(parts) + 1 + axis, "None")
        return f"{self.text(inner, ATOM)}[{', '.join(parts)}]", ATOM


CodePrinter.stmt_spellings = _collect(CodePrinter, "_st_", ir.Stmt)


__all__ = ["ATOM", "CodePrinter", "ExprPrinter", "comment_lines"]
