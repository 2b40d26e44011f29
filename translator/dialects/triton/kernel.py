"""IR kernel → the body and signature of a ``@triton.jit`` function.

Every tiled dimension gets offsets and a mask (``offs_m``/``mask_m``), every load a mask and its
``other=``, every store a mask; masked reductions and dots get a ``tl.where`` on the reduced
dimension unless the operand's out-of-bounds lanes are already known to hold the identity.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from translator.diagnostics import TranslationError
from translator.dialects.common.printer import ATOM, CodePrinter
from translator.ir import nodes as ir
from translator.ir.ops import integer_identity, reduce_identity
from translator.ir.padding import fold_pad
from translator.ir.printer import PRECEDENCE, format_expr
from translator.ir.shapes import (
    ScalarType,
    TileType,
    TileVarType,
    TypeEnv,
    dims_compatible,
    dims_of,
    dtype_of,
    index_dims,
    infer,
    kernel_env,
    promote,
)
from translator.ir.signs import nonnegative, nonnegative_names
from translator.ir.single_tile import at_extent, at_id, empty_is_noop, is_single_tile_loop
from translator.ir.visit import access_full_extents, all_exprs, full_extents, stmt_walk, walk_stmts
from translator.naming import constant_name, tile_suffix, unique


@dataclass
class DimNames:
    """The Triton names of one tiled or full dimension."""

    offs: str
    mask: str
    block: str
    extent: str
    pid: str | None = None
    start: str | None = None
    scalar: bool = False


@dataclass
class KernelSignature:
    """What the kernel takes, in order, and how the host computes each argument."""

    tensors: list[str] = field(default_factory=list)
    # (param, value): the value in the IR kernel's own terms (its parameters).
    scalars: list[tuple[str, ir.Expr]] = field(default_factory=list)
    strides: list[tuple[str, str, int]] = field(default_factory=list)  # (param, tensor, dim)
    # (param, value); ``None``: a tunable the autotuner or the launch sets.
    constexprs: list[tuple[str, ir.Expr | None]] = field(default_factory=list)
    tunable_params: dict[str, str] = field(default_factory=dict)  # tunable -> constexpr name


class KernelEmitter(CodePrinter):
    """Emits one self-contained kernel."""

    language = "Triton"
    dialect = "triton"

    def __init__(self, kernel: ir.Kernel, module: ir.Module | None = None) -> None:
        # Indented once: the lines are the body of the kernel's `def`.
        super().__init__(kernel_env(kernel), indent=1)
        self.kernel = kernel
        # Scalars never negative, where `//` and `%` need no correction (see _floor_division).
        self.nonneg = nonnegative_names(kernel, module)
        self.sig = KernelSignature()
        self.dims: dict[object, DimNames] = {}
        self.taken: set[str] = set()
        self.pads: dict[str, float | None] = {}
        self.inline_load: ir.Load | None = None
        self.needs_libdevice = False
        # Loads in K loops whose pointers are computed once and advanced (key -> name, step).
        self.hoisted: dict[tuple, tuple[str, str]] = {}
        self.axis_pads: dict[str, tuple[float | None, tuple[int, ...]]] = {}
        # Dot operands whose non-contraction dims wrap instead of being masked (key -> axes).
        self.wrapped: dict[tuple, tuple[int, ...]] = {}
        # Tiles a program computes the id of, written as offsets without a loop.
        self.single_tiles: set[str] = set()
        self._plan()

    # ================================================================== planning

    def _plan(self) -> None:
        k = self.kernel
        for p in k.params:
            if p.kind != "tensor":
                self.taken.add(p.name)
        for s in walk_stmts(k.body):
            if isinstance(s, ir.Assign):
                self.taken.add(s.target)
        stmts = walk_stmts(k.body)
        tiles: list[ir.TileVar] = list(k.grid)
        for s in stmts:
            if isinstance(s, ir.TileLoop):
                tiles.extend(s.tiles)
        for t in tiles:
            if isinstance(t.block, str):
                self.sig.tunable_params.setdefault(t.block, constant_name(t.block))
        for e in all_exprs(k.body):
            if isinstance(e, ir.Name) and any(t.name == e.id for t in k.tunables):
                self.sig.tunable_params.setdefault(e.id, constant_name(e.id))
        # tensors in order of first use
        for s in walk_stmts(k.body):
            if isinstance(s, (ir.Store, ir.AtomicRMW)):
                self._use_tensor(s.tensor, s.index, s)
            for e in stmt_walk(s):
                if isinstance(e, ir.Load):
                    self._use_tensor(e.tensor, e.index, e)
        self.taken.update(f"{t}_ptr" for t in self.sig.tensors)
        # host scalars read by the kernel (sizes, scalar params)
        self._scalar_params(tiles)
        # tile dims
        for t in tiles:
            self._name_tile(t)
        # full dims
        for e in all_exprs(k.body):
            for d in _dims_in(e):
                self._name_full(d.extent)
        for s in walk_stmts(k.body):
            if isinstance(s, (ir.Store, ir.AtomicRMW)):
                for extent in full_extents(s.tensor, s.index):
                    self._name_full(extent)
        order = [t.name for t in k.tunables]
        tunable_consts = [
            (self.sig.tunable_params[t], None) for t in order if t in self.sig.tunable_params
        ]
        self.taken.update(c for c, _ in tunable_consts)
        self.sig.constexprs = tunable_consts + self.sig.constexprs
        self._order_params()

    def _order_params(self) -> None:
        """Parameters in the IR kernel's order (the host's: inputs, outputs, sizes)."""
        rank: dict[str, int] = {p.name: i for i, p in enumerate(self.kernel.params)}
        last = len(rank)
        self.sig.tensors.sort(key=lambda t: rank.get(t, last))
        self.sig.scalars.sort(key=lambda p: rank.get(p[0], last))
        self.sig.strides.sort(key=lambda p: (rank.get(p[1], last), p[2]))

    def _use_tensor(self, tensor: str, index: tuple[ir.IndexItem, ...], node: object) -> None:
        if tensor not in self.sig.tensors:
            self.sig.tensors.append(tensor)
        dim = 0
        for item in index:
            if isinstance(item, ir.NewAxis):
                continue
            param = f"stride_{tensor}{dim}"
            if all(p != param for p, _, _ in self.sig.strides):
                self.sig.strides.append((param, tensor, dim))
                self.taken.add(param)
            dim += 1

    def _scalar_params(self, tiles: list[ir.TileVar]) -> None:
        exprs = list(all_exprs(self.kernel.body))
        for t in tiles:
            exprs.append(t.extent)
            if t.begin is not None:
                exprs.append(t.begin)
        from translator.ir.visit import walk_expr

        flat: list[ir.Expr] = []
        for e in exprs:
            flat.extend(walk_expr(e))
        for extent in access_full_extents(self.kernel.body):
            flat.extend(walk_expr(extent))
        specialized = {p.name for p in self.kernel.params if p.constexpr}
        for e in flat:
            if isinstance(e, ir.Name):
                t = self.env.vars.get(e.id)
                if (
                    isinstance(t, ScalarType)
                    and e.id not in self.sig.tunable_params
                    and not any(tv.name == e.id for tv in self.kernel.tunables)
                ):
                    self._add_scalar(e.id, e, constexpr=e.id in specialized)
            elif isinstance(e, ir.SizeOf):
                self._add_scalar(f"{e.tensor}_size{e.dim}", e)

    def _add_scalar(self, param: str, host: ir.Expr, constexpr: bool = False) -> None:
        if constexpr:
            if all(p != param for p, _ in self.sig.constexprs):
                self.sig.constexprs.append((param, host))
        elif all(p != param for p, _ in self.sig.scalars):
            self.sig.scalars.append((param, host))
        self.taken.add(param)

    def _name_tile(self, t: ir.TileVar) -> None:
        if t.name in self.dims:
            return
        s = tile_suffix(t.name)
        is_grid = any(g is t for g in self.kernel.grid)
        # A loop's bounds may read what the program computed before it: spelt at the loop.
        extent = self.kexpr(t.extent) if is_grid else ""
        if t.scalar:
            self.dims[t.name] = DimNames(t.name, "", "1", extent, scalar=True)
            self.taken.add(t.name)
            return
        block = self.sig.tunable_params[t.block] if isinstance(t.block, str) else str(t.block.value)
        self.dims[t.name] = DimNames(
            offs=unique(f"offs_{s}", self.taken),
            mask=unique(f"mask_{s}", self.taken),
            block=block,
            extent=extent,
            pid=unique(f"pid_{s}", self.taken) if is_grid else None,
            start=None if is_grid else unique(f"start_{s}", self.taken),
        )

    def _name_full(self, extent: ir.Expr) -> None:
        key = ("full", extent)
        if key in self.dims:
            return
        text = self.kexpr(extent)
        # `_n` names offs_n and BLOCK_N, not offs__n and BLOCK__N.
        base = _ident(text)
        block = unique(f"BLOCK_{constant_name(base)}", self.taken)
        self.dims[key] = DimNames(
            offs=unique(f"offs_{base}", self.taken),
            mask=unique(f"mask_{base}", self.taken),
            block=block,
            extent=text,
        )
        self.sig.constexprs.append((block, ir.Call("next_power_of_2", (extent,))))

    # ================================================================== expressions

    def kexpr(self, e: ir.Expr) -> str:
        """A host scalar expression as the kernel sees it (through its parameters)."""
        return self.ex(e)[0]

    def dim_names(self, d: ir.Dim) -> DimNames | None:
        if isinstance(d, ir.BlockDim):
            return self.dims[d.tile]
        if isinstance(d, ir.FullDim):
            return self.dims[("full", d.extent)]
        return None

    def dim_size(self, d: ir.Dim) -> str:
        names = self.dim_names(d)
        return names.block if names else "1"

    def tensor_dtype(self, tensor: str) -> str:
        """The element type behind ``x_ptr``; for a tensor the kernel never indexes (a view's
        base, passed for its dtype), a pointer parameter of its own."""
        if tensor not in self.sig.tensors and any(p.name == tensor for p in self.kernel.params):
            self.sig.tensors.append(tensor)
            self.taken.add(f"{tensor}_ptr")
        return f"{tensor}_ptr.dtype.element_ty"

    def _ex_Name(self, e: ir.Name) -> tuple[str, int]:
        if e.id in self.sig.tunable_params:
            return self.sig.tunable_params[e.id], ATOM
        t = self.env.vars.get(e.id)
        if isinstance(t, TileVarType):
            names = self.dims[e.id]
            return (names.offs if not names.scalar else e.id), ATOM
        return e.id, ATOM

    def _ex_SizeOf(self, e: ir.SizeOf) -> tuple[str, int]:
        return f"{e.tensor}_size{e.dim}", ATOM

    def _ex_BinOp(self, e: ir.BinOp) -> tuple[str, int]:
        if e.op == "**":
            return self._power(e.lhs, e.rhs)
        if e.op in ("//", "%") and not (self._nonnegative(e.lhs) and self._nonnegative(e.rhs)):
            return self._floor_division(e)
        return super()._ex_BinOp(e)

    def _nonnegative(self, e: ir.Expr) -> bool:
        """Whether ``e`` is never negative (:mod:`translator.ir.signs`: sizes, tile indices and
        program ids, block sizes, literals, parameters the launches pass sizes, locals computed
        from those): where ``//`` and ``%`` mean the same in C and in Python."""
        tiles = {n for n, t in self.env.vars.items() if isinstance(t, TileVarType)}
        return nonnegative(e, self.nonneg | tiles | set(self.sig.tunable_params))

    def _floor_division(self, e: ir.BinOp) -> tuple[str, int]:
        """``//`` and ``%`` as the IR means them (Python's: rounded toward -inf, a remainder
        with the divisor's sign) from Triton's (C's: toward zero, the dividend's sign). They
        differ only where the remainder is nonzero and the signs differ: one step back."""
        dtype = dtype_of(self.type_of(e))
        is_float = (isinstance(dtype, ir.DType) and dtype.name in ir.FLOAT_DTYPES) or any(
            isinstance(x, ir.Const) and isinstance(x.value, float) for x in (e.lhs, e.rhs)
        )
        if e.op == "//" and is_float:
            raise TranslationError(
                "`//` of floating-point values has no exact Triton spelling (Triton's `//` "
                "takes integers)",
                e.loc,
                "divide, then round with torch.floor in the source",
            )
        a = self._simple(self.text(e.lhs))
        b = self._simple(self.text(e.rhs))
        r = self._simple(f"{a} % {b}")
        off = f"({r} != 0) & (({r} < 0) != ({b} < 0))"
        if e.op == "%":
            return f"tl.where({off}, {r} + {b}, {r})", ATOM
        return f"tl.where({off}, {a} // {b} - 1, {a} // {b})", ATOM

    def elementwise_logic(self, e: ir.BinOp) -> bool:
        """Always: ``&``/``|`` serve scalars and blocks alike (this backend's one spelling)."""
        return True

    def logic_operand_precedence(self, op: str) -> int:
        """As tight as ``&`` under ``|`` too, so that mixed chains read ``(a & b) | c``."""
        return PRECEDENCE["&"] + 1

    def _power(self, base: ir.Expr, exponent: ir.Expr) -> tuple[str, int]:
        value = exponent.value if isinstance(exponent, ir.Const) else None
        if value in (2, 3) and not isinstance(value, bool):
            b = self._simple(self.text(base, 12))
            return " * ".join([b] * int(value)), 10
        b = self._f32(base)
        if value == 0.5:
            return f"tl.sqrt({b})", ATOM
        if value == -0.5:
            return f"tl.rsqrt({b})", ATOM
        self.needs_libdevice = True
        return f"libdevice.pow({b}, {self._f32(exponent)})", ATOM

    def _f32(self, e: ir.Expr) -> str:
        """``e`` as float32 (math functions take float32 operands)."""
        if _is_f32(dtype_of(self.type_of(e))):
            return self.text(e)
        return f"{self.text(e, ATOM)}.to(tl.float32)"

    def _ex_Call(self, e: ir.Call) -> tuple[str, int]:
        if e.op == "pow":
            return self._power(e.args[0], e.args[1])
        template = self.spell["pointwise"].get(e.op)
        if template is None:
            raise TranslationError(
                f"`{format_expr(e)}` in a kernel: `{e.op}` has no Triton device spelling",
                e.loc or self.kernel.loc,
                f"compute `{e.op}(...)` on the host and pass it to the kernel",
            )
        result = dtype_of(self.type_of(e))
        if isinstance(result, ir.DType) and result.name not in ir.FLOAT_DTYPES:
            # NaN propagation is a float concern: integers take the plain call.
            template = re.sub(r", propagate_nan=[\w.]+", "", template)
        fp32 = e.op in self.spell["fp32_only"]["ops"]
        single = _is_single_call(template)
        args = [self._f32(a) if fp32 else self.text(a) for a in e.args]
        if _uses_operand_twice(template):
            # Named first, so the name's assignment carries no parentheses of its own.
            args = [self._simple(a) for a in args]
        if not single:
            args = [f"({a})" if _needs_parens(a) else a for a in args]
        out = template.format(*args)
        if fp32 and not _is_f32(result):
            # Computed in float32 for the math library; the IR keeps the operand's dtype.
            return f"({out}).to({self.dtype(result)})" if not single else (
                f"{out}.to({self.dtype(result)})"
            ), ATOM
        # `tl.where(c, a, b)` is one call however its operands are spelled: an atom too.
        return out, (ATOM if single or not _needs_parens(out) else 0)

    def _simple(self, text: str) -> str:
        if text.isidentifier():
            return text
        name = unique("tmp", self.taken)
        self.emit(f"{name} = {text}")
        return name

    def _ex_Cast(self, e: ir.Cast) -> tuple[str, int]:
        if isinstance(e.value, ir.Const):
            # A Python number has no `.to`: a scalar of the dtype instead.
            return f"tl.full([], {self.text(e.value)}, {self.dtype(e.dtype)})", ATOM
        return f"{self.text(e.value, ATOM)}.to({self.dtype(e.dtype)})", ATOM

    def _ex_TileAttr(self, e: ir.TileAttr) -> tuple[str, int]:
        names = self.dims[e.tile]
        tile = self.env.tiles[e.tile]
        begin = self._tile_begin(names, tile)
        if e.attr == "index":
            return (names.offs if not names.scalar else e.tile), ATOM
        if e.attr == "begin":
            return begin
        if e.attr == "block_size":
            return names.block, ATOM
        if e.attr == "end":
            return f"tl.minimum({begin[0]} + {names.block}, {names.extent})", ATOM
        if e.attr == "id":
            if e.tile in self.single_tiles:
                return self.text(at_id(tile), 10), 10  # type: ignore[arg-type]
            if names.scalar:
                return e.tile, ATOM
            if names.pid and tile.begin is None:
                return names.pid, ATOM
            return f"({begin[0]}) // {names.block}", 10
        if e.attr == "count":
            return self._count(names, tile), ATOM
        raise KeyError(e.attr)

    def _tile_begin(self, names: DimNames, tile: ir.TileVar) -> tuple[str, int]:
        if tile.name in self.single_tiles:
            return self.text(tile.begin, 9), 9  # type: ignore[arg-type]
        if names.scalar:
            return tile.name, ATOM
        if names.start:
            return names.start, ATOM
        base = f"{names.pid} * {names.block}"
        if tile.begin is not None:
            return f"{self.text(tile.begin, 9)} + {base}", 9
        return base, 10

    def _ex_Load(self, e: ir.Load) -> tuple[str, int]:
        ptr, mask = self.region(e.tensor, e.index)
        if e.mask is not None:
            # The load's predicate (a jagged row's `k < nnz`) joins the bounds masks.
            pred = self.text(e.mask, PRECEDENCE["&"] + 1)
            mask = f"{mask} & {pred}" if mask else pred
        args = [ptr]
        if mask:
            args.append(f"mask={mask}")
            if e.other is not None:
                args.append(f"other={self._float(e.other)}")
        text = f"tl.load({', '.join(args)})"
        if self.inline_load is e:
            return text, ATOM
        # A load inside a larger expression gets a line of its own, named after its tensor.
        name = unique(e.tensor, self.taken)
        self.emit(f"{name} = {text}")
        self.pads[name] = e.other
        return name, ATOM

    def _float(self, v: float) -> str:
        return self._ex_Const(ir.Const(float(v)))[0]

    def _ex_Full(self, e: ir.Full) -> tuple[str, int]:
        shape = (
            "("
            + ", ".join(self.dim_size(d) for d in e.shape)
            + ("," if len(e.shape) == 1 else "")
            + ")"
        )
        if isinstance(e.value, ir.Const) and e.value.value == 0:
            return f"tl.zeros({shape}, dtype={self.dtype(e.dtype)})", ATOM
        return f"tl.full({shape}, {self.text(e.value)}, dtype={self.dtype(e.dtype)})", ATOM

    def _ex_Broadcast(self, e: ir.Broadcast) -> tuple[str, int]:
        shape = (
            "("
            + ", ".join(self.dim_size(d) for d in e.shape)
            + ("," if len(e.shape) == 1 else "")
            + ")"
        )
        return f"tl.broadcast_to({self.text(e.value)}, {shape})", ATOM

    def _ex_Arange(self, e: ir.Arange) -> tuple[str, int]:
        return f"tl.arange(0, {self.dim_size(e.dim)})", ATOM

    def _ex_Reduce(self, e: ir.Reduce) -> tuple[str, int]:
        t = self.type_of(e.value)
        dims = dims_of(t)
        axis = e.axis % len(dims)
        value = self.text(e.value)
        if e.masked:
            value = self.masked(e.value, value, dims, [axis], reduce_identity(e.op))
        fn = self.spell["reductions"][e.op]
        keep = ", keep_dims=True" if e.keepdim else ""
        return f"{fn}({value}, axis={axis}{keep})", ATOM

    def _ex_Scan(self, e: ir.Scan) -> tuple[str, int]:
        # Invalid lanes follow the valid ones along the axis: a forward scan never reads them.
        axis = e.axis % len(dims_of(self.type_of(e.value)))
        return f"{self.spell['scans'][e.op]}({self.text(e.value)}, axis={axis})", ATOM

    def masked(
        self, e: ir.Expr, text: str, dims: tuple[ir.Dim, ...], axes: list[int], identity: float
    ) -> str:
        """``text`` with invalid lanes along ``axes`` replaced by ``identity`` (if needed)."""
        if self.pad(e) == identity or all(self.axis_pad(e, a) == identity for a in axes):
            return text
        masks = []
        for axis in axes:
            names = self.dim_names(dims[axis])
            if names is None or names.scalar:
                continue
            masks.append(_expand(names.mask, axis, len(dims)))
        if not masks:
            return text
        fill = self._float(identity)
        dt = dtype_of(self.type_of(e))
        extreme = integer_identity(identity, dt.name) if isinstance(dt, ir.DType) else None
        if extreme is not None:
            # An integer max/min (a jagged batch's longest row): the dtype's extreme, since
            # `float("-inf")` would promote the integers to floats.
            fill = str(extreme)
        return f"tl.where({' & '.join(masks)}, {text}, {fill})"

    def _ex_Dot(self, e: ir.Dot) -> tuple[str, int]:
        ta, tb = self.type_of(e.lhs), self.type_of(e.rhs)
        da, db = dims_of(ta), dims_of(tb)
        a, b = self.text(e.lhs), self.text(e.rhs)
        # The IR's dot promotes its operands to their common dtype (as torch and Helion do);
        # tl.dot takes one dtype only, so the narrower operand is cast where that dtype is known.
        dta, dtb = dtype_of(ta), dtype_of(tb)
        common = promote(dta, dtb)
        if dta != dtb and isinstance(common, ir.DType):
            if dta != common:
                a = f"{self.text(e.lhs, ATOM)}.to({self.dtype(common)})"
            if dtb != common:
                b = f"{self.text(e.rhs, ATOM)}.to({self.dtype(common)})"
        if e.masked:
            a = self.masked(e.lhs, a, da, [len(da) - 1], 0.0)
            b = self.masked(e.rhs, b, db, [len(db) - 2], 0.0)
        dot = self.spell["dots"]["dot"]  # every form: tl.dot takes 3-D operands and an acc
        # Written only where it differs from tl.dot's own default (tf32).
        precision = (
            f", input_precision={e.precision!r}".replace("'", '"')
            if e.precision not in (None, self.spell["kernel"]["dot_precision"])
            else ""
        )
        if e.acc is not None:
            acc_t = self.type_of(e.acc)
            if _is_f32(dtype_of(acc_t)) and _is_f32(e.out_dtype):
                return f"{dot}({a}, {b}, {self.text(e.acc)}{precision})", ATOM
            prod = f"{dot}({a}, {b}, out_dtype={self.dtype(e.out_dtype)}{precision})"
            return f"{self.text(e.acc, 9)} + {prod}", 9
        if _is_f32(e.out_dtype):
            return f"{dot}({a}, {b}{precision})", ATOM
        return f"{dot}({a}, {b}{precision}).to({self.dtype(e.out_dtype)})", ATOM

    def _ex_Permute(self, e: ir.Permute) -> tuple[str, int]:
        if e.perm == (1, 0):
            return f"tl.trans({self.text(e.value)})", ATOM
        return f"tl.permute({self.text(e.value)}, {e.perm})", ATOM

    def _ex_Reshape(self, e: ir.Reshape) -> tuple[str, int]:
        shape = ", ".join(self.dim_size(d) for d in e.shape)
        return (
            f"tl.reshape({self.text(e.value)}, ({shape}{',' if len(e.shape) == 1 else ''}))",
            ATOM,
        )

    # ================================================================== regions

    def region(self, tensor: str, index: tuple[ir.IndexItem, ...]) -> tuple[str, str | None]:
        """Pointer block and mask of ``tensor[index]``."""
        key = (tensor, index)
        ptr, mask = self.pointer(tensor, index)
        if key in self.hoisted:
            return self.hoisted[key][0], mask
        if len(ptr) > 70:
            # Long address arithmetic reads better on a line of its own, as `x_ptrs = ...`.
            name = unique(f"{tensor}_ptrs", self.taken)
            self.emit(f"{name} = {ptr}")
            ptr = name
        return ptr, mask

    def pointer(self, tensor: str, index: tuple[ir.IndexItem, ...]) -> tuple[str, str | None]:
        """The pointer expression and mask of ``tensor[index]``, inline."""
        wrapped = self.wrapped.get((tensor, index), ())
        dims = index_dims(tensor, index, self.env, None)
        rank = len(dims)
        terms: list[str] = []
        masks: list[str] = []
        pos = 0
        dim = 0
        for item in index:
            if isinstance(item, ir.NewAxis):
                pos += 1
                continue
            stride = f"stride_{tensor}{dim}"
            dim += 1
            if isinstance(item, (ir.TileIndex, ir.FullIndex)):
                if isinstance(item, ir.TileIndex):
                    names = self.dims[item.tile]
                else:
                    names = self.dim_names(dims[pos])
                assert names is not None
                if names.scalar:
                    terms.append(f"{item.tile} * {stride}")  # type: ignore[union-attr]
                    continue
                if pos in wrapped:
                    # Rows past the edge read row `i % extent` instead of being masked: they only
                    # reach output lanes that are never stored (see _plan_loop_loads).
                    terms.append(
                        f"{_expand(f'({names.offs} % {names.extent})', pos, rank)} * {stride}"
                    )
                else:
                    terms.append(f"{_expand(names.offs, pos, rank)} * {stride}")
                    masks.append(_expand(names.mask, pos, rank))
                pos += 1
            elif isinstance(item, ir.ScalarIndex):
                if not (isinstance(item.value, ir.Const) and item.value.value == 0):
                    terms.append(f"{self.text(item.value, 10)} * {stride}")
            elif isinstance(item, ir.GatherIndex):
                t = self.type_of(item.value)
                gdims = dims_of(t)
                text = self.text(item.value, ATOM)
                if rank > len(gdims):
                    parts = (
                        ["None"] * pos + [":"] * len(gdims) + ["None"] * (rank - pos - len(gdims))
                    )
                    text = f"{text}[{', '.join(parts)}]"
                terms.append(f"{text} * {stride}")
                for j, gd in enumerate(gdims):
                    names = self.dim_names(gd)
                    if names is not None and not names.scalar:
                        masks.append(_expand(names.mask, pos + j, rank))
                pos += len(gdims)
        ptr = " + ".join([f"{tensor}_ptr", *terms])
        unique_masks = list(dict.fromkeys(masks))
        return ptr, (" & ".join(unique_masks) if unique_masks else None)

    # ================================================================== padding knowledge

    def axis_pad(self, e: ir.Expr, axis: int) -> float | None:
        """The value invalid lanes along ``axis`` of ``e`` hold, where known."""
        if isinstance(e, ir.Load) and axis not in self.wrapped.get((e.tensor, e.index), ()):
            return e.other
        if isinstance(e, ir.Name) and e.id in self.axis_pads:
            value, axes = self.axis_pads[e.id]
            if axis in axes:
                return value
        return self.pad(e)

    def pad(self, e: ir.Expr) -> float | None:
        """The value every invalid lane of ``e`` holds, where that is known."""
        if isinstance(e, ir.Load):
            return None if (e.tensor, e.index) in self.wrapped else e.other
        if isinstance(e, ir.Const):
            return float(e.value)
        if isinstance(e, ir.Full):
            return float(e.value.value) if isinstance(e.value, ir.Const) else None
        if isinstance(e, ir.Name):
            return self.pads.get(e.id)
        if isinstance(e, (ir.Cast, ir.ExpandDims, ir.Permute, ir.Reshape)):
            return self.pad(e.value)
        if isinstance(e, (ir.BinOp, ir.Call)):
            operands = [e.lhs, e.rhs] if isinstance(e, ir.BinOp) else list(e.args)
            op = e.op
            result_dims = dims_of(self.type_of(e))
            maskable = [d for d in result_dims if not isinstance(d, ir.UnitDim)]
            pads = []
            for a in operands:
                t = self.type_of(a)
                covers = isinstance(t, TileType) and all(d in t.dims for d in maskable)
                pads.append(self.pad(a) if (covers or isinstance(a, ir.Const)) else None)
            # 0 * c and 0 / c stay 0 only for finite, non-zero constants c (0 * inf is NaN).
            if op == "*" and 0.0 in pads:
                other = pads[1 - pads.index(0.0)]
                return 0.0 if other is not None and math.isfinite(other) else None
            if op == "/" and pads[0] == 0.0:
                return (
                    0.0 if pads[1] is not None and pads[1] != 0 and math.isfinite(pads[1]) else None
                )
            # An infinite pad absorbs a finite unknown (valid data is finite): -inf - max = -inf.
            if (
                op in ("+", "-")
                and len(pads) == 2
                and pads[0] is not None
                and pads[1] is None
                and math.isinf(pads[0])
            ):
                return pads[0]
            if (
                op in ("+", "-")
                and len(pads) == 2
                and pads[1] is not None
                and pads[0] is None
                and math.isinf(pads[1])
            ):
                return pads[1] if op == "+" else -pads[1]
            if any(p is None for p in pads):
                return None
            return fold_pad(op, pads)
        return None

    # ================================================================== statements

    def body(self) -> list[str]:
        """The kernel body lines."""
        self._grid_prologue()
        self._full_prologue(self.kernel.body)
        for s in self.kernel.body:
            self.stmt(s)
        return self.lines

    def _grid_prologue(self) -> None:
        grid = self.kernel.grid
        for t in grid:
            self.env.bind_tile(t)
        pid_type = self.kernel.hints.schedule or "flat"
        names = [self.dims[t.name] for t in grid]
        counts = [self._count(n, t) for n, t in zip(names, grid)]
        group = "group_size" in {t.name for t in self.kernel.tunables} and len(grid) == 2
        if pid_type == "xyz" or len(grid) == 1:
            for axis, (t, n) in enumerate(zip(grid, names)):
                target = t.name if n.scalar else n.pid
                self.emit(f"{target} = tl.program_id({axis})")
        elif group:
            self.sig.tunable_params.setdefault("group_size", "GROUP_SIZE_M")
            if all(c != "GROUP_SIZE_M" for c, _ in self.sig.constexprs):
                self.sig.constexprs.append(("GROUP_SIZE_M", None))
            a, b = names
            self.emit("pid = tl.program_id(0)")
            self.emit(f"num_pid_{tile_suffix(grid[0].name)} = {counts[0]}")
            self.emit(f"num_pid_{tile_suffix(grid[1].name)} = {counts[1]}")
            na, nb = (f"num_pid_{tile_suffix(t.name)}" for t in grid)
            # Grouped ordering: programs that run together share rows of the first operand in L2.
            self.emit(f"num_pid_in_group = GROUP_SIZE_M * {nb}")
            self.emit("group_id = pid // num_pid_in_group")
            self.emit("first_pid = group_id * GROUP_SIZE_M")
            self.emit(f"group_rows = min({na} - first_pid, GROUP_SIZE_M)")
            self.emit(
                f"{a.pid or grid[0].name} = first_pid + ((pid % num_pid_in_group) % group_rows)"
            )
            self.emit(f"{b.pid or grid[1].name} = (pid % num_pid_in_group) // group_rows")
        else:
            # One flat program id; the first grid dimension varies fastest (as Helion orders it).
            self.emit("pid = tl.program_id(0)")
            divisor = ""
            for i, (t, n) in enumerate(zip(grid, names)):
                target = t.name if n.scalar else n.pid
                count_name = f"num_pid_{tile_suffix(t.name)}"
                rest = f"pid // {divisor}" if divisor else "pid"
                if i < len(grid) - 1:
                    self.emit(f"{count_name} = {counts[i]}")
                    expr = f"({rest}) % {count_name}" if divisor else f"pid % {count_name}"
                    self.emit(f"{target} = {expr}")
                    divisor = count_name if not divisor else f"({divisor} * {count_name})"
                else:
                    self.emit(f"{target} = {rest}")
        for t, n in zip(grid, names):
            if n.scalar:
                if t.begin is not None:
                    self.emit(f"{t.name} = {t.name} + {self.text(t.begin, 9)}")
                continue
            begin = self._tile_begin(n, t)[0]
            self.emit(f"{n.offs} = {begin} + tl.arange(0, {n.block})")
            self.emit(f"{n.mask} = {n.offs} < {n.extent}")

    def _count(self, n: DimNames, tile: ir.TileVar) -> str:
        """Number of programs (or tiles) along ``tile``: its range from begin to extent."""
        span = n.extent if tile.begin is None else f"{n.extent} - {self.text(tile.begin, 10)}"
        if n.scalar:
            return span
        return f"tl.cdiv({span}, {n.block})"

    def _full_prologue(self, body: tuple[ir.Stmt, ...]) -> None:
        for key, n in self.dims.items():
            if isinstance(key, tuple) and key[0] == "full":
                self.emit(f"{n.offs} = tl.arange(0, {n.block})")
                self.emit(f"{n.mask} = {n.offs} < {n.extent}")

    def _st_Assign(self, s: ir.Assign) -> None:
        self.inline_load = s.value if isinstance(s.value, ir.Load) else None
        value = self.text(s.value)
        self.inline_load = None
        self.emit(f"{s.target} = {value}")
        self.pads[s.target] = self.pad(s.value)
        self.axis_pads.pop(s.target, None)
        if isinstance(s.value, ir.Load) and (s.value.tensor, s.value.index) in self.wrapped:
            wrapped = self.wrapped[(s.value.tensor, s.value.index)]
            rank = len(dims_of(self.type_of(s.value)))
            kept = tuple(a for a in range(rank) if a not in wrapped)
            self.axis_pads[s.target] = (s.value.other, kept)
        self.env.vars[s.target] = self.type_of(s.value)

    def _store_value(self, s: ir.Store | ir.AtomicRMW) -> str:
        region = index_dims(s.tensor, s.index, self.env, None)
        t = self.type_of(s.value)
        vdims = dims_of(t)
        text = self.text(s.value)
        if vdims and not dims_compatible(tuple(vdims), tuple(region)):
            core = tuple(d for d in vdims if not isinstance(d, ir.UnitDim))
            rcore = tuple(d for d in region if not isinstance(d, ir.UnitDim))
            if dims_compatible(core, rcore) and len(vdims) != len(region):
                shape = ", ".join(self.dim_size(d) for d in region)
                text = f"tl.reshape({text}, ({shape}{',' if len(region) == 1 else ''}))"
        return text

    def _st_Store(self, s: ir.Store) -> None:
        ptr, mask = self.region(s.tensor, s.index)
        value = self._store_value(s)
        mask_arg = f", mask={mask}" if mask else ""
        self.emit(f"tl.store({ptr}, {value}{mask_arg})")

    def _st_AtomicRMW(self, s: ir.AtomicRMW) -> None:
        ptr, mask = self.region(s.tensor, s.index)
        value = self._store_value(s)
        mask_arg = f", mask={mask}" if mask else ""
        self.emit(f"{self.spell['atomics'][s.op]}({ptr}, {value}{mask_arg})")

    def _st_While(self, s: ir.While) -> None:
        outer = self.env
        # The test reads what the last pass left too: padding of what the body rebinds unknown.
        saved_pads = self._enter_loop(s.body)
        start = len(self.lines)
        test = self.text(s.test)
        # A test that needed lines of its own (a load) is computed again before every test.
        setup = self.lines[start:]
        if setup:
            cond = unique("cond", self.taken)
            self.emit(f"{cond} = {test}")
            test = cond
        self.emit(f"while {test}:")
        self.block(s.body)
        if setup:
            self.indent += 1
            self.emit(f"{test} = {self.text(s.test)}")  # its lines come again first
            self.indent -= 1
        self._leave_loop(outer, saved_pads)

    def _single_tile_loop(self, s: ir.TileLoop) -> None:
        """A loop over the one tile a program computed the id of, whose body does nothing
        where that tile is past the dim's end: its offsets and masks, then the body (as a
        stream-K program writes ``pid_m * BLOCK_M + tl.arange(0, BLOCK_M)``)."""
        outer = self.env
        self.env = outer.child()
        for t in s.tiles:
            self.env.bind_tile(t)
            n = self.dims[t.name]
            n.extent = self.kexpr(at_extent(t))  # type: ignore[arg-type]
            self.single_tiles.add(t.name)
            self.emit(f"{n.offs} = {self.text(t.begin, 9)} + tl.arange(0, {n.block})")  # type: ignore[arg-type]
            self.emit(f"{n.mask} = {n.offs} < {n.extent}")
        for b in s.body:
            self.stmt(b)
        self._carry_out(outer)

    def _st_TileLoop(self, s: ir.TileLoop) -> None:
        if is_single_tile_loop(s) and empty_is_noop(s, self.env.vars):
            self._single_tile_loop(s)
            return
        outer = self.env
        saved_pads = self._enter_loop(s.body)
        for t in s.tiles:
            self.env.bind_tile(t)
        advances = self._plan_loop_loads(s)
        # Nested tiles loop outermost-first, like nested for loops.
        opened = 0
        for t in s.tiles:
            n = self.dims[t.name]
            n.extent = self.kexpr(t.extent)
            begin = self.text(t.begin) if t.begin is not None else "0"
            if n.scalar:
                step = f", {self.text(t.step)}" if t.step is not None else ""
                self.emit(f"for {t.name} in range({begin}, {n.extent}{step}):")
                self.indent += 1
            else:
                stages = f", num_stages={s.num_stages}" if s.num_stages else ""
                rng = "tl.range" if stages else "range"
                step = n.block if t.step is None else f"{n.block} * {self.text(t.step, 10)}"
                self.emit(f"for {n.start} in {rng}({begin}, {n.extent}, {step}{stages}):")
                self.indent += 1
                self.emit(f"{n.offs} = {n.start} + tl.arange(0, {n.block})")
                self.emit(f"{n.mask} = {n.offs} < {n.extent}")
            opened += 1
        for b in s.body:
            self.stmt(b)
        for name, step in advances:
            self.emit(f"{name} += {step}")
        self.indent -= opened
        self._leave_loop(outer, saved_pads)

    def _carry_out(self, outer: TypeEnv) -> None:
        """Back in ``outer``: what the inner scope rebound of its names keeps its type."""
        for name, t in self.env.vars.items():
            if name in outer.vars:
                outer.vars[name] = t
        self.env = outer

    def _enter_loop(self, body: tuple[ir.Stmt, ...]) -> dict[str, float | None]:
        """A loop's scope: inside it, a loop-carried value may hold what an earlier iteration
        left (its padding unknown). Returns the padding known on entry."""
        self.env = self.env.child()
        for inner in walk_stmts(body):
            if isinstance(inner, ir.Assign):
                self.pads[inner.target] = None
        return dict(self.pads)

    def _leave_loop(self, outer: TypeEnv, saved_pads: dict[str, float | None]) -> None:
        """Back in ``outer`` after a loop: carried values keep their types, and their padding is
        whatever the last iteration left."""
        self._carry_out(outer)
        for name in list(self.pads):
            if name in saved_pads and self.pads[name] != saved_pads[name]:
                self.pads[name] = None

    def _plan_loop_loads(self, s: ir.TileLoop) -> list[tuple[str, str]]:
        """Hoist the pointers of loads that move along a K loop's tile; advance them per step.

        A load qualifies when its index uses the loop tile once and everything else in it is
        loop-invariant. Loads feeding only a dot also wrap their row (column) offsets instead of
        masking them, as the Triton tutorials do: out-of-range rows only reach accumulator rows
        that the masked store drops.
        """
        if len(s.tiles) != 1 or s.tiles[0].scalar:
            return []
        tile = s.tiles[0]
        n = self.dims[tile.name]
        assigned = {x.target for x in walk_stmts(s.body) if isinstance(x, ir.Assign)}
        loads: list[ir.Load] = []
        for stmt in s.body:
            if isinstance(stmt, (ir.Assign, ir.Store, ir.AtomicRMW)):
                for e in stmt_walk(stmt):
                    if (
                        isinstance(e, ir.Load)
                        and self._moves_with(e, tile.name, assigned)
                        and e not in loads
                    ):
                        loads.append(e)
        if not loads:
            return []
        dot_only = self._dot_operand_axes(s.body, assigned)
        start = f"{self.text(tile.begin, 9)} + " if tile.begin is not None else ""
        self.emit(f"{n.offs} = {start}tl.arange(0, {n.block})")
        advances = []
        for load in loads:
            key = (load.tensor, load.index)
            wrap = dot_only.get(load)
            if wrap is not None:
                self.wrapped[key] = wrap
            ptr, _ = self.pointer(load.tensor, load.index)
            name = unique(f"{load.tensor}_ptrs", self.taken)
            self.emit(f"{name} = {ptr}")
            dim = [i for i in load.index if not isinstance(i, ir.NewAxis)].index(
                ir.TileIndex(tile.name)
            )
            step = f"{n.block} * stride_{load.tensor}{dim}"
            if tile.step is not None:
                step = f"{n.block} * {self.text(tile.step, 10)} * stride_{load.tensor}{dim}"
            self.hoisted[key] = (name, step)
            advances.append((name, step))
        return advances

    def _moves_with(self, load: ir.Load, tile: str, assigned: set[str]) -> bool:
        uses = sum(1 for i in load.index if i == ir.TileIndex(tile))
        if uses != 1:
            return False
        for item in load.index:
            if isinstance(item, ir.GatherIndex):
                return False
            if isinstance(item, ir.ScalarIndex):
                from translator.ir.visit import walk_expr

                if any(
                    isinstance(x, (ir.Name, ir.TileAttr, ir.Load))
                    and getattr(x, "id", None) in assigned | {tile}
                    for x in walk_expr(item.value)
                ):
                    return False
        return True

    def _dot_operand_axes(self, body: tuple[ir.Stmt, ...], assigned: set[str]) -> dict:
        """Loads used only as 2-D dot operands → their non-contraction axis."""
        role: dict[object, int] = {}
        counted: dict[str, int] = {}
        for e in all_exprs(body):
            if isinstance(e, ir.Dot):
                for operand, axis in ((e.lhs, 0), (e.rhs, 1)):
                    if len(dims_of(self.type_of_loose(operand))) != 2:
                        continue
                    if isinstance(operand, ir.Name):
                        counted[operand.id] = counted.get(operand.id, 0) + 1
                        role[operand.id] = axis
                    elif isinstance(operand, ir.Load):
                        role[operand] = axis
        total: dict[str, int] = {}
        for e in all_exprs(body):
            if isinstance(e, ir.Name):
                total[e.id] = total.get(e.id, 0) + 1
        out = {}
        for stmt in walk_stmts(body):
            if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Load):
                name = stmt.target
                if (
                    name in role
                    and counted.get(name) == total.get(name)
                    and sum(
                        1 for x in walk_stmts(body) if isinstance(x, ir.Assign) and x.target == name
                    )
                    == 1
                ):
                    out[stmt.value] = self._grid_axes(stmt.value, role[name])
        for key, axis in role.items():
            if isinstance(key, ir.Load):
                out[key] = self._grid_axes(key, axis)
        return {k: v for k, v in out.items() if v}

    def _grid_axes(self, load: ir.Load, axis: int) -> tuple[int, ...]:
        dims = index_dims(load.tensor, load.index, self.env, None)
        d = dims[axis]
        grid = {t.name for t in self.kernel.grid}
        return (axis,) if isinstance(d, ir.BlockDim) and d.tile in grid else ()

    def type_of_loose(self, e: ir.Expr):
        """The type of ``e`` where it is defined before the loop body runs, else a scalar."""
        try:
            return infer(e, self.env)
        except Exception:
            return ScalarType(ir.I32)

    def branch(self, stmts: tuple[ir.Stmt, ...]) -> None:
        """An ``if`` branch; an empty one is spelt ``_ = 0`` (this backend's spelling since its
        first version, kept so that its output does not change)."""
        self.block(stmts or (ir.Assign("_", ir.Const(0)),))


