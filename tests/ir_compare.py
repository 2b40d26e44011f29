"""Kernels up to presentation: normal forms for comparing the IR of a round trip with the source's.

A round trip through another DSL keeps what a kernel computes but not always how the IR says it:
the other DSL's backend names values, spells some ops as formulas, upcasts operands, makes block-1
tiles indices, orders tunables its own way; its frontend reads back what the other DSL can say
(Helion loads pad with 0, its block sizes have no names). Each such kind of difference has a
rewrite here that maps both sides to one form (:data:`KINDS` says why each is expected). A test
applies exactly the kinds it declares for an example and checks that each declared kind is
needed, so an unexplained difference, or an explanation that no longer applies, fails.

Only kernels are compared: host code is carried from the source as written (the golden tests
check that text), and the host functions' IR is what each frontend could model of it.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter
from collections.abc import Callable

from translator.dialects.triton.backend import TritonBackend
from translator.ir import nodes as ir
from translator.ir.printer import format_expr, format_kernel
from translator.ir.visit import has_loops, walk_expr, walk_stmts

KINDS = {
    "unit_tiles": (
        "the Triton backend makes grid tiles whose block is 1 in every config (batch, heads) "
        "plain indices (its `squeeze-unit-tiles` pass), so `tile_b: tile b by 1` comes back "
        "`index b by 1` and values lose that dim; a batched dot loaded in a loop comes back "
        "with one pipeline stage less (translator/dialects/triton/pipelining.py)"
    ),
    "unit_tile": (
        "an IR index beside tiles in a grid (a batch or head index, split-K's `pid_k`) is "
        "emitted as a block-1 dim of the grid's one hl.tile call read through `.begin`; it "
        "comes back as a tile of block 1 read through `.begin`, the same single index"
    ),
    "named_values": (
        "the Triton backend binds loads (and the operands it upcasts) to names before using "
        "them; read back, they are locals assigned once and used once"
    ),
    "names": (
        "tiles and locals come back under the names the other DSL's output gives them "
        "(`tile` -> `tile_tile`, a rebound `acc` -> `acc_2`)"
    ),
    "sizes": (
        "a size is a scalar parameter on one side (`head_dim`, `x_size0`) and the size of a "
        "tensor parameter on the other (`q.size(2)`), or the size of another tensor of the "
        "same shape (`out.size(0)` for `x.size(0)`): sizes are not compared"
    ),
    "spelled_ops": (
        "ops Triton has no function for are spelt as formulas (gelu -> 0.5 * x * (1 + erf(x / "
        "sqrt 2)), relu -> where(x < 0.0, 0.0, x), silu -> x * sigmoid(x)) and read back as those"
    ),
    "fp32_operands": (
        "the Triton backend converts the operands of float ops (exp, erf...) to float32 "
        "explicitly, which reads back as a cast the IR had implied"
    ),
    "tunables": (
        "tunables come back in the other DSL's order with the choices its configs give them "
        "(`num_stages = 1` comes back `in [1]`); a block the source computed on the host "
        "(`64 if d <= 64 else 32`) comes back with its default only; a source without configs "
        "comes back with one, of its defaults (Helion would autotune without one); a "
        "kernel without loops has no `num_stages` written (stages pipeline loops only), so it "
        "comes back at the other DSL's default"
    ),
    "block_names": (
        "Helion block sizes have no names: one that sizes a single hl.tile comes back named "
        "`block_size_<tile>` after its tile"
    ),
    "hints": (
        "hints the other DSL cannot state are dropped (`static_shapes`: Triton compiles per "
        "shape anyway) and hints its code implies are added (Triton's tl.exp is a fast "
        "approximation: `fast_math`)"
    ),
    "partial_dims": (
        "a whole dim the source read with `:` comes back bounded by another tensor's size the "
        "host never checked equal (attention reads `v`'s head dim by `q`'s): the frontend "
        "records it as a possible prefix (`ir.Kernel.partial_dims`)"
    ),
    "param_facts": (
        "what a launch proves of a kernel's tensor parameters (rank, dtype) differs with what "
        "each frontend could read of the host code"
    ),
    "pads": (
        "Helion indexing reads out-of-bounds lanes as 0, so every load comes back `pad=0.0`; "
        "the source's pad differed only where no result depends on it (lanes never read, or "
        "lanes only a reduction sees, which Helion leaves out)"
    ),
    "zero_d": (
        "a loop-carried value started from a number (`m = -inf`) comes back as a 0-d tensor "
        "(`full([], -inf, float32)`): Helion wants one type per variable across a loop"
    ),
    "reshape": (
        "a reshape that only undoes `[:, None]` (Triton's `idx[:, None]` gather offsets) is "
        "dropped by the Helion backend: `hl.load(weight, [idx, tile_d])`"
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
    """The printed kernels of ``module`` with the differences of ``kinds`` rewritten away
    (comments, which the golden tests compare, left out)."""
    unknown = kinds - set(KINDS)
    assert not unknown, f"unknown kinds {unknown}"
    kernels = [_kernel(k, kinds) for k in module.kernels]
    text = "\n".join(format_kernel(k) for k in kernels)
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))


def minimal_kinds(a: ir.Module, b: ir.Module) -> set[str] | None:
    """The smallest set of kinds under which ``a`` and ``b`` agree (``None``: none does).
    For writing a test's expectations; tests list them explicitly."""
    for n in range(len(KINDS) + 1):
        for combo in itertools.combinations(sorted(KINDS), n):
            if normal_form(a, set(combo)) == normal_form(b, set(combo)):
                return set(combo)
    return None


