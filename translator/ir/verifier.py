"""The IR verifier: run after every frontend and before every backend.

It checks scoping (every name defined before use, tile variables used inside their loops), shapes
and dtypes (through :mod:`translator.ir.shapes`), loop-carried values keeping their type, stores
whose value fits the region, and entries whose tunables cover every block size they name.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from translator.ir import nodes as ir
from translator.ir.shapes import (
    IRTypeError,
    ScalarType,
    TensorType,
    TileType,
    Type,
    TypeEnv,
    broadcast_dims,
    describe,
    dims_compatible,
    dims_of,
    host_env,
    index_dims,
    infer,
    kernel_env,
    param_type,
)
from translator.ir.visit import walk_stmts

StmtHook = Callable[[ir.Stmt, TypeEnv], None]


def verify(module: ir.Module) -> None:
    """Check ``module``; raises :class:`IRTypeError` (with a location where known)."""
    names = [k.name for k in module.kernels]
    if len(set(names)) != len(names):
        raise IRTypeError(f"duplicate kernel names in {names}")
    entries = [e.name for e in module.entries]
    if len(set(entries)) != len(entries):
        raise IRTypeError(f"duplicate entry names in {entries}")
    kernels = {k.name: k for k in module.kernels}
    for kernel in module.kernels:
        verify_kernel(kernel)
    for entry in module.entries:
        verify_entry(entry, kernels)
    sites = len(module.host.sites) if module.host is not None else 0
    for entry in module.entries:
        for launch in entry.launches():
            if launch.site is not None and not 0 <= launch.site < sites:
                raise IRTypeError(f"launch of {launch.kernel!r} names no launch site", launch.loc)


def verify_entry(entry: ir.Entry, kernels: dict[str, ir.Kernel] | None = None) -> None:
    """Check one entry's host statements and that each launch passes its kernel's parameters."""
    kernels = kernels or {}

    def check(stmt: ir.Stmt, env: TypeEnv) -> None:
        if isinstance(stmt, ir.Launch):
            _check_launch(stmt, kernels, env)
        elif isinstance(stmt, ir.InlineKernel):
            _check_inline(stmt)

    walk_entry(entry, check)


def verify_kernel(kernel: ir.Kernel) -> None:
    """Check one self-contained kernel: its body reads only its parameters, tunables and locals."""
    tunables = {t.name for t in kernel.tunables}
    _check_tunables(kernel)
    for config in kernel.configs:
        for key, _ in config:
            if key not in tunables:
                raise IRTypeError(f"config names unknown tunable {key!r}", kernel.loc)
    names = [p.name for p in kernel.params]
    if len(set(names)) != len(names):
        raise IRTypeError(f"kernel {kernel.name!r} has duplicate parameters {names}", kernel.loc)
    if kernel.hints.schedule is not None and kernel.hints.schedule not in ir.SCHEDULES:
        raise IRTypeError(f"unknown schedule {kernel.hints.schedule!r}", kernel.loc)
    env = walk_kernel(kernel, lambda stmt, env: _check_blocks(stmt, tunables))
    for test in kernel.partial_dims:
        _check_host_scalar(test, env, kernel.loc)


def _check_tunables(kernel: ir.Kernel) -> None:
    """Tunables: one per name, of a known kind; an ``int`` tunable's default, and every value a
    config gives it, lie in its space, and no tile takes its block from it (a block size is a
    tunable of its own, whose choices a target's tuner may reorder or cap)."""
    names = [t.name for t in kernel.tunables]
    if len(set(names)) != len(names):
        raise IRTypeError(f"kernel {kernel.name!r} has duplicate tunables {names}", kernel.loc)
    for t in kernel.tunables:
        if t.kind not in ir.TUNABLE_KINDS:
            raise IRTypeError(f"tunable {t.name!r} has unknown kind {t.kind!r}", kernel.loc)
        if t.kind != "int":
            continue
        if t.space not in ir.INT_SPACES:
            raise IRTypeError(f"int tunable {t.name!r} has unknown space {t.space!r}", kernel.loc)
        if t.space in ("power_of_two", "integer") and (
            t.bounds is None or not 0 <= t.bounds[0] <= t.bounds[1]
        ):
            raise IRTypeError(f"int tunable {t.name!r} needs bounds lo <= hi", kernel.loc)
        given = [t.default, *(v for c in kernel.configs for k, v in c if k == t.name)]
        for value in given:
            if not t.allows(value):
                raise IRTypeError(
                    f"int tunable {t.name!r} takes {value}, outside its {t.space} space", kernel.loc
                )
    ints = {t.name for t in kernel.tunables if t.kind == "int"}
    tiles = list(kernel.grid) + [
        tile for s in walk_stmts(kernel.body) if isinstance(s, ir.TileLoop) for tile in s.tiles
    ]
    for tile in tiles:
        if isinstance(tile.block, str) and tile.block in ints:
            raise IRTypeError(
                f"tile {tile.name!r} takes its block from int tunable {tile.block!r}", kernel.loc
            )


def walk_kernel(kernel: ir.Kernel, hook: StmtHook | None = None) -> TypeEnv:
    """Type-check a kernel's grid and body, calling ``hook(stmt, env)`` before each statement.

    Returns the environment of the body (parameters, tiles and locals after the last
    statement)."""
    env = kernel_env(kernel)
    for tile in kernel.grid:
        _check_host_scalar(tile.extent, env, kernel.loc)
        if tile.step is not None:
            raise IRTypeError(f"grid tile {tile.name!r} cannot skip tiles", kernel.loc)
        _check_block(tile, {t.name for t in kernel.tunables}, kernel.loc)
    inner = env.child()
    for tile in kernel.grid:
        inner.bind_tile(tile)
    walk_block(kernel.body, inner, hook)
    return inner


def _check_block(tile: ir.TileVar, tunables: set[str], loc: ir.Loc | None) -> None:
    if isinstance(tile.block, str) and tile.block not in tunables:
        raise IRTypeError(
            f"tile {tile.name!r} uses block size {tile.block!r}, which is no tunable", loc
        )


def _check_blocks(stmt: ir.Stmt, tunables: set[str]) -> None:
    if isinstance(stmt, ir.TileLoop):
        for tile in stmt.tiles:
            _check_block(tile, tunables, stmt.loc)


def _check_inline(stmt: ir.InlineKernel) -> None:
    tunables = {t.name for t in stmt.tunables}
    for tile in stmt.grid:
        _check_block(tile, tunables, stmt.loc)
    for s in walk_stmts(stmt.body):
        _check_blocks(s, tunables)


def _check_launch(launch: ir.Launch, kernels: dict[str, ir.Kernel], env: TypeEnv) -> None:
    kernel = kernels.get(launch.kernel)
    if kernel is None:
        raise IRTypeError(f"launch of unknown kernel {launch.kernel!r}", launch.loc)
    if len(launch.args) != len(kernel.params) or len(launch.texts) != len(kernel.params):
        raise IRTypeError(
            f"{launch.kernel!r} takes {len(kernel.params)} arguments, the launch passes "
            f"{len(launch.args)}",
            launch.loc,
        )
    for p, arg in zip(kernel.params, launch.args):
        t = infer(arg, env)
        if (p.kind == "tensor") != isinstance(t, TensorType):
            what = "a tensor" if p.kind == "tensor" else "a scalar"
            raise IRTypeError(f"{launch.kernel!r} parameter {p.name!r} takes {what}", launch.loc)


def walk_entry(entry: ir.Entry, hook: StmtHook | None = None) -> TypeEnv:
    """Type-check every statement of ``entry`` in order, calling ``hook(stmt, env)`` before each.

    Returns the host environment after the last statement.
    """
    env = host_env(entry)
    for stmt in entry.body:
        _stmt(stmt, env, hook, device=False)
    return env


def without_ill_typed_facts(entry: ir.Entry) -> ir.Entry:
    """``entry`` without the host statements that do not type-check (marked incomplete).

    Host statements are facts a frontend models from code it carries anyway; a fact it got wrong
    must cost the facts, not the translation. Kernels are checked as strictly as ever."""
    env = host_env(entry)
    kept: list[ir.Stmt] = []
    dropped = False
    for stmt in entry.body:
        if isinstance(stmt, ir.InlineKernel):
            _stmt(stmt, env, None, device=False)
            kept.append(stmt)
            continue
        trial = env.child()
        try:
            _stmt(stmt, trial, None, device=False)
        except IRTypeError:
            dropped = True
            continue
        env.vars.update(trial.vars)
        kept.append(stmt)
    if not dropped:
        return entry
    return dataclasses.replace(entry, body=tuple(kept), complete=False)


def walk_block(stmts: tuple[ir.Stmt, ...], env: TypeEnv, hook: StmtHook | None = None) -> None:
    """Type-check device statements in ``env`` (updated in place)."""
    for stmt in stmts:
        _stmt(stmt, env, hook, device=True)


def _stmt(stmt: ir.Stmt, env: TypeEnv, hook: StmtHook | None, device: bool) -> None:
    if hook is not None:
        hook(stmt, env)
    if isinstance(stmt, ir.Assign):
        t = infer(stmt.value, env)
        old = env.vars.get(stmt.target)
        if isinstance(old, TensorType):
            raise IRTypeError(f"cannot rebind host tensor {stmt.target!r} in device code", stmt.loc)
        env.vars[stmt.target] = t
    elif isinstance(stmt, (ir.Store, ir.AtomicRMW)):
        target = env.vars.get(stmt.tensor)
        if not isinstance(target, TensorType):
            raise IRTypeError(f"{stmt.tensor!r} is not a host tensor", stmt.loc)
        indexed = sum(1 for i in stmt.index if not isinstance(i, ir.NewAxis))
        if target.rank is not None and indexed != target.rank:
            raise IRTypeError(
                f"{stmt.tensor!r} has {target.rank} dims but is indexed with {indexed}", stmt.loc
            )
        region = index_dims(stmt.tensor, stmt.index, env, stmt.loc)
        value = infer(stmt.value, env)
        if isinstance(value, TensorType):
            raise IRTypeError("cannot store a host tensor", stmt.loc)
        vdims = dims_of(value)
        if len(vdims) > len(region):
            # Extra leading or unit dims are dropped on store (a keepdim result, say).
            vcore = tuple(d for d in vdims if not isinstance(d, ir.UnitDim))
            rcore = tuple(d for d in region if not isinstance(d, ir.UnitDim))
            if len(vcore) > len(rcore):
                raise IRTypeError(
                    f"stored value has dims {list(map(str, vdims))}, more than the region "
                    f"{list(map(str, region))}",
                    stmt.loc,
                )
            vdims = vcore
            region = rcore
        broadcast_dims(_unit_full(region), vdims, stmt.loc)
    elif isinstance(stmt, ir.TileLoop):
        inner = env.child()
        for tile in stmt.tiles:
            # A loop's bounds may be device scalars (a jagged row's loaded `offsets[b + 1]`).
            for bound in (tile.extent, tile.begin, tile.step):
                if bound is not None and dims_of(infer(bound, env)):
                    raise IRTypeError(f"the bounds of tile {tile.name!r} must be scalars", stmt.loc)
            inner.bind_tile(tile)
        walk_block(stmt.body, inner, hook)
        _carry_back(env, inner, stmt.loc)
    elif isinstance(stmt, ir.While):
        _check_while(stmt, env, hook)
    elif isinstance(stmt, ir.If):
        test = infer(stmt.test, env)
        if isinstance(test, TileType) and test.dims:
            raise IRTypeError("an if condition must be a scalar", stmt.loc)
        inners = []
        for branch in (stmt.body, stmt.orelse):
            inner = env.child()
            walk_block(branch, inner, hook)
            _carry_back(env, inner, stmt.loc)
            inners.append(inner)
        joined = _joined(env, *inners)
        env.vars.update(joined)
        body, orelse = inners
        for name, t in body.vars.items():
            other = orelse.vars.get(name)
            if name in env.vars or other is None or name in joined:
                continue
            env.unjoined[name] = (
                f"{name!r} is bound in both branches of an `if` as values of different types "
                f"({describe(t)} and {describe(other)}), so it has no one type after it; "
                "cast both to one dtype",
                stmt.loc,
            )
    elif isinstance(stmt, ir.InlineKernel):
        if device:
            raise IRTypeError("kernels cannot nest", stmt.loc)
        inner = env.child()
        for t in stmt.tunables:
            # Tunables are compile-time integers that device code may read.
            inner.vars.setdefault(t.name, ScalarType(ir.I32, weak=True))
        for tile in stmt.grid:
            _check_host_scalar(tile.extent, inner, stmt.loc)
            if tile.step is not None:
                raise IRTypeError(f"grid tile {tile.name!r} cannot skip tiles", stmt.loc)
            inner.bind_tile(tile)
        walk_block(stmt.body, inner, hook)
    elif isinstance(stmt, ir.ShapeUnpack):
        t = env.vars.get(stmt.tensor)
        if not isinstance(t, TensorType):
            raise IRTypeError(f"{stmt.tensor!r} is not a tensor", stmt.loc)
        env.vars[stmt.tensor] = TensorType(t.dtype, len(stmt.targets))
        for target in stmt.targets:
            if target is not None:
                env.vars[target] = ScalarType(ir.I32, weak=True)
    elif isinstance(stmt, ir.Alloc):
        if stmt.like is not None:
            like = env.vars.get(stmt.like)
            if not isinstance(like, TensorType):
                raise IRTypeError(f"{stmt.like!r} is not a tensor", stmt.loc)
            rank = like.rank
        else:
            for dim in stmt.shape or ():
                _check_host_scalar(dim, env, stmt.loc)
            rank = len(stmt.shape or ())
        env.vars[stmt.target] = TensorType(stmt.dtype, rank)
    elif isinstance(stmt, ir.View):
        source = env.vars.get(stmt.tensor)
        if not isinstance(source, TensorType):
            raise IRTypeError(f"{stmt.tensor!r} is not a tensor", stmt.loc)
        for dim in stmt.shape:
            _check_host_scalar(dim, env, stmt.loc)
        env.vars[stmt.target] = TensorType(source.dtype, len(stmt.shape))
    elif isinstance(stmt, ir.Assert):
        infer(stmt.test, env)
    elif isinstance(stmt, ir.Launch):
        if device:
            raise IRTypeError("kernels cannot launch kernels", stmt.loc)
    elif isinstance(stmt, ir.Carried):
        if device:
            raise IRTypeError("carried host code inside a kernel", stmt.loc)
        env.vars[stmt.target] = param_type(ir.Param(stmt.target, stmt.kind, rank=stmt.rank))
    elif isinstance(stmt, ir.Return):
        if device:
            raise IRTypeError("return inside device code", stmt.loc)
        if stmt.value is not None:
            for item in _items(stmt.value):
                if not isinstance(item, ir.Name) or not isinstance(
                    env.vars.get(item.id), (TensorType, ScalarType)
                ):
                    raise IRTypeError("entries return host tensors or scalars", stmt.loc)
    else:
        raise IRTypeError(f"unknown statement {type(stmt).__name__}", getattr(stmt, "loc", None))


def _check_while(stmt: ir.While, env: TypeEnv, hook: StmtHook | None) -> None:
    """A ``while`` loop: a scalar test over the names bound before it, a body whose carried
    names keep their type (so the test reads the same types on every iteration)."""
    if not stmt.body:
        raise IRTypeError("a while loop needs a body", stmt.loc)
    _check_scalar_test(stmt.test, env, stmt.loc)
    inner = env.child()
    walk_block(stmt.body, inner, hook)
    _carry_back(env, inner, stmt.loc)
    _check_scalar_test(stmt.test, env, stmt.loc)


def _check_scalar_test(test: ir.Expr, env: TypeEnv, loc: ir.Loc | None) -> None:
    t = infer(test, env)
    if dims_of(t) or not isinstance(t, (ScalarType, TileType)):
        raise IRTypeError(f"a while condition must be a scalar, not {describe(t)}", loc)


def _joined(outer: TypeEnv, body: TypeEnv, orelse: TypeEnv) -> dict[str, Type]:
    """Names both branches of an ``if`` bind to one type, new to ``outer``: bound after the
    ``if`` (a join: ``if flag: r = a`` / ``else: r = b``). One branch's names stay scoped to it."""
    return {
        name: t
        for name, t in body.vars.items()
        if name not in outer.vars and orelse.vars.get(name) == t
    }


def if_joins(stmt: ir.If, env: TypeEnv) -> dict[str, Type]:
    """The types of the names ``stmt`` binds in both branches (see :func:`_joined`), for a
    printer that scopes its branches."""
    inners = []
    for branch in (stmt.body, stmt.orelse):
        inner = env.child()
        walk_block(branch, inner)
        inners.append(inner)
    return _joined(env, *inners)


def _unit_full(dims: tuple[ir.Dim, ...]) -> tuple[ir.Dim, ...]:
    """Full dims of constant extent 1 broadcast like unit dims."""
    return tuple(
        ir.UnitDim()
        if isinstance(d, ir.FullDim) and isinstance(d.extent, ir.Const) and d.extent.value == 1
        else d
        for d in dims
    )


def _items(value: ir.Expr) -> tuple[ir.Expr, ...]:
    return value.items if isinstance(value, ir.TupleExpr) else (value,)


def _check_host_scalar(expr: ir.Expr, env: TypeEnv, loc: ir.Loc | None) -> None:
    t = infer(expr, env)
    if not isinstance(t, ScalarType):
        raise IRTypeError("a tile extent must be a host scalar", loc)


def _carry_back(outer: TypeEnv, inner: TypeEnv, loc: ir.Loc | None) -> None:
    """Propagate loop-carried values: they must keep their type across the loop body."""
    for name, old in outer.vars.items():
        new: Type | None = inner.vars.get(name)
        if new is None or new == old:
            continue
        if isinstance(old, TileType) and isinstance(new, TileType):
            # Triton needs a loop-carried tile to keep its exact shape (no broadcasting).
            if not dims_compatible(old.dims, new.dims):
                raise IRTypeError(
                    f"loop-carried {name!r} changes dims from {list(map(str, old.dims))} to "
                    f"{list(map(str, new.dims))}",
                    loc,
                )
            if old.dtype != new.dtype:
                raise IRTypeError(
                    f"loop-carried {name!r} changes dtype from {old.dtype} to {new.dtype}; "
                    "cast it back inside the loop",
                    loc,
                )
        elif (
            isinstance(old, ScalarType)
            and isinstance(new, ScalarType)
            or isinstance(old, ScalarType)
            and isinstance(new, TileType)
            and not new.dims
        ):
            continue
        else:
            raise IRTypeError(f"loop-carried {name!r} changes kind", loc)
