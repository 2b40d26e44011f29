"""Helion backend: IR kernels → ``@helion.kernel`` functions and the calls that launch them.

Each IR kernel becomes one ``@helion.kernel`` function taking the kernel's tensors and scalars:
its grid a top-level ``hl.tile``/``hl.grid`` loop, its tunables and configs
``helion.Config(block_sizes=..., num_warps=..., num_stages=...)`` in Helion's block numbering
(:mod:`.configs`), statements from :mod:`.kernel_writer`. A launch becomes a call of it with the
arguments as the carried host code spells them: Helion kernels write into the tensors they are
passed, as the source's kernel did. The definition skeleton (decorator, signature) comes from
``templates/helion/kernel.py.j2``.
"""

from __future__ import annotations

import dataclasses

from translator.diagnostics import TranslationError
from translator.dialects.common.backend import Backend
from translator.dialects.common.formatting import MAX_LINE, wrap_lines
from translator.dialects.common.passthrough import KernelCode, LaunchCode
from translator.dialects.cst_utils import module_level_names, parsed
from translator.dialects.helion.configs import BlockPlan, config_texts, kernel_names, plan_blocks
from translator.dialects.helion.kernel_writer import Writer
from translator.dialects.helion.rebinding import separate_host_values, while_carried
from translator.grammar import load_grammar
from translator.ir import nodes as ir
from translator.ir.passes import Pass
from translator.ir.renaming import rename
from translator.ir.shapes import TypeEnv, kernel_env
from translator.ir.single_tile import fuse_tile_walks
from translator.ir.verifier import verify_kernel
from translator.ir.visit import kernel_exprs, map_bodies, walk_expr, walk_stmts
from translator.naming import unique
from translator.rendering import render_template

# Names the emitted module imports; IR names must not shadow them.
_RESERVED = {"torch", "helion", "hl", "math"}
_ANNOTATIONS = {
    "tensor": "torch.Tensor",
    "int": "int",
    "float": "float",
    "bool": "bool",
    "str": "str",
}


class HelionBackend(Backend):
    """Writes kernels as ``@helion.kernel`` functions and launches as calls of them."""

    name = "helion"

    def passes(self) -> list[Pass]:
        return [
            Pass(
                "fuse-tile-walks",
                "a loop over tile ids around the one tile each id names (a stream-K program's "
                "K iterations of one tile) becomes the loop over those tiles between the bounds "
                "they cover: Helion's hl.tile(begin, end)",
                _fuse_tile_walks,
            )
        ]

    def imports(self, module: ir.Module) -> tuple[str, ...]:
        return (*super().imports(module), "import torch")

    def kernel_code(self, kernel: ir.Kernel, module: ir.Module) -> KernelCode:
        verify_kernel(kernel)
        return _kernel_code(_apart_from_module(kernel, module))

    def launch_code(self, kernel: ir.Kernel, launch: ir.Launch, module: ir.Module) -> LaunchCode:
        notes = ()
        if launch.tuned:
            passed = ", ".join(f"`{t}`" for t in launch.tuned)
            notes = (
                f"tiletrans: the source launch's {passed}: block sizes and launch knobs are "
                "the kernel's config here",
            )
        return LaunchCode(f"{kernel.name}({', '.join(launch.texts)})", notes=notes)


def emit(module: ir.Module) -> str:
    """The Helion translation of ``module`` (verified first).

    Raises :class:`~translator.diagnostics.TranslationError` for IR that Helion cannot express
    exactly (see :mod:`.boundary`).
    """
    return HelionBackend().emit(module)


def _fuse_tile_walks(kernel: ir.Kernel) -> ir.Kernel:
    return dataclasses.replace(kernel, body=fuse_tile_walks(kernel.body))


def _module_names(module: ir.Module) -> set[str]:
    """The names the translated module binds at its top level: its host functions and kernels,
    and the carried source's (its parse is the frontend's, cached)."""
    names = {e.name for e in module.entries} | {k.name for k in module.kernels}
    if module.host is not None:  # parsed by the frontend already: it parses
        names |= module_level_names(parsed(module.host.source).module)
    return names


def _apart_from_module(kernel: ir.Kernel, module: ir.Module) -> ir.Kernel:
    """``kernel`` with its device locals renamed apart from the module's top-level names: Helion
    reads a name the module binds as a host variable, which device code may not assign
    ("Cannot modify host variable 'decay'": a Triton kernel's local named after its wrapper)."""
    outer = _module_names(module) - {p.name for p in kernel.params}
    bound = {s.target for s in walk_stmts(kernel.body) if isinstance(s, ir.Assign)}
    clash = sorted(bound & outer)
    if not clash:
        return kernel
    taken = kernel_names(kernel) | outer
    mapping = {name: unique(f"{name}_value", taken) for name in clash}
    return dataclasses.replace(kernel, body=rename(kernel.body, mapping))  # type: ignore[arg-type]


