"""Tiles: the lanes ``block * id + tl.arange(0, block)`` recovered from offsets, and their shapes.

A tile is keyed by its base symbol (a program id, a loop counter, a swizzled id, a program-id
digit, or none for a whole dim) and its block size; its extent is set by the first mask that
bounds it.
"""

from __future__ import annotations

import contextlib

import libcst as cst

from translator.diagnostics import TranslationError
from translator.dialects.cst_utils import call_args
from translator.dialects.triton import frontend_affine as af
from translator.dialects.triton.frontend_affine import ir_text
from translator.dialects.triton.host_values import Binding
from translator.dialects.triton.lift_dispatch import handles
from translator.dialects.triton.lifted import Idx, Loop, Refusal, Tile, Val
from translator.dialects.triton.symbols import Sym, SymKind, kind_of, parse_lane, parse_sym, sym_of
from translator.ir import nodes as ir
from translator.ir.shapes import ScalarType
from translator.naming import unique

# Symbols that can be the id of a tile: a program id, a loop counter, a swizzled id (a program-id
# digit is an atom, told by its tree).
_TILE_IDS = (SymKind.PID, SymKind.ITER, SymKind.SWIZZLE)
# Symbols a strided loop's first tile and step may not hold (loop counters, lanes, loaded data,
# opaque atoms): they must be the same in every iteration and lane.
_NOT_IN_STRIDES = (SymKind.ITER, SymKind.LANE, SymKind.DATA, SymKind.ATOM)


