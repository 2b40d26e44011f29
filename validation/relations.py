"""Shape relations of an IR entry: which input tensor dims must have equal sizes.

Validation feeds a kernel random inputs, and those inputs must be shaped the way the kernel
expects (``x.size(1) == y.size(0)`` for a matmul) or the run fails for the wrong reason. The
relations are derived from the IR alone, with a union-find over *size keys*:

* ``("dim", tensor, d)``: ``tensor.size(d)`` of any host tensor (inputs, allocations, views);
* ``("name", id)``: a host scalar name (``m`` from ``m, n = x.size()``, an ``int`` parameter);
* ``("const", c)``: an integer literal;
* ``("expr", text)``: any other host scalar expression, by its printed form.

Sources of equalities: shape unpacking, host assignments of sizes, allocation shapes and ``like``,
every index of a load/store/atomic (a tile on dim ``d`` relates the dim to the tile's extent),
``assert a == b`` between sizes or shapes, dot contraction dims and broadcasts of whole dims.
Integer inputs are recognised where they index: a gather through a value loaded from tensor ``L``
makes ``L`` an index tensor with values in ``[0, bound)``; so does comparing ``L`` against a tile's
``index`` (a one-hot pick).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from translator.ir import nodes as ir
from translator.ir.outline import inline_launches
from translator.ir.printer import format_expr
from translator.ir.renaming import names_in, rename
from translator.ir.visit import child_stmts, stmt_exprs, walk_expr

Key = tuple
DimRef = tuple[str, int]


def dim_key(tensor: str, dim: int) -> Key:
    """The size key of ``tensor.size(dim)``."""
    return ("dim", tensor, dim)


def expr_key(e: ir.Expr) -> Key:
    """The size key of a host scalar expression."""
    if isinstance(e, ir.Name):
        return ("name", e.id)
    if isinstance(e, ir.SizeOf):
        return dim_key(e.tensor, e.dim)
    if isinstance(e, ir.Const) and isinstance(e.value, int) and not isinstance(e.value, bool):
        return ("const", e.value)
    return ("expr", format_expr(e))


class UnionFind:
    """Disjoint sets of hashable keys, remembering the order keys were first seen."""

    def __init__(self) -> None:
        self._parent: dict[Key, Key] = {}

    def add(self, k: Key) -> Key:
        """Register ``k`` (a no-op if known) and return its representative."""
        self._parent.setdefault(k, k)
        return self.find(k)

    def find(self, k: Key) -> Key:
        """The representative of ``k``'s set."""
        self._parent.setdefault(k, k)
        root = k
        while self._parent[root] != root:
            root = self._parent[root]
        while self._parent[k] != root:  # path compression
            self._parent[k], k = root, self._parent[k]
        return root

    def union(self, a: Key, b: Key) -> None:
        """Merge the sets of ``a`` and ``b``."""
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self._parent[rb] = ra

    def ordered(self) -> list[Key]:
        """Every key, in first-seen order."""
        return list(self._parent)

    def members(self, k: Key) -> list[Key]:
        """The keys in ``k``'s set, in first-seen order."""
        root = self.find(k)
        return [x for x in self._parent if self.find(x) == root]


@dataclass(frozen=True)
class SizeClass:
    """Input dims that must have one size.

    ``name`` is the host name bound to the size where there is one (``m``), else the first member
    spelt ``x.size(0)``. ``aliases`` are every spelling accepted as a ``sizes`` override.
    ``const`` is a literal the class is tied to. ``uses`` says how device code indexes the dims:
    ``"tile"`` (blocked by a tile), ``"full"`` (loaded whole), ``"dot"`` (a whole dim in a dot).
    """

    name: str
    members: tuple[DimRef, ...]
    aliases: tuple[str, ...]
    const: int | None = None
    uses: frozenset[str] = frozenset()


@dataclass(frozen=True)
class IndexRange:
    """An input tensor of integers used as indices: each value lies in ``[0, bound)``.

    ``bound`` is a host scalar expression (evaluated by :meth:`Relations.evaluate`); ``use`` is
    ``"gather"`` or ``"compare"``.
    """

    tensor: str
    bound: ir.Expr
    use: str


