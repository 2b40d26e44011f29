"""Reading torch host code that every DSL's host functions share.

Kernels of every DSL are launched from torch host code, so the calls that make the tensors a
kernel reads and writes (``torch.empty(shape, dtype=, device=)``, ``torch.zeros_like(x)``,
``x.new_empty(shape)``) are spelt the same way whatever the DSL. This module reads such a call
into a typed :class:`AllocCall` (what kind of allocation, which sub-expressions give its shape,
dtype, device and fill) and says what is wrong with one it cannot read; each frontend then
evaluates those sub-expressions in its own model of host values. Which torch functions count as
allocations is each dialect grammar's ``[frontend.host_alloc]`` (and ``[frontend.methods.host_alloc]``
for ``x.new_*``) table.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from translator.dialects.cst_utils import call_args, literal
from translator.ir import nodes as ir

#: Keyword arguments an allocation may take; any other is refused (``pin_memory=``, ``out=``...).
ALLOC_KEYWORDS = frozenset({"dtype", "device", "fill_value", "memory_format"})


class AllocError(ValueError):
    """An allocation call this reader cannot read: ``node`` is where, the message says why."""

    def __init__(self, node: cst.CSTNode, message: str) -> None:
        super().__init__(message)
        self.node = node


@dataclass(frozen=True)
class AllocCall:
    """One torch allocation call, as written.

    ``kind`` is one of :data:`translator.ir.nodes.ALLOC_FILLS` (``empty``/``zeros``/``ones``/
    ``full``); ``fill`` is what the new tensor holds (``None``: uninitialised). ``like`` is the
    tensor a ``*_like`` call copies the shape (and by default the dtype) of; ``base`` the tensor
    ``x`` of ``x.new_*(shape)``, whose dtype and device the result takes by default. ``shape``
    lists the size expressions (empty for ``*_like``); ``dtype``/``device``/``memory_format``
    are the keyword expressions, where given.
    """

    node: cst.Call
    kind: str
    fill: float | None
    shape: tuple[cst.BaseExpression, ...] = ()
    like: cst.BaseExpression | None = None
    base: cst.BaseExpression | None = None
    dtype: cst.BaseExpression | None = None
    device: cst.BaseExpression | None = None
    memory_format: cst.BaseExpression | None = None


def read_alloc(
    node: cst.Call,
    function: str | None,
    functions: dict[str, str],
    methods: dict[str, str],
) -> AllocCall | None:
    """``node`` as an allocation, or ``None`` if it is none.

    ``function`` is what ``node``'s callee resolves to (``torch.empty``); ``functions`` maps such
    names to allocation kinds (``empty``, ``zeros_like``...), ``methods`` maps tensor method
    names (``new_empty``) to kinds. Raises :class:`AllocError` for an allocation it cannot read
    (an unknown keyword, a fill value that is not a number literal).
    """
    base: cst.BaseExpression | None = None
    if function is not None and function in functions:
        how = functions[function]
    elif isinstance(node.func, cst.Attribute) and node.func.attr.value in methods:
        how = methods[node.func.attr.value]
        base = node.func.value
    else:
        return None
    args, kwargs = call_args(node)
    for key in kwargs:
        if key not in ALLOC_KEYWORDS:
            raise AllocError(node, f"unsupported allocation option `{key}=`")
    kind = how.removesuffix("_like")
    fill = ir.ALLOC_FILLS[kind]
    if kind == "full":
        fill_node = kwargs.get("fill_value", args[1] if len(args) > 1 else None)
        try:
            value = literal(fill_node) if fill_node is not None else None
        except ValueError:
            value = None
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise AllocError(node, "fill values must be number literals")
        fill = float(value)
        args = args[:1]
    like = None
    shape: tuple[cst.BaseExpression, ...] = ()
    if how.endswith("_like"):
        if not args:
            raise AllocError(node, "allocate like a host tensor")
        like = args[0]
    elif len(args) == 1 and isinstance(args[0], (cst.Tuple, cst.List)):
        shape = tuple(e.value for e in args[0].elements)
    else:
        shape = tuple(args)
    return AllocCall(
        node,
        kind,
        fill,
        shape,
        like,
        base,
        kwargs.get("dtype"),
        kwargs.get("device"),
        kwargs.get("memory_format"),
    )


__all__ = ["ALLOC_KEYWORDS", "AllocCall", "AllocError", "read_alloc"]
