"""Expressions: evaluation to abstract values, operators, and conversion of index trees to IR."""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING

import libcst as cst

from translator.dialects.cst_utils import (
    BINARY_OPERATORS,
    COMPARISON_OPERATORS,
    call_args,
    literal,
    resolve,
    walk,
)
from translator.dialects.triton import frontend_affine as af
from translator.dialects.triton.frontend_blocks import BlockPtr, Descriptor
from translator.dialects.triton.ir_rewrite import simplify
from translator.dialects.triton.lift_dispatch import (
    EXPRESSIONS,
    handles,
    handles_builtin,
    handles_expression,
)
from translator.dialects.triton.lifted import (
    Data,
    DTypeVal,
    Idx,
    LaneAcc,
    Pending,
    Ptr,
    Refusal,
    Static,
    Tile,
    TupleVal,
    Val,
)
from translator.dialects.triton.symbols import (
    SymKind,
    kind_of,
    param_name,
    parse_lane,
    parse_sym,
    sym_of,
)
from translator.ir import nodes as ir
from translator.ir.ops import COMPARISON_OPS
from translator.ir.padding import fold_pad
from translator.ir.shapes import IRTypeError, dims_of, dtype_of, infer

if TYPE_CHECKING:
    from translator.dialects.triton.frontend_device import KernelLifter

_BINOPS = BINARY_OPERATORS
_CMP = COMPARISON_OPERATORS
_INT_OPS = ("+", "-", "*", "//", "%")


#: Unsigned integer dtypes of the language the IR has no form for.
_UNSIGNED_WORDS = ("uint16", "uint32", "uint64")


