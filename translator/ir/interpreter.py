"""The reference interpreter: executes an IR :class:`~translator.ir.nodes.Entry` directly with torch.

Host statements run as Python; each :class:`~translator.ir.nodes.Kernel` runs one program per
combination of grid tiles, sequentially (the first grid dimension varies fastest, as the Triton
backend orders programs). Device values are *padded tiles*: a value of dims ``(BlockDim(t),
FullDim(e), UnitDim())`` is a tensor of shape ``(block(t), next_power_of_2(e), 1)`` whose lanes
past the extent are invalid. Dims and dtypes come from :func:`translator.ir.shapes.infer`; masks
are derived from them and the current tile offsets, so that boundary behaviour (load padding,
masked stores, masked reductions and dots) follows the module doc of :mod:`translator.ir.nodes`.

Unwritten outputs are detectable: ``Alloc`` with ``fill=None`` fills floats with NaN and integers
with their maximum, and ``Load(other=None)`` reads NaN (or the integer maximum) in invalid lanes.
"""

from __future__ import annotations

import ast
import itertools
import math
import operator
from collections.abc import Callable
from dataclasses import dataclass

import torch

from translator.ir import nodes as ir
from translator.ir.ops import COMPARISON_OPS, next_power_of_2, reduce_identity
from translator.ir.philox import RANDOM
from translator.ir.printer import format_expr
from translator.ir.shapes import (
    TensorType,
    TileVarType,
    Type,
    TypeEnv,
    dims_of,
    dtype_of,
    infer,
    kernel_env,
)
from translator.ir.shapes import dims_compatible as _compatible
from translator.ir.shapes import index_dims as _index_dims
from translator.ir.verifier import if_joins, verify_entry

TORCH_DTYPES: dict[str, torch.dtype] = {name: getattr(torch, name) for name in ir.DTYPE_NAMES}
_IR_NAMES = {dtype: name for name, dtype in TORCH_DTYPES.items()}
_SUM_LIKE = {"sum": torch.sum, "prod": torch.prod, "max": torch.amax, "min": torch.amin}
_HOST_BINOPS: dict[str, Callable[[object, object], object]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "//": operator.floordiv,
    "%": operator.mod,
    "**": operator.pow,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "==": operator.eq,
    "!=": operator.ne,
    "&": operator.and_,
    "|": operator.or_,
    "^": operator.xor,
    "<<": operator.lshift,
    ">>": operator.rshift,
}
_SQRT1_2 = 0.7071067811865476
_SQRT_2_PI = 0.7978845608028654
_DEVICE_CALLS: dict[str, Callable[..., torch.Tensor]] = {
    "exp": torch.exp,
    "exp2": torch.exp2,
    "log": torch.log,
    "log2": torch.log2,
    "log1p": torch.log1p,
    "sqrt": torch.sqrt,
    "rsqrt": torch.rsqrt,
    "sigmoid": torch.sigmoid,
    "tanh": torch.tanh,
    "erf": torch.erf,
    "sin": torch.sin,
    "cos": torch.cos,
    "gelu": lambda x: 0.5 * x * (1.0 + torch.erf(x * _SQRT1_2)),
    "gelu_tanh": lambda x: 0.5 * x * (1.0 + torch.tanh(_SQRT_2_PI * (x + 0.044715 * x * x * x))),
    "silu": lambda x: x * torch.sigmoid(x),
    "abs": torch.abs,
    "relu": torch.relu,
    "floor": torch.floor,
    "ceil": torch.ceil,
    "maximum": torch.maximum,
    "minimum": torch.minimum,
    "pow": torch.pow,
    "fma": lambda a, b, c: a * b + c,
    "cdiv": lambda a, b: torch.div(a + b - 1, b, rounding_mode="floor"),
    "next_power_of_2": lambda n: torch.exp2(torch.log2(n.clamp_min(1).double()).ceil()).long(),
    "where": lambda c, a, b: torch.where(c.bool(), a, b),
}


#: Iterations after which a ``while`` loop of the program counts as one that never ends (a stream-K
#: program runs one per tile it touches; a test input never needs more).
MAX_WHILE_ITERATIONS = 1 << 16


class InterpreterError(RuntimeError):
    """A program the interpreter cannot run (out-of-bounds access, unknown name...)."""


