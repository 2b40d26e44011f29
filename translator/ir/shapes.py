"""Shape and dtype inference for IR expressions.

Used by the verifier (which reports errors), the reference interpreter and every backend (which
need each value's dims to build masks). Inference walks statements in order with an environment of
variable types; tile variables come into scope at their kernel or loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Union

from translator.ir import nodes as ir
from translator.ir.ops import BITWISE_OPS, COMPARISON_OPS, LOGICAL_OPS, POINTWISE_OPS, SHIFT_OPS


class IRTypeError(Exception):
    """An expression whose shapes or dtypes do not fit; carries the offending node's location."""

    def __init__(self, message: str, loc: ir.Loc | None = None, hint: str | None = None) -> None:
        super().__init__(message)
        self.loc = loc
        #: What to write instead, where the rule that failed says (the diagnostic's ``help``).
        self.hint = hint


@dataclass(frozen=True)
class TileType:
    """A tile: its dims and element type."""

    dims: tuple[ir.Dim, ...]
    dtype: ir.DTypeExpr


@dataclass(frozen=True)
class ScalarType:
    """A scalar. ``weak`` scalars (Python literals, scalar arguments) do not promote tiles."""

    dtype: ir.DTypeExpr
    weak: bool = False


@dataclass(frozen=True)
class TensorType:
    """A host tensor; ``rank`` is ``None`` where the source does not say."""

    dtype: ir.DTypeExpr
    rank: int | None = None


@dataclass(frozen=True)
class TileVarType:
    """A tile variable itself (usable as an index and through its attributes)."""

    tile: ir.TileVar


Type = Union[TileType, ScalarType, TensorType, TileVarType]

_FLOAT_RANK = {"float16": 1, "bfloat16": 1, "float32": 2, "float64": 3}


def is_float(dtype: ir.DTypeExpr) -> bool:
    """Whether ``dtype`` is a float type (tensor dtypes are assumed float unless known)."""
    return isinstance(dtype, ir.DTypeOf) or dtype.name in ir.FLOAT_DTYPES


def promote(a: ir.DTypeExpr, b: ir.DTypeExpr) -> ir.DTypeExpr:
    """Torch-style promotion of two strong dtypes.

    Two tensor dtypes are assumed equal (validation draws float inputs of one dtype); a tensor
    dtype against float32 gives float32, the widest float the kernels here use.
    """
    if a == b:
        return a
    if isinstance(a, ir.DType) and isinstance(b, ir.DType):
        fa, fb = a.name in _FLOAT_RANK, b.name in _FLOAT_RANK
        if fa and fb:
            if _FLOAT_RANK[a.name] == _FLOAT_RANK[b.name]:
                return ir.F32  # float16 with bfloat16: neither holds the other (torch: float32)
            return a if _FLOAT_RANK[a.name] > _FLOAT_RANK[b.name] else b
        if fa != fb:
            return a if fa else b
        order = ("bool", "uint8", "int8", "int16", "int32", "int64")
        return a if order.index(a.name) >= order.index(b.name) else b
    concrete = a if isinstance(a, ir.DType) else b if isinstance(b, ir.DType) else None
    if concrete is None:
        return a
    if concrete.name in ("float32", "float64"):
        return concrete
    symbolic = b if concrete is a else a
    return symbolic


def broadcast_dims(
    a: tuple[ir.Dim, ...], b: tuple[ir.Dim, ...], loc: ir.Loc | None = None
) -> tuple[ir.Dim, ...]:
    """Numpy-style broadcast of two dim tuples (right-aligned; unit dims stretch)."""
    n = max(len(a), len(b))
    a = (ir.UnitDim(),) * (n - len(a)) + a
    b = (ir.UnitDim(),) * (n - len(b)) + b
    out: list[ir.Dim] = []
    for x, y in zip(a, b):
        if isinstance(x, ir.UnitDim):
            out.append(y)
        elif isinstance(y, ir.UnitDim) or x == y:
            out.append(x)
        elif isinstance(x, ir.FullDim) and isinstance(y, ir.FullDim):
            # Two whole tensor dims of differently named extents: the program states they agree;
            # validation checks it at run time. Keep the first.
            out.append(x)
        else:
            raise IRTypeError(
                f"cannot broadcast dims {_fmt(a)} and {_fmt(b)}: `{x}` and `{y}` are not the "
                "same elements",
                loc,
                _broadcast_hint(x, y),
            )
    return tuple(out)


