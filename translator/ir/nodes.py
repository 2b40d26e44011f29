"""Nodes of the tile IR.

The IR is shared by every DSL and knows nothing of any of them. A :class:`Module` holds

* :class:`Kernel` s: self-contained device programs (parameters, grid, body, tunables, hints);
* :class:`Entry` s: what a frontend understood of each host function that launches kernels (its
  parameters and the host statements it could model, each launch a :class:`Launch` binding a
  kernel's parameters to host values); these are *facts* for analysis and validation;
* a :class:`HostPlan`: the source module itself, carried as written, and the edits that turn it into
  the translation (kernel definitions replaced, launch sites rewritten). Host code is never
  re-emitted from the IR.

Device code is structured: named variables, expression trees, tile loops. Values are tiles, whose
dimensions are the block of a tile variable, a full tensor dimension, or 1, and scalars.

Boundary behaviour is explicit. A tile spans ``block`` lanes along each tiled dimension, of which the
lanes past the tensor's extent are *invalid*:

* a :class:`Load` says what invalid lanes read as (``other``; ``None`` means the source never reads
  them, so any value is allowed);
* a :class:`Store` never writes invalid lanes;
* a :class:`Reduce` or :class:`Dot` with ``masked=True`` treats invalid lanes of the reduced
  dimension as the identity of the reduction, whatever they hold.

All nodes are frozen dataclasses; source locations do not take part in equality.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

# --------------------------------------------------------------------------------------------------
# Locations and dtypes
from translator.ir.loc import Loc  # noqa: E402  (re-exported: a location is part of every node)


def _loc() -> Loc | None:
    return field(default=None, compare=False, repr=False)  # type: ignore[return-value]


FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")
INT_DTYPES = ("int8", "int16", "int32", "int64", "uint8")
DTYPE_NAMES = (*FLOAT_DTYPES, *INT_DTYPES, "bool")


@dataclass(frozen=True)
class DType:
    """A concrete element type, named as in :data:`DTYPE_NAMES`."""

    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class DTypeOf:
    """The element type of a host tensor, known only at run time (``x.dtype``)."""

    tensor: str

    def __str__(self) -> str:
        return f"dtype({self.tensor})"


DTypeExpr = Union[DType, DTypeOf]

F32 = DType("float32")
# The type of string parameters: compile-time choices, compared with `==` and nothing else.
STR = DType("str")
I32 = DType("int32")
I64 = DType("int64")
BOOL = DType("bool")


# --------------------------------------------------------------------------------------------------
# Expressions (host and device)


@dataclass(frozen=True)
class Expr:
    """Base of all expressions."""


@dataclass(frozen=True)
class Name(Expr):
    """A variable: a host parameter or local, a device local, or a tile variable."""

    id: str
    loc: Loc | None = _loc()


@dataclass(frozen=True)
class Const(Expr):
    """A Python literal: int, float (``inf``/``-inf``/``nan`` allowed), bool, str (a
    compile-time choice such as an activation name; only ever compared), or ``None`` (the default
    of an optional parameter, resolved on the host with the ``if_none`` op)."""

    value: int | float | bool | str | None
    loc: Loc | None = _loc()


@dataclass(frozen=True)
class SizeOf(Expr):
    """``tensor.size(dim)`` of a host tensor."""

    tensor: str
    dim: int
    loc: Loc | None = _loc()


@dataclass(frozen=True)
class ShapeOf(Expr):
    """The whole shape of a host tensor (``x.shape``); host code only, for asserts."""

    tensor: str
    loc: Loc | None = _loc()


@dataclass(frozen=True)
class BinOp(Expr):
    """``lhs op rhs``; ``op`` is a Python operator spelling (``+``, ``<=``, ``&``, ``//``...)."""

    op: str
    lhs: Expr
    rhs: Expr
    loc: Loc | None = _loc()


@dataclass(frozen=True)
class UnaryOp(Expr):
    """``-x``, ``~x`` or ``not x``."""

    op: str
    operand: Expr
    loc: Loc | None = _loc()


@dataclass(frozen=True)
class Call(Expr):
    """A pointwise or scalar op by IR name (``exp``, ``maximum``, ``where``, ``cdiv``...).

    The ops and their arities are listed in :mod:`translator.ir.ops`.
    """

    op: str
    args: tuple[Expr, ...]
    loc: Loc | None = _loc()


@dataclass(frozen=True)
class Cast(Expr):
    """Element type conversion."""

    value: Expr
    dtype: DTypeExpr
    loc: Loc | None = _loc()


@dataclass(frozen=True)
class TileAttr(Expr):
    """An attribute of a tile variable.

    ``begin``/``end``: first and one-past-last index of the tile (``end`` clipped to the extent);
    ``block_size``: lanes per tile; ``index``: the 1-D tile of the tile's indices; ``id``: the
    tile's number along its dimension; ``count``: number of tiles along the dimension.
    """

    tile: str
    attr: str
    loc: Loc | None = _loc()


TILE_ATTRS = ("begin", "end", "block_size", "index", "id", "count")


# --- tile dimensions, index items


@dataclass(frozen=True)
class BlockDim:
    """A dimension spanning the block of tile variable ``tile``."""

    tile: str

    def __str__(self) -> str:
        return self.tile


@dataclass(frozen=True)
class FullDim:
    """A whole tensor dimension of extent ``extent`` (a host scalar expression)."""

    extent: Expr

    def __str__(self) -> str:
        from translator.ir.printer import format_expr

        return f":{format_expr(self.extent)}"


@dataclass(frozen=True)
class UnitDim:
    """A dimension of size 1."""

    def __str__(self) -> str:
        return "1"


Dim = Union[BlockDim, FullDim, UnitDim]


@dataclass(frozen=True)
class TileIndex:
    """Index a tensor dimension with the lanes of tile variable ``tile``."""

    tile: str


@dataclass(frozen=True)
class FullIndex:
    """Index a whole tensor dimension (``:``); ``extent`` names its size where the source does."""

    extent: Expr | None = None


@dataclass(frozen=True)
class ScalarIndex:
    """Index a tensor dimension with one scalar (dropping the dimension)."""

    value: Expr


@dataclass(frozen=True)
class NewAxis:
    """Insert a dimension of size 1 (``None``)."""


@dataclass(frozen=True)
class GatherIndex:
    """Index a tensor dimension with the values of an integer tile (a gather or scatter).

    The result takes the dims of ``value``; lanes where ``value`` is invalid are masked.
    """

    value: Expr


IndexItem = Union[TileIndex, FullIndex, ScalarIndex, NewAxis, GatherIndex]


# --- device expressions


@dataclass(frozen=True)
class Load(Expr):
    """Read a region of host tensor ``tensor``. ``other`` is what invalid lanes read as.

    ``mask`` (a boolean tile broadcastable to the region, or ``None``) is a predicate on valid
    lanes: where it is false the lane is not read and holds ``other`` (which must then be a
    value). It keeps a load inside bounds the data decides (a jagged row's ``k < nnz``).
    """

    tensor: str
    index: tuple[IndexItem, ...]
    other: float | None = 0.0
    mask: Expr | None = None
    loc: Loc | None = _loc()


@dataclass(frozen=True)
class Full(Expr):
    """A tile of ``shape`` filled with ``value`` (a constant or scalar expression)."""

    shape: tuple[Dim, ...]
    value: Expr
    dtype: DTypeExpr
    loc: Loc | None = _loc()


@dataclass(frozen=True)
class Arange(Expr):
    """``[0, 1, ..., n)`` as a 1-D tile spanning ``dim``."""

    dim: Dim
    loc: Loc | None = _loc()


REDUCE_OPS = ("sum", "max", "min", "argmax", "argmin", "prod")


@dataclass(frozen=True)
class Reduce(Expr):
    """Reduce ``value`` along ``axis``. ``masked`` excludes invalid lanes (see the module doc)."""

    op: str
    value: Expr
    axis: int
    keepdim: bool = False
    masked: bool = True
    loc: Loc | None = _loc()


SCAN_OPS = ("sum", "prod")


@dataclass(frozen=True)
class Scan(Expr):
    """Inclusive prefix reduction (``cumsum``/``cumprod``) of ``value`` along ``axis``.

    Invalid lanes of the scanned dim count as the identity; they follow the valid ones, so a
    forward scan's valid lanes never see them either way.
    """

    op: str
    value: Expr
    axis: int
    loc: Loc | None = _loc()


@dataclass(frozen=True)
class Dot(Expr):
    """Matrix product of the last two dims of ``lhs`` and ``rhs`` (batched over the leading dims),
    plus ``acc`` if given, computed in ``out_dtype``.

    ``precision`` is how float32 operands enter the multiplier (:data:`DOT_PRECISIONS`): it is
    semantics, not tolerance (a tf32 product differs from an IEEE one by about 1e-3 relative), so
    every frontend resolves its DSL's default into it. ``None`` only where no operand can be
    float32 (fp16, bf16, int8 operands), where it does not matter."""

    lhs: Expr
    rhs: Expr
    acc: Expr | None
    out_dtype: DTypeExpr = F32
    masked: bool = True
    precision: str | None = None
    loc: Loc | None = _loc()


#: Input precisions of a float32 :class:`Dot`: ``tf32`` cuts each operand to TensorFloat-32's 10
#: mantissa bits, truncating, as tensor cores read float32 data (Triton's default ``tl.dot``; its
#: docs: "may be truncated ... without rounding"), before one MMA; ``tf32x3`` splits each into a
#: tf32 high and low part and sums three tf32 MMAs (about float32 accuracy); ``ieee`` multiplies
#: in float32.
DOT_PRECISIONS = ("tf32", "tf32x3", "ieee")


@dataclass(frozen=True)
class Permute(Expr):
    """Reorder the dims of a tile."""

    value: Expr
    perm: tuple[int, ...]
    loc: Loc | None = _loc()


@dataclass(frozen=True)
class Reshape(Expr):
    """Give a tile new dims (same number of elements, row-major)."""

    value: Expr
    shape: tuple[Dim, ...]
    loc: Loc | None = _loc()


@dataclass(frozen=True)
class Broadcast(Expr):
    """``value`` stretched along its unit dims (and new leading dims) to ``shape``."""

    value: Expr
    shape: tuple[Dim, ...]
    loc: Loc | None = _loc()


@dataclass(frozen=True)
class ExpandDims(Expr):
    """Insert a unit dim at ``axis`` (``x[:, None]``)."""

    value: Expr
    axis: int
    loc: Loc | None = _loc()


@dataclass(frozen=True)
class TupleExpr(Expr):
    """A tuple of values (host returns)."""

    items: tuple[Expr, ...]
    loc: Loc | None = _loc()


# --------------------------------------------------------------------------------------------------
# Tunables and tiles


#: What a :class:`Tunable` tunes: a block size, a launch knob, or (``int``) a value of the
#: kernel's own that device code reads as a compile-time integer (Helion's
#: ``hl.register_tunable``, a Triton constexpr in ``triton.Config`` dicts).
TUNABLE_KINDS = ("block_size", "num_warps", "num_stages", "group_size", "int")
#: The search spaces of ``int`` tunables: ``power_of_two`` (the powers of two in ``bounds``),
#: ``integer`` (every integer in ``bounds``), ``choices`` (the listed ``choices``, in order) and
#: ``boolean`` (0 and 1: False and True).
INT_SPACES = ("power_of_two", "integer", "choices", "boolean")


@dataclass(frozen=True)
class Tunable:
    """A named meta-parameter: a block size or launch knob with its default and search space.

    ``kind`` is one of :data:`TUNABLE_KINDS`. An ``int`` tunable is the kernel's own knob (a
    split-K factor, a choice of variant) under its own name, which no block size or launch knob
    takes; ``space`` (:data:`INT_SPACES`) and ``bounds`` (inclusive, for ``power_of_two`` and
    ``integer``) say what its search covers, as the source's DSL said it.
    """

    name: str
    kind: str  # one of TUNABLE_KINDS
    default: int
    choices: tuple[int, ...] = ()
    # A block the source sizes to the data: `min(default, next_power_of_2(extent))` of the
    # extent it tiles, `default` only a cap. A target that can compute a block from sizes
    # should (any block computes the same; a cap of 32768 lanes over 37 columns only wastes).
    fit: bool = False
    space: str | None = None
    bounds: tuple[int, int] | None = None

    def values(self) -> tuple[int, ...]:
        """Every value an ``int`` tunable's space allows (its ``choices`` for other kinds)."""
        if self.space == "boolean":
            return (0, 1)
        if self.space in ("power_of_two", "integer") and self.bounds is not None:
            lo, hi = self.bounds
            if self.space == "integer":
                return tuple(range(lo, hi + 1))
            return tuple(1 << k for k in range(hi.bit_length()) if lo <= 1 << k <= hi)
        return self.choices

    def allows(self, value: int) -> bool:
        """Whether ``value`` lies in this tunable's search space (any value, where it has none)."""
        if self.space in ("power_of_two", "integer") and self.bounds is not None:
            lo, hi = self.bounds
            power = value > 0 and value & (value - 1) == 0
            return lo <= value <= hi and (self.space == "integer" or power)
        values = self.values()
        return not values or value in values


@dataclass(frozen=True)
class TileVar:
    """A tile variable: ``extent`` (host scalar) split into blocks of ``block`` lanes.

    ``block`` is the name of a block-size :class:`Tunable` or a constant ``Const``. ``begin`` is the
    start of the iteration range (``hl.tile(begin, end)``); ``scalar`` marks ``hl.grid``-style
    variables that are plain indices (block 1, the tile is one scalar). ``step`` (loops only) visits
    every ``step``-th tile from ``begin``: the tiles starting at ``begin``, ``begin + step * block``,
    ... below ``extent`` (split-K's strided share of the K tiles; ``hl.grid``'s step).
    """

    name: str
    extent: Expr
    block: str | Const
    begin: Expr | None = None
    scalar: bool = False
    step: Expr | None = None


# --------------------------------------------------------------------------------------------------
# Statements


@dataclass(frozen=True)
class Stmt:
    """Base of statements. ``comments`` are the source's comment lines standing before it."""


@dataclass(frozen=True)
class Assign(Stmt):
    """``target = value`` (device or host)."""

    target: str
    value: Expr
    comments: tuple[str, ...] = ()
    loc: Loc | None = _loc()


@dataclass(frozen=True)
class Store(Stmt):
    """Write ``value`` to a region of host tensor ``tensor``; invalid lanes are not written."""

    tensor: str
    index: tuple[IndexItem, ...]
    value: Expr
    comments: tuple[str, ...] = ()
    loc: Loc | None = _loc()


ATOMIC_OPS = ("add", "max", "min", "xchg")


@dataclass(frozen=True)
class AtomicRMW(Stmt):
    """Atomically combine ``value`` into a region of ``tensor`` (invalid lanes untouched)."""

    op: str
    tensor: str
    index: tuple[IndexItem, ...]
    value: Expr
    comments: tuple[str, ...] = ()
    loc: Loc | None = _loc()


@dataclass(frozen=True)
class TileLoop(Stmt):
    """A sequential loop over the tiles of ``tiles`` (a K loop or a reduction loop)."""

    tiles: tuple[TileVar, ...]
    body: tuple[Stmt, ...]
    comments: tuple[str, ...] = ()
    num_stages: int | None = None
    loc: Loc | None = _loc()


@dataclass(frozen=True)
class While(Stmt):
    """A loop whose trip count each program decides as it runs: ``body`` runs while the scalar
    ``test`` holds, ``test`` evaluated before every iteration (a stream-K program's walk over
    its own share of the iterations, a tile at a time).

    Like a :class:`TileLoop`'s, the names the body rebinds that were bound before the loop are
    carried from one iteration to the next and out of the loop, keeping their type; names the
    body binds first die with it. ``test`` reads only names bound before the loop.
    """

    test: Expr
    body: tuple[Stmt, ...]
    comments: tuple[str, ...] = ()
    loc: Loc | None = _loc()


@dataclass(frozen=True)
class If(Stmt):
    """A conditional on a scalar."""

    test: Expr
    body: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...] = ()
    comments: tuple[str, ...] = ()
    loc: Loc | None = _loc()


