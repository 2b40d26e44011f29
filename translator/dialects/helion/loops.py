"""Helion frontend, device loops: a top-level ``hl.tile``/``hl.grid`` loop becomes an inline
kernel; the tile variables a loop binds (extents, begins, steps, block sizes), and the block sizes
host code sets up for the loops (``hl.register_block_size``, a block sized to the data it tiles).
The loop's body is read by :class:`translator.dialects.helion.device.DeviceParser`.

A mixin of :class:`translator.dialects.helion.frontend.EntryParser`, which holds the state the
methods read (``self.scope``, ``self.build``, ``self.sites``...); split out so that each file
reads one part of a kernel function.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from translator.diagnostics import TranslationError
from translator.dialects.common.host_code import host_atom
from translator.dialects.cst_utils import (
    call_args,
    literal_or_none,
    name_nodes,
    names_in,
    resolve,
    source_of,
    walk,
)
from translator.dialects.helion.device import DeviceParser
from translator.ir import nodes as ir
from translator.ir.ops import next_power_of_2
from translator.ir.shapes import ScalarType, dtype_of, is_float
from translator.naming import tile_suffix

#: The block Helion's default config gives a block size no config names (its default for one or
#: two tiled dims with small reductions, which the frontend takes for every block).
HELION_DEFAULT_BLOCK = 32

#: Tile attributes a tile of a block the host computes is read through (arithmetic on the
#: index of its block); its lanes (``index``) need a block known when the kernel compiles.
_SPLIT_ATTRS = ("begin", "end", "id", "count", "block_size")


def _cdiv(a: int, b: int) -> int | None:
    return -(-a // b) if b else None


def _floordiv(a: int, b: int) -> int | None:
    return a // b if b else None


#: Host integer ops a computed block size folds through, by IR op (``None``: no value).
_FOLDED_CALLS: dict[str, Callable[..., int | None]] = {
    "cdiv": _cdiv,
    "next_power_of_2": next_power_of_2,
    "minimum": min,
    "maximum": max,
}
_FOLDED_BINOPS: dict[str, Callable[[int, int], int | None]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "//": _floordiv,
}


@dataclass(frozen=True)
class ComputedBlock:
    """A block size the host computes at run time (``block_size=block_k`` after
    ``block_k = helion.next_power_of_2(helion.cdiv(k, split_k))``): ``value`` is the host
    expression (the name the source binds it to, where it does), ``node`` where it is written."""

    value: ir.Expr
    node: cst.BaseExpression


class LoopReader:
    """Device loops, their tiles and block sizes."""

    def _is_device_loop(self, node: cst.For) -> bool:
        """``for ... in hl.tile(...)``/``hl.grid(...)``."""
        it = node.iter
        fn = resolve(it.func, self.aliases) if isinstance(it, cst.Call) else None
        lang = self.grammar["frontend"]["language"]
        return fn in (lang["tile"], lang["grid"])

    def _kernel(self, node: cst.For, comments: tuple[str, ...]) -> ir.InlineKernel:
        """A top-level device loop as an inline kernel, and its launch site unless the kernel
        function is the kernel itself."""
        if node.orelse is not None:
            raise self.error(node, "for-else is not supported")
        tiles = self.tile_vars(node, top_level=True)
        self.kernels += 1
        # `_name_kernel`, also for a private `_name` (not `__name_kernel`).
        name = f"_{self.fn.name.value.lstrip('_')}_kernel" + (
            f"_{self.kernels}" if self.kernels > 1 else ""
        )
        saved = self.scope.env
        self.scope.env = saved.child()
        for t in tiles:
            self.scope.env.bind_tile(t)
        self.scope.partial_dims = []
        body = DeviceParser(self).block(node.body)
        self.scope.env = saved
        site = None
        if not self.pure:
            self.sites.append(ir.Site(self.locate.span(node), statement=True))
            site = len(self.sites) - 1
        return ir.InlineKernel(
            name,
            tiles,
            tuple(body),
            comments,
            site=site,
            partial_dims=tuple(self.scope.partial_dims),
            loc=self.locate(node),
        )

    def tile_vars(self, node: cst.For, top_level: bool) -> tuple[ir.TileVar, ...]:
        """The tile variables a ``for ... in hl.tile(...)``/``hl.grid(...)`` loop binds."""
        it = node.iter
        fn = resolve(it.func, self.aliases) if isinstance(it, cst.Call) else None
        lang = self.grammar["frontend"]["language"]
        if fn in ("helion.language.jagged_tile", lang["vtile"]):
            raise self._jagged_tile(node, it)
        if fn not in (lang["tile"], lang["grid"]):
            what = "kernel loops" if top_level else "device loops"
            raise self.error(
                node,
                f"{what} must iterate over hl.tile(...) or hl.grid(...)",
                "write `for tile in hl.tile(n):`",
            )
        assert isinstance(it, cst.Call)
        scalar = fn == lang["grid"]
        args, kwargs = call_args(it)
        targets = _target_names(node.target)
        if targets is None:
            raise self.error(
                node.target, "loop targets must be names, e.g. `for tile_m, tile_n in ...`"
            )
        begins: list[ir.Expr | None]
        step: ir.Expr | None = None
        step_node = kwargs.pop("step", None) if scalar else None
        if scalar and len(args) == 3 and step_node is None:
            step_node = args.pop()
        if step_node is not None:
            # hl.grid(begin, end, step): every step-th index (the backend's strided hl.grid).
            if top_level:
                raise self.error(
                    it,
                    "a kernel's grid cannot skip indices",
                    "launch over every index and branch on it in the body",
                )
            if len(targets) != 1 or isinstance(args[0], (cst.List, cst.Tuple)):
                raise self.error(
                    it,
                    "hl.grid with a step is read for one dimension only",
                    "loop over each dimension in a loop of its own",
                )
            step = self.build.expr(step_node)
        if len(args) == 2 and not isinstance(args[0], (cst.List, cst.Tuple)):
            begins, extents = [self.build.expr(args[0])], [self.build.expr(args[1])]
        elif len(args) == 2 and all(isinstance(a, (cst.List, cst.Tuple)) for a in args):
            # hl.tile([b0, b1], [e0, e1]): the tiles between per-dim bounds.
            begins = [self.build.expr(e.value) for e in args[0].elements]  # type: ignore[union-attr]
            extents = [self.build.expr(e.value) for e in args[1].elements]  # type: ignore[union-attr]
            if len(begins) != len(extents):
                raise self.error(it, "hl.tile's begins and ends differ in length")
        elif len(args) == 1:
            begins, extents = [], self._extents(args[0], len(targets))
            begins = [None] * len(extents)
        else:
            raise self.error(it, "hl.tile takes a size, a list of sizes, or (begin, end)")
        if len(extents) != len(targets):
            raise self.error(node, f"{len(targets)} loop targets for {len(extents)} tiled dims")
        block_node = kwargs.pop("block_size", None)
        if kwargs:
            raise self.error(it, f"unsupported hl.tile options {sorted(kwargs)}")
        blocks = self._block_specs(block_node, len(extents), it)
        tiles = []
        for target, begin, extent, block in zip(targets, begins, extents, blocks):
            if scalar:
                if step is not None and begin == ir.Const(0):
                    begin = None  # the backend spells a strided grid from 0 with its begin
                tiles.append(ir.TileVar(target, extent, ir.Const(1), begin, scalar=True, step=step))
                continue
            if isinstance(block, ComputedBlock):
                tiles.append(self._split_tile(node, target, begin, extent, block, top_level))
                self.scope.used_names.add(target)
                continue
            if block is None:
                block = self.scope.new_block_tunable("block_size_" + tile_suffix(target))
                self._bound_by_span(block, begin, extent)
            tiles.append(ir.TileVar(target, extent, block, begin))
            self.scope.used_names.add(target)
        return tuple(tiles)

    def _split_tile(
        self,
        loop: cst.For,
        target: str,
        begin: ir.Expr | None,
        extent: ir.Expr,
        block: ComputedBlock,
        top_level: bool,
    ) -> ir.TileVar:
        """A grid tile of a block the host computes, which the kernel reads only through its
        ``begin``/``end``/``id`` (split-K's outer K tile, whose lanes an inner
        ``hl.tile(outer.begin, outer.end)`` walks): the grid runs over the index of its block,
        ``cdiv(extent, block)`` of them, and its attributes are arithmetic on that index
        (:attr:`EntryScope.split_tiles`). The block is then a run-time value, as in the source."""
        written = " ".join(source_of(block.node).split())
        if not top_level or begin is not None:
            raise self.error(
                block.node,
                f"the block `{written}` is computed at run time, which only a kernel's grid "
                "tiles read only through `.begin`/`.end`/`.id` may have",
                "give the loop a block known when the kernel compiles (an int, or "
                "hl.register_block_size(...))",
            )
        reads = _lane_reads(loop.body, target)
        if reads:
            # The first in the source (the walk is depth first, not in reading order).
            lanes = min(reads, key=lambda n: _position(self.locate(n)))
            raise self.error(
                lanes,
                f"`{target}` tiles by `{written}`, a block computed at run time, and "
                f"`{source_of(lanes)}` reads its lanes: lanes need a block known when the "
                "kernel compiles",
                f"read `{target}` only through `.begin`/`.end`/`.id` (walk its lanes with "
                f"`for sub in hl.tile({target}.begin, {target}.end)`), or give hl.tile a "
                "block hl.register_block_size registers",
            )
        self.scope.split_tiles[target] = (block.value, extent)
        loc = self.locate(block.node)
        count: ir.Expr = ir.Call("cdiv", (extent, block.value), loc=loc)
        texts = [_host_text(e) for e in (extent, block.value)]
        if None not in texts:
            # The number of blocks as a host value of its own, computed before the launch in
            # plain Python: a grid extent every target takes as it is (Helion derives no
            # grid from a computed extent such as `helion.cdiv(k, block_k)`).
            name = self.scope.fresh(f"{target}_tiles")
            size, step = (host_atom(t) for t in texts)  # type: ignore[arg-type]
            # Parenthesised: launches put the text into expressions (`cdiv(m, M) * (...)`).
            self.scope.spelled[name] = f"(({size} + {step} - 1) // {step})"
            self.scope.env.vars[name] = ScalarType(ir.I32, weak=True)
            self.scope.pending_host.append(ir.Assign(name, count, loc=loc))
            count = ir.Name(name, loc=loc)
        return ir.TileVar(target, count, ir.Const(1), scalar=True)

    def _jagged_tile(self, node: cst.For, it: cst.BaseExpression) -> TranslationError:
        """``for t in hl.jagged_tile(ends)``: Helion loops to ``ends.amax()`` and masks every
        load *and store* in the body by ``t.index < ends`` per lane of the parent tile. The IR
        masks loads by a predicate, not stores, so the loop is refused with the dense form
        that computes the same."""
        args, _ = call_args(it) if isinstance(it, cst.Call) else ([], {})
        ends = source_of(args[0]) if len(args) == 1 else "ends"
        target = source_of(node.target)
        # `hl.vtile` is newer Helion's name for the same loop.
        spelt = source_of(it.func) if isinstance(it, cst.Call) else "hl.jagged_tile"
        return self.error(
            it,
            f"{spelt}({ends}) (a loop to `{ends}.amax()` whose every load and store "
            f"Helion masks by `{target}.index < {ends}` per lane) is not read: the IR masks "
            "loads by a predicate, but not stores",
            f"write the dense loop: `for {target} in hl.tile({ends}.amax()):` with "
            f"`mask = {target}.index[None, :] < {ends}[:, None]`, loads as "
            "`hl.load(x, [...], extra_mask=mask)`, and stores of `torch.where(mask, v, 0)` "
            "into a zeroed output (or loop over each row's own range, `hl.tile(start, end)` "
            "inside `hl.grid(n)`)",
        )

    def _bound_by_span(self, tunable: str, begin: ir.Expr | None, extent: ir.Expr) -> None:
        """``hl.tile(outer.begin, outer.end)`` within a tile of a fixed block: the inner loop
        never spans more than that block, so its block is searched up to it, its default the
        whole span (Helion clamps its default block to the dim it tiles)."""
        if not (
            isinstance(begin, ir.TileAttr)
            and begin.attr == "begin"
            and extent == ir.TileAttr(begin.tile, "end")
        ):
            return
        outer = self.scope.env.vars.get(begin.tile)
        block = getattr(getattr(outer, "tile", None), "block", None)
        if not isinstance(block, ir.Const) or not isinstance(block.value, int):
            return
        span = block.value
        self.scope.block_choices[tunable] = tuple(
            1 << k for k in range(span.bit_length()) if min(16, span) <= 1 << k <= span
        )
        self.scope.tunable_defaults[tunable] = span

    def _extents(self, node: cst.BaseExpression, count: int) -> list[ir.Expr]:
        if isinstance(node, (cst.List, cst.Tuple)):
            return [self.build.expr(e.value) for e in node.elements]
        name = self._shape_of_tensor(node)
        if name is not None:
            rank = self.scope.rank(name)
            if rank is None:
                # Helion yields one tile per dim of the tensor's actual rank.
                targets = f"{count} loop target{'s' if count != 1 else ''}"
                self.scope.assume_rank(name, count, f"`hl.tile({source_of(node)})` has {targets}")
            elif rank != count:
                targets = ", ".join(f"tile_{i}" for i in range(rank))
                raise self.error(
                    node,
                    f"`{name}` is {rank}-d, so hl.tile({source_of(node)}) "
                    f"yields {rank} tiles, but the loop binds {count}",
                    f"bind one loop target per dim: `for {targets} in ...`",
                )
            return [self.scope.size_expr(name, i) for i in range(count)]
        return [self.build.expr(node)]

    def _block_specs(
        self, node: cst.BaseExpression | None, n: int, where: cst.CSTNode
    ) -> list[str | ir.Const | ComputedBlock | None]:
        if node is None:
            return [None] * n
        items = (
            [e.value for e in node.elements] if isinstance(node, (cst.List, cst.Tuple)) else [node]
        )
        if len(items) != n:
            raise self.error(where, f"block_size has {len(items)} entries for {n} dims")
        out: list[str | ir.Const | ComputedBlock | None] = []
        for item in items:
            value = literal_or_none(item)
            if isinstance(value, int):
                out.append(ir.Const(value))
            elif isinstance(item, cst.Name) and item.value == "None":
                out.append(None)
            elif isinstance(item, cst.Name) and item.value in self.scope.registered_blocks:
                out.append(self.scope.registered_blocks[item.value])
            elif isinstance(item, cst.Name) and isinstance(self._int_named(item.value), int):
                # A fixed block by name (`block_m = 32`, or a module constant).
                out.append(ir.Const(self._int_named(item.value)))
            elif isinstance(item, cst.Name) and item.value in self.scope.specialized:
                raise self.error(
                    item,
                    f"block_size={item.value}, a size hl.specialize fixes per call, is not "
                    "read: a block of the IR is an int or a tunable, not a value the caller "
                    "passes",
                    f"write the block as an int (`block_size=64`, with "
                    f"`assert {item.value} == 64` on the host) or register it with "
                    f"hl.register_block_size({item.value})",
                )
            else:
                computed = self._computed_block(item)
                if computed is None:
                    raise self.error(
                        item,
                        "block_size must be an int (or a name bound once to one), None, "
                        "hl.register_block_size(...) or an integer the host computes",
                    )
                folded = self._fold_int(computed)
                out.append(
                    ir.Const(folded) if folded is not None else ComputedBlock(computed, item)
                )
        return out

    def _computed_block(self, node: cst.BaseExpression) -> ir.Expr | None:
        """The host integer a block is computed as (a name bound once to it, or the
        expression itself), or ``None`` for anything else (a name bound twice)."""
        if isinstance(node, cst.Name) and node.value in self.scope.host_values:
            value: ir.Expr = ir.Name(node.value, loc=self.locate(node))
        elif isinstance(node, cst.Name):
            return None  # bound more than once (in a branch): which value sizes the tiles?
        else:
            device, self.build.device = self.build.device, False
            try:
                value = self.build.expr(node)
            except TranslationError:
                return None
            finally:
                self.build.device = device
        t = self.build.type_of(value, node)
        if not isinstance(t, ScalarType) or is_float(dtype_of(t)) or dtype_of(t) == ir.BOOL:
            return None
        return value

    def _fold_int(self, e: ir.Expr, depth: int = 0) -> int | None:
        """The integer a host expression always is, where the kernel function's bindings say
        (``helion.cdiv(BT, n_rows)`` after ``n_rows = BT``: 1), else ``None``."""
        if depth > 32:
            return None
        if isinstance(e, ir.Const):
            v = e.value
            return v if isinstance(v, int) and not isinstance(v, bool) else None
        if isinstance(e, ir.Name):
            if e.id in self.scope.host_ints and bindings(self.fn, e.id) == 1:
                return self.scope.host_ints[e.id]
            bound = self.scope.host_values.get(e.id)
            return self._fold_int(bound, depth + 1) if bound is not None else None
        if isinstance(e, ir.Call) and e.op == "cdiv" and self._same_size(*e.args):
            # cdiv(n, n) is 1 for every n > 0, and a loop over n == 0 has no tile to size.
            return 1
        if isinstance(e, ir.Call) and e.op in _FOLDED_CALLS:
            args = [self._fold_int(a, depth + 1) for a in e.args]
            return _FOLDED_CALLS[e.op](*args) if None not in args else None  # type: ignore[arg-type]
        if isinstance(e, ir.BinOp) and e.op in _FOLDED_BINOPS:
            a, b = self._fold_int(e.lhs, depth + 1), self._fold_int(e.rhs, depth + 1)
            return _FOLDED_BINOPS[e.op](a, b) if a is not None and b is not None else None
        return None

    def _same_size(self, a: ir.Expr, b: ir.Expr) -> bool:
        """Whether host integers ``a`` and ``b`` are one value: the same size, or names bound
        once to it (``n_rows = BT``)."""
        return self._alias_root(a) == self._alias_root(b)

    def _alias_root(self, e: ir.Expr, depth: int = 0) -> ir.Expr:
        while isinstance(e, ir.Name) and depth < 32:
            bound = self.scope.host_values.get(e.id)
            if not isinstance(bound, (ir.Name, ir.SizeOf)):
                break
            e, depth = bound, depth + 1
        return self.scope.canonical(e)

    def _int_named(self, name: str) -> int | None:
        """The integer a host name holds: bound once in the kernel function, to a literal, or
        a module constant the function never binds (a name bound twice, or in a branch, could
        hold another block than the literal says)."""
        bound = bindings(self.fn, name)
        if name in self.scope.host_ints and bound == 1:
            return self.scope.host_ints[name]
        value = self.build.numbers.get(name)
        if bound == 0 and isinstance(value, int) and not isinstance(value, bool):
            return value
        return None

    def _fitted_block(self, name: str, call: cst.Call) -> list[ir.Stmt] | None:
        """``bs = min(cap, helion.next_power_of_2(hl.specialize(n)))``: a block sized to the data
        it tiles, at most ``cap`` lanes (the form the backend writes for such a block), or
        ``None`` for any other call."""
        if not (isinstance(call.func, cst.Name) and call.func.value == "min"):
            return None
        args, kwargs = call_args(call)
        if len(args) != 2 or kwargs:
            return None
        caps = [a for a in args if isinstance(literal_or_none(a), int)]
        sizes = [a for a in args if isinstance(a, cst.Call)]
        if len(caps) != 1 or len(sizes) != 1:
            return None
        size = sizes[0]
        power = resolve(size.func, self.aliases)
        inner, _ = call_args(size)
        if power != "helion.next_power_of_2" or len(inner) != 1:
            return None
        spec = inner[0]
        if not (
            isinstance(spec, cst.Call)
            and resolve(spec.func, self.aliases)
            == self.grammar["frontend"]["language"]["specialize"]
        ):
            return None
        self.build.expr(call_args(spec)[0][0])  # a size the kernel can read
        cap = literal_or_none(caps[0])
        assert isinstance(cap, int)
        self._remove_line(call, "min", "the kernels size this block themselves")
        tunable = self.scope.fresh(name)
        self.scope.fitted_blocks[tunable] = cap
        self.scope.registered_blocks[name] = tunable
        self.scope.env.vars[tunable] = ScalarType(ir.I32, weak=True)
        return []

    def _read_by_host(self, name: str) -> bool:
        """Whether host statements of the kernel function (outside its device loops, and
        other than the one binding it) read ``name``."""
        for node in self.fn.body.body:
            if isinstance(node, cst.For) and self._is_device_loop(node):
                continue
            if isinstance(node, cst.SimpleStatementLine) and node is self.current_line:
                continue
            if any(n.value == name for n in name_nodes(node)):
                return True
        return False

    def _host_fixed_block(
        self, name: str, tunable: str, value: int, call: cst.Call
    ) -> list[ir.Stmt]:
        """``bs = hl.register_block_size(n)`` where host code reads ``bs`` (sizes a buffer of
        per-block partials by it): the host must know the block before the launch, so the
        translation fixes it, as a Triton author would: the first config's value, else Helion's
        default, a plain int the host and the loops it sizes share. The tunable keeps its slot
        in Helion's config numbering, and configs that chose another block are left out of the
        search (:attr:`EntryScope.fixed_blocks`)."""
        slot = self.scope.block_order.index(tunable)
        chosen = _first_config_block(self.config_nodes, slot)
        value = chosen if chosen is not None else value
        where = "the first config's" if chosen is not None else "Helion's default"
        self.scope.fixed_blocks[tunable] = value
        return self._fixed_on_host(
            name, value, call, f"host code sizes a buffer by it, so it is fixed at {where} block"
        )

    def _fixed_on_host(self, name: str, value: int, call: cst.Call, why: str) -> list[ir.Stmt]:
        """``name = <call>`` read as ``name = value``: a host int the kernels share, its call
        replaced by the number in the carried host code with a note saying ``why``."""
        self.scope.host_ints[name] = value
        self.scope.env.vars[name] = ScalarType(ir.I32, weak=True)
        self.scope.used_names.add(name)
        self.edits.append(
            ir.HostEdit(
                "replace",
                self.locate.span(call),
                text=str(value),
                note=f"tiletrans: was `{' '.join(source_of(call).split())}`: {why}",
            )
        )
        return [ir.Assign(name, ir.Const(value), loc=self.locate(call))]

    def _register_block_size(self, name: str, call: cst.Call) -> list[ir.Stmt]:
        """``bs = hl.register_block_size(n)``: ``bs`` names a block-size tunable from here on.
        ``hl.register_block_size(lo, hi)`` bounds it: without configs, its choices are the powers
        of two in ``[lo, hi]`` and its default the one nearest Helion's 32."""
        args, kwargs = call_args(call)
        if len(args) not in (1, 2) or kwargs:
            raise self.error(
                call, "hl.register_block_size takes a size, or a lowest and a highest block"
            )
        bounds = None
        if len(args) == 2:
            lo, hi = (literal_or_none(a) for a in args)
            if not (isinstance(lo, int) and isinstance(hi, int) and 0 < lo <= hi):
                raise self.error(
                    call, "hl.register_block_size(lo, hi) needs integer literals 0 < lo <= hi"
                )
            bounds = (lo, hi)
        else:
            self.build.expr(args[0])
        tunable = self.scope.new_block_tunable(name)
        default = HELION_DEFAULT_BLOCK
        if bounds is not None:
            lo, hi = bounds
            powers = tuple(1 << k for k in range(hi.bit_length()) if lo <= 1 << k <= hi)
            if not powers:
                raise self.error(call, f"no power-of-two block lies in [{lo}, {hi}]")
            self.scope.block_choices[tunable] = powers
            default = min(powers, key=lambda p: abs(p - HELION_DEFAULT_BLOCK))
            self.scope.tunable_defaults[tunable] = default
        if self._read_by_host(name):
            return self._host_fixed_block(name, tunable, default, call)
        self._remove_line(
            call, "hl.register_block_size", "the kernels tune this block size themselves"
        )
        self.scope.registered_blocks[name] = tunable
        self.scope.env.vars[tunable] = ScalarType(ir.I32, weak=True)
        return []


