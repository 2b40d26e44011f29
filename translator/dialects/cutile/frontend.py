"""cuTile frontend: ``@ct.kernel`` functions → IR kernels; ``ct.launch`` calls → launch sites.

A cuTile kernel addresses memory by tile index, which is the IR's own model, so lifting is
mostly a renaming (the construct map in DESIGN.md):

* ``t = ct.bid(axis)`` is a grid tile variable; ``for t in range(ct.cdiv(e, B))`` (or
  ``range(ct.num_tiles(x, axis=d, shape=...))``) a loop tile variable. A variable's block is the
  ``ct.Constant[int]`` parameter its accesses use as their tile size (a tunable), and a grid
  variable's extent the size of the array dim it indexes first.
* ``ct.load(x, index=(i, 0), shape=(BM, BLOCK_N), padding_mode=...)``: ``i`` with tile size
  ``BM`` is ``TileIndex(i)``; index ``0`` with a constant that is no tile variable's block is the
  whole dim (``FullIndex``; the launch must pass a constant that covers it, which the validation
  runner checks); a scalar with tile size 1 is ``ScalarIndex`` plus the unit dim cuTile keeps. The
  padding mode is the load's ``other``.
* cuTile's reductions and ``ct.mma`` see every lane as it holds: they are read ``masked=False``.
* ``@ct.function`` helpers are inlined where they are called.

What is not read is refused with a located diagnostic. Host code is carried as written: each
``ct.launch(stream, grid, kernel, args)`` is a launch site, its entry marked incomplete
(``launches.py`` reads the host side).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from translator.dialects.common.dtype_facts import with_documented_dtypes
from translator.dialects.cst_utils import (
    BINARY_OPERATORS,
    Locator,
    call_args,
    ceil_div_parts,
    import_aliases,
    names_in,
    parse_source,
    size_reference,
    source_of,
    statement_comments,
    static_number,
    target_names,
    walk,
)
from translator.dialects.cutile.accesses import AccessReader, scalar_load
from translator.dialects.cutile.expressions import ExpressionReader, _is_docstring
from translator.dialects.cutile.launches import (
    bound_more_than_once,
    launch_calls,
    launch_sites,
    tuning_edits,
)
from translator.dialects.cutile.module_facts import ModuleFacts
from translator.grammar import load_grammar
from translator.ir import nodes as ir
from translator.ir.pad_tracker import names_read_unmasked
from translator.ir.printer import format_expr
from translator.ir.program_order import GroupedOrder, match_grouped
from translator.ir.shapes import (
    ScalarType,
    TypeEnv,
    infer,
    kernel_env,
    param_type,
)
from translator.ir.verifier import verify
from translator.ir.visit import all_exprs, walk_expr, walk_stmts

#: Hint key: whole-dim constants as (constant, tensor, dim); the launch must cover the dim.
WHOLE_BLOCKS = "cutile.whole_blocks"
#: Hint key: (tensor, dim, tensor, dim) sizes a whole-dim access assumes equal; dim -1: the
#: first is an int parameter (a mask's bound standing for an array size).
SAME_SIZES = "cutile.same_sizes"
DEFAULT_TILE = 64
#: The group size of a grouped tile order whose launches pass none the frontend can read.
DEFAULT_GROUP = 8
#: The block id a ``@ct.function`` helper reads with ``ct.bid(0)``, in the trees of its results.
_HELPER_BID = "ct.bid(0)"


def _grammar() -> dict:
    return load_grammar("cutile")["frontend"]


@dataclass
class _Use:
    """An index position of a tile access: ``array``'s dim ``dim`` with tile size ``size``."""

    array: str
    dim: int
    size: cst.BaseExpression
    #: Whether a ``ct.gather``/``ct.scatter`` indexes it by element (a block-1 use is then a
    #: plain row index: gather's indices broadcast, they keep no unit dim).
    element: bool = False


@dataclass(frozen=True)
class _View:
    """``name = tensor.slice(axis=axis, start=start, stop=stop)``: rows of ``tensor`` a loop
    counts tiles of from 0 (the IR's tile loop from ``start`` to ``stop``)."""

    tensor: str
    axis: int
    start: cst.BaseExpression
    stop: cst.BaseExpression


