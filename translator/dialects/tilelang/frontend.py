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
T.empty(...)`` outputs it returns) is read into the same factory record (:func:`_eager`): the
annotated parameters and then the outputs are the kernel's tensors, each ``T.const`` name the
size of the first input dim it annotates, the other parameters tunables and scalars with the
function's defaults. The function is its own host function, so the kernel is named
``<function>_kernel`` and the function is carried as its host code (:func:`eager_host`).

Hardware-only forms (mbarriers, tcgen05, raw wgmma, layout annotations) are refused with a
located diagnostic, like everything else the lifter does not read.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re

import libcst as cst

from translator.diagnostics import TranslationError
from translator.dialects.common.dtype_facts import with_documented_dtypes
from translator.dialects.cst_utils import (
    Locator,
    call_args,
    conjuncts,
    import_aliases,
    parse_source,
    source_of,
    statement_comments,
    walk,
)
from translator.dialects.tilelang.host import eager_host, host_calls, host_plan
from translator.dialects.tilelang.lift_calls import STATEMENTS, TileCalls
from translator.dialects.tilelang.lift_expressions import CST_OPS, Expressions
from translator.dialects.tilelang.model import (
    BINOPS,
    Buffer,
    Eager,
    Factory,
    ModuleFacts,
    decorator_of,
    dtype_name,
    grammar,
    ir_scalar_type,
    strided_start,
)
from translator.grammar import load_grammar
from translator.ir import nodes as ir
from translator.ir.shapes import TypeEnv, dims_of, dtype_of, infer, kernel_env
from translator.ir.verifier import verify

# --------------------------------------------------------------------------------------------------
# The kernel lifter