def _dims_in(e: ir.Expr):
    if isinstance(e, ir.Full):
        yield from (d for d in e.shape if isinstance(d, ir.FullDim))
    elif isinstance(e, ir.Arange) and isinstance(e.dim, ir.FullDim):
        yield e.dim
    elif isinstance(e, ir.Load):
        yield from (ir.FullDim(x) for x in full_extents(e.tensor, e.index))
    elif isinstance(e, ir.Reshape):
        yield from (d for d in e.shape if isinstance(d, ir.FullDim))


def _expand(vec: str, pos: int, rank: int) -> str:
    if rank <= 1:
        return vec
    parts = ["None"] * rank
    parts[pos] = ":"
    return f"{vec}[{', '.join(parts)}]"


def _is_f32(dtype: ir.DTypeExpr) -> bool:
    return isinstance(dtype, ir.DType) and dtype.name in ("float32", "float64")


def _ident(text: str) -> str:
    """An identifier for the size ``text``: its words joined by ``_``, no outer ``_``."""
    return re.sub(r"\W+", "_", text).strip("_") or "dim"


def _uses_operand_twice(template: str) -> bool:
    return any(template.count(f"{{{i}}}") > 1 for i in range(3))


def _is_single_call(template: str) -> bool:
    """Whether ``template`` is a call on bare operands, ``tl.maximum({0}, {1})``, perhaps with
    constant keywords (``propagate_nan=tl.PropagateNan.ALL``)."""
    return re.fullmatch(r"[\w.]+\(\{\d\}(, \{\d\})*(, \w+=[\w.]+)*\)", template) is not None


def _needs_parens(text: str) -> bool:
    """Whether operand text must be parenthesised inside a larger template expression."""
    if re.fullmatch(r"[\w.]+", text):
        return False
    call = re.match(r"[\w.]+\(", text)
    return not (call and text.endswith(")") and _balanced_call(text))


def _balanced_call(text: str) -> bool:
    depth = 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0 and i != len(text) - 1:
                return False
    return True


__all__ = ["KernelEmitter", "KernelSignature"]
