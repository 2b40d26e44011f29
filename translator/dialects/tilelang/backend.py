"""TileLang backend: IR kernels -> ``@tilelang.jit`` factories, launches -> ``factory(...)(...)``.

Each IR kernel becomes a factory (``templates/tilelang/kernel.py.j2``) whose parameters are what
TileLang compiles for: every tensor's shape and dtype, the integer (and choice) parameters, and
the tunables with the first config as defaults (block sizes, ``threads`` = 32 x the IR's warps,
``num_stages``); several configs become ``@tilelang.autotune(configs=[...])``. The factory
returns a ``@T.prim_func`` whose arguments are the tensors and the float scalars, with the body
from :mod:`translator.dialects.tilelang.kernel`. A launch in the carried host code becomes
``factory(x.shape, x.dtype, ..., m, n)(x, ..., alpha)``: the compiled kernel (cached by
TileLang per argument tuple) called on the tensors, which it writes in place as the source's
kernel did.
"""

from __future__ import annotations

import re
from functools import lru_cache

from translator.dialects.common.backend import Backend
from translator.dialects.common.formatting import MAX_LINE, wrap_lines
from translator.dialects.common.host_code import HostPrinter, host_atom
from translator.dialects.common.passthrough import KernelCode, LaunchCode
from translator.dialects.tilelang.kernel import KernelWriter
from translator.grammar import load_grammar
from translator.ir import nodes as ir
from translator.ir.passes import Pass
from translator.ir.program_order import grouped_grid
from translator.ir.renaming import names_in, rename
from translator.ir.shapes import kernel_env
from translator.ir.transforms import squeeze_unit_tiles, unit_block_tiles
from translator.ir.verifier import verify_kernel
from translator.ir.visit import written_tensors
from translator.naming import unique
from translator.rendering import render_template

_RESERVED = {"T", "tilelang", "torch", "math", "main"}


class TileLangBackend(Backend):
    """Writes kernels as ``@tilelang.jit`` factories and launches as calls of the kernel they
    compile."""

    name = "tilelang"

    def passes(self) -> list[Pass]:
        return [
            Pass(
                "squeeze-unit-tiles",
                "grid tiles whose block is 1 in every config (batch, heads) become plain indices, "
                "so that tiles and dots are 2-D (T.gemm multiplies 2-D tiles)",
                lambda k: squeeze_unit_tiles(k, unit_block_tiles(k)),
            )
        ]

    def imports(self, module: ir.Module) -> tuple[str, ...]:
        return (*super().imports(module), "import torch")

    def dropped_imports(self, module: ir.Module) -> tuple[str, ...]:
        # TileLang evaluates a prim_func's `T.Tensor(x_shape, x_dtype)` annotations in the
        # factory's closure only when they are objects; as strings it sees only the names the
        # body reads, so the factory's shapes and dtypes would be undefined (measured, 0.1.15).
        return ("from __future__ import annotations",)

    def kernel_code(self, kernel: ir.Kernel, module: ir.Module) -> KernelCode:
        verify_kernel(kernel)
        code = _kernel_code(kernel)
        tuned = [k for k in module.kernels if _autotuned(k)]
        if tuned and tuned[0].name == kernel.name and _row_major_helpers_free(module):
            # The row-major helpers the launches of autotuned factories use, once per module;
            # the source kernel's own decorators stay on the factory.
            helpers = render_template("tilelang", "row_major.py.j2")
            code = KernelCode(code.text + helpers, code.imports, decorated=(kernel.name,))
        return code

    def launch_code(self, kernel: ir.Kernel, launch: ir.Launch, module: ir.Module) -> LaunchCode:
        texts = {p.name: t for p, t in zip(kernel.params, launch.texts)}
        g = load_grammar("tilelang")["backend"]
        hx = HostPrinter(texts, calls=g["scalar_pointwise"], dtypes=g["host_dtypes"])
        factory_args, call_args = [], []
        # TileLang 0.1.15's autotuner keys its cache with json, which cannot encode a
        # torch.dtype (measured on the H200: TypeError): an autotuned factory takes dtype names.
        by_name = _autotuned(kernel)
        row_major = (
            _row_major_operands(kernel, texts, _identifiers(module))
            if by_name and _row_major_helpers_free(module)
            else {}
        )
        for p in kernel.params:
            text = row_major.get(p.name, texts[p.name])
            if p.kind == "tensor":
                t = host_atom(text)
                dtype = f'str({t}.dtype).removeprefix("torch.")' if by_name else f"{t}.dtype"
                factory_args += [f"{t}.shape", f"{t}.stride()", dtype]
                call_args.append(text)
            elif p.kind == "float":
                call_args.append(text)
            else:
                factory_args.append(text)
        notes = ()
        if launch.tuned:
            passed = ", ".join(f"`{t}`" for t in launch.tuned)
            notes = (
                f"tiletrans: the source launch's {passed}: block sizes and launch knobs are "
                "the factory's parameters here",
            )
        del hx
        text = f"{kernel.name}({', '.join(factory_args)})({', '.join(call_args)})"
        if not row_major:
            return LaunchCode(text, notes=notes)
        # TileLang's autotuner times configs on row-major tensors (see `_row_major`).
        names, copies = list(row_major.values()), [f"_row_major({texts[p]})" for p in row_major]
        prelude = (f"{', '.join(names)} = {', '.join(copies)}",)
        stored = written_tensors(kernel)
        written = [f"({texts[p]}, {row_major[p]})" for p in row_major if p in stored]
        if written:
            text = f"_copied_back({text}, {', '.join(written)})"
        return LaunchCode(text, prelude=prelude, notes=notes)