class TilesMixin:
    """Tiles, block sizes and the ranks of index trees of :class:`KernelLifter`."""

    @handles("arange")
    def arange(self, name: str, node: cst.Call) -> Val:
        """``tl.arange(0, B)``: the lanes of block ``B`` along the last axis."""
        args, kwargs = call_args(node)
        if len(args) != 2 or kwargs:
            raise self.error(node, "tl.arange(start, end) takes two arguments")
        start = self.ev(args[0])
        if not (isinstance(start, Idx) and start.tree == ir.Const(0)):
            raise self.error(
                node, "tl.arange must start at 0", "write `start + tl.arange(0, BLOCK)`"
            )
        return Idx(Sym.lane(self.block_key(args[1]), -1).expr)

    def rank_of(self, tree: ir.Expr) -> int:
        r = 0
        for s in af.symbols_in(tree):
            lane = parse_lane(s)
            if lane is not None:
                r = max(r, -lane[1])
            elif s in self.data:
                r = max(r, len(self.data[s][1]))
        return r

    def expand_tree(self, tree: ir.Expr, items: list[str]) -> ir.Expr:
        rank = self.rank_of(tree)
        new_rank = len(items)
        positions = [i for i, it in enumerate(items) if it == ":"]

        def new_axis(axis: int) -> int:
            return positions[rank + axis] - new_rank

        def fn(name: str) -> ir.Expr | None:
            lane = parse_lane(name)
            if lane is not None:
                return Sym.lane(lane[0], new_axis(lane[1])).expr
            if name in self.data:
                expr, dshape = self.data[name]
                if not dshape:
                    return None  # a scalar broadcasts along any new axis as it is
                pad = rank - len(dshape)
                shape = [1] * new_rank
                for i, k in enumerate(dshape):
                    shape[positions[pad + i]] = k
                return self.data_symbol(self._expand_data(expr, dshape, items, rank), tuple(shape))
            return None

        return af.rename(tree, fn)

    def _expand_data(self, expr: ir.Expr, dshape: tuple, items: list[str], rank: int) -> ir.Expr:
        # Broadcast the data value to the tree's rank first (leading unit dims), then insert.
        e = expr
        for _ in range(rank - len(dshape)):
            e = ir.ExpandDims(e, 0)
        for pos, it in enumerate(items):
            if it == "new":
                e = ir.ExpandDims(e, pos)
        return e

    def data_symbol(self, expr: ir.Expr, shape: tuple) -> ir.Name:
        if isinstance(expr, ir.Name) and not shape:
            # One symbol per loaded scalar, so that `start + ...` and a mask's `... < end`
            # compare as polynomials (a jagged loop's bounds).
            for sid, (e, sh) in self.data.items():
                if e == expr and not sh:
                    return ir.Name(sid)
        sid = Sym.data(len(self.data)).text
        self.data[sid] = (expr, shape)
        self.types.vars[sid] = ScalarType(ir.I32)
        return ir.Name(sid)

    def key_of_dim(self, d: ir.Dim) -> af.Key:
        if isinstance(d, ir.UnitDim):
            return 1
        for t in self.tiles.values():
            if t.dim == d or (
                isinstance(d, ir.FullDim) and t.base is None and t.extent == d.extent
            ):
                return t.key
        return f"?{d}"

    def key_tree(self, key: af.Key) -> ir.Expr:
        return ir.Const(key) if isinstance(key, int) else ir.Name(self.key_symbol(key))

    def key_symbol(self, key: str) -> str:
        """The symbol block size ``key`` stands for in offsets (an opaque constexpr's own)."""
        b = self.launch.bindings.get(key)
        if b is not None and b.kind == "opaque":
            return Sym.opaque(key).text
        return Sym.param(key).text

    def block_key(self, node: cst.BaseExpression) -> af.Key:
        if isinstance(node, cst.Integer):
            return int(node.evaluated_value)
        derived = self.derived_block_key(node)
        if derived is not None:
            return derived
        if isinstance(node, cst.Name):
            v = self.env.get(node.value)
            b = self.launch.bindings.get(node.value)
            constexpr = node.value in self.launch.kernel.constexprs
            if (
                b is not None
                and isinstance(v, Idx)
                and (b.kind == "constexpr" or (b.kind == "opaque" and constexpr))
            ):
                return node.value
            param = sym_of(v.tree) if isinstance(v, Idx) else None
            if param is not None and param.kind is SymKind.PARAM:
                pb = self.launch.bindings.get(param.name)  # type: ignore[arg-type]
                if pb is not None and pb.kind == "constexpr":
                    return param.name  # type: ignore[return-value]
        raise self.error(
            node,
            f"block size `{self.src(node)}` must be a tl.constexpr parameter or an integer literal",
            f"declare it `{self.src(node)}: tl.constexpr` (tl.arange needs a compile-time size)",
        )

    def derived_block_key(self, node: cst.BaseExpression) -> af.Key | None:
        """A block size spelt as arithmetic of compile-time sizes (``pad_hd // 2``, ``2 *
        BLOCK``, Liger's half-head tiles): a block of its own, bound to the host value of the
        expression, as if the launch passed it to a constexpr parameter. The host value
        decides what it is (a constant, or half of ``next_power_of_2(n)``: the whole of
        ``n // 2``); what it cannot follow is refused there."""
        op = _BLOCK_OPS.get(type(node.operator)) if isinstance(node, cst.BinaryOperation) else None
        if op is None:
            return None
        assert isinstance(node, cst.BinaryOperation)
        parts = []
        for side in (node.left, node.right):
            k = self.block_key(side)
            if isinstance(k, int):
                parts.append(ir.Const(k))
                continue
            b = self.launch.bindings.get(k)
            if b is None or b.kind != "constexpr" or b.expr is None:
                return None
            parts.append(b.expr)
        if all(isinstance(p, ir.Const) for p in parts):
            value = eval_int(op, parts[0].value, parts[1].value)  # type: ignore[union-attr]
            return value if value is not None and value > 0 else None
        key = self.launch.derived_keys.get(self.src(node))
        if key is None:
            base = "_".join(str(self.block_key(x)) for x in (node.left, node.right))
            key = unique(f"{base}_{_BLOCK_OP_WORDS[op]}", set(self.launch.bindings))
            self.launch.derived_keys[self.src(node)] = key
            self.launch.bindings[key] = Binding("constexpr", expr=ir.BinOp(op, *parts))
        return key

    def register_tiles(self, tree: ir.Expr) -> None:
        """Recognise tiles in an offset as soon as it is computed (``pid * B + tl.arange(0, B)``)."""
        for sub in af.walk(tree):
            if isinstance(sub, ir.BinOp) and sub.op == "%":
                self.register_tiles(sub.lhs)
        p = af.poly(tree, self.atoms)
        for m in list(p):
            for s in m:
                lane = parse_lane(s)
                if lane is not None and len(m) == 1 and p[m] == 1:
                    with contextlib.suppress(Refusal):
                        self.tile_form(p, lane, None, strict=False)

    def tile_form(
        self, p: af.Poly, lane: tuple[af.Key, int], node, strict: bool = True
    ) -> tuple[Tile, af.Poly] | None:
        """Find ``block * base + lane`` in ``p``: the tile and the remaining terms."""
        key, axis = lane
        lid = Sym.lane(key, axis).text
        if p.get((lid,)) != 1:
            return None
        rest = dict(p)
        del rest[(lid,)]
        if rest and self.in_while():
            at = self.at_tile_form(rest, key, node, strict)
            if at is not None:
                return at, {}
        if len(rest) > 1 and any(kind_of(s) is SymKind.ITER for m in rest for s in m):
            strided = self.strided_form(rest, key, node, strict)
            if strided is not None:
                return strided, {}
        base_sym = None
        for m, c in list(rest.items()):
            syms = list(m)
            if isinstance(key, int):
                if len(syms) == 1 and c == key and self._is_base(syms[0]):
                    base_sym = syms[0]
            elif len(syms) == 2 and c == 1 and self.key_symbol(key) in syms:
                other = syms[0] if syms[1] == self.key_symbol(key) else syms[1]
                if self._is_base(other):
                    base_sym = other
            if base_sym is not None:
                del rest[m]
                break
        tile = self.tile_for(key, base_sym, node, strict)
        if tile is None:
            return None
        loop = self.loop_of(base_sym) if base_sym is not None else None
        if (
            rest
            and loop is not None
            and loop.origin is not None
            and af.same_poly(rest, af.poly(loop.origin, self.atoms))
        ):
            # `start + B * it + arange(B)`: the loop's own start, not a shift of the lanes.
            tile.offset = loop.origin
            rest = {}
        return tile, rest

    def strided_form(self, rest: af.Poly, key: af.Key, node, strict: bool) -> Tile | None:
        """``block * (start + step * it) + lane``: tile ``start + step * j`` at iteration ``j`` of
        a loop (split-K: program ``pid_k`` takes K tiles ``pid_k, pid_k + SPLIT_K, ...``)."""
        if isinstance(key, int):
            q: af.Poly | None = (
                {m: c // key for m, c in rest.items()}
                if all(c % key == 0 for c in rest.values())
                else None
            )
        else:
            q = af.divide_by(rest, self.key_symbol(key))
        if not q:
            return None
        for loop in reversed(self.loops):
            it = Sym.loop_counter(loop.id).text
            moving = {m: c for m, c in q.items() if it in m}
            start = {m: c for m, c in q.items() if it not in m}
            step = af.divide_by(moving, it) if moving else None
            if not step or not start:
                continue
            # The first tile may be a program-id digit (`pid % split_k`, a flattened grid's
            # split axis); the step is the same in every program.
            if any(kind_of(s) in _NOT_IN_STRIDES for s in af.poly_symbols(step)) or any(
                kind_of(s) in _NOT_IN_STRIDES and self.flat_digit(s) is None
                for s in af.poly_symbols(start)
            ):
                return None
            tile = self.tile_for(key, it, node, strict)
            if tile is None:
                return None
            start_tree, step_tree = af.poly_expr(start), af.poly_expr(step)
            if tile.step is None:
                tile.start, tile.step = start_tree, step_tree
            elif not (
                af.same_poly(af.poly(tile.start, self.atoms), start)
                and af.same_poly(af.poly(tile.step, self.atoms), step)
            ):
                if strict:
                    raise self.error(
                        node, f"the loop over `{loop.var}` visits two different sequences of tiles"
                    )
                return None
            return tile
        return None

    def _is_base(self, s: str) -> bool:
        return kind_of(s) in _TILE_IDS or self.flat_digit(s) is not None

    def flat_digit(self, s: str) -> af.FlatDigit | None:
        """The program-id digit atom ``s`` stands for (``pid % n``...), if it is one."""
        if s in self.digits:
            return self.digits[s]
        if kind_of(s) is not SymKind.ATOM:
            return None
        digit = af.match_flat_digit(self.atoms.trees[s])
        if digit is not None:
            self.digits[s] = digit
            self.types.vars[s] = ScalarType(ir.I32)
        return digit

    def tile_for(self, key: af.Key, base: str | None, node, strict: bool) -> Tile | None:
        ident = (base, key)
        tile = self.tiles.get(ident)
        if tile is not None:
            if base is not None:
                loop = self.loop_of(base)
                if loop is not None and loop.tile is None:
                    loop.tile = tile
            if tile.base is not None and tile.name not in self.types.tiles:
                self.types.bind_tile(ir.TileVar(tile.name, ir.Const(0), tile.block or ir.Const(1)))
            return tile
        block = self.launch.block_of(key, node, base is None)
        if base is None:
            if block.kind != "full":
                if strict:
                    value = block.expr
                    if value is not None:
                        value = self.launch.host.canonical(value)
                    raise self.error(node, *_unoffset_lanes(key, value))
                return None
            name = unique("full_" + _suffix(key), set())  # never an IR name
            tile = Tile(
                name,
                key,
                None,
                None,
                True,
                full_extent=block.full_extent,
                node=node,
                padded=block.padded,
            )
            if not block.padded:
                tile.extent = block.full_extent
            self.tiles[ident] = tile
            return tile
        if block.kind == "full":
            if strict:
                raise self.error(
                    node,
                    f"block size {key} = {ir_text(block.expr)} is computed on "
                    "the host; the IR needs a tunable or a constant here",
                    "pass a literal block size or autotune it",
                )
            return None
        sym = parse_sym(base)
        kind = sym.kind if sym is not None else None
        if kind is SymKind.PID:
            axis = sym.index  # type: ignore[union-attr]
            role = self.pid_roles.get(axis)
            if role not in (None, "tile"):
                if strict:
                    raise self.error(
                        node, f"program id {axis} steps a persistent loop and offsets a tile"
                    )
                return None
            if axis in self.pid_tiles and self.pid_tiles[axis].key != key:
                if strict:
                    raise self.error(node, f"program id {axis} tiles with two block sizes")
                return None
            self.pid_roles[axis] = "tile"
        if kind is SymKind.ITER:
            loop = self.loop_of(base)
            if loop is None:
                return None
            if loop.tile is not None:
                if strict:
                    raise self.error(node, f"the loop over `{loop.var}` tiles with two blocks")
                return None
        if base in self.digits and base in self.digit_tiles:
            if strict:
                raise self.error(
                    node,
                    f"the program-id digit `{ir_text(self.atoms.trees[base])}` "
                    "offsets tiles of two block sizes",
                )
            return None
        suffix = _suffix(key)
        if not suffix:
            if kind is SymKind.ITER:
                suffix = self.loop_of(base).var  # type: ignore[union-attr]
            elif kind is SymKind.SWIZZLE:
                suffix = sym.name  # type: ignore[union-attr]
        name = unique("tile_" + suffix if suffix else "tile", self.taken)
        tile = Tile(name, key, base, block.block, block.exact, node=node)
        self.tiles[ident] = tile
        if kind is SymKind.PID:
            self.pid_tiles[sym.index] = tile  # type: ignore[union-attr,index]
        elif kind is SymKind.ITER:
            self.loop_of(base).tile = tile  # type: ignore[union-attr]
        elif base in self.digits:
            self.digit_tiles[base] = tile
        else:
            self.swizzle_tiles[sym.name] = tile  # type: ignore[union-attr,index]
        if isinstance(tile.block, str):
            self.types.vars.setdefault(tile.block, ScalarType(ir.I32, weak=True))
        self.types.bind_tile(ir.TileVar(name, ir.Const(0), tile.block or ir.Const(1)))
        return tile

    def tile_index_poly(self, tile: Tile, axis: int) -> af.Poly:
        lid = Sym.lane(tile.key, axis).text
        p: af.Poly = {(lid,): 1}
        if tile.at is not None:
            return af._add(p, af.poly(ir.BinOp("*", self.key_tree(tile.key), tile.at), self.atoms))
        if tile.offset is not None:
            p = af._add(p, af.poly(tile.offset, self.atoms))
        if tile.step is not None:
            assert tile.base is not None and tile.start is not None
            ids = ir.BinOp("+", tile.start, ir.BinOp("*", tile.step, ir.Name(tile.base)))
            return af._add(p, af.poly(ir.BinOp("*", self.key_tree(tile.key), ids), self.atoms))
        if tile.base is not None:
            if isinstance(tile.key, int):
                p[(tile.base,)] = tile.key
            else:
                p[tuple(sorted((self.key_symbol(tile.key), tile.base)))] = 1
        return p

    def set_extent(self, tile: Tile, bound: ir.Expr, node) -> None:
        loaded = any(kind_of(s) is SymKind.DATA for s in af.symbols_in(bound))
        if tile.offset is not None or (
            loaded and tile.base is not None and kind_of(tile.base) is SymKind.ITER
        ):
            # A loop tile from a loaded start, or up to a loaded end (a jagged row's, a batch's
            # longest row): the bound stays an index tree, checked against the loop's stop.
            if tile.extent is None:
                tile.extent = bound
            elif not af.same_poly(af.poly(bound, self.atoms), af.poly(tile.extent, self.atoms)):
                raise self.error(
                    node,
                    f"tile `{tile.name}` is bounded by {ir_text(tile.extent)} in "
                    f"one mask and by {ir_text(bound)} in another",
                    "bound every access of a tile by the same extent",
                )
            return
        host = self.host_ir(bound, node)
        if tile.extent is None:
            if (
                tile.base is None
                and tile.full_extent is not None
                and not self.same_host(host, tile.full_extent, node)
            ):
                sized = (
                    f"spans the whole of {ir_text(tile.full_extent)}"
                    if tile.key in self.launch.derived_keys.values()
                    else f"is next_power_of_2({ir_text(tile.full_extent)})"
                )
                raise self.error(
                    node,
                    f"the mask bounds tl.arange(0, {tile.key}) by {ir_text(host)}, but "
                    f"{tile.key} {sized}",
                    "bound the lanes by the size the block was computed from",
                )
            tile.extent = host
            return
        if not self.same_host(host, tile.extent, node):
            raise self.error(
                node,
                f"tile `{tile.name}` is bounded by {ir_text(tile.extent)} in "
                f"one mask and by {ir_text(host)} in another",
                "bound every access of a tile by the same extent",
            )

    def tile_of_dim(self, dim: ir.Dim) -> Tile | None:
        if isinstance(dim, ir.BlockDim):
            return next((t for t in self.tiles.values() if t.name == dim.tile), None)
        return None

    def _in_scope(self, t: Tile) -> bool:
        if t.at is not None:
            return not t.closed
        if t.base is None or kind_of(t.base) is not SymKind.ITER:
            return True
        return self.loop_of(t.base) is not None

    def loop_of(self, counter: str) -> Loop | None:
        """The enclosing loop whose iteration counter symbol is ``counter``, if any."""
        sym = parse_sym(counter)
        if sym is None or sym.kind is not SymKind.ITER:
            return None
        return next((lp for lp in self.loops if lp.id == sym.index), None)

    def dims_of_keys(
        self, keys: list[af.Key], known: tuple[ir.Dim, ...], node
    ) -> tuple[ir.Dim, ...]:
        """The dims a shape of block sizes names (``(BLOCK_M, BLOCK_N)``), by the tiles in
        scope (unique per block size) or the value's own dims."""
        out: list[ir.Dim] = []
        for k in keys:
            if k == 1:
                out.append(ir.UnitDim())
                continue
            mine = [x for x in known if self.key_of_dim(x) == k]
            cands = [
                t
                for t in self.tiles.values()
                if t.key == k and self._in_scope(t) and (t.base is not None or t.extent is not None)
            ]
            if mine:
                out.append(mine[0])
            elif len(cands) == 1:
                out.append(cands[0].dim)
            else:
                raise self.error(node, f"cannot tell which tile the block size {k} names here")
        return tuple(out)

    def proven_exact(self, tile: Tile, node) -> bool:
        """Whether an enclosing branch proves ``tile``'s extent a multiple of its block, so an
        access needs no mask along it (the lanes are all in bounds)."""
        for facts in self.facts:
            for key, extent in facts:
                if key != tile.key or tile.base is None:
                    continue
                if tile.extent is None:
                    tile.extent = extent
                    return True
                if self.same_host(extent, tile.extent, node):
                    return True
        return False

    def host_proves_whole_blocks(self, tile: Tile, size: ir.Expr, node) -> bool:
        """Whether a host check before the launch (``assert n % BLOCK == 0``) makes ``size``,
        the size of the dim ``tile`` indexes, a multiple of its block, so every block of the
        tile lies wholly in the tensor and an access needs no mask along it. The tile's extent
        becomes that size (the IR's accesses stay masked: the same numbers on every size the
        host accepts)."""
        if tile.base is None or tile.offset is not None or kind_of(tile.base) is SymKind.ITER:
            return False
        try:
            block = self.launch.block_host_expr(tile.key)
        except TranslationError:
            return False
        if not (self._tuned_to_one(tile) or self.host.divides(size, block)):
            return False
        if tile.extent is None:
            tile.extent = size
        elif not self.host.same_size(tile.extent, size):
            return False
        tile.whole_blocks = True
        return True

    def _tuned_to_one(self, tile: Tile) -> bool:
        """Whether every autotune config sets the tile's block to 1 (FlagGems' row blocks of
        ``BLOCK_ROW_SIZE: 1``): one lane per program, which ``cdiv(n, 1)`` programs keep in
        bounds."""
        b = self.launch.bindings.get(str(tile.key))
        if b is None or not b.tuned:
            return False
        values = [meta.get(tile.key) for meta, _ in self.launch.kernel.configs or []]
        return bool(values) and all(v == 1 for v in values)

    def unmasked_hint(self, tile: Tile, size: ir.Expr | None) -> str:
        """What makes an unmasked access along ``tile`` provable: a mask, or, for a program's
        tile of a dim of known size, the host check that the size is a multiple of the block."""
        hint = "mask with `offs < n` for every tiled dim (`& `-combine them)"
        if size is None or tile.base is None or kind_of(tile.base) is SymKind.ITER:
            return hint
        block = self.launch.texts.get(str(tile.key), str(tile.key))
        n = self.host_size_text(size)
        b = self.launch.bindings.get(str(tile.key))
        canon = self.host.canonical(b.expr) if b is not None and b.expr is not None else None
        if isinstance(canon, ir.Name) and canon.id in self.launch.host_parameters:
            # A block the caller passes in is a tunable standing in for it: no host check
            # on the caller's value says anything of the block the translation runs with.
            return (
                f"{hint}; a host check such as `{n} % {block} == 0` does not prove it here: "
                f"{tile.key} is `{block}`, a value the wrapper receives, which the IR holds as "
                f"a tunable block; launch with a literal block ({tile.key}=128) and check "
                f"`{n} % 128 == 0` before the launch"
            )
        if tile.extent is not None and not self.host.same_size(tile.extent, size):
            m = self.host_size_text(tile.extent)
            return (
                f"{hint}, or have the host assert that `{n}` equals `{m}`, the extent of "
                f"the tile's other accesses (`assert {n} == {m}`)"
            )
        return (
            f"{hint}, or have the host check before the launch that `{n}` is a multiple of "
            f"the block (`assert {n} % {block} == 0`, and launch `{n} // {block}` programs)"
        )

    def host_size_text(self, size: ir.Expr) -> str:
        """``size`` (a host tensor dim's size) as the source spells it: ``x.numel()`` for the
        flat view of ``x``, ``x.shape[d]`` for a dim of ``x``."""
        if isinstance(size, ir.SizeOf):
            for t in self.host.tensors.values():
                if t.flat == size.tensor:
                    return f"{t.source}.numel()"
            t = self.host.tensors.get(size.tensor)
            if t is not None:
                return f"{t.source}.shape[{size.dim}]"
        return ir_text(size)

    def _tile_text(self, tile: Tile) -> str:
        if tile.base is None:
            return f"tl.arange(0, {tile.key})"
        return f"tile `{tile.name}` (block {tile.key})"

    def _dim_text(self, dim: ir.Dim) -> str:
        return dim.tile if isinstance(dim, ir.BlockDim) else f"the whole dim {dim}"


_BLOCK_OPS: dict[type, str] = {
    cst.FloorDivide: "//",
    cst.Multiply: "*",
    cst.Add: "+",
    cst.Subtract: "-",
}
_BLOCK_OP_WORDS = {"//": "div", "*": "mul", "+": "add", "-": "sub"}


def eval_int(op: str, a: object, b: object) -> int | None:
    """``a op b`` of two integer block sizes (``None`` for non-integers or ``// 0``)."""
    if not (isinstance(a, int) and isinstance(b, int)):
        return None
    if op == "//":
        return a // b if b else None
    return {"*": a * b, "+": a + b, "-": a - b}[op]


def _suffix(key: af.Key) -> str:
    if isinstance(key, int):
        return ""
    k = key.lower()
    for prefix in ("block_size_", "block_size", "block_", "block"):
        if k.startswith(prefix):
            return k[len(prefix) :].strip("_")
    return k


def _unoffset_lanes(key: af.Key, value: ir.Expr | None) -> tuple[str, str]:
    """The refusal of lanes ``tl.arange(0, BLOCK)`` that no program id or loop offsets, where
    BLOCK is no whole dim: what each program then covers, and the three ways to cover the dim.
    (Unsloth's ReLU launches ``BLOCK_SIZE = 1024`` over ``n_cols`` columns: each program reads
    the first 1024 elements of its row and no program the rest.)"""
    fixed = ""
    if value is not None and not isinstance(key, int):
        fixed = f"; the launch sets {key} = {ir_text(value)}, not the dim's size"
    return (
        f"the lanes of tl.arange(0, {key}) are not offset by a program id or a loop counter, "
        f"so every program covers only the first {key} elements of the dim{fixed}",
        f"for whole rows launch `{key}=triton.next_power_of_2(n)` of the dim's size n; else "
        f"offset the lanes (`pid * {key} + tl.arange(0, {key})`) or loop over the dim "
        f"(`for off in range(0, n, {key}):`)",
    )