class KernelLifter(AccessReader, ExpressionReader):
    """Lifts one ``@ct.kernel`` function into an :class:`ir.Kernel`."""

    def __init__(self, fn: cst.FunctionDef, mod: ModuleFacts) -> None:
        self.fn = fn
        self.mod = mod
        self.g = _grammar()
        self.lang = {v: k for k, v in self.g["language"].items()}
        self.params: list[ir.Param] = []
        self.constants: list[str] = []
        #: The scalar kind of each ``ct.Constant[...]`` parameter (``int`` for a bare one).
        self.constant_kinds: dict[str, str] = {}
        self.tensors: set[str] = set()
        #: Views of arrays sliced along an axis, and the loop tiles over their rows: (start, stop).
        self.views: dict[str, _View] = {}
        self.sliced: dict[str, tuple[ir.Expr, ir.Expr]] = {}
        self.tiles: dict[str, ir.TileVar] = {}
        self.block_tiles: dict[str, list[str]] = {}
        self.whole: dict[str, tuple[str, int]] = {}
        self.bids: dict[str, int] = {}
        self.loop_vars: set[str] = set()
        self.locals: set[str] = set()
        self.inlined: dict[str, ir.Expr] = {}
        self.env = TypeEnv()
        #: Names bound to `ct.tfloat32 if X.dtype == ct.float32 else X.dtype` (MMA operand types).
        self.mma_dtypes: dict[str, cst.IfExp] = {}
        #: Names bound once to a dtype (``dtype = attn_out.dtype``, ``acc_t = ct.float32``).
        self.dtype_locals: dict[str, cst.BaseExpression] = {}
        self.values: dict[str, ir.Expr] = {}
        self._bound_once: set[str] | None = None
        self.reshapes = False
        self.same_sizes: list[tuple[str, int, str, int]] = []
        #: A persistent loop (``for t in range(ct.bid(0), tiles, ct.num_blocks(0))``): its node;
        #: its variable is the grid tile, the IR's one program per tile.
        self.persistent: cst.For | None = None
        self.persistent_count: cst.BaseExpression = cst.Integer("0")
        #: Names bound to ``ct.bid(0)`` / ``ct.num_blocks(0)`` that only a persistent loop reads.
        self.program_names: set[str] = set()
        #: Locals bound to a tile count that only loop counts read (:meth:`find_count_locals`).
        self.count_locals: set[str] = set()
        #: A grouped tile order: its operands and the row and column tile names it binds.
        self.group: tuple[GroupedOrder, str, str] | None = None
        #: The helper-call statements (``bid_m, bid_n = swizzle_2d(...)``) that bind its tiles.
        self.order_statements: set[int] = set()
        #: Top-level ``name = value`` bindings of the kernel as written (``None``: bound more
        #: than once), through which element offsets are matched before anything is lifted.
        self.cst_values: dict[str, cst.BaseExpression | None] = {}
        #: ``ct.arange(C)`` lanes indexing a gather or scatter: (C, array, dim, is_store); the
        #: array dim a whole-dim constant ``C`` covers is chosen from them (see :meth:`prescan`).
        self.element_aranges: list[tuple[str, str, int, bool]] = []
        #: Gathers at a whole dim's lanes shifted into another array (by the load's id): their
        #: lanes past the dim hold that array's data in cuTile, which no reduction may read.
        self.shifted_loads: dict[int, cst.Call] = {}

    # ------------------------------------------------------------------ parameters and tiles

    def lift(self) -> ir.Kernel:
        for p in self.fn.params.params:
            self.param(p)
        self.prescan(self.fn.body)
        grid = []
        for name, axis in sorted(self.bids.items(), key=lambda kv: kv[1]):
            if name not in self.tiles:
                self.tiles[name] = self.scalar_grid(name, axis)
            grid.append(self.tiles[name])
        constant_params = [p for p in self.params if p.name in self.constant_kinds]
        self.params = [p for p in self.params if p.name not in self.constant_kinds]
        self.env = kernel_env(ir.Kernel(self.fn.name.value, tuple(self.params), (), (), ()))
        for p in constant_params:
            # Tile sizes are tunables, compile-time integers the body may read (`t / TILE`);
            # other constants are values of their kind.
            self.env.vars[p.name] = (
                ScalarType(ir.I32, weak=True) if p.kind == "int" else param_type(p)
            )
        for t in grid:
            self.env.bind_tile(t)
        body = self.block(self.fn.body.body)
        self.check_shifted(body)
        used = {t.block for t in self.tiles.values() if isinstance(t.block, str)}
        # A constant the body reads that sizes no tile (a whole dim's `tile_size`, a seed) is
        # passed as the launch passes it, in the order the kernel declares it.
        read = {e.id for e in all_exprs(body) if isinstance(e, ir.Name)}
        kept = {p.name for p in constant_params if p.name in read and p.name not in used}
        order = [p.name.value for p in self.fn.params.params]
        self.params = sorted(
            self.params + [p for p in constant_params if p.name in kept],
            key=lambda p: order.index(p.name),
        )
        defaults = self.mod.launch_constants.get(self.fn.name.value, {})
        names = [p.name.value for p in self.fn.params.params]
        space = self.mod.spaces.get(self.fn.name.value, [])
        tunables = tuple(
            ir.Tunable(
                c,
                "block_size",
                space[0].get(c, DEFAULT_TILE)
                if space
                else defaults.get(names.index(c), DEFAULT_TILE),
                tuple(sorted({cfg[c] for cfg in space if c in cfg})) if space else (),
            )
            for c in self.constants
            if c in used
        )
        keys = {t.name: t.name for t in tunables}
        if self.group is not None:
            # The group size of a grouped tile order: a knob of the order, not of any result.
            group = str(self.group[0].G.id)  # type: ignore[attr-defined]
            keys["group_size"] = group
            values = sorted({cfg[group] for cfg in space if group in cfg})
            tunables += (
                ir.Tunable(
                    "group_size",
                    "group_size",
                    space[0].get(group, DEFAULT_GROUP)
                    if space
                    else defaults.get(names.index(group), DEFAULT_GROUP),
                    tuple(values),
                ),
            )
        configs: tuple[tuple[tuple[str, int], ...], ...] = ()
        if space:
            configs = tuple(
                dict.fromkeys(
                    tuple((t.name, cfg.get(keys[t.name], t.default)) for t in tunables)
                    for cfg in space
                )
            )
        elif tunables:
            configs = (tuple((t.name, t.default) for t in tunables),)
        whole = tuple((c, t, d) for c, (t, d) in self.whole.items())
        extras: list[tuple[str, object]] = []
        if whole:
            extras.append((WHOLE_BLOCKS, whole))
        if self.same_sizes:
            extras.append((SAME_SIZES, tuple(dict.fromkeys(self.same_sizes))))
        hints = ir.Hints(
            schedule="persistent_interleaved" if self.persistent is not None else None,
            extras=tuple(extras),
        )
        return ir.Kernel(
            self.fn.name.value,
            tuple(self.params),
            tuple(grid),
            body,
            tunables,
            configs=configs,
            hints=hints,
            docstring=_docstring(self.fn),
            loc=self.mod.locate(self.fn),
        )

    def strides_loops(self, name: str) -> bool:
        """Whether block id ``name`` starts a strided loop (``range(name, count, step)``)."""
        found = False

        def enter(node: cst.CSTNode) -> bool:
            nonlocal found
            it = node.iter if isinstance(node, cst.For) else None
            if (
                isinstance(it, cst.Call)
                and source_of(it.func) == "range"
                and len(it.args) == 3
                and self.cst_bid(it.args[0].value) == name
            ):
                found = True
            return not found

        walk(self.fn.body, enter)
        return found

    def check_shifted(self, body: tuple[ir.Stmt, ...]) -> None:
        """A gather at ``ct.arange(C) + K`` of another array than the one ``C`` covers reads,
        in cuTile, that array's data in the lanes past the covered dim too; the IR leaves them
        out (they hold the padding). That is exact unless a reduction or dot reads those lanes,
        which is refused here."""
        if not self.shifted_loads:
            return
        read = names_read_unmasked(body)
        for st in walk_stmts(body):
            if not isinstance(st, ir.Assign) or st.target not in read:
                continue
            for e in walk_expr(st.value):
                if id(e) in self.shifted_loads:
                    self.refuse_shifted(self.shifted_loads[id(e)])
        for e in all_exprs(body):
            operands: list[ir.Expr] = []
            if isinstance(e, ir.Reduce) and not e.masked:
                operands = [e.value]
            elif isinstance(e, ir.Dot) and not e.masked:
                operands = [e.lhs, e.rhs]
            for operand in operands:
                for sub in walk_expr(operand):
                    if id(sub) in self.shifted_loads:
                        self.refuse_shifted(self.shifted_loads[id(sub)])

    def refuse_shifted(self, call: cst.Call) -> None:
        raise self.mod.error(
            call,
            "a reduction reads the lanes of this ct.gather past the dim its `ct.arange` covers, "
            "which cuTile fills from the array and the IR leaves out",
            "mask the gathered lanes to the covered dim first "
            "(`ct.where(cols < n, x, 0)`), or gather at a tile's lanes",
        )

    def scalar_grid(self, name: str, axis: int) -> ir.TileVar:
        """A block id that indexes no tile (split-K's split): a plain index whose count is the
        int parameter every launch passes as that grid extent."""
        names = [p.name.value for p in self.fn.params.params]
        ints = {p.name for p in self.params if p.kind == "int"}
        counts = set()
        for grid, args in self.mod.launch_texts.get(self.fn.name.value, []):
            if axis < len(grid) and grid[axis] in args:
                param = names[args.index(grid[axis])]
                counts.add(param if param in ints else None)
            else:
                counts.add(None)
        if len(counts) != 1 or None in counts:
            if self.strides_loops(name):
                # Split-K: the block id is the first tile of a strided loop over K.
                hint = (
                    f"launch grid dim {axis} with an int the kernel takes (the split count, "
                    "`SPLIT_K: int`), the step of the loop it starts"
                )
            else:
                hint = (
                    f"index a tile with it (`ct.load(x, index=({name},), shape=(TILE,))`), or "
                    f"gather and scatter at its lanes `{name} * TILE + ct.arange(TILE, "
                    "dtype=ct.int32)` with TILE a ct.Constant[int] parameter"
                )
            raise self.mod.error(
                self.fn,
                f"`{name} = ct.bid({axis})` indexes no tile, and no int parameter counts it",
                hint,
            )
        return ir.TileVar(name, ir.Name(counts.pop()), ir.Const(1), scalar=True)

    def param(self, p: cst.Param) -> None:
        name = p.name.value
        ann = p.annotation.annotation if p.annotation else None
        if ann is None:
            self.tensors.add(name)
            self.params.append(ir.Param(name, "tensor"))
            return
        text = source_of(ann)
        if isinstance(ann, cst.Name):
            ann = self.mod.annotation_aliases.get(ann.value, ann)
        if (
            isinstance(ann, cst.Subscript)
            and self.mod.name_of(ann.value) == self.lang_name("constant")
            or self.mod.name_of(ann) == self.lang_name("constant")
        ):
            # `ct.Constant[int]` (or bare `ct.Constant`): a tile size, a tunable, that the body
            # may also read as a number (`t / TILE`); one that sizes no tile is a compile-time
            # value the body reads (`SEED`, `P: ct.Constant[float]`), a parameter.
            self.constants.append(name)
            of = ann.slice[0].slice if isinstance(ann, cst.Subscript) else None
            text = source_of(of.value) if isinstance(of, cst.Index) else "int"
            self.constant_kinds[name] = {"float": "float", "bool": "bool"}.get(text, "int")
            self.params.append(ir.Param(name, self.constant_kinds[name], constexpr=True))
            return
        if self.mod.name_of(ann) == self.lang_name("array") or (
            isinstance(ann, cst.Subscript)
            and self.mod.name_of(ann.value) == self.lang_name("array")
        ):
            # `x: ct.Array` (TileGym's and the samples' spelling of an array parameter).
            self.tensors.add(name)
            self.params.append(ir.Param(name, "tensor"))
            return
        kind = {"int": "int", "float": "float", "bool": "bool"}.get(text)
        if kind is None:
            raise self.mod.error(
                p,
                f"kernel parameter annotation `{text}` is not read",
                "write int, float, bool, ct.Constant[int], or no annotation for an array",
            )
        self.params.append(ir.Param(name, kind))

    def lang_name(self, role: str) -> str:
        return self.g["language"][role]

    def prescan(self, body: cst.BaseSuite) -> None:
        """Find tile variables and what their accesses say of their blocks and extents."""
        lifter = self

        class Scan(cst.CSTVisitor):
            def visit_Assign(self, node: cst.Assign) -> None:
                value = node.value
                if (
                    isinstance(value, cst.Call)
                    and lifter.mod.name_of(value.func) == lifter.lang_name("bid")
                    and isinstance(node.targets[0].target, cst.Name)
                ):
                    axis = value.args[0].value
                    if not isinstance(axis, cst.Integer):
                        raise lifter.mod.error(value, "ct.bid takes a literal axis")
                    lifter.bids[node.targets[0].target.value] = int(axis.value)
                view = lifter.view_of(value)
                if view is not None and isinstance(node.targets[0].target, cst.Name):
                    lifter.views[node.targets[0].target.value] = view
                for target in node.targets:
                    for bound in target_names(target.target):
                        seen = bound in lifter.cst_values
                        lifter.cst_values[bound] = None if seen else value

            def visit_AugAssign(self, node: cst.AugAssign) -> None:
                if isinstance(node.target, cst.Name):
                    lifter.cst_values[node.target.value] = None

            def visit_For(self, node: cst.For) -> None:
                if isinstance(node.target, cst.Name):
                    lifter.loop_vars.add(node.target.value)

            def visit_Call(self, node: cst.Call) -> None:
                name = lifter.mod.name_of(node.func)
                method = isinstance(node.func, cst.Attribute) and node.func.attr.value
                if name == lifter.lang_name("reshape") or (name is None and method == "reshape"):
                    lifter.reshapes = True
                if name in (lifter.lang_name("load"), lifter.lang_name("store")):
                    lifter.note_access(node, name == lifter.lang_name("load"))
                if name in (lifter.lang_name("gather"), lifter.lang_name("scatter")):
                    lifter.note_element_access(node, name == lifter.lang_name("scatter"))

        body.visit(Scan())
        # A whole-dim constant that only element accesses read (`cols = ct.arange(TILE)` of a
        # row kernel) covers the dim of the array it is stored to at those lanes as they are:
        # stores decide which lanes are written, and cuTile bounds-checks them against that
        # array (a gather of another array at those lanes is then a masked gather).
        for const, array, dim, _ in sorted(self.element_aranges, key=lambda u: not u[3]):
            self.whole.setdefault(const, (array, dim))
        self.find_count_locals(body)
        self.find_persistent(body)
        self.find_grouped(body)
        for name in self.bids:
            self.grid_tile(name)
        if self.group is not None:
            self.check_grouped()

    def find_count_locals(self, body: cst.BaseSuite) -> None:
        """Locals bound once to a tile count that only ``range(...)`` of a tile loop reads
        (Liger's ``num_chunks = (n_cols + BLOCK_SIZE - 1) // BLOCK_SIZE``): the loop counts
        that value (:meth:`count_value`), and the binding goes with it."""
        reads: Counter[str] = Counter()
        counted: list[str] = []

        def enter(node: cst.CSTNode) -> bool:
            if isinstance(node, cst.Name):
                reads[node.value] += 1
            it = node.iter if isinstance(node, cst.For) else None
            if (
                isinstance(it, cst.Call)
                and source_of(it.func) == "range"
                and len(it.args) == 1
                and isinstance(it.args[0].value, cst.Name)
            ):
                counted.append(it.args[0].value.value)
            return True

        walk(body, enter)
        for name in set(counted):
            read_elsewhere = reads[name] != counted.count(name) + 1
            if not read_elsewhere and not isinstance(self.count_value(cst.Name(name)), cst.Name):
                self.count_locals.add(name)

    def view_of(self, value: cst.BaseExpression) -> _View | None:
        """The view ``x.slice(axis=A, start=S, stop=E)`` of a kernel array, else None."""
        if not (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Attribute)
            and value.func.attr.value == "slice"
            and isinstance(value.func.value, cst.Name)
            and value.func.value.value in self.tensors
        ):
            return None
        pos, kw = call_args(value)
        names = ("axis", "start", "stop")
        args = {**dict(zip(names, pos)), **{k: v for k, v in kw.items() if k in names}}
        axis = args.get("axis")
        if not isinstance(axis, cst.Integer) or "start" not in args or "stop" not in args:
            raise self.mod.error(
                value, "a view is read as x.slice(axis=<int>, start=..., stop=...)"
            )
        return _View(value.func.value.value, int(axis.value), args["start"], args["stop"])

    def find_persistent(self, body: cst.BaseSuite) -> None:
        """A top-level ``for t in range(ct.bid(0), count, ct.num_blocks(0))`` loop: a persistent
        program walking the tiles of a 1-D grid with a stride of the grid's size. ``t`` is the
        grid tile (the IR's meaning is one program per tile; the schedule is a hint)."""
        nums = {}
        counts: dict[str, cst.BaseExpression] = {}  # names bound to a tile count
        for stmt in body.body:
            small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) else None
            if not (
                isinstance(small, cst.Assign) and isinstance(small.targets[0].target, cst.Name)
            ):
                continue
            if isinstance(small.value, cst.Call) and self.mod.name_of(
                small.value.func
            ) == self.lang_name("num_blocks"):
                nums[small.targets[0].target.value] = small.value
            else:
                counts[small.targets[0].target.value] = small.value
        for i, stmt in enumerate(body.body):
            if not isinstance(stmt, cst.For):
                continue
            it = stmt.iter
            if not (
                isinstance(it, cst.Call) and source_of(it.func) == "range" and len(it.args) == 3
            ):
                continue
            start, count, step = (a.value for a in it.args)
            if not (self._program(start, "bid", {}) and self._program(step, "num_blocks", nums)):
                continue
            count_names: set[str] = set()
            if isinstance(count, cst.Name) and count.value in counts:
                # `num_tiles = ct.cdiv(n, TILE)` before the loop: the loop counts that.
                count_names.add(count.value)
                count = counts[count.value]
            self.persistent_count = count
            if not isinstance(stmt.target, cst.Name):
                raise self.mod.error(stmt.target, "a persistent loop walks one tile index")
            later = [s for s in body.body[i + 1 :] if not isinstance(s, cst.EmptyLine)]
            if later:
                raise self.mod.error(
                    later[0],
                    "statements after a persistent tile loop are not read",
                    "end the kernel with the loop (each program's tiles are its whole work)",
                )
            if len(self.bids) > 1 or any(axis != 0 for axis in self.bids.values()):
                raise self.mod.error(
                    stmt,
                    "a persistent loop in a kernel with other block ids is not read",
                    "walk one flat tile index over a 1-D grid",
                )
            self.program_names = set(self.bids) | set(nums) | count_names
            self.bids = {stmt.target.value: 0}
            self.persistent = stmt
            return

    def find_grouped(self, body: cst.BaseSuite) -> None:
        """Top-level assignments that map one flat ``ct.bid(0)`` to a row and a column tile in
        groups (the grouped order of cuTile's GEMM samples, written in the kernel or in a
        ``@ct.function`` helper returning both tiles, as the samples' ``swizzle_2d``): those two
        names are the grid tiles of axes 0 and 1, the group size a ``group_size`` tunable, and
        the statements that only compute the order are dropped (the IR's grid is one program
        per tile)."""
        if self.persistent is not None:
            return
        if self.bids and (set(self.bids.values()) != {0} or len(self.bids) != 1):
            return
        trees: dict[str, ir.Expr] = {}
        nodes: dict[str, cst.BaseExpression] = {}
        helper_calls: dict[str, cst.Assign] = {}
        for stmt in body.body:
            small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) else None
            if not isinstance(small, cst.Assign) or len(small.targets) != 1:
                continue
            target = small.targets[0].target
            if isinstance(target, cst.Tuple):
                returned = self._helper_trees(small.value, trees)
                names = [el.value for el in target.elements]
                if returned is None or len(returned) != len(names):
                    continue
                for name_node, tree in zip(names, returned):
                    if isinstance(name_node, cst.Name) and tree is not None:
                        trees[name_node.value] = tree
                        nodes[name_node.value] = small.value
                        helper_calls[name_node.value] = small
                continue
            if not isinstance(target, cst.Name):
                continue
            name = target.value
            tree = _int_tree(small.value, self.mod.name_of, trees)
            if tree is not None and name not in trees:
                trees[name] = tree
                nodes[name] = small.value
        program = {ir.Name(b) for b in self.bids} | {ir.Name(_HELPER_BID)}
        found: dict[str, tuple[str, GroupedOrder]] = {}
        for name, tree in trees.items():
            for which in ("m", "n"):
                order = match_grouped(tree, which)
                if order is not None and order.pid in program:
                    found.setdefault(which, (name, order))
        if set(found) != {"m", "n"} or found["m"][1] != found["n"][1]:
            return
        (tm, order), (tn, _) = found["m"], found["n"]
        for what, size in (("group size", order.G), ("row tile size", order.BM)):
            if not (isinstance(size, ir.Name) and size.id in self.constants):
                raise self.mod.error(
                    nodes[tm],
                    f"the {what} `{format_expr(size)}` of the grouped tile order is not a "
                    "ct.Constant[int] parameter",
                    "pass the group size and tile sizes as ct.Constant[int] parameters",
                )
        self.group = (order, tm, tn)
        # What only the order reads goes with it: every local its two trees were built from
        # that no other statement of the kernel reads.
        order_names = _names_in(nodes[tm], nodes[tn], nodes) | {tm, tn}
        order_values = {id(nodes[n]) for n in order_names if n in nodes}
        read_elsewhere: set[str] = set()
        for stmt in body.body:
            small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) else None
            if not (isinstance(small, cst.Assign) and id(small.value) in order_values):
                read_elsewhere |= names_in(stmt)
        self.program_names |= set(self.bids) | {
            n for n in trees if n not in (tm, tn) and n in order_names and n not in read_elsewhere
        }
        self.order_statements = {id(helper_calls[n]) for n in (tm, tn) if n in helper_calls}
        self.bids = {tm: 0, tn: 1}

    def _helper_trees(
        self, value: cst.BaseExpression, trees: dict[str, ir.Expr]
    ) -> list[ir.Expr | None] | None:
        """The integer trees a ``@ct.function`` helper of assignments and one tuple ``return``
        computes for a call ``value`` (its parameters bound to the call's argument trees, a
        ``ct.bid(0)`` it reads to the program's block id), else None."""
        if not (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Name)
            and value.func.value in self.mod.helpers
        ):
            return None
        pos, kw = call_args(value)
        fn = self.mod.helpers[value.func.value]
        params = [p.name.value for p in fn.params.params]
        if kw or len(pos) != len(params):
            return None
        local: dict[str, ir.Expr] = {}
        for param, arg in zip(params, pos):
            tree = _int_tree(arg, self.mod.name_of, trees)
            if tree is None:
                return None
            local[param] = tree
        for stmt in fn.body.body:
            if _is_docstring(stmt):
                continue
            small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) else None
            if isinstance(small, cst.Return) and isinstance(small.value, cst.Tuple):
                return [_int_tree(el.value, self.mod.name_of, local) for el in small.value.elements]
            if not (
                isinstance(small, cst.Assign)
                and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Name)
            ):
                return None
            name = small.targets[0].target.value
            if self._program(small.value, "bid", {}):
                local[name] = ir.Name(_HELPER_BID)
                continue
            tree = _int_tree(small.value, self.mod.name_of, local)
            if tree is None:
                return None
            local[name] = tree
        return None

    def check_grouped(self) -> None:
        """The grouped order counts the tiles its two grid tiles are accessed with."""
        assert self.group is not None
        order, tm, tn = self.group
        ints = {p.name for p in self.params if p.kind == "int"}
        for tile, block, extent in ((tm, order.BM, order.M), (tn, order.BN, order.N)):
            t = self.tiles.get(tile)
            if t is None or ir.Name(str(t.block)) != block:
                raise self.mod.error(
                    self.fn,
                    f"the grouped tile order counts tiles of `{format_expr(block)}`, but `{tile}` "
                    f"is accessed with tiles of `{t.block if t else '?'}`",
                    "count each tile index's tiles with the tile size its accesses use",
                )
            if extent == t.extent:
                continue
            # The order counts the tiles of a size the launch must make the tile's extent: the
            # CPU oracle checks each launch (SAME_SIZES), as for a mask's bound.
            if not isinstance(t.extent, ir.SizeOf) or not (
                isinstance(extent, ir.SizeOf) or (isinstance(extent, ir.Name) and extent.id in ints)
            ):
                raise self.mod.error(
                    self.fn,
                    f"the grouped tile order counts `{format_expr(extent)}` rows of tiles for "
                    f"`{tile}`, which indexes `{format_expr(t.extent)}`",
                    "count the tiles with an array's shape or an int parameter",
                )
            if isinstance(extent, ir.Name):
                self.same_sizes.append((extent.id, -1, t.extent.tensor, t.extent.dim))
            else:
                self.same_sizes.append(
                    (extent.tensor, extent.dim, t.extent.tensor, t.extent.dim)  # type: ignore[attr-defined]
                )

    def _program(self, node: cst.BaseExpression, role: str, names: dict) -> bool:
        """Whether ``node`` is ``ct.<role>(0)``, or a name bound to it."""
        if isinstance(node, cst.Name):
            if role == "bid":
                return self.bids.get(node.value) == 0
            return node.value in names and self._program(names[node.value], role, {})
        return (
            isinstance(node, cst.Call)
            and self.mod.name_of(node.func) == self.lang_name(role)
            and len(node.args) == 1
            and isinstance(node.args[0].value, cst.Integer)
            and node.args[0].value.value == "0"
        )

    def note_access(self, call: cst.Call, is_load: bool) -> None:
        pos, kw = call_args(call)
        array = pos[0] if pos else None
        index = kw.get("index", pos[1] if len(pos) > 1 else None)
        shape = kw.get("shape", pos[2] if is_load and len(pos) > 2 else None)
        if is_load and scalar_load(index, shape):
            return  # `ct.load(x, 0, shape=())` reads one element: no tile
        if not isinstance(array, cst.Name) or not isinstance(index, cst.Tuple):
            raise self.mod.error(call, "a tile access needs an array name and an index tuple")
        if is_load and not isinstance(shape, cst.Tuple):
            raise self.mod.error(call, "ct.load needs a literal shape tuple")
        items = [e.value for e in index.elements]
        sizes = (
            [e.value for e in shape.elements]
            if isinstance(shape, cst.Tuple)
            else [None] * len(items)
        )
        tensor = self.views[array.value].tensor if array.value in self.views else array.value
        for dim, (item, size) in enumerate(zip(items, sizes)):
            if isinstance(item, cst.Name) and size is not None:
                self._uses.setdefault(item.value, []).append(_Use(tensor, dim, size))
            elif isinstance(item, cst.Name) and not is_load:
                self._stored.setdefault(item.value, []).append((tensor, dim))
            if isinstance(item, cst.Integer) and item.value == "0" and isinstance(size, cst.Name):
                self.whole.setdefault(size.value, (tensor, dim))

    def note_element_access(self, call: cst.Call, is_store: bool) -> None:
        """What a ``ct.gather``/``ct.scatter`` says of the block ids its indices are built from:
        lanes ``bid * TILE + ct.arange(TILE)`` (in any order, through locals) are the tile
        ``bid`` of size ``TILE`` along that dim; a block id itself is one row per program; the
        lanes ``ct.arange(C)`` of a constant ``C`` are a whole dim (:meth:`prescan`)."""
        pos, _ = call_args(call)
        if len(pos) < 2 or not isinstance(pos[0], cst.Name):
            return
        array = pos[0].value
        index = pos[1]
        elements = [e.value for e in index.elements] if isinstance(index, cst.Tuple) else [index]
        for dim, element in enumerate(elements):
            element = _unspread(element)
            lanes = self.cst_lanes(element)
            if lanes is not None:
                bid, size = lanes
                self._uses.setdefault(bid, []).append(_Use(array, dim, size, element=True))
                continue
            bid = self.cst_bid(element)
            if bid is not None:
                self._uses.setdefault(bid, []).append(
                    _Use(array, dim, cst.Integer("1"), element=True)
                )
                continue
            arange = self.cst_arange(self.cst_resolve(element))
            if isinstance(arange, cst.Name):
                self.element_aranges.append((arange.value, array, dim, is_store))

    def cst_resolve(self, node: cst.BaseExpression) -> cst.BaseExpression:
        """``node`` with a local bound once replaced by its value (as written), repeatedly."""
        seen: set[str] = set()
        while isinstance(node, cst.Name) and node.value not in seen:
            value = self.cst_values.get(node.value)
            if value is None:
                break
            seen.add(node.value)
            node = value
        return node

    def cst_bid(self, node: cst.BaseExpression) -> str | None:
        """The block id ``node`` is (``ct.bid(a)``'s name, or a local bound to it)."""
        seen: set[str] = set()
        while isinstance(node, cst.Name) and node.value not in seen:
            if node.value in self.bids:
                return node.value
            seen.add(node.value)
            value = self.cst_values.get(node.value)
            if value is None:
                return None
            node = value
        return None

    def cst_arange(self, node: cst.BaseExpression) -> cst.BaseExpression | None:
        """The size ``C`` of ``ct.arange(C, ...)``, else None."""
        if isinstance(node, cst.Call) and self.mod.name_of(node.func) == self.lang_name("arange"):
            pos, _ = call_args(node)
            return pos[0] if pos else None
        return None

    def cst_lanes(self, node: cst.BaseExpression) -> tuple[str, cst.BaseExpression] | None:
        """``(bid, TILE)`` where ``node`` is ``bid * TILE + ct.arange(TILE)`` (either sum order,
        either product order, each part perhaps a local bound once): the lanes of tile ``bid``."""
        node = self.cst_resolve(node)
        parts = self.cst_operands(node, cst.Add, "add")
        if parts is None:
            return None
        for start, lanes in (parts, parts[::-1]):
            size = self.cst_arange(self.cst_resolve(lanes))
            factors = self.cst_operands(self.cst_resolve(start), cst.Multiply, "mul")
            if size is None or factors is None:
                continue
            for tile, block in (factors, factors[::-1]):
                bid = self.cst_bid(tile)
                if bid is not None and source_of(block) == source_of(size):
                    return bid, size
        return None

    def cst_operands(
        self, node: cst.BaseExpression, operator: type, role: str
    ) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
        """The two operands of ``a <op> b`` or of its functional spelling ``ct.<role>(a, b)``
        (TileGym's ``ct.add(ct.arange(TILE), block_start)``), else None."""
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, operator):
            return node.left, node.right
        if isinstance(node, cst.Call) and self.mod.name_of(node.func) == self.lang_name(role):
            pos, kw = call_args(node)
            if len(pos) == 2 and not kw:
                return pos[0], pos[1]
        return None

    @property
    def _uses(self) -> dict[str, list[_Use]]:
        if not hasattr(self, "_use_table"):
            self._use_table: dict[str, list[_Use]] = {}
        return self._use_table

    @property
    def _stored(self) -> dict[str, list[tuple[str, int]]]:
        """Per block id, the (array, dim) each ``ct.store`` indexes with it (no shape there:
        the stored tile's)."""
        if not hasattr(self, "_store_table"):
            self._store_table: dict[str, list[tuple[str, int]]] = {}
        return self._store_table

    def grid_tile(self, name: str) -> None:
        if self.persistent is not None and name == self.persistent.target.value:  # type: ignore[attr-defined]
            extent, size = self.loop_count(self.persistent_count, name)
            self.tiles[name] = self.tile_var(name, extent, size)
            return
        uses = self._uses.get(name)
        if not uses:
            return
        # Several arrays may be indexed by the same block id (a row of X and one scalar of a
        # per-row gradient): the grid measures the dim the launch sizes it by, where a launch
        # says so; otherwise the first access's.
        names = [p.name.value for p in self.fn.params.params]
        measured = {
            (names[position], dim)
            for grid in self.mod.launch_grid_dims.get(self.fn.name.value, [])
            if (position_dim := grid.get(self.bids[name])) is not None
            for position, dim in [position_dim]
            if position < len(names)
        }
        # Tile accesses first: a block id a gather reads one element at (`offsets[expert]`)
        # counts no rows of that array.
        uses = sorted(uses, key=lambda u: u.element)
        use = next((u for u in uses if (u.array, u.dim) in measured), uses[0])
        extent: ir.Expr = ir.SizeOf(use.array, use.dim)
        stored = self._stored.get(name)
        if stored and use.element and (use.array, use.dim) not in measured:
            # Read only by gathers (each bounds-checked against its own array, perhaps
            # narrower: one half of a concatenation) and stored by tiles: the stored dim is
            # the one the tiles cover.
            extent = ir.SizeOf(*stored[0])
        counted = [array for array, dim in measured if dim < 0 and array not in self.tensors]
        if counted and all(isinstance(u.size, cst.Integer) and u.size.value == "1" for u in uses):
            # One program per index of a count the launch passes (`(num_experts, 1, 1)`).
            extent = ir.Name(counted[0])
        # A row per program that only gathers and scatters index: their indices broadcast, so
        # the row is a plain index (no unit dim to keep).
        rows = all(u.element for u in uses)
        self.tiles[name] = self.tile_var(name, extent, use.size, plain=rows)

    def tile_var(
        self, name: str, extent: ir.Expr, size: cst.BaseExpression, plain: bool = False
    ) -> ir.TileVar:
        if isinstance(size, cst.Integer) and size.value == "1":
            # A tile of one lane: cuTile keeps its dim, so it is a block-1 tile (which backends
            # that want plain indices squeeze) -- unless the kernel reshapes tiles, which in
            # cuTile drops such dims and in the IR only unit dims: then a plain index.
            return ir.TileVar(name, extent, ir.Const(1), scalar=self.reshapes or plain)
        if isinstance(size, cst.Name) and size.value in self.constants:
            self.block_tiles.setdefault(size.value, []).append(name)
            self.whole.pop(size.value, None)
            return ir.TileVar(name, extent, size.value)
        raise self.mod.error(
            size,
            f"the tile size `{source_of(size)}` of `{name}` is not a ct.Constant[int] parameter",
            "pass tile sizes as ct.Constant[int] kernel parameters",
        )

    # ------------------------------------------------------------------ statements

    def block(self, stmts: tuple[cst.BaseStatement, ...] | list) -> tuple[ir.Stmt, ...]:
        out: list[ir.Stmt] = []
        for i, s in enumerate(stmts):
            if i == 0 and _is_docstring(s):
                continue
            out.extend(self.stmt(s))
        return tuple(out)

    def stmt(self, s: cst.BaseStatement) -> list[ir.Stmt]:
        comments = statement_comments(s)
        if isinstance(s, cst.SimpleStatementLine):
            out = []
            for small in s.body:
                handler = _SMALL.get(type(small))
                if handler is None:
                    raise self.mod.error(small, f"`{source_of(small).strip()}` is not read")
                out.extend(handler(self, small))
            if out and comments:
                out[0] = _with_comments(out[0], comments)
            return out
        handler = _COMPOUND.get(type(s))
        if handler is None:
            raise self.mod.error(s, f"`{type(s).__name__}` statements are not read in kernels")
        out = handler(self, s)
        if out and comments:
            out[0] = _with_comments(out[0], comments)
        return out

    def st_assign(self, s: cst.Assign) -> list[ir.Stmt]:
        target = s.targets[0].target
        if id(s) in self.order_statements:
            return []  # the grouped order's helper call: its tiles are the grid's
        if len(s.targets) != 1 or not isinstance(target, cst.Name):
            helper = isinstance(s.value, cst.Call) and (
                isinstance(s.value.func, cst.Name) and s.value.func.value in self.mod.helpers
            )
            raise self.mod.error(
                s,
                "only `name = value` assignments are read in kernels",
                "write the helper's statements in the kernel (a swizzle_2d helper's assignments "
                "then `bid_m = ...` and `bid_n = ...`): a ct.function helper is read when it "
                "returns one value"
                if helper
                else "assign each name on its own line",
            )
        if target.value in self.bids or target.value in self.program_names:
            return []
        if target.value in self.count_locals:
            return []  # a loop's tile count, read where the loop counts it
        if target.value in self.views:  # read at the accesses through it
            return []
        if self.cst_values.get(target.value) is s.value and self.dtype_value(s.value):
            # `dtype = attn_out.dtype` (TileGym), bound once: read where a dtype is read.
            self.dtype_locals[target.value] = s.value
            return []
        if isinstance(s.value, cst.IfExp) and self.tf32_if_f32(s.value):
            self.mma_dtypes[target.value] = s.value  # read where an MMA operand is cast to it
            return []
        if (
            isinstance(s.value, cst.Name)
            and s.value.value in self.tiles
            and self.cst_values.get(target.value) is s.value
        ):
            # Another name for a block id or loop counter (`row_idx = bid`), bound once: read
            # as the tile variable itself (the IR binds no local to a tile variable).
            self.inlined[target.value] = self.expr(s.value)
            return []
        self.locals.add(target.value)
        value = self.expr(s.value)
        self.env.vars[target.value] = infer(value, self.env)
        self.values[target.value] = value
        return [ir.Assign(target.value, value, loc=self.mod.locate(s))]

    def st_expr(self, s: cst.Expr) -> list[ir.Stmt]:
        call = s.value
        if not isinstance(call, cst.Call):
            raise self.mod.error(s, f"`{source_of(s).strip()}` is not read")
        name = self.mod.name_of(call.func)
        if name == self.lang_name("store"):
            return [self.store(call)]
        if name == self.lang_name("scatter"):
            return [self.scatter(call)]
        if name in self.g["atomics"]:
            return [self.atomic(call, self.g["atomics"][name])]
        raise self.mod.error(call, f"the call `{source_of(call.func)}` as a statement is not read")

    def st_pass(self, s: cst.Pass) -> list[ir.Stmt]:
        return []

    def st_for(self, s: cst.For) -> list[ir.Stmt]:
        if s is self.persistent:
            # The persistent loop's body is the program of one grid tile.
            return list(self.block(s.body.body))
        if not isinstance(s.target, cst.Name) or s.orelse is not None:
            raise self.mod.error(s, "only `for t in range(...)` loops are read")
        name = s.target.value
        it = s.iter
        if not (
            isinstance(it, cst.Call) and source_of(it.func) == "range" and len(it.args) in (1, 2, 3)
        ):
            raise self.mod.error(
                it,
                "kernel loops must be `range(count)`, `range(first, count, step)` over tile "
                "indices or `range(start, stop)` over element indices",
            )
        count = it.args[0].value if len(it.args) == 1 else it.args[1].value
        extent, size = self.loop_count(count, name)
        self.tiles[name] = self.tile_var(name, extent, size)
        if len(it.args) == 2:
            # Element indices `start` to `stop` (rows of a jagged sequence): a loop of one-lane
            # tiles from `start`.
            if not (isinstance(size, cst.Integer) and size.value == "1"):
                raise self.mod.error(
                    it, "`range(start, stop)` loops over element indices, not tiles"
                )
            self.tiles[name] = dataclasses.replace(
                self.tiles[name], begin=self.expr(it.args[0].value)
            )
        rows = self.view_rows(extent)
        if rows is not None and isinstance(self.tiles[name].block, str):
            # `range(ct.cdiv(stop - start, B))` over a view's rows: the IR's loop from `start`.
            self.sliced[name] = rows
            self.tiles[name] = dataclasses.replace(self.tiles[name], begin=rows[0], extent=rows[1])
        if len(it.args) == 3:
            # Every step-th tile from tile `first` (split-K's share of the K tiles): the IR's
            # tile loop from element first * block.
            tile = self.tiles[name]
            first = self.expr(it.args[0].value)
            if isinstance(size, cst.Integer) and size.value == "1":
                # Element indices `first, first + step, ...` below `count` (a persistent
                # program's share of the rows): a loop of one-lane tiles from `first`.
                self.tiles[name] = dataclasses.replace(
                    tile, begin=first, step=self.expr(it.args[2].value)
                )
            elif not isinstance(tile.block, str):
                raise self.mod.error(it, "a strided tile loop needs a ct.Constant[int] tile size")
            else:
                self.tiles[name] = dataclasses.replace(
                    tile,
                    begin=ir.BinOp("*", first, ir.Name(tile.block)),
                    step=self.expr(it.args[2].value),
                )
        outer = self.env
        self.env = outer.child()
        self.env.bind_tile(self.tiles[name])
        body = self.block(s.body.body)
        for var, t in self.env.vars.items():
            if var in outer.vars:
                outer.vars[var] = t
        self.env = outer
        return [ir.TileLoop((self.tiles[name],), body, loc=self.mod.locate(s))]

    def view_rows(self, extent: ir.Expr) -> tuple[ir.Expr, ir.Expr] | None:
        """(start, stop) of a view whose row count ``stop - start`` is ``extent``, else None."""
        if not (isinstance(extent, ir.BinOp) and extent.op == "-"):
            return None
        for view in self.views.values():
            rows = (self.expr(view.start), self.expr(view.stop))
            if extent == ir.BinOp("-", rows[1], rows[0]):
                return rows
        return None

    def loop_count(
        self, count: cst.BaseExpression, name: str
    ) -> tuple[ir.Expr, cst.BaseExpression]:
        """``ct.cdiv(extent, B)`` (or Liger's ``(extent + B - 1) // B``) or
        ``ct.num_tiles(x, axis=d, shape=...)``, written in the ``range`` or bound once to a
        local before it (``num_chunks = ...``): extent and block."""
        count = self.count_value(count)
        parts = ceil_div_parts(count, lambda f: self.mod.name_of(f) == "cuda.tile.cdiv")
        if parts is not None:
            return self.expr(parts[0]), parts[1]
        if isinstance(count, cst.Call):
            fn = self.mod.name_of(count.func)
            pos, kw = call_args(count)
            if fn == self.lang_name("num_tiles"):
                axis = kw.get("axis", pos[1] if len(pos) > 1 else None)
                shape = kw.get("shape", pos[2] if len(pos) > 2 else None)
                if (
                    isinstance(pos[0], cst.Name)
                    and isinstance(axis, cst.Integer)
                    and isinstance(shape, cst.Tuple)
                ):
                    d = int(axis.value)
                    return ir.SizeOf(pos[0].value, d), shape.elements[d].value
        if name in self._uses:  # a plain count: the loop walks element indices
            return self.expr(count), cst.Integer("1")
        raise self.mod.error(
            count,
            "a tile loop counts ct.cdiv(extent, TILE), (extent + TILE - 1) // TILE or "
            "ct.num_tiles(...) tiles",
            "count the tiles in the range or in a local bound once before the loop "
            "(`num_chunks = ct.cdiv(n_cols, BLOCK_SIZE)`), TILE a ct.Constant[int] parameter",
        )

    def count_value(self, count: cst.BaseExpression) -> cst.BaseExpression:
        """A loop count as written, or where it is a local bound once (``num_chunks =
        (n_cols + BLOCK_SIZE - 1) // BLOCK_SIZE``) to a tile count, that count: its value is
        the same at the loop where every name it reads is a parameter, a module name or a
        local bound once too."""
        if not isinstance(count, cst.Name):
            return count
        value = self.cst_values.get(count.value)
        if value is None:
            return count
        parts = ceil_div_parts(value, lambda f: self.mod.name_of(f) == "cuda.tile.cdiv")
        if parts is None and not (
            isinstance(value, cst.Call)
            and self.mod.name_of(value.func) == self.lang_name("num_tiles")
        ):
            return count
        params = {p.name.value for p in self.fn.params.params}
        for name in names_in(value):
            if name in params or name in self.mod.aliases:
                continue
            if name in self.loop_vars or self.cst_values.get(name, ...) is None:
                return count  # bound more than once, or a loop's counter: not one value
        return value

    def st_if(self, s: cst.If) -> list[ir.Stmt]:
        orelse: tuple[ir.Stmt, ...] = ()
        if isinstance(s.orelse, cst.If):
            orelse = tuple(self.st_if(s.orelse))
        elif isinstance(s.orelse, cst.Else):
            orelse = self.block(s.orelse.body.body)
        return [ir.If(self.expr(s.test), self.block(s.body.body), orelse, loc=self.mod.locate(s))]

    # ------------------------------------------------------------------ accesses