@dataclass
class Relations:
    """What validation needs to know about an entry's inputs."""

    entry: str
    params: tuple[str, ...]
    """The entry's parameter names, in order."""
    ranks: dict[str, int]
    """Rank of every input tensor."""
    classes: list[SizeClass]
    """Size classes of the input dims, in parameter order."""
    dim_class: dict[DimRef, str]
    """``(tensor, dim)`` of each input dim → the name of its size class."""
    index_tensors: dict[str, list[IndexRange]]
    """Input tensors that hold indices, with every bound they must respect."""
    scalars: dict[str, int | float | bool]
    """Values for scalar parameters that are not sizes."""
    has_dot: bool = False
    notes: list[str] = field(default_factory=list)
    _uf: UnionFind = field(default_factory=UnionFind, repr=False)
    _shapes: dict[str, tuple[str, object]] = field(default_factory=dict, repr=False)
    _host: dict[str, ir.Expr] = field(default_factory=dict, repr=False)

    def size_class(self, tensor: str, dim: int) -> SizeClass:
        """The size class of input dim ``tensor.size(dim)``."""
        name = self.dim_class[(tensor, dim)]
        return next(c for c in self.classes if c.name == name)

    def same(self, a: DimRef, b: DimRef) -> bool:
        """Whether two tensor dims must have equal sizes."""
        return self._uf.find(dim_key(*a)) == self._uf.find(dim_key(*b))

    def evaluate(
        self,
        e: ir.Expr,
        shapes: dict[str, tuple[int, ...]],
        names: dict[str, int | float | bool] | None = None,
    ) -> int | float:
        """A host scalar expression, given the input shapes and any scalar parameter values."""
        return _Evaluator(self, shapes, names or {}).value(e)


# --------------------------------------------------------------------------------------------------


def derive(
    entry: ir.Entry,
    kernels: Sequence[ir.Kernel] = (),
    entries: Sequence[ir.Entry] = (),
) -> Relations:
    """The shape relations of ``entry``, whose launches run ``kernels`` (read in the entry's
    terms); raises ``ValueError`` if an input's rank is unknown. An entry that only calls other
    ``entries`` (its :attr:`~translator.ir.nodes.Entry.forwards`) has the relations of the one it
    passes its parameters to."""
    if entry.forwards and not entry.launches():
        return _through_forwards(entry, kernels, entries)
    if kernels:
        entry = inline_launches(entry, {k.name: k for k in kernels})
    return _Builder(entry).build()


def _through_forwards(
    entry: ir.Entry, kernels: Sequence[ir.Kernel], entries: Sequence[ir.Entry], depth: int = 0
) -> Relations:
    """The relations of the first entry ``entry`` forwards to whose relations derive, read with
    the callee's parameters renamed to what ``entry`` passes them."""
    by_name = {e.name: e for e in entries}
    why: list[str] = []
    # A call that passes the parameters as they are says most of their shapes: it goes first.
    for forward in sorted(entry.forwards, key=lambda f: len(f.views) + len(f.transposed)):
        callee = by_name.get(forward.callee)
        if callee is None or depth > 8:
            continue
        try:
            synthetic = _forwarded(entry, forward, callee)
            if synthetic.forwards and not synthetic.launches():
                return _through_forwards(synthetic, kernels, entries, depth + 1)
            return derive(synthetic, kernels)
        except ValueError as err:
            why.append(str(err))
    reason = "; ".join(why) or "it calls no entry that launches with its own parameters"
    raise ValueError(f"{entry.name}: cannot shape inputs through its calls: {reason}")