def _broadcast_hint(x: ir.Dim, y: ir.Dim) -> str:
    """What to write where two dims meet that neither equal nor broadcast (one of size 1)."""
    tiles = [d for d in (x, y) if isinstance(d, ir.BlockDim)]
    if len(tiles) == 1:
        other = y if tiles[0] is x else x
        return (
            f"index both operands with the tile `{tiles[0]}` so that they cover the same "
            f"elements (`{other}` is a range from the start of the dim, not the tile's); or "
            "give one a size-1 dim (`t[:, None]`) to broadcast it"
        )
    return (
        "index both operands with the same tile or slice; or give one a size-1 dim "
        "(`t[:, None]`) to broadcast it"
    )


def dims_compatible(a: tuple[ir.Dim, ...], b: tuple[ir.Dim, ...]) -> bool:
    """Whether two dim tuples denote the same shape (whole dims of any extents pair up)."""
    return len(a) == len(b) and all(
        x == y or (isinstance(x, ir.FullDim) and isinstance(y, ir.FullDim)) for x, y in zip(a, b)
    )


def _fmt(dims: tuple[ir.Dim, ...]) -> str:
    return "[" + ", ".join(str(d) for d in dims) + "]"


@dataclass
class TypeEnv:
    """Variable types in scope, plus the tile variables by name."""

    vars: dict[str, Type] = field(default_factory=dict)
    tiles: dict[str, ir.TileVar] = field(default_factory=dict)
    # Names both branches of an `if` bind to different types: not bound after it, and why,
    # so that a later read says so where it would say "not defined".
    unjoined: dict[str, tuple[str, ir.Loc | None]] = field(default_factory=dict)

    def child(self) -> TypeEnv:
        """A copy for a nested scope (writes do not leak back unless copied out)."""
        return TypeEnv(dict(self.vars), dict(self.tiles), dict(self.unjoined))

    def bind_tile(self, tile: ir.TileVar) -> None:
        """Bring a tile variable into scope."""
        self.tiles[tile.name] = tile
        self.vars[tile.name] = TileVarType(tile)


def describe(t: Type) -> str:
    """``t`` as a diagnostic names it: ``a float32 tile [tile_m, :n]``, ``a dtype(x) scalar``."""
    if isinstance(t, TileType):
        return f"a {t.dtype} tile [{', '.join(map(str, t.dims))}]"
    if isinstance(t, ScalarType):
        return f"a {t.dtype} scalar"
    if isinstance(t, TensorType):
        return f"a {t.dtype} tensor"
    return type(t).__name__


def dims_of(t: Type) -> tuple[ir.Dim, ...]:
    """The dims of a tile, or ``()`` for a scalar."""
    return t.dims if isinstance(t, TileType) else ()


def torch_dtype(types: Sequence[Type]) -> ir.DTypeExpr | None:
    """The dtype torch computes an op of operands of these types in: the promotion of the tiles
    with dims (a dimensioned tensor's dtype wins over 0-d tensors' and numbers'), else of the
    0-d tiles; ``None`` when no operand is a tile (the IR's own promotion, Triton's, differs: a
    typed scalar counts there)."""
    tiles = [t for t in types if isinstance(t, TileType)]
    deciding = [t for t in tiles if t.dims] or tiles
    if not deciding:
        return None
    dtype = deciding[0].dtype
    for t in deciding[1:]:
        dtype = promote(dtype, t.dtype)
    return dtype


def dot_precision(lhs: ir.DTypeExpr, rhs: ir.DTypeExpr, precision: str) -> str | None:
    """What a dot of ``lhs`` and ``rhs`` operands records as its input precision when its DSL
    multiplies float32 operands at ``precision``: that, wherever an operand is or may be (a
    tensor's run-time dtype) float32; ``None`` where neither can be, since it then does not
    matter."""
    may_be_f32 = any(not isinstance(d, ir.DType) or d == ir.F32 for d in (lhs, rhs))
    return precision if may_be_f32 else None


def dtype_of(t: Type) -> ir.DTypeExpr:
    """The element type of a value."""
    if isinstance(t, (TileType, ScalarType, TensorType)):
        return t.dtype
    return ir.I32


