"""Helion frontend, host statements: the code of a kernel function around its device loops, read
as facts for validation: shape unpacking, asserts (sizes they state equal become one size),
returns, scalar assignments, allocations, views, ``hl.specialize``. A top-level device loop is
handed to :mod:`translator.dialects.helion.loops`; a statement the IR does not model to
:mod:`translator.dialects.helion.carried`.

A mixin of :class:`translator.dialects.helion.frontend.EntryParser`, which holds the state the
methods read (``self.scope``, ``self.build``, ``self.edits``...); split out so that each file
reads one part of a kernel function.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import libcst as cst

from translator.diagnostics import TranslationError
from translator.dialects.common.host_code import host_atom
from translator.dialects.common.torch_host import AllocError, read_alloc
from translator.dialects.cst_utils import (
    call_args,
    literal_or_none,
    name_nodes,
    resolve,
    source_of,
    statement_comments,
    walk,
)
from translator.dialects.helion.loops import bindings
from translator.ir import nodes as ir
from translator.ir.shapes import ScalarType, TensorType

# Helion host helpers as the plain Python they compute (templates over the arguments' texts).
#: Dotted name -> (template, number of positional arguments).
_PLAIN_HOST_CALLS = {
    "helion.cdiv": ("({0} + {1} - 1) // {1}", 2),
    # triton.next_power_of_2's value (1 for n <= 1), without importing either DSL.
    "helion.next_power_of_2": ("1 << max({0} - 1, 0).bit_length()", 1),
}


class HostReader:
    """The host statements of a kernel function, as IR statements."""

    def _host_block(self, nodes: list[cst.BaseStatement]) -> list[ir.Stmt]:
        out: list[ir.Stmt] = []
        for node in nodes:
            comments = statement_comments(node)
            if isinstance(node, cst.For) and self._is_device_loop(node):
                kernel = self._kernel(node, comments)
                out.extend(self.scope.pending_host)
                self.scope.pending_host.clear()
                out.append(kernel)
                continue
            if isinstance(node, cst.SimpleStatementLine):
                self.current_line = node
                for i, small in enumerate(node.body):
                    try:
                        stmts = self._host_small(small)
                    except TranslationError as err:
                        stmts = self._carried(small, err)
                    if stmts and i == 0:
                        first = stmts[0]
                        stmts[0] = _with_comments(first, comments)
                    out.extend(stmts)
                continue
            out.extend(self._carried(node, None))
        return out

    def _host_small(self, node: cst.BaseSmallStatement) -> list[ir.Stmt]:
        self.build.device = False
        value = getattr(node, "value", None)
        blocks = [
            n for n in (name_nodes(value) if value is not None else [])
            if n.value in self.scope.registered_blocks
        ]  # fmt: skip
        if blocks:
            raise self.error(
                blocks[0],
                f"`{blocks[0].value}` (a block size hl.register_block_size registers) is read "
                "by host code: the translation's block sizes are picked at the launch, after "
                "host code has run, so host code cannot read them yet",
                "size host buffers by a fixed block (`block_m = 32` as a plain int, and "
                "`hl.tile(m, block_size=block_m)`), or reduce the partials in the kernel with "
                "hl.atomic_add",
            )
        handler = _HOST_STATEMENTS.get(type(node))
        if handler is None:
            raise self._unsupported_host(node)
        edits = len(self.edits)
        stmts = handler(self, node)
        if len(self.edits) == edits:  # a statement no edit of its own rewrites
            self._plain_host_calls(node)
        return stmts

    def _plain_host_calls(self, node: cst.CSTNode) -> None:
        """Helion's host helpers in a statement the translation carries (``helion.cdiv(m,
        block_m)`` sizing a buffer) become plain Python, so that no target imports Helion."""
        calls: list[cst.Call] = []
        # Operands of an operator (or of `.attr`/`[i]`): a template's text is parenthesised
        # there, as `2 * helion.cdiv(a, b)` is not `2 * (a + b - 1) // b`.
        operands: set[int] = set()

        def enter(n: cst.CSTNode) -> bool:
            if isinstance(n, cst.BinaryOperation):
                operands.update((id(n.left), id(n.right)))
            elif isinstance(n, cst.UnaryOperation):
                operands.add(id(n.expression))
            elif isinstance(n, (cst.Attribute, cst.Subscript)):
                operands.add(id(n.value))
            if isinstance(n, cst.Call) and resolve(n.func, self.aliases) in _PLAIN_HOST_CALLS:
                calls.append(n)
                return False  # the outer call's text covers its arguments
            return True

        walk(node, enter)
        for call in calls:
            text = _plain_call_text(call, self.aliases)
            if text is None:
                continue  # a form the template does not spell: carried as written
            if id(call) in operands:
                text = f"({text})"
            self.edits.append(ir.HostEdit("replace", self.locate.span(call), text=text))

    def _unsupported_host(self, node: cst.BaseSmallStatement) -> TranslationError:
        return self.error(node, f"unsupported host statement `{source_of(node).strip()}`")

    def st_assign(self, node: cst.Assign) -> list[ir.Stmt]:
        if len(node.targets) != 1:
            raise self.error(node, "chained assignment is not supported")
        target = node.targets[0].target
        value = node.value
        if isinstance(target, (cst.Tuple, cst.List)):
            pairs = _parallel_pairs(target, value)
            if pairs is not None:
                # `m, n = x.size(0), x.size(1)`: one binding per name, as Python makes them.
                return [s for name, v in pairs for s in self._host_assign(name, v, node)]
            return [self._shape_unpack(target, value, node)]
        if not isinstance(target, cst.Name):
            raise self.error(node, "host assignments must bind a name")
        return self._host_assign(target.value, value, node)

    def st_ann_assign(self, node: cst.AnnAssign) -> list[ir.Stmt]:
        if not (isinstance(node.target, cst.Name) and node.value):
            raise self._unsupported_host(node)
        return self._host_assign(node.target.value, node.value, node)

    def st_assert(self, node: cst.Assert) -> list[ir.Stmt]:
        test = self.build.expr(node.test)
        self._learn_equalities(test)
        # Host code is plain Python in every DSL, so the message travels as written.
        msg = source_of(node.msg) if node.msg is not None else None
        return [ir.Assert(test, msg, loc=self.locate(node))]

    def st_return(self, node: cst.Return) -> list[ir.Stmt]:
        loc = self.locate(node)
        if node.value is None:
            return [ir.Return(None, loc=loc)]
        if isinstance(node.value, cst.Tuple):
            items = tuple(self._return_item(e.value) for e in node.value.elements)
            return [ir.Return(ir.TupleExpr(items), loc=loc)]
        return [ir.Return(self._return_item(node.value), loc=loc)]

    def st_expr(self, node: cst.Expr) -> list[ir.Stmt]:
        """A string statement (a comment in string form) is dropped; other expressions are
        not host statements the IR models."""
        if (
            isinstance(node.value, cst.Call)
            and resolve(node.value.func, self.aliases) == "helion.language.barrier"
            and not node.value.args
        ):
            # A grid-wide barrier between top-level loops: each loop is a kernel of its own
            # here, launched after the one before it has finished.
            self._remove_line(
                node.value,
                "hl.barrier",
                "each top-level loop is a kernel of its own, launched in order",
            )
            return []
        if not isinstance(node.value, (cst.SimpleString, cst.ConcatenatedString)):
            raise self._unsupported_host(node)
        return []

    def st_pass(self, node: cst.Pass) -> list[ir.Stmt]:
        return []

    def _learn_equalities(self, test: ir.Expr) -> None:
        """Sizes an assert states equal become one size for the kernels."""
        if isinstance(test, ir.BinOp) and test.op in ("and", "&"):
            self._learn_equalities(test.lhs)
            self._learn_equalities(test.rhs)
        elif isinstance(test, ir.BinOp) and test.op == "==":
            a, b = test.lhs, test.rhs
            if isinstance(a, ir.ShapeOf) and isinstance(b, ir.ShapeOf):
                rank = self.scope.rank(a.tensor) or self.scope.rank(b.tensor) or 0
                for name in (a.tensor, b.tensor):
                    # Equal shapes have equal ranks: the assert states the other's rank.
                    t = self.scope.env.vars.get(name)
                    if rank and isinstance(t, TensorType) and t.rank is None:
                        self.scope.env.vars[name] = TensorType(t.dtype, rank)
                for d in range(rank):
                    self.scope.unify(ir.SizeOf(a.tensor, d), ir.SizeOf(b.tensor, d))
            else:
                self.scope.unify(a, b)

    def _return_item(self, node: cst.BaseExpression) -> ir.Expr:
        if isinstance(node, cst.Name) and node.value in self.scope.env.vars:
            return ir.Name(node.value)
        raise self.error(
            node,
            f"return `{source_of(node)}`: return host tensors by name",
            "bind the value to a name first",
        )

    def _shape_of_tensor(self, node: cst.BaseExpression) -> str | None:
        """The host tensor whose shape ``node`` is (``x.shape``, ``x.size()``), if any."""
        tensor = None
        if isinstance(node, cst.Attribute) and node.attr.value == "shape":
            tensor = node.value
        elif (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and (node.func.attr.value == "size" and not node.args)
        ):
            tensor = node.func.value
        if isinstance(tensor, cst.Name) and self.scope.is_tensor(tensor.value):
            return tensor.value
        return None

    def _shape_unpack(
        self, target: cst.Tuple | cst.List, value: cst.BaseExpression, node: cst.CSTNode
    ) -> ir.Stmt:
        tensor = self._shape_of_tensor(value)
        if tensor is None:
            raise self.error(
                node, "tuple assignment on the host must unpack `x.size()` or `x.shape`"
            )
        names: list[str | None] = []
        for i, element in enumerate(target.elements):
            v = element.value
            if not isinstance(v, cst.Name):
                raise self.error(v, "unpack sizes into plain names")
            name = None if v.value == "_" else v.value
            names.append(name)
            if name is not None:
                self.scope.unify(ir.Name(name), ir.SizeOf(tensor, i))
                self.scope.used_names.add(name)
        stmt = ir.ShapeUnpack(tuple(names), tensor, loc=self.locate(node))
        known = self.scope.rank(tensor)
        if known is not None and known != len(names):
            raise self.error(node, f"`{tensor}` is {known}-d but unpacked into {len(names)} sizes")
        t = self.scope.env.vars[tensor]
        assert isinstance(t, TensorType)
        self.scope.env.vars[tensor] = TensorType(t.dtype, len(names))
        for name in names:
            if name is not None:
                self.scope.env.vars[name] = ScalarType(ir.I32, weak=True)
        return stmt

    def _host_assign(
        self, name: str, value: cst.BaseExpression, node: cst.CSTNode
    ) -> list[ir.Stmt]:
        loc = self.locate(node)
        self.scope.host_ints.pop(name, None)
        if isinstance(value, cst.Integer):
            self.scope.host_ints[name] = int(value.evaluated_value)
        if self.scope.is_tensor(name):
            raise self.error(
                node,
                f"rebinding tensor `{name}` on the host is not supported",
                "allocate outputs under a new name",
            )
        alloc = self._alloc(name, value)
        if alloc is not None:
            self.scope.env.vars[name] = TensorType(
                alloc.dtype,
                len(alloc.shape) if alloc.shape is not None else self.scope.rank(alloc.like or ""),
            )
            if alloc.like is not None:
                self.scope.like[name] = alloc.like
            elif alloc.shape is not None:
                self.scope.alloc_shapes[name] = alloc.shape
            self.scope.used_names.add(name)
            return [_with_loc(alloc, loc)]
        permuted = self._permuted_view(name, value)
        if permuted is not None:
            return permuted
        view = self._view(name, value)
        if view is not None:
            return [view]
        if isinstance(value, cst.Call):
            fn = resolve(value.func, self.aliases)
            lang = self.grammar["frontend"]["language"]
            if fn == lang["register_block_size"]:
                return self._register_block_size(name, value)
            if fn == lang["register_tunable"]:
                return self._register_tunable(name, value)
            if fn == lang["register_reduction_dim"]:
                return self._register_reduction_dim(name, value, node)
            fitted = self._fitted_block(name, value)
            if fitted is not None:
                return fitted
            if fn == lang["specialize"]:
                args, _ = call_args(value)
                inner = self.build.expr(args[0])
                # Other DSLs take the value as it is (the kernel parameter is a constexpr):
                # `n = hl.specialize(n)` goes, `n = hl.specialize(x.size(1))` keeps its value.
                if isinstance(args[0], cst.Name) and args[0].value == name:
                    self._remove_line(
                        value, "hl.specialize", "the kernels take it as a compile-time constant"
                    )
                else:
                    self.edits.append(
                        ir.HostEdit(
                            "replace",
                            self.locate.span(value),
                            text=source_of(args[0]),
                            note="tiletrans: was `hl.specialize(...)`: the kernels take it as "
                            "a compile-time constant",
                        )
                    )
                self.scope.specialized.append(name)
                self.scope.env.vars[name] = ScalarType(ir.I32, weak=True)
                self.scope.used_names.add(name)
                return [ir.Assign(name, inner, loc=loc)]
        expr = self.build.expr(value)
        t = self.build.type_of(expr, node)
        if (
            isinstance(t, TensorType)
            and isinstance(expr, ir.Cast)
            and isinstance(expr.value, ir.Name)
        ):
            # `out = c.to(a.dtype)`: a converted copy of a whole tensor (after a kernel).
            self.scope.env.vars[name] = t
            self.scope.like[name] = expr.value.id
            self.scope.used_names.add(name)
            return [ir.Assign(name, expr, loc=loc)]
        if not isinstance(t, ScalarType):
            raise self.error(
                node,
                f"unsupported host value `{source_of(value)}`",
                "host code may compute scalars, allocate tensors and convert them (`x.to(dtype)`)",
            )
        self.scope.env.vars[name] = t
        self.scope.used_names.add(name)
        if bindings(self.fn, name) == 1:
            # A block size may be computed from it (`block_k = next_power_of_2(cdiv(k, s))`).
            self.scope.host_values[name] = expr
        return [ir.Assign(name, expr, loc=loc)]

    def _register_reduction_dim(
        self, name: str, call: cst.Call, node: cst.CSTNode
    ) -> list[ir.Stmt]:
        """``n = hl.register_reduction_dim(y.size(1))`` (newer Helion): the size itself, which
        Helion marks as a dim kernels read whole; the translation binds the size (Helion 1.5,
        which the other targets' hosts and a Helion output run under, has no such call)."""
        args, kwargs = call_args(call)
        if len(args) != 1 or kwargs or isinstance(args[0], (cst.List, cst.Tuple)):
            raise self.error(
                call,
                "hl.register_reduction_dim is read for one size",
                "register each dim in a statement of its own: `n = "
                "hl.register_reduction_dim(y.size(1))`",
            )
        self.edits.append(
            ir.HostEdit(
                "replace",
                self.locate.span(call),
                text=source_of(args[0]),
                note="tiletrans: was `hl.register_reduction_dim(...)`: a dim the kernels read "
                "whole",
            )
        )
        return self._host_assign(name, args[0], node)

    def _permuted_view(self, name: str, value: cst.BaseExpression) -> list[ir.Stmt] | None:
        """``y = x.transpose(a, b)`` / ``.permute(...)`` of a host tensor (or of a view of one,
        ``k.reshape([-1, n, d]).transpose(1, 2)``): no IR tensor of its own; kernels that index
        ``y`` read the tensor it reorders, their values permuted back."""
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)):
            return None
        method = value.func.attr.value
        if method not in ("transpose", "permute"):
            return None
        inner = value.func.value
        stmts: list[ir.Stmt] = []
        if isinstance(inner, cst.Name) and self.scope.is_tensor(inner.value):
            base = inner.value
        else:
            base = self.scope.fresh(f"{name}_base")
            view = self._view(base, inner)
            if view is None:
                return None
            stmts.append(view)
        if base in self.scope.permuted:
            raise self.error(value, "a reordered view of a reordered view is not supported yet")
        t = self.scope.env.vars[base]
        assert isinstance(t, TensorType)
        rank = t.rank
        args, kwargs = call_args(value)
        dims = [literal_or_none(a) for a in args]
        if rank is None or kwargs or not all(isinstance(d, int) for d in dims):
            raise self.error(
                value, f"`.{method}()` of a host tensor needs literal dims and a known rank"
            )
        order = list(range(rank))
        if method == "transpose":
            if len(dims) != 2:
                raise self.error(value, "`.transpose()` takes two dims")
            a, b = (d % rank for d in dims)
            order[a], order[b] = order[b], order[a]
        else:
            order = [d % rank for d in dims]
        if sorted(order) != list(range(rank)):
            raise self.error(value, f"bad permutation {order} for a {rank}-d tensor")
        self.scope.permuted[name] = (base, tuple(order))
        if stmts:
            # The base exists in the IR only: the launch reads it back off the view.
            inverse = [order.index(d) for d in range(rank)]
            swapped = [d for d in range(rank) if inverse[d] != d]
            self.scope.spelled[base] = (
                f"{name}.transpose({swapped[0]}, {swapped[1]})"
                if len(swapped) == 2
                else f"{name}.permute({', '.join(map(str, inverse))})"
            )
        self.scope.env.vars[name] = TensorType(t.dtype, rank)
        self.scope.used_names.add(name)
        for d, source in enumerate(order):
            # The base's size first: it stays the class's spelling (the view is no IR tensor).
            self.scope.unify(self.scope.size_expr(base, source), ir.SizeOf(name, d))
        return stmts

    def _view(self, name: str, value: cst.BaseExpression) -> ir.Stmt | None:
        """``y = x.view(...)``/``.reshape(...)``/``.flatten()`` of a host tensor."""
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)):
            return None
        base = value.func.value
        method = value.func.attr.value
        if method not in ("view", "reshape", "flatten") or not (
            isinstance(base, cst.Name) and self.scope.is_tensor(base.value)
        ):
            return None
        args, kwargs = call_args(value)
        if kwargs or (method == "flatten" and args):
            raise self.error(
                value, f"unsupported `.{method}()` arguments", "use x.view(-1) or x.view(m, n)"
            )
        if method == "flatten":
            shape: tuple[ir.Expr, ...] = (ir.Const(-1),)
        else:
            nodes = (
                [e.value for e in args[0].elements]
                if len(args) == 1 and isinstance(args[0], (cst.List, cst.Tuple))
                else args
            )
            shape = tuple(self.build.expr(n) for n in nodes)
        t = self.scope.env.vars[base.value]
        assert isinstance(t, TensorType)
        self.scope.env.vars[name] = TensorType(t.dtype, len(shape))
        self.scope.used_names.add(name)
        if shape == (ir.Const(-1),):
            self.scope.flat_views.setdefault(base.value, name)
        return ir.View(name, base.value, shape, loc=self.locate(value))

    def _alloc_dtype(self, node: cst.BaseExpression, target: str) -> ir.DTypeExpr:
        """The dtype= of an allocation of ``target``; a dtype carried host code computes is the
        new tensor's own (and names it from then on: ``.to(out_dtype)`` is ``.to(out.dtype)``)."""
        if isinstance(node, cst.Name) and node.value in self.scope.dtype_aliases:
            known = self.scope.dtype_aliases[node.value]
            if known is None:
                self.scope.dtype_aliases[node.value] = ir.DTypeOf(target)
                return ir.DTypeOf(target)
            return known
        if isinstance(node, cst.Call) and (
            resolve(node.func, self.aliases) in self.grammar["frontend"]["host"]["dtype_functions"]
        ):
            # `dtype=torch.promote_types(x.dtype, y.dtype)`, computed where the host code is
            # carried: the new tensor's own dtype, as for a name bound to it.
            return ir.DTypeOf(target)
        return self.build.dtype(node)

    def _remove_line(self, node: cst.CSTNode, what: str, why: str) -> None:
        """The translation drops the host statement of ``node`` (consumed by the kernels)."""
        line = self.current_line
        if line is None or len(line.body) != 1:
            raise self.error(node, f"put `{what}(...)` on a line of its own")
        text = " ".join(source_of(line.body[0]).split())
        note = f"tiletrans: dropped `{text}`: {why}"
        self.edits.append(ir.HostEdit("remove", self.locate.span(line), note=note))

    def _alloc(self, name: str, value: cst.BaseExpression) -> ir.Alloc | None:
        if not isinstance(value, cst.Call):
            return None
        g = self.grammar["frontend"]
        try:
            call = read_alloc(
                value,
                resolve(value.func, self.aliases),
                g["host_alloc"],
                g["methods"]["host_alloc"],
            )
        except AllocError as err:
            raise self.error(err.node, str(err)) from None
        if call is None:
            return None
        base = None
        if call.base is not None:
            if not (isinstance(call.base, cst.Name) and self.scope.is_tensor(call.base.value)):
                return None  # `obj.new_empty(...)` of something no host tensor
            base = call.base.value
        if call.like is not None:
            like = call.like
            if isinstance(like, cst.Name) and like.value in self.scope.permuted:
                raise self.error(
                    like,
                    f"an allocation like `{like.value}`, a reordered view, is not supported yet",
                    "allocate with an explicit shape: torch.empty([...], dtype=..., device=...)",
                )
            if not isinstance(like, cst.Name) or not self.scope.is_tensor(like.value):
                raise self.error(value, "allocate like a host tensor")
            dtype = (
                self._alloc_dtype(call.dtype, name)
                if call.dtype is not None
                else ir.DTypeOf(like.value)
            )
            if dtype == ir.DTypeOf(like.value):
                dtype = self._dtype_of_tensor(like.value)
            return ir.Alloc(name, None, like.value, dtype, like.value, call.fill)
        whole = _shape_source(call.shape[0]) if len(call.shape) == 1 else None
        if whole is not None and self.scope.is_tensor(whole) and self.scope.rank(whole) is None:
            # `torch.empty(x.shape, dtype=...)` of an `x` of unknown rank: shaped like `x`.
            dtype = (
                self._alloc_dtype(call.dtype, name)
                if call.dtype is not None
                else self._dtype_of_tensor(whole)
            )
            return ir.Alloc(name, None, whole, dtype, whole, call.fill)
        if whole is not None and self.scope.is_tensor(whole):
            sizes: list[cst.BaseExpression] | None = [
                _size_call(whole, d) for d in range(self.scope.rank(whole) or 0)
            ]
        else:
            sizes = self._alloc_sizes(value, call.shape)
        if sizes is None:
            return None  # a shape that splices in a tensor's shape of unknown rank: carried
        shape = tuple(self.build.expr(s) for s in sizes)
        for s, node in zip(shape, sizes):
            if not isinstance(self.build.type_of(s, node), ScalarType):
                raise self.error(node, "allocation sizes must be host scalars")
        source = base
        if source is None:
            device_node = call.device
            if device_node is None:
                raise self.error(value, "give the output a device, e.g. device=x.device")
            if not (
                isinstance(device_node, cst.Attribute)
                and device_node.attr.value == "device"
                and isinstance(device_node.value, cst.Name)
                and self.scope.is_tensor(device_node.value.value)
            ):
                raise self.error(device_node, "device= must be `x.device` of an input tensor")
            source = device_node.value.value
        if call.dtype is not None:
            dtype = self._alloc_dtype(call.dtype, name)
        elif base is not None:
            dtype = self._dtype_of_tensor(base)
        else:
            raise self.error(value, "give the output a dtype, e.g. dtype=x.dtype")
        return ir.Alloc(name, shape, None, dtype, source, call.fill)

    def _alloc_sizes(
        self, call: cst.Call, shape: tuple[cst.BaseExpression, ...]
    ) -> list[cst.BaseExpression] | None:
        """The sizes an allocation's shape list gives, with each ``*t.shape`` (or
        ``*t.size()``) spliced in as ``t.size(0), t.size(1), ...`` where ``t``'s rank is known
        (Helion's ``x.new_empty([blocks, *weight.shape])``); ``None`` where it is not."""
        shape_node = call.args[0].value if call.args and not call.args[0].keyword else None
        elements = shape_node.elements if isinstance(shape_node, (cst.List, cst.Tuple)) else None
        if elements is None or not any(isinstance(e, cst.StarredElement) for e in elements):
            return list(shape)
        sizes: list[cst.BaseExpression] = []
        for element in elements:
            if not isinstance(element, cst.StarredElement):
                sizes.append(element.value)
                continue
            tensor = _shape_source(element.value)
            if tensor is None or not self.scope.is_tensor(tensor):
                raise self.error(
                    element,
                    f"unsupported shape entry `{source_of(element)}`",
                    "splice in a host tensor's shape (`*w.shape`) or list the sizes",
                )
            rank = self.scope.rank(tensor) or self._rank_from_subscripts(tensor)
            if rank is None:
                raise self.error(
                    element,
                    f"`{source_of(element)}` splices in the shape of `{tensor}`, whose rank "
                    "nothing before it states",
                    f"state it first: unpack the sizes (`n, = {tensor}.shape`) or list them",
                )
            sizes.extend(_size_call(tensor, d) for d in range(rank))
        return sizes

    def _rank_from_subscripts(self, tensor: str) -> int | None:
        """The rank the kernel function's subscripts of ``tensor`` give it where they all agree
        (``weight[None, :]`` has one index): the rank device code takes it to have when it
        reads it (:meth:`EntryScope.assume_rank`), assumed now, for a shape spliced in before
        that read; ``None`` where no subscript, or subscripts of several lengths, index it."""
        found: list[cst.Subscript] = []

        def enter(node: cst.CSTNode) -> bool:
            if (
                isinstance(node, cst.Subscript)
                and isinstance(node.value, cst.Name)
                and node.value.value == tensor
            ):
                found.append(node)
            return True

        walk(self.fn.body, enter)
        counts = {_index_count(s) for s in found}
        if len(counts) != 1 or None in counts or 0 in counts:
            return None
        (used,) = counts
        first = found[0]
        spelt = ", ".join(source_of(e.slice) for e in first.slice)
        count = f"{used} {'index' if used == 1 else 'indices'}"
        self.scope.assume_rank(tensor, used, f"`{tensor}[{spelt}]` has {count}")
        return used

    def _dtype_of_tensor(self, tensor: str) -> ir.DTypeExpr:
        t = self.scope.env.vars[tensor]
        assert isinstance(t, TensorType)
        return t.dtype