# --- host statements


@dataclass(frozen=True)
class Param:
    """A parameter of a host entry or a kernel: a tensor or a scalar (``int``/``float``/``bool``/
    ``str``).

    ``str`` parameters are compile-time choices (Triton ``tl.constexpr``, Helion specialises on
    their value); device code only compares them with string constants. ``constexpr`` marks a
    scalar whose value the kernel is compiled for (a specialised size, a choice). For kernel
    tensors, ``rank`` and ``dtype`` are what the launch proves (``None``: unknown, ``dtype(x)``).
    """

    name: str
    kind: str  # "tensor" | "int" | "float" | "bool" | "str"
    default: Expr | None = None
    annotation: str | None = None
    rank: int | None = None
    dtype: DTypeExpr | None = None
    constexpr: bool = False


@dataclass(frozen=True)
class ShapeUnpack(Stmt):
    """``a, b = x.size()``: ``targets[i]`` binds ``x.size(i)``; ``None`` targets are discarded.

    ``assumed`` (the source construct that implies it, e.g. "`hl.tile(x.size())` has 1 loop
    target") marks a rank the kernels take for ``tensor`` that no host statement of the source
    checks: the source's DSL reads that construct by the tensor's actual rank, a translation
    is written for this one, so every backend checks it on the host before the launch."""

    targets: tuple[str | None, ...]
    tensor: str
    comments: tuple[str, ...] = ()
    assumed: str | None = None
    loc: Loc | None = _loc()


