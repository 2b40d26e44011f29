"""What out-of-bounds lanes hold, per value and per dimension: the knowledge that lets a backend
leave out a mask.

The IR says what every load pads with (``Load.other``) and whether a reduction or dot excludes the
invalid lanes (``masked``). A backend that writes a masked reduction as a plain one (or a dot of
unmasked operands) is exact only where the invalid lanes hold the reduction's identity (or make
every product 0). This module tracks that knowledge the way constant folding would:
:meth:`PadTracker.along` gives the :class:`Pad` of the lanes of a value that are invalid along one
dimension, or ``None`` when it is not known.

Mode ``"ir"`` pads loads with the IR's ``other``; a backend whose DSL pads loads with a fixed value
of its own adds a mode for it (Helion: ``{"helion": 0.0}``, to decide whether Helion 1.4's
``hl.dot``, which does not mask computed operands, may be used).

Scalars and values broadcast along a dim hold valid data there, unknown; what is known of their
sign (a scale the host asserts positive) is asked of the ``positive`` callback, so that
``-inf * scale`` stays ``-inf``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from translator.ir import nodes as ir
from translator.ir.ops import reduce_identity
from translator.ir.padding import fold_pad
from translator.ir.shapes import TileType, TypeEnv, dims_of, infer
from translator.ir.visit import walk_expr

Mode = str  # "ir", or a mode named in PadTracker's ``load_pads``
#: The mode in which a load that pads with nothing pads with NaN (:meth:`PadTracker.unread_along`).
UNREAD = "unread"


@dataclass(frozen=True)
class Pad:
    """The invalid lanes (along one dim) hold ``value``, except, where ``uniform`` is set, in
    rows whose every lane, valid or not, holds ``uniform``.

    The exception is what Triton's softmax idiom needs: ``x - max(x)`` with ``x`` padded with
    ``-inf`` is ``-inf`` on the invalid lanes unless the row max is ``-inf`` or NaN, and then
    every lane of the row is NaN.
    """

    value: float
    uniform: float | None = None

    def map(self, f: Callable[[float], float | None]) -> Pad | None:
        """``f`` applied lane-wise (to both the pad and the uniform rows)."""
        value = f(self.value)
        if value is None:
            return None
        if self.uniform is None:
            return Pad(value)
        uniform = f(self.uniform)
        return Pad(value, uniform) if uniform is not None else None


class PadTracker:
    """Padding knowledge of the device values of one kernel, updated statement by statement."""

    def __init__(
        self,
        env: Callable[[], TypeEnv],
        load_pads: dict[Mode, float] | None = None,
        positive: Callable[[ir.Expr], bool] | None = None,
    ) -> None:
        # ``env`` returns the writer's current type environment (it changes with scopes).
        self._env = env
        self._load_pads = dict(load_pads or {})
        self._modes: tuple[Mode, ...] = ("ir", *self._load_pads, UNREAD)
        self._positive = positive or (lambda e: False)
        self._vars: dict[Mode, dict[str, dict[ir.Dim, Pad | None]]] = {m: {} for m in self._modes}
        # name -> the expression it was bound to, for the row-max facts of `_bounds_row_max`
        self._defs: dict[str, ir.Expr] = {}

    # ------------------------------------------------------------------ bindings

    def bind(self, name: str, value: ir.Expr) -> None:
        """Record what ``name = value`` leaves in the invalid lanes of each of its dims."""
        dims = dims_of(infer(value, self._env()))
        pads = {mode: {d: self.along(value, d, mode) for d in dims} for mode in self._modes}
        self.forget({name})
        for mode in self._modes:
            self._vars[mode][name] = pads[mode]
        if not any(isinstance(x, ir.Name) and x.id == name for x in walk_expr(value)):
            self._defs[name] = value

    def forget(self, names: set[str]) -> None:
        """Drop what is known of ``names`` (values carried around a loop or set in a branch),
        and every fact that mentions them."""
        for mode in self._modes:
            for name in names:
                self._vars[mode].pop(name, None)
        stale = {
            n
            for n, e in self._defs.items()
            if n in names or any(isinstance(x, ir.Name) and x.id in names for x in walk_expr(e))
        }
        for n in stale:
            self._defs.pop(n, None)

    # ------------------------------------------------------------------ queries

    def along(self, e: ir.Expr, dim: ir.Dim, mode: Mode = "ir") -> Pad | None:
        """What the lanes of ``e`` that are invalid along ``dim`` hold, where known."""
        if isinstance(e, ir.Const):
            return Pad(float(e.value))
        t = infer(e, self._env())
        if not isinstance(t, TileType) or dim not in t.dims:
            # A value broadcast along ``dim`` holds valid (unknown) data in the invalid lanes.
            return None
        if isinstance(e, ir.Load):
            if mode == UNREAD:
                # Undefined lanes, marked NaN, which every op carries (fold_pad).
                return Pad(math.nan if e.other is None else e.other)
            if mode in self._load_pads:
                return Pad(self._load_pads[mode])
            return Pad(e.other) if e.other is not None else None
        if isinstance(e, ir.Full):
            return Pad(float(e.value.value)) if isinstance(e.value, ir.Const) else None
        if isinstance(e, ir.Name):
            return self._vars[mode].get(e.id, {}).get(dim)
        if isinstance(e, ir.Cast):
            pad = self.along(e.value, dim, mode)
            return pad.map(lambda v: _cast(v, e.dtype)) if pad else None
        if isinstance(e, (ir.ExpandDims, ir.Permute, ir.Reshape)):
            return self.along(e.value, dim, mode)
        if isinstance(e, ir.UnaryOp):
            pad = self.along(e.operand, dim, mode)
            op = "neg" if e.op == "-" else e.op
            return pad.map(lambda v: fold_pad(op, [v])) if pad else None
        if _is_lane_mask(e, dim, self._env()):
            return Pad(0.0)  # `tile.index < extent` is false exactly on the invalid lanes
        if isinstance(e, ir.BinOp) and e.op == "-" and self._bounds_row_max(e.rhs, e.lhs, dim):
            pad = self.along(e.lhs, dim, mode)
            if pad == Pad(float("-inf")):
                return Pad(float("-inf"), math.nan)
        if isinstance(e, ir.BinOp) and e.op == "*":
            scaled = self._scaled_infinity(e.lhs, e.rhs, dim, mode)
            scaled = scaled or self._scaled_infinity(e.rhs, e.lhs, dim, mode)
            if scaled is not None:
                return scaled
        if isinstance(e, (ir.BinOp, ir.Call)):
            operands = [e.lhs, e.rhs] if isinstance(e, ir.BinOp) else list(e.args)
            return self._combine(e.op, [self.along(a, dim, mode) for a in operands], operands)
        # Reductions over other axes, dots, aranges, tile indices: not one known value.
        return None

    def unread_along(self, e: ir.Expr, dim: ir.Dim) -> bool:
        """Whether the lanes of ``e`` invalid along ``dim`` hold what a load that pads with
        nothing (``Load.other`` is ``None``) leaves there, carried through as an undefined value
        would be (NaN): then the source itself reads lanes it never defined, which it does only
        where none exist (a whole-dim tile the launch makes exactly the dim's size), and any
        padding is as right. A value that other lanes decide (`where(valid, x, 1.0)`) or that
        mixes in what is not known is not."""
        pad = self.along(e, dim, UNREAD)
        return pad is not None and math.isnan(pad.value) and pad.uniform is None

    def _scaled_infinity(self, x: ir.Expr, scale: ir.Expr, dim: ir.Dim, mode: Mode) -> Pad | None:
        """``x * scale`` where ``x``'s invalid lanes hold an infinity and ``scale`` is broadcast
        along ``dim`` and above 0 (perhaps +inf): the same infinity (a positive softmax scale
        keeps masked scores at ``-inf``)."""
        pad = self.along(x, dim, mode)
        if pad is None or not math.isinf(pad.value) or pad.uniform is not None:
            return None
        t = infer(scale, self._env())
        spans = isinstance(t, TileType) and dim in t.dims
        return pad if not spans and self._positive(scale) else None

    def _combine(self, op: str, pads: list[Pad | None], operands: list[ir.Expr]) -> Pad | None:
        cond = pads[0]
        if (
            op == "where"
            and len(pads) == 3
            and cond is not None
            and cond.uniform is None
            and not math.isnan(cond.value)
        ):
            # The condition picks one branch on every invalid lane, uniform rows or not.
            return pads[1] if cond.value else pads[2]
        if any(p is None for p in pads):
            if op in _NAN_ABSORBING and any(
                p is not None and p.uniform is None and math.isnan(p.value) for p in pads
            ):
                return Pad(math.nan)  # NaN + anything (inf, NaN included) is NaN
            # 0 * x stays 0 for finite x; a known condition picks a branch: one unknown operand
            # may not matter.
            values = [p.value if p is not None and p.uniform is None else None for p in pads]
            folded = fold_pad(op, values)
            return Pad(folded) if folded is not None else None
        known = [p for p in pads if p is not None]
        uniform = [i for i, p in enumerate(known) if p.uniform is not None]
        if not uniform:
            folded = fold_pad(op, [p.value for p in known])
            return Pad(folded) if folded is not None else None
        # Uniform rows survive only ops whose other operands are constants (the same in every
        # lane), so that a uniform row stays uniform.
        if len(uniform) > 1 or any(
            not isinstance(o, ir.Const) for i, o in enumerate(operands) if i not in uniform
        ):
            return None
        i = uniform[0]
        args = [p.value for p in known]

        def apply(v: float) -> float | None:
            return fold_pad(op, args[:i] + [v] + args[i + 1 :])

        return known[i].map(apply)

    def _bounds_row_max(self, m: ir.Expr, x: ir.Expr, dim: ir.Dim) -> bool:
        """Whether ``m`` is broadcast along ``dim`` and, in every row, at least the max of ``x``
        over it (``max(x)``, ``maximum(max(x), anything)``, through names and unit dims)."""
        if isinstance(m, ir.Name) and m.id in self._defs:
            return self._bounds_row_max(self._defs[m.id], x, dim)
        if isinstance(m, ir.ExpandDims):
            return self._bounds_row_max(m.value, x, dim)
        if isinstance(m, ir.Call) and m.op == "maximum":
            return any(self._bounds_row_max(a, x, dim) for a in m.args)
        if isinstance(m, ir.BinOp) and m.op == "*" and isinstance(x, ir.BinOp) and x.op == "*":
            # max(v) * s is the row max of v * s for a scale s above 0 (FlashAttention's
            # `maximum(m_i, max(qk) * scale)` before `qk * scale - m_ij`).
            for mv, ms, xv, xs in ((m.lhs, m.rhs, x.lhs, x.rhs), (m.rhs, m.lhs, x.rhs, x.lhs)):
                if ms == xs and self._positive(ms) and self._bounds_row_max(mv, xv, dim):
                    return True
        if isinstance(m, ir.Reduce) and m.op == "max":
            if isinstance(m.value, ir.Reduce) and m.value.op == "max":
                # The max over more dims (cuTile's `ct.max(x)` without an axis) bounds each
                # row's max too.
                return self._bounds_row_max(m.value, x, dim)
            dims = dims_of(infer(m.value, self._env()))
            return dims[m.axis % len(dims)] == dim and self._same(m.value, x)
        return False

    def _same(self, a: ir.Expr, b: ir.Expr) -> bool:
        if a == b:
            return True
        # `x - max(xs)` where x and xs name the same value.
        a = self._defs.get(a.id, a) if isinstance(a, ir.Name) else a
        b = self._defs.get(b.id, b) if isinstance(b, ir.Name) else b
        return a == b and not isinstance(a, ir.Name)

    # ------------------------------------------------------------------ boundary checks

    def single_lane(self, dim: ir.Dim) -> bool:
        """Whether ``dim`` has no invalid lanes: a unit dim, or one lane per program (a scalar
        tile, a block of 1)."""
        if isinstance(dim, ir.UnitDim):
            return True
        tile = self._env().tiles.get(dim.tile) if isinstance(dim, ir.BlockDim) else None
        return tile is not None and (tile.scalar or tile.block == ir.Const(1))

    def reduction_is_exact(self, e: ir.Reduce, dim: ir.Dim) -> tuple[bool, Pad | None]:
        """Whether Helion's (masked) reduction gives the IR's unmasked one, and the pad seen."""
        if isinstance(dim, ir.BlockDim) and self.single_lane(dim):
            return True, None  # one row per program: no invalid lanes to leave out
        pad = self.along(e.value, dim, "ir")
        identity = reduce_identity(e.op)
        if pad is None or pad.value != identity:
            return False, pad
        if pad.uniform is None or e.op in ("max", "min", "argmax", "argmin"):
            return True, pad  # repeating a row's value changes no max or min
        u = pad.uniform
        # Repeating a uniform row's value changes its sum (product) unless it absorbs.
        absorbing = (
            (math.isnan(u) or math.isinf(u) or u == 0.0)
            if e.op == "sum"
            else (math.isnan(u) or u in (0.0, 1.0, math.inf))
        )
        return absorbing, pad

    def dot_k_lanes_vanish(self, dot: ir.Dot, mode: Mode) -> bool:
        """Whether every product over invalid contraction lanes is 0 (so they add nothing)."""
        ka = dims_of(infer(dot.lhs, self._env()))[-1]
        kb = dims_of(infer(dot.rhs, self._env()))[-2]
        pa, pb = self.along(dot.lhs, ka, mode), self.along(dot.rhs, kb, mode)
        if pa is None or pb is None or not _nan_rows(pa) or not _nan_rows(pb):
            # One zero operand is not enough when the other is unknown: 0 * inf is NaN.
            return False
        return (pa.value == 0.0 and math.isfinite(pb.value)) or (
            pb.value == 0.0 and math.isfinite(pa.value)
        )


#: Binary ops whose result is NaN when one operand is, whatever the other holds (IEEE; torch's
#: maximum and minimum propagate NaN). Not `**` (NaN ** 0 is 1), not comparisons.
_NAN_ABSORBING = frozenset({"+", "-", "*", "/", "maximum", "minimum"})


def lane_mask(dim: ir.Dim, env: TypeEnv) -> ir.Expr | None:
    """The IR's mask of the valid lanes of ``dim`` (what :func:`_is_lane_mask` recognises):
    ``tile.index < extent``, or ``arange(dim) < extent`` for a whole dim; ``None`` for a dim
    without invalid lanes (a unit dim, a scalar tile)."""
    if isinstance(dim, ir.FullDim):
        return ir.BinOp("<", ir.Arange(dim), dim.extent)
    if isinstance(dim, ir.BlockDim):
        tile = env.tiles.get(dim.tile)
        if tile is not None and not tile.scalar:
            return ir.BinOp("<", ir.TileAttr(tile.name, "index"), tile.extent)
    return None


def names_read_unmasked(body: tuple[ir.Stmt, ...]) -> set[str]:
    """The names whose invalid lanes an unmasked reduction or dot of ``body`` may read: those
    it names, and, closed over assignments, the names each of them is computed from. Their
    padding is what the frontend proved: a backend must not give them other padding."""
    from translator.ir.renaming import names_in
    from translator.ir.visit import all_exprs, walk_stmts

    read: set[str] = set()
    for e in all_exprs(body):
        if isinstance(e, ir.Reduce) and not e.masked:
            read |= names_in(e.value)
        elif isinstance(e, ir.Dot) and not e.masked:
            read |= names_in(e.lhs) | names_in(e.rhs)
    sources: dict[str, set[str]] = {}
    for st in walk_stmts(body):
        if isinstance(st, ir.Assign):
            sources.setdefault(st.target, set()).update(names_in(st.value))
    todo = list(read)
    while todo:
        for src in sources.get(todo.pop(), ()):
            if src not in read:
                read.add(src)
                todo.append(src)
    return read


def _is_lane_mask(e: ir.Expr, dim: ir.Dim, env: TypeEnv) -> bool:
    """Whether ``e`` is ``tile.index < extent`` for the tile that ``dim`` spans, or
    ``arange(d) < extent`` for a whole dim ``d`` of that extent (either perhaps given a unit
    dim: ``expand_dims(tile.index, -1) < extent`` masks the same lanes along ``dim``, and so
    does ``expand_dims(tile.index < extent, 0)``)."""
    while isinstance(e, ir.ExpandDims):
        e = e.value
    if isinstance(e, ir.BinOp) and e.op == "<" and isinstance(e.lhs, ir.ExpandDims):
        e = ir.BinOp("<", e.lhs.value, e.rhs)
    if (
        isinstance(e, ir.BinOp)
        and e.op == "<"
        and isinstance(e.lhs, ir.Arange)
        and isinstance(dim, ir.FullDim)
        and e.lhs.dim == dim
        and e.rhs == dim.extent
    ):
        return True
    if not (
        isinstance(e, ir.BinOp)
        and e.op == "<"
        and isinstance(e.lhs, ir.TileAttr)
        and e.lhs.attr == "index"
        and dim == ir.BlockDim(e.lhs.tile)
    ):
        return False
    tile = env.tiles.get(e.lhs.tile)
    return tile is not None and not tile.scalar and e.rhs == tile.extent


def _nan_rows(pad: Pad) -> bool:
    """Whether the rows excepted from ``pad`` (if any) hold NaN in every lane: such a row's
    products are NaN whether or not its invalid lanes are left out."""
    return pad.uniform is None or math.isnan(pad.uniform)


def _cast(pad: float, dtype: ir.DTypeExpr) -> float | None:
    if isinstance(dtype, ir.DType) and dtype.name not in ir.FLOAT_DTYPES:
        if not math.isfinite(pad):
            return None
        return float(bool(pad)) if dtype.name == "bool" else float(math.trunc(pad))
    return pad
