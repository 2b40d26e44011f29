"""What the TileLang frontend's parts share: the grammar, a factory's and an eager kernel's
model, the module's facts, buffers, and small helpers."""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from translator.diagnostics import TranslationError
from translator.dialects.cst_utils import (
    BINARY_OPERATORS,
    Locator,
    resolve,
    source_of,
)
from translator.grammar import load_grammar
from translator.ir import nodes as ir
from translator.ir.padding import fold_pad

BINOPS = BINARY_OPERATORS
COMPARISONS: dict[type, str] = {
    cst.LessThan: "<",
    cst.LessThanEqual: "<=",
    cst.GreaterThan: ">",
    cst.GreaterThanEqual: ">=",
    cst.Equal: "==",
    cst.NotEqual: "!=",
}
#: The ``[frontend.language]`` roles of sequential loops (TVMScript reads Python's ``range`` in
#: a prim_func as ``T.serial``).
SEQUENTIAL_LOOPS = ("pipelined", "serial", "range")

REDUCE_COMBINE = {"sum": "+", "max": "maximum", "min": "minimum"}


def grammar() -> dict:
    return load_grammar("tilelang")["frontend"]


def is_ceildiv(name: str | None) -> bool:
    """Whether the callee ``name`` (after import aliases) divides rounding up: ``T.ceildiv``,
    or the host helper ``tilelang.cdiv`` (``import tilelang as tl; tl.cdiv(DV, BV)``), which is
    ``(a + b - 1) // b``, the same integer for the positive divisors sizes are divided by."""
    g = grammar()
    return name == g["language"]["ceildiv"] or g["scalar_pointwise"].get(name or "") == "cdiv"


def dtype_name(text: str, g: dict) -> str | None:
    """The IR dtype a TileLang dtype string or dotted name spells (``"float"`` -> float32)."""
    return g["dtypes"].get(text)


@dataclass
class Factory:
    """One ``@tilelang.jit`` factory: its parameters, prim_func and what they are used for."""

    fn: cst.FunctionDef
    prim: cst.FunctionDef
    params: list[str]
    defaults: dict[str, cst.BaseExpression]
    out_idx: list[int]
    configs: list[dict[str, int]]
    autotuned: bool
    #: prim_func tensors: name -> (shape entries, dtype expression)
    tensors: dict[str, tuple[list[cst.BaseExpression], cst.BaseExpression]] = field(
        default_factory=dict
    )
    tensor_order: list[str] = field(default_factory=list)
    #: factory parameter -> (tensor, dim) of the first shape entry it names
    sizes: dict[str, tuple[str, int]] = field(default_factory=dict)
    #: factory parameter -> tensor whose dtype it names
    dtypes: dict[str, str] = field(default_factory=dict)
    #: factory parameter -> tensor whose whole shape it is (``T.StridedTensor(x_shape, ...)``)
    shapes: dict[str, str] = field(default_factory=dict)
    #: prim_func scalar parameters (``scale: T.float32``), after its tensors: name -> IR dtype
    runtime_scalars: dict[str, str] = field(default_factory=dict)
    #: factory-body assignments before the prim_func (``n_pad = ...``)
    locals: dict[str, cst.BaseExpression] = field(default_factory=dict)
    #: the ``with T.Kernel(...)`` block (the prim_func's body, or the eager function's)
    kernel_with: cst.With | None = None
    #: the IR kernel's name (an eager function's own name is its host function's)
    kernel_name: str = ""
    #: ``@T.macro`` functions of the factory body, by name (read in place where called)
    macros: dict[str, cst.FunctionDef] = field(default_factory=dict)
    #: the module function that builds the autotune configs (``configs=get_configs()``)
    config_builder: str | None = None
    #: eager style: the function is the host function too (:class:`Eager`)
    eager: Eager | None = None
    #: factory-body ``if`` statements on the factory's arguments, decided once the launch
    #: values are read (``if group_size == -1: group_size = K``)
    #: (with the names a later statement of the body binds again)
    #: factory-body ``if``s: the names bound after each, and which local read each name
    #: when it was reached (:func:`factory.decide_branches` refuses a rebinding of a read name)
    branches: list[tuple[cst.If, frozenset[str], dict[str, str]]] = field(default_factory=list)
    #: factory parameter -> the literal its launches must pass (what a decided ``if`` read),
    #: with the test of that ``if`` (a statement's or an ``a if test else b``'s)
    assumed: dict[str, tuple[object, cst.BaseExpression]] = field(default_factory=dict)
    #: ``# tiletrans:`` notes on the kernel (the factory's asserts, not carried)
    notes: list[str] = field(default_factory=list)


@dataclass
class Eager:
    """The host side of an eager-style kernel (``T.const`` sizes, annotated tensors,
    ``T.empty`` outputs): the statements that declare them, which the translation rewrites in
    plain torch, and the ``with T.Kernel`` block, which becomes the launch."""

    consts: list[tuple[cst.SimpleStatementLine, list[str]]] = field(default_factory=list)
    annotations: list[cst.SimpleStatementLine] = field(default_factory=list)
    #: ``C = T.empty(...)`` statements and the output each binds
    outputs: list[tuple[cst.SimpleStatementLine, str]] = field(default_factory=list)
    inputs: list[str] = field(default_factory=list)


