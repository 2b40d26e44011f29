"""Block pointers and tensor descriptors, read as the pointer arithmetic and masks they stand for.

``tl.make_block_ptr(base, shape, strides, offsets, block_shape, order)`` names a window
``[offsets, offsets + block_shape)`` of a strided tensor; a load or store through it touches
``base + sum_d (offsets[d] + arange(block_shape[d])) * strides[d]``, bounds-checked along the dims
of ``boundary_check`` (``offs < shape[d]``), out-of-bounds lanes reading ``padding_option``.
``tl.make_tensor_descriptor(base, shape, strides, block_shape)`` (TMA) is the same with the
offsets given at each ``desc.load(offsets)`` / ``desc.store(offsets, value)``, every dim checked,
out-of-bounds reads zero and out-of-bounds writes dropped. Desugared this way, both go through the
affine analysis of :mod:`translator.dialects.triton.frontend_device` like any pointer: the dims a
window spans, its tiles and its masks are recovered the same way, and a window the analysis cannot
prove a tile region is refused the same way. ``order`` is a layout hint and changes nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst

from translator.dialects.cst_utils import call_args, literal
from translator.dialects.triton import frontend_affine as af
from translator.dialects.triton.lifted import Idx, Ptr
from translator.dialects.triton.symbols import Sym
from translator.ir import nodes as ir

if TYPE_CHECKING:
    from translator.dialects.triton.frontend import EntryBuilder
    from translator.dialects.triton.frontend_device import KernelLifter


@dataclass(frozen=True)
class BlockPtr:
    """A block pointer: kernel parameter ``tensor`` and index trees per window dim."""

    tensor: str
    shape: tuple[ir.Expr, ...]
    strides: tuple[ir.Expr, ...]
    offsets: tuple[ir.Expr, ...]
    block: tuple[af.Key, ...]


@dataclass(frozen=True)
class Descriptor:
    """A tensor descriptor: a block pointer whose offsets each access gives."""

    tensor: str
    shape: tuple[ir.Expr, ...]
    strides: tuple[ir.Expr, ...]
    block: tuple[af.Key, ...]
    padding: float = 0.0  # what out-of-bounds lanes read (a host descriptor's `padding="nan"`)


_BLOCK_PTR_ARGS = ("base", "shape", "strides", "offsets", "block_shape", "order")
_DESCRIPTOR_ARGS = ("base", "shape", "strides", "block_shape")
PADDING = {"zero": 0.0, "nan": math.nan}


def bound_args(node: cst.Call, names: tuple[str, ...], lifter: KernelLifter | EntryBuilder) -> dict:
    """The arguments of ``node`` by parameter name; an unknown keyword is refused."""
    args, kwargs = call_args(node)
    out = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names:
            raise lifter.error(v, f"unsupported argument `{k}=`")
        out[k] = v
    return out


def _trees(lifter: KernelLifter, node: cst.BaseExpression | None, what: str, where) -> tuple:
    if not isinstance(node, (cst.List, cst.Tuple)):
        raise lifter.error(where, f"{what} must be a tuple or list")
    out = []
    for el in node.elements:
        v = lifter.ev(el.value)
        if not isinstance(v, Idx) or lifter.rank_of(v.tree):
            raise lifter.error(el.value, f"each of the {what} must be an integer scalar")
        out.append(v.tree)
    return tuple(out)


def _base(lifter: KernelLifter, node: cst.BaseExpression | None, where) -> str:
    base = lifter.ev(node) if node is not None else None
    if not isinstance(base, Ptr) or base.tree != ir.Const(0):
        raise lifter.error(
            where,
            "the base must be a tensor argument of the kernel, not an offset pointer",
            "offset the window through `offsets=`",
        )
    return base.tensor


def make_block_ptr(lifter: KernelLifter, node: cst.Call) -> BlockPtr:
    """``tl.make_block_ptr(...)``."""
    a = bound_args(node, _BLOCK_PTR_ARGS, lifter)
    for name in _BLOCK_PTR_ARGS[:5]:
        if name not in a:
            raise lifter.error(node, f"tl.make_block_ptr needs `{name}=`")
    shape = _trees(lifter, a["shape"], "shape", node)
    strides = _trees(lifter, a["strides"], "strides", node)
    offsets = _trees(lifter, a["offsets"], "offsets", node)
    block = _keys(lifter, a["block_shape"], node)
    if not len(shape) == len(strides) == len(offsets) == len(block):
        raise lifter.error(node, "shape, strides, offsets and block_shape differ in length")
    # The window's lanes name their tiles now, as `pid * BLOCK + tl.arange(0, BLOCK)` would.
    for d, (off, key) in enumerate(zip(offsets, block)):
        lifter.register_tiles(ir.BinOp("+", off, Sym.lane(key, d - len(block)).expr))
    return BlockPtr(_base(lifter, a["base"], node), shape, strides, offsets, block)


def make_descriptor(lifter: KernelLifter, node: cst.Call) -> Descriptor:
    """``tl.make_tensor_descriptor(...)``."""
    a = bound_args(node, _DESCRIPTOR_ARGS, lifter)
    for name in _DESCRIPTOR_ARGS:
        if name not in a:
            raise lifter.error(node, f"tl.make_tensor_descriptor needs `{name}=`")
    shape = _trees(lifter, a["shape"], "shape", node)
    strides = _trees(lifter, a["strides"], "strides", node)
    block = _keys(lifter, a["block_shape"], node)
    if not len(shape) == len(strides) == len(block):
        raise lifter.error(node, "shape, strides and block_shape differ in length")
    return Descriptor(_base(lifter, a["base"], node), shape, strides, block)


def _keys(lifter: KernelLifter, node: cst.BaseExpression | None, where) -> tuple[af.Key, ...]:
    if not isinstance(node, (cst.List, cst.Tuple)):
        raise lifter.error(where, "block_shape must be a tuple or list")
    return tuple(lifter.block_key(el.value) for el in node.elements)


def advance(lifter: KernelLifter, node: cst.Call) -> BlockPtr:
    """``tl.advance(block_ptr, offsets)``: the window moved by ``offsets``."""
    args, kwargs = call_args(node)
    if len(args) != 2 or kwargs:
        raise lifter.error(node, "tl.advance(block_ptr, offsets) takes two arguments")
    bp = lifter.ev(args[0])
    if not isinstance(bp, BlockPtr):
        raise lifter.error(args[0], "tl.advance needs a block pointer")
    steps = _trees(lifter, args[1], "offsets", node)
    if len(steps) != len(bp.offsets):
        raise lifter.error(
            node, f"tl.advance by {len(steps)} offsets of a {len(bp.offsets)}-d block pointer"
        )
    moved = tuple(ir.BinOp("+", o, s) for o, s in zip(bp.offsets, steps))
    return BlockPtr(bp.tensor, bp.shape, bp.strides, moved, bp.block)


def window(
    lifter: KernelLifter,
    tensor: str,
    shape: tuple,
    strides: tuple,
    offsets: tuple,
    block: tuple,
    checked: tuple[int, ...],
) -> tuple[Ptr, Idx | None]:
    """The pointer tile and the mask of one access: lanes ``offsets[d] + arange(block[d])``
    along Triton axis ``d - rank``, bounded by ``shape[d]`` along the ``checked`` dims."""
    rank = len(block)
    tree: ir.Expr = ir.Const(0)
    mask: ir.Expr | None = None
    for d, (size, stride, off, key) in enumerate(zip(shape, strides, offsets, block)):
        index = ir.BinOp("+", off, Sym.lane(key, d - rank).expr)
        tree = ir.BinOp("+", tree, ir.BinOp("*", index, stride))
        if d in checked:
            bound = ir.BinOp("<", index, size)
            mask = bound if mask is None else ir.BinOp("&", mask, bound)
    return Ptr(tensor, tree), (Idx(mask) if mask is not None else None)


def boundary_check(
    lifter: KernelLifter, node: cst.BaseExpression | None, rank: int
) -> tuple[int, ...]:
    """The dims of ``boundary_check=``."""
    if node is None:
        return ()
    try:
        dims = literal(node)
    except ValueError:
        dims = None
    if isinstance(dims, int):
        dims = (dims,)
    if not isinstance(dims, (tuple, list)) or not all(isinstance(d, int) for d in dims):
        raise lifter.error(node, "boundary_check= must be a tuple of dim numbers")
    if any(not 0 <= d < rank for d in dims):
        raise lifter.error(node, f"boundary_check= names a dim outside the {rank}-d window")
    return tuple(dims)


def padding(
    lifter: KernelLifter | EntryBuilder,
    node: cst.BaseExpression | None,
    keyword: str = "padding_option",
) -> float | None:
    """What ``padding_option=`` (a host descriptor's ``padding=``) makes out-of-bounds lanes
    read (``None``: unspecified)."""
    if node is None:
        return None
    try:
        value = literal(node)
    except ValueError:
        value = None
    if value == "":
        return None
    if value not in PADDING:
        raise lifter.error(
            node, f"unsupported {keyword} `{lifter.src(node)}`", f'use {keyword}="zero" or "nan"'
        )
    return PADDING[value]