def index_dims(
    tensor: str, index: tuple[ir.IndexItem, ...], env: TypeEnv, loc: ir.Loc | None
) -> tuple[ir.Dim, ...]:
    """The dims of the region that ``index`` selects from ``tensor``."""
    dims: list[ir.Dim] = []
    axis = 0
    for item in index:
        if isinstance(item, ir.TileIndex):
            tile = env.tiles.get(item.tile)
            if tile is None:
                raise IRTypeError(f"tile variable {item.tile!r} is not in scope", loc)
            if not tile.scalar:
                dims.append(ir.BlockDim(item.tile))
            axis += 1
        elif isinstance(item, ir.FullIndex):
            dims.append(ir.FullDim(item.extent or ir.SizeOf(tensor, axis)))
            axis += 1
        elif isinstance(item, ir.ScalarIndex):
            t = infer(item.value, env)
            if isinstance(t, TileType) and t.dims:
                raise IRTypeError("a scalar index must be a scalar", loc)
            axis += 1
        elif isinstance(item, ir.NewAxis):
            dims.append(ir.UnitDim())
        elif isinstance(item, ir.GatherIndex):
            t = infer(item.value, env)
            if not isinstance(t, TileType):
                raise IRTypeError("a gather index must be a tile", loc)
            dims.extend(t.dims)
            axis += 1
    return tuple(dims)


def infer(expr: ir.Expr, env: TypeEnv) -> Type:
    """The type of ``expr`` in ``env``; raises :class:`IRTypeError` when it has none."""
    handler = _HANDLERS.get(type(expr))
    if handler is None:
        raise IRTypeError(f"no type rule for {type(expr).__name__}", getattr(expr, "loc", None))
    return handler(expr, env)


def _name(e: ir.Name, env: TypeEnv) -> Type:
    if e.id not in env.vars:
        if e.id in env.unjoined:
            why, loc = env.unjoined[e.id]
            raise IRTypeError(why, e.loc or loc)
        raise IRTypeError(f"name {e.id!r} is not defined here", e.loc)
    return env.vars[e.id]


def _const(e: ir.Const, env: TypeEnv) -> Type:
    if isinstance(e.value, bool):
        return ScalarType(ir.BOOL, weak=True)
    if isinstance(e.value, str):
        return ScalarType(ir.STR, weak=True)
    if isinstance(e.value, int):
        return ScalarType(ir.I32, weak=True)
    return ScalarType(ir.F32, weak=True)


def _size_of(e: ir.SizeOf, env: TypeEnv) -> Type:
    t = env.vars.get(e.tensor)
    if not isinstance(t, TensorType):
        raise IRTypeError(f"{e.tensor!r} is not a tensor", e.loc)
    return ScalarType(ir.I32, weak=True)


def _combine(
    types: list[Type], loc: ir.Loc | None
) -> tuple[tuple[ir.Dim, ...], ir.DTypeExpr, bool]:
    """Broadcast dims and promote dtypes of operands; returns (dims, dtype, any_tile)."""
    dims: tuple[ir.Dim, ...] = ()
    strong: ir.DTypeExpr | None = None
    weak: ir.DTypeExpr | None = None
    any_tile = False
    for t in types:
        if isinstance(t, TileVarType):
            t = ScalarType(ir.I32, weak=True)
        if isinstance(t, TensorType):
            raise IRTypeError("a host tensor cannot be used as a value in device code", loc)
        if isinstance(t, TileType):
            any_tile = True
            dims = broadcast_dims(dims, t.dims, loc)
        is_weak = isinstance(t, ScalarType) and t.weak
        if is_weak:
            weak = t.dtype if weak is None else promote(weak, t.dtype)
        else:
            strong = t.dtype if strong is None else promote(strong, t.dtype)
    if strong is None:
        dtype = weak if weak is not None else ir.F32
    elif weak is not None and is_float(weak) and not is_float(strong):
        dtype = ir.F32
    else:
        dtype = strong
    return dims, dtype, any_tile


def _make(dims: tuple[ir.Dim, ...], dtype: ir.DTypeExpr, any_tile: bool, weak: bool) -> Type:
    return TileType(dims, dtype) if any_tile else ScalarType(dtype, weak=weak)


def _all_weak(types: list[Type]) -> bool:
    return all(isinstance(t, (ScalarType, TileVarType)) and getattr(t, "weak", True) for t in types)


def _shape_of(e: ir.ShapeOf, env: TypeEnv) -> Type:
    if not isinstance(env.vars.get(e.tensor), TensorType):
        raise IRTypeError(f"{e.tensor!r} is not a tensor", e.loc)
    # Shapes only appear in host comparisons; give them a scalar type so `==` types as bool.
    return ScalarType(ir.I32, weak=True)


