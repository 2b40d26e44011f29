"""Helion expressions, torch calls: functions and tensor methods (pointwise ops, reductions,
scans, composites such as softmax lowered into IR primitives, matmuls, layout changes, ``*_like``
constructors), dispatched through the grammar tables of ``grammars/helion.toml``; ``hl.*`` calls
go to :mod:`translator.dialects.helion.language`.

A mixin of :class:`translator.dialects.helion.expressions.ExprBuilder`, which holds the state the
methods read (``self.scope``, ``self.grammar``, ``self.dot_precision``...); split out so that
each file reads one part of an expression.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from translator.diagnostics import TranslationError
from translator.dialects.cst_utils import call_args, literal_or_none, source_of
from translator.ir import nodes as ir
from translator.ir.ops import POINTWISE_OPS
from translator.ir.printer import format_expr
from translator.ir.shapes import (
    IRTypeError,
    TileType,
    dims_of,
    dot_precision,
    dtype_of,
    infer,
    promote,
    torch_dtype,
)

# torch's `*_like` constructors, read in device code as tiles of another tile's dims: the fill.
_TILE_LIKE: dict[str, float | None] = {
    "torch.zeros_like": 0.0,
    "torch.ones_like": 1.0,
    "torch.empty_like": 0.0,
    "torch.full_like": None,
}

# Tensor methods that build a new tile in device code (`weight.new_zeros(n, dtype=...)`), as
# Helion reads them: `hl.full` of the given shape, in the base's dtype unless `dtype=` says.
# The fill, or `None` where it is the method's second argument (`new_full(shape, value)`);
# `new_empty` holds nothing the source may read, so zeros serve.
_NEW_FILLED: dict[str, float | None] = {
    "new_zeros": 0.0,
    "new_ones": 1.0,
    "new_empty": 0.0,
    "new_full": None,
}


class CallReader:
    """Calls of torch functions and tensor methods, as IR expressions."""

    def _call(self, node: cst.Call) -> ir.Expr:
        func = node.func
        if self.is_helper_call(node):
            return self.inline_value(node)
        name = self.qualname(func)
        g = self.grammar["frontend"]
        if name in g.get("unsupported", {}):
            lang = name.startswith("helion.language.")
            spelt = f"hl.{name.removeprefix('helion.language.')}" if lang else name
            raise self.error(node, f"`{spelt}` is not supported yet", g["unsupported"][name])
        try:
            args, kwargs = call_args(node)
        except TranslationError as err:
            raise self.error(node, err.message) from None
        if name == "typing.cast" and len(args) == 2 and not kwargs:
            return self.expr(args[1])  # a type checker's note: the value itself
        if name in ("float", "int") and len(args) == 1:
            value = literal_or_none(node)
            if value is not None:
                return ir.Const(value, loc=self.locate(node))
        if name is not None:
            for table, handler in _GRAMMAR_CALLS:
                if name in g[table]:
                    return handler(self, g[table][name], args, kwargs, node)
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
            if name == "torch.var":
                return self._var_mean(args, kwargs, node)[0]
            if name == "torch.var_mean":
                raise self.error(
                    node,
                    "`torch.var_mean` returns two values",
                    "unpack it into two names: `var, mean = torch.var_mean(...)`",
                )
            if name in _TILE_LIKE and self.device:
                return self._tile_like(_TILE_LIKE[name], args, kwargs, node)
            if name in ("min", "max") and len(args) == 2 and not kwargs:
                # Python's min/max of two numbers (a tile's clipped end, say).
                return self._pointwise(
                    "minimum" if name == "min" else "maximum", args, kwargs, node
                )
        if isinstance(func, cst.Attribute):
            return self._method(func, args, kwargs, node)
        if isinstance(func, cst.Name) and self.device:
            raise self.error(
                node,
                f"a call of `{func.value}` in device code: tiletrans reads torch and "
                "helion.language calls there, not functions of the module",
                f"write the body of `{func.value}` in the loop",
            )
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
                    return self.host_shape(base.value, "x.size()", node)
                dim = literal_or_none(args[0])
                if not isinstance(dim, int):
                    raise self.error(node, "size index must be an integer literal")
                return self.scope.size_expr(base.value, dim)
            rank = self.scope.rank(base.value)
            flat = self.scope.flat_views.get(base.value)
            if method == "numel" and not args and rank is None and flat is not None:
                return self.scope.size_expr(flat, 0)  # the size of its one-dim view
            if method == "numel" and not args and rank is not None and not self.device:
                # The product of the sizes (`hl.tile(x.numel())` over a flattened view).
                total: ir.Expr = ir.Const(1)
                for d in range(rank):
                    size = self.scope.size_expr(base.value, d)
                    total = size if d == 0 else ir.BinOp("*", total, size, loc=self.locate(node))
                return total
            if method == "dim" and not args and rank is not None:
                return ir.Const(rank)
            if method in ("stride", "numel", "dim"):
                raise self.error(
                    node,
                    f"`{source_of(node)}` is not supported in kernels",
                    "compute it on the host from sizes (`m, n = x.size()`, then `m * n`)",
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
        if method == "masked_fill":
            return self._masked_fill(base, args, kwargs, node)
        if method == "size" and self.device and len(args) == 1 and not kwargs:
            return self._tile_size(self.expr(base), args[0], node)
        if method in ("contiguous", "clone") and not args and not kwargs:
            # A tile has no layout, and a device value is never aliased: the value itself.
            return self.expr(base)
        if method in ("reshape", "view"):
            return self._reshape(method, self.expr(base), args, kwargs, node)
        if method in _NEW_FILLED and self.device:
            return self._new_filled(_NEW_FILLED[method], base, args, kwargs, node)
        if method == "register_tunable":
            raise self.error(
                node,
                "hl.register_tunable is read only as the value of a host assignment of its own",
                'bind it before the loops: `split_k = hl.register_tunable("split_k", '
                "PowerOfTwoFragment(1, 64))`",
            )
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

    def _new_filled(
        self,
        fill: float | None,
        base: cst.BaseExpression,
        args: list,
        kwargs: dict,
        node: cst.Call,
    ) -> ir.Expr:
        """``x.new_zeros(shape, dtype=...)`` (``new_ones``, ``new_full(shape, v)``,
        ``new_empty``) in device code: a tile of ``shape`` (a size, or a list of tiles and
        sizes), in ``x``'s dtype unless ``dtype=`` gives one."""
        kwargs = dict(kwargs)
        shape_node = kwargs.pop("size", args[0] if args else None)
        if shape_node is None:
            raise self.error(node, f"`{source_of(node)}` needs a shape")
        if fill is None:
            value_node = kwargs.pop("fill_value", args[1] if len(args) > 1 else None)
            if value_node is None:
                raise self.error(node, f"`{source_of(node)}` needs a fill value")
            filled = self.expr(value_node)
        else:
            filled = ir.Const(fill)
        dtype_node = kwargs.pop("dtype", None)
        kwargs.pop("device", None)
        if kwargs:
            raise self.error(node, f"unsupported keyword arguments {sorted(kwargs)}")
        if not isinstance(shape_node, (cst.List, cst.Tuple)):
            shape_node = cst.List([cst.Element(shape_node)])  # one size: a 1-d tile
        shape = self.tile_shape(shape_node)
        if dtype_node is not None:
            dtype = self.dtype(dtype_node)
        elif isinstance(base, cst.Name) and self.scope.is_tensor(base.value):
            dtype = ir.DTypeOf(base.value)
        else:
            dtype = dtype_of(self.type_of(self.expr(base), node))
        return ir.Full(shape, filled, dtype, loc=self.locate(node))

    def _squeeze(self, value: ir.Expr, args: list, kwargs: dict, node: cst.Call) -> ir.Expr:
        """``v.squeeze(d)`` of a device tile: torch drops dim ``d`` where it has size 1 and
        leaves ``v`` as it is otherwise. A tile's dim is kept: Helion reads its block size as a
        symbol, not the number a config picks, so ``x[tile].squeeze(0)`` is ``x[tile]`` even at
        block size 1 (as Helion's MoE example reads its row ids)."""
        t = self.type_of(value, node)
        dims = dims_of(t)
        dim_node = kwargs.get("dim", args[0] if args else None)
        dim = literal_or_none(dim_node) if dim_node is not None else None
        if not isinstance(dim, int) or not -len(dims) <= dim < len(dims):
            raise self.error(node, "`.squeeze()` needs the integer dim to drop", "v.squeeze(1)")
        d = dim % len(dims)
        kept = dims[d]
        extent = kept.extent if isinstance(kept, ir.FullDim) else None
        if isinstance(kept, ir.UnitDim) or extent == ir.Const(1):
            return ir.Reshape(value, dims[:d] + dims[d + 1 :], loc=self.locate(node))
        if isinstance(kept, ir.BlockDim) or (
            isinstance(extent, ir.Const) and isinstance(extent.value, int)
        ):
            return value  # a tile's block, or a fixed size other than 1: nothing to drop
        raise self.error(
            node,
            f"`{source_of(node)}` squeezes a whole dim of `{format_expr(extent)}` elements: "
            "torch drops it where that size is 1 at run time and keeps it otherwise, and "
            "tiletrans cannot tell which",
            f"drop the `.squeeze({dim})` where the dim is never 1, or index it with 0 where it "
            "always is",
        )

    def _tile_size(self, value: ir.Expr, dim_node: cst.BaseExpression, node: cst.Call) -> ir.Expr:
        """``v.size(d)`` of a device tile: a tile's block size (Helion's tiles are blocks, the
        last one padded), a whole dim's extent, or 1."""
        dims = dims_of(self.type_of(value, node))
        dim = literal_or_none(dim_node)
        if not isinstance(dim, int) or not -len(dims) <= dim < len(dims):
            raise self.error(node, "`.size()` of a tile needs an integer dim of it", "v.size(0)")
        d = dims[dim % len(dims)]
        if isinstance(d, ir.BlockDim):
            return ir.TileAttr(d.tile, "block_size", loc=self.locate(node))
        if isinstance(d, ir.FullDim):
            return d.extent
        return ir.Const(1, loc=self.locate(node))

    def _masked_fill(
        self, base: cst.BaseExpression, args: list, kwargs: dict, node: cst.Call
    ) -> ir.Expr:
        """``v.masked_fill(mask, value)``: ``value`` where ``mask`` holds, ``v`` elsewhere, in
        ``v``'s dtype (torch converts the fill to it, where ``torch.where`` would promote)."""
        mask_node = kwargs.pop("mask", args[0] if args else None)
        fill_node = kwargs.pop("value", args[1] if len(args) > 1 else None)
        if mask_node is None or fill_node is None or kwargs or len(args) > 2:
            raise self.error(
                node, "`.masked_fill()` takes a mask and a value", "v.masked_fill(m, 0)"
            )
        value = self.expr(base)
        t = self.type_of(value, node)
        if not isinstance(t, TileType):
            raise self.error(node, "`.masked_fill()` of a scalar", "use torch.where(mask, x, v)")
        loc = self.locate(node)
        where = ir.Call("where", (self.expr(mask_node), self.expr(fill_node), value), loc=loc)
        if dtype_of(self.type_of(where, node)) == dtype_of(t):
            return where
        return ir.Cast(where, dtype_of(t), loc=loc)

    def _layout(self, method: str, value: ir.Expr, args: list, node: cst.Call) -> ir.Expr:
        """``transpose``/``permute``/``t``/``unsqueeze`` of a device tile."""
        t = self.type_of(value, node)
        rank = len(dims_of(t))
        if rank == 0:
            of = source_of(node.func.value) if isinstance(node.func, cst.Attribute) else "it"
            raise self.error(
                node,
                f"`.{method}()` of `{of}`, which is no tile",
                f"apply `.{method}()` to a tensor in the host code before the kernel's loops "
                "(as a view the loops index), or to a tile inside them",
            )
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
        call = ir.Call(op, tuple(values), loc=self.locate(node))
        narrow = self._narrow_float(op, values, node)
        # torch computes a float op of fp16/bf16 tensors in float32 and rounds the result back
        # to their dtype (Helion's generated code casts back too); the IR's float ops give
        # float32, so the rounding is written out.
        return call if narrow is None else ir.Cast(call, narrow, loc=self.locate(node))

    def _narrow_float(self, op: str, values: list[ir.Expr], node: cst.Call) -> ir.DTypeExpr | None:
        """The dtype torch rounds ``op(values)`` to when that is narrower than the IR's float32
        (fp16, bf16, or a tensor's dtype not known here), else None."""
        info = POINTWISE_OPS.get(op)
        if info is None or info.result != "float":
            return None
        dtype = torch_dtype([self.type_of(v, node) for v in values])
        if dtype is None:
            return None  # on numbers: Python floats, float32 in the IR and on the GPU alike
        if isinstance(dtype, ir.DTypeOf) or (
            isinstance(dtype, ir.DType) and dtype.name in ("float16", "bfloat16")
        ):
            return dtype
        return None

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
        if isinstance(args[0], cst.Name) and args[0].value in self.scope.lane_sums:
            # The sum of a per-lane sum's lanes: the IR's accumulator already holds it.
            axis, rank = self.scope.lane_sums[args[0].value]
            asked, keep = self._reduce_axis(args, kwargs, node, rank)
            if op != "sum" or asked != axis or keep:
                raise self.error(
                    node,
                    f"`{args[0].value}` sums lanes over a loop: read it as its sum over dim {axis}",
                    f"`{args[0].value}.sum({axis - rank})`",
                )
            return ir.Name(args[0].value)
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

    def tuple_call(self, node: cst.Call) -> tuple[ir.Expr, ...] | None:
        """The values of a call that returns a tuple (``torch.var_mean``), ``None`` for any
        other call."""
        if self.is_helper_call(node):
            return self.inline_values(node)
        if self.qualname(node.func) != "torch.var_mean":
            return None
        args, kwargs = call_args(node)
        return self._var_mean(args, kwargs, node)

    def _var_mean(self, args: list, kwargs: dict, node: cst.Call) -> tuple[ir.Expr, ir.Expr]:
        """``torch.var_mean(x, dim=d, correction=c)`` (``torch.var``'s value first): the mean
        over a whole dim, then the sum of squared deviations over ``extent - c`` (torch's
        default ``c`` is 1; ``unbiased=False`` is 0)."""
        if len(args) > 2:
            # torch.var(x, dim, unbiased, keepdim): the legacy positional forms.
            raise self.error(
                node,
                "`unbiased`/`correction`/`keepdim` passed by position",
                "pass them by keyword: `torch.var_mean(x, dim=-1, correction=0, keepdim=True)`",
            )
        correction: object = 1
        if "correction" in kwargs:
            correction = literal_or_none(kwargs.pop("correction"))
        elif "unbiased" in kwargs:
            unbiased = literal_or_none(kwargs.pop("unbiased"))
            if not isinstance(unbiased, bool):
                raise self.error(node, "`unbiased=` must be True or False as written")
            correction = 1 if unbiased else 0
        if not isinstance(correction, (int, float)) or isinstance(correction, bool):
            raise self.error(node, "`correction=` must be a number literal")
        if "dim" not in kwargs and len(args) < 2:
            raise self.error(node, "a variance over every dim", "pass `dim=`")
        value = self.expr(args[0])
        t = self.type_of(value, node)
        if not isinstance(t, TileType) or not t.dims:
            raise self.error(node, "the variance of a scalar")
        axis, keep = self._reduce_axis(args, kwargs, node, len(t.dims))
        loc = self.locate(node)
        extent = self.extent_of(t.dims[axis], node)
        # Temporaries named after the call, never after a name the caller may bind the results
        # to (`mean, var = torch.var_mean(...)` swaps them).
        x = self.bind_temp("var_mean_in", value, node)
        total = ir.Reduce("sum", x, axis, True, loc=loc)
        mean = self.bind_temp("var_mean_mean", ir.BinOp("/", total, extent, loc=loc), node)
        centered = self.bind_temp("var_mean_centered", ir.BinOp("-", x, mean, loc=loc), node)
        squares = ir.Reduce("sum", ir.BinOp("*", centered, centered, loc=loc), axis, keep, loc=loc)
        count = extent if correction == 0 else ir.BinOp("-", extent, ir.Const(correction), loc=loc)
        var = ir.BinOp("/", self.lane_flags(squares), count, loc=loc)
        if not keep:
            # The IR has no squeeze: the mean without its kept dim is a sum of its own.
            dropped = ir.Reduce("sum", x, axis, False, loc=loc)
            mean = ir.BinOp("/", self.lane_flags(dropped), extent, loc=loc)
        return var, mean

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


# The grammar's tables of torch functions (by qualified name), in the order a call is looked up,
# each with the handler of its calls (given the table's IR op or form).
_GRAMMAR_CALLS: tuple[tuple[str, Callable[..., ir.Expr]], ...] = (
    ("pointwise", CallReader._pointwise),
    ("scalar_pointwise", CallReader._pointwise),
    ("reductions", CallReader._reduction),
    ("scans", CallReader._scan),
    ("composites", CallReader._composite),
    ("dots", CallReader._dot_call),
)
