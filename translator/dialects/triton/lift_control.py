"""Control flow of a kernel body: ``if`` (static and dynamic), ``for`` over tiles and indices.

A dynamic ``if`` lifts both branches from one environment and merges what they bind; a loop
over ``range(0, n, BLOCK)`` becomes a tile loop whose carried values are iterated to a fixpoint
of what their invalid lanes hold, pointers it advances by a fixed step moved once per iteration.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections import Counter
from collections.abc import Iterator
from typing import Any

import libcst as cst

from translator.dialects.cst_utils import call_args, literal, names_in, resolve, target_names
from translator.dialects.triton import frontend_affine as af
from translator.dialects.triton import frontend_blocks as blocks
from translator.dialects.triton.frontend_affine import ir_text
from translator.dialects.triton.frontend_blocks import BlockPtr
from translator.dialects.triton.ir_rewrite import simplify, walk_stmts_of
from translator.dialects.triton.lift_dispatch import handles_statement
from translator.dialects.triton.lift_statements import suite_body
from translator.dialects.triton.lifted import (
    Data,
    FlagChoice,
    Idx,
    Loop,
    Pending,
    Ptr,
    Static,
    Tile,
    Val,
)
from translator.dialects.triton.symbols import (
    Sym,
    SymKind,
    is_sym,
    kind_of,
    param_name,
    parse_sym,
    sym_of,
)
from translator.ir import nodes as ir
from translator.ir.shapes import ScalarType, dims_of, dtype_of
from translator.ir.visit import map_bodies, walk_expr
from translator.naming import unique


class ControlMixin:
    """``if`` and ``for`` statements of :class:`KernelLifter`, and environment snapshots."""

    @handles_statement(cst.If)
    def if_stmt(
        self, node: cst.If, rest_after_return: list | None = None, terminal: bool = False
    ) -> None:
        """``terminal``: the kernel ends with this ``if`` (its branches hold the rest)."""
        raw = self.pointer_test(self.ev(node.test), node.test)
        test = self.constant_test(raw)
        if isinstance(test, Static):
            branch: list = []
            if test.value:
                branch = list(suite_body(node.body))
            elif isinstance(node.orelse, cst.Else):
                branch = list(suite_body(node.orelse.body))
            elif isinstance(node.orelse, cst.If):
                branch = [node.orelse]
            with self.assuming(raw, bool(test.value)):
                if rest_after_return is not None and test.value:
                    self.block(branch, self.out)
                    return
                returned = self.block(branch, self.out)
            if rest_after_return is not None and not returned:
                self.block(rest_after_return, self.out)
            return
        self.if_depth += 1
        try:
            self._dynamic_if(node, test, rest_after_return, terminal)
        finally:
            self.if_depth -= 1

    def constant_test(self, test: Val) -> Val:
        """``test`` as a :class:`Static` where it reads only constexpr parameters the launch
        binds to literals (Liger's ``if casting_mode == _CASTING_MODE_LLAMA:``): Triton
        compiles that branch alone, so its values may change dtype."""
        if not isinstance(test, Idx):
            return test
        values: dict[str, object] = {}
        for sym in af.symbols_in(test.tree):
            pname = param_name(sym)
            b = self.launch.bindings.get(pname or "")
            if (
                pname is None
                or pname not in self.launch.kernel.constexprs
                or b is None
                or b.kind != "constexpr"
                or not isinstance(b.expr, ir.Const)
            ):
                return test
            values[sym] = b.expr.value
        if not values:
            return test
        try:
            value = _constant(af.rename(test.tree, lambda name: ir.Const(values[name])))
        except (KeyError, TypeError, ValueError, ZeroDivisionError):
            return test
        return Static(bool(value))

    def _dynamic_if(
        self, node: cst.If, test: Val, rest_after_return: list | None, terminal: bool = False
    ) -> None:
        facts = self.divisibility_facts(test, node.test)
        self.compile_time_flags(test)
        before = dict(self.env)
        taken, ir_locals = set(self.taken), set(self.ir_locals)
        body: list[ir.Stmt] = []
        dtypes = self.dtypes_of(before) if self.is_flag_test(test) else {}
        self.facts.append(facts)
        try:
            with self.assuming(test, True):
                self.block(list(suite_body(node.body)), body)
        finally:
            self.facts.pop()
        self.refuse_run_time_retyping(dtypes, self.env, node)
        env_body, self.env = self.env, dict(before)
        # Both branches start from the same names, so a value both define has one IR name.
        taken_body, locals_body = self.taken, self.ir_locals
        self.taken, self.ir_locals = set(taken), set(ir_locals)
        orelse: list[ir.Stmt] = []
        flagged = False
        with self.assuming(test, False):
            if rest_after_return is not None:
                self.block(rest_after_return, orelse)
            elif isinstance(node.orelse, cst.Else):
                self.block(list(suite_body(node.orelse.body)), orelse)
            elif isinstance(node.orelse, cst.If):
                self.block([node.orelse], orelse)
            elif self.is_flag_test(test):
                orelse = self.flag_placeholders(before, env_body, node)
                flagged = True
        env_else = self.env
        self.refuse_run_time_retyping(dtypes, env_else, node)
        self.taken |= taken_body
        self.ir_locals |= locals_body
        if facts:
            # `if EVEN_N: unmasked else: masked`: the flag only says the masks are all-true, so
            # branches that differ in nothing else are one computation (the masked one).
            merged = _merge_branches(tuple(body), tuple(orelse))
            if merged is not None:
                self.env = self.merge_envs(before, env_body, env_else, node, joined=True)
                self.out.extend(merged)
                return
        cond = self.to_data(test, node.test)
        if dims_of(self.type_of(cond.expr, node.test)):
            raise self.error(
                node.test,
                "a branch condition must be a scalar, not a tile",
                "use tl.where for per-lane choices",
            )
        # Nothing follows an `if` whose branches hold the rest of the kernel: values the
        # branches leave different (a pointer one of them advanced) are never read again.
        end = terminal or rest_after_return is not None
        self.env = self.merge_envs(
            before, env_body, env_else, node, dead=end, flag=self.deciding_flag(test)
        )
        if flagged:
            # `if FLAG: acc = tl.zeros(...)`: zeros either way, written before the branch. Only
            # a value new to the branch whose zeros nothing before them in it reads or writes.
            prior = {
                v.expr.id
                for v in before.values()
                if isinstance(v, Data) and isinstance(v.expr, ir.Name)
            }
            hoisted: list[ir.Stmt] = []
            kept: list[ir.Stmt] = []
            for stmt in body:
                if (
                    _zeros(stmt)
                    and stmt.target not in prior  # type: ignore[attr-defined]
                    and stmt.target not in _names_of(kept)  # type: ignore[attr-defined]
                ):
                    hoisted.append(stmt)
                else:
                    kept.append(stmt)
            names = {s.target for s in hoisted if isinstance(s, ir.Assign)}
            body = kept
            orelse = [s for s in orelse if not (isinstance(s, ir.Assign) and s.target in names)]
            self.out.extend(hoisted)
            if not body:
                return
        if not body and not orelse:
            # Branches that only named index values (`if LONG_INDEXING:` widening offsets): the
            # values are merged above and nothing is left to choose between.
            return
        self.out.append(ir.If(cond.expr, tuple(body), tuple(orelse), loc=self.locate(node)))

    @contextlib.contextmanager
    def assuming(self, test: Val, holds: bool) -> Iterator[None]:
        """Lift a branch where ``test`` is ``holds``: the constexpr flags it decides are known
        there (:attr:`flag_truths`)."""
        truths = self.flag_values(test, holds)
        self.flag_truths.extend(truths)
        # `if x < 0: return` + rest: x is never negative in the rest (C and Python `//`, `%`
        # agree there).
        nonneg = [n for n in _nonnegative_under(test, holds) if n not in self.nonneg_locals]
        self.nonneg_locals.update(nonneg)
        try:
            yield
        finally:
            del self.flag_truths[len(self.flag_truths) - len(truths) :]
            self.nonneg_locals.difference_update(nonneg)

    def compile_time_flags(self, test: Val) -> None:
        """The host values of the constexpr flags branch test ``test`` decides reach the kernel
        as compile-time constants (Helion ``hl.constexpr``, cuTile ``ct.Constant``, a TileLang
        factory argument), as in Triton, which compiles one kernel per flag value: a branch
        the flag turns off is never compiled, so it may read tensors the host passes as
        ``None`` there (Liger's optional outputs)."""
        for flag, _ in self.flag_values(test, True) + self.flag_values(test, False):
            b = self.launch.bindings.get(flag)
            if b is not None and isinstance(b.expr, ir.Name) and b.kind in ("constexpr", "opaque"):
                self.host.mark_constexpr(b.expr.id)

    def dtypes_of(self, env: dict) -> dict[str, ir.DTypeExpr]:
        """The element type of each data value of ``env``."""
        out = {}
        for name, v in env.items():
            if isinstance(v, Data):
                dtype = dtype_of(self.type_of(v.expr, None))
                if dtype is not None:
                    out[name] = dtype
        return out

    def refuse_run_time_retyping(
        self, dtypes: dict[str, ir.DTypeExpr], env: dict, node: cst.If
    ) -> None:
        """Refuse a branch on constexpr values the launch passes at run time that gives a
        value another dtype (Liger's ``if casting_mode == _CASTING_MODE_LLAMA: X_row =
        X_row.to(tl.float32)`` with ``casting_mode`` from a dict lookup): Triton compiles one
        kernel per value, where the IR's one kernel keeps one dtype per value."""
        for name, before in dtypes.items():
            v = env.get(name)
            if not isinstance(v, Data):
                continue
            after = dtype_of(self.type_of(v.expr, node))
            if after is None or after == before:
                continue
            passed = " and ".join(
                f"`{f}` (passed `{self.launch.texts[f]}`)"
                for f in sorted(self.launch.kernel.constexprs & names_in(node.test))
                if f in self.launch.texts
            )
            raise self.error(
                node.test,
                f"`{name}` changes dtype in a branch of this `if` (from {_dtype_text(before)} "
                f"to {_dtype_text(after)}): the test reads the tl.constexpr {passed}, which the "
                "launch computes at run time, and a translated kernel keeps one dtype per value",
                "launch the kernel with a literal for each value (`if mode == 0: "
                "kernel[grid](..., 0, ...)`), which tiletrans lifts as one kernel per value, "
                "or cast in both branches to one dtype",
            )

    def deciding_flag(self, test: Val) -> tuple[str, bool] | None:
        """The constexpr flag ``test`` is (``if FLAG:``, or ``if not FLAG:``), which decides
        both branches, and the flag's value where the test holds; ``None`` for any other
        test."""
        on, off = self.flag_values(test, True), self.flag_values(test, False)
        if len(on) == 1 and off == [(on[0][0], not on[0][1])]:
            return on[0]
        return None

    def flag_values(self, test: Val, holds: bool) -> list[tuple[str, bool]]:
        """The constexpr flags ``test`` decides where it is ``holds``: ``FLAG`` and ``not FLAG``
        decide ``FLAG`` either way; ``A and B`` decides both where it holds, ``A or B`` both
        where it does not."""
        tree = test.tree if isinstance(test, Idx) else test.expr if isinstance(test, Data) else None
        return _flag_values(tree, holds, self.launch.kernel.constexprs) if tree is not None else []

    def is_flag_test(self, test: Val) -> bool:
        """Whether ``test`` reads constexpr parameters only (``if COMPUTE_DW:``): Triton
        compiles one branch per value, so the source reads what such a branch defines only
        under the same flag."""
        if not isinstance(test, Idx):
            return False
        syms = [parse_sym(text) for text in af.symbols_in(test.tree)]
        constexprs = self.launch.kernel.constexprs
        return bool(syms) and all(
            s is not None and s.kind in (SymKind.PARAM, SymKind.OPAQUE) and s.name in constexprs
            for s in syms
        )

    def flag_placeholders(self, before: dict, env_body: dict, node: cst.If) -> list[ir.Stmt]:
        """The ``else`` of ``if FLAG:`` that defines what the branch defines (Liger's ``if
        COMPUTE_DW: dW_row = tl.zeros(...)``, read later under ``if COMPUTE_DW:`` again): zeros
        of each value's type, never read where the flag is off, so that the IR, which scopes a
        value to the branch that defines it, lets the later branches read it."""
        out: list[ir.Stmt] = []
        for name, value in env_body.items():
            if name in before:
                continue
            if isinstance(value, Pending) and value.site is not None:
                # Zeros whose shape is not known yet: written where the `if` stands, either way.
                value.site = (self.out, len(self.out))
                self.env[name] = value
                continue
            if not isinstance(value, Data):
                continue
            if not isinstance(value.expr, ir.Name):
                continue
            t = self.type_of(value.expr, node)
            dims = dims_of(t)
            dtype = dtype_of(t)
            if not isinstance(dtype, ir.DType):
                # A tensor's dtype (`dtype(x)`) may still be renamed to a view's: no
                # placeholder; a later read outside this branch is refused as before.
                continue
            zero: ir.Expr = (
                ir.Full(tuple(dims), ir.Const(0), dtype) if dims else ir.Cast(ir.Const(0), dtype)
            )
            if isinstance(t, ScalarType) and t.weak and dtype in (ir.F32, ir.I32):
                # A weak scalar (`cap * 0.5` of a float argument) stays weak: a literal zero.
                zero = ir.Const(0.0 if dtype == ir.F32 else 0)
            placeholder = ir.Assign(value.expr.id, zero, loc=self.locate(node))
            self.placeholders.add(placeholder.target)
            out.append(placeholder)
            self.env[name] = value
        return out

    def divisibility_facts(self, test: Val, node) -> list[tuple[af.Key, ir.Expr]]:
        """``(block key, extent)`` pairs a branch test proves divisible (``EVEN_N`` flags that
        ``@triton.heuristics`` computes as ``args["N"] % args["BLOCK_N"] == 0``)."""
        if not isinstance(test, Idx):
            return []
        out = []
        for part in _conjunction(af.strip_casts(test.tree)):
            flag = sym_of(part)
            if flag is None or flag.kind is not SymKind.PARAM:
                continue
            b = self.launch.bindings.get(flag.name)  # type: ignore[arg-type]
            if b is None or b.kind != "constexpr" or b.expr is None:
                continue
            # As written where it matches (the extent keeps the host's name), else canonical.
            e = b.expr if _is_divisibility(b.expr) else self.host.canonical(b.expr)
            if not _is_divisibility(e):
                continue
            assert isinstance(e, ir.BinOp) and isinstance(e.lhs, ir.BinOp)
            extent, block = e.lhs.lhs, e.lhs.rhs
            for key, kb in self.launch.bindings.items():
                if (
                    kb.kind == "constexpr"
                    and kb.expr is not None
                    and self.same_host(kb.expr, block, node)
                ):
                    out.append((key, extent))
        return out

    def merge_envs(
        self,
        before: dict,
        a: dict,
        b: dict,
        node: cst.CSTNode,
        joined: bool = False,
        dead: bool = False,
        flag: tuple[str, bool] | None = None,
    ) -> dict:
        """The values after an ``if``. ``joined``: the branches were merged into one
        computation (the more masked one), so what either defines lives on. ``flag``: the
        constexpr flag the test is and its value where ``a`` holds: index and pointer values
        the branches leave different become a :class:`FlagChoice`."""
        out = dict(before)
        for name in set(a) | set(b):
            va, vb = self.placed(a.get(name)), self.placed(b.get(name))
            if va == vb:
                if va is not None:
                    out[name] = va
                continue
            widened = self.widened_index(va, vb)
            if widened is not None:
                out[name] = widened
                continue
            if (
                name not in before
                and not joined
                and not (isinstance(va, Data) and isinstance(vb, Data) and va.expr == vb.expr)
            ):
                continue  # defined in one branch only: unusable after (IR scoping)
            if isinstance(va, Data) and isinstance(vb, Data) and va.expr == vb.expr:
                if joined and (va.div <= vb.div or vb.div <= va.div):
                    out[name] = va if va.div <= vb.div else vb
                    continue
                out[name] = Data(va.expr, (), va.div | vb.div)
                continue
            if (joined and (va is None or vb is None)) or dead:
                out.pop(name, None)
                continue
            if flag is not None and not isinstance(va, Data) and not isinstance(vb, Data):
                # `a` holds where the test does: where the flag is true, or false (`if not F:`).
                name_of, on_where_true = flag
                on, off = (va, vb) if on_where_true else (vb, va)
                out[name] = FlagChoice(name_of, on, off, node)
                continue
            if isinstance(va, Data) or isinstance(vb, Data):
                # A parameter or index rebound to data in one branch only (Liger's `if
                # HAS_SOFTCAPPING: softcap = softcap.to(tl.float32)`): no one IR variable
                # holds it on both paths.
                raise self.error(
                    node,
                    f"`{name}` is rebound in one branch of this `if` to a value the other "
                    "branch does not hold",
                    f"give the new value a new name and read it under the same test (`if "
                    f"FLAG: {name}_2 = ...`), or assign `{name}` in both branches",
                )
            raise self.error(
                node,
                f"`{name}` is given different index or pointer values in the branches of this `if`",
                "compute offsets before branching",
            )
        return out

    def placed(self, v: Val | None) -> Val | None:
        """``v``, or the value a pending ``tl.zeros`` became once placed: Liger's ``if
        COMPUTE_DW: dW_row = tl.zeros(...)`` gets its dims from ``dW_row += dw`` under a later
        ``if COMPUTE_DW:``, which writes the zeros where they were defined, before both branches;
        the other branch's environment still holds the pending value."""
        if not isinstance(v, Pending):
            return v
        for _stmts, _stmt, pending, data in getattr(self, "inserted", []):
            if pending is v:
                return data
        return v

    def widened_index(self, a: Val | None, b: Val | None) -> Idx | None:
        """Of two index values that differ only in integer casts (Unsloth's ``if
        LONG_INDEXING: offsets = offsets.to(tl.int64)``, ``n = tl.cast(n, tl.int64)``), the one
        with the wider casts: the same integers wherever the narrower one does not overflow,
        and the host picks the narrow branch only where it does not. ``None`` otherwise."""
        if not (isinstance(a, Idx) and isinstance(b, Idx)):
            return None
        if af.poly(a.tree, self.atoms) != af.poly(b.tree, self.atoms):
            return None
        wide_a, wide_b = _int64_casts(a.tree), _int64_casts(b.tree)
        if wide_a == wide_b:
            return None
        return a if wide_a > wide_b else b

    @handles_statement(cst.For)
    def for_stmt(self, node: cst.For) -> None:
        if node.orelse is not None:
            raise self.error(node, "for-else is not supported")
        if not isinstance(node.target, cst.Name):
            raise self.error(node.target, "loop over one name")
        it = node.iter
        fn = resolve(it.func, self.aliases) if isinstance(it, cst.Call) else None
        if fn not in ("range", f"{self.lang}.range", f"{self.lang}.static_range"):
            raise self.error(
                node.iter,
                f"unsupported loop `for ... in {self.src(node.iter)}`",
                "loop over range(...) or tl.range(...)",
            )
        assert isinstance(it, cst.Call)
        args, kwargs = call_args(it)
        stages = None
        for k, v in kwargs.items():
            if k == "num_stages":
                try:
                    value = literal(v)
                except ValueError:
                    value = None
                stages = value if isinstance(value, int) else None
            elif k not in (
                "loop_unroll_factor",
                "flatten",
                "warp_specialize",
                "disallow_acc_multi_buffer",
            ):
                raise self.error(v, f"unsupported loop option `{k}=`")
        first = self.ev(args[0]) if args else None
        if (
            len(args) == 3
            and isinstance(first, Idx)
            and is_sym(af.strip_casts(first.tree), SymKind.PID)
        ):
            step_val = self.ev(args[2])
            stop_val = self.ev(args[1])
            if not (
                isinstance(step_val, Idx)
                and is_sym(af.strip_casts(step_val.tree), SymKind.NUM_PROGRAMS)
            ):
                if not isinstance(stop_val, Idx) or not isinstance(step_val, Idx):
                    raise self.error(node.iter, "range bounds must be integers")
                self.persistent_tiles(node, first.tree, stop_val.tree, step_val.tree)
                return
        vals = [first] + [self.ev(a) for a in args[1:]]
        if not 1 <= len(vals) <= 3:
            raise self.error(node.iter, "range takes one to three arguments")
        trees = [self.bound_tree(a, v) for a, v in zip(args, vals, strict=True)]
        start, stop, step = (
            (ir.Const(0), trees[0], ir.Const(1))
            if len(trees) == 1
            else (trees[0], trees[1], trees[2] if len(trees) == 3 else ir.Const(1))
        )
        if self._is_persistent(start, step):
            if self.carried_names(node) and not (self.loops or self.if_depth):
                self.program_share_loop(node, start, stop, step, stages)
            else:
                self.persistent_loop(node, start, stop)
            return
        self.tile_loop(node, stop, step, stages, start)

    def bound_tree(self, arg: cst.BaseExpression, v: Val) -> ir.Expr:
        """A ``range`` bound as an index tree: integers over parameters and program ids, or a
        scalar the kernel loaded (a jagged sequence's ``offsets[b]``), which the loop reads
        as the IR local holding it."""
        if isinstance(v, Idx):
            return v.tree
        if isinstance(v, Data) and not dims_of(self.type_of(v.expr, arg)):
            return self.data_symbol(v.expr, ())
        raise self.error(
            arg,
            f"the loop bound `{self.src(arg)}` is not an integer scalar",
            "bound loops by integers: sizes, program-id offsets or scalars loaded with tl.load",
        )

    def tile_loop(
        self,
        node: cst.For,
        stop: ir.Expr,
        step: ir.Expr,
        stages: int | None,
        start: ir.Expr | None = None,
        strided_rows: bool = False,
    ) -> None:
        """``for v in range(start, stop, step)``. The bounds are index trees: ``start`` and
        ``stop`` may read program ids and loaded scalars (split-K's ``pid_k * BLOCK_K``, a
        jagged row's ``offsets[b]``); the step is the same in every program.

        ``strided_rows``: the loop visits plain indices ``start, start + step, ...`` below
        ``stop`` (a program's share of the rows), so its counter is the index itself."""
        assert isinstance(node.target, cst.Name)
        start = ir.Const(0) if start is None else start
        self.loop_count += 1
        lid = self.loop_count
        counter = Sym.loop_counter(lid).expr
        self.types.vars[counter.id] = ScalarType(ir.I32)
        step_p = af.poly(step, self.atoms)
        if any(kind_of(s) in (SymKind.PID, SymKind.DATA) for s in af.poly_symbols(step_p)):
            raise self.error(
                node.iter,
                "loop steps must not depend on the program id or on loaded values",
                "step by a size or a block size; offset the start instead",
            )
        is_unit = step_p == {(): 1}
        at_zero = af.poly(start, self.atoms) == {}
        # A unit-step loop's counter is its variable, from `start` (a scalar loop's index, or
        # the number of a tile from tile `start`); any other loop's counts iterations from 0.
        span = stop if at_zero else ir.BinOp("-", stop, start)
        trip = span if is_unit else ir.Call("cdiv", (span, step))
        loop = Loop(lid, node.target.value, trip, step, node)
        if not is_unit and not at_zero:
            loop.origin = start
        if is_unit and not at_zero:
            loop.start = start
        if strided_rows:
            var_tree: ir.Expr = counter
            iteration: ir.Expr = counter  # unused: such loops advance no pointers
        elif is_unit:
            var_tree = counter
            iteration = counter if at_zero else ir.BinOp("-", counter, start)
        else:
            var_tree = ir.BinOp("*", step, counter)
            var_tree = var_tree if at_zero else ir.BinOp("+", start, var_tree)
            iteration = counter
        # Values carried through the loop: pointers/offsets advanced by a fixed step, data.
        assigned = self.assigned_names(node.body)
        # Names the body overwrites before reading them are body locals, whatever they held
        # before the loop (an `offs_k` recomputed per iteration); only the others are carried.
        carried = {n for n in assigned if n in self.env and read_before_write(n, node.body)}
        shadowed = {n for n in assigned if n in self.env} - carried
        for n in sorted(carried):
            if isinstance(self.env[n], FlagChoice):
                raise self.error(
                    node,
                    f"`{n}` is changed under `if {self.env[n].flag}:` before this loop and again "
                    "in it",
                    f"change it in the loop under `if {self.env[n].flag}:` only, or compute it "
                    "before the branch",
                )
        steps = self.induction_steps(node, carried)
        if strided_rows and steps:
            raise self.error(
                node,
                f"`{sorted(steps)[0]}` is advanced in a loop over a program's share of the rows",
                "address each row from the loop's index (`ptr + row * stride`)",
            )
        saved_env = dict(self.env)
        self.loops.append(loop)
        entry_env = dict(self.env)
        entry_env[node.target.value] = Idx(var_tree)
        for n, d in steps.items():
            entry_env[n] = _moved(self.env[n], d, iteration)
        assumed: dict[str, frozenset] = {}
        for n in carried - set(steps):
            v = self.env[n]
            if isinstance(v, Data):
                assumed[n] = v.div
            elif isinstance(v, (Ptr, Idx, BlockPtr)):
                raise self.error(
                    node,
                    f"`{n}` is changed in the loop by more than a fixed step",
                    "advance offsets with `ptrs += BLOCK * stride` or "
                    "`bp = tl.advance(bp, steps)`, or recompute them",
                )
        # Loop-carried values: what their invalid lanes hold must be a fixpoint of the body.
        for _attempt in range(4):
            snap = self.snapshot()
            self.env = dict(entry_env)
            for n, div in assumed.items():
                v = self.env[n]
                assert isinstance(v, Data)
                self.env[n] = Data(v.expr, (), div)
            body: list[ir.Stmt] = []
            self.block(list(suite_body(node.body)), body)
            grown = False
            for n in assumed:
                v = self.env.get(n)
                if isinstance(v, Data) and not v.div <= assumed[n]:
                    assumed[n] = assumed[n] | v.div
                    grown = True
            if not grown:
                break
            self.restore(snap)
        self.loops.pop()
        tile = loop.tile
        if strided_rows:
            self.strided_index_loop(node, loop, body, start, stop, step, stages)
            self.finish_loop(saved_env, shadowed, assigned, carried, steps, trip)
            return
        if tile is None and is_unit:
            # No lanes ride on the counter: a loop of plain indices (`for c in range(n)`,
            # `for row in range(start, end)` over a jagged sequence's rows).
            name = unique(loop.var, self.taken)
            self.scalar_loops[counter.id] = name
            self.finish_loop(saved_env, shadowed, assigned, carried, steps, trip)
            tv = ir.TileVar(
                name,
                self.bound_ir(stop, node.iter),
                ir.Const(1),
                begin=None if at_zero else self.bound_ir(start, node.iter),
                scalar=True,
            )
            self.out.append(
                ir.TileLoop((tv,), tuple(body), num_stages=stages, loc=self.locate(node))
            )
            return
        if tile is None:
            raise self.error(
                node,
                f"cannot map the iterations of `for {loop.var} in ...` to a tile",
                "index the loop's lanes as `off + tl.arange(0, BLOCK)` for `range(0, n, BLOCK)`",
            )
        begin, step_ir = self.tile_bounds(tile, loop, body, node, start, stop, step, trip)
        self.finish_loop(saved_env, shadowed, assigned, carried, steps, trip)
        tv = ir.TileVar(tile.name, tile.extent, tile.block, begin=begin, step=step_ir)
        self.out.append(ir.TileLoop((tv,), tuple(body), num_stages=stages, loc=self.locate(node)))

    def strided_index_loop(
        self,
        node: cst.For,
        loop: Loop,
        body: list[ir.Stmt],
        start: ir.Expr,
        stop: ir.Expr,
        step: ir.Expr,
        stages: int | None,
    ) -> None:
        """Emit a loop of plain indices ``start, start + step, ...`` below ``stop``."""
        if loop.tile is not None:
            raise self.error(
                node,
                f"the lanes of {loop.tile.name} ride on `{loop.var}`, which steps over a "
                "program's share of the rows",
                "use the loop's index as a row and offset the lanes by a separate tl.arange",
            )
        counter = Sym.loop_counter(loop.id).expr
        name = unique(loop.var, self.taken)
        self.scalar_loops[counter.id] = name
        tv = ir.TileVar(
            name,
            self.bound_ir(stop, node.iter),
            ir.Const(1),
            # `tl.cast(pid, tl.int64)` widens the addresses the rows make: the kernel's index
            # width says so, the row index itself is the program id.
            begin=self.bound_ir(af.strip_casts(start), node.iter),
            scalar=True,
            step=self.bound_ir(af.strip_casts(step), node.iter),
        )
        self.out.append(ir.TileLoop((tv,), tuple(body), num_stages=stages, loc=self.locate(node)))

    def bound_ir(self, tree: ir.Expr, node: cst.CSTNode) -> ir.Expr:
        """A scalar loop's bound as IR: a host expression where it is one, else a device
        scalar (program ids resolved with the grid, loaded values as their locals)."""
        if all(kind_of(s) is SymKind.PARAM for s in af.symbols_in(tree)):
            return self.host_ir(tree, node)
        return simplify(self.scalar_ir(tree, node))

    def tile_bounds(
        self,
        tile: Tile,
        loop: Loop,
        body: list[ir.Stmt],
        node: cst.For,
        start: ir.Expr,
        stop: ir.Expr,
        step: ir.Expr,
        trip: ir.Expr,
    ) -> tuple[ir.Expr | None, ir.Expr | None]:
        """``begin``/``step`` of the IR loop over ``tile``, once the source loop is proved to
        visit its tiles: ``range(0, n, B)`` / ``range(0, cdiv(n, B))`` (every tile), or, for a
        strided tile (tile ``s``, ``s + S``, ...), ``range(s * B, n, B * S)`` (exactly the tiles
        in bounds) or ``range(0, cdiv(n, B * S))`` (extra iterations that must be no-ops)."""
        key = self.key_tree(tile.key)
        if tile.offset is not None or self.loaded_extent(tile):
            return self.offset_bounds(tile, node, stop, step), None
        expected = ir.Call("cdiv", (tile.extent, key))
        if af.poly(start, self.atoms) != {}:
            same = af.same_poly
            starts = tile.step is not None and tile.start is not None
            ok = (
                starts
                and same(
                    af.poly(start, self.atoms), af.poly(ir.BinOp("*", tile.start, key), self.atoms)
                )
                and same(
                    af.poly(step, self.atoms), af.poly(ir.BinOp("*", key, tile.step), self.atoms)
                )
                and all(kind_of(s) is SymKind.PARAM for s in af.symbols_in(stop))
                and self.same_host(
                    self.host_ir(stop, node.iter), self.host_ir_of_host(tile.extent), node
                )
            )
            if not ok:
                raise self.error(
                    node.iter,
                    f"the loop `{self.src(node.iter)}` starts at `{self.src(node.iter.args[0])}`"
                    f", which does not make its lanes a strided sequence of {tile.name} tiles "
                    "ending at the dim's size",
                    "loop over range(s * BLOCK, n, BLOCK * S) with lanes "
                    "`off + tl.arange(0, BLOCK)`, or over range(0, n, BLOCK) and offset inside "
                    "the loop",
                )
            return self.strided_bounds(tile, loop, body, node, exact=True)
        if tile.step is not None:
            begin, step_ir = self.strided_bounds(tile, loop, body, node)
            # cdiv(cdiv(n, B), S) tiles, however the source spells it (cdiv(n, B * S)).
            forms = [
                ir.Call("cdiv", (expected, tile.step)),
                ir.Call("cdiv", (tile.extent, ir.BinOp("*", key, tile.step))),
            ]
            trip_host = self.host_ir(trip, node.iter)
            if not any(self.same_host(trip_host, self.host_ir_of_host(f), node) for f in forms):
                raise self.error(
                    node.iter,
                    f"the loop runs `{self.src(node.iter)}` times, not "
                    f"once per {ir_text(tile.step)}-th {tile.name} tile",
                    "loop tl.cdiv(n, BLOCK * STEP) times",
                )
            return begin, step_ir
        if not self.same_host(self.host_ir(trip, node.iter), self.host_ir_of_host(expected), node):
            raise self.error(
                node.iter,
                f"the loop runs `{self.src(node.iter)}` times, not once per {tile.name} tile "
                f"(cdiv({ir_text(tile.extent)}, {tile.key}))",
                "loop over range(0, n, BLOCK) or range(0, tl.cdiv(n, BLOCK)) where the masks "
                "bound the lanes by n",
            )
        return None, None

    def finish_loop(
        self,
        saved_env: dict,
        shadowed: set[str],
        assigned: set[str],
        carried: set[str],
        steps: dict[str, ir.Expr],
        trip: ir.Expr,
    ) -> None:
        """The values after a loop: carried ones as the last iteration leaves them, advanced
        pointers moved ``trip`` times, loop locals gone."""
        after = {n: v for n, v in saved_env.items() if n not in shadowed}
        self.loop_locals |= (assigned - set(saved_env)) | shadowed
        for n in carried:
            v = self.env.get(n)
            if n in steps:
                after[n] = _moved(saved_env[n], steps[n], trip)
            elif isinstance(v, Data):
                after[n] = Data(v.expr, (), v.div)
            elif v is not None:
                after[n] = v
        self.env = after

    def strided_bounds(
        self, tile: Tile, loop: Loop, body: list[ir.Stmt], node, exact: bool = False
    ) -> tuple[ir.Expr, ir.Expr]:
        """``begin``/``step`` of a loop visiting every ``step``-th tile from tile ``start``.

        Unless ``exact`` (the source loop starts at the first tile and stops at the dim's end),
        the source runs ``cdiv(cdiv(n, B), S)`` iterations in every program; the IR loop only the
        ones whose tile is in bounds. The others load nothing (every lane masked), so they must
        change nothing: the loop may only accumulate dots over the tile whose operands pad with
        zeros, and store nothing.
        """
        assert tile.start is not None and tile.step is not None
        if not exact:
            self.no_op_overshoot(tile, loop, body)
        for text in af.symbols_in(tile.start):
            sym = parse_sym(text)
            if sym is not None and sym.kind is SymKind.PID:
                assert sym.index is not None
                self.pid_scalar_uses.add(sym.index)
                self.split_steps.append((sym.index, tile.start, tile.step, node))
            elif self.flat_digit(text) is not None:
                # A digit of a flattened grid: a plain index counting the programs that split
                # the loop's tiles, so its radix must be the step (checked with the grid).
                self.digit_scalar_uses.add(text)
                self.digit_splits.append((text, tile.start, tile.step, node))
        begin = self.scalar_ir(ir.BinOp("*", tile.start, self.key_tree(tile.key)), node)
        return simplify(begin), self.scalar_ir(tile.step, node)

    def loaded_extent(self, tile: Tile) -> bool:
        """Whether a loop tile's masks bound it by a value the kernel loads."""
        return tile.extent is not None and any(
            kind_of(s) is SymKind.DATA for s in af.symbols_in(tile.extent)
        )

    def offset_bounds(
        self, tile: Tile, node: cst.For, stop: ir.Expr, step: ir.Expr
    ) -> ir.Expr | None:
        """The begin of a loop ``range(start, end, B)`` whose lanes ``start_r + arange(B)`` are
        tiles from ``start`` (any scalar: a jagged sequence's loaded first row, or 0) up to
        ``end`` (any scalar), which the masks must bound them by."""
        assert tile.extent is not None
        ok = af.same_poly(af.poly(step, self.atoms), af.poly(self.key_tree(tile.key), self.atoms))
        if not ok or not af.same_poly(af.poly(stop, self.atoms), af.poly(tile.extent, self.atoms)):
            raise self.error(
                node.iter,
                f"the loop `{self.src(node.iter)}` does not step through whole {tile.name} "
                f"tiles up to the bound its masks check ({ir_text(tile.extent)})",
                "loop over range(start, end, BLOCK) with lanes `off + tl.arange(0, BLOCK)` "
                "masked by `< end`",
            )
        if tile.offset is None:
            return None
        loaded = self.loaded_extent(tile) or any(
            kind_of(s) is SymKind.DATA for s in af.symbols_in(tile.offset)
        )
        if not loaded:
            # Tiles from a host-known offset over a dim of host-known size: the IR's tile
            # extents are canonicalised to sizes only for tiles from 0 (a jagged loop's bounds
            # are device values and need no canonical size).
            raise self.error(
                node.iter,
                f"the loop `{self.src(node.iter)}` starts its {tile.name} tiles at "
                f"{ir_text(tile.offset)}, not at 0: not supported yet for a dim of fixed size",
                "start the loop at 0 (`range(0, n, BLOCK)`); tiles from another start are "
                "read where the bounds are values the kernel loads (jagged sequences)",
            )
        return self.bound_ir(tile.offset, node.iter)

    def no_op_overshoot(self, tile: Tile, loop: Loop, body: list[ir.Stmt]) -> None:
        """Refuse a strided loop whose iterations past the last tile would change something."""
        assert tile.step is not None
        for s in body:
            for inner in [s, *walk_stmts_of(s)]:
                if isinstance(inner, (ir.Store, ir.AtomicRMW, ir.If, ir.TileLoop)):
                    raise self.error(
                        loop.node,
                        f"the loop over `{loop.var}` visits every "
                        f"{ir_text(tile.step)}-th tile and does more than "
                        "accumulate dots: its iterations past the last tile would "
                        "not be no-ops",
                        "accumulate with tl.dot(a, b, acc) only",
                    )
        defined = {s.target for s in body if isinstance(s, ir.Assign)}
        loads = {s.target: s.value for s in body if isinstance(s, ir.Assign)}
        for s in body:
            if (
                not isinstance(s, ir.Assign)
                or s.target in loads
                and isinstance(s.value, (ir.Load, ir.Cast))
            ):
                continue
            value = s.value
            ok = (
                isinstance(value, ir.Dot)
                and value.acc == ir.Name(s.target)
                and any(_zero_padded(op, loads, tile.name) for op in (value.lhs, value.rhs))
            )
            if not ok and s.target not in defined - {s.target}:
                raise self.error(
                    loop.node,
                    f"`{s.target}` changes in a loop that visits every "
                    f"{ir_text(tile.step)}-th tile, other than by accumulating a "
                    "dot of zero-padded loads",
                    "accumulate with tl.dot(a, b, acc)",
                )

    def snapshot(self) -> tuple:
        self.inserted = getattr(self, "inserted", [])
        return (
            dict(self.env),
            set(self.taken),
            set(self.ir_locals),
            dict(self.types.vars),
            dict(self.types.tiles),
            self.loop_count,
            len(self.inserted),
        )

    def restore(self, snap: tuple) -> None:
        env, taken, ir_locals, tvars, ttiles, loop_count, inserted = snap
        self.env, self.taken, self.ir_locals = env, taken, ir_locals
        self.types.vars, self.types.tiles = tvars, ttiles
        self.loop_count = loop_count
        for stmts, stmt, _pending, _data in self.inserted[inserted:]:
            stmts.remove(stmt)
        del self.inserted[inserted:]
        self.taken |= {t.name for t in self.tiles.values()}

    def assigned_names(self, body: cst.BaseSuite) -> set[str]:
        names: set[str] = set()

        class V(cst.CSTVisitor):
            def visit_AssignTarget(self, n: cst.AssignTarget) -> None:
                for e in target_names(n.target):
                    names.add(e)

            def visit_AugAssign(self, n: cst.AugAssign) -> None:
                names.update(target_names(n.target))

            def visit_AnnAssign(self, n: cst.AnnAssign) -> None:
                names.update(target_names(n.target))

            def visit_For(self, n: cst.For) -> None:
                names.update(target_names(n.target))

        body.visit(V())
        return names

    def induction_steps(self, node: cst.For, carried: set[str]) -> dict[str, ir.Expr]:
        """Pointers/offsets the loop body advances by a loop-invariant step, once, at its end."""
        steps: dict[str, ir.Expr] = {}
        stmts = list(suite_body(node.body))
        for i, st in enumerate(stmts):
            if not isinstance(st, cst.SimpleStatementLine):
                continue
            for small in st.body:
                name, step_node = None, None
                if (
                    isinstance(small, cst.AugAssign)
                    and isinstance(small.operator, cst.AddAssign)
                    and isinstance(small.target, cst.Name)
                ):
                    name, step_node = small.target.value, small.value
                advanced = _advance_of(small, self.aliases, self.lang)
                if advanced is not None and isinstance(self.env.get(advanced[0]), BlockPtr):
                    name, step_node = advanced
                if name is None or not isinstance(self.env.get(name), (Ptr, Idx, BlockPtr)):
                    continue
                later = [s for s in stmts[i + 1 :]]
                if any(name in _names_read(s) for s in later):
                    raise self.error(
                        small,
                        f"`{name}` is read after it is advanced in the loop",
                        "advance pointers at the end of the loop body",
                    )
                if _names_read_expr(step_node) & self.assigned_names(node.body):
                    raise self.error(small, f"the step of `{name}` changes inside the loop")
                if name in steps:
                    raise self.error(small, f"`{name}` is advanced twice in the loop")
                if isinstance(self.env.get(name), BlockPtr):
                    steps[name] = ir.TupleExpr(blocks._trees(self, step_node, "offsets", small))
                    continue
                step = self.ev(step_node)
                if not isinstance(step, Idx):
                    raise self.error(small, f"`{name}` must advance by an integer step")
                steps[name] = step.tree
        return steps


def _names_read(node: cst.CSTNode) -> set[str]:
    return names_in(node)


def read_before_write(name: str, suite: cst.BaseSuite) -> bool:
    """Whether an iteration of ``suite`` may read ``name`` before assigning it (conservative:
    assignments inside nested blocks do not count as definite)."""
    for st in suite_body(suite):
        if not isinstance(st, cst.SimpleStatementLine):
            if name in _names_read(st):
                return True
            continue
        for small in st.body:
            if isinstance(small, (cst.Assign, cst.AnnAssign)):
                value = small.value
                if value is not None and name in _names_read(value):
                    return True
                targets = (
                    [t.target for t in small.targets]
                    if isinstance(small, cst.Assign)
                    else [small.target]
                )
                for t in targets:
                    if not isinstance(t, cst.Name) and name in _names_read(t):
                        return True
                if any(name in target_names(t) for t in targets):
                    return False
            elif name in _names_read(small):
                return True
    return False


def _moved(v: Val, step: ir.Expr, times: ir.Expr) -> Val:
    """``v`` advanced ``times`` times by ``step`` (a tuple of per-dim steps for block pointers)."""
    if isinstance(v, BlockPtr):
        assert isinstance(step, ir.TupleExpr)
        offsets = tuple(
            ir.BinOp("+", o, ir.BinOp("*", times, s)) for o, s in zip(v.offsets, step.items)
        )
        return dataclasses.replace(v, offsets=offsets)
    assert isinstance(v, (Ptr, Idx))
    return dataclasses.replace(v, tree=ir.BinOp("+", v.tree, ir.BinOp("*", times, step)))


def _advance_of(
    small: cst.CSTNode, aliases: dict, lang: str
) -> tuple[str, cst.BaseExpression] | None:
    """``(name, steps)`` of ``name = tl.advance(name, steps)``."""
    if not (
        isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
        and isinstance(small.value, cst.Call)
        and resolve(small.value.func, aliases) == f"{lang}.advance"
    ):
        return None
    name = small.targets[0].target.value
    args = small.value.args
    if len(args) == 2 and isinstance(args[0].value, cst.Name) and args[0].value.value == name:
        return name, args[1].value
    return None


def _zero_padded(e: ir.Expr, loads: dict[str, ir.Expr], tile: str) -> bool:
    """Whether dot operand ``e`` is a load along ``tile`` (maybe cast) whose lanes past the
    tensor read 0, so a tile wholly out of bounds contributes an exact 0."""
    while isinstance(e, (ir.Cast, ir.Permute)):
        e = e.value
    if isinstance(e, ir.Name) and e.id in loads:
        return _zero_padded(loads[e.id], {}, tile)
    return isinstance(e, ir.Load) and e.other == 0.0 and ir.TileIndex(tile) in e.index


def _nonnegative_under(test: Val, holds: bool) -> list[str]:
    """The scalar IR locals a branch test being ``holds`` proves never negative: ``x < 0``
    false, ``x >= 0`` true (``0 > x``, ``0 <= x`` alike)."""
    if not isinstance(test, Data):
        return []
    e = test.expr
    if not (isinstance(e, ir.BinOp) and e.op in ("<", ">=", ">", "<=")):
        return []
    lhs, rhs, op = e.lhs, e.rhs, e.op
    if isinstance(lhs, ir.Const):
        lhs, rhs, op = rhs, lhs, {"<": ">", ">": "<", "<=": ">=", ">=": "<="}[op]
    if not (isinstance(lhs, ir.Name) and rhs == ir.Const(0)):
        return []
    proves = (op == "<" and not holds) or (op == ">=" and holds)
    return [lhs.id] if proves else []


def _is_divisibility(e: ir.Expr) -> bool:
    """``x % b == 0``."""
    return (
        isinstance(e, ir.BinOp)
        and e.op == "=="
        and e.rhs == ir.Const(0)
        and isinstance(e.lhs, ir.BinOp)
        and e.lhs.op == "%"
    )


def _conjunction(e: ir.Expr) -> list[ir.Expr]:
    if isinstance(e, ir.BinOp) and e.op in ("&", "and"):
        return _conjunction(af.strip_casts(e.lhs)) + _conjunction(af.strip_casts(e.rhs))
    return [e]


_NO_MERGE = object()


def _merge_branches(a: tuple[ir.Stmt, ...], b: tuple[ir.Stmt, ...]) -> tuple[ir.Stmt, ...] | None:
    """One statement list computing what both branches compute, if they differ only in what
    their loads' invalid lanes read (``other=None``, "never read", against a value)."""
    merged = _merge_value(a, b)
    return None if merged is _NO_MERGE else merged  # type: ignore[return-value]


def _merge_value(a: Any, b: Any) -> Any:
    if a == b:
        return a
    if type(a) is not type(b):
        return _NO_MERGE
    if isinstance(a, tuple):
        if len(a) != len(b):
            return _NO_MERGE
        items = [_merge_value(x, y) for x, y in zip(a, b)]
        return _NO_MERGE if any(i is _NO_MERGE for i in items) else tuple(items)
    if not dataclasses.is_dataclass(a):
        return _NO_MERGE
    changes = {}
    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if not f.compare or x == y:
            continue
        if isinstance(a, ir.Load) and f.name == "other" and (x is None or y is None):
            changes[f.name] = x if y is None else y
            continue
        v = _merge_value(x, y)
        if v is _NO_MERGE:
            return _NO_MERGE
        changes[f.name] = v
    return dataclasses.replace(a, **changes)


def _names_read_expr(node: cst.CSTNode | None) -> set[str]:
    return _names_read(node) if node is not None else set()


_CONSTANT_OPS = {
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "and": lambda a, b: a and b,
    "or": lambda a, b: a or b,
    "&": lambda a, b: a & b,
    "|": lambda a, b: a | b,
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "//": lambda a, b: a // b,
    "%": lambda a, b: a % b,
}


def _dtype_text(dtype: ir.DTypeExpr) -> str:
    """``dtype`` for a diagnostic: a name, or the dtype of a tensor the kernel reads."""
    return dtype.name if isinstance(dtype, ir.DType) else "its tensor's dtype"


def _flag_values(tree: ir.Expr, holds: bool, flags: set[str]) -> list[tuple[str, bool]]:
    """See :meth:`ControlMixin.flag_values`; ``tree`` is an index tree or device expression."""
    tree = af.strip_casts(tree)
    if isinstance(tree, ir.Name):
        sym = parse_sym(tree.id)
        flag_kinds = (SymKind.PARAM, SymKind.OPAQUE)
        name = sym.name if sym is not None and sym.kind in flag_kinds else tree.id
        return [(name, holds)] if name in flags else []  # type: ignore[list-item]
    if isinstance(tree, ir.UnaryOp) and tree.op == "not":
        return _flag_values(tree.operand, not holds, flags)
    if isinstance(tree, ir.BinOp) and tree.op == "!=" and tree.rhs == ir.Const(0):
        return _flag_values(tree.lhs, holds, flags)
    if isinstance(tree, ir.BinOp) and tree.op == "==" and tree.rhs == ir.Const(0):
        return _flag_values(tree.lhs, not holds, flags)
    joint = (
        {"&": True, "and": True, "|": False, "or": False}.get(tree.op)
        if isinstance(tree, ir.BinOp)
        else None
    )
    if joint is not None and joint == holds:
        assert isinstance(tree, ir.BinOp)
        return _flag_values(tree.lhs, holds, flags) + _flag_values(tree.rhs, holds, flags)
    return []


def _constant(e: ir.Expr) -> object:
    """The value of an expression of constants (comparisons and integer arithmetic); raises
    ``KeyError`` for anything else."""
    if isinstance(e, ir.Const):
        return e.value
    if isinstance(e, ir.BinOp):
        return _CONSTANT_OPS[e.op](_constant(e.lhs), _constant(e.rhs))
    if isinstance(e, ir.UnaryOp) and e.op == "not":
        return not _constant(e.operand)
    if isinstance(e, ir.UnaryOp) and e.op == "-":
        return -_constant(e.operand)  # type: ignore[operator]
    raise KeyError(type(e).__name__)


def _names_of(stmts: list[ir.Stmt]) -> set[str]:
    """Every name ``stmts`` read or bind."""
    from translator.ir.visit import all_exprs, walk_stmts

    names = {e.id for e in all_exprs(tuple(stmts)) if isinstance(e, ir.Name)}
    names |= {s.target for s in walk_stmts(tuple(stmts)) if isinstance(s, ir.Assign)}
    return names


def _zeros(s: ir.Stmt) -> bool:
    """Whether ``s`` binds a tile of zeros (what a flag's placeholder binds)."""
    return (
        isinstance(s, ir.Assign)
        and isinstance(s.value, ir.Full)
        and isinstance(s.value.value, ir.Const)
        and s.value.value.value == 0
    )


def drop_unread_placeholders(body: tuple[ir.Stmt, ...], placeholders: set[str]) -> tuple:
    """``body`` without the placeholders of flag branches whose value nothing reads after its
    ``if`` (Liger's ``if label_smoothing > 0: smooth_loss = ...``, read only in that branch)."""
    if not placeholders:
        return body
    reads = _reads(body)

    def prune(stmts: tuple[ir.Stmt, ...]) -> tuple[ir.Stmt, ...]:
        out = []
        for s in stmts:
            if isinstance(s, ir.If):
                inside = _reads(s.body)
                unread = {name for name in placeholders if reads[name] == inside[name]}
                s = dataclasses.replace(
                    s,
                    orelse=tuple(
                        x for x in s.orelse if not (isinstance(x, ir.Assign) and x.target in unread)
                    ),
                )
            out.append(map_bodies(s, prune))
        return tuple(out)

    return prune(body)


def _reads(stmts: tuple[ir.Stmt, ...]) -> Counter[str]:
    """How many times ``stmts`` read each name."""
    from translator.ir.visit import all_exprs

    return Counter(e.id for e in all_exprs(stmts) if isinstance(e, ir.Name))


def _int64_casts(e: ir.Expr) -> int:
    """How many casts to a 64-bit integer ``e`` holds."""
    return sum(
        1
        for x in walk_expr(e)
        if isinstance(x, ir.Cast) and isinstance(x.dtype, ir.DType) and x.dtype.name == "int64"
    )
