"""Statements of a kernel body: blocks, assignments, expression statements, returns, helpers.

A block is lifted statement by statement into a list of IR statements; an ``if`` whose body ends
in ``return`` takes the rest of the block as its ``else``. Names are bound to abstract values
(:mod:`translator.dialects.triton.lifted`); a :class:`Data` value gets an IR local.
"""

from __future__ import annotations

import dataclasses

import libcst as cst

from translator.diagnostics import TranslationError
from translator.dialects.cst_utils import call_args, statement_comments
from translator.dialects.triton.lift_dispatch import (
    SMALL_STATEMENTS,
    STATEMENTS,
    handles_small,
    handles_statement,
)
from translator.dialects.triton.lifted import (
    Data,
    FlagChoice,
    Func,
    Idx,
    LaneAcc,
    Pending,
    Ptr,
    Refusal,
    Static,
    TupleVal,
    Unbound,
    Val,
)
from translator.ir import nodes as ir
from translator.ir.shapes import IRTypeError, ScalarType, TileType, dims_of, infer
from translator.naming import unique

_AUG = {
    cst.AddAssign: "+",
    cst.SubtractAssign: "-",
    cst.MultiplyAssign: "*",
    cst.DivideAssign: "/",
    cst.FloorDivideAssign: "//",
    cst.ModuloAssign: "%",
    cst.BitAndAssign: "&",
    cst.BitOrAssign: "|",
}