class ValuesMixin:
    """Expression evaluation, operators and IR conversions of :class:`KernelLifter`."""

    def ev(self, node: cst.BaseExpression) -> Val:
        """The abstract value of expression ``node``."""
        handler = EXPRESSIONS.get(type(node))
        if handler is None:
            raise self.error(node, f"unsupported expression `{self.src(node)[:60]}` in a kernel")
        return handler(self, node)

    @handles_expression(cst.Name)
    def name_value(self, node: cst.Name) -> Val:
        """A name: ``True``/``False``/``None``, or what it is bound to."""
        if node.value in ("True", "False"):
            return Static(node.value == "True")
        if node.value == "None":
            return Static(None)
        return self.lookup(node.value, node)

    @handles_expression(cst.Integer)
    def integer_value(self, node: cst.Integer) -> Val:
        """An integer literal: an index constant."""
        return Idx(ir.Const(int(node.evaluated_value)))

    @handles_expression(cst.Float)
    def float_value(self, node: cst.Float) -> Val:
        """A float literal: a data constant."""
        return Data(ir.Const(float(node.evaluated_value)))

    @handles_expression(cst.SimpleString, cst.ConcatenatedString)
    def string_value(self, node: cst.SimpleString | cst.ConcatenatedString) -> Val:
        """A string literal: a compile-time value."""
        return Static(node.evaluated_value)

    @handles_expression(cst.BinaryOperation)
    def binary_operation(self, node: cst.BinaryOperation) -> Val:
        """``a <op> b``."""
        op = _BINOPS.get(type(node.operator))
        if op is None:
            raise self.error(node, f"unsupported operator in `{self.src(node)}`")
        return self.binop(op, self.ev(node.left), self.ev(node.right), node)

    @handles_expression(cst.Comparison)
    def comparison(self, node: cst.Comparison) -> Val:
        """``a < b`` (one comparison; chains are refused)."""
        if len(node.comparisons) != 1:
            raise self.error(node, "chained comparisons are not supported")
        comp = node.comparisons[0]
        if isinstance(comp.operator, (cst.Is, cst.IsNot)):
            return self.none_test(node.left, comp)
        op = _CMP.get(type(comp.operator))
        if op is None:
            raise self.error(node, f"unsupported comparison `{self.src(node)}`")
        self._refuse_fp8_dtype_test(node, comp.comparator)
        left, right = self.ev(node.left), self.ev(comp.comparator)
        if isinstance(left, DTypeVal) and isinstance(right, DTypeVal) and op in ("==", "!="):
            return self.dtype_test(node, left, right, op)
        return self.binop(op, left, right, node)

    def dtype_test(self, node: cst.Comparison, left: DTypeVal, right: DTypeVal, op: str) -> Val:
        """``ptr.dtype.element_ty == tl.bfloat16``: Triton decides it when the kernel compiles,
        so it is static where the launch fixes the tensor's dtype (``torch.empty(...,
        dtype=torch.float16)``); a dtype that follows the inputs is refused (the IR has no test
        of a dtype, and a kernel's dtypes are fixed when it compiles)."""
        if isinstance(left.dtype, ir.DType) and isinstance(right.dtype, ir.DType):
            return Static((left.dtype == right.dtype) == (op == "=="))
        raise self.error(
            node,
            f"`{self.src(node)}` tests a tensor's dtype, which the host does not fix here (it "
            "follows the inputs): Triton compiles one kernel per dtype, the IR has no test of a "
            "dtype",
            "write the kernel so that it computes the same for every dtype (`.to(ptr.dtype."
            "element_ty)`), or pass the choice as a tl.constexpr the launch binds to a literal",
        )

    def _refuse_fp8_dtype_test(self, node: cst.Comparison, other: cst.BaseExpression) -> None:
        """``c_ptr.dtype.element_ty == tl.float8e4nv`` (the persistent-matmul tutorial's
        epilogue): a test for a dtype the IR has no type for. Translating only the branch other
        dtypes take would give an fp8 output what that branch computes (``acc.to(tl.float16)``,
        then rounded again to fp8 by the store), not the source's, so it is refused here."""
        for side, dtype in ((node.left, other), (other, node.left)):
            name = resolve(dtype, self.aliases) or ""
            if not name.startswith(f"{self.lang}.float8"):
                continue
            if not (isinstance(side, cst.Attribute) and side.attr.value in ("element_ty", "dtype")):
                continue
            raise self.error(
                node,
                f"`{self.src(node)}` chooses, when the kernel compiles, by whether a tensor "
                f"holds `{self.src(dtype)}`: the IR has no fp8 type to carry that branch, and "
                "the branch other dtypes take would round an fp8 output twice",
                "keep the fp8 path in a kernel of its own (or in the source DSL) and translate "
                "a kernel without it",
            )

    @handles_expression(cst.UnaryOperation)
    def unary_operation(self, node: cst.UnaryOperation) -> Val:
        """``-x``, ``+x``, ``~x``, ``not x``."""
        v = self.ev(node.expression)
        if isinstance(node.operator, cst.Minus):
            if isinstance(v, Idx):
                return Idx(ir.UnaryOp("-", v.tree))
            d = self.to_data(v, node.expression)
            return Data(ir.UnaryOp("-", d.expr), fold_pads("neg", [d], self), d.div)
        if isinstance(node.operator, cst.Not):
            v = self.pointer_test(v, node.expression)
        if isinstance(node.operator, cst.Not) and isinstance(v, Static):
            return Static(not v.value)
        if (
            isinstance(node.operator, cst.Not)
            and isinstance(v, Idx)
            and isinstance(v.tree, ir.Name)
        ):
            # `not FLAG` of a constexpr flag stays a test of that flag (both branches of `if
            # not FLAG:` are decided by it), not a value computed from its host binding.
            return Idx(ir.UnaryOp("not", v.tree))
        if isinstance(node.operator, (cst.BitInvert, cst.Not)):
            d = self.to_data(v, node.expression)
            op = "not" if isinstance(node.operator, cst.Not) else "~"
            return Data(ir.UnaryOp(op, d.expr), (), d.div)
        assert isinstance(node.operator, cst.Plus)  # libcst's last unary operator
        return v

    @handles_expression(cst.BooleanOperation)
    def boolean_operation(self, node: cst.BooleanOperation) -> Val:
        """``a and b`` / ``a or b`` of compile-time values."""
        a, b = self.ev(node.left), self.ev(node.right)
        is_and = isinstance(node.operator, cst.And)
        if isinstance(a, Static) and isinstance(b, Static):
            return Static((a.value and b.value) if is_and else (a.value or b.value))
        for known, other in ((a, b), (b, a)):
            if isinstance(known, Static) and isinstance(other, Idx):
                # `True and FLAG`: the flag decides; `False and FLAG`: false.
                decided = not known.value if is_and else bool(known.value)
                return Static(known.value) if decided else other
        if isinstance(a, Idx) and isinstance(b, Idx):
            # Scalars (constexpr flags such as `EVEN_M and EVEN_N`): as a test, the same as
            # `&`/`|` of their truth values (`2 and 1` is true, `2 & 1` is not).
            a, b = (self.truth(v, node) for v in (a, b))
            return self.binop("&" if is_and else "|", a, b, node)
        raise self.error(node, f"`{self.src(node)}`: use & and | on device values")

    def truth(self, v: Idx, node) -> Idx:
        """``v`` as a bool: itself where it is a comparison or a parameter (a flag, 0 or 1,
        kept bare so that the flags heuristics prove, ``EVEN_N``, are still recognised), else
        ``v != 0``."""
        if isinstance(v.tree, ir.BinOp) and v.tree.op in COMPARISON_OPS:
            return v
        if isinstance(v.tree, ir.Name) and param_name(v.tree.id) is not None:
            return v
        return Idx(ir.BinOp("!=", v.tree, ir.Const(0)))

    @handles_expression(cst.Tuple, cst.List)
    def tuple_value(self, node: cst.Tuple | cst.List) -> Val:
        """A tuple or list of values."""
        return TupleVal(tuple(self.ev(e.value) for e in node.elements))

    @handles_expression(cst.IfExp)
    def if_expression(self, node: cst.IfExp) -> Val:
        """``a if flag else b``: with a compile-time ``flag``, the branch taken; with a runtime
        scalar (``p_lse = float("-inf") if p_lse == float("inf") else p_lse``), a select."""
        # A compile-time choice (`tl.float8e4nv if FP8_OUTPUT else tl.float16`): Triton
        # compiles only the branch taken, so only that one is lifted.
        test = self.ev(node.test)
        taken = self.static_truth(test)
        if taken is None:
            return self.runtime_choice(node, test)
        return self.ev(node.body if taken else node.orelse)

    def runtime_choice(self, node: cst.IfExp, test: Val) -> Val:
        """``a if c else b`` on a runtime scalar ``c``: Triton branches (an ``scf.if`` yielding
        one value of one type); where both branches only compute values, evaluating both and
        selecting is the same value: ``where(c, a, b)``. A branch that loads, stores or calls a
        helper may do what the source skips (read out of bounds), so it is refused."""
        hint = "use tl.where(cond, a, b) for values, or pass the flag as a literal tl.constexpr"
        impure = self._impure_call(node.body) or self._impure_call(node.orelse)
        if impure is not None:
            raise self.error(
                impure,
                f"`{self.src(node)[:60]}` chooses by a value that is not a compile-time "
                f"constant, and its branch calls `{self.src(impure.func)}`, which both branches "
                "of a select would run",
                hint,
            )
        cond = self.to_data(self._static_num(test), node)
        if dims_of(self.type_of(cond.expr, node)):
            raise self.error(
                node,
                f"`{self.src(node)[:60]}` chooses by a tile, not a scalar: Triton takes one "
                "branch for the whole program",
                hint,
            )
        body, orelse = self.ev(node.body), self.ev(node.orelse)
        cond_src = self.src(node.test)
        if any(isinstance(v, (Ptr, BlockPtr, Descriptor)) for v in (body, orelse)):
            raise self.error(
                node,
                f"`{self.src(node)[:60]}` chooses between pointers by `{cond_src}`, which is "
                "no compile-time constant tiletrans can read: the IR has no pointer values to "
                "select",
                f"load through each pointer and select the loaded values (`tl.where({cond_src}, "
                "tl.load(a + offs, mask=m), tl.load(b + offs, mask=m))`), or, within one "
                "tensor, choose its offsets with tl.where; a choice fixed per launch takes a "
                "`tl.constexpr` flag passed a literal at each launch",
            )
        if any(isinstance(v, DTypeVal) for v in (body, orelse)):
            raise self.error(
                node,
                f"`{self.src(node)[:60]}` chooses a dtype by `{cond_src}`, which is no "
                "compile-time constant tiletrans can read: a kernel's dtypes are fixed when it "
                "compiles",
                "make the flag a `tl.constexpr` parameter passed a literal at each launch "
                "(`if flag > 0: kernel[grid](..., FLAG=True)` / `else: kernel[grid](..., "
                "FLAG=False)`), so that each launch compiles one dtype",
            )
        return self.pointwise("where", [test, body, orelse], node)

    def _impure_call(self, node: cst.BaseExpression) -> cst.Call | None:
        """The first call in ``node`` that is not a pure value of its arguments (a pointwise op,
        a reduction, a cast, ``float("inf")``), if any."""
        frontend = self.grammar["frontend"]
        pure = {*frontend["pointwise"], *frontend["reductions"], *frontend["scalar_pointwise"]}
        pure |= {f"{self.lang}.cast", "float", "int"}
        found: list[cst.Call] = []

        def visit(n: cst.CSTNode) -> bool:
            if found:
                return False
            if isinstance(n, cst.Call):
                method = isinstance(n.func, cst.Attribute) and n.func.attr.value == "to"
                name = resolve(n.func, self.aliases) or ""
                if not method and name not in pure:
                    found.append(n)
                    return False
            return True

        walk(node, visit)
        return found[0] if found else None

    @handles_expression(cst.Attribute)
    def attribute(self, node: cst.Attribute) -> Val:
        name = resolve(node, self.aliases)
        if name is not None:
            dt = self.host.dtype_from_name(name, "triton")
            if dt is not None:
                return DTypeVal(dt)
            lang = self.lang + "."
            if name.startswith(lang) and "." not in name[len(lang) :]:
                # `tl.float8e4nv`, `tl.uint32`: a name of the language the IR has no form for
                # (read as a variable, it was reported as "`tl` is not defined").
                short = name[len(lang) :]
                if short in _UNSIGNED_WORDS:
                    # FlagGems' dropout: Philox counters `(offset & 0xFFFFFFFF).to(tl.uint32)`.
                    raise self.error(
                        node,
                        f"`tl.{short}` is not supported: the IR's integers are signed, apart "
                        "from uint8 (unsigned words wrap where signed ones do not)",
                        "compute offsets and counters in tl.int32/tl.int64; for random numbers "
                        "use `tl.rand(seed, offsets)` instead of tl.philox and uint32 counters",
                    )
                raise self.error(
                    node,
                    f"`tl.{short}` is not supported by the Triton frontend yet"
                    + (" (the IR has no fp8 dtypes)" if "float8" in name else ""),
                    "write the kernel for the float16/bfloat16/float32 and integer dtypes",
                )
        attr = node.attr.value
        base_node = node.value
        if (
            attr == "element_ty"
            and isinstance(base_node, cst.Attribute)
            and (base_node.attr.value in ("dtype", "type"))
        ):
            base = self.ev(base_node.value)
            # A pointer or a block pointer (FLA's `b_y.to(p_y.dtype.element_ty)`): the element
            # type of the tensor it points into.
            if isinstance(base, (Ptr, BlockPtr)):
                return DTypeVal(self.launch.tensor_dtype(base.tensor))
        base = self.ev(base_node)
        if attr == "dtype":
            if isinstance(base, Data):
                return DTypeVal(dtype_of(self.type_of(base.expr, node)))
            if isinstance(base, Ptr):
                raise self.error(node, "use `ptr.dtype.element_ty` for a pointer's element type")
            if isinstance(base, Descriptor):
                return DTypeVal(self.launch.tensor_dtype(base.tensor))
        if attr == "T" and isinstance(base, Data):
            return Data(ir.Permute(base.expr, (1, 0)), (), base.div)
        raise self.error(node, f"unsupported attribute `{self.src(node)}` in a kernel")

    @handles_expression(cst.Subscript)
    def subscript(self, node: cst.Subscript) -> Val:
        base = self.ev(node.value)
        items: list[str] = []
        for el in node.slice:
            s = el.slice
            if (
                isinstance(s, cst.Index)
                and isinstance(s.value, cst.Name)
                and s.value.value == "None"
            ):
                items.append("new")
            elif (
                isinstance(s, cst.Slice) and s.lower is None and s.upper is None and s.step is None
            ):
                items.append(":")
            else:
                raise self.error(
                    node,
                    f"unsupported subscript `{self.src(node)}`",
                    "device tensors take only `[:, None]`-style subscripts",
                )
        if isinstance(base, (Idx, Ptr)):
            rank = self.rank_of(base.tree)
            if items.count(":") != rank:
                raise self.error(
                    node,
                    f"`{self.src(node)}` indexes a rank-{rank} value with "
                    f"{items.count(':')} slices",
                )
            return dataclasses.replace(base, tree=self.expand_tree(base.tree, items))
        if isinstance(base, Data):
            dims = dims_of(self.type_of(base.expr, node))
            if items.count(":") != len(dims):
                raise self.error(
                    node, f"`{self.src(node)}`: {len(dims)} dims, {items.count(':')} slices"
                )
            e = base.expr
            for pos, it in enumerate(items):
                if it == "new":
                    e = ir.ExpandDims(e, pos)
            return Data(e, base.pads, base.div)
        raise self.error(node, f"cannot subscript `{self.src(node.value)}`")

    def host_ir(self, tree: ir.Expr, node) -> ir.Expr:
        """A tree over parameter symbols as a host IR expression."""

        def fn(name: str) -> ir.Expr | None:
            param = param_name(name)
            if param is not None:
                return self.param_ir(param, node)
            sym = parse_sym(name)
            if sym is not None and sym.kind is SymKind.ATOM and name in self.atoms.trees:
                # `hd // 2` of constexpr parameters: a host expression of theirs.
                return self.host_ir(self.atoms.trees[name], node)
            stand_in = self.stand_in_block(name)
            if stand_in is not None:
                return stand_in
            raise self.error(
                node,
                f"`{self.src(node)}` depends on program ids or loaded values; "
                "the IR needs a host expression here",
            )

        return simplify(af.rename(af.strip_casts(tree), fn))

    def host_ir_of_host(self, e: ir.Expr) -> ir.Expr:
        def fn(name: str) -> ir.Expr | None:
            param = param_name(name)
            return self.param_ir(param, None) if param is not None else self.stand_in_block(name)

        return af.rename(e, fn)

    def stand_in_block(self, name: str) -> ir.Expr | None:
        """The tunable that stands in for symbol ``name`` where it is a block size the host
        computes opaquely (``BLOCK_SIZE = min(65536 // x.element_size(), ...)``)."""
        sym = parse_sym(name)
        if sym is None or sym.kind is not SymKind.OPAQUE:
            return None
        tunable = self.launch.block_tunables.get(sym.name or "")
        return ir.Name(tunable) if tunable is not None else None

    def same_host(self, a: ir.Expr, b: ir.Expr, node) -> bool:
        return self.host.same_value(a, b)

    def to_data(self, v: Val, node: cst.CSTNode) -> Data:
        if isinstance(v, Data):
            return v
        if isinstance(v, Idx):
            return Data(self.idx_ir(v.tree, node))
        if isinstance(v, Pending):
            raise self.error(
                v.node,
                "cannot tell which tiles the dims of this tl.zeros/tl.full belong to",
                "name block sizes that also offset the tile's lanes",
            )
        if isinstance(v, LaneAcc):
            raise self.error(
                node,
                "a per-lane accumulator of a loop can only be reduced with "
                "tl.sum(acc, axis=0) after the loop",
            )
        if isinstance(v, Static) and isinstance(v.value, (bool, int, float, str)):
            return Data(ir.Const(v.value))
        if isinstance(v, Ptr):
            raise self.error(
                node,
                f"pointer `{self.src(node)}` used as a value",
                "load through it (`tl.load(ptr)`); an optional pointer tested as `if ptr:` is "
                "a None check Triton settles at compile time: pass a flag (`HAS_PTR: "
                "tl.constexpr`, `HAS_PTR=ptr is not None` at the launch) and test that",
            )
        raise self.error(node, f"`{self.src(node)}` is not a device value")

    def none_test(self, left: cst.BaseExpression, comp: cst.ComparisonTarget) -> Static:
        """``ptr is None`` / ``ptr is not None``: settled at compile time, as Triton does (it
        specialises a None argument into a constexpr)."""
        if not (isinstance(comp.comparator, cst.Name) and comp.comparator.value == "None"):
            raise self.error(comp, "`is` compares with None only")
        v = self.ev(left)
        present = (
            Static(v.value is not None) if isinstance(v, Static) else self.pointer_test(v, left)
        )
        if not isinstance(present, Static):
            raise self.error(
                left,
                f"`{self.src(left)}` is compared with None but is a device value",
                "compare pointer parameters or compile-time constants with None",
            )
        given = bool(present.value)
        if isinstance(comp.operator, cst.Is):
            return Static(not given)
        return Static(given)

    def pointer_test(self, v: Val, node: cst.BaseExpression) -> Val:
        """A pointer parameter tested for presence (``if ptr:``, ``ptr is not None``): whether
        the launch passed a tensor, which Triton settles at compile time.

        A launch that passes ``None`` binds the parameter to that constant (the test is then
        false); one that passes a tensor makes it true only where the tensor cannot be None:
        an allocation or a parameter annotated as a tensor. An unannotated or optional
        parameter may be None in some calls and not in others, and one kernel translation
        cannot be both: refused."""
        if not isinstance(v, Ptr) or v.tree != ir.Const(0):
            return v
        b = self.launch.bindings.get(v.tensor)
        if b is None or b.kind != "tensor" or b.htensor is None:
            return v
        if self.launch.derived:
            raise self.error(
                node,
                f"`{self.src(node)}` tests whether a tensor was passed, and this module never "
                "launches the kernel: whether it is None is each caller's",
                "add the wrapper that launches the kernel, passing a tensor or None",
            )
        if b.htensor.optional:
            raise self.error(
                node,
                f"`{self.src(node)}` tests whether a tensor was passed, but the launch passes "
                f"`{b.tensor}`, an optional parameter: it may be None in some calls and not in "
                "others, and one kernel translation cannot be both",
                "launch the kernel in each case with a literal `None` or a tensor (two launches "
                "under the host's own `if`)",
            )
        if b.htensor.guessed:
            raise self.error(
                node,
                f"`{self.src(node)}` tests whether a tensor was passed, but the launch passes "
                f"`{b.tensor}`, an unannotated parameter that may be None in some calls and not "
                "in others",
                f"annotate it `{b.tensor}: torch.Tensor` where it is never None, or launch with "
                "a literal `None` where no tensor is given",
            )
        return Static(True)

    def idx_ir(self, tree: ir.Expr, node) -> ir.Expr:
        """An index tree as an IR value: lanes become tile indices placed on their axes."""
        tree = af.strip_casts(tree)
        if isinstance(tree, ir.BinOp) and (
            tree.op in COMPARISON_OPS or (tree.op in ("&", "|", "^") and self._is_bool(tree))
        ):
            return ir.BinOp(tree.op, self.idx_ir(tree.lhs, node), self.idx_ir(tree.rhs, node))
        rank = self.rank_of(tree)
        p = af.poly(tree, self.atoms)
        terms: list[ir.Expr] = []
        for m, c in list(p.items()):
            lanes = [s for s in m if parse_lane(s) is not None]
            if not lanes or m not in p:
                continue
            if len(lanes) > 1:
                raise self.error(node, f"`{self.src(node)}` multiplies lanes of two aranges")
            key, axis = parse_lane(lanes[0])  # type: ignore[misc]
            coef = tuple(s for s in m if s != lanes[0])
            sub = {(lanes[0],): 1}
            # look for the base term c * coef * block * base
            found = None
            for m2, c2 in p.items():
                if m2 == m or any(parse_lane(s) for s in m2):
                    continue
                rest = list(m2)
                ok = True
                for s in coef:
                    if s in rest:
                        rest.remove(s)
                    else:
                        ok = False
                if not ok:
                    continue
                cand = dict(sub)
                cand[tuple(rest)] = c2 // c if c and c2 % c == 0 else 0
                res = self.tile_form(cand, (key, axis), node, strict=False)
                if res is not None and not res[1]:
                    found = (m2, res[0])
                    break
            if found is None:
                res = self.tile_form(sub, (key, axis), node, strict=False)
                if res is None:
                    raise self.error(
                        node,
                        f"cannot tell which tile the lanes of tl.arange(0, {key}) in "
                        f"`{self.src(node)}` belong to",
                        "offset the lanes by `pid * BLOCK` or a loop counter times BLOCK",
                    )
                tile = res[0]
            else:
                del p[found[0]]
                tile = found[1]
            del p[m]
            index = self.place(self.tile_index_expr(tile, node), axis, rank)
            factor = af.poly_expr({coef: c}) if coef or c != 1 else None
            terms.append(index if factor is None else ir.BinOp("*", factor, index))
        scalar = af.poly_expr(p) if p else None
        parts = ([self.scalar_ir(scalar, node)] if scalar is not None else []) + [
            self.scalar_ir(t, node) for t in terms
        ]
        if not parts:
            return ir.Const(0)
        out = parts[0]
        for t in parts[1:]:
            out = ir.BinOp("+", out, t)
        return simplify(out)

    def _is_bool(self, tree: ir.Expr) -> bool:
        return isinstance(tree, ir.BinOp) and (
            tree.op in COMPARISON_OPS or (tree.op in ("&", "|") and self._is_bool(tree.lhs))
        )

    def tile_index_expr(self, tile: Tile, node) -> ir.Expr:
        if tile.base is None:
            if tile.extent is None:
                if tile.full_extent is None:
                    raise self.error(
                        node,
                        f"the lanes of tl.arange(0, {tile.key}) are never bounded by a mask, so "
                        "which dim they span is unknown",
                        f"mask them (`offs < n`) or compute {tile.key} as "
                        "triton.next_power_of_2(n)",
                    )
                tile.extent = tile.full_extent
            return ir.Arange(ir.FullDim(tile.extent))
        return ir.TileAttr(tile.name, "index")

    def place(self, e: ir.Expr, axis: int, rank: int) -> ir.Expr:
        pos = rank + axis
        for _ in range(rank - pos - 1):
            e = ir.ExpandDims(e, -1)
        for _ in range(pos):
            e = ir.ExpandDims(e, 0)
        return e

    def scalar_ir(self, tree: ir.Expr, node) -> ir.Expr:
        """Symbols of a tree as IR: parameters, data; program ids stay placeholders."""

        def fn(name: str) -> ir.Expr | None:
            kind = kind_of(name)
            if kind is SymKind.PARAM:
                pname = param_name(name)
                block = self.block_param_ir(pname, node)  # type: ignore[arg-type]
                if block is not None:
                    return block
                return self.param_ir(pname, node)  # type: ignore[arg-type]
            if kind is SymKind.OPAQUE:
                # A compile-time flag the host computes out of sight (`log_target` passed down
                # through an autograd Function): as a value (a branch test), the host's scalar.
                b = self.launch.bindings.get(parse_sym(name).name)  # type: ignore[union-attr]
                if b is not None and b.expr is not None:
                    return b.expr
            if name in self.data:
                return self.data[name][0]
            if kind is SymKind.ATOM:
                if self.flat_digit(name) is not None:
                    return None  # a grid digit: resolved once the grid is known
                sub = self.atoms.trees[name]
                return self.atom_ir(sub, node)
            # Program ids and counts, loop counters, swizzled ids, rows: resolved with the grid.
            return None

        return af.rename(tree, fn)

    def atom_ir(self, sub: ir.Expr, node) -> ir.Expr:
        if (
            isinstance(sub, ir.BinOp)
            and sub.op in ("//", "%")
            and any(kind_of(s) is SymKind.DATA for s in af.symbols_in(sub))
        ):
            lhs, rhs = self.idx_ir(sub.lhs, node), self.idx_ir(sub.rhs, node)
            if self.nonnegative(lhs) and self.nonnegative(rhs):
                # Truncation and flooring agree on nonnegative operands (values a program
                # computes from sizes and program ids, which the lifter proves so).
                return ir.BinOp(sub.op, lhs, rhs)
            raise self.error(
                node,
                f"`{sub.op}` of loaded values is not supported: Triton rounds "
                "it toward zero (C), the IR toward -inf (Python)",
            )
        if isinstance(sub, ir.BinOp):
            return ir.BinOp(sub.op, self.idx_ir(sub.lhs, node), self.idx_ir(sub.rhs, node))
        if isinstance(sub, ir.Call):
            return ir.Call(sub.op, tuple(self.idx_ir(a, node) for a in sub.args))
        if isinstance(sub, ir.UnaryOp):
            return ir.UnaryOp(sub.op, self.idx_ir(sub.operand, node))
        return self.scalar_ir(sub, node)

    def binop(self, op: str, a: Val, b: Val, node: cst.CSTNode) -> Val:
        if isinstance(a, Static) and isinstance(b, Static) and op in ("==", "!="):
            return Static((a.value == b.value) == (op == "=="))
        a, b = self._static_num(a), self._static_num(b)
        if isinstance(a, Pending) or isinstance(b, Pending):
            a, b = self.resolve_pending(a, b, node), self.resolve_pending(b, a, node)
        if isinstance(a, Ptr) or isinstance(b, Ptr):
            return self.ptr_arith(op, a, b, node)
        if (
            isinstance(a, Data)
            and isinstance(b, Idx)
            and (op in _INT_OPS or self._scalar_int_bound(op, a, node))
            and self._int_data(a, node, b)
        ):
            a = Idx(self.data_symbol(a.expr, self._data_shape(a, node)))
        if (
            isinstance(b, Data)
            and isinstance(a, Idx)
            and (op in _INT_OPS or self._scalar_int_bound(op, b, node))
            and self._int_data(b, node, a)
        ):
            b = Idx(self.data_symbol(b.expr, self._data_shape(b, node)))
        if isinstance(a, Idx) and isinstance(b, Idx):
            if op == "/":
                return self.data_binop(op, self.to_data(a, node), self.to_data(b, node), node)
            return Idx(ir.BinOp(op, a.tree, b.tree))
        return self.data_binop(
            op, self._operand_data(a, b, op, node), self._operand_data(b, a, op, node), node
        )

    def _operand_data(self, v: Val, other: Val, op: str, node: cst.CSTNode) -> Data:
        """``v`` as data, ``other`` being the other operand of ``op``: lanes no tile owns added
        to a loaded scalar are refused with what to write instead."""
        if not (op in ("+", "-") and isinstance(v, Idx) and isinstance(other, Data)):
            return self.to_data(v, node)
        if dims_of(self.type_of(other.expr, node)):
            return self.to_data(v, node)
        try:
            return self.to_data(v, node)
        except Refusal as err:
            # A grouped GEMM's `start + pid_m * BLOCK + tl.arange(0, BLOCK)` over a grid sized
            # by the longest group: grid tiles start at 0 and end at a host size, and only a
            # loop may run between loaded bounds.
            raise self.error(
                node,
                err.message,
                "a program's tile offset by a value the kernel loads or computes is no grid "
                "tile (grid tiles start at 0 and end at a host size); loop over the group's "
                "tiles in the program instead: `for row in range(start, end, BLOCK)`, lanes "
                "`row + tl.arange(0, BLOCK)` masked `< end`",
            ) from None

    def static_truth(self, v: Val) -> bool | None:
        """The truth of ``v`` if it is known when the kernel compiles: a Python constant, or a
        ``tl.constexpr`` the launch binds to a literal."""
        if isinstance(v, Static):
            return bool(v.value)
        flag = sym_of(v.tree) if isinstance(v, Idx) else None
        if flag is not None and flag.kind is SymKind.PARAM:
            b = self.launch.bindings.get(flag.name)  # type: ignore[arg-type]
            if b is not None and b.kind == "constexpr" and b.expr is not None:
                c = self.host.canonical(b.expr)
                if isinstance(c, ir.Const) and isinstance(c.value, (bool, int)):
                    return bool(c.value)
        return None

    def _static_num(self, v: Val) -> Val:
        if isinstance(v, Static) and isinstance(v.value, bool):
            return Idx(ir.Const(v.value))
        return v

    def _int_data(self, d: Data, node, other: Idx | None = None) -> bool:
        """Whether ``d`` holds integers: by its dtype, or, for a tensor's elements of unknown
        dtype, because ``other`` multiplies it by a stride (only offsets are)."""
        dt = dtype_of(self.type_of(d.expr, node))
        if isinstance(dt, ir.DType):
            return dt.name in ir.INT_DTYPES
        if isinstance(d.expr, ir.Name) and d.expr.id in self.range_bound_names():
            return True  # `range` takes integers only (a jagged row's loaded start)
        return other is not None and any(
            self.is_stride_symbol(s) for s in af.symbols_in(other.tree)
        )

    def _scalar_int_bound(self, op: str, d: Data, node) -> bool:
        """``offs < end`` with ``end`` a loaded scalar: a bound on the lanes, kept an index
        tree so that the mask reads as a tile's bound."""
        return op in COMPARISON_OPS and not dims_of(self.type_of(d.expr, node))

    def range_bound_names(self) -> frozenset[str]:
        """Names the kernel passes as bounds to ``range``/``tl.range``: they hold integers,
        whatever the dtype of the tensor they were loaded from."""
        cached = getattr(self, "_range_bound_names", None)
        if cached is None:
            found: set[str] = set()

            def enter(n: cst.CSTNode) -> bool:
                it = n.iter if isinstance(n, cst.For) else None
                if isinstance(it, cst.Call) and resolve(it.func, self.aliases) in (
                    "range",
                    f"{self.lang}.range",
                ):
                    found.update(a.value.value for a in it.args if isinstance(a.value, cst.Name))
                return True

            walk(self.fn, enter)
            cached = self._range_bound_names = frozenset(found)
        return cached

    def is_stride_symbol(self, text: str) -> bool:
        """Whether symbol ``text`` is a kernel parameter bound to a stride of a tensor."""
        param = param_name(text)
        return param is not None and self.launch.is_stride(param)

    def _data_shape(self, d: Data, node) -> tuple:
        return tuple(self.key_of_dim(x) for x in dims_of(self.type_of(d.expr, node)))

    def ptr_arith(self, op: str, a: Val, b: Val, node) -> Ptr:
        if isinstance(b, Ptr) and op == "+":
            a, b = b, a
        if not isinstance(a, Ptr) or op not in ("+", "-"):
            raise self.error(node, f"unsupported pointer arithmetic `{self.src(node)}`")
        if isinstance(b, Data):
            if not self._int_data(b, node) and isinstance(
                dtype_of(self.type_of(b.expr, node)), ir.DType
            ):
                raise self.error(node, "pointer offsets must be integers")
            # Elements of a tensor of unknown dtype added to a pointer: Triton compiles that
            # only for integers, so they are (a gather through loaded labels).
            b = Idx(self.data_symbol(b.expr, self._data_shape(b, node)))
        if not isinstance(b, Idx):
            raise self.error(node, f"unsupported pointer offset in `{self.src(node)}`")
        return Ptr(a.tensor, ir.BinOp(op, a.tree, b.tree))

    def data_binop(self, op: str, a: Data, b: Data, node) -> Data:
        if op in ("//", "%") and not (self.nonnegative(a.expr) and self.nonnegative(b.expr)):
            # Triton's integer // and % truncate toward zero and float % is fmod (C); the IR's
            # follow Python (floor). They differ on negative operands, which data may hold.
            raise self.error(
                node,
                f"`{op}` on device values is not supported: Triton rounds it "
                "toward zero (C), the IR toward -inf (Python)",
                "use index arithmetic on program ids and lanes, or tl.where",
            )
        e = ir.BinOp(op, a.expr, b.expr, loc=self.locate(node))
        self.type_of(e, node)
        return Data(e, fold_pads(op, [a, b], self, e), a.div | b.div)

    # ------------------------------------------------------------------ integer and builtin calls

    @handles("cdiv")
    def cdiv(self, name: str, node: cst.Call) -> Val:
        """``tl.cdiv(a, b)`` of integers."""
        args, _ = call_args(node)
        a, b = (self.ev(x) for x in args)
        if isinstance(a, Idx) and isinstance(b, Idx):
            return Idx(ir.Call("cdiv", (a.tree, b.tree)))
        raise self.error(node, "tl.cdiv takes integers")

    @handles_builtin("min", "max")
    def min_max(self, name: str, node: cst.Call) -> Val:
        """The builtins ``min``/``max``: of indices, or pointwise of data."""
        args, _ = call_args(node)
        vals = [self.ev(a) for a in args]
        op = "minimum" if name == "min" else "maximum"
        if all(isinstance(v, Idx) for v in vals):
            out = vals[0].tree
            for v in vals[1:]:
                out = ir.Call(op, (out, v.tree))
            return Idx(out)
        return self.pointwise(op, vals, node)

    @handles_builtin("float")
    def float_literal(self, name: str, node: cst.Call) -> Val:
        """``float("inf")`` and other float literals."""
        try:
            return Data(ir.Const(float(literal(node))))  # type: ignore[arg-type]
        except (ValueError, TypeError):
            raise self.error(node, "float(...) takes a literal") from None

    @handles_builtin("int", "bool")
    def int_conversion(self, name: str, node: cst.Call) -> Val:
        """``int(x)``/``bool(x)``: refused (no device value converts at compile time)."""
        raise self.error(node, f"`{name}(...)` on device values is not supported")


