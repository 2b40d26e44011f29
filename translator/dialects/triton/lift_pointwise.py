"""Pointwise ops, ``tl.where``, casts, shape ops, and ``tl.zeros``/``tl.full`` (pending or not)."""

from __future__ import annotations

import contextlib
import math

import libcst as cst

from translator.dialects.cst_utils import call_args, literal
from translator.dialects.triton.lift_dispatch import handles, handles_family, handles_method
from translator.dialects.triton.lift_values import fold_pads
from translator.dialects.triton.lifted import (
    Data,
    DTypeVal,
    Idx,
    Pending,
    Ptr,
    Refusal,
    Static,
    Val,
)
from translator.dialects.triton.symbols import SymKind, parse_lane, parse_sym
from translator.ir import nodes as ir
from translator.ir.ops import PHILOX_ROUNDS as _PHILOX_ROUNDS
from translator.ir.shapes import dims_of, is_float
from translator.naming import unique

_SHAPE_OPS = ("trans", "permute", "expand_dims", "reshape", "view", "broadcast_to")
#: Ops that take ``propagate_nan=tl.PropagateNan.ALL|NONE``.
_NAN_MODE_OPS = ("maximum", "minimum")


def _nan_mode(node: cst.BaseExpression) -> str | None:
    """``"ALL"`` or ``"NONE"`` for ``tl.PropagateNan.ALL``/``.NONE`` (any prefix), else None."""
    if (
        isinstance(node, cst.Attribute)
        and node.attr.value in ("ALL", "NONE")
        and isinstance(node.value, (cst.Attribute, cst.Name))
        and (node.value.attr if isinstance(node.value, cst.Attribute) else node.value).value
        == "PropagateNan"
    ):
        return node.attr.value
    return None


