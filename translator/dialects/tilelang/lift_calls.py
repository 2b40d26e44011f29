"""The TileLang lifter's ``T.*`` statement calls (``T.copy``, ``T.gemm``, ``T.reduce_*``, ``T.cumsum``,
``T.atomic_add``, hints): one handler per call in :data:`STATEMENTS`, mixed into
:class:`~translator.dialects.tilelang.frontend.KernelLifter`."""

from __future__ import annotations

import math
from collections.abc import Callable

import libcst as cst

from translator.dialects.cst_utils import (
    call_args,
    source_of,
)
from translator.dialects.tilelang.model import (
    REDUCE_COMBINE,
    Buffer,
    block_text,
    offset_start,
    strided_start,
)
from translator.grammar import load_grammar
from translator.ir import nodes as ir
from translator.ir.shapes import dot_precision


class TileCalls:
    """Handlers of the ``T.*`` calls a kernel body makes as statements."""

    def s_copy(self, call: cst.Call) -> list[ir.Stmt]:
        # T.copy's keywords (`disable_tma=`, `eviction_policy=`, `coalesced_width=`) steer how
        # TileLang lowers the copy, not what it copies: they are not read.
        pos, _ = call_args(call)
        if len(pos) != 2:
            raise self.error(call, "T.copy(src, dst) is read")
        src, dst = (self.whole_region(node) for node in pos)
        if isinstance(src, cst.Subscript) and self.is_tensor(src.value):
            buf = self.buffer(dst)
            items = self.region(src, buf)
            load = ir.Load(src.value.value, items, 0.0, loc=self.mod.locate(call))  # type: ignore[union-attr]
            return [self.assign(buf, load, call, 0.0)]
        if isinstance(dst, cst.Subscript) and self.is_tensor(dst.value):
            buf = self.buffer(src)
            tensor = dst.value.value  # type: ignore[union-attr]
            items = self.region(dst, buf)
            value: ir.Expr = self.contents(buf, src)
            region = tuple(i for i in items if not isinstance(i, ir.NewAxis))
            if len(region) != len(items):
                value = ir.Reshape(
                    value, tuple(d for d in buf.dims if not isinstance(d, ir.UnitDim))
                )
            value = self.convert(value, ir.DTypeOf(tensor))
            return [ir.Store(tensor, region, value, loc=self.mod.locate(call))]
        if isinstance(src, cst.Name) and isinstance(dst, cst.Name):
            a, b = self.buffer(src), self.buffer(dst)
            if a.dims != b.dims:
                raise self.error(call, "T.copy between buffers of different shapes")
            return [self.assign(b, self.contents(a, src), call, a.pad)]
        raise self.error(
            call,
            "T.copy between a tensor region `A[i0, i1]` and a buffer, or two buffers, is read",
        )

    def is_tensor(self, node: cst.BaseExpression) -> bool:
        return isinstance(node, cst.Name) and node.value in self.fac.tensors

    def whole_region(self, node: cst.BaseExpression) -> cst.BaseExpression:
        """A whole tensor copied as it is (``T.copy(gamma, G_smem)``, TileLang's layer-norm
        example) as the region starting at its origin (``gamma[0]``); anything else as written."""
        if not self.is_tensor(node):
            return node
        shape, _ = self.fac.tensors[node.value]  # type: ignore[union-attr]
        origin = [cst.SubscriptElement(cst.Index(cst.Integer("0"))) for _ in shape]
        return cst.Subscript(node, origin) if origin else node

    def region(self, sub: cst.Subscript, buf: Buffer) -> tuple[ir.IndexItem, ...]:
        """The index of a tensor region copied to or from ``buf``: aligned with the buffer from
        the right, leading indices scalars."""
        if any(isinstance(el.slice, cst.Slice) for el in sub.slice):
            return self.sliced_region(sub, buf)
        starts = []
        for el in sub.slice:
            if not isinstance(el.slice, cst.Index):
                raise self.error(el, "a region is written by its start indices (`A[i, j]`)")
            starts.append(el.slice.value)
        lead = len(starts) - len(buf.dims)
        if lead < 0:
            raise self.error(sub, f"`{buf.name}` has more dims than `{source_of(sub.value)}`")
        items: list[ir.IndexItem] = []
        for start in starts[:lead]:
            items.append(ir.ScalarIndex(self.scalar_expr(start)))
        for start, d in zip(starts[lead:], buf.dims):
            items.append(self.region_item(start, d))
        return tuple(items)

    def sliced_region(self, sub: cst.Subscript, buf: Buffer) -> tuple[ir.IndexItem, ...]:
        """A region written with slices (``Q[bz, bx * BM:(bx + 1) * BM, by, :]``): each slice
        is one of the buffer's dims in order, each index a scalar."""
        items: list[ir.IndexItem] = []
        dims = list(buf.dims)
        for el in sub.slice:
            s = el.slice
            if isinstance(s, cst.Index):
                items.append(ir.ScalarIndex(self.scalar_expr(s.value)))
                continue
            assert isinstance(s, cst.Slice)
            if not dims:
                raise self.error(el, f"the region has more sliced dims than `{buf.name}`")
            d = dims.pop(0)
            if s.step is not None:
                raise self.error(el, "strided regions are not read")
            if s.lower is None and s.upper is None:
                if not isinstance(d, ir.FullDim):
                    raise self.error(el, f"`:` spans a whole dim, `{buf.name}`'s dim is a tile")
                items.append(ir.FullIndex(d.extent))
                continue
            lower = s.lower if s.lower is not None else cst.Integer("0")
            item = self.region_item(lower, d)
            if s.upper is not None and isinstance(d, ir.BlockDim):
                tile = self.tiles[d.tile]
                want = f"({tile.name} + 1) * {block_text(tile)}"
                if source_of(s.upper).replace(" ", "") != want.replace(" ", ""):
                    raise self.error(
                        s.upper, f"the slice must end at `{want}` (one block of `{tile.name}`)"
                    )
            items.append(item)
        if dims:
            raise self.error(sub, f"the region has fewer sliced dims than `{buf.name}`")
        return tuple(items)

    def region_item(self, start: cst.BaseExpression, d: ir.Dim) -> ir.IndexItem:
        if isinstance(d, ir.BlockDim) and d.tile in self.inner_ends:
            end = self.inner_ends[d.tile]
            raise self.error(
                start,
                f"a region of `{d.tile}`, whose loop ends at `{end}` inside the tensor (a value "
                "the kernel computes): T.copy and T.atomic_add clip at the tensor's edge only, "
                f"so they would reach rows past `{end}`",
                f"access its lanes in a T.Parallel loop guarded by `<index> < {end}`",
            )
        if isinstance(d, ir.BlockDim):
            tile = self.tiles[d.tile]
            if self.is_tile_start(start, tile):
                return ir.TileIndex(tile.name)
            raise self.error(
                start,
                f"the region start `{source_of(start)}` is not `{tile.name} * {block_text(tile)}`",
                "start a tiled region at its tile index times the block size",
            )
        if isinstance(d, ir.FullDim):
            if isinstance(start, cst.Integer) and start.value == "0":
                return ir.FullIndex(d.extent)
            raise self.error(start, "a whole-dim region starts at 0")
        raise self.error(
            start,
            f"the region start `{source_of(start).strip()}` of a dim the buffer holds one lane "
            "of: tiletrans reads regions of tiled dims (a tile index times its block) and "
            "whole dims (from 0), not single rows",
            "copy a block of rows into a buffer shaped by the block size "
            "(`T.alloc_shared((blk_m, D))`, `T.copy(X[bx * blk_m, 0], X_smem)`: rows past the "
            "tensor's end read 0), or read the row element-wise in a T.Parallel loop",
        )

    def is_tile_start(self, node: cst.BaseExpression, tile: ir.TileVar) -> bool:
        """Whether ``node`` is where the current tile of ``tile`` starts in its dim, as
        tiletrans writes it: ``ko * block``, ``begin + ko * block`` of a loop from ``begin``,
        ``(ko * S + bz) * block`` of a split-K loop, or a name bound once to one of them."""
        node = self.written_out(node)
        if tile.name in self.begins:
            block = cst.parse_expression(block_text(tile))
            return offset_start(node, self.begins[tile.name], tile.name, block)
        if not (isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply)):
            return False
        if tile.name in self.strided:
            found = strided_start(node, tile.name)
            return (
                found is not None
                and (
                    source_of(found[0]).strip(),
                    source_of(found[1]).strip(),
                )
                == self.strided[tile.name]
            )
        block = block_text(tile)
        a, b = self.spelt(node.left), self.spelt(node.right)
        return {a, b} == {tile.name, block} or (a == b == tile.name == block)

    def spelt(self, node: cst.BaseExpression) -> str:
        """``node`` as written, a factory local that names a parameter or a literal read
        through (`BM, GS = blk_m, 64`: `bx * BM` starts a tile of `blk_m`), a module constant
        as its number."""
        seen: set[str] = set()
        while (
            isinstance(node, cst.Name)
            and node.value in self.fac.locals
            and node.value not in seen
            and isinstance(self.fac.locals[node.value], (cst.Name, cst.Integer))
        ):
            seen.add(node.value)
            node = self.fac.locals[node.value]
        if (
            isinstance(node, cst.Name)
            and node.value in self.mod.module_ints
            and node.value not in self.fac.params
            and node.value not in self.fac.locals
        ):
            return str(self.mod.module_ints[node.value])  # a module constant block (`block_of`)
        return source_of(node).strip()

    def scalar_expr(self, node: cst.BaseExpression) -> ir.Expr:
        saved, self.lanes = self.lanes, []
        try:
            return self.lane_expr(node)
        finally:
            self.lanes = saved

    def s_clear(self, call: cst.Call) -> list[ir.Stmt]:
        pos, _ = call_args(call)
        buf = self.buffer(pos[0])
        return [self.assign(buf, ir.Full(buf.dims, ir.Const(0.0), buf.dtype), call, 0.0)]

    def s_fill(self, call: cst.Call) -> list[ir.Stmt]:
        pos, kw = call_args(call)
        buf = self.buffer(pos[0])
        node = kw.get("value", pos[1] if len(pos) > 1 else None)
        value = self.scalar_expr(node)
        return [self.assign(buf, ir.Full(buf.dims, value, buf.dtype), call, self.pad_of(node))]

    def s_gemm(self, call: cst.Call) -> list[ir.Stmt]:
        pos, kw = call_args(call)
        names = ("A", "B", "C", "transpose_A", "transpose_B", "policy", "clear_accum", "k_pack")
        args = dict(zip(names, pos))
        args.update(kw)
        for key in args:
            if key not in (*names, "wg_wait"):
                raise self.error(call, f"T.gemm's `{key}=` is not read")
        a, b, c = (self.buffer(args[k]) for k in ("A", "B", "C"))
        lhs: ir.Expr = self.contents(a, args["A"])
        rhs: ir.Expr = self.contents(b, args["B"])
        if self.flag(args.get("transpose_A")):
            lhs = ir.Permute(lhs, (1, 0))
        if self.flag(args.get("transpose_B")):
            rhs = ir.Permute(rhs, (1, 0))
        acc = None if self.flag(args.get("clear_accum")) else self.contents(c, args["C"])
        # An operand copied from global memory holds 0 past K, so those lanes add 0 times the
        # other operand's: the dot leaves them out (masked) as long as that one is finite there
        # (a pad computed from 0s: a dequantised weight, an exp).
        zero = a.name in self.loaded or b.name in self.loaded or 0.0 in (a.pad, b.pad)
        # T.gemm of float32 operands is a tf32 MMA (no knob; grammars/tilelang.toml).
        precision = dot_precision(
            a.dtype,
            b.dtype,
            load_grammar("tilelang")["backend"]["kernel"]["dot_precision"],
        )
        dot = ir.Dot(
            lhs, rhs, acc, c.dtype, masked=zero, precision=precision, loc=self.mod.locate(call)
        )
        return [self.assign(c, dot, call)]

    def flag(self, node: cst.BaseExpression | None) -> bool:
        if node is None:
            return False
        if isinstance(node, cst.Name) and node.value in ("True", "False"):
            return node.value == "True"
        raise self.error(node, "a literal True/False is needed here")

    def s_reduce(self, call: cst.Call, op: str) -> list[ir.Stmt]:
        pos, kw = call_args(call)
        src, dst = self.buffer(pos[0]), self.buffer(pos[1])
        dim_node = kw.get("dim", pos[2] if len(pos) > 2 else None)
        axis = -1 if dim_node is None else int(self.scalar_const(dim_node))
        axis = axis % len(src.dims)
        clear = kw.get("clear", pos[3] if len(pos) > 3 else None)
        # A whole-dim buffer has no lanes past its extent: masked or not is one meaning, and
        # masked is what every target can write. Along a block, every lane takes part as it
        # holds (a T.copy padded it with 0).
        whole = isinstance(src.dims[axis], ir.FullDim)
        identity = {"sum": 0.0, "max": -math.inf, "min": math.inf}[op]
        if src.padded and src.padded[axis] and src.pad == identity:
            whole = True  # the lanes past the extent hold the identity: masked or not is one
        elif src.padded and src.padded[axis] and whole and src.pad != identity:
            held = "values the frontend cannot name" if src.pad is None else f"{src.pad}"
            raise self.error(
                call,
                f"`{src.name}`'s lanes past the row's end hold {held}, not the identity "
                f"{identity} of the {op} this reduces them with",
                f"write them as T.if_then_else(j < N, value, {identity}) before reducing",
            )
        value: ir.Expr = ir.Reduce(
            op, self.contents(src, pos[0]), axis, masked=whole, loc=self.mod.locate(call)
        )
        if len(dst.dims) == len(src.dims):
            value = ir.ExpandDims(value, axis)
        if clear is not None and not self.flag(clear):
            combine = REDUCE_COMBINE[op]
            old = self.contents(dst, pos[1])
            value = self.convert(value, dst.dtype)
            value = (
                ir.BinOp(combine, old, value) if combine == "+" else ir.Call(combine, (old, value))
            )
        return [self.assign(dst, value, call)]

    def s_reduce_sum(self, call: cst.Call) -> list[ir.Stmt]:
        return self.s_reduce(call, "sum")

    def s_reduce_max(self, call: cst.Call) -> list[ir.Stmt]:
        return self.s_reduce(call, "max")

    def s_reduce_min(self, call: cst.Call) -> list[ir.Stmt]:
        return self.s_reduce(call, "min")

    def s_cumsum(self, call: cst.Call) -> list[ir.Stmt]:
        pos, kw = call_args(call)
        src = self.buffer(pos[0])
        dst_node = kw.get("dst", pos[1] if len(pos) > 1 else None)
        dst = self.buffer(dst_node) if dst_node is not None else src
        dim_node = kw.get("dim", pos[2] if len(pos) > 2 else None)
        axis = 0 if dim_node is None else int(self.scalar_const(dim_node))
        if kw.get("reverse") is not None and self.flag(kw["reverse"]):
            raise self.error(call, "reverse scans are not read", "scan forward")
        scan = ir.Scan(
            "sum", self.contents(src, pos[0]), axis % len(src.dims), loc=self.mod.locate(call)
        )
        return [self.assign(dst, scan, call)]

    def s_atomic_add(self, call: cst.Call) -> list[ir.Stmt]:
        pos, kw = call_args(call)
        dst, value = pos[0], kw.get("value", pos[1] if len(pos) > 1 else None)
        if not (isinstance(dst, cst.Subscript) and self.is_tensor(dst.value)) or value is None:
            raise self.error(call, "T.atomic_add(C[region], value) into a global tensor is read")
        tensor = dst.value.value  # type: ignore[union-attr]
        if isinstance(value, cst.Name) and value.value in self.buffers and not self.lanes:
            buf = self.buffers[value.value]
            items = self.region(dst, buf)
            v = self.convert(self.contents(buf, value), ir.DTypeOf(tensor))
            return [ir.AtomicRMW("add", tensor, items, v, loc=self.mod.locate(call))]
        items, order = self.global_items(dst)
        self.check_inner_ends(dst, items, order, self.guards)
        if order != list(range(len(order))):
            raise self.error(dst, "an atomic's lanes must follow the loop's order")
        v = self.convert(self.lane_expr(value), ir.DTypeOf(tensor))
        return [ir.AtomicRMW("add", tensor, items, v, loc=self.mod.locate(call))]

    def s_hint(self, call: cst.Call) -> list[ir.Stmt]:
        return []  # T.annotate_*... that do not change results

    def s_swizzle(self, call: cst.Call) -> list[ir.Stmt]:
        """``T.use_swizzle(panel_size)``: panels of ``panel_size`` rows of tiles, the IR's
        ``group_size`` tunable (Triton's ``GROUP_SIZE_M``). A hint: the column and MLX orders,
        and a swizzle its ``enable=`` turns off, are dropped; no result depends on the order."""
        args, kw = call_args(call)
        size = kw.get("panel_size", args[0] if args else None)
        order = kw.get("order", args[1] if len(args) > 1 else None)
        enable = kw.get("enable", args[2] if len(args) > 2 else None)
        if order is not None and not (
            isinstance(order, cst.SimpleString) and order.evaluated_value == "row"
        ):
            return []
        if enable is not None and not self._flag_on(enable):
            return []
        if "group_size" in self.tunables or size is None:
            return []
        if isinstance(size, cst.Name) and size.value in self.fac.params:
            if self.int_value(size) is None or size.value in self.tunables:
                return []  # a panel of no known size, or a block size: the hint is dropped
            self.tunable(size.value, "group_size", size)
            self.tunables["group_size"] = self.tunables.pop(size.value)
            self.factory_param["group_size"] = size.value
            return []
        value = self.int_value(size)
        if value is not None and value > 0:
            self.tunables["group_size"] = ir.Tunable("group_size", "group_size", value)
        return []

    def _flag_on(self, node: cst.BaseExpression) -> bool:
        """Whether ``node`` is ``True`` or a factory parameter whose default is ``True``."""
        if isinstance(node, cst.Name) and node.value in self.fac.params:
            node = self.fac.defaults.get(node.value, node)
        return isinstance(node, cst.Name) and node.value == "True"


STATEMENTS: dict[str, Callable[[TileCalls, cst.Call], list[ir.Stmt]]] = {
    "copy": TileCalls.s_copy,
    "clear": TileCalls.s_clear,
    "fill": TileCalls.s_fill,
    "gemm": TileCalls.s_gemm,
    "reduce_sum": TileCalls.s_reduce_sum,
    "reduce_max": TileCalls.s_reduce_max,
    "reduce_min": TileCalls.s_reduce_min,
    "cumsum": TileCalls.s_cumsum,
    "atomic_add": TileCalls.s_atomic_add,
    "use_swizzle": TileCalls.s_swizzle,
}
