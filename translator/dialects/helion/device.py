"""Helion device code (the body of a top-level ``hl.tile`` loop) → IR statements."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import libcst as cst

from translator.dialects.common.continues import fold_continues
from translator.dialects.cst_utils import (
    call_args,
    literal_or_none,
    resolve,
    source_of,
    statement_comments,
    target_names,
)
from translator.dialects.helion.scope import BranchRankConflict
from translator.ir import nodes as ir
from translator.ir.renaming import names_in
from translator.ir.shapes import ScalarType, TensorType, TileVarType, TypeEnv, dims_of

if TYPE_CHECKING:
    from translator.dialects.helion.frontend import EntryParser

_AUG = {
    cst.AddAssign: "+",
    cst.SubtractAssign: "-",
    cst.MultiplyAssign: "*",
    cst.DivideAssign: "/",
    cst.FloorDivideAssign: "//",
    cst.ModuloAssign: "%",
    cst.PowerAssign: "**",
    cst.BitAndAssign: "&",
    cst.BitOrAssign: "|",
    cst.BitXorAssign: "^",
    cst.LeftShiftAssign: "<<",
    cst.RightShiftAssign: ">>",
}


class DeviceParser:
    """Parses the statements of one kernel, sharing the entry's scope and expression builder."""

    def __init__(self, entry: EntryParser) -> None:
        self.entry = entry
        self.scope = entry.scope
        self.build = entry.build
        self.locate = entry.locate
        self.grammar = entry.grammar
        # A helper function the loop calls is read statement by statement, as the loop is.
        self.build.helpers.statements = self.statement

    def error(self, node: cst.CSTNode, message: str, hint: str | None = None):
        return self.entry.error(node, message, hint)

    def block(self, body: cst.BaseSuite, skip: int = 0) -> list[ir.Stmt]:
        """Parse an indented block of device statements (after the first ``skip``)."""
        if not isinstance(body, cst.IndentedBlock):
            raise self.error(body, "put device statements on their own lines")
        out: list[ir.Stmt] = []
        # A loop body's `continue`s become `if`/`else` (the IR has no jump).
        statements, made = fold_continues(body.body[skip:])
        self.locate.adopt(made)
        for node in statements:
            comments = statement_comments(node)
            self.build.pending = []
            self.build.device = True
            stmts = self.statement(node)
            stmts = self.build.pending + stmts
            self.build.pending = []
            if stmts and comments:
                import dataclasses

                stmts[0] = dataclasses.replace(stmts[0], comments=comments + stmts[0].comments)
            out.extend(stmts)
        if self.scope.replaced:
            # A lane sum's zeros, narrowed once its loop showed which dim it sums.
            out = [self.scope.replaced.pop(id(s), s) for s in out]
        return out

    def statement(self, node: cst.BaseStatement) -> list[ir.Stmt]:
        if isinstance(node, cst.For):
            return [self._loop(node)]
        if isinstance(node, cst.If):
            return [self._if(node)]
        if isinstance(node, cst.While):
            return [self._while(node)]
        if isinstance(node, cst.SimpleStatementLine):
            out: list[ir.Stmt] = []
            for small in node.body:
                out.extend(self.small(small))
            return out
        raise self.error(
            node,
            f"unsupported device statement `{source_of(node).strip().splitlines()[0]}`",
            "device code may assign, store, loop over hl.tile or while a scalar test holds, and "
            "branch on scalars",
        )

    def small(self, node: cst.BaseSmallStatement) -> list[ir.Stmt]:
        loc = self.locate(node)
        if isinstance(node, cst.Assign):
            if len(node.targets) != 1:
                raise self.error(node, "chained assignment is not supported")
            target = node.targets[0].target
            return self._assign(target, node.value, node)
        if isinstance(node, cst.AnnAssign) and node.value is not None:
            return self._assign(node.target, node.value, node)
        if isinstance(node, cst.AugAssign):
            op = _AUG.get(type(node.operator))
            if op is None:
                raise self.error(node, "unsupported augmented assignment")
            target = node.target
            if isinstance(target, cst.Name):
                current = self.build.expr(target)
                rhs = self.build.expr(node.value)
                summed = self._lane_sum(target.value, op, current, rhs, node)
                if summed is not None:
                    return [summed]
                value = ir.BinOp(op, current, rhs, loc=loc)
                return [self._bind(target.value, value, node)]
            if isinstance(target, cst.Subscript):
                current = self.build.expr(target)
                value = ir.BinOp(op, current, self.build.expr(node.value), loc=loc)
                return [self._store(target, value, node)]
            raise self.error(node, "unsupported augmented assignment target")
        if isinstance(node, cst.Expr) and isinstance(node.value, cst.Call):
            if self.build.is_helper_call(node.value):
                self.build.inline_statement(node.value)  # its statements are pending
                return []
            return [self._call_stmt(node.value)]
        if isinstance(node, cst.Expr) and isinstance(
            node.value, (cst.SimpleString, cst.ConcatenatedString)
        ):
            return []
        if isinstance(node, cst.Pass):
            return []
        raise self.error(node, f"unsupported device statement `{source_of(node).strip()}`")

    def _assign(
        self, target: cst.BaseExpression, value_node: cst.BaseExpression, node: cst.CSTNode
    ) -> list[ir.Stmt]:
        if isinstance(target, cst.Subscript):
            return [self._store(target, self.build.expr(value_node), node)]
        if isinstance(target, cst.Name) and self._is_dtype(value_node):
            self._dtype_alias(target.value, value_node, node)
            return []
        if isinstance(target, cst.Name):
            return [self._bind(target.value, self.build.expr(value_node), node)]
        if isinstance(target, (cst.Tuple, cst.List)) and isinstance(
            value_node, (cst.Tuple, cst.List)
        ):
            names = [e.value for e in target.elements]
            values = [self.build.expr(e.value) for e in value_node.elements]
            if len(names) != len(values) or not all(isinstance(n, cst.Name) for n in names):
                raise self.error(node, "unpack tuples of equal length into names")
            kept = [(n.value, v) for n, v in zip(names, values) if not _discarded(n)]  # type: ignore[union-attr]
            bound = {n for n, _ in kept}
            stmts: list[ir.Stmt] = []
            if any(names_in(v) & bound for _, v in kept):
                # `a, b = b, a`: Python computes every value before it binds any target, so
                # values that read a target are copied first.
                copies = []
                for n, v in kept:
                    copy = self.scope.fresh(f"{n}_next")
                    stmts.append(self._bind(copy, v, node))
                    copies.append((n, ir.Name(copy, loc=self.locate(node))))
                kept = copies
            return stmts + [self._bind(n, v, node) for n, v in kept]
        if isinstance(target, (cst.Tuple, cst.List)) and isinstance(value_node, cst.Call):
            values = self.build.tuple_call(value_node)
            names = [e.value for e in target.elements]
            if values is not None:
                if len(names) != len(values) or not all(isinstance(n, cst.Name) for n in names):
                    raise self.error(node, f"unpack the {len(values)} values into names")
                # Every value computed before any target is bound (`row, mu = var_mean(row)`
                # reads `row` after its first result rebinds it, otherwise).
                kept = [(n, v) for n, v in zip(names, values) if not _discarded(n)]
                bound = {n.value for n, _ in kept}  # type: ignore[union-attr]
                if self.build.is_helper_call(value_node) and not any(
                    names_in(v) & bound for _, v in kept
                ):
                    # An inlined helper's values read none of the targets: bound as they are.
                    return [self._bind(n.value, v, node) for n, v in kept]  # type: ignore[union-attr]
                temps = [self.build.bind_temp("var_mean_out", v, node) for _, v in kept]
                stmts = self.build.pending
                self.build.pending = []
                return stmts + [
                    self._bind(n.value, v, node)  # type: ignore[union-attr]
                    for (n, _), v in zip(kept, temps)
                ]
            # Not a call of a tuple: the diagnostic of the call itself, where it has one.
            self.build.expr(value_node)
            raise self.error(
                node,
                f"`{source_of(value_node.func)}(...)` returns one value, unpacked into "
                f"{len(names)} names",
                "bind it to one name",
            )
        raise self.error(node, f"unsupported assignment target `{source_of(target)}`")

    def _bound_once(self, name: str) -> bool:
        """Whether the kernel function binds ``name`` in one statement only."""
        from translator.dialects.helion.loops import bindings  # loops imports this module

        return bindings(self.entry.fn, name) == 1

    def _is_dtype(self, node: cst.BaseExpression) -> bool:
        """Whether ``node`` names a dtype (``x.dtype``, ``torch.float32``) rather than a value."""
        if isinstance(node, cst.Attribute) and node.attr.value == "dtype":
            return True
        return self.build.qualname(node) in self.grammar["frontend"]["dtypes"]

    def _dtype_alias(self, name: str, value: cst.BaseExpression, node: cst.CSTNode) -> None:
        """``dtype = x.dtype`` in device code: no value of the kernel, a name later
        ``.to(dtype)`` / ``hl.zeros(..., dtype=dtype)`` read as the dtype it names."""
        if not self._bound_once(name) or name in self.scope.env.vars:
            # Bound again (in a branch, a loop): which dtype a later read names depends on
            # the path taken, which the IR's static dtypes cannot say.
            raise self.error(
                node,
                f"`{name}` is bound to a dtype here and to other values elsewhere",
                f"bind `{name}` once, or write the dtype (`{source_of(value)}`) where it is read",
            )
        self.scope.dtype_aliases[name] = self.build.dtype(value)

    def _lane_sum(
        self, name: str, op: str, current: ir.Expr, rhs: ir.Expr, node: cst.CSTNode
    ) -> ir.Stmt | None:
        """``acc += x[tile_m, tile_n]`` into ``acc = hl.zeros([tile_m, block_n])``: the dim
        of ``block_n`` lanes holds a partial sum per lane, which only its sum after the loop
        reads. The IR adds each tile's sum instead (a per-lane sum is no tile of the IR), and
        the zeros lose that dim. ``None`` where ``acc += v`` is no such sum."""
        known = self.scope.lane_sums.get(name)
        definition = self.scope.lane_sum_defs.get(name)
        if op != "+" or (known is None and definition is None):
            return None
        ct, rt = self.build.type_of(current, node), self.build.type_of(rhs, node)
        cdims, rdims = dims_of(ct), dims_of(rt)
        if known is not None:
            axis, rank = known
            if len(rdims) != rank or not isinstance(rdims[axis], ir.BlockDim):
                raise self.error(node, f"`{name}` sums the lanes of one dim; add tiles of it")
        else:
            axes = [
                a
                for a, (c, r) in enumerate(zip(cdims, rdims))
                if isinstance(c, ir.FullDim) and isinstance(r, ir.BlockDim)
                and isinstance(c.extent, ir.Name)
                and c.extent.id in self.scope.registered_blocks.values()
            ]  # fmt: skip
            if len(cdims) != len(rdims) or len(axes) != 1:
                return None
            axis, rank = axes[0], len(cdims)
            assert definition is not None
            full = definition.value
            assert isinstance(full, ir.Full)
            narrowed = dataclasses.replace(full, shape=full.shape[:axis] + full.shape[axis + 1 :])
            self.scope.replaced[id(definition)] = dataclasses.replace(definition, value=narrowed)
            self.scope.lane_sums[name] = (axis, rank)
            self.scope.env.vars[name] = self.build.type_of(narrowed, node)
        total = ir.Reduce("sum", rhs, axis, False, loc=self.locate(node))
        value = ir.BinOp("+", ir.Name(name), total, loc=self.locate(node))
        t = self.build.type_of(value, node)
        self.scope.env.vars[name] = t
        return ir.Assign(name, value, loc=self.locate(node))

    def _bind(self, name: str, value: ir.Expr, node: cst.CSTNode) -> ir.Stmt:
        old = self.scope.env.vars.get(name)
        if isinstance(old, (TensorType, TileVarType)):
            raise self.error(
                node,
                f"cannot rebind `{name}` inside a kernel",
                "use a new name for the device value",
            )
        if name in self.scope.lane_names:
            raise self.error(
                node,
                f"cannot rebind `{name}`: it spans the lanes of a strided tile loop",
                "use a new name for the device value",
            )
        t = self.build.type_of(value, node)
        self.scope.env.vars[name] = t
        self.scope.used_names.add(name)
        self.build.pads.bind(name, value)
        stmt = ir.Assign(name, value, loc=self.locate(node))
        self.scope.lane_sums.pop(name, None)
        self.scope.lane_sum_defs.pop(name, None)
        self.scope.block_names.pop(name, None)
        self.scope.device_scalars.pop(name, None)
        if not dims_of(t) and self._bound_once(name):
            # `n_begin = tile_n.begin + N`: a slice bound may name it (indexing.py).
            self.scope.device_scalars[name] = value
        if isinstance(value, ir.TileAttr) and value.attr == "block_size":
            self.scope.block_names[name] = value.tile
        if (
            isinstance(value, ir.Full)
            and isinstance(value.value, ir.Const)
            and value.value.value == 0
        ):
            self.scope.lane_sum_defs[name] = stmt  # zeros that may turn out a per-lane sum
        return stmt

    def _store(self, target: cst.Subscript, value: ir.Expr, node: cst.CSTNode) -> ir.Stmt:
        name = target.value.value if isinstance(target.value, cst.Name) else None
        if name in self.scope.rank_conflicts:
            line, ranks = self.scope.rank_conflicts[name]
            spelt = " or ".join(f"{r}-d" for r in ranks)
            raise BranchRankConflict(
                f"`{name}` is allocated {spelt} by the branches of the host statement at line "
                f"{line}: a kernel's tensor has one rank, whichever branch ran",
                self.locate(node),
                "allocate it with one rank in every branch, a column per row for the row sums "
                "(`torch.zeros((m, 1), ...)`), and store them as one (`out[tile_m, 0] = ...`)",
                self.scope.rank_choices.get(name),
            )
        if not isinstance(target.value, cst.Name) or not self.scope.is_tensor(target.value.value):
            raise self.error(
                node, f"stores must write a host tensor, not `{source_of(target.value)}`"
            )
        tensor = target.value.value
        index = self.build.index_items(tensor, target.slice, node)
        self.build.type_of(value, node)
        store = ir.Store(tensor, index, value, loc=self.locate(node))
        self.build.check_lane_mask(store, None, node)
        return store

    def _call_stmt(self, call: cst.Call) -> ir.Stmt:
        fn = resolve(call.func, self.entry.aliases) or ""
        lang = {v: k for k, v in self.grammar["frontend"]["language"].items()}
        op = self.grammar["frontend"]["atomics"].get(fn)
        name = lang.get(fn) or (fn.rsplit(".", 1)[-1] if op is not None else None)
        args, kwargs = call_args(call)
        if name == "store" or op is not None:
            tensor = args[0] if args else None
            index = args[1] if len(args) > 1 else kwargs.get("index")
            value = args[2] if len(args) > 2 else kwargs.get("value")
            if not isinstance(tensor, cst.Name) or not self.scope.is_tensor(tensor.value):
                raise self.error(call, f"hl.{name} needs a host tensor first")
            if not isinstance(index, (cst.List, cst.Tuple)) or value is None:
                raise self.error(call, f"hl.{name}(tensor, [indices], value)")
            allowed = (
                ("index", "value", "extra_mask") if name == "store" else ("index", "value", "sem")
            )
            for key in kwargs:
                if key not in allowed:
                    raise self.error(call, f"hl.{name}({key}=...) is not supported yet")
            items = self.build.index_items(tensor.value, [e.value for e in index.elements], call)
            v = self.build.expr(value)
            if name == "store":
                store = ir.Store(tensor.value, items, v, loc=self.locate(call))
                self.build.check_lane_mask(store, kwargs.get("extra_mask"), call)
                return store
            # Atomics take no mask: through the lanes of an hl.arange they would touch memory
            # past the extent (the mask check refuses that).
            atomic = ir.AtomicRMW(op, tensor.value, items, v, loc=self.locate(call))
            self.build.check_lane_mask(atomic, None, call)
            return atomic
        raise self.error(
            call,
            f"unsupported call statement `{source_of(call)}`",
            "device code may call hl.store or hl.atomic_* as statements; assign other values",
        )

    def _loop(self, node: cst.For) -> ir.Stmt:
        if node.orelse is not None:
            raise self.error(node, "for-else is not supported")
        lanes = self._lane_loop(node)
        if lanes is not None:
            tiles: tuple[ir.TileVar, ...] = (lanes[0],)
        else:
            tiles = self.entry.tile_vars(node, top_level=False)
        inner = self.scope.env.child()
        for t in tiles:
            inner.bind_tile(t)
        saved_lanes = dict(self.scope.lane_names)
        skip = 0
        if lanes is not None:
            tile, names, skip = lanes
            self.scope.lane_tiles[tile.name] = tile
            self.scope.lane_names.update(names)
        body = self._loop_body(node.body, inner, skip)
        self.scope.lane_names = saved_lanes
        return ir.TileLoop(tiles, tuple(body), loc=self.locate(node))

    def _while(self, node: cst.While) -> ir.Stmt:
        """``while test:`` over what the program computes (a stream-K program's walk over its
        iterations); the values it rebinds (0-d tensors, as Helion carries them) are carried."""
        if node.orelse is not None:
            raise self.error(node, "while-else is not supported", "move the else part after it")
        test = self.build.expr(node.test)
        if isinstance(self.build.type_of(test, node.test), TensorType):
            raise self.error(node.test, "a while condition must be a scalar")
        body = self._loop_body(node.body, self.scope.env.child())
        return ir.While(test, tuple(body), loc=self.locate(node))

    def _loop_body(self, suite: cst.BaseSuite, inner: TypeEnv, skip: int = 0) -> list[ir.Stmt]:
        """A loop's body in scope ``inner`` (after its first ``skip`` statements): values
        assigned in it and defined before it are loop-carried and keep their types after it."""
        assigned = _assigned_names(suite)
        # A value carried around the loop may hold what an earlier iteration left.
        self.build.pads.forget(assigned)
        outer = self.scope.env
        self.scope.env = inner
        saved_pending = self.build.pending
        body = self.block(suite, skip=skip)
        self.build.pending = saved_pending
        self.build.device = True
        self.scope.env = outer
        for name, t in inner.vars.items():
            if name in outer.vars:
                outer.vars[name] = t
        self.build.pads.forget(assigned)
        return body

    def _lane_loop(self, node: cst.For) -> tuple[ir.TileVar, dict[str, ir.Expr], int] | None:
        """The Helion backend's strided tile loop, as one tile variable with a ``step``:

        ``for start_k in hl.grid(begin, end, block * step):`` whose body starts with
        ``offs_k = start_k + hl.arange(block)`` (and optionally ``mask_k = offs_k < end``).

        Returns the tile (named after ``offs_k``: ``tile_k``), what the names stand for, and how
        many leading statements that took; ``None`` for any other loop.
        """
        it = node.iter
        lang = self.grammar["frontend"]["language"]
        if not (
            isinstance(it, cst.Call)
            and resolve(it.func, self.entry.aliases) == lang["grid"]
            and isinstance(node.target, cst.Name)
            and isinstance(node.body, cst.IndentedBlock)
            and node.body.body
        ):
            return None
        first = _simple_assign(node.body.body[0])
        if first is None:
            return None
        offs, value = first
        start = node.target.value
        if not (
            isinstance(value, cst.BinaryOperation)
            and isinstance(value.operator, cst.Add)
            and isinstance(value.left, cst.Name)
            and value.left.value == start
            and isinstance(value.right, cst.Call)
            and resolve(value.right.func, self.entry.aliases) == lang["arange"]
        ):
            return None
        args, kwargs = call_args(it)
        step_node = args[2] if len(args) == 3 else kwargs.get("step")
        if len(args) not in (2, 3) or step_node is None or set(kwargs) - {"step"}:
            raise self.error(
                it,
                "a strided tile loop walks `hl.grid(begin, end, step)`",
                "write `for start in hl.grid(begin, end, block * step):`",
            )
        arange_args, arange_kwargs = call_args(value.right)
        if len(arange_args) != 1 or arange_kwargs:
            raise self.error(value.right, "hl.arange(block) takes the block size alone")
        block = self._lane_block(arange_args[0])
        begin = self.build.expr(args[0])
        end = self.build.expr(args[1])
        step = self._lane_step(self.build.expr(step_node), block, step_node)
        base = offs[len("offs_") :] if offs.startswith("offs_") and len(offs) > 5 else offs
        tile = ir.TileVar(
            self.scope.fresh("tile_" + base),
            end,
            block,
            None if begin == ir.Const(0) else begin,
            step=step,
        )
        self.scope.used_names.update((offs, start))
        names: dict[str, ir.Expr] = {
            start: ir.TileAttr(tile.name, "begin"),
            offs: ir.TileAttr(tile.name, "index"),
        }
        skip = 1
        second = _simple_assign(node.body.body[1]) if len(node.body.body) > 1 else None
        if second is not None:
            mask, test = second
            if (
                isinstance(test, cst.Comparison)
                and len(test.comparisons) == 1
                and isinstance(test.comparisons[0].operator, cst.LessThan)
                and isinstance(test.left, cst.Name)
                and test.left.value == offs
                and self.build.expr(test.comparisons[0].comparator) == end
            ):
                names[mask] = ir.BinOp("<", ir.TileAttr(tile.name, "index"), end)
                self.scope.used_names.add(mask)
                skip = 2
        return tile, names, skip

    def _lane_block(self, node: cst.BaseExpression) -> str | ir.Const:
        value = literal_or_none(node)
        if isinstance(value, int):
            return ir.Const(value)
        if isinstance(node, cst.Name) and node.value in self.scope.registered_blocks:
            return self.scope.registered_blocks[node.value]
        raise self.error(
            node, "the block of a strided tile loop must be an int or hl.register_block_size(...)"
        )

    def _lane_step(self, step: ir.Expr, block: str | ir.Const, node: cst.CSTNode) -> ir.Expr | None:
        """``block * s`` → ``s`` (tiles skipped per iteration); ``block`` alone → no step."""
        spelt = ir.Name(block) if isinstance(block, str) else block
        if step == spelt:
            return None
        if isinstance(step, ir.BinOp) and step.op == "*":
            if step.lhs == spelt:
                return step.rhs
            if step.rhs == spelt:
                return step.lhs
        raise self.error(
            node,
            "the step of a strided tile loop must be its block size times "
            "the number of tiles it advances",
            "write `hl.grid(begin, end, block * step)` with the block of hl.arange",
        )

    def _if(self, node: cst.If) -> ir.Stmt:
        test = self.build.expr(node.test)
        saved = self.build.pending
        outer = self.scope.env
        before = dict(self.scope.branch_only)
        self.scope.env = outer.child()
        body = self.block(node.body)
        body_env = self.scope.env
        self.scope.env = outer.child()
        orelse: list[ir.Stmt] = []
        if isinstance(node.orelse, cst.Else):
            orelse = self.block(node.orelse.body)
        elif isinstance(node.orelse, cst.If):
            orelse = [self._if(node.orelse)]
        else_env = self.scope.env
        self.scope.env = outer
        if node.orelse is not None:
            # A name both branches bind, to one type, lives on after the `if`.
            for name, t in body_env.vars.items():
                if name not in outer.vars and else_env.vars.get(name) == t:
                    outer.vars[name] = t
        # A name only one branch binds has no value after the `if` on the other path: a later
        # read says where it was bound (Helion's KL divergence binds `y_true_exp` under
        # `if log_target:` and reads it under another `if log_target:`).
        test_text = " ".join(source_of(node.test).split())
        line = self.locate(node).line
        for name in set(body_env.vars) | set(else_env.vars):
            if name in outer.vars:
                continue
            sides = (body_env.vars.get(name), else_env.vars.get(name))
            inner = self.scope.branch_only.get(name)
            if None in sides and inner is not None and inner != before.get(name):
                continue  # a nested `if` (an `elif`) left it without one value: its reason
            if None in sides:
                why = f"is bound on one side of `if {test_text}:` (line {line}) only"
            else:
                kinds = " and ".join(_type_words(t) for t in sides)
                why = f"is bound to {kinds} by the two sides of `if {test_text}:` (line {line})"
            self.scope.branch_only[name] = why
        self.build.pending = saved
        self.build.device = True
        # After the branch a value may hold either side's padding.
        self.build.pads.forget(_assigned_names(node))
        return ir.If(test, tuple(body), tuple(orelse), loc=self.locate(node))