_HOST_STATEMENTS: dict[type, Callable[[HostReader, cst.BaseSmallStatement], list[ir.Stmt]]] = {
    cst.Assign: HostReader.st_assign,
    cst.AnnAssign: HostReader.st_ann_assign,
    cst.Assert: HostReader.st_assert,
    cst.Return: HostReader.st_return,
    cst.Expr: HostReader.st_expr,
    cst.Pass: HostReader.st_pass,
}


def _shape_source(node: cst.BaseExpression) -> str | None:
    """``t`` of ``t.shape`` or ``t.size()``, else ``None``."""
    if isinstance(node, cst.Call) and not node.args:
        node = node.func
        if not (isinstance(node, cst.Attribute) and node.attr.value == "size"):
            return None
    elif not (isinstance(node, cst.Attribute) and node.attr.value == "shape"):
        return None
    return node.value.value if isinstance(node.value, cst.Name) else None


def _index_count(subscript: cst.Subscript) -> int | None:
    """How many dims of its tensor a subscript indexes (``None`` adds one, and counts none);
    ``None`` for an ellipsis, which indexes a number of dims the rank decides."""
    used = 0
    for element in subscript.slice:
        s = element.slice
        if isinstance(s, cst.Index) and isinstance(s.value, cst.Ellipsis):
            return None
        if not (
            isinstance(s, cst.Index) and isinstance(s.value, cst.Name) and s.value.value == "None"
        ):
            used += 1
    return used


