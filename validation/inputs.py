"""Random inputs for an entry, shaped by its :mod:`validation.relations`.

Sizes are *ragged* by default: every size class gets a distinct size that is no multiple of 16, so
that a translation that drops a boundary mask, swaps two dims or confuses two extents reads out of
bounds or produces a visibly wrong result. The sizes are small enough for the Triton interpreter.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from translator.ir import nodes as ir
from validation.relations import Relations, default_size, derive

Scalar = int | float | bool


class UnknownSizeError(KeyError):
    """A ``sizes`` override names no size class and no scalar parameter (a typo, most likely)."""

    def __init__(self, entry: str | None, unknown: list[str], known: list[str]) -> None:
        where = f"{entry}: " if entry else ""
        super().__init__(f"{where}unknown size names {unknown}")
        self.unknown = unknown
        self.known = known

    def __str__(self) -> str:
        return str(self.args[0])


def class_sizes(
    rel: Relations, sizes: Mapping[str, Scalar] | None = None, strict: bool = True
) -> dict[str, int]:
    """The size of every size class of ``rel``: a ``sizes`` override, the class's literal, or the
    next default ragged size.

    Overrides are looked up by any alias of the class (``m``, ``x.size(0)``...). With ``strict``,
    a key that names neither a class nor a scalar parameter raises :class:`UnknownSizeError`.
    """
    sizes = dict(sizes or {})
    if strict:
        known = {a for c in rel.classes for a in c.aliases} | set(rel.scalars)
        unknown = sorted(set(sizes) - known)
        if unknown:
            raise UnknownSizeError(rel.entry, unknown, sorted(known))
    fixed: dict[str, int] = {}
    for c in rel.classes:
        override = next((sizes[a] for a in c.aliases if a in sizes), None)
        if override is not None:
            fixed[c.name] = int(override)
        elif c.const is not None:
            fixed[c.name] = c.const
    # Defaults skip the sizes already fixed, so that classes stay distinct.
    pool = (n for i in range(10_000) if (n := default_size(i)) not in fixed.values())
    # Dims only ever indexed one element per program (batch, heads) need no ragged blocks:
    # small distinct sizes keep the interpreter's program count down.
    small = (n for n in _INDEX_SIZES if n not in fixed.values())
    out: dict[str, int] = {}
    for c in rel.classes:
        if c.name in fixed:
            out[c.name] = fixed[c.name]
        elif c.uses == {"index"}:
            out[c.name] = next(small, None) or next(pool)
        else:
            out[c.name] = next(pool)
    return out


_INDEX_SIZES = (3, 2, 5, 7)


def shapes(rel: Relations, sizes: dict[str, int]) -> dict[str, tuple[int, ...]]:
    """The shape of every input tensor, given the class sizes from :func:`class_sizes`."""
    return {
        t: tuple(sizes[rel.dim_class[(t, d)]] for d in range(rank)) for t, rank in rel.ranks.items()
    }


def synthesize(
    entry: ir.Entry | Relations,
    device: str = "cpu",
    dtype: str = "float32",
    seed: int = 0,
    sizes: Mapping[str, Scalar] | None = None,
    strict: bool = True,
    param_dtypes: Mapping[str, str] | None = None,
) -> dict[str, object]:
    """Inputs for ``entry``, by parameter name, in parameter order.

    Float tensors are random (normal for even seeds, uniform in [-2, 2) for odd ones, never exact
    zeros) in ``dtype``, or in ``param_dtypes[name]`` where given (an integer dtype draws nonzero
    integers in [-8, 8), a bool one coin flips); index tensors are int64 drawn in their range;
    scalar parameters take the values of :attr:`Relations.scalars` or a ``sizes`` override by
    parameter name. The draw depends only on ``seed`` (it is made on the CPU, then moved to
    ``device``).
    """
    import torch

    rel = entry if isinstance(entry, Relations) else derive(entry)
    params = rel.params
    overrides = dict(sizes or {})
    csize = class_sizes(rel, overrides, strict=strict)
    shape_of = shapes(rel, csize)
    scalars: dict[str, Scalar] = {**rel.scalars}
    scalars.update({k: v for k, v in overrides.items() if k in rel.scalars})
    names: dict[str, Scalar] = dict(scalars)
    for c in rel.classes:
        for a in c.aliases:
            if "." not in a:
                names[a] = csize[c.name]
    gen = torch.Generator().manual_seed(seed)
    out: dict[str, object] = {}
    for name in params:
        if name in rel.ranks:
            shape = shape_of[name]
            if name in rel.index_tensors:
                bound = min(
                    int(rel.evaluate(r.bound, shape_of, names)) for r in rel.index_tensors[name]
                )
                t = torch.randint(0, max(1, bound), shape, generator=gen, dtype=torch.int64)
            elif (param_dtypes or {}).get(name, dtype) not in ir.FLOAT_DTYPES:
                t = _integers(shape, gen, getattr(torch, (param_dtypes or {})[name]))
            else:
                if seed % 2 == 0:
                    t = torch.randn(shape, generator=gen, dtype=torch.float32)
                else:
                    t = torch.rand(shape, generator=gen, dtype=torch.float32) * 4 - 2
                t = t.to(getattr(torch, (param_dtypes or {}).get(name, dtype)))
                # Exact zeros hide bugs (a missing multiply, an unmasked sum that adds zeros).
                t = torch.where(t == 0, torch.full_like(t, 0.5), t)
            out[name] = t.to(device)
        elif name in names:
            out[name] = names[name]
        else:
            raise ValueError(f"{rel.entry}: no value for parameter {name!r}")
    return out


def _integers(shape: tuple[int, ...], gen: Any, dtype: Any) -> Any:
    """Nonzero integers in [-8, 8) (a zero weight hides a missing multiply), or coin flips."""
    import torch

    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=gen).bool()
    lo = 0 if dtype == torch.uint8 else -8
    t = torch.randint(lo, 8, shape, generator=gen)
    return torch.where(t == 0, torch.ones_like(t), t).to(dtype)