def _binop(e: ir.BinOp, env: TypeEnv) -> Type:
    ts = [infer(e.lhs, env), infer(e.rhs, env)]
    if any(dtype_of(t) == ir.STR for t in ts):
        if e.op not in ("==", "!=") or not all(
            isinstance(t, ScalarType) and t.dtype == ir.STR for t in ts
        ):
            if e.op in ("==", "!="):
                raise IRTypeError(
                    f"a string compared with `{e.op}` to a value that is no string scalar "
                    f"({', '.join(str(t) for t in ts)})",
                    e.loc,
                )
            raise IRTypeError(f"strings can only be compared with == and !=, not `{e.op}`", e.loc)
        return ScalarType(ir.BOOL, weak=True)
    dims, dtype, any_tile = _combine(ts, e.loc)
    if e.op in BITWISE_OPS and isinstance(dtype, ir.DType) and is_float(dtype):
        # Bits of a float are no value the IR has: torch and every DSL refuse them too.
        raise IRTypeError(f"`{e.op}` of {dtype} operands (it takes integers)", e.loc)
    if e.op in SHIFT_OPS and dtype == ir.BOOL:
        raise IRTypeError(f"`{e.op}` of booleans (it shifts integers)", e.loc)
    if e.op in COMPARISON_OPS or e.op in LOGICAL_OPS:
        dtype = ir.BOOL
    elif e.op == "/" and not is_float(dtype):
        dtype = ir.F32
    return _make(dims, dtype, any_tile, _all_weak(ts))


def _unary(e: ir.UnaryOp, env: TypeEnv) -> Type:
    t = infer(e.operand, env)
    if e.op == "not":
        return _make(dims_of(t), ir.BOOL, isinstance(t, TileType), True)
    return t


def _call(e: ir.Call, env: TypeEnv) -> Type:
    info = POINTWISE_OPS.get(e.op)
    if info is None:
        raise IRTypeError(f"unknown op {e.op!r}", e.loc)
    if len(e.args) != info.arity:
        raise IRTypeError(f"{e.op} takes {info.arity} operands, got {len(e.args)}", e.loc)
    ts = [infer(a, env) for a in e.args]
    if info.result == "random":
        return _random(e, ts)
    if e.op == "where":
        cond_dims = dims_of(ts[0])
        dims, dtype, any_tile = _combine(ts[1:], e.loc)
        dims = broadcast_dims(cond_dims, dims, e.loc)
        return _make(dims, dtype, any_tile or isinstance(ts[0], TileType), _all_weak(ts[1:]))
    dims, dtype, any_tile = _combine(ts, e.loc)
    if info.result == "float" and dtype != ir.DType("float64"):
        # Transcendental ops compute in (at least) float32 whatever the input's width.
        dtype = ir.F32
    elif info.result == "index":
        dtype = ir.I32
    return _make(dims, dtype, any_tile, _all_weak(ts))


def _random(e: ir.Call, ts: list[Type]) -> Type:
    """``rand(seed, offsets)``: float32 of the offsets' dims; both operands integers, the seed
    one number (see :data:`translator.ir.ops.RANDOM_OPS`)."""
    seed, offsets = (ScalarType(ir.I32, weak=True) if isinstance(t, TileVarType) else t for t in ts)
    for what, t in (("seed", seed), ("offsets", offsets)):
        if isinstance(t, TensorType):
            raise IRTypeError(f"the {what} of {e.op} cannot be a host tensor", e.loc)
        if is_float(t.dtype) or t.dtype in (ir.BOOL, ir.STR):
            raise IRTypeError(f"the {what} of {e.op} must be an integer, not {t.dtype}", e.loc)
    if dims_of(seed):
        raise IRTypeError(f"the seed of {e.op} must be one number, not a tile", e.loc)
    if isinstance(offsets, TileType):
        return TileType(offsets.dims, ir.F32)
    return ScalarType(ir.F32)


def _cast(e: ir.Cast, env: TypeEnv) -> Type:
    t = infer(e.value, env)
    if isinstance(t, TileType):
        return TileType(t.dims, e.dtype)
    if isinstance(t, TensorType):
        return TensorType(e.dtype, t.rank)  # a host conversion (`c.to(a.dtype)`): a new tensor
    return ScalarType(e.dtype)


def _tile_attr(e: ir.TileAttr, env: TypeEnv) -> Type:
    tile = env.tiles.get(e.tile)
    if tile is None:
        raise IRTypeError(f"tile variable {e.tile!r} is not in scope", e.loc)
    if e.attr not in ir.TILE_ATTRS:
        raise IRTypeError(f"tiles have no attribute {e.attr!r}", e.loc)
    if e.attr == "index":
        if tile.scalar:
            return ScalarType(ir.I32)
        return TileType((ir.BlockDim(e.tile),), ir.I32)
    return ScalarType(ir.I32)


