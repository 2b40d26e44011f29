"""The TileLang lifter's grid and loop tiles: ``T.Kernel`` extents (and the persistent form,
``T.Persistent`` over the grid), the tile variables of ``T.Pipelined``/``T.serial`` loops
(split-K's strided ones included), and the host-side sizes they count (tensor sizes, scalars
the launch passes), mixed into :class:`~translator.dialects.tilelang.frontend.KernelLifter`."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import libcst as cst

from translator.dialects.cst_utils import bound_names, call_args, name_nodes, source_of
from translator.dialects.tilelang.factory import decided
from translator.dialects.tilelang.model import (
    BINOPS,
    SEQUENTIAL_LOOPS,
    cst_text,
    ir_scalar_type,
    is_docstring,
    is_product,
    offset_start,
    strided_start,
)
from translator.ir import nodes as ir


class GridTiles:
    """Reading the grid, the loops' tile variables and the sizes they count."""

    def kernel_grid(self, node: cst.With) -> list[ir.TileVar]:
        if len(node.items) != 1:
            raise self.error(node, "one `T.Kernel(...)` per prim_func is read")
        item = node.items[0]
        call = item.item
        if not (isinstance(call, cst.Call) and self.role(call.func) == "kernel"):
            raise self.error(node, "a prim_func body is one `with T.Kernel(...) as (bx, ...):`")
        pos, kw = call_args(call)
        names: list[str] = []
        target = item.asname.name if item.asname else None
        if isinstance(target, cst.Name):
            names = [target.value]
        elif isinstance(target, (cst.Tuple, cst.List)):
            for el in target.elements:
                if not isinstance(el.value, cst.Name):
                    raise self.error(el.value, "grid indices are bound to plain names")
                names.append(el.value.value)
        if len(names) != len(pos):
            raise self.error(call, "bind one name per T.Kernel extent (`as (bx, by)`)")
        for key in kw:
            if key not in ("threads", "is_cpu", "prelude"):
                raise self.error(call, f"T.Kernel's `{key}=` is not read")
        threads = kw.get("threads")
        if threads is not None:
            if isinstance(threads, cst.Name) and threads.value in self.fac.params:
                self.tunable(threads.value, "num_warps", threads, scale=32)
                self.tunables["num_warps"] = self.tunables.pop(threads.value)
                self.factory_param["num_warps"] = threads.value
                self.threads = threads.value
            elif isinstance(threads, cst.Integer):
                self.tunables["num_warps"] = ir.Tunable(
                    "num_warps", "num_warps", max(1, int(threads.value) // 32)
                )
            else:
                raise self.error(threads, "threads= is a literal or a factory parameter")
        persistent = self.persistent_grid(node, names, pos)
        if persistent is not None:
            return persistent
        grid = []
        for name, extent in zip(names, pos):
            split = self.flattened_axis(node, name, extent)
            if split is not None:
                # Reversed below with the rest: the row tile first, as the IR grid's order.
                grid += [self.tile_var(split[1], split[3]), self.tile_var(split[0], split[2])]
                continue
            grid.append(self.tile_var(name, extent))
        return list(reversed(grid))

    def flattened_axis(
        self, node: cst.With, name: str, extent: cst.BaseExpression
    ) -> tuple[str, str, cst.BaseExpression, cst.BaseExpression] | None:
        """A grid axis counting ``T.ceildiv(M, bM) * T.ceildiv(N, bN)`` programs that the body
        splits back into two tile indices, ``m = bx // T.ceildiv(N, bN)`` and ``n = bx %
        T.ceildiv(N, bN)`` (top-level statements, the divisor spelled as in the extent, ``bx``
        read nowhere else): the two grid tiles ``m`` (over M by bM) and ``n`` (over N by bN),
        one program per pair as the flat index is, those statements dropped
        (:attr:`flat_bindings`). None for any other axis."""
        if not (
            isinstance(extent, cst.BinaryOperation)
            and isinstance(extent.operator, cst.Multiply)
            and self.is_ceildiv(extent.left)
            and self.is_ceildiv(extent.right)
        ):
            return None
        per_row = source_of(extent.right)
        found: dict[str, tuple[str, cst.Assign]] = {}
        for stmt in node.body.body:
            small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) else None
            if not (
                isinstance(small, cst.Assign)
                and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Name)
                and isinstance(small.value, cst.BinaryOperation)
                and isinstance(small.value.left, cst.Name)
                and small.value.left.value == name
                and source_of(small.value.right) == per_row
            ):
                continue
            op = {cst.FloorDivide: "//", cst.Modulo: "%"}.get(type(small.value.operator))
            if op is not None and op not in found:
                found[op] = (small.targets[0].target.value, small)
        if set(found) != {"//", "%"}:
            return None
        reads = sum(1 for n in _names_list(node.body) if n == name)
        targets = [found["//"][0], found["%"][0]]
        if reads != 2 or any(
            sum(1 for n in _bound_list(node.body) if n == t) != 1 for t in targets
        ):
            return None  # the flat index is read otherwise, or a tile index is rebound
        self.flat_bindings |= {id(found["//"][1]), id(found["%"][1])}
        return targets[0], targets[1], extent.left, extent.right

    def persistent_grid(
        self, node: cst.With, names: list[str], extents: list[cst.BaseExpression]
    ) -> list[ir.TileVar] | None:
        """The grid of a persistent kernel: ``with T.Kernel(num_sms) as block_id`` whose body
        is allocations and one ``for bx, by in T.Persistent([T.ceildiv(M, block_M), ...],
        num_sms, block_id)`` loop. Each program takes the tiles ``block_id``, ``block_id +
        num_sms``, ... of the domain, so together they run the loop body once per tile: the IR's
        grid over the domain (its first dim outermost), with the schedule as a hint
        (``persistent_interleaved``); the program count is the launch's business."""
        loops = [
            s
            for s in node.body.body
            if isinstance(s, cst.For)
            and isinstance(s.iter, cst.Call)
            and self.role(s.iter.func) == "persistent"
        ]
        if not loops:
            return None
        loop = loops[0]
        others = [
            s
            for s in node.body.body
            if s is not loop and not is_docstring(s) and not self.is_allocation(s)
        ]
        if len(names) != 1 or len(loops) != 1 or others:
            raise self.error(
                others[0] if others else loop,
                "a persistent kernel is `with T.Kernel(num_sms) as block_id:` holding "
                "allocations and one T.Persistent loop",
                "move per-tile work into the T.Persistent loop",
            )
        pos, kw = call_args(loop.iter)  # type: ignore[arg-type]
        domain = kw.get("domain", pos[0] if pos else None)
        wave = kw.get("wave_size", pos[1] if len(pos) > 1 else None)
        index = kw.get("index", pos[2] if len(pos) > 2 else None)
        if (
            not isinstance(domain, (cst.List, cst.Tuple))
            or wave is None
            or source_of(wave).strip() != source_of(extents[0]).strip()
            or not (isinstance(index, cst.Name) and index.value == names[0])
        ):
            raise self.error(
                loop.iter,
                "T.Persistent(domain, wave_size, index) is read with the T.Kernel's program "
                "count as wave_size and its index as index",
                f"write T.Persistent([...], {source_of(extents[0]).strip()}, {names[0]})",
            )
        target = loop.target
        tiles = (
            [target] if isinstance(target, cst.Name) else [e.value for e in target.elements]  # type: ignore[union-attr]
        )
        if len(tiles) != len(domain.elements) or not all(isinstance(t, cst.Name) for t in tiles):
            raise self.error(target, "bind one name per T.Persistent domain dim")
        grid = [
            self.tile_var(t.value, el.value)  # type: ignore[union-attr]
            for t, el in zip(tiles, domain.elements)
        ]
        self.persistent = loop
        return grid

    def is_allocation(self, s: cst.BaseStatement) -> bool:
        small = s.body[0] if isinstance(s, cst.SimpleStatementLine) else None
        return (
            isinstance(small, cst.Assign)
            and isinstance(small.value, cst.Call)
            and self.role(small.value.func) in ("alloc_shared", "alloc_fragment", "alloc_local")
        )

    def tile_var(self, name: str, count: cst.BaseExpression) -> ir.TileVar:
        """The grid tile variable ``name`` counting ``count`` tiles: ``T.ceildiv(E, B)`` tiles
        of ``B`` over ``E``, or ``E`` single indices. A factory local bound to a tile count
        (``NV = tl.cdiv(DV, BV)``, the linear-attention examples) counts those tiles."""
        if isinstance(count, cst.Name) and self.is_ceildiv(self.fac.locals.get(count.value)):
            count = self.fac.locals[count.value]
        if self.is_ceildiv(count):
            pos, _ = call_args(count)  # type: ignore[arg-type]
            tile = ir.TileVar(name, self.size_expr(pos[0]), self.block_of(name, pos[1]))
        else:
            tile = ir.TileVar(name, self.size_expr(count), ir.Const(1), scalar=True)
        self.tiles[name] = tile
        return tile

    def is_ceildiv(self, node: cst.BaseExpression | None) -> bool:
        return (
            isinstance(node, cst.Call)
            and self.role(node.func) == "ceildiv"
            and len(call_args(node)[0]) == 2
        )

    def block_of(self, name: str, block: cst.BaseExpression) -> str | ir.Const:
        """The IR block of tile ``name``, whose block size the source spells ``block`` (a
        factory parameter, a tunable, a literal, or a factory local or module name bound to
        one); ``name`` is recorded as a tile of it."""
        if isinstance(block, cst.Name) and block.value in self.fac.locals:
            # A factory constant (`group_size = 128`): its value, as `dim` reads its buffers.
            # Recorded under its own name too: `BK = BV = 64` tile two dims, which the buffers
            # shaped `(chunk_size, BK)` and `(chunk_size, BV)` tell apart by name.
            out = self.block_of(name, self.fac.locals[block.value])
            if isinstance(self.fac.locals[block.value], cst.Integer):
                tiles = self.block_tiles.setdefault(block.value, [])
                if name not in tiles:
                    tiles.append(name)
            return out
        if isinstance(block, cst.Name) and block.value in self.fac.params:
            self.tunable(block.value, "block_size", block)
            key, out = block.value, block.value
        elif isinstance(block, cst.Name) and block.value in self.mod.module_ints:
            # A module constant the factory does not shadow: the buffers name it (`dim`).
            key, out = block.value, ir.Const(self.mod.module_ints[block.value])
        elif isinstance(block, cst.Integer):
            key, out = block.value, ir.Const(int(block.value))
        else:
            raise self.error(
                block,
                f"the block size `{source_of(block)}` is no factory parameter or literal",
                "pass block sizes as parameters of the @tilelang.jit factory",
            )
        tiles = self.block_tiles.setdefault(key, [])
        if name not in tiles:
            tiles.append(name)
        return out

    def size_expr(self, node: cst.BaseExpression) -> ir.Expr:
        """:meth:`host_expr` of an extent: a size the launch passes is an ``int``."""
        if self.passed_size(node):
            return self.scalar_param(node, size=True)  # type: ignore[arg-type]
        return self.host_expr(node)

    def passed_size(self, node: cst.BaseExpression) -> bool:
        """Whether ``node`` names a size the launch passes that is no tensor's size here."""
        return (
            isinstance(node, cst.Name)
            and node.value not in self.fac.sizes
            and node.value not in self.fac.locals
            and self.passed_variable(node.value)
        )

    def shape_entry(self, node: cst.BaseExpression) -> ir.SizeOf | None:
        """``x_shape[d]`` of a ``T.StridedTensor`` shape parameter: the size of ``x``'s dim."""
        if not (
            isinstance(node, cst.Subscript)
            and isinstance(node.value, cst.Name)
            and node.value.value in self.fac.shapes
            and len(node.slice) == 1
            and isinstance(node.slice[0].slice, cst.Index)
            and isinstance(node.slice[0].slice.value, cst.Integer)
        ):
            return None
        return ir.SizeOf(self.fac.shapes[node.value.value], int(node.slice[0].slice.value.value))

    def host_expr(self, node: cst.BaseExpression) -> ir.Expr:
        """A size expression over factory parameters (sizes of tensors) and literals."""
        size = self.shape_entry(node)
        if size is not None:
            return size
        if isinstance(node, cst.Name):
            if node.value in self.fac.sizes:
                tensor, dim = self.fac.sizes[node.value]
                return ir.SizeOf(tensor, dim)
            if node.value in self.fac.runtime_scalars:
                return ir.Name(node.value)
            if node.value in self.fac.locals:
                return self.host_expr(self.fac.locals[node.value])
            if self.passed_variable(node.value):
                return self.scalar_param(node)
            if node.value in self.block_tiles and node.value in self.tunables:
                # A block size the target tunes (`split_size = T.ceildiv(K, block_K * S) *
                # block_K`): the tunable, not its default, or a tuned block would disagree.
                return ir.Name(node.value)
            value = self.int_value(node)
            if value is not None:
                return ir.Const(value)
            return self.scalar_param(node)
        if isinstance(node, cst.Integer):
            return ir.Const(int(node.value))
        if isinstance(node, cst.Float):
            return ir.Const(float(node.value))
        if isinstance(node, cst.BinaryOperation) and type(node.operator) in BINOPS:
            return ir.BinOp(
                BINOPS[type(node.operator)], self.host_expr(node.left), self.host_expr(node.right)
            )
        if isinstance(node, cst.Call) and self.role(node.func) == "ceildiv":
            pos, _ = call_args(node)
            return ir.Call("cdiv", (self.host_expr(pos[0]), self.host_expr(pos[1])))
        raise self.error(node, f"the size `{source_of(node)}` is not read")

    def passed_variable(self, name: str) -> bool:
        """Whether the launch passes factory parameter ``name`` a host value that is no literal
        (``split_k`` of the host function): a scalar of the kernel, not its default baked in.
        Block sizes and launch knobs stay tunables (:meth:`tunable`)."""
        if name not in self.fac.params or name in self.block_tiles or name == self.threads:
            return False
        passed = self.mod.launch_args.get(self.fac.fn.name.value, {}).get(name)
        if passed is None or isinstance(passed, cst.Integer):
            return False
        return not (isinstance(passed, cst.Name) and passed.value in self.mod.module_ints)

    def scalar_param(self, node: cst.Name, size: bool = False) -> ir.Expr:
        """A factory parameter that is neither a size, a dtype nor a tunable: a scalar the
        kernel is compiled for (``eps``, ``scale``); an ``int`` where it sizes a dim or a grid
        (``size``: ``n`` of the host's ``m, n = x.shape``)."""
        name = node.value
        if name not in self.fac.params:
            raise self.error(node, f"`{name}` is not defined in the kernel")
        if size:
            for i, p in enumerate(self.scalars):
                if p.name == name and p.kind == "float":
                    self.scalars[i] = dataclasses.replace(p, kind="int")
                    self.env.vars[name] = ir_scalar_type("int")
            if not any(p.name == name for p in self.scalars):
                self.scalars.append(ir.Param(name, "int", constexpr=True))
                self.env.vars[name] = ir_scalar_type("int")
        if not any(p.name == name for p in self.scalars):
            default = self.fac.defaults.get(name)
            passed = self.mod.launch_args.get(self.fac.fn.name.value, {}).get(name)
            kind = "float"
            for source in (default, passed):
                if isinstance(source, cst.Integer):
                    kind = "int"
                if isinstance(source, cst.Name) and source.value in ("True", "False"):
                    kind = "bool"
                if isinstance(source, (cst.SimpleString, cst.ConcatenatedString)):
                    kind = "str"
            self.scalars.append(ir.Param(name, kind, constexpr=True))
            self.env.vars[name] = ir_scalar_type(kind)
        return ir.Name(name)

    def string_param(self, node: cst.BaseExpression) -> ir.Expr:
        """A factory parameter compared with a string constant (``ACTIVATION == "gelu"``): a
        ``str`` choice the kernel is compiled for, as Triton's ``tl.constexpr`` strings are."""
        if not (
            isinstance(node, cst.Name)
            and node.value in self.fac.params
            and node.value not in self.fac.sizes
            and node.value not in self.fac.dtypes
            and node.value not in self.block_tiles
            and node.value != self.threads
            and node.value not in self.tunables
        ):
            raise self.error(
                node,
                f"`{source_of(node).strip()}` is compared with a string: only a factory "
                "parameter that is a compile-time choice can be",
                'pass the choice to the factory (`ACTIVATION`) and compare it: `if ACTIVATION == "gelu":`',
            )
        name = node.value
        for i, p in enumerate(self.scalars):
            if p.name == name and p.kind != "str":
                if p.kind != "float":  # an int or bool use was read before: one kind only
                    raise self.error(
                        node, f"`{name}` is compared with a string and used as an {p.kind}"
                    )
                self.scalars[i] = dataclasses.replace(p, kind="str")
        if not any(p.name == name for p in self.scalars):
            self.scalars.append(ir.Param(name, "str", constexpr=True))
        self.env.vars[name] = ir_scalar_type("str")
        return ir.Name(name)

    def prescan(self, body: cst.BaseSuite) -> None:
        """The loops' blocks first: buffers allocated before a K loop name its block. What a
        loop counts is read where the loop stands (:meth:`loop_tile`): it may read scalars the
        kernel computes before it (``end = offsets[by + 1]``)."""
        lifter = self
        self.count_aliases, self.count_values = _count_aliases(body, self)

        class Scan(cst.CSTVisitor):
            def visit_For(self, node: cst.For) -> None:
                count = lifter.loop_count(node)
                if count is None:
                    return
                name = node.target.value  # type: ignore[attr-defined]
                capped = lifter.capped_count(count)
                if capped is not None:
                    lifter.block_of(name, capped[2])
                elif lifter.is_ceildiv(count):
                    lifter.block_of(name, lifter.loop_per(name, count, node.body)[0])
                else:
                    lifter.uncounted.append((node, count))
                lifter.loop_tiles.add(name)

        body.visit(Scan())

    def loop_count(self, node: cst.For) -> cst.BaseExpression | None:
        """What ``for ko in T.Pipelined(count)`` (or ``T.serial``) counts; ``None`` for any
        other loop."""
        it = node.iter
        if not (
            isinstance(node.target, cst.Name)
            and isinstance(it, cst.Call)
            and self.role(it.func) in SEQUENTIAL_LOOPS
        ):
            return None
        pos, _ = call_args(it)
        if len(pos) != 1:
            return None
        count = pos[0]
        if isinstance(count, cst.Name) and count.value in self.count_values:
            count = self.count_values[count.value]
        while isinstance(count, cst.IfExp):
            # `T.min(...) if is_causal else T.ceildiv(n, block_N)`: the branch the factory's
            # launch value takes (every launch is checked to pass that value).
            taken = decided(count.test, self.fac, self.mod, self.passed)
            count = count.body if taken else count.orelse
        return count

    def loop_per(
        self, name: str, count: cst.BaseExpression, body: cst.BaseSuite
    ) -> tuple[cst.BaseExpression, cst.BaseExpression | None, cst.BaseExpression | None]:
        """``(block, step, first)`` of a loop counting ``T.ceildiv(extent, per)`` tiles: a
        split-K loop over every ``S``-th tile, ``T.ceildiv(K - bz * block_K, block_K * S)``,
        whose body starts its regions at ``(ko * S + bz) * block_K``, gives ``(block_K, S,
        bz)``; any other ``(per, None, None)``."""
        per = call_args(count)[0][1]  # type: ignore[arg-type]
        if not (isinstance(per, cst.BinaryOperation) and isinstance(per.operator, cst.Multiply)):
            return per, None, None
        starts: list[tuple[cst.BaseExpression, cst.BaseExpression, cst.BaseExpression]] = []

        class Starts(cst.CSTVisitor):
            def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
                found = strided_start(node, name)
                if found is not None:
                    starts.append(found)

        body.visit(Starts())
        for block, step in ((per.left, per.right), (per.right, per.left)):
            text = (cst_text(block), cst_text(step))
            first = [s for s in starts if (cst_text(s[0]), cst_text(s[1])) == text]
            if first:
                return block, step, first[0][2]
        return per, None, None

    def loop_tile(self, s: cst.For) -> ir.TileVar:
        """The tile variable of a sequential loop, read where it stands:

        * ``T.ceildiv(E, block)`` tiles of ``block`` over ``E`` (``ko * block + i`` in the body);
        * ``T.ceildiv(E - B, block)`` whose body indexes ``B + ko * block + i``: the tiles from
          ``B`` below ``E`` (the IR's begin: a row range ``start..end`` the kernel read);
        * split-K's ``T.ceildiv(K - bz * block_K, block_K * S)`` over regions at ``(ko * S + bz)
          * block_K`` (:meth:`loop_per`): the K tiles from tile ``bz`` on, ``S`` apart
          (``step``); ``T.ceildiv(K, block_K * S)`` also runs past ``K``, on tiles that read
          zeros, which the IR's loop leaves out;
        * ``T.ceildiv(L, block)`` whose body starts its regions at ``B + ko * block``
          (:meth:`offset_tile`: split-K's contiguous share of K, ``bz * splitK + ko *
          block_K``);
        * any other count ``n``: ``n`` single indices."""
        name = s.target.value  # type: ignore[attr-defined]
        count = self.loop_count(s)
        assert count is not None
        capped = self.capped_count(count)
        if capped is not None:
            return self.capped_tile(name, *capped)
        if not self.is_ceildiv(count):
            tile = ir.TileVar(name, self.loop_bound(count), ir.Const(1), scalar=True)
            self.tiles[name] = tile
            return tile
        total = call_args(count)[0][0]  # type: ignore[arg-type]
        block, step, first = self.loop_per(name, count, s.body)
        blk = self.block_of(name, block)
        block_expr = ir.Name(blk) if isinstance(blk, str) else blk
        if step is not None and first is not None:
            start = self.subtracted(total, lambda b: is_product(b, first, block))
            end = total if start is None else start.left
            tile = ir.TileVar(
                name,
                self.loop_bound(end),
                blk,
                begin=ir.BinOp("*", self.scalar_expr(first), block_expr),
                step=self.host_expr(step),
            )
            self.strided[name] = (cst_text(block), cst_text(step))
        else:
            start = self.subtracted(total, lambda b: self.indexes_from(s.body, b, name, block))
            if start is None:
                offset = self.offset_tile(name, total, block, blk, s.body)
                if offset is not None:
                    self.tiles[name] = offset
                    return offset
            end = total if start is None else start.left
            begin = None if start is None else self.loop_bound(start.right)
            tile = ir.TileVar(name, self.loop_bound(end), blk, begin=begin)
            if start is not None:
                self.begins[name] = start.right
        if self.reads_kernel(end):
            # It stops inside the tensor, where TileLang's accesses do not (they clip at its
            # edge or not at all): its lanes are read only under their bound.
            self.inner_ends[name] = cst_text(end)
        self.tiles[name] = tile
        return tile

    def offset_tile(
        self,
        name: str,
        length: cst.BaseExpression,
        block: cst.BaseExpression,
        blk: str | ir.Const,
        body: cst.BaseSuite,
    ) -> ir.TileVar | None:
        """The loop of ``T.ceildiv(length, block)`` tiles whose body starts every region it
        indexes with ``name`` at ``B + name * block``, ``B`` a scalar the kernel computes
        before the loop (split-K's contiguous share, ``bz * splitK + ko * block_K``); ``None``
        where no region starts so. Its tiles run from ``B``; TileLang's copies read whole
        blocks from there, ``ceildiv(length, block) * block`` lanes (past ``B + length`` when
        ``block`` does not divide it: the source reads the next share there, and so does the
        translation), clipped at the edge of the dim the regions index, so that is where the
        IR's loop ends."""
        lanes = self.parallel_targets(body)
        # `ko * block + j` of a T.Parallel body is a lane of the tile, not an offset.
        found = [f for f in _offset_regions(body, name, block) if not _names(f[0]) & lanes]
        if not found:
            return None
        begins = {cst_text(b) for b, _, _ in found}
        if len(begins) != 1:
            raise self.error(
                found[0][0],
                f"the regions of loop `{name}` start at several offsets "
                f"({', '.join(sorted(begins))}) plus `{name} * {cst_text(block)}`",
                f"start every region the loop indexes at one offset plus `{name} * "
                f"{cst_text(block)}`",
            )
        begin = found[0][0]
        if not self.reads_kernel(begin):
            return None  # a host offset: the `E - B` count reads it (`loop_tile`)
        dims: dict[str, cst.BaseExpression] = {}
        where: list[str] = []
        for _, tensor, pos in found:
            shape = self.fac.tensors.get(tensor, ([], None))[0]
            if pos >= len(shape):
                raise self.error(begin, f"`{tensor}` is indexed here at a dim it lacks")
            dims[cst_text(shape[pos])] = shape[pos]
            where.append(f"`{tensor}` dim {pos} (`{cst_text(shape[pos])}`)")
        if len(dims) != 1:
            raise self.error(
                begin,
                f"loop `{name}` indexes from `{cst_text(begin)}` dims of different sizes: "
                f"{', '.join(dict.fromkeys(where))}; where its tiles stop is not one edge",
                "index dims of one size with the loop's tiles (check each tensor's annotated "
                "shape against how it is indexed)",
            )
        size = ir.Name(blk) if isinstance(blk, str) else blk
        # The bounds are scalars of their own, computed before the loop: every backend writes
        # them once (`ko_begin`, `ko_end`) rather than spelling them out at each use.
        first = self.loop_let(f"{name}_begin", self.scalar_expr(begin), body)
        share = ir.BinOp("*", ir.Call("cdiv", (self.size_expr(length), size)), size)
        edge = self.size_expr(next(iter(dims.values())))
        end = self.loop_let(
            f"{name}_end", ir.Call("minimum", (edge, ir.BinOp("+", first, share))), body
        )
        self.begins[name] = begin
        return ir.TileVar(name, end, blk, begin=first)

    def parallel_targets(self, body: cst.BaseSuite) -> set[str]:
        """The lane names the ``T.Parallel`` loops in ``body`` bind."""
        lifter = self
        names: set[str] = set()

        class Lanes(cst.CSTVisitor):
            def visit_For(self, node: cst.For) -> None:
                it = node.iter
                if isinstance(it, cst.Call) and lifter.role(it.func) == "parallel":
                    names.update(_names(node.target))

        body.visit(Lanes())
        return names

    def loop_let(self, name: str, value: ir.Expr, body: cst.BaseSuite) -> ir.Name:
        """``name = value``, a scalar computed before the loop being read (``name``, or
        ``name_2``..., one no kernel name and no name of the loop's body takes)."""
        taken = set(self.env.vars) | set(self.tiles) | set(self.buffers) | set(self.lets)
        taken |= _names(body)
        unique, n = name, 2
        while unique in taken:
            unique, n = f"{name}_{n}", n + 1
        self.env.vars[unique] = ir_scalar_type("int")  # sizes and grid indices: an int
        self.lets.add(unique)
        self.loop_lets.append(ir.Assign(unique, value))
        return ir.Name(unique)

    def capped_count(
        self, count: cst.BaseExpression
    ) -> tuple[cst.BaseExpression, cst.BaseExpression, cst.BaseExpression] | None:
        """``(extent, stop, block)`` of a causal count ``T.min(T.ceildiv(extent, block),
        T.ceildiv(stop, block))`` (either order; one block), ``None`` for any other."""
        if not (isinstance(count, cst.Call) and self.role(count.func) == "min"):
            return None
        pos, kw = call_args(count)
        if kw or len(pos) != 2 or not all(self.is_ceildiv(p) for p in pos):
            return None
        (a, block_a), (b, block_b) = (call_args(p)[0] for p in pos)  # type: ignore[arg-type]
        if cst_text(block_a) != cst_text(block_b):
            return None
        if self.reads_kernel(a) and not self.reads_kernel(b):
            a, b = b, a
        if self.reads_kernel(a):
            return None
        if not self.reads_kernel(b):
            # Two host sizes: which one the loop's tensor ends at (whose edge TileLang's
            # accesses clip at, past the other's last whole block) is not written here.
            raise self.error(
                count,
                f"`{cst_text(count)}` takes the smaller of two tile counts of host sizes: "
                "neither reads the kernel's indices, so which size is the tensor's extent "
                "(where TileLang's accesses clip) and which is where the tiles stop is unknown",
                f"count the tiles over the size of the tensor the loop reads "
                f"(`T.ceildiv(N, {cst_text(block_a)})`), and cap that by a count that reads "
                "the kernel's indices if the loop stops early",
            )
        return a, b, block_a

    def capped_tile(
        self,
        name: str,
        extent: cst.BaseExpression,
        stop: cst.BaseExpression,
        block: cst.BaseExpression,
    ) -> ir.TileVar:
        """The tiles of ``block`` over ``extent`` a causal count keeps: those below ``stop``
        rounded up to a whole block (``T.min(T.ceildiv(N, b), T.ceildiv(E, b))`` tiles read
        whole blocks up to ``ceildiv(E, b) * b``, clipped at ``N``, so that is the extent)."""
        blk = self.block_of(name, block)
        size = ir.Name(blk) if isinstance(blk, str) else blk
        whole = ir.BinOp("*", ir.Call("cdiv", (self.loop_bound(stop), size)), size)
        tile = ir.TileVar(name, ir.Call("minimum", (self.size_expr(extent), whole)), blk)
        self.tiles[name] = tile
        return tile

    def subtracted(
        self, total: cst.BaseExpression, is_begin: Callable[[cst.BaseExpression], bool]
    ) -> cst.BinaryOperation | None:
        """``total`` if it is ``E - B`` with ``is_begin(B)``, else ``None``."""
        if (
            isinstance(total, cst.BinaryOperation)
            and isinstance(total.operator, cst.Subtract)
            and is_begin(total.right)
        ):
            return total
        return None

    def indexes_from(
        self, body: cst.BaseSuite, begin: cst.BaseExpression, name: str, block: cst.BaseExpression
    ) -> bool:
        """Whether ``body`` indexes tiles of loop ``name`` from ``begin``: ``begin + name *
        block`` (what tiletrans writes for a loop from ``begin``)."""
        found = False

        class Starts(cst.CSTVisitor):
            def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
                nonlocal found
                found = found or offset_start(node, begin, name, block)

        body.visit(Starts())
        return found

    def loop_bound(self, node: cst.BaseExpression) -> ir.Expr:
        """A loop's extent or begin: a size (:meth:`size_expr`), or a scalar that reads what
        the kernel computed before the loop (grid indices, scalar lets)."""
        return self.scalar_expr(node) if self.reads_kernel(node) else self.size_expr(node)

    def reads_kernel(self, node: cst.BaseExpression) -> bool:
        """Whether ``node`` reads a value the kernel computes (a grid index, a scalar let)."""
        kernel_names = set(self.lets) | set(self.tiles)
        found = False

        class Names(cst.CSTVisitor):
            def visit_Name(self, n: cst.Name) -> None:
                nonlocal found
                found = found or n.value in kernel_names

        node.visit(Names())
        return found


