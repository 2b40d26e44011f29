"""IR expressions and device statements → Helion source lines.

Helion device code is torch code on tiles, so most IR nodes have a direct spelling (from the
``[backend.*]`` tables of ``grammars/helion.toml``). The work is in the places where torch and the
IR disagree: transcendental ops the IR computes in float32 (torch keeps fp16), torch ops that
need tensors where the IR has Python scalars, dots whose output dtype matters, stores whose value
rank differs from the region's, and the boundary checks of :mod:`.boundary`.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from translator.dialects.common.printer import ATOM, CodePrinter
from translator.dialects.helion.configs import BlockPlan
from translator.ir import nodes as ir
from translator.ir.ops import ARITH_OPS, POINTWISE_OPS, reduce_identity
from translator.ir.pad_tracker import PadTracker
from translator.ir.printer import PRECEDENCE
from translator.ir.shapes import (
    TensorType,
    TileType,
    TileVarType,
    TypeEnv,
    dims_compatible,
    dims_of,
    dtype_of,
    index_dims,
    is_float,
    promote,
    torch_dtype,
)
from translator.ir.visit import all_exprs, has_lane_index_dtype, walk_expr, walk_stmts
from translator.naming import tile_suffix, unique

#: Helion pads every load with 0 itself: the padding mode that decides whether Helion 1.4's
#: `hl.dot`, which does not mask computed operands, may be used.
HELION_LOAD_PADS = {"helion": 0.0}

_F32_OR_WIDER = ("float32", "float64")


@dataclass(frozen=True)
class TileName:
    """How a tile variable is spelt: ``kind`` is ``"tile"`` (``hl.tile``), ``"grid"`` (an
    ``hl.grid`` index, a plain integer), ``"unit"`` (an IR index emitted as a block-1 tile of a
    mixed ``hl.tile`` loop, read through ``.begin``) or ``"strided"`` (a tile loop that skips
    tiles, see :meth:`Writer.strided_header`: ``name`` is the ``hl.grid`` start of the tile,
    ``offs`` its lanes, ``mask`` their validity, ``block`` and ``extent`` the texts of its block
    size and extent)."""

    name: str
    kind: str
    offs: str = ""
    mask: str = ""
    block: str = ""
    extent: str = ""


class Writer(CodePrinter):
    """Writes the expressions and statements of one kernel (its host part or its device code)."""

    language = "Helion"
    dialect = "helion"
    refusal_hint = "write the value with pointwise ops on tiles instead"

    def __init__(
        self,
        kernel: ir.Kernel,
        env: TypeEnv,
        plan: BlockPlan,
        taken: set[str],
        device: bool = True,
    ) -> None:
        # Indented once: the lines are the body of the kernel's `def`.
        super().__init__(env, indent=1)
        self.kernel = kernel
        self.device = device
        self.plan = plan
        self.taken = taken
        self.tiles: dict[str, TileName] = {}
        self.tensor_vars: set[str] = set()
        self.pads = PadTracker(lambda: self.env, load_pads=HELION_LOAD_PADS)
        self.needs_math = False
        # Device locals bound first to a number and later to a tensor (a loop-carried `m = -inf`
        # updated with a reduction): Helion wants one type per variable across control flow, so
        # a second pass binds them as 0-d tensors from the start (see Writer.force_tensor).
        self.became_tensor: dict[str, ir.DTypeExpr] = {}
        self.force_tensor: dict[str, ir.DTypeExpr] = {}
        # Lane masks of strided tiles that some statement used (their line is written lazily).
        self.masks_used: set[str] = set()
        # Whole dims some tile of constants spans (see _mean).
        self.full_dims: set[ir.Dim] = {
            d for x in all_exprs(kernel.body) if isinstance(x, ir.Full) for d in x.shape
        }

    # ================================================================== helpers

    def is_tensor(self, e: ir.Expr) -> bool:
        """Whether ``e`` is a torch tensor in Helion (a tile, or a 0-d result of one), as opposed
        to a Python number or symbolic size (constants, sizes, scalar arguments, tile attributes).
        """
        if isinstance(self.type_of(e), TileType):
            return True
        for x in walk_expr(e):
            if isinstance(x, (ir.Load, ir.Reduce, ir.Dot, ir.Full, ir.Arange)):
                return True
            if isinstance(x, ir.Cast) and self.device:
                return True  # a cast number becomes a 0-d tensor (see _ex_Cast)
            if isinstance(x, ir.Call) and x.op in self.spell.get("inline", {}):
                return True  # an inlined snippet's result is a tensor (a 0-d one at least)
            if isinstance(x, ir.Name) and x.id in self.tensor_vars:
                return True
        return False

    def tensor_dtype(self, tensor: str) -> str:
        """``x.dtype``."""
        return f"{tensor}.dtype"

    # ================================================================== scalars and operators

    def _ex_Name(self, e: ir.Name) -> tuple[str, int]:
        t = self.env.vars.get(e.id)
        if isinstance(t, TileVarType):
            return self._tile_attr(e.id, "index"), ATOM
        return e.id, ATOM

    def _ex_SizeOf(self, e: ir.SizeOf) -> tuple[str, int]:
        return f"{e.tensor}.size({e.dim})", ATOM

    def _ex_ShapeOf(self, e: ir.ShapeOf) -> tuple[str, int]:
        return f"{e.tensor}.size()", ATOM

    def _ex_TupleExpr(self, e: ir.TupleExpr) -> tuple[str, int]:
        return ", ".join(self.text(i) for i in e.items), 0

    def _ex_BinOp(self, e: ir.BinOp) -> tuple[str, int]:
        mean = self._mean(e)
        if mean is not None:
            return mean, ATOM
        if e.op == "<" and isinstance(e.lhs, ir.TileAttr) and e.lhs.attr == "index":
            spelt = self.tiles.get(e.lhs.tile)
            if spelt is not None and spelt.kind == "strided" and self.text(e.rhs) == spelt.extent:
                # The validity of a strided tile's lanes has a name (see strided_header).
                self.masks_used.add(spelt.mask)
                return spelt.mask, ATOM
        if e.op in ("and", "&"):
            kept = _without_whole_dim_checks(e)
            if kept is not None and kept is not e:
                return self.ex(kept)
        return super()._ex_BinOp(e)

    def elementwise_logic(self, e: ir.BinOp) -> bool:
        """``and``/``or`` is elementwise where an operand is a torch tensor (0-d ones too)."""
        return self.is_tensor(e.lhs) or self.is_tensor(e.rhs)

    def binop_operands(self, e: ir.BinOp, lhs_prec: int, rhs_prec: int) -> tuple[str, str]:
        """Arithmetic operands promoted as the IR promotes them (see :meth:`promoted`)."""
        if e.op in ARITH_OPS:
            a, b = self.promoted(e, [e.lhs, e.rhs], [lhs_prec, rhs_prec])
            return a, b
        return super().binop_operands(e, lhs_prec, rhs_prec)

    def promoted(self, e: ir.Expr, operands: list[ir.Expr], precs: list[int]) -> list[str]:
        """Operand texts, tiles upcast where torch would compute in a narrower float than the IR.

        The IR promotes a tile with a typed scalar as Triton does (fp16 tile * fp32 scalar is
        fp32); torch lets a dimensioned tensor's dtype win over 0-d ones and numbers (fp16).
        """
        texts = [self.text(o, p) for o, p in zip(operands, precs)]
        result = dtype_of(self.type_of(e))
        if not (isinstance(result, ir.DType) and result.name in ir.FLOAT_DTYPES):
            return texts
        types = [self.type_of(o) for o in operands]
        tiles = [(i, t.dtype) for i, t in enumerate(types) if isinstance(t, TileType) and t.dims]
        if not tiles:
            return texts
        computed = torch_dtype(types)
        if computed is None or computed == result or not is_float(computed):
            return texts
        for i, d in tiles:
            if d != result:
                texts[i] = f"{self.text(operands[i], ATOM)}.to({self.dtype(result)})"
        return texts

    def negation(self, operand: ir.Expr) -> str:
        """Python's ``not`` on numbers; on tensors ``~`` (booleans) or ``== 0``."""
        if not self.is_tensor(operand):
            return "not"
        return "~" if dtype_of(self.type_of(operand)) == ir.BOOL else "== 0"

    def _ex_Call(self, e: ir.Call) -> tuple[str, int]:
        if e.op == "if_none":
            value, fallback = (self.text(x, 3) for x in e.args)
            return f"{fallback} if {value} is None else {value}", 1
        if e.op == "fma":
            a, b, c = e.args
            return self.ex(ir.BinOp("+", ir.BinOp("*", a, b), c))
        snippet = self.spell.get("inline", {}).get(e.op)
        if snippet is not None:
            return self._inline_triton(snippet, e), ATOM
        tensors = [self.is_tensor(a) for a in e.args]
        if not any(tensors):
            return self._scalar_call(e)
        if e.op in ("maximum", "minimum") and not all(tensors):
            # torch.maximum needs two tensors; a Python bound is a clamp.
            x, bound = (e.args[0], e.args[1]) if tensors[0] else (e.args[1], e.args[0])
            template = self.spell["clamp"][e.op]
            return template.format(self.text(x), self.text(bound)), ATOM
        if e.op == "where" and not tensors[0]:
            c, a, b = (self.text(x, 3) for x in e.args)
            return f"{a} if {c} else {b}", 1
        if (
            e.op == "where"
            and tensors[1]
            and (not tensors[2] or self.type_of(e) == self.type_of(e.args[1]))
            and (_without_whole_dim_checks(e.args[0]) is None)
        ):
            # Every lane Helion shows is valid, so the test is always true (the other value, a
            # tensor too, would only pad lanes Helion never shows: Liger pads with a mean).
            return self.ex(e.args[1])
        template = self.spell["pointwise"].get(e.op)
        if template is None:
            reason = self.spell["refused"].get("pointwise", {}).get(e.op)
            why, _, instead = (reason or "").partition("; ")
            raise self.refuse(
                f"the IR op `{e.op}` has no Helion spelling" + (f": {why}" if why else ""),
                e,
                instead or None,
            )
        if POINTWISE_OPS[e.op].result == "float":
            # The IR computes these in (at least) float32 and keeps float32, where torch would
            # round to the operand's width; upcast the operands that are narrower.
            args = [self._f32(a) for a in e.args]
        elif e.op == "where":
            args = [self.text(e.args[0]), *self.promoted(e, list(e.args[1:]), [0, 0])]
        else:
            args = self.promoted(e, list(e.args), [0] * len(e.args))
        return template.format(*args), ATOM

    def _inline_triton(self, snippet: str, e: ir.Call) -> str:
        """``hl.inline_triton(snippet, args=(...), output_like=hl.zeros(shape, dtype=...))``:
        the operands in the IR's dtypes (a tile's index is int32 in Helion, as Triton's
        ``tl.arange`` offsets are, but int64 under ``index_dtype=torch.int64``, and ``tl.rand``
        draws another stream for int64 offsets), and an empty tile of the result's shape and
        dtype (``[]`` for a scalar)."""
        lang = self.spell["language"]
        wide_indices = self.kernel.hints.index_bits == 64
        texts = []
        for a in e.args:
            dt = dtype_of(self.type_of(a))
            if wide_indices and dt == ir.I32 and self.is_tensor(a) and has_lane_index_dtype(a):
                texts.append(f"{self.text(a, ATOM)}.to({self.dtype(dt)})")
            else:
                texts.append(self.text(a))
        args = ", ".join(texts) + ("," if len(texts) == 1 else "")
        result = self.type_of(e)
        shape = self.shape_text(dims_of(result) if isinstance(result, TileType) else ())
        like = f"{lang['zeros']}({shape}, dtype={self.dtype(dtype_of(result))})"
        return f'{lang["inline_triton"]}("{snippet}", args=({args}), output_like={like})'

    def _f32(self, e: ir.Expr) -> str:
        dt = dtype_of(self.type_of(e))
        if (isinstance(dt, ir.DType) and dt.name in _F32_OR_WIDER) or not self.is_tensor(e):
            return self.text(e)
        return f"{self.text(e, ATOM)}.to({self.spell['dtypes']['float32']})"

    def _scalar_call(self, e: ir.Call) -> tuple[str, int]:
        if (
            self.device
            and e.op in self.spell["pointwise"]
            and not all(map(self._host_value, e.args))
        ):
            # A number that varies per program (a tile's id, a loaded scalar): `math.*` would
            # make Helion trace it as one Python value (the first program's), so the op runs on
            # a 0-d tensor, as a cast of such a number does.
            full = self.spell["language"]["full"]
            args = [f"{full}([], {self.text(a)}, dtype={self.dtype(ir.F32)})" for a in e.args]
            return self.spell["pointwise"][e.op].format(*args), ATOM
        template = self.spell["scalar_pointwise"].get(e.op)
        if template is None:
            raise self.refuse(f"the IR op `{e.op}` on Python scalars has no Helion spelling", e)
        if "math." in template:
            self.needs_math = True
        return template.format(*(self.text(a) for a in e.args)), ATOM

    def _host_value(self, e: ir.Expr) -> bool:
        """Whether ``e`` is computed from host values only (constants, sizes, the kernel's
        scalar parameters): the same number in every program."""
        params = {p.name for p in self.kernel.params}
        leaves = (ir.Const, ir.SizeOf, ir.BinOp, ir.UnaryOp, ir.Call)
        return all(
            isinstance(x, leaves) or (isinstance(x, ir.Name) and x.id in params)
            for x in walk_expr(e)
        )

    def _ex_Cast(self, e: ir.Cast) -> tuple[str, int]:
        rounded = self._rounded_float_call(e)
        if rounded is not None:
            return rounded, ATOM
        if isinstance(self.type_of(e.value), TensorType):
            # A host conversion of a whole tensor (`out = c.to(a.dtype)` after an atomic kernel).
            return f"{self.text(e.value, ATOM)}.to({self.dtype(e.dtype)})", ATOM
        if not self.is_tensor(e.value) and self.device:
            # A number or symbolic size becomes a typed 0-d tensor (float() would force Helion
            # to specialise the size).
            full = self.spell["language"]["full"]
            return f"{full}([], {self.text(e.value)}, dtype={self.dtype(e.dtype)})", ATOM
        if not self.is_tensor(e.value):
            name = e.dtype.name if isinstance(e.dtype, ir.DType) else "float32"
            kind = "bool" if name == "bool" else "float" if name in ir.FLOAT_DTYPES else "int"
            return f"{kind}({self.text(e.value)})", ATOM
        return f"{self.text(e.value, ATOM)}.to({self.dtype(e.dtype)})", ATOM

    def _rounded_float_call(self, e: ir.Cast) -> str | None:
        """``torch.exp(x)`` for the IR's ``cast(exp(x), dtype(x))``: a float op of fp16/bf16
        tiles computed in float32 and rounded back to their dtype is what torch does by itself
        (the Helion frontend writes the rounding out; here it goes again)."""
        call = e.value
        if not isinstance(call, ir.Call) or call.op not in POINTWISE_OPS:
            return None
        if POINTWISE_OPS[call.op].result != "float":
            return None
        template = self.spell["pointwise"].get(call.op)
        dtype = torch_dtype([self.type_of(a) for a in call.args])
        if template is None or dtype is None or dtype != e.dtype:
            return None
        return template.format(*(self.text(a) for a in call.args))

    # ================================================================== tiles

    def _tile_attr(self, tile: str, attr: str) -> str:
        spelt = self.tiles[tile]
        if spelt.kind == "tile":
            return f"{spelt.name}.{attr}"
        if spelt.kind == "unit":
            begin = f"{spelt.name}.begin"
            return {
                "index": begin,
                "begin": begin,
                "id": begin,
                "block_size": "1",
                "end": f"{spelt.name}.end",
                "count": f"{spelt.name}.count",
            }[attr]
        if spelt.kind == "strided":
            return self._strided_attr(tile, spelt, attr)
        # An hl.grid index: one integer.
        var = self.env.tiles[tile]
        if attr in ("index", "begin", "id"):
            return spelt.name
        if attr == "end":
            return f"({spelt.name} + 1)"
        if attr == "block_size":
            return "1"
        if var.begin is None:
            return self.text(var.extent)
        return f"({self.text(var.extent, 9)} - {self.text(var.begin, 10)})"

    def _strided_attr(self, tile: str, spelt: TileName, attr: str) -> str:
        """An attribute of a strided tile, from its start (a plain integer) and block size."""
        if attr == "index":
            return spelt.offs
        if attr == "begin":
            return spelt.name
        if attr == "block_size":
            return spelt.block
        if attr == "end":
            minimum = self.spell["scalar_pointwise"]["minimum"]
            return minimum.format(f"{spelt.name} + {spelt.block}", spelt.extent)
        if attr == "id":
            return f"{spelt.name} // {spelt.block}"
        # count: the tiles of the whole range, as for any tile (the IR's definition).
        var = self.env.tiles[tile]
        extent = (
            spelt.extent
            if var.begin is None
            else (f"{self.text(var.extent, 9)} - {self.text(var.begin, 10)}")
        )
        return self.spell["scalar_pointwise"]["cdiv"].format(extent, spelt.block)

    def _ex_TileAttr(self, e: ir.TileAttr) -> tuple[str, int]:
        text = self._tile_attr(e.tile, e.attr)
        if self.tiles[e.tile].kind == "strided" and e.attr == "id":
            return text, PRECEDENCE["//"]
        return text, ATOM

    def dim_text(self, d: ir.Dim) -> str:
        """A shape entry of ``hl.zeros``/``hl.full``/``reshape``: a tile, a size or 1."""
        if isinstance(d, ir.BlockDim):
            spelt = self.tiles[d.tile]
            return spelt.block if spelt.kind == "strided" else spelt.name
        if isinstance(d, ir.FullDim):
            return self.text(d.extent)
        return "1"

    def shape_text(self, dims: tuple[ir.Dim, ...]) -> str:
        """``[tile_m, n, 1]``."""
        return "[" + ", ".join(self.dim_text(d) for d in dims) + "]"

    # ================================================================== memory

    def index_items(self, tensor: str, index: tuple[ir.IndexItem, ...], as_list: bool) -> list[str]:
        """The subscript (or ``hl.load`` index-list) entries of ``index`` into ``tensor``."""
        out = []
        dim = 0
        for item in index:
            bounds = self._slice_bounds(tensor, dim, item)
            dim += 0 if isinstance(item, ir.NewAxis) else 1
            if bounds is not None:
                start, stop = bounds
                # Spaced like `ruff format` spaces a slice with a compound bound: no space on a
                # side whose bound is left out (`x[: n + 1]`).
                colon = (
                    ":"
                    if all(_simple_bound(b) for b in bounds)
                    else (" :" if start else ":") + (" " if stop else "")
                )
                out.append(
                    f"slice({start or 'None'}, {stop})" if as_list else f"{start}{colon}{stop}"
                )
            elif isinstance(item, ir.TileIndex):
                spelt = self.tiles[item.tile]
                out.append(
                    f"{spelt.name}.begin"
                    if spelt.kind == "unit"
                    else spelt.offs
                    if spelt.kind == "strided"
                    else spelt.name
                )
            elif isinstance(item, ir.FullIndex):
                out.append("slice(None)" if as_list else ":")
            elif isinstance(item, ir.NewAxis):
                out.append("None")
            else:
                out.append(self.text(item.value))
        return out

    def _slice_bounds(self, tensor: str, dim: int, item: ir.IndexItem) -> tuple[str, str] | None:
        """``(start, stop)`` texts where ``item`` is a contiguous part of dim ``dim`` that
        Helion's ``:`` cannot say: a whole-dim index whose extent may be a prefix of the dim
        (``x[i, :n]``), or the lanes of a whole dim shifted by a host scalar (``x[i, h : h + n]``,
        the second half of a row). Helion slices with such bounds mask the lanes past ``stop``.
        """
        if isinstance(item, ir.FullIndex) and item.extent is not None:
            if ir.partial_dim(tensor, dim, item.extent) in self.kernel.partial_dims:
                return "", self.text(item.extent)
            return None
        if not isinstance(item, ir.GatherIndex) or not isinstance(item.value, ir.BinOp):
            return None
        e = item.value
        if e.op != "+":
            return None
        for lanes, shift in ((e.lhs, e.rhs), (e.rhs, e.lhs)):
            if (
                isinstance(lanes, ir.Arange)
                and isinstance(lanes.dim, ir.FullDim)
                and not dims_of(self.type_of(shift))
            ):
                start = self.text(shift, PRECEDENCE["+"] + 1)
                return start, f"{start} + {self.text(lanes.dim.extent, PRECEDENCE['+'] + 1)}"
        return None

    def _gathers(self, tensor: str, index: tuple[ir.IndexItem, ...]) -> bool:
        """Whether ``index`` gathers (needs ``hl.load``/``hl.store`` index lists)."""
        return any(
            isinstance(item, ir.GatherIndex) and self._slice_bounds(tensor, 0, item) is None
            for item in index
        )

    def _ex_Load(self, e: ir.Load) -> tuple[str, int]:
        mask = self.strided_mask(dims_of(self.type_of(e)))
        if e.mask is not None:
            # The load's predicate (a jagged batch's `k < nnz`): Helion's extra_mask, whose
            # masked-off lanes read 0.
            if e.other != 0.0:
                raise self.refuse(
                    f"a load of `{e.tensor}` whose masked lanes read {e.other!r}: Helion's "
                    "extra_mask= lanes read 0",
                    e,
                    "load with other=0.0 and select the lanes with torch.where after",
                )
            pred = self.text(e.mask, PRECEDENCE["&"] + 1)
            mask = pred if mask is None else f"{mask} & {pred}"
        if mask is not None:
            # Helion masks tiles, not the lanes of a strided tile (an hl.arange): say which are
            # valid. Masked-off lanes read 0, as Helion's own masked lanes do.
            self._refuse_unlisted(e.index, e)
            items = ", ".join(self.index_items(e.tensor, e.index, as_list=True))
            load = self.spell["language"]["load"]
            return f"{load}({e.tensor}, [{items}], extra_mask={mask})", ATOM
        if self._gathers(e.tensor, e.index) and not any(
            isinstance(i, (ir.FullIndex, ir.NewAxis)) for i in e.index
        ):
            items = self.index_items(e.tensor, e.index, as_list=True)
            return f"{self.spell['language']['load']}({e.tensor}, [{', '.join(items)}])", ATOM
        return f"{e.tensor}[{', '.join(self.index_items(e.tensor, e.index, as_list=False))}]", ATOM

    def strided(self, d: ir.Dim) -> TileName | None:
        """The spelling of the strided tile that ``d`` spans, if it is one."""
        spelt = self.tiles.get(d.tile) if isinstance(d, ir.BlockDim) else None
        return spelt if spelt is not None and spelt.kind == "strided" else None

    def strided_mask(self, dims: tuple[ir.Dim, ...], only: int | None = None) -> str | None:
        """The validity of the lanes of ``dims`` that strided tiles span, broadcast to ``dims``
        (``mask_k[None, :]``), or ``None`` where no dim is strided. ``only``: that dim alone."""
        terms = []
        for i, d in enumerate(dims):
            spelt = self.strided(d)
            if spelt is None or (only is not None and i != only):
                continue
            self.masks_used.add(spelt.mask)
            if len(dims) == 1:
                terms.append(spelt.mask)
            else:
                parts = ["None"] * len(dims)
                parts[i] = ":"
                terms.append(f"{spelt.mask}[{', '.join(parts)}]")
        return " & ".join(terms) if terms else None

    def _refuse_unlisted(self, index: tuple[ir.IndexItem, ...], node: object) -> None:
        """hl.load/hl.store index lists take tiles, tensors and scalars (no `:` or `None`)."""
        if any(isinstance(i, (ir.FullIndex, ir.NewAxis)) for i in index):
            raise self.refuse(
                "an access with `:` or `None` through the lanes of a strided tile loop has no "
                "Helion spelling yet (hl.load/hl.store need them masked, and take neither)",
                node,
                "index every dimension with a tile or a scalar",
            )

    def _ex_Full(self, e: ir.Full) -> tuple[str, int]:
        lang = self.spell["language"]
        shape = self.shape_text(e.shape)
        dtype = self.dtype(e.dtype)
        if isinstance(e.value, ir.Const) and e.value.value == 0:
            return f"{lang['zeros']}({shape}, dtype={dtype})", ATOM
        if self.is_tensor(e.value):
            # hl.full takes a Python number in Helion 1.4 (a tensor only from 1.5 on).
            value = f"{self.text(e.value, ATOM)}.to({dtype})"
            return f"{lang['zeros']}({shape}, dtype={dtype}) + {value}", PRECEDENCE["+"]
        return f"{lang['full']}({shape}, {self.text(e.value)}, dtype={dtype})", ATOM

    def _ex_Arange(self, e: ir.Arange) -> tuple[str, int]:
        if isinstance(e.dim, ir.BlockDim):
            size = f"{self.dim_text(e.dim)}.block_size"
        else:
            size = self._whole_dim_size(e.dim) or self.dim_text(e.dim)
        return f"{self.spell['language']['arange']}({size})", ATOM

    def _whole_dim_size(self, dim: ir.Dim) -> str | None:
        """``row.size(0)`` for a whole dim that a tensor in scope spans (``row = x[i, :]``).

        Helion gives the dim of a ``:`` slice its own symbolic size, which ``hl.arange(n)`` of
        the same ``n`` does not broadcast against; an arange sized by the slice does."""
        for name, t in self.env.vars.items():  # the first bound, for a stable choice
            if name in self.tensor_vars and isinstance(t, TileType) and dim in t.dims:
                return f"{name}.size({t.dims.index(dim)})"
        return None

    # ================================================================== reductions, dots, layout

    def _ex_Reduce(self, e: ir.Reduce) -> tuple[str, int]:
        dims = dims_of(self.type_of(e.value))
        axis = e.axis % len(dims)
        if not e.masked:
            self._check_unmasked_reduce(e, dims[axis])
        keep = ", keepdim=True" if e.keepdim else ""
        fn = self.spell["reductions"][e.op]
        value = self.text(e.value)
        if self.strided(dims[axis]) is not None:
            value = self._strided_reduce_operand(e, dims, axis, value)
        text = f"{fn}({value}, dim={axis}{keep})"
        result = dtype_of(self.type_of(e))
        operand = dtype_of(self.type_of(e.value))
        if e.op in ("argmax", "argmin") or (
            e.op in ("sum", "prod")
            and isinstance(operand, ir.DType)
            and operand.name not in ir.FLOAT_DTYPES
        ):
            # torch returns int64 for these; the IR keeps its own integer type.
            text = f"{text}.to({self.dtype(result)})"
        return text, ATOM

    def _strided_reduce_operand(
        self, e: ir.Reduce, dims: tuple[ir.Dim, ...], axis: int, value: str
    ) -> str:
        """The operand of a reduction over a strided tile's lanes, which Helion does not mask:
        as it is where Helion's padding (0 from loads) is already the identity, else with the
        identity selected on the invalid lanes."""
        identity = reduce_identity(e.op)
        pad = self.pads.along(e.value, dims[axis], "helion")
        if pad is not None and pad.uniform is None and pad.value == identity:
            return value
        mask = self.strided_mask(dims, only=axis)
        dtype = dtype_of(self.type_of(e.value))
        if isinstance(dtype, ir.DType) and dtype.name not in ir.FLOAT_DTYPES:
            if math.isinf(identity):
                raise self.refuse(
                    f"`{e.op}` of integers over the lanes of a strided tile loop: their identity "
                    "is no integer",
                    e,
                    "reduce a float value, or loop over every tile",
                )
            return self.spell["pointwise"]["where"].format(mask, value, int(identity))
        return self.spell["pointwise"]["where"].format(mask, value, self.text(ir.Const(identity)))

    def _mean(self, e: ir.BinOp) -> str | None:
        """``torch.mean(x, dim=d)`` for a masked sum over a whole dim divided by its extent (the
        form the Helion frontend lowers ``torch.mean`` to)."""
        r = e.lhs
        if e.op != "/" or not isinstance(r, ir.Reduce) or r.op != "sum" or not r.masked:
            return None
        t = self.type_of(r.value)
        dims = dims_of(t)
        dim = dims[r.axis % len(dims)]
        if not (isinstance(dim, ir.FullDim) and dim.extent == e.rhs and is_float(t.dtype)):
            return None
        if self._full_over(dim):
            # Helion (1.5) sizes such a dim by its padded block once an `hl.zeros` spans it
            # (a per-column accumulator beside a row reduction), and `torch.mean` then divides
            # by the block size, not the extent: measured, wrong by the padding's share.
            return None
        keep = ", keepdim=True" if r.keepdim else ""
        fn = self.spell["composites"]["mean"]
        return f"{fn}({self.text(r.value)}, dim={r.axis % len(dims)}{keep})"

    def _full_over(self, dim: ir.FullDim) -> bool:
        """Whether the kernel makes a tile of constants (``hl.zeros``/``hl.full``) over
        whole dim ``dim``."""
        return dim in self.full_dims

    def _check_unmasked_reduce(self, e: ir.Reduce, dim: ir.Dim) -> None:
        exact, pad = self.pads.reduction_is_exact(e, dim)
        if exact:
            return
        identity = reduce_identity(e.op)
        if pad is None:
            held = "unknown values"
        elif pad.value != identity:
            held = repr(pad.value)
        else:
            held = f"{identity!r} or, in some rows, copies of {pad.uniform!r}"
        raise self.refuse(
            f"unmasked `{e.op}` over dimension `{dim}` whose out-of-bounds lanes hold {held}, "
            f"not the identity {identity!r}: Helion always leaves out-of-bounds lanes out of a "
            "reduction, so the result would differ at ragged edges",
            e,
            f"make those lanes hold {identity!r} in the source (load with other={identity!r} "
            "or select them with a where on the mask) before reducing",
        )

    def _ex_Dot(self, e: ir.Dot) -> tuple[str, int]:
        da, db = dims_of(self.type_of(e.lhs)), dims_of(self.type_of(e.rhs))
        rank = len(da)
        if rank > 3 or not dims_compatible(da[:-2], db[:-2]):
            raise self.refuse(
                "dots of rank above 3, or with broadcast batch dims, have no Helion spelling yet",
                e,
                "use 2-D or equally batched 3-D operands",
            )
        if not e.masked and not self.pads.dot_k_lanes_vanish(e, "ir"):
            raise self.refuse(
                "unmasked dot whose out-of-bounds contraction lanes are not known to be zero: "
                "Helion always leaves them out, so the result would differ at ragged edges",
                e,
                "load the operands with other=0.0 in the source",
            )
        dots = self.spell["dots"]
        out = self.dtype(e.out_dtype)
        result = dims_of(self.type_of(e))
        a, b = self._dot_operands(e)
        if e.acc is not None:
            acc_t = self.type_of(e.acc)
            acc = (
                self.text(e.acc)
                if dtype_of(acc_t) == e.out_dtype
                else (f"{self.text(e.acc, ATOM)}.to({out})")
            )
            if dims_compatible(dims_of(acc_t), result):
                # torch.addmm masks its operands in every Helion version (hl.dot only in 1.5).
                fn = dots["addmm"] if rank == 2 else dots["baddbmm"]
                return f"{fn}({acc}, {a}, {b})", ATOM
            return f"{acc} + {self._product(e, a, b, rank, out, result)}", PRECEDENCE["+"]
        return self._product(e, a, b, rank, out, result), ATOM

    def _dot_operands(self, e: ir.Dot) -> tuple[str, str]:
        """Operand texts; of two different element types the narrower is cast up (torch and
        Helion's dots take one input dtype)."""
        ta, tb = dtype_of(self.type_of(e.lhs)), dtype_of(self.type_of(e.rhs))
        a, b = self.text(e.lhs), self.text(e.rhs)
        if ta != tb and isinstance(ta, ir.DType) and isinstance(tb, ir.DType):
            common = promote(ta, tb)
            if ta != common:
                a = f"{self.text(e.lhs, ATOM)}.to({self.dtype(common)})"
            if tb != common:
                b = f"{self.text(e.rhs, ATOM)}.to({self.dtype(common)})"
        da, db = dims_of(self.type_of(e.lhs)), dims_of(self.type_of(e.rhs))
        if self.strided(da[-1]) is not None and not self.pads.dot_k_lanes_vanish(e, "helion"):
            # Helion masks tile dims of a dot, not a strided tile's lanes: zero them where the
            # padding does not already make every product over them zero.
            where = self.spell["pointwise"]["where"]
            a = where.format(self.strided_mask(da, only=len(da) - 1), a, "0.0")
            b = where.format(self.strided_mask(db, only=len(db) - 2), b, "0.0")
        return a, b

    def _product(
        self, e: ir.Dot, a: str, b: str, rank: int, out: str, result: tuple[ir.Dim, ...]
    ) -> str:
        dots = self.spell["dots"]
        natural = promote(dtype_of(self.type_of(e.lhs)), dtype_of(self.type_of(e.rhs)))
        if natural == e.out_dtype:
            return f"{dots['mm'] if rank == 2 else dots['bmm']}({a}, {b})"
        if self.pads.dot_k_lanes_vanish(e, "helion"):
            # hl.dot chooses the output dtype; Helion 1.4 does not mask its computed operands,
            # which is harmless here: their out-of-bounds contraction lanes are zero.
            return f"{dots['dot']}({a}, {b}, out_dtype={out})"
        zeros = f"{self.spell['language']['zeros']}({self.shape_text(result)}, dtype={out})"
        fn = dots["addmm"] if rank == 2 else dots["baddbmm"]
        return f"{fn}({zeros}, {a}, {b})"

    def _ex_Permute(self, e: ir.Permute) -> tuple[str, int]:
        moved = [i for i, p in enumerate(e.perm) if i != p]
        value = self.text(e.value, ATOM)
        if len(moved) == 2:
            return f"{value}.transpose({moved[0]}, {moved[1]})", ATOM
        return f"{value}.permute({', '.join(map(str, e.perm))})", ATOM

    def _ex_Scan(self, e: ir.Scan) -> tuple[str, int]:
        dims = dims_of(self.type_of(e.value))
        axis = e.axis % len(dims)
        if self.strided(dims[axis]) is not None:
            raise self.refuse("a scan along a strided tile's lanes has no Helion spelling yet", e)
        # Invalid lanes follow the valid ones along the axis: Helion's scan never needs them.
        return f"{self.spell['scans'][e.op]}({self.text(e.value)}, dim={axis})", ATOM

    def _ex_Broadcast(self, e: ir.Broadcast) -> tuple[str, int]:
        value = self.text(e.value, ATOM)
        rank = len(dims_of(self.type_of(e.value)))
        for _ in range(len(e.shape) - rank):  # torch's expand wants the leading dims spelt
            value = f"{value}[None]"
        sizes = ", ".join(self.dim_text(d) for d in e.shape)
        return f"{value}.expand({sizes})", ATOM

    def _ex_Reshape(self, e: ir.Reshape) -> tuple[str, int]:
        # A reshape that only undoes `[:, None]`s (Triton's `idx[:, None]` gather offsets,
        # lifted as one index per row) is the value itself.
        inner = e.value
        while isinstance(inner, ir.ExpandDims) and dims_of(self.type_of(inner)) != e.shape:
            inner = inner.value
        if dims_of(self.type_of(inner)) == e.shape:
            return self.ex(inner)
        return f"{self.text(e.value, ATOM)}.reshape({self.shape_text(e.shape)})", ATOM

    # ================================================================== statements

    def _st_Assign(self, s: ir.Assign) -> None:
        value = self.text(s.value)
        tensor = self.is_tensor(s.value)
        if not tensor and s.target in self.force_tensor:
            dtype = self.dtype(self.force_tensor[s.target])
            value = f"{self.spell['language']['full']}([], {value}, dtype={dtype})"
            tensor = True
        self.emit(f"{s.target} = {value}")
        if tensor and s.target in self.env.vars and s.target not in self.tensor_vars:
            self.became_tensor.setdefault(s.target, dtype_of(self.type_of(s.value)))
        self.env.vars[s.target] = self.type_of(s.value)
        if tensor:
            self.tensor_vars.add(s.target)
        else:
            self.tensor_vars.discard(s.target)
        self.pads.bind(s.target, s.value)

    def _store_value(self, s: ir.Store | ir.AtomicRMW) -> str:
        """The stored value, reshaped to the region's rank (Helion wants them equal)."""
        region = index_dims(s.tensor, s.index, self.env, s.loc)
        t = self.type_of(s.value)
        vdims = dims_of(t)
        if not vdims or len(vdims) == len(region):
            return self.text(s.value)
        if len(vdims) < len(region):
            # Broadcast from the right, as the IR does: leading unit dims.
            parts = ["None"] * (len(region) - len(vdims)) + [":"] * len(vdims)
            return f"{self.text(s.value, ATOM)}[{', '.join(parts)}]"
        return f"{self.text(s.value, ATOM)}.reshape({self.shape_text(region)})"

    def _st_Store(self, s: ir.Store) -> None:
        value = self._store_value(s)
        mask = self.strided_mask(index_dims(s.tensor, s.index, self.env, s.loc))
        if mask is not None:
            self._refuse_unlisted(s.index, s)
            items = ", ".join(self.index_items(s.tensor, s.index, as_list=True))
            store = self.spell["language"]["store"]
            self.emit(f"{store}({s.tensor}, [{items}], {value}, extra_mask={mask})")
            return
        if self._gathers(s.tensor, s.index):
            items = ", ".join(self.index_items(s.tensor, s.index, as_list=True))
            self.emit(f"{self.spell['language']['store']}({s.tensor}, [{items}], {value})")
            return
        self.emit(
            f"{s.tensor}[{', '.join(self.index_items(s.tensor, s.index, as_list=False))}] = {value}"
        )

    def _st_AtomicRMW(self, s: ir.AtomicRMW) -> None:
        region = index_dims(s.tensor, s.index, self.env, s.loc)
        if any(self.strided(d) is not None for d in region):
            raise self.refuse(
                f"atomic `{s.op}` through the lanes of a strided tile loop: Helion's atomics take "
                "no mask, so the lanes past the extent would be updated",
                s,
                "accumulate over the strided loop and update after it, through full tiles",
            )
        value = self._store_value(s)
        items = ", ".join(self.index_items(s.tensor, s.index, as_list=True))
        self.emit(f"{self.spell['atomics'][s.op]}({s.tensor}, [{items}], {value})")

    def _st_If(self, s: ir.If, keyword: str = "if") -> None:
        assigned = {x.target for x in walk_stmts(s.body + s.orelse) if isinstance(x, ir.Assign)}
        if isinstance(s.test, ir.UnaryOp) and s.test.op == "not" and s.orelse:
            # `if not flag: A else: B` reads as well as `if flag: B else: A`, and Helion 1.4.0
            # (the one that runs with torch 2.11) cannot trace `not` of a bool kernel argument
            # (GuardOnDataDependentSymNode); 1.5 can.
            s = ir.If(s.test.operand, s.orelse, s.body, s.comments, s.loc)
        super()._st_If(s, keyword)
        # After the branch a value may hold either side's padding.
        self.pads.forget(assigned)

    def branch(self, stmts: tuple[ir.Stmt, ...]) -> None:
        """A branch in a scope of its own (types it binds do not leak into the other)."""
        self._scoped(stmts)

    def _st_While(self, s: ir.While) -> None:
        """``while test:``; what it carries are 0-d tensors (see ``rebinding.while_carried``)."""
        assigned = {x.target for x in walk_stmts(s.body) if isinstance(x, ir.Assign)}
        # The test and the body read what an earlier iteration left.
        self.pads.forget(assigned)
        if not any(isinstance(e, ir.Load) for e in walk_expr(s.test)):
            self.emit(f"while {self.text(s.test)}:")
            self._scoped(s.body)
            self.pads.forget(assigned)
            return
        # A test that loads fails Helion's code generation (1.4.0 and 1.5.1: "Load/Store
        # operation exceeds indexing config length"); a named test computed before the loop
        # and at the end of every pass does not.
        cond = unique("cond", self.taken)
        self.emit(f"{cond} = {self.text(s.test)}")
        self.emit(f"while {cond}:")
        self._scoped((*s.body, ir.Assign(cond, s.test, loc=s.loc)))
        self.pads.forget(assigned)

    def _clipped_by_program(self, extent: ir.Expr) -> bool:
        """Whether ``extent`` is a scalar the kernel assigns once a ``minimum(...)`` of numbers
        (Python's ``min`` in Helion) that reads a grid tile (``ko_end = minimum(n, ko_begin +
        c)``)."""
        lets: dict[str, list[ir.Expr]] = {}
        for a in walk_stmts(self.kernel.body):
            if isinstance(a, ir.Assign):
                lets.setdefault(a.target, []).append(a.value)
        if not isinstance(extent, ir.Name):
            # Written in the loop's own bounds, `hl.tile(b, min(b + c, k))` with `b` a grid
            # index runs (Helion's split-K examples, checked under the interpreter); a `min`
            # assigned to a device scalar first is what fails.
            return False
        while isinstance(extent, ir.Name) and len(lets.get(extent.id, [])) == 1:
            extent = lets[extent.id][0]
        if not (isinstance(extent, ir.Call) and extent.op == "minimum"):
            return False
        if any(self.is_tensor(a) for a in extent.args):
            return False  # written `torch.clamp(t, max=n)`, which Helion takes (stream-K)
        grid = {t.name for t in self.kernel.grid}
        seen: set[str] = set()
        todo = [extent]
        while todo:
            for e in walk_expr(todo.pop()):
                if isinstance(e, ir.TileAttr) and e.tile in grid:
                    return True
                if isinstance(e, ir.Name) and e.id in grid:
                    return True
                if isinstance(e, ir.Name) and e.id not in seen:
                    seen.add(e.id)
                    todo.extend(lets.get(e.id, []))
        return False

    def _st_TileLoop(self, s: ir.TileLoop) -> None:
        for t in s.tiles:
            bounds = [t.extent, *([t.begin] if t.begin is not None else [])]
            if any(
                isinstance(e, ir.TileAttr) and e.attr == "id" for b in bounds for e in walk_expr(b)
            ):
                # `hl.tile(min(n, cdiv((bx.id + 1) * bx.block_size, b) * b))` fails under
                # Helion (measured: an interpreter TypeError), so it is refused, not written.
                raise self.refuse(
                    f"the loop over `{t.name}` ends at a value of another tile's index (a "
                    "causal bound), which Helion's hl.tile does not take",
                    s,
                    "loop over the whole extent and mask the tiles past the bound in the body",
                )
            if self._clipped_by_program(t.extent):
                # `hl.tile(b, min(n, bz.begin * s + c))` fails under Helion (measured with
                # 1.5.1 under TRITON_INTERPRET, the CPU oracle: the min is generated as a
                # product of comparisons the interpreter rejects; the GPU was not measured).
                raise self.refuse(
                    f"the loop over `{t.name}` ends at the smaller of a size and a value of "
                    "a grid tile's index (a share of the extent per program), which Helion's "
                    "hl.tile does not take",
                    s,
                    "give each program every split-th tile (split-K's strided form: tiles "
                    "`bz, bz + split_k, ...`), or loop over the whole extent and skip the "
                    "tiles past the share in the body",
                )
        if len(s.tiles) > 1 and any(t.step is not None for t in s.tiles):
            raise self.refuse(
                "a loop over several tiles of which some skip tiles has no Helion spelling",
                s,
                "loop over the tile that skips tiles in a loop of its own",
            )
        assigned = {x.target for x in walk_stmts(s.body) if isinstance(x, ir.Assign)}
        # Inside the loop a carried value may hold what an earlier iteration left.
        self.pads.forget(assigned)
        saved_tiles = dict(self.tiles)
        outer = self.env
        inner = outer.child()
        self.env = inner
        names = self.bind_tiles(s.tiles)
        self.env = outer
        if names[0].kind == "strided":
            self.strided_header(s.tiles[0], names[0], s.body, inner)
        else:
            self.emit(self.loop_header(s.tiles, names) + ":")
            self._scoped(s.body, inner)
        self.tiles = saved_tiles
        self.pads.forget(assigned)

    def strided_header(
        self, t: ir.TileVar, spelt: TileName, body: tuple[ir.Stmt, ...], inner: TypeEnv
    ) -> None:
        """A tile loop that visits every ``step``-th tile (split-K's share of the K tiles).

        ``hl.tile`` has no step, so the loop walks the tile starts with ``hl.grid`` and spans
        each tile's lanes with ``hl.arange``; loads and stores through them pass their validity
        as ``extra_mask``. (An ``hl.tile`` of one tile nested in the ``hl.grid`` reads as well
        but halves matmul speed on an H200: Triton pipelines only innermost loops.)
        """
        begin = self.text(t.begin) if t.begin is not None else "0"
        assert t.step is not None
        step = f"{spelt.block} * {self.text(t.step, PRECEDENCE['*'] + 1)}"
        lang = self.spell["language"]
        self.emit(f"for {spelt.name} in {lang['grid']}({begin}, {spelt.extent}, {step}):")
        self.indent += 1
        self.emit(f"{spelt.offs} = {spelt.name} + {lang['arange']}({spelt.block})")
        at = len(self.lines)
        self.indent -= 1
        self._scoped(body, inner)
        if spelt.mask in self.masks_used:
            indent = "    " * (self.indent + 1)
            self.lines.insert(at, f"{indent}{spelt.mask} = {spelt.offs} < {spelt.extent}")

    def _scoped(self, body: tuple[ir.Stmt, ...], inner: TypeEnv | None = None) -> None:
        """Write ``body`` in a nested scope; values defined before it are carried out."""
        outer = self.env
        self.env = inner if inner is not None else outer.child()
        self.block(body)
        for name, t in self.env.vars.items():
            if name in outer.vars and not isinstance(t, TileVarType):
                outer.vars[name] = t
        self.env = outer

    # ================================================================== loop headers

    def bind_tiles(self, tiles: tuple[ir.TileVar, ...]) -> list[TileName]:
        """Bring ``tiles`` (one loop's) into scope under names that shadow nothing.

        IR indices (``scalar``) are ``hl.grid`` indices when the whole loop is, and block-1 tiles
        read through ``.begin`` in a loop that also tiles (one ``hl.tile`` call covers both).
        """
        mixed = any(t.scalar for t in tiles) and not all(t.scalar for t in tiles)
        out = []
        for t in tiles:
            name = t.name
            if t.step is not None and not t.scalar:
                spelt = self._strided_names(t)
                self.env.bind_tile(t)
                self.tiles[t.name] = spelt
                out.append(spelt)
                continue
            if name in self.env.vars:
                # Python has no block scope: an inner loop variable would clobber the outer one.
                name = unique(t.name, self.taken)
            kind = "unit" if mixed and t.scalar else "grid" if t.scalar else "tile"
            spelt = TileName(name, kind)
            self.env.bind_tile(t)
            self.tiles[t.name] = spelt
            out.append(spelt)
        return out

    def _strided_names(self, t: ir.TileVar) -> TileName:
        """``start_k``, ``offs_k``, ``mask_k`` for strided tile ``tile_k``."""
        suffix = tile_suffix(t.name)
        block = self.plan.block_arg(t)
        assert block is not None, "plan_blocks registers the block sizes of strided tiles"
        return TileName(
            unique(f"start_{suffix}", self.taken),
            "strided",
            offs=unique(f"offs_{suffix}", self.taken),
            mask=unique(f"mask_{suffix}", self.taken),
            block=block,
            extent=self.text(t.extent),
        )

    def loop_header(self, tiles: tuple[ir.TileVar, ...], names: list[TileName]) -> str:
        """``for tile_m, tile_n in hl.tile([m, n])`` (or ``hl.grid``) over ``tiles``."""
        lang = self.spell["language"]
        targets = ", ".join(n.name for n in names)
        grid = all(t.scalar for t in tiles)
        begins = [self.text(t.begin) if t.begin is not None else "0" for t in tiles]
        ends = [self.text(t.extent) for t in tiles]
        has_begin = any(t.begin is not None for t in tiles)
        if len(tiles) == 1:
            args = f"{begins[0]}, {ends[0]}" if has_begin else ends[0]
        else:
            ends_list = "[" + ", ".join(ends) + "]"
            args = f"[{', '.join(begins)}], {ends_list}" if has_begin else ends_list
        if grid:
            if tiles[0].step is not None:
                # Only single-tile loops skip tiles (see _st_TileLoop).
                if not has_begin:
                    args = f"0, {args}"
                args += f", {self.text(tiles[0].step)}"
            return f"for {targets} in {lang['grid']}({args})"
        blocks = [self.plan.block_arg(t) for t in tiles]
        if any(b is not None for b in blocks):
            spelt = [b if b is not None else "None" for b in blocks]
            value = spelt[0] if len(tiles) == 1 else "[" + ", ".join(spelt) + "]"
            args += f", block_size={value}"
        return f"for {targets} in {lang['tile']}({args})"


