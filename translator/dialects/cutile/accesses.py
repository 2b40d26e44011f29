"""cuTile frontend, memory accesses: ``ct.load``/``ct.store`` regions, gathers, scatters,
atomics and the lane masks they carry, read into IR loads and stores.

A mixin of :class:`translator.dialects.cutile.frontend.KernelLifter`, which holds the state the
methods read (``self.mod``, ``self.tiles``, ``self.tensors``...); split out so that each file
reads one part of a kernel.
"""

from __future__ import annotations

import math

import libcst as cst

from translator.dialects.cst_utils import (
    call_args,
    source_of,
)
from translator.ir import nodes as ir
from translator.ir.shapes import (
    dims_of,
    index_dims,
    infer,
)
from translator.ir.visit import walk_expr


def _non_negative(e: ir.Expr, reader: AccessReader) -> bool:
    """Whether integer lanes ``e`` are provably >= 0: lanes of a dim plus literals >= 0."""
    e = reader.named(e)
    if isinstance(e, ir.Arange):
        return True
    if isinstance(e, ir.Const):
        return isinstance(e.value, int) and e.value >= 0
    if isinstance(e, ir.BinOp) and e.op == "+":
        return _non_negative(e.lhs, reader) and _non_negative(e.rhs, reader)
    return False


_PADS = {"ZERO": 0.0, "NEG_ZERO": -0.0, "NAN": math.nan, "POS_INF": math.inf, "NEG_INF": -math.inf}