def _offset_regions(
    body: cst.BaseSuite, name: str, block: cst.BaseExpression
) -> list[tuple[cst.BaseExpression, str, int]]:
    """``(B, tensor, dim)`` of each subscript ``X[..., B + name * block, ...]`` in ``body``
    (the terms and factors in either order), ``B`` free of ``name``."""
    found: list[tuple[cst.BaseExpression, str, int]] = []

    class Regions(cst.CSTVisitor):
        def visit_Subscript(self, node: cst.Subscript) -> None:
            if not isinstance(node.value, cst.Name):
                return
            for pos, el in enumerate(node.slice):
                if not isinstance(el.slice, cst.Index):
                    continue
                start = el.slice.value
                if not (
                    isinstance(start, cst.BinaryOperation) and isinstance(start.operator, cst.Add)
                ):
                    continue
                for begin, rest in ((start.left, start.right), (start.right, start.left)):
                    if is_product(rest, cst.Name(name), block) and name not in _names(begin):
                        found.append((begin, node.value.value, pos))

    body.visit(Regions())
    return found


def _names_list(node: cst.CSTNode) -> list[str]:
    """Every identifier ``node`` reads or binds, with repeats (attribute names left out)."""
    return [n.value for n in name_nodes(node)]


def _bound_list(node: cst.CSTNode) -> list[str]:
    """The names ``node`` binds, with repeats."""
    return bound_names(node)