def _distinct_loop_tiles(kernel: ir.Kernel) -> ir.Kernel:
    """``kernel`` with a fresh name for each loop tile that reuses an earlier tile's name (one
    loop per branch of an ``if``) where a block is computed from a size: Helion gives such a
    block one id per loop, and one loop variable of two ids does not merge where the branches
    meet (TileIndexType mismatch in control flow); registered blocks share one id."""
    if not any(t.fit for t in kernel.tunables):
        return kernel
    seen = {t.name for t in kernel.grid}
    taken = kernel_names(kernel)

    def walk(stmts: tuple[ir.Stmt, ...]) -> tuple[ir.Stmt, ...]:
        out: list[ir.Stmt] = []
        for s in stmts:
            if isinstance(s, ir.TileLoop):
                mapping = {t.name: unique(t.name, taken) for t in s.tiles if t.name in seen}
                seen.update(mapping.get(t.name, t.name) for t in s.tiles)
                if mapping:
                    s = rename(s, mapping)  # type: ignore[assignment]
            out.append(map_bodies(s, walk))
        return tuple(out)

    return dataclasses.replace(kernel, body=walk(kernel.body))


def _kernel_code(kernel: ir.Kernel) -> KernelCode:
    kernel = _distinct_loop_tiles(kernel)
    taken = kernel_names(kernel)
    clash = sorted(taken & _RESERVED)
    if clash:
        raise TranslationError(
            f"`{kernel.name}` binds {', '.join(f'`{c}`' for c in clash)}, which the Helion "
            "module needs for its imports",
            kernel.loc,
            "rename the variable in the source",
        )
    plan = plan_blocks(kernel)
    env = kernel_env(kernel)
    lang = load_grammar("helion")["backend"]["language"]
    writer = Writer(kernel, env, plan, taken, device=False)
    body: list[str] = []
    scalar = load_grammar("helion")["backend"]["scalar_pointwise"]
    for name, extent, cap in plan.fitted:
        # `min(cap, next_power_of_2(n))` as the source computes it; specialised, so that the
        # block is a compile-time constant of each size.
        size = scalar["next_power_of_2"].format(f"{lang['specialize']}({writer.text(extent)})")
        body.append(f"{name} = {scalar['minimum'].format(cap, size)}")
    for name, extent in plan.registered:
        body.append(f"{name} = {lang['register_block_size']}({writer.text(extent)})")
    fragments: set[str] = set()
    for t in kernel.tunables:
        if t.kind == "int":
            fragment, args = fragment_call(t)
            fragments.add(fragment)
            body.append(f'{t.name} = {lang["register_tunable"]}("{t.name}", {fragment}({args}))')
    body.extend(_loop_lines(kernel, env, plan, taken, writer))
    params = []
    shaped = _shape_params(kernel)
    for p in kernel.params:
        # Helion specialises on a `str` already; an int it must know is an hl.constexpr, and so
        # is a compile-time bool flag (a branch it turns off is then not traced, so it may
        # write a tensor the host passes as None, as Triton's constexpr flags allow).
        constexpr = (p.kind == "int" and (p.constexpr or p.name in shaped)) or (
            p.kind == "bool" and p.constexpr
        )
        params.append(f"{p.name}: {lang['constexpr'] if constexpr else _ANNOTATIONS[p.kind]}")
    text = render_template(
        "helion",
        "kernel.py.j2",
        name=kernel.name,
        params=params,
        docstring=kernel.docstring,
        body=body,
        **_decorator(kernel, plan),
    )
    text = "\n".join(wrap_lines(text.splitlines())) + "\n"
    imports = ("import math",) if writer.needs_math else ()
    if fragments:
        imports += (f"from helion.autotuner import {', '.join(sorted(fragments))}",)
    return KernelCode(text, imports)


def fragment_call(tunable: ir.Tunable) -> tuple[str, str]:
    """The ``helion.autotuner`` fragment of an ``int`` tunable's space, and its arguments
    (Helion's default is a fragment's low bound, or its first choice)."""
    if tunable.space == "boolean":
        return "BooleanFragment", ""
    if tunable.space in ("power_of_two", "integer") and tunable.bounds is not None:
        lo, hi = tunable.bounds
        cls = "PowerOfTwoFragment" if tunable.space == "power_of_two" else "IntegerFragment"
        default = f", {tunable.default}" if tunable.default != lo else ""
        return cls, f"{lo}, {hi}{default}"
    choices = [tunable.default, *(c for c in tunable.values() if c != tunable.default)]
    spelt = ", ".join(str(c) for c in choices)
    return "EnumFragment", f"({spelt},)" if len(choices) == 1 else f"({spelt})"


def _shape_params(kernel: ir.Kernel) -> set[str]:
    """Scalar parameters that size a tile (``hl.zeros([tile_m, HEAD_DIM])``, ``x[i, :n]``):
    Helion needs them known when it compiles, so they are ``hl.constexpr`` (a tensor's size would
    be too)."""
    scalars = {p.name for p in kernel.params if p.kind == "int"}
    out: set[str] = set()
    for e in kernel_exprs(kernel):
        dims: tuple[ir.Dim, ...] = ()
        if isinstance(e, (ir.Full, ir.Reshape, ir.Broadcast)):
            dims = e.shape
        elif isinstance(e, ir.Arange):
            dims = (e.dim,)
        for d in dims:
            if isinstance(d, ir.FullDim):
                out |= {x.id for x in walk_expr(d.extent) if isinstance(x, ir.Name)} & scalars
    # A slice bound (`x[i, :n]`, see ir.Kernel.partial_dims) sizes the sliced tile too.
    for test in kernel.partial_dims:
        out |= {x.id for x in walk_expr(test) if isinstance(x, ir.Name)} & scalars
    return out