def _kernel(k: ir.Kernel, kinds: set[str]) -> ir.Kernel:
    if "unit_tiles" in kinds:
        (squeeze,) = [p for p in TritonBackend().passes() if p.name == "squeeze-unit-tiles"]
        k = _drop_unused_tunables(squeeze.run(k))
        k = dataclasses.replace(k, hints=dataclasses.replace(k.hints, extras=()))
    if "unit_tile" in kinds:
        k = _unit_tile(k)
    if "hints" in kinds:
        k = dataclasses.replace(k, hints=ir.Hints())
    if "partial_dims" in kinds:
        k = dataclasses.replace(k, partial_dims=())
    if "param_facts" in kinds:
        params = tuple(dataclasses.replace(p, rank=None, dtype=None) for p in k.params)
        k = dataclasses.replace(k, params=params)
    if "sizes" in kinds:
        k = _sizes_as_tensor_sizes(k)
    rewrites: list[Callable[[ir.Expr], ir.Expr]] = []
    if "spelled_ops" in kinds:
        rewrites.append(_spell)
    if "fp32_operands" in kinds:
        rewrites.append(_strip_f32)
    if "broadcast" in kinds:
        rewrites.append(_strip_leading_expand)
    if "commutative" in kinds:
        rewrites.append(_sort_operands)
    if "pads" in kinds:
        rewrites.append(_zero_pad)
    if "reshape" in kinds:
        rewrites.append(_strip_gather_reshape)
    body = k.body
    for rewrite in rewrites:
        body = _map(body, rewrite)  # type: ignore[assignment]
    if "zero_d" in kinds:
        body = _map(body, _zero_d)  # type: ignore[assignment]
    k = dataclasses.replace(k, body=body)
    if "names" in kinds:
        k = _canonical_names(_rebindings_renamed(k))
    if "named_values" in kinds:
        k = dataclasses.replace(k, body=_inline_single_use(k.body))
    if "names" in kinds:
        k = _canonical_names(k)
    if "block_names" in kinds:
        k = _canonical_block_names(k)
    if "tunables" in kinds:
        k = _canonical_tunables(k)
    return dataclasses.replace(k, loc=None, doc_comments=(), docstring=None)


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


def _rename(v: object, names: dict[str, str]) -> object:
    """``v`` with names (variables, tiles, assignment targets, blocks) renamed."""
    if isinstance(v, str):
        return v
    if isinstance(v, tuple):
        return tuple(_rename(x, names) for x in v)
    if not dataclasses.is_dataclass(v) or isinstance(v, type):
        return v
    changes = {}
    for f in dataclasses.fields(v):
        x = getattr(v, f.name)
        if (
            f.name in ("id", "target", "tile", "name", "block")
            and isinstance(x, str)
            or f.name == "tensor"
            and isinstance(x, str)
        ):
            changes[f.name] = names.get(x, x)
        elif f.name != "loc":
            changes[f.name] = _rename(x, names)
    return dataclasses.replace(v, **changes)  # type: ignore[type-var]


# --------------------------------------------------------------------------------------------------
# Rewrites


def _spell(e: ir.Expr) -> ir.Expr:
    if not isinstance(e, ir.Call):
        return e
    (x, *_) = e.args if e.args else (None,)
    if e.op == "relu":
        return ir.Call("where", (ir.BinOp("<", x, ir.Const(0.0)), ir.Const(0.0), x))
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


def _zero_pad(e: ir.Expr) -> ir.Expr:
    if isinstance(e, ir.Load) and e.other != 0.0:
        return dataclasses.replace(e, other=0.0)
    return e


