"""Per-entry state of the Helion frontend: what each name is, sizes, tiles and tunables."""

from __future__ import annotations

from dataclasses import dataclass, field

from translator.diagnostics import TranslationError
from translator.ir import nodes as ir
from translator.ir.shapes import ScalarType, TensorType, TypeEnv


@dataclass
class EntryScope:
    """Everything the frontend knows about the names of one ``@helion.kernel`` function.

    ``sizes`` maps ``(tensor, dim)`` to the host expression that names that size, so that
    ``out.size(0)`` and ``m`` come out as the same extent. ``block_order`` lists block-size
    tunables in the order Helion numbers ``Config.block_sizes``.
    """

    path: str
    env: TypeEnv = field(default_factory=TypeEnv)
    sizes: dict[tuple[str, int], ir.Expr] = field(default_factory=dict)
    like: dict[str, str] = field(default_factory=dict)
    alloc_shapes: dict[str, tuple[ir.Expr, ...]] = field(default_factory=dict)
    registered_blocks: dict[str, str] = field(default_factory=dict)
    #: Host names the kernel function binds to an integer literal (``block_m = 32``).
    host_ints: dict[str, int] = field(default_factory=dict)
    #: Host views with their dims reordered (``k_view = k.reshape(...).transpose(1, 2)``, as
    #: Helion's attention example reads its keys): name -> (the tensor it reorders, the order:
    #: dim ``d`` of the view is dim ``order[d]`` of that tensor). Kernels index the tensor.
    permuted: dict[str, tuple[str, tuple[int, ...]]] = field(default_factory=dict)
    #: One-dim views of host tensors (``x_flat = x.view(-1)``): tensor -> view, whose size is
    #: the tensor's element count.
    flat_views: dict[str, str] = field(default_factory=dict)
    #: Per-lane sums over a looped dim (``acc = hl.zeros([tile_m, block_n])`` before
    #: ``for tile_n in hl.tile(n, block_size=block_n): acc += x[tile_m, tile_n]``, read once as
    #: ``acc.sum(-1)``): name -> (the summed dim, the accumulator's rank as written). The IR
    #: keeps the sum of each tile instead; ``lane_sum_defs`` holds the zeros to narrow.
    lane_sums: dict[str, tuple[int, int]] = field(default_factory=dict)
    lane_sum_defs: dict[str, ir.Assign] = field(default_factory=dict)
    #: Statements to replace once the block that holds them is complete: old -> new.
    replaced: dict[int, ir.Stmt] = field(default_factory=dict)
    #: Host tensors the IR names that no source statement binds (a reordered view's base),
    #: spelt at the launch from what the source does bind (``k_view.transpose(1, 2)``).
    spelled: dict[str, str] = field(default_factory=dict)
    block_order: list[str] = field(default_factory=list)
    tunable_defaults: dict[str, int] = field(default_factory=dict)
    block_choices: dict[str, tuple[int, ...]] = field(default_factory=dict)
    # Blocks computed from a size (`min(cap, helion.next_power_of_2(n))`) -> their cap: no
    # config slot, and the IR's tunable says it fits its extent.
    fitted_blocks: dict[str, int] = field(default_factory=dict)
    """Block sizes a bounded ``hl.register_block_size(lo, hi)`` allows (powers of two)."""
    branch_only: dict[str, str] = field(default_factory=dict)
    """Device names an ``if`` leaves without one value after it (bound on one side only, or to
    two types) -> why, as a diagnostic says it."""
    rank_conflicts: dict[str, tuple[int, tuple[int, ...]]] = field(default_factory=dict)
    """Names carried host code binds to tensors of several ranks (in the branches of an ``if``)
    -> (the line of that statement, the ranks): no kernel can take them."""
    rank_choices: dict[str, str] = field(default_factory=dict)
    """Names of :attr:`rank_conflicts` whose host statement is an ``if`` -> its test as written
    (``reduction == "none"``): a compile-time choice the kernel may be specialised on."""
    fixed_blocks: dict[str, int] = field(default_factory=dict)
    """Registered block sizes host code reads (``cdiv(m, block_m)`` rows of partials) -> the
    block the translation fixes them at: a plain int on the host, in no config."""
    user_tunables: dict[str, ir.Tunable] = field(default_factory=dict)
    """``hl.register_tunable`` knobs the kernels read, by the key ``helion.Config`` gives them
    under (``split_k=8``); each is an ``int`` tunable named as the host name bound to it."""
    fixed_tunables: dict[str, int] = field(default_factory=dict)
    """``hl.register_tunable`` keys host code reads -> the value the translation fixes them at."""
    host_values: dict[str, ir.Expr] = field(default_factory=dict)
    """Host scalars the kernel function binds once, by name -> the value (computed blocks)."""
    split_tiles: dict[str, tuple[ir.Expr, ir.Expr]] = field(default_factory=dict)
    """Grid tiles of a block the host computes, read as the index of their block: tile ->
    (its block, the extent it tiles). Their ``begin``/``end``/``id`` are arithmetic on it."""
    pending_host: list[ir.Stmt] = field(default_factory=list)
    """Host values a device loop introduces (the block count of a run-time block), modelled
    before its launch; the carried source spells them at the launch (:attr:`spelled`)."""
    used_names: set[str] = field(default_factory=set)
    specialized: list[str] = field(default_factory=list)
    constexpr_params: list[str] = field(default_factory=list)
    rank_guards: list[ir.ShapeUnpack] = field(default_factory=list)
    """Ranks the kernels take for tensors no host statement gives one (see :meth:`assume_rank`)."""
    lane_names: dict[str, ir.Expr] = field(default_factory=dict)
    """Names that stand for a lane tile's attributes inside its loop: its start (``start_k``:
    ``begin``), lanes (``offs_k``: ``index``) and their validity (``mask_k``)."""
    device_scalars: dict[str, ir.Expr] = field(default_factory=dict)
    """Device scalars the kernel function binds once -> their values (``n_begin =
    tile_n.begin + N``), which a slice's bounds may name."""
    block_names: dict[str, str] = field(default_factory=dict)
    """Device names bound to a tile's block size (``block_t = acc.size(0)``) -> the tile: a
    shape that lists them (``v.view(block_t, 1)``) spans that tile."""
    lane_tiles: dict[str, ir.TileVar] = field(default_factory=dict)
    """Tiles spelt with ``hl.grid`` and ``hl.arange`` (the backend's strided loops): Helion masks
    neither their loads nor their reductions, so loads must pass ``extra_mask``."""
    dtype_aliases: dict[str, ir.DTypeExpr | None] = field(default_factory=dict)
    """Host names bound to a dtype (``out_dtype = torch.float32``); ``None`` where carried host
    code computes it (``torch.promote_types(...)``) until a tensor is allocated with it."""
    unknown: dict[str, str] = field(default_factory=dict)
    """Host names carried code binds to values the frontend cannot tell (name -> source)."""
    partial_dims: list[ir.Expr] = field(default_factory=list)
    """``x.size(d) == n`` for each ``x[..., :n]`` slice of the device loop being read: the
    slice may be a prefix of the dim (see ``ir.Kernel.partial_dims``)."""
    _assumed: dict[str, int] = field(default_factory=dict)
    _parent: dict[tuple, tuple] = field(default_factory=dict)
    _best: dict[tuple, ir.Expr] = field(default_factory=dict)

    def is_tensor(self, name: str) -> bool:
        """Whether ``name`` is a host tensor."""
        return isinstance(self.env.vars.get(name), TensorType)

    def is_host_scalar(self, name: str) -> bool:
        """Whether ``name`` is a host scalar (parameter or size)."""
        return isinstance(self.env.vars.get(name), ScalarType)

    def size_expr(self, tensor: str, dim: int) -> ir.Expr:
        """The canonical host expression for ``tensor.size(dim)``.

        Sizes the program states equal (unpacked names, ``empty_like``, asserts such as
        ``assert k == k2`` or ``assert v.shape == k.shape``) share one expression: the first name
        bound among them.
        """
        tensor = self.like_root(tensor)
        shape = self.alloc_shapes.get(tensor)
        if shape is not None and -len(shape) <= dim < len(shape):
            return self.canonical(shape[dim])
        return self.canonical(ir.SizeOf(tensor, dim))

    def canonical(self, size: ir.Expr) -> ir.Expr:
        """The representative of ``size``'s equivalence class (``size`` itself if alone)."""
        key = _size_key(size)
        if key is None:
            return size
        root = self._find(key)
        return self._best.get(root, size)

    def unify(self, a: ir.Expr, b: ir.Expr) -> None:
        """Record that host sizes ``a`` and ``b`` are equal."""
        ka, kb = _size_key(a), _size_key(b)
        if ka is None or kb is None:
            return
        for k, e in ((ka, a), (kb, b)):
            self._parent.setdefault(k, k)
            self._best.setdefault(k, e)
        ra, rb = self._find(ka), self._find(kb)
        if ra == rb:
            return
        best_a, best_b = self._best[ra], self._best[rb]
        # Prefer a plain name (``m``) over ``x.size(0)``; otherwise the older class wins.
        keep_b = isinstance(best_b, ir.Name) and not isinstance(best_a, ir.Name)
        root, child = (rb, ra) if keep_b else (ra, rb)
        self._parent[child] = root

    def _find(self, key: tuple) -> tuple:
        self._parent.setdefault(key, key)
        while self._parent[key] != key:
            self._parent[key] = self._parent[self._parent[key]]
            key = self._parent[key]
        return key

    def rank(self, tensor: str) -> int | None:
        """The rank of host tensor ``tensor`` where known (stated or assumed)."""
        t = self.env.vars.get(tensor)
        if isinstance(t, TensorType) and t.rank is not None:
            return t.rank
        return self._assumed.get(self.like_root(tensor))

    def like_root(self, tensor: str) -> str:
        """The tensor whose shape ``tensor`` was allocated like (itself if none)."""
        seen = set()
        while tensor in self.like and tensor not in seen:
            seen.add(tensor)
            tensor = self.like[tensor]
        return tensor

    def assume_rank(self, tensor: str, rank: int, why: str) -> None:
        """Take ``tensor`` (of unknown rank) to be ``rank``-d, as the source's use ``why`` does.

        Helion reads such uses by the tensor's actual rank (``x[tile]`` of a 2-d ``x`` is a 2-d
        tile, ``hl.tile(x.size())`` yields one tile per dim), so the IR states the assumption
        (:attr:`ir.ShapeUnpack.assumed`), which backends check on the host. The check goes on
        the tensor the shape comes from (``out`` allocated like ``x`` checks ``x``).
        """
        root = self.like_root(tensor)
        self._assumed[root] = rank
        shaped = f" (`{tensor}` is shaped like it)" if root != tensor else ""
        self.rank_guards.append(ir.ShapeUnpack((None,) * rank, root, assumed=f"{why}{shaped}"))

    def fresh(self, base: str) -> str:
        """A new local name starting with ``base``."""
        name, i = base, 1
        while name in self.used_names or name in self.env.vars:
            i += 1
            name = f"{base}_{i}"
        self.used_names.add(name)
        return name

    def new_block_tunable(self, base: str) -> str:
        """A new block-size tunable, numbered after the ones before it (as Helion numbers them)."""
        name = self.fresh(base)
        self.block_order.append(name)
        return name


def _size_key(e: ir.Expr) -> tuple | None:
    if isinstance(e, ir.Name):
        return ("name", e.id)
    if isinstance(e, ir.SizeOf):
        return ("dim", e.tensor, e.dim)
    return None


class BranchRankConflict(TranslationError):
    """A store to a tensor the branches of a host ``if`` allocate with two ranks; ``test`` is
    that ``if``'s test as written, which the frontend may specialise the kernel on and read
    again (:func:`translator.dialects.helion.frontend.parse`)."""

    def __init__(self, message: str, loc: ir.Loc | None, hint: str | None, test: str | None):
        super().__init__(message, loc, hint)
        self.test = test