def _loop_lines(
    kernel: ir.Kernel,
    env: TypeEnv,
    plan: BlockPlan,
    taken: set[str],
    host_writer: Writer,
) -> list[str]:
    """The top-level loop of ``kernel`` and its body (unindented; the template indents)."""
    # Device rebindings of host values: fresh names, or 0-d tensors (Helion refuses them as is).
    kernel, force = separate_host_values(kernel, env, taken)
    force = {**while_carried(kernel, env), **force}
    while True:
        writer = Writer(kernel, env.child(), plan, set(taken))
        writer.force_tensor = force
        writer.indent = 0
        names = writer.bind_tiles(kernel.grid)
        # The loop header reads host names only; write it with the tiles not yet in scope.
        header = Writer(kernel, env, plan, taken).loop_header(kernel.grid, names)
        writer.lines.append(header + ":")
        writer.block(kernel.body)
        if not writer.became_tensor.keys() - force.keys():
            break
        # Numbers that later hold tensors: bind them as 0-d tensors from the start.
        force = {**force, **writer.became_tensor}
    taken |= writer.taken
    host_writer.needs_math = host_writer.needs_math or writer.needs_math
    return writer.lines


def _dot_precision(kernel: ir.Kernel) -> tuple[str, str] | None:
    """The kernel setting (name, value) that gives its dots their input precision, where that
    is not Helion's default. The setting holds for every dot of a kernel (``hl.dot`` takes no
    precision of its own), so dots that differ are refused."""
    spec = load_grammar("helion")["backend"]["kernel"]
    dots = [e for e in kernel_exprs(kernel) if isinstance(e, ir.Dot) and e.precision is not None]
    for dot in dots[1:]:
        if dot.precision != dots[0].precision:
            raise TranslationError(
                f"this dot multiplies float32 operands as {dot.precision}, an earlier one of "
                f"`{kernel.name}` as {dots[0].precision}; Helion's `{spec['dot_precision_setting']}`"
                " setting holds for every dot of a kernel",
                dot.loc,
                "give the source's dots one input precision, or put them in separate kernels",
            )
    if not dots or dots[0].precision == spec["dot_precision"]:
        return None
    return spec["dot_precision_setting"], str(dots[0].precision)


def _needs_static_shapes(kernel: ir.Kernel) -> bool:
    """Whether Helion compiles the kernel only at static shapes: it allocates or counts over a
    whole dim of a tensor (``hl.zeros([tile, q.size(2)])``, ``hl.arange(n)``: dynamic shapes
    refuse that allocation until the size is specialised), or it has a ``while`` loop (Helion
    1.5.1's dynamic-shape code for a stream-K loop fails to trace: "cannot convert [False] to
    tensor", measured under the interpreter)."""
    if any(isinstance(s, ir.While) for s in walk_stmts(kernel.body)):
        return True
    for e in kernel_exprs(kernel):
        dims = e.shape if isinstance(e, ir.Full) else (e.dim,) if isinstance(e, ir.Arange) else ()
        if any(isinstance(d, ir.FullDim) for d in dims):
            return True
    return False


def _decorator(kernel: ir.Kernel, plan: BlockPlan) -> dict:
    """The ``@helion.kernel(...)`` arguments: on one line if they fit, else one per line."""
    args = []
    hints = kernel.hints
    static = hints.static_shapes
    if static is False and _needs_static_shapes(kernel):
        # A source compiled once for every shape (Triton) keeps Helion's static shapes where
        # Helion compiles it only so (a whole-dim allocation, a while loop).
        static = None
    if static is not None:
        args.append(f"static_shapes={bool(static)}")
    if hints.fast_math:
        # The source computed exp/log/... with fast approximations (Triton's tl.exp): Helion's
        # fast_math uses the same ones instead of libdevice's exact-rounding calls.
        args.append("fast_math=True")
    if hints.index_bits == 64:
        # The source kept its offsets in 64 bits; Helion's default int32 flat per-lane offsets
        # were slower at wide rows (measured: benchmarks.gpu_gap_probe --part ce).
        args.append("index_dtype=torch.int64")
    precision = _dot_precision(kernel)
    if precision is not None:
        args.append(f'{precision[0]}="{precision[1]}"')
    configs = config_texts(kernel, plan)
    decorator = load_grammar("helion")["backend"]["kernel"]["decorator"]
    out = {"decorator": decorator, "args": args, "configs": configs}
    if not configs:
        return {**out, "inline": ", ".join(args)}
    if len(configs) == 1:
        inline = ", ".join([*args, f"config={configs[0]}"])
        if len(f"@{decorator}({inline})") <= MAX_LINE:
            return {**out, "inline": inline}
    return {**out, "inline": None}