def emit(module: ir.Module) -> str:
    """The TileLang translation of ``module`` (verified first)."""
    return TileLangBackend().emit(module)


def _kernel_code(kernel: ir.Kernel) -> KernelCode:
    kernel = _without_clashes(kernel)
    spell = load_grammar("tilelang")["backend"]["kernel"]
    writer = KernelWriter(kernel=kernel, env_=kernel_env(kernel))
    for p in kernel.params:
        if p.kind == "tensor":
            writer.tensor_dtypes[p.name] = f"{p.name}_dtype"
            writer.taken |= {f"{p.name}_shape", f"{p.name}_strides", f"{p.name}_dtype"}
    grid = writer.bind_grid(kernel.grid)
    for s in kernel.body:
        writer.stmt(s)
    params: list[str] = []
    prim_params: list[str] = []
    for p in kernel.params:
        if p.kind == "tensor":
            # Strides too: the kernel indexes views (pitched rows, transposes) as they are.
            params += [f"{p.name}_shape", f"{p.name}_strides", f"{p.name}_dtype"]
            prim_params.append(_strided_param(p.name))
        elif p.kind == "float":
            prim_params.append(f"{p.name}: T.float32")
        else:
            params.append(p.name)
    first = dict(kernel.configs[0]) if kernel.configs else {}
    knobs = {}
    for t in kernel.tunables:
        value = first.get(t.name, t.default)
        if t.kind in ("block_size", "int"):
            # A factory parameter: `int` knobs (hl.register_tunable) are compile-time values
            # of the factory's prim_func as block sizes are, tuned alike.
            params.append(f"{t.name}={value}")
        elif t.kind == "num_warps":
            knobs["threads"] = value * 32
        elif t.kind == "num_stages":
            knobs["num_stages"] = value
        elif t.kind == "group_size" and _grouped(kernel):
            params.append(f"{t.name}={value}")
    threads = "threads"
    params.append(f"threads={knobs.get('threads', 128)}")
    if writer.uses_stages:
        params.append(f"num_stages={knobs.get('num_stages', 2)}")
    setup = [
        f"{name} = {spell['next_power_of_2']}({writer.host(extent)})"
        for name, extent in writer.full_blocks.values()
    ]
    setup += writer.warp_limit_setup("threads")
    setup += writer.tma_setup()
    setup += writer.policy_setup("threads")
    autotune = _autotune(kernel, writer.tma_tile) if len(kernel.configs) > 1 else None
    body = writer.allocs + writer.lines
    if _grouped(kernel):
        group = next(t for t in kernel.tunables if t.kind == "group_size")
        # The source's grouped program order (L2 reuse of the first operand's row tiles).
        body = [*writer.allocs, f"{spell['swizzle']}(panel_size={group.name})", *writer.lines]
    launch = _launch_lines(spell["launch"], grid, threads, writer.block_ids)
    if (kernel.hints.schedule or "").startswith("persistent_"):
        # The source's schedule: one program per SM, each looping over the grid's tiles
        # (T.Persistent hands them out interleaved; a blocked source schedule gets the same
        # tiles in another order, which no result depends on).
        sms = writer.fresh("num_sms")
        block_id = writer.fresh("block_id")
        params.append(f"{sms}={spell['num_sms']}")
        launch = _launch_lines(spell["launch"], [sms], threads, [block_id])
        launch[-1] = launch[-1].replace(f"as ({block_id},):", f"as {block_id}:")
        ids = list(reversed(writer.block_ids))
        target = ids[0] if len(ids) == 1 else ", ".join(ids)
        domain = ", ".join(reversed(grid))
        header = f"for {target} in {spell['persistent']}([{domain}], {sms}, {block_id}):"
        body = [*writer.allocs, header, *(f"    {line}" for line in writer.lines)]
    text = render_template(
        "tilelang",
        "kernel.py.j2",
        name=kernel.name,
        params=params,
        docstring=kernel.docstring,
        setup=setup,
        prim_name="main",
        prim_params=prim_params,
        launch=launch,
        body=body,
        autotune=autotune,
        spell=spell,
    )
    text = "\n".join(wrap_lines(text.splitlines())) + "\n"
    imports = ("import math",) if "math." in text.replace("tilelang.math.", "") else ()
    if autotune:
        imports += ("import functools",)
    return KernelCode(text, imports)


