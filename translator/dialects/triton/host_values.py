"""The Triton frontend's model of host values: what a launch argument is (a tensor with its
layout facts, a size, a stride, a dtype, an opaque value) and what it binds a kernel parameter to."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from translator.diagnostics import TranslationError
from translator.ir import nodes as ir

#: The default of a tunable that stands in for a block size the host computes out of sight (or
#: a derived wrapper's caller passes).
STAND_IN_BLOCK = 1024


@dataclass(eq=False)
class HTensor:
    name: str  # IR name
    source: str
    dtype: ir.DTypeExpr
    rank: int | None = None
    contiguous: bool = False
    unit_last: bool = False
    cast: ir.DType | None = None  # loads read through this cast (a host `.to(dtype)` copy)
    copy: bool = False  # a copy the source makes (`.contiguous()`, `.to()`): never written
    flat: str | None = None
    reshape_rank: int | None = None
    like: HTensor | None = None  # allocated `*_like` this tensor (the same shape)
    # Made from this tensor by a layout change (`x.transpose(0, 1)`, `.clone()`): the same rank.
    rank_like: HTensor | None = None
    # An unannotated parameter taken for a tensor until a launch passes it as a scalar.
    guessed: bool = False
    # A parameter annotated `Optional[torch.Tensor]` / `torch.Tensor | None`: may be None.
    optional: bool = False
    # `x.view(-1, x.shape[-1])`: the tensor this one views (its strides follow that one's).
    view_of: HTensor | None = None
    # The opaque value of the host name this tensor was found to hold (`a_flat.stride(0)`,
    # a launch passing it as a pointer): the same host value, for tests compared by identity.
    promoted_from: object = None


@dataclass(frozen=True)
class HScalar:
    expr: ir.Expr
    kind: str = "int"  # "int" | "float" | "bool"


@dataclass(frozen=True)
class HOpaque:
    why: str
    lo: int | None = None
    hi: int | None = None
    # A parameter that defaults to None (an optional tensor): a pointer it is passed as may be
    # None at some launches.
    may_be_none: bool = False
    # Why the frontend could not model the statement that bound it, for launches that need it.
    cause: TranslationError | None = field(default=None, compare=False)


@dataclass(frozen=True)
class BranchTest:
    """A host test a launch's constexpr flag can be bound to: ``x is not None`` (``kind``
    ``"present"``) or the truth of ``x`` (``"truth"``), for the host name ``name`` holding the
    value ``value`` (compared by identity, so that a rebinding of the name between the test and
    the launch is a different test), ``polarity`` False for the negation."""

    name: str
    kind: str
    value: Any = field(compare=False)
    polarity: bool = True

    def same_test(self, other: BranchTest) -> bool | None:
        """Whether ``other`` holds exactly where this one does (True), exactly where it does
        not (False), or neither is known (None)."""
        if (self.name, self.kind) != (other.name, other.kind) or self.value is not other.value:
            return None
        return self.polarity == other.polarity


@dataclass(frozen=True)
class HBranch(HOpaque):
    """A name a host ``if`` assigns (``stride_s = s.stride(0)`` under ``if s is not None:``,
    ``0`` otherwise): opaque to the IR, but a launch whose constexpr flag is bound to the same
    test (``HAS_S=s is not None``) binds the parameter to ``when_true`` under that flag, as
    Triton compiles the kernel per flag value."""

    test: BranchTest | None = None
    when_true: Any = None
    when_false: Any = None


@dataclass(frozen=True)
class HShape:
    tensor: HTensor


@dataclass(frozen=True)
class HStride:
    tensor: HTensor
    dim: int


@dataclass(frozen=True)
class HTuple:
    items: tuple
    # The tuple display it was written as, if any (a grid `(triton.cdiv(M, BM), ...)`).
    node: cst.BaseExpression | None = field(default=None, compare=False)


@dataclass(frozen=True)
class HDType:
    dtype: ir.DTypeExpr


@dataclass(frozen=True)
class HDevice:
    tensor: HTensor


@dataclass(frozen=True)
class HStatic:
    value: object


@dataclass(frozen=True)
class HGrid:
    """A launch grid computed from the meta-parameters: ``lambda META: (...)`` or a local
    ``def grid(meta): return (...)``."""

    params: tuple[str, ...]
    body: cst.BaseExpression
    node: cst.CSTNode


@dataclass(frozen=True)
class HKwargs:
    """A dict of launch keywords the host builds and passes as ``**kernel_args`` (Liger's
    idiom): each string key's value node and its host value when it was set."""

    entries: tuple[tuple[str, cst.BaseExpression, Any], ...] = ()

    def with_entry(self, key: str, node: cst.BaseExpression, value: Any) -> HKwargs:
        """This dict with ``key`` set (replacing an earlier value)."""
        kept = tuple(e for e in self.entries if e[0] != key)
        return HKwargs((*kept, (key, node, value)))


@dataclass(frozen=True)
class HArgs:
    """The ``args`` dict a heuristic lambda reads: the launch's argument values by name."""

    values: dict


@dataclass(frozen=True)
class HFact:
    """A layout/dtype fact an assert can state but the IR cannot: ``x.is_contiguous()``."""

    kind: str
    tensor: HTensor | None = None


@dataclass
class Binding:
    """What the launch passes for one kernel parameter."""

    kind: str  # tensor | descriptor | stride | int | float | str | constexpr | static | opaque
    tensor: str | None = None  # source text of the tensor
    htensor: HTensor | None = None
    dim: int | None = None
    expr: ir.Expr | None = None
    value: object = None
    why: str | None = None
    tuned: bool = False


@dataclass(frozen=True)
class BlockInfo:
    kind: str  # "tile" | "full"
    block: str | ir.Const | None = None
    exact: bool = True
    full_extent: ir.Expr | None = None
    expr: ir.Expr | None = None
    # A whole dim whose block is its extent itself (`HEAD_DIM = q.shape[-1]`): no padded lanes.
    padded: bool = True


def branch_test(node: cst.BaseExpression, scope: dict[str, Any]) -> BranchTest | None:
    """``node`` as a :class:`BranchTest` over ``scope`` (``x is not None``, ``x is None``, ``x``,
    ``not x``, with ``x`` a host name), or None for any other test."""
    polarity = True
    while isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        node, polarity = node.expression, not polarity
    if isinstance(node, cst.Name) and node.value in scope:
        held = scope[node.value]
        if isinstance(held, HBranch) and held.test is not None and held.when_true is True:
            # `has_init = init is not None`: the test it holds.
            return dataclasses.replace(held.test, polarity=held.test.polarity == polarity)
        return BranchTest(node.value, "truth", host_identity(held), polarity)
    if (
        isinstance(node, cst.Comparison)
        and len(node.comparisons) == 1
        and isinstance(node.left, cst.Name)
        and node.left.value in scope
        and isinstance(node.comparisons[0].comparator, cst.Name)
        and node.comparisons[0].comparator.value == "None"
    ):
        op = node.comparisons[0].operator
        if isinstance(op, (cst.IsNot, cst.Is)):
            present = isinstance(op, cst.IsNot) == polarity
            value = host_identity(scope[node.left.value])
            return BranchTest(node.left.value, "present", value, present)
    return None


def host_identity(value: Any) -> Any:
    """The host value ``value`` was found to be (a tensor an opaque name turned out to hold is
    still that name's value), for comparisons by identity."""
    while isinstance(value, HTensor) and value.promoted_from is not None:
        value = value.promoted_from
    return value