_SMALL: dict[type, Callable[[KernelLifter, cst.BaseSmallStatement], list[ir.Stmt]]] = {
    cst.Assign: KernelLifter.st_assign,
    cst.Expr: KernelLifter.st_expr,
    cst.Pass: KernelLifter.st_pass,
}
_COMPOUND: dict[type, Callable[[KernelLifter, cst.BaseCompoundStatement], list[ir.Stmt]]] = {
    cst.For: KernelLifter.st_for,
    cst.If: KernelLifter.st_if,
}


#: The operators of the integer trees a grouped tile order is matched on.
_INTEGER_OPERATORS = {"+", "-", "*", "//", "%"}


def _int_tree(
    node: cst.BaseExpression,
    name_of: Callable[[cst.BaseExpression], str | None],
    bound: dict[str, ir.Expr],
) -> ir.Expr | None:
    """The integer tree of a scalar expression (names, integers, ``+ - * // %``, ``min``/``max``
    and ``ct.cdiv``), with the locals of ``bound`` substituted; None for anything else."""
    if isinstance(node, cst.Name):
        return bound.get(node.value, ir.Name(node.value))
    if isinstance(node, cst.Integer):
        return ir.Const(int(node.value))
    measured = size_reference(node)
    if measured is not None and isinstance(measured[0], cst.Name):
        return ir.SizeOf(measured[0].value, measured[1])
    if isinstance(node, cst.BinaryOperation):
        op = BINARY_OPERATORS.get(type(node.operator))
        op = op if op in _INTEGER_OPERATORS else None
        lhs, rhs = (_int_tree(x, name_of, bound) for x in (node.left, node.right))
        return None if op is None or lhs is None or rhs is None else ir.BinOp(op, lhs, rhs)
    if isinstance(node, cst.Call) and not any(a.keyword or a.star for a in node.args):
        func = source_of(node.func)
        op = {"min": "minimum", "max": "maximum"}.get(func)
        if op is None and (name_of(node.func) or "").endswith(".cdiv"):
            op = "cdiv"
        args = [_int_tree(a.value, name_of, bound) for a in node.args]
        if op is None or any(a is None for a in args):
            return None
        return ir.Call(op, tuple(args))  # type: ignore[arg-type]
    return None