#: What the host allocators that grammars name fill their tensor with, by kind (``None``:
#: uninitialised, or for ``full`` the call's fill value); ``<kind>_like`` takes the shape (and by
#: default the dtype) of a tensor. A frontend reads an allocation into an :class:`Alloc`.
ALLOC_FILLS: dict[str, float | None] = {"empty": None, "zeros": 0.0, "ones": 1.0, "full": None}
ALLOC_KINDS = (*ALLOC_FILLS, *(f"{kind}_like" for kind in ALLOC_FILLS))


@dataclass(frozen=True)
class Alloc(Stmt):
    """A new host tensor: of ``shape`` (host scalars) or shaped like tensor ``like``.

    ``fill`` is ``None`` for uninitialised memory, else the fill value.
    """

    target: str
    shape: tuple[Expr, ...] | None
    like: str | None
    dtype: DTypeExpr
    device_of: str
    fill: float | None = None
    comments: tuple[str, ...] = ()
    loc: Loc | None = _loc()


@dataclass(frozen=True)
class View(Stmt):
    """``target = tensor.view(shape)``: the same memory under a new shape (``-1`` inferred)."""

    target: str
    tensor: str
    shape: tuple[Expr, ...]
    comments: tuple[str, ...] = ()
    loc: Loc | None = _loc()