class StatementsMixin:
    """Blocks, simple statements and name bindings of :class:`KernelLifter`."""

    def block(self, stmts: list[cst.BaseStatement], out: list[ir.Stmt], top: bool = False) -> bool:
        """Lift statements into ``out``; returns whether the block ended in ``return``. Tiles
        whose offsets the block computed from a scalar the program computed go around the
        statements that use them (:meth:`close_at_tiles`)."""
        returned = self._block_statements(stmts, out, top)
        self.close_at_tiles(out)
        return returned

    def _block_statements(
        self, stmts: list[cst.BaseStatement], out: list[ir.Stmt], top: bool
    ) -> bool:
        saved, self.out = self.out, out
        # Comments of statements that lift to no IR (program ids, offsets, masks, pointers)
        # describe arithmetic the target spells its own way. The last of them in a paragraph
        # (no blank line between) heads the next lifted statement that has none of its own
        # (`# Write back the block of C` above the pointers of a store); the others are
        # dropped: moved on together they piled up as if they described that statement.
        carried: tuple[str, ...] = ()
        try:
            i = 0
            while i < len(stmts):
                node = stmts[i]
                if _starts_paragraph(node):
                    carried = ()
                own = tuple(statement_comments(node))
                comments = own or carried
                start = len(out)
                if (
                    isinstance(node, cst.If)
                    and node.orelse is None
                    and contains_return(node)
                    and not self.loops
                    and not _ends_in_return(node.body)
                    and _trailing_early_exit(node.body)
                ):
                    # `if A: S; if B: ...; return` + rest (Liger's `if HAS_LABEL:` around an
                    # ignored-row exit): the rest runs after S when B fails and whenever A
                    # does, so it joins both: `if A: S; if B: ...; return; rest` `else: rest`.
                    rest = stmts[i + 1 :]
                    body = list(suite_body(node.body)) + rest
                    joined = node.with_changes(
                        body=node.body.with_changes(body=body),
                        orelse=cst.Else(body=cst.IndentedBlock(body=rest)) if rest else None,
                    )
                    self.if_stmt(joined, terminal=True)
                    _attach(out, start, comments)
                    return True
                if (
                    isinstance(node, cst.If)
                    and contains_return(node)
                    and not self.loops
                    and not (_ends_in_return(node.body) and node.orelse is None)
                ):
                    raise self.error(
                        node,
                        "this `return` is not at the end of an `if` without "
                        "`else`, which the frontend cannot restructure",
                        "write `if cond: ...; return` followed by the rest",
                    )
                if isinstance(node, cst.If) and _ends_in_return(node.body) and node.orelse is None:
                    # `if c: ...; return` + rest  ->  if c: ... else: rest
                    rest = stmts[i + 1 :]
                    self.if_stmt(node, rest_after_return=rest)
                    _attach(out, start, comments)
                    return True
                if is_return(node) or (
                    isinstance(node, cst.If) and contains_return(node) and self.loops
                ):
                    if self.loops:
                        raise self.error(
                            node,
                            "`return` inside a loop is not supported",
                            "guard the loop body with an `if` instead",
                        )
                    self.return_stmt(node)
                    return True
                self.statement(node)
                _attach(out, start, comments)
                carried = (own or carried) if start == len(out) else ()
                i += 1
            return False
        finally:
            self.out = saved

    def statement(self, node: cst.BaseStatement) -> None:
        """One statement, by the handler of its kind."""
        if self.persistent_done:
            raise self.error(
                node,
                "statements after a persistent row loop would run once per program",
                "move them into the loop",
            )
        handler = STATEMENTS.get(type(node))
        if handler is None:
            raise self.error(
                node,
                f"unsupported statement in a kernel: `{self.src(node).splitlines()[0][:60]}`",
                "kernels may assign, load, store, loop over range/tl.range and branch",
            )
        handler(self, node)

    @handles_statement(cst.SimpleStatementLine)
    def simple_statements(self, node: cst.SimpleStatementLine) -> None:
        """A line of simple statements (``a = 1; b = 2``), one by one."""
        for small in node.body:
            self.small(small)

    def small(self, node: cst.BaseSmallStatement) -> None:
        """One simple statement, by the handler of its kind."""
        handler = SMALL_STATEMENTS.get(type(node))
        if handler is None:
            raise self.unsupported_statement(node)
        handler(self, node)

    def unsupported_statement(self, node: cst.BaseSmallStatement) -> Refusal:
        """The refusal of a simple statement no handler lifts."""
        return self.error(node, f"unsupported statement `{self.src(node)[:60]}`")

    @handles_small(cst.Assign)
    def assign_statement(self, node: cst.Assign) -> None:
        """``x = value`` (and tuple unpacking)."""
        if len(node.targets) != 1:
            raise self.error(node, "chained assignment is not supported")
        self.assign(node.targets[0].target, self.ev(node.value), node)

    @handles_small(cst.AnnAssign)
    def annotated_assign(self, node: cst.AnnAssign) -> None:
        """``x: T = value``; an annotation without a value binds nothing the IR can use."""
        if node.value is None:
            raise self.unsupported_statement(node)
        self.assign(node.target, self.ev(node.value), node)

    @handles_small(cst.AugAssign)
    def augmented_assign(self, node: cst.AugAssign) -> None:
        """``x += v``: a binop, or a lane accumulation into a ``tl.zeros`` from before the loop."""
        op = _AUG.get(type(node.operator))
        if op is None or not isinstance(node.target, cst.Name):
            raise self.error(node, f"unsupported augmented assignment `{self.src(node)}`")
        current = self.lookup(node.target.value, node.target)
        value = self.ev(node.value)
        if isinstance(current, (Pending, LaneAcc)) and op == "+":
            self.lane_accumulate(node.target.value, current, value, node)
            return
        self.assign(node.target, self.binop(op, current, value, node), node)

    @handles_small(cst.Expr)
    def expression_statement(self, node: cst.Expr) -> None:
        """A docstring, or a call for its effect (``tl.store(...)``)."""
        if isinstance(node.value, (cst.SimpleString, cst.ConcatenatedString)):
            return  # a docstring or a comment written as a string
        if self.effect(node):
            return
        raise self.error(
            node,
            f"unsupported expression statement `{self.src(node)[:60]}`",
            "call tl.store as a statement; assign other values",
        )

    @handles_small(cst.Pass)
    def pass_statement(self, node: cst.Pass) -> None:
        """``pass``: nothing."""
        return

    def lookup(self, name: str, node: cst.CSTNode) -> Val:
        if name in self.env:
            v = self.env[name]
            guard = self.launch.flag_guards.get(name)
            # A pointer may be offset anywhere (Liger's `label_ptr += pid` before `if
            # HAS_LABEL:`); what only the flag makes valid is an access through it, which
            # KernelLifter.access checks.
            if guard is not None and guard not in self.flag_truths and not isinstance(v, Ptr):
                flag, value = guard
                raise self.error(
                    node,
                    f"kernel parameter `{name}` is passed `{self.launch.texts[name]}`, which "
                    f"the kernel may read only where the constexpr `{flag}` is {value}",
                    f"read `{name}` only under `if {'' if value else 'not '}{flag}:`, or pass "
                    "it one value",
                )
            if isinstance(v, FlagChoice):
                v = self.chosen(name, v, node)
            if isinstance(v, Unbound):
                raise self.error(
                    node,
                    f"kernel parameter `{name}` is not bound to a value the IR can use"
                    + (f": {v.why}" if v.why else ""),
                    "pass tensors, x.stride(d), sizes or block sizes the host computes",
                )
            return v
        if name in self.launch.kernel.module.jit_helpers:
            return Func(name)
        const = self.host.module_constant(name)
        if const is not None:
            return Idx(ir.Const(const)) if isinstance(const, int) else Data(ir.Const(const))
        if name in self.loop_locals:
            raise self.error(
                node,
                f"`{name}` is defined inside a loop and read after it; the "
                "IR's loop scope ends with the loop",
                "define it before the loop",
            )
        raise self.error(node, f"`{name}` is not defined in this kernel")

    def chosen(self, name: str, v: FlagChoice, node: cst.CSTNode) -> Val:
        """What ``name`` holds here, where the enclosing branches decide ``v``'s flag."""
        decided = [value for flag, value in reversed(self.flag_truths) if flag == v.flag]
        if not decided:
            raise self.error(
                node,
                f"`{name}` is changed under `if {v.flag}:` (line {self.locate(v.node).line}) "
                f"and read here, where the constexpr `{v.flag}` is not decided",
                f"read `{name}` under `if {v.flag}:` (or `else:`), or compute it before the branch",
            )
        chosen = v.on if decided[0] else v.off
        if chosen is None:
            raise self.error(node, f"`{name}` is not defined where `{v.flag}` is {decided[0]}")
        return self.chosen(name, chosen, node) if isinstance(chosen, FlagChoice) else chosen

    def assign(self, target: cst.BaseExpression, value: Val, node: cst.CSTNode) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            names = [e.value for e in target.elements]
            if not isinstance(value, TupleVal) or len(value.items) != len(names):
                raise self.error(node, "unpack only tuples of matching length")
            for n, v in zip(names, value.items):
                self.assign(n, v, node)
            return
        if not isinstance(target, cst.Name):
            raise self.error(node, f"unsupported assignment target `{self.src(target)}`")
        name = target.value
        if isinstance(value, Data):
            value = self.bind_data(name, value, node)
        elif isinstance(value, Pending):
            value = dataclasses.replace(
                value, name=name, site=(self.out, len(self.out)), loop_depth=len(self.loops)
            )
        elif isinstance(value, Idx):
            value = self.bind_index(name, self.name_scalar(name, value), node)
            if isinstance(value, Idx):
                self.register_tiles(value.tree)
        self.env[name] = value

    def bind_data(self, name: str, value: Data, node: cst.CSTNode) -> Data:
        old = self.env.get(name)
        if isinstance(old, Data) and isinstance(value.expr, ir.Name) and old.expr == value.expr:
            return Data(value.expr, value.pads, value.div)  # `acc = acc` (a helper's result)
        depth = len(self.loops) + self.if_depth
        if (
            isinstance(old, Data)
            and isinstance(old.expr, ir.Name)
            and (old.expr.id in self.ir_locals)
            and self.local_depth.get(old.expr.id, -1) < depth
        ):
            # Rebinding inside a loop or branch keeps the IR variable (loop-carried values,
            # values either branch may set); in straight-line code a new value gets a new name.
            irname = old.expr.id
        else:
            base = name
            if (
                base in self.host_tensors
                and f"{base}_tile" not in self.source_names
                and isinstance(self.type_of(value.expr, node), TileType)
            ):
                # The kernel's `x = tl.load(x_ptr + offs)` is a tile of the host's `x`.
                base = f"{base}_tile"
            irname = unique(base, self.taken)
            self.ir_locals.add(irname)
            self.local_depth[irname] = depth
        expr = value.expr
        t = self.type_of(expr, node)
        self.out.append(ir.Assign(irname, expr, loc=self.locate(node)))
        self.types.vars[irname] = t
        if not dims_of(t) and self.is_positive(expr):
            self.positive_locals.add(irname)
        else:
            self.positive_locals.discard(irname)
        if not dims_of(t) and self.nonnegative(expr):
            self.nonneg_locals.add(irname)
        else:
            self.nonneg_locals.discard(irname)
        return Data(ir.Name(irname), value.pads, value.div)

    def is_positive(self, e: ir.Expr) -> bool:
        """Whether scalar ``e`` is provably > 0 (device locals bound to positive values, host
        scalars the wrapper asserts positive)."""
        if isinstance(e, ir.Name) and e.id in self.positive_locals:
            return True
        if isinstance(e, ir.BinOp) and e.op in ("*", "/"):
            return self.is_positive(e.lhs) and self.is_positive(e.rhs)
        if isinstance(e, ir.Name) and e.id in self.ir_locals:
            return False
        return not dims_of(
            self.types.vars.get(e.id)
            if isinstance(e, ir.Name) and (e.id in self.types.vars)
            else ScalarType(ir.F32)
        ) and self.host.is_positive(e)

    def type_of(self, e: ir.Expr, node: cst.CSTNode | None):
        try:
            return infer(e, self.types)
        except IRTypeError as err:
            raise self.error(
                node, f"the lifted expression does not type-check: {err}", err.hint
            ) from None

    def return_stmt(self, node: cst.BaseStatement) -> None:
        assert isinstance(node, cst.SimpleStatementLine)
        ret = node.body[0]
        assert isinstance(ret, cst.Return)
        if ret.value is not None:
            raise self.error(node, "a kernel cannot return a value")

    def inline(self, name: str, node: cst.Call) -> Val:
        helper = self.launch.kernel.module.jit_helpers[name]
        args, kwargs = call_args(node)
        params = [p.name.value for p in helper.params.params]
        if len(args) > len(params):
            raise self.error(node, f"too many arguments to `{name}`")
        bound = dict(zip(params, (self.ev(a) for a in args)))
        for k, v in kwargs.items():
            bound[k] = self.ev(v)
        for p in helper.params.params:
            if p.name.value not in bound:
                if p.default is None:
                    raise self.error(node, f"`{name}` needs argument `{p.name.value}`")
                bound[p.name.value] = self.ev(p.default)
        saved = self.env
        self.env = {**{k: v for k, v in saved.items() if isinstance(v, Func)}, **bound}
        result: Val = Static(None)
        body = list(suite_body(helper.body))
        if helper.get_docstring() is not None:
            body = body[1:]
        try:
            for i, st in enumerate(body):
                if is_return(st):
                    assert isinstance(st, cst.SimpleStatementLine)
                    ret = st.body[0]
                    assert isinstance(ret, cst.Return)
                    if ret.value is not None:
                        result = self.ev(ret.value)
                    if i != len(body) - 1:
                        raise self.error(st, "a helper must return at its end")
                    break
                if isinstance(st, (cst.For, cst.If)) and contains_return(st):
                    raise self.error(st, "helpers may return only at their end")
                self.statement(st)
        except TranslationError as err:
            origin = self.launch.kernel.module.sibling_sources.get(name)
            if origin is None:
                raise
            # The helper's lines are not this file's: report at the call, naming its file.
            raise self.error(
                node, f"in `{name}` (read from {origin}): {err.message}", err.hint
            ) from None
        finally:
            self.env = saved
        return result