def _names_in(
    first: cst.BaseExpression, second: cst.BaseExpression, nodes: dict[str, cst.BaseExpression]
) -> set[str]:
    """The locals of ``nodes`` that ``first`` and ``second`` read, directly or through others."""
    seen: set[str] = set()
    todo = [first, second]
    while todo:
        node = todo.pop()
        for found in names_in(node):
            if found in nodes and found not in seen:
                seen.add(found)
                todo.append(nodes[found])
    return seen


def _docstring(fn: cst.FunctionDef) -> str | None:
    doc = fn.get_docstring(clean=True)
    return doc or None


def _with_comments(s: ir.Stmt, comments: tuple[str, ...]) -> ir.Stmt:
    import dataclasses

    return dataclasses.replace(s, comments=comments) if hasattr(s, "comments") else s


# --------------------------------------------------------------------------------------------------
# The module


def _decorated(fn: cst.FunctionDef, mod: ModuleFacts, name: str) -> bool:
    for d in fn.decorators:
        target = d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator
        if mod.name_of(target) == name:
            return True
    return False


def _plain_helpers(
    module: cst.Module, mod: ModuleFacts, kernels: list[cst.FunctionDef]
) -> dict[str, cst.FunctionDef]:
    """Undecorated module functions a kernel (or a helper it calls) calls by name: cuTile
    compiles them as tile functions where tile code calls them (TileGym's ``_silu(x)``,
    ``gelu_fwd_ct(x, BLOCK_SIZE)``), so they are inlined as ``@ct.function`` helpers are."""
    plain = {
        stmt.name.value: stmt
        for stmt in module.body
        if isinstance(stmt, cst.FunctionDef) and not stmt.decorators
    }
    found: dict[str, cst.FunctionDef] = {}
    todo: list[cst.FunctionDef] = [*kernels, *mod.helpers.values()]
    while todo:
        fn = todo.pop()

        def enter(node: cst.CSTNode) -> bool:
            if (
                isinstance(node, cst.Call)
                and isinstance(node.func, cst.Name)
                and node.func.value in plain
                and node.func.value not in found
            ):
                found[node.func.value] = plain[node.func.value]
                todo.append(plain[node.func.value])
            return True

        walk(fn.body, enter)
    return found