def _forwarded(entry: ir.Entry, forward: ir.Forward, callee: ir.Entry) -> ir.Entry:
    """``callee`` as ``entry`` calls it: parameters renamed to the caller's, constants bound."""
    passed = dict(forward.args)
    mapping = {q: v.id for q, v in passed.items() if isinstance(v, ir.Name)}
    # A view is the parameter itself at one rank (a transpose at 2): the callee must take it so.
    view_ranks = {q: r for q, r in forward.views if r is not None}
    view_ranks.update({q: 2 for q in forward.transposed})
    for q, rank in view_ranks.items():
        takes = _param_rank(callee, q)
        if takes is not None and takes != rank:
            raise ValueError(
                f"parameter {mapping.get(q, q)!r} reaches {callee.name} as a {rank}-d view, "
                f"where it takes {takes}-d"
            )
    # A transposed parameter (``weight.t()``) is another tensor to the callee: one whose shape
    # is the caller's reversed, stated as an allocation of that shape.
    flipped = {q: mapping[q] for q in forward.transposed if q in mapping}
    mapping.update({q: f"{base}__t" for q, base in flipped.items()})
    # Callee names that the caller's names would capture move aside first.
    taken = (names_in(callee) - set(mapping)) & set(mapping.values())
    mapping.update({n: f"{n}__callee" for n in taken})
    renamed: ir.Entry = rename(dataclasses.replace(callee, forwards=()), mapping)  # type: ignore[assignment]
    # What the callee passes on is renamed; whom it passes it to (the keys) is not.
    onward = tuple(
        dataclasses.replace(f, args=tuple((q, rename(v, mapping)) for q, v in f.args))  # type: ignore[misc]
        for f in callee.forwards
    )
    bound: list[ir.Stmt] = [
        ir.Assign(mapping.get(q, q), v) for q, v in passed.items() if isinstance(v, ir.Const)
    ]
    for q, base in flipped.items():
        shape = (ir.SizeOf(base, 1), ir.SizeOf(base, 0))
        bound.append(ir.Alloc(mapping[q], shape, None, ir.DTypeOf(base), base))
    for q in callee.params:
        if q.name not in passed and isinstance(q.default, ir.Const):
            bound.append(ir.Assign(q.name, q.default))
    typed = {p.name: p for p in renamed.params}
    params: list[ir.Param] = []
    viewed_at = {mapping[q]: r for q, r in view_ranks.items() if q in mapping and q not in flipped}
    for p in entry.params:
        if p.name in flipped.values():
            params.append(dataclasses.replace(p, kind="tensor", rank=2))
        elif p.name in typed and p.name in mapping.values():
            if p.rank is not None and viewed_at.get(p.name, p.rank) != p.rank:
                raise ValueError(
                    f"parameter {p.name!r} is {p.rank}-d, and reaches {callee.name} as a "
                    f"{viewed_at[p.name]}-d view of another shape"
                )
            rank = p.rank if p.rank is not None else typed[p.name].rank
            rank = viewed_at.get(p.name, rank)
            params.append(dataclasses.replace(typed[p.name], default=p.default, rank=rank))
        elif p.default is not None:
            break  # left out of the call: it keeps its default
        elif p.kind in ("int", "float", "bool", "str"):
            params.append(p)
        else:
            raise ValueError(f"parameter {p.name!r} reaches no entry as it is")
    # The caller's own checks (``assert x.shape == y.shape``) hold on the way in.
    checks = tuple(s for s in entry.body if isinstance(s, ir.Assert))
    return dataclasses.replace(
        renamed,
        name=entry.name,
        params=tuple(params),
        body=(*checks, *bound, *renamed.body),
        forwards=onward,
    )


def _param_rank(entry: ir.Entry, name: str) -> int | None:
    """The rank ``entry`` takes its parameter ``name`` at: declared, or unpacked in its body."""
    param = next((p for p in entry.params if p.name == name), None)
    if param is not None and param.rank is not None:
        return param.rank
    for s in entry.body:
        if isinstance(s, ir.ShapeUnpack) and s.tensor == name:
            return len(s.targets)
    return None


_SIZE_POOL = (17, 37, 45, 61, 83, 100, 29, 53, 71, 23, 91, 67, 43, 79, 59, 27)


def default_size(i: int) -> int:
    """The ``i``-th default ragged size: distinct, small, never a multiple of 16."""
    if i < len(_SIZE_POOL):
        return _SIZE_POOL[i]
    n = 101 + 2 * (i - len(_SIZE_POOL))
    return n + 1 if n % 16 == 0 else n


