"""cuTile frontend, expressions: names, literals, operators, ``ct.*`` calls (pointwise,
reductions, scans, ``ct.mma``, shapes) and inlined ``@ct.function`` helpers, read into IR
expressions through one handler per node kind and per ``ct`` role.

A mixin of :class:`translator.dialects.cutile.frontend.KernelLifter` (see ``accesses.py``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import libcst as cst

from translator.dialects.cst_utils import (
    BINARY_OPERATORS,
    COMPARISON_OPERATORS,
    bound_names,
    call_args,
    names_in,
    source_of,
    static_number,
)
from translator.grammar import load_grammar
from translator.ir import nodes as ir
from translator.ir.ops import reduce_identity
from translator.ir.shapes import (
    dims_of,
    dot_precision,
    dtype_of,
    infer,
)


class ExpressionReader:
    """How a cuTile kernel's expressions read, as IR expressions."""

    def const(self, node: cst.BaseExpression) -> float:
        sign, operand = 1, node
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
            sign, operand = -1, node.expression
        kernel_names = set(self.cst_values) | {p.name.value for p in self.fn.params.params}
        number = static_number(operand, self.mod.aliases, self.mod.module_numbers)
        if number is not None and not names_in(operand) & kernel_names:
            # `padding_value=-math.inf`: a number the module computes from literals.
            return sign * number
        e = self.static(node)
        if isinstance(e, ir.Const) and isinstance(e.value, (int, float)):
            return e.value
        if isinstance(e, ir.UnaryOp) and e.op == "-" and isinstance(e.operand, ir.Const):
            return -e.operand.value  # type: ignore[operator]
        raise self.mod.error(node, "a literal number is needed here")

    def static(self, node: cst.BaseExpression) -> ir.Expr:
        """The value of a compile-time argument (an axis, ``keepdims``): its expression, where
        that is a local the kernel binds once (``keep = True``) the value bound to it."""
        e = self.expr(node)
        once = self.bound_once()
        while isinstance(e, ir.Name) and e.id in self.values and e.id in once:
            e = self.values[e.id]
        return e

    def bound_once(self) -> set[str]:
        """Names the kernel binds exactly once (a value read from them is the one bound)."""
        if self._bound_once is None:
            counts = Counter(bound_names(self.fn.body))
            counts.update(p.name.value for p in self.fn.params.params)  # bound at the call
            self._bound_once = {name for name, n in counts.items() if n == 1}
        return self._bound_once

    def flag(self, node: cst.BaseExpression | None, what: str) -> bool:
        """A compile-time ``True``/``False`` argument (``keepdims=``); ``False`` where absent.
        Anything else is a located diagnostic: read as ``False`` it would be wrong code."""
        if node is None:
            return False
        e = self.static(node)
        if isinstance(e, ir.Const) and isinstance(e.value, bool):
            return e.value
        raise self.mod.error(
            node,
            f"`{what}={source_of(node)}` is not read: its value is not a constant True or False",
            f"write `{what}=True` or `{what}=False`",
        )

    def expr(self, node: cst.BaseExpression) -> ir.Expr:
        handler = _EXPRS.get(type(node))
        if handler is None:
            raise self.mod.error(node, f"`{source_of(node)}` is not read in cuTile kernels")
        return handler(self, node)

    def ex_name(self, node: cst.Name) -> ir.Expr:
        name = node.value
        if name in self.inlined:
            return self.inlined[name]
        if name in self.tiles:
            tile = self.tiles[name]
            return ir.Name(name) if tile.scalar else ir.TileAttr(name, "id")
        if name in ("True", "False"):
            return ir.Const(name == "True")
        if name in self.tensors:
            raise self.mod.error(node, f"array `{name}` is used as a value", "ct.load a tile of it")
        if name not in self.env.vars and name in self.mod.module_numbers:
            # A module constant: cuTile folds it into the kernel.
            return ir.Const(self.mod.module_numbers[name], loc=self.mod.locate(node))
        return ir.Name(name, loc=self.mod.locate(node))

    def ex_int(self, node: cst.Integer) -> ir.Expr:
        return ir.Const(int(node.evaluated_value))

    def ex_float(self, node: cst.Float) -> ir.Expr:
        return ir.Const(float(node.evaluated_value))

    def ex_paren(self, node: cst.BaseExpression) -> ir.Expr:
        return self.expr(node)

    def ex_binop(self, node: cst.BinaryOperation) -> ir.Expr:
        index = self.tile_index(node)
        if index is not None:
            return index
        op = BINARY_OPERATORS.get(type(node.operator))
        if op is None:
            raise self.mod.error(node, f"operator in `{source_of(node)}` is not read")
        lhs, rhs = self.expr(node.left), self.expr(node.right)
        if op == "+":
            lanes = self.lanes_of(lhs, rhs) or self.lanes_of(rhs, lhs)
            if lanes is not None:
                return lanes
        return ir.BinOp(op, lhs, rhs, loc=self.mod.locate(node))

    def lanes_of(self, start: ir.Expr, lanes: ir.Expr) -> ir.Expr | None:
        """``TileAttr(t, "index")`` where ``start + lanes`` is ``t * TILE + ct.arange(TILE)``
        through locals (``block_start = bid * TILE`` then ``block_start + offsets_base``, as
        TileGym writes its element-wise kernels): the lanes of tile ``t``."""
        start, lanes = self.named(start), self.named(lanes)
        if not (isinstance(lanes, ir.Arange) and isinstance(lanes.dim, ir.BlockDim)):
            return None
        tile = self.tiles.get(lanes.dim.tile)
        if tile is None or tile.scalar or not isinstance(tile.block, str):
            return None
        if isinstance(start, ir.TileAttr) and start.tile == tile.name and start.attr == "begin":
            return ir.TileAttr(tile.name, "index")
        if not (isinstance(start, ir.BinOp) and start.op == "*"):
            return None
        factors = [self.named(start.lhs), self.named(start.rhs)]
        if ir.TileAttr(tile.name, "id") in factors and ir.Name(tile.block) in factors:
            return ir.TileAttr(tile.name, "index")
        return None

    def tile_index(self, node: cst.BinaryOperation) -> ir.Expr | None:
        """``t * B + ct.arange(B, ...)``: the lanes of tile ``t`` (``TileAttr(t, "index")``)."""
        if not isinstance(node.operator, cst.Add):
            return None
        left, right = node.left, node.right
        if not (isinstance(left, cst.BinaryOperation) and isinstance(left.operator, cst.Multiply)):
            return None
        if not (
            isinstance(right, cst.Call) and self.mod.name_of(right.func) == self.lang_name("arange")
        ):
            return None
        t, b = left.left, left.right
        if isinstance(t, cst.Name) and t.value in self.tiles:
            tile = self.tiles[t.value]
            size = source_of(right.args[0].value)
            if source_of(b) == size == tile.block:
                return ir.TileAttr(tile.name, "index")
        return None

    def ex_unary(self, node: cst.UnaryOperation) -> ir.Expr:
        ops = {cst.Minus: "-", cst.BitInvert: "~", cst.Not: "not"}
        op = ops.get(type(node.operator))
        if op is None:
            raise self.mod.error(node, f"`{source_of(node)}` is not read")
        operand = self.expr(node.expression)
        if op == "-" and isinstance(operand, ir.Const) and isinstance(operand.value, float):
            return ir.Const(-operand.value)
        return ir.UnaryOp(op, operand)

    def ex_compare(self, node: cst.Comparison) -> ir.Expr:
        if len(node.comparisons) != 1:
            raise self.mod.error(node, "chained comparisons are not read")
        c = node.comparisons[0]
        op = COMPARISON_OPERATORS.get(type(c.operator))
        if op is None:
            raise self.mod.error(node, f"`{source_of(node)}` is not read")
        lhs, rhs = self.expr(node.left), self.expr(c.comparator)
        if op == "<":
            rhs = self.lane_bound(lhs, rhs)
        return ir.BinOp(op, lhs, rhs, loc=self.mod.locate(node))

    def lane_bound(self, lanes: ir.Expr, bound: ir.Expr) -> ir.Expr:
        """The bound of ``lanes < bound``: for the lanes of a whole dim or a tile and an int
        parameter standing for their extent (checked at every launch, ``SAME_SIZES``), the
        extent itself, so that the comparison reads as the lanes' validity."""
        lanes = self.named(lanes)
        if isinstance(lanes, ir.Arange) and isinstance(lanes.dim, ir.FullDim):
            extent = lanes.dim.extent
        elif isinstance(lanes, ir.TileAttr) and lanes.attr == "index" and lanes.tile in self.tiles:
            extent = self.tiles[lanes.tile].extent
        else:
            return bound
        if bound != extent and isinstance(extent, ir.SizeOf) and self.is_extent(bound, extent):
            return extent
        return bound

    def ex_subscript(self, node: cst.Subscript) -> ir.Expr:
        value = node.value
        if isinstance(value, cst.Attribute) and value.attr.value == "shape":
            (el,) = node.slice
            assert isinstance(el.slice, cst.Index) and isinstance(value.value, cst.Name)
            return ir.SizeOf(value.value.value, int(self.const(el.slice.value)))
        # `m[None, :]`: unit dims inserted where `None` stands.
        base = self.expr(value)
        result = base
        for axis, el in enumerate(node.slice):
            s = el.slice
            if isinstance(s, cst.Index) and source_of(s.value) == "None":
                result = ir.ExpandDims(result, axis)
            elif not (isinstance(s, cst.Slice) and s.lower is None and s.upper is None):
                raise self.mod.error(node, f"subscript `{source_of(node)}` is not read")
        return result

    def ex_attribute(self, node: cst.Attribute) -> ir.Expr:
        raise self.mod.error(node, f"`{source_of(node)}` is not read as a value")

    def dtype_value(self, node: cst.BaseExpression) -> bool:
        """Whether ``node`` is a dtype whose value is the same wherever it is read: an array's
        (``attn_out.dtype``), a tile's bound once, or a dtype of the language (``ct.float32``)."""
        if isinstance(node, cst.Attribute) and node.attr.value == "dtype":
            owner = node.value
            return isinstance(owner, cst.Name) and (
                owner.value in self.tensors or self.cst_values.get(owner.value) is not None
            )
        return self.mod.name_of(node) in self.g["dtypes"]

    def dtype(self, node: cst.BaseExpression) -> ir.DTypeExpr:
        if isinstance(node, cst.Name) and node.value in self.dtype_locals:
            node = self.dtype_locals[node.value]
        attr = isinstance(node, cst.Attribute) and node.attr.value == "dtype"
        if attr and isinstance(node.value, cst.Name):  # type: ignore[union-attr]
            owner = node.value.value  # type: ignore[union-attr]
            if owner not in self.tensors:  # a tile's dtype: what the IR knows of it
                return dtype_of(infer(self.expr(node.value), self.env))  # type: ignore[union-attr]
            return ir.DTypeOf(owner)
        name = self.mod.name_of(node)
        if name in self.g["dtypes"]:
            return ir.DType(self.g["dtypes"][name])
        if name == self.g["language"]["tfloat32"]:
            raise self.mod.error(
                node,
                "tf32 values are read only as ct.mma operands",
                "cast in the call: ct.mma(ct.astype(a, ct.tfloat32), ct.astype(b, ct.tfloat32), acc)",
            )
        raise self.mod.error(node, f"dtype `{source_of(node)}` is not read")

    def dim(self, node: cst.BaseExpression) -> ir.Dim:
        """The IR dim a tile-shape entry stands for."""
        if isinstance(node, cst.Integer) and node.value == "1":
            return ir.UnitDim()
        if isinstance(node, cst.Name):
            if node.value in self.whole:
                tensor, d = self.whole[node.value]
                return ir.FullDim(ir.SizeOf(tensor, d))
            tiles = self.block_tiles.get(node.value, [])
            in_scope = [t for t in tiles if t in self.env.tiles]
            if len(in_scope) == 1:
                return ir.BlockDim(in_scope[0])
        raise self.mod.error(
            node,
            f"the tile extent `{source_of(node)}` is not the tile size of one tile variable",
            "use one ct.Constant[int] per tiled dim",
        )

    def shape(self, node: cst.BaseExpression) -> tuple[ir.Dim, ...]:
        if not isinstance(node, cst.Tuple):
            raise self.mod.error(node, "a tile shape is a literal tuple")
        return tuple(self.dim(e.value) for e in node.elements)

    def ex_call(self, node: cst.Call) -> ir.Expr:
        func = node.func
        if isinstance(func, cst.Attribute) and not self.imported(func.value):
            # A method of a tile (`ct.load(...).astype(ct.float32).reshape((1, N))`): the
            # function of the same name with the tile first.
            method = _METHODS.get(func.attr.value)
            if method is not None:
                return method(self, self.expr(func.value), node)
        if source_of(node.func) == "float":
            return ir.Const(float(str(self.const_str(node.args[0].value))))
        if source_of(node.func) in ("min", "max"):
            op = "minimum" if source_of(node.func) == "min" else "maximum"
            return ir.Call(op, tuple(self.expr(a.value) for a in node.args))
        name = self.mod.name_of(node.func)
        if isinstance(node.func, cst.Name) and node.func.value in self.mod.helpers:
            return self.inline(node, self.mod.helpers[node.func.value])
        if name is None:
            raise self.mod.error(node, f"the call `{source_of(node.func)}` is not read")
        if name in self.g["unsupported"]:
            raise self.mod.error(
                node, f"`{source_of(node.func)}` is not supported", self.g["unsupported"][name]
            )
        handler = _CALLS.get(self.lang.get(name, ""))
        if handler is not None:
            return handler(self, node)
        pos, kw = call_args(node)
        if name in self.g["pointwise"]:
            return ir.Call(
                self.g["pointwise"][name],
                tuple(self.expr(a) for a in pos),
                loc=self.mod.locate(node),
            )
        if name in self.g["reductions"]:
            axis = kw.get("axis", pos[1] if len(pos) > 1 else None)
            keep = self.flag(kw.get("keepdims"), "keepdims")
            op = self.g["reductions"][name]
            value = self.expr(pos[0])
            if axis is None or (isinstance(axis, cst.Name) and axis.value == "None"):
                return self.reduce_all(node, op, value, keep)
            masked = self.lane_masked(value, int(self.const(axis)), reduce_identity(op))
            return ir.Reduce(
                op,
                value if masked is None else masked,
                int(self.const(axis)),
                keepdim=keep,
                masked=masked is not None,
                loc=self.mod.locate(node),
            )
        if name in self.g["scans"]:
            axis = kw.get("axis", pos[1] if len(pos) > 1 else None)
            return ir.Scan(
                self.g["scans"][name],
                self.expr(pos[0]),
                int(self.const(axis)),
                loc=self.mod.locate(node),
            )
        if name in self.g["dots"]:
            return self.dot(node, self.g["dots"][name])
        raise self.mod.error(node, f"`{source_of(node.func)}` is not read in cuTile kernels")

    def reduce_all(self, node: cst.Call, op: str, value: ir.Expr, keepdim: bool) -> ir.Expr:
        """``ct.sum(x)`` without an axis: over every dim, the last first (each masked as the
        IR says where its lanes run past the tensor); a number, or with ``keepdims`` a tile of
        ones."""
        rank = len(dims_of(infer(value, self.env)))
        if op in ("argmax", "argmin") and rank > 1:
            # The index into the flattened tile: reducing dim by dim would take the arg of the
            # indices the first step returned.
            raise self.mod.error(
                node,
                f"`ct.{op}` without an axis of a {rank}-d tile (an index into the flattened "
                "tile) is not read",
                f"give the axis (`ct.{op}(x, axis=1)`) or reshape the tile to 1-d first",
            )
        for axis in reversed(range(rank)):
            masked = self.lane_masked(value, axis, reduce_identity(op))
            value = ir.Reduce(
                op,
                value if masked is None else masked,
                axis,
                keepdim=keepdim,
                masked=masked is not None,
            )
        return value

    def const_str(self, node: cst.BaseExpression) -> str:
        if isinstance(node, cst.SimpleString):
            return str(node.evaluated_value)
        raise self.mod.error(node, "float(...) of a literal string is read")

    def dot(self, node: cst.Call, form: str) -> ir.Expr:
        pos, kw = call_args(node)
        (a, a_tf32), (b, b_tf32) = self.mma_operand(pos[0]), self.mma_operand(pos[1])
        if a_tf32 != b_tf32:
            raise self.mod.error(
                node,
                "one operand of this product is cast to ct.tfloat32 and the other is not",
                "cast both operands (a tf32 MMA) or neither (IEEE float32)",
            )
        # ct.mma multiplies float32 operands in IEEE float32; operands cast to tfloat32 in tf32.
        precision = dot_precision(
            dtype_of(infer(a, self.env)),
            dtype_of(infer(b, self.env)),
            "tf32" if a_tf32 else load_grammar("cutile")["backend"]["kernel"]["dot_precision"],
        )
        loc = self.mod.locate(node)
        if form == "dot":
            acc_node = kw.get("acc", pos[2] if len(pos) > 2 else None)
            acc = self.expr(acc_node) if acc_node is not None else None
            if isinstance(acc, ir.Full) and acc.value == ir.Const(0):
                acc = None  # a fresh zero accumulator is no accumulator
            return ir.Dot(a, b, acc, ir.F32, masked=False, precision=precision, loc=loc)
        return ir.Dot(a, b, None, ir.DTypeOf("?"), masked=False, precision=precision, loc=loc)

    def mma_operand(self, node: cst.BaseExpression) -> tuple[ir.Expr, bool]:
        """An MMA operand and whether it is cast to tf32: ``ct.astype(x, ct.tfloat32)`` (x as
        float32), or ``ct.astype(x, ct.tfloat32 if X.dtype == ct.float32 else X.dtype)`` (x as
        X's dtype, in a kernel generic over it; also through a name bound to that type). The IR
        has no tf32 values: the cast is the dot's input precision."""
        cast = isinstance(node, cst.Call) and self.lang.get(self.mod.name_of(node.func) or "")
        if cast != "astype":
            return self.expr(node), False
        pos, kw = call_args(node)  # type: ignore[arg-type]
        dtype = kw.get("dtype", pos[1] if len(pos) > 1 else None)
        if isinstance(dtype, cst.Name) and dtype.value in self.mma_dtypes:
            dtype = self.mma_dtypes[dtype.value]
        if isinstance(dtype, cst.IfExp):
            if not self.tf32_if_f32(dtype):
                raise self.mod.error(
                    dtype,
                    "this conditional MMA operand type is not read",
                    "write `ct.tfloat32 if X.dtype == ct.float32 else X.dtype`",
                )
            return self.cast_to(self.expr(pos[0]), self.dtype(dtype.orelse)), True
        if dtype is not None and self.is_tfloat32(dtype):
            return self.cast_to(self.expr(pos[0]), ir.F32), True
        return self.expr(node), False

    def cast_to(self, value: ir.Expr, dtype: ir.DTypeExpr) -> ir.Expr:
        """``value`` as ``dtype`` (itself where it already is)."""
        if dtype_of(infer(value, self.env)) == dtype:
            return value
        return ir.Cast(value, dtype)

    def tf32_if_f32(self, node: cst.IfExp) -> bool:
        """Whether ``node`` is ``ct.tfloat32 if X.dtype == ct.float32 else X.dtype``: tf32
        where ``X`` is float32, else ``X``'s own dtype."""
        test = node.test
        return (
            self.is_tfloat32(node.body)
            and isinstance(test, cst.Comparison)
            and len(test.comparisons) == 1
            and isinstance(test.comparisons[0].operator, cst.Equal)
            and self.mod.name_of(test.comparisons[0].comparator) == "cuda.tile.float32"
            and source_of(test.left) == source_of(node.orelse)
        )

    def is_tfloat32(self, node: cst.BaseExpression) -> bool:
        return self.mod.name_of(node) == self.g["language"]["tfloat32"]

    def c_load(self, node: cst.Call) -> ir.Expr:
        return self.load(node)

    def c_gather(self, node: cst.Call) -> ir.Expr:
        return self.gather(node)

    def c_astype(self, node: cst.Call) -> ir.Expr:
        pos, _ = call_args(node)
        self.check_rounding(node, pos[1])
        return ir.Cast(self.expr(pos[0]), self.dtype(pos[1]))

    def check_rounding(self, node: cst.Call, dtype: cst.BaseExpression | None) -> None:
        """An ``astype``'s (or, ``dtype`` None, an arithmetic call's) ``rounding_mode=`` is read
        only as the default, round to nearest even (an IR cast's rounding): another mode (``ct.RoundingMode.RZ``) is refused at the
        keyword, not rounded to nearest. (A cast to tf32 is an MMA operand's precision, read
        with its rounding where the dot reads it.)"""
        if dtype is not None and self.is_tfloat32(dtype):
            return
        for arg in node.args:
            if arg.keyword is None or arg.keyword.value != "rounding_mode":
                continue
            value = arg.value
            if isinstance(value, cst.Name) and value.value == "None":
                continue
            if self.mod.name_of(value) == "cuda.tile.RoundingMode.RN":
                continue
            what = "cast" if dtype is not None else "result"
            func = "astype" if dtype is not None else source_of(node.func)
            raise self.mod.error(
                arg,
                f"`{func}(..., rounding_mode={source_of(value)})` is not read: a translated "
                f"{what} rounds to nearest (ties to even), the only rounding mode read",
                "drop rounding_mode (or pass ct.RoundingMode.RN) where rounding to nearest is "
                f"meant; no other rounding mode of a {what} has a translation",
            )

    def imported(self, node: cst.BaseExpression) -> bool:
        """Whether ``node`` (``ct``, ``ct.PaddingMode``) names something the module imports,
        not a value of the kernel's."""
        while isinstance(node, cst.Attribute):
            node = node.value
        return isinstance(node, cst.Name) and node.value in self.mod.aliases

    def m_astype(self, tile: ir.Expr, node: cst.Call) -> ir.Expr:
        pos, kw = call_args(node)
        dtype = kw.get("dtype", pos[0] if pos else None)
        if dtype is None or set(kw) - {"dtype", "rounding_mode"}:
            raise self.mod.error(node, "`tile.astype(dtype)` is read")
        self.check_rounding(node, dtype)
        return ir.Cast(tile, self.dtype(dtype))

    def m_reshape(self, tile: ir.Expr, node: cst.Call) -> ir.Expr:
        pos, kw = call_args(node)
        shape = kw.get("shape", pos[0] if pos else None)
        if shape is None:
            raise self.mod.error(node, "`tile.reshape(shape)` is read")
        return self.reshape(tile, self.shape(shape))

    def m_transpose(self, tile: ir.Expr, node: cst.Call) -> ir.Expr:
        if node.args or len(dims_of(infer(tile, self.env))) != 2:
            raise self.mod.error(
                node,
                "`tile.transpose()` is read of a 2-D tile, without axes",
                "write tile.permute(axes) for other tiles",
            )
        return ir.Permute(tile, (1, 0))

    def m_permute(self, tile: ir.Expr, node: cst.Call) -> ir.Expr:
        pos, kw = call_args(node)
        axes = kw.get("axes", pos[0] if pos else None)
        if not isinstance(axes, cst.Tuple):
            raise self.mod.error(node, "`tile.permute(axes)` takes a literal axes tuple")
        return ir.Permute(tile, tuple(int(self.const(e.value)) for e in axes.elements))

    def bitwise(self, node: cst.Call, op: str) -> ir.Expr:
        pos, kw = call_args(node)
        if len(pos) != 2 or kw:
            raise self.mod.error(node, f"`{source_of(node.func)}(x, y)` of two operands is read")
        return ir.BinOp(op, self.expr(pos[0]), self.expr(pos[1]), loc=self.mod.locate(node))

    def c_bitwise_and(self, node: cst.Call) -> ir.Expr:
        return self.bitwise(node, "&")

    def c_bitwise_or(self, node: cst.Call) -> ir.Expr:
        return self.bitwise(node, "|")

    def c_bitwise_xor(self, node: cst.Call) -> ir.Expr:
        return self.bitwise(node, "^")

    def c_bitwise_rshift(self, node: cst.Call) -> ir.Expr:
        return self.bitwise(node, ">>")

    def c_bitwise_lshift(self, node: cst.Call) -> ir.Expr:
        return self.bitwise(node, "<<")

    def c_truediv(self, node: cst.Call) -> ir.Expr:
        # The rounding mode and flush-to-zero choose how exactly the quotient is rounded: the
        # IR's `/` is the quotient, each backend's division its own precision of it.
        pos, _ = call_args(node)
        if len(pos) != 2:
            raise self.mod.error(node, "ct.truediv(x, y, ...) takes two operands")
        return ir.BinOp("/", self.expr(pos[0]), self.expr(pos[1]), loc=self.mod.locate(node))

    def arithmetic(self, node: cst.Call, op: str) -> ir.Expr:
        """``ct.add(x, y)`` (``sub``, ``mul``) as the operator cuTile implements it with:
        ``ct.add(ct.arange(TILE), block_start)`` is then a tile's lanes as ``+`` is."""
        pos, kw = call_args(node)
        if len(pos) != 2 or set(kw) - {"rounding_mode", "flush_to_zero"}:
            raise self.mod.error(node, f"`{source_of(node.func)}(x, y)` of two operands is read")
        self.check_rounding(node, None)
        lhs, rhs = self.expr(pos[0]), self.expr(pos[1])
        if op == "+":
            lanes = self.lanes_of(lhs, rhs) or self.lanes_of(rhs, lhs)
            if lanes is not None:
                return lanes
        return ir.BinOp(op, lhs, rhs, loc=self.mod.locate(node))

    def c_add(self, node: cst.Call) -> ir.Expr:
        return self.arithmetic(node, "+")

    def c_sub(self, node: cst.Call) -> ir.Expr:
        return self.arithmetic(node, "-")

    def c_mul(self, node: cst.Call) -> ir.Expr:
        return self.arithmetic(node, "*")

    def c_negative(self, node: cst.Call) -> ir.Expr:
        pos, kw = call_args(node)
        if len(pos) != 1 or kw:
            raise self.mod.error(node, f"`{source_of(node.func)}(x)` of one operand is read")
        operand = self.expr(pos[0])
        if isinstance(operand, ir.Const) and isinstance(operand.value, float):
            return ir.Const(-operand.value)
        return ir.UnaryOp("-", operand)

    def c_extract(self, node: cst.Call) -> ir.Expr:
        """``ct.extract(x, (0, ...), shape=S)`` where ``S`` is ``x``'s own shape: ``x`` (the
        one subtile of that shape, as TileGym's split-K reduce takes the row of a (1, D) MMA
        result). A proper subtile is refused: the IR has no tile slices."""
        pos, kw = call_args(node)
        index = kw.get("index", pos[1] if len(pos) > 1 else None)
        shape = kw.get("shape", pos[2] if len(pos) > 2 else None)
        value = self.expr(pos[0])
        whole = (
            isinstance(index, cst.Tuple)
            and all(source_of(e.value) == "0" for e in index.elements)
            and isinstance(shape, cst.Tuple)
            and self.shape(shape) == dims_of(infer(value, self.env))
        )
        if not whole:
            raise self.mod.error(
                node,
                "`ct.extract` of a subtile smaller than the tile is not read: the IR has no "
                "tile slices",
                "compute the subtile's values in a tile of its own shape (a load or reduction "
                "of that shape)",
            )
        return value

    def c_full(self, node: cst.Call) -> ir.Expr:
        pos, kw = call_args(node)
        dt = self.dtype(kw.get("dtype", pos[2] if len(pos) > 2 else None))
        return ir.Full(self.shape(pos[0]), self.expr(pos[1]), dt)

    def c_zeros(self, node: cst.Call) -> ir.Expr:
        pos, kw = call_args(node)
        dt = self.dtype(kw.get("dtype", pos[1] if len(pos) > 1 else None))
        return ir.Full(self.shape(pos[0]), ir.Const(0.0), dt)

    def c_ones(self, node: cst.Call) -> ir.Expr:
        pos, kw = call_args(node)
        dt = self.dtype(kw.get("dtype", pos[1] if len(pos) > 1 else None))
        return ir.Full(self.shape(pos[0]), ir.Const(1.0), dt)

    def c_arange(self, node: cst.Call) -> ir.Expr:
        pos, _ = call_args(node)
        return ir.Arange(self.dim(pos[0]))

    def c_reshape(self, node: cst.Call) -> ir.Expr:
        pos, kw = call_args(node)
        return self.reshape(
            self.expr(pos[0]), self.shape(kw.get("shape", pos[1] if len(pos) > 1 else None))
        )

    def reshape(self, value: ir.Expr, shape: tuple[ir.Dim, ...]) -> ir.Expr:
        """``ct.reshape(v, shape)``; of a load whose scalar indices keep unit dims (cuTile's
        ``shape=(1, BLOCK_N)``) to the shape without them, the load that drops them."""
        if isinstance(value, ir.Load) and any(isinstance(i, ir.NewAxis) for i in value.index):
            dropped = ir.Load(
                value.tensor,
                tuple(i for i in value.index if not isinstance(i, ir.NewAxis)),
                value.other,
                loc=value.loc,
            )
            if dims_of(infer(dropped, self.env)) == shape:
                return dropped
        return ir.Reshape(value, shape)

    def c_transpose(self, node: cst.Call) -> ir.Expr:
        pos, _ = call_args(node)
        return ir.Permute(self.expr(pos[0]), (1, 0))

    def c_permute(self, node: cst.Call) -> ir.Expr:
        pos, kw = call_args(node)
        axes = kw.get("axes", pos[1] if len(pos) > 1 else None)
        if not isinstance(axes, cst.Tuple):
            raise self.mod.error(node, "ct.permute takes a literal axes tuple")
        return ir.Permute(self.expr(pos[0]), tuple(int(self.const(e.value)) for e in axes.elements))

    def c_expand_dims(self, node: cst.Call) -> ir.Expr:
        pos, kw = call_args(node)
        return ir.ExpandDims(self.expr(pos[0]), int(self.const(kw.get("axis", pos[1]))))

    def c_broadcast_to(self, node: cst.Call) -> ir.Expr:
        pos, kw = call_args(node)
        return ir.Broadcast(
            self.expr(pos[0]), self.shape(kw.get("shape", pos[1] if len(pos) > 1 else None))
        )

    def c_num_tiles(self, node: cst.Call) -> ir.Expr:
        extent, size = self.loop_count(node, "")
        return ir.Call("cdiv", (extent, self.expr(size)))

    def inline(self, call: cst.Call, fn: cst.FunctionDef) -> ir.Expr:
        """A helper (``@ct.function``, or a plain function tile code calls, which cuTile
        compiles as one) of local assignments and one ``return``, inlined: its parameters are
        the call's arguments (or their defaults), its locals its own."""
        args = self.helper_arguments(call, fn)
        self.check_free_names(fn)
        saved = dict(self.inlined)
        # Every argument is read in the caller's scope before any parameter is bound.
        values = {n: self.expr(a) for n, a in args.items()}
        self.inlined.update(values)
        try:
            for s in fn.body.body:
                if _is_docstring(s):
                    continue
                small = s.body[0] if isinstance(s, cst.SimpleStatementLine) else None
                if isinstance(small, cst.Return) and small.value is not None:
                    return self.expr(small.value)
                if isinstance(small, cst.Assign) and isinstance(small.targets[0].target, cst.Name):
                    self.inlined[small.targets[0].target.value] = self.expr(small.value)
                    continue
                raise self.mod.error(s, "tile helpers of assignments and one return are read")
            raise self.mod.error(fn, "a tile helper must return a value")
        finally:
            self.inlined = saved

    def helper_arguments(
        self, call: cst.Call, fn: cst.FunctionDef
    ) -> dict[str, cst.BaseExpression]:
        """The argument each parameter of helper ``fn`` takes at ``call``: positional, by
        keyword, or the parameter's default."""
        params = fn.params
        if params.star_arg not in (None, cst.MaybeSentinel.DEFAULT) or params.star_kwarg:
            raise self.mod.error(fn, "a tile helper with *args or **kwargs is not read")
        declared = [*params.posonly_params, *params.params, *params.kwonly_params]
        names = [p.name.value for p in declared]
        pos, kw = call_args(call)
        if len(pos) > len(names) or set(kw) - set(names[len(pos) :]):
            raise self.mod.error(
                call, f"the arguments of this call do not match `{fn.name.value}`'s parameters"
            )
        args: dict[str, cst.BaseExpression] = dict(zip(names, pos))
        args.update(kw)
        for p in declared:
            if p.name.value in args:
                continue
            if p.default is None:
                raise self.mod.error(call, f"`{fn.name.value}` is called without `{p.name.value}`")
            args[p.name.value] = p.default
        return args

    def check_free_names(self, fn: cst.FunctionDef) -> None:
        """A name a helper reads that it neither takes nor binds is a module global in Python:
        read inlined, it must not be taken for a kernel local of the same name."""
        own = set(bound_names(fn.body)) | {
            p.name.value
            for p in (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params)
        }
        kernel = (
            set(self.cst_values) | set(self.inlined) | {p.name.value for p in self.fn.params.params}
        )
        for name in _read_names(fn.body):
            if name.value not in own and name.value in kernel:
                raise self.mod.error(
                    name,
                    f"the helper `{fn.name.value}` reads `{name.value}`, a module global, which "
                    "the kernel calling it binds too",
                    f"pass `{name.value}` to the helper as an argument, or rename the kernel's",
                )