def _names(node: cst.BaseExpression) -> set[str]:
    names: set[str] = set()

    class Names(cst.CSTVisitor):
        def visit_Name(self, n: cst.Name) -> None:
            names.add(n.value)

    node.visit(Names())
    return names


def _count_aliases(
    body: cst.BaseSuite, lifter: GridTiles
) -> tuple[dict[str, cst.BaseExpression], dict[str, cst.BaseExpression]]:
    """``(aliases, values)``: the names ``body`` binds once by a plain assignment and that a
    ``T.Pipelined``/``T.serial`` loop counts, with the values they are bound to (``values``;
    ``for k in range(num_k_step)`` counts what ``num_k_step = T.ceildiv(N, blk_k)`` is), and
    of those the ones read only as a loop's count (``aliases``: ``loop_range = T.ceildiv(
    seq_len, block_N)``; no scalar of the kernel)."""
    values: dict[str, list[cst.BaseExpression]] = {}
    reads: dict[str, int] = {}
    counted: dict[str, int] = {}

    class Scan(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            for t in node.targets:
                if isinstance(t.target, cst.Name):
                    values.setdefault(t.target.value, []).append(node.value)
                    reads[t.target.value] = reads.get(t.target.value, 0) - 1  # not a read

        def visit_For(self, node: cst.For) -> None:
            it = node.iter
            if isinstance(it, cst.Call) and lifter.role(it.func) in SEQUENTIAL_LOOPS:
                pos, _ = call_args(it)
                if len(pos) == 1 and isinstance(pos[0], cst.Name):
                    counted[pos[0].value] = counted.get(pos[0].value, 0) + 1

        def visit_Name(self, node: cst.Name) -> None:
            reads[node.value] = reads.get(node.value, 0) + 1

    body.visit(Scan())
    counts = {
        name: bound[0]
        for name, bound in values.items()
        if len(bound) == 1 and counted.get(name, 0) > 0
    }
    aliases = {name: v for name, v in counts.items() if reads.get(name, 0) == counted[name]}
    return aliases, counts