class _Builder:
    def __init__(self, entry: ir.Entry) -> None:
        self.entry = entry
        self.uf = UnionFind()
        self.inputs = [p.name for p in entry.params if p.kind == "tensor"]
        self.ranks: dict[str, int] = {}
        self.uses: dict[Key, set[str]] = {}
        self.tiles: list[dict[str, ir.TileVar]] = [{}]
        self.defs: dict[str, list[ir.Expr]] = {}
        self.gathers: list[tuple[str, int, ir.Expr]] = []
        self.compares: list[tuple[ir.Expr, ir.TileVar]] = []
        self.likes: list[tuple[str, str]] = []
        self.shape_eqs: list[tuple[str, str]] = []
        self.shapes: dict[str, tuple[str, object]] = {}
        self.host: dict[str, ir.Expr] = {}
        self.choices: dict[Key, set[int]] = {}  # sizes an assert restricts to a few constants
        self.notes: list[str] = []
        self.has_dot = False
        for p in entry.params:
            if p.kind == "int" and not _is_float_default(p):
                self.uf.add(("name", p.name))
            if p.kind == "tensor" and p.rank is not None:
                self.ranks[p.name] = p.rank

    # --- statements

    def build(self) -> Relations:
        for s in self.entry.body:
            self.stmt(s, device=False)
        self.rank_flattened_inputs()
        self.negative_dims()
        for target, like in self.likes:
            rank = self.ranks.get(like)
            if rank is not None:
                self.ranks.setdefault(target, rank)
                for d in range(rank):
                    self.uf.union(dim_key(target, d), dim_key(like, d))
        for a, b in self.shape_eqs:
            rank = self.ranks.get(a, self.ranks.get(b))
            if rank is None:
                self.notes.append(f"cannot relate shapes of {a} and {b}: rank unknown")
                continue
            self.ranks.setdefault(a, rank)
            self.ranks.setdefault(b, rank)
            for d in range(rank):
                self.uf.union(dim_key(a, d), dim_key(b, d))
        self.typed_pass()
        return self.finish()

    def device_bound(self, tile: ir.TileVar) -> bool:
        """Whether a loop's extent or start is a value the kernel computes (loads), not a
        host size."""
        return any(
            isinstance(e, ir.Name) and e.id in self.defs
            for bound in (tile.extent, tile.begin)
            if bound is not None
            for e in walk_expr(bound)
        )

    def stmt(self, s: ir.Stmt, device: bool) -> None:
        if isinstance(s, ir.ShapeUnpack):
            self.set_rank(s.tensor, len(s.targets))
            for d, t in enumerate(s.targets):
                if t is not None:
                    self.uf.union(dim_key(s.tensor, d), ("name", t))
        elif isinstance(s, ir.Assign) and not device:
            self.host[s.target] = s.value
            if isinstance(s.value, (ir.Name, ir.SizeOf)) or _int_const(s.value):
                self.uf.union(("name", s.target), expr_key(s.value))
        elif isinstance(s, ir.Assign):
            self.defs.setdefault(s.target, []).append(s.value)
            self.exprs(s.value)
        elif isinstance(s, ir.Alloc):
            if s.like is not None:
                self.likes.append((s.target, s.like))
                self.shapes[s.target] = ("like", s.like)
            else:
                shape = s.shape or ()
                self.set_rank(s.target, len(shape))
                self.shapes[s.target] = ("shape", shape)
                for d, e in enumerate(shape):
                    self.uf.union(dim_key(s.target, d), expr_key(e))
        elif isinstance(s, ir.View):
            self.set_rank(s.target, len(s.shape))
            self.shapes[s.target] = ("view", (s.tensor, s.shape))
            for d, e in enumerate(s.shape):
                if not _is_minus_one(e):
                    self.uf.union(dim_key(s.target, d), expr_key(e))
        elif isinstance(s, ir.Assert):
            self.assert_test(s.test)
        elif isinstance(s, (ir.Store, ir.AtomicRMW)):
            self.index(s.tensor, s.index)
            for e in stmt_exprs(s):
                self.exprs(e)
        elif isinstance(s, (ir.InlineKernel, ir.TileLoop)):
            tiles = s.grid if isinstance(s, ir.InlineKernel) else s.tiles
            scope = dict(self.tiles[-1])
            for t in tiles:
                scope[t.name] = t
                if self.device_bound(t):
                    continue  # a jagged row's `offsets[b + 1]`: no size of any input
                self.use(expr_key(t.extent), "index" if t.scalar else "tile")
                self.exprs(t.extent)
            self.tiles.append(scope)
            for b in s.body:
                self.stmt(b, device=True)
            self.tiles.pop()
        else:
            # If, Return and statements this module does not know yet: scan their expressions
            # and nested statements so that no index escapes.
            for e in stmt_exprs(s):
                self.exprs(e)
            for b in child_stmts(s):
                self.stmt(b, device=device)

    def rank_flattened_inputs(self) -> None:
        """Inputs of no stated rank that the host only reshapes: drawn at the reshape's rank.

        ``view x as [-1]`` works at any rank: ``x`` is drawn 2-d so that the flattening is
        exercised (a Triton kernel over ``x.numel()`` elements, say). ``view x as [-1, n]`` (a
        library's ``x.reshape(-1, x.shape[-1])``) takes any leading dims: ``x`` is drawn with
        the view's rank and its trailing sizes."""
        for t in self.inputs:
            if t in self.ranks:
                continue
            for view, (kind, spec) in self.shapes.items():
                if kind != "view" or spec[0] != t:  # type: ignore[index]
                    continue
                shape = spec[1]  # type: ignore[index]
                if len(shape) == 1 and _is_minus_one(shape[0]):
                    self.ranks[t] = 2
                    self.notes.append(f"{t} is only used flattened; drawn 2-d")
                    break
                if _is_minus_one(shape[0]) and not any(_is_minus_one(e) for e in shape[1:]):
                    self.ranks[t] = len(shape)
                    for d, e in enumerate(shape[1:], start=1):
                        self.uf.union(dim_key(t, d), expr_key(e))
                    # Drawn at the view's rank, its leading dim is the one the `-1` takes.
                    self.uf.union(dim_key(t, 0), dim_key(view, 0))
                    self.notes.append(f"{t} is reshaped to {len(shape)}-d; drawn {len(shape)}-d")
                    break

    def negative_dims(self) -> None:
        """``x.size(-1)`` is the last dim: once ``x``'s rank is known it joins that dim."""
        for k in self.uf.ordered():
            if k[0] == "dim" and k[2] < 0 and k[1] in self.ranks:
                d = k[2] + self.ranks[k[1]]
                if d >= 0:
                    self.uf.union(dim_key(k[1], d), k)

    def set_rank(self, tensor: str, rank: int) -> None:
        old = self.ranks.setdefault(tensor, rank)
        if old != rank:
            self.notes.append(f"{tensor} is used with ranks {old} and {rank}")

    def use(self, k: Key, how: str) -> None:
        self.uf.add(k)
        self.uses.setdefault(k, set()).add(how)

    def assert_test(self, test: ir.Expr) -> None:
        if isinstance(test, ir.BinOp) and test.op == "and":
            self.assert_test(test.lhs)
            self.assert_test(test.rhs)
        elif isinstance(test, ir.BinOp) and test.op == "==":
            a, b = test.lhs, test.rhs
            if isinstance(a, ir.ShapeOf) and isinstance(b, ir.ShapeOf):
                self.shape_eqs.append((a.tensor, b.tensor))
            elif _size_like(a) and _size_like(b):
                self.uf.union(expr_key(a), expr_key(b))
        elif isinstance(test, ir.BinOp) and test.op == "or":
            # `assert d == 16 or d == 32 or ...` (`d in {16, 32, ...}`): d takes one of them.
            values = _or_of_constants(test)
            if values is not None:
                key, consts = values
                self.choices.setdefault(key, set()).update(consts)

    # --- expressions

    def exprs(self, e: ir.Expr) -> None:
        for sub in walk_expr(e):
            if isinstance(sub, ir.Load):
                self.index(sub.tensor, sub.index)
            elif isinstance(sub, ir.Dot):
                self.has_dot = True
            elif isinstance(sub, ir.BinOp) and sub.op == "==":
                self.compare(sub.lhs, sub.rhs)
                self.compare(sub.rhs, sub.lhs)

    def index(self, tensor: str, index: tuple[ir.IndexItem, ...]) -> None:
        axis = 0
        scope = self.tiles[-1]
        for item in index:
            if isinstance(item, ir.NewAxis):
                continue
            k = dim_key(tensor, axis)
            if isinstance(item, ir.TileIndex):
                tile = scope.get(item.tile)
                if tile is not None and self.device_bound(tile):
                    tile = None  # lanes below a loaded bound say nothing of the dim's size
                if tile is not None:
                    self.uf.union(k, expr_key(tile.extent))
                # A block-1 grid index (batch, head) only picks one element per program.
                self.use(k, "index" if tile is not None and tile.scalar else "tile")
            elif isinstance(item, ir.FullIndex):
                if item.extent is not None:
                    self.uf.union(k, expr_key(item.extent))
                self.use(k, "full")
            elif isinstance(item, ir.ScalarIndex):
                loop = scope.get(item.value.id) if isinstance(item.value, ir.Name) else None
                if loop is not None and self.device_bound(loop):
                    pass  # a row of a jagged sequence: bounded by loaded offsets, not a size
                elif isinstance(item.value, ir.Name) and item.value.id in scope:
                    self.uf.union(k, expr_key(scope[item.value.id].extent))
                else:
                    # A scalar read from an input (``x[row, label]``) is a one-element gather.
                    self.gathers.append((tensor, axis, item.value))
            elif isinstance(item, ir.GatherIndex):
                self.gathers.append((tensor, axis, item.value))
            axis += 1
        self.set_rank(tensor, axis)

    def compare(self, a: ir.Expr, b: ir.Expr) -> None:
        """``tile.index == L`` (through broadcasts): ``L`` holds indices along the tile."""
        a = _strip(a)
        if isinstance(a, ir.TileAttr) and a.attr == "index":
            tile = self.tiles[-1].get(a.tile)
            if tile is not None:
                self.compares.append((b, tile))

    # --- typed pass: dot contractions and broadcasts need the dims of values

    def typed_pass(self) -> None:
        from translator.ir.shapes import TileType, dims_of, infer
        from translator.ir.verifier import walk_entry

        def dim_key_of(d: ir.Dim, env) -> Key | None:
            if isinstance(d, ir.BlockDim) and d.tile in env.tiles:
                return expr_key(env.tiles[d.tile].extent)
            if isinstance(d, ir.FullDim):
                return expr_key(d.extent)
            return None

        def relate(a: tuple[ir.Dim, ...], b: tuple[ir.Dim, ...], env) -> None:
            # Right-aligned, as broadcasting aligns; only two whole dims are an equality the
            # program states (a tile against a whole dim is a type error the verifier reports).
            for x, y in zip(reversed(a), reversed(b)):
                if isinstance(x, ir.FullDim) and isinstance(y, ir.FullDim):
                    kx, ky = expr_key(x.extent), expr_key(y.extent)
                    if not (self.is_unit(kx) or self.is_unit(ky)):
                        self.uf.union(kx, ky)

        def hook(stmt: ir.Stmt, env) -> None:
            for top in stmt_exprs(stmt):
                for e in walk_expr(top):
                    if isinstance(e, ir.Dot):
                        a, b = infer(e.lhs, env), infer(e.rhs, env)
                        if isinstance(a, TileType) and isinstance(b, TileType):
                            ka, kb = dim_key_of(a.dims[-1], env), dim_key_of(b.dims[-2], env)
                            if ka is not None and kb is not None:
                                self.uf.union(ka, kb)
                            for d in (*a.dims, *b.dims):
                                if isinstance(d, ir.FullDim):
                                    self.use(expr_key(d.extent), "dot")
                    elif isinstance(e, (ir.BinOp, ir.Call)):
                        operands = (e.lhs, e.rhs) if isinstance(e, ir.BinOp) else e.args
                        dims = [dims_of(infer(o, env)) for o in operands]
                        for other in dims[1:]:
                            relate(dims[0], other, env)

        try:
            walk_entry(self.entry, hook)
        except Exception as err:  # the IR is verified upstream; a failure here loses only extras
            self.notes.append(f"typed relations skipped: {type(err).__name__}: {err}")

    def is_unit(self, k: Key) -> bool:
        return any(m == ("const", 1) for m in self.uf.members(k))

    # --- result

    def finish(self) -> Relations:
        entry = self.entry
        for t in self.inputs:
            if t not in self.ranks:
                raise ValueError(
                    f"{entry.name}: cannot tell the rank of input {t!r} (never unpacked or indexed)"
                )
        names_in_order = [k for k in self.uf.ordered() if k[0] == "name"]
        classes: list[SizeClass] = []
        dim_class: dict[DimRef, str] = {}
        seen: set[Key] = set()
        roots: list[Key] = []
        for t in self.inputs:
            for d in range(self.ranks[t]):
                root = self.uf.find(dim_key(t, d))
                if root not in seen:
                    seen.add(root)
                    roots.append(root)
        # Int parameters that size something without being an input dim get a class too.
        for p in entry.params:
            k = ("name", p.name)
            if (
                p.kind == "int"
                and p.default is None
                and k in set(self.uf.ordered())
                and self.uf.find(k) not in seen
                and len(self.uf.members(k)) > 1
            ):
                seen.add(self.uf.find(k))
                roots.append(self.uf.find(k))
        taken: set[str] = set()
        for root in roots:
            members = self.uf.members(root)
            dims = tuple((m[1], m[2]) for m in members if m[0] == "dim" and m[1] in self.inputs)
            host = [k[1] for k in names_in_order if self.uf.find(k) == root]
            spelt = [f"{t}.size({d})" for t, d in dims]
            name = next((h for h in host if h not in taken), spelt[0] if spelt else host[0])
            taken.add(name)
            consts = sorted({m[1] for m in members if m[0] == "const"})
            if not consts:
                allowed = [self.choices[k] for k in self.choices if self.uf.find(k) == root]
                if allowed:
                    # The smallest size every assert allows: the cheapest legal input.
                    common = set.intersection(*allowed)
                    consts = [min(common)] if common else []
            if len(consts) > 1:
                self.notes.append(f"size class {name} is tied to several constants {consts}")
            uses: set[str] = set()
            for m in members:
                uses |= self.uses.get(m, set())
            cls = SizeClass(
                name=name,
                members=dims,
                aliases=tuple(dict.fromkeys([name, *host, *spelt])),
                const=consts[0] if consts else None,
                uses=frozenset(uses),
            )
            classes.append(cls)
            for dref in dims:
                dim_class[dref] = name
        params = list(entry.params)
        # Trailing objects with defaults (`dtype=None`, `*, out=None`) keep them: not passed.
        while params and params[-1].kind == "object" and params[-1].default is not None:
            params.pop()
        rel = Relations(
            entry=entry.name,
            params=tuple(p.name for p in params),
            ranks={t: self.ranks[t] for t in self.inputs},
            classes=classes,
            dim_class=dim_class,
            index_tensors={},
            scalars=_scalar_values(entry, self.uf, roots),
            has_dot=self.has_dot,
            notes=self.notes,
            _uf=self.uf,
            _shapes=self.shapes,
            _host=self.host,
        )
        self.index_ranges(rel)
        return rel

    def index_ranges(self, rel: Relations) -> None:
        for tensor, axis, value in self.gathers:
            terms = list(self.terms(value))
            strides = [s for t in terms if (s := _stride(t)) is not None and not self.loads_in(t)]
            for t in terms:
                for name, scale in self.loaded_inputs(t):
                    gathered: ir.Expr = ir.SizeOf(tensor, axis)
                    if scale is not None:
                        bound: ir.Expr = ir.BinOp("//", gathered, scale)
                    elif strides:
                        # ``row * stride + L``: L picks a column within one row of ``stride``.
                        bound = strides[0]
                    else:
                        bound = gathered
                    rel.index_tensors.setdefault(name, []).append(IndexRange(name, bound, "gather"))
        for value, tile in self.compares:
            for name, _ in self.loaded_inputs(value):
                rel.index_tensors.setdefault(name, []).append(
                    IndexRange(name, tile.extent, "compare")
                )

    def resolve(self, e: ir.Expr, depth: int = 0) -> list[ir.Expr]:
        """The definitions a device name may stand for (all assignments seen)."""
        e = _strip(e)
        if isinstance(e, ir.Name) and e.id in self.defs and depth < 8:
            return [r for d in self.defs[e.id] for r in self.resolve(d, depth + 1)]
        return [e]

    def terms(self, e: ir.Expr) -> Iterator[ir.Expr]:
        for r in self.resolve(e):
            if isinstance(r, ir.BinOp) and r.op == "+":
                yield from self.terms(r.lhs)
                yield from self.terms(r.rhs)
            else:
                yield r

    def loads_in(self, e: ir.Expr, depth: int = 0) -> list[ir.Load]:
        out = []
        for r in self.resolve(e):
            for sub in walk_expr(r):
                if isinstance(sub, ir.Load):
                    out.append(sub)
                elif (
                    isinstance(sub, ir.Name) and sub.id in self.defs and depth < 8 and sub is not r
                ):
                    out.extend(self.loads_in(sub, depth + 1))
        return out

    def loaded_inputs(self, term: ir.Expr) -> list[tuple[str, ir.Expr | None]]:
        """Input tensors whose loaded values make up ``term``, with a scale if ``L * s``."""
        found: list[tuple[str, ir.Expr | None]] = []
        for r in self.resolve(term):
            scale = None
            if isinstance(r, ir.BinOp) and r.op == "*":
                for a, b in ((r.lhs, r.rhs), (r.rhs, r.lhs)):
                    if _size_like(b) and any(isinstance(x, ir.Load) for x in self.resolve(a)):
                        r, scale = a, b
                        break
            for load in self.loads_in(r):
                source = self.viewed_input(load.tensor)
                if source is not None:
                    found.append((source, scale))
        return found

    def viewed_input(self, tensor: str) -> str | None:
        """The input that ``tensor`` is (or views, through ``view`` statements)."""
        seen: set[str] = set()
        while tensor not in self.inputs and tensor not in seen:
            seen.add(tensor)
            kind, spec = self.shapes.get(tensor, (None, None))
            if kind != "view":
                return None
            tensor = spec[0]  # type: ignore[index]
        return tensor if tensor in self.inputs else None


