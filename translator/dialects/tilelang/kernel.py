"""The body of one TileLang kernel: IR statements as fragments, copies, ``T.Parallel`` loops,
``T.reduce_*`` and ``T.gemm``.

Every tile value of the IR lives in a buffer (``T.alloc_fragment``; ``T.alloc_shared`` for dot
operands) whose dims are the value's dims without its unit dims; a whole-dim of extent ``n`` is
``tilelang.math.next_power_of_2(n)`` lanes (TileLang's layout inference needs power-of-two
fragments). Loads and stores of tile regions are ``T.copy``; pointwise work is one
``T.Parallel`` loop per assignment, reading operands lane by lane (broadcast dims drop their
index).

Ragged edges, as measured on tilelang 0.1.15 (C target and sm_90a CUDA alike): ``T.copy`` of a
global region that crosses the tensor's edge reads 0 there and writes only the lanes inside it,
so loads and stores need nothing more. But lanes past an edge are *not* computed reliably:
TileLang shrinks some ``T.Parallel`` loops (``exp``, division) to the lanes a copy from global
filled, so a fragment's invalid lanes may keep stale values. The writer therefore never relies on
them: before a reduction (or a dot, along K) the operand is rebuilt by a select loop,
``T.if_then_else(valid, v, pad)``, where ``pad`` is the reduction's identity (masked) or the value
the IR says invalid lanes hold (unmasked; :class:`translator.ir.pad_tracker.PadTracker`), and
where the IR does not say one number the reduction is refused.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from dataclasses import dataclass, field

from translator.diagnostics import TranslationError
from translator.dialects.common.printer import ATOM, CodePrinter
from translator.ir import nodes as ir
from translator.ir.ops import reduce_identity
from translator.ir.pad_tracker import PadTracker
from translator.ir.printer import PRECEDENCE
from translator.ir.renaming import names_in
from translator.ir.shapes import ScalarType, TileType, TypeEnv, dims_of, dtype_of
from translator.ir.visit import kernel_exprs, reads_partial_dim, walk_expr, walk_stmts

#: Lane variables of ``T.Parallel`` loops, by position.
_LANES = ("i", "j", "l", "q")
#: Launch axes of ``T.Kernel``: the last grid dim is x, as in TileLang's own examples.
_BLOCK_IDS = ("bx", "by", "bz")
_HINT = "write the kernel without it, or translate to another DSL"


#: How the comment on a T.gemm that cannot keep its source's float32 precision names it.
_PRECISION_WORDS = {"ieee": "in IEEE float32", "tf32x3": "as three tf32 products (tf32x3)"}


@dataclass
class Buffer:
    """A fragment or shared buffer holding one tile value: its logical dims (unit dims are not
    stored) and dtype."""

    name: str
    dims: tuple[ir.Dim, ...]
    dtype: ir.DTypeExpr
    scope: str = "fragment"
    #: The element type the buffer is allocated with where it differs from ``dtype``.
    storage: str | None = None

    @property
    def stored(self) -> tuple[ir.Dim, ...]:
        return tuple(d for d in self.dims if not isinstance(d, ir.UnitDim))


@dataclass
class _Tile:
    """How a tile variable is spelt: its id (block index or loop counter) and block; a split-K
    loop also its step and, where its start is a whole tile (``bz * block``), that tile."""

    var: ir.TileVar
    id: str
    block: str
    step: str | None = None
    first: str | None = None


@dataclass
class KernelWriter(CodePrinter):
    """Writes one kernel's prim_func body (allocations first, then statements)."""

    kernel: ir.Kernel = None  # type: ignore[assignment]
    env_: TypeEnv = None  # type: ignore[assignment]
    taken: set[str] = field(default_factory=set)

    language = "TileLang"
    dialect = "tilelang"

    def __post_init__(self) -> None:
        CodePrinter.__init__(self, self.env_, indent=0)
        self.allocs: list[str] = []
        self.buffers: dict[str, Buffer] = {}
        self.tiles: dict[str, _Tile] = {}
        #: Lane texts aligned with the dims of the expression being printed.
        self.lanes: tuple[str | None, ...] = ()
        # The dims of the T.Parallel loop those lanes run over.
        self.lane_dims: tuple[ir.Dim, ...] = ()
        #: Whole-dim extents -> the factory name of their power-of-two lane count.
        self.full_blocks: dict[str, tuple[str, ir.Expr]] = {}
        # What the invalid lanes of each bound value hold, per dim (shared with the other
        # backends), for the select loop before an unmasked reduction or dot.
        self.pads = PadTracker(lambda: self.env)
        #: Buffers ``T.copy`` filled from global memory: their lanes past the edge are 0.
        self.copied: set[str] = set()
        #: Inside a loop whose trip count depends on the program (split-K's K loop).
        self.trips_vary = False
        self.tensor_dtypes: dict[str, str] = {}
        self.uses_stages = False
        self.block_ids: list[str] = []
        #: The factory's bool that sends dot operands' global->shared copies through TMA (named
        #: at the first such copy), the shared buffers those copies fill, and the M and N
        #: extents of the first dot reading one (what :meth:`tma_setup` decides on).
        self.use_tma: str | None = None
        self.operand_copies: set[str] = set()
        self.tma_tile: tuple[str, str] | None = None
        #: The factory's warp policy for T.gemm (named at the first dot of a kernel that may run
        #: two or more warpgroups) and the M extent of that dot (what :meth:`policy_setup` reads).
        self.gemm_policy: str | None = None
        self.policy_rows: str | None = None
        #: The M and N extents of every T.gemm's tile (what :meth:`warp_limit_setup` reads).
        self.dot_tiles: list[tuple[str, str]] = []
        #: (dim, lane) pairs an enclosing guard has proven inside the tensor (a gather's index
        #: is read only where the gathered lanes are valid): their checks are not repeated.
        self.proven: set[tuple[ir.Dim, str]] = set()
        self.taken |= {p.name for p in self.kernel.params} | {t.name for t in self.kernel.tunables}

    # ------------------------------------------------------------------ names

    def fresh(self, base: str) -> str:
        name, n = base, 1
        while name in self.taken:
            n += 1
            name = f"{base}_{n}"
        self.taken.add(name)
        return name

    def tensor_dtype(self, tensor: str) -> str:
        return self.tensor_dtypes[tensor]

    def dtype(self, dt: ir.DTypeExpr) -> str:
        if isinstance(dt, ir.DTypeOf):
            return self.tensor_dtype(dt.tensor)
        spelt = self.dtypes.get(dt.name)
        if spelt is None:
            raise TranslationError(f"TileLang cannot spell the dtype `{dt.name}`", None)
        return spelt

    # ------------------------------------------------------------------ dims and lanes

    def extent_of(self, d: ir.Dim) -> str:
        """The number of lanes a buffer holds along ``d``."""
        if isinstance(d, ir.BlockDim):
            return self.tiles[d.tile].block
        if isinstance(d, ir.FullDim):
            if isinstance(d.extent, ir.Const) and isinstance(d.extent.value, int):
                return str(1 << max(d.extent.value - 1, 0).bit_length())
            key = self.host(d.extent)
            if key not in self.full_blocks:
                base = "".join(c if c.isalnum() else "_" for c in key).strip("_")
                if not base.isidentifier():
                    base = f"dim_{base}"

                self.full_blocks[key] = (self.fresh(f"{base}_block"), d.extent)
            return self.full_blocks[key][0]
        return "1"

    def host(self, e: ir.Expr) -> str:
        """A host scalar (sizes, scalar parameters) as the factory spells it."""
        saved, self.lanes = self.lanes, ()
        try:
            return self.text(e)
        finally:
            self.lanes = saved

    def valid(self, d: ir.Dim, lane: str) -> str | None:
        """The condition that ``lane`` along ``d`` is inside the tensor (``None``: always, or
        proven by an enclosing guard)."""
        if (d, lane) in self.proven:
            return None
        if isinstance(d, ir.BlockDim):
            t = self.tiles[d.tile]
            return f"{self.tile_begin(t)} + {lane} < {self.host(t.var.extent)}"
        if isinstance(d, ir.FullDim):
            return f"{lane} < {self.host(d.extent)}"
        return None

    def tile_begin(self, t: _Tile) -> str:
        if t.step is not None and t.first is not None:
            # Tile `first`, then every `step`-th: `(ko * split_k + bz) * block_K`.
            return f"({t.id} * {t.step} + {t.first}) * {t.block}"
        if t.step is not None:
            per = t.step if t.block == "1" else f"{t.step} * {t.block}"
            return f"{self.host(t.var.begin)} + {t.id} * {per}"  # type: ignore[arg-type]
        start = t.id if t.block == "1" else f"{t.id} * {t.block}"
        if t.var.begin is not None:
            start = f"{self.host(t.var.begin)} + {start}"
        return start

    def alloc(
        self,
        base: str,
        dims: tuple[ir.Dim, ...],
        dtype: ir.DTypeExpr,
        scope: str,
        storage: str | None = None,
    ) -> Buffer:
        buf = Buffer(self.fresh(base), dims, dtype, scope, storage)
        shape = [self.extent_of(d) for d in buf.stored] or ["1"]
        call = {"shared": "T.alloc_shared", "local": "T.alloc_local"}.get(scope, "T.alloc_fragment")
        tup = f"({shape[0]},)" if len(shape) == 1 else f"({', '.join(shape)})"
        element = f'"{buf.storage}"' if buf.storage else self.dtype(dtype)
        self.allocs.append(f"{buf.name} = {call}({tup}, {element})")
        return buf

    def lane_read(self, buf: Buffer, lanes: tuple[str | None, ...]) -> str:
        """The value of ``buf`` at ``lanes`` (a byte mask read back as a bool)."""
        text = self.read(buf, lanes)
        return f"{text} != T.uint8(0)" if buf.storage == "uint8" else text

    def lane_write(self, buf: Buffer, lanes: tuple[str | None, ...], text: str) -> str:
        """The statement storing ``text`` into ``buf`` at ``lanes``: a bool as a 0/1 byte where
        the buffer holds bytes (a select, which TileLang lowers unvectorised)."""
        if buf.storage == "uint8":
            text = f"T.if_then_else({text}, T.uint8(1), T.uint8(0))"
        return f"{self.read(buf, lanes)} = {text}"

    def read(self, buf: Buffer, lanes: tuple[str | None, ...]) -> str:
        """``buf`` at the lanes of an expression of ``len(lanes)`` dims (numpy broadcasting).

        A whole dim of another extent than the loop's (``r[tile, :]`` of an ``[m, 1]`` tensor
        against ``x[tile, :]``, as torch broadcasts in Helion) is read at ``lane % its
        block``: lane 0 where its block is 1, the lane itself where the blocks are equal."""
        own = lanes[len(lanes) - len(buf.dims) :] if buf.dims else ()
        loop = self.lane_dims[len(self.lane_dims) - len(buf.dims) :] if buf.dims else ()
        if len(loop) != len(own):
            loop = (None,) * len(own)
        idx = []
        for d, lane, at in zip(buf.dims, own, loop):
            if isinstance(d, ir.UnitDim):
                continue
            if lane and isinstance(d, ir.FullDim) and isinstance(at, ir.FullDim) and at != d:
                lane = f"{lane} % {self.extent_of(d)}"
            idx.append(lane)
        return f"{buf.name}[{', '.join(i or '0' for i in idx) or '0'}]"

    def parallel(self, dims: tuple[ir.Dim, ...]) -> tuple[str, tuple[str | None, ...]]:
        """A ``T.Parallel`` header over ``dims`` and the lane text of each dim."""
        stored = [d for d in dims if not isinstance(d, ir.UnitDim)]
        self.lane_dims = dims
        names = iter(self.lane_names(len(stored)))
        lanes = tuple(None if isinstance(d, ir.UnitDim) else next(names) for d in dims)
        used = [lane for lane in lanes if lane is not None]
        extents = [self.extent_of(d) for d in stored]
        if not used:
            return "", lanes
        return f"for {', '.join(used)} in T.Parallel({', '.join(extents)}):", lanes

    def lane_names(self, n: int) -> list[str]:
        out = []
        for k in range(n):
            base = _LANES[k] if k < len(_LANES) else f"i{k}"
            name = base
            while name in self.taken:
                name += "_"
            out.append(name)
        return out

    # ------------------------------------------------------------------ kernel skeleton

    def bind_grid(self, grid: tuple[ir.TileVar, ...]) -> list[str]:
        """The ``T.Kernel`` extents, binding each grid tile to a block index."""
        if len(grid) > 3:
            raise TranslationError(
                f"`{self.kernel.name}` has a {len(grid)}-D grid; T.Kernel launches at most 3 axes",
                self.kernel.loc,
                "fold grid dims into one in the source",
            )
        ids = list(_BLOCK_IDS[: len(grid)])
        extents = []
        for t, block_id in zip(reversed(grid), ids):
            self.check_tile(t)
            name = self.fresh(block_id)
            block = self.block_of(t)
            self.tiles[t.name] = _Tile(t, name, block)
            self.env.bind_tile(t)
            count = (
                self.host(t.extent)
                if t.begin is None
                else (f"{self.host(t.extent)} - {self.host(t.begin)}")
            )
            extents.append(count if block == "1" else f"T.ceildiv({count}, {block})")
        self.block_ids = [self.tiles[t.name].id for t in reversed(grid)]
        return extents

    def check_tile(self, t: ir.TileVar) -> None:
        """Grid tiles never skip tiles (the verifier says so); loops may (split-K)."""

    def block_of(self, t: ir.TileVar) -> str:
        if t.scalar:
            return "1"
        return t.block if isinstance(t.block, str) else str(t.block.value)

    # ------------------------------------------------------------------ statements

    def _st_Assign(self, s: ir.Assign) -> None:
        t = self.type_of(s.value)
        if not isinstance(t, TileType) or not t.dims:
            self.assign_number(s, dtype_of(t))
            return
        if self.cast_in_copy(s, t):
            return
        old = self.buffers.get(s.target)
        if old is not None and old.dims == t.dims and old.dtype == t.dtype:
            self.assign_into(s.value, old, t)
        elif isinstance(s.value, ir.Full) and s.target in self.read_only_in_branches:
            # A fill that T.clear/T.fill would do: a T.Parallel loop instead, which gives the
            # fragment its layout. Every read is under an `if`, which TileLang drops where the
            # test is a factory argument (`reduction == "none"`); a fragment only T.clear then
            # touches has no layout ("can not be inferred") and the kernel does not compile.
            buf = self.alloc(s.target, t.dims, t.dtype, "fragment")
            self.elementwise(s.value, buf, t.dims)
            self.buffers[s.target] = buf
        else:
            # A tile loaded only to be multiplied (Triton's `a = tl.load(...)` then
            # `tl.dot(a, b)`) goes from global memory straight to the shared buffer T.gemm
            # reads, as an inline load does, not through registers.
            # Not in a pipelined loop whose trip count varies by program: TileLang 0.1.15 fails
            # to generate CUDA for such a loop's global->shared copies at some ragged shapes
            # (split-K at 129x4001x131: "Downcast from tirx.Sub to ir.IntImm failed"), while
            # its copies into registers compile.
            to_shared = (
                not self.trips_vary
                and s.target in self.dot_operand_loads
                and isinstance(s.value, ir.Load)
                and self.copyable_load(s.value)
            )
            scope = "shared" if to_shared else "fragment"
            buf = self.alloc(s.target, t.dims, t.dtype, scope, self.mask_storage(s.target, t))
            self.assign_into(s.value, buf, t)
            self.buffers[s.target] = buf
        self.env.vars[s.target] = t
        # After the statement: what it computed read the padding of the value before it.
        self.pads.bind(s.target, s.value)

    def mask_storage(self, name: str, t: TileType) -> str | None:
        """The element type of ``name``'s buffer where it is not ``t``'s: bytes for a 2-D mask
        that any assignment to ``name`` makes by combining bools (:func:`_mask_storage`)."""
        if not hasattr(self, "_assigned"):
            self._assigned: dict[str, list[ir.Expr]] = {}
            for st in walk_stmts(self.kernel.body):
                if isinstance(st, ir.Assign):
                    self._assigned.setdefault(st.target, []).append(st.value)
        values = self._assigned.get(name, [])
        return "uint8" if any(_mask_storage(v, t) for v in values) else None

    def cast_in_copy(self, s: ir.Assign, t: TileType) -> bool:
        """Bind ``s`` (a cast of a fragment to the dtype of the tensor the next statement
        stores it into, read nowhere else) to the fragment itself: the store's ``T.copy``
        converts. Computing the cast into a second fragment first costs registers: 553
        TFLOP/s against 635 for the 4096^3 fp16 GEMM on the H100 (BENCHMARKS.md)."""
        store = self.stored_casts.get(s.target)
        if store is None or not isinstance(s.value, ir.Cast):
            return False
        src = s.value.value
        buf = self.buffers.get(src.id) if isinstance(src, ir.Name) else None
        if (
            buf is None
            or buf.scope != "fragment"
            or buf.dims != t.dims
            or not self.copyable(store.index, store.tensor)
            or not _same_stored(t.dims, self.store_dims(store))
        ):
            return False
        self.buffers[s.target] = buf
        self.env.vars[s.target] = t
        self.pads.forget({s.target})
        return True

    @property
    def stored_casts(self) -> dict[str, ir.Store]:
        """Names bound once to ``cast(name, dtype(t))``, read only by the statement right
        after, which stores exactly that name into tensor ``t``: that store, by name."""
        if not hasattr(self, "_stored_casts"):
            from translator.ir.visit import child_stmts, walk_stmts

            reads = Counter(e.id for e in kernel_exprs(self.kernel) if isinstance(e, ir.Name))
            found: dict[str, ir.Store] = {}
            blocks = [self.kernel.body]
            for st in walk_stmts(self.kernel.body):
                if isinstance(st, ir.If):
                    blocks += [st.body, st.orelse]
                elif child_stmts(st):
                    blocks.append(child_stmts(st))
            for block in blocks:
                for bound, store in zip(block, block[1:]):
                    if (
                        isinstance(bound, ir.Assign)
                        and isinstance(store, ir.Store)
                        and isinstance(bound.value, ir.Cast)
                        and isinstance(bound.value.value, ir.Name)
                        and bound.value.dtype == ir.DTypeOf(store.tensor)
                        and store.value == ir.Name(bound.target)
                        and reads[bound.target] == 1
                        and bound.target not in self.rebound
                    ):
                        found[bound.target] = store
            self._stored_casts = found
        return self._stored_casts

    def assign_number(self, s: ir.Assign, dtype: ir.DTypeExpr) -> None:
        """A device number: a plain binding if the kernel binds it once from numbers, else one
        lane of a buffer (a local one when rebound, as a loop's running max is)."""
        old = self.buffers.get(s.target)
        if old is not None and not old.dims:
            self.elementwise(s.value, old, ())
            return
        from_tiles = any(isinstance(x, (ir.Reduce, ir.Dot)) for x in walk_expr(s.value))
        if not from_tiles and s.target not in self.rebound:
            self.emit(f"{s.target} = {self.scalar(s.value)}")
            self.env.vars[s.target] = ScalarType(dtype)
            self.pads.forget({s.target})
            self.taken.add(s.target)
            return
        if isinstance(dtype, ir.DType) and dtype.name == "float64":
            dtype = ir.F32  # Python floats are float32 on the device
        scope = "local" if s.target in self.rebound else "fragment"
        buf = self.alloc(s.target, (), dtype, scope)
        if isinstance(s.value, ir.Reduce):
            self.reduce_into(s.value, buf)
        else:
            self.elementwise(s.value, buf, ())
        self.buffers[s.target] = buf
        self.env.vars[s.target] = ScalarType(dtype)

    @property
    def dot_operand_loads(self) -> set[str]:
        """Names bound once to a zero-padded load and read only as the direct operand of dots
        (where ``T.copy`` can move the load: :meth:`copyable`, asked where it is bound)."""
        if not hasattr(self, "_dot_operand_loads"):
            from translator.ir.visit import walk_stmts

            loads = {
                st.target
                for st in walk_stmts(self.kernel.body)
                if isinstance(st, ir.Assign)
                and isinstance(st.value, ir.Load)
                and st.value.other in (0.0, None)
            } - self.rebound
            reads: Counter[str] = Counter()
            as_operand: Counter[str] = Counter()
            for e in kernel_exprs(self.kernel):
                if isinstance(e, ir.Name):
                    reads[e.id] += 1
                elif isinstance(e, ir.Dot):
                    as_operand.update(x.id for x in (e.lhs, e.rhs) if isinstance(x, ir.Name))
            self._dot_operand_loads = {n for n in loads if 0 < as_operand[n] == reads[n]}
        return self._dot_operand_loads

    @property
    def read_only_in_branches(self) -> set[str]:
        """Names the kernel reads, each read in the body of an ``if`` (not in a loop or at the
        top level only)."""
        if not hasattr(self, "_read_only_in_branches"):
            from translator.ir.visit import child_stmts, stmt_walk

            outside: set[str] = set()
            inside: set[str] = set()

            def visit(stmts: tuple[ir.Stmt, ...], branched: bool) -> None:
                for st in stmts:
                    reads = {e.id for e in stmt_walk(st) if isinstance(e, ir.Name)}
                    (inside if branched else outside).update(reads)
                    visit(child_stmts(st), branched or isinstance(st, ir.If))

            visit(self.kernel.body, False)
            self._read_only_in_branches = inside - outside
        return self._read_only_in_branches

    @property
    def rebound(self) -> set[str]:
        """Names the kernel assigns more than once."""
        if not hasattr(self, "_rebound"):
            from translator.ir.visit import walk_stmts

            seen: set[str] = set()
            again: set[str] = set()
            for st in walk_stmts(self.kernel.body):
                if isinstance(st, ir.Assign):
                    (again if st.target in seen else seen).add(st.target)
            self._rebound = again
        return self._rebound

    def assign_into(self, value: ir.Expr, buf: Buffer, t: TileType) -> None:
        """Compute tile ``value`` into ``buf`` (of ``value``'s dims)."""
        # Only a T.copy from global memory leaves 0 past the edge (it says so again below).
        self.copied.discard(buf.name)
        if isinstance(value, ir.Dot):
            self.dot_into(value, buf)
        elif isinstance(value, ir.Reduce):
            self.reduce_into(value, buf)
        elif isinstance(value, ir.Scan):
            self.scan_into(value, buf)
        elif isinstance(value, ir.Full) and isinstance(value.value, ir.Const):
            v = value.value.value
            if v == 0:
                self.emit(f"T.clear({buf.name})")
            else:
                self.emit(f"T.fill({buf.name}, {self.constant(v, buf.dtype)})")
        elif isinstance(value, ir.Load) and self.copyable_load(value):
            region = self.region(value.tensor, value.index)
            if buf.scope == "shared":
                self.copy_operand(region, buf)
            else:
                self.emit(f"T.copy({region}, {buf.name})")
            if value.other in (0.0, None):
                self.copied.add(buf.name)
        else:
            reads = _names(value)
            if buf.name in reads and self.needs_temp(value, buf):
                tmp = self.alloc(f"{buf.name}_new", buf.dims, buf.dtype, "fragment", buf.storage)
                self.elementwise(value, tmp, t.dims)
                self.emit(f"T.copy({tmp.name}, {buf.name})")
            else:
                self.elementwise(value, buf, t.dims)

    def needs_temp(self, value: ir.Expr, buf: Buffer) -> bool:
        """Whether ``value`` reads ``buf`` other than lane by lane (then an in-place loop would
        read lanes it already wrote)."""
        return any(buf.name in _names(e) for e in _walk_shaping(value))

    def elementwise(self, value: ir.Expr, buf: Buffer, dims: tuple[ir.Dim, ...]) -> None:
        value = self.materialize_parts(value)
        header, lanes = self.parallel(dims)
        self.lanes = lanes
        text = self.text(value)
        self.lanes = ()
        self.lane_dims = ()
        if dtype_of(self.type_of(value)) != buf.dtype:
            text = f"T.cast({text}, {self.dtype(buf.dtype)})"
        if not header:
            self.emit(self.lane_write(buf, lanes, text))
            return
        self.emit(header)
        self.emit(f"    {self.lane_write(buf, lanes, text)}")

    def materialize_parts(self, value: ir.Expr) -> ir.Expr:
        """``value`` with its dots and reductions computed into buffers first (a ``T.Parallel``
        loop only does lane-wise work)."""
        if isinstance(value, (ir.Dot, ir.Reduce, ir.Scan)):
            t = self.type_of(value)
            name = self.fresh("tmp")
            buf = self.alloc(name, dims_of(t), dtype_of(t), "fragment")
            if isinstance(value, ir.Dot):
                self.dot_into(value, buf)
            elif isinstance(value, ir.Reduce):
                self.reduce_into(value, buf)
            else:
                self.scan_into(value, buf)
            self.buffers[name] = buf
            self.env.vars[name] = t
            return ir.Name(name)
        if isinstance(value, ir.Load) and self.copyable_load(value):
            # A tile region: T.copy into a fragment (past the edge it reads 0; the lanes there
            # are never relied on, see the module docstring).
            t = self.type_of(value)
            base = f"{value.tensor}_tile"
            buf = self.alloc(base, dims_of(t), dtype_of(t), "fragment")
            self.emit(f"T.copy({self.region(value.tensor, value.index)}, {buf.name})")
            self.buffers[buf.name] = buf
            self.env.vars[buf.name] = t
            return ir.Name(buf.name)
        return _map_children(value, self.materialize_parts)

    def _st_Store(self, s: ir.Store) -> None:
        t = self.type_of(s.value)
        region = self.store_dims(s)
        if (
            self.copyable(s.index, s.tensor)
            and isinstance(t, TileType)
            and _same_stored(t.dims, region)
            and len(t.dims) == len(region)
        ):
            value = s.value.value if isinstance(s.value, ir.Cast) else s.value
            vt = self.type_of(value)
            src = self.buffers.get(value.id) if isinstance(value, ir.Name) else None
            if src is None or src.dims != dims_of(vt) or not _same_stored(src.dims, t.dims):
                src = self.alloc(f"{s.tensor}_tile", t.dims, t.dtype, "fragment")
                self.assign_into(s.value, src, t)
            # T.copy converts to the tensor's dtype and writes only the lanes inside it.
            self.emit(f"T.copy({src.name}, {self.region(s.tensor, s.index)})")
            return
        self.guarded_store(s)

    def guarded_store(self, s: ir.Store, atomic: str | None = None) -> None:
        """An element loop that writes (or with ``atomic``, atomically combines into) the lanes
        inside the tensor (scalar indices, rank changes)."""
        t = self.type_of(s.value)
        dims = self.store_dims(s)
        value = self.materialize_parts(s.value)
        header, lanes = self.parallel(dims)
        idx, guards = self.element_index(s.tensor, s.index, dims, lanes, s.loc)
        self.lanes = lanes[len(lanes) - len(dims_of(t)) :] if dims_of(t) else ()
        text = self.text(value)
        self.lanes = ()
        self.lane_dims = ()
        target = f"{s.tensor}[{', '.join(idx)}]"
        indent = ""
        if header:
            self.emit(header)
            indent = "    "
        if guards:
            self.emit(f"{indent}if {' and '.join(guards)}:")
            indent += "    "
        if atomic is not None:
            self.emit(f"{indent}{atomic}({target}, {text})")
            return
        self.emit(f"{indent}{target} = {text}")

    def store_dims(self, s: ir.Store) -> tuple[ir.Dim, ...]:
        from translator.ir.shapes import index_dims

        return index_dims(s.tensor, s.index, self.env, s.loc)

    def element_index(
        self,
        tensor: str,
        index: tuple[ir.IndexItem, ...],
        dims: tuple[ir.Dim, ...],
        lanes: tuple[str | None, ...],
        loc: ir.Loc | None = None,
    ) -> tuple[list[str], list[str]]:
        out: list[str] = []
        guards: list[str] = []
        k = 0
        for item in index:
            if isinstance(item, ir.TileIndex):
                t = self.tiles[item.tile]
                if t.var.scalar:
                    out.append(self.tile_begin(t))
                    continue
                lane = lanes[k]
                d = dims[k]
                k += 1
                out.append(f"{self.tile_begin(t)} + {lane}")
                g = self.valid(d, str(lane))
                if g:
                    guards.append(g)
            elif isinstance(item, ir.FullIndex):
                lane = lanes[k]
                d = dims[k]
                k += 1
                out.append(str(lane))
                g = self.valid(d, str(lane))
                if g:
                    guards.append(g)
            elif isinstance(item, ir.ScalarIndex):
                out.append(self.scalar(item.value))
            elif isinstance(item, ir.NewAxis):
                k += 1
            elif isinstance(item, ir.GatherIndex):
                # A gathered dim (`weight[ids[tile_b], tile_d]`): the index tile read at its own
                # lanes of the loop, as TileLang's examples write `A[idx[i], j]`; its invalid
                # lanes (past its tiles' edges) are guarded, never used as an address.
                gdims = dims_of(self.type_of(item.value))
                glanes = lanes[k : k + len(gdims)]
                k += len(gdims)
                checked = [(d, lane) for d, lane in zip(gdims, glanes) if lane is not None]
                guards.extend(g for d, lane in checked if (g := self.valid(d, lane)) is not None)
                out.append(self.index_at(item.value, glanes, gdims, checked))
        return out, guards

    def index_at(
        self,
        e: ir.Expr,
        lanes: tuple[str | None, ...],
        dims: tuple[ir.Dim, ...],
        checked: list[tuple[ir.Dim, str]],
    ) -> str:
        """Gather index ``e`` (of ``dims``) read at ``lanes`` of the current loop, where the
        ``checked`` lanes are guarded around the access (so reads inside need no guard)."""
        saved = self.lanes, self.lane_dims, self.proven
        self.lanes, self.lane_dims = lanes, dims
        self.proven = self.proven | set(checked)
        try:
            return self.text(e)
        finally:
            self.lanes, self.lane_dims, self.proven = saved

    def _st_While(self, s: ir.While) -> None:
        raise self.refuse(
            "a `while` loop whose trip count each program decides as it runs (a stream-K "
            "program's walk over its share of the K iterations) has no TileLang spelling here: "
            "T.Kernel programs own whole tiles and T.Pipelined loops run trip counts fixed "
            "before they start",
            s,
            "write the data-parallel GEMM (one T.Kernel program per output tile), or split-K "
            "over a fixed number of K splits with T.atomic_add",
        )

    def _st_TileLoop(self, s: ir.TileLoop) -> None:
        if len(s.tiles) > 1:
            # A loop over several tiles at once (`for tile_t, tile_n in hl.tile([T, N])`) is
            # the loops nested outermost first, as the IR runs it; the innermost keeps the
            # pipelining hint.
            inner = dataclasses.replace(s, tiles=s.tiles[1:], comments=())
            outer = dataclasses.replace(s, tiles=s.tiles[:1], body=(inner,), num_stages=None)
            self._st_TileLoop(outer)
            return
        (t,) = s.tiles
        self.check_tile(t)
        name = self.fresh(
            t.name.removeprefix("tile_") + "_o" if t.name.startswith("tile_") else f"{t.name}_o"
        )
        block = self.block_of(t)
        tile = _Tile(t, name, block)
        self.tiles[t.name] = tile
        self.env.bind_tile(t)
        count = (
            self.host(t.extent)
            if t.begin is None
            else (f"{self.host(t.extent)} - {self.host(t.begin)}")
        )
        per = block
        if t.step is not None:
            tile.step = self.scalar_atom(t.step)
            tile.first = self.whole_tiles(t.begin, block)
            # The tiles from `begin` below the extent, `step` apart: exactly the IR's trips.
            per = tile.step if block == "1" else f"{block} * {tile.step}"
        trips = count if per == "1" else f"T.ceildiv({count}, {per})"
        has_dot = any(isinstance(e, ir.Dot) for e in _stmt_exprs(s.body))
        if has_dot:
            stages = s.num_stages if s.num_stages is not None else self.stages
            self.emit(f"for {name} in T.Pipelined({trips}, num_stages={stages}):")
        else:
            self.emit(f"for {name} in T.serial({trips}):")
        outer = self.trips_vary
        # A loop from a program's own first tile (split-K's) has a trip count per program.
        self.trips_vary = outer or t.begin is not None
        # Inside the loop a carried value may hold what an earlier iteration left.
        assigned = {x.target for x in walk_stmts(s.body) if isinstance(x, ir.Assign)}
        self.pads.forget(assigned)
        self.block(s.body)
        self.pads.forget(assigned)
        self.trips_vary = outer

    def branch(self, stmts: tuple[ir.Stmt, ...]) -> None:
        super().branch(stmts)
        # The other branch, and the code after the `if`, may see the values from before.
        self.pads.forget({x.target for x in walk_stmts(stmts) if isinstance(x, ir.Assign)})

    def scalar_atom(self, e: ir.Expr) -> str:
        """A host scalar as an operand of ``*`` (parenthesised unless an atom)."""
        text = self.host(e)
        return text if text.replace("_", "").isalnum() else f"({text})"

    def whole_tiles(self, begin: ir.Expr | None, block: str) -> str | None:
        """``x`` where a loop starts at tile ``x`` (``begin`` is ``x * block``), else ``None``."""
        if not (isinstance(begin, ir.BinOp) and begin.op == "*"):
            return None
        for first, blk in ((begin.lhs, begin.rhs), (begin.rhs, begin.lhs)):
            if self.host(blk) == block:
                return self.scalar_atom(first)
        return None

    # ------------------------------------------------------------------ atomics

    def _st_AtomicRMW(self, s: ir.AtomicRMW) -> None:
        spelling = self.spell["atomics"].get(s.op)
        if spelling is None:
            raise TranslationError(
                f"TileLang has no atomic `{s.op}` the backend writes",
                s.loc,
                self.spell["refused"]["atomics"].get(s.op, _HINT),
            )
        t = self.type_of(s.value)
        region = self.store_dims(s)  # type: ignore[arg-type]
        if (
            self.copyable(s.index, s.tensor)
            and isinstance(t, TileType)
            and _same_stored(t.dims, region)
            and len(t.dims) == len(region)
        ):
            # A tile region: TileLang adds only the lanes inside the tensor (as T.copy writes).
            src = self.buffers.get(s.value.id) if isinstance(s.value, ir.Name) else None
            if src is None or src.dims != t.dims or src.dtype != t.dtype:
                src = self.alloc(f"{s.tensor}_part", t.dims, t.dtype, "fragment")
                self.assign_into(s.value, src, t)
            self.emit(f"{spelling}({self.region(s.tensor, s.index)}, {src.name})")
            return
        self.guarded_store(s, spelling)  # type: ignore[arg-type]

    @property
    def stages(self) -> str:
        if any(t.name == "num_stages" for t in self.kernel.tunables):
            self.uses_stages = True
            return "num_stages"
        return "2"

    # ------------------------------------------------------------------ reductions and dots

    def reduce_into(self, e: ir.Reduce, buf: Buffer) -> None:
        spelling = self.spell["reductions"].get(e.op)
        if spelling is None:
            raise TranslationError(
                f"TileLang has no `{e.op}` reduction the backend writes",
                e.loc,
                self.spell["refused"]["reductions"].get(e.op, _HINT),
            )
        t = self.type_of(e.value)
        dims = dims_of(t)
        axis = e.axis % len(dims)
        if isinstance(dims[axis], ir.UnitDim):
            self.elementwise(e.value, buf, buf.dims)
            return
        pad = reduce_identity(e.op) if e.masked else self.unmasked_pad(e.value, dims[axis], e)
        src = self.with_pad(e.value, t, {axis: pad}, "fragment")
        phys = sum(1 for d in dims[:axis] if not isinstance(d, ir.UnitDim))
        self.emit(f"{spelling}({src.name}, {buf.name}, dim={phys})")

    def scan_into(self, e: ir.Scan, buf: Buffer) -> None:
        """``T.cumsum(src, dst, dim=)``: an inclusive forward scan. Lanes past the scanned
        dim's extent come after every valid lane, so no valid lane sees them (``ir.Scan``):
        the source buffer needs no padding."""
        spelling = self.spell["scans"].get(e.op)
        if spelling is None:
            raise TranslationError(
                f"TileLang has no `{e.op}` scan the backend writes",
                e.loc,
                self.spell["refused"]["scans"].get(e.op, _HINT),
            )
        t = self.type_of(e.value)
        dims = dims_of(t)
        axis = e.axis % len(dims)
        if isinstance(dims[axis], ir.UnitDim):
            self.elementwise(e.value, buf, buf.dims)  # a scan over one lane is the lane
            return
        src = self.buffers.get(e.value.id) if isinstance(e.value, ir.Name) else None
        if src is None or src.dims != dims or src.dtype != buf.dtype:
            src = self.alloc("scan_in", dims, buf.dtype, "fragment")
            self.assign_into(e.value, src, TileType(dims, buf.dtype))
        phys = sum(1 for d in dims[:axis] if not isinstance(d, ir.UnitDim))
        self.emit(f"{spelling}({src.name}, {buf.name}, dim={phys})")

    def with_pad(
        self, value: ir.Expr, t: TileType, pads: dict[int, float], scope: str, base: str = "red"
    ) -> Buffer:
        """A buffer holding ``value`` on valid lanes and ``pads[axis]`` on lanes invalid along
        ``axis``: a select loop of its own (TileLang may leave lanes of a computing loop
        unwritten, see the module docstring)."""
        src = self.buffers.get(value.id) if isinstance(value, ir.Name) else None
        if src is None or src.dims != t.dims:
            src = self.alloc(f"{base}_in", t.dims, t.dtype, "fragment")
            self.assign_into(value, src, t)
        header, lanes = self.parallel(t.dims)
        guards = []
        for axis, pad in pads.items():
            if src.name in self.copied and pad == 0.0:
                continue  # T.copy read 0 past the edge already

            g = self.valid(t.dims[axis], str(lanes[axis]))
            if g is not None:
                guards.append((g, pad))
        if not guards and scope == src.scope:
            return src
        out = self.alloc(
            f"{base}_{'operand' if scope == 'shared' else 'src'}", t.dims, t.dtype, scope
        )
        text = self.lane_read(src, lanes)
        for g, pad in guards:
            text = f"T.if_then_else({g}, {text}, {self.constant(pad, t.dtype)})"
        if header:
            self.emit(header)
            self.emit(f"    {self.lane_write(out, lanes, text)}")
        else:
            self.emit(self.lane_write(out, lanes, text))
        return out

    def dot_into(self, e: ir.Dot, buf: Buffer) -> None:
        lt, rt = self.type_of(e.lhs), self.type_of(e.rhs)
        if len(dims_of(lt)) != 2 or len(dims_of(rt)) != 2:
            raise TranslationError(
                "a batched dot (3-D operands); T.gemm multiplies 2-D tiles",
                e.loc,
                "give the batch dim a block of 1 so that it becomes an index",
            )
        if (
            isinstance(lt.dtype, ir.DType)
            and isinstance(rt.dtype, ir.DType)
            and lt.dtype != rt.dtype
        ):
            raise TranslationError(
                "T.gemm needs operands of one dtype", e.loc, "cast one operand in the source"
            )
        a = self.operand(e.lhs, lt, 1, e)
        b = self.operand(e.rhs, rt, 0, e)
        self.dot_tiles.append((self.extent_of(dims_of(lt)[0]), self.extent_of(dims_of(rt)[1])))
        if self.tma_tile is None and {a.name, b.name} & self.operand_copies:
            self.tma_tile = (self.extent_of(dims_of(lt)[0]), self.extent_of(dims_of(rt)[1]))
        if e.precision not in (None, self.spell["kernel"]["dot_precision"]):
            # TileLang 0.1.15 has no knob for it (grammars/tilelang.toml): say so where it acts.
            self.emit("# T.gemm rounds float32 operands to tf32 (TileLang has no other float32")
            self.emit(f"# T.gemm); the source multiplied them {_PRECISION_WORDS[e.precision]}.")
        policy = ""
        if self._max_warps() >= 8:
            if self.gemm_policy is None:
                self.gemm_policy = self.fresh("gemm_policy")
                self.policy_rows = self.extent_of(dims_of(lt)[0])
            policy = f", policy={self.gemm_policy}"
        if e.acc is None:
            self.emit(f"T.gemm({a.name}, {b.name}, {buf.name}, clear_accum=True{policy})")
            return
        if not (isinstance(e.acc, ir.Name) and self.buffers.get(e.acc.id) is buf):
            self.assign_into(e.acc, buf, TileType(buf.dims, buf.dtype))
        self.emit(f"T.gemm({a.name}, {b.name}, {buf.name}{policy})")

    def _max_warps(self) -> int:
        """The most warps any config of the kernel launches."""
        values = [t.default for t in self.kernel.tunables if t.kind == "num_warps"]
        values += [v for c in self.kernel.configs for k, v in c if k == "num_warps"]
        return max(values, default=4)

    def operand(self, value: ir.Expr, t: TileType, k_axis: int, dot: ir.Dot) -> Buffer:
        """A shared buffer holding a dot operand, zero (or its pad) past the K edge."""
        zero_pad = dot.masked or (isinstance(value, ir.Load) and value.other in (0.0, None))
        if isinstance(value, ir.Load) and self.copyable_load(value) and zero_pad:
            # T.copy reads 0 past the tensor's edge (measured, module docstring).
            buf = self.alloc(f"{value.tensor}_shared", t.dims, t.dtype, "shared")
            self.copy_operand(self.region(value.tensor, value.index), buf)
            return buf
        pad = 0.0 if dot.masked else self.unmasked_pad(value, t.dims[k_axis], dot)
        return self.with_pad(value, t, {k_axis: pad}, "shared", "dot")

    def copy_operand(self, region: str, buf: Buffer) -> None:
        """``T.copy`` of a dot operand from global into shared memory, through TMA only where
        the factory's ``use_tma`` (:meth:`tma_setup`) says so."""
        if self.use_tma is None:
            self.use_tma = self.fresh("use_tma")
        self.emit(f"T.copy({region}, {buf.name}, disable_tma=not {self.use_tma})")
        self.operand_copies.add(buf.name)

    def tma_setup(self) -> list[str]:
        """The factory lines that compute ``use_tma`` from the dot's tile (none where no copy
        asks): TMA copies make TileLang 0.1.15 warp-specialize the pipelined loop, which pays
        at large tiles only (``tma_min_tile`` in grammars/tilelang.toml says what was measured).
        """
        if self.use_tma is None:
            return []
        assert self.tma_tile is not None, "a dot operand copied to shared memory feeds no dot"
        m, n = self.tma_tile
        min_m, min_n = self.spell["kernel"]["tma_min_tile"]
        return [
            "# TMA operand copies make TileLang warp-specialize the pipelined loop: 1 CTA per SM",
            "# (240 registers a consumer thread). On the H100 that made 128x128 GEMM tiles fast,",
            "# but at 64x64 a GEMM ran at 0.52-0.61x Triton's speed; cp.async copies keep 7 CTAs",
            f"# per SM there. A heuristic from that measurement: TMA from {min_m}x{min_n} tiles up.",
            f"{self.use_tma} = {m} * {n} >= {min_m} * {min_n}",
        ]

    def warp_limit_setup(self, threads: str) -> list[str]:
        """The factory line that caps the threads at what T.gemm can split its tiles over
        (16 rows by 8 columns a warp), where some config launches more warps than that: a
        Helion GEMM tuned at 16x16 tiles on 4 warps has no TileLang warp partition (TileLang
        0.1.15: "No valid warp partition for T.gemm: M=16")."""
        configs = [dict(c) for c in self.kernel.configs] or [
            {t.name: t.default for t in self.kernel.tunables}
        ]
        warps = self._max_warps()
        needed = False
        for rows, cols in self.dot_tiles:
            for c in configs:
                m, n = c.get(rows, rows), c.get(cols, cols)
                limit = (
                    (int(m) // 16) * (int(n) // 8) if str(m).isdigit() and str(n).isdigit() else 0
                )
                if 0 < limit < c.get("num_warps", warps):
                    needed = True
        if not needed:
            return []
        caps = ", ".join(
            f"32 * max(1, {rows} // 16) * max(1, {cols} // 8)"
            for rows, cols in dict.fromkeys(self.dot_tiles)
        )
        return [
            "# T.gemm splits a tile over warps of 16 rows by 8 columns: no more warps than that.",
            f"{threads} = min({threads}, {caps})",
        ]

    def policy_setup(self, threads: str) -> list[str]:
        """The factory lines that pick T.gemm's warp policy from the tile and the threads (none
        where no dot may run on two or more warpgroups). Lowered for sm_90a, a 128x256 tile on
        256 threads is one m64n256 wgmma per warpgroup under FullRow and m64n128 under the
        default Square; both are the same on one warpgroup, and FullRow needs 64 rows a
        warpgroup."""
        if self.gemm_policy is None:
            return []
        return [
            "# Hopper's widest MMA is m64n256: split the tile by whole rows where each warpgroup",
            "# (128 threads) gets 64 of them.",
            # One line: the kernel's text is wrapped as ruff wraps it (`wrap_lines`).
            f"{self.gemm_policy} = T.GemmWarpPolicy.FullRow if {self.policy_rows} >= 64 * "
            f"({threads} // 128) else T.GemmWarpPolicy.Square",
        ]

    # ------------------------------------------------------------------ memory regions

    def copyable(self, index: tuple[ir.IndexItem, ...], tensor: str) -> bool:
        """Whether a region is one ``T.copy`` can move: tiles and whole dims of every dim."""
        rank = self.kernel.param(tensor).rank
        items = [i for i in index if not isinstance(i, ir.NewAxis)]
        if any(isinstance(i, ir.NewAxis) for i in index):
            return False
        if rank is not None and len(items) != rank:
            return False
        if reads_partial_dim(self.kernel, tensor, index):
            # T.copy moves the fragment's power-of-two lanes: past a prefix it would read (and
            # write) the rest of the dim. Element loops guard each lane at the extent.
            return False
        for i in items:
            if isinstance(i, ir.TileIndex):
                var = self.tiles[i.tile].var
                if var.scalar or not self.ends_at_host_extent(var):
                    return False
            elif not isinstance(i, ir.FullIndex):
                return False
        return True

    def copyable_load(self, load: ir.Load) -> bool:
        """Whether ``T.copy`` can move ``load``: a tile region read wherever it is inside the
        tensor. A load predicated on data (``ir.Load.mask``: a jagged row's ``k < nnz``,
        one half of a concatenation) is read lane by lane under its predicate instead."""
        return load.mask is None and self.copyable(load.index, load.tensor)

    def ends_at_host_extent(self, var: ir.TileVar) -> bool:
        """Whether ``var`` stops at a size the host passes, so that the tensor's edge is where
        its lanes stop. A loop between offsets the kernel loads (an expert's rows ``start`` to
        ``end``) stops inside the tensor: ``T.copy`` there would read the next group's rows and
        write over them (it clips at the tensor's edge only), so its accesses are element loops
        guarded at ``end``."""
        params = {p.name for p in self.kernel.params} | {t.name for t in self.kernel.tunables}
        return all(e.id in params for e in walk_expr(var.extent) if isinstance(e, ir.Name))

    def region(self, tensor: str, index: tuple[ir.IndexItem, ...]) -> str:
        starts = []
        for item in index:
            if isinstance(item, ir.TileIndex):
                starts.append(self.tile_begin(self.tiles[item.tile]))
            else:
                starts.append("0")
        return f"{tensor}[{', '.join(starts)}]"

    # ------------------------------------------------------------------ padding

    def unmasked_pad(self, value: ir.Expr, dim: ir.Dim, at: ir.Expr) -> float:
        """What the lanes of ``value`` invalid along ``dim`` hold, which an unmasked reduction
        or dot reads (the select loop before it writes them again, see the module docstring).
        Refused where the IR does not say one number: filling them with the reduction's
        identity instead would change the result (``sum(where(valid, x, 1.0))``)."""
        if self.pads.single_lane(dim):
            return 0.0  # no invalid lanes: the select loop writes nothing
        pad = self.pads.along(value, dim)
        # A line excepted as uniform holds its value in every lane, valid ones too: a sum (or a
        # dot) over a line of NaN is NaN whatever the invalid lanes hold.
        adds = isinstance(at, ir.Dot) or (isinstance(at, ir.Reduce) and at.op == "sum")
        if pad is not None and (pad.uniform is None or (math.isnan(pad.uniform) and adds)):
            return pad.value
        if self.pads.unread_along(value, dim):
            # The frontend gave those lanes no value: it proved them never read (a whole-dim
            # tile the launch makes exactly the dim's size), so any padding is right.
            return reduce_identity(at.op) if isinstance(at, ir.Reduce) else 0.0
        raise self.refuse(
            "an unmasked reduction (or dot) reads lanes past the tensor's edge whose value the "
            "translator cannot tell, and TileLang recomputes those lanes only as the IR says",
            at,
            "mask the reduction's operand with the valid lanes (`tl.where(mask, x, identity)`) "
            "or load with `other=` the reduction's identity",
        )

    # ------------------------------------------------------------------ expressions

    def constant(self, v: object, dtype: ir.DTypeExpr) -> str:
        if isinstance(v, float) and math.isinf(v):
            inf = f"T.infinity({self.dtype(dtype)})"
            return inf if v > 0 else f"-{inf}"
        if isinstance(v, float) and math.isnan(v):
            return f"T.cast(float('nan'), {self.dtype(dtype)})"
        return repr(v)

    def scalar(self, e: ir.Expr) -> str:
        saved, self.lanes = self.lanes, ()
        try:
            return self.text(e)
        finally:
            self.lanes = saved

    def child(self, e: ir.Expr, lanes: tuple[str | None, ...], prec: int = 0) -> str:
        saved, self.lanes = self.lanes, lanes
        try:
            return self.text(e, prec)
        finally:
            self.lanes = saved

    def lanes_for(self, e: ir.Expr) -> tuple[str | None, ...]:
        """The lanes of operand ``e`` of the expression at :attr:`lanes` (right-aligned)."""
        n = len(dims_of(self.type_of(e)))
        return self.lanes[len(self.lanes) - n :] if n else ()

    def _ex_Name(self, e: ir.Name) -> tuple[str, int]:
        if e.id in self.tiles and self.tiles[e.id].var.scalar:
            # A grid index (batch, head): its block index.
            begin = self.tile_begin(self.tiles[e.id])
            return begin, ATOM if begin.isidentifier() else PRECEDENCE["+"]
        buf = self.buffers.get(e.id)
        if buf is not None:
            text = self.lane_read(buf, self.lanes_for(e) if buf.dims else ())
            return text, ATOM if buf.storage is None else PRECEDENCE["!="]
        return e.id, ATOM

    def _ex_Const(self, e: ir.Const) -> tuple[str, int]:
        if isinstance(e.value, float) and not math.isfinite(e.value):
            return self.constant(e.value, ir.F32), PRECEDENCE["-"] if e.value < 0 else ATOM
        return super()._ex_Const(e)

    def _ex_SizeOf(self, e: ir.SizeOf) -> tuple[str, int]:
        return f"{e.tensor}_shape[{e.dim}]", ATOM

    def _ex_BinOp(self, e: ir.BinOp) -> tuple[str, int]:
        if e.op == "**" and self._on_device(e.lhs):
            return self._power(e)
        if e.op in ("//", "%") and self.lanes:
            raise TranslationError(
                f"`{e.op}` on tile lanes", e.loc, "compute the index on the host"
            )
        if e.op in ("and", "or") and self.lanes:
            fn = "T.And" if e.op == "and" else "T.Or"
            a = self.child(e.lhs, self.lanes_for(e.lhs))
            b = self.child(e.rhs, self.lanes_for(e.rhs))
            return f"{fn}({a}, {b})", ATOM
        from translator.ir.printer import operand_precedence

        lp, rp = operand_precedence(e.op)
        a = self.child(e.lhs, self.lanes_for(e.lhs), lp)
        b = self.child(e.rhs, self.lanes_for(e.rhs), rp)
        return f"{a} {e.op} {b}", PRECEDENCE[e.op]

    def _on_device(self, e: ir.Expr) -> bool:
        """Whether ``e`` reads a tile or a buffer (a TIR value, not a Python number of the
        factory such as ``(1.0 / Q_shape[3]) ** 0.5``)."""
        return bool(dims_of(self.type_of(e))) or any(
            n in self.buffers or n in self.tiles for n in names_in(e)
        )

    def _power(self, e: ir.BinOp) -> tuple[str, int]:
        """``x ** y``: TileLang's expressions take no ``**`` (TypeError as the prim_func is
        built). A square or cube is the product, as Triton spells it; any other power
        ``T.pow`` (the ``pow`` spelling)."""
        from translator.ir.printer import operand_precedence

        value = e.rhs.value if isinstance(e.rhs, ir.Const) else None
        if value in (2, 3) and not isinstance(value, bool):
            _, rp = operand_precedence("*")
            base = self.child(e.lhs, self.lanes_for(e.lhs), rp)
            return " * ".join([base] * int(value)), PRECEDENCE["*"]
        return self._ex_Call(ir.Call("pow", (e.lhs, e.rhs), loc=e.loc))

    def _ex_UnaryOp(self, e: ir.UnaryOp) -> tuple[str, int]:
        if e.op == "-":
            from translator.ir.printer import UNARY_PRECEDENCE

            return f"-{self.child(e.operand, self.lanes_for(e.operand), UNARY_PRECEDENCE)}", (
                UNARY_PRECEDENCE
            )
        if e.op == "not" or (e.op == "~" and dtype_of(self.type_of(e.operand)) == ir.BOOL):
            # `~mask` of a boolean tile (torch's spelling) is its logical negation.
            return f"T.Not({self.child(e.operand, self.lanes_for(e.operand))})", ATOM
        raise TranslationError(f"`{e.op}` on device values", e.loc, _HINT)

    def _ex_Call(self, e: ir.Call) -> tuple[str, int]:
        t = self.type_of(e)
        dt = dtype_of(t) if isinstance(t, (TileType, ScalarType)) else None
        integer = isinstance(dt, ir.DType) and dt.name in ir.INT_DTYPES
        spelling = (self.spell["int_pointwise"] if integer else {}).get(e.op) or self.spell[
            "pointwise"
        ].get(e.op)
        if spelling is None:
            raise TranslationError(
                f"TileLang has no spelling of `{e.op}` here",
                e.loc,
                self.spell["refused"]["pointwise"].get(e.op, _HINT),
            )
        args = []
        for a in e.args:
            text = self.child(a, self.lanes_for(a), ATOM)
            if e.op in self.spell["fp32_only"]["ops"] and dtype_of(self.type_of(a)) != ir.F32:
                text = f"T.cast({text}, {self.dtype(ir.F32)})"
            args.append(text)
        text = spelling.format(*args)
        numbers = [_is_number(a) for a in e.args]
        if (
            not integer
            and e.op in ("maximum", "minimum")
            and numbers in ([True, False], [False, True])
        ):
            # Against a number only the other operand can be NaN (relu's `T.max(x, 0.0)`).
            x = args[numbers.index(False)]
            fn = "T.max" if e.op == "maximum" else "T.min"
            text = f"T.if_then_else(T.isnan({x}), {x}, {fn}({args[0]}, {args[1]}))"
        fp32 = e.op in self.spell["fp32_only"]["ops"]
        if fp32 and isinstance(t, (TileType, ScalarType)) and dtype_of(t) != ir.F32:
            text = f"T.cast({text}, {self.dtype(dtype_of(t))})"
        return text, ATOM if text.endswith(")") and "(" in text.split(" ")[0] else 0

    def _ex_Cast(self, e: ir.Cast) -> tuple[str, int]:
        return (
            f"T.cast({self.child(e.value, self.lanes_for(e.value))}, {self.dtype(e.dtype)})",
            ATOM,
        )

    def _ex_Load(self, e: ir.Load) -> tuple[str, int]:
        # A read inside a lane loop: the element, or the pad past the tensor's edge.
        dims = dims_of(self.type_of(e))
        idx, guards = self.element_index(e.tensor, e.index, dims, self.lanes, e.loc)
        if e.mask is not None:
            # The load's predicate (the IR's `where`): lanes where it is false are not read.
            guards.append(self.child(e.mask, self.lanes_for(e.mask), PRECEDENCE["and"] + 1))
        read = f"{e.tensor}[{', '.join(idx)}]"
        if not guards:
            return read, ATOM
        pad = self.constant(0.0 if e.other is None else e.other, dtype_of(self.type_of(e)))
        return f"T.if_then_else({' and '.join(guards)}, {read}, {pad})", ATOM

    def _ex_Full(self, e: ir.Full) -> tuple[str, int]:
        text = self.scalar(e.value)
        return f"T.cast({text}, {self.dtype(e.dtype)})", ATOM

    def _ex_TileAttr(self, e: ir.TileAttr) -> tuple[str, int]:
        t = self.tiles[e.tile]
        begin = self.tile_begin(t)
        if e.attr == "begin":
            return begin, PRECEDENCE["+"]
        if e.attr == "index":
            lane = self.lanes[-1] if self.lanes else None
            if t.var.scalar or lane is None:
                return begin, PRECEDENCE["+"]
            return f"{begin} + {lane}", PRECEDENCE["+"]
        if e.attr == "id":
            return t.id, ATOM
        if e.attr == "block_size":
            return t.block, ATOM
        if e.attr == "end":
            return f"T.min({begin} + {t.block}, {self.host(t.var.extent)})", ATOM
        if e.attr == "count":
            return f"T.ceildiv({self.host(t.var.extent)}, {t.block})", ATOM
        raise TranslationError(f"tile attribute `{e.attr}`", e.loc, _HINT)

    def _ex_Arange(self, e: ir.Arange) -> tuple[str, int]:
        return str(self.lanes[-1]) if self.lanes else "0", ATOM

    def _ex_Broadcast(self, e: ir.Broadcast) -> tuple[str, int]:
        return self.text(_rebased(e.value)), ATOM

    def _ex_ExpandDims(self, e: ir.ExpandDims) -> tuple[str, int]:
        n = len(self.lanes)
        axis = e.axis % n
        lanes = self.lanes[:axis] + self.lanes[axis + 1 :]
        return self.child(e.value, lanes, ATOM), ATOM

    def _ex_Reshape(self, e: ir.Reshape) -> tuple[str, int]:
        inner = dims_of(self.type_of(e.value))
        real = [lane for d, lane in zip(e.shape, self.lanes) if not isinstance(d, ir.UnitDim)]
        it = iter(real)
        lanes = tuple(None if isinstance(d, ir.UnitDim) else next(it, None) for d in inner)
        return self.child(e.value, lanes, ATOM), ATOM

    def _ex_Permute(self, e: ir.Permute) -> tuple[str, int]:
        lanes: list[str | None] = [None] * len(e.perm)
        for i, p in enumerate(e.perm):
            lanes[p] = self.lanes[i]
        return self.child(e.value, tuple(lanes), ATOM), ATOM


def _is_number(e: ir.Expr) -> bool:
    """Whether ``e`` is a constant number that is not NaN."""
    return (
        isinstance(e, ir.Const)
        and isinstance(e.value, (int, float))
        and not isinstance(e.value, bool)
        and not math.isnan(e.value)
    )


def _rebased(e: ir.Expr) -> ir.Expr:
    return e


def _names(e: ir.Expr) -> set[str]:
    from translator.ir.visit import walk_expr

    return {x.id for x in walk_expr(e) if isinstance(x, ir.Name)}


def _walk_shaping(e: ir.Expr):
    """The sub-expressions of ``e`` that move lanes (broadcasts, permutes, reductions, dots)."""
    from translator.ir.visit import walk_expr

    for x in walk_expr(e):
        if isinstance(x, (ir.Permute, ir.Reshape, ir.Reduce, ir.Dot, ir.Scan)):
            yield x


def _mask_storage(value: ir.Expr, t: TileType) -> str | None:
    """``"uint8"`` for a 2-D (or wider) bool tile that combines bools (``rows[:, None] &
    cols[None, :]``): TileLang 0.1.15 vectorises the T.Parallel loop writing it into `boolx16`
    values, which it cannot lower to CUDA ("Cannot convert type boolx16"; a comparison alone
    lowers). Such a mask is kept as 0/1 bytes (:meth:`KernelWriter.lane_write`)."""
    if t.dtype != ir.BOOL or sum(not isinstance(d, ir.UnitDim) for d in t.dims) < 2:
        return None
    logical = {"&", "|", "^", "and", "or"}
    combines = any(isinstance(e, ir.BinOp) and e.op in logical for e in walk_expr(value))
    return "uint8" if combines else None


def _same_stored(a: tuple[ir.Dim, ...], b: tuple[ir.Dim, ...]) -> bool:
    strip = lambda ds: tuple(d for d in ds if not isinstance(d, ir.UnitDim))  # noqa: E731
    return strip(a) == strip(b)


def _stmt_exprs(stmts: tuple[ir.Stmt, ...]):
    from translator.ir.visit import all_exprs

    return all_exprs(stmts)


def _map_children(e: ir.Expr, fn) -> ir.Expr:
    """``e`` with ``fn`` applied to each direct sub-expression."""
    import dataclasses

    changes = {}
    for f in dataclasses.fields(e):
        v = getattr(e, f.name)
        if isinstance(v, ir.Expr):
            changes[f.name] = fn(v)
        elif isinstance(v, tuple) and v and all(isinstance(x, ir.Expr) for x in v):
            changes[f.name] = tuple(fn(x) for x in v)
    return dataclasses.replace(e, **changes) if changes else e


__all__ = ["Buffer", "KernelWriter"]