def _launch_lines(callee: str, grid: list[str], threads: str, ids: list[str]) -> list[str]:
    """``with T.Kernel(...) as (bx, by):``, one argument per line (a magic trailing comma keeps
    ruff's layout) where it does not fit in a line at the prim_func body's indentation."""
    names = f"({ids[0]},)" if len(ids) == 1 else f"({', '.join(ids)})"
    args = [*grid, f"threads={threads}"]
    line = f"with {callee}({', '.join(args)}) as {names}:"
    if 8 + len(line) <= MAX_LINE:
        return [line]
    return [f"with {callee}(", *(f"    {a}," for a in args), f") as {names}:"]


def _clashes(kernel: ir.Kernel) -> list[str]:
    """The kernel's parameters named as the module's own names: each tensor parameter ``t``
    becomes ``t_shape``, ``t_strides`` and ``t_dtype`` parameters of the factory (Helion's
    rms_norm has a scalar ``weight_shape`` beside a tensor ``weight``), and the module's imports
    and the prim_func's name are taken too."""
    names = {p.name for p in kernel.params}
    derived = {
        f"{p.name}_{part}"
        for p in kernel.params
        if p.kind == "tensor"
        for part in ("shape", "strides", "dtype")
    }
    return sorted(names & (_RESERVED | derived))


def _without_clashes(kernel: ir.Kernel) -> ir.Kernel:
    """``kernel`` with every parameter :func:`_clashes` names renamed apart (``weight_shape``
    -> ``weight_shape_2``). The launch passes arguments by position, so only the kernel's
    text changes."""
    clash = _clashes(kernel)
    while clash:
        taken = names_in(kernel) | _RESERVED
        taken |= {
            f"{p.name}_{part}" for p in kernel.params for part in ("shape", "strides", "dtype")
        }
        renamed = rename(kernel, {name: unique(name, taken) for name in clash})
        assert isinstance(renamed, ir.Kernel)
        kernel = renamed
        clash = _clashes(kernel)
    return kernel


def _autotuned(kernel: ir.Kernel) -> bool:
    """Whether ``kernel`` becomes an ``@tilelang.autotune`` factory."""
    return len(kernel.configs) > 1


def _identifiers(module: ir.Module) -> frozenset[str]:
    """Every identifier in the source module's text (names a new host name must not take)."""
    return _identifiers_in(module.host.source if module.host else "")


@lru_cache(maxsize=8)
def _identifiers_in(text: str) -> frozenset[str]:
    # One scan per source: every kernel and launch of a module asks.
    return frozenset(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))


def _row_major_helpers_free(module: ir.Module) -> bool:
    """Whether the source leaves the helpers' names (``_row_major``, ``_copied_back``) free;
    where it does not, autotuned launches stay plain (TileLang then tunes row-major operands
    only)."""
    return not {"_row_major", "_copied_back"} & _identifiers(module)


def _row_major_operands(
    kernel: ir.Kernel, texts: dict[str, str], taken: frozenset[str]
) -> dict[str, str]:
    """Tensor parameter -> a fresh host name for its row-major operand, for a launch of an
    autotuned factory; empty where a written tensor is passed as an expression (its copy could
    not be written back to it) or one tensor is passed twice."""
    tensors = [p.name for p in kernel.params if p.kind == "tensor"]
    written = written_tensors(kernel)
    if any(p in written and not texts[p].isidentifier() for p in tensors):
        return {}
    if len({texts[p] for p in tensors}) < len(tensors):
        return {}
    used = set(taken) | _identifiers_in(" ".join(texts.values()))
    return {
        p: unique(f"{texts[p] if texts[p].isidentifier() else p}_row_major", used) for p in tensors
    }