def _strip_gather_reshape(e: ir.Expr) -> ir.Expr:
    if isinstance(e, ir.Load):
        index = tuple(
            ir.GatherIndex(i.value.value.value)
            if isinstance(i, ir.GatherIndex)
            and isinstance(i.value, ir.Reshape)
            and isinstance(i.value.value, ir.ExpandDims)
            else i
            for i in e.index
        )
        return dataclasses.replace(e, index=index)
    return e


def _zero_d(e: ir.Expr) -> ir.Expr:
    if isinstance(e, ir.Full) and e.shape == () and isinstance(e.value, ir.Const):
        return e.value
    return e


def _unit_tile(k: ir.Kernel) -> ir.Kernel:
    """Block-1 grid tiles read through ``.begin`` as plain indices."""
    units = {
        t.name
        for t in k.grid
        if not t.scalar and isinstance(t.block, ir.Const) and t.block.value == 1
    }
    units |= {
        t.name
        for t in k.grid
        if not t.scalar
        and isinstance(t.block, str)
        and {dict(c).get(t.block) for c in k.configs} | {_default(k, t.block)} == {1}
    }

    indices = units | {t.name for t in k.grid if t.scalar}

    def begin(e: ir.Expr) -> ir.Expr:
        if isinstance(e, ir.TileAttr) and e.tile in indices and e.attr == "begin":
            return ir.Name(e.tile)
        return e

    def index(v: object) -> object:
        if isinstance(v, ir.ScalarIndex) and isinstance(v.value, ir.Name) and v.value.id in indices:
            return ir.TileIndex(v.value.id)
        return v

    body = _map(k.body, begin)
    body = _map_index(body, index)
    grid = tuple(
        dataclasses.replace(t, block=ir.Const(1), scalar=True) if t.name in units else t
        for t in k.grid
    )
    used = {t.block for t in grid if isinstance(t.block, str)}
    tunables = tuple(t for t in k.tunables if t.kind != "block_size" or t.name in used)
    names = {t.name for t in tunables}
    configs = tuple(tuple((n, v) for n, v in c if n in names) for c in k.configs)
    return dataclasses.replace(k, grid=grid, body=body, tunables=tunables, configs=configs)  # type: ignore[arg-type]


def _map_index(v: object, fn: Callable[[object], object]) -> object:
    if isinstance(v, tuple):
        return tuple(_map_index(x, fn) for x in v)
    if not dataclasses.is_dataclass(v) or isinstance(v, type):
        return v
    v = fn(v)
    if not dataclasses.is_dataclass(v):
        return v
    changes = {
        f.name: _map_index(getattr(v, f.name), fn) for f in dataclasses.fields(v) if f.name != "loc"
    }
    return dataclasses.replace(v, **changes)  # type: ignore[type-var]


def _default(k: ir.Kernel, name: str) -> int | None:
    return next((t.default for t in k.tunables if t.name == name), None)


def _sizes_as_tensor_sizes(k: ir.Kernel) -> ir.Kernel:
    """Every size (``x.size(d)``, an ``int`` parameter) read as one placeholder, and the ``int``
    parameters dropped: which tensor's size, or which argument, names a size is not compared
    (the numerics of the round trip are)."""
    ints = {p.name for p in k.params if p.kind == "int"}

    def sub(e: ir.Expr) -> ir.Expr:
        if isinstance(e, ir.SizeOf) or (isinstance(e, ir.Name) and e.id in ints):
            return ir.Name("<size>")
        return e

    grid = tuple(dataclasses.replace(t, extent=_map(t.extent, sub)) for t in k.grid)  # type: ignore[arg-type]
    body = _map(k.body, sub)
    params = tuple(p for p in k.params if p.name not in ints)
    return dataclasses.replace(k, grid=grid, body=body, params=params)  # type: ignore[arg-type]


def _tiles(k: ir.Kernel) -> list[ir.TileVar]:
    out = list(k.grid)
    for s in walk_stmts(k.body):
        if isinstance(s, ir.TileLoop):
            out.extend(s.tiles)
    return out


def _all(k: ir.Kernel):
    from translator.ir.visit import kernel_exprs

    for e in kernel_exprs(k):
        yield from walk_expr(e)


