"""The Triton frontend's host tensors: allocations, tensor methods, views and the tensors a
launch passes; mixed into :class:`~translator.dialects.triton.frontend.EntryBuilder`."""

from __future__ import annotations

import dataclasses
from typing import Any

import libcst as cst

from translator.dialects.common.torch_host import AllocError, read_alloc
from translator.dialects.cst_utils import (
    resolve,
)
from translator.dialects.triton.host_syntax import LAYOUT_VIEWS
from translator.dialects.triton.host_values import (
    HBranch,
    HDevice,
    HDType,
    HFact,
    HOpaque,
    HScalar,
    HShape,
    HStatic,
    HStride,
    HTensor,
    HTuple,
)
from translator.ir import nodes as ir
from translator.ir.shapes import TensorType


class HostTensors:
    """Reads the tensors host code allocates, views and passes."""

    def alloc(
        self,
        node: cst.Call,
        fn: str | None,
        target: str | None,
        logical: list[cst.BaseSlice] | None = None,
    ) -> HTensor | None:
        """A host allocation; ``logical``: the slices of ``torch.empty(shape)[...]`` that cut an
        over-allocated buffer (a padded row pitch) down to the tensor the code uses."""
        g = self.grammar["frontend"]
        try:
            call = read_alloc(node, fn, g["host_alloc"], g.get("methods", {}).get("host_alloc", {}))
        except AllocError as err:
            raise self.error(err.node, str(err)) from None
        if call is None:
            return None
        base: HTensor | None = None
        if call.base is not None:
            v = self.hval(call.base)
            if not isinstance(v, HTensor):
                return None  # `obj.new_empty(...)` of something no tensor: not an allocation
            base = v
        name = self.fresh(target or "buf")
        dtype: ir.DTypeExpr | None = base.dtype if base is not None else None
        if call.dtype is not None:
            d = self.hval(call.dtype)
            if not isinstance(d, HDType):
                raise self.error(call.dtype, f"unsupported dtype `{self.src(call.dtype)}`")
            dtype = d.dtype
        if call.like is not None:
            like = self.hval(call.like)
            if not isinstance(like, HTensor):
                raise self.error(node, "allocate like a host tensor")
            t = HTensor(
                name,
                target or name,
                dtype or like.dtype,
                like.rank,
                contiguous=like.contiguous,
                unit_last=like.unit_last or like.contiguous,
                like=like,
            )
            self.emit(
                ir.Alloc(
                    name, None, like.name, t.dtype, like.name, call.fill, loc=self.locate(node)
                )
            )
            for d in range(like.rank or 0):
                self.size_canon[(name, d)] = ir.SizeOf(like.name, d)
            self.types.vars[name] = TensorType(t.dtype, like.rank)
            self.tensors[name] = t
            return t
        if logical is not None:
            shape = self.sliced_shape(list(call.shape), logical, node)
        else:
            shape = tuple(self.scalar(s) for s in call.shape)
        device_of = base
        if device_of is None:
            dev = self.hval(call.device) if call.device is not None else None
            if not isinstance(dev, HDevice):
                raise self.error(node, "give the allocation `device=x.device` of an input")
            device_of = dev.tensor
        if dtype is None:
            raise self.error(node, "give the allocation a dtype")
        return self.shaped_alloc(name, target, shape, dtype, device_of, call.fill, node)

    def shaped_alloc(
        self,
        name: str,
        target: str | None,
        shape: tuple[ir.Expr, ...],
        dtype: ir.DTypeExpr,
        device_of: HTensor,
        fill: float | None,
        node: cst.CSTNode,
    ) -> HTensor:
        """A new row-major tensor of ``shape`` on ``device_of``'s device."""
        t = HTensor(name, target or name, dtype, len(shape), contiguous=True, unit_last=True)
        self.emit(ir.Alloc(name, shape, None, dtype, device_of.name, fill, loc=self.locate(node)))
        for d, e in enumerate(shape):
            self.size_canon[(name, d)] = e
        self.types.vars[name] = TensorType(dtype, len(shape))
        self.tensors[name] = t
        return t

    def sliced_shape(
        self, dims: list[cst.BaseExpression], slices: list[cst.BaseSlice], node: cst.CSTNode
    ) -> tuple[ir.Expr, ...]:
        """The shape of ``torch.empty(dims)[slices]``: ``:`` keeps a dim, ``:n`` makes it ``n``
        (the buffer is assumed at least that long, as the source assumes)."""
        if len(slices) != len(dims):
            raise self.error(node, "slice every dim of a padded allocation")
        out = []
        for d, sl in zip(dims, slices):
            s = sl.slice
            if not isinstance(s, cst.Slice) or s.lower is not None or s.step is not None:
                raise self.error(sl, "a padded allocation may only be cut with `:` or `:n`")
            out.append(self.scalar(d) if s.upper is None else self.scalar(s.upper))
        self.note(
            "tiletrans: a padded allocation cut to its logical shape: the IR indexes "
            "tensors logically, the padding only changes strides"
        )
        return tuple(out)

    def method(self, node: cst.Call, target: str | None) -> Any:
        assert isinstance(node.func, cst.Attribute)
        name = node.func.attr.value
        inner = node.func.value
        if (
            name == "element_size"
            and isinstance(inner, cst.Call)
            and resolve(inner.func, self.aliases) in self.grammar["frontend"]["host_alloc"]
        ):
            # `torch.empty((), dtype=d).element_size()`: a dtype's size, not a buffer.
            return HOpaque("the element size of a dtype", 1, 8)
        base = self.hval(inner)
        if isinstance(base, HBranch):
            # `buf = torch.empty(...) if flag else None` (Liger's `_DW`): a tensor method runs
            # only where the name holds the tensor (on None it would raise in the source).
            sides = [v for v in (base.when_true, base.when_false) if not _is_none(v)]
            if len(sides) == 1 and isinstance(sides[0], HTensor):
                base = sides[0]
        if isinstance(base, HTensor):
            return self.tensor_method(base, name, node, target)
        if (
            name in ("stride", "size")
            and len(node.args) == 1
            and isinstance(base, HOpaque)
            and not isinstance(base, HBranch)  # bound at the launch, with its flag
            and isinstance(inner, cst.Name)
        ):
            # `stride_batch = a_flat.stride(0)` of a tensor the frontend does not follow (a
            # `torch.chunk` half, a helper's result): only a torch tensor has the methods
            # `.stride(d)` and `.size(d)` (numpy's `size` is no method), so the name is one,
            # carried as written; a launch that passes `a_flat` passes this very tensor,
            # whose stride `stride_batch` then is.
            t = self.carried_tensor(inner, inner.value, text=inner.value)
            t.promoted_from = base
            if base.may_be_none:
                t = dataclasses.replace(t, optional=True)
            self.scope[inner.value] = t
            return self.tensor_method(t, name, node, target)
        if isinstance(base, HStatic) and base.value is None:
            return HOpaque(f"`{self.src(node)}`")
        return HOpaque(f"`{self.src(node)[:50]}`")

    def tensor_method(self, t: HTensor, name: str, node: cst.Call, target: str | None) -> Any:
        args, kwargs = (
            [a.value for a in node.args if not a.star and a.keyword is None],
            {a.keyword.value: a.value for a in node.args if a.keyword is not None},
        )
        if name == "stride" and not args and t.rank is not None:
            return HTuple(tuple(HStride(t, d) for d in range(t.rank)))
        if name == "stride":
            if len(args) != 1:
                raise self.error(node, "use x.stride(d) with one dim")
            d = self.hval(args[0])
            if not (isinstance(d, HScalar) and isinstance(d.expr, ir.Const)):
                raise self.error(node, "x.stride(d) needs a constant d")
            dim = int(d.expr.value)
            return HStride(t, dim)
        if name == "size":
            if not args:
                return HShape(t)
            d = self.hval(args[0])
            if isinstance(d, HScalar) and isinstance(d.expr, ir.Const):
                i = int(d.expr.value)
                if t.rank is not None and i < 0:
                    i += t.rank
                return HScalar(ir.SizeOf(t.name, i))
        if name == "dim":
            return HFact("dim", t)
        if name == "is_contiguous":
            return HFact("contiguous", t)
        if name == "element_size":
            return HOpaque(f"`{t.source}.element_size()` (the IR has no dtype sizes)", 1, 8)
        if name == "numel":
            if t.rank is not None:
                e: ir.Expr = ir.Const(1)
                for d in range(t.rank):
                    e = ir.SizeOf(t.name, d) if d == 0 else ir.BinOp("*", e, ir.SizeOf(t.name, d))
                return HScalar(e)
            return HScalar(ir.SizeOf(self.flat_view(t, node), 0))
        if name in ("reshape", "view"):
            return self.view(t, node, target, args)
        if name == "flatten" and not args:
            return self.view(t, node, target, [], flat=True)
        if name == "contiguous" and not args:
            out = dataclasses.replace(t, contiguous=True, unit_last=True, copy=True)
            self.tensors[t.name] = t
            return out
        if name in LAYOUT_VIEWS:
            # A strided view of the same elements (`q.transpose(1, 2)`): kernels that get it
            # read its strides; what the frontend keeps is its rank and dtype.
            rank = len(args) if name == "permute" and len(args) > 1 else t.rank
            return self.carried_tensor(node, t, rank, contiguous=False)
        if name == "clone":
            # A copy in a memory format the source chooses: dense and row-major only when it
            # says so (or the original was); `clone()` of a strided view keeps its strides.
            fmt = kwargs.get("memory_format")
            row_major = (
                resolve(fmt, self.aliases) == "torch.contiguous_format"
                if fmt is not None
                else t.contiguous
            )
            return self.carried_tensor(node, t, t.rank, contiguous=row_major)
        if name == "to":
            target_node = args[0] if args else kwargs.get("dtype")
            d = self.hval(target_node) if target_node is not None else None
            if isinstance(d, HDType) and t.name in self.written:
                # A kernel's output converted on the host (`c.to(a.dtype)` after split-K's fp32
                # accumulation): a new tensor.
                name = self.fresh(target or t.name)
                self.emit(ir.Assign(name, ir.Cast(ir.Name(t.name), d.dtype), loc=self.locate(node)))
                self.types.vars[name] = TensorType(d.dtype, t.rank)
                out = HTensor(
                    name, target or name, d.dtype, t.rank, contiguous=True, unit_last=True, like=t
                )
                self.tensors[name] = out
                for dim in range(t.rank or 0):
                    self.size_canon[(name, dim)] = ir.SizeOf(t.name, dim)
                return out
            if isinstance(d, HDType) and isinstance(d.dtype, ir.DType):
                # A converted copy: device code reads it through a cast of each element.
                out = dataclasses.replace(t, cast=d.dtype, copy=True)
                self.note(f"tiletrans: `{self.src(node)}` is read through element casts")
                return out
            raise self.error(
                node,
                f"unsupported conversion `{self.src(node)}`",
                "convert with x.to(torch.<dtype>)",
            )
        if name in ("stride", "size"):
            raise self.error(node, f"unsupported `{self.src(node)}`")
        return HOpaque(f"`{self.src(node)[:50]}`")

    def carried_tensor(
        self,
        node: cst.CSTNode,
        base: HTensor | str,
        rank: int | None = None,
        contiguous: bool = False,
        text: str | None = None,
    ) -> HTensor:
        """A tensor host code makes that the IR does not model, carried as written (``text``,
        by default ``node``'s source) with the facts known of it. ``base`` is the tensor it is
        made from (a strided view, a copy in another layout: its dtype, and its rank where
        ``rank`` is that rank), or only a name to derive the new one's from (its dtype is then
        its own)."""
        text = text if text is not None else self.src(node)
        name = self.fresh(base if isinstance(base, str) else base.name)
        dtype = base.dtype if isinstance(base, HTensor) else ir.DTypeOf(name)
        same_rank = isinstance(base, HTensor) and rank == base.rank
        t = HTensor(
            name,
            text,
            dtype,
            rank,
            contiguous=contiguous,
            unit_last=contiguous,
            rank_like=base if same_rank else None,  # type: ignore[arg-type]
        )
        self.tensors[name] = t
        self.types.vars[name] = TensorType(dtype, rank)
        self.emit(ir.Carried(name, "tensor", text, rank, loc=self.locate(node)))
        return t

    def flat_view(self, t: HTensor, node: cst.CSTNode) -> str:
        if t.flat is None:
            name = self.fresh(t.name + "_flat")
            self.emit(
                ir.View(
                    name,
                    t.name,
                    (ir.Const(-1),),
                    comments=(f"tiletrans: `{t.source}` addressed as a flat array",),
                    loc=self.locate(node),
                )
            )
            dtype = t.dtype if isinstance(t.dtype, ir.DType) else ir.DTypeOf(name)
            self.types.vars[name] = TensorType(dtype, 1)
            t.flat = name
            ft = HTensor(
                name, t.source, dtype, 1, t.contiguous, t.contiguous or t.unit_last, t.cast, t.copy
            )
            self.tensors[name] = ft
        return t.flat

    def row_view(self, t: HTensor, row: ir.Expr, text: str, node: cst.CSTNode) -> str:
        """``t`` of no known rank, viewed as rows of ``row`` elements (a kernel that addresses
        it as ``row_index * N + col`` over ``M = x.numel() // N`` rows)."""
        views = self.row_views
        key = (t.name, self.canonical(row))
        if key not in views:
            name = self.fresh(t.name + "_rows")
            self.emit(
                ir.View(
                    name,
                    t.name,
                    (ir.Const(-1), row),
                    comments=(f"tiletrans: `{t.source}` addressed as rows of `{text}` elements",),
                    loc=self.locate(node),
                )
            )
            dtype = t.dtype if isinstance(t.dtype, ir.DType) else ir.DTypeOf(name)
            self.types.vars[name] = TensorType(dtype, 2)
            rows = HTensor(
                name, t.source, dtype, 2, t.contiguous, t.contiguous or t.unit_last, t.cast, t.copy
            )
            self.tensors[name] = rows
            views[key] = name
        return views[key]

    def view(
        self, t: HTensor, node: cst.Call, target: str | None, args: list, flat: bool = False
    ) -> HTensor:
        dims: list[ir.Expr] = []
        star_shapes = [a for a in node.args if a.star == "*"]
        if flat:
            dims, args = [ir.Const(-1)], []  # `x.flatten()`: one dim of every element
        elif len(args) == 1 and not star_shapes:
            v = self.hval(args[0])
            if isinstance(v, HShape):
                dims = self.shape_exprs(v.tensor, node)
                args = []
            elif isinstance(v, HTuple):
                args = []
                for item in v.items:
                    if not isinstance(item, HScalar):
                        raise self.error(node, "view sizes must be host scalars")
                    dims.append(item.expr)
        for a in node.args:
            if a.keyword is not None:
                raise self.error(node, "view sizes are positional")
            if a.star == "*":
                v = self.hval(a.value)
                if not isinstance(v, HShape):
                    raise self.error(a, f"cannot splat `{self.src(a.value)}`")
                dims += self.shape_exprs(v.tensor, node)
            elif args and a.value in args:
                dims.append(self.scalar(a.value))
        name = self.fresh(target or t.name + "_view")
        rank = len(dims)
        if t.reshape_rank is None:
            t.reshape_rank = rank
        self.emit(ir.View(name, t.name, tuple(dims), loc=self.locate(node)))
        # The view's own dtype (the same as its base's): kernels that get the view name it.
        dtype = t.dtype if isinstance(t.dtype, ir.DType) else ir.DTypeOf(name)
        self.types.vars[name] = TensorType(dtype, rank)
        nt = HTensor(
            name, target or name, dtype, rank, t.contiguous, t.contiguous, t.cast, t.copy,
            view_of=t,
        )  # fmt: skip
        for d, e in enumerate(dims):
            if not (isinstance(e, ir.Const) and e.value == -1):
                self.size_canon[(name, d)] = e
        self.tensors[name] = nt
        return nt

    def shape_exprs(self, t: HTensor, node: cst.CSTNode) -> list[ir.Expr]:
        if t.rank is None:
            # The host code stays as written; only the frontend's model of it would need the
            # rank, so the statement is carried rather than the tensor specialised.
            raise self.error(
                node,
                f"cannot tell the rank of `{t.source}`",
                f"unpack {t.source}.shape or assert {t.source}.dim() == r",
            )
        return [ir.SizeOf(t.name, d) for d in range(t.rank)]


def _is_none(value: Any) -> bool:
    """Whether a host value is ``None``."""
    return value is None or (isinstance(value, HStatic) and value.value is None)