def _autotune(
    kernel: ir.Kernel, tma_tile: tuple[str, str] | None
) -> list[tuple[list[str], dict[str, int]]]:
    """The factory's autotune space, each config with the comment lines above it: each
    source config's block sizes, threads and stages, then the source's TMA-sized dot tiles at
    :data:`_TMA_STAGES` stages where the source pipelined them less deep, then large tiles
    with the swizzle panel :data:`_PANEL` where the source grouped its programs otherwise."""
    kinds = {t.name: t.kind for t in kernel.tunables}
    out: list[dict[str, int]] = []
    for config in kernel.configs:
        entry: dict[str, int] = {}
        for name, value in config:
            kind = kinds.get(name)
            if kind in ("block_size", "int"):
                entry[name] = value
            elif kind == "num_warps":
                entry["threads"] = value * 32
            elif kind == "num_stages" and _has_dot(kernel):
                entry["num_stages"] = value
            elif kind == "group_size" and _grouped(kernel):
                entry[name] = value
        if entry not in out:
            out.append(entry)
    deeper: list[dict[str, int]] = []
    m, n = tma_tile or ("", "")
    for entry in out:
        stages = entry.get("num_stages")
        if m not in entry or n not in entry or stages is None or stages >= _TMA_STAGES:
            continue
        if entry[m] * entry[n] >= 128 * 128:
            variant = {**entry, "num_stages": _TMA_STAGES}
            if variant not in out and variant not in deeper:
                deeper.append(variant)
    panels: list[dict[str, int]] = []
    group = next((t.name for t in kernel.tunables if t.kind == "group_size"), None)
    if group is not None and _grouped(kernel):
        for entry in out + deeper:
            large = m in entry and n in entry and entry[m] * entry[n] >= 128 * 256
            variant = {**entry, group: _PANEL}
            if large and entry.get(group) != _PANEL and variant not in out + deeper + panels:
                panels.append(variant)
    notes: list[list[str]] = [[] for _ in out + deeper + panels]
    if deeper:
        notes[len(out)] = [
            "# TileLang pipelines TMA copies of large tiles deeper than Triton's cp.async:",
            f"# those tiles at {_TMA_STAGES} stages too (measured on the H100, 4096^3 fp16: 636",
            "# TFLOP/s at 3 stages, 668 at 4, for the hand-written 128x256x64 T.gemm).",
        ]
    if panels:
        notes[len(out) + len(deeper)] = [
            "# T.use_swizzle's panel is not Triton's GROUP_SIZE_M: large tiles with the panel",
            f"# of TileLang's own examples, {_PANEL}, too (measured on the H100, 4096^3 fp16:",
            "# 634 TFLOP/s at panel 8, 670 at 10, for the hand-written 128x256x64 T.gemm).",
        ]
    return list(zip(notes, out + deeper + panels))


#: The pipeline depth added for the source's TMA-sized dot tiles (see :func:`_autotune`).
_TMA_STAGES = 4
#: The swizzle panel added for large dot tiles (see :func:`_autotune`).
_PANEL = 10


def _grouped(kernel: ir.Kernel) -> bool:
    """Whether ``kernel`` keeps its source's grouped program order (``T.use_swizzle``): not
    under a persistent schedule, whose ``T.Persistent`` loop hands out the tiles itself."""
    return grouped_grid(kernel) and not (kernel.hints.schedule or "").startswith("persistent")


def _has_dot(kernel: ir.Kernel) -> bool:
    from translator.ir.visit import kernel_exprs

    return any(isinstance(e, ir.Dot) for e in kernel_exprs(kernel))


def _strided_param(name: str) -> str:
    """``name: T.StridedTensor(...)`` as a line of the prim_func's exploded signature (indented
    8), wrapped as ``ruff format`` wraps it where it is wider than 100 columns (the formatter
    leaves lines of an already exploded signature alone)."""
    args = [f"{name}_shape", f"{name}_strides", f"{name}_dtype"]
    line = f"{name}: T.StridedTensor({', '.join(args)})"
    if 8 + len(line) + 1 <= 100:
        return line
    if 12 + len(", ".join(args)) <= 100:
        return f"{name}: T.StridedTensor(\n            {', '.join(args)}\n        )"
    inner = "".join(f"\n            {a}," for a in args)
    return f"{name}: T.StridedTensor({inner}\n        )"