class KernelLifter(TileCalls, Expressions):
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
        self.tunables: dict[str, ir.Tunable] = {}
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
        #: the T.Persistent loop whose domain is the grid (its body runs once per tile)
        self.persistent: cst.For | None = None

    # ------------------------------------------------------------------ helpers

    def error(self, node: cst.CSTNode, what: str, hint: str | None = None) -> TranslationError:
        return self.mod.error(node, what, hint)

    def role(self, node: cst.BaseExpression) -> str | None:
        """The ``[frontend.language]`` role of a callee (``copy``, ``gemm``...)."""
        name = self.mod.name_of(node)
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
        if value is None:
            raise self.error(
                node,
                f"`{name}` has no integer default or launch value",
                f"give `{name}` a default in the factory's signature",
            )
        self.tunables[name] = ir.Tunable(
            name if kind == "block_size" else kind, kind, value // scale
        )

    # ------------------------------------------------------------------ the kernel

    def lift(self) -> ir.Kernel:
        prim = self.fac.prim
        params: list[ir.Param] = []
        for name in self.fac.tensor_order:
            shape, dt = self.fac.tensors[name]
            params.append(ir.Param(name, "tensor", rank=len(shape), dtype=self.literal_dtype(dt)))
        with_node = self.fac.kernel_with
        if with_node is None:
            body_stmts = [s for s in prim.body.body if not _is_docstring(s)]
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
        params += [ir.Param(n, _scalar_kind(dt)) for n, dt in self.fac.runtime_scalars.items()]
        self.params_ = params
        self.env = kernel_env(ir.Kernel(name, tuple(params), (), (), ()))
        for p in self.scalars:  # the grid's sizes may be scalars the launch passes (`m`)
            self.env.vars[p.name] = ir_scalar_type(p.kind)
        for t in grid:
            self.env.bind_tile(t)
        body = self.block(with_node.body.body)
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
        raise self.error(
            node,
            f"dtype `{source_of(node)}` is not read",
            'write a dtype string ("float32"), or a factory parameter that also types a tensor',
        )

    def kernel_grid(self, node: cst.With) -> list[ir.TileVar]:
        if len(node.items) != 1:
            raise self.error(node, "one `T.Kernel(...)` per prim_func is read")
        item = node.items[0]
        call = item.item
        if not (isinstance(call, cst.Call) and self.role(call.func) == "kernel"):
            raise self.error(node, "a prim_func body is one `with T.Kernel(...) as (bx, ...):`")
        pos, kw = call_args(call)
        names: list[str] = []
        target = item.asname.name if item.asname else None
        if isinstance(target, cst.Name):
            names = [target.value]
        elif isinstance(target, (cst.Tuple, cst.List)):
            for el in target.elements:
                if not isinstance(el.value, cst.Name):
                    raise self.error(el.value, "grid indices are bound to plain names")
                names.append(el.value.value)
        if len(names) != len(pos):
            raise self.error(call, "bind one name per T.Kernel extent (`as (bx, by)`)")
        for key in kw:
            if key not in ("threads", "is_cpu", "prelude"):
                raise self.error(call, f"T.Kernel's `{key}=` is not read")
        threads = kw.get("threads")
        if threads is not None:
            if isinstance(threads, cst.Name) and threads.value in self.fac.params:
                self.tunable(threads.value, "num_warps", threads, scale=32)
                self.tunables["num_warps"] = self.tunables.pop(threads.value)
                self.factory_param["num_warps"] = threads.value
                self.threads = threads.value
            elif isinstance(threads, cst.Integer):
                self.tunables["num_warps"] = ir.Tunable(
                    "num_warps", "num_warps", max(1, int(threads.value) // 32)
                )
            else:
                raise self.error(threads, "threads= is a literal or a factory parameter")
        persistent = self.persistent_grid(node, names, pos)
        if persistent is not None:
            return persistent
        grid = []
        for name, extent in zip(names, pos):
            grid.append(self.tile_var(name, extent))
        return list(reversed(grid))

    def persistent_grid(
        self, node: cst.With, names: list[str], extents: list[cst.BaseExpression]
    ) -> list[ir.TileVar] | None:
        """The grid of a persistent kernel: ``with T.Kernel(num_sms) as block_id`` whose body
        is allocations and one ``for bx, by in T.Persistent([T.ceildiv(M, block_M), ...],
        num_sms, block_id)`` loop. Each program takes the tiles ``block_id``, ``block_id +
        num_sms``, ... of the domain, so together they run the loop body once per tile: the IR's
        grid over the domain (its first dim outermost), with the schedule as a hint
        (``persistent_interleaved``); the program count is the launch's business."""
        loops = [
            s
            for s in node.body.body
            if isinstance(s, cst.For)
            and isinstance(s.iter, cst.Call)
            and self.role(s.iter.func) == "persistent"
        ]
        if not loops:
            return None
        loop = loops[0]
        others = [
            s
            for s in node.body.body
            if s is not loop and not _is_docstring(s) and not self.is_allocation(s)
        ]
        if len(names) != 1 or len(loops) != 1 or others:
            raise self.error(
                others[0] if others else loop,
                "a persistent kernel is `with T.Kernel(num_sms) as block_id:` holding "
                "allocations and one T.Persistent loop",
                "move per-tile work into the T.Persistent loop",
            )
        pos, kw = call_args(loop.iter)  # type: ignore[arg-type]
        domain = kw.get("domain", pos[0] if pos else None)
        wave = kw.get("wave_size", pos[1] if len(pos) > 1 else None)
        index = kw.get("index", pos[2] if len(pos) > 2 else None)
        if (
            not isinstance(domain, (cst.List, cst.Tuple))
            or wave is None
            or source_of(wave).strip() != source_of(extents[0]).strip()
            or not (isinstance(index, cst.Name) and index.value == names[0])
        ):
            raise self.error(
                loop.iter,
                "T.Persistent(domain, wave_size, index) is read with the T.Kernel's program "
                "count as wave_size and its index as index",
                f"write T.Persistent([...], {source_of(extents[0]).strip()}, {names[0]})",
            )
        target = loop.target
        tiles = (
            [target] if isinstance(target, cst.Name) else [e.value for e in target.elements]  # type: ignore[union-attr]
        )
        if len(tiles) != len(domain.elements) or not all(isinstance(t, cst.Name) for t in tiles):
            raise self.error(target, "bind one name per T.Persistent domain dim")
        grid = [
            self.tile_var(t.value, el.value)  # type: ignore[union-attr]
            for t, el in zip(tiles, domain.elements)
        ]
        self.persistent = loop
        return grid

    def is_allocation(self, s: cst.BaseStatement) -> bool:
        small = s.body[0] if isinstance(s, cst.SimpleStatementLine) else None
        return (
            isinstance(small, cst.Assign)
            and isinstance(small.value, cst.Call)
            and self.role(small.value.func) in ("alloc_shared", "alloc_fragment", "alloc_local")
        )

    def tile_var(self, name: str, count: cst.BaseExpression) -> ir.TileVar:
        """The tile variable ``name`` counting ``count`` tiles: ``T.ceildiv(E, B)`` tiles of
        ``B`` over ``E``, or ``E`` single indices."""
        if isinstance(count, cst.Call) and self.role(count.func) == "ceildiv":
            pos, _ = call_args(count)
            extent, block = self.size_expr(pos[0]), pos[1]
            if isinstance(block, cst.Name) and block.value in self.fac.params:
                self.tunable(block.value, "block_size", block)
                self.block_tiles.setdefault(block.value, []).append(name)
                tile = ir.TileVar(name, extent, block.value)
            elif isinstance(block, cst.Integer):
                self.block_tiles.setdefault(block.value, []).append(name)
                tile = ir.TileVar(name, extent, ir.Const(int(block.value)))
            else:
                raise self.error(
                    block,
                    f"the block size `{source_of(block)}` is no factory parameter or literal",
                    "pass block sizes as parameters of the @tilelang.jit factory",
                )
        else:
            tile = ir.TileVar(name, self.size_expr(count), ir.Const(1), scalar=True)
        self.tiles[name] = tile
        return tile

    def size_expr(self, node: cst.BaseExpression) -> ir.Expr:
        """:meth:`host_expr` of an extent: a size the launch passes is an ``int``."""
        if self.passed_size(node):
            return self.scalar_param(node, size=True)  # type: ignore[arg-type]
        return self.host_expr(node)

    def passed_size(self, node: cst.BaseExpression) -> bool:
        """Whether ``node`` names a size the launch passes that is no tensor's size here."""
        return (
            isinstance(node, cst.Name)
            and node.value not in self.fac.sizes
            and node.value not in self.fac.locals
            and self.passed_variable(node.value)
        )

    def shape_entry(self, node: cst.BaseExpression) -> ir.SizeOf | None:
        """``x_shape[d]`` of a ``T.StridedTensor`` shape parameter: the size of ``x``'s dim."""
        if not (
            isinstance(node, cst.Subscript)
            and isinstance(node.value, cst.Name)
            and node.value.value in self.fac.shapes
            and len(node.slice) == 1
            and isinstance(node.slice[0].slice, cst.Index)
            and isinstance(node.slice[0].slice.value, cst.Integer)
        ):
            return None
        return ir.SizeOf(self.fac.shapes[node.value.value], int(node.slice[0].slice.value.value))

    def host_expr(self, node: cst.BaseExpression) -> ir.Expr:
        """A size expression over factory parameters (sizes of tensors) and literals."""
        size = self.shape_entry(node)
        if size is not None:
            return size
        if isinstance(node, cst.Name):
            if node.value in self.fac.sizes:
                tensor, dim = self.fac.sizes[node.value]
                return ir.SizeOf(tensor, dim)
            if node.value in self.fac.runtime_scalars:
                return ir.Name(node.value)
            if node.value in self.fac.locals:
                return self.host_expr(self.fac.locals[node.value])
            if self.passed_variable(node.value):
                return self.scalar_param(node)
            value = self.int_value(node)
            if value is not None:
                return ir.Const(value)
            return self.scalar_param(node)
        if isinstance(node, cst.Integer):
            return ir.Const(int(node.value))
        if isinstance(node, cst.Float):
            return ir.Const(float(node.value))
        if isinstance(node, cst.BinaryOperation) and type(node.operator) in BINOPS:
            return ir.BinOp(
                BINOPS[type(node.operator)], self.host_expr(node.left), self.host_expr(node.right)
            )
        if isinstance(node, cst.Call) and self.role(node.func) == "ceildiv":
            pos, _ = call_args(node)
            return ir.Call("cdiv", (self.host_expr(pos[0]), self.host_expr(pos[1])))
        raise self.error(node, f"the size `{source_of(node)}` is not read")

    def passed_variable(self, name: str) -> bool:
        """Whether the launch passes factory parameter ``name`` a host value that is no literal
        (``split_k`` of the host function): a scalar of the kernel, not its default baked in.
        Block sizes and launch knobs stay tunables (:meth:`tunable`)."""
        if name not in self.fac.params or name in self.block_tiles or name == self.threads:
            return False
        passed = self.mod.launch_args.get(self.fac.fn.name.value, {}).get(name)
        if passed is None or isinstance(passed, cst.Integer):
            return False
        return not (isinstance(passed, cst.Name) and passed.value in self.mod.module_ints)

    def scalar_param(self, node: cst.Name, size: bool = False) -> ir.Expr:
        """A factory parameter that is neither a size, a dtype nor a tunable: a scalar the
        kernel is compiled for (``eps``, ``scale``); an ``int`` where it sizes a dim or a grid
        (``size``: ``n`` of the host's ``m, n = x.shape``)."""
        name = node.value
        if name not in self.fac.params:
            raise self.error(node, f"`{name}` is not defined in the kernel")
        if size:
            for i, p in enumerate(self.scalars):
                if p.name == name and p.kind == "float":
                    self.scalars[i] = dataclasses.replace(p, kind="int")
                    self.env.vars[name] = ir_scalar_type("int")
            if not any(p.name == name for p in self.scalars):
                self.scalars.append(ir.Param(name, "int", constexpr=True))
                self.env.vars[name] = ir_scalar_type("int")
        if not any(p.name == name for p in self.scalars):
            default = self.fac.defaults.get(name)
            passed = self.mod.launch_args.get(self.fac.fn.name.value, {}).get(name)
            kind = "float"
            for source in (default, passed):
                if isinstance(source, cst.Integer):
                    kind = "int"
                if isinstance(source, cst.Name) and source.value in ("True", "False"):
                    kind = "bool"
            self.scalars.append(ir.Param(name, kind, constexpr=True))
            self.env.vars[name] = ir_scalar_type(kind)
        return ir.Name(name)

    def prescan(self, body: cst.BaseSuite) -> None:
        """Loop tile variables first: buffers allocated before a K loop name its block."""
        lifter = self

        class Scan(cst.CSTVisitor):
            def visit_For(self, node: cst.For) -> None:
                it = node.iter
                if (
                    isinstance(node.target, cst.Name)
                    and isinstance(it, cst.Call)
                    and lifter.role(it.func) in ("pipelined", "serial")
                ):
                    pos, _ = call_args(it)
                    if len(pos) == 1:
                        name = node.target.value
                        if not lifter.strided_tile_var(name, pos[0], node.body):
                            lifter.tile_var(name, pos[0])
                        lifter.loop_tiles.add(name)

        body.visit(Scan())

    def strided_tile_var(self, name: str, count: cst.BaseExpression, body: cst.BaseSuite) -> bool:
        """A split-K loop over every ``S``-th tile: ``for ko in T.Pipelined(T.ceildiv(K,
        block_K * S))`` whose body starts its regions at ``(ko * S + bz) * block_K`` is the
        IR's loop over the K tiles from tile ``bz`` on, ``S`` at a time (``step``). Tiles it
        runs past ``K`` read zeros, which the IR's loop leaves out. ``False`` if ``count`` and
        ``body`` are not this pattern."""
        if not (isinstance(count, cst.Call) and self.role(count.func) == "ceildiv"):
            return False
        pos, _ = call_args(count)
        per = pos[1] if len(pos) == 2 else None
        if not (isinstance(per, cst.BinaryOperation) and isinstance(per.operator, cst.Multiply)):
            return False
        starts: list[tuple[cst.BaseExpression, cst.BaseExpression, cst.BaseExpression]] = []

        class Starts(cst.CSTVisitor):
            def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
                found = strided_start(node, name)
                if found is not None:
                    starts.append(found)

        body.visit(Starts())
        for block, step in ((per.left, per.right), (per.right, per.left)):
            text = (source_of(block).strip(), source_of(step).strip())
            first = [
                s for s in starts if (source_of(s[0]).strip(), source_of(s[1]).strip()) == text
            ]
            if not first:
                continue
            tile = self.tile_var(name, cst.Call(count.func, [cst.Arg(pos[0]), cst.Arg(block)]))
            block_expr = ir.Name(tile.block) if isinstance(tile.block, str) else tile.block
            begin = ir.BinOp("*", self.scalar_expr(first[0][2]), block_expr)
            tile = dataclasses.replace(tile, begin=begin, step=self.host_expr(step))
            self.tiles[name] = tile
            self.strided[name] = text
            return True
        return False

    # ------------------------------------------------------------------ dims and buffers

    def is_padded(self, node: cst.BaseExpression) -> bool:
        """Whether an extent is a whole dim padded to a power of two
        (``N_pad = tilelang.math.next_power_of_2(N)``)."""
        if isinstance(node, cst.Name) and node.value in self.fac.locals:
            node = self.fac.locals[node.value]
        return (
            isinstance(node, cst.Call) and self.mod.name_of(node.func) in self.g["kernel"]["pad_to"]
        )

    def is_loop_block(self, d: ir.Dim) -> bool:
        """Whether ``d`` spans the block of a K-loop tile (its last tile runs past the extent:
        the lanes a reduction or dot over it must leave out)."""
        return isinstance(d, ir.BlockDim) and d.tile in self.loop_tiles

    def dim(self, node: cst.BaseExpression) -> ir.Dim:
        """The IR dim of a buffer-shape or ``T.Parallel`` extent."""
        if isinstance(node, cst.Name) and node.value in self.fac.locals:
            value = self.fac.locals[node.value]
            if self.is_padded(value):
                pos, _ = call_args(value)  # type: ignore[arg-type]
                return self.dim(pos[0])
            return self.dim(value)
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
            raise self.error(
                node,
                f"the block size `{key}` tiles several dims ({', '.join(tiles)})",
                "give each tiled dim its own block-size parameter",
            )
        if self.passed_size(node):
            # A size the launch passes (`n` of the host's `m, n = x.shape`).
            return ir.FullDim(self.scalar_param(node, size=True))  # type: ignore[arg-type]
        if (isinstance(node, cst.Name) and node.value in self.fac.sizes) or self.shape_entry(
            node
        ) is not None:
            return ir.FullDim(self.host_expr(node))
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
            tuple(self.dim(e.value) for e in entries) if entries is not None else (self.dim(shape),)
        )
        padded = (
            tuple(self.is_padded(e.value) for e in entries)
            if entries is not None
            else (self.is_padded(shape),)
        )
        padded = tuple(p or self.is_loop_block(d) for p, d in zip(padded, dims))
        self.buffers[name] = Buffer(name, dims, self.dtype(dt), call, padded)

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
        buf.pad = pad
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
            if _is_docstring(s):
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
        if (
            isinstance(target, cst.Name)
            and isinstance(value, cst.Call)
            and self.role(value.func) in ("alloc_shared", "alloc_fragment", "alloc_local")
        ):
            self.alloc(target.value, value)
            return []
        if isinstance(target, cst.Subscript):
            stmt = self.element_store(target, value, s)
            return [stmt] if stmt is not None else []
        if isinstance(target, cst.Name) and not self.lanes and target.value not in self.buffers:
            # A scalar the block computes once (TVMScript's let): `y = target[bx]`.
            lifted = self.scalar_expr(value)
            t = infer(lifted, self.env)
            if not dims_of(t):
                self.lets.add(target.value)
                self.env.vars[target.value] = t
                return [ir.Assign(target.value, lifted, loc=self.mod.locate(s))]
        raise self.error(
            s,
            f"`{source_of(s).strip()}` is not read",
            "allocate buffers with T.alloc_*; write them element-wise in T.Parallel loops",
        )

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
        self.check_unsupported(call)
        role = self.role(call.func)
        handler = STATEMENTS.get(role or "")
        if handler is None:
            raise self.error(call, f"the call `{source_of(call.func)}` is not read in kernels")
        return handler(self, call)

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
        if role in ("pipelined", "serial") and isinstance(s.target, cst.Name):
            tile = self.tiles.get(s.target.value)
            if tile is None:
                raise self.error(it, "a sequential loop counts T.ceildiv(extent, block) tiles")
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
            body = self.block(s.body.body)
            for var, t in self.env.vars.items():
                if var in outer.vars or var in self.buffers:
                    outer.vars[var] = t
            self.env = outer
            return [ir.TileLoop((tile,), body, num_stages=stages, loc=self.mod.locate(s))]
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
        valid = set()
        lane_items = [item for item in items if not isinstance(item, ir.ScalarIndex)]
        for axis, (_, d) in enumerate(self.lanes):
            if isinstance(d, ir.UnitDim):  # `j < 1` of a one-lane axis holds everywhere
                valid.add(ir.BinOp("<", self.place(ir.Arange(d), [axis]), ir.Const(1)))
        for item, axis in zip(lane_items, order):
            if isinstance(item, ir.TileIndex):
                index = self.place(ir.TileAttr(item.tile, "index"), [axis])
                valid.add(ir.BinOp("<", index, self.tiles[item.tile].extent))
            elif isinstance(item, ir.FullIndex):
                index = self.place(ir.Arange(self.lanes[axis][1]), [axis])
                valid.add(ir.BinOp("<", index, item.extent))
        for part in conjuncts(s.test):
            if self.lane_expr(part) not in valid:
                raise self.error(
                    part,
                    f"`{source_of(part).strip()}` is not a bound of the stored lanes",
                    "store every lane of the tiles (the edges are left out for you), and "
                    "select values with T.if_then_else(cond, a, b)",
                )
        return self.block(body)

    # ------------------------------------------------------------------ lane expressions


