"""The abstract values of the Triton lifter: what a kernel's names are bound to while it is lifted.

* :class:`Idx`: an integer (or boolean) tree over the index symbols of
  :mod:`translator.dialects.triton.symbols`: offsets, masks, program ids, loop counters;
* :class:`Ptr`: a host tensor plus an :class:`Idx` offset (``x_ptr + offs``);
* :class:`Data`: an IR expression with what its invalid lanes hold;
* :class:`Pending`: ``tl.zeros``/``tl.full`` whose dims are not known yet;
* :class:`FlagChoice`: a value a constexpr flag decides;

and the tiles, loops and access items the lifter recovers from them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from translator.diagnostics import TranslationError
from translator.dialects.triton import frontend_affine as af
from translator.ir import nodes as ir

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
    """A lane accumulator rewritten to a reduction: ``acc = tl.zeros([B])`` before a loop whose
    body does ``acc += v`` (``v`` spanning the loop's tile), read once after as
    ``tl.sum(acc, 0)``, becomes a scalar sum. With more dims (``tl.zeros([BM, BN])``, ``v``
    spanning an outer tile and the loop's), ``axis`` is the loop's dim, which the read sums
    (``tl.sum(acc, axis=1)``): the accumulator holds the other dims."""

    name: str
    loop: int
    axis: int = 0
    rank: int = 1  # of the source's accumulator


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
class FlagChoice:
    """A value that a constexpr flag decides: what a name holds after ``if FLAG:`` changed it
    (Liger's ``if RETURN_Z_LOSS: z_loss_ptr += row * stride``), ``on`` where ``flag`` is true
    and ``off`` where it is false (``None``: undefined there). Triton compiles one kernel per
    flag value; the lifter resolves it where the enclosing branches decide the flag."""

    flag: str
    on: Any
    off: Any
    node: cst.CSTNode = field(compare=False, repr=False)


@dataclass(frozen=True)
class Func:
    """A ``@triton.jit`` helper function."""

    name: str


Val = Any


@dataclass
class Tile:
    """A tile of the IR: lanes ``block * id + arange(block)`` along one tensor dim.

    ``base`` is the text of the symbol of its id (a program id, a swizzled id, a loop counter, a
    program-id digit) or ``None`` for a whole dim.
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
    # A host check before the launch makes the extent a multiple of the block (`assert n %
    # BLOCK == 0`): no block has lanes past the end on any size the host accepts.
    whole_blocks: bool = False
    # Loop tiles that visit every `step`-th tile from tile `start` (split-K): trees over params
    # and program ids. `used`: an access reads or writes through the tile (not only an offset).
    start: ir.Expr | None = None
    step: ir.Expr | None = None
    used: bool = False
    # Loop tiles whose lanes start at a scalar that is no whole number of tiles (a jagged
    # sequence's loaded first row): lanes ``offset + block * it + arange(block)``; the tile
    # tree of the offset, and ``extent`` may then be a device scalar too (the row's end).
    offset: ir.Expr | None = None
    # Tiles whose id the program computes in a while loop (``pid_m`` of a stream-K tile): the
    # id's tree; ``home`` is the IR block where their offsets are computed, around whose
    # statements that use them the IR loop over the one tile goes once ``closed``.
    at: ir.Expr | None = None
    home: list | None = field(default=None, compare=False, repr=False)
    closed: bool = False

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
    origin: ir.Expr | None = None  # tree: a non-unit-step loop's nonzero start
    start: ir.Expr | None = None  # tree: a unit-step loop's nonzero start (its counter's first)
    while_loop: bool = False  # a `while` loop (no counter, no tile)


@dataclass
class Item:
    """One tensor dim of an access."""

    kind: str  # "tile" | "scalar" | "gather"
    index: ir.IndexItem
    dims: list[tuple[int, ir.Dim, Tile | None]] = field(default_factory=list)  # (axis, dim, tile)
    polys: list[tuple[af.Poly, Tile]] = field(default_factory=list)  # lanes a mask must bound
    wrapped: list[tuple[Tile, ir.Expr]] = field(default_factory=list)


class Refusal(TranslationError):
    """A kernel construct the lifter cannot prove it translates exactly."""


@dataclass(frozen=True)
class Unbound:
    """A kernel parameter the launch binds to nothing the IR can use (``why``: the reason)."""

    name: str
    why: str | None = None
