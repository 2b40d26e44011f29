"""``while`` loops over per-program state, and the tiles a program computes the id of inside them.

A stream-K program (Triton's stream-K examples) walks its own share of a GEMM's MAC iterations a
tile at a time: ``while start_iter < last_iter:``, the tile of the next iteration computed from
``start_iter``, the K iterations of that tile it owns (``for it in range(start_iter,
end_iter)``), the partial sum added into the output with ``tl.atomic_add``.

* The loop is an :class:`ir.While`. Names it rebinds that were bound before it and are read by
  its test or before the body writes them are *carried*: each is an IR variable (an index the
  program computed, such as ``start_iter = pid * iters_per_program``, becomes one before the
  loop), every assignment to it in the body an IR assignment. Only scalars are carried.
* Inside it, named integer scalars computed from carried values (``tile_id``, ``pid_m``) become
  IR locals too, as the source names them.
* Lanes ``B * id + tl.arange(0, B)`` whose ``id`` reads such a value (``pid_m``, or ``it -
  tile_iter`` in the K loop) are a tile the program computes the id of: the IR loop over that one
  tile (:mod:`translator.ir.single_tile`) around the statements that use it, from the first to the
  last, in the block where its offsets are computed. That loop runs no trip where the tile starts
  past the dim's end, and the source runs them with every lane masked; they must then change
  nothing (:func:`~translator.ir.single_tile.empty_is_noop`), else the tile is refused.
* ``//`` and ``%`` of computed values are Triton's (truncating) and the IR's (flooring) alike only
  for nonnegative operands: carried values count as nonnegative where they start so and every
  assignment keeps them so (an induction the lifter proves by lifting the body under that
  assumption, and again without it where an assignment breaks it).
"""

from __future__ import annotations

import contextlib

import libcst as cst

from translator.diagnostics import TranslationError
from translator.dialects.cst_utils import names_in, resolve, walk
from translator.dialects.triton import frontend_affine as af
from translator.dialects.triton.frontend_affine import ir_text
from translator.dialects.triton.lift_control import read_before_write
from translator.dialects.triton.lift_dispatch import handles_statement
from translator.dialects.triton.lift_statements import suite_body
from translator.dialects.triton.lifted import Data, Idx, Loop, Tile, Val
from translator.dialects.triton.symbols import SymKind, kind_of, parse_lane, parse_sym
from translator.ir import nodes as ir
from translator.ir import signs
from translator.ir.renaming import names_in as ir_names_in
from translator.ir.shapes import ScalarType, dims_of
from translator.ir.single_tile import empty_is_noop, tile_at
from translator.ir.visit import walk_stmts
from translator.naming import unique


