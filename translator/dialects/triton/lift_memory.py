"""Memory: loads, stores and atomics through pointers, block pointers and tensor descriptors.

At each access the offset is split into one index per tensor dim through the stride parameters
(``stride_xm`` bound to ``x.stride(0)``; a term without a stride indexes the last dim, whose
stride is then 1), and each index is classified (:meth:`MemoryMixin.classify`): a tile, a whole
dim, a scalar or a gather. The mask must bound exactly the region's tiles, each by its extent.
"""

from __future__ import annotations

import libcst as cst

from translator.dialects.cst_utils import call_args, literal
from translator.dialects.triton import frontend_affine as af
from translator.dialects.triton import frontend_blocks as blocks
from translator.dialects.triton.frontend_affine import ir_text
from translator.dialects.triton.frontend_blocks import BlockPtr, Descriptor
from translator.dialects.triton.lift_dispatch import (
    handles,
    handles_effect,
    handles_effect_family,
)
from translator.dialects.triton.lifted import Data, Idx, Item, Ptr, Static, Tile, Val
from translator.dialects.triton.symbols import (
    SymKind,
    is_sym,
    kind_of,
    param_name,
    parse_lane,
    parse_sym,
)
from translator.ir import nodes as ir
from translator.ir.printer import format_expr
from translator.ir.shapes import dims_of, dtype_of

_SWAP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}


