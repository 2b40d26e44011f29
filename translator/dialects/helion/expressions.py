"""Helion expressions → IR expressions.

One handler per libcst node kind (a table, as TVMScript's parser does); calls dispatch through the
grammar table ``grammars/helion.toml``. Composite torch ops (softmax, mean) are lowered here into
IR primitives, emitting temporaries into ``pending`` so that each value is computed once.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import libcst as cst

from translator.diagnostics import TranslationError
from translator.dialects.cst_utils import (
    BINARY_OPERATORS,
    COMPARISON_OPERATORS,
    Locator,
    call_args,
    literal,
    resolve,
    source_of,
)
from translator.dialects.helion.boundary import PadTracker
from translator.dialects.helion.scope import EntryScope
from translator.grammar import load_grammar
from translator.ir import nodes as ir
from translator.ir.counters import row_major_offsets
from translator.ir.shapes import (
    IRTypeError,
    ScalarType,
    TileType,
    TileVarType,
    dims_of,
    dot_precision,
    dtype_of,
    index_dims,
    infer,
    promote,
)

# torch's `*_like` constructors, read in device code as tiles of another tile's dims: the fill.
_TILE_LIKE: dict[str, float | None] = {
    "torch.zeros_like": 0.0,
    "torch.ones_like": 1.0,
    "torch.empty_like": 0.0,
    "torch.full_like": None,
}

_BINOPS = BINARY_OPERATORS
_CMPOPS = COMPARISON_OPERATORS


class ExprBuilder:
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
            raise self.error(node, str(err)) from None

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
            if self.device:
                raise self.error(
                    node,
                    "`x.shape` is a host shape, not a device value",
                    "unpack sizes on the host: m, n = x.shape",
                )
            return ir.ShapeOf(base.value, loc=self.locate(node))
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

    def _subscript(self, node: cst.Subscript) -> ir.Expr:
        base = node.value
        # x.shape[0] / x.size()[0]
        if (
            isinstance(base, cst.Attribute)
            and base.attr.value == "shape"
            and isinstance(base.value, cst.Name)
            and self.scope.is_tensor(base.value.value)
        ):
            dim = self._int_index(node)
            return self.scope.size_expr(base.value.value, dim)
        if isinstance(base, cst.Name) and self.scope.is_tensor(base.value):
            index = self.index_items(base.value, node.slice, node)
            load = ir.Load(base.value, index, 0.0, loc=self.locate(node))
            self.check_lane_mask(load, None, node)
            return load
        value = self.expr(base)
        t = self.type_of(value, node)
        if isinstance(t, TileType):
            return self._tile_subscript(value, t, node)
        raise self.error(node, f"cannot index `{source_of(base)}`")

    def _int_index(self, node: cst.Subscript) -> int:
        if len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            try:
                value = literal(node.slice[0].slice.value)
            except ValueError:
                value = None
            if isinstance(value, int):
                return value
        raise self.error(node, "shape index must be an integer literal")

    def _tile_subscript(self, value: ir.Expr, t: TileType, node: cst.Subscript) -> ir.Expr:
        """``v[:, None]``-style reshaping of a device tile."""
        axis = 0
        result = value
        for element in node.slice:
            s = element.slice
            if isinstance(s, cst.Slice) and s.lower is None and s.upper is None and s.step is None:
                axis += 1
            elif (
                isinstance(s, cst.Index)
                and isinstance(s.value, cst.Name)
                and s.value.value == "None"
            ):
                result = ir.ExpandDims(result, axis, loc=self.locate(node))
                axis += 1
            else:
                raise self.error(
                    node,
                    f"unsupported index on a tile value in `{source_of(node)}`",
                    "tiles can be indexed only with `:` and `None`; index the tensor instead",
                )
        return result

    def index_items(
        self, tensor: str, elements: Any, node: cst.CSTNode
    ) -> tuple[ir.IndexItem, ...]:
        """Index items of a tensor subscript or an ``hl.load`` index list."""
        items: list[ir.IndexItem] = []
        for element in elements:
            s = element.slice if isinstance(element, cst.SubscriptElement) else element
            if isinstance(s, cst.Slice):
                dim = sum(1 for i in items if not isinstance(i, ir.NewAxis))
                items.append(self.slice_item(tensor, dim, s, node))
                continue
            value_node = s.value if isinstance(s, cst.Index) else s
            items.append(self.index_item(value_node))
        rank = self.scope.rank(tensor)
        used = sum(1 for i in items if not isinstance(i, ir.NewAxis))
        if rank is None and used:
            # Indexing a tensor of unknown rank with `used` indices gives a tile of those dims
            # only if the tensor has no more (torch adds trailing `:`s): the IR says so.
            spelt = ", ".join(_index_source(e) for e in elements)
            count = f"{used} {'index' if used == 1 else 'indices'}"
            self.scope.assume_rank(tensor, used, f"`{tensor}[{spelt}]` has {count}")
        elif rank is not None and used < rank:
            items.extend(ir.FullIndex(self.scope.size_expr(tensor, d)) for d in range(used, rank))
        elif rank is not None and used > rank:
            raise self.error(
                node,
                f"`{tensor}` is {rank}-d but indexed with {used} indices",
                "index each dim once (`:` for a whole dim, `None` for a new one)",
            )
        return tuple(items)

    def slice_item(self, tensor: str, dim: int, s: cst.Slice, node: cst.CSTNode) -> ir.IndexItem:
        """``:`` (the whole dim), ``:n`` (its first ``n`` elements) or ``h : h + n`` (``n``
        elements from ``h``): the lanes ``[0, n)`` of a whole-dim index, shifted by ``h``."""
        size = self.scope.size_expr(tensor, dim)
        if s.step is None and s.upper is None and s.lower is None:
            return ir.FullIndex(size)
        upper = s.upper
        if (
            s.step is None
            and s.lower is not None
            and isinstance(upper, cst.BinaryOperation)
            and isinstance(upper.operator, cst.Add)
            and upper.left.deep_equals(s.lower)
        ):
            # `h : h + n`: n lanes from h.
            start, extent = self.expr(s.lower), self.expr(upper.right)
            if not self._host_scalar(start, s.lower) or not self._host_scalar(extent, upper):
                raise self.error(node, "slice bounds must be host scalars")
            return ir.GatherIndex(ir.BinOp("+", start, ir.Arange(ir.FullDim(extent))))
        if s.step is None and s.lower is None and upper is not None:
            extent = self.expr(upper)
            if not self._host_scalar(extent, upper):
                raise self.error(node, "slice bounds must be host scalars")
            if extent != size:
                test = ir.partial_dim(tensor, dim, extent)
                if test not in self.scope.partial_dims:
                    self.scope.partial_dims.append(test)
            return ir.FullIndex(extent)
        raise self.error(
            node,
            f"sliced index `{source_of(s)}` on `{tensor}` is not supported",
            "index with a tile (hl.tile), `:` for the whole dimension, `:n` for its first n "
            "elements or `h : h + n` for n elements from h",
        )

    def _host_scalar(self, e: ir.Expr, node: cst.CSTNode) -> bool:
        return isinstance(self.type_of(e, node), ScalarType) and not dims_of(self.type_of(e, node))

    def index_item(self, node: cst.BaseExpression) -> ir.IndexItem:
        """One index: a tile, ``None``, a scalar or a gather tile."""
        if isinstance(node, cst.Name) and node.value == "None":
            return ir.NewAxis()
        if isinstance(node, cst.Name) and isinstance(
            self.scope.env.vars.get(node.value), TileVarType
        ):
            return ir.TileIndex(node.value)
        if (
            isinstance(node, cst.Attribute)
            and node.attr.value == "index"
            and isinstance(node.value, cst.Name)
            and isinstance(self.scope.env.vars.get(node.value.value), TileVarType)
        ):
            return ir.TileIndex(node.value.value)
        lanes = self.scope.lane_names.get(node.value) if isinstance(node, cst.Name) else None
        if isinstance(lanes, ir.TileAttr) and lanes.attr == "index":
            return ir.TileIndex(lanes.tile)
        value = self.expr(node)
        t = self.type_of(value, node)
        if isinstance(t, TileType) and t.dims:
            return ir.GatherIndex(value)
        if isinstance(t, TileVarType):
            return ir.TileIndex(t.tile.name)
        return ir.ScalarIndex(value)

    # ---------------------------------------------------------------- calls

    def _call(self, node: cst.Call) -> ir.Expr:
        func = node.func
        name = self.qualname(func)
        g = self.grammar["frontend"]
        if name in g.get("unsupported", {}):
            short = name.removeprefix("helion.language.")
            raise self.error(node, f"`hl.{short}` is not supported yet", g["unsupported"][name])
        try:
            args, kwargs = call_args(node)
        except TranslationError as err:
            raise self.error(node, err.message) from None
        if name in ("float", "int") and len(args) == 1:
            value = literal_or_none(node)
            if value is not None:
                return ir.Const(value, loc=self.locate(node))
        if name is not None:
            if name in g["pointwise"]:
                return self._pointwise(g["pointwise"][name], args, kwargs, node)
            if name in g["scalar_pointwise"]:
                return self._pointwise(g["scalar_pointwise"][name], args, kwargs, node)
            if name in g["reductions"]:
                return self._reduction(g["reductions"][name], args, kwargs, node)
            if name in g["scans"]:
                return self._scan(g["scans"][name], args, kwargs, node)
            if name in g["composites"]:
                return self._composite(g["composites"][name], args, kwargs, node)
            if name in g["dots"]:
                return self._dot_call(g["dots"][name], args, kwargs, node)
            lang = {v: k for k, v in g["language"].items()}
            if name in lang:
                return self._language(lang[name], args, kwargs, node)
            if name in g["atomics"]:
                short = name.rsplit(".", 1)[-1]
                raise self.error(node, f"hl.{short}(...) is not supported in an expression here")
            if name in ("torch.max", "torch.min") and len(args) == 2 and "dim" not in kwargs:
                op = "maximum" if name == "torch.max" else "minimum"
                return self._pointwise(op, args, kwargs, node)
            if name in ("torch.clamp", "torch.clip"):
                return self._clamp(args, kwargs, node)
            if name in _TILE_LIKE and self.device:
                return self._tile_like(_TILE_LIKE[name], args, kwargs, node)
            if name in ("min", "max") and len(args) == 2 and not kwargs:
                # Python's min/max of two numbers (a tile's clipped end, say).
                return self._pointwise(
                    "minimum" if name == "min" else "maximum", args, kwargs, node
                )
        if isinstance(func, cst.Attribute):
            return self._method(func, args, kwargs, node)
        raise self.error(
            node,
            f"unsupported call `{source_of(func)}`",
            "use torch pointwise ops, reductions, matmuls or helion.language calls",
        )

    def _method(self, func: cst.Attribute, args: list, kwargs: dict, node: cst.Call) -> ir.Expr:
        g = self.grammar["frontend"]
        method = func.attr.value
        base = func.value
        if isinstance(base, cst.Name) and self.scope.is_tensor(base.value):
            if method == "size":
                if not args:
                    if self.device:
                        raise self.error(
                            node,
                            "`x.size()` is a host shape, not a device value",
                            "unpack sizes on the host: m, n = x.size()",
                        )
                    return ir.ShapeOf(base.value, loc=self.locate(node))
                dim = literal_or_none(args[0])
                if not isinstance(dim, int):
                    raise self.error(node, "size index must be an integer literal")
                return self.scope.size_expr(base.value, dim)
            if method in ("stride", "numel", "dim"):
                raise self.error(
                    node,
                    f"`{source_of(node)}` is not supported in kernels",
                    "compute it on the host from sizes",
                )
        if method == "to":
            value = self.expr(base)
            target = kwargs.get("dtype") or (args[0] if args else None)
            if target is None:
                raise self.error(node, "`.to()` needs a dtype")
            return ir.Cast(value, self.dtype(target), loc=self.locate(node))
        methods = g["methods"]
        if method in methods["dtypes"]:
            return ir.Cast(
                self.expr(base), ir.DType(methods["dtypes"][method]), loc=self.locate(node)
            )
        if method in methods["pointwise"]:
            return self._pointwise(methods["pointwise"][method], [base, *args], kwargs, node)
        if method in methods["reductions"]:
            return self._reduction(methods["reductions"][method], [base, *args], kwargs, node)
        if method in methods["scans"]:
            return self._scan(methods["scans"][method], [base, *args], kwargs, node)
        if method == "expand":
            return self._expand(self.expr(base), args, kwargs, node)
        if method in methods["composites"]:
            return self._composite(methods["composites"][method], [base, *args], kwargs, node)
        if method in ("max", "min") and args and not kwargs and len(args) == 1:
            # x.max(y) with a tensor argument is elementwise; x.max(dim) needs keyword dim=.
            other = self.expr(args[0])
            if isinstance(self.type_of(other, node), TileType):
                op = "maximum" if method == "max" else "minimum"
                return ir.Call(op, (self.expr(base), other), loc=self.locate(node))
            raise self.error(
                node,
                f"`.{method}(dim)` returns values and indices",
                f"use torch.a{method}(x, dim=...) for the values",
            )
        if method in ("clamp", "clip"):
            return self._clamp([base, *args], kwargs, node)
        if method in ("transpose", "permute", "t", "unsqueeze"):
            return self._layout(method, self.expr(base), args, node)
        if method == "squeeze":
            return self._squeeze(self.expr(base), args, kwargs, node)
        if method in ("contiguous", "clone") and not args and not kwargs:
            # A tile has no layout, and a device value is never aliased: the value itself.
            return self.expr(base)
        if method in ("reshape", "view"):
            return self._reshape(method, self.expr(base), args, kwargs, node)
        raise self.error(
            node,
            f"unsupported method `.{method}()` in `{source_of(node)}`",
            "use torch pointwise ops, reductions over one dim, .to(dtype), .transpose/.permute",
        )

    def _reshape(
        self, method: str, value: ir.Expr, args: list, kwargs: dict, node: cst.Call
    ) -> ir.Expr:
        """``v.reshape([tile_m, 1])``/``v.view(tile_m, 1)`` of a device tile: the IR's reshape,
        which adds or drops unit dims only (the Helion backend spells it so, too)."""
        if kwargs or not args:
            raise self.error(
                node,
                f"`.{method}()` takes the new shape only",
                f"write e.g. v.{method}([tile_m, 1])",
            )
        shape_node = (
            args[0]
            if len(args) == 1 and isinstance(args[0], (cst.List, cst.Tuple))
            else (cst.List([cst.Element(a) for a in args]))
        )
        if any(literal_or_none(e.value) == -1 for e in shape_node.elements):
            raise self.error(
                node,
                f"`-1` in the shape of `.{method}()` is not supported",
                "spell every dim: tiles, sizes or 1",
            )
        reshaped = ir.Reshape(value, self.tile_shape(shape_node), loc=self.locate(node))
        if not isinstance(self.type_of(value, node), TileType):
            raise self.error(node, f"`.{method}()` of a scalar is not supported")
        try:
            infer(reshaped, self.scope.env)
        except IRTypeError as err:
            raise self.error(
                node,
                str(err),
                "reshape only to add or drop dims of size 1; "
                "use .permute/.transpose to reorder dims",
            ) from None
        return reshaped

    def _tile_like(self, fill: float | None, args: list, kwargs: dict, node: cst.Call) -> ir.Expr:
        """``torch.zeros_like(v)`` (``ones_like``, ``full_like(v, x)``, ``empty_like``) of a
        device tile: a tile of ``v``'s dims filled with a value (``empty_like``: 0, as the
        source cannot depend on what it holds)."""
        if not args:
            raise self.error(node, "a `*_like` call needs the tile it is shaped like")
        value = self.expr(args[0])
        t = self.type_of(value, node)
        if not isinstance(t, TileType):
            raise self.error(node, f"`{source_of(node)}` of a scalar", "use the number itself")
        if fill is None and "fill_value" not in kwargs and len(args) < 2:
            fill = 0.0
        fill_node = kwargs.pop("fill_value", args[1] if len(args) > 1 else None)
        filled: ir.Expr = ir.Const(fill) if fill is not None else self.expr(fill_node)
        dtype_node = kwargs.pop("dtype", None)
        kwargs.pop("device", None)
        if kwargs:
            raise self.error(node, f"unsupported keyword arguments {sorted(kwargs)}")
        dtype = self.dtype(dtype_node) if dtype_node is not None else dtype_of(t)
        return ir.Full(dims_of(t), filled, dtype, loc=self.locate(node))

    def _squeeze(self, value: ir.Expr, args: list, kwargs: dict, node: cst.Call) -> ir.Expr:
        """``v.squeeze(d)`` of a device tile: drop dim ``d``, which must have size 1."""
        t = self.type_of(value, node)
        dims = dims_of(t)
        dim_node = kwargs.get("dim", args[0] if args else None)
        dim = literal_or_none(dim_node) if dim_node is not None else None
        if not isinstance(dim, int) or not -len(dims) <= dim < len(dims):
            raise self.error(node, "`.squeeze()` needs the integer dim to drop", "v.squeeze(1)")
        d = dim % len(dims)
        if not isinstance(dims[d], ir.UnitDim):
            raise self.error(node, f"dim {dim} of `{source_of(node.func)}` is not of size 1")
        return ir.Reshape(value, dims[:d] + dims[d + 1 :], loc=self.locate(node))

    def _layout(self, method: str, value: ir.Expr, args: list, node: cst.Call) -> ir.Expr:
        """``transpose``/``permute``/``t``/``unsqueeze`` of a device tile."""
        t = self.type_of(value, node)
        rank = len(dims_of(t))
        dims = [literal_or_none(a) for a in args]
        if not all(isinstance(d, int) for d in dims):
            raise self.error(node, f"`.{method}()` needs integer literal dims")
        loc = self.locate(node)
        if method == "unsqueeze":
            if len(dims) != 1:
                raise self.error(node, "`.unsqueeze()` takes one dim")
            return ir.ExpandDims(value, dims[0] if dims[0] >= 0 else rank + 1 + dims[0], loc=loc)
        if method == "t":
            dims = [0, 1]
            method = "transpose"
        if method == "transpose":
            if len(dims) != 2:
                raise self.error(node, "`.transpose()` takes two dims")
            a, b = (d % rank for d in dims)
            perm = list(range(rank))
            perm[a], perm[b] = perm[b], perm[a]
        else:
            if len(dims) == 1 and isinstance(dims[0], list):
                dims = dims[0]
            perm = [d % rank for d in dims]
        if sorted(perm) != list(range(rank)):
            raise self.error(node, f"bad permutation {perm} for a {rank}-d tile")
        return ir.Permute(value, tuple(perm), loc=loc)

    def _pointwise(self, op: str, args: list, kwargs: dict, node: cst.Call) -> ir.Expr:
        if op == "gelu" and "approximate" in kwargs:
            mode = literal_or_none(kwargs.pop("approximate"))
            if mode == "tanh":
                op = "gelu_tanh"
            elif mode != "none":
                raise self.error(node, f"unsupported gelu approximation {mode!r}")
        kwargs.pop("inplace", None)
        if kwargs:
            raise self.error(node, f"unsupported keyword arguments {sorted(kwargs)} to `{op}`")
        values = [self.expr(a) for a in args]
        return ir.Call(op, tuple(values), loc=self.locate(node))

    def _clamp(self, args: list, kwargs: dict, node: cst.Call) -> ir.Expr:
        value = self.expr(args[0])
        lo = kwargs.get("min", args[1] if len(args) > 1 else None)
        hi = kwargs.get("max", args[2] if len(args) > 2 else None)
        if lo is not None:
            value = ir.Call("maximum", (value, self.expr(lo)), loc=self.locate(node))
        if hi is not None:
            value = ir.Call("minimum", (value, self.expr(hi)), loc=self.locate(node))
        return value

    def _reduce_axis(self, args: list, kwargs: dict, node: cst.Call, rank: int) -> tuple[int, bool]:
        dim_node = kwargs.get("dim", args[1] if len(args) > 1 else None)
        keep_node = kwargs.get("keepdim", args[2] if len(args) > 2 else None)
        if dim_node is None:
            raise self.error(
                node, "reductions need an explicit `dim=`", "write e.g. torch.sum(x, dim=-1)"
            )
        dim = literal_or_none(dim_node)
        if isinstance(dim, list) and len(dim) == 1:
            dim = dim[0]
        if not isinstance(dim, int):
            raise self.error(node, "reduction `dim` must be one integer literal")
        keep = literal_or_none(keep_node) if keep_node is not None else False
        if not -rank <= dim < rank:
            raise self.error(node, f"dim {dim} is out of range for a {rank}-d tile")
        return dim % rank, bool(keep)

    def _scan(self, op: str, args: list, kwargs: dict, node: cst.Call) -> ir.Expr:
        """``torch.cumsum(x, dim=d)``: an inclusive scan."""
        value = self.expr(args[0])
        t = self.type_of(value, node)
        if not isinstance(t, TileType) or not t.dims:
            raise self.error(node, f"a cum{op} of a scalar")
        if "dtype" in kwargs:
            value = ir.Cast(value, self.dtype(kwargs.pop("dtype")), loc=self.locate(node))
        axis, _ = self._reduce_axis(args, kwargs, node, len(t.dims))
        return ir.Scan(op, value, axis, loc=self.locate(node))

    def _expand(self, value: ir.Expr, args: list, kwargs: dict, node: cst.Call) -> ir.Expr:
        """``v.expand(tile_m, tile_n)``: ``v`` broadcast to those dims."""
        shape_node = (
            args[0]
            if len(args) == 1 and isinstance(args[0], (cst.List, cst.Tuple))
            else cst.List([cst.Element(a) for a in args])
        )
        if kwargs or not shape_node.elements:
            raise self.error(node, "`.expand()` takes the sizes of the new shape")
        broadcast = ir.Broadcast(value, self.tile_shape(shape_node), loc=self.locate(node))
        try:
            infer(broadcast, self.scope.env)
        except IRTypeError as err:
            raise self.error(node, str(err), "expand only dims of size 1") from None
        return broadcast

    def _reduction(self, op: str, args: list, kwargs: dict, node: cst.Call) -> ir.Expr:
        value = self.expr(args[0])
        t = self.type_of(value, node)
        if not isinstance(t, TileType) or not t.dims:
            raise self.error(node, f"`{op}` of a scalar")
        dtype_node = kwargs.pop("dtype", None)
        if dtype_node is not None:
            value = ir.Cast(value, self.dtype(dtype_node), loc=self.locate(node))
        if "dim" not in kwargs and len(args) < 2 and op in ("sum", "max", "min", "prod"):
            # `torch.amax(v)`: every lane of the tile, one dim after another (from the last).
            if "keepdim" in kwargs:
                raise self.error(node, "`keepdim=` needs `dim=`")
            for axis in reversed(range(len(t.dims))):
                value = ir.Reduce(op, value, axis, False, loc=self.locate(node))
            return value
        axis, keep = self._reduce_axis(args, kwargs, node, len(t.dims))
        if op == "mean":
            total = self.lane_flags(ir.Reduce("sum", value, axis, keep, loc=self.locate(node)))
            extent = self.extent_of(t.dims[axis], node)
            return ir.BinOp("/", total, extent, loc=self.locate(node))
        return ir.Reduce(op, value, axis, keep, loc=self.locate(node))

    def extent_of(self, dim: ir.Dim, node: cst.CSTNode) -> ir.Expr:
        """The number of valid elements along ``dim`` (for means)."""
        if isinstance(dim, ir.FullDim):
            return dim.extent
        raise self.error(
            node,
            "mean over a tile dimension is not supported",
            "sum over the tile and divide by the extent after the loop",
        )

    def _composite(self, op: str, args: list, kwargs: dict, node: cst.Call) -> ir.Expr:
        if op == "mean":
            return self._reduction(op, args, kwargs, node)  # a sum over the extent
        value = self.expr(args[0])
        t = self.type_of(value, node)
        if not isinstance(t, TileType) or not t.dims:
            raise self.error(node, f"`{op}` of a scalar")
        dtype_node = kwargs.pop("dtype", None)
        axis, _ = self._reduce_axis(args, kwargs, node, len(t.dims))
        loc = self.locate(node)
        x = self.bind_temp(f"{op}_in", value, node)
        if dtype_node is not None:
            x = self.bind_temp(f"{op}_in", ir.Cast(x, self.dtype(dtype_node), loc=loc), node)
        row_max = self.bind_temp(f"{op}_max", ir.Reduce("max", x, axis, True, loc=loc), node)
        shifted = ir.BinOp("-", x, row_max, loc=loc)
        if op == "softmax":
            num = self.bind_temp(f"{op}_num", ir.Call("exp", (shifted,), loc=loc), node)
            den = self.bind_temp(f"{op}_den", ir.Reduce("sum", num, axis, True, loc=loc), node)
            return ir.BinOp("/", num, den, loc=loc)
        shifted_name = self.bind_temp(f"{op}_shifted", shifted, node)
        total = self.lane_flags(
            ir.Reduce("sum", ir.Call("exp", (shifted_name,), loc=loc), axis, True, loc=loc)
        )
        return ir.BinOp("-", shifted_name, ir.Call("log", (total,), loc=loc), loc=loc)

    def _dot(
        self, node: cst.CSTNode, a: ir.Expr, b: ir.Expr, acc: ir.Expr | None, out: ir.DTypeExpr
    ) -> ir.Dot:
        """A dot at the kernel's input precision (where a float32 operand makes it matter)."""
        ta, tb = dtype_of(self.type_of(a, node)), dtype_of(self.type_of(b, node))
        precision = dot_precision(ta, tb, self.dot_precision)
        return ir.Dot(a, b, acc, out, precision=precision, loc=self.locate(node))

    def _dot_mm(self, node: cst.CSTNode, a: ir.Expr, b: ir.Expr) -> ir.Expr:
        ta, tb = self.type_of(a, node), self.type_of(b, node)
        out = promote(dtype_of(ta), dtype_of(tb))
        return self._dot(node, a, b, None, out)

    def _dot_call(self, kind: str, args: list, kwargs: dict, node: cst.Call) -> ir.Expr:
        """A dot of form ``kind`` (:data:`~translator.ir.ops.DOT_FORMS`); the batched forms read
        like the others, the operands' rank says which it is."""
        if kind in ("mm", "bmm"):
            if len(args) != 2 or kwargs:
                raise self.error(node, "matmul takes exactly two tiles")
            return self._dot_mm(node, self.expr(args[0]), self.expr(args[1]))
        if kind in ("addmm", "baddbmm"):
            if len(args) != 3:
                raise self.error(
                    node,
                    "addmm takes (acc, a, b)",
                    "beta/alpha scaling is not supported; scale the result instead",
                )
            if kwargs:
                raise self.error(node, f"unsupported keyword arguments {sorted(kwargs)}")
            acc = self.expr(args[0])
            out = dtype_of(self.type_of(acc, node))
            return self._dot(node, self.expr(args[1]), self.expr(args[2]), acc, out)
        # hl.dot(a, b, acc=None, out_dtype=None)
        a, b = self.expr(args[0]), self.expr(args[1])
        acc_node = kwargs.pop("acc", args[2] if len(args) > 2 else None)
        out_node = kwargs.pop("out_dtype", None)
        if kwargs:
            raise self.error(node, f"unsupported keyword arguments {sorted(kwargs)} to hl.dot")
        acc = (
            self.expr(acc_node)
            if acc_node is not None and literal_or_none(acc_node) is None
            else None
        )
        if out_node is not None and literal_or_none(out_node) is None:
            out = self.dtype(out_node)
        elif acc is not None:
            out = dtype_of(self.type_of(acc, node))
        else:
            ta, tb = self.type_of(a, node), self.type_of(b, node)
            out = promote(dtype_of(ta), dtype_of(tb))
        return self._dot(node, a, b, acc, out)

    def _language(self, fn: str, args: list, kwargs: dict, node: cst.Call) -> ir.Expr:
        loc = self.locate(node)
        if fn in ("zeros", "full"):
            shape_node = kwargs.get("shape", args[0] if args else None)
            if shape_node is None:
                raise self.error(node, f"hl.{fn} needs a shape")
            shape = self.tile_shape(shape_node)
            if fn == "zeros":
                value: ir.Expr = ir.Const(0.0)
                dtype_node = kwargs.get("dtype", args[1] if len(args) > 1 else None)
            else:
                value_node = kwargs.get("value", args[1] if len(args) > 1 else None)
                if value_node is None:
                    raise self.error(node, "hl.full needs a fill value")
                value = self.expr(value_node)
                dtype_node = kwargs.get("dtype", args[2] if len(args) > 2 else None)
            dtype = self.dtype(dtype_node) if dtype_node is not None else ir.F32
            return ir.Full(shape, value, dtype, loc=loc)
        if fn == "arange":
            if len(args) != 1 or kwargs:
                raise self.error(
                    node,
                    "only hl.arange(n) with one argument is supported",
                    "use tile.index for the indices of a tile",
                )
            (dim,) = self.tile_shape(cst.List([cst.Element(args[0])]))
            return ir.Arange(dim, loc=loc)
        if fn == "load":
            tensor = args[0] if args else kwargs.get("tensor")
            index = args[1] if len(args) > 1 else kwargs.get("index")
            if not isinstance(tensor, cst.Name) or not self.scope.is_tensor(tensor.value):
                raise self.error(node, "hl.load needs a host tensor")
            if not isinstance(index, (cst.List, cst.Tuple)):
                raise self.error(node, "hl.load needs an index list")
            items = self.index_items(tensor.value, [e.value for e in index.elements], node)
            load = ir.Load(tensor.value, items, 0.0, loc=loc)
            pred = self.check_lane_mask(load, kwargs.get("extra_mask"), node)
            return load if pred is None else dataclasses.replace(load, mask=pred)
        if fn == "rand":
            return self._rand(args, kwargs, node)
        raise self.error(node, f"hl.{fn}(...) is not supported in an expression here")

    def _rand(self, args: list, kwargs: dict, node: cst.Call) -> ir.Expr:
        """``hl.rand(shape, seed, device=None, offsets=None)``: the IR's ``rand(seed, offsets)``
        at ``offsets`` if given (as int64, which Helion draws them in), else at each element's
        row-major index over the full extents of the tiles ``shape`` names (Helion's counter)."""
        params = ("shape", "seed", "device", "offsets")
        unknown = sorted(set(kwargs) - set(params))
        if unknown or len(args) > len(params):
            raise self.error(node, f"unsupported arguments to hl.rand: {unknown or args[4:]}")
        given = dict(zip(params, args)) | kwargs
        if "seed" not in given or "shape" not in given:
            raise self.error(node, "hl.rand needs a shape and a seed")
        seed = self.expr(given["seed"])
        self.type_of(seed, given["seed"])
        offsets_node = given.get("offsets")
        if offsets_node is not None and not (
            isinstance(offsets_node, cst.Name) and offsets_node.value == "None"
        ):
            offsets = self.expr(offsets_node)
            if dtype_of(self.type_of(offsets, offsets_node)) != ir.I64:
                offsets = ir.Cast(offsets, ir.I64)
        else:
            offsets = row_major_offsets(self._rand_tiles(given["shape"], node))
        e = ir.Call("rand", (seed, offsets), loc=self.locate(node))
        self.type_of(e, node)
        return e

    def _rand_tiles(self, shape: cst.BaseExpression, node: cst.Call) -> list[ir.TileVar]:
        """The tiles of ``hl.rand``'s shape: each a block of lanes from 0 (Helion counts a
        tile's lanes by their index in the whole dim)."""
        help_ = "name hl.tile loop variables that start at 0, or pass offsets= explicitly"
        if not isinstance(shape, (cst.List, cst.Tuple)) or not shape.elements:
            raise self.error(shape, "hl.rand's shape must be a list of tile variables", help_)
        tiles = []
        for element in shape.elements:
            v = element.value
            t = self.scope.env.vars.get(v.value) if isinstance(v, cst.Name) else None
            if not isinstance(t, TileVarType):
                raise self.error(v, f"hl.rand over `{source_of(v)}`, which is no tile", help_)
            if t.tile.scalar or t.tile.begin is not None or t.tile.step is not None:
                raise self.error(
                    v, f"hl.rand over `{v.value}`, which is no block of lanes from 0", help_
                )
            tiles.append(t.tile)
        return tiles

    def check_lane_mask(
        self, access: ir.Load | ir.Store, mask_node: cst.BaseExpression | None, node: cst.CSTNode
    ) -> ir.Expr | None:
        """Accept ``extra_mask=`` where it is what the IR's tile index implies: the validity
        of the lanes of each lane tile (``hl.arange``) the access spans, and require it there
        (Helion masks tiles itself, the lanes of an ``hl.arange`` not). A load through tiles
        only may take any other mask as its predicate (Helion's jagged ``k < nnz``), which
        this returns."""
        if isinstance(access, ir.Load):
            dims = dims_of(self.type_of(access, node))
        else:
            dims = index_dims(access.tensor, access.index, self.scope.env, access.loc)
        lanes = [
            d.tile for d in dims if isinstance(d, ir.BlockDim) and d.tile in self.scope.lane_tiles
        ]
        if mask_node is None:
            if lanes:
                masks = ", ".join(f"`{self._mask_source(t)}`" for t in lanes)
                raise self.error(
                    node,
                    f"an access through the lanes of `{lanes[0]}` that does not mask them",
                    f"use hl.load/hl.store with extra_mask= the validity of the lanes ({masks})",
                )
            return
        if not lanes and isinstance(access, ir.Load):
            # A condition on data (Helion's batched jagged style: `k < nnz[:, None]`): the
            # load's predicate, lanes where it fails not read.
            pred = self.expr(mask_node)
            pred_type = self.type_of(pred, mask_node)
            if dtype_of(pred_type) != ir.BOOL or len(dims_of(pred_type)) > len(dims):
                raise self.error(
                    mask_node,
                    f"extra_mask=`{source_of(mask_node)}` is not a boolean mask of the "
                    "loaded region",
                    "pass a comparison broadcast to the region (`k[None, :] < n[:, None]`)",
                )
            return pred
        if not lanes:
            raise self.error(
                mask_node,
                "extra_mask= on a store is read only as the validity of the lanes of a "
                "strided tile loop",
                "select the stored value with torch.where, or store through tiles whose "
                "bounds mask the region",
            )
        mask = self.expr(mask_node)
        mask_dims = dims_of(self.type_of(mask, mask_node))
        terms = _conjuncts(mask)
        expected = {self._lane_mask(t) for t in lanes}
        shaped = len(mask_dims) == len(dims) and all(
            isinstance(m, ir.UnitDim) or m == d for m, d in zip(mask_dims, dims)
        )
        if not shaped or {_strip_expands(t) for t in terms} != expected:
            raise self.error(
                mask_node,
                f"extra_mask=`{source_of(mask_node)}` is not the validity of the "
                "lanes this access spans",
                "pass exactly the lanes' masks, broadcast to the accessed region",
            )

    def _lane_mask(self, tile: str) -> ir.Expr:
        var = self.scope.lane_tiles[tile]
        return ir.BinOp("<", ir.TileAttr(tile, "index"), var.extent)

    def _mask_source(self, tile: str) -> str:
        for name, e in self.scope.lane_names.items():
            if e == self._lane_mask(tile):
                return name
        return "offs < end"

    def lane_flags(self, e: ir.Expr) -> ir.Expr:
        """A reduction or dot over the lanes of a lane tile, which Helion does not mask: masked
        in the IR where those lanes provably add nothing, unmasked (they take part as they
        are, as in Helion) otherwise."""
        if isinstance(e, ir.Reduce):
            dims = dims_of(infer(e.value, self.scope.env))
            dim = dims[e.axis % len(dims)]
            if isinstance(dim, ir.BlockDim) and dim.tile in self.scope.lane_tiles:
                exact, _ = self.pads.reduction_is_exact(dataclasses.replace(e, masked=False), dim)
                return dataclasses.replace(e, masked=exact)
        if isinstance(e, ir.Dot):
            dims = dims_of(infer(e.lhs, self.scope.env))
            dim = dims[-1] if dims else None
            if isinstance(dim, ir.BlockDim) and dim.tile in self.scope.lane_tiles:
                return dataclasses.replace(e, masked=self.pads.dot_k_lanes_vanish(e, "ir"))
        return e

    def _own_dim(self, node: cst.BaseExpression) -> ir.Dim | None:
        """The dim ``d`` of a device value for ``v.size(d)`` (``hl.arange(row.size(0))`` spans
        the lanes of ``row = x[i, :]``), or None when ``node`` is not that."""
        if not (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "size"
            and len(node.args) == 1
            and isinstance(node.func.value, cst.Name)
            and not self.scope.is_tensor(node.func.value.value)
        ):
            return None
        d = literal_or_none(node.args[0].value)
        t = self.type_of(self.expr(node.func.value), node)
        if not isinstance(t, TileType) or not isinstance(d, int):
            return None
        if not -len(t.dims) <= d < len(t.dims):
            raise self.error(node, f"`{source_of(node)}`: the value has {len(t.dims)} dims")
        return t.dims[d]

    def tile_shape(self, node: cst.BaseExpression) -> tuple[ir.Dim, ...]:
        """A shape list of tiles, block sizes, sizes and 1s (``[tile_m, tile_n]``)."""
        if not isinstance(node, (cst.List, cst.Tuple)):
            raise self.error(node, "tile shapes must be a list, e.g. [tile_m, tile_n]")
        dims: list[ir.Dim] = []
        for element in node.elements:
            v = element.value
            if isinstance(v, cst.Name):
                t = self.scope.env.vars.get(v.value)
                if isinstance(t, TileVarType):
                    dims.append(ir.UnitDim() if t.tile.scalar else ir.BlockDim(v.value))
                    continue
                if isinstance(t, ScalarType):
                    dims.append(ir.FullDim(ir.Name(v.value)))
                    continue
            if (
                isinstance(v, cst.Attribute)
                and v.attr.value == "block_size"
                and isinstance(v.value, cst.Name)
                and isinstance(self.scope.env.vars.get(v.value.value), TileVarType)
            ):
                dims.append(ir.BlockDim(v.value.value))
                continue
            own = self._own_dim(v)
            if own is not None:
                dims.append(own)
                continue
            value = literal_or_none(v)
            if value == 1:
                dims.append(ir.UnitDim())
                continue
            expr = self.expr(v)
            t = self.type_of(expr, v)
            if isinstance(t, ScalarType):
                dims.append(ir.FullDim(expr))
                continue
            raise self.error(
                v, f"unsupported shape entry `{source_of(v)}`", "use tile variables, sizes or 1"
            )
        return tuple(dims)


def _conjuncts(e: ir.Expr) -> list[ir.Expr]:
    if isinstance(e, ir.BinOp) and e.op in ("&", "and"):
        return _conjuncts(e.lhs) + _conjuncts(e.rhs)
    return [e]


def _strip_expands(e: ir.Expr) -> ir.Expr:
    while isinstance(e, ir.ExpandDims):
        e = e.value
    return e


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


def _index_source(element: Any) -> str:
    """One index of a subscript or an ``hl.load`` index list, as written."""
    node = element.slice if isinstance(element, cst.SubscriptElement) else element
    return source_of(node.value if isinstance(node, cst.Index) else node)


def literal_or_none(node: cst.BaseExpression | None) -> Any:
    """``literal(node)``, or ``None`` where ``node`` is not a literal."""
    if node is None:
        return None
    try:
        return literal(node)
    except ValueError:
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

__all__ = ["ExprBuilder", "literal_or_none"]
