"""Triton kernel bodies → IR device statements, by abstract interpretation of the pointer arithmetic.

The lifter walks a ``@triton.jit`` body once, with every kernel parameter bound to what the host
launch passes (a tensor, ``x.stride(d)``, a size, a block size). Values are abstract:

* :class:`Idx`: an integer (or boolean) tree over the symbols of
  :mod:`translator.dialects.triton.frontend_affine`: offsets, masks, program ids, loop counters;
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
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import libcst as cst

from translator.diagnostics import TranslationError
from translator.dialects.cst_utils import (
    call_args,
    comment_lines,
    literal,
    names_in,
    resolve,
    source_of,
    statement_comments,
)
from translator.dialects.triton import frontend_affine as af
from translator.dialects.triton import frontend_blocks as blocks
from translator.dialects.triton.frontend_blocks import BlockPtr, Descriptor
from translator.dialects.triton.frontend_descriptors import kernel_descriptor
from translator.ir import nodes as ir
from translator.ir.ops import COMPARISON_OPS, reduce_identity
from translator.ir.padding import fold_pad
from translator.ir.shapes import (
    IRTypeError,
    ScalarType,
    TensorType,
    TileType,
    dims_of,
    dtype_of,
    infer,
    is_float,
)
from translator.naming import unique

if TYPE_CHECKING:
    from translator.dialects.triton.frontend import Launch

_BINOPS = {
    cst.Add: "+",
    cst.Subtract: "-",
    cst.Multiply: "*",
    cst.Divide: "/",
    cst.FloorDivide: "//",
    cst.Modulo: "%",
    cst.Power: "**",
    cst.BitAnd: "&",
    cst.BitOr: "|",
    cst.BitXor: "^",
}
_AUG = {
    cst.AddAssign: "+",
    cst.SubtractAssign: "-",
    cst.MultiplyAssign: "*",
    cst.DivideAssign: "/",
    cst.FloorDivideAssign: "//",
    cst.ModuloAssign: "%",
    cst.BitAndAssign: "&",
    cst.BitOrAssign: "|",
}
_CMP = {
    cst.LessThan: "<",
    cst.LessThanEqual: "<=",
    cst.GreaterThan: ">",
    cst.GreaterThanEqual: ">=",
    cst.Equal: "==",
    cst.NotEqual: "!=",
}
_SWAP = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
_INT_OPS = ("+", "-", "*", "//", "%")
_SHAPE_OPS = ("trans", "permute", "expand_dims", "reshape", "view", "broadcast_to")


# ==================================================================================================
# Abstract values


@dataclass(frozen=True)
class Idx:
    """An integer or boolean tree over index symbols."""

    tree: ir.Expr


@dataclass(frozen=True)
class Ptr:
    """``base pointer of tensor + offset``."""

    tensor: str  # kernel parameter the pointer came from
    tree: ir.Expr


@dataclass(frozen=True)
class Data:
    """An IR value. ``pads[d]``: what lanes invalid along ``d`` hold; ``div``: dims along which
    invalid lanes may differ from the source's."""

    expr: ir.Expr
    pads: tuple[tuple[ir.Dim, float], ...] = ()
    div: frozenset = frozenset()
    # `tl.where(<bounds of dim>, inner, c)` written inline: a reduction or dot over ``dim`` whose
    # identity is ``c`` reads ``inner`` with its invalid lanes masked instead.
    where_of: tuple[ir.Dim, Data] | None = None

    def pad(self, d: ir.Dim) -> float | None:
        return dict(self.pads).get(d)


@dataclass
class Pending:
    """``tl.zeros(shape)``/``tl.full(shape, v)`` whose shape names blocks of no known tile yet."""

    keys: tuple[af.Key, ...]
    value: float | int
    dtype: ir.DType
    node: cst.CSTNode
    site: tuple[list, int] | None = None  # where its IR assignment goes once resolved
    name: str | None = None
    loop_depth: int = 0


@dataclass(frozen=True)
class LaneAcc:
    """A lane accumulator rewritten to a scalar: ``acc = tl.zeros([B])`` before a loop whose body
    does ``acc += v`` (``v`` spanning the loop's tile), read once after as ``tl.sum(acc, 0)``."""

    name: str
    loop: int


@dataclass(frozen=True)
class DTypeVal:
    dtype: ir.DTypeExpr


@dataclass(frozen=True)
class Static:
    """A compile-time Python value (a string or bool constexpr, ``None``)."""

    value: object


@dataclass(frozen=True)
class TupleVal:
    items: tuple


@dataclass(frozen=True)
class Func:
    """A ``@triton.jit`` helper function."""

    name: str


Val = Any

# ==================================================================================================
# Tiles


@dataclass
class Tile:
    """A tile of the IR: lanes ``block * id + arange(block)`` along one tensor dim.

    ``base`` is the symbol of its id (``%pid0``, ``%sm``, ``%it3``) or ``None`` for a whole dim.
    """

    name: str
    key: af.Key
    base: str | None
    block: str | ir.Const | None
    exact: bool
    extent: ir.Expr | None = None  # host expression, set by the first mask that bounds it
    full_extent: ir.Expr | None = None  # for whole dims: n of next_power_of_2(n)
    node: cst.CSTNode | None = None
    padded: bool = True  # False: a whole dim whose block is exactly its extent (needs no mask)
    # Loop tiles that visit every `step`-th tile from tile `start` (split-K): trees over params
    # and program ids. `used`: an access reads or writes through the tile (not only an offset).
    start: ir.Expr | None = None
    step: ir.Expr | None = None
    used: bool = False

    @property
    def dim(self) -> ir.Dim:
        if self.base is None:
            assert self.extent is not None
            return ir.FullDim(self.extent)
        return ir.BlockDim(self.name)


@dataclass
class Loop:
    id: int
    var: str
    trip: ir.Expr  # tree: number of iterations
    step: ir.Expr  # tree: loop variable step (the tile's block for `range(0, n, B)`)
    node: cst.CSTNode
    tile: Tile | None = None


@dataclass
class Item:
    """One tensor dim of an access."""

    kind: str  # "tile" | "scalar" | "gather"
    index: ir.IndexItem
    dims: list[tuple[int, ir.Dim, Tile | None]] = field(default_factory=list)  # (axis, dim, tile)
    polys: list[tuple[af.Poly, Tile]] = field(default_factory=list)  # lanes a mask must bound
    wrapped: list[tuple[Tile, ir.Expr]] = field(default_factory=list)


# The symbol of a compile-time parameter the host computes opaquely (NUM_SMS, ctx.BLOCK_SIZE).
_OPAQUE_CONSTEXPR = "%q:"


class Refusal(TranslationError):
    pass


# ==================================================================================================


