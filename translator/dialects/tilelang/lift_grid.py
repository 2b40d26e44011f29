"""The TileLang lifter's grid and loop tiles: ``T.Kernel`` extents (and the persistent form,
``T.Persistent`` over the grid), the tile variables of ``T.Pipelined``/``T.serial`` loops
(split-K's strided ones included), and the host-side sizes they count (tensor sizes, scalars
the launch passes), mixed into :class:`~translator.dialects.tilelang.frontend.KernelLifter`."""

from __future__ import annotations

import dataclasses

import libcst as cst

from translator.dialects.cst_utils import call_args, source_of
from translator.dialects.tilelang.model import (
    BINOPS,
    ir_scalar_type,
    is_docstring,
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
            grid.append(self.tile_var(name, extent))
        return list(reversed(grid))

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
        """The tile variable ``name`` counting ``count`` tiles: ``T.ceildiv(E, B)`` tiles of
        ``B`` over ``E``, or ``E`` single indices."""
        if isinstance(count, cst.Call) and self.role(count.func) == "ceildiv":
            pos, _ = call_args(count)
            extent, block = self.size_expr(pos[0]), pos[1]
            if isinstance(block, cst.Name) and block.value in self.fac.params:
                self.tunable(block.value, "block_size", block)
                self.block_tiles.setdefault(block.value, []).append(name)
                tile = ir.TileVar(name, extent, block.value)
            elif isinstance(block, cst.Integer):
                self.block_tiles.setdefault(block.value, []).append(name)
                tile = ir.TileVar(name, extent, ir.Const(int(block.value)))
            else:
                raise self.error(
                    block,
                    f"the block size `{source_of(block)}` is no factory parameter or literal",
                    "pass block sizes as parameters of the @tilelang.jit factory",
                )
        else:
            tile = ir.TileVar(name, self.size_expr(count), ir.Const(1), scalar=True)
        self.tiles[name] = tile
        return tile

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
        """Loop tile variables first: buffers allocated before a K loop name its block."""
        lifter = self

        class Scan(cst.CSTVisitor):
            def visit_For(self, node: cst.For) -> None:
                it = node.iter
                if (
                    isinstance(node.target, cst.Name)
                    and isinstance(it, cst.Call)
                    and lifter.role(it.func) in ("pipelined", "serial")
                ):
                    pos, _ = call_args(it)
                    if len(pos) == 1:
                        name = node.target.value
                        if not lifter.strided_tile_var(name, pos[0], node.body):
                            lifter.tile_var(name, pos[0])
                        lifter.loop_tiles.add(name)

        body.visit(Scan())

    def strided_tile_var(self, name: str, count: cst.BaseExpression, body: cst.BaseSuite) -> bool:
        """A split-K loop over every ``S``-th tile: ``for ko in T.Pipelined(T.ceildiv(K,
        block_K * S))`` whose body starts its regions at ``(ko * S + bz) * block_K`` is the
        IR's loop over the K tiles from tile ``bz`` on, ``S`` at a time (``step``). Tiles it
        runs past ``K`` read zeros, which the IR's loop leaves out. ``False`` if ``count`` and
        ``body`` are not this pattern."""
        if not (isinstance(count, cst.Call) and self.role(count.func) == "ceildiv"):
            return False
        pos, _ = call_args(count)
        per = pos[1] if len(pos) == 2 else None
        if not (isinstance(per, cst.BinaryOperation) and isinstance(per.operator, cst.Multiply)):
            return False
        starts: list[tuple[cst.BaseExpression, cst.BaseExpression, cst.BaseExpression]] = []

        class Starts(cst.CSTVisitor):
            def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
                found = strided_start(node, name)
                if found is not None:
                    starts.append(found)

        body.visit(Starts())
        for block, step in ((per.left, per.right), (per.right, per.left)):
            text = (source_of(block).strip(), source_of(step).strip())
            first = [
                s for s in starts if (source_of(s[0]).strip(), source_of(s[1]).strip()) == text
            ]
            if not first:
                continue
            tile = self.tile_var(name, cst.Call(count.func, [cst.Arg(pos[0]), cst.Arg(block)]))
            block_expr = ir.Name(tile.block) if isinstance(tile.block, str) else tile.block
            begin = ir.BinOp("*", self.scalar_expr(first[0][2]), block_expr)
            tile = dataclasses.replace(tile, begin=begin, step=self.host_expr(step))
            self.tiles[name] = tile
            self.strided[name] = text
            return True
        return False
