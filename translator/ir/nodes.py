"""Nodes of the tile IR.

The IR is shared by every DSL and knows nothing of any of them. A :class:`Module` holds host entry
points; each :class:`Entry` is a public function (parameters, host statements, returns) whose
:class:`Kernel` statements are the device programs it launches. Device code is structured: named
variables, expression trees, tile loops. Values are tiles, whose dimensions are the block of a tile
variable, a full tensor dimension, or 1, and scalars.

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


@dataclass(frozen=True)
class Loc:
    """A position in a source file (1-based line, 0-based column, as libcst reports them)."""

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col + 1}"


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
    """Read a region of host tensor ``tensor``. ``other`` is what invalid lanes read as."""

    tensor: str
    index: tuple[IndexItem, ...]
    other: float | None = 0.0
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
    plus ``acc`` if given, computed in ``out_dtype``."""

    lhs: Expr
    rhs: Expr
    acc: Expr | None
    out_dtype: DTypeExpr = F32
    masked: bool = True
    loc: Loc | None = _loc()


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


@dataclass(frozen=True)
class Tunable:
    """A named meta-parameter: a block size or launch knob with its default and search space."""

    name: str
    kind: str  # "block_size" | "num_warps" | "num_stages" | "group_size"
    default: int
    choices: tuple[int, ...] = ()


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
    """A host entry parameter: a tensor or a scalar (``int``/``float``/``bool``/``str``).

    ``str`` parameters are compile-time choices (Triton ``tl.constexpr``, Helion specialises on
    their value); device code only compares them with string constants.
    """

    name: str
    kind: str  # "tensor" | "int" | "float" | "bool" | "str"
    default: Expr | None = None
    annotation: str | None = None


@dataclass(frozen=True)
class ShapeUnpack(Stmt):
    """``a, b = x.size()``: ``targets[i]`` binds ``x.size(i)``; ``None`` targets are discarded."""

    targets: tuple[str | None, ...]
    tensor: str
    comments: tuple[str, ...] = ()
    loc: Loc | None = _loc()


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
class Kernel(Stmt):
    """A device program launched over the grid ``grid`` (one program per tile combination).

    ``comments`` stand before the launch; ``doc_comments`` and ``docstring`` describe the device
    program itself (a source kernel function's leading comments and docstring), for backends
    that define one."""

    name: str
    grid: tuple[TileVar, ...]
    body: tuple[Stmt, ...]
    comments: tuple[str, ...] = ()
    hints: tuple[tuple[str, object], ...] = ()
    docstring: str | None = None
    doc_comments: tuple[str, ...] = ()
    loc: Loc | None = _loc()

    def hint(self, key: str, default: object = None) -> object:
        """The value of hint ``key``, or ``default``."""
        return dict(self.hints).get(key, default)


@dataclass(frozen=True)
class Return(Stmt):
    """Return host values."""

    value: Expr | None
    comments: tuple[str, ...] = ()
    loc: Loc | None = _loc()


@dataclass(frozen=True)
class Entry:
    """A public host function: parameters, host statements with kernel launches, returns.

    ``tunables`` are the meta-parameters of its kernels; ``configs`` the source's explicit
    configurations, each a mapping from tunable name to value (the first is the default).
    """

    name: str
    params: tuple[Param, ...]
    body: tuple[Stmt, ...]
    tunables: tuple[Tunable, ...] = ()
    configs: tuple[tuple[tuple[str, int], ...], ...] = ()
    docstring: str | None = None
    return_annotation: str | None = None
    comments: tuple[str, ...] = ()
    hints: tuple[tuple[str, object], ...] = ()
    loc: Loc | None = _loc()

    def tunable(self, name: str) -> Tunable:
        """The tunable called ``name``."""
        for t in self.tunables:
            if t.name == name:
                return t
        raise KeyError(name)

    def kernels(self) -> list[Kernel]:
        """The kernels this entry launches, in order."""
        return [s for s in self.body if isinstance(s, Kernel)]


@dataclass(frozen=True)
class Module:
    """A translation unit: entries plus the module's docstring and leading comments."""

    path: str
    entries: tuple[Entry, ...]
    docstring: str | None = None
    header_comments: tuple[str, ...] = ()
    source_hash: str = ""
