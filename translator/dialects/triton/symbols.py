"""The index symbols of the Triton lifter: a typed vocabulary, and the one place they are spelt.

Triton addresses memory with integer arithmetic on program ids, ``tl.arange`` lanes, loop
counters, kernel parameters and loaded values. The lifter evaluates that arithmetic symbolically
(:mod:`translator.dialects.triton.frontend_affine`): an integer value is an IR tree whose leaves
are constants and symbols. A symbol is a :class:`Sym` (what it stands for: a :class:`SymKind`,
with an index or a name); inside IR trees, polynomials and the IR's type environment, which know
nothing of Triton, it travels as an ``ir.Name`` whose id is :attr:`Sym.text`. That spelling is
made and read back only here (:func:`parse_sym`); readers ask ``sym.kind is SymKind.PID``.

=============== ================== ============================================================
kind            spelt              stands for
=============== ================== ============================================================
``PID``         ``%pid0``          ``tl.program_id(0)`` (``index``: the axis)
``NUM_PROGRAMS`` ``%np0``          ``tl.num_programs(0)``
``ITER``        ``%it3``           the iteration counter (0, 1, …) of device loop 3
``LANE``        ``%l-1:BLOCK``     the lanes ``0 .. B-1`` of ``tl.arange(0, B)`` along Triton axis
                                   ``index``, counted from the right (``-1`` is the last axis, so
                                   broadcasting renames no lanes); ``name``: the block key
``PARAM``       ``%p:N``           integer kernel parameter ``N`` (a size, a stride, a block size)
``OPAQUE``      ``%q:NUM_SMS``     a compile-time parameter the host computes opaquely
``DATA``        ``%d0``            a device data value (a loaded integer…), in the lifter's table
``ATOM``        ``%t:<tree>``      an opaque sub-tree of a normal form (``//``, ``%``, calls)
``SWIZZLE``     ``%sm``, ``%sn``   the tile ids a grouped program-id swizzle computes
``ROW``         ``%row0``          the row of a persistent loop over program axis 0
=============== ================== ============================================================
"""

from __future__ import annotations

import enum
import functools
from dataclasses import dataclass

from translator.ir import nodes as ir

Key = str | int  # a block size: a constexpr parameter's name or an integer literal

_PREFIX = "%"


class SymKind(enum.Enum):
    """What a symbol stands for; the value is its spelling after ``%`` (see the module doc)."""

    PID = "pid"
    NUM_PROGRAMS = "np"
    ITER = "it"
    LANE = "l"
    PARAM = "p:"
    OPAQUE = "q:"
    DATA = "d"
    ATOM = "t:"
    SWIZZLE = "s"
    ROW = "row"


# Kinds whose spelling ends in an integer index; the others end in a name.
_INDEXED = {SymKind.PID, SymKind.NUM_PROGRAMS, SymKind.ITER, SymKind.DATA, SymKind.ROW}


@dataclass(frozen=True)
class Sym:
    """One index symbol: its kind, and the axis/number (``index``) or name it carries."""

    kind: SymKind
    index: int | None = None
    name: str | None = None

    @classmethod
    def pid(cls, axis: int) -> Sym:
        return cls(SymKind.PID, axis)

    @classmethod
    def num_programs(cls, axis: int) -> Sym:
        return cls(SymKind.NUM_PROGRAMS, axis)

    @classmethod
    def loop_counter(cls, loop_id: int) -> Sym:
        return cls(SymKind.ITER, loop_id)

    @classmethod
    def lane(cls, key: Key, axis: int) -> Sym:
        return cls(SymKind.LANE, axis, str(key))

    @classmethod
    def param(cls, name: str) -> Sym:
        return cls(SymKind.PARAM, name=name)

    @classmethod
    def opaque(cls, name: str) -> Sym:
        return cls(SymKind.OPAQUE, name=name)

    @classmethod
    def data(cls, number: int) -> Sym:
        return cls(SymKind.DATA, number)

    @classmethod
    def atom(cls, text: str) -> Sym:
        return cls(SymKind.ATOM, name=text)

    @classmethod
    def swizzle(cls, which: str) -> Sym:
        return cls(SymKind.SWIZZLE, name=which)

    @classmethod
    def row(cls, axis: int) -> Sym:
        return cls(SymKind.ROW, axis)

    @property
    def text(self) -> str:
        """The id of the ``ir.Name`` that carries the symbol in IR trees."""
        if self.kind is SymKind.LANE:
            return f"{_PREFIX}l{self.index}:{self.name}"
        return _PREFIX + self.kind.value + (str(self.index) if self.kind in _INDEXED else self.name)

    @property
    def expr(self) -> ir.Name:
        """The symbol as an IR tree leaf."""
        return ir.Name(self.text)

    @property
    def key(self) -> Key:
        """The block key of a lane symbol: an integer literal or a constexpr parameter's name."""
        assert self.kind is SymKind.LANE and self.name is not None
        return int(self.name) if self.name.lstrip("-").isdigit() else self.name


def is_symbol(text: str) -> bool:
    """Whether ``text`` (an ``ir.Name`` id) spells a symbol rather than a host or IR name."""
    return text.startswith(_PREFIX)


@functools.cache  # symbols are few and read back often
def parse_sym(text: str) -> Sym | None:
    """The symbol ``text`` spells, or ``None`` for a name that is no symbol."""
    if not text.startswith(_PREFIX):
        return None
    body = text[len(_PREFIX) :]
    if body.startswith(SymKind.LANE.value):
        axis, _, key = body[len(SymKind.LANE.value) :].partition(":")
        return Sym(SymKind.LANE, int(axis), key)
    for kind in SymKind:
        if kind is not SymKind.LANE and body.startswith(kind.value):
            rest = body[len(kind.value) :]
            if kind in _INDEXED:
                return Sym(kind, int(rest)) if rest.isdigit() else None
            return Sym(kind, name=rest)
    return None


def kind_of(text: str) -> SymKind | None:
    """The kind of the symbol ``text`` spells (``None`` for other names)."""
    s = parse_sym(text)
    return s.kind if s is not None else None


def sym_of(e: ir.Expr) -> Sym | None:
    """The symbol ``e`` is, if it is a symbol leaf."""
    return parse_sym(e.id) if isinstance(e, ir.Name) else None


def is_sym(e: ir.Expr, kind: SymKind) -> bool:
    """Whether ``e`` is a symbol leaf of ``kind``."""
    s = sym_of(e)
    return s is not None and s.kind is kind


def param_name(text: str) -> str | None:
    """The kernel parameter the symbol ``text`` names, if it is a parameter symbol."""
    s = parse_sym(text)
    return s.name if s is not None and s.kind is SymKind.PARAM else None


def parse_lane(text: str) -> tuple[Key, int] | None:
    """``(key, axis)`` of a lane symbol, else ``None``."""
    s = parse_sym(text)
    if s is None or s.kind is not SymKind.LANE or s.index is None:
        return None
    return s.key, s.index