class PointwiseMixin:
    """Pointwise ops, fills and shape ops of :class:`KernelLifter`."""

    @handles_family("pointwise")
    def pointwise_call(self, name: str, op: str, node: cst.Call) -> Val:
        """``tl.exp(x)`` and the other names of ``[frontend.pointwise]``."""
        args, kwargs = call_args(node)
        nan_mode = kwargs.pop("propagate_nan", None) if op in _NAN_MODE_OPS else None
        if nan_mode is not None and _nan_mode(nan_mode) is None:
            raise self.error(
                nan_mode,
                "unsupported propagate_nan value: write tl.PropagateNan.ALL or tl.PropagateNan.NONE",
            )
        if kwargs:
            raise self.error(node, f"unsupported keywords to tl.{name}: {sorted(kwargs)}")
        # Both NaN modes read as the IR's NaN-propagating op: the default (NONE) differs from it
        # only where an operand is NaN, which the IR does not model separately.
        return self.pointwise(op, [self.ev(a) for a in args], node)

    @handles("round")
    def round_call(self, name: str, node: cst.Call) -> Val:
        """``libdevice.round(x)``: to the nearest integer, halves away from zero (C's
        ``round``), as ops of the IR exact for every float: ``t = trunc(x)`` (``floor`` or
        ``ceil`` by sign), then ``t + sign(x)`` where ``|x - t| >= 0.5`` (``x - t`` is exact).
        ``floor(x + 0.5)`` is not: ``0.49999997 + 0.5`` rounds to 1 in float32."""
        args, kwargs = call_args(node)
        if len(args) != 1 or kwargs:
            raise self.error(node, f"`{name}` takes one value")
        x = self.to_data(self.ev(args[0]), node)
        loc = self.locate(node)
        nonneg = ir.BinOp(">=", x.expr, ir.Const(0.0), loc=loc)
        t = ir.Call(
            "where",
            (nonneg, ir.Call("floor", (x.expr,), loc=loc), ir.Call("ceil", (x.expr,), loc=loc)),
            loc=loc,
        )
        half = ir.BinOp(
            ">=",
            ir.Call("abs", (ir.BinOp("-", x.expr, t, loc=loc),), loc=loc),
            ir.Const(0.5),
            loc=loc,
        )
        step = ir.Call("where", (nonneg, ir.Const(1.0), ir.Const(-1.0)), loc=loc)
        rounded = ir.Call("where", (half, ir.BinOp("+", t, step, loc=loc), t), loc=loc)
        return Data(rounded, (), x.div)

    @handles("rand", "randn")
    def random_call(self, name: str, node: cst.Call) -> Val:
        """``tl.rand(seed, offsets)``/``tl.randn``: the IR op of the same name; ``n_rounds``
        only at Triton's default (the IR's Philox runs 10 rounds)."""
        args, kwargs = call_args(node)
        rounds = kwargs.pop("n_rounds", args[2] if len(args) > 2 else None)
        if kwargs or len(args) not in (2, 3):
            raise self.error(node, f"tl.{name} takes (seed, offsets[, n_rounds])")
        if rounds is not None and self._static_value(rounds) != _PHILOX_ROUNDS:
            raise self.error(
                rounds,
                f"tl.{name} with n_rounds other than {_PHILOX_ROUNDS} is not supported",
                f"drop n_rounds: the IR draws with Triton's default {_PHILOX_ROUNDS} rounds",
            )
        op = self.grammar["frontend"]["pointwise"][self.language_key(name)]
        return self.pointwise(op, [self.ev(a) for a in args[:2]], node)

    def _static_value(self, node: cst.BaseExpression) -> object:
        """A compile-time number: a literal, or a constexpr the lifter folded to a constant."""
        value = self.ev(node)
        if isinstance(value, Static):
            return value.value
        if isinstance(value, Idx) and isinstance(value.tree, ir.Const):
            return value.tree.value
        return None

    def pointwise(self, op: str, vals: list[Val], node) -> Data | Idx:
        if op == "where" and all(isinstance(self._static_num(v), Idx) for v in vals):
            # On offsets: `tl.where(offs < M, offs, 0)` clamps lanes like `offs % M` wraps them.
            c, a, b = (self._static_num(v).tree for v in vals)
            return Idx(ir.Call("where", (c, a, b)))
        if op == "where":
            cond, a, b = vals
            c = self.to_data(self._static_num(cond), node)
            da, db = (
                self.to_data(self._static_num(a), node),
                self.to_data(self._static_num(b), node),
            )
            e = ir.Call("where", (c.expr, da.expr, db.expr), loc=self.locate(node))
            self.type_of(e, node)
            pads = self._where_pads(cond, c, da, db, e, node)
            bounded = self._bounded_dim(cond, node)
            where_of = (
                (bounded, da)
                if bounded is not None and isinstance(db.expr, ir.Const) and bounded in dict(pads)
                else None
            )
            return Data(e, pads, c.div | da.div | db.div, where_of)
        ds = [self.to_data(self._static_num(v), node) for v in vals]
        e = ir.Call(op, tuple(d.expr for d in ds), loc=self.locate(node))
        self.type_of(e, node)
        return Data(e, fold_pads(op, ds, self, e), frozenset().union(*(d.div for d in ds)))

    def _bounded_dim(self, cond: Val, node) -> ir.Dim | None:
        """The dim whose tile bound ``cond`` is, if it is exactly one (``offs < n``)."""
        if not isinstance(cond, Idx):
            return None
        constraints = self.mask_constraints(cond.tree, node, strict=False)
        if len(constraints) != 1:
            return None
        p, bound = constraints[0]
        lanes = [parse_lane(s) for m in p for s in m if parse_lane(s) is not None]
        if len(lanes) != 1:
            return None
        res = self.tile_form(p, lanes[0], node, strict=False)  # type: ignore[arg-type]
        if res is None or res[1] or res[0].extent is None:
            return None
        tile = res[0]
        with contextlib.suppress(Refusal):
            if self.same_host(self.host_ir(bound, node), tile.extent, node):
                return tile.dim
        return None

    def _where_pads(self, cond: Val, c: Data, a: Data, b: Data, e: ir.Expr, node):
        """``tl.where(cond, a, b)``: on invalid lanes, the branch the condition's padding picks
        (``o > 0`` on lanes loaded with 0 picks ``b``), ``a`` or ``b`` where both pad alike;
        lanes invalid along a tile ``cond`` bounds (``offs < n``) take ``b``."""
        out = dict(fold_pads("where", [c, a, b], self, e))
        if isinstance(cond, Idx):
            for const in self.mask_constraints(cond.tree, node, strict=False):
                p, bound = const
                for m in p:
                    for s in m:
                        lane = parse_lane(s)
                        if lane is None:
                            continue
                        res = self.tile_form(p, lane, node, strict=False)
                        if res is None or res[1] or res[0].extent is None:
                            continue
                        tile = res[0]
                        if not self.same_host(self.host_ir(bound, node), tile.extent, node):
                            continue
                        pb = b.pad(tile.dim)
                        if pb is None and isinstance(b.expr, ir.Const):
                            pb = float(b.expr.value)
                        if pb is not None:
                            out[tile.dim] = pb
                        else:
                            out.pop(tile.dim, None)
        return tuple(out.items())

    @handles("zeros", "full")
    def full(self, name: str, node: cst.Call) -> Val:
        """``tl.zeros(shape, dtype)`` / ``tl.full(shape, value, dtype)``."""
        args, kwargs = call_args(node)
        shape_node = args[0] if args else kwargs.get("shape")
        if name == "zeros":
            value: object = 0
            dtype_node = args[1] if len(args) > 1 else kwargs.get("dtype")
        else:
            value_node = args[1] if len(args) > 1 else kwargs.get("value")
            try:
                value = literal(value_node) if value_node is not None else None
            except ValueError:
                value = None
            if not isinstance(value, (int, float)):
                raise self.error(node, "tl.full needs a constant fill value")
            dtype_node = args[2] if len(args) > 2 else kwargs.get("dtype")
        if dtype_node is None:
            raise self.error(node, f"tl.{name} needs a dtype")
        dt = self.ev(dtype_node)
        if not isinstance(dt, DTypeVal) or not isinstance(dt.dtype, ir.DType):
            raise self.error(dtype_node, "expected a tl dtype")
        if not isinstance(shape_node, (cst.List, cst.Tuple)):
            raise self.error(node, f"tl.{name} takes a list of block sizes")
        keys = tuple(self.block_key(e.value) for e in shape_node.elements)
        fill = float(value) if is_float(dt.dtype) else int(value)  # type: ignore[arg-type]
        dims: list[ir.Dim] = []
        for k in keys:
            cands = [t for t in self.tiles.values() if t.key == k and self._in_scope(t)]
            if (
                len(cands) == 1
                and cands[0].base is None
                and cands[0].extent is None
                and (cands[0].full_extent is not None)
            ):
                # A whole dim of block next_power_of_2(n) spans n, whatever mask comes later.
                cands[0].extent = cands[0].full_extent
            if k == 1:
                dims.append(ir.UnitDim())
            elif len(cands) == 1 and (cands[0].base is not None or cands[0].extent is not None):
                dims.append(cands[0].dim)
            else:
                return Pending(keys, fill, dt.dtype, node)
        e = ir.Full(tuple(dims), ir.Const(fill), dt.dtype, loc=self.locate(node))
        return Data(e, tuple((d, float(fill)) for d in dims if not isinstance(d, ir.UnitDim)))

    def resolve_pending(self, v: Val, other: Val, node) -> Val:
        if not isinstance(v, Pending):
            return v
        if not isinstance(other, Data):
            raise self.error(
                v.node, "cannot tell which tiles the dims of this tl.zeros/tl.full belong to"
            )
        odims = dims_of(self.type_of(other.expr, node))
        return self.materialize(v, odims, node)

    def materialize(self, v: Pending, dims: tuple[ir.Dim, ...], node) -> Data:
        """Give a pending tl.zeros its dims and put its IR assignment where it was defined."""
        if len(dims) != len(v.keys):
            raise self.error(
                v.node, f"tl.zeros/tl.full of rank {len(v.keys)} meets a value of rank {len(dims)}"
            )
        for k, d in zip(v.keys, dims):
            if self.key_of_dim(d) != k:
                raise self.error(
                    v.node,
                    f"dim {k} of this tl.zeros/tl.full meets a dim of block {self.key_of_dim(d)}",
                )
            if isinstance(d, ir.BlockDim) and v.loop_depth < len(self.loops):
                tile = next(t for t in self.tiles.values() if t.name == d.tile)
                base = parse_sym(tile.base) if tile.base is not None else None
                if (
                    base is not None
                    and base.kind is SymKind.ITER
                    and base.index in [lp.id for lp in self.loops[v.loop_depth :]]
                ):
                    raise self.error(
                        v.node,
                        f"this accumulator spans the tiles of a loop ({tile.name}) it "
                        "is defined outside of",
                        "accumulate with `acc += v` and reduce it "
                        "with tl.sum(acc, axis=0) after the loop, or reduce inside the loop",
                    )
        full = ir.Full(tuple(dims), ir.Const(v.value), v.dtype, loc=self.locate(v.node))
        return self.place_pending(v, full)

    def place_pending(self, v: Pending, value: ir.Expr) -> Data:
        assert v.name is not None and v.site is not None
        irname = unique(v.name, self.taken)
        self.ir_locals.add(irname)
        stmts, pos = v.site
        stmt = ir.Assign(irname, value, loc=self.locate(v.node))
        stmts.insert(pos, stmt)
        self.types.vars[irname] = self.type_of(value, v.node)
        d = Data(
            ir.Name(irname),
            tuple((x, float(v.value)) for x in dims_of(self.types.vars[irname])),
            frozenset(),
        )
        # The pending value is placed where it was defined, so the placement holds on every
        # path from there: environments snapshotted before it (an `if`'s other branch) that
        # still hold the pending value read it as `d` (see ``placed``).
        self.inserted = getattr(self, "inserted", [])
        self.inserted.append((stmts, stmt, v, d))
        for scope in [self.env]:
            for k, val in list(scope.items()):
                if val is v:
                    scope[k] = d
        return d

    @handles("cast")
    def cast_call(self, name: str, node: cst.Call) -> Val:
        """``tl.cast(x, dtype)``: the function form of ``x.to(dtype)``."""
        args, kwargs = call_args(node)
        value = args[0] if args else kwargs.get("input")
        if value is None:
            raise self.error(node, "`tl.cast(x, dtype)` needs a value")
        return self.cast(name, self.ev(value), node, args[1:], kwargs, value)

    @handles_method("to", "cast")
    def cast_method(self, name: str, base: Val, node: cst.Call) -> Val:
        """``x.to(dtype)`` and ``x.cast(dtype)``."""
        args, kwargs = call_args(node)
        return self.cast(name, base, node, args, kwargs, node.func.value)

    def cast(
        self, name: str, base: Val, node: cst.Call, args: list, kwargs: dict, value_node
    ) -> Val:
        """A value cast to ``dtype``; an index cast to an integer dtype stays an index."""
        target = args[0] if args else kwargs.get("dtype")
        dt = self.ev(target) if target is not None else None
        if not isinstance(dt, DTypeVal):
            raise self.error(node, f"`{name}` takes a dtype")
        options = dict(zip(("fp_downcast_rounding", "bitcast"), args[1:])) | {
            k: v for k, v in kwargs.items() if k not in ("dtype", "input")
        }
        for key, option in options.items():
            if key not in ("fp_downcast_rounding", "bitcast"):
                raise self.error(option, f"unsupported `{name}` option `{key}=`")
            # Rounding to nearest even and a value cast are what every target's cast does.
            with contextlib.suppress(ValueError):
                if literal(option) in (None, False, "rtne"):
                    continue
            raise self.error(
                option,
                f"`{key}={self.src(option)}` is not supported yet: the IR casts values, "
                "rounding to nearest even",
                "write the cast without it, or keep this kernel in Triton",
            )
        if (
            isinstance(base, Idx)
            and isinstance(dt.dtype, ir.DType)
            and (dt.dtype.name in ir.INT_DTYPES)
        ):
            return Idx(ir.Cast(base.tree, dt.dtype))
        d = self.to_data(base, value_node)
        return Data(ir.Cast(d.expr, dt.dtype), cast_pads(d, dt.dtype), d.div)

    @handles(*_SHAPE_OPS)
    def shape_call(self, name: str, node: cst.Call) -> Data:
        """``tl.trans(x)``, ``tl.reshape(x, shape)`` and the other shape ops."""
        args, kwargs = call_args(node)
        if not args:
            raise self.error(node, f"tl.{name} needs a value")
        return self.shape_op(name, self.ev(args[0]), args[1:], kwargs, node)

    @handles_method(*_SHAPE_OPS)
    def shape_method(self, name: str, base: Val, node: cst.Call) -> Data:
        """``x.trans()``, ``x.reshape(shape)`` and the other shape ops as methods."""
        args, kwargs = call_args(node)
        return self.shape_op(name, base, args, kwargs, node)

    def shape_op(self, name: str, value: Val, args: list, kwargs: dict, node) -> Data:
        """``tl.trans``/``permute``/``expand_dims``/``reshape``/``view`` of a device value."""
        if isinstance(value, (Idx, Ptr)):
            raise self.error(
                node,
                f"`{name}` of offsets or pointers is not supported",
                "build offsets with `[:, None]` / `[None, :]` instead",
            )
        d = self.to_data(value, node)
        dims = dims_of(self.type_of(d.expr, node))
        if name in ("trans", "permute"):
            perm = self._int_tuple(args, node) if args else None
            if perm is None and "dims" in kwargs:
                perm = self._int_tuple([kwargs["dims"]], node)
            if perm is None:
                perm = tuple(reversed(range(len(dims))))
            if sorted(perm) != list(range(len(dims))):
                raise self.error(node, f"`{name}` needs a permutation of {len(dims)} dims")
            return Data(ir.Permute(d.expr, perm, loc=self.locate(node)), (), d.div)
        if name == "expand_dims":
            axes = self._int_tuple(args or [kwargs.get("axis")], node)
            e = d.expr
            rank = len(dims) + len(axes)
            for a in sorted(x % rank for x in axes):
                e = ir.ExpandDims(e, a)
            return Data(e, d.pads, d.div)
        shape = args[0] if len(args) == 1 and isinstance(args[0], (cst.List, cst.Tuple)) else None
        items = [e.value for e in shape.elements] if shape is not None else args
        keys = [self.block_key(x) for x in items]
        if name == "broadcast_to":
            target = self.dims_of_keys(keys, dims, node)
            e = ir.Broadcast(d.expr, target, loc=self.locate(node))
            self.type_of(e, node)
            return Data(e, d.pads, d.div)
        # reshape/view: only unit dims may come or go (the IR has no general reshapes).
        core = [x for x in dims if not isinstance(x, ir.UnitDim)]
        new: list[ir.Dim] = []
        it = iter(core)
        for k in keys:
            if k == 1:
                new.append(ir.UnitDim())
                continue
            nxt = next(it, None)
            if nxt is None or self.key_of_dim(nxt) != k:
                raise self.error(
                    node,
                    f"`{name}` to {keys} changes more than unit dims of a "
                    f"tile of blocks {[self.key_of_dim(x) for x in dims]}",
                    "the IR reshapes tiles only by adding or dropping dims of 1",
                )
            new.append(nxt)
        if next(it, None) is not None:
            raise self.error(node, f"`{name}` to {keys} drops a dim of the tile")
        return Data(ir.Reshape(d.expr, tuple(new), loc=self.locate(node)), d.pads, d.div)

    def _int_tuple(self, nodes: list, where) -> tuple[int, ...]:
        if len(nodes) == 1 and isinstance(nodes[0], (cst.List, cst.Tuple)):
            nodes = [e.value for e in nodes[0].elements]
        return tuple(self._int_literal(n, where) for n in nodes)


def cast_pads(d: Data, dtype: ir.DTypeExpr) -> tuple[tuple[ir.Dim, float], ...]:
    """What the invalid lanes of ``d`` hold once cast to ``dtype`` (where that is still known)."""
    if isinstance(dtype, ir.DType) and dtype.name in ir.FLOAT_DTYPES:
        return d.pads
    return tuple((k, v) for k, v in d.pads if math.isfinite(v) and float(int(v)) == v)