def _is_docstring(s: cst.CSTNode) -> bool:
    return (
        isinstance(s, cst.SimpleStatementLine)
        and isinstance(s.body[0], cst.Expr)
        and isinstance(s.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def _docstring(fn: cst.FunctionDef) -> str | None:
    doc = fn.get_docstring(clean=True)
    return doc or None


def _with_comments(s: ir.Stmt, comments: tuple[str, ...]) -> ir.Stmt:
    return dataclasses.replace(s, comments=comments) if hasattr(s, "comments") else s


# --------------------------------------------------------------------------------------------------
# The module


def _factory(fn: cst.FunctionDef, mod: ModuleFacts, g: dict) -> Factory:
    """Read a ``@tilelang.jit`` factory's signature, decorators and prim_func."""
    jit = decorator_of(fn, mod, g["kernel"]["decorator"])
    assert jit is not None
    out_idx: list[int] = []
    if isinstance(jit.decorator, cst.Call):
        _, kw = call_args(jit.decorator)
        for key, value in kw.items():
            if key == "out_idx":
                if isinstance(value, (cst.Integer, cst.UnaryOperation)):
                    out_idx = [int(source_of(value))]
                elif isinstance(value, (cst.List, cst.Tuple)):
                    out_idx = [int(source_of(e.value)) for e in value.elements]
                else:
                    raise mod.error(value, "out_idx is a literal list of ints")
            elif key not in ("target", "execution_backend", "pass_configs", "verbose"):
                raise mod.error(value, f"@tilelang.jit's `{key}=` is not read")
    configs: list[dict[str, int]] = []
    tune = decorator_of(fn, mod, g["kernel"]["autotune"])
    if tune is not None:
        if not isinstance(tune.decorator, cst.Call):
            raise mod.error(tune, "@tilelang.autotune(configs=[...]) is read")
        _, kw = call_args(tune.decorator)
        configs = _configs(kw.get("configs"), mod, tune)
    for d in fn.decorators:
        target = d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator
        if mod.name_of(target) not in (g["kernel"]["decorator"], g["kernel"]["autotune"]):
            raise mod.error(d, f"the decorator `{source_of(target)}` is not read")
    params = [p.name.value for p in fn.params.params]
    defaults = {p.name.value: p.default for p in fn.params.params if p.default is not None}
    if not any(
        isinstance(s, cst.FunctionDef) and decorator_of(s, mod, g["kernel"]["prim_func"])
        for s in fn.body.body
    ):
        if out_idx:
            raise mod.error(
                jit,
                "out_idx is for @tilelang.jit factories; an eager kernel returns its outputs",
                "allocate outputs with T.empty((M, N), dtype) and return them",
            )
        fac = Factory(fn, fn, params, defaults, [], configs, tune is not None)
        _eager(fac, mod, g)
        return fac
    prim = None
    local_values: dict[str, cst.BaseExpression] = {}
    for stmt in fn.body.body:
        if _is_docstring(stmt):
            continue
        if isinstance(stmt, cst.FunctionDef) and decorator_of(stmt, mod, g["kernel"]["prim_func"]):
            prim = stmt
            continue
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) else None
        if isinstance(small, cst.Return):
            continue
        if isinstance(small, cst.Assign) and isinstance(small.targets[0].target, cst.Name):
            local_values[small.targets[0].target.value] = small.value
            continue
        raise mod.error(stmt, "a factory body holds its prim_func, assignments and a return")
    if prim is None:
        raise mod.error(fn, f"the factory `{fn.name.value}` defines no @T.prim_func")
    fac = Factory(fn, prim, params, defaults, out_idx, configs, tune is not None)
    fac.locals = local_values
    for p in prim.params.params:
        ann = p.annotation.annotation if p.annotation else None
        scalar = _scalar_dtype(ann, mod, g) if ann is not None else None
        if scalar is not None:
            fac.runtime_scalars[p.name.value] = scalar
            continue
        if fac.runtime_scalars:
            raise mod.error(
                p,
                f"prim_func tensor `{p.name.value}` follows a scalar parameter",
                "put the prim_func's scalar parameters after its tensors",
            )
        if isinstance(ann, cst.Call) and mod.name_of(ann.func) in g["kernel"]["strided_tensor"]:
            _strided_tensor(fac, p.name.value, ann, mod)
            continue
        if not (isinstance(ann, cst.Call) and mod.name_of(ann.func) in g["kernel"]["tensor"]):
            raise mod.error(
                p,
                f"prim_func parameter `{p.name.value}` is not a T.Tensor",
                "annotate tensors as T.Tensor((M, N), dtype); pass scalars to the factory",
            )
        pos, kw = call_args(ann)
        shape = kw.get("shape", pos[0] if pos else None)
        dtype = kw.get("dtype", pos[1] if len(pos) > 1 else None)
        if isinstance(shape, cst.Name) and shape.value in local_values:
            shape = local_values[shape.value]  # `shape = [batch, seq_len, heads, dim]`
        if not isinstance(shape, (cst.Tuple, cst.List)) or dtype is None:
            raise mod.error(ann, "T.Tensor((sizes...), dtype) is read")
        entries = [e.value for e in shape.elements]
        fac.tensors[p.name.value] = (entries, dtype)
        fac.tensor_order.append(p.name.value)
        for d, e in enumerate(entries):
            if isinstance(e, cst.Name) and e.value in params:
                fac.sizes.setdefault(e.value, (p.name.value, d))
        if isinstance(dtype, cst.Name) and dtype.value in params:
            fac.dtypes.setdefault(dtype.value, p.name.value)
    return fac


def _scalar_dtype(ann: cst.BaseExpression, mod: ModuleFacts, g: dict) -> str | None:
    """The IR dtype of a scalar prim_func parameter's annotation (``T.float32``, ``T.int32``),
    or ``None`` for anything else."""
    name = str(ann.evaluated_value) if isinstance(ann, cst.SimpleString) else mod.name_of(ann)
    return dtype_name(name or "", g) if name else None


def _scalar_kind(dtype: str) -> str:
    """The IR parameter kind of a scalar of ``dtype``."""
    if dtype == "bool":
        return "bool"
    return "float" if dtype.startswith(("float", "bfloat")) else "int"


def _strided_tensor(fac: Factory, name: str, ann: cst.Call, mod: ModuleFacts) -> None:
    """Read ``name: T.StridedTensor(x_shape, x_strides, x_dtype)`` (what tiletrans writes: the
    launch passes ``x.shape, x.stride(), x.dtype``): ``x_shape[d]`` is the size of dim ``d``,
    the rank is how many indices the kernel gives the tensor, the strides are the tensor's own."""
    pos, kw = call_args(ann)
    shape = kw.get("shape", pos[0] if pos else None)
    strides = kw.get("strides", pos[1] if len(pos) > 1 else None)
    dtype = kw.get("dtype", pos[2] if len(pos) > 2 else None)
    if not all(isinstance(e, cst.Name) and e.value in fac.params for e in (shape, strides, dtype)):
        raise mod.error(
            ann,
            "T.StridedTensor is read with a shape, strides and dtype that are factory parameters",
            "pass `x.shape, x.stride(), x.dtype` to the factory, or annotate T.Tensor((M, N), dtype)",
        )
    assert isinstance(shape, cst.Name) and isinstance(dtype, cst.Name)
    ranks: set[int] = set()

    def index_count(node: cst.CSTNode) -> bool:
        value = node.value if isinstance(node, cst.Subscript) else None
        if isinstance(value, cst.Name) and value.value == name:
            ranks.add(len(node.slice))  # type: ignore[union-attr]
        return True

    walk(fac.prim.body, index_count)
    if len(ranks) != 1:
        raise mod.error(
            ann,
            f"the rank of `{name}` is not told by its indices in the kernel "
            f"({'none' if not ranks else 'several: ' + ', '.join(map(str, sorted(ranks)))})",
            f"annotate `{name}` as T.Tensor((sizes...), dtype)",
        )
    (rank,) = ranks
    entries: list[cst.BaseExpression] = [
        cst.Subscript(shape, [cst.SubscriptElement(cst.Index(cst.Integer(str(d))))])
        for d in range(rank)
    ]
    fac.tensors[name] = (entries, dtype)
    fac.tensor_order.append(name)
    fac.shapes.setdefault(shape.value, name)
    fac.dtypes.setdefault(dtype.value, name)


def _eager(fac: Factory, mod: ModuleFacts, g: dict) -> None:
    """Read an eager-style kernel (TileLang 0.1.15's ``@tilelang.jit`` without a prim_func)::

        @tilelang.jit
        def matmul(A, B, block_M: int = 128, ...):
            M, N, K = T.const("M N K")
            A: T.Tensor((M, K), T.float16)
            B: T.Tensor((K, N), T.float16)
            C = T.empty((M, N), T.float16)
            with T.Kernel(...) as (bx, by):
                ...
            return C

    into the same :class:`Factory` a jit factory gives: the annotated parameters and the
    ``T.empty`` outputs are its tensors (outputs last, as ``out_idx`` would list them), each
    ``T.const`` name the size of the first tensor dim it annotates, the other parameters its
    factory parameters (tunables and scalars, with the function's defaults). The function is its
    own host function: :func:`eager_host` rewrites it in plain torch."""
    fn = fac.fn
    eager = Eager()
    tensor_call = set(g["kernel"]["tensor"])
    consts: set[str] = set()
    declared: dict[str, tuple[cst.BaseExpression, cst.BaseExpression]] = {}
    outputs: dict[str, tuple[cst.BaseExpression, cst.BaseExpression]] = {}
    returned: list[str] | None = None
    for param in fn.params.params:
        ann = param.annotation.annotation if param.annotation else None
        if ann is not None and _tensor_annotation(ann, mod, tensor_call) is not None:
            # Python evaluates it when the function is defined, before T.const names exist
            # (TileLang 0.1.15: NameError), so the eager style annotates in the body.
            raise mod.error(
                param,
                f"`{param.name.value}` is annotated as a tensor in the signature",
                f"annotate it in the body: `{param.name.value}: {source_of(ann).strip()}`",
            )
    for stmt in fn.body.body:
        if _is_docstring(stmt):
            continue
        if isinstance(stmt, cst.With):
            if fac.kernel_with is not None:
                raise mod.error(stmt, "an eager kernel launches one `with T.Kernel(...)` block")
            fac.kernel_with = stmt
            continue
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) else None
        if small is None or len(stmt.body) != 1:  # type: ignore[union-attr]
            raise mod.error(
                stmt,
                "an eager kernel's body holds T.const sizes, tensor annotations, T.empty "
                "outputs, one `with T.Kernel(...)` block and a return",
            )
        assert isinstance(stmt, cst.SimpleStatementLine)
        if isinstance(small, cst.AnnAssign) and small.value is None:
            name = small.target.value if isinstance(small.target, cst.Name) else None
            shape_dtype = _tensor_annotation(small.annotation.annotation, mod, tensor_call)
            if name is None or name not in fac.params or shape_dtype is None:
                raise mod.error(
                    small,
                    f"`{source_of(small).strip()}` is not a tensor annotation of a parameter",
                    "annotate parameters in the body as `A: T.Tensor((M, K), dtype)`",
                )
            declared[name] = shape_dtype
            eager.annotations.append(stmt)
            continue
        if isinstance(small, cst.Return):
            returned = _returned_names(small, mod)
            continue
        if not (isinstance(small, cst.Assign) and len(small.targets) == 1):
            raise mod.error(small, f"`{source_of(small).strip()}` is not read in eager kernels")
        target, value = small.targets[0].target, small.value
        callee = mod.name_of(value.func) if isinstance(value, cst.Call) else None
        if callee == g["kernel"]["const"]:
            names = _const_names(value, target, mod)  # type: ignore[arg-type]
            consts |= set(names)
            eager.consts.append((stmt, names))
        elif callee == g["kernel"]["empty"]:
            if not isinstance(target, cst.Name):
                raise mod.error(target, "bind each T.empty output to a name")
            outputs[target.value] = _empty_args(value, mod)  # type: ignore[arg-type]
            eager.outputs.append((stmt, target.value))
        elif isinstance(target, cst.Name) and not _uses_package(value, mod):
            fac.locals[target.value] = value  # plain Python both sides read (`n_pad = ...`)
        else:
            raise mod.error(
                small,
                f"`{source_of(small).strip()}` is not read in eager kernels",
                "compute device values inside the T.Kernel block",
            )
    if fac.kernel_with is None:
        raise mod.error(fn, f"the eager kernel `{fn.name.value}` launches no `with T.Kernel(...)`")
    if returned is not None and set(returned) != set(outputs):
        raise mod.error(
            fn,
            f"`{fn.name.value}` returns {', '.join(returned) or 'nothing'}, not its T.empty "
            f"outputs ({', '.join(outputs) or 'none'})",
            "return exactly the tensors allocated with T.empty",
        )
    eager.inputs = [p for p in fac.params if p in declared]
    fac.params = [p for p in fac.params if p not in declared]
    for name in (*eager.inputs, *outputs):
        shape, dtype = declared.get(name) or outputs[name]
        if isinstance(shape, cst.Name) and shape.value in fac.locals:
            shape = fac.locals[shape.value]
        if not isinstance(shape, (cst.Tuple, cst.List)):
            raise mod.error(shape, "a tensor's shape is a literal tuple of sizes")
        entries = [e.value for e in shape.elements]
        fac.tensors[name] = (entries, dtype)
        fac.tensor_order.append(name)
        for d, e in enumerate(entries):
            known = consts | set(fac.params) | set(fac.locals) | set(mod.module_ints)
            if isinstance(e, cst.Name) and e.value not in known:
                raise mod.error(
                    e,
                    f"the size `{e.value}` of `{name}` is not defined in `{fn.name.value}`",
                    f'declare it with the other sizes: `... = T.const("... {e.value}")`',
                )
            if isinstance(e, cst.Name) and e.value in consts:
                if name in outputs and e.value not in fac.sizes:
                    raise mod.error(
                        e,
                        f"`{e.value}` sizes only the output `{name}`: T.const names are read "
                        "from the input tensors",
                        f"annotate an input tensor with `{e.value}`, or pass it as a parameter",
                    )
                fac.sizes.setdefault(e.value, (name, d))
    fac.out_idx = list(range(len(eager.inputs), len(fac.tensor_order)))
    unused = sorted(consts - set(fac.sizes))
    if unused:
        raise mod.error(eager.consts[0][0], f"T.const `{unused[0]}` sizes no annotated tensor")
    taken = set(fac.params) | set(fac.tensors) | consts
    name = f"{fn.name.value}_kernel"
    while name in taken:
        name = f"_{name}"
    fac.kernel_name = name
    fac.eager = eager


