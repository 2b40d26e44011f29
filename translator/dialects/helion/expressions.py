"""Helion expressions → IR expressions.

One handler per libcst node kind (a table, as TVMScript's parser does); calls dispatch through the
grammar table ``grammars/helion.toml``. Composite torch ops (softmax, mean) are lowered into IR
primitives, emitting temporaries into ``pending`` so that each value is computed once.

This module holds the builder's state, its entry points (:meth:`ExprBuilder.expr`,
:meth:`ExprBuilder.dtype`) and the handlers of names, numbers, operators and attributes; the
other parts of an expression are read by mixins of their own modules: subscripts, index lists
and lane masks (:mod:`.indexing`), torch calls and tensor methods (:mod:`.calls`), ``hl.*``
calls and tile shapes (:mod:`.language`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import libcst as cst

from translator.diagnostics import TranslationError
from translator.dialects.cst_utils import (
    BINARY_OPERATORS,
    COMPARISON_OPERATORS,
    Locator,
    literal_or_none,
    resolve,
    source_of,
)
from translator.dialects.helion.calls import CallReader
from translator.dialects.helion.helpers import HelperInliner, Helpers
from translator.dialects.helion.indexing import IndexReader
from translator.dialects.helion.language import LanguageReader
from translator.dialects.helion.scope import EntryScope
from translator.grammar import load_grammar
from translator.ir import nodes as ir
from translator.ir.pad_tracker import PadTracker
from translator.ir.shapes import (
    IRTypeError,
    TileType,
    TileVarType,
    dims_of,
    dtype_of,
    infer,
)

_BINOPS = BINARY_OPERATORS
_CMPOPS = COMPARISON_OPERATORS


class ExprBuilder(IndexReader, CallReader, LanguageReader, HelperInliner):
    """Builds IR expressions for one entry, in host or device context."""

    def __init__(self, scope: EntryScope, aliases: dict[str, str], locate: Locator) -> None:
        self.scope = scope
        self.aliases = aliases
        self.locate = locate
        self.grammar = load_grammar("helion")
        self.pending: list[ir.Stmt] = []
        self.device = False
        #: Module constants that are numbers (``GELU_COEFF = 0.044715``), read as constants.
        self.numbers: dict[str, int | float] = {}
        # What out-of-bounds lanes hold, per device value: a reduction or dot over the lanes of
        # a lane tile (which Helion does not mask) is masked in the IR only where they vanish.
        self.pads = PadTracker(lambda: self.scope.env)
        #: How every dot of the kernel multiplies float32 operands: the kernel's `dot_precision`
        #: setting (the frontend reads the decorator first), else Helion's default.
        self.dot_precision: str = self.grammar["backend"]["kernel"]["dot_precision"]
        #: 64 under the kernel's ``index_dtype=torch.int64``: lane indices are int64 there.
        self.index_bits: int | None = None
        #: The module's helper functions, which device code inlines (:mod:`.helpers`).
        self.helpers = Helpers()

    # ---------------------------------------------------------------- helpers

    def error(self, node: cst.CSTNode, message: str, hint: str | None = None) -> TranslationError:
        """A diagnostic at ``node``."""
        return TranslationError(message, self.locate(node), hint)

    def qualname(self, node: cst.BaseExpression) -> str | None:
        """Dotted name after import aliases."""
        return resolve(node, self.aliases)

    def type_of(self, expr: ir.Expr, node: cst.CSTNode) -> Any:
        """Infer ``expr``'s type, turning IR type errors into diagnostics at ``node``."""
        try:
            return infer(expr, self.scope.env)
        except IRTypeError as err:
            raise self.error(node, str(err), err.hint) from None

    def bind_temp(self, base: str, value: ir.Expr, node: cst.CSTNode) -> ir.Name:
        """Compute ``value`` once into a fresh local (emitted before the current statement)."""
        if isinstance(value, ir.Name):
            return value
        value = self.lane_flags(value)
        name = self.scope.fresh(base)
        self.pending.append(ir.Assign(name, value, loc=self.locate(node)))
        self.scope.env.vars[name] = self.type_of(value, node)
        self.pads.bind(name, value)
        return ir.Name(name)

    def host_shape(self, tensor: str, spelling: str, node: cst.CSTNode) -> ir.ShapeOf:
        """The shape of host tensor ``tensor`` (``x.shape``, ``x.size()``: ``spelling``), which
        host code reads and device code cannot."""
        if self.device:
            raise self.error(
                node,
                f"`{spelling}` is a host shape, not a device value",
                f"unpack sizes on the host: m, n = {spelling}",
            )
        return ir.ShapeOf(tensor, loc=self.locate(node))

    # ---------------------------------------------------------------- entry point

    def expr(self, node: cst.BaseExpression) -> ir.Expr:
        """The IR of one expression."""
        handler = _EXPR_HANDLERS.get(type(node))
        if handler is None:
            raise self.error(
                node,
                f"unsupported expression `{source_of(node)}`",
                "use tile indexing, torch pointwise ops, reductions or hl.* calls",
            )
        return self.lane_flags(handler(self, node))

    def dtype(self, node: cst.BaseExpression) -> ir.DTypeExpr:
        """A dtype expression: ``torch.float32``, ``x.dtype`` (host tensor) or ``acc.dtype``."""
        name = self.qualname(node)
        table = self.grammar["frontend"]["dtypes"]
        if name in table:
            return ir.DType(table[name])
        if isinstance(node, cst.Name) and node.value in self.scope.dtype_aliases:
            known = self.scope.dtype_aliases[node.value]
            if known is not None:
                return known
            raise self.error(
                node,
                f"`{node.value}` is a dtype the host computes and no tensor is allocated with",
                f"allocate the output with dtype={node.value} and convert with `.to(out.dtype)`",
            )
        if isinstance(node, cst.Attribute) and node.attr.value == "dtype":
            base = node.value
            if isinstance(base, cst.Name):
                if self.scope.is_tensor(base.value):
                    return ir.DTypeOf(base.value)
                t = self.scope.env.vars.get(base.value)
                if t is not None and not isinstance(t, TileVarType):
                    return dtype_of(t)
        raise self.error(
            node, f"unsupported dtype `{source_of(node)}`", "write e.g. torch.float32 or x.dtype"
        )

    # ---------------------------------------------------------------- node kinds

    def _name(self, node: cst.Name) -> ir.Expr:
        if node.value in ("True", "False"):
            return ir.Const(node.value == "True", loc=self.locate(node))
        if node.value in self.scope.lane_names:
            return self.scope.lane_names[node.value]
        if node.value not in self.scope.env.vars:
            if node.value in self.numbers and node.value not in self.scope.unknown:
                return ir.Const(self.numbers[node.value], loc=self.locate(node))
            if node.value in self.scope.unknown:
                raise self.error(
                    node,
                    f"`{node.value}` is bound by host code tiletrans carries but cannot tell the "
                    f"value of (`{self.scope.unknown[node.value]}`)",
                    "kernels may read host tensors, sizes, scalars and dtypes",
                )
            if node.value in self.scope.branch_only:
                raise self.error(
                    node,
                    f"`{node.value}` {self.scope.branch_only[node.value]}, so it has no one "
                    "value here",
                    f"bind `{node.value}` to one type on every path before it is read, or "
                    "compute it where it is read (tiletrans does not follow that two `if`s "
                    "test the same value)",
                )
            raise self.error(node, f"name `{node.value}` is not defined in this kernel")
        t = self.scope.env.vars[node.value]
        if isinstance(t, TileVarType) and t.tile.scalar:
            return ir.Name(node.value, loc=self.locate(node))  # an hl.grid index is an integer
        if isinstance(t, TileVarType):
            raise self.error(
                node,
                f"tile `{node.value}` used as a value",
                f"use `{node.value}.index` for its indices or `{node.value}.begin` for its start",
            )
        return ir.Name(node.value, loc=self.locate(node))

    def _number(self, node: cst.Integer | cst.Float) -> ir.Expr:
        return ir.Const(node.evaluated_value, loc=self.locate(node))

    def _string(self, node: cst.SimpleString | cst.ConcatenatedString) -> ir.Expr:
        # Strings are compile-time choices (a `str` parameter compared with a constant).
        value = node.evaluated_value
        if not isinstance(value, str):
            raise self.error(node, "byte strings are not supported")
        return ir.Const(value, loc=self.locate(node))

    def _binop(self, node: cst.BinaryOperation) -> ir.Expr:
        if isinstance(node.operator, cst.MatrixMultiply):
            return self._dot_mm(node, self.expr(node.left), self.expr(node.right))
        op = _BINOPS.get(type(node.operator))
        if op is None:
            raise self.error(node, f"unsupported operator in `{source_of(node)}`")
        return ir.BinOp(op, self.expr(node.left), self.expr(node.right), loc=self.locate(node))

    def _unary(self, node: cst.UnaryOperation) -> ir.Expr:
        value = self.expr(node.expression)
        if isinstance(node.operator, cst.Minus):
            if isinstance(value, ir.Const) and not isinstance(value.value, bool):
                return ir.Const(-value.value, loc=self.locate(node))
            return ir.UnaryOp("-", value, loc=self.locate(node))
        if isinstance(node.operator, cst.Plus):
            return value
        if isinstance(node.operator, cst.BitInvert):
            return ir.UnaryOp("~", value, loc=self.locate(node))
        return ir.UnaryOp("not", value, loc=self.locate(node))

    def _compare(self, node: cst.Comparison) -> ir.Expr:
        left = self.expr(node.left)
        result: ir.Expr | None = None
        for target in node.comparisons:
            op = _CMPOPS.get(type(target.operator))
            if op is None:
                hint = None
                optional = self._optional_tensor(node.left, target)
                if optional is not None and self.device:
                    raise self.error(
                        node,
                        f"`{source_of(node)}` tests in device code whether the optional tensor "
                        f"`{optional}` was passed: the translation's kernels take tensors, "
                        "never None, and decide nothing by it",
                        f"decide on the host: a second @helion.kernel without `{optional}`, "
                        f"called where it is None (`if {optional} is None: return "
                        "other_kernel(...)`), or a tensor always passed to this one",
                    )
                if isinstance(target.operator, (cst.Is, cst.IsNot)):
                    hint = (
                        "`is None` is read only as a parameter's default: "
                        "`fallback if x is None else x`"
                    )
                raise self.error(node, f"unsupported comparison in `{source_of(node)}`", hint)
            right = self.expr(target.comparator)
            cmp = ir.BinOp(op, left, right, loc=self.locate(node))
            result = cmp if result is None else ir.BinOp("&", result, cmp, loc=self.locate(node))
            left = right
        assert result is not None
        return result

    def _optional_tensor(
        self, left: cst.BaseExpression, target: cst.ComparisonTarget
    ) -> str | None:
        """The optional tensor parameter ``x`` of ``x is None`` / ``x is not None``, else
        ``None``."""
        comparator = target.comparator
        if not (
            isinstance(target.operator, (cst.Is, cst.IsNot))
            and isinstance(left, cst.Name)
            and isinstance(comparator, cst.Name)
            and comparator.value == "None"
        ):
            return None
        return left.value if self.scope.is_tensor(left.value) else None

    def _boolop(self, node: cst.BooleanOperation) -> ir.Expr:
        op = "and" if isinstance(node.operator, cst.And) else "or"
        left, right = self.expr(node.left), self.expr(node.right)
        if self.device and (
            isinstance(self.type_of(left, node), TileType)
            or isinstance(self.type_of(right, node), TileType)
        ):
            op = "&" if op == "and" else "|"
        return ir.BinOp(op, left, right, loc=self.locate(node))

    def _ifexp(self, node: cst.IfExp) -> ir.Expr:
        optional = _is_none_test(node.test)
        if (
            optional is not None
            and isinstance(node.orelse, cst.Name)
            and (node.orelse.value == optional)
        ):
            # `fallback if x is None else x`: an optional parameter's default, on the host.
            return ir.Call(
                "if_none", (self.expr(node.orelse), self.expr(node.body)), loc=self.locate(node)
            )
        return ir.Call(
            "where",
            (self.expr(node.test), self.expr(node.body), self.expr(node.orelse)),
            loc=self.locate(node),
        )

    def _attribute(self, node: cst.Attribute) -> ir.Expr:
        base, attr = node.value, node.attr.value
        if isinstance(base, cst.Name) and base.value in self.scope.split_tiles:
            return self._split_tile_attr(base.value, attr, node)
        if isinstance(base, cst.Name):
            t = self.scope.env.vars.get(base.value)
            if isinstance(t, TileVarType):
                if attr not in ir.TILE_ATTRS:
                    raise self.error(
                        node,
                        f"tiles have no attribute `{attr}`",
                        f"use one of {', '.join(ir.TILE_ATTRS)}",
                    )
                return ir.TileAttr(base.value, attr, loc=self.locate(node))
        if isinstance(base, cst.Name) and self.scope.is_tensor(base.value) and attr == "shape":
            return self.host_shape(base.value, "x.shape", node)
        if attr in ("T", "mT"):
            # `v.T` of a device tile: its two dims swapped (a 1-d tile is itself).
            value = self.expr(base)
            t = self.type_of(value, node)
            rank = len(dims_of(t))
            if isinstance(t, TileType) and rank in (1, 2):
                return value if rank == 1 else ir.Permute(value, (1, 0), loc=self.locate(node))
            raise self.error(node, f"`.{attr}` of a {rank}-d value", "use .permute(...)")
        value = literal_or_none(node)
        if value is not None:
            return ir.Const(value, loc=self.locate(node))
        raise self.error(node, f"unsupported attribute `{source_of(node)}`")

    def _split_tile_attr(self, tile: str, attr: str, node: cst.Attribute) -> ir.Expr:
        """An attribute of a grid tile of a run-time block (see
        :meth:`~translator.dialects.helion.loops.LoopReader._split_tile`): the grid index
        ``tile`` counts its blocks."""
        block, extent = self.scope.split_tiles[tile]
        loc = self.locate(node)
        index = ir.Name(tile, loc=loc)
        begin = ir.BinOp("*", index, block, loc=loc)
        spelt: dict[str, ir.Expr] = {
            "begin": begin,
            "end": ir.Call("minimum", (ir.BinOp("+", begin, block, loc=loc), extent), loc=loc),
            "id": index,
            "count": ir.Call("cdiv", (extent, block), loc=loc),
            "block_size": block,
        }
        if attr not in spelt:
            raise self.error(
                node,
                f"`{source_of(node)}`: the lanes of a tile whose block is computed at run time",
                f"read `{tile}` through .begin/.end/.id only",
            )
        return spelt[attr]