def _first_config_block(config_nodes: list[cst.Call], slot: int) -> int | None:
    """``block_sizes[slot]`` of the first (default) ``helion.Config``, where it gives one."""
    if not config_nodes:
        return None
    _, kwargs = call_args(config_nodes[0])
    sizes = literal_or_none(kwargs["block_sizes"]) if "block_sizes" in kwargs else None
    if isinstance(sizes, list) and slot < len(sizes) and isinstance(sizes[slot], int):
        return sizes[slot]
    return None


def _target_names(node: cst.BaseExpression) -> list[str] | None:
    if isinstance(node, cst.Name):
        return [node.value]
    if isinstance(node, (cst.Tuple, cst.List)):
        names = []
        for e in node.elements:
            if not isinstance(e.value, cst.Name):
                return None
            names.append(e.value.value)
        return names
    return None


#: Statements that bind names, and the field that holds their target.
_BINDING_TARGETS = {
    cst.AssignTarget: "target",
    cst.AugAssign: "target",
    cst.AnnAssign: "target",
    cst.For: "target",
    cst.AsName: "name",
}


def bindings(fn: cst.FunctionDef, name: str) -> int:
    """How many statements of ``fn`` bind ``name`` (assignments, augmented ones, loop and
    ``with`` targets, imports)."""
    count = 0

    def enter(node: cst.CSTNode) -> bool:
        nonlocal count
        field = _BINDING_TARGETS.get(type(node))
        if field is not None and name in names_in(getattr(node, field)):
            count += 1
        return True

    walk(fn.body, enter)
    return count


