"""The pointwise and scalar ops of the IR: arity, dtype rule and reduction identities."""

from __future__ import annotations

import math
from dataclasses import dataclass

from translator.ir.nodes import ATOMIC_OPS, DTYPE_NAMES, REDUCE_OPS, SCAN_OPS


@dataclass(frozen=True)
class OpInfo:
    """How an op types its result.

    ``result``: ``"same"`` (promoted operand dtype), ``"float"`` (a float dtype: ints become
    float32), ``"bool"``, ``"index"`` for ops on host scalars, or ``"random"``: a counter-based
    random number per lane (see :data:`RANDOM_OPS`), float32 of the offsets' dims.
    """

    arity: int
    result: str = "same"


POINTWISE_OPS: dict[str, OpInfo] = {
    # unary, float-valued
    "exp": OpInfo(1, "float"),
    "exp2": OpInfo(1, "float"),
    "log": OpInfo(1, "float"),
    "log2": OpInfo(1, "float"),
    "log1p": OpInfo(1, "float"),
    "sqrt": OpInfo(1, "float"),
    "rsqrt": OpInfo(1, "float"),
    "sigmoid": OpInfo(1, "float"),
    "tanh": OpInfo(1, "float"),
    "erf": OpInfo(1, "float"),
    "sin": OpInfo(1, "float"),
    "cos": OpInfo(1, "float"),
    "gelu": OpInfo(1, "float"),
    "gelu_tanh": OpInfo(1, "float"),
    "silu": OpInfo(1, "float"),
    # unary, dtype-preserving
    "abs": OpInfo(1),
    "relu": OpInfo(1),
    "floor": OpInfo(1),
    "ceil": OpInfo(1),
    # binary
    "maximum": OpInfo(2),
    "minimum": OpInfo(2),
    "pow": OpInfo(2, "float"),
    # ternary
    "where": OpInfo(3),
    "fma": OpInfo(3),
    # counter-based random numbers: (seed, offsets), see RANDOM_OPS
    "rand": OpInfo(2, "random"),
    "randn": OpInfo(2, "random"),
    # scalar helpers
    "cdiv": OpInfo(2, "index"),
    # host only: the first operand (an optional parameter) unless it is None, else the second
    "if_none": OpInfo(2),
    "next_power_of_2": OpInfo(1, "index"),
}

#: Random-number ops: ``rand(seed, offsets)`` is a float32 in ``[0, 1)`` per lane of the integer
#: tile ``offsets``, ``randn(seed, offsets)`` one from N(0, 1); ``seed`` is an integer scalar.
#: Each lane's number is a pure function of the seed and that lane's offset: 10 rounds of Philox
#: 4x32 keyed by the seed's two 32-bit halves, counter (offset's low 32 bits, its high 32 bits
#: for 64-bit offsets, else 0, 0, 0); ``rand`` maps the first output word to ``[0, 1)``, ``randn``
#: the first two through Box-Muller (Triton's ``tl.rand``/``tl.randn``, bit for bit;
#: :mod:`translator.ir.philox` is the reference).
RANDOM_OPS = ("rand", "randn")
#: The Philox rounds of every random op (Triton's default); here, not in the torch-based
#: reference, so that frontends read it without importing torch.
PHILOX_ROUNDS = 10

#: The forms of a :class:`~translator.ir.nodes.Dot` a DSL may have one spelling each for:
#: ``dot`` the general product (any output dtype, an optional accumulator); ``mm``/``bmm``
#: ``lhs @ rhs`` of 2-D/3-D operands in their own dtype; ``addmm``/``baddbmm`` ``acc + lhs @ rhs``.
DOT_FORMS = ("dot", "mm", "bmm", "addmm", "baddbmm")

#: Every family of IR ops a DSL spells, by the name of the grammar tables that spell it
#: (``[frontend.<family>]``/``[backend.<family>]``): a backend spells, lowers or refuses each.
OP_FAMILIES: dict[str, tuple[str, ...]] = {
    "dtypes": DTYPE_NAMES,
    "pointwise": tuple(POINTWISE_OPS),
    "reductions": REDUCE_OPS,
    "scans": SCAN_OPS,
    "dots": DOT_FORMS,
    "atomics": ATOMIC_OPS,
}

COMPARISON_OPS = ("<", "<=", ">", ">=", "==", "!=")
ARITH_OPS = ("+", "-", "*", "/", "//", "%", "**")
#: ``>>`` is arithmetic on signed integers (torch, Triton, TVM and cuTile alike), logical on
#: unsigned ones; shifts and bit operations take integer (or, for ``&|^``, boolean) operands.
BITWISE_OPS = ("&", "|", "^", "<<", ">>")
SHIFT_OPS = ("<<", ">>")
LOGICAL_OPS = ("and", "or")
BINARY_OPS = ARITH_OPS + COMPARISON_OPS + BITWISE_OPS + LOGICAL_OPS
UNARY_OPS = ("-", "~", "not")


def reduce_identity(op: str) -> float:
    """The value that invalid lanes take so that they do not change reduction ``op``."""
    if op in ("sum",):
        return 0.0
    if op == "prod":
        return 1.0
    if op in ("max", "argmax"):
        return float("-inf")
    if op in ("min", "argmin"):
        return float("inf")
    raise KeyError(op)


def next_power_of_2(n: int) -> int:
    """The smallest power of two ``>= n`` (1 for ``n <= 1``), as ``triton.next_power_of_2``.

    Here, not in the interpreter, so that backends that need it do not import torch.
    """
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def integer_identity(identity: float, dtype: str) -> int | None:
    """What stands for an infinite identity (max's ``-inf``, min's ``inf``) in integer
    ``dtype``: its lowest or highest value (``None`` for a finite identity or another dtype)."""
    if not math.isinf(identity) or dtype not in ("int8", "int16", "int32", "int64", "uint8"):
        return None
    bits = int(dtype.removeprefix("u").removeprefix("int"))
    low, high = (
        (0, 2**bits - 1) if dtype.startswith("u") else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
    )
    return low if identity < 0 else high