def _size_call(tensor: str, dim: int) -> cst.Call:
    """``tensor.size(dim)``, as the source could have written it."""
    return cst.Call(
        cst.Attribute(cst.Name(tensor), cst.Name("size")), [cst.Arg(cst.Integer(str(dim)))]
    )


def _with_comments(stmt: ir.Stmt, comments: tuple[str, ...]) -> ir.Stmt:
    if not comments:
        return stmt
    return dataclasses.replace(stmt, comments=comments + stmt.comments)


def _with_loc(stmt: ir.Stmt, loc: ir.Loc | None) -> ir.Stmt:
    return dataclasses.replace(stmt, loc=loc)


def _parallel_pairs(
    target: cst.Tuple | cst.List, value: cst.BaseExpression
) -> list[tuple[str, cst.BaseExpression]] | None:
    """``a, b = e1, e2`` as ``[(a, e1), (b, e2)]``, where binding them one after the other
    means the same (no right-hand side reads a name the left binds); else ``None``."""
    if not isinstance(value, (cst.Tuple, cst.List)) or len(value.elements) != len(target.elements):
        return None
    names = [el.value.value if isinstance(el.value, cst.Name) else None for el in target.elements]
    if None in names or any(isinstance(el, cst.StarredElement) for el in value.elements):
        return None
    read = {n.value for el in value.elements for n in name_nodes(el.value)}
    if read & set(names):  # type: ignore[arg-type]
        return None
    return [(n, el.value) for n, el in zip(names, value.elements)]  # type: ignore[misc]


def _plain_call_text(call: cst.Call, aliases: dict[str, str]) -> str | None:
    """The plain Python of a call of :data:`_PLAIN_HOST_CALLS` (the ones in its arguments
    too: ``helion.next_power_of_2(helion.cdiv(k, s))``), or ``None`` for a form no template
    spells."""
    template, arity = _PLAIN_HOST_CALLS[resolve(call.func, aliases) or ""]
    args, kwargs = call_args(call)
    if kwargs or len(args) != arity:
        return None
    texts = []
    for arg in args:
        inner = (
            _plain_call_text(arg, aliases)
            if isinstance(arg, cst.Call) and resolve(arg.func, aliases) in _PLAIN_HOST_CALLS
            else None
        )
        texts.append(host_atom(inner if inner is not None else " ".join(source_of(arg).split())))
    return template.format(*texts)