def _type_words(t: object) -> str:
    """A value's type as a diagnostic says it: ``an int32 scalar``, ``a float32 tile``."""
    dtype = getattr(t, "dtype", None)
    what = "scalar" if isinstance(t, ScalarType) else "tile"
    if isinstance(dtype, ir.DTypeOf):
        return f"a {what} of `{dtype.tensor}`'s dtype"
    words = f"{getattr(dtype, 'name', dtype)} {what}"
    return f"{'an' if words[0] in 'aeiou' else 'a'} {words}"


def _discarded(target: cst.BaseExpression) -> bool:
    """Whether an unpacking target is ``_``: the value it would take is not read, and a device
    value nothing reads is not computed."""
    return isinstance(target, cst.Name) and target.value == "_"


def _simple_assign(node: cst.BaseStatement) -> tuple[str, cst.BaseExpression] | None:
    """``(name, value)`` of a statement line that is one ``name = value``."""
    if not (isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1):
        return None
    small = node.body[0]
    if not (
        isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
    ):
        return None
    return small.targets[0].target.value, small.value


def _assigned_names(node: cst.CSTNode) -> set[str]:
    """Every name a statement (or block) binds, nested blocks included."""
    names: set[str] = set()

    class Visitor(cst.CSTVisitor):
        def visit_AssignTarget(self, n: cst.AssignTarget) -> None:
            names.update(target_names(n.target))

        def visit_AugAssign(self, n: cst.AugAssign) -> None:
            names.update(target_names(n.target))

        def visit_AnnAssign(self, n: cst.AnnAssign) -> None:
            names.update(target_names(n.target))

    node.visit(Visitor())
    return names
