"""TileLang frontend: ``@tilelang.jit`` factories of ``@T.prim_func`` kernels (and eager-style
``@tilelang.jit`` kernels) -> IR kernels; the host calls that build and launch them -> launch
sites.

A TileLang kernel is imperative: it allocates buffers (shared memory, fragments, locals), copies
regions of global tensors into them, computes on them element by element and copies results
back. The IR is a tile program of values, so the lifter reads each buffer as a tile variable of
the IR (a name whose value is the buffer's contents) and each statement as an assignment of a
whole buffer (the construct map in DESIGN.md):

* ``with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=...) as (bx, by)``: one
  grid tile per extent, the last one outermost (``by`` over ``M``, then ``bx`` over ``N``); an
  extent without ``T.ceildiv`` is one program per index (a scalar grid index, block 1);
* ``T.alloc_shared/alloc_fragment/alloc_local(shape, dtype)``: a buffer whose dims are the tiles
  whose block sizes its shape names (``block_M`` -> the tile over ``M``), whole dims (a size of
  a tensor: ``N``) or 1;
* ``T.copy(A[by * block_M, ko * block_K], A_s)``: ``A_s = A[tile_by, tile_ko]`` (a load; lanes past
  the tensor's edge read 0, measured for 0.1.15); ``T.copy(C_f, C[by * block_M, 0])`` a store
  (lanes past the edge are not written); regions align with the buffer from the right, leading
  indices are scalars;
* ``for i, j in T.Parallel(BM, BN)`` bodies of element assignments ``buf[i, j] = ...`` (or
  ``C[by * BM + i, j] = ...``): one whole-tile assignment per statement, lanes of other buffers
  broadcast by the loop variables they are read with;
* ``T.gemm(A_s, B_s, C_f, transpose_A=, transpose_B=, clear_accum=)``: ``C_f = dot(A_s, B_s, C_f)``;
  ``T.clear``/``T.fill``: a full tile; ``T.reduce_sum/max/min(src, dst, dim=, clear=)``: a
  reduction over every lane the buffer holds (``masked=False``); ``T.atomic_add`` of a region:
  an atomic add; ``T.Pipelined``/``T.serial`` over ``T.ceildiv(K, block_K)`` tiles: a K loop.

Factory parameters are read by what the kernel does with them: a tensor annotation's shape
entry is that tensor's size (``M`` -> ``A.size(0)``), a dtype the tensor's dtype, a block size
or ``threads``/``num_stages`` a tunable (default: what the launch passes, else the parameter's
default; ``@tilelang.autotune(configs=[...])`` gives the configs), anything else a scalar
parameter of the kernel. Host code is carried as written: ``kernel = factory(...)`` goes, each
``kernel(a, b)`` becomes the target's launch, and outputs TileLang allocates (``out_idx``) are
allocated before it in plain torch (:attr:`ir.Launch.setup`).

The eager style (a ``@tilelang.jit`` function without a prim_func: ``M, N = T.const("M N")``
sizes, ``A: T.Tensor((M, N), dtype)`` annotations of its parameters in the body, ``C =
T.empty(...)`` outputs it returns) is read into the same factory record (``factory._eager``): the
annotated parameters and then the outputs are the kernel's tensors, each ``T.const`` name the
size of the first input dim it annotates, the other parameters tunables and scalars with the
function's defaults. The function is its own host function, so the kernel is named
``<function>_kernel`` and the function is carried as its host code (:func:`eager_host`).

TileLang's example-folder style is read too (:mod:`.compiled`): an undecorated function that
returns its prim_func is a factory whose ``out_idx`` is that of the ``tilelang.compile`` call
building it; ``@T.macro`` steps of a factory are read in place where the kernel calls them;
autotune configs may be built by a module function (folded statically, :mod:`.config_space`),
given to ``@autotune`` or to TileLang's programmatic ``AutoTuner`` (:mod:`.autotuner`). Host
code that names a factory outside a launch tiletrans reads is refused: the translation replaces
the factory by its kernel.

Hardware-only forms (mbarriers, tcgen05, raw wgmma, layout annotations) are refused with a
located diagnostic, like everything else the lifter does not read.

The parts: :mod:`.factory` reads factories (signatures, decorators, prim_func annotations, the
eager style), :mod:`.lift_grid` the grid and the loops' tiles, :mod:`.lift_calls` the ``T.*``
statements, :mod:`.lift_expressions` element expressions; this module holds the lifter's
buffers and statements, and :func:`parse`.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections import Counter

import libcst as cst

from translator.diagnostics import TranslationError
from translator.dialects.common.dtype_facts import with_documented_dtypes
from translator.dialects.cst_utils import (
    Locator,
    call_args,
    conjuncts,
    import_aliases,
    names_in,
    parse_source,
    source_of,
    statement_comments,
)
from translator.dialects.tilelang.autotuner import autotuner_runs, stub_text
from translator.dialects.tilelang.compiled import compiled_out_idx, plain_factory
from translator.dialects.tilelang.factory import decide_branches, read_factory, scalar_kind
from translator.dialects.tilelang.host import eager_host, host_calls, host_plan
from translator.dialects.tilelang.lift_calls import STATEMENTS, TileCalls
from translator.dialects.tilelang.lift_expressions import CST_OPS, Expressions
from translator.dialects.tilelang.lift_grid import GridTiles
from translator.dialects.tilelang.model import (
    BINOPS,
    SEQUENTIAL_LOOPS,
    Buffer,
    Factory,
    ModuleFacts,
    block_text,
    decorator_of,
    dtype_name,
    grammar,
    ir_scalar_type,
    is_ceildiv,
    is_docstring,
)
from translator.grammar import load_grammar
from translator.ir import nodes as ir
from translator.ir.shapes import ScalarType, TypeEnv, dims_of, dtype_of, infer, kernel_env
from translator.ir.verifier import verify
from translator.ir.visit import all_exprs, map_bodies

# --------------------------------------------------------------------------------------------------
# The kernel lifter

#: The value a factory knob that has no default and no launch tiletrans reads starts at, by
#: kind: a 64-wide tile splits over any warps T.gemm takes (16x8 a warp), 4 warps, 2 stages.
_STAND_INS = {"block_size": 64, "num_warps": 4, "num_stages": 2}


class KernelLifter(GridTiles, TileCalls, Expressions):
    """Lifts one factory's prim_func into an :class:`ir.Kernel`."""

    def __init__(self, fac: Factory, mod: ModuleFacts) -> None:
        self.fac = fac
        self.mod = mod
        self.g = grammar()
        self.lang = {v: k for k, v in self.g["language"].items()}
        self.tiles: dict[str, ir.TileVar] = {}
        self.block_tiles: dict[str, list[str]] = {}
        self.buffers: dict[str, Buffer] = {}
        self.scalars: list[ir.Param] = []
        # Scalars the kernel body binds (`y = target[bx]`, `rstd = T.rsqrt(...)`).
        self.lets: set[str] = set()
        #: ``m = bx // T.ceildiv(N, bN)`` / ``n = bx % ...`` splitting a flattened grid axis into
        #: its two grid tiles (by statement id): read as those tiles, dropped.
        self.flat_bindings: set[int] = set()
        #: ``T.alloc_var`` scalars and their dtypes (``x = value`` stores to them).
        self.variables: dict[str, ir.DTypeExpr] = {}
        #: Per-lane temporaries of the T.Parallel body being read (cleared after it).
        self.lane_lets: set[str] = set()
        self.tunables: dict[str, ir.Tunable] = {}
        #: Notes on knobs that start at a stand-in value (see :meth:`tunable`).
        self.stand_ins: list[str] = []
        self.env = TypeEnv()
        #: names of the current T.Parallel loop's lane variables, in domain order, with dims
        self.lanes: list[tuple[str, ir.Dim]] = []
        #: the lane variables that run past a padded whole dim's extent
        self.padded_lanes: set[str] = set()
        self.threads: str | int | None = None
        #: tile variables of sequential (K) loops
        self.loop_tiles: set[str] = set()
        #: IR tunable -> the factory parameter it stands for (``num_warps`` -> ``threads``)
        self.factory_param: dict[str, str] = {}
        #: buffers whose contents are a region of a global tensor (lanes past its edge hold 0)
        self.loaded: set[str] = set()
        #: split-K loop tiles -> (block, step) as the source spells them
        self.strided: dict[str, tuple[str, str]] = {}
        #: loop tiles from a begin -> the begin as the source spells it (`start`)
        self.begins: dict[str, cst.BaseExpression] = {}
        #: scalars a loop's bounds name, computed where the loop stands (`offset_tile`)
        self.loop_lets: list[ir.Assign] = []
        #: loop tiles that end inside the tensor (at a value the kernel computes) -> that end
        self.inner_ends: dict[str, str] = {}
        #: the lane bounds the `if` around the current element store tests
        self.guards: set[ir.Expr] = set()
        #: buffers holding tiles of another loop of their block size -> the loop they are in
        self.stale: dict[str, str] = {}
        #: names bound once in the kernel (`start_x = bx * block_N`, a lane's `y = start_y + i`)
        #: -> what they were bound to, so that indices spelt through them read as written out;
        #: ``None`` for a name bound more than once
        self.bound_once: dict[str, cst.BaseExpression | None] = {}
        #: sequential loops whose count is no T.ceildiv, with that count (for diagnostics)
        self.uncounted: list[tuple[cst.For, cst.BaseExpression]] = []
        #: the macros being read in place (a macro that calls itself is refused)
        self.inlining: set[str] = set()
        #: the T.Persistent loop whose domain is the grid (its body runs once per tile)
        self.persistent: cst.For | None = None
        #: kernel names bound once that only loops count (`loop_range = T.ceildiv(n, block_N)`)
        #: -> what they count, read where the loops stand
        self.count_aliases: dict[str, cst.BaseExpression] = {}
        self.count_values: dict[str, cst.BaseExpression] = {}
        #: what the factory's first launch passes (:func:`decide_branches`)
        self.passed: dict[str, cst.BaseExpression | None] = {}

    # ------------------------------------------------------------------ helpers

    def error(self, node: cst.CSTNode, what: str, hint: str | None = None) -> TranslationError:
        return self.mod.error(node, what, hint)

    def role(self, node: cst.BaseExpression) -> str | None:
        """The ``[frontend.language]`` role of a callee (``copy``, ``gemm``...)."""
        name = self.mod.name_of(node)
        if is_ceildiv(name):
            return "ceildiv"  # `tl.cdiv(DV, BV)` too (the factory's host helper)
        return self.lang.get(name or "")

    def check_unsupported(self, call: cst.Call) -> None:
        name = self.mod.name_of(call.func) or ""
        for prefix, reason in self.g["unsupported"].items():
            if name == prefix or (prefix.endswith("_") and name.startswith(prefix)):
                short = source_of(call.func)
                raise self.error(
                    call, f"`{short}` is not supported: {reason.split(';')[0]}", reason
                )

    def int_value(self, node: cst.BaseExpression) -> int | None:
        """A literal int, a module constant, or a factory parameter's launch value/default."""
        if isinstance(node, cst.Integer):
            return int(node.value)
        if isinstance(node, cst.Name):
            if node.value in self.mod.module_ints:
                return self.mod.module_ints[node.value]
            if node.value in self.fac.params:
                passed = self.mod.launch_args.get(self.fac.fn.name.value, {}).get(node.value)
                for source in (passed, self.fac.defaults.get(node.value)):
                    if isinstance(source, cst.Integer):
                        return int(source.value)
                    if isinstance(source, cst.Name) and source.value in self.mod.module_ints:
                        return self.mod.module_ints[source.value]
        return None

    def tunable(self, name: str, kind: str, node: cst.CSTNode, scale: int = 1) -> None:
        if name in self.tunables:
            return
        value = self.int_value(cst.Name(name))
        seen = self.mod.launch_values.get(self.fac.fn.name.value, {}).get(name)
        if value is None and isinstance(seen, cst.Integer):
            # The launch passes a name of its function that holds a literal (`block_M = 128`,
            # an argparse option's default): the knob starts there.
            value = int(seen.value)
        if value is None and kind in _STAND_INS and name not in self.shaping_names:
            # TileLang's example folder builds kernels as `f(M, N, K, 128, 128, 32)` in a
            # `main()` or from argparse values, which tiletrans does not read: the translation
            # tunes the knob instead, from a value that fits any tile kernel (a block size does
            # not change what a kernel computes, only how it is split).
            value = _STAND_INS[kind] * scale
            self.stand_ins.append(
                f"tiletrans: `{name}` has no default and no launch value tiletrans reads: the "
                f"translation tunes it, starting at {value}"
            )
        if value is None:
            raise self.no_value(name, node)
        self.tunables[name] = ir.Tunable(
            name if kind == "block_size" else kind, kind, value // scale
        )

    @property
    def shaping_names(self) -> set[str]:
        """The factory's names the prim_func's tensor annotations read (`T.Tensor((M //
        block_M, N), ...)`): a knob there shapes what the host allocates, so no stand-in."""
        names: set[str] = set()

        class V(cst.CSTVisitor):
            def visit_Param(self, node: cst.Param) -> None:
                if node.annotation is not None:
                    names.update(names_in(node.annotation))

        for stmt in (
            self.fac.fn.body.body if isinstance(self.fac.fn.body, cst.IndentedBlock) else ()
        ):
            if isinstance(stmt, cst.FunctionDef):
                stmt.visit(V())
        return names

    def no_value(self, name: str, node: cst.CSTNode) -> TranslationError:
        """The refusal of a tunable without a value: say where the launches are that were not
        read, where the module has some (module-level code, TileLang's AutoTuner)."""
        factory = self.fac.fn.name.value
        passed = self.mod.launch_args.get(factory)
        unread = self.mod.unread_uses.get(factory)
        if passed is None and unread is not None:
            return self.error(
                node,
                f"`{name}` has no integer default, and no launch of `{factory}` is read: the "
                f"module builds it at line {unread.line} outside a launch in a function",
                f"give `{name}` a default in the factory's signature, or build and launch "
                f"`{factory}` in a function (`kernel = ...{factory}(...)...`, then `kernel(a)`)",
            )
        if passed is None:
            return self.error(
                node,
                f"`{name}` has no integer default, and the module launches `{factory}` nowhere",
                f"give `{name}` a default in the factory's signature, or launch `{factory}` "
                "from a function",
            )
        return self.error(
            node,
            f"`{name}` has no integer default or launch value",
            f"give `{name}` a default in the factory's signature",
        )

    def remember(self, name: str, value: cst.BaseExpression) -> None:
        """Record ``name = value`` (see :attr:`bound_once`)."""
        self.bound_once[name] = None if name in self.bound_once else value

    def written_out(self, node: cst.BaseExpression) -> cst.BaseExpression:
        """``node``, or what it names when it is a name bound once (``start_x`` ->
        ``bx * block_N``)."""
        while isinstance(node, cst.Name) and self.bound_once.get(node.value) is not None:
            node = self.bound_once[node.value]  # type: ignore[assignment]
        return node

    # ------------------------------------------------------------------ the kernel

    def lift(self) -> ir.Kernel:
        factory = self.fac.fn.name.value
        values = self.mod.launch_values.get(factory, {})
        self.passed = {p: values.get(p) for p in self.mod.launch_args.get(factory, {})}
        decide_branches(self.fac, self.mod, self.g, self.passed)
        prim = self.fac.prim
        params: list[ir.Param] = []
        for name in self.fac.tensor_order:
            shape, dt = self.fac.tensors[name]
            params.append(ir.Param(name, "tensor", rank=len(shape), dtype=self.literal_dtype(dt)))
        with_node = self.fac.kernel_with
        if with_node is None:
            body_stmts = [s for s in prim.body.body if not is_docstring(s)]
            if len(body_stmts) != 1 or not isinstance(body_stmts[0], cst.With):
                raise self.error(
                    prim, "a prim_func body is one `with T.Kernel(...) as (bx, ...):` block"
                )
            with_node = body_stmts[0]
        name = self.fac.kernel_name or self.fac.fn.name.value
        grid = self.kernel_grid(with_node)
        self.prescan(with_node.body)
        # Scalars the compiled kernel takes at each call (what tiletrans writes for a value the
        # source passed at launch): not compile-time, unlike the factory's.
        params += [ir.Param(n, scalar_kind(dt)) for n, dt in self.fac.runtime_scalars.items()]
        self.params_ = params
        self.env = kernel_env(ir.Kernel(name, tuple(params), (), (), ()))
        for p in self.scalars:  # the grid's sizes may be scalars the launch passes (`m`)
            self.env.vars[p.name] = ir_scalar_type(p.kind)
        for tunable in self.tunables.values():  # device code may read them (kernel_env)
            self.env.vars.setdefault(tunable.name, ir_scalar_type("int"))
        for t in grid:
            self.env.bind_tile(t)
        body = _without_unread(self.block(with_node.body.body), set(self.bound_once))
        params += self.scalars
        configs = self.configs()
        # An eager function's docstring stays on it: it is the host function too.
        docstring = None if self.fac.eager else _docstring(self.fac.fn) or _docstring(prim)
        hints = ir.Hints(schedule="persistent_interleaved" if self.persistent else None)
        return ir.Kernel(
            name,
            tuple(params),
            tuple(grid),
            body,
            tuple(self.tunables.values()),
            configs=configs,
            hints=hints,
            docstring=docstring,
            doc_comments=(*self.fac.notes, *self.stand_ins),
            loc=self.mod.locate(self.fac.fn),
        )

    def configs(self) -> tuple[tuple[tuple[str, int], ...], ...]:
        tunables = list(self.tunables.items())
        if not tunables:
            return ()
        default = tuple((t.name, t.default) for _, t in tunables)
        if not self.fac.configs:
            return (default,)
        out = []
        for cfg in self.fac.configs:
            row = []
            for param, t in tunables:
                value = cfg.get(self.factory_param.get(param, param))
                if value is None:
                    row.append((t.name, t.default))
                else:
                    row.append((t.name, value // 32 if t.kind == "num_warps" else value))
            out.append(tuple(row))
        return tuple(out)

    def literal_dtype(self, node: cst.BaseExpression) -> ir.DTypeExpr | None:
        if isinstance(node, cst.SimpleString):
            name = dtype_name(str(node.evaluated_value), self.g)
            return ir.DType(name) if name else None
        name = self.mod.name_of(node)
        if name and dtype_name(name, self.g):
            return ir.DType(dtype_name(name, self.g))  # type: ignore[arg-type]
        return None

    def dtype(self, node: cst.BaseExpression) -> ir.DTypeExpr:
        """The IR dtype of a dtype argument: a literal, or a factory parameter (the dtype of the
        tensor it annotates, else its default)."""
        lit = self.literal_dtype(node)
        if lit is not None:
            return lit
        if isinstance(node, cst.Name) and node.value in self.fac.locals:
            return self.dtype(self.fac.locals[node.value])
        if isinstance(node, cst.Name) and node.value in self.fac.dtypes:
            return ir.DTypeOf(self.fac.dtypes[node.value])
        if isinstance(node, cst.Name) and node.value in self.fac.params:
            default = self.fac.defaults.get(node.value)
            passed = self.mod.launch_args.get(self.fac.fn.name.value, {}).get(node.value)
            for source in (passed, default):
                if source is not None and self.literal_dtype(source) is not None:
                    return self.literal_dtype(source)  # type: ignore[return-value]
        if (
            isinstance(node, cst.Attribute)
            and node.attr.value == "dtype"
            and isinstance(node.value, cst.Name)
            and node.value.value in self.fac.tensors
        ):
            return ir.DTypeOf(node.value.value)
        spelled = (
            str(node.evaluated_value)
            if isinstance(node, cst.SimpleString)
            else self.mod.name_of(node)
        )
        why = self.g.get("unsupported_dtypes", {}).get(spelled or "")
        if why is not None:
            reason, _, instead = why.partition("; ")
            raise self.error(node, f"dtype `{source_of(node)}`: {reason}", instead or None)
        raise self.error(
            node,
            f"dtype `{source_of(node)}` is not read",
            'write a dtype string ("float32"), or a factory parameter that also types a tensor',
        )

    # ------------------------------------------------------------------ dims and buffers

    def is_padded(self, node: cst.BaseExpression) -> bool:
        """Whether an extent is a whole dim padded to a power of two
        (``N_pad = tilelang.math.next_power_of_2(N)``)."""
        if isinstance(node, cst.Name) and node.value in self.fac.locals:
            node = self.fac.locals[node.value]
        return (
            isinstance(node, cst.Call) and self.mod.name_of(node.func) in self.g["kernel"]["pad_to"]
        )

    def capped_row(self, node: cst.BaseExpression) -> TranslationError | None:
        """The refusal of ``min(next_power_of_2(N), 1024)``: a whole row up to a cap, else
        blocks of the cap; which one depends on N, so it is neither one whole dim nor one
        block. ``None`` for any other extent."""
        if not (isinstance(node, cst.Call) and source_of(node.func).strip() in ("min", "max")):
            return None
        if not any(self.is_padded(a.value) for a in node.args):
            return None
        return self.error(
            node,
            f"the buffer extent `{source_of(node).strip()}` is a whole row padded to a "
            "power of two up to a cap: whether the buffer spans the row or a block of "
            "it depends on the size, which tiletrans does not read",
            "make it a factory parameter (a block size: `block_N=1024`, the loop "
            "counting T.ceildiv(N, block_N) blocks), or pad the whole row "
            "(`BN = tilelang.math.next_power_of_2(N)`)",
        )

    def is_loop_block(self, d: ir.Dim) -> bool:
        """Whether ``d`` spans the block of a K-loop tile (its last tile runs past the extent:
        the lanes a reduction or dot over it must leave out)."""
        return isinstance(d, ir.BlockDim) and d.tile in self.loop_tiles

    def dim(self, node: cst.BaseExpression, allocating: bool = False) -> ir.Dim:
        """The IR dim of a buffer-shape or ``T.Parallel`` extent. A block size several loops
        share is the tile of the one in scope; a buffer allocated before them (``allocating``)
        takes the first, and each loop rebinds it (:meth:`rebind`)."""
        named = isinstance(node, cst.Name) and node.value in self.block_tiles
        if not named and isinstance(node, cst.Name) and node.value in self.fac.locals:
            value = self.fac.locals[node.value]
            if self.is_padded(value):
                pos, _ = call_args(value)  # type: ignore[arg-type]
                return self.dim(pos[0], allocating)
            return self.dim(value, allocating)
        if isinstance(node, cst.Integer) and node.value == "1":
            return ir.UnitDim()
        key = node.value if isinstance(node, (cst.Name, cst.Integer)) else None
        if key is not None and key in self.block_tiles:
            tiles = self.block_tiles[key]
            if len(tiles) == 1:
                return ir.BlockDim(tiles[0])
            in_scope = [t for t in tiles if t in self.env.tiles]
            if len(in_scope) == 1:
                return ir.BlockDim(in_scope[0])
            if allocating and not in_scope and all(t in self.loop_tiles for t in tiles):
                return ir.BlockDim(tiles[0])
            where = (
                f"{', '.join(in_scope)} are all in scope here"
                if in_scope
                else "none of them is in scope here"
            )
            raise self.error(
                node,
                f"the block size `{key}` tiles several dims ({', '.join(tiles)}) and {where}",
                "give each tiled dim its own block-size parameter",
            )
        if self.passed_size(node):
            # A size the launch passes (`n` of the host's `m, n = x.shape`).
            return ir.FullDim(self.scalar_param(node, size=True))  # type: ignore[arg-type]
        if (isinstance(node, cst.Name) and node.value in self.fac.sizes) or self.shape_entry(
            node
        ) is not None:
            return ir.FullDim(self.host_expr(node))
        capped = self.capped_row(node)
        if capped is not None:
            raise capped
        if self.uncounted:
            # A sequential loop whose count is no T.ceildiv: it names no block size, which is
            # the likelier cause than the extent itself.
            loop, count = self.uncounted[0]
            line = self.mod.locate(loop).line
            raise self.error(
                node,
                f"the buffer extent `{source_of(node)}` is neither a block size nor a tensor's "
                f"size; the loop at line {line} counts `{source_of(count).strip()}`, which is "
                "not `T.ceildiv(extent, block)`, so it names no block size",
                "count the loop's tiles as T.ceildiv(extent, block) (bound the tiles a causal "
                "mask skips with T.if_then_else in the body)",
            )
        raise self.error(
            node,
            f"the buffer extent `{source_of(node)}` is neither a block size nor a tensor's size",
            "shape buffers by block-size parameters, sizes of tensors, or 1",
        )

    def alloc(self, name: str, call: cst.Call) -> None:
        pos, kw = call_args(call)
        shape = kw.get("shape", pos[0] if pos else None)
        dt = kw.get("dtype", pos[1] if len(pos) > 1 else None)
        if shape is None or dt is None:
            raise self.error(call, "T.alloc_*(shape, dtype) is read")
        entries = shape.elements if isinstance(shape, (cst.Tuple, cst.List)) else None
        dims = (
            tuple(self.dim(e.value, allocating=True) for e in entries)
            if entries is not None
            else (self.dim(shape, allocating=True),)
        )
        padded = (
            tuple(self.is_padded(e.value) for e in entries)
            if entries is not None
            else (self.is_padded(shape),)
        )
        padded = tuple(p or self.is_loop_block(d) for p, d in zip(padded, dims))
        self.buffers[name] = Buffer(name, dims, self.dtype(dt), call, padded)

    def rebind(self, tile: ir.TileVar) -> None:
        """Entering loop ``tile``: buffers shaped by its block size that hold tiles of another
        loop of that block size (one that is not running: TileLang reuses one buffer for
        ``values`` of two column loops) now hold this loop's. Their contents are the other
        loop's tiles, so they are stale until written here (:meth:`contents`)."""
        key = block_text(tile)
        others = {
            t
            for t in self.block_tiles.get(key, [])
            if t != tile.name and t in self.loop_tiles and t not in self.env.tiles
        }
        if not others:
            return
        for buf in self.buffers.values():
            dims = tuple(
                ir.BlockDim(tile.name) if isinstance(d, ir.BlockDim) and d.tile in others else d
                for d in buf.dims
            )
            if dims != buf.dims:
                buf.dims = dims
                self.stale[buf.name] = tile.name

    def contents(self, buf: Buffer, node: cst.CSTNode) -> ir.Name:
        """What ``buf`` holds, read at ``node``; refused while it is stale (:meth:`rebind`)."""
        if buf.name in self.stale:
            raise self.error(
                node,
                f"`{buf.name}` is read in the loop over `{self.stale[buf.name]}` before it is "
                "written there: it holds tiles of another loop of the same block size",
                f"write `{buf.name}` in this loop before reading it, or give each loop its "
                "own block-size parameter",
            )
        self.in_its_loops(buf, node, "read")
        return ir.Name(buf.name)

    def in_its_loops(self, buf: Buffer, node: cst.CSTNode, verb: str) -> None:
        """Refuse a read or write of ``buf`` outside a loop whose block shapes it: a loop's
        tile lives only inside the loop, so the lanes there are no tile the IR knows (a
        per-lane accumulator of partial sums over the loop's tiles, reduced after it)."""
        outside = [
            d.tile
            for d in buf.dims
            if isinstance(d, ir.BlockDim)
            and d.tile in self.loop_tiles
            and d.tile not in self.env.tiles
        ]
        if outside:
            raise self.error(
                node,
                f"`{buf.name}` is shaped by the block of loop `{outside[0]}` and {verb} here, "
                "outside that loop",
                f"reduce it inside the loop (`T.reduce_sum({buf.name}, partial, dim=...)`, "
                "then add `partial` into a buffer without that dim), and write it only there",
            )

    def buffer(self, node: cst.BaseExpression) -> Buffer:
        if isinstance(node, cst.Name) and node.value in self.buffers:
            return self.buffers[node.value]
        raise self.error(node, f"`{source_of(node)}` is no buffer allocated in this kernel")

    def convert(self, value: ir.Expr, dtype: ir.DTypeExpr) -> ir.Expr:
        """``value`` in ``dtype`` (TileLang converts on every buffer write)."""
        t = infer(value, self.env)
        if isinstance(value, ir.Const):
            return value
        if self.same_dtype(dtype_of(t), dtype):
            return value
        return ir.Cast(value, dtype)

    def same_dtype(self, a: ir.DTypeExpr, b: ir.DTypeExpr) -> bool:
        """Whether ``a`` and ``b`` are one dtype: equal, or the dtypes of tensors annotated with
        the same dtype (TileLang checks at every call that they are)."""
        return self.dtype_class(a) == self.dtype_class(b)

    def dtype_class(self, d: ir.DTypeExpr) -> object:
        if isinstance(d, ir.DTypeOf) and d.tensor in self.fac.tensors:
            ann = self.fac.tensors[d.tensor][1]
            lit = self.literal_dtype(ann)
            return lit if lit is not None else source_of(ann)
        return d

    def assign(
        self, buf: Buffer, value: ir.Expr, node: cst.CSTNode, pad: float | None = None
    ) -> ir.Stmt:
        self.in_its_loops(buf, node, "written")
        buf.pad = pad
        self.stale.pop(buf.name, None)
        value = self.convert(value, buf.dtype)
        dims = dims_of(infer(value, self.env))
        if isinstance(value, ir.Const) or not dims:
            value = ir.Full(buf.dims, value, buf.dtype)
        elif dims != buf.dims:
            value = ir.Broadcast(value, buf.dims)
        self.env.vars[buf.name] = infer(value, self.env)
        plain = value.value if isinstance(value, ir.Cast) else value
        if isinstance(plain, ir.Load) and plain.other == 0.0:
            self.loaded.add(buf.name)
        else:
            self.loaded.discard(buf.name)
        return ir.Assign(buf.name, value, loc=self.mod.locate(node))

    # ------------------------------------------------------------------ statements

    def block(self, stmts: tuple[cst.BaseStatement, ...] | list) -> tuple[ir.Stmt, ...]:
        out: list[ir.Stmt] = []
        for s in stmts:
            if is_docstring(s):
                continue
            comments = statement_comments(s)
            new = self.stmt(s)
            if new and comments:
                new[0] = _with_comments(new[0], comments)
            out.extend(new)
        return tuple(out)

    def stmt(self, s: cst.BaseStatement) -> list[ir.Stmt]:
        if isinstance(s, cst.SimpleStatementLine):
            out: list[ir.Stmt] = []
            for small in s.body:
                if isinstance(small, cst.Assign):
                    out.extend(self.st_assign(small))
                elif isinstance(small, cst.AugAssign):
                    out.extend(self.st_augassign(small))
                elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
                    out.extend(self.st_call(small.value))
                elif isinstance(small, cst.Pass):
                    continue
                else:
                    raise self.error(small, f"`{source_of(small).strip()}` is not read in kernels")
            return out
        if isinstance(s, cst.For):
            return self.st_for(s)
        if isinstance(s, cst.If):
            return self.st_if(s)
        raise self.error(s, f"`{type(s).__name__}` statements are not read in TileLang kernels")

    def st_assign(self, s: cst.Assign) -> list[ir.Stmt]:
        if len(s.targets) != 1:
            raise self.error(s, "chained assignments are not read")
        target = s.targets[0].target
        value = s.value
        if id(s) in self.flat_bindings:
            return []  # a tile index of a flattened grid axis: a grid tile itself
        if (
            isinstance(target, cst.Name)
            and isinstance(value, cst.Call)
            and self.role(value.func) in ("alloc_shared", "alloc_fragment", "alloc_local")
        ):
            self.alloc(target.value, value)
            return []
        if (
            isinstance(target, cst.Name)
            and isinstance(value, cst.Call)
            and self.role(value.func) == "alloc_var"
        ):
            return self.alloc_var(target.value, value, s)
        if isinstance(target, cst.Name) and target.value in self.variables:
            return self.store_var(target.value, value, s)
        if isinstance(target, cst.Subscript):
            stmt = self.element_store(target, value, s)
            return [stmt] if stmt is not None else []
        if isinstance(target, cst.Name) and target.value in self.count_aliases:
            return []  # a loop count: read where the loop stands (`loop_count`)
        if isinstance(target, cst.Name) and not self.lanes and target.value not in self.buffers:
            # A scalar the block computes once (TVMScript's let): `y = target[bx]`.
            lifted = self.scalar_expr(value)
            t = infer(lifted, self.env)
            if not dims_of(t):
                self.remember(target.value, value)
                self.lets.add(target.value)
                self.env.vars[target.value] = t
                return [ir.Assign(target.value, lifted, loc=self.mod.locate(s))]
        if (
            isinstance(target, cst.Name)
            and self.lanes
            and target.value not in self.buffers
            and target.value not in self.fac.tensors
        ):
            # A per-lane temporary of a T.Parallel body (`norm = (x[i, j] - mean[i]) * rstd[i]`):
            # a tile value over the loop's lanes, read by the body's later statements only.
            lifted = self.lane_expr(value)
            self.remember(target.value, value)
            self.lane_lets.add(target.value)
            self.env.vars[target.value] = infer(lifted, self.env)
            return [ir.Assign(target.value, lifted, loc=self.mod.locate(s))]
        raise self.error(
            s,
            f"`{source_of(s).strip()}` is not read",
            "allocate buffers with T.alloc_*; write them element-wise in T.Parallel loops",
        )

    def alloc_var(self, name: str, call: cst.Call, s: cst.Assign) -> list[ir.Stmt]:
        """``x = T.alloc_var(dtype[, init])``: a scalar variable of the block, zero (or
        ``init``) at first; each later ``x = value`` stores ``value`` converted to its dtype,
        and ``x`` reads what it holds (TileLang's ``local.var`` buffer of one element)."""
        if self.lanes:
            raise self.error(call, "a T.alloc_var in a T.Parallel loop is not read")
        pos, kw = call_args(call)
        dt = kw.get("dtype", pos[0] if pos else None)
        rest = pos[1:]
        init = kw.get("init")
        if rest and not isinstance(rest[0], cst.SimpleString):
            init, rest = rest[0], rest[1:]
        scope = kw.get("scope", rest[0] if rest else None)
        if dt is None or (
            scope is not None
            and not (isinstance(scope, cst.SimpleString) and scope.evaluated_value == "local.var")
        ):
            raise self.error(
                call,
                "T.alloc_var(dtype[, init]) in the local.var scope is read",
                "allocate the variable as T.alloc_var(dtype) or T.alloc_var(dtype, init=value)",
            )
        dtype = self.dtype(dt)
        self.variables[name] = dtype
        self.bound_once[name] = None  # a variable: what it holds changes
        self.lets.add(name)
        first = self.scalar_expr(init) if init is not None else ir.Const(0)
        self.env.vars[name] = ScalarType(dtype)  # type: ignore[arg-type]
        return [ir.Assign(name, ir.Cast(first, dtype), loc=self.mod.locate(s))]

    def store_var(self, name: str, value: cst.BaseExpression, s: cst.Assign) -> list[ir.Stmt]:
        """``x = value`` of a ``T.alloc_var`` ``x``: ``value`` stored, as its dtype."""
        if self.lanes:
            raise self.error(
                s,
                f"`{name}`, a T.alloc_var, is written in a T.Parallel loop, by every lane",
                "write the variable outside the parallel loop",
            )
        lifted = self.scalar_expr(value)
        if dims_of(infer(lifted, self.env)):
            raise self.error(s, f"`{name}`, a T.alloc_var, is assigned a tile")
        if dtype_of(infer(lifted, self.env)) != self.variables[name]:
            lifted = ir.Cast(lifted, self.variables[name])
        return [ir.Assign(name, lifted, loc=self.mod.locate(s))]

    def st_augassign(self, s: cst.AugAssign) -> list[ir.Stmt]:
        op = BINOPS.get(type(s.operator).__mro__[0])
        ops = {
            cst.AddAssign: "+",
            cst.SubtractAssign: "-",
            cst.MultiplyAssign: "*",
            cst.DivideAssign: "/",
        }
        op = ops.get(type(s.operator))
        if op is None or not isinstance(s.target, cst.Subscript):
            raise self.error(s, f"`{source_of(s).strip()}` is not read")
        combined = cst.BinaryOperation(left=s.target, operator=CST_OPS[op](), right=s.value)
        stmt = self.element_store(s.target, combined, s)
        return [stmt] if stmt is not None else []

    def element_store(
        self, target: cst.Subscript, value: cst.BaseExpression, node: cst.CSTNode
    ) -> ir.Stmt | None:
        """``buf[i, j] = v`` in a ``T.Parallel`` loop (every lane of the buffer), ``buf[0] = v``
        of a one-lane buffer, or ``C[by * BM + i, j] = v`` (a store to a global tensor)."""
        base = target.value
        if isinstance(base, cst.Name) and base.value in self.fac.tensors:
            items, order = self.global_items(target)
            self.check_inner_ends(target, items, order, self.guards)
            value = self.lane_expr(value)
            if order != list(range(len(order))):
                raise self.error(target, "a store's lanes must follow the loop's order")
            region_dims = tuple(self.lanes[o][1] for o in order)
            value = self.convert(value, ir.DTypeOf(base.value))
            vdims = dims_of(infer(value, self.env))
            if vdims != region_dims and (
                tuple(d for d in vdims if not isinstance(d, ir.UnitDim)) == region_dims
            ):
                value = ir.Reshape(value, region_dims)  # the one-lane axes index dims of one
            elif vdims != region_dims:
                value = (
                    ir.Broadcast(value, region_dims)
                    if vdims
                    else ir.Full(region_dims, value, ir.DTypeOf(base.value))
                )
            return ir.Store(base.value, items, value, loc=self.mod.locate(node))
        buf = self.buffer(base)
        idx = [el.slice.value for el in target.slice if isinstance(el.slice, cst.Index)]
        lanes = [name for name, _ in self.lanes]
        names = [i.value if isinstance(i, cst.Name) else None for i in idx]
        whole = names == lanes and tuple(d for _, d in self.lanes) == buf.dims
        one_lane = all(isinstance(d, ir.UnitDim) for d in buf.dims) and all(
            isinstance(i, cst.Integer) and i.value == "0" for i in idx
        )
        if not (whole or (one_lane and not self.lanes)):
            raise self.error(
                target,
                f"`{source_of(target)}` does not write every lane of `{buf.name}` once",
                "write buffers as `buf[i, j] = ...` in a T.Parallel loop over the buffer's shape",
            )
        pad = self.pad_of(value) if any(buf.padded) else None
        lifted = self.lane_expr(value)
        if lifted == ir.Name(buf.name):
            buf.pad = pad  # a select on the lanes' validity: only the padding changes
            return None
        return self.assign(buf, lifted, node, pad)

    def st_call(self, call: cst.Call) -> list[ir.Stmt]:
        if isinstance(call.func, cst.Name) and call.func.value in self.fac.macros:
            return self.macro_call(call, self.fac.macros[call.func.value])
        self.check_unsupported(call)
        role = self.role(call.func)
        handler = STATEMENTS.get(role or "")
        if handler is None:
            raise self.error(call, f"the call `{source_of(call.func)}` is not read in kernels")
        return handler(self, call)

    def macro_call(self, call: cst.Call, macro: cst.FunctionDef) -> list[ir.Stmt]:
        """A ``@T.macro`` called as a statement: its body, read in place. Each argument must be
        the name of the parameter it binds (TileLang's examples pass buffers so), so that the
        body's names mean at the call what they say."""
        params = [p.name.value for p in macro.params.params]
        variadic = isinstance(macro.params.star_arg, cst.Param) or macro.params.kwonly_params
        if len(call.args) != len(params) or variadic:
            raise self.error(
                call,
                f"the macro `{macro.name.value}` is called with {len(call.args)} arguments; "
                f"tiletrans reads macros of plain parameters, called with one argument each",
            )
        for arg, param in zip(call.args, params):
            given = arg.value
            name = arg.keyword.value if arg.keyword is not None else param
            if not (isinstance(given, cst.Name) and given.value == name == param) or arg.star:
                raise self.error(
                    arg,
                    f"the macro `{macro.name.value}` is called with `{source_of(given).strip()}` "
                    f"for its parameter `{param}`",
                    f"pass each argument under the name of the macro's parameter (`{param}`)",
                )
        if macro.name.value in self.inlining:
            raise self.error(call, f"the macro `{macro.name.value}` calls itself")
        self.inlining.add(macro.name.value)
        try:
            return list(self.block(macro.body.body))
        finally:
            self.inlining.discard(macro.name.value)

    def st_for(self, s: cst.For) -> list[ir.Stmt]:
        it = s.iter
        if not isinstance(it, cst.Call):
            raise self.error(it, "kernel loops are T.Parallel, T.Pipelined or T.serial")
        self.check_unsupported(it)
        role = self.role(it.func)
        if role == "parallel":
            return self.parallel(s, it)
        if s is self.persistent:
            return list(self.block(s.body.body))  # the grid's tiles, bound already
        if role in SEQUENTIAL_LOOPS and isinstance(s.target, cst.Name):
            if self.loop_count(s) is None:
                raise self.error(it, "a sequential loop counts T.ceildiv(extent, block) tiles")
            tile = self.loop_tile(s)
            lets, self.loop_lets = self.loop_lets, []
            _, kw = call_args(it)
            stages = None
            if "num_stages" in kw:
                node = kw["num_stages"]
                if isinstance(node, cst.Name) and node.value in self.fac.params:
                    self.tunable(node.value, "num_stages", node)
                    self.tunables["num_stages"] = self.tunables.pop(node.value)
                    self.factory_param["num_stages"] = node.value
                    stages = self.tunables["num_stages"].default
                else:
                    stages = self.int_value(node)
            outer = self.env
            self.env = outer.child()
            self.env.bind_tile(tile)
            self.rebind(tile)
            body = self.block(s.body.body)
            for var, t in self.env.vars.items():
                if var in outer.vars or var in self.buffers:
                    outer.vars[var] = t
            self.env = outer
            loop = ir.TileLoop((tile,), body, num_stages=stages, loc=self.mod.locate(s))
            return [*lets, loop]
        raise self.error(it, f"the loop `{source_of(it.func)}` is not read")

    def parallel(self, s: cst.For, it: cst.Call) -> list[ir.Stmt]:
        if self.lanes:
            raise self.error(s, "nested T.Parallel loops are not read")
        pos, _ = call_args(it)
        target = s.target
        names = (
            [target.value]
            if isinstance(target, cst.Name)
            else [e.value.value for e in target.elements if isinstance(e.value, cst.Name)]  # type: ignore[union-attr]
        )
        if len(names) != len(pos):
            raise self.error(s, "bind one name per T.Parallel extent")
        self.lanes = [(n, self.dim(e)) for n, e in zip(names, pos)]
        self.padded_lanes = {
            n for (n, d), e in zip(self.lanes, pos) if self.is_padded(e) or self.is_loop_block(d)
        }
        try:
            return list(self.block(s.body.body))
        finally:
            self.lanes = []
            self.padded_lanes = set()
            for name in self.lane_lets:
                self.env.vars.pop(name, None)
            self.lane_lets = set()

    def st_if(self, s: cst.If) -> list[ir.Stmt]:
        if self.lanes:
            return self.guarded_store(s)
        orelse: tuple[ir.Stmt, ...] = ()
        if isinstance(s.orelse, cst.If):
            orelse = tuple(self.st_if(s.orelse))
        elif isinstance(s.orelse, cst.Else):
            orelse = self.block(s.orelse.body.body)
        test = self.scalar_expr(s.test)
        return [ir.If(test, self.block(s.body.body), orelse, loc=self.mod.locate(s))]

    def guarded_store(self, s: cst.If) -> list[ir.Stmt]:
        """``if <the lanes are inside the tensor>: C[by * BM + i, j] = v`` in a ``T.Parallel``
        loop (how tiletrans writes a store at a ragged edge): an IR store, whose lanes outside
        its tiles' extents are not written. Any other condition on lanes is refused."""
        body = s.body.body if isinstance(s.body, cst.IndentedBlock) else ()
        small = (
            body[0].body[0]
            if len(body) == 1 and isinstance(body[0], cst.SimpleStatementLine)
            else None
        )
        target = small.targets[0].target if isinstance(small, cst.Assign) else None
        if (
            s.orelse is not None
            or not isinstance(target, cst.Subscript)
            or not isinstance(target.value, cst.Name)
            or target.value.value not in self.fac.tensors
        ):
            raise self.error(
                s,
                "an `if` in a T.Parallel loop is read only around one store to a tensor, "
                "keeping its lanes inside the tensor",
                "select values with T.if_then_else(cond, a, b)",
            )
        items, order = self.global_items(target)
        valid = self.lane_bounds(items, order)
        for axis, (_, d) in enumerate(self.lanes):
            if isinstance(d, ir.UnitDim):  # `j < 1` of a one-lane axis holds everywhere
                valid.add(ir.BinOp("<", self.place(ir.Arange(d), [axis]), ir.Const(1)))
        for part in conjuncts(s.test):
            if self.lane_expr(part) not in valid:
                raise self.error(
                    part,
                    f"`{source_of(part).strip()}` is not a bound of the stored lanes",
                    "store every lane of the tiles (the edges are left out for you), and "
                    "select values with T.if_then_else(cond, a, b)",
                )
        self.guards = {self.lane_expr(part) for part in conjuncts(s.test)}
        try:
            return self.block(body)
        finally:
            self.guards = set()

    # ------------------------------------------------------------------ lane expressions


def _without_unread(body: tuple[ir.Stmt, ...], names: set[str]) -> tuple[ir.Stmt, ...]:
    """``body`` without the assignments of ``names`` that nothing reads: index names such as
    ``start_x = bx * block_N`` that every access read written out (``written_out``)."""
    while True:
        reads = Counter(e.id for e in all_exprs(body) if isinstance(e, ir.Name))
        pruned = _pruned(body, {n for n in names if not reads[n]})
        if pruned == body:
            return body
        body = pruned


def _pruned(stmts: tuple[ir.Stmt, ...], dead: set[str]) -> tuple[ir.Stmt, ...]:
    kept = (s for s in stmts if not (isinstance(s, ir.Assign) and s.target in dead))
    return tuple(map_bodies(s, lambda block: _pruned(block, dead)) for s in kept)


def _docstring(fn: cst.FunctionDef) -> str | None:
    doc = fn.get_docstring(clean=True)
    return doc or None


def _with_comments(s: ir.Stmt, comments: tuple[str, ...]) -> ir.Stmt:
    return dataclasses.replace(s, comments=comments) if hasattr(s, "comments") else s


# --------------------------------------------------------------------------------------------------
# The module


def _star_imports(module: cst.Module, mod: ModuleFacts, g: dict) -> None:
    """``from tilelang.autotuner import *`` binds ``autotune`` (TileLang's examples import it so)."""
    for stmt in module.body:
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) else None
        if not (isinstance(small, cst.ImportFrom) and isinstance(small.names, cst.ImportStar)):
            continue
        origin = source_of(small.module).strip() if small.module is not None else ""
        tuner_class = g["kernel"]["autotuner_from_kernel"].rpartition(".")[0]
        for full in (*g["kernel"]["autotuners"], tuner_class):
            package, _, name = full.rpartition(".")
            if package == origin:
                mod.aliases.setdefault(name, full)


def parse(source: str, path: str) -> ir.Module:
    """The IR of a TileLang module: its factories' kernels, and its host functions' launches."""
    wrapper = parse_source(source, path)
    module = wrapper.module
    g = grammar()
    mod = ModuleFacts(path, Locator(wrapper, path), import_aliases(module))
    _star_imports(module, mod, g)
    factories: dict[str, Factory] = {}
    for stmt in module.body:
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) else None
        if (
            isinstance(small, cst.Assign)
            and isinstance(small.targets[0].target, cst.Name)
            and isinstance(small.value, cst.Integer)
        ):
            mod.module_ints[small.targets[0].target.value] = int(small.value.value)
        if isinstance(stmt, cst.FunctionDef):
            mod.functions[stmt.name.value] = stmt
        if isinstance(stmt, cst.ClassDef):
            mod.classes[stmt.name.value] = stmt
    plain = {name for name, fn in mod.functions.items() if plain_factory(fn, mod, g)}
    compiled = compiled_out_idx(module, mod, g, plain)
    for name, fn in mod.functions.items():
        if decorator_of(fn, mod, g["kernel"]["decorator"]) is not None:
            factories[name] = read_factory(fn, mod, g)
        elif name in plain:
            factories[name] = read_factory(fn, mod, g, compiled[name])
    if not factories:
        raise TranslationError(
            f"{path} defines no TileLang kernel factory",
            ir.Loc(path, 1, 0),
            "tiletrans reads @tilelang.jit factories, and functions that return a @T.prim_func",
        )
    lazy = {name: f for name, f in factories.items() if f.eager is None}
    tunings = autotuner_runs(mod, g, lazy)
    for tuning in tunings:
        fac = factories[tuning.factory]
        if fac.configs and fac.configs != tuning.configs:
            raise mod.error(tuning.fn, f"`{tuning.factory}` is autotuned over two spaces")
        fac.configs = tuning.configs
    hosts, problems, harness_edits = host_calls(module, mod, lazy, plain, tunings)
    kernels = tuple(KernelLifter(f, mod).lift() for f in factories.values())
    if problems:
        raise problems[0]
    by_name = {k.name: k for k in kernels}
    sites, entries, edits = host_plan(hosts, mod, lazy, by_name)
    edits = [
        *(
            ir.HostEdit("define", mod.locate.span(f.fn), kernels=(name,))
            for name, f in lazy.items()
        ),
        *edits,
        *harness_edits,
    ]
    for tuning in tunings:
        edits.append(
            ir.HostEdit(
                "replace",
                mod.locate.span(tuning.fn),
                text=stub_text(tuning),
                note=f"tiletrans: `{tuning.fn.name.value}` drove TileLang's AutoTuner over "
                f"`{tuning.factory}`, which has no counterpart here; the translated kernel "
                "tunes itself over those configs at each launch",
            )
        )
        if tuning.builder in mod.functions:
            span = mod.locate.span(mod.functions[tuning.builder])
            edits.append(ir.HostEdit("remove", span, if_unused=(tuning.builder,)))
    for f in factories.values():
        if f.config_builder in mod.functions:
            # Its configs are the translation's own now; it goes unless host code calls it.
            span = mod.locate.span(mod.functions[f.config_builder])  # type: ignore[index]
            edits.append(ir.HostEdit("remove", span, if_unused=(f.config_builder,)))  # type: ignore[arg-type]
    for f in factories.values():
        if f.eager is not None:
            site, entry, eager_edits = eager_host(f, by_name[f.kernel_name], mod, g, len(sites))
            sites.append(site)
            entries.append(entry)
            edits.extend(eager_edits)
    entries = with_documented_dtypes(module, entries)
    result = ir.Module(
        path,
        tuple(entries),
        kernels,
        ir.HostPlan(
            source, tuple(sites), tuple(edits), tuple(load_grammar("tilelang")["packages"])
        ),
        source_hash=hashlib.sha256(source.encode()).hexdigest(),
        source_dialect="tilelang",
    )
    verify(result)
    return result


__all__ = ["KernelLifter", "parse"]