def _load(e: ir.Load, env: TypeEnv) -> Type:
    t = env.vars.get(e.tensor)
    if not isinstance(t, TensorType):
        raise IRTypeError(f"{e.tensor!r} is not a host tensor", e.loc)
    indexed = sum(1 for i in e.index if not isinstance(i, ir.NewAxis))
    if t.rank is not None and indexed != t.rank:
        raise IRTypeError(f"{e.tensor!r} has {t.rank} dims but is indexed with {indexed}", e.loc)
    dims = index_dims(e.tensor, e.index, env, e.loc)
    if e.mask is not None:
        if e.other is None:
            raise IRTypeError("a load with a mask must say what masked lanes read", e.loc)
        mask = infer(e.mask, env)
        if dtype_of(mask) != ir.BOOL:
            raise IRTypeError("a load's mask must be boolean", e.loc)
        if broadcast_dims(dims, dims_of(mask), e.loc) != dims:
            raise IRTypeError("a load's mask has dims the loaded region lacks", e.loc)
    return TileType(dims, t.dtype)


def _full(e: ir.Full, env: TypeEnv) -> Type:
    for d in e.shape:
        if isinstance(d, ir.BlockDim) and d.tile not in env.tiles:
            raise IRTypeError(f"tile variable {d.tile!r} is not in scope", e.loc)
    infer(e.value, env)
    return TileType(tuple(e.shape), e.dtype)


def _arange(e: ir.Arange, env: TypeEnv) -> Type:
    return TileType((e.dim,), ir.I32)


def _reduce(e: ir.Reduce, env: TypeEnv) -> Type:
    t = infer(e.value, env)
    if not isinstance(t, TileType) or not t.dims:
        raise IRTypeError(f"{e.op} needs a tile operand", e.loc)
    n = len(t.dims)
    if not -n <= e.axis < n:
        raise IRTypeError(f"axis {e.axis} out of range for a {n}-d tile", e.loc)
    axis = e.axis % n
    if e.keepdim:
        dims = t.dims[:axis] + (ir.UnitDim(),) + t.dims[axis + 1 :]
    else:
        dims = t.dims[:axis] + t.dims[axis + 1 :]
    dtype = ir.I32 if e.op in ("argmax", "argmin") else t.dtype
    return TileType(dims, dtype) if dims else ScalarType(dtype)


def _scan(e: ir.Scan, env: TypeEnv) -> Type:
    t = infer(e.value, env)
    if not isinstance(t, TileType) or not t.dims:
        raise IRTypeError(f"a {e.op} scan needs a tile operand", e.loc)
    if e.op not in ir.SCAN_OPS or not -len(t.dims) <= e.axis < len(t.dims):
        raise IRTypeError(f"bad scan {e.op} along axis {e.axis}", e.loc)
    return t


def _dot(e: ir.Dot, env: TypeEnv) -> Type:
    a, b = infer(e.lhs, env), infer(e.rhs, env)
    if not (isinstance(a, TileType) and isinstance(b, TileType)):
        raise IRTypeError("dot operands must be tiles", e.loc)
    if len(a.dims) < 2 or len(a.dims) != len(b.dims):
        raise IRTypeError(
            f"dot needs operands of equal rank >= 2, got {_fmt(a.dims)} and {_fmt(b.dims)}", e.loc
        )
    if a.dims[-1] != b.dims[-2] and not all(
        isinstance(d, ir.FullDim) for d in (a.dims[-1], b.dims[-2])
    ):
        raise IRTypeError(f"dot contraction dims differ: {a.dims[-1]} and {b.dims[-2]}", e.loc)
    if e.precision is not None and e.precision not in ir.DOT_PRECISIONS:
        raise IRTypeError(
            f"dot precision {e.precision!r} is none of {', '.join(ir.DOT_PRECISIONS)}", e.loc
        )
    if e.precision is None and ir.F32 in (a.dtype, b.dtype):
        raise IRTypeError("a dot of float32 operands needs its input precision", e.loc)
    batch = broadcast_dims(a.dims[:-2], b.dims[:-2], e.loc)
    dims = (*batch, a.dims[-2], b.dims[-1])
    if e.acc is not None:
        acc = infer(e.acc, env)
        if not isinstance(acc, TileType) or not dims_compatible(
            summed := broadcast_dims(acc.dims, dims, e.loc), dims
        ):
            raise IRTypeError("dot accumulator does not match the product's dims", e.loc)
        # The sum has the accumulator's whole dims: `acc` is the loop-carried value the program
        # declared (`zeros([tile_m, head_dim])`), and the product's whole dims (v's head dim) are
        # stated equal to it by the program, as in a broadcast.
        dims = summed
    return TileType(dims, e.out_dtype)