@dataclass(frozen=True)
class Assert(Stmt):
    """A host-side check."""

    test: Expr
    msg: str | None = None  # the message expression as Python source (an f-string, say)
    comments: tuple[str, ...] = ()
    loc: Loc | None = _loc()


@dataclass(frozen=True)
class Carried(Stmt):
    """A host value computed by code the frontend carries without modelling it (a helper's
    result, ``ctx.saved_tensors``): ``target`` holds a tensor (of ``rank`` where known) or a
    scalar of ``kind``; ``source`` is the code that computes it."""

    target: str
    kind: str  # "tensor" | "int" | "float" | "bool" | "str"
    source: str
    rank: int | None = None
    comments: tuple[str, ...] = ()
    loc: Loc | None = _loc()


@dataclass(frozen=True)
class Hints:
    """Performance hints of a kernel, in no DSL's words: backends use what their DSL can express
    and drop the rest; none is needed for correct results.

    ``schedule``: how programs map to tiles (``"flat"``: one program per tile, row-major over the
    grid; ``"xyz"``: one launch axis per grid dim; ``"persistent_interleaved"`` /
    ``"persistent_blocked"``: a fixed number of programs loop over the tiles). ``index_bits``:
    the integer width offsets are computed in (64 where the source guards against overflow).
    ``fast_math``: transcendental functions may use fast approximations (the source's did).
    ``static_shapes``: the source compiles per input shape. ``autotune``: the source gave no
    configs and left them to its DSL's autotuner (a target that autotunes too should, rather than
    pin the tunables' defaults). ``extras``: dialect-namespaced settings (``"<dialect>.<key>"``)
    that other dialects drop.
    """

    schedule: str | None = None
    index_bits: int | None = None
    fast_math: bool | None = None
    static_shapes: bool | None = None
    autotune: bool | None = None
    extras: tuple[tuple[str, object], ...] = ()

    def extra(self, key: str, default: object = None) -> object:
        """The value of dialect-namespaced setting ``key``, or ``default``."""
        return dict(self.extras).get(key, default)


