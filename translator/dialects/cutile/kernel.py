"""IR kernel → the body and signature of a ``@ct.kernel`` function.

cuTile addresses memory by *tile index*: ``ct.load(x, index=(i, j), shape=(BM, BN))`` reads the
``(i, j)``-th ``BM x BN`` tile of ``x``, padding lanes past the array's extent with the load's
``padding_mode``. An IR tile of a grid or loop tile variable is exactly that: the variable's value
is its tile index (``ct.bid(axis)`` or the loop counter), its block a ``ct.Constant[int]``
parameter. A whole dim (``x[i, :]``) is tile 0 of a power-of-two block the host computes
(``BLOCK_N``, the next power of two of the extent), as Triton writes ``triton.next_power_of_2``.

Boundary semantics (the IR's module doc): a load's ``other`` is its padding mode where cuTile has
one (0, -0, ±inf, NaN), else a ``ct.where`` on the lanes' validity; a store never writes invalid
lanes because cuTile's stores are bounds-checked; masked reductions and dots get a ``ct.where``
on the reduced dim unless the operand's invalid lanes are already known to hold the identity
(:func:`translator.ir.padding.fold_pad`).
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass, field

from translator.diagnostics import TranslationError
from translator.dialects.common.printer import ATOM, CodePrinter
from translator.ir import nodes as ir
from translator.ir.ops import next_power_of_2, reduce_identity
from translator.ir.pad_tracker import PadTracker, lane_mask, names_read_unmasked
from translator.ir.printer import PRECEDENCE
from translator.ir.program_order import grouped_grid
from translator.ir.shapes import dims_of, dtype_of, index_dims, infer, kernel_env
from translator.ir.signs import positive, positive_names
from translator.ir.visit import all_exprs, full_extents, reads_partial_dim, walk_stmts
from translator.naming import constant_name, tile_suffix, unique

#: IR load pads cuTile has a padding mode for (the padding value -> ``ct.PaddingMode`` member).
_PADDING_MODES = {"0.0": "ZERO", "-0.0": "NEG_ZERO", "inf": "POS_INF", "-inf": "NEG_INF"}


@dataclass
class KernelSignature:
    """The kernel's parameters beyond the IR kernel's own, and what the host passes for each."""

    # (constant name, tunable name): tile sizes the launch passes from the kernel's config.
    blocks: list[tuple[str, str]] = field(default_factory=list)
    # (constant name, extent): whole-dim tiles, the next power of two of the extent.
    full: list[tuple[str, ir.Expr]] = field(default_factory=list)
    # (constant name, values): compile-time switches of the cuTile spelling alone (no IR
    # tunable), searched with the tile sizes; the first value is the default.
    switches: list[tuple[str, tuple[bool, ...]]] = field(default_factory=list)
    # (constant name, tunable name): integer knobs that change no result, passed from the
    # config as they are (the group size of a grouped tile order).
    knobs: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _int_bounds(name: str) -> tuple[int, int]:
    """The (min, max) of integer dtype ``name``."""
    bits = int("".join(c for c in name if c.isdigit()))
    if name.startswith("u"):
        return 0, 2**bits - 1
    return -(2 ** (bits - 1)), 2 ** (bits - 1) - 1


def _pad_key(value: float) -> str:
    return "-0.0" if value == 0 and math.copysign(1.0, value) < 0 else repr(float(value))


class KernelWriter(CodePrinter):
    """Writes one self-contained IR kernel as a cuTile kernel body."""

    language = "cuTile"
    dialect = "cutile"
    refusal_hint = "write the kernel with tile loads, stores and cuTile's tile functions"

    def __init__(self, kernel: ir.Kernel, module: ir.Module | None = None) -> None:
        super().__init__(kernel_env(kernel), indent=1)
        self.kernel = kernel
        self.sig = KernelSignature()
        self.taken: set[str] = {p.name for p in kernel.params}
        self.block_names: dict[str, str] = {}  # tunable -> constant
        self.knob_names: dict[str, str] = {}  # int tunable -> constant
        self.full_names: dict[ir.Expr, str] = {}  # extent -> constant
        self.masks: dict[object, str] = {}  # dim key -> named mask (grid and whole dims)
        self.lane_names: dict[str, str] = {}  # grid tile -> its named element lanes
        self.mask_lines: list[str] = []
        #: The MMA operand type of each tensor whose run-time dtype a tf32 dot multiplies, and
        #: the kernel's first lines that bind them.
        self.mma_dtypes: dict[str, str] = {}
        self.type_lines: list[str] = []
        #: What invalid lanes hold, per value and dim: a mask the IR asks for is written only
        #: where they do not already hold what it would put there (each `ct.where` over a
        #: tile costs: the probe measured 0.22x -> 0.72x on FlashAttention with one left).
        positives = positive_names(kernel, module)
        self.pads = PadTracker(lambda: self.env, positive=lambda e: positive(e, positives))
        #: Loop tiles over rows ``begin`` to ``extent`` that are no whole number of tiles from 0,
        #: and the view of each (array, axis) such a tile indexes (``x.slice(...)``).
        self.offset_tiles: dict[str, ir.TileVar] = {}
        self.views: dict[tuple[str, int], str] = {}
        #: The names an unmasked reduction or dot reads, directly or through the names they
        #: are computed from: the frontend proved what their invalid lanes hold, so none of
        #: them may be given other padding (see :meth:`premask`).
        self.read_unmasked = names_read_unmasked(kernel.body)
        #: name -> (axis, op) of each masked reduction that reads it by name
        self.reduced: dict[str, list[tuple[int, str]]] = {}
        for e in all_exprs(kernel.body):
            if isinstance(e, ir.Reduce) and e.masked and isinstance(e.value, ir.Name):
                self.reduced.setdefault(e.value.id, []).append((e.axis, e.op))
        self.definitions: dict[str, list[ir.Expr]] = {}
        for st in walk_stmts(kernel.body):
            if isinstance(st, ir.Assign):
                self.definitions.setdefault(st.target, []).append(st.value)
        self._sources_seen: set[str] = set()
        #: A kernel without dots: its tile accesses use the TMA unit or not as the search finds
        #: faster (``[backend.kernel] tma_switch``), and its float32 math the fast forms.
        self.has_dot = any(isinstance(e, ir.Dot) for e in all_exprs(kernel.body))
        self._plan()

    # ------------------------------------------------------------------ planning

    def _plan(self) -> None:
        k = self.kernel
        for s in walk_stmts(k.body):
            if isinstance(s, ir.Assign):
                self.taken.add(s.target)
        tiles = [(t, k.loc) for t in k.grid] + [
            (t, s.loc or k.loc)
            for s in walk_stmts(k.body)
            if isinstance(s, ir.TileLoop)
            for t in s.tiles
        ]
        for t, loc in tiles:
            self.taken.add(t.name)
            if (t.begin is not None or t.step is not None) and _first_tile(t) is None:
                if t.step is None and t.begin is not None:
                    # Rows `begin` to `extent` (`hl.tile(start, end)`, a loop between loaded
                    # offsets): each array the loop indexes is read through a view sliced to
                    # those rows (`x.slice(axis, start, stop)`), whose tiles count from 0.
                    self.offset_tiles[t.name] = t
                else:
                    raise TranslationError(
                        f"cuTile cannot write the tile loop over `{t.name}` that skips tiles "
                        "from an offset: ct.load indexes whole tiles from 0",
                        loc,
                        "iterate over every tile from 0 (split the range on the host)",
                    )
            if isinstance(t.block, str) and t.block not in self.block_names:
                name = unique(constant_name(t.block), self.taken)
                self.block_names[t.block] = name
                self.sig.blocks.append((name, t.block))
            elif isinstance(t.block, ir.Const) and not t.scalar:
                b = int(t.block.value)  # type: ignore[arg-type]
                if b != next_power_of_2(b):
                    raise TranslationError(
                        f"cuTile tiles are powers of two; `{t.name}` has block {b}",
                        k.loc,
                        "use a power-of-two block size",
                    )
        if grouped(k):
            group = next(t for t in k.tunables if t.kind == "group_size")
            # The name every DSL's GEMM samples give it (the rows of tiles in one group).
            name = unique("GROUP_SIZE_M", self.taken)
            self.sig.knobs.append((name, group.name))
        for t in k.tunables:
            if t.kind == "int":
                # An `hl.register_tunable` knob: a ct.Constant the launch passes from the
                # config, read by name in the body.
                name = unique(constant_name(t.name), self.taken)
                self.knob_names[t.name] = name
                self.sig.knobs.append((name, t.name))
        extents: list[ir.Expr] = []
        for e in all_exprs(k.body):
            extents.extend(d.extent for d in _dims_in(e))
            if isinstance(e, ir.Load):
                extents.extend(full_extents(e.tensor, e.index))
        for s in walk_stmts(k.body):
            if isinstance(s, (ir.Store, ir.AtomicRMW)):
                extents.extend(full_extents(s.tensor, s.index))
        for extent in extents:
            if isinstance(extent, ir.Const) and isinstance(extent.value, int):
                # A whole dim of known size is a literal tile extent, no parameter.
                self.full_names[extent] = str(next_power_of_2(extent.value))
                continue
            if extent not in self.full_names:
                name = unique(f"BLOCK_{constant_name(_extent_word(extent))}", self.taken)
                self.full_names[extent] = name
                self.sig.full.append((name, extent))

    # ------------------------------------------------------------------ sizes and masks

    def block_of(self, tile: ir.TileVar) -> str:
        """The tile size of ``tile`` as the kernel spells it."""
        if tile.scalar:
            return "1"
        if isinstance(tile.block, str):
            return self.block_names[tile.block]
        return str(tile.block.value)

    def dim_size(self, d: ir.Dim) -> str:
        """The tile extent of dim ``d``."""
        if isinstance(d, ir.BlockDim):
            return self.block_of(self.env.tiles[d.tile])
        if isinstance(d, ir.FullDim):
            return self.full_names[d.extent]
        return "1"

    def shape(self, dims: tuple[ir.Dim, ...]) -> str:
        """A shape tuple literal."""
        sizes = [self.dim_size(d) for d in dims]
        return "(" + ", ".join(sizes) + ("," if len(sizes) == 1 else "") + ")"

    def dim_mask(self, d: ir.Dim) -> str | None:
        """A 1-D boolean tile: which lanes of dim ``d`` are valid (``None``: all are)."""
        if isinstance(d, ir.UnitDim):
            return None
        if isinstance(d, ir.FullDim):
            key: object = d.extent
            size = self.full_names[d.extent]
            lanes = f"ct.arange({size}, dtype=ct.int32)"
            expr = f"{lanes} < {self.text(d.extent, PRECEDENCE['<'] + 1)}"
            word = _extent_word(d.extent)
        else:
            tile = self.env.tiles[d.tile]
            if tile.scalar:
                return None
            key = d.tile
            block = self.block_of(tile)
            lanes = self.lane_names.get(
                tile.name, f"{tile.name} * {block} + ct.arange({block}, dtype=ct.int32)"
            )
            bound = self.text(tile.extent, PRECEDENCE["<"] + 1)
            if tile.name in self.offset_tiles and tile.begin is not None:
                # Lanes of the view, whose rows start at `begin`.
                bound = f"{self.text(tile.extent, PRECEDENCE['-'])} - " + self.text(
                    tile.begin, PRECEDENCE["-"] + 1
                )
                bound = f"({bound})"
            expr = f"{lanes} < {bound}"
            word = tile_suffix(tile.name)
            if tile not in self.kernel.grid:
                return f"({expr})"  # a loop tile's lanes change every iteration: inline
        if key not in self.masks:
            name = unique(f"mask_{word}", self.taken)
            self.masks[key] = name
            self.mask_lines.append(f"    {name} = {expr}")
        return self.masks[key]

    def tile_lanes(self, tile: ir.TileVar) -> str:
        """The element indices of ``tile``'s lanes (an atom): named once for a grid tile, as
        its mask is (which then reads the name), inline for a loop tile."""
        block = self.block_of(tile)
        lanes = f"{tile.name} * {block} + ct.arange({block}, dtype=ct.int32)"
        if tile not in self.kernel.grid:
            return f"({lanes})"
        if tile.name not in self.lane_names:
            name = unique(f"lanes_{tile_suffix(tile.name)}", self.taken)
            self.lane_names[tile.name] = name
            self.mask_lines.append(f"    {name} = {lanes}")
        return self.lane_names[tile.name]

    def masked(self, e: ir.Expr, text: str, axes: list[int], fill: float) -> str:
        """``text`` with the invalid lanes of ``e`` along ``axes`` replaced by ``fill``, along
        the axes where they do not hold ``fill`` already."""
        dims = dims_of(self.type_of(e))
        masks = []
        for axis in axes:
            pad = self.pads.along(e, dims[axis])
            if pad is not None and _same(pad.value, fill) and pad.uniform is None:
                continue
            m = self.dim_mask(dims[axis])
            if m is not None:
                masks.append(_expand(m, axis, len(dims)))
        if not masks:
            return text
        return f"ct.where({' & '.join(masks)}, {text}, {self.fill_text(fill, e)})"

    def fill_text(self, fill: float, e: ir.Expr) -> str:
        """``fill`` as a value of ``e``'s dtype: an infinite identity of an integer tile is
        that integer type's bound (``ct.where`` of an int32 tile and ``float("-inf")`` is a
        float32 tile, which an int32 store or loop count then refuses)."""
        dtype = dtype_of(self.type_of(e))
        if math.isinf(fill) and isinstance(dtype, ir.DType) and dtype.name in ir.INT_DTYPES:
            info = _int_bounds(dtype.name)
            return str(info[1] if fill > 0 else info[0])
        return self.float_text(fill)

    @staticmethod
    def float_text(v: float) -> str:
        """A float literal (``float("-inf")`` for the infinities)."""
        if math.isinf(v):
            return 'float("-inf")' if v < 0 else 'float("inf")'
        if math.isnan(v):
            return 'float("nan")'
        return repr(float(v))

    # ------------------------------------------------------------------ expressions

    def tensor_dtype(self, tensor: str) -> str:
        return f"{tensor}.dtype"

    def _ex_Name(self, e: ir.Name) -> tuple[str, int]:
        if e.id in self.block_names:
            return self.block_names[e.id], ATOM
        if e.id in self.knob_names:
            return self.knob_names[e.id], ATOM
        return e.id, ATOM

    def _ex_SizeOf(self, e: ir.SizeOf) -> tuple[str, int]:
        return f"{e.tensor}.shape[{e.dim}]", ATOM

    def _ex_Call(self, e: ir.Call) -> tuple[str, int]:
        template = self.spell["pointwise"].get(e.op)
        if template is None:
            reason = self.spell["refused"].get("pointwise", {}).get(e.op, "no spelling")
            why, _, instead = reason.partition("; ")
            raise self.refuse(f"cuTile cannot spell `{e.op}`: {why}", e, instead or None)
        # An operand standing alone as a call argument goes bare; elsewhere in a formula it is
        # parenthesised unless it is an atom.
        args = [
            self.text(a, 0 if _bare_argument(template, i) else ATOM) for i, a in enumerate(e.args)
        ]
        if e.op in self.spell["fp32_only"]["ops"]:
            args = [self._as_f32(a, text) for a, text in zip(e.args, args)]
            fast = self.spell.get("pointwise_f32", {}).get(e.op)
            in_dot_kernels = self.spell.get("pointwise_f32_in_dot_kernels", {}).get("ops", ())
            if (
                fast is not None
                and (not self.has_dot or e.op in in_dot_kernels)
                and all(self._f32_after_conversion(a) for a in e.args)
            ):
                template = fast
        dtype = self.dtype(dtype_of(infer(e, self.env))) if "{dtype}" in template else ""
        text = template.format(*args, dtype=dtype)
        return text, (ATOM if text.startswith("ct.") and text.endswith(")") else 1)

    def _f32_after_conversion(self, operand: ir.Expr) -> bool:
        """Whether ``operand`` enters an fp32-only op as a float32 tile (:meth:`_as_f32` converts
        every narrower tile; a float64 tile and a scalar of unknown width stay as they are)."""
        t = infer(operand, self.env)
        dtype = dtype_of(t)
        if not dims_of(t):
            return dtype == ir.F32
        return not (isinstance(dtype, ir.DType) and dtype.name == "float64")

    def _ex_BinOp(self, e: ir.BinOp) -> tuple[str, int]:
        """``/`` of float32 tiles as ``[backend.kernel] truediv_f32`` (the division Triton and
        Helion compute, and cuTile's fast one); any other operator as Python spells it."""
        t = infer(e, self.env)
        if e.op != "/" or self.has_dot or not dims_of(t) or dtype_of(t) != ir.F32:
            return super()._ex_BinOp(e)
        template = self.spell["kernel"]["truediv_f32"]
        return template.format(self.text(e.lhs, 0), self.text(e.rhs, 0)), ATOM

    def _as_f32(self, operand: ir.Expr, text: str) -> str:
        """``text`` (the spelling of ``operand``) as float32 where it is a narrower tile: the IR
        computes float ops in float32, cuTile's in their operands' width."""
        t = infer(operand, self.env)
        dtype = dtype_of(t)
        if not dims_of(t) or (isinstance(dtype, ir.DType) and dtype.name in ("float32", "float64")):
            return text
        return f"ct.astype({text}, ct.float32)"

    def _ex_Cast(self, e: ir.Cast) -> tuple[str, int]:
        return f"ct.astype({self.text(e.value)}, {self.dtype(e.dtype)})", ATOM

    def _ex_TileAttr(self, e: ir.TileAttr) -> tuple[str, int]:
        tile = self.env.tiles[e.tile]
        block = self.block_of(tile)
        extent = self.text(tile.extent)
        if e.tile in self.offset_tiles and not tile.scalar:
            return self.offset_attr(e, tile, block, extent)
        spelt = {
            "id": (e.tile, ATOM),
            "begin": (f"{e.tile} * {block}", PRECEDENCE["*"]),
            "block_size": (block, ATOM),
            "index": (f"{e.tile} * {block} + ct.arange({block}, dtype=ct.int32)", 9),
            "end": (f"min(({e.tile} + 1) * {block}, {extent})", ATOM),
            "count": (f"ct.cdiv({extent}, {block})", ATOM),
        }
        return spelt[e.attr]

    def offset_attr(
        self, e: ir.TileAttr, tile: ir.TileVar, block: str, extent: str
    ) -> tuple[str, int]:
        """An attribute of a tile of the rows ``begin`` to ``extent``: its loop counts tiles of
        the view from 0, the attributes are rows of the array (the IR's meaning)."""
        assert tile.begin is not None
        begin = self.text(tile.begin, PRECEDENCE["+"])
        first = f"{begin} + {e.tile} * {block}"
        spelt = {
            "begin": (first, PRECEDENCE["+"]),
            "block_size": (block, ATOM),
            "index": (f"{first} + ct.arange({block}, dtype=ct.int32)", PRECEDENCE["+"]),
            "end": (f"min({first} + {block}, {extent})", ATOM),
            "count": (self.offset_count(tile), ATOM),
        }
        if e.attr not in spelt:
            raise self.refuse(
                f"cuTile output for `.{e.attr}` of a tile of rows from an offset is not written",
                e,
                "use the tile's .index or .begin",
            )
        return spelt[e.attr]

    def offset_count(self, tile: ir.TileVar) -> str:
        """``ct.cdiv(end - begin, B)``: the tiles of a loop over rows ``begin`` to ``end``."""
        assert tile.begin is not None
        rows = f"{self.text(tile.extent, PRECEDENCE['-'])} - {self.text(tile.begin, PRECEDENCE['-'] + 1)}"
        return f"ct.cdiv({rows}, {self.block_of(tile)})"

    def array(self, tensor: str, index: tuple[ir.IndexItem, ...]) -> str:
        """The array an access to ``tensor[index]`` reads: its view sliced to the rows of a tile
        that starts at an offset, if the index has one."""
        axis = 0
        for item in index:
            if isinstance(item, ir.NewAxis):
                continue
            if isinstance(item, ir.TileIndex) and (tensor, axis) in self.views:
                return self.views[tensor, axis]
            axis += 1
        return tensor

    def _ex_Full(self, e: ir.Full) -> tuple[str, int]:
        if isinstance(e.value, ir.Const) and e.value.value == 0:
            return f"ct.zeros({self.shape(e.shape)}, dtype={self.dtype(e.dtype)})", ATOM
        value = self.text(e.value)
        return f"ct.full({self.shape(e.shape)}, {value}, dtype={self.dtype(e.dtype)})", ATOM

    def _ex_Arange(self, e: ir.Arange) -> tuple[str, int]:
        return f"ct.arange({self.dim_size(e.dim)}, dtype=ct.int32)", ATOM

    def _ex_Broadcast(self, e: ir.Broadcast) -> tuple[str, int]:
        return f"ct.broadcast_to({self.text(e.value)}, {self.shape(e.shape)})", ATOM

    def _ex_Reshape(self, e: ir.Reshape) -> tuple[str, int]:
        return f"ct.reshape({self.text(e.value)}, {self.shape(e.shape)})", ATOM

    def _ex_Permute(self, e: ir.Permute) -> tuple[str, int]:
        if e.perm == (1, 0):
            return f"ct.transpose({self.text(e.value)})", ATOM
        return f"ct.permute({self.text(e.value)}, {e.perm})", ATOM

    def _ex_Reduce(self, e: ir.Reduce) -> tuple[str, int]:
        dims = dims_of(self.type_of(e.value))
        axis = e.axis % len(dims)
        value = self.text(e.value)
        if e.masked and not self.pads.reduction_is_exact(e, dims[axis])[0]:
            value = self.masked(e.value, value, [axis], reduce_identity(e.op))
        keep = ", keepdims=True" if e.keepdim else ""
        return f"{self.spell['reductions'][e.op]}({value}, axis={axis}{keep})", ATOM

    def _ex_Scan(self, e: ir.Scan) -> tuple[str, int]:
        # Invalid lanes follow the valid ones along the axis: a forward scan never reads them.
        axis = e.axis % len(dims_of(self.type_of(e.value)))
        return f"{self.spell['scans'][e.op]}({self.text(e.value)}, axis={axis})", ATOM

    def _ex_Dot(self, e: ir.Dot) -> tuple[str, int]:
        da, db = dims_of(self.type_of(e.lhs)), dims_of(self.type_of(e.rhs))
        a, b = self.text(e.lhs), self.text(e.rhs)
        if e.masked and not self.pads.dot_k_lanes_vanish(e, "ir"):
            a = self.masked(e.lhs, a, [len(da) - 1], 0.0)
            b = self.masked(e.rhs, b, [len(db) - 2], 0.0)
        ta, tb = dtype_of(self.type_of(e.lhs)), dtype_of(self.type_of(e.rhs))
        tf32 = e.precision == "tf32"
        if ta != tb and ir.F32 in (ta, tb):
            # ct.mma takes operands of one dtype: fp32, as the IR promotes. (Two tensors' own
            # dtypes are left as they are: the compiler refuses them if they differ.)
            wide = ir.F32
            a = a if ta == wide or tf32 else f"ct.astype({a}, {self.dtype(wide)})"
            b = b if tb == wide or tf32 else f"ct.astype({b}, {self.dtype(wide)})"
            ta = tb = wide
        if tf32:
            # ct.mma multiplies float32 in IEEE float32; a tf32 MMA takes tfloat32 operands.
            # (tf32x3 is written as IEEE: the float32 product it approximates.)
            a, b = self.tf32_operand(e.lhs, a, ta), self.tf32_operand(e.rhs, b, tb)
        mma = self.spell["dots"]["dot"]
        out_f32 = e.out_dtype == ir.F32
        if e.acc is not None and out_f32 and dtype_of(self.type_of(e.acc)) == ir.F32:
            return f"{mma}({a}, {b}, {self.text(e.acc)})", ATOM
        dims = dims_of(self.type_of(e))
        zeros = f"ct.zeros({self.shape(dims)}, dtype=ct.float32)"
        prod = f"{mma}({a}, {b}, {zeros})"
        if not out_f32:
            prod = f"ct.astype({prod}, {self.dtype(e.out_dtype)})"
        if e.acc is None:
            return prod, ATOM
        return f"{self.text(e.acc, PRECEDENCE['+'])} + {prod}", PRECEDENCE["+"]

    def tf32_operand(self, e: ir.Expr, text: str, dtype: ir.DTypeExpr) -> str:
        """An MMA operand cast to tfloat32 where it is float32 (always for a float32 tile; for a
        tensor's run-time dtype through ``x_mma_dtype = ct.tfloat32 if x.dtype == ct.float32
        else x.dtype``), truncated: the IR's tf32 is what tensor cores make of float32 data."""
        spell = self.spell["kernel"]
        if isinstance(e, ir.Cast) and e.dtype == dtype == ir.F32 and text == self.text(e):
            # One cast, straight to the MMA operand type. Not through a tensor's run-time
            # dtype: for fp16 that cast rounds to nearest, and the truncating one must not
            # take its place.
            text = self.text(e.value)
        if dtype == ir.F32:
            target = spell["tfloat32"]
        elif isinstance(dtype, ir.DTypeOf):
            if dtype.tensor not in self.mma_dtypes:
                own = self.dtype(dtype)
                name = unique(f"{dtype.tensor}_mma_dtype", self.taken)
                if not self.mma_dtypes:
                    self.type_lines.append(
                        "    # float32 operands enter ct.mma as tfloat32, truncated (the source's "
                        "tf32 dots)."
                    )
                self.type_lines.append(
                    f"    {name} = {spell['tfloat32']} if {own} == {self.dtype(ir.F32)} else {own}"
                )
                self.mma_dtypes[dtype.tensor] = name
            target = self.mma_dtypes[dtype.tensor]
        else:
            return text  # fp16, bf16, int8: the precision of float32 products does not concern it
        return f"ct.astype({text}, {target}, rounding_mode={spell['tf32_rounding']})"

    def _ex_Load(self, e: ir.Load) -> tuple[str, int]:
        if e.mask is not None or self.element_access(e.tensor, e.index):
            # A gathered dim, a predicate on data (a jagged row's `k < nnz`, one half of a
            # concatenation) or a prefix of a dim, which ct.load's padding at the array's edge
            # cannot express: ct.gather's mask can.
            return self.gather(e), ATOM
        index, shape = self.region(e.tensor, e.index)
        args = f"{self.array(e.tensor, e.index)}, index={index}, shape={shape}"
        fill: float | None = None
        if e.other is not None and not math.isnan(e.other):
            mode = _PADDING_MODES.get(_pad_key(e.other))
            if mode is None:
                mode, fill = "ZERO", e.other
            args += f", padding_mode=ct.PaddingMode.{mode}"
        elif e.other is not None:
            args += ", padding_mode=ct.PaddingMode.NAN"
        text = f"ct.load({args}{self.access_options()})"
        dims = dims_of(self.type_of(e))
        if self.tensor_shape(e.tensor, e.index) != self.shape(dims):
            text = f"ct.reshape({text}, {self.shape(dims)})"
        if fill is not None:
            text = self.masked_load_fill(text, dims, fill)
        return text, ATOM

    def element_access(self, tensor: str, index: tuple[ir.IndexItem, ...]) -> bool:
        """Whether ``tensor[index]`` is written with element indices (``ct.gather``,
        ``ct.scatter``): a gathered dim, or a whole-dim item over a prefix of its dim that the
        kernel does not prove to be all of it, which a tile access would read (and write) past,
        up to its power-of-two tile."""
        return any(isinstance(i, ir.GatherIndex) for i in index) or reads_partial_dim(
            self.kernel, tensor, index
        )

    def access_options(self) -> str:
        """The options of a tile load or store: in a kernel without dots, ``allow_tma=`` a
        switch the launch searches (added to the signature at its first use)."""
        if self.has_dot:
            return ""
        if not self.sig.switches:
            switch = unique(self.spell["kernel"]["tma_switch"], self.taken)
            self.sig.switches.append((switch, (False, True)))
        return f", allow_tma={self.sig.switches[0][0]}"

    def masked_load_fill(self, text: str, dims: tuple[ir.Dim, ...], fill: float) -> str:
        """A load padded with a value no padding mode has: zero-padded, then ``ct.where``."""
        masks = [
            _expand(m, axis, len(dims))
            for axis, d in enumerate(dims)
            if (m := self.dim_mask(d)) is not None
        ]
        if not masks:
            return text
        return f"ct.where({' & '.join(masks)}, {text}, {self.float_text(fill)})"

    def region(self, tensor: str, index: tuple[ir.IndexItem, ...]) -> tuple[str, str]:
        """The ``index=`` and ``shape=`` tuples of a tile access to ``tensor[index]``."""
        idx: list[str] = []
        sizes: list[str] = []
        axis = 0
        for item in index:
            if isinstance(item, ir.NewAxis):
                continue
            if isinstance(item, ir.TileIndex):
                tile = self.env.tiles[item.tile]
                idx.append(tile.name)
                sizes.append(self.block_of(tile))
            elif isinstance(item, ir.FullIndex):
                extent = item.extent or ir.SizeOf(tensor, axis)
                idx.append("0")
                sizes.append(self.full_names[extent])
            elif isinstance(item, ir.ScalarIndex):
                idx.append(self.text(item.value))
                sizes.append("1")
            axis += 1
        return _tuple(idx), _tuple(sizes)

    def tensor_shape(self, tensor: str, index: tuple[ir.IndexItem, ...]) -> str:
        """The ``shape=`` of the access (what ct.load returns before any reshape)."""
        return self.region(tensor, index)[1]

    def gather(self, e: ir.Load) -> str:
        """``ct.gather`` of a load whose index is not a tile region, or whose lanes a predicate
        on data masks: element indices of every dim, masked to the valid lanes."""
        indices, mask = self.element_indices(e.tensor, e.index, e)
        if e.mask is not None:
            predicate = self.text(e.mask, PRECEDENCE["&"] + 1)
            mask = predicate if mask is None else f"{mask} & {predicate}"
        # ct.gather pads with 0 by default (also for `None`: lanes the source never reads);
        # any other pad, -0.0 included, is spelt.
        zero = e.other is None or _pad_key(e.other) == "0.0"
        pad = "" if zero else f", padding_value={self.float_text(e.other)}"
        masked = f", mask={mask}" if mask else ""
        return f"ct.gather({e.tensor}, {indices}{masked}{pad}, check_bounds=False)"

    def element_indices(
        self, tensor: str, index: tuple[ir.IndexItem, ...], node: object
    ) -> tuple[str, str | None]:
        """Element indices of ``tensor[index]`` (one integer tile or scalar per tensor dim, each
        spread over its own dims of the region so that they broadcast to it, as ct.gather and
        ct.scatter take them) and the mask of the region's valid lanes (``None``: all are).

        A tile's lanes are ``t * B + ct.arange(B)``, a whole dim's ``ct.arange(B)``, a gathered
        dim the index tile itself; lanes past a tile's or a whole dim's extent are masked here,
        not left to cuTile's bounds check, which knows the array's extent only. The IR's valid
        lanes are inside the tensor (its frontends prove it or take it from the source, its
        interpreter checks it), so the accesses are written ``check_bounds=False``."""
        region = index_dims(tensor, index, self.env, getattr(node, "loc", None))
        rank = len(region)
        indices: list[str] = []
        axis = 0
        for item in index:
            if isinstance(item, ir.NewAxis):
                axis += 1
            elif isinstance(item, ir.ScalarIndex):
                indices.append(self.text(item.value))
            elif isinstance(item, ir.TileIndex) and self.env.tiles[item.tile].scalar:
                indices.append(item.tile)  # one index per program: no lanes, no region dim
            elif isinstance(item, ir.TileIndex):
                tile = self.env.tiles[item.tile]
                if tile.name in self.offset_tiles:
                    raise self.refuse(
                        f"cuTile output for an element access to `{tensor}` by a tile that "
                        "starts at a loaded offset is not written yet",
                        node,
                        "gather with indices computed from the offset",
                    )
                indices.append(_expand(self.tile_lanes(tile), axis, rank))
                axis += 1
            elif isinstance(item, ir.FullIndex):
                lanes = f"ct.arange({self.dim_size(region[axis])}, dtype=ct.int32)"
                indices.append(_expand(lanes, axis, rank))
                axis += 1
            else:
                value = item.value
                n = len(dims_of(self.type_of(value)))
                indices.append(_spread(self.text(value, ATOM), axis, n, rank))
                axis += n
        masks = [
            _expand(m, ax, rank)
            for ax, d in enumerate(region)
            if (m := self.dim_mask(d)) is not None
        ]
        index_text = indices[0] if len(indices) == 1 else _tuple(indices)
        return index_text, (" & ".join(masks) or None)

    # ------------------------------------------------------------------ statements

    def _st_Assign(self, s: ir.Assign) -> None:
        text, value = self.text(s.value), s.value
        premask = self.premask(s)
        if premask is not None:
            axis, fill, lanes = premask
            load = s.value.value if isinstance(s.value, ir.Cast) else s.value
            dtype = dtype_of(self.type_of(s.value))
            floats = not isinstance(dtype, ir.DType) or dtype.name in ir.FLOAT_DTYPES
            if (
                isinstance(load, ir.Load)
                and load.mask is None  # lanes its predicate masks are valid: they keep `other`
                and floats
                and _pad_key(fill) in _PADDING_MODES
            ):
                # A load pads with the fill itself: `padding_mode=`, no `where`.
                padded = dataclasses.replace(load, other=fill)
                value = padded if load is s.value else dataclasses.replace(s.value, value=padded)
                text = self.text(value)
            else:
                text = self.masked(s.value, text, [axis], fill)
                value = ir.Call("where", (lanes, s.value, ir.Const(fill)))
        self.emit(f"{s.target} = {text}")
        self.pads.bind(s.target, value)
        self.env.vars[s.target] = self.type_of(s.value)

    def premask(self, s: ir.Assign) -> tuple[int, float, ir.Expr] | None:
        """Where ``s`` binds (once) a tile that a masked reduction reads by name and whose
        invalid lanes along the reduced dim do not hold its identity: the axis, the identity
        and the IR lane mask to give those lanes at the binding instead. One ``ct.where`` there
        serves every later use (Helion's attention: the scores masked to -inf once make the
        max exact, and the probabilities 0, so the sum and the MMA need none). Not for a value
        whose invalid lanes reach an unmasked reduction or dot."""
        reductions = self.reduced.get(s.target)
        if not reductions or len(self.definitions.get(s.target, ())) != 1:
            return None
        if s.target in self.read_unmasked:
            return None
        dims = dims_of(self.type_of(s.value))
        for axis, op in reductions:
            if not -len(dims) <= axis < len(dims):
                continue
            axis %= len(dims)
            if self.pads.reduction_is_exact(ir.Reduce(op, s.value, axis), dims[axis])[0]:
                continue
            if isinstance(dims[axis], ir.BlockDim) and dims[axis].tile in self.offset_tiles:
                continue  # its lanes count from the view's start: no plain mask
            lanes = lane_mask(dims[axis], self.env)
            if lanes is not None:
                return axis, reduce_identity(op), lanes
        return None

    def _st_Store(self, s: ir.Store) -> None:
        value = self.store_value(s.tensor, s.value)
        if self.element_access(s.tensor, s.index):
            indices, mask = self.element_indices(s.tensor, s.index, s)
            dims = dims_of(self.type_of(s.value))
            target = index_dims(s.tensor, s.index, self.env, s.loc)
            if dims and len(dims) != len(target):
                raise self.refuse(
                    f"cuTile output for a scatter into `{s.tensor}` of a value of another rank "
                    "than its region is not written yet",
                    s,
                    "store a value of the region's shape",
                )
            masked = f", mask={mask}" if mask else ""
            self.emit(f"ct.scatter({s.tensor}, {indices}, {value}{masked}, check_bounds=False)")
            return
        index, shape = self.region(s.tensor, s.index)
        dims = dims_of(self.type_of(s.value))
        target_dims = index_dims(s.tensor, s.index, self.env, s.loc)
        if dims and (self.shape(target_dims) != shape or _unit_dims_differ(dims, target_dims)):
            # Also a value of the region's dims with unit dims added or dropped (a per-row
            # stat `[BLOCK_ROW, 1]` stored to a row vector): cuTile's tile rank must match.
            value = f"ct.reshape({value}, {shape})"
        elif dims and any(
            isinstance(d, ir.UnitDim) and self.dim_size(t) != "1" for d, t in zip(dims, target_dims)
        ):
            # A unit dim stretched over the region (whole dims of two arrays whose sizes the
            # launch proves equal need nothing: their tiles are the same power of two).
            value = f"ct.broadcast_to({value}, {shape})"
        self.emit(
            f"ct.store({self.array(s.tensor, s.index)}, index={index}, tile={value}"
            f"{self.access_options()})"
        )

    def _st_AtomicRMW(self, s: ir.AtomicRMW) -> None:
        """``ct.atomic_add(x, (lanes...), update)``: element indices of the region, one per
        dim, broadcast against each other; cuTile skips the lanes past the array's bounds."""
        if any(isinstance(i, ir.GatherIndex) for i in s.index):
            raise self.refuse(
                "cuTile output for an atomic at gathered indices is not written yet",
                s,
                "update a tile region",
            )
        if reads_partial_dim(self.kernel, s.tensor, s.index):
            # ct.atomic_add takes no mask: its power-of-two lanes would update past the prefix.
            raise self.refuse(
                f"cuTile output for an atomic over a prefix of a dim of `{s.tensor}` that the "
                "kernel does not prove to be all of it is not written yet",
                s,
                "update the whole dim, or assert on the host that the extent is its size",
            )
        region = index_dims(s.tensor, s.index, self.env, s.loc)
        rank = len(region)
        indices: list[str] = []
        axis = 0
        for item in s.index:
            if isinstance(item, ir.NewAxis):
                continue
            if isinstance(item, ir.ScalarIndex):
                indices.append(self.text(item.value))
                continue
            if isinstance(item, ir.TileIndex) and self.env.tiles[item.tile].scalar:
                indices.append(item.tile)  # one index per program: no lanes, no region dim
                continue
            d = region[axis]
            if isinstance(item, ir.TileIndex):
                tile = self.env.tiles[item.tile]
                block = self.block_of(tile)
                lanes = f"{tile.name} * {block} + ct.arange({block}, dtype=ct.int32)"
            else:
                lanes = f"ct.arange({self.dim_size(d)}, dtype=ct.int32)"
            indices.append(_expand(f"({lanes})", axis, rank) if rank > 1 else lanes)
            axis += 1
        value = self.store_value(s.tensor, s.value)
        fn = self.spell["atomics"][s.op]
        index = indices[0] if len(indices) == 1 else _tuple(indices)
        order = self.spell["kernel"]["atomic_order"]
        self.emit(f"{fn}({self.array(s.tensor, s.index)}, {index}, {value}, memory_order={order})")

    def store_value(self, tensor: str, value: ir.Expr) -> str:
        """``value`` in the tensor's dtype (cuTile stores never narrow implicitly, where the
        source's store casts). The IR types a mix of two arrays' dtypes as the first's (inputs
        of one dtype), so a value that reads any other array is cast: a fp16 row scaled by a
        fp32 gradient is fp32 in cuTile."""
        dt = dtype_of(self.type_of(value))
        param = self.kernel.param(tensor)
        own = dt == ir.DTypeOf(tensor) and self.dtype_sources(value) <= {tensor}
        if own or (param.dtype is not None and dt == param.dtype):
            return self.text(value)
        if isinstance(value, ir.Cast):
            value = value.value  # re-cast to the tensor's own dtype instead
        return f"ct.astype({self.text(value)}, {tensor}.dtype)"

    def dtype_sources(self, e: ir.Expr) -> set[str]:
        """The arrays whose run-time dtype may reach the dtype of ``e`` (through names, too)."""
        if isinstance(e, ir.Cast):
            return {e.dtype.tensor} if isinstance(e.dtype, ir.DTypeOf) else set()
        if isinstance(e, ir.Load):
            return {e.tensor} if self.kernel.param(e.tensor).dtype is None else set()
        if isinstance(e, ir.Name):
            if e.id in self._sources_seen:
                return set()
            self._sources_seen.add(e.id)
            try:
                return set().union(*(self.dtype_sources(v) for v in self.definitions.get(e.id, [])))
            finally:
                self._sources_seen.discard(e.id)
        if isinstance(e, (ir.Reduce, ir.Scan)) and e.op in ("argmax", "argmin"):
            return set()
        if isinstance(e, ir.Dot):
            return {e.out_dtype.tensor} if isinstance(e.out_dtype, ir.DTypeOf) else set()
        out: set[str] = set()
        for child in _children(e):
            out |= self.dtype_sources(child)
        return out

    def _st_While(self, s: ir.While) -> None:
        raise self.refuse(
            "a `while` loop whose trip count each program decides as it runs (a stream-K "
            "program's walk over its share of the K iterations) is not written for cuTile: "
            "its tiles start where the program computes, which ct.load's tile indices from 0 "
            "do not follow yet",
            s,
            "write the data-parallel GEMM (one program per output tile, `ct.bid`), or split-K "
            "over a fixed number of K splits with atomics",
        )

    def branch(self, stmts: tuple[ir.Stmt, ...]) -> None:
        super().branch(stmts)
        # The other branch, and the code after the `if`, may see the values from before.
        self.pads.forget({x.target for x in walk_stmts(stmts) if isinstance(x, ir.Assign)})

    def _st_TileLoop(self, s: ir.TileLoop) -> None:
        assigned = {x.target for x in walk_stmts(s.body) if isinstance(x, ir.Assign)}
        # Inside the loop a carried value may hold what an earlier iteration left.
        self.pads.forget(assigned)
        outer = self.env
        self.env = outer.child()
        for t in s.tiles:
            self.env.bind_tile(t)
        views: list[ir.TileVar] = []
        for t in s.tiles:
            extent = self.text(t.extent)
            count = extent if t.scalar else f"ct.cdiv({extent}, {self.block_of(t)})"
            first = _first_tile(t)
            if t.name in self.offset_tiles and t.begin is not None:
                if t.scalar:  # element indices from `begin`: no view needed
                    count = f"{self.text(t.begin)}, {extent}"
                else:
                    views.append(t)
                    count = self.offset_count(t)
            elif first is not None and (t.begin is not None or t.step is not None):
                # Every step-th tile from tile `first` (split-K's share of the K tiles).
                step = self.text(t.step) if t.step is not None else "1"
                count = f"{self.text(first)}, {count}, {step}"
            self.emit(f"for {t.name} in range({count}):")
            self.indent += 1
        # Inside the loop, which runs only for rows to read: a view starting at the array's end
        # (an empty last group) is out of cuTile's bounds for slice.
        added = [key for t in views for key in self.slice_views(t, s.body)]
        for b in s.body:
            self.stmt(b)
        self.indent -= len(s.tiles)
        for key in added:  # the views are the loop's own
            del self.views[key]
        for name in assigned & set(outer.vars):
            outer.vars[name] = self.env.vars[name]
        self.env = outer
        self.pads.forget(assigned)

    def slice_views(self, t: ir.TileVar, body: tuple[ir.Stmt, ...]) -> list[tuple[str, int]]:
        """Before a loop over rows ``begin`` to ``extent``: a view of each array the loop reads
        or writes through ``t``, sliced to those rows, so that ``t`` counts its tiles from 0."""
        assert t.begin is not None
        accesses: list[tuple[str, tuple[ir.IndexItem, ...]]] = []
        for st in walk_stmts(body):
            if isinstance(st, (ir.Store, ir.AtomicRMW)):
                accesses.append((st.tensor, st.index))
        accesses += [(e.tensor, e.index) for e in all_exprs(body) if isinstance(e, ir.Load)]
        start, stop = self.text(t.begin), self.text(t.extent)
        added: list[tuple[str, int]] = []
        for tensor, index in accesses:
            axes = [
                axis
                for axis, item in enumerate(i for i in index if not isinstance(i, ir.NewAxis))
                if isinstance(item, ir.TileIndex) and item.tile == t.name
            ]
            for axis in axes:
                if (tensor, axis) in self.views:
                    continue
                name = unique(f"{tensor}_{tile_suffix(t.name)}", self.taken)
                self.views[tensor, axis] = name
                added.append((tensor, axis))
                self.emit(f"{name} = {tensor}.slice(axis={axis}, start={start}, stop={stop})")
        return added

    # ------------------------------------------------------------------ the whole body

    def body(self) -> list[str]:
        """The kernel body lines: tile indices, lane masks, then the statements."""
        for t in self.kernel.grid:
            self.env.bind_tile(t)
        if len(self.kernel.grid) > 3:
            raise TranslationError(
                f"cuTile grids have at most 3 dims; `{self.kernel.name}` has "
                f"{len(self.kernel.grid)}",
                self.kernel.loc,
                "merge grid dims into one (flatten batch and heads)",
            )
        for s in self.kernel.body:
            self.stmt(s)
        if persistent(self.kernel):
            # One program walks tiles with a stride of the grid's size (the host launches about
            # one program per SM): the body, masks included, is one tile's work.
            (t,) = self.kernel.grid
            count = f"ct.cdiv({self.text(t.extent)}, {self.block_of(t)})"
            head = [f"    for {t.name} in range(ct.bid(0), {count}, ct.num_blocks(0)):"]
            lines = self.mask_lines + self.lines
            return self.type_lines + head + ["    " + line if line else line for line in lines]
        if grouped(self.kernel):
            head = self._grouped_head()
        else:
            head = [f"    {t.name} = ct.bid({axis})" for axis, t in enumerate(self.kernel.grid)]
        return head + self.type_lines + self.mask_lines + self.lines

    def _grouped_head(self) -> list[str]:
        """The tile indices of a grouped order: one flat block id walks the output tiles in
        groups of GROUP_SIZE row tiles (what the source's group size asked for)."""
        (group, _), (tm, tn) = self.sig.knobs[0], self.kernel.grid
        bid, in_group, first, rows = (
            unique(n, self.taken) for n in ("bid", "tiles_in_group", "first_tile", "group_rows")
        )
        counts = [unique(f"num_tiles_{tile_suffix(t.name)}", self.taken) for t in (tm, tn)]
        return [
            f"    {bid} = ct.bid(0)",
            f"    {counts[0]} = ct.cdiv({self.text(tm.extent)}, {self.block_of(tm)})",
            f"    {counts[1]} = ct.cdiv({self.text(tn.extent)}, {self.block_of(tn)})",
            "    # Grouped order: the blocks that run together share row tiles of the first "
            "operand in L2.",
            f"    {in_group} = {group} * {counts[1]}",
            f"    {first} = ({bid} // {in_group}) * {group}",
            f"    {rows} = min({counts[0]} - {first}, {group})",
            f"    {tm.name} = {first} + ({bid} % {in_group}) % {rows}",
            f"    {tn.name} = ({bid} % {in_group}) // {rows}",
        ]


def _first_tile(t: ir.TileVar) -> ir.Expr | None:
    """The tile index a loop starts at: 0, or ``x`` of a begin of ``x * block`` (a whole
    number of tiles, which ct.load's tile indices can address); None for any other begin."""
    if t.begin is None:
        return ir.Const(0)
    b = t.begin
    if t.scalar and t.step is not None:
        # Every step-th element from `begin` (a persistent program's share of the rows).
        return b
    if isinstance(b, ir.BinOp) and b.op == "*" and isinstance(t.block, str):
        if b.rhs == ir.Name(t.block):
            return b.lhs
        if b.lhs == ir.Name(t.block):
            return b.rhs
    return None


def grouped(kernel: ir.Kernel) -> bool:
    """Whether ``kernel`` is written in a grouped tile order: a 2-D grid of tiles (one program
    per tile, not persistent) whose source asked for one (a ``group_size`` tunable)."""
    return grouped_grid(kernel) and not persistent(kernel)


def persistent(kernel: ir.Kernel) -> bool:
    """Whether ``kernel`` is written as a persistent loop: a persistent schedule over a 1-D grid
    of tiles (a grid of more dims is written one program per tile; the schedule is a hint)."""
    return (
        (kernel.hints.schedule or "").startswith("persistent")
        and len(kernel.grid) == 1
        and not kernel.grid[0].scalar
    )


def _children(e: ir.Expr) -> list[ir.Expr]:
    """The direct sub-expressions of ``e``."""
    import dataclasses

    out: list[ir.Expr] = []
    for f in dataclasses.fields(e):
        v = getattr(e, f.name)
        if isinstance(v, ir.Expr):
            out.append(v)
        elif isinstance(v, tuple):
            out.extend(x for x in v if isinstance(x, ir.Expr))
    return out


def _bare_argument(template: str, i: int) -> bool:
    """Whether every ``{i}`` of ``template`` is a whole call argument (``f({0}, ...)``)."""
    return not re.search(rf"[^(, ]\s*\{{{i}\}}|\{{{i}\}}\s*[^,)]", template)


def _tuple(items: list[str]) -> str:
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


def _expand(mask: str, axis: int, rank: int) -> str:
    """A 1-D mask broadcast along ``axis`` of a rank-``rank`` tile (``m[None, :]``)."""
    return _spread(mask, axis, 1, rank)


def _spread(tile: str, axis: int, n: int, rank: int) -> str:
    """A rank-``n`` tile placed at axes ``axis`` to ``axis + n`` of a rank-``rank`` tile, to
    broadcast along the others (``t[:, None]``)."""
    if n == rank:
        return tile
    parts = ["None"] * axis + [":"] * n + ["None"] * (rank - axis - n)
    return f"{tile}[{', '.join(parts)}]"


def _same(a: float | None, b: float) -> bool:
    if a is None:
        return False
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b


def _unit_dims_differ(dims: tuple[ir.Dim, ...], target: tuple[ir.Dim, ...]) -> bool:
    """Whether ``dims`` are ``target``'s up to unit dims, but of another rank."""
    if len(dims) == len(target):
        return False
    strip = [d for d in dims if not isinstance(d, ir.UnitDim)]
    return strip == [d for d in target if not isinstance(d, ir.UnitDim)]


def _dims_in(e: ir.Expr) -> list[ir.FullDim]:
    dims: tuple[ir.Dim, ...] = ()
    if isinstance(e, (ir.Full, ir.Reshape, ir.Broadcast)):
        dims = e.shape
    elif isinstance(e, ir.Arange):
        dims = (e.dim,)
    return [d for d in dims if isinstance(d, ir.FullDim)]


def _extent_word(extent: ir.Expr) -> str:
    """A word for a whole-dim extent (``n``; ``x.size(1)`` -> ``x1``)."""
    if isinstance(extent, ir.Name):
        return extent.id
    if isinstance(extent, ir.SizeOf):
        return f"{extent.tensor}{extent.dim}"
    if isinstance(extent, ir.Const):
        return str(extent.value)
    return "full"


__all__ = ["KernelSignature", "KernelWriter"]