def _host_reads(module: cst.Module, mod: ModuleFacts, kernels: list[cst.FunctionDef]) -> set[str]:
    """The names host code reads: every statement of the module but the kernels and the
    device helpers (a plain helper host code calls too stays in the host)."""
    device = {id(k) for k in kernels} | {id(h) for h in mod.helpers.values()}
    names: set[str] = set()
    for stmt in module.body:
        if id(stmt) in device:
            continue
        if isinstance(stmt, cst.FunctionDef):
            names |= names_in(stmt.body) | names_in(stmt.params)
        else:
            names |= names_in(stmt)
    return names


def parse(source: str, path: str) -> ir.Module:
    """The IR of a cuTile module: its kernels, and its host functions' launch sites."""
    wrapper = parse_source(source, path)
    module = wrapper.module
    g = _grammar()
    mod = ModuleFacts(path, Locator(wrapper, path), import_aliases(module), {})
    kernels_cst = []
    rebound = bound_more_than_once(module)
    for stmt in module.body:
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) else None
        if (
            isinstance(small, cst.Assign)
            and isinstance(small.targets[0].target, cst.Name)
            and isinstance(small.value, cst.Integer)
        ):
            mod.module_ints[small.targets[0].target.value] = int(small.value.value)
            if small.targets[0].target.value not in rebound:
                # `GELU_TANH = 1`: a number kernels may read (cuTile folds module globals).
                mod.module_numbers[small.targets[0].target.value] = int(small.value.value)
        elif isinstance(small, cst.Assign) and isinstance(small.targets[0].target, cst.Name):
            # `INV_LOG_2 = 1.0 / math.log(2)`: a number kernels may read.
            number = static_number(small.value, mod.aliases, mod.module_numbers)
            if number is not None and small.targets[0].target.value not in rebound:
                mod.module_numbers[small.targets[0].target.value] = number
        if (
            isinstance(small, cst.Assign)
            and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name)
            and small.targets[0].target.value not in rebound
        ):
            mod.module_values[small.targets[0].target.value] = small.value
        if (
            isinstance(small, cst.Assign)
            and isinstance(small.targets[0].target, cst.Name)
            and isinstance(small.value, cst.Subscript)
            and mod.name_of(small.value.value) == g["language"]["constant"]
        ):
            mod.annotation_aliases[small.targets[0].target.value] = small.value
        if isinstance(stmt, cst.FunctionDef):
            if _decorated(stmt, mod, g["kernel"]["decorator"]):
                kernels_cst.append(stmt)
                mod.kernel_defs[stmt.name.value] = stmt
            elif _decorated(stmt, mod, g["kernel"]["function"]):
                mod.helpers[stmt.name.value] = stmt
    plain = _plain_helpers(module, mod, kernels_cst)
    mod.helpers.update(plain)
    kernel_names = {k.name.value for k in kernels_cst}
    launches = launch_calls(module, mod, kernel_names, g)
    tuning = tuning_edits(module, mod, launches, g)
    kernels = tuple(KernelLifter(k, mod).lift() for k in kernels_cst)
    sites, entries = launch_sites(launches, mod, {k.name: k for k in kernels})
    entries = with_documented_dtypes(module, entries)
    # `@ct.function` helpers are device code, inlined into the kernels that call them: they go
    # with the kernels (carried, they would keep a cuTile import in every other target).
    edits = (
        tuple(
            ir.HostEdit("define", mod.locate.span(k), kernels=(k.name.value,)) for k in kernels_cst
        )
        + tuple(
            ir.HostEdit("remove", mod.locate.span(h))
            for name, h in mod.helpers.items()
            if name not in plain or name not in _host_reads(module, mod, kernels_cst)
        )
        # A launcher is cuTile host code (its search tunes a cuTile compiler hint): its calls
        # are the target's launches now.
        + tuple(ir.HostEdit("remove", mod.locate.span(h.node)) for h in mod.launchers.values())
        + tuple(ir.HostEdit("remove", mod.locate.span(v)) for v in mod.hint_variants.values())
        + tuple(tuning)
    )
    result = ir.Module(
        path,
        tuple(entries),
        kernels,
        ir.HostPlan(source, tuple(sites), edits, tuple(load_grammar("cutile")["packages"])),
        source_dialect="cutile",
    )
    verify(result)
    return result


__all__ = ["KernelLifter", "WHOLE_BLOCKS", "parse"]


def _unspread(node: cst.BaseExpression) -> cst.BaseExpression:
    """An element of a gather's indices without the ``[:, None]`` that spreads it over the
    result's axes (what the element's lanes are is the same)."""
    while isinstance(node, cst.Subscript) and all(
        (isinstance(el.slice, cst.Index) and source_of(el.slice.value) == "None")
        or (isinstance(el.slice, cst.Slice) and el.slice.lower is None and el.slice.upper is None)
        for el in node.slice
    ):
        node = node.value
    return node
