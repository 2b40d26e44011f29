"""Calls in a kernel body: ``tl.*`` functions, builtins, tensor methods and ``@triton.jit`` helpers."""

from __future__ import annotations

import libcst as cst

from translator.dialects.cst_utils import call_args, literal, resolve
from translator.dialects.triton import frontend_affine as af
from translator.dialects.triton import frontend_blocks as blocks
from translator.dialects.triton.frontend_blocks import Descriptor
from translator.dialects.triton.lift_pointwise import _SHAPE_OPS, cast_pads
from translator.dialects.triton.lifted import Data, DTypeVal, Idx, Static, Val
from translator.ir import nodes as ir


class CallsMixin:
    """Call and method dispatch of :class:`KernelLifter`."""

    def call(self, node: cst.Call) -> Val:
        func = node.func
        if (
            isinstance(func, cst.Attribute)
            and resolve(func, self.aliases) is None
            or (
                isinstance(func, cst.Attribute)
                and isinstance(func.value, (cst.Call, cst.Subscript))
            )
            or (
                isinstance(func, cst.Attribute)
                and isinstance(func.value, cst.Name)
                and func.value.value in self.env
            )
        ):
            return self.method(node, func)  # type: ignore[arg-type]
        fn = resolve(func, self.aliases)
        if fn is None:
            raise self.error(node, f"unsupported call `{self.src(node)[:60]}`")
        if isinstance(func, cst.Name) and func.value in self.launch.kernel.module.jit_helpers:
            return self.inline(func.value, node)
        lang = self.lang + "."
        if fn in ("min", "max"):
            args, _ = call_args(node)
            vals = [self.ev(a) for a in args]
            op = "minimum" if fn == "min" else "maximum"
            if all(isinstance(v, Idx) for v in vals):
                out = vals[0].tree
                for v in vals[1:]:
                    out = ir.Call(op, (out, v.tree))
                return Idx(out)
            return self.pointwise(op, vals, node)
        if fn == "float":
            try:
                return Data(ir.Const(float(literal(node))))  # type: ignore[arg-type]
            except (ValueError, TypeError):
                raise self.error(node, "float(...) takes a literal") from None
        if fn in ("int", "bool"):
            raise self.error(node, f"`{fn}(...)` on device values is not supported")
        if not fn.startswith(lang):
            raise self.error(
                node,
                f"unsupported call `{self.src(node)[:60]}` in a kernel",
                "kernels may call triton.language functions and @triton.jit helpers",
            )
        name = fn[len(lang) :]
        for prefix in self.grammar["frontend"]["math_namespaces"]["prefixes"]:
            name = name.removeprefix(prefix)
        args, kwargs = call_args(node)
        unsupported = self.grammar["frontend"]["unsupported"]
        if name in unsupported:
            raise self.error(node, f"`tl.{name}` is not supported yet", unsupported[name])
        if name in self.grammar["frontend"]["identity_hints"]["names"]:
            return self.ev(args[0])  # a compiler hint: the value is unchanged
        if name == "program_id" or name == "num_programs":
            axis_node = args[0] if args else kwargs.get("axis")
            axis = self._int_literal(axis_node, node)
            if not 0 <= axis <= 2:
                raise self.error(node, "program axes are 0, 1 or 2")
            return Idx(ir.Name(f"%pid{axis}" if name == "program_id" else f"%np{axis}"))
        if name == "arange":
            if len(args) != 2 or kwargs:
                raise self.error(node, "tl.arange(start, end) takes two arguments")
            start = self.ev(args[0])
            if not (isinstance(start, Idx) and start.tree == ir.Const(0)):
                raise self.error(
                    node, "tl.arange must start at 0", "write `start + tl.arange(0, BLOCK)`"
                )
            return Idx(ir.Name(af.lane_id(self.block_key(args[1]), -1)))
        if name == "cdiv":
            a, b = (self.ev(x) for x in args)
            if isinstance(a, Idx) and isinstance(b, Idx):
                return Idx(ir.Call("cdiv", (a.tree, b.tree)))
            raise self.error(node, "tl.cdiv takes integers")
        if name == "load":
            return self.load(node)
        if name == "make_block_ptr":
            return blocks.make_block_ptr(self, node)
        if name == "advance":
            return blocks.advance(self, node)
        if name == "make_tensor_descriptor":
            return blocks.make_descriptor(self, node)
        if name == "store":
            raise self.error(node, "tl.store returns nothing; call it as a statement")
        if name in ("zeros", "full"):
            return self.full(name, node)
        if name == "dot":
            return self.dot(node)
        reductions = self.grammar["frontend"]["reductions"]
        if name in reductions:
            return self.reduction(reductions[name], node)
        if name == "reduce":
            return self.combine_reduction(node)
        scans = self.grammar["frontend"]["scans"]
        if name in scans:
            return self.scan(scans[name], node)
        pointwise = self.grammar["frontend"]["pointwise"]
        if name in pointwise:
            if kwargs:
                raise self.error(node, f"unsupported keywords to tl.{name}: {sorted(kwargs)}")
            return self.pointwise(pointwise[name], [self.ev(a) for a in args], node)
        if name in _SHAPE_OPS:
            if not args:
                raise self.error(node, f"tl.{name} needs a value")
            return self.shape_op(name, self.ev(args[0]), args[1:], kwargs, node)
        if name in ("static_assert", "device_assert", "static_print", "device_print"):
            return Static(None)
        raise self.error(node, f"`tl.{name}` is not supported by the Triton frontend yet")

    def method(self, node: cst.Call, func: cst.Attribute) -> Val:
        base = self.ev(func.value)
        name = func.attr.value
        args, kwargs = call_args(node)
        if isinstance(base, Descriptor):
            return self.descriptor_access(base, name, args, kwargs, node)
        if name == "to":
            target = args[0] if args else kwargs.get("dtype")
            dt = self.ev(target) if target is not None else None
            if not isinstance(dt, DTypeVal):
                raise self.error(node, "`.to()` takes a dtype")
            if (
                isinstance(base, Idx)
                and isinstance(dt.dtype, ir.DType)
                and (dt.dtype.name in ir.INT_DTYPES)
            ):
                return Idx(ir.Cast(base.tree, dt.dtype))
            d = self.to_data(base, func.value)
            return Data(ir.Cast(d.expr, dt.dtype), cast_pads(d, dt.dtype), d.div)
        if name in ("sum", "max", "min") and isinstance(base, Data):
            return self.reduction(name, node, base)
        if name in _SHAPE_OPS:
            return self.shape_op(name, base, args, kwargs, node)
        raise self.error(node, f"unsupported method `.{name}()` in a kernel")

    def _int_literal(self, node, where) -> int:
        try:
            value = literal(node) if node is not None else None
        except ValueError:
            value = None
        if not isinstance(value, int):
            raise self.error(where, "expected an integer literal")
        return value