def _strip(e: ir.Expr) -> ir.Expr:
    """``e`` without casts and unit-dim insertions, which do not change index values."""
    while isinstance(e, (ir.Cast, ir.ExpandDims, ir.Reshape)):
        e = e.value
    return e


def _stride(term: ir.Expr) -> ir.Expr | None:
    if isinstance(term, ir.BinOp) and term.op == "*":
        for s in (term.rhs, term.lhs):
            if _size_like(s):
                return s
    return None


def _size_like(e: ir.Expr) -> bool:
    return isinstance(e, (ir.Name, ir.SizeOf)) or _int_const(e)


def _int_const(e: ir.Expr) -> bool:
    return isinstance(e, ir.Const) and isinstance(e.value, int) and not isinstance(e.value, bool)


def _is_minus_one(e: ir.Expr) -> bool:
    if isinstance(e, ir.Const):
        return e.value == -1
    return (
        isinstance(e, ir.UnaryOp)
        and e.op == "-"
        and isinstance(e.operand, ir.Const)
        and (e.operand.value == 1)
    )


def _is_float_default(p: ir.Param) -> bool:
    return isinstance(p.default, ir.Const) and isinstance(p.default.value, float)


def _const_value(e: ir.Expr | None) -> int | float | bool | None:
    if isinstance(e, ir.Const):
        return e.value
    if isinstance(e, ir.UnaryOp) and e.op == "-" and isinstance(e.operand, ir.Const):
        return -e.operand.value
    return None


