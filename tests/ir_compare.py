"""IR up to presentation: normal forms for comparing the IR of a round trip with the source's.

A round trip through another DSL keeps what the program computes but not always how the IR says
it: the other DSL's backend names values, spells some ops as formulas, upcasts operands, makes
block-1 tiles indices, orders tunables its own way. Each such kind of difference has a rewrite
here that maps both sides to one form (:data:`KINDS` says why each difference is expected); a
test applies exactly the kinds it declares for an example, and checks that each declared kind is
needed, so an unexplained difference, or an explanation that no longer applies, fails.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable

from translator.dialects.triton.pipelining import fewer_stages_for_squeezed_dots
from translator.ir import nodes as ir
from translator.ir.printer import format_expr, format_module
from translator.ir.transforms import squeeze_unit_tiles, unit_block_tiles
from translator.ir.visit import walk_expr, walk_stmts

KINDS = {
    "unit_tiles": (
        "the Triton backend makes grid tiles whose block is 1 in every config (batch, heads) "
        "plain indices (translator/ir/transforms.py), so `tile_b: tile b by 1` comes back "
        "`index b by 1` and values lose that dim; a batched dot loaded in a loop comes back "
        "with one pipeline stage less (translator/dialects/triton/pipelining.py)"
    ),
    "named_values": (
        "the Triton backend binds loads (and the operands it upcasts) to names before using "
        "them; read back, they are locals assigned once and used once"
    ),
    "names": (
        "tiles and locals come back under the names the Triton output gives them (`tile` -> "
        "`tile_tile`, a rebound `acc` -> `acc_2`)"
    ),
    "sizes": (
        "device code names a size by the host variable the source bound it to (`head_dim`) or "
        "by `x.size(d)` where the other side passed it as a kernel argument"
    ),
    "spelled_ops": (
        "ops Triton has no function for are spelt as formulas (gelu -> 0.5 * x * (1 + erf(x / "
        "sqrt 2)), relu -> maximum(x, 0.0), silu -> x * sigmoid(x)) and read back as those"
    ),
    "fp32_operands": (
        "the Triton backend converts the operands of float ops (exp, erf...) to float32 "
        "explicitly, which reads back as a cast the IR had implied"
    ),
    "split_asserts": "`assert a and b, msg` comes back as two asserts with the same message",
    "specialize": (
        "`x = hl.specialize(x)` has no Triton statement (x becomes a tl.constexpr argument), so "
        "the self-assignment does not come back"
    ),
    "tunables": (
        "tunables come back in the Triton module's order with the choices its configs give them "
        "(`num_stages = 1` comes back `in [1]`)"
    ),
    "commutative": "sums and products come back with their operands in another order",
    "broadcast": (
        "an operand broadcast with a leading `[None, :]` comes back without it (numpy "
        "broadcasting adds leading dims)"
    ),
}

_F32 = ir.DType("float32")
_FLOAT_OPS = (
    "exp",
    "exp2",
    "log",
    "log2",
    "log1p",
    "sqrt",
    "rsqrt",
    "sigmoid",
    "tanh",
    "erf",
    "sin",
    "cos",
    "gelu",
    "gelu_tanh",
    "silu",
    "pow",
)


def normal_form(module: ir.Module, kinds: set[str]) -> str:
    """The printed IR of ``module`` with the differences of ``kinds`` rewritten away (comments,
    which the golden tests compare, left out)."""
    unknown = kinds - set(KINDS)
    assert not unknown, f"unknown kinds {unknown}"
    entries = tuple(_entry(e, kinds) for e in module.entries)
    text = format_module(dataclasses.replace(module, entries=entries, path=""))
    return "\n".join(line for line in text.splitlines()[1:] if not line.lstrip().startswith("#"))


def _entry(entry: ir.Entry, kinds: set[str]) -> ir.Entry:
    if "unit_tiles" in kinds:
        squeezed = squeeze_unit_tiles(entry, unit_block_tiles(entry))
        entry = _drop_unused_tunables(fewer_stages_for_squeezed_dots(entry, squeezed))
    body = entry.body
    if "sizes" in kinds:
        body = _sizes_by_source(body)
    if "split_asserts" in kinds:
        body = _split_asserts(body)
    if "specialize" in kinds:
        body = tuple(
            s for s in body if not (isinstance(s, ir.Assign) and s.value == ir.Name(s.target))
        )
    rewrites: list[Callable[[ir.Expr], ir.Expr]] = []
    if "spelled_ops" in kinds:
        rewrites.append(_spell)
    if "fp32_operands" in kinds:
        rewrites.append(_strip_f32)
    if "broadcast" in kinds:
        rewrites.append(_strip_leading_expand)
    if "commutative" in kinds:
        rewrites.append(_sort_operands)
    for rewrite in rewrites:
        body = _map_stmts(body, rewrite)
    entry = dataclasses.replace(entry, body=body)
    if "names" in kinds:
        entry = _canonical_names(_rebindings_renamed(entry))
    if "named_values" in kinds:
        entry = dataclasses.replace(entry, body=_inline_single_use(entry.body))
    if "names" in kinds:
        entry = _canonical_names(entry)
    if "tunables" in kinds:
        entry = _canonical_tunables(entry)
    return dataclasses.replace(entry, hints=(), loc=None)


# --------------------------------------------------------------------------------------------------
# Generic mapping


def _map(v: object, fn: Callable[[ir.Expr], ir.Expr]) -> object:
    """``v`` with every expression rewritten bottom-up by ``fn``."""
    if isinstance(v, tuple):
        return tuple(_map(x, fn) for x in v)
    if not dataclasses.is_dataclass(v) or isinstance(v, type):
        return v
    changes = {
        f.name: _map(getattr(v, f.name), fn) for f in dataclasses.fields(v) if f.name != "loc"
    }
    out = dataclasses.replace(v, **changes)  # type: ignore[type-var]
    return fn(out) if isinstance(out, ir.Expr) else out


def _map_stmts(body: tuple[ir.Stmt, ...], fn: Callable[[ir.Expr], ir.Expr]) -> tuple:
    return _map(body, fn)  # type: ignore[return-value]


def _rename(v: object, names: dict[str, str]) -> object:
    """``v`` with names (variables, tiles, assignment targets) renamed."""
    if isinstance(v, str):
        return v
    if isinstance(v, tuple):
        return tuple(_rename(x, names) for x in v)
    if not dataclasses.is_dataclass(v) or isinstance(v, type):
        return v
    changes = {}
    for f in dataclasses.fields(v):
        x = getattr(v, f.name)
        if f.name in ("id", "target", "tile", "name") and isinstance(x, str):
            changes[f.name] = names.get(x, x)
        elif f.name != "loc":
            changes[f.name] = _rename(x, names)
    return dataclasses.replace(v, **changes)  # type: ignore[type-var]


# --------------------------------------------------------------------------------------------------
# Rewrites


def _split_asserts(body: tuple[ir.Stmt, ...]) -> tuple[ir.Stmt, ...]:
    out: list[ir.Stmt] = []
    for s in body:
        if isinstance(s, ir.Assert):
            parts, stack = [], [s.test]
            while stack:
                t = stack.pop(0)
                if isinstance(t, ir.BinOp) and t.op == "and":
                    stack[:0] = [t.lhs, t.rhs]
                else:
                    parts.append(t)
            out += [dataclasses.replace(s, test=p, comments=()) for p in parts]
        else:
            out.append(s)
    return tuple(out)


def _spell(e: ir.Expr) -> ir.Expr:
    if not isinstance(e, ir.Call):
        return e
    (x, *_) = e.args if e.args else (None,)
    if e.op == "relu":
        return ir.Call("maximum", (x, ir.Const(0.0)))
    if e.op == "silu":
        return ir.BinOp("*", x, ir.Call("sigmoid", (x,)))
    if e.op == "gelu":
        erf = ir.Call("erf", (ir.BinOp("*", x, ir.Const(0.7071067811865476)),))
        return ir.BinOp("*", ir.BinOp("*", ir.Const(0.5), x), ir.BinOp("+", ir.Const(1.0), erf))
    return e


def _strip_f32(e: ir.Expr) -> ir.Expr:
    if isinstance(e, ir.Call) and e.op in _FLOAT_OPS:
        args = tuple(a.value if isinstance(a, ir.Cast) and a.dtype == _F32 else a for a in e.args)
        return dataclasses.replace(e, args=args)
    return e


def _strip_leading_expand(e: ir.Expr) -> ir.Expr:
    if isinstance(e, ir.BinOp):
        lhs, rhs = (
            x.value if isinstance(x, ir.ExpandDims) and x.axis == 0 else x for x in (e.lhs, e.rhs)
        )
        return dataclasses.replace(e, lhs=lhs, rhs=rhs)
    return e


def _sort_operands(e: ir.Expr) -> ir.Expr:
    if isinstance(e, ir.BinOp) and e.op in ("+", "*"):
        lhs, rhs = sorted((e.lhs, e.rhs), key=format_expr)
        return dataclasses.replace(e, lhs=lhs, rhs=rhs)
    return e


def _inline_single_use(body: tuple[ir.Stmt, ...]) -> tuple[ir.Stmt, ...]:
    """Substitute device locals assigned once and read once into their use."""
    kernels = [s for s in body if isinstance(s, ir.Kernel)]
    out = []
    for s in body:
        if isinstance(s, ir.Kernel) and s in kernels:
            assigns = Counter(x.target for x in walk_stmts(s.body) if isinstance(x, ir.Assign))
            uses: Counter[str] = Counter()
            for x in walk_stmts(s.body):
                for e in _stmt_exprs(x):
                    uses.update(n.id for n in walk_expr(e) if isinstance(n, ir.Name))
            values = {
                x.target: x.value
                for x in walk_stmts(s.body)
                if isinstance(x, ir.Assign) and assigns[x.target] == 1 and uses[x.target] == 1
            }
            inner = _drop_assigns(s.body, set(values))

            def sub(e: ir.Expr, values: dict = values) -> ir.Expr:
                while isinstance(e, ir.Name) and e.id in values:
                    e = values[e.id]
                return e

            for _ in range(8):  # chains of single-use values
                inner = _map(inner, sub)  # type: ignore[assignment]
            s = dataclasses.replace(s, body=inner)
        out.append(s)
    return tuple(out)


def _drop_assigns(body: tuple[ir.Stmt, ...], names: set[str]) -> tuple[ir.Stmt, ...]:
    out = []
    for s in body:
        if isinstance(s, ir.Assign) and s.target in names:
            continue
        if isinstance(s, ir.TileLoop):
            s = dataclasses.replace(s, body=_drop_assigns(s.body, names))
        elif isinstance(s, ir.If):
            s = dataclasses.replace(
                s, body=_drop_assigns(s.body, names), orelse=_drop_assigns(s.orelse, names)
            )
        out.append(s)
    return tuple(out)


def _stmt_exprs(s: ir.Stmt) -> list[ir.Expr]:
    from translator.ir.visit import stmt_exprs

    return list(stmt_exprs(s))


def _drop_unused_tunables(entry: ir.Entry) -> ir.Entry:
    used = {
        t.block
        for s in walk_stmts(entry.body)
        if isinstance(s, (ir.Kernel, ir.TileLoop))
        for t in (s.grid if isinstance(s, ir.Kernel) else s.tiles)
    }
    dead = {
        t.name
        for t in entry.tunables
        if t.kind == "block_size" and t.name not in used and t.default == 1
    }
    return dataclasses.replace(
        entry,
        tunables=tuple(t for t in entry.tunables if t.name not in dead),
        configs=tuple(tuple((k, v) for k, v in c if k not in dead) for c in entry.configs),
    )


def _sizes_by_source(body: tuple[ir.Stmt, ...]) -> tuple[ir.Stmt, ...]:
    """Host names bound to sizes (``m, k = x.size()``, ``d = x.size(2)``) as ``x.size(d)`` in
    device code."""
    sizes: dict[str, ir.Expr] = {}
    for s in body:
        if isinstance(s, ir.ShapeUnpack):
            for d, t in enumerate(s.targets):
                if t is not None:
                    sizes[t] = ir.SizeOf(s.tensor, d)
        elif isinstance(s, ir.Assign) and isinstance(s.value, ir.SizeOf):
            sizes[s.target] = s.value
        elif isinstance(s, ir.Assign) and isinstance(s.value, ir.Name) and s.value.id in sizes:
            sizes[s.target] = sizes[s.value.id]

    def sub(e: ir.Expr) -> ir.Expr:
        return sizes.get(e.id, e) if isinstance(e, ir.Name) else e

    return tuple(_map(s, sub) if isinstance(s, ir.Kernel) else s for s in body)  # type: ignore


def _rebindings_renamed(entry: ir.Entry) -> ir.Entry:
    """A kernel's top-level rebinding of a local (``acc = acc / l`` after the loop that
    accumulated it) renamed fresh from there on, as SSA would."""
    body = []
    for s in entry.body:
        if isinstance(s, ir.Kernel):
            stmts = list(s.body)
            seen: set[str] = set()
            for i, st in enumerate(stmts):
                if isinstance(st, ir.Assign) and st.target in seen:
                    fresh = f"{st.target}'{i}"
                    rest = _rename(tuple(stmts[i + 1 :]), {st.target: fresh})
                    stmts[i] = dataclasses.replace(st, target=fresh)
                    stmts[i + 1 :] = list(rest)  # type: ignore[arg-type]
                    seen.add(fresh)
                    continue
                for x in walk_stmts((st,)):
                    if isinstance(x, ir.Assign):
                        seen.add(x.target)
            s = dataclasses.replace(s, body=tuple(stmts))
        body.append(s)
    return dataclasses.replace(entry, body=tuple(body))


def _canonical_names(entry: ir.Entry) -> ir.Entry:
    """Tiles and device locals renamed ``t0, v1, ...`` in order of definition, each definition
    site (a loop's tiles, a loop-local value) under its own name."""
    counter = iter(range(10_000))
    body = []
    for s in entry.body:
        if isinstance(s, ir.Kernel):
            env: dict[str, str] = {}
            grid = tuple(
                dataclasses.replace(t, name=_fresh(env, t.name, "t", counter)) for t in s.grid
            )
            s = dataclasses.replace(
                s,
                name="",
                grid=_rename(grid, {}),  # type: ignore[arg-type]
                body=_scoped(s.body, env, counter),
            )
        body.append(s)
    return dataclasses.replace(entry, body=tuple(body))


def _fresh(env: dict[str, str], name: str, prefix: str, counter) -> str:
    env[name] = f"{prefix}{next(counter)}"
    return env[name]


def _scoped(stmts: tuple[ir.Stmt, ...], env: dict[str, str], counter) -> tuple[ir.Stmt, ...]:
    out: list[ir.Stmt] = []
    for s in stmts:
        if isinstance(s, ir.Assign):
            value = _rename(s.value, env)
            target = env[s.target] if s.target in env else _fresh(env, s.target, "v", counter)
            out.append(dataclasses.replace(s, target=target, value=value))  # type: ignore
        elif isinstance(s, ir.TileLoop):
            inner = dict(env)
            tiles = tuple(
                dataclasses.replace(
                    _rename(t, env),
                    name=_fresh(  # type: ignore
                        inner, t.name, "t", counter
                    ),
                )
                for t in s.tiles
            )
            out.append(dataclasses.replace(s, tiles=tiles, body=_scoped(s.body, inner, counter)))
        elif isinstance(s, ir.If):
            out.append(
                dataclasses.replace(
                    s,
                    test=_rename(s.test, env),
                    body=_scoped(s.body, dict(env), counter),
                    orelse=_scoped(s.orelse, dict(env), counter),
                )
            )
        else:
            out.append(_rename(s, env))  # type: ignore[arg-type]
    return tuple(out)


def _canonical_tunables(entry: ir.Entry) -> ir.Entry:
    tunables = tuple(
        sorted(
            (
                dataclasses.replace(t, choices=tuple(sorted({*t.choices, t.default})))
                for t in entry.tunables
            ),
            key=lambda t: t.name,
        )
    )
    configs = tuple(tuple(sorted(c)) for c in entry.configs)
    return dataclasses.replace(entry, tunables=tunables, configs=configs)