class KernelLifter:
    """Lifts one launched kernel. ``launch`` holds the parameter bindings and the host context."""

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
        self.data: dict[str, tuple[ir.Expr, tuple]] = {}  # %d symbol -> (IR expr, triton shape)
        self.loops: list[Loop] = []
        self.loop_count = 0
        self.pid_names: dict[int, str] = {}
        self.pid_roles: dict[int, str] = {}  # axis -> "tile" | "persistent"
        self.pid_scalar_uses: set[int] = set()
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
        # (program axis, first tile, step) of loops that visit every step-th tile from pid_k.
        self.split_steps: list[tuple[int, ir.Expr, ir.Expr, cst.CSTNode]] = []
        # Per enclosing branch: (block key, extent) pairs its test proves divisible.
        self.facts: list[list[tuple[af.Key, ir.Expr]]] = []
        for t in launch.host.tunable_names():
            self.taken.add(t)
        for placeholder in ("%pid0", "%pid1", "%pid2", "%sm", "%sn", "%row0", "%row1", "%row2"):
            self.types.vars[placeholder] = ScalarType(ir.I32)

    # ------------------------------------------------------------------ diagnostics

    def error(self, node: cst.CSTNode | None, message: str, hint: str | None = None) -> Refusal:
        loc = self.locate(node) if node is not None else self.locate(self.fn)
        return Refusal(message, loc, hint)

    def src(self, node: cst.CSTNode) -> str:
        return " ".join(source_of(node).split())

    # ------------------------------------------------------------------ entry point

    def lift(self) -> ir.InlineKernel:
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

    # ------------------------------------------------------------------ parameters

    def param_value(self, name: str) -> Val:
        b = self.launch.bindings.get(name)
        if b is None:
            return _Unbound(name)
        if b.kind == "tensor":
            return Ptr(name, ir.Const(0))
        if b.kind == "descriptor":
            return kernel_descriptor(self, name, b.value)
        if b.kind in ("stride", "int", "constexpr"):
            return Idx(ir.Name(af.param_id(name)))
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
            return Idx(ir.Name(_OPAQUE_CONSTEXPR + name))
        return _Unbound(name, b.why)

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
            return self.launch.constexpr_ir(pname, node)
        assert b.expr is not None
        return b.expr

    # ------------------------------------------------------------------ statements

    def block(self, stmts: list[cst.BaseStatement], out: list[ir.Stmt], top: bool = False) -> bool:
        """Lift statements into ``out``; returns whether the block ended in ``return``."""
        saved, self.out = self.out, out
        # Comments of statements that lift to no IR (offset arithmetic) go to the next one.
        carried: tuple[str, ...] = ()
        try:
            i = 0
            while i < len(stmts):
                node = stmts[i]
                comments = carried + tuple(statement_comments(node))
                start = len(out)
                if (
                    isinstance(node, cst.If)
                    and _contains_return(node)
                    and not self.loops
                    and not (_ends_in_return(node.body) and node.orelse is None)
                ):
                    raise self.error(
                        node,
                        "this `return` is not at the end of an `if` without "
                        "`else`, which the frontend cannot restructure",
                        "write `if cond: ...; return` followed by the rest",
                    )
                if isinstance(node, cst.If) and _ends_in_return(node.body) and node.orelse is None:
                    # `if c: ...; return` + rest  ->  if c: ... else: rest
                    rest = stmts[i + 1 :]
                    self.if_stmt(node, rest_after_return=rest)
                    _attach(out, start, comments)
                    return True
                if _is_return(node) or (
                    isinstance(node, cst.If) and _contains_return(node) and self.loops
                ):
                    if self.loops:
                        raise self.error(
                            node,
                            "`return` inside a loop is not supported",
                            "guard the loop body with an `if` instead",
                        )
                    self.return_stmt(node)
                    return True
                self.statement(node)
                _attach(out, start, comments)
                carried = comments if start == len(out) else ()
                i += 1
            return False
        finally:
            self.out = saved

    def statement(self, node: cst.BaseStatement) -> None:
        if self.persistent_done:
            raise self.error(
                node,
                "statements after a persistent row loop would run once per program",
                "move them into the loop",
            )
        if isinstance(node, cst.SimpleStatementLine):
            for small in node.body:
                self.small(small)
            return
        if isinstance(node, cst.For):
            self.for_stmt(node)
            return
        if isinstance(node, cst.If):
            self.if_stmt(node)
            return
        raise self.error(
            node,
            f"unsupported statement in a kernel: `{self.src(node).splitlines()[0][:60]}`",
            "kernels may assign, load, store, loop over range/tl.range and branch",
        )

    def small(self, node: cst.BaseSmallStatement) -> None:
        if isinstance(node, cst.Assign):
            if len(node.targets) != 1:
                raise self.error(node, "chained assignment is not supported")
            self.assign(node.targets[0].target, self.ev(node.value), node)
        elif isinstance(node, cst.AnnAssign) and node.value is not None:
            self.assign(node.target, self.ev(node.value), node)
        elif isinstance(node, cst.AugAssign):
            op = _AUG.get(type(node.operator))
            if op is None or not isinstance(node.target, cst.Name):
                raise self.error(node, f"unsupported augmented assignment `{self.src(node)}`")
            current = self.lookup(node.target.value, node.target)
            value = self.ev(node.value)
            if isinstance(current, (Pending, LaneAcc)) and op == "+":
                self.lane_accumulate(node.target.value, current, value, node)
                return
            self.assign(node.target, self.binop(op, current, value, node), node)
        elif isinstance(node, cst.Expr):
            if isinstance(node.value, (cst.SimpleString, cst.ConcatenatedString)):
                return
            if isinstance(node.value, cst.Call):
                fn = resolve(node.value.func, self.aliases)
                if fn == f"{self.lang}.store":
                    self.store(node.value)
                    return
                atomics = self.grammar["frontend"]["atomics"]
                if fn in atomics:
                    self.atomic(node.value, atomics[fn])
                    return
                if fn in (f"{self.lang}.static_assert", f"{self.lang}.device_assert"):
                    return  # compile-/debug-time checks: they never change what is computed
                func = node.value.func
                if (
                    isinstance(func, cst.Attribute)
                    and func.attr.value == "store"
                    and isinstance(self.ev(func.value), Descriptor)
                ):
                    self.call(node.value)
                    return
            raise self.error(
                node,
                f"unsupported expression statement `{self.src(node)[:60]}`",
                "call tl.store as a statement; assign other values",
            )
        elif isinstance(node, cst.Pass):
            return
        else:
            raise self.error(node, f"unsupported statement `{self.src(node)[:60]}`")

    def lookup(self, name: str, node: cst.CSTNode) -> Val:
        if name in self.env:
            v = self.env[name]
            if isinstance(v, _Unbound):
                raise self.error(
                    node,
                    f"kernel parameter `{name}` is not bound to a value the IR can use"
                    + (f": {v.why}" if v.why else ""),
                    "pass tensors, x.stride(d), sizes or block sizes the host computes",
                )
            return v
        if name in self.launch.kernel.module.jit_helpers:
            return Func(name)
        const = self.host.module_constant(name)
        if const is not None:
            return Idx(ir.Const(const)) if isinstance(const, int) else Data(ir.Const(const))
        if name in self.loop_locals:
            raise self.error(
                node,
                f"`{name}` is defined inside a loop and read after it; the "
                "IR's loop scope ends with the loop",
                "define it before the loop",
            )
        raise self.error(node, f"`{name}` is not defined in this kernel")

    def assign(self, target: cst.BaseExpression, value: Val, node: cst.CSTNode) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            names = [e.value for e in target.elements]
            if not isinstance(value, TupleVal) or len(value.items) != len(names):
                raise self.error(node, "unpack only tuples of matching length")
            for n, v in zip(names, value.items):
                self.assign(n, v, node)
            return
        if not isinstance(target, cst.Name):
            raise self.error(node, f"unsupported assignment target `{self.src(target)}`")
        name = target.value
        if isinstance(value, Data):
            value = self.bind_data(name, value, node)
        elif isinstance(value, Pending):
            value = dataclasses.replace(
                value, name=name, site=(self.out, len(self.out)), loop_depth=len(self.loops)
            )
        elif isinstance(value, Idx):
            value = self.name_scalar(name, value)
            self.register_tiles(value.tree)
        self.env[name] = value

    def bind_data(self, name: str, value: Data, node: cst.CSTNode) -> Data:
        old = self.env.get(name)
        if isinstance(old, Data) and isinstance(value.expr, ir.Name) and old.expr == value.expr:
            return Data(value.expr, value.pads, value.div)  # `acc = acc` (a helper's result)
        depth = len(self.loops) + self.if_depth
        if (
            isinstance(old, Data)
            and isinstance(old.expr, ir.Name)
            and (old.expr.id in self.ir_locals)
            and self.local_depth.get(old.expr.id, -1) < depth
        ):
            # Rebinding inside a loop or branch keeps the IR variable (loop-carried values,
            # values either branch may set); in straight-line code a new value gets a new name.
            irname = old.expr.id
        else:
            base = _ident(name)
            if (
                base in self.host_tensors
                and f"{base}_tile" not in self.source_names
                and isinstance(self.type_of(value.expr, node), TileType)
            ):
                # The kernel's `x = tl.load(x_ptr + offs)` is a tile of the host's `x`.
                base = f"{base}_tile"
            irname = unique(base, self.taken)
            self.ir_locals.add(irname)
            self.local_depth[irname] = depth
        expr = value.expr
        t = self.type_of(expr, node)
        self.out.append(ir.Assign(irname, expr, loc=self.locate(node)))
        self.types.vars[irname] = t
        if not dims_of(t) and self.is_positive(expr):
            self.positive_locals.add(irname)
        else:
            self.positive_locals.discard(irname)
        return Data(ir.Name(irname), value.pads, value.div)

    def name_scalar(self, name: str, value: Idx) -> Idx:
        """Program ids keep the name they are first bound to (it names their grid tile)."""
        tree = af.strip_casts(value.tree)
        if af.is_sym(tree, "pid"):
            assert isinstance(tree, ir.Name)
            self.pid_names.setdefault(int(tree.id[4:]), name)
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
                return Idx(ir.Name("%s" + which))
        return value

    def is_positive(self, e: ir.Expr) -> bool:
        """Whether scalar ``e`` is provably > 0 (device locals bound to positive values, host
        scalars the wrapper asserts positive)."""
        if isinstance(e, ir.Name) and e.id in self.positive_locals:
            return True
        if isinstance(e, ir.BinOp) and e.op in ("*", "/"):
            return self.is_positive(e.lhs) and self.is_positive(e.rhs)
        if isinstance(e, ir.Name) and e.id in self.ir_locals:
            return False
        return not dims_of(
            self.types.vars.get(e.id)
            if isinstance(e, ir.Name) and (e.id in self.types.vars)
            else ScalarType(ir.F32)
        ) and self.host.is_positive(e)

    def type_of(self, e: ir.Expr, node: cst.CSTNode | None):
        try:
            return infer(e, self.types)
        except IRTypeError as err:
            raise self.error(node, f"the lifted expression does not type-check: {err}") from None

    # ------------------------------------------------------------------ control flow

    def return_stmt(self, node: cst.BaseStatement) -> None:
        assert isinstance(node, cst.SimpleStatementLine)
        ret = node.body[0]
        assert isinstance(ret, cst.Return)
        if ret.value is not None:
            raise self.error(node, "a kernel cannot return a value")

    def if_stmt(self, node: cst.If, rest_after_return: list | None = None) -> None:
        test = self.ev(node.test)
        if isinstance(test, Static):
            branch: list = []
            if test.value:
                branch = list(_body(node.body))
            elif isinstance(node.orelse, cst.Else):
                branch = list(_body(node.orelse.body))
            elif isinstance(node.orelse, cst.If):
                branch = [node.orelse]
            if rest_after_return is not None and test.value:
                self.block(branch, self.out)
                return
            returned = self.block(branch, self.out)
            if rest_after_return is not None and not returned:
                self.block(rest_after_return, self.out)
            return
        self.if_depth += 1
        try:
            self._dynamic_if(node, test, rest_after_return)
        finally:
            self.if_depth -= 1

    def _dynamic_if(self, node: cst.If, test: Val, rest_after_return: list | None) -> None:
        facts = self.divisibility_facts(test, node.test)
        before = dict(self.env)
        taken, ir_locals = set(self.taken), set(self.ir_locals)
        body: list[ir.Stmt] = []
        self.facts.append(facts)
        try:
            self.block(list(_body(node.body)), body)
        finally:
            self.facts.pop()
        env_body, self.env = self.env, dict(before)
        # Both branches start from the same names, so a value both define has one IR name.
        taken_body, locals_body = self.taken, self.ir_locals
        self.taken, self.ir_locals = set(taken), set(ir_locals)
        orelse: list[ir.Stmt] = []
        if rest_after_return is not None:
            self.block(rest_after_return, orelse)
        elif isinstance(node.orelse, cst.Else):
            self.block(list(_body(node.orelse.body)), orelse)
        elif isinstance(node.orelse, cst.If):
            self.block([node.orelse], orelse)
        env_else = self.env
        self.taken |= taken_body
        self.ir_locals |= locals_body
        if facts:
            # `if EVEN_N: unmasked else: masked`: the flag only says the masks are all-true, so
            # branches that differ in nothing else are one computation (the masked one).
            merged = _merge_branches(tuple(body), tuple(orelse))
            if merged is not None:
                self.env = self.merge_envs(before, env_body, env_else, node, joined=True)
                self.out.extend(merged)
                return
        cond = self.to_data(test, node.test)
        if dims_of(self.type_of(cond.expr, node.test)):
            raise self.error(
                node.test,
                "a branch condition must be a scalar, not a tile",
                "use tl.where for per-lane choices",
            )
        self.env = self.merge_envs(before, env_body, env_else, node)
        self.out.append(ir.If(cond.expr, tuple(body), tuple(orelse), loc=self.locate(node)))

    def divisibility_facts(self, test: Val, node) -> list[tuple[af.Key, ir.Expr]]:
        """``(block key, extent)`` pairs a branch test proves divisible (``EVEN_N`` flags that
        ``@triton.heuristics`` computes as ``args["N"] % args["BLOCK_N"] == 0``)."""
        if not isinstance(test, Idx):
            return []
        out = []
        for part in _conjunction(af.strip_casts(test.tree)):
            if not (isinstance(part, ir.Name) and part.id.startswith("%p:")):
                continue
            b = self.launch.bindings.get(part.id[3:])
            if b is None or b.kind != "constexpr" or b.expr is None:
                continue
            # As written where it matches (the extent keeps the host's name), else canonical.
            e = b.expr if _is_divisibility(b.expr) else self.host.canonical(b.expr)
            if not _is_divisibility(e):
                continue
            assert isinstance(e, ir.BinOp) and isinstance(e.lhs, ir.BinOp)
            extent, block = e.lhs.lhs, e.lhs.rhs
            for key, kb in self.launch.bindings.items():
                if (
                    kb.kind == "constexpr"
                    and kb.expr is not None
                    and self.same_host(kb.expr, block, node)
                ):
                    out.append((key, extent))
        return out

    def merge_envs(
        self, before: dict, a: dict, b: dict, node: cst.CSTNode, joined: bool = False
    ) -> dict:
        """The values after an ``if``. ``joined``: the branches were merged into one
        computation (the more masked one), so what either defines lives on."""
        out = dict(before)
        for name in set(a) | set(b):
            va, vb = a.get(name), b.get(name)
            if va == vb:
                if va is not None:
                    out[name] = va
                continue
            if name not in before and not joined:
                continue  # defined in one branch only: unusable after (IR scoping)
            if isinstance(va, Data) and isinstance(vb, Data) and va.expr == vb.expr:
                if joined and (va.div <= vb.div or vb.div <= va.div):
                    out[name] = va if va.div <= vb.div else vb
                    continue
                out[name] = Data(va.expr, (), va.div | vb.div)
                continue
            if joined and (va is None or vb is None):
                continue
            raise self.error(
                node,
                f"`{name}` is given different index or pointer values in the branches of this `if`",
                "compute offsets before branching",
            )
        return out

    def for_stmt(self, node: cst.For) -> None:
        if node.orelse is not None:
            raise self.error(node, "for-else is not supported")
        if not isinstance(node.target, cst.Name):
            raise self.error(node.target, "loop over one name")
        it = node.iter
        fn = resolve(it.func, self.aliases) if isinstance(it, cst.Call) else None
        if fn not in ("range", f"{self.lang}.range", f"{self.lang}.static_range"):
            raise self.error(
                node.iter,
                f"unsupported loop `for ... in {self.src(node.iter)}`",
                "loop over range(...) or tl.range(...)",
            )
        assert isinstance(it, cst.Call)
        args, kwargs = call_args(it)
        stages = None
        for k, v in kwargs.items():
            if k == "num_stages":
                try:
                    value = literal(v)
                except ValueError:
                    value = None
                stages = value if isinstance(value, int) else None
            elif k not in (
                "loop_unroll_factor",
                "flatten",
                "warp_specialize",
                "disallow_acc_multi_buffer",
            ):
                raise self.error(v, f"unsupported loop option `{k}=`")
        first = self.ev(args[0]) if args else None
        if (
            len(args) == 3
            and isinstance(first, Idx)
            and af.is_sym(af.strip_casts(first.tree), "pid")
        ):
            step_val = self.ev(args[2])
            stop_val = self.ev(args[1])
            if not (isinstance(step_val, Idx) and af.is_sym(af.strip_casts(step_val.tree), "np")):
                if not isinstance(stop_val, Idx) or not isinstance(step_val, Idx):
                    raise self.error(node.iter, "range bounds must be integers")
                self.persistent_tiles(node, first.tree, stop_val.tree, step_val.tree)
                return
        vals = [first] + [self.ev(a) for a in args[1:]]
        if not all(isinstance(v, Idx) for v in vals) or not 1 <= len(vals) <= 3:
            raise self.error(node.iter, "range bounds must be integers")
        trees = [v.tree for v in vals]
        start, stop, step = (
            (ir.Const(0), trees[0], ir.Const(1))
            if len(trees) == 1
            else (trees[0], trees[1], trees[2] if len(trees) == 3 else ir.Const(1))
        )
        if self._is_persistent(start, step):
            self.persistent_loop(node, start, stop)
            return
        if af.poly(start, self.atoms) != {}:
            raise self.error(
                node.iter,
                f"loops must start at 0, not `{self.src(args[0])}`",
                "loop over range(0, n, BLOCK) and offset inside the loop",
            )
        self.tile_loop(node, stop, step, stages)

    def _is_persistent(self, start: ir.Expr, step: ir.Expr) -> bool:
        s, st = af.strip_casts(start), af.strip_casts(step)
        return (
            af.is_sym(s, "pid")
            and af.is_sym(st, "np")
            and isinstance(s, ir.Name)
            and isinstance(st, ir.Name)
            and s.id[4:] == st.id[3:]
        )

    def persistent_loop(self, node: cst.For, start: ir.Expr, stop: ir.Expr) -> None:
        """``for row in tl.range(pid, n, num_programs)``: each row once, over all programs.

        The iterations are independent (nothing is carried from one row to the next), so the loop
        is a grid over rows: one scalar tile ``row`` of extent ``n``; how many programs share the
        rows (the launch grid) only schedules them.
        """
        assert isinstance(start, ir.Name) and isinstance(node.target, cst.Name)
        axis = int(start.id[4:])
        if self.loops or self.if_depth or self.persistent is not None or self.pid_roles.get(axis):
            raise self.error(
                node, "a persistent loop over programs must be the kernel's outer loop"
            )
        name = unique(_ident(node.target.value), self.taken)
        extent = self.host_ir(stop, node.iter)
        self.persistent = (axis, name, extent)
        self.pid_roles[axis] = "persistent"
        tile = ir.TileVar(name, extent, ir.Const(1), scalar=True)
        self.types.bind_tile(tile)
        self.check_independent_iterations(node, "row")
        self.env[node.target.value] = Idx(ir.Name(f"%row{axis}"))
        self.block(list(_body(node.body)), self.out)
        self.persistent_done = True

    def check_independent_iterations(self, node: cst.For, what: str) -> None:
        """A persistent loop is a grid only if no value flows from one iteration to the next
        and nothing is stored before it (that would run once per program)."""
        carried = self.assigned_names(node.body) & set(self.env) - {node.target.value}
        carried = {n for n in carried if _read_before_write(n, node.body)}
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
        assert isinstance(start, ir.Name) and isinstance(node.target, cst.Name)
        axis = int(start.id[4:])
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
        self.block(list(_body(node.body)), self.out)
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

    def step_ir(self, step: ir.Expr, node) -> ir.Expr:
        """A persistent loop's step as a host expression (an opaque host value allowed)."""
        step = af.strip_casts(step)
        if isinstance(step, ir.Name) and step.id.startswith(_OPAQUE_CONSTEXPR):
            b = self.launch.bindings[step.id[len(_OPAQUE_CONSTEXPR) :]]
            assert b.expr is not None
            return b.expr
        return self.host_ir(step, getattr(node, "iter", node))

    def tile_loop(self, node: cst.For, stop: ir.Expr, step: ir.Expr, stages: int | None) -> None:
        assert isinstance(node.target, cst.Name)
        self.loop_count += 1
        lid = self.loop_count
        counter = ir.Name(f"%it{lid}")
        self.types.vars[counter.id] = ScalarType(ir.I32)
        step_p = af.poly(step, self.atoms)
        if af.poly_symbols(step_p) & {"%pid0", "%pid1", "%pid2"}:
            raise self.error(node.iter, "loop steps must not depend on the program id")
        is_unit = step_p == {(): 1}
        trip = stop if is_unit else ir.Call("cdiv", (stop, step))
        loop = Loop(lid, node.target.value, trip, step, node)
        var_tree = counter if is_unit else ir.BinOp("*", step, counter)
        # Values carried through the loop: pointers/offsets advanced by a fixed step, data.
        assigned = self.assigned_names(node.body)
        # Names the body overwrites before reading them are body locals, whatever they held
        # before the loop (an `offs_k` recomputed per iteration); only the others are carried.
        carried = {n for n in assigned if n in self.env and _read_before_write(n, node.body)}
        shadowed = {n for n in assigned if n in self.env} - carried
        steps = self.induction_steps(node, carried)
        saved_env = dict(self.env)
        self.loops.append(loop)
        entry_env = dict(self.env)
        entry_env[node.target.value] = Idx(var_tree)
        for n, d in steps.items():
            entry_env[n] = _moved(self.env[n], d, counter)
        assumed: dict[str, frozenset] = {}
        for n in carried - set(steps):
            v = self.env[n]
            if isinstance(v, Data):
                assumed[n] = v.div
            elif isinstance(v, (Ptr, Idx, BlockPtr)):
                raise self.error(
                    node,
                    f"`{n}` is changed in the loop by more than a fixed step",
                    "advance offsets with `ptrs += BLOCK * stride` or "
                    "`bp = tl.advance(bp, steps)`, or recompute them",
                )
        # Loop-carried values: what their invalid lanes hold must be a fixpoint of the body.
        for _attempt in range(4):
            snap = self.snapshot()
            self.env = dict(entry_env)
            for n, div in assumed.items():
                v = self.env[n]
                assert isinstance(v, Data)
                self.env[n] = Data(v.expr, (), div)
            body: list[ir.Stmt] = []
            self.block(list(_body(node.body)), body)
            grown = False
            for n in assumed:
                v = self.env.get(n)
                if isinstance(v, Data) and not v.div <= assumed[n]:
                    assumed[n] = assumed[n] | v.div
                    grown = True
            if not grown:
                break
            self.restore(snap)
        self.loops.pop()
        tile = loop.tile
        if tile is None and is_unit:
            # No lanes ride on the counter: a loop of plain indices (`for c in range(n)`).
            name = unique(_ident(loop.var), self.taken)
            self.scalar_loops[counter.id] = name
            self.finish_loop(saved_env, shadowed, assigned, carried, steps, trip)
            tv = ir.TileVar(name, self.host_ir(trip, node.iter), ir.Const(1), scalar=True)
            self.out.append(
                ir.TileLoop((tv,), tuple(body), num_stages=stages, loc=self.locate(node))
            )
            return
        if tile is None:
            raise self.error(
                node,
                f"cannot map the iterations of `for {loop.var} in ...` to a tile",
                "index the loop's lanes as `off + tl.arange(0, BLOCK)` for `range(0, n, BLOCK)`",
            )
        expected = ir.Call("cdiv", (tile.extent, self.key_tree(tile.key)))
        begin = step_ir = None
        if tile.step is not None:
            begin, step_ir = self.strided_bounds(tile, loop, body, node)
            # cdiv(cdiv(n, B), S) tiles, however the source spells it (cdiv(n, B * S)).
            forms = [
                ir.Call("cdiv", (expected, tile.step)),
                ir.Call("cdiv", (tile.extent, ir.BinOp("*", self.key_tree(tile.key), tile.step))),
            ]
            trip_host = self.host_ir(trip, node.iter)
            if not any(self.same_host(trip_host, self.host_ir_of_host(f), node) for f in forms):
                raise self.error(
                    node.iter,
                    f"the loop runs `{self.src(node.iter)}` times, not "
                    f"once per {ir_text(tile.step)}-th {tile.name} tile",
                    "loop tl.cdiv(n, BLOCK * STEP) times",
                )
        elif not self.same_host(
            self.host_ir(trip, node.iter), self.host_ir_of_host(expected), node
        ):
            raise self.error(
                node.iter,
                f"the loop runs `{self.src(node.iter)}` times, not once per {tile.name} tile "
                f"(cdiv({ir_text(tile.extent)}, {tile.key}))",
                "loop over range(0, n, BLOCK) or range(0, tl.cdiv(n, BLOCK)) where the masks "
                "bound the lanes by n",
            )
        self.finish_loop(saved_env, shadowed, assigned, carried, steps, trip)
        tv = ir.TileVar(tile.name, tile.extent, tile.block, begin=begin, step=step_ir)
        self.out.append(ir.TileLoop((tv,), tuple(body), num_stages=stages, loc=self.locate(node)))

    def finish_loop(
        self,
        saved_env: dict,
        shadowed: set[str],
        assigned: set[str],
        carried: set[str],
        steps: dict[str, ir.Expr],
        trip: ir.Expr,
    ) -> None:
        """The values after a loop: carried ones as the last iteration leaves them, advanced
        pointers moved ``trip`` times, loop locals gone."""
        after = {n: v for n, v in saved_env.items() if n not in shadowed}
        self.loop_locals |= (assigned - set(saved_env)) | shadowed
        for n in carried:
            v = self.env.get(n)
            if n in steps:
                after[n] = _moved(saved_env[n], steps[n], trip)
            elif isinstance(v, Data):
                after[n] = Data(v.expr, (), v.div)
            elif v is not None:
                after[n] = v
        self.env = after

    def strided_bounds(
        self, tile: Tile, loop: Loop, body: list[ir.Stmt], node
    ) -> tuple[ir.Expr, ir.Expr]:
        """``begin``/``step`` of a loop visiting every ``step``-th tile from tile ``start``.

        The source runs ``cdiv(cdiv(n, B), S)`` iterations in every program; the IR loop only the
        ones whose tile is in bounds. The others load nothing (every lane masked), so they must
        change nothing: the loop may only accumulate dots over the tile whose operands pad with
        zeros, and store nothing.
        """
        assert tile.start is not None and tile.step is not None
        for s in body:
            for inner in [s, *walk_stmts_of(s)]:
                if isinstance(inner, (ir.Store, ir.AtomicRMW, ir.If, ir.TileLoop)):
                    raise self.error(
                        loop.node,
                        f"the loop over `{loop.var}` visits every "
                        f"{ir_text(tile.step)}-th tile and does more than "
                        "accumulate dots: its iterations past the last tile would "
                        "not be no-ops",
                        "accumulate with tl.dot(a, b, acc) only",
                    )
        defined = {s.target for s in body if isinstance(s, ir.Assign)}
        loads = {s.target: s.value for s in body if isinstance(s, ir.Assign)}
        for s in body:
            if (
                not isinstance(s, ir.Assign)
                or s.target in loads
                and isinstance(s.value, (ir.Load, ir.Cast))
            ):
                continue
            value = s.value
            ok = (
                isinstance(value, ir.Dot)
                and value.acc == ir.Name(s.target)
                and any(_zero_padded(op, loads, tile.name) for op in (value.lhs, value.rhs))
            )
            if not ok and s.target not in defined - {s.target}:
                raise self.error(
                    loop.node,
                    f"`{s.target}` changes in a loop that visits every "
                    f"{ir_text(tile.step)}-th tile, other than by accumulating a "
                    "dot of zero-padded loads",
                    "accumulate with tl.dot(a, b, acc)",
                )
        for sym in af.symbols_in(tile.start):
            if sym.startswith("%pid"):
                self.pid_scalar_uses.add(int(sym[4:]))
                self.split_steps.append((int(sym[4:]), tile.start, tile.step, node))
        begin = self.scalar_ir(ir.BinOp("*", tile.start, self.key_tree(tile.key)), node)
        return _simplify(begin), self.scalar_ir(tile.step, node)

    def snapshot(self) -> tuple:
        self.inserted = getattr(self, "inserted", [])
        return (
            dict(self.env),
            set(self.taken),
            set(self.ir_locals),
            dict(self.types.vars),
            dict(self.types.tiles),
            self.loop_count,
            len(self.inserted),
        )

    def restore(self, snap: tuple) -> None:
        env, taken, ir_locals, tvars, ttiles, loop_count, inserted = snap
        self.env, self.taken, self.ir_locals = env, taken, ir_locals
        self.types.vars, self.types.tiles = tvars, ttiles
        self.loop_count = loop_count
        for stmts, stmt in self.inserted[inserted:]:
            stmts.remove(stmt)
        del self.inserted[inserted:]
        self.taken |= {t.name for t in self.tiles.values()}

    def assigned_names(self, body: cst.BaseSuite) -> set[str]:
        names: set[str] = set()

        class V(cst.CSTVisitor):
            def visit_AssignTarget(self, n: cst.AssignTarget) -> None:
                for e in _target_names(n.target):
                    names.add(e)

            def visit_AugAssign(self, n: cst.AugAssign) -> None:
                names.update(_target_names(n.target))

            def visit_AnnAssign(self, n: cst.AnnAssign) -> None:
                names.update(_target_names(n.target))

            def visit_For(self, n: cst.For) -> None:
                names.update(_target_names(n.target))

        body.visit(V())
        return names

    def induction_steps(self, node: cst.For, carried: set[str]) -> dict[str, ir.Expr]:
        """Pointers/offsets the loop body advances by a loop-invariant step, once, at its end."""
        steps: dict[str, ir.Expr] = {}
        stmts = list(_body(node.body))
        for i, st in enumerate(stmts):
            if not isinstance(st, cst.SimpleStatementLine):
                continue
            for small in st.body:
                name, step_node = None, None
                if (
                    isinstance(small, cst.AugAssign)
                    and isinstance(small.operator, cst.AddAssign)
                    and isinstance(small.target, cst.Name)
                ):
                    name, step_node = small.target.value, small.value
                advanced = _advance_of(small, self.aliases, self.lang)
                if advanced is not None and isinstance(self.env.get(advanced[0]), BlockPtr):
                    name, step_node = advanced
                if name is None or not isinstance(self.env.get(name), (Ptr, Idx, BlockPtr)):
                    continue
                later = [s for s in stmts[i + 1 :]]
                if any(name in _names_read(s) for s in later):
                    raise self.error(
                        small,
                        f"`{name}` is read after it is advanced in the loop",
                        "advance pointers at the end of the loop body",
                    )
                if _names_read_expr(step_node) & self.assigned_names(node.body):
                    raise self.error(small, f"the step of `{name}` changes inside the loop")
                if name in steps:
                    raise self.error(small, f"`{name}` is advanced twice in the loop")
                if isinstance(self.env.get(name), BlockPtr):
                    steps[name] = ir.TupleExpr(blocks._trees(self, step_node, "offsets", small))
                    continue
                step = self.ev(step_node)
                if not isinstance(step, Idx):
                    raise self.error(small, f"`{name}` must advance by an integer step")
                steps[name] = step.tree
        return steps

    # ------------------------------------------------------------------ expressions

    def ev(self, node: cst.BaseExpression) -> Val:
        if isinstance(node, cst.Name):
            if node.value in ("True", "False"):
                return Static(node.value == "True")
            if node.value == "None":
                return Static(None)
            return self.lookup(node.value, node)
        if isinstance(node, cst.Integer):
            return Idx(ir.Const(int(node.evaluated_value)))
        if isinstance(node, cst.Float):
            return Data(ir.Const(float(node.evaluated_value)))
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
            return Static(node.evaluated_value)
        if isinstance(node, cst.BinaryOperation):
            op = _BINOPS.get(type(node.operator))
            if op is None:
                raise self.error(node, f"unsupported operator in `{self.src(node)}`")
            return self.binop(op, self.ev(node.left), self.ev(node.right), node)
        if isinstance(node, cst.Comparison):
            if len(node.comparisons) != 1:
                raise self.error(node, "chained comparisons are not supported")
            comp = node.comparisons[0]
            op = _CMP.get(type(comp.operator))
            if op is None:
                raise self.error(node, f"unsupported comparison `{self.src(node)}`")
            return self.binop(op, self.ev(node.left), self.ev(comp.comparator), node)
        if isinstance(node, cst.UnaryOperation):
            v = self.ev(node.expression)
            if isinstance(node.operator, cst.Minus):
                if isinstance(v, Idx):
                    return Idx(ir.UnaryOp("-", v.tree))
                d = self.to_data(v, node.expression)
                return Data(ir.UnaryOp("-", d.expr), _fold_pads("neg", [d], self), d.div)
            if isinstance(node.operator, cst.Not) and isinstance(v, Static):
                return Static(not v.value)
            if isinstance(node.operator, (cst.BitInvert, cst.Not)):
                d = self.to_data(v, node.expression)
                op = "not" if isinstance(node.operator, cst.Not) else "~"
                return Data(ir.UnaryOp(op, d.expr), (), d.div)
            if isinstance(node.operator, cst.Plus):
                return v
        if isinstance(node, cst.BooleanOperation):
            a, b = self.ev(node.left), self.ev(node.right)
            if isinstance(a, Static) and isinstance(b, Static):
                is_and = isinstance(node.operator, cst.And)
                return Static((a.value and b.value) if is_and else (a.value or b.value))
            raise self.error(node, f"`{self.src(node)}`: use & and | on device values")
        if isinstance(node, cst.Call):
            return self.call(node)
        if isinstance(node, cst.Attribute):
            return self.attribute(node)
        if isinstance(node, cst.Subscript):
            return self.subscript(node)
        if isinstance(node, (cst.Tuple, cst.List)):
            return TupleVal(tuple(self.ev(e.value) for e in node.elements))
        if isinstance(node, cst.IfExp):
            # A compile-time choice (`tl.float8e4nv if FP8_OUTPUT else tl.float16`): Triton
            # compiles only the branch taken, so only that one is lifted.
            taken = self.static_truth(self.ev(node.test))
            if taken is None:
                raise self.error(
                    node,
                    f"`{self.src(node)[:60]}` chooses by a value that is not "
                    "a compile-time constant",
                    "use tl.where(cond, a, b) for values, "
                    "or pass the flag as a literal tl.constexpr",
                )
            return self.ev(node.body if taken else node.orelse)
        raise self.error(node, f"unsupported expression `{self.src(node)[:60]}` in a kernel")

    def attribute(self, node: cst.Attribute) -> Val:
        name = resolve(node, self.aliases)
        if name is not None:
            dt = self.host.dtype_from_name(name, "triton")
            if dt is not None:
                return DTypeVal(dt)
        attr = node.attr.value
        base_node = node.value
        if (
            attr == "element_ty"
            and isinstance(base_node, cst.Attribute)
            and (base_node.attr.value in ("dtype", "type"))
        ):
            base = self.ev(base_node.value)
            if isinstance(base, Ptr):
                return DTypeVal(self.launch.tensor_dtype(base.tensor))
        base = self.ev(base_node)
        if attr == "dtype":
            if isinstance(base, Data):
                return DTypeVal(dtype_of(self.type_of(base.expr, node)))
            if isinstance(base, Ptr):
                raise self.error(node, "use `ptr.dtype.element_ty` for a pointer's element type")
            if isinstance(base, Descriptor):
                return DTypeVal(self.launch.tensor_dtype(base.tensor))
        if attr == "T" and isinstance(base, Data):
            return Data(ir.Permute(base.expr, (1, 0)), (), base.div)
        raise self.error(node, f"unsupported attribute `{self.src(node)}` in a kernel")

    def subscript(self, node: cst.Subscript) -> Val:
        base = self.ev(node.value)
        items: list[str] = []
        for el in node.slice:
            s = el.slice
            if (
                isinstance(s, cst.Index)
                and isinstance(s.value, cst.Name)
                and s.value.value == "None"
            ):
                items.append("new")
            elif (
                isinstance(s, cst.Slice) and s.lower is None and s.upper is None and s.step is None
            ):
                items.append(":")
            else:
                raise self.error(
                    node,
                    f"unsupported subscript `{self.src(node)}`",
                    "device tensors take only `[:, None]`-style subscripts",
                )
        if isinstance(base, (Idx, Ptr)):
            rank = self.rank_of(base.tree)
            if items.count(":") != rank:
                raise self.error(
                    node,
                    f"`{self.src(node)}` indexes a rank-{rank} value with "
                    f"{items.count(':')} slices",
                )
            return dataclasses.replace(base, tree=self.expand_tree(base.tree, items))
        if isinstance(base, Data):
            dims = dims_of(self.type_of(base.expr, node))
            if items.count(":") != len(dims):
                raise self.error(
                    node, f"`{self.src(node)}`: {len(dims)} dims, {items.count(':')} slices"
                )
            e = base.expr
            for pos, it in enumerate(items):
                if it == "new":
                    e = ir.ExpandDims(e, pos)
            return Data(e, base.pads, base.div)
        raise self.error(node, f"cannot subscript `{self.src(node.value)}`")

    # ------------------------------------------------------------------ symbols and shapes

    def rank_of(self, tree: ir.Expr) -> int:
        r = 0
        for s in af.symbols_in(tree):
            lane = af.parse_lane(s)
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
            lane = af.parse_lane(name)
            if lane is not None:
                return ir.Name(af.lane_id(lane[0], new_axis(lane[1])))
            if name in self.data:
                expr, dshape = self.data[name]
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
        sid = f"%d{len(self.data)}"
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
            return _OPAQUE_CONSTEXPR + key
        return af.param_id(key)

    # ------------------------------------------------------------------ tiles

    def register_tiles(self, tree: ir.Expr) -> None:
        """Recognise tiles in an offset as soon as it is computed (``pid * B + tl.arange(0, B)``)."""
        for sub in af.walk(tree):
            if isinstance(sub, ir.BinOp) and sub.op == "%":
                self.register_tiles(sub.lhs)
        p = af.poly(tree, self.atoms)
        for m in list(p):
            for s in m:
                lane = af.parse_lane(s)
                if lane is not None and len(m) == 1 and p[m] == 1:
                    with contextlib.suppress(Refusal):
                        self.tile_form(p, lane, None, strict=False)

    def tile_form(
        self, p: af.Poly, lane: tuple[af.Key, int], node, strict: bool = True
    ) -> tuple[Tile, af.Poly] | None:
        """Find ``block * base + lane`` in ``p``: the tile and the remaining terms."""
        key, axis = lane
        lid = af.lane_id(key, axis)
        if p.get((lid,)) != 1:
            return None
        rest = dict(p)
        del rest[(lid,)]
        if len(rest) > 1 and any(s.startswith("%it") for m in rest for s in m):
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
            it = f"%it{loop.id}"
            moving = {m: c for m, c in q.items() if it in m}
            start = {m: c for m, c in q.items() if it not in m}
            step = af.divide_by(moving, it) if moving else None
            if not step or not start:
                continue
            syms = af.poly_symbols(step) | af.poly_symbols(start)
            if any(s.startswith(("%it", "%l", "%d", "%t:")) for s in syms):
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
        return (
            s.startswith("%pid")
            or s.startswith("%it")
            or s in ("%sm", "%sn")
            or self.flat_digit(s) is not None
        )

    def flat_digit(self, s: str) -> af.FlatDigit | None:
        """The program-id digit atom ``s`` stands for (``pid % n``...), if it is one."""
        if s in self.digits:
            return self.digits[s]
        if not s.startswith("%t:"):
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
            if base is not None and base.startswith("%it"):
                loop = next((lp for lp in self.loops if f"%it{lp.id}" == base), None)
                if loop is not None and loop.tile is None:
                    loop.tile = tile
            if tile.base is not None and tile.name not in self.types.tiles:
                self.types.bind_tile(ir.TileVar(tile.name, ir.Const(0), tile.block or ir.Const(1)))
            return tile
        block = self.launch.block_of(key, node, base is None)
        if base is None:
            if block.kind != "full":
                if strict:
                    raise self.error(
                        node,
                        f"the lanes of tl.arange(0, {key}) are not offset by a program id "
                        "or a loop counter, so they cover only the first "
                        f"{key} elements of the dim",
                        "offset them: `pid * BLOCK + tl.arange(0, "
                        "BLOCK)`; a whole row needs BLOCK = triton.next_power_of_2(n)",
                    )
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
        if base.startswith("%pid"):
            axis = int(base[4:])
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
        if base.startswith("%it"):
            loop = next((lp for lp in self.loops if f"%it{lp.id}" == base), None)
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
            if base.startswith("%it"):
                suffix = next(lp.var for lp in self.loops if f"%it{lp.id}" == base)
            elif base in ("%sm", "%sn"):
                suffix = base[2]
        name = unique("tile_" + suffix if suffix else "tile", self.taken)
        tile = Tile(name, key, base, block.block, block.exact, node=node)
        self.tiles[ident] = tile
        if base.startswith("%pid"):
            self.pid_tiles[int(base[4:])] = tile
        elif base.startswith("%it"):
            loop = next(lp for lp in self.loops if f"%it{lp.id}" == base)
            loop.tile = tile
        elif base in self.digits:
            self.digit_tiles[base] = tile
        else:
            self.swizzle_tiles[base[2]] = tile
        if isinstance(tile.block, str):
            self.types.vars.setdefault(tile.block, ScalarType(ir.I32, weak=True))
        self.types.bind_tile(ir.TileVar(name, ir.Const(0), tile.block or ir.Const(1)))
        return tile

    def tile_index_poly(self, tile: Tile, axis: int) -> af.Poly:
        lid = af.lane_id(tile.key, axis)
        p: af.Poly = {(lid,): 1}
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
        host = self.host_ir(bound, node)
        if tile.extent is None:
            if (
                tile.base is None
                and tile.full_extent is not None
                and not self.same_host(host, tile.full_extent, node)
            ):
                raise self.error(
                    node,
                    f"the mask bounds tl.arange(0, {tile.key}) by {ir_text(host)}, but "
                    f"{tile.key} is next_power_of_2({ir_text(tile.full_extent)})",
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

    # ------------------------------------------------------------------ host expressions

    def host_ir(self, tree: ir.Expr, node) -> ir.Expr:
        """A tree over parameter symbols as a host IR expression."""

        def fn(name: str) -> ir.Expr | None:
            if name.startswith("%p:"):
                return self.param_ir(name[3:], node)
            raise self.error(
                node,
                f"`{self.src(node)}` depends on program ids or loaded values; "
                "the IR needs a host expression here",
            )

        return _simplify(af.rename(af.strip_casts(tree), fn))

    def host_ir_of_host(self, e: ir.Expr) -> ir.Expr:
        return af.rename(e, lambda n: self.param_ir(n[3:], None) if n.startswith("%p:") else None)

    def same_host(self, a: ir.Expr, b: ir.Expr, node) -> bool:
        return self.host.same_value(a, b)

    # ------------------------------------------------------------------ conversions to IR data

    def to_data(self, v: Val, node: cst.CSTNode) -> Data:
        if isinstance(v, Data):
            return v
        if isinstance(v, Idx):
            return Data(self.idx_ir(v.tree, node))
        if isinstance(v, Pending):
            raise self.error(
                v.node,
                "cannot tell which tiles the dims of this tl.zeros/tl.full belong to",
                "name block sizes that also offset the tile's lanes",
            )
        if isinstance(v, LaneAcc):
            raise self.error(
                node,
                "a per-lane accumulator of a loop can only be reduced with "
                "tl.sum(acc, axis=0) after the loop",
            )
        if isinstance(v, Static) and isinstance(v.value, (bool, int, float, str)):
            return Data(ir.Const(v.value))
        if isinstance(v, Ptr):
            raise self.error(node, f"pointer `{self.src(node)}` used as a value")
        raise self.error(node, f"`{self.src(node)}` is not a device value")

    def idx_ir(self, tree: ir.Expr, node) -> ir.Expr:
        """An index tree as an IR value: lanes become tile indices placed on their axes."""
        tree = af.strip_casts(tree)
        if isinstance(tree, ir.BinOp) and (
            tree.op in COMPARISON_OPS or (tree.op in ("&", "|", "^") and self._is_bool(tree))
        ):
            return ir.BinOp(tree.op, self.idx_ir(tree.lhs, node), self.idx_ir(tree.rhs, node))
        rank = self.rank_of(tree)
        p = af.poly(tree, self.atoms)
        terms: list[ir.Expr] = []
        for m, c in list(p.items()):
            lanes = [s for s in m if af.parse_lane(s) is not None]
            if not lanes or m not in p:
                continue
            if len(lanes) > 1:
                raise self.error(node, f"`{self.src(node)}` multiplies lanes of two aranges")
            key, axis = af.parse_lane(lanes[0])  # type: ignore[misc]
            coef = tuple(s for s in m if s != lanes[0])
            sub = {(lanes[0],): 1}
            # look for the base term c * coef * block * base
            found = None
            for m2, c2 in p.items():
                if m2 == m or any(af.parse_lane(s) for s in m2):
                    continue
                rest = list(m2)
                ok = True
                for s in coef:
                    if s in rest:
                        rest.remove(s)
                    else:
                        ok = False
                if not ok:
                    continue
                cand = dict(sub)
                cand[tuple(rest)] = c2 // c if c and c2 % c == 0 else 0
                res = self.tile_form(cand, (key, axis), node, strict=False)
                if res is not None and not res[1]:
                    found = (m2, res[0])
                    break
            if found is None:
                res = self.tile_form(sub, (key, axis), node, strict=False)
                if res is None:
                    raise self.error(
                        node,
                        f"cannot tell which tile the lanes of tl.arange(0, {key}) in "
                        f"`{self.src(node)}` belong to",
                        "offset the lanes by `pid * BLOCK` or a loop counter times BLOCK",
                    )
                tile = res[0]
            else:
                del p[found[0]]
                tile = found[1]
            del p[m]
            index = self.place(self.tile_index_expr(tile, node), axis, rank)
            factor = af.poly_expr({coef: c}) if coef or c != 1 else None
            terms.append(index if factor is None else ir.BinOp("*", factor, index))
        scalar = af.poly_expr(p) if p else None
        parts = ([self.scalar_ir(scalar, node)] if scalar is not None else []) + [
            self.scalar_ir(t, node) for t in terms
        ]
        if not parts:
            return ir.Const(0)
        out = parts[0]
        for t in parts[1:]:
            out = ir.BinOp("+", out, t)
        return _simplify(out)

    def _is_bool(self, tree: ir.Expr) -> bool:
        return isinstance(tree, ir.BinOp) and (
            tree.op in COMPARISON_OPS or (tree.op in ("&", "|") and self._is_bool(tree.lhs))
        )

    def tile_index_expr(self, tile: Tile, node) -> ir.Expr:
        if tile.base is None:
            if tile.extent is None:
                if tile.full_extent is None:
                    raise self.error(
                        node,
                        f"the lanes of tl.arange(0, {tile.key}) are never bounded by a mask, so "
                        "which dim they span is unknown",
                        f"mask them (`offs < n`) or compute {tile.key} as "
                        "triton.next_power_of_2(n)",
                    )
                tile.extent = tile.full_extent
            return ir.Arange(ir.FullDim(tile.extent))
        return ir.TileAttr(tile.name, "index")

    def place(self, e: ir.Expr, axis: int, rank: int) -> ir.Expr:
        pos = rank + axis
        for _ in range(rank - pos - 1):
            e = ir.ExpandDims(e, -1)
        for _ in range(pos):
            e = ir.ExpandDims(e, 0)
        return e

    def scalar_ir(self, tree: ir.Expr, node) -> ir.Expr:
        """Symbols of a tree as IR: parameters, data; program ids stay placeholders."""

        def fn(name: str) -> ir.Expr | None:
            if name.startswith("%p:"):
                return self.param_ir(name[3:], node)
            if name in self.data:
                return self.data[name][0]
            if name.startswith("%t:"):
                if self.flat_digit(name) is not None:
                    return None  # a grid digit: resolved once the grid is known
                sub = self.atoms.trees[name]
                return self.atom_ir(sub, node)
            if name.startswith("%np"):
                raise self.error(
                    node, "tl.num_programs is only supported as the step of a persistent row loop"
                )
            return None  # %pid, %it, %sm, %sn, %row: resolved once the grid is known

        return af.rename(tree, fn)

    def atom_ir(self, sub: ir.Expr, node) -> ir.Expr:
        if (
            isinstance(sub, ir.BinOp)
            and sub.op in ("//", "%")
            and any(s.startswith("%d") for s in af.symbols_in(sub))
        ):
            raise self.error(
                node,
                f"`{sub.op}` of loaded values is not supported: Triton rounds "
                "it toward zero (C), the IR toward -inf (Python)",
            )
        if isinstance(sub, ir.BinOp):
            return ir.BinOp(sub.op, self.idx_ir(sub.lhs, node), self.idx_ir(sub.rhs, node))
        if isinstance(sub, ir.Call):
            return ir.Call(sub.op, tuple(self.idx_ir(a, node) for a in sub.args))
        if isinstance(sub, ir.UnaryOp):
            return ir.UnaryOp(sub.op, self.idx_ir(sub.operand, node))
        return self.scalar_ir(sub, node)

    # ------------------------------------------------------------------ operators

    def binop(self, op: str, a: Val, b: Val, node: cst.CSTNode) -> Val:
        if isinstance(a, Static) and isinstance(b, Static) and op in ("==", "!="):
            return Static((a.value == b.value) == (op == "=="))
        a, b = self._static_num(a), self._static_num(b)
        if isinstance(a, Pending) or isinstance(b, Pending):
            a, b = self.resolve_pending(a, b, node), self.resolve_pending(b, a, node)
        if isinstance(a, Ptr) or isinstance(b, Ptr):
            return self.ptr_arith(op, a, b, node)
        if (
            isinstance(a, Data)
            and isinstance(b, Idx)
            and op in _INT_OPS
            and self._int_data(a, node, b)
        ):
            a = Idx(self.data_symbol(a.expr, self._data_shape(a, node)))
        if (
            isinstance(b, Data)
            and isinstance(a, Idx)
            and op in _INT_OPS
            and self._int_data(b, node, a)
        ):
            b = Idx(self.data_symbol(b.expr, self._data_shape(b, node)))
        if isinstance(a, Idx) and isinstance(b, Idx):
            if op == "/":
                return self.data_binop(op, self.to_data(a, node), self.to_data(b, node), node)
            return Idx(ir.BinOp(op, a.tree, b.tree))
        return self.data_binop(op, self.to_data(a, node), self.to_data(b, node), node)

    def static_truth(self, v: Val) -> bool | None:
        """The truth of ``v`` if it is known when the kernel compiles: a Python constant, or a
        ``tl.constexpr`` the launch binds to a literal."""
        if isinstance(v, Static):
            return bool(v.value)
        if isinstance(v, Idx) and isinstance(v.tree, ir.Name) and v.tree.id.startswith("%p:"):
            b = self.launch.bindings.get(v.tree.id[3:])
            if b is not None and b.kind == "constexpr" and b.expr is not None:
                c = self.host.canonical(b.expr)
                if isinstance(c, ir.Const) and isinstance(c.value, (bool, int)):
                    return bool(c.value)
        return None

    def _static_num(self, v: Val) -> Val:
        if isinstance(v, Static) and isinstance(v.value, bool):
            return Idx(ir.Const(v.value))
        return v

    def _int_data(self, d: Data, node, other: Idx | None = None) -> bool:
        """Whether ``d`` holds integers: by its dtype, or, for a tensor's elements of unknown
        dtype, because ``other`` multiplies it by a stride (only offsets are)."""
        dt = dtype_of(self.type_of(d.expr, node))
        if isinstance(dt, ir.DType):
            return dt.name in ir.INT_DTYPES
        return other is not None and any(
            s.startswith("%p:") and self.launch.is_stride(s[3:]) for s in af.symbols_in(other.tree)
        )

    def _data_shape(self, d: Data, node) -> tuple:
        return tuple(self.key_of_dim(x) for x in dims_of(self.type_of(d.expr, node)))

    def ptr_arith(self, op: str, a: Val, b: Val, node) -> Ptr:
        if isinstance(b, Ptr) and op == "+":
            a, b = b, a
        if not isinstance(a, Ptr) or op not in ("+", "-"):
            raise self.error(node, f"unsupported pointer arithmetic `{self.src(node)}`")
        if isinstance(b, Data):
            if not self._int_data(b, node) and isinstance(
                dtype_of(self.type_of(b.expr, node)), ir.DType
            ):
                raise self.error(node, "pointer offsets must be integers")
            # Elements of a tensor of unknown dtype added to a pointer: Triton compiles that
            # only for integers, so they are (a gather through loaded labels).
            b = Idx(self.data_symbol(b.expr, self._data_shape(b, node)))
        if not isinstance(b, Idx):
            raise self.error(node, f"unsupported pointer offset in `{self.src(node)}`")
        return Ptr(a.tensor, ir.BinOp(op, a.tree, b.tree))

    def data_binop(self, op: str, a: Data, b: Data, node) -> Data:
        if op in ("//", "%"):
            # Triton's integer // and % truncate toward zero and float % is fmod (C); the IR's
            # follow Python (floor). They differ on negative operands, which data may hold.
            raise self.error(
                node,
                f"`{op}` on device values is not supported: Triton rounds it "
                "toward zero (C), the IR toward -inf (Python)",
                "use index arithmetic on program ids and lanes, or tl.where",
            )
        e = ir.BinOp(op, a.expr, b.expr, loc=self.locate(node))
        self.type_of(e, node)
        return Data(e, _fold_pads(op, [a, b], self, e), a.div | b.div)

    def resolve_pending(self, v: Val, other: Val, node) -> Val:
        if not isinstance(v, Pending):
            return v
        if not isinstance(other, Data):
            raise self.error(
                v.node, "cannot tell which tiles the dims of this tl.zeros/tl.full belong to"
            )
        odims = dims_of(self.type_of(other.expr, node))
        return self.materialize(v, odims, node)

    def materialize(self, v: Pending, dims: tuple[ir.Dim, ...], node) -> Data:
        """Give a pending tl.zeros its dims and put its IR assignment where it was defined."""
        if len(dims) != len(v.keys):
            raise self.error(
                v.node, f"tl.zeros/tl.full of rank {len(v.keys)} meets a value of rank {len(dims)}"
            )
        for k, d in zip(v.keys, dims):
            if self.key_of_dim(d) != k:
                raise self.error(
                    v.node,
                    f"dim {k} of this tl.zeros/tl.full meets a dim of block {self.key_of_dim(d)}",
                )
            if isinstance(d, ir.BlockDim) and v.loop_depth < len(self.loops):
                tile = next(t for t in self.tiles.values() if t.name == d.tile)
                if (
                    tile.base is not None
                    and tile.base.startswith("%it")
                    and int(tile.base[3:]) in [lp.id for lp in self.loops[v.loop_depth :]]
                ):
                    raise self.error(
                        v.node,
                        f"this accumulator spans the tiles of a loop ({tile.name}) it "
                        "is defined outside of",
                        "accumulate with `acc += v` and reduce it "
                        "with tl.sum(acc, axis=0) after the loop, or reduce inside the loop",
                    )
        full = ir.Full(tuple(dims), ir.Const(v.value), v.dtype, loc=self.locate(v.node))
        return self.place_pending(v, full)

    def place_pending(self, v: Pending, value: ir.Expr) -> Data:
        assert v.name is not None and v.site is not None
        irname = unique(_ident(v.name), self.taken)
        self.ir_locals.add(irname)
        stmts, pos = v.site
        stmt = ir.Assign(irname, value, loc=self.locate(v.node))
        stmts.insert(pos, stmt)
        self.inserted = getattr(self, "inserted", [])
        self.inserted.append((stmts, stmt))
        self.types.vars[irname] = self.type_of(value, v.node)
        d = Data(
            ir.Name(irname),
            tuple((x, float(v.value)) for x in dims_of(self.types.vars[irname])),
            frozenset(),
        )
        for scope in [self.env]:
            for k, val in list(scope.items()):
                if val is v:
                    scope[k] = d
        return d

    def lane_accumulate(self, name: str, acc: Pending | LaneAcc, value: Val, node) -> None:
        """``acc += v`` with ``acc = tl.zeros([B])`` from before the loop whose tile ``v`` spans."""
        v = self.to_data(value, node)
        dims = dims_of(self.type_of(v.expr, node))
        if isinstance(acc, Pending):
            if (
                len(dims) == 1
                and isinstance(dims[0], ir.BlockDim)
                and self.loops
                and (acc.loop_depth < len(self.loops))
            ):
                loop = self.loops[-1]
                if loop.tile is not None and loop.tile.name == dims[0].tile and len(acc.keys) == 1:
                    if acc.value != 0:
                        raise self.error(acc.node, "a per-lane sum accumulator must start at 0")
                    zero: ir.Expr = ir.Const(0.0)
                    if acc.dtype != ir.F32:
                        zero = ir.Cast(zero, acc.dtype)
                    data = self.place_pending(acc, zero)
                    assert isinstance(data.expr, ir.Name)
                    acc = LaneAcc(data.expr.id, loop.id)
            if isinstance(acc, Pending):
                self.assign(
                    cst.Name(name),
                    self.binop("+", self.resolve_pending(acc, v, node), v, node),
                    node,
                )
                return
        assert isinstance(acc, LaneAcc)
        if not self.loops or self.loops[-1].id != acc.loop:
            raise self.error(node, f"`{name}` accumulates lanes of another loop")
        total = self.reduce("sum", v, 0, False, node)
        e = ir.BinOp("+", ir.Name(acc.name), total.expr, loc=self.locate(node))
        t = self.type_of(e, node)
        if dtype_of(t) != self.types.vars[acc.name].dtype:  # type: ignore[union-attr]
            e = ir.Cast(e, dtype_of(self.types.vars[acc.name]))
        self.out.append(ir.Assign(acc.name, e, loc=self.locate(node)))
        self.env[name] = acc

    # ------------------------------------------------------------------ calls

    def call(self, node: cst.Call) -> Val:
        func = node.func
        if (
            isinstance(func, cst.Attribute)
            and resolve(func, self.aliases) is None
            or (
                isinstance(func, cst.Attribute)
                and isinstance(func.value, (cst.Call, cst.Subscript))
            )
            or (
                isinstance(func, cst.Attribute)
                and isinstance(func.value, cst.Name)
                and func.value.value in self.env
            )
        ):
            return self.method(node, func)  # type: ignore[arg-type]
        fn = resolve(func, self.aliases)
        if fn is None:
            raise self.error(node, f"unsupported call `{self.src(node)[:60]}`")
        if isinstance(func, cst.Name) and func.value in self.launch.kernel.module.jit_helpers:
            return self.inline(func.value, node)
        lang = self.lang + "."
        if fn in ("min", "max"):
            args, _ = call_args(node)
            vals = [self.ev(a) for a in args]
            op = "minimum" if fn == "min" else "maximum"
            if all(isinstance(v, Idx) for v in vals):
                out = vals[0].tree
                for v in vals[1:]:
                    out = ir.Call(op, (out, v.tree))
                return Idx(out)
            return self.pointwise(op, vals, node)
        if fn == "float":
            try:
                return Data(ir.Const(float(literal(node))))  # type: ignore[arg-type]
            except (ValueError, TypeError):
                raise self.error(node, "float(...) takes a literal") from None
        if fn in ("int", "bool"):
            raise self.error(node, f"`{fn}(...)` on device values is not supported")
        if not fn.startswith(lang):
            raise self.error(
                node,
                f"unsupported call `{self.src(node)[:60]}` in a kernel",
                "kernels may call triton.language functions and @triton.jit helpers",
            )
        name = fn[len(lang) :]
        for prefix in self.grammar["frontend"]["math_namespaces"]["prefixes"]:
            name = name.removeprefix(prefix)
        key = lang + name  # the grammar's tables are keyed by dotted names
        args, kwargs = call_args(node)
        unsupported = self.grammar["frontend"]["unsupported"]
        if key in unsupported:
            raise self.error(node, f"`tl.{name}` is not supported yet", unsupported[key])
        if key in self.grammar["frontend"]["identity_hints"]["names"]:
            return self.ev(args[0])  # a compiler hint: the value is unchanged
        if name == "program_id" or name == "num_programs":
            axis_node = args[0] if args else kwargs.get("axis")
            axis = self._int_literal(axis_node, node)
            if not 0 <= axis <= 2:
                raise self.error(node, "program axes are 0, 1 or 2")
            return Idx(ir.Name(f"%pid{axis}" if name == "program_id" else f"%np{axis}"))
        if name == "arange":
            if len(args) != 2 or kwargs:
                raise self.error(node, "tl.arange(start, end) takes two arguments")
            start = self.ev(args[0])
            if not (isinstance(start, Idx) and start.tree == ir.Const(0)):
                raise self.error(
                    node, "tl.arange must start at 0", "write `start + tl.arange(0, BLOCK)`"
                )
            return Idx(ir.Name(af.lane_id(self.block_key(args[1]), -1)))
        if name == "cdiv":
            a, b = (self.ev(x) for x in args)
            if isinstance(a, Idx) and isinstance(b, Idx):
                return Idx(ir.Call("cdiv", (a.tree, b.tree)))
            raise self.error(node, "tl.cdiv takes integers")
        if name == "load":
            return self.load(node)
        if name == "make_block_ptr":
            return blocks.make_block_ptr(self, node)
        if name == "advance":
            return blocks.advance(self, node)
        if name == "make_tensor_descriptor":
            return blocks.make_descriptor(self, node)
        if name == "store":
            raise self.error(node, "tl.store returns nothing; call it as a statement")
        if name in ("zeros", "full"):
            return self.full(name, node)
        if key in self.grammar["frontend"]["dots"]:
            return self.dot(node)
        reductions = self.grammar["frontend"]["reductions"]
        if key in reductions:
            return self.reduction(reductions[key], node)
        if name == "reduce":
            return self.combine_reduction(node)
        scans = self.grammar["frontend"]["scans"]
        if key in scans:
            return self.scan(scans[key], node)
        pointwise = self.grammar["frontend"]["pointwise"]
        if key in pointwise:
            if kwargs:
                raise self.error(node, f"unsupported keywords to tl.{name}: {sorted(kwargs)}")
            return self.pointwise(pointwise[key], [self.ev(a) for a in args], node)
        if name in _SHAPE_OPS:
            if not args:
                raise self.error(node, f"tl.{name} needs a value")
            return self.shape_op(name, self.ev(args[0]), args[1:], kwargs, node)
        if name in ("static_assert", "device_assert", "static_print", "device_print"):
            return Static(None)
        raise self.error(node, f"`tl.{name}` is not supported by the Triton frontend yet")

    def _int_literal(self, node, where) -> int:
        try:
            value = literal(node) if node is not None else None
        except ValueError:
            value = None
        if not isinstance(value, int):
            raise self.error(where, "expected an integer literal")
        return value

    def block_key(self, node: cst.BaseExpression) -> af.Key:
        if isinstance(node, cst.Integer):
            return int(node.evaluated_value)
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
            if isinstance(v, Idx) and isinstance(v.tree, ir.Name) and v.tree.id.startswith("%p:"):
                pname = v.tree.id[3:]
                pb = self.launch.bindings.get(pname)
                if pb is not None and pb.kind == "constexpr":
                    return pname
        raise self.error(
            node,
            f"block size `{self.src(node)}` must be a tl.constexpr parameter or an integer literal",
        )

    def method(self, node: cst.Call, func: cst.Attribute) -> Val:
        base = self.ev(func.value)
        name = func.attr.value
        args, kwargs = call_args(node)
        if isinstance(base, Descriptor):
            return self.descriptor_access(base, name, args, kwargs, node)
        if name == "to":
            target = args[0] if args else kwargs.get("dtype")
            dt = self.ev(target) if target is not None else None
            if not isinstance(dt, DTypeVal):
                raise self.error(node, "`.to()` takes a dtype")
            if (
                isinstance(base, Idx)
                and isinstance(dt.dtype, ir.DType)
                and (dt.dtype.name in ir.INT_DTYPES)
            ):
                return Idx(ir.Cast(base.tree, dt.dtype))
            d = self.to_data(base, func.value)
            return Data(ir.Cast(d.expr, dt.dtype), _cast_pads(d, dt.dtype), d.div)
        if name in ("sum", "max", "min") and isinstance(base, Data):
            return self.reduction(name, node, base)
        if name in _SHAPE_OPS:
            return self.shape_op(name, base, args, kwargs, node)
        raise self.error(node, f"unsupported method `.{name}()` in a kernel")

    def descriptor_access(self, desc: Descriptor, name: str, args: list, kwargs: dict, node) -> Val:
        """``desc.load(offsets)`` / ``desc.store(offsets, value)``: every dim bounds-checked,
        out-of-bounds lanes read as zero and are not written (TMA)."""
        if name not in ("load", "store") or kwargs:
            raise self.error(
                node,
                f"unsupported tensor-descriptor method `.{name}()`",
                "use desc.load(offsets) and desc.store(offsets, value)",
            )
        if not args:
            raise self.error(node, f"desc.{name} needs the window's offsets")
        offsets = blocks._trees(self, args[0], "offsets", node)
        if len(offsets) != len(desc.block):
            raise self.error(node, f"{len(offsets)} offsets for a {len(desc.block)}-d descriptor")
        window, mask = blocks.window(
            self,
            desc.tensor,
            desc.shape,
            desc.strides,
            offsets,
            desc.block,
            tuple(range(len(desc.block))),
        )
        if name == "load":
            if len(args) != 1:
                raise self.error(node, "desc.load(offsets) takes one argument")
            return self.load_window(window, mask, None, desc.padding, node)
        if len(args) != 2:
            raise self.error(node, "desc.store(offsets, value) takes two arguments")
        self.store_window(window, self.ev(args[1]), args[1], mask, None, node)
        return Static(None)

    def shape_op(self, name: str, value: Val, args: list, kwargs: dict, node) -> Data:
        """``tl.trans``/``permute``/``expand_dims``/``reshape``/``view`` of a device value."""
        if isinstance(value, (Idx, Ptr)):
            raise self.error(
                node,
                f"`{name}` of offsets or pointers is not supported",
                "build offsets with `[:, None]` / `[None, :]` instead",
            )
        d = self.to_data(value, node)
        dims = dims_of(self.type_of(d.expr, node))
        if name in ("trans", "permute"):
            perm = self._int_tuple(args, node) if args else None
            if perm is None and "dims" in kwargs:
                perm = self._int_tuple([kwargs["dims"]], node)
            if perm is None:
                perm = tuple(reversed(range(len(dims))))
            if sorted(perm) != list(range(len(dims))):
                raise self.error(node, f"`{name}` needs a permutation of {len(dims)} dims")
            return Data(ir.Permute(d.expr, perm, loc=self.locate(node)), (), d.div)
        if name == "expand_dims":
            axes = self._int_tuple(args or [kwargs.get("axis")], node)
            e = d.expr
            rank = len(dims) + len(axes)
            for a in sorted(x % rank for x in axes):
                e = ir.ExpandDims(e, a)
            return Data(e, d.pads, d.div)
        shape = args[0] if len(args) == 1 and isinstance(args[0], (cst.List, cst.Tuple)) else None
        items = [e.value for e in shape.elements] if shape is not None else args
        keys = [self.block_key(x) for x in items]
        if name == "broadcast_to":
            target = self.dims_of_keys(keys, dims, node)
            e = ir.Broadcast(d.expr, target, loc=self.locate(node))
            self.type_of(e, node)
            return Data(e, d.pads, d.div)
        # reshape/view: only unit dims may come or go (the IR has no general reshapes).
        core = [x for x in dims if not isinstance(x, ir.UnitDim)]
        new: list[ir.Dim] = []
        it = iter(core)
        for k in keys:
            if k == 1:
                new.append(ir.UnitDim())
                continue
            nxt = next(it, None)
            if nxt is None or self.key_of_dim(nxt) != k:
                raise self.error(
                    node,
                    f"`{name}` to {keys} changes more than unit dims of a "
                    f"tile of blocks {[self.key_of_dim(x) for x in dims]}",
                    "the IR reshapes tiles only by adding or dropping dims of 1",
                )
            new.append(nxt)
        if next(it, None) is not None:
            raise self.error(node, f"`{name}` to {keys} drops a dim of the tile")
        return Data(ir.Reshape(d.expr, tuple(new), loc=self.locate(node)), d.pads, d.div)

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

    def _int_tuple(self, nodes: list, where) -> tuple[int, ...]:
        if len(nodes) == 1 and isinstance(nodes[0], (cst.List, cst.Tuple)):
            nodes = [e.value for e in nodes[0].elements]
        return tuple(self._int_literal(n, where) for n in nodes)

    def inline(self, name: str, node: cst.Call) -> Val:
        helper = self.launch.kernel.module.jit_helpers[name]
        args, kwargs = call_args(node)
        params = [p.name.value for p in helper.params.params]
        if len(args) > len(params):
            raise self.error(node, f"too many arguments to `{name}`")
        bound = dict(zip(params, (self.ev(a) for a in args)))
        for k, v in kwargs.items():
            bound[k] = self.ev(v)
        for p in helper.params.params:
            if p.name.value not in bound:
                if p.default is None:
                    raise self.error(node, f"`{name}` needs argument `{p.name.value}`")
                bound[p.name.value] = self.ev(p.default)
        saved = self.env
        self.env = {**{k: v for k, v in saved.items() if isinstance(v, Func)}, **bound}
        result: Val = Static(None)
        body = list(_body(helper.body))
        if helper.get_docstring() is not None:
            body = body[1:]
        try:
            for i, st in enumerate(body):
                if _is_return(st):
                    assert isinstance(st, cst.SimpleStatementLine)
                    ret = st.body[0]
                    assert isinstance(ret, cst.Return)
                    if ret.value is not None:
                        result = self.ev(ret.value)
                    if i != len(body) - 1:
                        raise self.error(st, "a helper must return at its end")
                    break
                if isinstance(st, (cst.For, cst.If)) and _contains_return(st):
                    raise self.error(st, "helpers may return only at their end")
                self.statement(st)
        finally:
            self.env = saved
        return result

    def pointwise(self, op: str, vals: list[Val], node) -> Data | Idx:
        if op == "where" and all(isinstance(self._static_num(v), Idx) for v in vals):
            # On offsets: `tl.where(offs < M, offs, 0)` clamps lanes like `offs % M` wraps them.
            c, a, b = (self._static_num(v).tree for v in vals)
            return Idx(ir.Call("where", (c, a, b)))
        if op == "where":
            cond, a, b = vals
            c = self.to_data(self._static_num(cond), node)
            da, db = (
                self.to_data(self._static_num(a), node),
                self.to_data(self._static_num(b), node),
            )
            e = ir.Call("where", (c.expr, da.expr, db.expr), loc=self.locate(node))
            self.type_of(e, node)
            pads = self._where_pads(cond, da, db, e, node)
            bounded = self._bounded_dim(cond, node)
            where_of = (
                (bounded, da)
                if bounded is not None and isinstance(db.expr, ir.Const) and bounded in dict(pads)
                else None
            )
            return Data(e, pads, c.div | da.div | db.div, where_of)
        ds = [self.to_data(self._static_num(v), node) for v in vals]
        e = ir.Call(op, tuple(d.expr for d in ds), loc=self.locate(node))
        self.type_of(e, node)
        return Data(e, _fold_pads(op, ds, self, e), frozenset().union(*(d.div for d in ds)))

    def _bounded_dim(self, cond: Val, node) -> ir.Dim | None:
        """The dim whose tile bound ``cond`` is, if it is exactly one (``offs < n``)."""
        if not isinstance(cond, Idx):
            return None
        constraints = self.mask_constraints(cond.tree, node, strict=False)
        if len(constraints) != 1:
            return None
        p, bound = constraints[0]
        lanes = [af.parse_lane(s) for m in p for s in m if af.parse_lane(s) is not None]
        if len(lanes) != 1:
            return None
        res = self.tile_form(p, lanes[0], node, strict=False)  # type: ignore[arg-type]
        if res is None or res[1] or res[0].extent is None:
            return None
        tile = res[0]
        with contextlib.suppress(Refusal):
            if self.same_host(self.host_ir(bound, node), tile.extent, node):
                return tile.dim
        return None

    def _where_pads(self, cond: Val, a: Data, b: Data, e: ir.Expr, node):
        """``tl.where(offs < n, x, c)``: lanes invalid along the bounded tile take ``c``."""
        out = dict(_fold_pads("where", [Data(ir.Const(0.5)), a, b], self, e))
        if isinstance(cond, Idx):
            for const in self.mask_constraints(cond.tree, node, strict=False):
                p, bound = const
                for m in p:
                    for s in m:
                        lane = af.parse_lane(s)
                        if lane is None:
                            continue
                        res = self.tile_form(p, lane, node, strict=False)
                        if res is None or res[1] or res[0].extent is None:
                            continue
                        tile = res[0]
                        if not self.same_host(self.host_ir(bound, node), tile.extent, node):
                            continue
                        pb = b.pad(tile.dim)
                        if pb is None and isinstance(b.expr, ir.Const):
                            pb = float(b.expr.value)
                        if pb is not None:
                            out[tile.dim] = pb
                        else:
                            out.pop(tile.dim, None)
        return tuple(out.items())

    def full(self, name: str, node: cst.Call) -> Val:
        args, kwargs = call_args(node)
        shape_node = args[0] if args else kwargs.get("shape")
        if name == "zeros":
            value: object = 0
            dtype_node = args[1] if len(args) > 1 else kwargs.get("dtype")
        else:
            value_node = args[1] if len(args) > 1 else kwargs.get("value")
            try:
                value = literal(value_node) if value_node is not None else None
            except ValueError:
                value = None
            if not isinstance(value, (int, float)):
                raise self.error(node, "tl.full needs a constant fill value")
            dtype_node = args[2] if len(args) > 2 else kwargs.get("dtype")
        if dtype_node is None:
            raise self.error(node, f"tl.{name} needs a dtype")
        dt = self.ev(dtype_node)
        if not isinstance(dt, DTypeVal) or not isinstance(dt.dtype, ir.DType):
            raise self.error(dtype_node, "expected a tl dtype")
        if not isinstance(shape_node, (cst.List, cst.Tuple)):
            raise self.error(node, f"tl.{name} takes a list of block sizes")
        keys = tuple(self.block_key(e.value) for e in shape_node.elements)
        fill = float(value) if is_float(dt.dtype) else int(value)  # type: ignore[arg-type]
        dims: list[ir.Dim] = []
        for k in keys:
            cands = [t for t in self.tiles.values() if t.key == k and self._in_scope(t)]
            if (
                len(cands) == 1
                and cands[0].base is None
                and cands[0].extent is None
                and (cands[0].full_extent is not None)
            ):
                # A whole dim of block next_power_of_2(n) spans n, whatever mask comes later.
                cands[0].extent = cands[0].full_extent
            if k == 1:
                dims.append(ir.UnitDim())
            elif len(cands) == 1 and (cands[0].base is not None or cands[0].extent is not None):
                dims.append(cands[0].dim)
            else:
                return Pending(keys, fill, dt.dtype, node)
        e = ir.Full(tuple(dims), ir.Const(fill), dt.dtype, loc=self.locate(node))
        return Data(e, tuple((d, float(fill)) for d in dims if not isinstance(d, ir.UnitDim)))

    def _in_scope(self, t: Tile) -> bool:
        if t.base is None or not t.base.startswith("%it"):
            return True
        return any(f"%it{lp.id}" == t.base for lp in self.loops)

    # ------------------------------------------------------------------ reductions and dots

    def reduction(self, op: str, node: cst.Call, value: Data | None = None) -> Val:
        args, kwargs = call_args(node)
        if value is None:
            if not args:
                raise self.error(node, f"tl.{op} needs a value")
            v = self.ev(args[0])
            rest = args[1:]
        else:
            v, rest = value, args
        axis_node = rest[0] if rest else kwargs.get("axis")
        keep = kwargs.get("keep_dims")
        for k in kwargs:
            if k not in ("axis", "keep_dims"):
                raise self.error(node, f"unsupported keyword `{k}=` to tl.{op}")
        keepdim = bool(literal(keep)) if keep is not None else False
        if isinstance(v, LaneAcc):
            if (
                op != "sum"
                or keepdim
                or (axis_node is not None and self._int_literal(axis_node, node) != 0)
            ):
                raise self.error(node, "a per-lane accumulator is read as tl.sum(acc, axis=0)")
            if any(lp.id == v.loop for lp in self.loops):
                raise self.error(node, "read the per-lane accumulator after its loop")
            return Data(ir.Name(v.name))
        d = self.to_data(v, node)
        dims = dims_of(self.type_of(d.expr, node))
        if axis_node is None or (isinstance(axis_node, cst.Name) and axis_node.value == "None"):
            if len(dims) != 1:
                raise self.error(
                    node, f"tl.{op} without axis= over a {len(dims)}-d tile", "give the axis"
                )
            axis = 0
        else:
            axis = self._int_literal(axis_node, node)
        return self.reduce(op, d, axis, keepdim, node)

    def scan(self, op: str, node: cst.Call) -> Data:
        """``tl.cumsum(x, axis=0, reverse=False)``: a forward inclusive scan. The padded lanes
        follow the valid ones, so they never reach a valid result."""
        args, kwargs = call_args(node)
        names = ["input", "axis", "reverse"]
        bound = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names:
                raise self.error(v, f"unsupported keyword `{k}=` to tl.cum{op}")
            bound[k] = v
        if "input" not in bound:
            raise self.error(node, f"tl.cum{op} needs a value")
        reverse = bound.get("reverse")
        if reverse is not None and literal(reverse):
            raise self.error(
                reverse,
                "reverse scans are not supported yet",
                "flip the data with index arithmetic and scan forward",
            )
        d = self.to_data(self.ev(bound["input"]), node)
        dims = dims_of(self.type_of(d.expr, node))
        axis = self._int_literal(bound["axis"], node) if "axis" in bound else 0
        if not dims or not -len(dims) <= axis < len(dims):
            raise self.error(node, f"tl.cum{op} along axis {axis} of a {len(dims)}-d value")
        dim = dims[axis % len(dims)]
        e = ir.Scan(op, d.expr, axis % len(dims), loc=self.locate(node))
        self.type_of(e, node)
        # Valid lanes are exact; what padded lanes hold depends on the pads, as for any op.
        return Data(e, (), d.div | ({dim} if d.pad(dim) is None else frozenset()))

    def combine_reduction(self, node: cst.Call) -> Data:
        """``tl.reduce(x, axis, combine_fn)`` whose combine function is a sum, product, max or
        min of its two arguments: that reduction."""
        args, kwargs = call_args(node)
        names = ["input", "axis", "combine_fn", "keep_dims"]
        bound = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names:
                raise self.error(v, f"unsupported keyword `{k}=` to tl.reduce")
            bound[k] = v
        fn = bound.get("combine_fn")
        op = _combine_op(
            self.launch.kernel.module.jit_helpers.get(fn.value)
            if isinstance(fn, cst.Name)
            else None,
            self.aliases,
            self.lang,
        )
        if op is None:
            raise self.error(
                fn or node,
                "tl.reduce with this combine function is not supported",
                "combine with `a + b`, `a * b`, `tl.maximum(a, b)` or "
                "`tl.minimum(a, b)` (or call tl.sum/tl.max/tl.min)",
            )
        value = self.to_data(self.ev(bound["input"]), node)
        axis_node = bound.get("axis")
        if axis_node is None or (isinstance(axis_node, cst.Name) and axis_node.value == "None"):
            raise self.error(node, "tl.reduce over all axes is not supported", "give the axis")
        keep = bound.get("keep_dims")
        return self.reduce(
            op,
            value,
            self._int_literal(axis_node, node),
            bool(literal(keep)) if keep is not None else False,
            node,
        )

    def reduce(self, op: str, d: Data, axis: int, keepdim: bool, node) -> Data:
        dims = dims_of(self.type_of(d.expr, node))
        if not dims:
            raise self.error(node, f"tl.{op} of a scalar")
        axis = axis % len(dims)
        dim = dims[axis]
        # argmax/argmin: padded lanes holding -inf/+inf lie past the real ones, and ties go to
        # the first index, so they never win; masked and unmasked agree as for max/min.
        identity = (
            reduce_identity(op) if op in ("sum", "max", "min", "prod", "argmax", "argmin") else None
        )
        if (
            d.where_of is not None
            and d.where_of[0] == dim
            and identity is not None
            and (
                _same_float(d.pad(dim), identity)  # type: ignore[arg-type]
            )
        ):
            # `tl.max(tl.where(offs < n, x, -inf))` is the masked reduction of x.
            inner = d.where_of[1]
            d = Data(
                inner.expr,
                tuple((k, identity) if k == dim else (k, v) for k, v in inner.pads),
                inner.div - {dim},
            )
            if dim not in dict(d.pads):
                d = Data(d.expr, d.pads + ((dim, identity),), d.div)
        masked = self.padded_lanes_ok(d, dim, identity, node, f"tl.{op}")
        e = ir.Reduce(op, d.expr, axis, keepdim, masked=masked, loc=self.locate(node))
        self.type_of(e, node)
        rest = frozenset(x for x in d.div if x != dim)
        return Data(e, (), rest)

    def padded_lanes_ok(
        self, d: Data, dim: ir.Dim, identity: float | None, node, what: str
    ) -> bool:
        """Whether to reduce ``dim`` with ``masked=True``; refuses what cannot be exact."""
        if isinstance(dim, ir.UnitDim):
            return False
        pad = d.pad(dim)
        if (
            identity is not None
            and pad is not None
            and _same_float(pad, identity)
            and (dim not in d.div)
        ):
            return True  # the padded lanes hold the identity: masked and unmasked agree
        tile = self.tile_of_dim(dim)
        exact = tile is None or tile.exact
        if exact:
            if dim in d.div:
                raise self.error(
                    node,
                    f"{what} runs over lanes past the end of {self._dim_text(dim)} whose "
                    "values the IR cannot reproduce (a load without other=, or wrapped offsets)",
                    "load with other= the reduction's identity",
                )
            return False
        pad = d.pad(dim)
        if identity is None or pad is None or not _same_float(pad, identity):
            raise self.error(
                node,
                f"{what} runs over the padded lanes of {self._dim_text(dim)}, whose block "
                "size the host computes; the padded lanes must hold the reduction's identity "
                f"({identity}), but they hold {pad if pad is not None else 'unknown values'}",
                "load with other= the identity, or pass the block size as a literal",
            )
        return True

    def _dim_text(self, dim: ir.Dim) -> str:
        return dim.tile if isinstance(dim, ir.BlockDim) else f"the whole dim {dim}"

    def tile_of_dim(self, dim: ir.Dim) -> Tile | None:
        if isinstance(dim, ir.BlockDim):
            return next((t for t in self.tiles.values() if t.name == dim.tile), None)
        return None

    def dot(self, node: cst.Call) -> Data:
        args, kwargs = call_args(node)
        names = ["a", "b", "acc"]
        vals: dict[str, Val] = dict(zip(names, (self.ev(a) for a in args)))
        out_dtype: ir.DTypeExpr = ir.F32
        for k, v in kwargs.items():
            if k == "acc":
                vals["acc"] = self.ev(v)
            elif k == "out_dtype":
                dt = self.ev(v)
                if not isinstance(dt, DTypeVal):
                    raise self.error(v, "out_dtype must be a dtype")
                out_dtype = dt.dtype
            elif k in ("allow_tf32", "input_precision", "max_num_imprecise_acc"):
                continue  # precision of the float32 MMA: a tolerance, not a semantic change
            else:
                raise self.error(v, f"unsupported tl.dot option `{k}=`")
        a, b = self.to_data(vals["a"], node), self.to_data(vals["b"], node)
        acc_v = vals.get("acc")
        if isinstance(acc_v, Static) and acc_v.value is None:
            acc_v = None
        da, db = dims_of(self.type_of(a.expr, node)), dims_of(self.type_of(b.expr, node))
        if len(da) != 2 or len(db) != 2:
            raise self.error(node, "tl.dot of tiles that are not 2-D is not supported yet")
        if isinstance(acc_v, Pending):
            # `acc = tl.zeros((BM, BN))` before any access named the tiles: the product's.
            acc_v = self.materialize(acc_v, (da[0], db[1]), node)
        acc = self.to_data(acc_v, node) if acc_v is not None else None
        kdim = da[-1]
        tile = self.tile_of_dim(kdim)
        masked = False
        if tile is None or tile.exact:
            for operand, dims, axis in ((a, da, -1), (b, db, -2)):
                if dims[axis] in operand.div:
                    raise self.error(
                        node,
                        "tl.dot contracts lanes past the end of "
                        f"{self._dim_text(kdim)} whose values the IR cannot "
                        "reproduce",
                        "load the operands with other=0.0",
                    )
        else:
            pa, pb = a.pad(kdim), b.pad(db[-2])
            if not ((pa is not None and pa == 0.0) or (pb is not None and pb == 0.0)):
                raise self.error(
                    node,
                    "tl.dot contracts the padded lanes of a block the host "
                    "computes; load an operand with other=0.0",
                )
            masked = True
        # `tl.dot(tl.where(offs_k < K, a, 0.0), b)` is the masked dot of a and b.
        if a.where_of is not None and a.where_of[0] == kdim and a.pad(kdim) == 0.0:
            a, masked = a.where_of[1], True
        if b.where_of is not None and b.where_of[0] == db[-2] and b.pad(db[-2]) == 0.0:
            b, masked = b.where_of[1], True
        e = ir.Dot(
            a.expr,
            b.expr,
            acc.expr if acc is not None else None,
            out_dtype,
            masked=masked,
            loc=self.locate(node),
        )
        self.type_of(e, node)
        div = frozenset(x for x in a.div | b.div if x != kdim)
        if acc is not None:
            div |= acc.div
        return Data(e, (), div)

    # ------------------------------------------------------------------ memory

    def load(self, node: cst.Call) -> Data:
        args, kwargs = call_args(node)
        ptr = self.ev(args[0]) if args else self.ev(kwargs["pointer"])
        mask_node = args[1] if len(args) > 1 else kwargs.get("mask")
        other_node = args[2] if len(args) > 2 else kwargs.get("other")
        for k in kwargs:
            if k in ("pointer", "mask", "other", "boundary_check", "padding_option"):
                continue
            if k in ("cache_modifier", "eviction_policy", "volatile"):
                continue  # memory-system hints: they cannot change what is read
            raise self.error(node, f"unsupported tl.load option `{k}=`")
        if isinstance(ptr, BlockPtr):
            if mask_node is not None or other_node is not None:
                raise self.error(
                    node,
                    "a block-pointer load takes boundary_check= and "
                    "padding_option=, not mask= and other=",
                )
            checked = blocks.boundary_check(self, kwargs.get("boundary_check"), len(ptr.block))
            window, mask = blocks.window(
                self, ptr.tensor, ptr.shape, ptr.strides, ptr.offsets, ptr.block, checked
            )
            return self.load_window(
                window, mask, None, blocks.padding(self, kwargs.get("padding_option")), node
            )
        if not isinstance(ptr, Ptr):
            raise self.error(node, "tl.load needs a pointer")
        other: float | None = None
        if other_node is not None:
            try:
                ov = literal(other_node)
            except ValueError:
                ov = None
            if isinstance(ov, bool) or not isinstance(ov, (int, float)):
                raise self.error(
                    other_node, f"other= must be a constant, not `{self.src(other_node)}`"
                )
            other = float(ov)
        mask = self.ev(mask_node) if mask_node is not None else None
        return self.load_window(ptr, mask, mask_node, other, node)

    def load_window(self, ptr: Ptr, mask: Val | None, mask_node, other: float | None, node) -> Data:
        """A load of the pointer tile ``ptr`` under ``mask``, invalid lanes reading ``other``."""
        tensor, items, rank = self.access(ptr, mask, mask_node, node, store=False)
        index = tuple(it.index for it in items)
        e: ir.Expr = ir.Load(tensor, index, other, loc=self.locate(node))
        cast = self.launch.load_cast(ptr.tensor)
        if cast is not None:
            e = ir.Cast(e, cast)
        e = self.to_triton_order(e, items, rank, node)
        pads: list[tuple[ir.Dim, float]] = []
        div: set[ir.Dim] = set()
        for it in items:
            for _, dim, _t in it.dims:
                if it.wrapped and any(w[0].dim == dim for w in it.wrapped) or other is None:
                    div.add(dim)
                else:
                    pads.append((dim, other))
        return Data(e, tuple(pads), frozenset(div))

    def to_triton_order(self, e: ir.Expr, items: list[Item], rank: int, node) -> ir.Expr:
        placed = [(axis, dim) for it in items for axis, dim, _ in it.dims]
        axes = [a for a, _ in placed]
        if len(set(axes)) != len(axes):
            raise self.error(node, "two dims of the tensor are indexed by lanes of one axis")
        order = sorted(range(len(placed)), key=lambda i: axes[i])
        if order != list(range(len(placed))):
            e = ir.Permute(e, tuple(order))
        present = sorted(axes)
        for pos in range(rank):
            if (pos - rank) not in present:
                e = ir.ExpandDims(e, pos)
        return e

    def store(self, node: cst.Call) -> None:
        args, kwargs = call_args(node)
        ptr = self.ev(args[0]) if args else self.ev(kwargs["pointer"])
        value_node = args[1] if len(args) > 1 else kwargs.get("value")
        mask_node = args[2] if len(args) > 2 else kwargs.get("mask")
        for k in kwargs:
            if k in (
                "pointer",
                "value",
                "mask",
                "cache_modifier",
                "eviction_policy",
                "boundary_check",
            ):
                continue
            raise self.error(node, f"unsupported tl.store option `{k}=`")
        if value_node is None:
            raise self.error(node, "tl.store(pointer, value, mask=...)")
        if isinstance(ptr, BlockPtr):
            if mask_node is not None:
                raise self.error(node, "a block-pointer store takes boundary_check=, not mask=")
            checked = blocks.boundary_check(self, kwargs.get("boundary_check"), len(ptr.block))
            window, mask = blocks.window(
                self, ptr.tensor, ptr.shape, ptr.strides, ptr.offsets, ptr.block, checked
            )
            self.store_window(window, self.ev(value_node), value_node, mask, None, node)
            return
        if not isinstance(ptr, Ptr):
            raise self.error(node, "tl.store(pointer, value, mask=...)")
        mask = self.ev(mask_node) if mask_node is not None else None
        self.store_window(ptr, self.ev(value_node), value_node, mask, mask_node, node)

    def store_window(
        self,
        ptr: Ptr,
        value_val: Val,
        value_node,
        mask: Val | None,
        mask_node,
        node,
        atomic: str | None = None,
    ) -> None:
        """A store of ``value_val`` to the pointer tile ``ptr`` under ``mask`` (an atomic
        read-modify-write ``atomic`` where given)."""
        value = self.to_data(value_val, value_node)
        tensor, items, rank = self.access(ptr, mask, mask_node, node, store=True)
        vdims = dims_of(self.type_of(value.expr, value_node))
        placed = [(axis, dim) for it in items for axis, dim, _ in it.dims]
        order = sorted(range(len(placed)), key=lambda i: placed[i][0])
        v = value.expr
        if order != list(range(len(placed))) and len(vdims) == rank:
            inv = [0] * len(order)
            for i, o in enumerate(order):
                inv[o] = i
            core = [i for i, d in enumerate(vdims) if not isinstance(d, ir.UnitDim)]
            if len(core) == len(order):
                v = ir.Permute(ir.Reshape(v, tuple(vdims[i] for i in core)), tuple(inv))
        index = tuple(it.index for it in items)
        if atomic is not None:
            self.out.append(ir.AtomicRMW(atomic, tensor, index, v, loc=self.locate(node)))
        else:
            self.out.append(ir.Store(tensor, index, v, loc=self.locate(node)))

    def atomic(self, node: cst.Call, op: str) -> None:
        """``tl.atomic_<op>(pointer, val, mask=..., sem=..., scope=...)`` as a statement."""
        args, kwargs = call_args(node)
        names = ["pointer", "val", "mask", "sem", "scope"]
        bound = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names:
                raise self.error(v, f"unsupported tl.atomic_{op} option `{k}=`")
            bound[k] = v
        if "pointer" not in bound or "val" not in bound:
            raise self.error(node, f"tl.atomic_{op}(pointer, val, mask=...)")
        # `sem`/`scope` order the atomic against other memory traffic; each element's update is
        # atomic whatever they say, and the IR's AtomicRMW promises no more than that.
        ptr = self.ev(bound["pointer"])
        if not isinstance(ptr, Ptr):
            raise self.error(node, f"tl.atomic_{op} needs a pointer")
        mask_node = bound.get("mask")
        mask = self.ev(mask_node) if mask_node is not None else None
        self.store_window(
            ptr, self.ev(bound["val"]), bound["val"], mask, mask_node, node, atomic=op
        )

    def access(
        self, ptr: Ptr, mask: Val | None, mask_node, node, store: bool
    ) -> tuple[str, list[Item], int]:
        """Split ``ptr``'s offset into per-dim indices, classify them, check the mask."""
        info = self.launch.tensor_info(ptr.tensor)
        p = af.poly(ptr.tree, self.atoms)
        rank_tree = self.rank_of(ptr.tree)
        per_dim: dict[int, af.Poly] = {}
        implicit: af.Poly = {}
        strides = self.launch.stride_params(ptr.tensor)
        sizes = self.launch.size_strides(ptr.tensor)
        strides.update(sizes)
        for m, c in p.items():
            ss = [
                s
                for s in m
                if s.startswith("%p:") and (self.launch.is_stride(s[3:]) or s[3:] in sizes)
            ]
            if len(ss) > 1:
                raise self.error(
                    node,
                    f"an offset term of `{self.src(node.args[0].value)}` multiplies two strides",
                )
            if ss:
                pname = ss[0][3:]
                if pname not in strides:
                    other = self.binding(pname).tensor
                    raise self.error(
                        node,
                        f"the offset into `{info.source}` uses `{pname}`, a stride of `{other}`",
                    )
                d = strides[pname]
                rest = list(m)
                rest.remove(ss[0])
                mono = tuple(rest)
                per_dim.setdefault(d, {})
                per_dim[d][mono] = per_dim[d].get(mono, 0) + c
            else:
                implicit[m] = c
        tensor, rank = self.launch.resolve_access(ptr.tensor, per_dim, bool(implicit), node)
        if tensor not in self.types.vars:
            self.types.vars[tensor] = self.host.types.vars[tensor]
        if implicit:
            last = rank - 1
            if last in per_dim:
                raise self.error(
                    node,
                    f"the offset into `{info.source}` has terms with and "
                    f"without the stride of its last dim",
                )
            per_dim[last] = implicit
            self.launch.note_unit_stride(ptr.tensor, node)
        items = [self.classify(per_dim.get(d, {}), node) for d in range(rank)]
        for it in items:
            for _, _, tile in it.dims:
                if tile is not None:
                    tile.used = True
        self.check_mask(items, mask, mask_node, node, store, info.source)
        self.note_partial_dims(tensor, items, rank, node)
        mrank = self.rank_of(mask.tree) if isinstance(mask, Idx) else 0
        if mrank > rank_tree:
            raise self.error(mask_node, "the mask has more dims than the pointer")
        return tensor, items, rank_tree

    def note_partial_dims(self, tensor: str, items: list[Item], rank: int, node) -> None:
        """Record each whole-dim index whose extent (the mask's bound) is not provably the dim's
        size: its lanes may cover only a prefix of the dim (`cols < half` of a longer row)."""
        for d, it in enumerate(items):
            if not isinstance(it.index, ir.FullIndex) or it.index.extent is None:
                continue
            extent = it.index.extent
            # The size as the host may have named it: counted from the front or the back.
            if any(self.same_host(extent, ir.SizeOf(tensor, x), node) for x in (d, d - rank)):
                continue
            test = ir.BinOp("==", ir.SizeOf(tensor, d), extent)
            if test not in self.partial_dims:
                self.partial_dims.append(test)

    def classify(self, p: af.Poly, node) -> Item:
        """What one tensor dim's index is: a tile's lanes, a scalar, or a gather."""
        syms = af.poly_symbols(p)
        lanes = sorted({s for s in syms if af.parse_lane(s)})
        gathers = [s for s in syms if s in self.data and any(k != 1 for k in self.data[s][1])]
        wraps = [
            s
            for s in syms
            if s.startswith("%t:") and _wrap_of(self.atoms.trees[s]) and self.flat_digit(s) is None
        ]
        if not lanes and not gathers and len(wraps) == 1 and p == {(wraps[0],): 1}:
            tree = self.atoms.trees[wraps[0]]
            wrapped, bound = _wrap_of(tree)  # type: ignore[misc]
            inner = af.poly(wrapped, self.atoms)
            inner_lanes = [s for s in af.poly_symbols(inner) if af.parse_lane(s)]
            if len(inner_lanes) == 1:
                lane = af.parse_lane(inner_lanes[0])
                assert lane is not None
                res = self.tile_form(inner, lane, node)
                if res is not None and not res[1] and res[0].base is not None:
                    tile = res[0]
                    self.set_extent(tile, bound, node)
                    return Item(
                        "tile",
                        ir.TileIndex(tile.name),
                        [(lane[1], tile.dim, tile)],
                        [],
                        [(tile, bound)],
                    )
            raise self.error(
                node,
                f"cannot read `{ir_text(tree)}` as a tile of the tensor",
                "wrap only `(pid * BLOCK + tl.arange(0, BLOCK)) % n` or clamp with "
                "`tl.where(offs < n, offs, 0)`",
            )
        if not lanes and not gathers:
            pt = af.poly_expr(p)
            pt = af.strip_casts(pt)
            if isinstance(pt, ir.Name) and pt.id.startswith("%row"):
                return Item("scalar", ir.TileIndex(self.persistent[1]))  # type: ignore[index]
            for s in syms:
                if self.flat_digit(s) is not None:
                    self.digit_scalar_uses.add(s)
            # A program id used as a plain index: a grid of scalar tiles, unless the same id
            # also offsets lanes (then it is that tile's id).
            for s in syms:
                if s.startswith("%pid"):
                    self.pid_scalar_uses.add(int(s[4:]))
            return Item("scalar", ir.ScalarIndex(self.scalar_ir(pt, node)))
        if len(lanes) == 1 and not gathers:
            lane = af.parse_lane(lanes[0])
            assert lane is not None
            res = self.tile_form(p, lane, node)
            if res is not None and not res[1]:
                tile = res[0]
                # A whole dim's extent is filled in by the mask.
                index: ir.IndexItem = (
                    ir.FullIndex(None) if tile.base is None else ir.TileIndex(tile.name)
                )
                item = Item(
                    "tile",
                    index,
                    [(lane[1], _pending_dim(tile), tile)],
                    [(self.tile_index_poly(tile, lane[1]), tile)],
                )
                return item
            # A shifted whole-dim tile reads as a gather only once its extent is known (an
            # earlier access's mask set it): its lanes are then `arange(extent)`.
            shifted = (
                res is not None
                and bool(res[1])
                and (res[0].base is not None or res[0].extent is not None)
            )
            if res is not None and res[1] and not shifted:
                raise self.error(
                    node,
                    f"the index `{ir_text(af.poly_expr(p))}` is a whole-dim tile shifted by an "
                    "offset before any access bounds the tile",
                    "access the unshifted lanes first (`offs < n`), or tile with "
                    "`pid * BLOCK + tl.arange(0, BLOCK)`",
                )
        else:
            shifted = False
        # A gather: the index holds loaded integers, or a tile's lanes shifted by an offset
        # (`offs + half`: the second half of a row), read as the integers they are.
        if not gathers and not shifted:
            raise self.error(
                node,
                f"cannot prove that `{self.src(node.args[0].value)}` addresses a "
                f"tile: the index `{ir_text(af.poly_expr(p))}` of one dim is not "
                "`block * id + tl.arange(0, block)`",
                "offset lanes by program ids or loop counters times the block size",
            )
        tree = af.poly_expr(p)
        value = self.idx_ir(tree, node)
        vt = self.type_of(value, node)
        vdims = dims_of(vt)
        rank = self.rank_of(tree)
        core = [(i, d) for i, d in enumerate(vdims) if not isinstance(d, ir.UnitDim)]
        if len(vdims) != rank:
            raise self.error(node, "gather index of unexpected rank")
        if len(core) != len(vdims):
            value = ir.Reshape(value, tuple(d for _, d in core))
        item = Item("gather", ir.GatherIndex(value))
        for i, d in core:
            tile = self.tile_of_dim(d)
            item.dims.append((i - rank, d, tile))
            if tile is not None:
                item.polys.append((self.tile_index_poly(tile, i - rank), tile))
            elif isinstance(d, ir.FullDim):
                full = next(
                    t for t in self.tiles.values() if t.base is None and t.extent == d.extent
                )
                item.polys.append((self.tile_index_poly(full, i - rank), full))
        return item

    def mask_constraints(
        self, tree: ir.Expr, node, strict: bool = True
    ) -> list[tuple[af.Poly, ir.Expr]]:
        """Conjuncts ``index < bound`` of a mask: (index part of the normal form, bound tree)."""
        tree = af.strip_casts(tree)
        if isinstance(tree, ir.BinOp) and tree.op == "&":
            return self.mask_constraints(tree.lhs, node, strict) + self.mask_constraints(
                tree.rhs, node, strict
            )
        if isinstance(tree, ir.BinOp) and tree.op in ("<", "<=", ">", ">="):
            lhs, rhs, op = tree.lhs, tree.rhs, tree.op
            if op in (">", ">="):
                lhs, rhs, op = rhs, lhs, _SWAP[op]
            diff = af.sub(af.poly(lhs, self.atoms), af.poly(rhs, self.atoms))
            if op == "<=":
                diff = af.sub(diff, {(): 1})
            index = {
                m: c
                for m, c in diff.items()
                if any(not s.startswith("%p:") and not s.startswith("%t:") for s in m)
                or any(s.startswith("%t:") and self._atom_has_index(s) for s in m)
            }
            bound = {m: -c for m, c in diff.items() if m not in index}
            return [(index, af.poly_expr(bound))]
        if strict:
            raise self.error(
                node,
                f"the mask `{self.src(node)}` is not a conjunction of bounds `offs < n`",
                "masks may only bound tiles by their extents",
            )
        return []

    def _atom_has_index(self, s: str) -> bool:
        return any(not x.startswith("%p:") for x in af.symbols_in(self.atoms.trees[s]))

    def check_mask(
        self, items: list[Item], mask: Val | None, mask_node, node, store: bool, tensor: str
    ) -> None:
        """The mask must bound exactly the region's tiles (each by its extent)."""
        needed: list[tuple[af.Poly, Tile]] = [pt for it in items for pt in it.polys]
        wrapped = {id(t) for it in items for t, _ in it.wrapped}
        if store and wrapped:
            raise self.error(
                node,
                f"the store into `{tensor}` goes through wrapped (`% n`) offsets",
                "store through unwrapped offsets and a mask",
            )
        constraints: list[tuple[af.Poly, ir.Expr]] = []
        if mask is not None:
            if isinstance(mask, Static) and mask.value is None:
                mask = None
            elif not isinstance(mask, Idx):
                raise self.error(
                    mask_node,
                    f"the mask `{self.src(mask_node)}` is not a bounds check on offsets",
                    "masks may only bound tiles by their extents",
                )
            else:
                constraints = self.mask_constraints(mask.tree, mask_node)
        used = [False] * len(constraints)
        for poly_, tile in needed:
            hit = None
            for i, (cp, _) in enumerate(constraints):
                if not used[i] and af.same_poly(cp, poly_):
                    hit = i
                    break
            if hit is None:
                if tile.base is not None and id(tile) in wrapped:
                    continue
                if self.proven_exact(tile, node) or not tile.padded:
                    continue
                what = "store into" if store else "load from"
                raise self.error(
                    mask_node if mask_node is not None else node,
                    f"the {what} `{tensor}` is not masked along {self._tile_text(tile)}, whose "
                    "last block may run past the end of the tensor",
                    "mask with `offs < n` for every tiled dim (`& `-combine them)",
                )
            used[hit] = True
            self.set_extent(tile, constraints[hit][1], mask_node)
        for i, (cp, bound) in enumerate(constraints):
            if not used[i]:
                raise self.error(
                    mask_node,
                    f"the mask bounds `{ir_text(af.poly_expr(cp))} < "
                    f"{ir_text(bound)}`, which is no tile of the access: the IR has no masks "
                    "other than tile bounds",
                    "mask only `offs < n` for the offsets of the access",
                )
        for it in items:
            if isinstance(it.index, ir.FullIndex):
                tile = it.dims[0][2]
                assert tile is not None and tile.extent is not None
                it.index = ir.FullIndex(tile.extent)
                it.dims = [(it.dims[0][0], tile.dim, tile)]
            elif it.kind == "tile":
                it.dims = [(a, t.dim if t is not None else d, t) for a, d, t in it.dims]

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

    def _tile_text(self, tile: Tile) -> str:
        if tile.base is None:
            return f"tl.arange(0, {tile.key})"
        return f"tile `{tile.name}` (block {tile.key})"

    # ------------------------------------------------------------------ the grid

    def grid_tiles(self) -> tuple[ir.TileVar, ...]:
        if self.launch.derived and (
            self.persistent_grid is not None
            or self.split_steps
            or self.persistent is not None
            or self.pid_scalar_uses
        ):
            raise self.error(
                self.fn,
                "this kernel's grid is not one program per tile (persistent "
                "loops, split-K, program ids used as plain indices), so no wrapper "
                "can be derived for it",
                "write a wrapper that launches the kernel",
            )
        self.check_persistent_grid()
        grid = self.launch.grid
        for axis, start, step, loop_node in self.split_steps:
            if start != ir.Name(f"%pid{axis}"):
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
        if self.swizzle is not None:
            sw = self.swizzle
            axis = int(sw.pid[4:])
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
        for sym in self.digit_tiles.keys() | self.digit_scalar_uses:
            by_axis.setdefault(int(self.digits[sym].pid[4:]), []).append(sym)
        flat: dict[int, list[ir.TileVar]] = {}
        for axis, syms in sorted(by_axis.items()):
            if axis in used_axes or axis in self.pid_roles or axis in self.pid_scalar_uses:
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
                name = unique(_ident(self.pid_names.get(axis, f"pid_{axis}")), self.taken)
                self.grid_names[axis] = (name, True)
                out.append(ir.TileVar(name, grid[axis], ir.Const(1), scalar=True))
            elif role == "persistent":
                assert self.persistent is not None
                _, name, extent = self.persistent
                out.append(ir.TileVar(name, extent, ir.Const(1), scalar=True))
        self.grid = tuple(out)
        return self.grid

    def flat_dtypes(self, body: tuple[ir.Stmt, ...]) -> tuple[ir.Stmt, ...]:
        """``dtype(x)`` read before ``x`` turned out to be addressed only through its flat view
        becomes ``dtype(x_flat)`` (the tensor the kernel is passed)."""
        from translator.ir.visit import walk_stmts

        accessed = {s.tensor for s in walk_stmts(body) if isinstance(s, (ir.Store, ir.AtomicRMW))}
        from translator.ir.visit import all_exprs

        accessed |= {e.tensor for e in all_exprs(body) if isinstance(e, ir.Load)}
        rename = {}
        for name, t in self.host.tensors.items():
            if t.flat is not None and name not in accessed and t.flat in accessed:
                rename[ir.DTypeOf(name)] = ir.DTypeOf(t.flat)
        return _replace_values(body, rename) if rename else body

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
                n = n_shown = mod
                name = unique(
                    _ident(self.digit_names.get(sym, f"pid_{axis}_{len(out)}")), self.taken
                )
                out.append(ir.TileVar(name, mod, ir.Const(1), scalar=True))
                self.digit_vars[sym] = ir.Name(name)
            count = n if count == ir.Const(1) else ir.BinOp("*", count, n)
            shown = n_shown if shown == ir.Const(1) else ir.BinOp("*", shown, n_shown)
        self.check_grid_axis(axis, count, node, shown)
        return out

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

    # ------------------------------------------------------------------ finishing

    def finish(self, body: tuple[ir.Stmt, ...]) -> tuple[ir.Stmt, ...]:
        """Resolve program-id and loop-counter placeholders now that every tile is known."""
        loop_tiles: dict[str, Tile] = {}
        for t in self.tiles.values():
            if t.base is not None and t.base.startswith("%it"):
                loop_tiles[t.base] = t

        def fn(name: str) -> ir.Expr | None:
            if name.startswith("%pid"):
                axis = int(name[4:])
                role = self.pid_roles.get(axis)
                if role == "tile":
                    return ir.TileAttr(self.pid_tiles[axis].name, "id")
                if role == "scalar":
                    return ir.Name(self.grid_names[axis][0])
                raise self.error(
                    None,
                    f"tl.program_id({axis}) is used in a way the frontend cannot map to the grid",
                )
            if name.startswith("%it"):
                if name in self.scalar_loops:
                    return ir.Name(self.scalar_loops[name])
                t = loop_tiles.get(name)
                if t is None:
                    raise self.error(None, "a loop counter is used outside its loop's tile")
                return ir.TileAttr(t.name, "id")
            if name in ("%sm", "%sn"):
                return ir.TileAttr(self.swizzle_tiles[name[2]].name, "id")
            if name.startswith("%row"):
                assert self.persistent is not None
                return ir.Name(self.persistent[1])
            if name.startswith("%d"):
                return self.data[name][0]
            if name in self.digit_vars:
                return self.digit_vars[name]
            return None

        def expr(e: ir.Expr) -> ir.Expr:
            return map_names(e, fn, pid_index)

        def pid_index(item: ir.IndexItem) -> ir.IndexItem:
            if (
                isinstance(item, ir.ScalarIndex)
                and isinstance(item.value, ir.Name)
                and (item.value.id.startswith("%pid"))
            ):
                axis = int(item.value.id[4:])
                if self.pid_roles.get(axis) == "scalar":
                    return ir.TileIndex(self.grid_names[axis][0])
            return item

        def index(item: ir.IndexItem) -> ir.IndexItem:
            if isinstance(item, ir.ScalarIndex):
                v = item.value
                if isinstance(v, ir.Name) and v.id.startswith("%pid"):
                    axis = int(v.id[4:])
                    if self.pid_roles.get(axis) == "scalar":
                        return ir.TileIndex(self.grid_names[axis][0])
                if isinstance(v, ir.Name) and isinstance(self.digit_vars.get(v.id), ir.Name):
                    return ir.TileIndex(self.digit_vars[v.id].id)
                return ir.ScalarIndex(expr(v))
            if isinstance(item, ir.GatherIndex):
                return ir.GatherIndex(expr(item.value))
            return item

        return tuple(map_stmt(s, expr, index) for s in body)


# ==================================================================================================
# Helpers


@dataclass(frozen=True)
class _Unbound:
    name: str
    why: str | None = None


def _opaque(e: ir.Expr) -> bool:
    return any(isinstance(x, ir.Name) and x.id.startswith("?") for x in af.walk(e))


def _pending_dim(tile: Tile) -> ir.Dim:
    if tile.base is None:
        return ir.FullDim(tile.extent if tile.extent is not None else ir.Const(0))
    return ir.BlockDim(tile.name)


def _suffix(key: af.Key) -> str:
    if isinstance(key, int):
        return ""
    k = key.lower()
    for prefix in ("block_size_", "block_size", "block_", "block"):
        if k.startswith(prefix):
            return k[len(prefix) :].strip("_")
    return k


def _ident(name: str) -> str:
    return name


def _body(suite: cst.BaseSuite):
    if isinstance(suite, cst.IndentedBlock):
        return suite.body
    return [cst.SimpleStatementLine(body=suite.body)]  # type: ignore[attr-defined]


def _is_return(node: cst.CSTNode) -> bool:
    return (
        isinstance(node, cst.SimpleStatementLine)
        and len(node.body) == 1
        and isinstance(node.body[0], cst.Return)
    )


def _ends_in_return(suite: cst.BaseSuite) -> bool:
    body = list(_body(suite))
    return bool(body) and _is_return(body[-1])


def _contains_return(node: cst.CSTNode) -> bool:
    found = []

    class V(cst.CSTVisitor):
        def visit_Return(self, n: cst.Return) -> None:
            found.append(n)

    node.visit(V())
    return bool(found)


def _target_names(t: cst.BaseExpression) -> list[str]:
    if isinstance(t, cst.Name):
        return [t.value]
    if isinstance(t, (cst.Tuple, cst.List)):
        return [n for e in t.elements for n in _target_names(e.value)]
    return []


def _names_read(node: cst.CSTNode) -> set[str]:
    return names_in(node)


def _read_before_write(name: str, suite: cst.BaseSuite) -> bool:
    """Whether an iteration of ``suite`` may read ``name`` before assigning it (conservative:
    assignments inside nested blocks do not count as definite)."""
    for st in _body(suite):
        if not isinstance(st, cst.SimpleStatementLine):
            if name in _names_read(st):
                return True
            continue
        for small in st.body:
            if isinstance(small, (cst.Assign, cst.AnnAssign)):
                value = small.value
                if value is not None and name in _names_read(value):
                    return True
                targets = (
                    [t.target for t in small.targets]
                    if isinstance(small, cst.Assign)
                    else [small.target]
                )
                for t in targets:
                    if not isinstance(t, cst.Name) and name in _names_read(t):
                        return True
                if any(name in _target_names(t) for t in targets):
                    return False
            elif name in _names_read(small):
                return True
    return False


def _moved(v: Val, step: ir.Expr, times: ir.Expr) -> Val:
    """``v`` advanced ``times`` times by ``step`` (a tuple of per-dim steps for block pointers)."""
    if isinstance(v, BlockPtr):
        assert isinstance(step, ir.TupleExpr)
        offsets = tuple(
            ir.BinOp("+", o, ir.BinOp("*", times, s)) for o, s in zip(v.offsets, step.items)
        )
        return dataclasses.replace(v, offsets=offsets)
    assert isinstance(v, (Ptr, Idx))
    return dataclasses.replace(v, tree=ir.BinOp("+", v.tree, ir.BinOp("*", times, step)))


def _advance_of(
    small: cst.CSTNode, aliases: dict, lang: str
) -> tuple[str, cst.BaseExpression] | None:
    """``(name, steps)`` of ``name = tl.advance(name, steps)``."""
    if not (
        isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
        and isinstance(small.value, cst.Call)
        and resolve(small.value.func, aliases) == f"{lang}.advance"
    ):
        return None
    name = small.targets[0].target.value
    args = small.value.args
    if len(args) == 2 and isinstance(args[0].value, cst.Name) and args[0].value.value == name:
        return name, args[1].value
    return None


def walk_stmts_of(s: ir.Stmt) -> list[ir.Stmt]:
    """The statements nested in ``s``."""
    from translator.ir.visit import walk_stmts

    inner: tuple[ir.Stmt, ...] = ()
    if isinstance(s, ir.TileLoop):
        inner = s.body
    elif isinstance(s, ir.If):
        inner = s.body + s.orelse
    return list(walk_stmts(inner))


def _zero_padded(e: ir.Expr, loads: dict[str, ir.Expr], tile: str) -> bool:
    """Whether dot operand ``e`` is a load along ``tile`` (maybe cast) whose lanes past the
    tensor read 0, so a tile wholly out of bounds contributes an exact 0."""
    while isinstance(e, (ir.Cast, ir.Permute)):
        e = e.value
    if isinstance(e, ir.Name) and e.id in loads:
        return _zero_padded(loads[e.id], {}, tile)
    return isinstance(e, ir.Load) and e.other == 0.0 and ir.TileIndex(tile) in e.index


def _replace_values(v: Any, mapping: dict) -> Any:
    """``v`` (IR nodes, tuples) with every field value found in ``mapping`` replaced."""
    if isinstance(v, tuple):
        new = tuple(_replace_values(x, mapping) for x in v)
        return v if all(a is b for a, b in zip(new, v)) else new
    if not dataclasses.is_dataclass(v) or isinstance(v, type):
        return v
    try:
        if v in mapping:
            return mapping[v]
    except TypeError:
        pass
    changes = {}
    for f in dataclasses.fields(v):
        x = getattr(v, f.name)
        nx = _replace_values(x, mapping)
        if nx is not x:
            changes[f.name] = nx
    return dataclasses.replace(v, **changes) if changes else v


def _wrap_of(tree: ir.Expr) -> tuple[ir.Expr, ir.Expr] | None:
    """``(offsets, n)`` of offsets kept in bounds without a mask: ``offs % n`` (wrapped) or
    ``tl.where(offs < n, offs, c)`` (clamped). The lanes past ``n`` read other rows, which only
    reach results a masked store drops."""
    if isinstance(tree, ir.BinOp) and tree.op == "%":
        return tree.lhs, tree.rhs
    if isinstance(tree, ir.Call) and tree.op == "where":
        cond, a, b = (af.strip_casts(x) for x in tree.args)
        if (
            isinstance(cond, ir.BinOp)
            and cond.op == "<"
            and af.strip_casts(cond.lhs) == a
            and (isinstance(b, ir.Const))
        ):
            return a, cond.rhs
    return None


def _combine_op(fn: cst.FunctionDef | None, aliases: dict, lang: str) -> str | None:
    """The IR reduction a ``tl.reduce`` combine function computes: ``return a + b`` (sum),
    ``a * b`` (prod), ``tl.maximum(a, b)`` (max), ``tl.minimum(a, b)`` (min)."""
    if fn is None or len(fn.params.params) != 2:
        return None
    body = [
        s
        for s in _body(fn.body)
        if not (
            isinstance(s, cst.SimpleStatementLine)
            and isinstance(s.body[0], cst.Expr)
            and isinstance(s.body[0].value, cst.SimpleString)
        )
    ]
    if len(body) != 1 or not _is_return(body[0]):
        return None
    e = body[0].body[0].value  # type: ignore[attr-defined]
    a, b = (p.name.value for p in fn.params.params)

    def operands(x: cst.BaseExpression, y: cst.BaseExpression) -> bool:
        names = {getattr(x, "value", None), getattr(y, "value", None)}
        return isinstance(x, cst.Name) and isinstance(y, cst.Name) and names == {a, b}

    if isinstance(e, cst.BinaryOperation) and operands(e.left, e.right):
        return {cst.Add: "sum", cst.Multiply: "prod"}.get(type(e.operator))
    if isinstance(e, cst.Call) and len(e.args) == 2 and operands(e.args[0].value, e.args[1].value):
        return {f"{lang}.maximum": "max", f"{lang}.minimum": "min"}.get(
            resolve(e.func, aliases) or ""
        )
    return None


def _is_divisibility(e: ir.Expr) -> bool:
    """``x % b == 0``."""
    return (
        isinstance(e, ir.BinOp)
        and e.op == "=="
        and e.rhs == ir.Const(0)
        and isinstance(e.lhs, ir.BinOp)
        and e.lhs.op == "%"
    )


def _conjunction(e: ir.Expr) -> list[ir.Expr]:
    if isinstance(e, ir.BinOp) and e.op in ("&", "and"):
        return _conjunction(af.strip_casts(e.lhs)) + _conjunction(af.strip_casts(e.rhs))
    return [e]


_NO_MERGE = object()


def _merge_branches(a: tuple[ir.Stmt, ...], b: tuple[ir.Stmt, ...]) -> tuple[ir.Stmt, ...] | None:
    """One statement list computing what both branches compute, if they differ only in what
    their loads' invalid lanes read (``other=None``, "never read", against a value)."""
    merged = _merge_value(a, b)
    return None if merged is _NO_MERGE else merged  # type: ignore[return-value]


def _merge_value(a: Any, b: Any) -> Any:
    if a == b:
        return a
    if type(a) is not type(b):
        return _NO_MERGE
    if isinstance(a, tuple):
        if len(a) != len(b):
            return _NO_MERGE
        items = [_merge_value(x, y) for x, y in zip(a, b)]
        return _NO_MERGE if any(i is _NO_MERGE for i in items) else tuple(items)
    if not dataclasses.is_dataclass(a):
        return _NO_MERGE
    changes = {}
    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if not f.compare or x == y:
            continue
        if isinstance(a, ir.Load) and f.name == "other" and (x is None or y is None):
            changes[f.name] = x if y is None else y
            continue
        v = _merge_value(x, y)
        if v is _NO_MERGE:
            return _NO_MERGE
        changes[f.name] = v
    return dataclasses.replace(a, **changes)


def _names_read_expr(node: cst.CSTNode | None) -> set[str]:
    return _names_read(node) if node is not None else set()


def _attach(out: list[ir.Stmt], start: int, comments: tuple[str, ...]) -> None:
    if comments and start < len(out):
        out[start] = dataclasses.replace(out[start], comments=comments + out[start].comments)


def ir_text(e: ir.Expr | None) -> str:
    """An expression for a diagnostic, index symbols spelt as the source spells them."""
    if e is None:
        return "?"
    from translator.ir.printer import format_expr

    def fn(name: str) -> ir.Expr | None:
        lane = af.parse_lane(name)
        if lane is not None:
            key, axis = lane
            suffix = "" if axis == -1 else "[" + ", ".join([":"] + ["None"] * (-axis - 1)) + "]"
            return ir.Name(f"tl.arange(0, {key}){suffix}")
        if name.startswith("%pid"):
            return ir.Name(f"tl.program_id({name[4:]})")
        if name.startswith("%np"):
            return ir.Name(f"tl.num_programs({name[3:]})")
        if name.startswith("%it"):
            return ir.Name(f"<iteration of loop {name[3:]}>")
        if name.startswith("%p:"):
            return ir.Name(name[3:])
        if name in ("%sm", "%sn"):
            return ir.Name("pid_" + name[2])
        if name.startswith("%"):
            return ir.Name("<value>")
        return None

    if isinstance(e, ir.Name) and e.id.startswith("?"):
        return "<" + e.id[1:].rsplit("#", 1)[0] + ">"
    return format_expr(af.rename(e, fn))


def _same_float(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


def _simplify(e: ir.Expr) -> ir.Expr:
    """Fold ``x * 1``, ``x + 0`` and constant arithmetic in a tree."""
    if isinstance(e, ir.BinOp):
        lhs, rhs = _simplify(e.lhs), _simplify(e.rhs)
        if (
            isinstance(lhs, ir.Const)
            and isinstance(rhs, ir.Const)
            and e.op in ("+", "-", "*")
            and (
                isinstance(lhs.value, int)
                and isinstance(rhs.value, int)
                and not isinstance(lhs.value, bool)
                and not isinstance(rhs.value, bool)
            )
        ):
            v = {
                "+": lhs.value + rhs.value,
                "-": lhs.value - rhs.value,
                "*": lhs.value * rhs.value,
            }[e.op]
            return ir.Const(v)
        if e.op == "*" and rhs == ir.Const(1):
            return lhs
        if e.op == "*" and lhs == ir.Const(1):
            return rhs
        if e.op in ("+", "-") and rhs == ir.Const(0):
            return lhs
        if e.op == "+" and lhs == ir.Const(0):
            return rhs
        return dataclasses.replace(e, lhs=lhs, rhs=rhs)
    if isinstance(e, ir.Call):
        return dataclasses.replace(e, args=tuple(_simplify(a) for a in e.args))
    if isinstance(e, ir.UnaryOp):
        return dataclasses.replace(e, operand=_simplify(e.operand))
    return e


def _fold_pads(
    op: str, operands: list[Data], lifter: KernelLifter, e: ir.Expr | None = None
) -> tuple[tuple[ir.Dim, float], ...]:
    if e is None:
        e = operands[0].expr
    try:
        dims = dims_of(infer(e, lifter.types))
    except IRTypeError:
        return ()
    out: list[tuple[ir.Dim, float]] = []
    for d in dims:
        if isinstance(d, ir.UnitDim):
            continue
        vals: list[float | None] = []
        for o in operands:
            if isinstance(o.expr, ir.Const) and not isinstance(o.expr.value, (bool, str)):
                vals.append(float(o.expr.value))
                continue
            odims = dims_of(infer(o.expr, lifter.types))
            vals.append(o.pad(d) if d in odims else None)
        if all(v is None for v in vals):
            continue
        if (
            op in ("*", "/")
            and len(vals) == 2
            and any(v is not None and math.isinf(v) for v in vals)
        ):
            # inf times (or over) a value known positive stays inf with its sign.
            vals = [
                1.0 if v is None and lifter.is_positive(o.expr) else v
                for v, o in zip(vals, operands)
            ]
        # Operands not padded along this dim are valid data: finite.
        r = fold_pad(op, vals, unknown="finite")
        if r is not None:
            out.append((d, r))
    return tuple(out)


def _cast_pads(d: Data, dtype: ir.DTypeExpr) -> tuple[tuple[ir.Dim, float], ...]:
    if isinstance(dtype, ir.DType) and dtype.name in ir.FLOAT_DTYPES:
        return d.pads
    return tuple((k, v) for k, v in d.pads if math.isfinite(v) and float(int(v)) == v)


# --- generic IR rewriting


def map_names(e: ir.Expr, fn: Callable[[str], ir.Expr | None], index=None) -> ir.Expr:
    """``e`` with names replaced where ``fn`` returns a tree (recursively, every node kind);
    ``index`` may rewrite index items first."""
    if isinstance(e, ir.Name):
        new = fn(e.id)
        return e if new is None else map_names(new, fn, index) if new != e else new
    changes: dict[str, Any] = {}
    for f in dataclasses.fields(e):
        if f.name == "loc":
            continue
        v = getattr(e, f.name)
        nv = _map_value(v, fn, index)
        if nv is not v:
            changes[f.name] = nv
    return dataclasses.replace(e, **changes) if changes else e


def _map_value(v: Any, fn, index=None):
    if index is not None and isinstance(v, (ir.ScalarIndex, ir.GatherIndex, ir.FullIndex)):
        nv = index(v)
        if nv is not v:
            return nv
    if isinstance(v, ir.Expr):
        return map_names(v, fn, index)
    if isinstance(v, (ir.ScalarIndex, ir.GatherIndex)):
        return type(v)(map_names(v.value, fn, index))
    if isinstance(v, ir.FullIndex) and v.extent is not None:
        return ir.FullIndex(map_names(v.extent, fn, index))
    if isinstance(v, ir.FullDim):
        return ir.FullDim(map_names(v.extent, fn, index))
    if isinstance(v, tuple):
        new = tuple(_map_value(x, fn, index) for x in v)
        return v if all(a is b for a, b in zip(new, v)) else new
    return v


def map_stmt(
    s: ir.Stmt, expr: Callable[[ir.Expr], ir.Expr], index: Callable[[ir.IndexItem], ir.IndexItem]
) -> ir.Stmt:
    if isinstance(s, ir.Assign):
        return dataclasses.replace(s, value=expr(s.value))
    if isinstance(s, (ir.Store, ir.AtomicRMW)):
        return dataclasses.replace(s, index=tuple(index(i) for i in s.index), value=expr(s.value))
    if isinstance(s, ir.TileLoop):
        tiles = tuple(
            dataclasses.replace(
                t,
                extent=expr(t.extent),
                begin=expr(t.begin) if t.begin is not None else None,
                step=expr(t.step) if t.step is not None else None,
            )
            for t in s.tiles
        )
        return dataclasses.replace(
            s, tiles=tiles, body=tuple(map_stmt(b, expr, index) for b in s.body)
        )
    if isinstance(s, ir.If):
        return dataclasses.replace(
            s,
            test=expr(s.test),
            body=tuple(map_stmt(b, expr, index) for b in s.body),
            orelse=tuple(map_stmt(b, expr, index) for b in s.orelse),
        )
    return s


__all__ = ["KernelLifter", "Refusal", "map_names", "map_stmt"]
