"""Program ids and the grid: swizzles, mixed-radix digits, persistent loops, the launch's check.

Program ids are placeholders while the body is lifted; once every tile is known, each program
axis gets its role (a tile, a scalar grid dim, a persistent loop's rows, a swizzle, digits), the
grid is checked against what the launch passes, and the placeholders are resolved.
"""

from __future__ import annotations

import libcst as cst

from translator.dialects.cst_utils import call_args
from translator.dialects.triton import frontend_affine as af
from translator.dialects.triton.frontend_affine import ir_text
from translator.dialects.triton.ir_rewrite import map_names, map_stmt
from translator.dialects.triton.lift_control import read_before_write
from translator.dialects.triton.lift_dispatch import handles
from translator.dialects.triton.lift_statements import suite_body
from translator.dialects.triton.lifted import Idx, Tile, Val
from translator.dialects.triton.symbols import Sym, SymKind, kind_of, parse_sym, sym_of
from translator.ir import nodes as ir
from translator.ir.visit import all_exprs
from translator.naming import unique


class ProgramsMixin:
    """Program ids, persistent loops and the grid of :class:`KernelLifter`."""

    @handles("program_id", "num_programs")
    def program_id(self, name: str, node: cst.Call) -> Val:
        """``tl.program_id(axis)`` / ``tl.num_programs(axis)``: their symbols."""
        args, kwargs = call_args(node)
        axis_node = args[0] if args else kwargs.get("axis")
        axis = self._int_literal(axis_node, node)
        if not 0 <= axis <= 2:
            raise self.error(node, "program axes are 0, 1 or 2")
        if name == "num_programs":
            self.num_programs_nodes.setdefault(axis, node)
        return Idx((Sym.pid(axis) if name == "program_id" else Sym.num_programs(axis)).expr)

    def pid_axis(self, tree: ir.Expr) -> int:
        """The axis of program-id symbol ``tree``."""
        pid = sym_of(af.strip_casts(tree))  # `tl.cast(tl.program_id(1), tl.int64)`
        assert pid is not None and pid.kind is SymKind.PID and pid.index is not None
        return pid.index

    def name_scalar(self, name: str, value: Idx) -> Idx:
        """Program ids keep the name they are first bound to (it names their grid tile)."""
        tree = af.strip_casts(value.tree)
        pid = sym_of(tree)
        if pid is not None and pid.kind is SymKind.PID:
            self.pid_names.setdefault(pid.index, name)  # type: ignore[arg-type]
        p = af.poly(tree, self.atoms)
        if len(p) == 1 and list(p.values()) == [1]:
            (mono,) = p
            if len(mono) == 1 and self.flat_digit(mono[0]) is not None:
                self.digit_names.setdefault(mono[0], name)
        for which in ("m", "n"):
            sw = af.match_swizzle(value.tree, which)
            if sw is not None:
                if self.swizzle is not None and self.swizzle != sw:
                    raise self.error(None, "two different program-id swizzles in one kernel")
                self.swizzle = sw
                return Idx(Sym.swizzle(which).expr)
        return value

    def _is_persistent(self, start: ir.Expr, step: ir.Expr) -> bool:
        pid, count = sym_of(af.strip_casts(start)), sym_of(af.strip_casts(step))
        return (
            pid is not None
            and count is not None
            and pid.kind is SymKind.PID
            and count.kind is SymKind.NUM_PROGRAMS
            and pid.index == count.index
        )

    def persistent_loop(self, node: cst.For, start: ir.Expr, stop: ir.Expr) -> None:
        """``for row in tl.range(pid, n, num_programs)``: each row once, over all programs.

        The iterations are independent (nothing is carried from one row to the next), so the loop
        is a grid over rows: one scalar tile ``row`` of extent ``n``; how many programs share the
        rows (the launch grid) only schedules them.
        """
        axis = self.pid_axis(start)
        assert isinstance(node.target, cst.Name)
        if self.loops or self.if_depth or self.persistent is not None or self.pid_roles.get(axis):
            raise self.error(
                node, "a persistent loop over programs must be the kernel's outer loop"
            )
        name = unique(node.target.value, self.taken)
        extent = self.host_ir(stop, node.iter)
        self.persistent = (axis, name, extent)
        self.pid_roles[axis] = "persistent"
        tile = ir.TileVar(name, extent, ir.Const(1), scalar=True)
        self.types.bind_tile(tile)
        self.check_independent_iterations(node, "row")
        self.env[node.target.value] = Idx(Sym.row(axis).expr)
        self.block(list(suite_body(node.body)), self.out)
        self.persistent_done = True

    def carried_names(self, node: cst.For) -> set[str]:
        """Names an iteration of ``node`` reads before it assigns them: values one iteration
        hands to the next."""
        assert isinstance(node.target, cst.Name)
        carried = self.assigned_names(node.body) & set(self.env) - {node.target.value}
        return {n for n in carried if read_before_write(n, node.body)}

    def program_share_loop(
        self, node: cst.For, start: ir.Expr, stop: ir.Expr, step: ir.Expr, stages: int | None
    ) -> None:
        """``for row in range(pid, n, tl.num_programs(a))`` that carries a value from one row
        to the next (a per-program partial gradient, stored once after the loop and summed on
        the host).

        What a program computes then depends on which rows it took, so the programs stay: the
        program id is a plain index of a grid of as many programs as the launch's axis, and the
        loop visits rows ``pid, pid + G, ...`` below ``n``, ``G`` being that count.
        """
        self.pid_scalar_uses.add(self.pid_axis(start))
        self.tile_loop(node, stop, step, stages, start, strided_rows=True)

    def check_independent_iterations(self, node: cst.For, what: str) -> None:
        """A persistent loop is a grid only if no value flows from one iteration to the next
        and nothing is stored before it (that would run once per program)."""
        carried = self.carried_names(node)
        if carried:
            raise self.error(
                node,
                f"the {what}s of this persistent loop are not independent: "
                f"`{sorted(carried)[0]}` is carried from one {what} to the next",
                f"compute each {what} from scratch",
            )
        if any(isinstance(s, (ir.Store, ir.AtomicRMW)) for s in self.out):
            raise self.error(
                node,
                f"stores before a persistent {what} loop would run once per program",
                "move them into the loop",
            )

    def persistent_tiles(self, node: cst.For, start: ir.Expr, stop: ir.Expr, step: ir.Expr) -> None:
        """``for tile_id in tl.range(pid, num_tiles, NUM_SMS)`` (Triton tutorial 09).

        Program ``p`` of the ``G`` launched takes ids ``p, p + S, ...`` below ``T``: each id once
        exactly when ``min(S, T) <= G <= S`` (checked with the grid). The iterations are then a
        grid of ``T`` programs, so the body is lifted with the loop variable as the program id,
        and the schedule becomes the entry hint ``pid_type="persistent_interleaved"`` (Helion's
        name for it).
        """
        start = af.strip_casts(start)
        axis = self.pid_axis(start)
        assert isinstance(start, ir.Name) and isinstance(node.target, cst.Name)
        if (
            self.loops
            or self.if_depth
            or self.persistent is not None
            or self.pid_roles.get(axis)
            or axis in self.pid_scalar_uses
            or any(t.base == start.id for t in self.tiles.values())
        ):
            raise self.error(
                node,
                "a persistent loop over tiles must be the kernel's outer loop, "
                "and its program id used for nothing else",
            )
        self.check_independent_iterations(node, "tile")
        self.persistent_grid = (axis, stop, step, node)
        self.host.hints["pid_type"] = "persistent_interleaved"
        self.env[node.target.value] = Idx(start)
        self.block(list(suite_body(node.body)), self.out)
        self.persistent_done = True

    def check_persistent_grid(self) -> None:
        """The launch of a persistent tile loop covers every tile once: its grid is
        ``min(S, T)`` (or ``S``) programs; the IR's grid is then ``T`` programs."""
        if self.persistent_grid is None:
            return
        axis, stop, step, node = self.persistent_grid
        grid = self.launch.grid
        total = self.host_ir(stop, node.iter)
        stride = self.step_ir(step, node)
        g = grid[axis] if axis < len(grid) else None
        forms = [stride, ir.Call("minimum", (stride, total)), ir.Call("minimum", (total, stride))]
        if g is None or not any(self.same_host(g, f, node) for f in forms):
            raise self.error(
                self.launch.grid_node,
                f"the persistent loop steps by {ir_text(step)} over "
                f"{ir_text(total)} tiles, but the grid launches "
                f"{ir_text(g) if g is not None else 'no'} programs along axis {axis}: every tile "
                "is computed once only for min(step, tiles) programs",
                "launch min(NUM_SMS, num_tiles) programs",
            )
        self.launch.grid = [total if i == axis else x for i, x in enumerate(grid)]

    def num_programs_ir(self, axis: int) -> ir.Expr:
        """``tl.num_programs(axis)`` where the axis is a grid of plain indices: its extent."""
        if self.pid_roles.get(axis) == "scalar":
            name = self.grid_names[axis][0]
            return next(t.extent for t in self.grid if t.name == name)
        raise self.error(
            self.num_programs_nodes.get(axis),
            f"tl.num_programs({axis}) is read where the programs along axis {axis} are not "
            "plain indices of the grid (tiles, a persistent loop, a split program id)",
            f"read tl.num_programs({axis}) only in kernels whose tl.program_id({axis}) is an "
            "index of the work a program takes",
        )

    def step_ir(self, step: ir.Expr, node) -> ir.Expr:
        """A persistent loop's step as a host expression (an opaque host value allowed)."""
        step = af.strip_casts(step)
        opaque = sym_of(step)
        if opaque is not None and opaque.kind is SymKind.OPAQUE:
            b = self.launch.bindings[opaque.name]  # type: ignore[index]
            assert b.expr is not None
            return b.expr
        return self.host_ir(step, getattr(node, "iter", node))

    def underived_grid(self) -> str | None:
        """Why no wrapper can count this kernel's programs from its tiles (None: it can)."""
        if self.persistent_grid is not None or self.persistent is not None:
            return "a persistent loop shares the work among as many programs as the host launches"
        if self.split_steps:
            return "its loop tiles are split over programs (split-K)"
        if self.pid_scalar_uses:
            axis = min(self.pid_scalar_uses)
            return (
                f"tl.program_id({axis}) is a plain index (a row, a batch), whose count only the "
                "host knows"
            )
        return None

    def grid_tiles(self) -> tuple[ir.TileVar, ...]:
        why = self.underived_grid() if self.launch.derived else None
        if why is not None:
            raise self.error(
                self.fn,
                f"this module never launches `{self.fn.name.value}` and its grid is not one "
                f"program per tile ({why}), so no wrapper can be derived for it",
                "add the wrapper that launches it to the module (`kernel[(n_rows,)](...)`)",
            )
        self.check_persistent_grid()
        grid = self.launch.grid
        for axis, start, step, loop_node in self.split_steps:
            if start != Sym.pid(axis).expr:
                raise self.error(
                    loop_node,
                    f"a loop that visits every {ir_text(step)}-th tile "
                    f"starts at tile {ir_text(start)}, not at tl.program_id({axis})",
                )
            if axis >= len(grid) or not self.same_host(
                grid[axis], self.step_ir(step, loop_node), loop_node
            ):
                raise self.error(
                    self.launch.grid_node,
                    f"the K tiles are split over tl.program_id({axis}) "
                    f"in steps of {ir_text(step)}, but the grid launches "
                    f"{ir_text(grid[axis]) if axis < len(grid) else 'nothing'} programs along "
                    "it: every tile is visited once only for as many programs as the step",
                    "launch SPLIT_K programs along the split axis",
                )
        out: list[ir.TileVar] = []
        used_axes: set[int] = set()
        node = self.launch.grid_node
        self.pid_scalar_uses |= self._pids_read_as_values()
        if self.swizzle is not None:
            sw = self.swizzle
            axis = sw.axis
            tm, tn = self.swizzle_tiles.get("m"), self.swizzle_tiles.get("n")
            if tm is None or tn is None:
                raise self.error(node, "the program-id swizzle is used for only one of its tiles")
            for tile, ext, blk in ((tm, sw.M, sw.BM), (tn, sw.N, sw.BN)):
                if tile.extent is None:
                    raise self.error(tile.node, f"no mask bounds {tile.name}")
                if not self.same_host(self.host_ir(ext, node), tile.extent, node) or (
                    af.strip_casts(blk) != self.key_tree(tile.key)
                ):
                    raise self.error(
                        node,
                        f"the swizzle counts tiles of "
                        f"cdiv({ir_text(self.host_ir(ext, node))}, ...) but "
                        f"{tile.name} is bounded by {ir_text(tile.extent)}",
                    )
            self.launch.group_size(sw.G, node)
            expected = ir.BinOp(
                "*",
                ir.Call("cdiv", (tm.extent, self.block_ir(tm))),
                ir.Call("cdiv", (tn.extent, self.block_ir(tn))),
            )
            self.check_grid_axis(
                axis,
                expected,
                node,
                ir.BinOp(
                    "*",
                    ir.Call("cdiv", (tm.extent, self.key_tree(tm.key))),
                    ir.Call("cdiv", (tn.extent, self.key_tree(tn.key))),
                ),
            )
            used_axes.add(axis)
            if axis in self.pid_roles or axis in self.pid_tiles or axis in self.pid_scalar_uses:
                raise self.error(node, f"program id {axis} is used besides the swizzle")
            out += [
                ir.TileVar(tm.name, tm.extent, tm.block or ir.Const(1)),
                ir.TileVar(tn.name, tn.extent, tn.block or ir.Const(1)),
            ]
        self.grid_names: dict[int, tuple[str, bool]] = {}
        self.digit_vars: dict[str, ir.Expr] = {}
        by_axis: dict[int, list[str]] = {}
        for sym, tile in list(self.digit_tiles.items()):
            if not tile.used and sym in self.digit_scalar_uses:
                # `split * BLOCK_K + arange` computed before a split-K loop only starts it.
                del self.digit_tiles[sym]
        for sym in self.digit_tiles.keys() | self.digit_scalar_uses:
            by_axis.setdefault(self.digits[sym].axis, []).append(sym)
        flat: dict[int, list[ir.TileVar]] = {}
        valued: list[str] = []  # digits read as values of a program id the grid has anyway
        for axis, syms in sorted(by_axis.items()):
            if axis in used_axes or axis in self.pid_roles or axis in self.pid_scalar_uses:
                if axis not in used_axes and self._digits_are_values(syms):
                    valued += syms
                    continue
                raise self.error(
                    node,
                    f"tl.program_id({axis}) is split into digits (`pid % n`, "
                    "`pid // n`) and used besides",
                )
            flat[axis] = self.flat_grid(axis, syms, node)
            used_axes.add(axis)
        for axis in range(3):
            # A split axis keeps its place: the grid's fastest dims stay the source's.
            out += flat.get(axis, [])
            if axis in used_axes:
                continue
            role = self.pid_roles.get(axis)
            if role == "tile" and not self.pid_tiles[axis].used:
                # Offsets computed from the program id that no access reads as a tile (split-K's
                # `pid_k * BLOCK_K + arange` only starts a strided loop).
                role = None
                del self.pid_roles[axis]
            if role is None and axis in self.pid_scalar_uses:
                role = self.pid_roles[axis] = "scalar"
            if role == "persistent" and axis in self.pid_scalar_uses:
                raise self.error(
                    node, f"tl.program_id({axis}) starts a persistent loop and is used besides"
                )
            if role is None:
                if axis < len(grid) and not self.host.is_one(grid[axis]):
                    raise self.error(
                        node,
                        f"the grid launches {ir_text(grid[axis])} programs along axis "
                        f"{axis}, but the kernel never reads tl.program_id({axis}): every "
                        "program would compute the same thing",
                        "launch 1 program along it",
                    )
                continue
            if axis >= len(grid) and not self.launch.derived:
                raise self.error(
                    node,
                    f"the kernel reads tl.program_id({axis}) but the grid has {len(grid)} axes",
                )
            if role == "tile":
                tile = self.pid_tiles[axis]
                if tile.extent is None:
                    raise self.error(
                        tile.node,
                        f"no mask bounds the lanes of {tile.name}",
                        "mask loads and stores with `offs < n`",
                    )
                expected = ir.Call("cdiv", (tile.extent, self.block_ir(tile)))
                self.check_grid_axis(
                    axis, expected, node, ir.Call("cdiv", (tile.extent, self.key_tree(tile.key)))
                )
                out.append(ir.TileVar(tile.name, tile.extent, tile.block or ir.Const(1)))
            elif role == "scalar":
                if _opaque(grid[axis]):
                    raise self.error(
                        node,
                        f"the grid's axis {axis} ({ir_text(grid[axis])}) is "
                        "not a host expression the IR can evaluate",
                        "launch one program per row: grid = (n_rows,)",
                    )
                name = unique(self.pid_names.get(axis, f"pid_{axis}"), self.taken)
                self.grid_names[axis] = (name, True)
                out.append(ir.TileVar(name, grid[axis], ir.Const(1), scalar=True))
            elif role == "persistent":
                assert self.persistent is not None
                _, name, extent = self.persistent
                out.append(ir.TileVar(name, extent, ir.Const(1), scalar=True))
        for sym in valued:
            self.digit_vars[sym] = self._digit_value(sym, node)
        if not out:
            # No program id read (`kernel[(1,)]` over a whole tensor): each program launched runs
            # the body, as the source's do.
            for axis, extent in enumerate(grid):
                if _opaque(extent):
                    raise self.error(
                        node,
                        f"the grid's axis {axis} ({ir_text(extent)}) is not a host expression "
                        "the IR can evaluate",
                        "launch one program: grid = (1,)",
                    )
                name = unique(f"pid_{axis}", self.taken)
                out.append(ir.TileVar(name, extent, ir.Const(1), scalar=True))
        self.grid = tuple(out)
        return self.grid

    def _pids_read_as_values(self) -> set[int]:
        """Axes whose program id the body reads as a value and nothing else claims (a stream-K
        program's share of the work, `pid * iters_per_program`): plain indices of the grid."""
        claimed = set(self.pid_roles) | {d.axis for d in self.digits.values()}
        if self.swizzle is not None:
            claimed.add(self.swizzle.axis)
        out = set()
        for e in all_exprs(tuple(self.out)):
            sym = sym_of(e)
            if sym is not None and sym.kind is SymKind.PID and sym.index not in claimed:
                out.add(sym.index)
        return out  # type: ignore[return-value]

    def flat_grid(self, axis: int, syms: list[str], node) -> list[ir.TileVar]:
        """The grid dims of a program id split in mixed radix, least significant first.

        Digit ``i`` is ``(pid // (n_0 * ... * n_{i-1})) % n_i``; a digit that offsets lanes is a
        tile (``n_i = cdiv(extent, block)``), one used as a plain index a scalar grid dim of
        ``n_i`` programs. The axis must launch exactly ``n_0 * ... * n_{r-1}`` programs.
        """
        pending = {s: self.host_ir(self.digits[s].div, node) for s in syms}
        count: ir.Expr = ir.Const(1)
        shown: ir.Expr = ir.Const(1)
        out: list[ir.TileVar] = []
        while pending:
            here = [s for s, d in pending.items() if self.same_host(d, count, node)]
            if len(here) != 1:
                text = ", ".join(sorted(ir_text(self.atoms.trees[s]) for s in pending))
                raise self.error(
                    node,
                    f"cannot read the digits {text} of tl.program_id({axis}) "
                    "as one mixed-radix split (`pid % n0`, `(pid // n0) % n1`, ...)",
                    "split the program id with % and // by the tile counts",
                )
            sym = here[0]
            del pending[sym]
            digit = self.digits[sym]
            mod = self.host_ir(digit.mod, node) if digit.mod is not None else None
            tile = self.digit_tiles.get(sym)
            if tile is not None:
                if sym in self.digit_scalar_uses:
                    raise self.error(
                        node,
                        f"the program-id digit `{ir_text(self.atoms.trees[sym])}`"
                        " offsets lanes and indexes a dim directly",
                    )
                if tile.extent is None:
                    raise self.error(
                        tile.node,
                        f"no mask bounds the lanes of {tile.name}",
                        "mask loads and stores with `offs < n`",
                    )
                n = ir.Call("cdiv", (tile.extent, self.block_ir(tile)))
                n_shown = ir.Call("cdiv", (tile.extent, self.key_tree(tile.key)))
                if mod is not None and not self.same_host(mod, n, node):
                    raise self.error(
                        node,
                        f"the digit `{ir_text(self.atoms.trees[sym])}` counts "
                        f"{ir_text(mod)} tiles but {tile.name} has {ir_text(n_shown)}",
                    )
                out.append(ir.TileVar(tile.name, tile.extent, tile.block or ir.Const(1)))
                self.digit_vars[sym] = ir.TileAttr(tile.name, "id")
            else:
                if mod is None:
                    # The most significant digit: its count is what the grid launches beyond
                    # the others.
                    mod = self._grid_quotient(axis, count, node)
                self.check_digit_split(sym, mod)
                n = n_shown = mod
                name = unique(self.digit_names.get(sym, f"pid_{axis}_{len(out)}"), self.taken)
                out.append(ir.TileVar(name, mod, ir.Const(1), scalar=True))
                self.digit_vars[sym] = ir.Name(name)
            count = n if count == ir.Const(1) else ir.BinOp("*", count, n)
            shown = n_shown if shown == ir.Const(1) else ir.BinOp("*", shown, n_shown)
        self.check_grid_axis(axis, count, node, shown)
        return out

    def _digits_are_values(self, syms: list[str]) -> bool:
        """Whether program-id digits are only read as values (the layer-norm backward's
        ``lock_id = row % GROUP_SIZE_M``, a row of partial sums): no lanes offset by them and no
        loop split over them, so the program id keeps its own role and each digit is the
        arithmetic it spells."""
        split = {digit for digit, *_ in self.digit_splits}
        return all(s not in self.digit_tiles and s not in split for s in syms)

    def _digit_value(self, sym: str, node) -> ir.Expr:
        """``(pid // div) % mod`` over the grid index that stands for the program id (exact:
        program ids are never negative, so floor and truncation agree)."""
        digit = self.digits[sym]
        role = self.pid_roles.get(digit.axis)
        if role == "scalar":
            pid: ir.Expr = ir.Name(self.grid_names[digit.axis][0])
        elif role == "tile":
            pid = ir.TileAttr(self.pid_tiles[digit.axis].name, "id")
        else:
            raise self.error(
                node,
                f"the program-id digit `{ir_text(self.atoms.trees[sym])}` is read as a value, "
                f"but tl.program_id({digit.axis}) indexes no grid dim here (it steps a "
                "persistent loop, or nothing else reads it)",
                "split the program id into tiles with % and // by the tile counts",
            )
        div = self.host_ir(digit.div, node)
        value = pid if div == ir.Const(1) else ir.BinOp("//", pid, div)
        if digit.mod is not None:
            value = ir.BinOp("%", value, self.host_ir(digit.mod, node))
        return value

    def check_digit_split(self, sym: str, radix: ir.Expr) -> None:
        """A strided loop from tile ``digit`` in steps of ``S`` visits every tile once over the
        programs only if the digit takes ``S`` values."""
        for digit, start, step, loop_node in self.digit_splits:
            if digit != sym:
                continue
            if af.strip_casts(start) != ir.Name(sym):
                raise self.error(
                    loop_node,
                    f"a loop that visits every {ir_text(step)}-th tile starts at tile "
                    f"{ir_text(start)}, not at the program-id digit "
                    f"`{ir_text(self.atoms.trees[sym])}`",
                )
            if not self.same_host(radix, self.step_ir(step, loop_node), loop_node):
                raise self.error(
                    loop_node,
                    f"the tiles of this loop are split over the program-id digit "
                    f"`{ir_text(self.atoms.trees[sym])}` in steps of {ir_text(step)}, but the "
                    f"digit takes {ir_text(radix)} values: every tile is visited once only for "
                    "as many programs as the step",
                    "split the program id by the loop's step (`pid % SPLIT_K`)",
                )

    def _grid_quotient(self, axis: int, count: ir.Expr, node) -> ir.Expr:
        """``X`` where the grid's axis launches ``count * X`` programs."""
        grid = self.launch.grid
        g = self.host.canonical(grid[axis]) if axis < len(grid) else None
        if isinstance(g, ir.BinOp) and g.op == "*":
            for a, b in ((g.lhs, g.rhs), (g.rhs, g.lhs)):
                if self.same_host(a, count, node):
                    return b
        raise self.error(
            node,
            f"cannot tell how many programs the leading digit of "
            f"tl.program_id({axis}) counts: the grid launches "
            f"{ir_text(grid[axis]) if g is not None else 'nothing'} along it",
            "launch the product of the digit counts",
        )

    def block_ir(self, tile: Tile) -> ir.Expr:
        return self.launch.block_host_expr(tile.key)

    def check_grid_axis(self, axis: int, expected: ir.Expr, node, shown: ir.Expr) -> None:
        if self.launch.derived:
            # A derived wrapper launches exactly one program per tile: this many.
            self.launch.derived_axes[axis] = shown
            return
        grid = self.launch.grid
        if axis >= len(grid):
            raise self.error(node, f"the grid has no axis {axis}")
        if not self.same_host(grid[axis], expected, node):
            raise self.error(
                node,
                f"the grid launches {ir_text(grid[axis])} programs along axis {axis}, but "
                f"the kernel's tiles need {ir_text(shown)}",
                "launch one program per tile: triton.cdiv(n, meta['BLOCK'])",
            )

    def finish(self, body: tuple[ir.Stmt, ...]) -> tuple[ir.Stmt, ...]:
        """Resolve program-id and loop-counter placeholders now that every tile is known."""
        loop_tiles: dict[str, Tile] = {}
        for t in self.tiles.values():
            if t.base is not None and kind_of(t.base) is SymKind.ITER:
                loop_tiles[t.base] = t

        def fn(name: str) -> ir.Expr | None:
            sym = parse_sym(name)
            kind = sym.kind if sym is not None else None
            if kind is SymKind.PID:
                axis = sym.index  # type: ignore[union-attr]
                role = self.pid_roles.get(axis)
                if role == "tile":
                    return ir.TileAttr(self.pid_tiles[axis].name, "id")
                if role == "scalar":
                    return ir.Name(self.grid_names[axis][0])
                raise self.error(
                    None,
                    f"tl.program_id({axis}) is used in a way the frontend cannot map to the grid",
                )
            if kind is SymKind.NUM_PROGRAMS:
                return self.num_programs_ir(sym.index)  # type: ignore[union-attr,arg-type]
            if kind is SymKind.ITER:
                if name in self.scalar_loops:
                    return ir.Name(self.scalar_loops[name])
                t = loop_tiles.get(name)
                if t is None:
                    raise self.error(None, "a loop counter is used outside its loop's tile")
                return ir.TileAttr(t.name, "id")
            if kind is SymKind.SWIZZLE:
                which = sym.name  # type: ignore[union-attr]
                return ir.TileAttr(self.swizzle_tiles[which].name, "id")  # type: ignore[index]
            if kind is SymKind.ROW:
                assert self.persistent is not None
                return ir.Name(self.persistent[1])
            if kind is SymKind.DATA:
                return self.data[name][0]
            if name in self.digit_vars:
                return self.digit_vars[name]
            return None

        def expr(e: ir.Expr) -> ir.Expr:
            return map_names(e, fn, pid_index)

        def grid_index(v: ir.Expr) -> ir.IndexItem | None:
            """An index by the program id of a scalar grid dim: that grid dim."""
            pid = sym_of(v)
            if pid is None or pid.kind is not SymKind.PID or pid.index is None:
                return None
            if self.pid_roles.get(pid.index) != "scalar":
                return None
            return ir.TileIndex(self.grid_names[pid.index][0])

        def pid_index(item: ir.IndexItem) -> ir.IndexItem:
            if isinstance(item, ir.ScalarIndex):
                by_grid = grid_index(item.value)
                if by_grid is not None:
                    return by_grid
            return item

        def index(item: ir.IndexItem) -> ir.IndexItem:
            if isinstance(item, ir.ScalarIndex):
                v = item.value
                by_grid = grid_index(v)
                if by_grid is not None:
                    return by_grid
                if isinstance(v, ir.Name) and isinstance(self.digit_vars.get(v.id), ir.Name):
                    return ir.TileIndex(self.digit_vars[v.id].id)
                return ir.ScalarIndex(expr(v))
            if isinstance(item, ir.GatherIndex):
                return ir.GatherIndex(expr(item.value))
            return item

        return tuple(map_stmt(s, expr, index) for s in body)


def _opaque(e: ir.Expr) -> bool:
    return any(isinstance(x, ir.Name) and x.id.startswith("?") for x in af.walk(e))