def _tensor_annotation(
    node: cst.BaseExpression, mod: ModuleFacts, tensor_call: set[str]
) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """``(shape, dtype)`` of ``T.Tensor((M, K), dtype)`` or ``T.Tensor[[M, K], dtype]``."""
    if isinstance(node, cst.Call) and mod.name_of(node.func) in tensor_call:
        pos, kw = call_args(node)
        shape = kw.get("shape", pos[0] if pos else None)
        dtype = kw.get("dtype", pos[1] if len(pos) > 1 else None)
    elif isinstance(node, cst.Subscript) and mod.name_of(node.value) in tensor_call:
        items = [el.slice.value for el in node.slice if isinstance(el.slice, cst.Index)]
        shape, dtype = (items[0], items[1]) if len(items) == 2 else (None, None)
    else:
        return None
    if shape is None or dtype is None:
        return None
    return shape, dtype


def _const_names(call: cst.Call, target: cst.BaseExpression, mod: ModuleFacts) -> list[str]:
    """The names ``M, N = T.const("M N")`` binds (TileLang splits on commas or spaces)."""
    pos, _ = call_args(call)
    if not pos or not isinstance(pos[0], cst.SimpleString):
        raise mod.error(call, 'T.const takes a literal string of names ("M N K")')
    text = str(pos[0].evaluated_value)
    names = [n for n in re.split(r"\s*,\s*|\s+", text.strip()) if n]
    if isinstance(target, cst.Name):
        bound = [target.value]
    elif isinstance(target, (cst.Tuple, cst.List)) and all(
        isinstance(e.value, cst.Name) for e in target.elements
    ):
        bound = [e.value.value for e in target.elements]  # type: ignore[union-attr]
    else:
        raise mod.error(target, "bind T.const sizes to plain names")
    if bound != names:
        raise mod.error(
            call,
            f"`{source_of(target)}` binds other names than T.const declares ({text!r})",
            'bind each T.const name to itself: `M, N = T.const("M N")`',
        )
    return names