def poison(dtype: torch.dtype) -> float | int | bool:
    """The value unwritten or never-read lanes hold: NaN for floats, the maximum for integers."""
    if dtype == torch.bool:
        return True
    return math.nan if dtype.is_floating_point else torch.iinfo(dtype).max


def run_module(
    module: ir.Module, name: str, *args: object, config: dict[str, int] | None = None
) -> object:
    """Run entry ``name`` of ``module`` on positional ``args`` (or one dict of named args)."""
    entry = next((e for e in module.entries if e.name == name), None)
    if entry is None:
        raise KeyError(f"module {module.path} has no entry {name!r}")
    return run_entry(
        entry,
        args[0] if len(args) == 1 and isinstance(args[0], dict) else args,
        config,
        kernels=module.kernels,
    )


def run_entry(
    entry: ir.Entry,
    args: dict[str, object] | tuple,
    config: dict[str, int] | None = None,
    kernels: tuple[ir.Kernel, ...] | list[ir.Kernel] = (),
) -> object:
    """Execute ``entry`` on ``args`` (positional tuple or a name → value mapping) with torch.

    ``kernels`` are the kernels its launches name (an entry written with its kernels in place,
    :class:`~translator.ir.nodes.InlineKernel`, needs none). ``config`` maps tunable names to
    values for every kernel that has them; other tunables take the kernel's first config where
    it names them, else their default. Returns what the entry's ``Return`` returns: a tensor, a
    scalar, a tuple of them, or ``None``.
    """
    if any(isinstance(s, ir.InlineKernel) for s in entry.body):
        from translator.ir.outline import outline_entry

        entry, outlined = outline_entry(entry)
        kernels = [*kernels, *outlined]
    table = {k.name: k for k in kernels}
    verify_entry(entry, table)
    if not entry.complete or any(isinstance(s, ir.Carried) for s in entry.body):
        raise InterpreterError(
            f"{entry.name}: host code the frontend carries without modelling cannot be run"
        )
    return _Interpreter(entry, config, table).run(args)


def run_kernel(
    kernel: ir.Kernel, args: dict[str, object], config: dict[str, int] | None = None
) -> None:
    """Run one kernel over its grid on ``args`` (parameter name → tensor or scalar); tensors
    are written in place."""
    entry = ir.Entry(kernel.name, (), ())
    interp = _Interpreter(entry, config, {kernel.name: kernel})
    interp.set_device(list(args.values()))
    interp.launch(kernel, dict(args))


@dataclass
class _Tile:
    """The current tile of a tile variable: absolute ``start``, lanes, and their validity."""

    var: ir.TileVar
    start: int
    block: int
    extent: int
    begin: int
    offsets: torch.Tensor
    mask: torch.Tensor