def _inline_single_use(body: tuple[ir.Stmt, ...]) -> tuple[ir.Stmt, ...]:
    """Substitute device locals assigned once and read once into their use, and loads assigned
    once and read by one statement only (an operand a spelling uses twice, ``where(x < 0, 0,
    x)``, is bound to a name first)."""
    assigns = Counter(x.target for x in walk_stmts(body) if isinstance(x, ir.Assign))
    uses: Counter[str] = Counter()
    using: Counter[str] = Counter()  # statements that read each name
    for x in walk_stmts(body):
        read = [n.id for e in _stmt_exprs(x) for n in walk_expr(e) if isinstance(n, ir.Name)]
        uses.update(read)
        using.update(set(read))
    values = {
        x.target: x.value
        for x in walk_stmts(body)
        if isinstance(x, ir.Assign)
        and assigns[x.target] == 1
        and (uses[x.target] == 1 or (using[x.target] == 1 and isinstance(x.value, ir.Load)))
    }
    inner = _drop_assigns(body, set(values))

    def sub(e: ir.Expr) -> ir.Expr:
        while isinstance(e, ir.Name) and e.id in values:
            e = values[e.id]
        return e

    for _ in range(8):  # chains of single-use values
        inner = _map(inner, sub)  # type: ignore[assignment]
    return inner


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


def _drop_unused_tunables(k: ir.Kernel) -> ir.Kernel:
    used = {t.block for t in _tiles(k)}
    dead = {t.name for t in k.tunables if t.kind == "block_size" and t.name not in used}
    return dataclasses.replace(
        k,
        tunables=tuple(t for t in k.tunables if t.name not in dead),
        configs=tuple(tuple((n, v) for n, v in c if n not in dead) for c in k.configs),
    )


def _rebindings_renamed(k: ir.Kernel) -> ir.Kernel:
    """A kernel's top-level rebinding of a local (``acc = acc / l`` after the loop that
    accumulated it) renamed fresh from there on, as SSA would."""
    stmts = list(k.body)
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
    return dataclasses.replace(k, body=tuple(stmts))


def _canonical_names(k: ir.Kernel) -> ir.Kernel:
    """Tiles and device locals renamed ``t0, v1, ...`` in order of definition, each definition
    site (a loop's tiles, a loop-local value) under its own name; parameters keep theirs."""
    counter = iter(range(10_000))
    env: dict[str, str] = {}
    grid = tuple(dataclasses.replace(t, name=_fresh(env, t.name, "t", counter)) for t in k.grid)
    return dataclasses.replace(k, grid=grid, body=_scoped(k.body, env, counter))


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
                    _rename(t, env),  # type: ignore[arg-type]
                    name=_fresh(inner, t.name, "t", counter),
                )
                for t in s.tiles
            )
            out.append(dataclasses.replace(s, tiles=tiles, body=_scoped(s.body, inner, counter)))
        elif isinstance(s, ir.If):
            out.append(
                dataclasses.replace(
                    s,
                    test=_rename(s.test, env),  # type: ignore[arg-type]
                    body=_scoped(s.body, dict(env), counter),
                    orelse=_scoped(s.orelse, dict(env), counter),
                )
            )
        else:
            out.append(_rename(s, env))  # type: ignore[arg-type]
    return tuple(out)


def _canonical_block_names(k: ir.Kernel) -> ir.Kernel:
    """Block-size tunables named ``block_size_<tile>`` after the first tile they size."""
    names: dict[str, str] = {}
    for t in _tiles(k):
        if isinstance(t.block, str) and t.block not in names:
            suffix = t.name.removeprefix("tile_") if t.name != "tile" else "tile"
            names[t.block] = f"block_size_{suffix}"
    tunables = tuple(dataclasses.replace(t, name=names.get(t.name, t.name)) for t in k.tunables)
    configs = tuple(tuple((names.get(n, n), v) for n, v in c) for c in k.configs)
    grid = _rename(k.grid, names)
    body = _rename(k.body, names)
    return dataclasses.replace(k, tunables=tunables, configs=configs, grid=grid, body=body)  # type: ignore[arg-type]


def _canonical_tunables(k: ir.Kernel) -> ir.Kernel:
    if not has_loops(k):
        k = dataclasses.replace(
            k,
            tunables=tuple(t for t in k.tunables if t.name != "num_stages"),
            configs=tuple(tuple(kv for kv in c if kv[0] != "num_stages") for c in k.configs),
        )
    tunables = tuple(
        sorted((dataclasses.replace(t, choices=()) for t in k.tunables), key=lambda t: t.name)
    )
    configs = tuple(tuple(sorted(c)) for c in k.configs)
    defaults = tuple(sorted((t.name, t.default) for t in k.tunables))
    if configs == (defaults,):
        configs = ()  # one config of the defaults says what no config says
    return dataclasses.replace(k, tunables=tunables, configs=configs)