def _without_whole_dim_checks(cond: ir.Expr) -> ir.Expr | None:
    """``cond`` without its ``arange(:n) < n`` conjuncts (``None`` if nothing is left).

    A whole dim's lanes in Helion are exactly its ``n`` elements, so the test is always true; and
    ``hl.arange(n)`` does not broadcast against a ``x[tile, :]`` whose size Helion keeps symbolic.
    """
    if isinstance(cond, ir.BinOp) and cond.op in ("and", "&"):
        lhs, rhs = _without_whole_dim_checks(cond.lhs), _without_whole_dim_checks(cond.rhs)
        if lhs is None or rhs is None:
            return rhs if lhs is None else lhs
        if lhs is cond.lhs and rhs is cond.rhs:
            return cond
        return dataclasses.replace(cond, lhs=lhs, rhs=rhs)
    if isinstance(cond, ir.BinOp) and cond.op == "<":
        lanes = cond.lhs.value if isinstance(cond.lhs, ir.ExpandDims) else cond.lhs
        if (
            isinstance(lanes, ir.Arange)
            and isinstance(lanes.dim, ir.FullDim)
            and lanes.dim.extent == cond.rhs
        ):
            return None
    return cond


__all__ = ["Writer", "TileName"]


def _simple_bound(text: str) -> bool:
    """Whether a slice bound is a name, attribute chain or number (no spaces around `:`)."""
    return not text or all(part.isidentifier() or part.isdigit() for part in text.split("."))