def _position(loc: ir.Loc | None) -> tuple[int, int]:
    return (loc.line, loc.col) if loc is not None else (0, 0)


def _lane_reads(body: cst.CSTNode, tile: str) -> list[cst.CSTNode]:
    """The reads of tile ``tile`` in ``body`` other than through :data:`_SPLIT_ATTRS` (its
    lanes: ``x[tile]``, ``tile.index``)."""
    through: set[int] = set()
    found: list[cst.CSTNode] = []

    def enter(n: cst.CSTNode) -> bool | list[cst.CSTNode]:
        if isinstance(n, cst.Attribute):
            if isinstance(n.value, cst.Name) and n.value.value == tile:
                if n.attr.value not in _SPLIT_ATTRS:
                    found.append(n)
                    return False
                through.add(id(n.value))
            return [n.value]  # an attribute's name is no read of a variable
        if isinstance(n, cst.Name) and n.value == tile and id(n) not in through:
            found.append(n)
        return True

    walk(body, enter)
    return found


def _host_text(e: ir.Expr) -> str | None:
    """Python source for a host name or size (``k``, ``x.size(1)``), else ``None``."""
    if isinstance(e, ir.Name):
        return e.id
    if isinstance(e, ir.SizeOf):
        return f"{e.tensor}.size({e.dim})"
    return None