def _or_of_constants(test: ir.Expr) -> tuple[Key, set[int]] | None:
    """``(size key, {c...})`` of ``s == c1 or s == c2 or ...`` over one size-like ``s``."""
    if isinstance(test, ir.BinOp) and test.op == "or":
        a, b = _or_of_constants(test.lhs), _or_of_constants(test.rhs)
        if a is None or b is None or a[0] != b[0]:
            return None
        return a[0], a[1] | b[1]
    if isinstance(test, ir.BinOp) and test.op == "==":
        x, c = test.lhs, test.rhs
        if isinstance(x, ir.Const):
            x, c = c, x
        if (
            _size_like(x)
            and isinstance(c, ir.Const)
            and isinstance(c.value, int)
            and not (isinstance(c.value, bool))
        ):
            return expr_key(x), {c.value}
    return None


def _scalar_values(
    entry: ir.Entry, uf: UnionFind, roots: list[Key]
) -> dict[str, int | float | bool | str]:
    """Values of scalar parameters that are not sizes.

    Floats keep their default unless it is 0 or 1, identities that would hide a kernel that
    ignores the parameter; those (and floats without a default) become 0.5. Small defaults such
    as ``eps = 1e-5`` are kept whatever the annotation says.
    """
    out: dict[str, int | float | bool | str] = {}
    root_set = set(roots)
    for p in entry.params:
        if p.kind == "tensor":
            continue
        if p.kind == "str":
            # A compile-time choice: its default (tests pick the other choices by name).
            out[p.name] = str(_const_value(p.default) or "")
            continue
        default = _const_value(p.default)
        if p.kind == "object" and isinstance(p.default, ir.Const):
            out[p.name] = p.default.value  # type: ignore[assignment]  (`bias=None`: None)
            continue
        if p.kind == "int" and uf.find(("name", p.name)) in root_set:
            continue  # a size: synthesize gives it its class's size
        if isinstance(default, float) or p.kind == "float":
            value = float(default) if default is not None else 0.5
            out[p.name] = 0.5 if value in (0.0, 1.0) else value
        elif p.kind == "bool":
            out[p.name] = bool(default) if default is not None else True
        else:
            out[p.name] = int(default) if default is not None else 1
    return out