SCHEDULES = ("flat", "xyz", "persistent_interleaved", "persistent_blocked")


@dataclass(frozen=True)
class InlineKernel(Stmt):
    """A device program written in place inside a host function, reading the host names in scope
    (a Helion kernel's top-level loop; what a frontend lifts before outlining).

    :func:`translator.ir.outline.outline_entry` turns each into a self-contained :class:`Kernel`
    and a :class:`Launch`. ``comments`` stand before the launch; ``doc_comments`` and
    ``docstring`` describe the device program itself.
    """

    name: str
    grid: tuple[TileVar, ...]
    body: tuple[Stmt, ...]
    comments: tuple[str, ...] = ()
    docstring: str | None = None
    doc_comments: tuple[str, ...] = ()
    tunables: tuple[Tunable, ...] = ()
    configs: tuple[tuple[tuple[str, int], ...], ...] = ()
    hints: Hints = Hints()
    site: int | None = None
    tuned: tuple[str, ...] = ()
    partial_dims: tuple[Expr, ...] = ()
    block_texts: tuple[tuple[str, str], ...] = ()
    loc: Loc | None = _loc()


@dataclass(frozen=True)
class Launch(Stmt):
    """The host launches kernel ``kernel`` with ``args``, one host value per kernel parameter.

    ``texts`` spell each argument as Python source valid at the launch site (what a backend writes
    into the carried host code); ``site`` is the index of the launch site in the module's
    :class:`HostPlan` (``None`` for launches no source code spells). ``tuned`` are the source
    launch's arguments that the kernel's tunables stand for (``BLOCK_SIZE=BLOCK_SIZE``,
    ``num_warps=8``): a target that takes them from the kernel's configs says so.
    ``block_texts`` are ``(tunable, text)``: the host value the source launch passes for a
    block-size tunable (a size the host computes, such as ``min(C, next_power_of_2(n))``), for a
    target whose launches pass tile sizes to pass the same value rather than a default.

    ``setup`` and ``value`` are for DSLs whose runtime allocates a kernel's outputs, so that
    the launch is an expression worth them (``c = kernel(a, b)``, ``c`` allocated by the DSL):
    ``setup`` are host statements (Python text, plain torch) that allocate those outputs
    before the launch; ``value`` is the Python text of what the source's launch expression
    evaluated to (the outputs' names). Every target then launches as a statement of its own
    after ``setup``: an expression site becomes ``value``, and a statement site
    (``c = kernel(a, b)``, where ``setup`` binds ``c`` itself) becomes ``setup`` and the launch.
    """

    kernel: str
    args: tuple[Expr, ...]
    texts: tuple[str, ...]
    site: int | None = None
    tuned: tuple[str, ...] = ()
    block_texts: tuple[tuple[str, str], ...] = ()
    setup: tuple[str, ...] = ()
    value: str | None = None
    comments: tuple[str, ...] = ()
    loc: Loc | None = _loc()