def _read_names(node: cst.CSTNode) -> list[cst.Name]:
    """The names ``node`` reads or binds, attribute and keyword names left out."""
    found: list[cst.Name] = []

    class Visitor(cst.CSTVisitor):
        def visit_Name(self, name: cst.Name) -> None:
            found.append(name)

        def visit_Attribute(self, attr: cst.Attribute) -> bool:
            attr.value.visit(self)
            return False

        def visit_Arg(self, arg: cst.Arg) -> bool:
            arg.value.visit(self)
            return False

    node.visit(Visitor())
    return found


def _is_docstring(s: cst.CSTNode) -> bool:
    return (
        isinstance(s, cst.SimpleStatementLine)
        and isinstance(s.body[0], cst.Expr)
        and isinstance(s.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


_EXPRS: dict[type, Callable[[ExpressionReader, cst.BaseExpression], ir.Expr]] = {
    cst.Name: ExpressionReader.ex_name,
    cst.Integer: ExpressionReader.ex_int,
    cst.Float: ExpressionReader.ex_float,
    cst.BinaryOperation: ExpressionReader.ex_binop,
    cst.UnaryOperation: ExpressionReader.ex_unary,
    cst.Comparison: ExpressionReader.ex_compare,
    cst.Subscript: ExpressionReader.ex_subscript,
    cst.Attribute: ExpressionReader.ex_attribute,
    cst.Call: ExpressionReader.ex_call,
}
#: ``[frontend.language]`` roles read structurally, by role.
_CALLS: dict[str, Callable[[ExpressionReader, cst.Call], ir.Expr]] = {
    "truediv": ExpressionReader.c_truediv,
    "add": ExpressionReader.c_add,
    "sub": ExpressionReader.c_sub,
    "mul": ExpressionReader.c_mul,
    "negative": ExpressionReader.c_negative,
    "extract": ExpressionReader.c_extract,
    "bitwise_and": ExpressionReader.c_bitwise_and,
    "bitwise_or": ExpressionReader.c_bitwise_or,
    "bitwise_xor": ExpressionReader.c_bitwise_xor,
    "bitwise_rshift": ExpressionReader.c_bitwise_rshift,
    "bitwise_lshift": ExpressionReader.c_bitwise_lshift,
    "load": ExpressionReader.c_load,
    "gather": ExpressionReader.c_gather,
    "astype": ExpressionReader.c_astype,
    "full": ExpressionReader.c_full,
    "zeros": ExpressionReader.c_zeros,
    "ones": ExpressionReader.c_ones,
    "arange": ExpressionReader.c_arange,
    "reshape": ExpressionReader.c_reshape,
    "transpose": ExpressionReader.c_transpose,
    "permute": ExpressionReader.c_permute,
    "expand_dims": ExpressionReader.c_expand_dims,
    "broadcast_to": ExpressionReader.c_broadcast_to,
    "num_tiles": ExpressionReader.c_num_tiles,
}
#: Methods of a tile, read as the ``ct`` function of the same name with the tile first.
_METHODS: dict[str, Callable[[ExpressionReader, ir.Expr, cst.Call], ir.Expr]] = {
    "astype": ExpressionReader.m_astype,
    "reshape": ExpressionReader.m_reshape,
    "transpose": ExpressionReader.m_transpose,
    "permute": ExpressionReader.m_permute,
}