def fold_pads(
    op: str, operands: list[Data], lifter: KernelLifter, e: ir.Expr | None = None
) -> tuple[tuple[ir.Dim, float], ...]:
    if e is None:
        e = operands[0].expr
    try:
        dims = dims_of(infer(e, lifter.types))
    except IRTypeError:
        return ()
    out: list[tuple[ir.Dim, float]] = []
    for d in dims:
        if isinstance(d, ir.UnitDim):
            continue
        vals: list[float | None] = []
        for o in operands:
            if isinstance(o.expr, ir.Const) and not isinstance(o.expr.value, (bool, str)):
                vals.append(float(o.expr.value))
                continue
            odims = dims_of(infer(o.expr, lifter.types))
            vals.append(o.pad(d) if d in odims else None)
        if all(v is None for v in vals):
            continue
        if (
            op in ("*", "/")
            and len(vals) == 2
            and any(v is not None and math.isinf(v) for v in vals)
        ):
            # inf times (or over) a value known positive stays inf with its sign.
            vals = [
                1.0 if v is None and lifter.is_positive(o.expr) else v
                for v, o in zip(vals, operands)
            ]
        # Operands not padded along this dim are valid data: finite.
        r = fold_pad(op, vals, unknown="finite")
        if r is not None:
            out.append((d, r))
    return tuple(out)