@dataclass
class ModuleFacts:
    """What the lifters share about one file."""

    path: str
    locate: Locator
    aliases: dict[str, str]
    module_ints: dict[str, int] = field(default_factory=dict)
    #: per factory: the arguments of its first launch (parameter -> expression)
    launch_args: dict[str, dict[str, cst.BaseExpression]] = field(default_factory=dict)
    #: per factory: the literals its first launch's arguments hold, read through the launching
    #: function's names (``block_M = 128``, an argparse default): the start of its knobs
    launch_values: dict[str, dict[str, cst.BaseExpression]] = field(default_factory=dict)
    #: per factory: where the module names it outside the launches the frontend reads
    unread_uses: dict[str, ir.Loc] = field(default_factory=dict)
    #: the module's top-level functions by name (autotune config builders are read from them)
    functions: dict[str, cst.FunctionDef] = field(default_factory=dict)
    #: the module's top-level classes by name (a config builder's tune-space record)
    classes: dict[str, cst.ClassDef] = field(default_factory=dict)

    def name_of(self, node: cst.BaseExpression) -> str | None:
        return resolve(node, self.aliases)

    def error(self, node: cst.CSTNode, what: str, hint: str | None = None) -> TranslationError:
        return TranslationError(what, self.locate(node), hint)


@dataclass
class Buffer:
    """A TileLang buffer: its dims and element type."""

    name: str
    dims: tuple[ir.Dim, ...]
    dtype: ir.DTypeExpr
    node: cst.CSTNode
    #: per dim: whether the buffer spans a power of two past the dim's extent
    #: (``tilelang.math.next_power_of_2(N)`` lanes of a whole dim)
    padded: tuple[bool, ...] = ()
    #: what its lanes past a padded extent hold (``None``: not one known number)
    pad: float | None = None


def ir_scalar_type(kind: str) -> object:
    from translator.ir.shapes import ScalarType

    dt = {"float": ir.F32, "int": ir.I32, "bool": ir.BOOL, "str": ir.STR}[kind]
    return ScalarType(dt, weak=True)


def strided_start(
    node: cst.BinaryOperation, tile: str
) -> tuple[cst.BaseExpression, cst.BaseExpression, cst.BaseExpression] | None:
    """``(block, step, first)`` of a split-K tile start ``(tile * step + first) * block`` (the
    factors and terms in either order)."""
    if not isinstance(node.operator, cst.Multiply):
        return None
    for inner, block in ((node.left, node.right), (node.right, node.left)):
        if not (isinstance(inner, cst.BinaryOperation) and isinstance(inner.operator, cst.Add)):
            continue
        for scaled, first in ((inner.left, inner.right), (inner.right, inner.left)):
            if not (
                isinstance(scaled, cst.BinaryOperation)
                and isinstance(scaled.operator, cst.Multiply)
            ):
                continue
            for var, step in ((scaled.left, scaled.right), (scaled.right, scaled.left)):
                if isinstance(var, cst.Name) and var.value == tile:
                    return block, step, first
    return None


def cst_text(node: cst.CSTNode) -> str:
    """``node`` as written, without surrounding whitespace (starts are matched as written)."""
    return source_of(node).strip()


def is_product(node: cst.BaseExpression, a: cst.BaseExpression, b: cst.BaseExpression) -> bool:
    """Whether ``node`` is ``a * b`` (either order), compared as written."""
    return (
        isinstance(node, cst.BinaryOperation)
        and isinstance(node.operator, cst.Multiply)
        and sorted((cst_text(node.left), cst_text(node.right)))
        == sorted((cst_text(a), cst_text(b)))
    )


def offset_start(
    node: cst.BaseExpression, begin: cst.BaseExpression, name: str, block: cst.BaseExpression
) -> bool:
    """Whether ``node`` is ``begin + name * block`` (the terms and factors in either order)."""
    if not (isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add)):
        return False
    return any(
        cst_text(b) == cst_text(begin) and is_product(rest, cst.Name(name), block)
        for b, rest in ((node.left, node.right), (node.right, node.left))
    )


def block_text(tile: ir.TileVar) -> str:
    return str(tile.block.value) if isinstance(tile.block, ir.Const) else tile.block


def fold_pads(op: str, pads: list[float | None]) -> float | None:
    """``fold_pad`` with data lanes finite; ``None`` where no operand is a known number."""
    if all(p is None for p in pads):
        return None
    return fold_pad(op, pads, "finite")


def decorator_of(fn: cst.FunctionDef, mod: ModuleFacts, name: str) -> cst.Decorator | None:
    for d in fn.decorators:
        target = d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator
        if mod.name_of(target) == name:
            return d
    return None


def is_docstring(s: cst.CSTNode) -> bool:
    """Whether ``s`` is a docstring statement (a lone string expression)."""
    return (
        isinstance(s, cst.SimpleStatementLine)
        and isinstance(s.body[0], cst.Expr)
        and isinstance(s.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )
