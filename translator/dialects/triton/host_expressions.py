"""The Triton frontend's host expressions: sizes, ranks, scalars, attributes, subscripts, arithmetic
and calls of host expressions (:class:`~translator.dialects.triton.host_values.HVal`), and
helpers inlined into their callers; mixed into
:class:`~translator.dialects.triton.frontend.EntryBuilder`."""

from __future__ import annotations

import dataclasses
from typing import Any

import libcst as cst

from translator.diagnostics import TranslationError
from translator.dialects.cst_utils import (
    BINARY_OPERATORS,
    call_args,
    literal,
    resolve,
)
from translator.dialects.triton.host_syntax import (
    NO_RETURN,
    early_return,
    inlinable,
    interval_arith,
    value_interval,
)
from translator.dialects.triton.host_values import (
    HArgs,
    HBranch,
    HDevice,
    HDType,
    HFact,
    HGrid,
    HKwargs,
    HOpaque,
    HScalar,
    HShape,
    HStatic,
    HStride,
    HTensor,
    HTuple,
    branch_test,
)
from translator.ir import nodes as ir
from translator.ir.shapes import ScalarType


class HostExpressions:
    """Reads host expressions into host values."""

    def named_size(self, e: ir.Expr) -> ir.Expr:
        """``e`` as the wrapper's name for that size (``M`` of ``M, K = a.shape``), if any."""
        for v in self.scope.values():
            if (
                isinstance(v, HScalar)
                and isinstance(v.expr, ir.Name)
                and isinstance(self.canon.get(v.expr.id), ir.SizeOf)
                and self.same_value(v.expr, e)
            ):
                return v.expr
        return e

    def equal_sizes(self, a: ir.Expr, b: ir.Expr) -> None:
        """After ``assert a.shape[i] == b.shape[j]``: the two sizes are one value (a kernel may
        bound a tile by either, as host descriptors over `a` and `b` do)."""
        ca, cb = self.canonical(a), self.canonical(b)
        if isinstance(cb, ir.SizeOf) and ca != cb and ((cb.tensor, cb.dim) not in self.size_canon):
            self.size_canon[(cb.tensor, cb.dim)] = ca

    def set_rank(self, t: HTensor, rank: int) -> None:
        """``t`` has ``rank`` dims, and so has each tensor it was re-laid-out from."""
        t.rank = rank
        x = t.rank_like
        while x is not None and x.rank is None:
            # Stated in the IR too, so that what reads the entry (input synthesis) knows it.
            x.rank = rank
            self.emit(ir.ShapeUnpack((None,) * rank, x.name))
            x = x.rank_like

    def require_rank(self, t: HTensor, rank: int, node: cst.CSTNode, text: str) -> None:
        if t.rank is not None and t.rank != rank:
            raise self.error(node, f"`{t.source}` has {t.rank} dims here, not {rank}")
        self.set_rank(t, rank)
        self.emit(
            ir.ShapeUnpack(
                (None,) * rank,
                t.name,
                comments=(f"tiletrans: rank check of `assert {text}`",),
                loc=self.locate(node),
            )
        )

    def scalar(self, node: cst.BaseExpression) -> ir.Expr:
        v = self.hval(node)
        if isinstance(v, HScalar):
            return v.expr
        if isinstance(v, HOpaque):
            raise self.error(
                node, f"`{self.src(node)}` cannot be evaluated by the frontend: {v.why}"
            )
        raise self.error(node, f"`{self.src(node)}` is not a host scalar")

    def hval(self, node: cst.BaseExpression, target: str | None = None) -> Any:
        """The host value of ``node``; tensor-producing calls emit their IR statements.

        Within one launch, a call written twice (`x.reshape(-1)` passed with its own
        `x.reshape(-1).stride(0)`) is one value."""
        if isinstance(node, cst.Call) and self.launch_values is not None:
            key = self.src(node)
            if key not in self.launch_values:
                self.launch_values[key] = self._hval(node, target)
            return self.launch_values[key]
        return self._hval(node, target)

    def _hval(self, node: cst.BaseExpression, target: str | None = None) -> Any:
        if isinstance(node, cst.Name):
            if node.value in ("True", "False"):
                return HScalar(ir.Const(node.value == "True"), "bool")
            if node.value == "None":
                return HStatic(None)
            if node.value in self.scope:
                return self.scope[node.value]
            if node.value in self.info.constants:
                c = self.info.constants[node.value]
                return HScalar(ir.Const(c), "float" if isinstance(c, float) else "int")
            if node.value in self.info.functions:
                return HStatic(("function", node.value))
            self.refuse_unsupported(node, resolve(node, self.aliases))
            raise self.error(node, f"`{node.value}` is not defined in the wrapper")
        if isinstance(node, (cst.Integer, cst.Float)):
            v = node.evaluated_value
            return HScalar(ir.Const(v), "float" if isinstance(v, float) else "int")
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
            value = node.evaluated_value
            return HScalar(ir.Const(value), "str") if isinstance(value, str) else HStatic(value)
        if isinstance(node, cst.Dict):
            return self.keyword_dict(node)
        if isinstance(node, cst.Tuple | cst.List | cst.Set):
            return HTuple(tuple(self.hval(e.value) for e in node.elements), node)
        if isinstance(node, cst.Lambda):
            return HGrid(tuple(p.name.value for p in node.params.params), node.body, node)
        if isinstance(node, cst.Attribute):
            return self.attribute(node)
        if isinstance(node, cst.Subscript):
            return self.subscript(node, target)
        if isinstance(node, cst.Call):
            return self.host_call(node, target)
        if isinstance(node, cst.BinaryOperation):
            return self.arith(node)
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
            v = self.hval(node.expression)
            if isinstance(v, HScalar):
                if isinstance(v.expr, ir.Const):
                    return HScalar(ir.Const(-v.expr.value), v.kind)
                return HScalar(ir.UnaryOp("-", v.expr), v.kind)
            return HOpaque(f"`{self.src(node)}`")
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
            v = self.hval(node.expression)
            if isinstance(v, HScalar):
                return HScalar(ir.UnaryOp("not", v.expr), "bool")
            return HOpaque(f"`{self.src(node)}`")
        if isinstance(node, cst.Comparison) and len(node.comparisons) == 1:
            comp = node.comparisons[0]
            a, b = self.hval(node.left), self.hval(comp.comparator)
            op = {
                cst.Equal: "==",
                cst.NotEqual: "!=",
                cst.LessThan: "<",
                cst.LessThanEqual: "<=",
                cst.GreaterThan: ">",
                cst.GreaterThanEqual: ">=",
            }.get(type(comp.operator))
            if op and isinstance(a, HScalar) and isinstance(b, HScalar):
                return HScalar(ir.BinOp(op, a.expr, b.expr), "bool")
            test = branch_test(node, self.scope)
            if test is not None:
                # `has_init = init is not None`: a flag bound to it tests `init`.
                return HBranch(f"`{self.src(node)}`", test=test, when_true=True, when_false=False)
            return HOpaque(f"`{self.src(node)}`")
        if isinstance(node, cst.BooleanOperation):
            a, b = self.hval(node.left), self.hval(node.right)
            if isinstance(a, HScalar) and isinstance(b, HScalar):
                op = "and" if isinstance(node.operator, cst.And) else "or"
                return HScalar(ir.BinOp(op, a.expr, b.expr), "bool")
            return HOpaque(f"`{self.src(node)}`")
        if isinstance(node, cst.IfExp):
            test, a, b = (self.side_value(x) for x in (node.test, node.body, node.orelse))
            if all(isinstance(x, HScalar) for x in (test, a, b)) and a.kind == b.kind:
                return HScalar(ir.Call("where", (test.expr, a.expr, b.expr)), a.kind)
            # `s.stride(0) if s is not None else 0`: a launch flag bound to the same test reads
            # one side (Launch.bind_branched).
            return HBranch(
                f"the conditional `{self.src(node)}`",
                test=branch_test(node.test, self.scope),
                when_true=a,
                when_false=b,
            )
        return HOpaque(f"`{self.src(node)[:50]}`")

    def side_value(self, node: cst.BaseExpression) -> Any:
        """One side of a conditional: a side the frontend cannot model (Liger's dummy
        ``torch.empty(1, device=d)`` with no dtype, beside ``labels if has_label``) is opaque,
        with why, rather than a refusal: a launch whose flag selects the other side never
        reads it, and one that needs it reports ``cause``."""
        try:
            return self.hval(node)
        except TranslationError as err:
            return HOpaque(f"`{self.src(node)[:50]}`: {err.message}", cause=err)

    def refuse_unsupported(self, node: cst.Name | cst.Attribute, name: str | None) -> None:
        """Raise the grammar's diagnostic if ``name`` (what ``node`` resolves to) is something
        the frontend refuses (``[frontend.unsupported_host]``)."""
        g = self.grammar["frontend"]
        reason = g["unsupported_host"].get(name)
        if reason is not None:
            what, instead = g["unsupported_host_reasons"][reason]
            raise self.error(node, what.format(name=name), instead.format(name=name))

    def attribute(self, node: cst.Attribute) -> Any:
        name = resolve(node, self.aliases)
        self.refuse_unsupported(node, name)
        if name is not None and name.startswith("torch."):
            dt = self.dtype_from_name(name, "torch")
            if dt is not None:
                return HDType(dt)
        base = self.hval(node.value)
        attr = node.attr.value
        if isinstance(base, HTensor):
            if attr == "shape":
                return HShape(base)
            if attr == "dtype":
                return HDType(base.cast or self.tensor_dtype(base))
            if attr == "device":
                return HDevice(base)
            if attr == "ndim":
                return HFact("dim", base)
            if attr == "is_cuda":
                return HOpaque("the device of an input")
            if attr == "T":
                raise self.error(node, "transposed host tensors are not supported yet")
        if isinstance(base, HDType) and attr == "itemsize":
            return HOpaque("the element size of a dtype", 1, 8)
        return HOpaque(f"`{self.src(node)}`")

    def tensor_dtype(self, t: HTensor) -> ir.DTypeExpr:
        return t.dtype

    def subscript(self, node: cst.Subscript, target: str | None = None) -> Any:
        inner = node.value
        if isinstance(inner, cst.Call) and any(isinstance(s.slice, cst.Slice) for s in node.slice):
            fn = resolve(inner.func, self.aliases)
            if fn in self.grammar["frontend"]["host_alloc"] and "like" not in (fn or ""):
                return self.alloc(inner, fn, target, logical=list(node.slice))
        base = self.hval(node.value)
        if (
            isinstance(base, (HShape, HTuple))
            and len(node.slice) == 1
            and isinstance(node.slice[0].slice, cst.Index)
        ):
            idx = self.hval(node.slice[0].slice.value)
            if isinstance(idx, HScalar) and isinstance(idx.expr, ir.Const):
                i = int(idx.expr.value)
                if isinstance(base, HShape):
                    t = base.tensor
                    if t.rank is not None and i < 0:
                        i += t.rank
                    return HScalar(ir.SizeOf(t.name, i))
                return base.items[i]
        if (
            isinstance(base, HShape)
            and len(node.slice) == 1
            and isinstance(node.slice[0].slice, cst.Slice)
        ):
            sl = node.slice[0].slice
            bounds = [self.hval(b) if b is not None else None for b in (sl.lower, sl.upper)]
            rank = base.tensor.rank
            if (
                sl.step is None
                and all(
                    b is None or (isinstance(b, HScalar) and isinstance(b.expr, ir.Const))
                    for b in bounds
                )
                and (rank is not None or bounds[1] is not None and bounds[1].expr.value >= 0)
            ):
                lo = int(bounds[0].expr.value) if bounds[0] is not None else 0
                hi = int(bounds[1].expr.value) if bounds[1] is not None else rank
                if rank is not None:
                    lo, hi = (x + rank if x < 0 else x for x in (lo, hi))
                return HTuple(tuple(HScalar(ir.SizeOf(base.tensor.name, i)) for i in range(lo, hi)))
        if isinstance(base, HShape):
            raise self.error(
                node,
                f"`{self.src(node)}`: this slice of a shape is not supported",
                "index the shape with constants, or slice it with constant bounds",
            )
        if isinstance(base, HStatic) and base.value == "meta":
            raise self.error(node, "`meta[...]` outside a grid lambda")
        if (
            isinstance(base, HArgs)
            and len(node.slice) == 1
            and isinstance(node.slice[0].slice, cst.Index)
        ):
            key = self.hval(node.slice[0].slice.value)
            name = (
                key.expr.value
                if isinstance(key, HScalar) and isinstance(key.expr, ir.Const)
                else None
            )
            if name not in base.values:
                raise self.error(node, f"`{self.src(node)}` reads no argument of the launch")
            return base.values[name]
        return HOpaque(f"`{self.src(node)}`")

    def arith(self, node: cst.BinaryOperation) -> Any:
        op = BINARY_OPERATORS.get(type(node.operator))
        if op in ("&", "|", "^", "<<", ">>"):
            op = None  # host bit operations: not modelled
        a, b = self.hval(node.left), self.hval(node.right)
        if op is None:
            return HOpaque(f"`{self.src(node)}`")
        if op in ("//", "%"):
            # `num_channels // num_groups` of unannotated parameters: host integer arithmetic.
            a, b = self.as_int_scalar(a), self.as_int_scalar(b)
        if isinstance(a, HScalar) and isinstance(b, HScalar):
            kind = "float" if "float" in (a.kind, b.kind) or op in ("/",) else "int"
            if (
                isinstance(a.expr, ir.Const)
                and isinstance(b.expr, ir.Const)
                and op in ("+", "-", "*", "//")
                and kind == "int"
            ):
                x, y = a.expr.value, b.expr.value
                if op != "//" or y:
                    return HScalar(
                        ir.Const({"+": x + y, "-": x - y, "*": x * y, "//": x // y if y else 0}[op])
                    )
            return HScalar(ir.BinOp(op, a.expr, b.expr), kind)
        lo_hi = interval_arith(op, a, b)
        return HOpaque(f"`{self.src(node)}` (it reads {self._why(a, b)})", *lo_hi)

    def as_int_scalar(self, value: Any) -> Any:
        """An unannotated host parameter (guessed a tensor) as the integer scalar an integer
        operation reads it as; any other value unchanged."""
        if not (isinstance(value, HTensor) and value.guessed and value.name in self.scope):
            return value
        scalar = HScalar(ir.Name(value.name), "int")
        self.scope[value.name] = scalar
        self.types.vars[value.name] = ScalarType(ir.I32, weak=True)
        self.scalar_params[value.name] = "int"
        return scalar

    def _why(self, *vals: Any) -> str:
        for v in vals:
            if isinstance(v, HOpaque):
                return v.why
        return "values the IR has no form for"

    def keyword_dict(self, node: cst.Dict) -> HKwargs | HOpaque:
        """``{"num_warps": 8, "BLOCK_ROW": block_row}``: launch keywords a launch may unpack;
        any other dict is opaque."""
        out = HKwargs()
        for element in node.elements:
            key = element.key if isinstance(element, cst.DictElement) else None
            if not isinstance(key, cst.SimpleString) or not isinstance(key.evaluated_value, str):
                return HOpaque(f"`{self.src(node)[:40]}` is not a dict of launch keywords")
            out = out.with_entry(key.evaluated_value, element.value, self.hval(element.value))
        return out

    def host_call(self, node: cst.Call, target: str | None) -> Any:
        fn = resolve(node.func, self.aliases)
        g = self.grammar["frontend"]
        if isinstance(node.func, cst.Subscript):
            raise self.error(node, "a kernel launch must be a statement of its own")
        op = g["scalar_pointwise"].get(fn or "")
        if op is not None:
            args, _ = call_args(node)
            vals = [self.hval(a) for a in args]
            if all(isinstance(v, HScalar) for v in vals):
                return HScalar(ir.Call(op, tuple(v.expr for v in vals)))
            return HOpaque(f"`{self.src(node)}` (it reads {self._why(*vals)})")
        if (
            fn in ("min", "max") and not node.func.value.startswith("torch")
            if isinstance(node.func, cst.Name)
            else False
        ):
            return self.min_max(fn, node)
        if fn == "len":
            args, _ = call_args(node)
            value = self.hval(args[0]) if len(args) == 1 else None
            if isinstance(value, HTensor) and value.rank is not None and value.rank >= 1:
                return HScalar(ir.SizeOf(value.name, 0))  # `len(x)` of a tensor: its dim 0
            return HOpaque("len(...)")
        if fn == "math.prod":
            # `math.prod(x.shape)`: the element count, as `x.numel()` (FlagGems' `M`).
            args, kwargs = call_args(node)
            value = self.hval(args[0]) if len(args) == 1 and not kwargs else None
            if isinstance(value, HShape):
                return self.tensor_method(value.tensor, "numel", node, target)
            return HOpaque(f"`{self.src(node)}`")
        if fn == "bool":
            args, _ = call_args(node)
            value = self.hval(args[0]) if len(args) == 1 else None
            if isinstance(value, HStatic):
                return HStatic(bool(value.value))
            if isinstance(value, HScalar) and isinstance(value.expr, ir.Const):
                return HStatic(bool(value.expr.value))
            return HOpaque(f"`{self.src(node)}`")
        if fn == "float" or fn == "int":
            args, _ = call_args(node)
            try:
                return HScalar(ir.Const(float(literal(node))), "float")  # type: ignore[arg-type]
            except (ValueError, TypeError):
                pass
            value = self.hval(args[0]) if fn == "int" and len(args) == 1 else None
            if (isinstance(value, HScalar) and value.kind == "int") or isinstance(value, HStride):
                # `int(x.size(1))`, `int(x.stride(0))` (vLLM's wrappers): the integer it is.
                return value
            return HOpaque(f"`{self.src(node)}`")
        if isinstance(node.func, cst.Name) and node.func.value in self.info.functions:
            return self.inline_host(node.func.value, node, target)
        descriptor = g["host"]["descriptor"]
        if fn in (descriptor, descriptor + ".from_tensor"):
            from translator.dialects.triton.frontend_descriptors import host_descriptor

            return host_descriptor(self, node, from_tensor=fn != descriptor)
        alloc = self.alloc(node, fn, target)
        if alloc is not None:
            return alloc
        if isinstance(node.func, cst.Attribute):
            return self.method(node, target)
        return HOpaque(f"the call `{self.src(node)[:50]}`")

    def min_max(self, fn: str, node: cst.Call) -> Any:
        args, _ = call_args(node)
        vals = [self.hval(a) for a in args]
        # Drop arguments that can never be the result (`65536 // x.element_size()` >= 8192).
        keep = list(vals)
        for v in vals:
            lo, hi = value_interval(v)
            for w in vals:
                if w is v:
                    continue
                wlo, whi = value_interval(w)
                if fn == "min" and lo is not None and whi is not None and lo >= whi and v in keep:
                    keep.remove(v)
                    break
                if fn == "max" and hi is not None and wlo is not None and hi <= wlo and v in keep:
                    keep.remove(v)
                    break
        if not all(isinstance(v, HScalar) for v in keep):
            return HOpaque(f"`{self.src(node)}` (it reads {self._why(*keep)})")
        op = "minimum" if fn == "min" else "maximum"
        out = keep[0].expr
        for v in keep[1:]:
            out = ir.Call(op, (out, v.expr))
        return HScalar(out, "float" if any(v.kind == "float" for v in keep) else "int")

    def inline_host(self, name: str, node: cst.Call, target: str | None = None) -> Any:
        fn = self.info.functions[name]
        body = list(fn.body.body) if isinstance(fn.body, cst.IndentedBlock) else []
        if fn.get_docstring() is not None:
            body = body[1:]
        split = early_return(body)
        if split is None and not inlinable(body):
            return HOpaque(f"it calls `{name}`, which the frontend cannot evaluate")
        args, kwargs = call_args(node)
        params = [p.name.value for p in fn.params.params]
        vals = dict(zip(params, (self.hval(a) for a in args)))
        for k, v in kwargs.items():
            vals[k] = self.hval(v)
        saved = self.scope
        self.scope = {**{k: v for k, v in saved.items() if isinstance(v, HTensor)}, **vals}
        self.depth += 1
        self.result_names.append(target)
        try:
            if split is None:
                result = self.host_block(body)
            else:
                mark = (len(self.body), list(self.pending_comments))
                try:
                    result = self.two_paths(name, *split)
                except TranslationError as err:
                    # A helper whose paths the frontend cannot follow is opaque, like any
                    # other value it cannot evaluate; it fails only where something needs it.
                    del self.body[mark[0] :]
                    self.pending_comments = mark[1]
                    result = HOpaque(f"`{name}` cannot be evaluated: {err.message}")
        finally:
            self.depth -= 1
            self.result_names.pop()
            self.scope = saved
        return HOpaque(f"`{name}` returns nothing") if result is NO_RETURN else result

    def two_paths(self, name: str, prefix: list, early: cst.BaseExpression, rest: list) -> Any:
        """A helper ``prefix; if test: return early; rest``. Where both paths return the same
        tensor's values (``x`` itself, or a re-laid-out copy of it), the test cannot change
        results and is not evaluated; anything else is opaque."""
        notes = len(self.pending_comments)
        if self.host_block(prefix) is not NO_RETURN:
            return HOpaque(f"`{name}` returns before its early return")
        first = self.hval(early)
        second = self.host_block(rest)
        if (
            isinstance(first, HTensor)
            and isinstance(second, HTensor)
            and (first.name == second.name)
        ):
            del self.pending_comments[notes:]  # the copy's own notes: one says it all
            self.note(
                f"tiletrans: `{name}(...)` returns `{first.source}` or a re-laid-out copy "
                "of it, read as the same values (the IR indexes tensors logically)"
            )
            return dataclasses.replace(second, copy=first.copy or second.copy)
        return HOpaque(f"`{name}` returns different values on its two paths")