def _is_none_test(node: cst.BaseExpression) -> str | None:
    """``x`` for the test ``x is None``."""
    if (
        isinstance(node, cst.Comparison)
        and len(node.comparisons) == 1
        and isinstance(node.comparisons[0].operator, cst.Is)
        and isinstance(node.left, cst.Name)
        and isinstance(node.comparisons[0].comparator, cst.Name)
        and node.comparisons[0].comparator.value == "None"
    ):
        return node.left.value
    return None


_EXPR_HANDLERS: dict[type, Callable[[ExprBuilder, Any], ir.Expr]] = {
    cst.Name: ExprBuilder._name,
    cst.Integer: ExprBuilder._number,
    cst.Float: ExprBuilder._number,
    cst.SimpleString: ExprBuilder._string,
    cst.ConcatenatedString: ExprBuilder._string,
    cst.BinaryOperation: ExprBuilder._binop,
    cst.UnaryOperation: ExprBuilder._unary,
    cst.Comparison: ExprBuilder._compare,
    cst.BooleanOperation: ExprBuilder._boolop,
    cst.IfExp: ExprBuilder._ifexp,
    cst.Attribute: ExprBuilder._attribute,
    cst.Subscript: ExprBuilder._subscript,
    cst.Call: ExprBuilder._call,
}

__all__ = ["ExprBuilder"]