@dataclass(frozen=True)
class Return(Stmt):
    """Return host values."""

    value: Expr | None
    comments: tuple[str, ...] = ()
    loc: Loc | None = _loc()


@dataclass(frozen=True)
class Forward:
    """A call from one host function to another that passes some parameters on unchanged.

    ``callee`` is the qualified name of the entry called (``LayerNorm.forward`` for
    ``LayerNorm.apply(...)``); ``args`` maps a callee parameter to what the caller passes: the
    name of one of its own parameters (or of the parameter a :attr:`views` entry flattens), or a
    constant.
    """

    callee: str
    args: tuple[tuple[str, Expr], ...]
    #: Callee parameters given a view of the caller's parameter that is the parameter itself at
    #: one rank, with that rank (``x.reshape(-1, x.shape[-1])``: 2; ``x.contiguous()``: ``None``,
    #: any): an input of that rank passes through unchanged, but the caller's rank is open.
    views: tuple[tuple[str, int | None], ...] = ()
    #: Callee parameters given the transpose of the caller's 2-d parameter (``weight.t()``).
    transposed: tuple[str, ...] = ()


@dataclass(frozen=True)
class Entry:
    """A host function that launches kernels, as far as a frontend could model it.

    ``body`` holds the host statements the frontend understood and a :class:`Launch` per kernel
    launch. ``complete`` is true when every statement was modelled (then the entry can be run by
    the reference interpreter and inputs derived from it); the translation never depends on it:
    host code is carried from the source as written. ``hints`` are facts about the host
    (``rank_specialized``, ``assumed_unit_stride``...). ``forwards`` are the calls through which
    an entry with no launches of its own (a public function calling ``Fn.apply``, a launch
    helper) reaches the entries that launch: validation reads its inputs' shapes from theirs.
    """

    name: str
    params: tuple[Param, ...]
    body: tuple[Stmt, ...]
    docstring: str | None = None
    return_annotation: str | None = None
    comments: tuple[str, ...] = ()
    hints: tuple[tuple[str, object], ...] = ()
    complete: bool = True
    public: bool = True
    forwards: tuple[Forward, ...] = ()
    loc: Loc | None = _loc()

    def launches(self) -> list[Launch]:
        """The launches of this entry, in order."""
        return [s for s in self.body if isinstance(s, Launch)]