def _permute(e: ir.Permute, env: TypeEnv) -> Type:
    t = infer(e.value, env)
    if not isinstance(t, TileType) or sorted(e.perm) != list(range(len(t.dims))):
        raise IRTypeError(f"bad permutation {e.perm}", e.loc)
    return TileType(tuple(t.dims[i] for i in e.perm), t.dtype)


def _reshape(e: ir.Reshape, env: TypeEnv) -> Type:
    t = infer(e.value, env)
    if not isinstance(t, TileType):
        raise IRTypeError("reshape needs a tile", e.loc)
    core = [d for d in t.dims if not isinstance(d, ir.UnitDim)]
    new_core = [d for d in e.shape if not isinstance(d, ir.UnitDim)]
    if core != new_core:
        raise IRTypeError(
            f"reshape from {_fmt(t.dims)} to {_fmt(e.shape)} is not a unit-dim change", e.loc
        )
    return TileType(tuple(e.shape), t.dtype)


def _broadcast(e: ir.Broadcast, env: TypeEnv) -> Type:
    t = infer(e.value, env)
    dims = broadcast_dims(dims_of(t), tuple(e.shape), e.loc)
    if not dims_compatible(dims, tuple(e.shape)):
        raise IRTypeError(f"cannot broadcast {_fmt(dims_of(t))} to {_fmt(e.shape)}", e.loc)
    return TileType(tuple(e.shape), dtype_of(t))


def _expand(e: ir.ExpandDims, env: TypeEnv) -> Type:
    t = infer(e.value, env)
    dims = dims_of(t)
    axis = e.axis if e.axis >= 0 else len(dims) + 1 + e.axis
    if not 0 <= axis <= len(dims):
        raise IRTypeError(f"axis {e.axis} out of range", e.loc)
    return TileType(dims[:axis] + (ir.UnitDim(),) + dims[axis:], dtype_of(t))


def _tuple(e: ir.TupleExpr, env: TypeEnv) -> Type:
    for item in e.items:
        infer(item, env)
    return ScalarType(ir.I32)


_HANDLERS = {
    ir.Name: _name,
    ir.Const: _const,
    ir.SizeOf: _size_of,
    ir.ShapeOf: _shape_of,
    ir.BinOp: _binop,
    ir.UnaryOp: _unary,
    ir.Call: _call,
    ir.Cast: _cast,
    ir.TileAttr: _tile_attr,
    ir.Load: _load,
    ir.Full: _full,
    ir.Arange: _arange,
    ir.Reduce: _reduce,
    ir.Scan: _scan,
    ir.Dot: _dot,
    ir.Permute: _permute,
    ir.Reshape: _reshape,
    ir.ExpandDims: _expand,
    ir.Broadcast: _broadcast,
    ir.TupleExpr: _tuple,
}


_SCALAR_KINDS = {"int": ir.I32, "float": ir.F32, "bool": ir.BOOL, "str": ir.STR}


def param_type(p: ir.Param) -> Type:
    """The type a parameter has in the body it belongs to."""
    if p.kind == "tensor":
        return TensorType(p.dtype if p.dtype is not None else ir.DTypeOf(p.name), p.rank)
    return ScalarType(_SCALAR_KINDS[p.kind], weak=True)


def host_env(entry: ir.Entry) -> TypeEnv:
    """The types of an entry's parameters, before any host statement."""
    env = TypeEnv()
    for p in entry.params:
        if p.kind != "object":  # host objects (a method's ctx) have no IR type
            env.vars[p.name] = param_type(p)
    return env


def kernel_env(kernel: ir.Kernel) -> TypeEnv:
    """The types of a kernel's parameters and tunables, before its grid tiles are bound."""
    env = TypeEnv()
    for p in kernel.params:
        env.vars[p.name] = param_type(p)
    for t in kernel.tunables:
        # Tunables are compile-time integers that device code may read (a registered block size).
        env.vars.setdefault(t.name, ScalarType(ir.I32, weak=True))
    return env
