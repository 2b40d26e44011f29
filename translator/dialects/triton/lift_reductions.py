"""Reductions, scans and per-lane accumulators.

A reduction runs over the padded lanes as Triton computes it (``masked=False``) where the IR's
block is the source's; where the block is a stand-in for one the host computes, the padded
lanes must provably hold the reduction's identity, and the reduction is ``masked=True``.
"""

from __future__ import annotations

import math

import libcst as cst

from translator.diagnostics import TranslationError
from translator.dialects.cst_utils import call_args, literal, resolve
from translator.dialects.triton.lift_dispatch import handles, handles_family, handles_method
from translator.dialects.triton.lift_statements import is_return, suite_body
from translator.dialects.triton.lifted import Data, LaneAcc, Pending, Val
from translator.ir import nodes as ir
from translator.ir.ops import integer_identity, reduce_identity
from translator.ir.shapes import dims_of, dtype_of


class ReductionsMixin:
    """Reductions, scans and lane accumulators of :class:`KernelLifter`."""

    @handles_family("reductions")
    def reduction_call(self, name: str, op: str, node: cst.Call) -> Val:
        """``tl.sum(x, axis)`` and the other names of ``[frontend.reductions]``."""
        return self.reduction(op, node)

    @handles_method("sum", "max", "min")
    def reduction_method(self, name: str, base: Val, node: cst.Call) -> Val:
        """``x.sum(axis)``, ``x.max(axis)``, ``x.min(axis)`` of device data."""
        if not isinstance(base, Data):
            raise self.error(node, f"unsupported method `.{name}()` in a kernel")
        return self.reduction(name, node, base)

    def reduction(self, op: str, node: cst.Call, value: Data | None = None) -> Val:
        """The reduction ``op`` of ``tl.<op>(x, axis, keep_dims=...)`` (of ``value`` for a method)."""
        args, kwargs = call_args(node)
        if value is None:
            if not args:
                raise self.error(node, f"tl.{op} needs a value")
            v = self.ev(args[0])
            rest = args[1:]
        else:
            v, rest = value, args
        axis_node = rest[0] if rest else kwargs.get("axis")
        keep = kwargs.get("keep_dims")
        for k in kwargs:
            if k not in ("axis", "keep_dims"):
                raise self.error(node, f"unsupported keyword `{k}=` to tl.{op}")
        keepdim = bool(literal(keep)) if keep is not None else False
        if isinstance(v, LaneAcc):
            if (
                op != "sum"
                or keepdim
                or (axis_node is None and (v.axis != 0 or v.rank != 1))
                or (axis_node is not None and self._int_literal(axis_node, node) != v.axis)
            ):
                raise self.error(
                    node, f"a per-lane accumulator is read as tl.sum(acc, axis={v.axis})"
                )
            if any(lp.id == v.loop for lp in self.loops):
                raise self.error(node, "read the per-lane accumulator after its loop")
            return Data(ir.Name(v.name))
        d = self.to_data(v, node)
        dims = dims_of(self.type_of(d.expr, node))
        if axis_node is None or (isinstance(axis_node, cst.Name) and axis_node.value == "None"):
            if len(dims) != 1:
                raise self.error(
                    node, f"tl.{op} without axis= over a {len(dims)}-d tile", "give the axis"
                )
            axis = 0
        else:
            axis = self._axis(op, axis_node, node)
        return self.reduce(op, d, axis, keepdim, node)

    def _axis(self, op: str, axis_node: cst.BaseExpression, node: cst.Call) -> int:
        """The integer ``axis`` of a reduction; a value there is a located refusal that names
        the element-wise form (``tl.max(m, x)`` reads ``x`` as the axis)."""
        try:
            return self._int_literal(axis_node, node)
        except TranslationError:
            pairwise = {"max": "maximum", "min": "minimum"}.get(op)
            # Triton itself rejects this call (`_wrap_axis` compares the axis with the rank
            # when the kernel compiles; the interpreter says "axis ... out of bounds"), so the
            # source never ran it: say so rather than only what tiletrans wants.
            raise self.error(
                axis_node,
                f"the axis of `tl.{op}` must be an integer, not `{self.src(axis_node)}`: "
                f"`{self.src(node)}` is not valid Triton (the second argument of `tl.{op}` is "
                "the axis, and Triton rejects a value there when it compiles the kernel)",
                f"for the element-wise {pairwise} of two values write "
                f"`tl.{pairwise}({', '.join(self.src(a.value) for a in node.args[:2])})`"
                if pairwise
                else "give the axis as an integer literal",
            ) from None

    @handles_family("scans")
    def scan(self, name: str, op: str, node: cst.Call) -> Data:
        """``tl.cumsum(x, axis=0, reverse=False)``: a forward inclusive scan. The padded lanes
        follow the valid ones, so they never reach a valid result."""
        args, kwargs = call_args(node)
        names = ["input", "axis", "reverse"]
        bound = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names:
                raise self.error(v, f"unsupported keyword `{k}=` to tl.cum{op}")
            bound[k] = v
        if "input" not in bound:
            raise self.error(node, f"tl.cum{op} needs a value")
        reverse = bound.get("reverse")
        if reverse is not None and literal(reverse):
            raise self.error(
                reverse,
                "reverse scans are not supported yet",
                "flip the data with index arithmetic and scan forward",
            )
        d = self.to_data(self.ev(bound["input"]), node)
        dims = dims_of(self.type_of(d.expr, node))
        axis = self._int_literal(bound["axis"], node) if "axis" in bound else 0
        if not dims or not -len(dims) <= axis < len(dims):
            raise self.error(node, f"tl.cum{op} along axis {axis} of a {len(dims)}-d value")
        dim = dims[axis % len(dims)]
        e = ir.Scan(op, d.expr, axis % len(dims), loc=self.locate(node))
        self.type_of(e, node)
        # Valid lanes are exact; what padded lanes hold depends on the pads, as for any op.
        return Data(e, (), d.div | ({dim} if d.pad(dim) is None else frozenset()))

    @handles("reduce")
    def combine_reduction(self, name: str, node: cst.Call) -> Data:
        """``tl.reduce(x, axis, combine_fn)`` whose combine function is a sum, product, max or
        min of its two arguments: that reduction."""
        args, kwargs = call_args(node)
        names = ["input", "axis", "combine_fn", "keep_dims"]
        bound = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names:
                raise self.error(v, f"unsupported keyword `{k}=` to tl.reduce")
            bound[k] = v
        fn = bound.get("combine_fn")
        op = _combine_op(
            self.launch.kernel.module.jit_helpers.get(fn.value)
            if isinstance(fn, cst.Name)
            else None,
            self.aliases,
            self.lang,
        )
        if op is None:
            raise self.error(
                fn or node,
                "tl.reduce with this combine function is not supported",
                "combine with `a + b`, `a * b`, `tl.maximum(a, b)` or "
                "`tl.minimum(a, b)` (or call tl.sum/tl.max/tl.min)",
            )
        value = self.to_data(self.ev(bound["input"]), node)
        axis_node = bound.get("axis")
        if axis_node is None or (isinstance(axis_node, cst.Name) and axis_node.value == "None"):
            raise self.error(node, "tl.reduce over all axes is not supported", "give the axis")
        keep = bound.get("keep_dims")
        return self.reduce(
            op,
            value,
            self._int_literal(axis_node, node),
            bool(literal(keep)) if keep is not None else False,
            node,
        )

    def reduce(self, op: str, d: Data, axis: int, keepdim: bool, node) -> Data:
        dims = dims_of(self.type_of(d.expr, node))
        if not dims:
            raise self.error(node, f"tl.{op} of a scalar")
        axis = axis % len(dims)
        dim = dims[axis]
        # argmax/argmin: padded lanes holding -inf/+inf lie past the real ones, and ties go to
        # the first index, so they never win; masked and unmasked agree as for max/min.
        identity = (
            reduce_identity(op) if op in ("sum", "max", "min", "prod", "argmax", "argmin") else None
        )
        if (
            d.where_of is not None
            and d.where_of[0] == dim
            and identity is not None
            and (
                _same_float(d.pad(dim), identity)  # type: ignore[arg-type]
                or d.pad(dim) == self._integer_identity(d.where_of[1], identity, node)
            )
        ):
            # `tl.max(tl.where(offs < n, x, -inf))` is the masked reduction of x.
            inner = d.where_of[1]
            d = Data(
                inner.expr,
                tuple((k, identity) if k == dim else (k, v) for k, v in inner.pads),
                inner.div - {dim},
            )
            if dim not in dict(d.pads):
                d = Data(d.expr, d.pads + ((dim, identity),), d.div)
        masked = self.padded_lanes_ok(d, dim, identity, node, f"tl.{op}")
        e = ir.Reduce(op, d.expr, axis, keepdim, masked=masked, loc=self.locate(node))
        self.type_of(e, node)
        rest = frozenset(x for x in d.div if x != dim)
        return Data(e, (), rest)

    def _integer_identity(self, d: Data, identity: float, node) -> int | None:
        """The lowest/highest integer of ``d``'s dtype that stands for an infinite identity."""
        dt = dtype_of(self.type_of(d.expr, node))
        return integer_identity(identity, dt.name) if isinstance(dt, ir.DType) else None

    def padded_lanes_ok(
        self, d: Data, dim: ir.Dim, identity: float | None, node, what: str
    ) -> bool:
        """Whether to reduce ``dim`` with ``masked=True``; refuses what cannot be exact."""
        if isinstance(dim, ir.UnitDim):
            return False
        pad = d.pad(dim)
        if (
            identity is not None
            and pad is not None
            and _same_float(pad, identity)
            and (dim not in d.div)
        ):
            return True  # the padded lanes hold the identity: masked and unmasked agree
        if (
            identity == float("-inf")
            and pad is not None
            and pad <= 0.0
            and dim not in d.div
            and _never_negative(d.expr)
        ):
            # `tl.max(tl.abs(x))` over lanes loaded with other=0: no value is below the padding,
            # so leaving the padded lanes out (as Helion does) finds the same maximum.
            return True
        tile = self.tile_of_dim(dim)
        if tile is not None and tile.whole_blocks:
            # The host makes the extent a multiple of the block: every lane is in bounds on
            # the sizes it accepts, so leaving out lanes past the end changes nothing.
            return True
        exact = tile is None or tile.exact
        if exact:
            if dim in d.div:
                raise self.error(
                    node,
                    f"{what} runs over lanes past the end of {self._dim_text(dim)} whose "
                    "values the IR cannot reproduce (a load without other=, a block pointer "
                    "load without padding_option=, or wrapped offsets)",
                    'load with other= the reduction\'s identity (`padding_option="zero"` for a '
                    "block pointer: without it Triton leaves the lanes past the end undefined)",
                )
            return False
        pad = d.pad(dim)
        if identity is None or pad is None or not _same_float(pad, identity):
            raise self.error(
                node,
                f"{what} runs over the padded lanes of {self._dim_text(dim)}, whose block "
                "size the host computes; the padded lanes must hold the reduction's identity "
                f"({identity}), but they hold {pad if pad is not None else 'unknown values'}",
                "load with other= the identity, or pass the block size as a literal",
            )
        return True

    def lane_accumulate(self, name: str, acc: Pending | LaneAcc, value: Val, node) -> None:
        """``acc += v`` with ``acc = tl.zeros([B])`` from before the loop whose tile ``v`` spans."""
        v = self.to_data(value, node)
        dims = dims_of(self.type_of(v.expr, node))
        if isinstance(acc, Pending):
            loop = self.loops[-1] if self.loops else None
            axes = [
                a
                for a, d in enumerate(dims)
                if loop is not None
                and loop.tile is not None
                and isinstance(d, ir.BlockDim)
                and d.tile == loop.tile.name
            ]
            if (
                loop is not None
                and len(axes) == 1
                and acc.loop_depth < len(self.loops)
                and len(acc.keys) == len(dims)
                and all(self.key_of_dim(d) == k for d, k in zip(dims, acc.keys))
            ):
                (axis,) = axes
                if acc.value != 0:
                    raise self.error(acc.node, "a per-lane sum accumulator must start at 0")
                kept = tuple(d for a, d in enumerate(dims) if a != axis)
                zero: ir.Expr = ir.Full(kept, ir.Const(0.0), acc.dtype) if kept else ir.Const(0.0)
                if not kept and acc.dtype != ir.F32:
                    zero = ir.Cast(zero, acc.dtype)
                data = self.place_pending(acc, zero)
                assert isinstance(data.expr, ir.Name)
                acc = LaneAcc(data.expr.id, loop.id, axis, len(dims))
            if isinstance(acc, Pending):
                self.assign(
                    cst.Name(name),
                    self.binop("+", self.resolve_pending(acc, v, node), v, node),
                    node,
                )
                return
        assert isinstance(acc, LaneAcc)
        if not self.loops or self.loops[-1].id != acc.loop:
            raise self.error(node, f"`{name}` accumulates lanes of another loop")
        total = self.reduce("sum", v, acc.axis, False, node)
        e = ir.BinOp("+", ir.Name(acc.name), total.expr, loc=self.locate(node))
        t = self.type_of(e, node)
        if dtype_of(t) != self.types.vars[acc.name].dtype:  # type: ignore[union-attr]
            e = ir.Cast(e, dtype_of(self.types.vars[acc.name]))
        self.out.append(ir.Assign(acc.name, e, loc=self.locate(node)))
        self.env[name] = acc