def partial_dim(tensor: str, dim: int, extent: Expr) -> Expr:
    """The :attr:`Kernel.partial_dims` entry for dim ``dim`` of ``tensor`` read over ``extent``
    lanes: ``tensor.size(dim) == extent``, which the kernel may not have."""
    return BinOp("==", SizeOf(tensor, dim), extent)


@dataclass(frozen=True)
class Kernel:
    """A self-contained device program launched over ``grid`` (one program per tile combination).

    It reads only its ``params`` (tensors and scalars), its tunables and its own locals.
    ``tunables`` are its meta-parameters; ``configs`` the source's explicit configurations, each a
    mapping from tunable name to value (the first is the default). ``docstring`` and
    ``doc_comments`` describe the program (a source kernel function's docstring and the comments
    above it).

    ``partial_dims`` are equalities ``x.size(d) == extent`` that a whole-dim index of the body
    (``FullIndex(extent)``, lanes ``[0, extent)``) may not have: its extent could not be proved
    the dim's size (the source read ``x[i, :n]`` of a row of ``x.size(1)``, or nothing says that
    ``n`` is that size). The IR's meaning does not depend on them; a backend whose whole-dim
    spelling reads the entire dim (Helion's ``x[i, :]``) spells these ``x[i, :n]``.
    """

    name: str
    params: tuple[Param, ...]
    grid: tuple[TileVar, ...]
    body: tuple[Stmt, ...]
    tunables: tuple[Tunable, ...] = ()
    configs: tuple[tuple[tuple[str, int], ...], ...] = ()
    hints: Hints = Hints()
    docstring: str | None = None
    doc_comments: tuple[str, ...] = ()
    partial_dims: tuple[Expr, ...] = ()
    loc: Loc | None = _loc()

    def tunable(self, name: str) -> Tunable:
        """The tunable called ``name``."""
        for t in self.tunables:
            if t.name == name:
                return t
        raise KeyError(name)

    def param(self, name: str) -> Param:
        """The parameter called ``name``."""
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)


