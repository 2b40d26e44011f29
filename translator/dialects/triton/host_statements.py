"""The Triton frontend's host statements: blocks, branches, nested definitions, assignments,
returns and asserts of a launching function, each read into the entry's IR or carried as
written; mixed into :class:`~translator.dialects.triton.frontend.EntryBuilder`."""

from __future__ import annotations

import dataclasses
from typing import Any

import libcst as cst

from translator.diagnostics import TranslationError
from translator.dialects.cst_utils import (
    bound_names,
    conjuncts,
    resolve,
    source_of,
    statement_comments,
    substitute_names,
)
from translator.dialects.cst_utils import names_in as cst_names_in
from translator.dialects.triton.host_syntax import (
    NO_RETURN,
    copies_only,
    negated_conjuncts,
    none_default,
)
from translator.dialects.triton.host_values import (
    BranchTest,
    HBranch,
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
from translator.ir.printer import format_expr
from translator.ir.shapes import ScalarType


def branch_assignments(st: cst.BaseStatement) -> list[tuple[str, cst.BaseExpression]] | None:
    """The ``(name, value)`` pairs a statement of a host branch assigns, in order: plain
    ``a = e`` and ``a, b = e1, e2`` (an assert under a branch checks only there: carried as
    written, no fact for the IR, which has no conditional asserts). None for anything else."""
    if not isinstance(st, cst.SimpleStatementLine):
        return None
    out: list[tuple[str, cst.BaseExpression]] = []
    for s in st.body:
        if isinstance(s, cst.Assert):
            continue
        if not isinstance(s, cst.Assign):
            return None
        for t in s.targets:
            if isinstance(t.target, cst.Name):
                out.append((t.target.value, s.value))
            elif (
                isinstance(t.target, cst.Tuple)
                and isinstance(s.value, cst.Tuple)
                and len(t.target.elements) == len(s.value.elements)
                and all(isinstance(e.value, cst.Name) for e in t.target.elements)
                and not any(isinstance(e, cst.StarredElement) for e in s.value.elements)
            ):
                out += [
                    (e.value.value, v.value)  # type: ignore[attr-defined]
                    for e, v in zip(t.target.elements, s.value.elements)
                ]
            else:
                return None
    return out


class HostStatements:
    """Reads the statements of a host function."""

    def host_block(self, nodes: list[cst.BaseStatement]) -> HTuple | Any:
        """Host statements; returns the value of a trailing ``return`` in helper functions."""
        for node in nodes:
            comments = statement_comments(node)
            if comments:
                self.pending_comments.extend(comments)
            if isinstance(node, cst.SimpleStatementLine):
                if self.kernel_warmup(node):
                    continue
                for small in node.body:
                    r = self._modelled(lambda small=small: self.host_small(small), small)
                    if r is not NO_RETURN and r is not None:
                        return r
                continue
            if isinstance(node, cst.If):
                if not self._modelled(lambda node=node: self.host_if(node) or True, None):
                    self.host_branches(node)
                continue
            if isinstance(node, cst.FunctionDef):
                self._modelled(lambda node=node: self.host_def(node) or True, node)
                continue
            self.host_compound(node)
        return NO_RETURN

    def _modelled(self, step, carried_node: cst.CSTNode | None) -> Any:
        """Run ``step`` (the model of one host statement); where the frontend cannot model it,
        the statement is carried instead: its IR is undone and the names it binds go opaque.

        Returns ``step``'s result, or ``None`` where the statement was carried. Refusals of
        device code (a launched kernel the frontend cannot lift) are not host code and pass."""
        from translator.dialects.triton.lifted import Refusal

        mark = (len(self.body), list(self.pending_comments), dict(self.scope))
        facts = len(self.divisible)
        try:
            return step()
        except Refusal:
            raise
        except TranslationError as err:
            if getattr(err, "device", False):
                raise
            del self.body[mark[0] :]
            del self.divisible[facts:]
            self.pending_comments = mark[1]
            self.scope = mark[2]
            if carried_node is not None:
                self.carried(carried_node, err)
            return None

    def host_branches(self, node: cst.If) -> None:
        """A host ``if`` the frontend does not model as a whole: each branch is read in turn (its
        launches lifted with what is known there); names any branch binds are opaque after."""
        self.complete = False
        before = dict(self.scope)
        branch: cst.CSTNode | None = node
        while branch is not None:
            suite = branch.body if isinstance(branch, (cst.If, cst.Else)) else None
            if isinstance(suite, cst.IndentedBlock):
                saved = dict(self.scope)
                asserted = len(self.divisible)  # what a branch asserts holds only there
                facts = self.branch_condition(branch)
                self.branch_facts.extend(facts)
                try:
                    self.host_block(list(suite.body))
                finally:
                    del self.branch_facts[len(self.branch_facts) - len(facts) :]
                    del self.divisible[asserted:]
                self.scope = saved
            branch = branch.orelse if isinstance(branch, cst.If) else None
        self.carried(node)
        self.keep_copied_tensors(node, before)

    def branch_condition(self, branch: cst.CSTNode) -> list[ir.Expr]:
        """The conjuncts of an ``if``/``elif`` test the frontend can read as host values (none
        for an ``else``, or where the test reads values out of its sight)."""
        if not isinstance(branch, cst.If):
            return []
        facts = []
        for part in conjuncts(branch.test):
            try:
                value = self.hval(part)
            except TranslationError:
                continue
            if isinstance(value, HScalar):
                facts.append(value.expr)
        return facts

    def host_compound(self, node: cst.BaseStatement) -> None:
        """``with``, loops, ``try`` and other compound statements: carried as written; their
        bodies are read for launches (a ``with torch.cuda.device(x.device):`` around one)."""
        self.complete = False
        # What the body asserts holds in the body only: a `try` or a suppressing `with` goes on
        # past a failed check, and a loop's body may not run.
        asserted = len(self.divisible)
        if isinstance(node, cst.With):
            for item in node.items:
                if item.asname is not None:
                    for name in bound_names(item.asname):
                        self.scope[name] = HOpaque(f"`{name}` is bound by a `with`")
            if isinstance(node.body, cst.IndentedBlock):
                self.host_block(list(node.body.body))
            del self.divisible[asserted:]
            return
        if isinstance(node, (cst.For, cst.While, cst.Try)):
            self.carried(node)  # loop-carried names are unknown inside the body too
            if isinstance(node.body, cst.IndentedBlock):
                saved = dict(self.scope)
                self.host_block(list(node.body.body))
                self.scope = saved
            del self.divisible[asserted:]
            self.carried(node)
            return
        self.carried(node)

    def host_def(self, node: cst.FunctionDef) -> None:
        """A local ``def grid(meta): return (...)``: a grid function, like a lambda (written on
        its own lines or on the ``def`` line, FLA's ``def grid(meta): return (...)``)."""
        # Each statement as (its one small statement or None, the node a refusal points at).
        body: list[tuple[cst.BaseSmallStatement | None, cst.CSTNode]]
        if isinstance(node.body, cst.IndentedBlock):
            body = [
                (
                    stmt.body[0]
                    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
                    else None,
                    stmt,
                )
                for stmt in node.body.body
            ]
        else:
            body = [(small, small) for small in node.body.body]
        if node.get_docstring() is not None:
            body = body[1:]
        ret = body[-1][0] if body else None
        if not (isinstance(ret, cst.Return) and ret.value is not None) or node.decorators:
            raise self.error(
                node,
                f"local function `{node.name.value}` is not a grid function",
                "define launch grids as `def grid(meta): return (...)` or a lambda",
            )
        # `BLOCK_M = META["BLOCK_SIZE_M"]` before the return: names for parts of the grid,
        # substituted into it (each may use the ones before).
        local: dict[str, cst.BaseExpression] = {}
        for small, stmt in body[:-1]:
            if not (
                isinstance(small, cst.Assign)
                and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Name)
            ):
                raise self.error(
                    stmt,
                    f"unsupported statement in the grid function `{node.name.value}`",
                    "a grid function may only name values "
                    '(`BLOCK_M = META["BLOCK_M"]`) and return the grid',
                )
            local[small.targets[0].target.value] = substitute_names(small.value, local)
        ps = node.params
        params = tuple(p.name.value for p in (*ps.posonly_params, *ps.params))
        self.scope[node.name.value] = HGrid(params, substitute_names(ret.value, local), node)

    def host_small(self, node: cst.BaseSmallStatement) -> Any:
        if isinstance(node, cst.Assign):
            if len(node.targets) != 1:
                raise self.error(node, "chained assignment is not supported")
            self.host_assign(node.targets[0].target, node.value, node)
        elif isinstance(node, cst.AnnAssign) and node.value is not None:
            self.host_assign(node.target, node.value, node)
        elif isinstance(node, cst.Assert):
            self.host_assert(node)
        elif isinstance(node, cst.Expr):
            v = node.value
            if isinstance(v, (cst.SimpleString, cst.ConcatenatedString)):
                return NO_RETURN
            if isinstance(v, cst.Call) and isinstance(v.func, cst.Subscript):
                self.launch(v)
                return NO_RETURN
            if self.is_runtime_setup(v):
                self.note(
                    f"tiletrans: dropped `{self.src(v)}`: runtime setup that cannot change results"
                )
                return NO_RETURN
            if isinstance(v, cst.Call) and self.keyword_update(v):
                return NO_RETURN
            if (
                isinstance(v, cst.Call)
                and isinstance(v.func, cst.Attribute)
                and (v.func.attr.value == "copy_")
            ):
                self.copy_into(v)
                return NO_RETURN
            raise self.error(node, f"unsupported host statement `{self.src(node)[:60]}`")
        elif isinstance(node, cst.Return):
            if self.depth:
                # A helper's result is named after what the caller assigns it to.
                return (
                    self.hval(node.value, self.result_names[-1])
                    if node.value is not None
                    else HStatic(None)
                )
            self.host_return(node)
        elif isinstance(node, cst.Pass):
            pass
        elif isinstance(node, cst.Raise):
            self.complete = False
        else:
            raise self.error(node, f"unsupported host statement `{self.src(node)[:60]}`")
        return NO_RETURN

    def kernel_warmup(self, line: cst.SimpleStatementLine) -> bool:
        """``kernel.warmup(...)`` (or ``compiled = kernel.warmup(...)`` with ``compiled`` unused):
        it compiles the Triton kernel ahead of its first launch and cannot change results. The
        translation drops the line (a target kernel compiles at its first call) and says so."""
        if len(line.body) != 1:
            return False
        small = line.body[0]
        target = None
        if isinstance(small, cst.Assign) and len(small.targets) == 1:
            target, value = small.targets[0].target, small.value
        elif isinstance(small, cst.Expr):
            value = small.value
        else:
            return False
        if not (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Attribute)
            and value.func.attr.value == "warmup"
            and isinstance(value.func.value, cst.Name)
            and value.func.value.value in self.info.jit
        ):
            return False
        if target is not None:
            if not isinstance(target, cst.Name):
                raise self.error(
                    small, "unpacking the result of a kernel's warmup is not supported"
                )
            rest = self.fn.deep_remove(line)
            if rest is not None and self.compiled_kernel_reads(rest, target.value):
                # The fused-softmax tutorial: launched as `kernel[grid](...)`, its registers
                # and shared memory read to size a persistent grid. A translation's persistent
                # loop is a grid over the rows, so nothing else reads them.
                self.scope[target.value] = HOpaque(
                    f"`{target.value}` is the compiled Triton kernel, which the translation has not"
                )
            elif rest is not None and target.value in cst_names_in(rest):
                raise self.error(
                    small,
                    f"`{target.value}`, the compiled kernel `{self.src(value)[:40]}` returns, is "
                    "used: the translation has no Triton compiled kernel to give it",
                    "launch the kernel with kernel[grid](...) and drop the warmup",
                )
        kernel = value.func.value.value
        self.info.host_edits.append(
            ir.HostEdit(
                "remove",
                self.locate.span(line),
                note=(
                    f"tiletrans: dropped `{self.src(small)}`: it compiles the Triton kernel "
                    f"`{kernel}` ahead of its first launch; the translation compiles at its first "
                    "call"
                ),
            )
        )
        return True

    def compiled_kernel_reads(self, body: cst.CSTNode, name: str) -> bool:
        """Whether ``body`` uses ``name`` (a kernel's compiled form) only to launch it and to
        read its attributes (``n_regs``, ``metadata.shared``); its method calls as statements
        (``kernel._init_handles()``, runtime setup) are dropped from the translation."""
        uses = 0
        allowed = 0
        statements: list[cst.SimpleStatementLine] = []

        class V(cst.CSTVisitor):
            def visit_Name(self, node: cst.Name) -> None:
                nonlocal uses
                uses += node.value == name

            def visit_Subscript(self, node: cst.Subscript) -> None:
                nonlocal allowed
                allowed += isinstance(node.value, cst.Name) and node.value.value == name

            def visit_Attribute(self, node: cst.Attribute) -> None:
                nonlocal allowed
                allowed += isinstance(node.value, cst.Name) and node.value.value == name

            def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
                # `kernel._init_handles()`, `n_regs = kernel.n_regs`: not launches.
                launches = any(isinstance(c.func, cst.Subscript) for c in _calls_in(node))
                if not launches and name in cst_names_in(node):
                    statements.append(node)

        body.visit(V())
        if not uses or uses != allowed or not _launches_through(body, name):
            return False
        statements.clear()  # the original tree's, which have locations
        self.fn.visit(V())
        if not _feeds_only_assignments(self.fn, statements, name):
            return False
        for line in statements:
            self.info.host_edits.append(
                ir.HostEdit(
                    "remove",
                    self.locate.span(line),
                    note=f"tiletrans: dropped `{self.src(line.body[0])}`: it reads the "
                    "compiled Triton kernel",
                )
            )
        return True

    def is_runtime_setup(self, node: cst.BaseExpression) -> bool:
        """A call that only configures the runtime (``triton.set_allocator``)."""
        return (
            isinstance(node, cst.Call)
            and resolve(node.func, self.aliases)
            in self.grammar["frontend"]["host"]["runtime_setup"]
        )

    def copy_into(self, node: cst.Call) -> None:
        """``buf.copy_(x)`` into a buffer just allocated with ``x``'s shape: from here on ``buf``
        holds ``x``'s values in another layout, which the IR (logical indexing) reads as ``x``."""
        assert isinstance(node.func, cst.Attribute)
        buf, args = self.hval(node.func.value), [a.value for a in node.args]
        src = self.hval(args[0]) if len(args) == 1 else None
        target = node.func.value
        fresh = [
            i
            for i, s in enumerate(self.body)
            if isinstance(s, ir.Alloc) and isinstance(buf, HTensor) and s.target == buf.name
        ]
        if not (
            isinstance(buf, HTensor)
            and isinstance(src, HTensor)
            and isinstance(target, cst.Name)
            and fresh
            and fresh[-1] == len(self.body) - 1
            and self._same_shape(buf, src)
        ):
            raise self.error(
                node,
                f"unsupported in-place copy `{self.src(node)}`",
                "copy only into a buffer allocated just before with the source's "
                "shape (a re-pitched copy)",
            )
        dropped = self.body.pop()
        self.pending_comments[:0] = dropped.comments
        self.note(
            f"tiletrans: `{buf.source}` is a re-laid-out copy of `{src.source}`, read as "
            f"`{src.source}` (the IR indexes tensors logically)"
        )
        self.scope[target.value] = dataclasses.replace(src, copy=True)

    def _same_shape(self, a: HTensor, b: HTensor) -> bool:
        if a.rank is None or a.rank != b.rank:
            return False
        return all(
            self.same_value(ir.SizeOf(a.name, d), ir.SizeOf(b.name, d)) for d in range(a.rank)
        )

    def host_if(self, node: cst.If) -> None:
        body = list(node.body.body) if isinstance(node.body, cst.IndentedBlock) else []
        default = none_default(node)
        if default is not None:
            # `if x is None: x = e` for an optional parameter.
            name, value_node = default
            current = self.scope.get(name)
            value = self.hval(value_node)
            if isinstance(current, HScalar) and isinstance(value, HScalar):
                self.bind(
                    name, HScalar(ir.Call("if_none", (current.expr, value.expr)), value.kind), node
                )
                return
        if (
            node.orelse is None
            and body
            and all(
                isinstance(st, cst.SimpleStatementLine)
                and all(isinstance(s, cst.Expr) and self.is_runtime_setup(s.value) for s in st.body)
                for st in body
            )
        ):
            self.note(
                f"tiletrans: dropped `if {self.src(node.test)}: ...`: runtime setup that "
                "cannot change results"
            )
            return
        if (
            node.orelse is None
            and len(body) == 1
            and isinstance(body[0], cst.SimpleStatementLine)
            and isinstance(body[0].body[0], cst.Raise)
        ):
            # `if cond: raise E(msg)` is an assert of `not cond`.
            raise_node = body[0].body[0]
            msg = None
            exc = raise_node.exc
            if isinstance(exc, cst.Call) and exc.args:
                msg = self.message(exc.args[0].value)
            self.note(f"tiletrans: was `if {self.src(node.test)}: raise ...`")
            parts = negated_conjuncts(node.test)
            if parts is not None:
                # `if x.shape != (a, b) or n != m: raise`: what each assert would prove (ranks,
                # equal sizes), as `assert x.shape == (a, b)` and `assert n == m` do.
                for part in parts:
                    self.assert_part(part, msg, node)
                return
            test = self.scalar(node.test)
            self.emit(ir.Assert(ir.UnaryOp("not", test), msg, loc=self.locate(node)))
            return
        # Branches that only assign: the names become opaque (launch knobs such as num_warps).
        assigned: list[str] = []
        branch: cst.CSTNode | None = node
        while branch is not None:
            suite = branch.body if isinstance(branch, (cst.If, cst.Else)) else None
            for st in suite.body if isinstance(suite, cst.IndentedBlock) else []:
                pairs = branch_assignments(st)
                if pairs is None:
                    raise self.error(
                        st,
                        "host branches may only assign values (or raise)",
                        "compute launch parameters with expressions",
                    )
                assigned += [name for name, _ in pairs]
            branch = branch.orelse if isinstance(branch, cst.If) else None
        before = dict(self.scope)
        branches = self.branch_values(node, before)
        for name in assigned:
            why = f"`{name}` is assigned in a branch of a host `if`"
            if branches is not None:
                test, when_true, when_false = branches
                self.scope[name] = HBranch(
                    why,
                    test=test,
                    when_true=when_true.get(name, before.get(name)),
                    when_false=when_false.get(name, before.get(name)),
                )
            else:
                self.scope[name] = HOpaque(why)
        self.keep_copied_tensors(node, before)

    def branch_values(
        self, node: cst.If, before: dict[str, Any]
    ) -> tuple[BranchTest, dict[str, Any], dict[str, Any]] | None:
        """The values an ``if test: ... [else: ...]`` of plain assignments gives each name on
        either side, where ``test`` is one a launch flag can be bound to (``x is not None``, a
        flag name): per-branch strides of an optional tensor, which a launch passing
        ``HAS_X=x is not None`` reads under that flag. None for a test of another form, an
        ``elif``, or a branch whose values the host would have to compute (emit) first."""
        test = branch_test(node.test, before)
        if test is None or isinstance(node.orelse, cst.If):
            return None
        sides = []
        saved = self.scope
        for suite in (node.body, node.orelse.body if node.orelse is not None else None):
            values: dict[str, Any] = {}
            if suite is None:
                sides.append(values)
                continue
            emitted = len(self.body)
            self.scope = dict(before)
            try:
                for st in suite.body:
                    # Each right side first, as Python evaluates `a, b = b, a`.
                    pairs = [(n, self.hval(v)) for n, v in branch_assignments(st) or ()]
                    for name, value in pairs:
                        self.scope[name] = value
                        values[name] = value
            except TranslationError:
                self.scope = saved
                del self.body[emitted:]
                return None
            inner, self.scope = self.scope, saved
            # Reading `s.stride(0)` finds `s` to hold a tensor (a name carried as written,
            # HostTensors.method): a fact about `s` on either side, kept. Anything else the
            # branch would make the host compute first is not folded.
            promoted = {
                n: v
                for n, v in inner.items()
                if n not in values
                and isinstance(v, HTensor)
                and v.promoted_from is before.get(n)
                and v.promoted_from is not None
            }
            if any(
                not (isinstance(st, ir.Carried) and st.kind == "tensor" and st.source in promoted)
                for st in self.body[emitted:]
            ):
                del self.body[emitted:]
                return None
            self.scope.update(promoted)
            before = {**before, **promoted}
            sides.append(values)
        return test, sides[0], sides[1]

    def keep_copied_tensors(self, node: cst.If, before: dict[str, Any]) -> None:
        """`if x.stride(-1) != 1: x = x.contiguous()`: whichever branch ran, ``x`` has the shape
        it had (and the layout it was known to have before, the weaker fact)."""
        for name in copies_only(node):
            if isinstance(before.get(name), HTensor):
                self.scope[name] = before[name]

    def host_assign(
        self, target: cst.BaseExpression, value_node: cst.BaseExpression, node: cst.CSTNode
    ) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            names = [e.value for e in target.elements]
            if not all(isinstance(n, cst.Name) for n in names):
                raise self.error(node, "unpack into plain names")
            value = self.hval(value_node)
            if isinstance(value, HShape):
                self.shape_unpack([n.value for n in names], value.tensor, node)  # type: ignore
                return
            if isinstance(value, HTuple) and len(value.items) == len(names):
                for n, v in zip(names, value.items):
                    self.bind(n.value, v, node)  # type: ignore[union-attr]
                return
            if isinstance(value, HOpaque):
                for n in names:
                    self.scope[n.value] = value  # type: ignore[union-attr]
                return
            raise self.error(node, f"cannot unpack `{self.src(value_node)}`")
        if isinstance(target, cst.Subscript) and self.keyword_store(target, value_node):
            return
        if not isinstance(target, cst.Name):
            raise self.error(node, f"unsupported assignment target `{self.src(target)}`")
        self.bind(target.value, self.hval(value_node, target.value), node)

    def keyword_store(self, target: cst.Subscript, value_node: cst.BaseExpression) -> bool:
        """``kernel_args["BLOCK_ROW"] = block_row`` into a dict of launch keywords."""
        base = target.value
        current = self.scope.get(base.value) if isinstance(base, cst.Name) else None
        key = target.slice[0].slice if len(target.slice) == 1 else None
        if not (
            isinstance(current, HKwargs)
            and isinstance(key, cst.Index)
            and isinstance(key.value, cst.SimpleString)
            and isinstance(key.value.evaluated_value, str)
        ):
            return False
        value = self.hval(value_node)
        self.scope[base.value] = current.with_entry(key.value.evaluated_value, value_node, value)  # type: ignore[union-attr]
        return True

    def keyword_update(self, call: cst.Call) -> bool:
        """``kernel_args.update({"num_warps": 32})`` or ``.update(num_warps=32)``."""
        func = call.func
        if not (
            isinstance(func, cst.Attribute)
            and func.attr.value == "update"
            and isinstance(func.value, cst.Name)
            and isinstance(self.scope.get(func.value.value), HKwargs)
        ):
            return False
        current: HKwargs = self.scope[func.value.value]
        for arg in call.args:
            if arg.keyword is not None and not arg.star:
                current = current.with_entry(arg.keyword.value, arg.value, self.hval(arg.value))
                continue
            added = self.hval(arg.value) if not arg.star else None
            if not isinstance(added, HKwargs):
                raise self.error(call, "`.update()` of launch keywords takes a dict literal")
            for key, node, value in added.entries:
                current = current.with_entry(key, node, value)
        self.scope[func.value.value] = current
        return True

    def bind(self, name: str, value: Any, node: cst.CSTNode) -> None:
        if isinstance(value, HScalar):
            if (
                isinstance(value.expr, ir.Name)
                and value.expr.id in self.names
                and not (value.expr.id.startswith("?"))
            ):
                self.scope[name] = value
                return
            irname = self.fresh(name)
            self.canon[irname] = value.expr
            self.emit(ir.Assign(irname, value.expr, loc=self.locate(node)))
            self.types.vars[irname] = ScalarType(
                ir.F32 if value.kind == "float" else ir.BOOL if value.kind == "bool" else ir.I32,
                weak=True,
            )
            self.scope[name] = HScalar(ir.Name(irname), value.kind)
            return
        if isinstance(value, HTensor):
            self.scope[name] = value
            return
        self.scope[name] = value

    def shape_unpack(self, names: list[str], t: HTensor, node: cst.CSTNode) -> None:
        if t.rank is not None and t.rank != len(names):
            raise self.error(node, f"`{t.source}` has {t.rank} dims, unpacked into {len(names)}")
        self.set_rank(t, len(names))
        targets: list[str | None] = []
        for i, n in enumerate(names):
            if n == "_":
                targets.append(None)
                continue
            irname = self.fresh(n)
            targets.append(irname)
            self.canon[irname] = ir.SizeOf(t.name, i)
            self.scope[n] = HScalar(ir.Name(irname))
        self.emit(ir.ShapeUnpack(tuple(targets), t.name, loc=self.locate(node)))

    def host_return(self, node: cst.Return) -> None:
        loc = self.locate(node)
        if node.value is None:
            self.emit(ir.Return(None, loc=loc))
            return
        items = node.value.elements if isinstance(node.value, cst.Tuple) else None
        values = (
            [self.return_item(e.value) for e in items]
            if items is not None
            else [self.return_item(node.value)]
        )
        value: ir.Expr = ir.TupleExpr(tuple(values)) if items is not None else values[0]
        self.emit(ir.Return(value, loc=loc))

    def return_item(self, node: cst.BaseExpression) -> ir.Expr:
        v = self.hval(node, "out")
        if isinstance(v, HTensor):
            return ir.Name(v.name)
        if isinstance(v, HScalar) and isinstance(v.expr, ir.Name):
            return v.expr
        raise self.error(
            node, f"cannot return `{self.src(node)}`", "return host tensors or sizes by name"
        )

    def message(self, node: cst.BaseExpression) -> str:
        """An assert message as entry-level source: inside an inlined helper, whose names the
        entry does not have, an f-string becomes the literal text of its template."""
        if self.depth and not isinstance(node, cst.SimpleString):
            return repr(source_of(node).lstrip("fF").strip("\"'"))
        return source_of(node)

    def host_assert(self, node: cst.Assert) -> None:
        msg = self.message(node.msg) if node.msg is not None else None
        for part in conjuncts(node.test):
            self.assert_part(part, msg, node)

    def assert_part(self, test: cst.BaseExpression, msg: str | None, node: cst.Assert) -> None:
        loc = self.locate(node)
        text = self.src(test)
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
            comp = test.comparisons[0]
            lhs, rhs = self.hval(test.left), self.hval(comp.comparator)
            lhs, rhs = (
                HFact(f"stride{v.dim}", v.tensor) if isinstance(v, HStride) else v
                for v in (lhs, rhs)
            )
            if isinstance(lhs, HDType) and isinstance(rhs, HDType):
                lhs = HFact("dtype")
            if isinstance(comp.operator, cst.Equal):
                if isinstance(lhs, HFact) or isinstance(rhs, HFact):
                    fact = lhs if isinstance(lhs, HFact) else rhs
                    other = rhs if fact is lhs else lhs
                    if (
                        fact.kind == "dim"
                        and isinstance(other, HScalar)
                        and isinstance(other.expr, ir.Const)
                    ):
                        assert fact.tensor is not None
                        self.require_rank(fact.tensor, int(other.expr.value), node, text)
                        return
                    if (
                        fact.kind.startswith("stride")
                        and isinstance(other, HScalar)
                        and (other.expr == ir.Const(1))
                    ):
                        assert fact.tensor is not None
                        d = int(fact.kind[6:])
                        if d == -1 or (fact.tensor.rank is not None and d == fact.tensor.rank - 1):
                            fact.tensor.unit_last = True
                        self.note(
                            f"tiletrans: dropped `assert {text}`: the IR indexes tensors "
                            "logically, so this layout check only rejects inputs"
                        )
                        return
                    if fact.kind == "dtype":
                        self.note(
                            f"tiletrans: dropped `assert {text}`: dtype checks are not "
                            "expressible in the IR; it only rejects inputs"
                        )
                        return
                if isinstance(lhs, HShape) and isinstance(rhs, HShape):
                    a, b = lhs.tensor, rhs.tensor
                    if a.rank is None and b.rank is not None:
                        a.rank = b.rank
                    elif b.rank is None and a.rank is not None:
                        b.rank = a.rank
                    self.emit(
                        ir.Assert(
                            ir.BinOp("==", ir.ShapeOf(a.name), ir.ShapeOf(b.name)), msg, loc=loc
                        )
                    )
                    return
                if (
                    isinstance(lhs, HTuple)
                    and isinstance(rhs, HTuple)
                    and len(lhs.items) == len(rhs.items)
                    and all(isinstance(x, HScalar) for x in lhs.items + rhs.items)
                ):
                    for a, b in zip(lhs.items, rhs.items):
                        self.emit(ir.Assert(ir.BinOp("==", a.expr, b.expr), msg, loc=loc))
                    return
                if isinstance(lhs, HShape) and isinstance(rhs, HTuple):
                    t = lhs.tensor
                    self.require_rank(t, len(rhs.items), node, text)
                    for i, item in enumerate(rhs.items):
                        if not isinstance(item, HScalar):
                            raise self.error(test, f"cannot compare the shape of `{t.source}`")
                        self.emit(
                            ir.Assert(ir.BinOp("==", ir.SizeOf(t.name, i), item.expr), msg, loc=loc)
                        )
                        self.equal_sizes(item.expr, ir.SizeOf(t.name, i))
                    return
            if (
                isinstance(comp.operator, cst.In)
                and isinstance(lhs, HScalar)
                and isinstance(rhs, (HTuple,))
                and all(isinstance(i, HScalar) for i in rhs.items)
            ):
                cond: ir.Expr | None = None
                for item in rhs.items:
                    eq = ir.BinOp("==", lhs.expr, item.expr)
                    cond = eq if cond is None else ir.BinOp("or", cond, eq)
                if cond is not None:
                    self.emit(ir.Assert(cond, msg, loc=loc))
                    return
            if isinstance(lhs, HScalar) and isinstance(rhs, HScalar):
                op = {
                    cst.Equal: "==",
                    cst.NotEqual: "!=",
                    cst.LessThan: "<",
                    cst.LessThanEqual: "<=",
                    cst.GreaterThan: ">",
                    cst.GreaterThanEqual: ">=",
                }.get(type(comp.operator))
                if op is not None:
                    self.emit(ir.Assert(ir.BinOp(op, lhs.expr, rhs.expr), msg, loc=loc))
                    if op == "==":
                        self.equal_sizes(lhs.expr, rhs.expr)
                    if (
                        op in (">", ">=")
                        and isinstance(rhs.expr, ir.Const)
                        and (rhs.expr.value > 0 or (op == ">" and rhs.expr.value == 0))
                    ):
                        self.positive.add(format_expr(lhs.expr))
                    return
        v = self.hval(test)
        if isinstance(v, HFact) and v.kind == "contiguous":
            assert v.tensor is not None
            v.tensor.contiguous = v.tensor.unit_last = True
            self.note(
                f"tiletrans: dropped `assert {text}`: the IR indexes tensors logically, "
                "so this layout check only rejects inputs"
            )
            return
        if isinstance(v, HScalar) and v.kind == "bool":
            self.emit(ir.Assert(v.expr, msg, loc=loc))
            return
        raise self.error(
            test,
            f"cannot express `assert {text}` in the IR",
            "assert sizes (x.shape[i] == n), shapes (x.shape == y.shape), ranks "
            "(x.dim() == 2) or layouts (x.is_contiguous())",
        )