def _empty_args(call: cst.Call, mod: ModuleFacts) -> tuple[cst.BaseExpression, cst.BaseExpression]:
    pos, kw = call_args(call)
    shape = pos[0] if pos else None
    dtype = kw.get("dtype", pos[1] if len(pos) > 1 else None)
    if not isinstance(shape, (cst.Tuple, cst.List)) or dtype is None:
        raise mod.error(call, "T.empty((sizes...), dtype) is read")
    return shape, dtype


def _returned_names(ret: cst.Return, mod: ModuleFacts) -> list[str]:
    value = ret.value
    if value is None:
        return []
    items = [e.value for e in value.elements] if isinstance(value, cst.Tuple) else [value]
    if not all(isinstance(i, cst.Name) for i in items):
        raise mod.error(ret, "an eager kernel returns its T.empty outputs by name")
    return [i.value for i in items]  # type: ignore[union-attr]


def _uses_package(node: cst.CSTNode, mod: ModuleFacts) -> bool:
    """Whether ``node`` calls into TileLang (then it is device code, not a host local)."""
    found = False

    class Names(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> None:
            nonlocal found
            if (mod.name_of(call.func) or "").startswith("tilelang"):
                found = True

    node.visit(Names())
    return found


def _configs(node: cst.BaseExpression | None, mod: ModuleFacts, where: cst.CSTNode) -> list[dict]:
    if not isinstance(node, (cst.List, cst.Tuple)):
        raise mod.error(
            node or where,
            "autotune configs are a literal list of dicts",
            "write configs=[{'block_M': 128, ...}, ...]",
        )
    out = []
    for el in node.elements:
        d = el.value
        row: dict[str, int] = {}
        if isinstance(d, cst.Dict):
            for item in d.elements:
                if not (
                    isinstance(item, cst.DictElement)
                    and isinstance(item.key, cst.SimpleString)
                    and isinstance(item.value, cst.Integer)
                ):
                    raise mod.error(item, "a config maps parameter names to literal ints")
                row[str(item.key.evaluated_value)] = int(item.value.value)
        elif isinstance(d, cst.Call) and source_of(d.func) == "dict":
            for arg in d.args:
                if arg.keyword is None or not isinstance(arg.value, cst.Integer):
                    raise mod.error(arg, "a config maps parameter names to literal ints")
                row[arg.keyword.value] = int(arg.value.value)
        else:
            raise mod.error(d, "a config is a literal dict")
        out.append(row)
    return out


def parse(source: str, path: str) -> ir.Module:
    """The IR of a TileLang module: its factories' kernels, and its host functions' launches."""
    wrapper = parse_source(source, path)
    module = wrapper.module
    g = grammar()
    mod = ModuleFacts(path, Locator(wrapper, path), import_aliases(module))
    factories: dict[str, Factory] = {}
    for stmt in module.body:
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) else None
        if (
            isinstance(small, cst.Assign)
            and isinstance(small.targets[0].target, cst.Name)
            and isinstance(small.value, cst.Integer)
        ):
            mod.module_ints[small.targets[0].target.value] = int(small.value.value)
        if (
            isinstance(stmt, cst.FunctionDef)
            and decorator_of(stmt, mod, g["kernel"]["decorator"]) is not None
        ):
            factories[stmt.name.value] = _factory(stmt, mod, g)
    if not factories:
        raise TranslationError(
            f"{path} defines no @tilelang.jit factory",
            ir.Loc(path, 1, 0),
            "tiletrans reads @tilelang.jit factories that return a @T.prim_func",
        )
    lazy = {name: f for name, f in factories.items() if f.eager is None}
    hosts = host_calls(module, mod, lazy)
    kernels = tuple(KernelLifter(f, mod).lift() for f in factories.values())
    by_name = {k.name: k for k in kernels}
    sites, entries, edits = host_plan(hosts, mod, lazy, by_name)
    edits = [
        *(
            ir.HostEdit("define", mod.locate.span(f.fn), kernels=(name,))
            for name, f in lazy.items()
        ),
        *edits,
    ]
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