def _combine_op(fn: cst.FunctionDef | None, aliases: dict, lang: str) -> str | None:
    """The IR reduction a ``tl.reduce`` combine function computes: ``return a + b`` (sum),
    ``a * b`` (prod), ``tl.maximum(a, b)`` (max), ``tl.minimum(a, b)`` (min)."""
    if fn is None or len(fn.params.params) != 2:
        return None
    body = [
        s
        for s in suite_body(fn.body)
        if not (
            isinstance(s, cst.SimpleStatementLine)
            and isinstance(s.body[0], cst.Expr)
            and isinstance(s.body[0].value, cst.SimpleString)
        )
    ]
    if len(body) != 1 or not is_return(body[0]):
        return None
    e = body[0].body[0].value  # type: ignore[attr-defined]
    a, b = (p.name.value for p in fn.params.params)

    def operands(x: cst.BaseExpression, y: cst.BaseExpression) -> bool:
        names = {getattr(x, "value", None), getattr(y, "value", None)}
        return isinstance(x, cst.Name) and isinstance(y, cst.Name) and names == {a, b}

    if isinstance(e, cst.BinaryOperation) and operands(e.left, e.right):
        return {cst.Add: "sum", cst.Multiply: "prod"}.get(type(e.operator))
    if isinstance(e, cst.Call) and len(e.args) == 2 and operands(e.args[0].value, e.args[1].value):
        return {f"{lang}.maximum": "max", f"{lang}.minimum": "min"}.get(
            resolve(e.func, aliases) or ""
        )
    return None


def _same_float(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


#: Pointwise ops whose result is never negative (NaN aside), whatever their operands.
_NONNEGATIVE_OPS = ("abs", "exp", "exp2", "sqrt", "sigmoid")


def _never_negative(e: ir.Expr) -> bool:
    """Whether float expression ``e`` is never below zero: ``|x|``, ``exp``, ``x * x``,
    ``maximum(x, c)`` with ``c >= 0``, and casts and broadcasts of those."""
    if isinstance(e, ir.Const):
        return isinstance(e.value, (int, float)) and e.value >= 0
    if isinstance(e, (ir.Cast, ir.ExpandDims, ir.Broadcast)):
        return _never_negative(e.value)
    if isinstance(e, ir.Call) and e.op in _NONNEGATIVE_OPS:
        return True
    if isinstance(e, ir.Call) and e.op == "maximum":
        return any(_never_negative(a) for a in e.args)
    if isinstance(e, ir.BinOp) and e.op == "*" and e.lhs == e.rhs:
        return True
    if isinstance(e, ir.BinOp) and e.op in ("*", "+", "/"):
        return _never_negative(e.lhs) and _never_negative(e.rhs)
    return False
