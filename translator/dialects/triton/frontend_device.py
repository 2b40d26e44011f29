"""Triton kernel bodies → IR device statements, by abstract interpretation of the pointer arithmetic.

The lifter walks a ``@triton.jit`` body once, with every kernel parameter bound to what the host
launch passes (a tensor, ``x.stride(d)``, a size, a block size). Values are abstract:

* :class:`Idx`: an integer (or boolean) tree over the symbols of
  :mod:`translator.dialects.triton.symbols`: offsets, masks, program ids, loop counters;
* :class:`Ptr`: a host tensor plus an :class:`Idx` offset (``x_ptr + offs``);
* :class:`Data`: an IR expression (a loaded tile, a computed value) with what its *invalid lanes*
  hold (``pads``: a constant per dim where known) and along which dims they may differ from what
  the source computes (``div``: loads without ``other=``, wrapped ``% M`` offsets);
* :class:`Pending`: ``tl.zeros``/``tl.full`` whose dims are not known yet.

At each ``tl.load``/``tl.store`` the offset is split into one index per tensor dim through the
stride parameters (``stride_xm`` bound to ``x.stride(0)``; a term without a stride indexes the last
dim, whose stride is then 1), and each index is classified (:meth:`KernelLifter.classify`): a tile
``block * id + lanes`` of a program id, a swizzled program id or a loop counter; a whole dim
(``tl.arange(0, B)`` with ``B = triton.next_power_of_2(n)``); a scalar; a gather through loaded
integers. The mask must bound exactly the region's tiles (``offs < n`` per tile, ``&``-combined):
each bound is the tile's extent. Anything else is refused with a diagnostic, never guessed.

Boundary semantics (the module doc of :mod:`translator.ir.nodes`): a masked load becomes
``Load(other=...)``; reductions and dots run over the padded lanes (``masked=False``), as Triton
computes them, where the IR's block equals the source's; where the IR block is a stand-in for a
host-computed one (``min(next_power_of_2(n), 1024)``), the padded lanes must provably hold the
reduction's identity and the reduction is ``masked=True``.

:class:`KernelLifter` is composed of one mixin per concern, each in its own module:
:mod:`~translator.dialects.triton.lift_statements` (blocks, assignments, helpers),
:mod:`~translator.dialects.triton.lift_control` (``if``/``for``),
:mod:`~translator.dialects.triton.lift_programs` (program ids, persistent loops, the grid),
:mod:`~translator.dialects.triton.lift_tiles` (tiles and block sizes),
:mod:`~translator.dialects.triton.lift_values` (expressions, operators, conversions to IR),
:mod:`~translator.dialects.triton.lift_pointwise` (pointwise ops, fills, casts, shape ops),
:mod:`~translator.dialects.triton.lift_calls` (call dispatch),
:mod:`~translator.dialects.triton.lift_barriers` (``tl.debug_barrier()``),
:mod:`~translator.dialects.triton.lift_reductions`, :mod:`~translator.dialects.triton.lift_dots`
and :mod:`~translator.dialects.triton.lift_memory` (loads, stores, atomics, masks). The abstract
values are in :mod:`~translator.dialects.triton.lifted`; handlers are found through the tables of
:mod:`~translator.dialects.triton.lift_dispatch`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from translator.dialects.cst_utils import comment_lines, names_in, source_of
from translator.dialects.triton import frontend_affine as af
from translator.dialects.triton.frontend_descriptors import kernel_descriptor
from translator.dialects.triton.ir_rewrite import map_names, map_stmt, replace_values
from translator.dialects.triton.lift_barriers import BarriersMixin
from translator.dialects.triton.lift_calls import CallsMixin
from translator.dialects.triton.lift_control import ControlMixin, drop_unread_placeholders
from translator.dialects.triton.lift_dots import DotsMixin
from translator.dialects.triton.lift_memory import MemoryMixin
from translator.dialects.triton.lift_pointwise import PointwiseMixin
from translator.dialects.triton.lift_programs import ProgramsMixin
from translator.dialects.triton.lift_reductions import ReductionsMixin
from translator.dialects.triton.lift_statements import StatementsMixin
from translator.dialects.triton.lift_tiles import TilesMixin
from translator.dialects.triton.lift_values import ValuesMixin
from translator.dialects.triton.lift_while import WhileMixin
from translator.dialects.triton.lifted import (
    Data,
    Idx,
    Loop,
    Ptr,
    Refusal,
    Static,
    Tile,
    Unbound,
    Val,
)
from translator.dialects.triton.symbols import Sym
from translator.ir import nodes as ir
from translator.ir.shapes import ScalarType, TensorType

if TYPE_CHECKING:
    from translator.dialects.triton.frontend_launch import Launch


class KernelLifter(
    StatementsMixin,
    ControlMixin,
    WhileMixin,
    ProgramsMixin,
    TilesMixin,
    ValuesMixin,
    PointwiseMixin,
    CallsMixin,
    ReductionsMixin,
    DotsMixin,
    MemoryMixin,
    BarriersMixin,
):
    """Lifts one launched kernel. ``launch`` holds the parameter bindings and the host context.

    Each concern is a mixin of its own module (statements, control flow, program ids and the grid,
    tiles, values, pointwise ops, calls, reductions, dots, memory); this class holds the state they
    share and the entry point.
    """

    def __init__(self, launch: Launch) -> None:
        self.launch = launch
        self.host = launch.host
        self.fn = launch.kernel.fn
        self.locate = launch.host.locate
        self.aliases = launch.host.aliases
        self.grammar = launch.host.grammar
        # Whole-dim indexes whose extent may be a prefix of the dim (ir.Kernel.partial_dims).
        self.partial_dims: list[ir.Expr] = []
        self.lang = self.grammar["device_module"]
        self.atoms = af.Atoms()
        self.env: dict[str, Val] = {}
        self.types = launch.host.type_env().child()
        self.taken: set[str] = set(launch.host.taken_names())
        self.host_tensors = {n for n, t in self.types.vars.items() if isinstance(t, TensorType)}
        self.source_names = names_in(self.fn)
        self.tiles: dict[tuple, Tile] = {}
        # Data symbols (loaded integers used as offsets) -> (IR expression, Triton shape).
        self.data: dict[str, tuple[ir.Expr, tuple]] = {}
        self.loops: list[Loop] = []
        self.loop_count = 0
        self.pid_names: dict[int, str] = {}
        self.pid_roles: dict[int, str] = {}  # axis -> "tile" | "persistent"
        self.pid_scalar_uses: set[int] = set()
        self.num_programs_nodes: dict[int, cst.CSTNode] = {}  # where tl.num_programs is read
        self.pid_tiles: dict[int, Tile] = {}
        self.swizzle: af.Swizzle | None = None
        self.swizzle_tiles: dict[str, Tile] = {}
        self.persistent: tuple[int, str, ir.Expr] | None = None  # (axis, tile name, extent)
        self.persistent_done = False  # a persistent loop was lifted: nothing may follow it
        # (axis, num_tiles, step, loop) of `for tile_id in tl.range(pid, num_tiles, NUM_SMS)`.
        self.persistent_grid: tuple[int, ir.Expr, ir.Expr, cst.For] | None = None
        # Digits of a program id split in mixed radix (`pid % n`, `pid // n`), by atom symbol.
        self.digits: dict[str, af.FlatDigit] = {}
        self.digit_tiles: dict[str, Tile] = {}
        self.digit_scalar_uses: set[str] = set()
        self.digit_names: dict[str, str] = {}  # atom symbol -> the name the source gave it
        self.out: list[ir.Stmt] = []
        self.ir_locals: set[str] = set()
        self.if_depth = 0
        self.loop_locals: set[str] = set()
        self.positive_locals: set[str] = set()  # device scalars provably > 0
        self.local_depth: dict[str, int] = {}  # IR local -> loop/branch depth of its definition
        self.scalar_loops: dict[str, str] = {}  # counter symbol -> index of a loop of indices
        # IR locals of scalars the program computes in while loops, and those proved >= 0.
        self.computed_locals: set[str] = set()
        self.nonneg_locals: set[str] = set()
        # (program axis, first tile, step) of loops that visit every step-th tile from pid_k.
        self.split_steps: list[tuple[int, ir.Expr, ir.Expr, cst.CSTNode]] = []
        # (digit symbol, first tile, step, loop): strided loops starting at a program-id digit.
        self.digit_splits: list[tuple[str, ir.Expr, ir.Expr, cst.CSTNode]] = []
        # Per enclosing branch: (block key, extent) pairs its test proves divisible.
        self.facts: list[list[tuple[af.Key, ir.Expr]]] = []
        #: IR names the else-branch placeholders of flag branches bind (lift_control), some
        #: dropped once the body shows nothing reads them.
        self.placeholders: set[str] = set()
        #: Constexpr flags and their values, per enclosing branch whose test decides them
        #: (``if COMPUTE_DW:`` → ``("COMPUTE_DW", True)``): where a parameter the launch binds
        #: under a flag (``Launch.flag_guards``) may be read.
        self.flag_truths: list[tuple[str, bool]] = []
        for t in launch.host.tunable_names():
            self.taken.add(t)
        placeholders = (
            [Sym.pid(axis) for axis in range(3)]
            + [Sym.num_programs(axis) for axis in range(3)]
            + [Sym.swizzle(which) for which in "mn"]
            + [Sym.row(axis) for axis in range(3)]
        )
        for placeholder in placeholders:
            self.types.vars[placeholder.text] = ScalarType(ir.I32)

    # ------------------------------------------------------------------ diagnostics

    def error(self, node: cst.CSTNode | None, message: str, hint: str | None = None) -> Refusal:
        """A refusal at ``node`` (the kernel's definition where there is none)."""
        loc = self.locate(node) if node is not None else self.locate(self.fn)
        # A block spelt `pad_hd // 2` is named as the source spells it.
        message = self.launch.spelt_keys(message) or message
        return Refusal(message, loc, self.launch.spelt_keys(hint))

    def src(self, node: cst.CSTNode) -> str:
        """The source of ``node`` on one line, for a diagnostic."""
        return " ".join(source_of(node).split())

    # ------------------------------------------------------------------ entry point

    def lift(self) -> ir.InlineKernel:
        """The kernel's IR: its grid and its body, placeholders resolved."""
        for p in self.launch.kernel.params:
            self.env[p] = self.param_value(p)
        body = self.fn.body
        assert isinstance(body, cst.IndentedBlock)
        stmts = list(body.body)
        if self.fn.get_docstring() is not None:
            stmts = stmts[1:]
        self.block(stmts, self.out, top=True)
        grid = self.grid_tiles()
        body_stmts = self.finish(tuple(self.out))
        body_stmts = drop_unread_placeholders(body_stmts, self.placeholders)
        body_stmts = self.flat_dtypes(body_stmts)
        fn = self.fn
        # What the source says of the kernel itself: comments above its definition (and between
        # its decorators) and its docstring.
        doc_comments = (
            comment_lines(fn.leading_lines)
            + tuple(c for d in fn.decorators for c in comment_lines(d.leading_lines))
            + comment_lines(fn.lines_after_decorators)
        )
        kernel = ir.InlineKernel(
            fn.name.value,
            grid,
            body_stmts,
            loc=self.locate(self.launch.node),
            docstring=fn.get_docstring(clean=True),
            doc_comments=doc_comments,
            partial_dims=tuple(self.partial_dims),
        )
        return kernel

    def flat_dtypes(self, body: tuple[ir.Stmt, ...]) -> tuple[ir.Stmt, ...]:
        """``dtype(x)`` read before ``x`` turned out to be addressed only through its flat view
        (or a view of its rows) becomes ``dtype(x_flat)`` (the tensor the kernel is passed)."""
        from translator.ir.visit import walk_stmts

        accessed = {s.tensor for s in walk_stmts(body) if isinstance(s, (ir.Store, ir.AtomicRMW))}
        from translator.ir.visit import all_exprs

        accessed |= {e.tensor for e in all_exprs(body) if isinstance(e, ir.Load)}
        rename = {}
        row_views = self.host.row_views
        for name, t in self.host.tensors.items():
            if name in accessed:
                continue
            views = [t.flat] + [v for (base, _), v in row_views.items() if base == name]
            read = [v for v in views if v is not None and v in accessed]
            if len(read) == 1:
                rename[ir.DTypeOf(name)] = ir.DTypeOf(read[0])
        return replace_values(body, rename) if rename else body

    # ------------------------------------------------------------------ parameters

    def param_value(self, name: str) -> Val:
        b = self.launch.bindings.get(name)
        if b is None:
            return Unbound(name)
        if b.kind == "tensor":
            return Ptr(name, ir.Const(0))
        if b.kind == "descriptor":
            return kernel_descriptor(self, name, b.value)
        if b.kind in ("stride", "int", "constexpr"):
            return Idx(Sym.param(name).expr)
        if b.kind == "float":
            return Data(b.expr)
        if b.kind == "str":
            # A string constexpr chosen by the host: compared in device code; backends pass it
            # as a compile-time constant.
            assert b.expr is not None
            for name in af.symbols_in(b.expr) | {
                x.id for x in af.walk(b.expr) if isinstance(x, ir.Name)
            }:
                self.host.mark_constexpr(name)
            return Data(b.expr)
        if b.kind == "static":
            return Static(b.value)
        if b.kind == "opaque" and name in self.launch.kernel.constexprs and b.expr is not None:
            # A compile-time value the host computes opaquely (NUM_SMS from a device query):
            # usable where only its identity matters (a persistent loop's step, the grid).
            return Idx(Sym.opaque(name).expr)
        return Unbound(name, b.why)

    def binding(self, pname: str):
        return self.launch.bindings[pname]

    def param_ir(self, pname: str, node: cst.CSTNode | None) -> ir.Expr:
        """The IR (host) expression for integer kernel parameter ``pname``."""
        b = self.launch.bindings.get(pname)
        if b is None or b.kind not in ("int", "constexpr", "stride"):
            raise self.error(node, f"kernel parameter `{pname}` has no value the IR can name")
        if b.kind == "stride":
            raise self.error(
                node,
                f"`{pname}` (a stride of `{b.tensor}`) is used outside a pointer offset",
                "use strides only in pointer arithmetic",
            )
        if b.kind == "constexpr":
            value = self.launch.constexpr_ir(pname, node)
            if isinstance(value, ir.Name) and pname in self.launch.int_tunables:
                # A tunable recorded while lifting: a compile-time integer of this kernel.
                self.types.vars.setdefault(value.id, ScalarType(ir.I32, weak=True))
            return value
        assert b.expr is not None
        return b.expr


__all__ = ["Data", "Idx", "KernelLifter", "Ptr", "Refusal", "map_names", "map_stmt"]