# --------------------------------------------------------------------------------------------------
# The carried host module


@dataclass(frozen=True)
class Span:
    """A region of the source text: 1-based lines, 0-based columns, end exclusive."""

    start_line: int
    start_col: int
    end_line: int
    end_col: int


@dataclass(frozen=True)
class Site:
    """Where host code launches a kernel: an expression (``kernel[grid](...)``) or a whole
    statement (a Helion kernel's top-level loop), to be replaced by the target's launch."""

    span: Span
    statement: bool


EDIT_KINDS = ("define", "insert", "remove", "replace", "append")


@dataclass(frozen=True)
class HostEdit:
    """One change to the carried source.

    * ``define``: the statement at ``span`` (a source kernel definition) becomes the target
      definitions of ``kernels``; ``keep`` lists decorator texts (outermost first) the target
      definitions keep above their own;
    * ``insert``: the target definitions of ``kernels`` go before the statement at ``span``;
    * ``remove``: the statement or decorator at ``span`` goes (``note`` says why, where a reader
      needs to know);
    * ``replace``: the code at ``span`` becomes ``text``;
    * ``append``: ``text`` (whole statements) goes at the end of the module.

    ``note`` is a ``# tiletrans:`` comment placed above the edited statement.
    """

    kind: str
    span: Span | None = None
    kernels: tuple[str, ...] = ()
    text: str = ""
    note: str | None = None
    keep: tuple[str, ...] = ()
    if_unused: tuple[str, ...] = ()


@dataclass(frozen=True)
class HostPlan:
    """The source module, carried as written, and the edits that make it the translation.

    ``packages`` are the import roots of the source's DSL: imports of them that nothing in the
    translation reads any more are dropped.
    """

    source: str
    sites: tuple[Site, ...] = ()
    edits: tuple[HostEdit, ...] = ()
    packages: tuple[str, ...] = ()


@dataclass(frozen=True)
class Module:
    """A translation unit: kernels, the host functions that launch them, and the carried source."""

    path: str
    entries: tuple[Entry, ...]
    kernels: tuple[Kernel, ...] = ()
    host: HostPlan | None = None
    docstring: str | None = None
    header_comments: tuple[str, ...] = ()
    source_hash: str = ""
    source_dialect: str = ""

    def kernel(self, name: str) -> Kernel:
        """The kernel called ``name``."""
        for k in self.kernels:
            if k.name == name:
                return k
        raise KeyError(name)