class _Evaluator:
    """Evaluates host scalar expressions over concrete input shapes."""

    def __init__(
        self,
        rel: Relations,
        shapes: dict[str, tuple[int, ...]],
        names: dict[str, int | float | bool],
    ) -> None:
        self.rel = rel
        self.inputs = dict(shapes)
        self.shapes = dict(shapes)
        self.names = names
        self.busy: set[str] = set()

    def shape(self, tensor: str) -> tuple[int, ...]:
        if tensor in self.shapes:
            return self.shapes[tensor]
        if tensor in self.busy or tensor not in self.rel._shapes:
            raise ValueError(f"cannot tell the shape of {tensor!r}")
        self.busy.add(tensor)
        kind, spec = self.rel._shapes[tensor]
        if kind == "like":
            shape = self.shape(str(spec))
        elif kind == "shape":
            shape = tuple(int(self.value(e)) for e in spec)  # type: ignore[union-attr]
        else:
            source, dims = spec  # type: ignore[misc]
            numel = math.prod(self.shape(source))
            known = [int(self.value(e)) for e in dims if not _is_minus_one(e)]
            rest = numel // max(1, math.prod(known))
            shape = tuple(rest if _is_minus_one(e) else int(self.value(e)) for e in dims)
        self.shapes[tensor] = shape
        return shape

    def name(self, n: str) -> int | float:
        rel = self.rel
        if n in self.names:
            return self.names[n]
        if n in rel.scalars:
            return rel.scalars[n]
        members = rel._uf.members(("name", n))
        # Input shapes first: derived tensors may be shaped by this very name.
        for m in members:
            if m[0] == "dim" and m[1] in self.inputs:
                return self.inputs[m[1]][m[2]]
        for m in members:
            if m[0] == "const":
                return m[1]
        if n in rel._host and n not in self.busy:
            self.busy.add(n)
            return self.value(rel._host[n])
        for m in members:
            if m[0] == "dim" and m[1] in rel._shapes and m[1] not in self.busy:
                return self.shape(m[1])[m[2]]
        raise ValueError(f"no value for host name {n!r}")

    def value(self, e: ir.Expr) -> int | float:
        if isinstance(e, ir.Const):
            return e.value
        if isinstance(e, ir.Name):
            return self.name(e.id)
        if isinstance(e, ir.SizeOf):
            return self.shape(e.tensor)[e.dim]
        if isinstance(e, ir.UnaryOp) and e.op == "-":
            return -self.value(e.operand)
        if isinstance(e, ir.Call) and e.op == "cdiv":
            a, b = (int(self.value(x)) for x in e.args)
            return -(-a // b)
        if isinstance(e, ir.BinOp):
            a, b = self.value(e.lhs), self.value(e.rhs)
            ops = {
                "+": lambda: a + b,
                "-": lambda: a - b,
                "*": lambda: a * b,
                "//": lambda: a // b,
                "/": lambda: a / b,
                "%": lambda: a % b,
                "**": lambda: a**b,
            }
            if e.op in ops:
                return ops[e.op]()
        raise ValueError(f"cannot evaluate host expression {format_expr(e)}")
