"""Helion frontend, carried host code: host statements the IR does not model stay in the
translation as written; what they bind is typed where the code tells (a tensor of known rank, a
scalar, a dtype) so that kernels may read it, and the entry's facts are incomplete from there on.

A mixin of :class:`translator.dialects.helion.frontend.EntryParser`, which holds the state the
methods read (``self.scope``, ``self.aliases``, ``self.grammar``...); split out so that each file
reads one part of a kernel function.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import libcst as cst

from translator.diagnostics import TranslationError
from translator.dialects.common.torch_host import AllocError, read_alloc
from translator.dialects.cst_utils import call_args, name_nodes, resolve, source_of
from translator.dialects.helion.loops import bindings
from translator.ir import nodes as ir
from translator.ir.shapes import ScalarType, TensorType

if TYPE_CHECKING:
    from translator.dialects.helion.frontend import EntryParser

# Tensor methods whose result is a tensor of the same rank.
_SAME_RANK_METHODS = {
    "contiguous", "clone", "detach", "to", "float", "half", "bfloat16", "double", "int",
    "long", "cuda", "cpu", "transpose", "permute", "t", "abs", "neg", "exp", "sigmoid",
    "type_as", "expand_as", "view_as", "reshape_as",
}  # fmt: skip
_SCALAR_FUNCTIONS = {"float": "float", "int": "int", "bool": "bool"}


class CarriedReader:
    """Host statements carried as written, and the names they bind."""

    def _carried(self, node: cst.CSTNode, why: TranslationError | None) -> list[ir.Stmt]:
        """A host statement the IR does not model: it stays in the translation as written.

        What it binds is told from the code where it can be (a tensor of known rank, a scalar, a
        dtype) so that kernels may read it; the entry's facts are incomplete from here on.
        Helion-only host calls cannot be carried into another DSL: those are refused.
        """
        dsl = self._dsl_call(node)
        if dsl is not None:
            if why is not None:
                raise why
            raise self.error(
                dsl,
                f"`{source_of(dsl)}` is Helion host code inside a host statement tiletrans "
                "carries as written",
                "move the hl.* call into a statement of its own (`n = hl.specialize(...)`)",
            )
        read = name_nodes(node)
        if why is not None and any(n.value in self.scope.permuted for n in read):
            raise why  # a reordered view has no IR tensor a carried statement could stand for
        blocks = [n for n in read if n.value in self.scope.registered_blocks]
        if blocks:
            # The name holds Helion's block-size object: no translation defines it.
            if why is not None:
                raise why
            raise self.error(
                blocks[0],
                f"`{blocks[0].value}` (a block size hl.register_block_size registers) is read "
                "by host code: the translation's block sizes are picked at the launch",
                "use a plain int block size where host code needs it",
            )
        if _contains_device_loop(node, self):
            raise self.error(
                node,
                "a device loop nested in host control flow is not supported",
                "put hl.tile/hl.grid loops at the top level of the kernel function",
            )
        self.complete = False
        out: list[ir.Stmt] = []
        bindings = _assignments(node)
        for name, value, index in bindings:
            stmt = self._bind_carried(name, value, index)
            if stmt is not None:
                out.append(stmt)
        self._branch_ranks(node, bindings)
        return out

    def _branch_ranks(
        self,
        node: cst.CSTNode,
        bindings: list[tuple[str, cst.BaseExpression | None, int | None]],
    ) -> None:
        """A name a compound host statement binds to tensors of different ranks (Helion's KL
        divergence allocates ``loss`` full-size under ``if reduction == "none":`` and one value
        per row else) is no tensor a kernel can take: it has one rank. Such a name is left
        untyped, and a kernel's store to it says why (:attr:`EntryScope.rank_conflicts`)."""
        ranks: dict[str, set[int | None]] = {}
        for name, value, index in bindings:
            kind = self._carried_kind(value, index)
            ranks.setdefault(name, set()).add(kind.rank if isinstance(kind, TensorType) else None)
        for name, found in ranks.items():
            known = sorted(r for r in found if r is not None)
            if len(known) > 1:
                self.scope.env.vars.pop(name, None)
                self.scope.rank_conflicts[name] = (self.locate(node).line, tuple(known))
                if isinstance(node, cst.If):
                    self.scope.rank_choices[name] = " ".join(source_of(node.test).split())

    def _dsl_call(self, node: cst.CSTNode) -> cst.Call | None:
        """The first call of a Helion API inside ``node``, if any."""
        found: list[cst.Call] = []
        roots = tuple(self.grammar["packages"])

        class V(cst.CSTVisitor):
            def visit_Call(self, call: cst.Call) -> None:
                name = resolve(call.func, outer.aliases) or ""
                if not found and name.split(".")[0] in roots:
                    found.append(call)

        outer = self
        node.visit(V())
        return found[0] if found else None

    def _bind_carried(
        self, name: str, value: cst.BaseExpression | None, index: int | None
    ) -> ir.Carried | None:
        """Type ``name``, bound by carried host code to ``value`` (item ``index`` of it)."""
        env = self.scope.env.vars
        self.scope.used_names.add(name)
        self.scope.dtype_aliases.pop(name, None)
        self.scope.unknown.pop(name, None)
        kind = self._carried_kind(value, index)
        text = source_of(value) if value is not None else name
        if isinstance(kind, TensorType):
            env[name] = TensorType(ir.DTypeOf(name), kind.rank)
            return ir.Carried(name, "tensor", text, kind.rank)
        if isinstance(kind, ScalarType):
            env[name] = kind
            scalar = "float" if kind.dtype == ir.F32 else "bool" if kind.dtype == ir.BOOL else "int"
            return ir.Carried(name, scalar, text)
        env.pop(name, None)
        if kind == "dtype":
            # A name bound to a dtype more than once (in the branches of an `if`) names the
            # one the host picks at run time: computed, as `torch.promote_types(...)` is.
            once = bindings(self.fn, name) == 1  # type: ignore[attr-defined]
            self.scope.dtype_aliases[name] = self._static_dtype(value) if once else None
        else:
            self.scope.unknown[name] = text
        return None

    def _carried_kind(self, value: cst.BaseExpression | None, index: int | None) -> object:
        """What a carried value is: a ``TensorType``/``ScalarType``, ``"dtype"`` or ``None``."""
        if value is None:
            return None
        if isinstance(value, (cst.Integer, cst.Float)):
            return ScalarType(ir.F32 if isinstance(value, cst.Float) else ir.I32, weak=True)
        fn = resolve(value.func, self.aliases) if isinstance(value, cst.Call) else None
        if (
            self._static_dtype(value) is not None
            or fn in self.grammar["frontend"]["host"]["dtype_functions"]
        ):
            return "dtype"
        if isinstance(value, cst.Attribute) and value.attr.value == "dtype":
            return "dtype"
        if isinstance(value, cst.Call):
            args, _ = call_args(value)
            rank = self._alloc_rank(value)
            if rank is not None:
                return TensorType(ir.F32, rank)
            if isinstance(value.func, cst.Name) and value.func.value in _SCALAR_FUNCTIONS:
                kind = _SCALAR_FUNCTIONS[value.func.value]
                dtype = {"float": ir.F32, "int": ir.I32, "bool": ir.BOOL}[kind]
                return ScalarType(dtype, weak=True)
            host = self.grammar["frontend"]["host"]
            if fn in host["tensor_functions"]:
                ranks = [self.scope.rank(a.value) for a in args if isinstance(a, cst.Name)]
                known = [r for r in ranks if r is not None]
                rank = max(known) if known and len(known) == len(ranks) else None
                return TensorType(ir.F32, rank)
            if index is None and fn is not None:
                made = self._made_tensor(fn, value, host)
                if made is not None:
                    return made
            if isinstance(value.func, cst.Attribute) and isinstance(value.func.value, cst.Name):
                base, method = value.func.value.value, value.func.attr.value
                if self.scope.is_tensor(base):
                    rank = self.scope.rank(base)
                    if method in ("view", "reshape"):
                        shape = args
                        if len(args) == 1 and isinstance(args[0], (cst.List, cst.Tuple)):
                            shape = [e.value for e in args[0].elements]
                        starred = isinstance(value.args[0].star, str) and value.args[0].star
                        return TensorType(ir.F32, None if starred else len(shape))
                    if method == "expand_as" and len(args) == 1:
                        return TensorType(ir.F32, self._rank_of_shape(args[0]))
                    if method == "expand" and len(args) == 1:
                        # `g.expand(y.shape)`: the rank of the shape it is given.
                        return TensorType(ir.F32, self._rank_of_shape(args[0]))
                    if method == "expand":
                        return TensorType(ir.F32, len(args))
                    if method == "flatten" and not args:
                        return TensorType(ir.F32, 1)
                    if method == "unsqueeze":
                        return TensorType(ir.F32, rank + 1 if rank is not None else None)
                    if method in _SAME_RANK_METHODS:
                        return TensorType(ir.F32, rank)
                    if method in ("size", "numel", "stride", "dim", "element_size"):
                        return ScalarType(ir.I32, weak=True)
        if isinstance(value, cst.Name):
            t = self.scope.env.vars.get(value.value)
            if isinstance(t, (TensorType, ScalarType)):
                return t
            if value.value in self.scope.dtype_aliases:
                return "dtype"
        if index is None and isinstance(value, _OPERATIONS):
            # `idx + n`, `idx < 0`, `~mask`: elementwise on a host tensor is a tensor.
            return self._broadcast(_operands(value))
        return None

    def _made_tensor(self, fn: str, call: cst.Call, host: dict[str, Any]) -> TensorType | None:
        """The tensor a host torch function of ``host``'s tables returns (its rank where the
        call tells it), ``None`` for a function of none of them."""
        args, kwargs = call_args(call)
        if fn in host["elementwise_functions"]:
            return self._broadcast([*args, *kwargs.values()])
        if fn in host["shaped_functions"]:
            position = host["shaped_functions"][fn]
            shape = args[position] if len(args) > position else kwargs.get("size")
            if shape is None:
                shape = kwargs.get("shape")
            rank = self._rank_of_shape(shape) if shape is not None else None
            return TensorType(ir.F32, rank)
        if fn in host["vector_functions"]:
            # `torch.flatten(x, start_dim, ...)` keeps the dims before its start: rank unknown.
            dims_given = len(args) > 1 or "start_dim" in kwargs or "end_dim" in kwargs
            return TensorType(ir.F32, None if fn == "torch.flatten" and dims_given else 1)
        return None

    def _broadcast(self, operands: list[cst.BaseExpression]) -> TensorType | None:
        """The tensor an elementwise op of ``operands`` makes: of the highest rank among its
        tensor operands (torch broadcasts them together), unknown where an operand is of a
        kind the code does not tell; ``None`` where no operand is a tensor."""
        kinds = [self._carried_kind(o, None) for o in operands]
        tensors = [k for k in kinds if isinstance(k, TensorType)]
        if not tensors:
            return None
        ranks = [k.rank for k in tensors]
        told = all(isinstance(k, (TensorType, ScalarType)) for k in kinds)
        if not told or None in ranks:
            return TensorType(ir.F32, None)
        return TensorType(ir.F32, max(r for r in ranks if r is not None))

    def _rank_of_shape(self, node: cst.BaseExpression) -> int | None:
        """The rank ``node`` gives as a shape or a tensor to match: ``y.shape``, ``y.size()``,
        ``y``, a list of sizes."""
        if isinstance(node, (cst.List, cst.Tuple)):
            if any(isinstance(e, cst.StarredElement) for e in node.elements):
                return None
            return len(node.elements)
        if isinstance(node, cst.Attribute) and node.attr.value == "shape":
            node = node.value
        elif (
            isinstance(node, cst.Call)
            and not node.args
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "size"
        ):
            node = node.func.value
        if isinstance(node, cst.Name) and self.scope.is_tensor(node.value):
            return self.scope.rank(node.value)
        return None

    def _alloc_rank(self, call: cst.Call) -> int | None:
        """The rank of a torch allocation (``torch.zeros((bt,), ...)``, ``torch.zeros_like(x)``
        of a tensor of known rank), else ``None``."""
        g = self.grammar["frontend"]
        try:
            alloc = read_alloc(
                call, resolve(call.func, self.aliases), g["host_alloc"], g["methods"]["host_alloc"]
            )
        except AllocError:
            return None
        if alloc is None:
            return None
        if alloc.like is not None:
            like = alloc.like
            return self.scope.rank(like.value) if isinstance(like, cst.Name) else None
        shape = call.args[0].value if call.args else None
        if isinstance(shape, (cst.List, cst.Tuple)) and any(
            isinstance(e, cst.StarredElement) for e in shape.elements
        ):
            return None
        return len(alloc.shape)

    def _static_dtype(self, node: cst.BaseExpression | None) -> ir.DTypeExpr | None:
        """``torch.float32`` (or an alias of one), or ``x.dtype`` of a host tensor ``x``, as an
        IR dtype."""
        if node is None:
            return None
        name = resolve(node, self.aliases)
        table = self.grammar["frontend"]["dtypes"]
        if name in table:
            return ir.DType(table[name])
        if isinstance(node, cst.Name):
            return self.scope.dtype_aliases.get(node.value)
        if (
            isinstance(node, cst.Attribute)
            and node.attr.value == "dtype"
            and isinstance(node.value, cst.Name)
            and self.scope.is_tensor(node.value.value)
            and bindings(self.fn, node.value.value) == 0  # type: ignore[attr-defined]
        ):
            # `dtype = B.dtype`: the dtype of a parameter the kernels take, which they can read.
            # Not of a name the function rebinds (`x = x.to(torch.float32)` after it): the
            # kernel would read the new tensor's dtype.
            return ir.DTypeOf(node.value.value)
        return None