class AccessReader:
    """How a cuTile kernel reads and writes memory, as IR accesses."""

    def viewed(self, call: cst.Call, array: str, index: cst.Tuple) -> str:
        """The kernel array that ``array`` (perhaps a view ``x.slice(...)``) reads."""
        return self.views[array].tensor if array in self.views else array

    def check_view(self, call: cst.Call, array: str, items: tuple[ir.IndexItem, ...]) -> None:
        """A view's sliced axis is indexed by a loop over its rows, and such a loop's tile
        indexes only views of those rows (what the IR's loop from ``start`` means)."""
        view = self.views.get(array)
        axis = 0
        for item in items:
            if isinstance(item, ir.NewAxis):
                continue
            on_view_axis = view is not None and axis == view.axis
            if isinstance(item, ir.TileIndex) and item.tile in self.sliced:
                start, stop = self.sliced[item.tile]
                if not on_view_axis or (self.expr(view.start), self.expr(view.stop)) != (
                    start,
                    stop,
                ):
                    raise self.mod.error(
                        call,
                        f"tile `{item.tile}` counts the tiles of rows from an offset: it indexes "
                        "a view of those rows along the sliced axis only",
                        "load and store through `x.slice(axis=..., start=..., stop=...)`",
                    )
            elif on_view_axis:
                raise self.mod.error(
                    call,
                    f"the view `{array}` is read along its sliced axis by a loop over its rows "
                    "(`range(ct.cdiv(stop - start, TILE))`) only",
                )
            axis += 1

    def whole_index(self, const: str, array: str, dim: int) -> ir.FullIndex:
        """A whole dim read through constant ``const``: every such dim shares the extent of
        the first (one size class), and the launch must give them one size (checked)."""
        tensor, d = self.whole[const]
        if (tensor, d) != (array, dim):
            self.same_sizes.append((tensor, d, array, dim))
        return ir.FullIndex(ir.SizeOf(tensor, d))

    def region(
        self,
        call: cst.Call,
        array: str,
        index: cst.Tuple,
        shape: cst.Tuple | None,
        value_dims: tuple[ir.Dim, ...] | None = None,
    ) -> tuple[ir.IndexItem, ...]:
        items: list[ir.IndexItem] = []
        sizes = [e.value for e in shape.elements] if shape is not None else None
        for dim, el in enumerate(index.elements):
            item = el.value
            size = sizes[dim] if sizes is not None else None
            vdim = value_dims[dim] if value_dims and dim < len(value_dims) else None
            if size is None and isinstance(vdim, ir.FullDim):
                if not (isinstance(item, cst.Integer) and item.value == "0"):
                    raise self.mod.error(item, "a whole-dim tile is stored at index 0 only")
                ext = vdim.extent
                if isinstance(ext, ir.SizeOf) and (ext.tensor, ext.dim) != (array, dim):
                    self.same_sizes.append((ext.tensor, ext.dim, array, dim))
                items.append(ir.FullIndex(ext))
                continue
            if isinstance(item, cst.Name) and item.value in self.tiles:
                tile = self.tiles[item.value]
                block = str(tile.block.value) if isinstance(tile.block, ir.Const) else tile.block
                if tile.scalar:
                    items += [ir.NewAxis(), ir.ScalarIndex(ir.Name(tile.name))]
                elif size is None or source_of(size) == block:
                    items.append(ir.TileIndex(tile.name))
                else:
                    raise self.mod.error(
                        item, f"tile `{item.value}` indexed with tile size `{source_of(size)}`"
                    )
            elif isinstance(size, cst.Name) and size.value in self.whole:
                if not (isinstance(item, cst.Integer) and item.value == "0"):
                    raise self.mod.error(item, "a whole-dim tile is read at index 0 only")
                items.append(self.whole_index(size.value, array, dim))
            elif size is None or (isinstance(size, cst.Integer) and size.value == "1"):
                items += [ir.NewAxis(), ir.ScalarIndex(self.expr(item))]
            else:
                raise self.mod.error(
                    item,
                    f"the index `{source_of(item)}` of a tile of size `{source_of(size)}` is no "
                    "tile variable",
                    "index tiles with ct.bid(...) values or loop counters",
                )
        return tuple(items)

    def load(self, call: cst.Call) -> ir.Expr:
        pos, kw = call_args(call)
        array, index = pos[0], kw.get("index", pos[1] if len(pos) > 1 else None)
        shape = kw.get("shape", pos[2] if len(pos) > 2 else None)
        if scalar_load(index, shape):
            return self.element_load(call, array, index, kw)
        assert isinstance(array, cst.Name) and isinstance(index, cst.Tuple)
        assert isinstance(shape, cst.Tuple)
        other: float | None = None
        mode = kw.get("padding_mode")
        if isinstance(mode, cst.Name) and mode.value in self.mod.module_values:
            mode = self.mod.module_values[mode.value]  # TileGym's `PAD_ZERO = ct.PaddingMode.ZERO`
        if mode is not None:
            member = source_of(mode).rsplit(".", 1)[-1]
            if member not in _PADS and member != "UNDETERMINED":
                raise self.mod.error(mode, f"padding mode `{source_of(mode)}` is not read")
            other = _PADS.get(member)
        for key in kw:
            if key not in ("index", "shape", "padding_mode", "latency", "allow_tma", "order"):
                raise self.mod.error(call, f"ct.load's `{key}=` is not read")
        if "order" in kw:
            self.check_order(kw["order"], len(shape.elements))
        tensor = self.viewed(call, array.value, index)
        items = self.region(call, tensor, index, shape)
        self.check_view(call, array.value, items)
        return ir.Load(tensor, items, other, loc=self.mod.locate(call))

    def check_order(self, order: cst.BaseExpression, rank: int) -> None:
        """``ct.load(..., order=...)`` maps the tile's axes to the array's: read where that is
        the identity (``"C"``, ``(0, 1, ..., rank - 1)``, or ``"F"`` of a 1-d tile), the load
        as written; a permuting order is refused at it."""
        identity = tuple(range(rank))
        if isinstance(order, cst.SimpleString):
            text = order.evaluated_value
            if text == "C" or (text == "F" and rank == 1):
                return
        elif isinstance(order, cst.Tuple) and [source_of(e.value) for e in order.elements] == [
            str(axis) for axis in identity
        ]:
            return
        raise self.mod.error(
            order,
            f"ct.load's `order={source_of(order)}` is not read: only the identity order "
            f'(`"C"` or `{identity}`), which loads the tile as the array lays it out, is read',
            "load in the array's order and permute the tile (`ct.permute(ct.load(x, (i, j), "
            "shape=(BM, BN)), (1, 0))`)",
        )

    def element_load(
        self, call: cst.Call, array: cst.BaseExpression, index: cst.BaseExpression, kw: dict
    ) -> ir.Expr:
        """``ct.load(x, i, shape=())`` (or ``(i, j)``): the element at those indices, a 0-d
        value (a scale or a count stored in a one-element tensor)."""
        if not isinstance(array, cst.Name) or array.value in self.views:
            raise self.mod.error(call, "a one-element ct.load reads a kernel array by its name")
        for key in kw:
            if key not in ("index", "shape", "latency"):
                raise self.mod.error(call, f"ct.load's `{key}=` is not read with shape=()")
        elements = [e.value for e in index.elements] if isinstance(index, cst.Tuple) else [index]
        items = tuple(ir.ScalarIndex(self.expr(e)) for e in elements)
        return ir.Load(array.value, items, None, loc=self.mod.locate(call))

    def store(self, call: cst.Call) -> ir.Stmt:
        pos, kw = call_args(call)
        array, index = pos[0], kw.get("index", pos[1] if len(pos) > 1 else None)
        tile = kw.get("tile", pos[2] if len(pos) > 2 else None)
        if not isinstance(array, cst.Name) or not isinstance(index, cst.Tuple) or tile is None:
            raise self.mod.error(call, "ct.store(array, index=(...), tile=value) is read")
        value = self.expr(tile)
        t = infer(value, self.env)
        dims = dims_of(t)
        view, tensor = array.value, self.viewed(call, array.value, index)
        array = cst.Name(tensor)
        items = self.region(
            call, tensor, index, None, dims if len(dims) == len(index.elements) else None
        )
        self.check_view(call, view, items)
        # cuTile's store takes the value in the region's own shape: a reshape that only adds the
        # unit dims of scalar indices says nothing the IR's index does not.
        if isinstance(value, ir.Reshape):
            value = value.value
        if isinstance(value, ir.Cast) and value.dtype == ir.DTypeOf(array.value):
            value = ir.Cast(value.value, ir.DTypeOf(array.value))
        items = tuple(i for i in items if not isinstance(i, ir.NewAxis))
        region = index_dims(array.value, items, self.env, self.mod.locate(call))
        if dims and len(dims) != len(region):
            # cuTile keeps the unit dims of scalar indices; the IR's region drops them.
            value = ir.Reshape(value, region)
        return ir.Store(array.value, items, value, loc=self.mod.locate(call))

    def gather(self, call: cst.Call) -> ir.Expr:
        """``ct.gather(x, indices, padding_value=..., mask=...)``: a tile load where the indices
        are a tile's lanes, a whole dim's or a row's (cuTile's bounds check is then the IR's
        lane validity), else a gather (see :meth:`element_index`)."""
        pos, kw = call_args(call)
        array, idx = pos[0], pos[1]
        if not isinstance(array, cst.Name):
            raise self.mod.error(call, "ct.gather from a named array is read")
        for key in kw:
            if key not in ("padding_value", "mask", "check_bounds", "latency"):
                raise self.mod.error(call, f"ct.gather's `{key}=` is not read")
        pad = kw.get("padding_value")
        other = float(self.const(pad)) if pad is not None else 0.0
        if not isinstance(idx, cst.Tuple):
            value = self.expr(idx)
            if not dims_of(infer(value, self.env)):
                return self.scalar_gather(array.value, value, kw, call)
        items, bounds = self.element_index(call, array.value, idx, False, _checked(kw))
        predicate = None
        if "mask" in kw:
            region = index_dims(array.value, items, self.env, self.mod.locate(call))
            predicate = self.predicate(kw["mask"], region)
        if predicate is not None and bounds is not None:
            # A lane is read where the mask and cuTile's bounds check both let it.
            predicate = ir.BinOp("&", predicate, bounds)
        load = ir.Load(
            array.value, items, other, mask=predicate or bounds, loc=self.mod.locate(call)
        )
        if bounds is not None:
            self.shifted_loads[id(load)] = call
        return load

    def element_index(
        self,
        call: cst.Call,
        array: str,
        idx: cst.BaseExpression,
        store: bool,
        checked: bool = True,
    ) -> tuple[tuple[ir.IndexItem, ...], ir.Expr | None]:
        """The IR index of a gather's or scatter's ``indices`` (one per dim of ``array``) and,
        for a gather, the bounds predicate it needs (else None).

        * ``t * TILE + ct.arange(TILE)``: the lanes of tile ``t`` (``TileIndex``); cuTile's
          bounds check leaves out the lanes past the array's extent, the IR the lanes past the
          tile's, which is that extent (or one the launch must make equal: ``SAME_SIZES``);
        * a scalar (a block id, ``row``): that element (``ScalarIndex``);
        * ``ct.arange(C)`` where ``C`` covers this dim: the whole dim (``FullIndex``);
        * other integer lanes (``ct.arange(C) + K``, data): a gather of those indices
          (``GatherIndex``). Where they are built from a whole dim's lanes, a gather reads only
          the in-bounds ones (``mask=``), as cuTile's bounds check does.

        With ``check_bounds=False`` (``checked`` false) the kernel says every lane it does not
        mask is inside the array, which is what the IR's index says: no bounds predicate, and
        lanes computed any way are read, stores' too (what tiletrans's cuTile backend writes).

        Several dims of lanes broadcast against each other, each spread over its own axes of
        the result in order (``(rows[:, None], cols[None, :])``): the IR's index items, whose
        dims follow one another, say the same.
        """
        elements = [e.value for e in idx.elements] if isinstance(idx, cst.Tuple) else [idx]
        values = [self.expr(element) for element in elements]
        rank = max((len(dims_of(infer(v, self.env))) for v in values), default=0)
        items: list[ir.IndexItem] = []
        bounds: ir.Expr | None = None
        lanes = 0
        for dim, (element, spread) in enumerate(zip(elements, values)):
            if not dims_of(infer(spread, self.env)):
                items.append(ir.ScalarIndex(spread))
                continue
            value = self.unspread(element, spread, lanes, rank)
            lifted = self.named(value)
            dims = dims_of(infer(value, self.env))
            lanes += len(dims)
            if isinstance(lifted, ir.TileAttr) and lifted.attr == "index":
                tile = self.tiles[lifted.tile]
                size = ir.SizeOf(array, dim)
                if checked and (store or tile.extent == size):
                    self.same_extent(tile.extent, array, dim)
                elif checked and self.is_extent(tile.extent, size):
                    # A loop over `n_cols` the launch passes for this dim (Liger's chunk
                    # loops): the tile's lanes are the array's, checked at every launch.
                    pass
                elif checked:
                    # A gather at the lanes of a tile over another dim (one half of a
                    # concatenation): cuTile's bounds check pads the lanes past this array's
                    # extent, which the IR says with a predicate rather than a launch check.
                    inside = ir.BinOp("<", spread, size)
                    bounds = inside if bounds is None else ir.BinOp("&", bounds, inside)
                items.append(ir.TileIndex(tile.name))
                continue
            if isinstance(lifted, ir.Arange) and isinstance(lifted.dim, ir.FullDim):
                extent = lifted.dim.extent
                if extent == ir.SizeOf(array, dim) or store:
                    # Stores decide the whole dim's extent (the prescan); a second array stored
                    # at the same lanes must be as wide (checked at every launch).
                    self.same_extent(extent, array, dim)
                    items.append(ir.FullIndex(extent))
                    continue
            data = self.reads_memory(value) or not checked
            if store and not data:
                raise self.mod.error(
                    element,
                    "a ct.scatter at lanes computed otherwise than a tile's or a whole dim's "
                    "is not read: cuTile's bounds check would leave out lanes the IR's store "
                    "writes",
                    "scatter at `ct.arange(C)` of the stored array's dim, or at a tile's "
                    "lanes `t * TILE + ct.arange(TILE)`",
                )
            if not store and not data:
                # Lanes computed from a tile's or a whole dim's (`ct.arange(C) + K`, a shifted
                # tile): those past the array's bounds read the padding, as cuTile's bounds
                # check says. (Indices loaded from memory keep the IR's gather, whose lanes the
                # source's own mask or data keep in bounds.)
                inside = ir.BinOp("<", spread, ir.SizeOf(array, dim))
                if not _non_negative(lifted, self):
                    inside = ir.BinOp("&", ir.BinOp(">=", spread, ir.Const(0)), inside)
                bounds = inside if bounds is None else ir.BinOp("&", bounds, inside)
            items.append(ir.GatherIndex(value))
        if len(items) != len(elements):
            raise self.mod.error(call, "one index per array dim is read")
        return tuple(items), bounds

    def unspread(
        self, element: cst.BaseExpression, spread: ir.Expr, first: int, rank: int
    ) -> ir.Expr:
        """The lanes of one element of a gather's or scatter's indices without the unit axes
        that spread them (``rows[:, None]`` -> ``rows``), checked to stand at the result's
        axes ``first`` onwards, after the lanes of the elements before it."""
        value = spread
        while isinstance(self.named(value), ir.ExpandDims):
            value = self.named(value).value  # type: ignore[attr-defined]
        core = dims_of(infer(value, self.env))
        layout = (ir.UnitDim(),) * first + core + (ir.UnitDim(),) * (rank - first - len(core))
        if dims_of(infer(spread, self.env)) != layout:
            raise self.mod.error(
                element,
                "the lanes of a gather or scatter are read where each element's lanes stand "
                "at their own axes, in the order of the array's dims",
                "spread each element over its axis: `(rows[:, None], cols[None, :])`",
            )
        return value

    def predicate(self, mask: cst.BaseExpression, region: tuple[ir.Dim, ...]) -> ir.Expr | None:
        """What a gather's or scatter's ``mask=`` adds to the lanes' own validity: its
        conjuncts less those that say a region dim's lanes are inside their tile or whole dim
        (the IR's invalid lanes already; ``None``: nothing is left)."""
        rest: ir.Expr | None = None
        for conjunct in self.conjuncts(self.expr(mask)):
            dim = self.lane_mask_dim(conjunct)
            mask_dims = dims_of(infer(conjunct, self.env))
            offset = len(region) - len(mask_dims)
            if (
                dim is not None
                and dim in mask_dims
                and offset >= 0
                and region[mask_dims.index(dim) + offset] == dim
            ):
                continue
            rest = conjunct if rest is None else ir.BinOp("&", rest, conjunct)
        return rest

    def reads_memory(self, e: ir.Expr) -> bool:
        """Whether ``e`` is computed from a load (through the locals it reads)."""
        seen: set[str] = set()
        todo = [e]
        while todo:
            for sub in walk_expr(todo.pop()):
                if isinstance(sub, ir.Load):
                    return True
                if isinstance(sub, ir.Name) and sub.id in self.values and sub.id not in seen:
                    seen.add(sub.id)
                    todo.append(self.values[sub.id])
        return False

    def same_extent(self, extent: ir.Expr, array: str, dim: int) -> None:
        """Record that ``array``'s dim ``dim`` must be ``extent`` (an array's size) at every
        launch, where they are not the same size by construction."""
        if isinstance(extent, ir.SizeOf) and (extent.tensor, extent.dim) != (array, dim):
            self.same_sizes.append((extent.tensor, extent.dim, array, dim))

    def scalar_gather(
        self, array: str, index: ir.Expr, kw: dict[str, cst.BaseExpression], call: cst.Call
    ) -> ir.Expr:
        """``ct.gather(offsets, e)`` with a scalar index: one element (a 0-d tile), the IR's
        scalar load. cuTile would give ``padding_value`` past the end; the IR's scalar load
        requires the index in bounds (the interpreter checks it), so a kernel that relies on the
        padding fails validation rather than translating to an unguarded read."""
        if "mask" in kw:
            raise self.mod.error(
                kw["mask"],
                "a mask on a one-element ct.gather is not read",
                "branch on the condition around the gather, or gather a tile of lanes",
            )
        return ir.Load(array, (ir.ScalarIndex(index),), 0.0, loc=self.mod.locate(call))

    def scatter(self, call: cst.Call) -> ir.Stmt:
        """``ct.scatter(x, indices, value, mask=...)``: a tile store where the indices are a
        tile's lanes, a whole dim's or a row's, else a scatter (:meth:`element_index`)."""
        pos, kw = call_args(call)
        array, idx, value = pos[0], pos[1], pos[2]
        if not isinstance(array, cst.Name):
            raise self.mod.error(call, "ct.scatter into a named array is read")
        for key in kw:
            if key not in ("mask", "check_bounds", "latency"):
                raise self.mod.error(call, f"ct.scatter's `{key}=` is not read")
        items, _ = self.element_index(call, array.value, idx, True, _checked(kw))
        region = index_dims(array.value, items, self.env, self.mod.locate(call))
        if "mask" in kw and self.predicate(kw["mask"], region) is not None:
            raise self.mod.error(
                kw["mask"],
                "a ct.scatter mask other than its lanes' tile or whole-dim bounds is not read: "
                "the IR's stores mask only those",
                "mask with `t * TILE + ct.arange(TILE, dtype=ct.int32) < extent` (per dim, "
                "`&`-ed), or leave the mask out",
            )
        stored = self.expr(value)
        if not dims_of(infer(stored, self.env)) and region:
            stored = ir.Broadcast(stored, region)  # a scalar stored at every lane
        return ir.Store(array.value, items, stored, loc=self.mod.locate(call))

    def atomic(self, call: cst.Call, op: str) -> ir.Stmt:
        """``ct.atomic_add(array, indices, update)`` (a statement) where each index is a tile's
        lanes ``t * TILE + ct.arange(TILE, dtype=ct.int32)`` (broadcast with ``[:, None]``) or a
        scalar: an atomic update of that tile region (lanes past the extent are skipped by
        cuTile's bounds check, as the IR leaves invalid lanes untouched)."""
        pos, kw = call_args(call)
        for key in kw:
            if key not in ("check_bounds", "memory_order", "memory_scope"):
                raise self.mod.error(call, f"`{key}=` of a cuTile atomic is not read")
        if len(pos) != 3 or not isinstance(pos[0], cst.Name):
            raise self.mod.error(call, "a cuTile atomic of (array, indices, update) is read")
        array, indices, update = pos
        elements = (
            [e.value for e in indices.elements] if isinstance(indices, cst.Tuple) else [indices]
        )
        items: list[ir.IndexItem] = []
        for el in elements:
            lifted = self.named(self.expr(el))
            while isinstance(lifted, ir.ExpandDims):
                lifted = self.named(lifted.value)
            if isinstance(lifted, ir.TileAttr) and lifted.attr == "index":
                items.append(ir.TileIndex(lifted.tile))
                continue
            if isinstance(lifted, ir.Arange) and isinstance(lifted.dim, ir.FullDim):
                items.append(ir.FullIndex(lifted.dim.extent))  # a whole dim's lanes
                continue
            t = infer(lifted, self.env)
            if dims_of(t):
                raise self.mod.error(
                    el,
                    "an atomic at element indices other than a tile's lanes is not read",
                    "index with `t * TILE + ct.arange(TILE, dtype=ct.int32)` or a scalar",
                )
            items.append(ir.ScalarIndex(lifted))
        return ir.AtomicRMW(
            op, array.value, tuple(items), self.expr(update), loc=self.mod.locate(call)
        )

    def lane_masked(self, value: ir.Expr, axis: int, identity: float) -> ir.Expr | None:
        """``x`` where ``value`` is ``ct.where(valid, x, identity)`` and ``valid`` says which
        lanes of the reduced dim are in bounds (``ct.arange(BLOCK_N) < n`` for a whole dim,
        ``t * B + ct.arange(B) < extent`` for a tile; named, broadcast with ``[None, :]``, and
        with other dims' bounds ``&``-ed in): the reduction masked, as the IR says it."""
        value = self.named(value)
        if not (isinstance(value, ir.Call) and value.op == "where" and len(value.args) == 3):
            return None
        cond, x, fill = value.args
        fill = self.named(fill)
        if isinstance(fill, ir.UnaryOp) and fill.op == "-" and isinstance(fill.operand, ir.Const):
            fill = ir.Const(-fill.operand.value)  # type: ignore[operator]
        if not (isinstance(fill, ir.Const) and isinstance(fill.value, (int, float))):
            return None
        if float(fill.value) != identity:
            return None
        dims = dims_of(infer(x, self.env))
        if not dims or not -len(dims) <= axis < len(dims):
            return None
        reduced = dims[axis]
        found = False
        for conjunct in self.conjuncts(cond):
            dim = self.lane_mask_dim(conjunct)
            if dim is None or dim not in dims:
                return None
            mask_dims = dims_of(infer(conjunct, self.env))
            # The mask's dim sits where the value's does (right-aligned broadcast).
            offset = len(dims) - len(mask_dims)
            if offset < 0 or mask_dims.index(dim) + offset != dims.index(dim):
                return None
            found |= dim == reduced
        return x if found else None

    def conjuncts(self, e: ir.Expr) -> list[ir.Expr]:
        e = self.named(e)
        if isinstance(e, ir.BinOp) and e.op == "&":
            return self.conjuncts(e.lhs) + self.conjuncts(e.rhs)
        return [e]

    def lane_mask_dim(self, e: ir.Expr) -> ir.Dim | None:
        """The dim whose in-bounds lanes ``e`` selects (``None``: no such mask)."""
        e = self.named(e)
        while isinstance(e, ir.ExpandDims):
            e = self.named(e.value)
        if not (isinstance(e, ir.BinOp) and e.op == "<"):
            return None
        lanes, bound = self.named(e.lhs), self.named(e.rhs)
        full = isinstance(lanes, ir.Arange) and isinstance(lanes.dim, ir.FullDim)
        if full and self.is_extent(bound, lanes.dim.extent):  # type: ignore[union-attr]
            return lanes.dim  # type: ignore[union-attr]
        if isinstance(lanes, ir.TileAttr) and lanes.attr == "index":
            tile = self.tiles.get(lanes.tile)
            if tile is not None and not tile.scalar and self.is_extent(bound, tile.extent):
                return ir.BlockDim(tile.name)
        return None

    def named(self, e: ir.Expr) -> ir.Expr:
        """The value a local name was assigned (a named mask or lane tile), else ``e``."""
        while isinstance(e, ir.Name) and e.id in self.values:
            e = self.values[e.id]
        return e

    def is_extent(self, bound: ir.Expr, extent: ir.Expr) -> bool:
        """Whether ``bound`` is the tile variable's ``extent``: the same expression, or an int
        parameter standing for the array size it is (checked at every launch: ``SAME_SIZES``)."""
        if bound == extent:
            return True
        params = {p.name: p.kind for p in self.params}
        # A ct.Constant[int] that sizes no tile is an int the launch passes too (Liger's
        # `n_cols: ConstInt`).
        params.update(
            (name, "int")
            for name, kind in self.constant_kinds.items()
            if kind == "int" and name not in self.block_tiles
        )
        named = isinstance(bound, ir.Name) and params.get(bound.id) == "int"
        if named and isinstance(extent, ir.SizeOf):
            self.same_sizes.append((bound.id, -1, extent.tensor, extent.dim))  # type: ignore[union-attr]
            return True
        return False

    # ------------------------------------------------------------------ expressions


def scalar_load(index: cst.BaseExpression | None, shape: cst.BaseExpression | None) -> bool:
    """Whether a ``ct.load`` reads one element: ``shape=()``, the index an int or a tuple."""
    return isinstance(shape, cst.Tuple) and not shape.elements and index is not None


def _checked(kw: dict[str, cst.BaseExpression]) -> bool:
    """Whether a gather/scatter checks its indices against the array's bounds (cuTile's
    default; ``check_bounds=False`` says they are inside it)."""
    flag = kw.get("check_bounds")
    return not (isinstance(flag, cst.Name) and flag.value == "False")
