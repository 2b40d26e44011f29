"""The TileLang lifter's expressions: one handler per libcst node kind in :data:`EXPRESSIONS`
(names, numbers, operators, subscripts of buffers and tensors, calls), mixed into
:class:`~translator.dialects.tilelang.frontend.KernelLifter`."""

from __future__ import annotations

import math
from collections.abc import Callable

import libcst as cst

from translator.diagnostics import TranslationError
from translator.dialects.cst_utils import (
    call_args,
    conjuncts,
    source_of,
)
from translator.dialects.tilelang.model import BINOPS, COMPARISONS, fold_pads
from translator.ir import nodes as ir
from translator.ir.shapes import dims_of, infer


class Expressions:
    """Handlers of the expressions a kernel body reads."""

    def scalar_const(self, node: cst.BaseExpression) -> float:
        e = self.scalar_expr(node)
        if isinstance(e, ir.Const) and isinstance(e.value, (int, float)):
            return e.value
        if isinstance(e, ir.UnaryOp) and e.op == "-" and isinstance(e.operand, ir.Const):
            return -e.operand.value  # type: ignore[operator]
        raise self.error(node, "a literal number is needed here")

    def lane_expr(self, node: cst.BaseExpression) -> ir.Expr:
        handler = EXPRESSIONS.get(type(node))
        if handler is None:
            raise self.error(node, f"`{source_of(node)}` is not read in TileLang kernels")
        try:
            return handler(self, node)
        except TranslationError as err:
            # A helper below refused without a place (`place`): the innermost expression read.
            if err.loc is None and err.node is None:
                err.node = node
            raise

    def place(self, value: ir.Expr, axes: list[int | None]) -> ir.Expr:
        """``value`` (one dim per entry of ``axes``: the lane axis it runs along, ``None`` for a
        unit dim) laid out over the current loop's lanes."""
        kept = [a for a in axes if a is not None]
        if len(kept) != len(set(kept)):
            raise TranslationError(
                "a lane variable indexes two dims",
                None,
                "index each dim of the buffer with its own lane variable",
            )
        if len(kept) != len(axes):
            dims = dims_of(infer(value, self.env))
            value = ir.Reshape(value, tuple(d for d, a in zip(dims, axes) if a is not None))
        if kept != sorted(kept):
            perm = tuple(sorted(range(len(kept)), key=lambda i: kept[i]))
            value = ir.Permute(value, perm)
            kept = sorted(kept)
        if not kept and self.lanes:
            return value  # one lane: a scalar-like tile broadcasts
        for axis in range(len(self.lanes)):
            if axis not in kept:
                value = ir.ExpandDims(value, axis)
        return value

    def ex_subscript(self, node: cst.Subscript) -> ir.Expr:
        base = node.value
        size = self.shape_entry(node)
        if size is not None:
            return size
        if isinstance(base, cst.Name) and base.value in self.fac.tensors:
            items, order = self.global_items(node)
            self.check_inner_ends(node, items, order, set())
            load = ir.Load(base.value, items, 0.0, loc=self.mod.locate(node))
            return self.place(load, order)  # type: ignore[arg-type]
        buf = self.buffer(base)
        idx = [el.slice.value for el in node.slice if isinstance(el.slice, cst.Index)]
        if len(idx) != len(buf.dims):
            raise self.error(node, f"`{buf.name}` has {len(buf.dims)} dims")
        lanes = [name for name, _ in self.lanes]
        axes: list[int | None] = []
        for i, d in zip(idx, buf.dims):
            if isinstance(i, cst.Name) and i.value in lanes:
                axis = lanes.index(i.value)
                if self.lanes[axis][1] != d:
                    raise self.error(i, f"`{i.value}` runs over another dim than `{buf.name}`'s")
                axes.append(axis)
            elif isinstance(i, cst.Integer) and i.value == "0" and isinstance(d, ir.UnitDim):
                axes.append(None)
            else:
                raise self.error(
                    i,
                    f"`{source_of(node)}`: buffers are read at the loop's lane variables",
                    "index buffers with the T.Parallel variables (or 0 on a unit dim)",
                )
        return self.place(self.contents(buf, node), axes)

    def global_items(self, node: cst.Subscript) -> tuple[tuple[ir.IndexItem, ...], list[int]]:
        """The index of an element access ``A[by * BM + i, j]`` of a global tensor in a
        ``T.Parallel`` loop, and the lane axis each indexed dim runs along."""
        lanes = [name for name, _ in self.lanes]
        items: list[ir.IndexItem] = []
        order: list[int] = []
        for el in node.slice:
            if not isinstance(el.slice, cst.Index):
                raise self.error(el, "element accesses index each dim once")
            e = el.slice.value
            lane = self.lane_of(e, lanes)
            if lane is None:
                items.append(ir.ScalarIndex(self.scalar_expr(e)))
                continue
            axis, offset = lane
            d = self.lanes[axis][1]
            if (
                isinstance(d, ir.BlockDim)
                and offset is not None
                and self.is_tile_start(offset, self.tiles[d.tile])
            ):
                items.append(ir.TileIndex(d.tile))
            elif isinstance(d, ir.FullDim) and offset is None:
                items.append(ir.FullIndex(d.extent))
            elif isinstance(d, ir.UnitDim) and offset is None:
                # `T.Parallel(block, 1)`'s one-lane `j`: index 0 of a dim of one element.
                items.append(ir.ScalarIndex(ir.Const(0)))
                continue
            else:
                raise self.error(
                    e,
                    f"`{source_of(e)}` is not a tile's lanes",
                    "index tiled dims as `bx * block + i` and whole dims as `j`",
                )
            order.append(axis)
        return tuple(items), order

    def lane_bounds(self, items: tuple[ir.IndexItem, ...], order: list[int]) -> set[ir.Expr]:
        """The conditions that the lanes of an element access (:meth:`global_items`) are inside
        the tensor, one per tiled or whole dim: ``index < extent``."""
        valid: set[ir.Expr] = set()
        lane_items = [item for item in items if not isinstance(item, ir.ScalarIndex)]
        for item, axis in zip(lane_items, order):
            if isinstance(item, ir.TileIndex):
                valid.add(self.tile_bound(item.tile, axis))
            elif isinstance(item, ir.FullIndex):
                index = self.place(ir.Arange(self.lanes[axis][1]), [axis])
                valid.add(ir.BinOp("<", index, item.extent))
        return valid

    def tile_bound(self, tile: str, axis: int) -> ir.Expr:
        """``index < extent`` of ``tile``'s lanes along lane axis ``axis``."""
        index = self.place(ir.TileAttr(tile, "index"), [axis])
        return ir.BinOp("<", index, self.tiles[tile].extent)

    def check_inner_ends(
        self,
        node: cst.CSTNode,
        items: tuple[ir.IndexItem, ...],
        order: list[int],
        guards: set[ir.Expr],
    ) -> None:
        """Refuse an element access of a loop tile that ends inside the tensor (an expert's
        rows up to ``end``, a value the kernel read) unless ``guards`` bound its lanes there:
        TileLang accesses every lane it is given, the IR none past the tile's extent."""
        lane_items = [item for item in items if not isinstance(item, ir.ScalarIndex)]
        for item, axis in zip(lane_items, order):
            if not (isinstance(item, ir.TileIndex) and item.tile in self.inner_ends):
                continue
            if self.tile_bound(item.tile, axis) not in guards:
                end = self.inner_ends[item.tile]
                raise self.error(
                    node,
                    f"`{source_of(node).strip()}` reaches lanes of `{item.tile}` past its end "
                    f"`{end}` (a value the kernel computes, inside the tensor) unguarded",
                    f"bound the lanes: `if <index> < {end}:` around a store, "
                    f"`T.if_then_else(<index> < {end}, X[...], 0.0)` for a load",
                )

    def guarded_load(
        self, cond: cst.BaseExpression, value: cst.BaseExpression, other: cst.BaseExpression
    ) -> ir.Expr | None:
        """``T.if_then_else(<the lanes are inside X>, X[by * BM + i, j], c)`` (how tiletrans
        writes a load at a ragged edge, element-wise): the load of ``X`` whose lanes outside
        read ``c``. A condition on some of the bounds only is the same load where ``c`` is 0
        (what the lanes outside read anyway). ``None`` for anything else."""
        if not (isinstance(value, cst.Subscript) and self.is_tensor(value.value)):
            return None
        pad = self.lane_expr(other)
        if isinstance(pad, ir.UnaryOp) and pad.op == "-" and isinstance(pad.operand, ir.Const):
            pad = ir.Const(-pad.operand.value)  # type: ignore[operator]
        if not (isinstance(pad, ir.Const) and isinstance(pad.value, (int, float))):
            return None
        items, order = self.global_items(value)
        valid = self.lane_bounds(items, order)
        parts = {self.lane_expr(p) for p in conjuncts(cond)}
        if not parts <= valid or (pad.value != 0 and parts != valid):
            return None
        self.check_inner_ends(value, items, order, parts)
        load = ir.Load(value.value.value, items, float(pad.value), loc=self.mod.locate(value))  # type: ignore[attr-defined]
        return self.place(load, order)  # type: ignore[arg-type]

    def lane_of(
        self, e: cst.BaseExpression, lanes: list[str]
    ) -> tuple[int, cst.BaseExpression | None] | None:
        e = self.written_out(e)
        if isinstance(e, cst.Name) and e.value in lanes:
            return lanes.index(e.value), None
        if isinstance(e, cst.BinaryOperation) and isinstance(e.operator, cst.Add):
            for lane, other in ((e.right, e.left), (e.left, e.right)):
                if isinstance(lane, cst.Name) and lane.value in lanes:
                    return lanes.index(lane.value), other
        return None

    def ex_name(self, node: cst.Name) -> ir.Expr:
        name = node.value
        lanes = [n for n, _ in self.lanes]
        if name in lanes:
            axis = lanes.index(name)
            return self.place(ir.Arange(self.lanes[axis][1]), [axis])
        if name in ("True", "False"):
            return ir.Const(name == "True")
        if name in self.tiles:
            tile = self.tiles[name]
            return ir.Name(name) if tile.scalar else ir.TileAttr(name, "id")
        if name in self.block_tiles:
            tiles = self.block_tiles[name]
            in_scope = [t for t in tiles if t in self.env.tiles]
            if not in_scope and name in self.tunables:
                # Read where none of its tiles runs (`num_k_step = T.ceildiv(N, blk_k)` before
                # the loop): the tunable itself, which device code may read.
                return ir.Name(name)
            return ir.TileAttr((in_scope or tiles)[0], "block_size")
        if name in self.buffers:
            raise self.error(node, f"buffer `{name}` is read without its lanes")
        if name in self.fac.tensors:
            raise self.error(node, f"tensor `{name}` is used as a value", "T.copy a region of it")
        if name in self.lets or name in self.lane_lets:
            return ir.Name(name)
        return self.host_expr(node)

    def ex_int(self, node: cst.Integer) -> ir.Expr:
        return ir.Const(int(node.evaluated_value))

    def ex_float(self, node: cst.Float) -> ir.Expr:
        return ir.Const(float(node.evaluated_value))

    def ex_binop(self, node: cst.BinaryOperation) -> ir.Expr:
        lanes = [n for n, _ in self.lanes]
        lane = self.lane_of(node, lanes) if isinstance(node.operator, cst.Add) else None
        if lane is not None and lane[1] is not None:
            axis, offset = lane
            d = self.lanes[axis][1]
            if isinstance(d, ir.BlockDim) and self.is_tile_start(offset, self.tiles[d.tile]):
                # `k * block_N + j`: the tensor indices of tile k's lanes
                return self.place(ir.TileAttr(d.tile, "index"), [axis])
        op = BINOPS.get(type(node.operator))
        if op is None:
            raise self.error(node, f"operator in `{source_of(node)}` is not read")
        return ir.BinOp(
            op, self.lane_expr(node.left), self.lane_expr(node.right), loc=self.mod.locate(node)
        )

    def ex_unary(self, node: cst.UnaryOperation) -> ir.Expr:
        ops = {cst.Minus: "-", cst.BitInvert: "~", cst.Not: "not"}
        op = ops.get(type(node.operator))
        if op is None:
            raise self.error(node, f"`{source_of(node)}` is not read")
        operand = self.lane_expr(node.expression)
        if op == "-" and isinstance(operand, ir.Const) and isinstance(operand.value, float):
            return ir.Const(-operand.value)
        return ir.UnaryOp(op, operand)

    def ex_compare(self, node: cst.Comparison) -> ir.Expr:
        if len(node.comparisons) != 1:
            raise self.error(node, "chained comparisons are not read")
        c = node.comparisons[0]
        op = COMPARISONS.get(type(c.operator))
        if op is None:
            raise self.error(node, f"`{source_of(node)}` is not read")
        strings = (cst.SimpleString, cst.ConcatenatedString)
        for choice, text in ((node.left, c.comparator), (c.comparator, node.left)):
            if isinstance(text, strings) and not isinstance(choice, strings):
                # `ACTIVATION == "gelu"`: a string parameter's compile-time choice.
                if op not in ("==", "!="):
                    raise self.error(node, f"strings are compared with == or !=, not `{op}`")
                value = text.evaluated_value
                if not isinstance(value, str):
                    raise self.error(text, f"`{source_of(text)}` is not a str constant")
                lhs, rhs = self.string_param(choice), ir.Const(value)
                return ir.BinOp(op, *((lhs, rhs) if choice is node.left else (rhs, lhs)))
        return ir.BinOp(op, self.lane_expr(node.left), self.lane_expr(c.comparator))

    def ex_boolop(self, node: cst.BooleanOperation) -> ir.Expr:
        # TVMScript reads `a and b` of conditions as T.And(a, b) (lane-wise), as below.
        op = "&" if isinstance(node.operator, cst.And) else "|"
        return ir.BinOp(
            op, self.lane_expr(node.left), self.lane_expr(node.right), loc=self.mod.locate(node)
        )

    def ex_call(self, node: cst.Call) -> ir.Expr:
        self.check_unsupported(node)
        name = self.mod.name_of(node.func)
        pos, kw = call_args(node)
        role = self.role(node.func)
        if role == "cast":
            return ir.Cast(self.lane_expr(pos[0]), self.dtype(kw.get("dtype", pos[1])))
        if role == "Cast":
            return ir.Cast(self.lane_expr(pos[1]), self.dtype(pos[0]))
        if role == "infinity":
            return ir.Const(math.inf)
        called = self.literal_dtype(node.func)
        if called is not None and len(pos) == 1 and not kw:
            # `T.float32(1.0)`: a value of that dtype (TileLang's layer-norm example).
            return ir.Cast(self.lane_expr(pos[0]), called)
        if role == "ceildiv":
            return ir.Call("cdiv", (self.lane_expr(pos[0]), self.lane_expr(pos[1])))
        if name in self.g["composites"]:
            return self.composite(self.g["composites"][name], node, pos)
        if self.g["pointwise"].get(name or "") == "where" and self.lane_bound(pos[0]):
            # `j < N` over a padded row: true on every lane the IR has.
            return self.lane_expr(pos[1])
        if self.g["pointwise"].get(name or "") == "where" and len(pos) == 3:
            load = self.guarded_load(*pos)
            if load is not None:
                return load
        if name in self.g["pointwise"]:
            op = self.g["pointwise"][name]
            return ir.Call(op, tuple(self.lane_expr(a) for a in pos), loc=self.mod.locate(node))
        if source_of(node.func) in ("min", "max"):
            op = "minimum" if source_of(node.func) == "min" else "maximum"
            return ir.Call(op, tuple(self.lane_expr(a) for a in pos))
        self.check_unsupported(node)  # says what to write instead, where it knows
        raise self.error(node, f"`{source_of(node.func)}` is not read in TileLang kernels")

    def lane_bound(self, node: cst.BaseExpression) -> bool:
        """Whether ``node`` is ``j < N``: a lane of a padded whole dim below its extent."""
        if not (isinstance(node, cst.Comparison) and len(node.comparisons) == 1):
            return False
        c = node.comparisons[0]
        if not isinstance(c.operator, cst.LessThan):
            return False
        lanes = [n for n, _ in self.lanes]
        lane = self.lane_of(node.left, lanes)
        if lane is None or lanes[lane[0]] not in self.padded_lanes:
            return False
        axis, offset = lane
        dim = self.lanes[axis][1]
        try:
            bound = self.scalar_expr(c.comparator)
        except TranslationError:
            return False
        if isinstance(dim, ir.FullDim):
            return offset is None and bound == dim.extent
        # `k * block_N + j < N`: the lanes of K-loop tile k inside its extent
        tile = self.tiles[dim.tile]  # type: ignore[union-attr]
        return offset is not None and self.is_tile_start(offset, tile) and bound == tile.extent

    def pad_of(self, node: cst.BaseExpression | None) -> float | None:
        """What ``node`` (an element expression) holds on the lanes past a padded row's end
        (``None``: not one known number; data lanes are finite but unknown)."""
        if node is None:
            return None
        if isinstance(node, (cst.Integer, cst.Float)):
            return float(node.evaluated_value)
        if isinstance(node, cst.Subscript):
            base = node.value
            names = {
                el.slice.value.value
                for el in node.slice
                if isinstance(el.slice, cst.Index) and isinstance(el.slice.value, cst.Name)
            }
            if not names & self.padded_lanes:
                return None
            if isinstance(base, cst.Name) and base.value in self.buffers:
                return self.buffers[base.value].pad
            return 0.0  # a global element past the edge reads the safe value 0
        if isinstance(node, cst.BinaryOperation):
            op = BINOPS.get(type(node.operator), "")
            return fold_pads(op, [self.pad_of(node.left), self.pad_of(node.right)])
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
            inner = self.pad_of(node.expression)
            return None if inner is None else -inner
        if isinstance(node, cst.Comparison):
            if self.lane_bound(node):
                return 0.0
            return None
        if isinstance(node, cst.Call):
            pos, kw = call_args(node)
            role = self.role(node.func)
            if role == "cast":
                return self.pad_of(pos[0])
            if role == "Cast":
                return self.pad_of(pos[1])
            if role == "infinity":
                return math.inf
            op = self.g["pointwise"].get(self.mod.name_of(node.func) or "")
            if op == "where" and self.lane_bound(pos[0]):
                return self.pad_of(pos[2])
            if op == "where" and len(pos) == 3 and self.guarded_load(*pos) is not None:
                return self.pad_of(pos[2])  # lanes outside the tensor read the other value
            if op is not None:
                return fold_pads(op, [self.pad_of(a) for a in pos])
        return None

    def composite(self, what: str, node: cst.Call, pos: list) -> ir.Expr:
        args = [self.lane_expr(a) for a in pos]
        if what == "isnan":
            return ir.BinOp("!=", args[0], args[0])
        if what in ("or", "and"):
            return ir.BinOp("|" if what == "or" else "&", args[0], args[1])
        raise self.error(node, f"`{source_of(node.func)}` is not read")


CST_OPS: dict[str, type] = {
    "+": cst.Add,
    "-": cst.Subtract,
    "*": cst.Multiply,
    "/": cst.Divide,
}

EXPRESSIONS: dict[type, Callable[[Expressions, cst.BaseExpression], ir.Expr]] = {
    cst.Name: Expressions.ex_name,
    cst.Integer: Expressions.ex_int,
    cst.Float: Expressions.ex_float,
    cst.BinaryOperation: Expressions.ex_binop,
    cst.UnaryOperation: Expressions.ex_unary,
    cst.Comparison: Expressions.ex_compare,
    cst.BooleanOperation: Expressions.ex_boolop,
    cst.Subscript: Expressions.ex_subscript,
    cst.Call: Expressions.ex_call,
}