class MemoryMixin:
    """Loads, stores, atomics and their masks of :class:`KernelLifter`."""

    def load_other_value(
        self, node: cst.Call, ptr: Ptr, mask_node: cst.BaseExpression, other_node
    ) -> Data | Idx:
        """``tl.load(p, mask=m, other=v)`` with ``v`` a value (Liger's group norm pads with the
        row's mean, so that ``x - mean`` is 0 there): ``tl.where(m, tl.load(p, mask=m,
        other=0), v)``, which reads the same lanes and gives ``v`` where ``m`` is false."""
        mask = self.ev(mask_node)
        pred = None
        if isinstance(mask, Data):
            mask, pred = self.split_mask(mask_node, 0.0)
        loaded = self.load_window(ptr, mask, mask_node, 0.0, node, pred)
        # Triton casts `other` to the pointer's element type (an fp32 mean padding an fp16
        # row is the fp16 mean).
        value = self.to_data(self.ev(other_node), other_node)
        dtype = dtype_of(self.type_of(loaded.expr, node))
        padding = Data(ir.Cast(value.expr, dtype), value.pads, value.div)
        return self.pointwise("where", [self.ev(mask_node), loaded, padding], node)

    @handles("load")
    def load(self, name: str, node: cst.Call) -> Data:
        """``tl.load(pointer, mask=..., other=...)`` through a pointer or a block pointer."""
        args, kwargs = call_args(node)
        ptr = self.ev(args[0]) if args else self.ev(kwargs["pointer"])
        mask_node = args[1] if len(args) > 1 else kwargs.get("mask")
        other_node = args[2] if len(args) > 2 else kwargs.get("other")
        for k in kwargs:
            if k in ("pointer", "mask", "other", "boundary_check", "padding_option"):
                continue
            if k in ("cache_modifier", "eviction_policy", "volatile"):
                continue  # memory-system hints: they cannot change what is read
            raise self.error(node, f"unsupported tl.load option `{k}=`")
        if isinstance(ptr, BlockPtr):
            if mask_node is not None or other_node is not None:
                raise self.error(
                    node,
                    "a block-pointer load takes boundary_check= and "
                    "padding_option=, not mask= and other=",
                )
            checked = blocks.boundary_check(self, kwargs.get("boundary_check"), len(ptr.block))
            window, mask = blocks.window(
                self, ptr.tensor, ptr.shape, ptr.strides, ptr.offsets, ptr.block, checked
            )
            return self.load_window(
                window, mask, None, blocks.padding(self, kwargs.get("padding_option")), node
            )
        if not isinstance(ptr, Ptr):
            raise self.error(node, "tl.load needs a pointer")
        other: float | None = None
        if other_node is not None:
            try:
                ov = literal(other_node)
            except ValueError:
                ov = None
            if ov is None and mask_node is not None:
                return self.load_other_value(node, ptr, mask_node, other_node)
            if isinstance(ov, bool) or not isinstance(ov, (int, float)):
                raise self.error(
                    other_node, f"other= must be a constant, not `{self.src(other_node)}`"
                )
            other = float(ov)
        mask = self.ev(mask_node) if mask_node is not None else None
        pred = None
        if isinstance(mask, Data) and mask_node is not None:
            mask, pred = self.split_mask(mask_node, other)
        return self.load_window(ptr, mask, mask_node, other, node, pred)

    def split_mask(self, mask_node: cst.BaseExpression, other: float | None) -> tuple:
        """``bounds & pred``: the conjuncts of a load mask that bound tiles (an index tree)
        and those that test loaded values (a jagged row's ``k < nnz``), the load's predicate."""
        bounds: ir.Expr | None = None
        preds: list[ir.Expr] = []
        for part in _conjuncts(mask_node):
            v = self.ev(part)
            if isinstance(v, Idx):
                bounds = v.tree if bounds is None else ir.BinOp("&", bounds, v.tree)
            else:
                preds.append(self.to_data(v, part).expr)
        if other is None:
            raise self.error(
                mask_node,
                f"the mask `{self.src(mask_node)}` tests loaded values, so masked lanes are "
                "read: they need a value",
                "pass other= (0.0, or the identity of what the load feeds)",
            )
        pred = preds[0]
        for p in preds[1:]:
            pred = ir.BinOp("&", pred, p)
        return (Idx(bounds) if bounds is not None else None), pred

    def load_window(
        self,
        ptr: Ptr,
        mask: Val | None,
        mask_node,
        other: float | None,
        node,
        pred: ir.Expr | None = None,
    ) -> Data:
        """A load of the pointer tile ``ptr`` under ``mask``, invalid lanes reading ``other``;
        ``pred``: the load's predicate (lanes where it is false read ``other`` too)."""
        tensor, items, rank = self.access(ptr, mask, mask_node, node, store=False)
        index = tuple(it.index for it in items)
        e: ir.Expr = ir.Load(tensor, index, other, mask=pred, loc=self.locate(node))
        cast = self.launch.load_cast(ptr.tensor)
        if cast is not None:
            e = ir.Cast(e, cast)
        ordered = self.to_triton_order(e, items, rank, node)
        if pred is not None and ordered != e:
            raise self.error(
                mask_node,
                f"the mask `{self.src(mask_node)}` tests loaded values on a load whose lanes "
                "are not in the tensor's dim order",
                "load in the tensor's dim order and transpose after",
            )
        e = ordered
        pads: list[tuple[ir.Dim, float]] = []
        div: set[ir.Dim] = set()
        for it in items:
            for _, dim, _t in it.dims:
                if it.wrapped and any(w[0].dim == dim for w in it.wrapped) or other is None:
                    div.add(dim)
                else:
                    pads.append((dim, other))
        return Data(e, tuple(pads), frozenset(div))

    def to_triton_order(self, e: ir.Expr, items: list[Item], rank: int, node) -> ir.Expr:
        placed = [(axis, dim) for it in items for axis, dim, _ in it.dims]
        axes = [a for a, _ in placed]
        if len(set(axes)) != len(axes):
            raise self.error(node, "two dims of the tensor are indexed by lanes of one axis")
        order = sorted(range(len(placed)), key=lambda i: axes[i])
        if order != list(range(len(placed))):
            e = ir.Permute(e, tuple(order))
        present = sorted(axes)
        for pos in range(rank):
            if (pos - rank) not in present:
                e = ir.ExpandDims(e, pos)
        return e

    @handles("store")
    def store_value(self, name: str, node: cst.Call) -> Val:
        """``tl.store`` used as a value: refused."""
        raise self.error(node, "tl.store returns nothing; call it as a statement")

    @handles_effect("store")
    def store(self, name: str, node: cst.Call) -> None:
        """``tl.store(pointer, value, mask=...)`` as a statement."""
        args, kwargs = call_args(node)
        ptr = self.ev(args[0]) if args else self.ev(kwargs["pointer"])
        value_node = args[1] if len(args) > 1 else kwargs.get("value")
        mask_node = args[2] if len(args) > 2 else kwargs.get("mask")
        for k in kwargs:
            if k in (
                "pointer",
                "value",
                "mask",
                "cache_modifier",
                "eviction_policy",
                "boundary_check",
            ):
                continue
            raise self.error(node, f"unsupported tl.store option `{k}=`")
        if value_node is None:
            raise self.error(node, "tl.store(pointer, value, mask=...)")
        if isinstance(ptr, BlockPtr):
            if mask_node is not None:
                raise self.error(node, "a block-pointer store takes boundary_check=, not mask=")
            checked = blocks.boundary_check(self, kwargs.get("boundary_check"), len(ptr.block))
            window, mask = blocks.window(
                self, ptr.tensor, ptr.shape, ptr.strides, ptr.offsets, ptr.block, checked
            )
            self.store_window(window, self.ev(value_node), value_node, mask, None, node)
            return
        if not isinstance(ptr, Ptr):
            raise self.error(node, "tl.store(pointer, value, mask=...)")
        mask = self.ev(mask_node) if mask_node is not None else None
        self.store_window(ptr, self.ev(value_node), value_node, mask, mask_node, node)

    def store_window(
        self,
        ptr: Ptr,
        value_val: Val,
        value_node,
        mask: Val | None,
        mask_node,
        node,
        atomic: str | None = None,
    ) -> None:
        """A store of ``value_val`` to the pointer tile ``ptr`` under ``mask`` (an atomic
        read-modify-write ``atomic`` where given)."""
        value = self.to_data(value_val, value_node)
        tensor, items, rank = self.access(ptr, mask, mask_node, node, store=True)
        vdims = dims_of(self.type_of(value.expr, value_node))
        placed = [(axis, dim) for it in items for axis, dim, _ in it.dims]
        order = sorted(range(len(placed)), key=lambda i: placed[i][0])
        v = value.expr
        if order != list(range(len(placed))) and len(vdims) == rank:
            inv = [0] * len(order)
            for i, o in enumerate(order):
                inv[o] = i
            core = [i for i, d in enumerate(vdims) if not isinstance(d, ir.UnitDim)]
            if len(core) == len(order):
                v = ir.Permute(ir.Reshape(v, tuple(vdims[i] for i in core)), tuple(inv))
        index = tuple(it.index for it in items)
        if atomic is not None:
            self.out.append(ir.AtomicRMW(atomic, tensor, index, v, loc=self.locate(node)))
        else:
            self.out.append(ir.Store(tensor, index, v, loc=self.locate(node)))

    @handles_effect_family("atomics")
    def atomic(self, name: str, op: str, node: cst.Call) -> None:
        """``tl.atomic_<op>(pointer, val, mask=..., sem=..., scope=...)`` as a statement."""
        args, kwargs = call_args(node)
        names = ["pointer", "val", "mask", "sem", "scope"]
        bound = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names:
                raise self.error(v, f"unsupported tl.atomic_{op} option `{k}=`")
            bound[k] = v
        if "pointer" not in bound or "val" not in bound:
            raise self.error(node, f"tl.atomic_{op}(pointer, val, mask=...)")
        # `sem`/`scope` order the atomic against other memory traffic; each element's update is
        # atomic whatever they say, and the IR's AtomicRMW promises no more than that.
        ptr = self.ev(bound["pointer"])
        if not isinstance(ptr, Ptr):
            raise self.error(node, f"tl.atomic_{op} needs a pointer")
        mask_node = bound.get("mask")
        mask = self.ev(mask_node) if mask_node is not None else None
        self.store_window(
            ptr, self.ev(bound["val"]), bound["val"], mask, mask_node, node, atomic=op
        )

    def access(
        self, ptr: Ptr, mask: Val | None, mask_node, node, store: bool
    ) -> tuple[str, list[Item], int]:
        """Split ``ptr``'s offset into per-dim indices, classify them, check the mask."""
        guard = self.launch.flag_guards.get(ptr.tensor)
        if guard is not None and guard not in self.flag_truths:
            flag, value = guard
            raise self.error(
                node,
                f"kernel parameter `{ptr.tensor}` is passed `{self.launch.texts[ptr.tensor]}`, "
                f"which the kernel may access only where the constexpr `{flag}` is {value}",
                f"access `{ptr.tensor}` only under `if {'' if value else 'not '}{flag}:`",
            )
        info = self.launch.tensor_info(ptr.tensor)
        p = af.poly(ptr.tree, self.atoms)
        rank_tree = self.rank_of(ptr.tree)
        per_dim: dict[int, af.Poly] = {}
        implicit: af.Poly = {}
        strides = self.launch.stride_params(ptr.tensor)
        sizes = self.launch.size_strides(ptr.tensor)
        strides.update(sizes)
        # Rows of a length the host knows, for a tensor of no known rank: the terms that
        # carry the length (or a borrowed row stride) index the rows of a 2-d view.
        row_length: ir.Expr | None = None
        # Dims counted from the end that a stride of another tensor indexes (glu's
        # `offs * stride_dim` into `b_flat` with `stride_dim = a_flat.stride(1)`).
        borrowed_last: set[int] = set()
        if not strides:
            row = self.launch.row_length(ptr.tensor, p, lambda s: param_name(s) is not None)
            if row is not None:
                sizes[param_name(row)] = 0
                strides.update(sizes)
                row_length = self.binding(param_name(row)).expr
        for m, c in p.items():
            ss = [s for s in m if self.is_stride_symbol(s) or param_name(s) in sizes]
            if len(ss) > 1:
                raise self.error(
                    node,
                    f"an offset term of `{self.src(node.args[0].value)}` multiplies two strides",
                )
            if ss:
                pname = param_name(ss[0])
                if pname not in strides:
                    borrowed = self.launch.borrowed_stride(ptr.tensor, pname, node)
                    if isinstance(borrowed, ir.Expr):
                        row_length, borrowed = borrowed, 0
                    elif borrowed < 0:
                        borrowed_last.add(borrowed)
                    strides[pname] = borrowed
                d = strides[pname]
                rest = list(m)
                rest.remove(ss[0])
                mono = tuple(rest)
                per_dim.setdefault(d, {})
                per_dim[d][mono] = per_dim[d].get(mono, 0) + c
            else:
                implicit[m] = c
        if (
            row_length is not None
            and set(per_dim) == {0, -1}
            and borrowed_last == {-1}
            and not implicit
        ):
            # A borrowed row stride and the same lender's last stride: under the shared
            # layout the borrow assumes, the columns of the row view (its own unit stride).
            implicit = per_dim.pop(-1)
        if row_length is not None and set(per_dim) == {0}:
            # The terms without the row length index the (unit-stride) columns.
            tensor, rank = self.launch.row_view_access(ptr.tensor, row_length, node)
            per_dim[1], implicit = implicit, {}
        else:
            tensor, rank = self.launch.resolve_access(ptr.tensor, per_dim, bool(implicit), node)
        if tensor not in self.types.vars:
            self.types.vars[tensor] = self.host.types.vars[tensor]
        if implicit:
            last = rank - 1
            if last in per_dim:
                raise self.error(
                    node,
                    f"the offset into `{info.source}` has terms with and "
                    f"without the stride of its last dim",
                )
            per_dim[last] = implicit
            self.launch.note_unit_stride(ptr.tensor, node)
        items = [self.classify(per_dim.get(d, {}), node) for d in range(rank)]
        for it in items:
            for _, _, tile in it.dims:
                if tile is not None:
                    tile.used = True
        self.check_mask(items, mask, mask_node, node, store, info.source, tensor)
        if row_length is not None and tensor != ptr.tensor:
            self.check_row_columns(items[1], row_length, info.source, node)
        self.note_partial_dims(tensor, items, rank, node)
        mrank = self.rank_of(mask.tree) if isinstance(mask, Idx) else 0
        if mrank > rank_tree:
            raise self.error(mask_node, "the mask has more dims than the pointer")
        return tensor, items, rank_tree

    def check_row_columns(self, item: Item, length: ir.Expr, source: str, node) -> None:
        """A row view ``x.view(-1, N)`` reads what ``row * N + col`` addresses only for
        columns in ``[0, N)``: the columns' lanes must be bounded by ``N`` itself."""
        extents = []
        if isinstance(item.index, ir.FullIndex):
            extents.append(item.index.extent)
        extents += [tile.extent for _, _, tile in item.dims if tile is not None]
        if extents and all(e is not None and self.same_host(e, length, node) for e in extents):
            return
        raise self.error(
            node,
            f"`{source}` is addressed as rows of `{format_expr(length)}` elements, but the "
            "column offsets are not bounded by the row length: a row view would not read "
            "what the source reads",
            f"mask the columns with `cols < {format_expr(length)}`, or pass the tensor's strides",
        )

    def note_partial_dims(self, tensor: str, items: list[Item], rank: int, node) -> None:
        """Record each whole-dim index whose extent (the mask's bound) is not provably the dim's
        size: its lanes may cover only a prefix of the dim (`cols < half` of a longer row)."""
        for d, it in enumerate(items):
            if not isinstance(it.index, ir.FullIndex) or it.index.extent is None:
                continue
            extent = it.index.extent
            # The size as the host may have named it: counted from the front or the back.
            if any(self.same_host(extent, ir.SizeOf(tensor, x), node) for x in (d, d - rank)):
                continue
            test = ir.partial_dim(tensor, d, extent)
            if test not in self.partial_dims:
                self.partial_dims.append(test)

    def classify(self, p: af.Poly, node) -> Item:
        """What one tensor dim's index is: a tile's lanes, a scalar, or a gather."""
        syms = af.poly_symbols(p)
        lanes = sorted({s for s in syms if parse_lane(s)})
        gathers = [s for s in syms if s in self.data and any(k != 1 for k in self.data[s][1])]
        wraps = [
            s
            for s in syms
            if kind_of(s) is SymKind.ATOM
            and _wrap_of(self.atoms.trees[s])
            and self.flat_digit(s) is None
        ]
        if not lanes and not gathers and len(wraps) == 1 and p == {(wraps[0],): 1}:
            tree = self.atoms.trees[wraps[0]]
            wrapped, bound = _wrap_of(tree)  # type: ignore[misc]
            inner = af.poly(wrapped, self.atoms)
            inner_lanes = [s for s in af.poly_symbols(inner) if parse_lane(s)]
            if len(inner_lanes) == 1:
                lane = parse_lane(inner_lanes[0])
                assert lane is not None
                res = self.tile_form(inner, lane, node)
                if res is not None and not res[1] and res[0].base is not None:
                    tile = res[0]
                    self.set_extent(tile, bound, node)
                    return Item(
                        "tile",
                        ir.TileIndex(tile.name),
                        [(lane[1], tile.dim, tile)],
                        [],
                        [(tile, bound)],
                    )
            raise self.error(
                node,
                f"cannot read `{ir_text(tree)}` as a tile of the tensor",
                "wrap only `(pid * BLOCK + tl.arange(0, BLOCK)) % n` or clamp with "
                "`tl.where(offs < n, offs, 0)`",
            )
        if not lanes and not gathers:
            pt = af.poly_expr(p)
            pt = af.strip_casts(pt)
            if is_sym(pt, SymKind.ROW):
                return Item("scalar", ir.TileIndex(self.persistent[1]))  # type: ignore[index]
            for s in syms:
                if self.flat_digit(s) is not None:
                    self.digit_scalar_uses.add(s)
            # A program id used as a plain index: a grid of scalar tiles, unless the same id
            # also offsets lanes (then it is that tile's id).
            for s in syms:
                sym = parse_sym(s)
                if sym is not None and sym.kind is SymKind.PID:
                    self.pid_scalar_uses.add(sym.index)
            return Item("scalar", ir.ScalarIndex(self.scalar_ir(pt, node)))
        if len(lanes) == 1 and not gathers:
            lane = parse_lane(lanes[0])
            assert lane is not None
            res = self.tile_form(p, lane, node)
            if res is not None and not res[1]:
                tile = res[0]
                # A whole dim's extent is filled in by the mask.
                index: ir.IndexItem = (
                    ir.FullIndex(None) if tile.base is None else ir.TileIndex(tile.name)
                )
                item = Item(
                    "tile",
                    index,
                    [(lane[1], _pending_dim(tile), tile)],
                    [(self.tile_index_poly(tile, lane[1]), tile)],
                )
                return item
            # A shifted whole-dim tile reads as a gather only once its extent is known (an
            # earlier access's mask set it): its lanes are then `arange(extent)`.
            shifted = (
                res is not None
                and bool(res[1])
                and (res[0].base is not None or res[0].extent is not None)
            )
            if res is not None and res[1] and not shifted:
                raise self.error(
                    node,
                    f"the index `{ir_text(af.poly_expr(p))}` is a whole-dim tile shifted by an "
                    "offset before any access bounds the tile",
                    "access the unshifted lanes first (`offs < n`), or tile with "
                    "`pid * BLOCK + tl.arange(0, BLOCK)`",
                )
        else:
            shifted = False
        # A gather: the index holds loaded integers, or a tile's lanes shifted by an offset
        # (`offs + half`: the second half of a row), read as the integers they are.
        if not gathers and not shifted:
            raise self.error(
                node,
                f"cannot prove that `{self.src(node.args[0].value)}` addresses a "
                f"tile: the index `{ir_text(af.poly_expr(p))}` of one dim is not "
                "`block * id + tl.arange(0, block)`",
                "offset lanes by program ids or loop counters times the block size",
            )
        tree = af.poly_expr(p)
        value = self.idx_ir(tree, node)
        vt = self.type_of(value, node)
        vdims = dims_of(vt)
        rank = self.rank_of(tree)
        core = [(i, d) for i, d in enumerate(vdims) if not isinstance(d, ir.UnitDim)]
        if len(vdims) != rank:
            raise self.error(node, "gather index of unexpected rank")
        if len(core) != len(vdims):
            value = ir.Reshape(value, tuple(d for _, d in core))
        item = Item("gather", ir.GatherIndex(value))
        for i, d in core:
            tile = self.tile_of_dim(d)
            item.dims.append((i - rank, d, tile))
            if tile is not None:
                item.polys.append((self.tile_index_poly(tile, i - rank), tile))
            elif isinstance(d, ir.FullDim):
                full = next(
                    t for t in self.tiles.values() if t.base is None and t.extent == d.extent
                )
                item.polys.append((self.tile_index_poly(full, i - rank), full))
        return item

    def mask_constraints(
        self, tree: ir.Expr, node, strict: bool = True
    ) -> list[tuple[af.Poly, ir.Expr]]:
        """Conjuncts ``index < bound`` of a mask: (index part of the normal form, bound tree)."""
        tree = af.strip_casts(tree)
        if isinstance(tree, ir.BinOp) and tree.op == "&":
            return self.mask_constraints(tree.lhs, node, strict) + self.mask_constraints(
                tree.rhs, node, strict
            )
        if isinstance(tree, ir.BinOp) and tree.op in ("<", "<=", ">", ">="):
            lhs, rhs, op = tree.lhs, tree.rhs, tree.op
            if op in (">", ">="):
                lhs, rhs, op = rhs, lhs, _SWAP[op]
            diff = af.sub(af.poly(lhs, self.atoms), af.poly(rhs, self.atoms))
            if op == "<=":
                diff = af.sub(diff, {(): 1})
            index = {
                m: c
                for m, c in diff.items()
                if any(kind_of(s) not in (SymKind.PARAM, SymKind.ATOM) for s in m)
                or any(kind_of(s) is SymKind.ATOM and self._atom_has_index(s) for s in m)
            }
            bound = {m: -c for m, c in diff.items() if m not in index}
            return [(index, af.poly_expr(bound))]
        if strict:
            raise self.error(
                node,
                f"the mask `{self.src(node)}` is not a conjunction of bounds `offs < n`",
                "masks may only bound tiles by their extents",
            )
        return []

    def _loop_tile(self, tile: Tile) -> bool:
        return tile.base is not None and kind_of(tile.base) is SymKind.ITER

    def _scalar_bound(self, p: af.Poly) -> bool:
        """Whether ``p`` holds only terms a bound may (parameters and loaded scalars), no lanes,
        program ids or loop counters."""
        return all(
            kind_of(s) is SymKind.PARAM or (s in self.data and not self.data[s][1])
            for m in p
            for s in m
        )

    def _atom_has_index(self, s: str) -> bool:
        return any(kind_of(x) is not SymKind.PARAM for x in af.symbols_in(self.atoms.trees[s]))

    def check_mask(
        self,
        items: list[Item],
        mask: Val | None,
        mask_node,
        node,
        store: bool,
        tensor: str,
        host_tensor: str | None = None,
    ) -> None:
        """The mask must bound exactly the region's tiles (each by its extent), except along
        dims whose size the host asserts a multiple of the tile's block (``host_tensor``: the
        host tensor the access reads, whose dims the items index in order)."""
        needed: list[tuple[af.Poly, Tile]] = [pt for it in items for pt in it.polys]
        # The host size of the dim each needed tile indexes (tile items index dims in order).
        sizes: dict[int, ir.Expr] = {}
        if host_tensor is not None:
            for d, it in enumerate(items):
                if it.kind == "tile":
                    for _, t in it.polys:
                        sizes.setdefault(id(t), ir.SizeOf(host_tensor, d))
        wrapped = {id(t) for it in items for t, _ in it.wrapped}
        if store and wrapped:
            raise self.error(
                node,
                f"the store into `{tensor}` goes through wrapped (`% n`) offsets",
                "store through unwrapped offsets and a mask",
            )
        constraints: list[tuple[af.Poly, ir.Expr]] = []
        if mask is not None:
            if isinstance(mask, Static) and mask.value is None:
                mask = None
            elif not isinstance(mask, Idx):
                raise self.error(
                    mask_node,
                    f"the mask `{self.src(mask_node)}` is not a bounds check on offsets",
                    "masks may only bound tiles by their extents",
                )
            else:
                constraints = self.mask_constraints(mask.tree, mask_node)
        used = [False] * len(constraints)
        for poly_, tile in needed:
            hit = None
            for i, (cp, bound) in enumerate(constraints):
                if used[i]:
                    continue
                if af.same_poly(cp, poly_):
                    hit = i
                    break
                beyond = af.sub(cp, poly_)
                if self._loop_tile(tile) and self._scalar_bound(beyond):
                    # `offs < end` of a loop tile bounded by a loaded scalar (a jagged row's
                    # end, a batch's longest row): the loaded value is the bound.
                    moved = af.sub(af.poly(bound, self.atoms), beyond)
                    constraints[i] = (poly_, af.poly_expr(moved))
                    hit = i
                    break
            if hit is None:
                if tile.base is not None and id(tile) in wrapped:
                    continue
                if self.proven_exact(tile, node) or not tile.padded:
                    continue
                size = sizes.get(id(tile))
                if size is not None and self.host_proves_whole_blocks(tile, size, node):
                    continue
                what = "store into" if store else "load from"
                raise self.error(
                    mask_node if mask_node is not None else node,
                    f"the {what} `{tensor}` is not masked along {self._tile_text(tile)}, whose "
                    "last block may run past the end of the tensor",
                    self.unmasked_hint(tile, size),
                )
            used[hit] = True
            self.set_extent(tile, constraints[hit][1], mask_node)
        for i, (cp, bound) in enumerate(constraints):
            if not used[i]:
                raise self.error(
                    mask_node,
                    f"the mask bounds `{ir_text(af.poly_expr(cp))} < "
                    f"{ir_text(bound)}`, which is no tile of the access: the IR has no masks "
                    "other than tile bounds",
                    "mask only `offs < n` for the offsets of the access",
                )
        for it in items:
            if isinstance(it.index, ir.FullIndex):
                tile = it.dims[0][2]
                assert tile is not None and tile.extent is not None
                it.index = ir.FullIndex(tile.extent)
                it.dims = [(it.dims[0][0], tile.dim, tile)]
            elif it.kind == "tile":
                it.dims = [(a, t.dim if t is not None else d, t) for a, d, t in it.dims]

    @handles("make_block_ptr")
    def make_block_ptr(self, name: str, node: cst.Call) -> Val:
        """``tl.make_block_ptr(...)``: a block pointer."""
        return blocks.make_block_ptr(self, node)

    @handles("advance")
    def advance(self, name: str, node: cst.Call) -> Val:
        """``tl.advance(block_ptr, offsets)``: the block pointer moved."""
        return blocks.advance(self, node)

    @handles("make_tensor_descriptor")
    def make_tensor_descriptor(self, name: str, node: cst.Call) -> Val:
        """``tl.make_tensor_descriptor(...)``: a tensor descriptor."""
        return blocks.make_descriptor(self, node)

    def descriptor_access(self, desc: Descriptor, name: str, args: list, kwargs: dict, node) -> Val:
        """``desc.load(offsets)`` / ``desc.store(offsets, value)``: every dim bounds-checked,
        out-of-bounds lanes read as zero and are not written (TMA)."""
        if name not in ("load", "store") or kwargs:
            raise self.error(
                node,
                f"unsupported tensor-descriptor method `.{name}()`",
                "use desc.load(offsets) and desc.store(offsets, value)",
            )
        if not args:
            raise self.error(node, f"desc.{name} needs the window's offsets")
        offsets = blocks._trees(self, args[0], "offsets", node)
        if len(offsets) != len(desc.block):
            raise self.error(node, f"{len(offsets)} offsets for a {len(desc.block)}-d descriptor")
        window, mask = blocks.window(
            self,
            desc.tensor,
            desc.shape,
            desc.strides,
            offsets,
            desc.block,
            tuple(range(len(desc.block))),
        )
        if name == "load":
            if len(args) != 1:
                raise self.error(node, "desc.load(offsets) takes one argument")
            return self.load_window(window, mask, None, desc.padding, node)
        if len(args) != 2:
            raise self.error(node, "desc.store(offsets, value) takes two arguments")
        self.store_window(window, self.ev(args[1]), args[1], mask, None, node)
        return Static(None)


def _wrap_of(tree: ir.Expr) -> tuple[ir.Expr, ir.Expr] | None:
    """``(offsets, n)`` of offsets kept in bounds without a mask: ``offs % n`` (wrapped) or
    ``tl.where(offs < n, offs, c)`` (clamped). The lanes past ``n`` read other rows, which only
    reach results a masked store drops."""
    if isinstance(tree, ir.BinOp) and tree.op == "%":
        return tree.lhs, tree.rhs
    if isinstance(tree, ir.Call) and tree.op == "where":
        cond, a, b = (af.strip_casts(x) for x in tree.args)
        if (
            isinstance(cond, ir.BinOp)
            and cond.op == "<"
            and af.strip_casts(cond.lhs) == a
            and (isinstance(b, ir.Const))
        ):
            return a, cond.rhs
    return None


def _pending_dim(tile: Tile) -> ir.Dim:
    if tile.base is None:
        return ir.FullDim(tile.extent if tile.extent is not None else ir.Const(0))
    return ir.BlockDim(tile.name)


def _conjuncts(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The operands of a chain of ``&``."""
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitAnd):
        return _conjuncts(node.left) + _conjuncts(node.right)
    return [node]
