"""Helion expressions, indexing: subscripts of host tensors (``x[tile_m, :]``, ``x.shape[0]``)
and device tiles (``v[:, None]``), ``hl.load`` index lists, and the lanes of ``hl.arange`` tiles:
the ``extra_mask=`` an access through them carries, and the masking of a reduction or dot over
them.

A mixin of :class:`translator.dialects.helion.expressions.ExprBuilder`, which holds the state the
methods read (``self.scope``, ``self.pads``, ``self.device``...); split out so that each file
reads one part of an expression.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import libcst as cst

from translator.dialects.cst_utils import literal, source_of
from translator.ir import nodes as ir
from translator.ir.shapes import (
    ScalarType,
    TileType,
    TileVarType,
    dims_of,
    dtype_of,
    index_dims,
    infer,
)


class IndexReader:
    """Subscripts, index lists and lane masks, as IR index items and predicates."""

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
        if isinstance(base, cst.Name) and base.value in self.scope.permuted:
            return self._permuted_load(base.value, node)
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

    def _permuted_load(self, view: str, node: cst.Subscript) -> ir.Expr:
        """``y[i, j, k]`` of a reordered host view: the load of the tensor it reorders at the
        index in that tensor's order, permuted back into ``y``'s."""
        tensor, order = self.scope.permuted[view]
        index = self.index_items(view, node.slice, node)
        if len(index) != len(order) or any(isinstance(i, ir.NewAxis) for i in index):
            raise self.error(node, f"index every dim of `{view}` (a reordered view) once")
        items: list[ir.IndexItem] = [index[0]] * len(order)
        for d, source in enumerate(order):
            items[source] = index[d]
        load: ir.Expr = ir.Load(tensor, tuple(items), 0.0, loc=self.locate(node))
        self.check_lane_mask(load, None, node)  # type: ignore[arg-type]
        # The load's dims come in the tensor's order; the view's order reads them permuted.
        kept = [order[d] for d, i in enumerate(index) if not isinstance(i, ir.ScalarIndex)]
        ranked = sorted(kept)
        perm = tuple(ranked.index(k) for k in kept)
        if perm != tuple(range(len(perm))):
            load = ir.Permute(load, perm, loc=self.locate(node))
        return load

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
        shifted = self._shifted_tile(s)
        if shifted is not None:
            return shifted
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

    def _shifted_tile(self, s: cst.Slice) -> ir.IndexItem | None:
        """``t.begin + off : t.begin + off + t.block_size`` (through names bound once to its
        bounds, as fused SwiGLU GEMMs read the second half of a concatenated weight): the lanes
        of tile ``t`` shifted by ``off``, a gather of ``t.index + off`` (masked where ``t``'s
        lanes are); ``None`` for any other slice."""
        if s.step is not None or s.lower is None or s.upper is None:
            return None
        lower = self._through_scalars(self.expr(s.lower))
        upper = self._through_scalars(self.expr(s.upper))
        begin = _tile_begin_plus(lower)
        if begin is None:
            return None
        tile, offset = begin
        width = ir.TileAttr(tile, "block_size")
        if upper not in (ir.BinOp("+", lower, width), ir.BinOp("+", width, lower)):
            return None
        if not self._host_scalar(offset, s.lower):
            return None
        return ir.GatherIndex(ir.BinOp("+", ir.TileAttr(tile, "index"), offset))

    def _through_scalars(self, e: ir.Expr, depth: int = 0) -> ir.Expr:
        """``e`` with the device scalars it names replaced by their values (locations dropped,
        so that equal expressions compare equal)."""
        if depth > 16:
            return e
        if isinstance(e, ir.Name) and e.id in self.scope.device_scalars:
            return self._through_scalars(self.scope.device_scalars[e.id], depth + 1)
        if isinstance(e, ir.BinOp):
            return ir.BinOp(
                e.op,
                self._through_scalars(e.lhs, depth + 1),
                self._through_scalars(e.rhs, depth + 1),
            )
        if isinstance(e, ir.TileAttr):
            return ir.TileAttr(e.tile, e.attr)
        if isinstance(e, ir.Name):
            return ir.Name(e.id)
        return e

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
            # The IR's stores have no predicate. `torch.where(mask, v, 0)` is no substitute
            # where the masked lanes' indices reach other rows (a jagged row's flat indices
            # past its length): it would overwrite them.
            raise self.error(
                mask_node,
                "extra_mask= on a store is read only as the validity of the lanes of a "
                "strided tile loop: the IR's stores take no other predicate",
                "store through tiles whose bounds are the region (walk each row's own range: "
                "`for tile_k in hl.tile(start, end)` inside `hl.grid(n)`), or, where every "
                "masked lane's index is in the output's own region, select the stored value "
                "with torch.where",
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


def _tile_begin_plus(e: ir.Expr) -> tuple[str, ir.Expr] | None:
    """``(t, off)`` for ``t.begin + off`` (either order), else ``None``."""
    if not (isinstance(e, ir.BinOp) and e.op == "+"):
        return None
    for a, b in ((e.lhs, e.rhs), (e.rhs, e.lhs)):
        if isinstance(a, ir.TileAttr) and a.attr == "begin":
            return a.tile, b
    return None


def _conjuncts(e: ir.Expr) -> list[ir.Expr]:
    if isinstance(e, ir.BinOp) and e.op in ("&", "and"):
        return _conjuncts(e.lhs) + _conjuncts(e.rhs)
    return [e]


def _strip_expands(e: ir.Expr) -> ir.Expr:
    while isinstance(e, ir.ExpandDims):
        e = e.value
    return e


def _index_source(element: Any) -> str:
    """One index of a subscript or an ``hl.load`` index list, as written."""
    node = element.slice if isinstance(element, cst.SubscriptElement) else element
    return source_of(node.value if isinstance(node, cst.Index) else node)