def suite_body(suite: cst.BaseSuite):
    if isinstance(suite, cst.IndentedBlock):
        return suite.body
    return [cst.SimpleStatementLine(body=suite.body)]  # type: ignore[attr-defined]


def is_return(node: cst.CSTNode) -> bool:
    return (
        isinstance(node, cst.SimpleStatementLine)
        and len(node.body) == 1
        and isinstance(node.body[0], cst.Return)
    )


def _ends_in_return(suite: cst.BaseSuite) -> bool:
    body = list(suite_body(suite))
    return bool(body) and is_return(body[-1])


def _trailing_early_exit(suite: cst.BaseSuite) -> bool:
    """Whether ``suite``'s only ``return`` ends an ``if`` without ``else`` that ends it (or
    one such ``if`` nested the same way)."""
    body = list(suite_body(suite))
    if not body or any(contains_return(n) for n in body[:-1]):
        return False
    last = body[-1]
    if not isinstance(last, cst.If) or last.orelse is not None:
        return False
    return _ends_in_return(last.body) or _trailing_early_exit(last.body)


def contains_return(node: cst.CSTNode) -> bool:
    found = []

    class V(cst.CSTVisitor):
        def visit_Return(self, n: cst.Return) -> None:
            found.append(n)

    node.visit(V())
    return bool(found)


def _starts_paragraph(node: cst.BaseStatement) -> bool:
    """Whether a blank line stands before ``node`` (or among its leading comments)."""
    return any(line.comment is None for line in getattr(node, "leading_lines", ()))


def _attach(out: list[ir.Stmt], start: int, comments: tuple[str, ...]) -> None:
    if comments and start < len(out):
        out[start] = dataclasses.replace(out[start], comments=comments + out[start].comments)