class WhileMixin:
    """``while`` loops, their carried scalars and the tiles computed inside them, of
    :class:`KernelLifter`."""

    # ------------------------------------------------------------------ the loop

    @handles_statement(cst.While)
    def while_stmt(self, node: cst.While) -> None:
        """``while test: body`` over scalars the program computes (see the module doc)."""
        if node.orelse is not None:
            raise self.error(node, "while-else is not supported", "move the else part after it")
        assigned = self.assigned_names(node.body)
        tested = names_in(node.test)
        carried = sorted(
            n
            for n in assigned
            if n in self.env and (n in tested or read_before_write(n, node.body))
        )
        shadowed = {n for n in assigned if n in self.env} - set(carried)
        for name in carried:
            self.carry(name, node)
        # Carried values start nonnegative where their first value is; an assignment in the body
        # that may make one negative takes it out of the assumption, and the body is lifted again.
        assumed = {n for n in carried if self.env[n].expr.id in self.nonneg_locals}
        saved_env = dict(self.env)
        for _attempt in range(len(carried) + 1):
            snap = self.snapshot()
            self._assume_nonnegative(saved_env, carried, assumed)
            test, body = self._lift_while(node)
            broken = {n for n in assumed if not self._stays_nonnegative(saved_env[n], body)}
            if not broken:
                break
            assumed -= broken
            self.restore(snap)
        after = {n: v for n, v in saved_env.items() if n not in shadowed}
        for name in carried:
            after[name] = saved_env[name]
        self._assume_nonnegative(saved_env, carried, assumed)  # proved: an invariant
        self.loop_locals |= (assigned - set(saved_env)) | shadowed
        self.env = after
        self.out.append(ir.While(test, tuple(body), loc=self.locate(node)))

    def _assume_nonnegative(self, env: dict, carried: list[str], assumed: set[str]) -> None:
        for name in carried:
            var = env[name].expr.id
            if name in assumed:
                self.nonneg_locals.add(var)
            else:
                self.nonneg_locals.discard(var)

    def _lift_while(self, node: cst.While) -> tuple[ir.Expr, list[ir.Stmt]]:
        test_val = self.ev(node.test)
        test = self.to_data(test_val, node.test).expr
        if dims_of(self.type_of(test, node.test)):
            raise self.error(
                node.test,
                "a while condition must be a scalar, not a tile",
                "test a scalar the program computes (`start < end`)",
            )
        self.mark_pid_uses(test)
        self.loop_count += 1
        loop = Loop(self.loop_count, "", ir.Const(0), ir.Const(1), node, while_loop=True)
        body: list[ir.Stmt] = []
        self.loops.append(loop)
        try:
            self.block(list(suite_body(node.body)), body)
        finally:
            self.loops.pop()
        return test, body

    def carry(self, name: str, node: cst.While) -> None:
        """Give carried ``name`` an IR variable before the loop."""
        v = self.env[name]
        if isinstance(v, Idx) and self.rank_of(v.tree) == 0:
            self.env[name] = self.computed_scalar(name, v, node)
            return
        if isinstance(v, Data) and not dims_of(self.type_of(v.expr, node)):
            if not (isinstance(v.expr, ir.Name) and v.expr.id in self.ir_locals):
                self.env[name] = self.computed_scalar(name, v, node)
            return
        raise self.error(
            node,
            f"`{name}` is carried from one iteration of this while loop to the next, and it is "
            "not a scalar",
            "carry only scalars (counters, bounds) through a while loop; compute offsets and "
            "tiles from them inside it",
        )

    def computed_scalar(self, name: str, value: Idx | Data, node: cst.CSTNode) -> Data:
        """A new IR local holding scalar ``value`` under the source's ``name``."""
        expr = value.expr if isinstance(value, Data) else self.idx_ir(value.tree, node)
        irname = unique(name, self.taken)
        self.ir_locals.add(irname)
        self.local_depth[irname] = len(self.loops) + self.if_depth
        self.out.append(ir.Assign(irname, expr, loc=self.locate(node)))
        self.types.vars[irname] = self.type_of(expr, node)
        self.mark_pid_uses(expr)
        self.computed_locals.add(irname)
        if self.nonnegative(expr):
            self.nonneg_locals.add(irname)
        else:
            self.nonneg_locals.discard(irname)
        return Data(ir.Name(irname))

    def in_while(self) -> bool:
        """Whether a ``while`` loop encloses the statement being lifted."""
        return any(lp.while_loop for lp in self.loops)

    def bind_index(self, name: str, value: Idx, node: cst.CSTNode) -> Val:
        """What ``name = value`` binds for an index ``value``: the index itself, or, inside a
        while loop, an IR variable for a scalar computed from carried values (a carried one
        itself keeps its variable)."""
        scalar = self.rank_of(value.tree) == 0 and not self._is_bool(af.strip_casts(value.tree))
        if scalar and not self.in_while() and name in self.while_carried_names():
            # A while loop below carries it: an IR variable from its first value on, so that
            # what is computed from it before the loop reads it as the source does.
            return self.computed_scalar(name, value, node)
        if not scalar or not self.in_while():
            return value
        old = self.env.get(name)
        if (
            isinstance(old, Data)
            and isinstance(old.expr, ir.Name)
            and old.expr.id in self.ir_locals
            and self.local_depth.get(old.expr.id, -1) < len(self.loops) + self.if_depth
        ):
            return self.bind_data(name, Data(self.idx_ir(value.tree, node)), node)
        if self._reads_computed(value.tree):
            return self.computed_scalar(name, value, node)
        return value

    def while_carried_names(self) -> frozenset[str]:
        """Names some while loop of the kernel carries (rebinds after reading them)."""
        cached = getattr(self, "_while_carried", None)
        if cached is None:
            found: set[str] = set()

            def enter(n: cst.CSTNode) -> bool:
                if isinstance(n, cst.While):
                    tested = names_in(n.test)
                    found.update(
                        name
                        for name in self.assigned_names(n.body)
                        if name in tested or read_before_write(name, n.body)
                    )
                return True

            walk(self.fn, enter)
            cached = self._while_carried = frozenset(found)
        return cached

    def block_key_names(self) -> frozenset[str]:
        """Kernel parameters that size ``tl.arange`` lanes somewhere in the kernel."""
        cached = getattr(self, "_block_keys", None)
        if cached is None:
            found: set[str] = set()
            lang = f"{self.lang}.arange"

            def enter(n: cst.CSTNode) -> bool:
                if (
                    isinstance(n, cst.Call)
                    and resolve(n.func, self.aliases) == lang
                    and len(n.args) == 2
                    and isinstance(n.args[1].value, cst.Name)
                ):
                    found.add(n.args[1].value.value)
                return True

            walk(self.fn, enter)
            cached = self._block_keys = frozenset(found)
        return cached

    def block_param_ir(self, pname: str, node) -> ir.Expr | None:
        """Inside a while loop, a block size read as a value before any tile of it exists
        (``tl.cdiv(N, BLOCK_N)`` of a stream-K tile id): its tunable, as its tiles will read
        it, so that both follow one config."""
        if not self.in_while() or pname not in self.block_key_names():
            return None
        with contextlib.suppress(TranslationError):
            info = self.launch.block_of(pname, node, False)
            if isinstance(info.block, str):
                self.types.vars.setdefault(info.block, ScalarType(ir.I32, weak=True))
                return ir.Name(info.block)
        return None

    def _reads_computed(self, tree: ir.Expr) -> bool:
        for s in af.symbols_in(tree):
            value = self.data[s][0] if s in self.data else None
            if isinstance(value, ir.Name) and value.id in self.computed_locals:
                return True
            if kind_of(s) is SymKind.ATOM and self._reads_computed(self.atoms.trees[s]):
                return True
        return False

    def mark_pid_uses(self, e: ir.Expr) -> None:
        """Program ids a computed value reads are plain indices of the grid."""
        for s in af.symbols_in(e):
            sym = parse_sym(s)
            if sym is not None and sym.kind is SymKind.PID:
                self.pid_scalar_uses.add(sym.index)  # type: ignore[arg-type]

    def _stays_nonnegative(self, start: Data, body: list[ir.Stmt]) -> bool:
        var = start.expr.id  # type: ignore[attr-defined]
        return all(
            self.nonnegative(s.value)
            for s in walk_stmts(tuple(body))
            if isinstance(s, ir.Assign) and s.target == var
        )

    # ------------------------------------------------------------------ signs

    def nonnegative(self, e: ir.Expr) -> bool:
        """Whether integer ``e`` (an IR value the lifter built, placeholders and all) is never
        negative (:func:`translator.ir.signs.nonnegative`), its names by
        :meth:`_nonnegative_name`: program ids, lanes, counters from nonnegative starts, locals
        proved so, host values the launch computes from sizes."""
        return signs.nonnegative(e, _KnownNonnegative(self))

    def _nonnegative_name(self, name: str) -> bool:
        sym = parse_sym(name)
        if sym is not None:
            if sym.kind in (SymKind.PID, SymKind.NUM_PROGRAMS, SymKind.LANE, SymKind.ROW):
                return True
            if sym.kind is SymKind.ITER:
                loop = self.loop_of(name)
                return loop is not None and (
                    loop.start is None or self.nonnegative(self.scalar_ir(loop.start, None))
                )
            if name in self.data:
                return self.nonnegative(self.data[name][0])
            return False
        if name in self.ir_locals:
            return name in self.nonneg_locals
        return self.host_nonnegative(ir.Name(name))

    def host_nonnegative(self, e: ir.Expr) -> bool:
        """Whether host scalar ``e`` is never negative: sizes and what is computed from them
        (a host parameter only where the host asserts it positive)."""
        c = self.host.canonical(e)
        if isinstance(c, ir.Name):
            return self.host.is_positive(c)
        return self.nonnegative(c)

    # ------------------------------------------------------------------ tiles at computed ids

    def at_tile_form(self, rest: af.Poly, key: af.Key, node, strict: bool) -> Tile | None:
        """The tile of lanes ``B * id + arange(B)`` (``rest`` is ``B * id``) whose ``id`` reads
        a scalar the program computed in a while loop, if ``rest`` is that."""
        if isinstance(key, int):
            if not all(c % key == 0 for c in rest.values()):
                return None
            q: af.Poly | None = {m: c // key for m, c in rest.items()}
        else:
            q = af.divide_by(rest, self.key_symbol(key))
        if not q or any(parse_lane(s) is not None for s in af.poly_symbols(q)):
            return None
        tree = _readable(q)
        if not self._reads_computed(tree):
            return None
        return self.at_tile(key, q, tree, node, strict)

    def at_tile(self, key: af.Key, q: af.Poly, tree: ir.Expr, node, strict: bool) -> Tile | None:
        ident = ("@" + ir_text(tree), key)
        tile = self.tiles.get(ident)
        if tile is None:
            block = self.launch.block_of(key, node, False)
            if block.kind == "full":
                if strict:
                    raise self.error(
                        node,
                        f"block size {key} = {ir_text(block.expr)} is computed on the host; "
                        "the IR needs a tunable or a constant here",
                        "pass a literal block size or autotune it",
                    )
                return None
            suffix = str(key).lower().removeprefix("block_size").removeprefix("block").strip("_")
            name = unique("tile_" + suffix if suffix else "tile", self.taken)
            tile = Tile(name, key, ident[0], block.block, block.exact, node=node, at=tree)
            self.tiles[ident] = tile
            if isinstance(tile.block, str):
                self.types.vars.setdefault(tile.block, ScalarType(ir.I32, weak=True))
        if tile.node is None:
            tile.node = node
        if tile.home is None or tile.closed:
            # Its block: where the offsets are computed (again, when a loop body is lifted again).
            tile.home, tile.closed = self.out, False
        if tile.name not in self.types.tiles:
            self.types.bind_tile(ir.TileVar(tile.name, ir.Const(0), tile.block or ir.Const(1)))
        return tile

    def close_at_tiles(self, out: list[ir.Stmt]) -> None:
        """Put the tiles computed in block ``out`` around the statements that use them."""
        tiles = [t for t in self.tiles.values() if t.at is not None and t.home is out]
        for t in tiles:
            t.closed = True
        pending = [t for t in tiles if _span(out, t.name) is not None]
        while pending:
            spans = {t.name: _span(out, t.name) for t in pending}
            first = min(pending, key=lambda t: _length(spans[t.name]))
            group = [t for t in pending if spans[t.name] == spans[first.name]]
            start, end = spans[first.name]  # type: ignore[misc]
            self._wrap(out, start, end, group)
            pending = [t for t in pending if all(t is not g for g in group)]

    def _wrap(self, out: list[ir.Stmt], start: int, end: int, tiles: list[Tile]) -> None:
        node = tiles[0].node
        tvs = []
        for t in tiles:
            if t.extent is None:
                raise self.error(
                    t.node,
                    f"no mask bounds the lanes of {t.name}",
                    "mask loads and stores with `offs < n`",
                )
            tile_id = self.scalar_ir(t.at, node)  # type: ignore[arg-type]
            self.mark_pid_uses(tile_id)
            tvs.append(tile_at(t.name, tile_id, t.block or ir.Const(1), t.extent))
        body = tuple(out[start : end + 1])
        loop = ir.TileLoop(tuple(tvs), body, loc=self.locate(node))
        depth = len(self.loops) + self.if_depth
        before = {s.target for s in walk_stmts(tuple(out[:start])) if isinstance(s, ir.Assign)}
        outer = {
            n for n in _assigned(body) if n in before or self.local_depth.get(n, depth) < depth
        }
        names = ", ".join(t.name for t in tiles)
        if not empty_is_noop(loop, outer):
            raise self.error(
                node,
                f"the lanes of {names} start at a tile the program computes, and between their "
                "first and last use the kernel does more than a tile past the dim's end may: "
                "every store must be masked by them, and values from before may only "
                "accumulate dots along them",
                "compute the tile's values and write them back with masked stores in between",
            )
        later = set().union(*(ir_names_in(s) for s in out[end + 1 :]))
        leaked = sorted((_assigned(body) - outer) & later)
        if leaked:
            raise self.error(
                node,
                f"`{leaked[0]}` is computed while {names} is in use and read after its last use",
                f"read `{leaked[0]}` only where {names} is used",
            )
        out[start : end + 1] = [loop]


class _KnownNonnegative:
    """The names the lifter can tell are never negative, as a container."""

    def __init__(self, lifter: WhileMixin) -> None:
        self.lifter = lifter

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.lifter._nonnegative_name(name)


def _readable(q: af.Poly) -> ir.Expr:
    """``q`` as a tree with its positive terms first (``it - tile_iter``)."""
    plus = {m: c for m, c in q.items() if c > 0}
    minus = {m: -c for m, c in q.items() if c < 0}
    if not plus or not minus:
        return af.poly_expr(q)
    return ir.BinOp("-", af.poly_expr(plus), af.poly_expr(minus))


def _span(out: list[ir.Stmt], tile: str) -> tuple[int, int] | None:
    """First and last statement of ``out`` that name ``tile``, the last extended over the
    statements that read what the span computes (a dot of the tile's loads)."""
    uses = [i for i, s in enumerate(out) if tile in ir_names_in(s)]
    if not uses:
        return None
    start, end = uses[0], uses[-1]
    computed = _assigned(tuple(out[start : end + 1]))
    for i in range(end + 1, len(out)):
        if ir_names_in(out[i]) & computed:
            end = i
            computed |= _assigned((out[i],))
    return start, end


def _length(span: tuple[int, int] | None) -> int:
    assert span is not None
    return span[1] - span[0]


def _assigned(stmts: tuple[ir.Stmt, ...]) -> set[str]:
    return {s.target for s in walk_stmts(stmts) if isinstance(s, ir.Assign)}