class _Interpreter:
    def __init__(
        self, entry: ir.Entry, config: dict[str, int] | None, kernels: dict[str, ir.Kernel]
    ) -> None:
        self.entry = entry
        self.kernels = kernels
        self.config = {k: int(v) for k, v in (config or {}).items()}
        known = {t.name for k in kernels.values() for t in k.tunables}
        unknown = sorted(set(self.config) - known)
        if unknown:
            raise ValueError(f"config names unknown tunable {unknown[0]!r} of entry {entry.name!r}")
        self.tunables: dict[str, int] = {}
        self.vals: dict[str, object] = {}
        self.tenv = TypeEnv()
        self.tiles: dict[str, _Tile] = {}
        self.types: dict[int, Type] = {}
        self.full_masks: dict[ir.Expr, torch.Tensor] = {}
        self.device = torch.device("cpu")
        self.surrogates: dict[int, ir.Expr] = {}

    # ---------------------------------------------------------------- host

    def run(self, args: dict[str, object] | tuple) -> object:
        if not isinstance(args, dict) and len(args) > len(self.entry.params):
            raise TypeError(f"{self.entry.name}() takes {len(self.entry.params)} arguments")
        named = dict(
            args if isinstance(args, dict) else zip((p.name for p in self.entry.params), args)
        )
        for p in self.entry.params:
            if p.name in named:
                self.vals[p.name] = named.pop(p.name)
            elif p.default is not None:
                self.vals[p.name] = self.hv(p.default)
            else:
                raise TypeError(f"{self.entry.name}() missing argument {p.name!r}")
        if named:
            raise TypeError(f"{self.entry.name}() got unexpected arguments {sorted(named)}")
        self.set_device(list(self.vals.values()))
        for s in self.entry.body:
            if isinstance(s, ir.Return):
                return None if s.value is None else self.hv(s.value)
            self.host_stmt(s)
        return None

    def host_stmt(self, s: ir.Stmt) -> None:
        if isinstance(s, ir.ShapeUnpack):
            t = self.tensor(s.tensor)
            if len(s.targets) != t.dim():
                raise ValueError(
                    f"cannot unpack the {t.dim()} dims of {s.tensor!r} into {len(s.targets)} names"
                )
            for target, size in zip(s.targets, t.shape):
                if target is not None:
                    self.vals[target] = int(size)
        elif isinstance(s, ir.Alloc):
            dtype = self.torch_dtype(s.dtype)
            device = self.tensor(s.device_of).device
            shape = (
                tuple(self.tensor(s.like).shape)
                if s.like is not None
                else tuple(int(self.hv(d)) for d in s.shape or ())
            )
            fill = poison(dtype) if s.fill is None else s.fill
            self.vals[s.target] = torch.full(shape, fill, dtype=dtype, device=device)
        elif isinstance(s, ir.View):
            self.vals[s.target] = self.tensor(s.tensor).view(*(int(self.hv(d)) for d in s.shape))
        elif isinstance(s, ir.Assert):
            if not self.hv(s.test):
                raise AssertionError(_message(s.msg) if s.msg else format_expr(s.test))
        elif isinstance(s, ir.Assign):
            self.vals[s.target] = self.hv(s.value)
        elif isinstance(s, ir.Launch):
            kernel = self.kernels[s.kernel]
            values = {p.name: self.hv(a) for p, a in zip(kernel.params, s.args)}
            self.launch(kernel, values)
        else:
            raise InterpreterError(f"{type(s).__name__} is no host statement")

    def hv(self, e: ir.Expr) -> object:
        """Evaluate a host expression with Python semantics."""
        if isinstance(e, ir.Name):
            if e.id in self.vals:
                return self.vals[e.id]
            if e.id in self.tunables:
                return self.tunables[e.id]
            raise InterpreterError(f"name {e.id!r} is not defined")
        if isinstance(e, ir.Const):
            return e.value
        if isinstance(e, ir.SizeOf):
            return int(self.tensor(e.tensor).size(e.dim))
        if isinstance(e, ir.ShapeOf):
            return tuple(self.tensor(e.tensor).shape)
        if isinstance(e, ir.BinOp):
            if e.op in ("and", "or"):
                lhs = self.hv(e.lhs)
                return (lhs and self.hv(e.rhs)) if e.op == "and" else (lhs or self.hv(e.rhs))
            return _HOST_BINOPS[e.op](self.hv(e.lhs), self.hv(e.rhs))
        if isinstance(e, ir.UnaryOp):
            v = self.hv(e.operand)
            return -v if e.op == "-" else ~v if e.op == "~" else not v  # type: ignore[operator]
        if isinstance(e, ir.Call) and e.op == "if_none":
            value = self.hv(e.args[0])
            return self.hv(e.args[1]) if value is None else value
        if isinstance(e, ir.Call):  # host scalars through the device op, on 0-dim tensors
            return _DEVICE_CALLS[e.op](*(_host_tensor(self.hv(a)) for a in e.args)).item()
        if isinstance(e, ir.Cast):
            value = self.hv(e.value)
            if isinstance(value, torch.Tensor) and value.dim() > 0:
                return value.to(self.torch_dtype(e.dtype))  # a host tensor conversion
            return _host_tensor(value).to(self.torch_dtype(e.dtype)).item()
        if isinstance(e, ir.TupleExpr):
            return tuple(self.hv(i) for i in e.items)
        raise InterpreterError(f"{type(e).__name__} is no host expression")

    def tensor(self, name: str) -> torch.Tensor:
        t = self.vals.get(name)
        if not isinstance(t, torch.Tensor):
            raise InterpreterError(f"{name!r} is not a host tensor")
        return t

    def torch_dtype(self, dtype: ir.DTypeExpr) -> torch.dtype:
        if isinstance(dtype, ir.DTypeOf):
            return self.tensor(dtype.tensor).dtype
        return TORCH_DTYPES[dtype.name]

    # ---------------------------------------------------------------- kernels and tiles

    def set_device(self, values: list[object]) -> None:
        tensors = [v for v in values if isinstance(v, torch.Tensor)]
        if tensors:
            self.device = tensors[0].device

    def launch(self, k: ir.Kernel, values: dict[str, object]) -> None:
        saved_vals, saved_tunables = self.vals, self.tunables
        self.tunables = {t.name: t.default for t in k.tunables}
        if k.configs:
            self.tunables.update(dict(k.configs[0]))
        self.tunables.update({n: v for n, v in self.config.items() if n in self.tunables})
        host_vals, env = values, kernel_env(k)
        self.vals = host_vals
        for name, t in env.vars.items():
            # Type device code against the tensors' actual dtypes: shapes then promotes exactly
            # (an int tensor's ``x / 2`` is float32) instead of assuming tensors are float.
            v = host_vals.get(name)
            if isinstance(t, TensorType) and isinstance(v, torch.Tensor) and v.dtype in _IR_NAMES:
                env.vars[name] = TensorType(ir.DType(_IR_NAMES[v.dtype]), t.rank)
        for t in k.grid:
            env.bind_tile(t)
        self.full_masks = {}
        ranges = [self.tile_range(t) for t in k.grid]
        # The first grid dimension varies fastest (the backend's flat program order).
        for combo in itertools.product(*reversed(ranges)):
            self.vals, self.tenv, self.types = dict(host_vals), env.child(), {}
            for t, start in zip(k.grid, reversed(combo)):
                self.set_tile(t, start)
            self.device_block(k.body)
        self.vals, self.tunables = saved_vals, saved_tunables

    def tile_range(self, t: ir.TileVar) -> range:
        begin = 0 if t.begin is None else self.scalar_value(t.begin)
        step = 1 if t.step is None else self.scalar_value(t.step)
        return range(begin, self.scalar_value(t.extent), self.block(t) * step)

    def scalar_value(self, e: ir.Expr) -> int:
        """An integer loop bound: a host value, or one that reads the enclosing tiles."""
        try:
            return int(self.hv(e))  # type: ignore[call-overload]
        except InterpreterError:
            return int(self.dv(e).item())

    def block(self, t: ir.TileVar) -> int:
        if t.scalar:
            return 1
        if isinstance(t.block, ir.Const):
            return int(t.block.value)
        if t.block not in self.tunables:
            raise InterpreterError(f"tile {t.name!r} uses unknown tunable {t.block!r}")
        return self.tunables[t.block]

    def set_tile(self, t: ir.TileVar, start: int) -> None:
        block, extent = self.block(t), self.scalar_value(t.extent)
        begin = 0 if t.begin is None else self.scalar_value(t.begin)
        offsets = start + torch.arange(block, dtype=torch.int32, device=self.device)
        self.tiles[t.name] = _Tile(t, start, block, extent, begin, offsets, offsets < extent)

    # ---------------------------------------------------------------- device statements

    def device_block(self, stmts: tuple[ir.Stmt, ...]) -> None:
        for s in stmts:
            if isinstance(s, ir.Assign):
                t = self.type(s.value)
                self.vals[s.target] = self.dv(s.value)
                self.bind_type(s.target, t)
            elif isinstance(s, (ir.Store, ir.AtomicRMW)):
                self.store(s)
            elif isinstance(s, ir.TileLoop):
                self.scoped(s.tiles, lambda s=s: self.loop(s.tiles, s.body))
            elif isinstance(s, ir.While):
                self.while_loop(s)
            elif isinstance(s, ir.If):
                # A comparison of string parameters is a host value (no tensor holds a string).
                test = bool(
                    self.hv(s.test) if _compares_strings(s.test, self.type) else self.dv(s.test)
                )
                # Names both branches bind to one type live on after the `if` (the IR's join).
                self.scoped(
                    (),
                    lambda s=s, test=test: self.device_block(s.body if test else s.orelse),
                    keep=if_joins(s, self.tenv),
                )
            else:
                raise InterpreterError(f"{type(s).__name__} is no device statement")

    def bind_type(self, name: str, t: Type) -> None:
        if self.tenv.vars.get(name) != t:
            self.tenv.vars[name] = t
            self.types = {}

    def scoped(
        self,
        tiles: tuple[ir.TileVar, ...],
        body: Callable[[], None],
        keep: dict[str, Type] | None = None,
    ) -> None:
        """Run ``body`` in a nested scope: names it defines die with it (but those of ``keep``,
        with their types), updates live on."""
        outer_env, outer_names, outer_tiles = self.tenv, set(self.vals), dict(self.tiles)
        self.tenv, self.types = outer_env.child(), {}
        for t in tiles:
            self.tenv.bind_tile(t)
        body()
        for name in set(self.vals) - outer_names - set(keep or {}):
            del self.vals[name]
        for name in outer_env.vars:
            outer_env.vars[name] = self.tenv.vars.get(name, outer_env.vars[name])
        outer_env.vars.update(keep or {})
        self.tenv, self.types = outer_env, {}
        for t in tiles:
            if t.name in outer_tiles:
                self.tiles[t.name] = outer_tiles[t.name]

    def while_loop(self, s: ir.While) -> None:
        """Run ``s.body`` while its test holds, each iteration a scope of its own (names it
        binds first die with it, carried ones live on)."""
        for _ in range(MAX_WHILE_ITERATIONS):
            if not bool(self.dv(s.test)):
                return
            self.scoped((), lambda s=s: self.device_block(s.body))
        raise InterpreterError(
            f"`while {format_expr(s.test)}` ran {MAX_WHILE_ITERATIONS} iterations without "
            "ending: the oracle stops it rather than hang"
        )

    def loop(self, tiles: tuple[ir.TileVar, ...], body: tuple[ir.Stmt, ...]) -> None:
        """Nested tiles loop outermost-first, like nested for loops."""
        if not tiles:
            self.device_block(body)
            return
        for start in self.tile_range(tiles[0]):
            self.set_tile(tiles[0], start)
            self.loop(tiles[1:], body)

    def store(self, s: ir.Store | ir.AtomicRMW) -> None:
        target = self.tensor(s.tensor)
        idx, mask, rdims = self.region(s.tensor, s.index)
        shape = self.shape(rdims)
        value, vdims = self.dv(s.value), dims_of(self.type(s.value))
        if len(vdims) != len(rdims) and _compatible(_core(vdims), _core(rdims)):
            value = value.reshape(shape)
        elif len(vdims) > len(rdims):  # extra unit dims are dropped on store (the verifier's rule)
            value = value.reshape([n for n, d in zip(value.shape, vdims) if d != ir.UnitDim()])
        value = torch.broadcast_to(value, shape).to(target.dtype)[mask]
        sel = tuple(i[mask] for i in idx)
        op = s.op if isinstance(s, ir.AtomicRMW) else "xchg"
        if op == "xchg":
            target[sel] = value
        elif op == "add":
            target.index_put_(sel, value, accumulate=True)
        else:
            dense = target.contiguous()
            strides = torch.tensor(dense.stride(), device=self.device)
            flat = sum(
                (i * st for i, st in zip(sel, strides)), torch.zeros_like(value, dtype=torch.long)
            )
            dense.view(-1).scatter_reduce_(0, flat, value, reduce="a" + op)
            if dense.data_ptr() != target.data_ptr():
                target.copy_(dense)

    # ---------------------------------------------------------------- dims, masks, regions

    def type(self, e: ir.Expr) -> Type:
        t = self.types.get(id(e))
        if t is None:
            t = self.types[id(e)] = infer(e, self.tenv)
        return t

    def shape(self, dims: tuple[ir.Dim, ...]) -> tuple[int, ...]:
        """The padded shape of a value of ``dims``."""
        return tuple(self.dim_mask(d).shape[0] for d in dims)

    def dim_mask(self, d: ir.Dim) -> torch.Tensor:
        """Which lanes of dim ``d`` are valid (a 1-D bool tensor of the padded size)."""
        if isinstance(d, ir.BlockDim):
            tile = self.tiles.get(d.tile)
            if tile is None:
                raise InterpreterError(f"tile variable {d.tile!r} has no current tile")
            return tile.mask
        if isinstance(d, ir.FullDim):
            mask = self.full_masks.get(d.extent)
            if mask is None:
                n = int(self.hv(d.extent))
                lanes = torch.arange(next_power_of_2(n), device=self.device)
                mask = self.full_masks[d.extent] = lanes < n
            return mask
        return torch.ones(1, dtype=torch.bool, device=self.device)

    def mask_along(self, dims: tuple[ir.Dim, ...], axes: list[int]) -> torch.Tensor:
        """The validity of lanes along ``axes`` of a ``dims`` value, broadcastable to it."""
        mask = torch.ones((1,) * len(dims), dtype=torch.bool, device=self.device)
        for axis in axes:
            mask = mask & _place(self.dim_mask(dims[axis]), axis, len(dims))
        return mask

    def region(
        self, tensor: str, index: tuple[ir.IndexItem, ...], pred: torch.Tensor | None = None
    ) -> tuple[list[torch.Tensor], torch.Tensor, tuple[ir.Dim, ...]]:
        """Per-tensor-dim index tensors, valid mask and dims of ``tensor[index]``.

        Index tensors are broadcast to the padded region and zeroed in invalid lanes (and in
        lanes where a load's predicate ``pred`` is false).
        """
        t = self.tensor(tensor)
        dims = _index_dims(tensor, index, self.tenv, None)
        rank, shape = len(dims), self.shape(dims)
        idx: list[torch.Tensor] = []
        mask = torch.ones(shape, dtype=torch.bool, device=self.device)
        pos = 0
        for item in index:
            if isinstance(item, ir.NewAxis):
                pos += 1
                continue
            if isinstance(item, ir.TileIndex) and self.tiles[item.tile].var.scalar:
                lanes = torch.tensor(self.tiles[item.tile].start, device=self.device)
            elif isinstance(item, (ir.TileIndex, ir.FullIndex)):
                m = self.dim_mask(dims[pos])
                lanes = (
                    self.tiles[item.tile].offsets
                    if isinstance(item, ir.TileIndex)
                    else torch.arange(m.shape[0], device=self.device)
                )
                lanes, mask = _place(lanes, pos, rank), mask & _place(m, pos, rank)
                pos += 1
            elif isinstance(item, ir.ScalarIndex):
                lanes = self.dv(item.value).reshape(())
            else:
                gdims = dims_of(self.type(item.value))
                g, n = self.dv(item.value), len(gdims)
                lanes = g.reshape((1,) * pos + tuple(g.shape) + (1,) * (rank - pos - n))
                for j, gd in enumerate(gdims):
                    mask = mask & _place(self.dim_mask(gd), pos + j, rank)
                pos += n
            idx.append(torch.broadcast_to(lanes.long(), shape))
        if len(idx) != t.dim():
            raise InterpreterError(f"{tensor!r} has {t.dim()} dims but is indexed with {len(idx)}")
        if pred is not None:
            mask = mask & torch.broadcast_to(pred, shape)
        for d, lanes in enumerate(idx):
            if bool((((lanes < 0) | (lanes >= t.size(d))) & mask).any()):
                raise InterpreterError(f"out-of-bounds access to {tensor!r} along dim {d}")
        return [torch.where(mask, i, 0) for i in idx], mask, dims

    # ---------------------------------------------------------------- device expressions

    def dv(self, e: ir.Expr) -> torch.Tensor:
        """Evaluate a device expression to a padded tile (a 0-dim tensor for a scalar)."""
        t = self.type(e)
        value = getattr(self, "_" + type(e).__name__)(e, t)
        if isinstance(t, TileVarType):
            return value
        value = value.to(self.torch_dtype(dtype_of(t)))
        expected = self.shape(dims_of(t))
        if tuple(value.shape) != expected:
            raise InterpreterError(
                f"{format_expr(e)} has shape {tuple(value.shape)}, but its "
                f"dims {[str(d) for d in dims_of(t)]} pad to {expected}"
            )
        return value

    def _scalar(self, v: object, t: Type) -> torch.Tensor:
        return torch.tensor(v, dtype=self.torch_dtype(dtype_of(t)), device=self.device)

    def _Name(self, e: ir.Name, t: Type) -> torch.Tensor:
        if isinstance(t, TileVarType):
            tile = self.tiles[e.id]
            return tile.offsets if not tile.var.scalar else self._scalar(tile.start, t)
        v = self.hv(e)
        return v if isinstance(v, torch.Tensor) else self._scalar(v, t)

    def _SizeOf(self, e: ir.SizeOf | ir.Const, t: Type) -> torch.Tensor:
        return self._scalar(self.hv(e), t)

    _Const = _SizeOf

    def _BinOp(self, e: ir.BinOp, t: Type) -> torch.Tensor:
        a, b = self.dv(e.lhs), self.dv(e.rhs)
        if e.op in ("and", "or"):
            return (torch.logical_and if e.op == "and" else torch.logical_or)(a.bool(), b.bool())
        if e.op in COMPARISON_OPS:
            # Compare in the operands' common dtype (what "+" of them would have).
            common = self.surrogates.setdefault(id(e), ir.BinOp("+", e.lhs, e.rhs))
            dtype = self.torch_dtype(dtype_of(self.type(common)))
        else:
            dtype = self.torch_dtype(dtype_of(t))
        a, b = a.to(dtype), b.to(dtype)
        if e.op == "//":
            return torch.div(a, b, rounding_mode="floor")
        if e.op == "%":
            return torch.remainder(a, b)
        return _HOST_BINOPS[e.op](a, b)  # type: ignore[return-value]

    def _UnaryOp(self, e: ir.UnaryOp, t: Type) -> torch.Tensor:
        v = self.dv(e.operand)
        if e.op == "not" or (e.op == "~" and v.dtype == torch.bool):
            return torch.logical_not(v)
        return -v if e.op == "-" else torch.bitwise_not(v)

    def _Call(self, e: ir.Call, t: Type) -> torch.Tensor:
        if e.op in RANDOM:
            # Integer operands in their own dtype: a 64-bit offset keys Philox differently. A
            # host seed is taken as the number it is (Triton passes one past 2**31 as int64).
            seed, offsets = e.args
            try:
                key = self.hv(seed)
            except InterpreterError:
                key = self.dv(seed)
            return RANDOM[e.op](key, self.dv(offsets))  # type: ignore[arg-type]
        dtype = self.torch_dtype(dtype_of(t))
        args = [self.dv(a) for a in e.args]
        if e.op in ("where", "next_power_of_2"):
            return _DEVICE_CALLS[e.op](*args[:1], *(a.to(dtype) for a in args[1:]))
        return _DEVICE_CALLS[e.op](*(a.to(dtype) for a in args))

    def _Cast(self, e: ir.Cast, t: Type) -> torch.Tensor:
        return self.dv(e.value)

    def _TileAttr(self, e: ir.TileAttr, t: Type) -> torch.Tensor:
        tile = self.tiles[e.tile]
        if e.attr == "index":
            return tile.offsets if not tile.var.scalar else self._scalar(tile.start, t)
        value = {
            "begin": tile.start,
            "end": min(tile.start + tile.block, tile.extent),
            "block_size": tile.block,
            "id": tile.start // tile.block,
            "count": -(-(tile.extent - tile.begin) // tile.block),
        }[e.attr]
        return self._scalar(value, t)

    def _Load(self, e: ir.Load, t: Type) -> torch.Tensor:
        src = self.tensor(e.tensor)
        pred = None if e.mask is None else self.dv(e.mask).bool()
        idx, mask, _ = self.region(e.tensor, e.index, pred)
        values = src[tuple(idx)] if idx else src.reshape(())
        other = poison(src.dtype) if e.other is None else e.other
        return torch.where(mask, values, torch.tensor(other, device=self.device).to(src.dtype))

    def _Full(self, e: ir.Full, t: Type) -> torch.Tensor:
        value = self.dv(e.value).to(self.torch_dtype(e.dtype)).reshape(())
        return value.expand(self.shape(tuple(e.shape))).clone()

    def _Arange(self, e: ir.Arange, t: Type) -> torch.Tensor:
        return torch.arange(self.shape((e.dim,))[0], dtype=torch.int32, device=self.device)

    def _Reduce(self, e: ir.Reduce, t: Type) -> torch.Tensor:
        v, dims = self.dv(e.value), dims_of(self.type(e.value))
        axis = e.axis % len(dims)
        if e.masked:
            v = torch.where(self.mask_along(dims, [axis]), v, _identity(e.op, v.dtype))
        if e.op in ("argmax", "argmin"):
            fn = torch.argmax if e.op == "argmax" else torch.argmin
            return fn(v, dim=axis, keepdim=e.keepdim)
        if v.dtype.is_floating_point:
            v = v.to(torch.float64 if v.dtype == torch.float64 else torch.float32)
        elif e.op in ("sum", "prod"):
            v = v.to(torch.int64)
        return _SUM_LIKE[e.op](v, dim=axis, keepdim=e.keepdim)

    def _Scan(self, e: ir.Scan, t: Type) -> torch.Tensor:
        v, dims = self.dv(e.value), dims_of(self.type(e.value))
        axis = e.axis % len(dims)
        v = torch.where(self.mask_along(dims, [axis]), v, _identity(e.op, v.dtype))
        wide = (
            v.to(torch.float64 if v.dtype == torch.float64 else torch.float32)
            if (v.dtype.is_floating_point)
            else v.to(torch.int64)
        )
        fn = torch.cumsum if e.op == "sum" else torch.cumprod
        return fn(wide, dim=axis)

    def _Dot(self, e: ir.Dot, t: Type) -> torch.Tensor:
        # `e.precision` is ignored: the reference multiplies float32 operands exactly (IEEE, on
        # the CPU), the answer a tf32 or tf32x3 dot approximates within the tolerance
        # validation allows such dots.
        a, b = self.dv(e.lhs), self.dv(e.rhs)
        if e.masked:
            da, db = dims_of(self.type(e.lhs)), dims_of(self.type(e.rhs))
            a = torch.where(self.mask_along(da, [len(da) - 1]), a, 0)
            b = torch.where(self.mask_along(db, [len(db) - 2]), b, 0)
        floats = a.dtype.is_floating_point or b.dtype.is_floating_point
        compute = (
            torch.float64
            if torch.float64 in (a.dtype, b.dtype)
            else (torch.float32 if floats else torch.int64)
        )
        product = torch.matmul(a.to(compute), b.to(compute))
        if e.acc is not None:
            product = product + self.dv(e.acc).to(compute)
        return product

    def _Permute(self, e: ir.Permute, t: Type) -> torch.Tensor:
        return self.dv(e.value).permute(e.perm)

    def _Reshape(self, e: ir.Reshape, t: Type) -> torch.Tensor:
        return self.dv(e.value).reshape(self.shape(tuple(e.shape)))

    def _Broadcast(self, e: ir.Broadcast, t: Type) -> torch.Tensor:
        return torch.broadcast_to(self.dv(e.value), self.shape(tuple(e.shape))).clone()

    def _ExpandDims(self, e: ir.ExpandDims, t: Type) -> torch.Tensor:
        v = self.dv(e.value)
        return v.unsqueeze(e.axis if e.axis >= 0 else v.dim() + 1 + e.axis)


def _host_tensor(v: object) -> torch.Tensor:
    """A host scalar as a 0-dim tensor (Python floats are doubles); a device scalar (a loop
    bound a program computed) is one already."""
    if isinstance(v, torch.Tensor):
        return v
    return torch.tensor(v, dtype=torch.float64 if isinstance(v, float) else None)


def _message(source: str) -> str:
    """An assert message from its Python source: a string literal's value, else the source."""
    try:
        value = ast.literal_eval(source)
    except (ValueError, SyntaxError):
        return source
    return value if isinstance(value, str) else source


def _core(dims: tuple[ir.Dim, ...]) -> tuple[ir.Dim, ...]:
    return tuple(d for d in dims if not isinstance(d, ir.UnitDim))


def _place(vec: torch.Tensor, axis: int, rank: int) -> torch.Tensor:
    """A 1-D tensor reshaped to lie along ``axis`` of a rank-``rank`` tensor."""
    return vec.reshape((1,) * axis + (-1,) + (1,) * (rank - axis - 1))


def _identity(op: str, dtype: torch.dtype) -> torch.Tensor:
    """``reduce_identity(op)`` in ``dtype`` (infinities become the integer extremes)."""
    value = reduce_identity(op)
    if dtype == torch.bool:
        return torch.tensor(value > 0 or (op == "prod"))
    if not dtype.is_floating_point and math.isinf(value):
        info = torch.iinfo(dtype)
        value = info.max if value > 0 else info.min
    return torch.tensor(value, dtype=dtype)


__all__ = ["InterpreterError", "next_power_of_2", "poison", "run_entry", "run_module"]


def _compares_strings(e: ir.Expr, type_of: Callable[[ir.Expr], Type]) -> bool:
    """Whether ``e`` compares string parameters (see :data:`translator.ir.nodes.STR`)."""
    from translator.ir.visit import walk_expr

    return any(
        dtype_of(type_of(x)) == ir.STR for x in walk_expr(e) if isinstance(x, (ir.Name, ir.Const))
    )