_OPERATIONS = (cst.BinaryOperation, cst.Comparison, cst.UnaryOperation)


# Comparisons that test identity or membership: a bool, whatever their operands are.
_NOT_ELEMENTWISE = (cst.Is, cst.IsNot, cst.In, cst.NotIn)


def _operands(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The operands of an elementwise operator expression (``a + b``, ``a < b < c``, ``~a``);
    none for ``bias is not None`` or ``k in names``."""
    if isinstance(node, cst.BinaryOperation):
        return [node.left, node.right]
    if isinstance(node, cst.Comparison):
        if any(isinstance(c.operator, _NOT_ELEMENTWISE) for c in node.comparisons):
            return []
        return [node.left, *(c.comparator for c in node.comparisons)]
    if isinstance(node, cst.UnaryOperation):
        return [node.expression]
    return []


def _contains_device_loop(node: cst.CSTNode, parser: EntryParser) -> bool:
    found = []

    class V(cst.CSTVisitor):
        def visit_For(self, n: cst.For) -> None:
            if parser._is_device_loop(n):
                found.append(n)

    node.visit(V())
    return bool(found)


def _assignments(
    node: cst.CSTNode,
) -> list[tuple[str, cst.BaseExpression | None, int | None]]:
    """Names a host statement binds: (name, value it is bound to, index into a tuple value)."""
    out: list[tuple[str, cst.BaseExpression | None, int | None]] = []

    def targets(target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        if isinstance(target, cst.Name):
            out.append((target.value, value, None))
        elif isinstance(target, (cst.Tuple, cst.List)):
            for i, element in enumerate(target.elements):
                if isinstance(element.value, cst.Name):
                    out.append((element.value.value, value, i))

    class V(cst.CSTVisitor):
        def visit_Assign(self, n: cst.Assign) -> None:
            for t in n.targets:
                targets(t.target, n.value)

        def visit_AnnAssign(self, n: cst.AnnAssign) -> None:
            targets(n.target, n.value)

        def visit_AugAssign(self, n: cst.AugAssign) -> None:
            targets(n.target, None)

        def visit_For(self, n: cst.For) -> None:
            targets(n.target, None)

        def visit_WithItem(self, n: cst.WithItem) -> None:
            if n.asname is not None:
                targets(n.asname.name, None)  # type: ignore[arg-type]

        def visit_FunctionDef(self, n: cst.FunctionDef) -> bool:
            out.append((n.name.value, None, None))
            return False

    node.visit(V())
    return out