def _calls_in(node: cst.CSTNode) -> list[cst.Call]:
    """Every call in ``node``."""
    found: list[cst.Call] = []

    class V(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> None:
            found.append(call)

    node.visit(V())
    return found


def _launches_through(body: cst.CSTNode, name: str) -> bool:
    """Whether ``body`` launches ``name[grid](...)``."""
    return any(
        isinstance(c.func, cst.Subscript)
        and isinstance(c.func.value, cst.Name)
        and c.func.value.value == name
        for c in _calls_in(body)
    )


def _feeds_only_assignments(
    fn: cst.FunctionDef, dropped: list[cst.SimpleStatementLine], name: str
) -> bool:
    """Whether what the ``dropped`` lines bind reaches, through assignments, only other
    assignments and the launch of ``name`` (the grid it sizes), not an assert, a return or a
    call: the dropped lines leave nothing undefined that runs."""
    derived: set[str] = set()
    for line in dropped:
        for small in line.body:
            if isinstance(small, cst.Assign):
                derived |= {n for t in small.targets for n in cst_names_in(t.target)}
    lines: list[cst.SimpleStatementLine] = []

    class Lines(cst.CSTVisitor):
        def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
            if all(node is not d for d in dropped):
                lines.append(node)

    fn.visit(Lines())
    for _ in range(len(lines)):  # to a fixed point: each round adds names or stops
        grown = False
        for line in lines:
            for small in line.body:
                if isinstance(small, cst.Assign) and cst_names_in(small.value) & derived:
                    new = {n for t in small.targets for n in cst_names_in(t.target)} - derived
                    derived |= new
                    grown = grown or bool(new)
        if not grown:
            break
    headers: list[cst.CSTNode] = []

    class Headers(cst.CSTVisitor):
        def visit_If(self, node: cst.If) -> None:
            headers.append(node.test)

        def visit_While(self, node: cst.While) -> None:
            headers.append(node.test)

        def visit_For(self, node: cst.For) -> None:
            headers.append(node.iter)

    fn.visit(Headers())
    if any(cst_names_in(h) & derived for h in headers):
        return False  # a branch or loop decided by the compiled kernel's properties
    for line in lines:
        if not cst_names_in(line) & derived:
            continue
        if all(isinstance(small, cst.Assign) for small in line.body):
            continue
        if _launches_through(line, name):
            continue
        return False
    return True
