"""Triton backend: IR kernels → ``@triton.jit`` kernels and the launches that run them.

Each IR kernel becomes one ``@triton.jit`` function (``templates/triton/kernel.py.j2``; its body
from :mod:`translator.dialects.triton.kernel`) with an ``@triton.autotune`` block built from the
kernel's configs (or, where the source had none, a small Hopper space by the roles of its
blocks: :mod:`translator.dialects.triton.tuning`). Each launch becomes
``kernel[grid](tensors, scalars, strides, BLOCK=...)`` in the carried host code: tensors are passed
as written at the site, with their strides and sizes.
"""

from __future__ import annotations

import dataclasses

from translator.dialects.common.backend import Backend
from translator.dialects.common.formatting import wrap_lines
from translator.dialects.common.host_code import HostPrinter, host_atom
from translator.dialects.common.passthrough import KernelCode, LaunchCode
from translator.dialects.triton.kernel import KernelEmitter
from translator.dialects.triton.pipelining import fewer_stages_for_squeezed_dots
from translator.dialects.triton.tuning import with_default_space
from translator.grammar import load_grammar
from translator.ir import nodes as ir
from translator.ir.aliasing import aliased_writes
from translator.ir.counters import seed_only_params
from translator.ir.passes import Pass
from translator.ir.transforms import squeeze_unit_tiles, unit_block_tiles
from translator.ir.verifier import verify_kernel
from translator.ir.visit import (
    access_full_extents,
    has_loops,
    kernel_exprs,
    walk_expr,
    walk_stmts,
)
from translator.rendering import render_template


class TritonBackend(Backend):
    """Writes kernels as ``@triton.jit`` functions and launches as ``kernel[grid](...)``."""

    name = "triton"

    def __init__(self) -> None:
        self._plans: dict[str, tuple[ir.Kernel, KernelEmitter, dict | None]] = {}

    def passes(self) -> list[Pass]:
        return [
            Pass(
                "tuning-space",
                "a kernel whose source gave no configs gets an autotune space by the roles of its "
                "block sizes (dot tiles, rows, reductions, elementwise tiles), warps and stages",
                with_default_space,
            ),
            Pass(
                "squeeze-unit-tiles",
                "grid tiles whose block is 1 in every config (batch, heads) become plain indices, "
                "so 3-D tiles and batched dots are 2-D; such dots get one pipeline stage fewer",
                _squeeze,
            ),
        ]

    def kernel_code(self, kernel: ir.Kernel, module: ir.Module) -> KernelCode:
        code, plan = _kernel_code(kernel, module)
        self._plans[kernel.name] = plan
        return code

    def launch_code(self, kernel: ir.Kernel, launch: ir.Launch, module: ir.Module) -> LaunchCode:
        if kernel.name not in self._plans:
            self.kernel_code(kernel, module)
        return _launch_code(*self._plans[kernel.name], launch)


def emit(module: ir.Module) -> str:
    """The Triton translation of ``module`` (verified first): its carried host code with each
    kernel defined and launched in Triton."""
    return TritonBackend().emit(module)


_NOTES = "triton.notes"


def _squeeze(kernel: ir.Kernel) -> ir.Kernel:
    """Block-1 grid dims (batch, heads) as plain indices: 2-D tiles and dots are far faster
    (measured); a batched dot squeezed so keeps its shared memory with one stage fewer."""
    squeezed = squeeze_unit_tiles(kernel, unit_block_tiles(kernel))
    squeezed, notes = fewer_stages_for_squeezed_dots(kernel, squeezed)
    if not notes:
        return squeezed
    hints = dataclasses.replace(squeezed.hints, extras=(*squeezed.hints.extras, (_NOTES, notes)))
    return dataclasses.replace(squeezed, hints=hints)


def _kernel_code(kernel: ir.Kernel, module: ir.Module | None = None) -> tuple[KernelCode, tuple]:
    squeezed = kernel
    notes = tuple(kernel.hints.extra(_NOTES, ()))  # type: ignore[arg-type]
    verify_kernel(squeezed)
    emitter = KernelEmitter(squeezed, module)
    body = emitter.body()
    sig = emitter.sig
    params = [f"{t}_ptr" for t in sig.tensors]
    static = _static_sizes(squeezed, sig)
    params += [f"{p}: tl.constexpr" if p in static else p for p, _ in sig.scalars]
    params += [p for p, _, _ in sig.strides]
    params += [f"{p}: tl.constexpr" for p, _ in sig.constexprs]
    autotune = _autotune(squeezed, emitter, module)
    text = render_template(
        "triton",
        "kernel.py.j2",
        name=squeezed.name,
        params=params,
        body=body,
        autotune=autotune,
        comments=notes,
        docstring=squeezed.docstring,
        spell=load_grammar("triton")["backend"]["kernel"],
    )
    text = "\n".join(wrap_lines(text.splitlines())) + "\n"
    imports: tuple[str, ...] = ("import math",) if "math." in text else ()
    if "libdevice." in text:
        # libdevice.pow / libdevice.log1p: exact where a tl formula is not.
        imports += (load_grammar("triton")["backend"]["kernel"]["libdevice_import"],)
    return KernelCode(text, imports), (squeezed, emitter, autotune)


def _static_sizes(kernel: ir.Kernel, sig) -> set[str]:
    """The size parameters a kernel compiled per shape (the source's ``static_shapes``) takes as
    ``tl.constexpr``: the extents of its loops and of its whole-dim tiles, so that Triton, like
    the source's compiler, folds the bounds masks of a row or a K loop that its blocks divide
    (measured on an H100: a layer-norm backward 0.86x -> 1.00x of Helion, a matmul 0.74x ->
    1.02x). Grid extents stay runtime values: a new batch size does not recompile."""
    if kernel.hints.static_shapes is not True:
        return set()
    extents = [
        t.extent for s in walk_stmts(kernel.body) if isinstance(s, ir.TileLoop) for t in s.tiles
    ]
    extents += access_full_extents(kernel.body)
    named: set[str] = set()
    for extent in extents:
        for e in walk_expr(extent):
            if isinstance(e, ir.Name):
                named.add(e.id)
            elif isinstance(e, ir.SizeOf):
                named.add(f"{e.tensor}_size{e.dim}")
    return named & _size_params(kernel, sig)


def _launch_code(
    kernel: ir.Kernel, emitter: KernelEmitter, autotune: dict | None, launch: ir.Launch
) -> LaunchCode:
    """``kernel[grid](...)`` for one launch: the kernel's values spelt at the launch site."""
    sig = emitter.sig
    texts = {p.name: t for p, t in zip(kernel.params, launch.texts)}
    hx = _host_printer(texts)
    grid_terms = []
    tunable_consts = {const: tunable for tunable, const in sig.tunable_params.items()}
    for t in kernel.grid:
        extent = hx(t.extent) if t.begin is None else (f"{hx(t.extent, 9)} - {hx(t.begin, 10)}")
        if t.scalar:
            grid_terms.append(extent)
        elif isinstance(t.block, str):
            grid_terms.append(f'triton.cdiv({extent}, meta["{sig.tunable_params[t.block]}"])')
        else:
            grid_terms.append(f"triton.cdiv({extent}, {t.block.value})")
    if (kernel.hints.schedule or "flat") == "xyz" and len(kernel.grid) > 1:
        grid = "(" + ", ".join(grid_terms) + ")"
    else:
        grid = "(" + " * ".join(grid_terms) + ",)"
    args = [texts[t] for t in sig.tensors]
    args += [hx(value) for _, value in sig.scalars]
    args += [f"{host_atom(texts[t])}.stride({d})" for _, t, d in sig.strides]
    for const, value in sig.constexprs:
        if value is not None:
            args.append(f"{const}={hx(value)}")
        elif autotune is None and const in tunable_consts:
            args.append(f"{const}={kernel.tunable(tunable_consts[const]).default}")
    if autotune is None:
        for knob in _KNOBS if has_loops(kernel) else ("num_warps",):
            if any(t.name == knob for t in kernel.tunables):
                args.append(f"{knob}={kernel.tunable(knob).default}")
    prelude: tuple[str, ...] = ()
    if "meta[" in grid:
        # The grid reads the block sizes the autotuner picked from `meta`.
        prelude = (f"def grid(meta):\n    return {grid}",)
        grid = "grid"
    imports = ("import math",) if hx.uses_math else ()
    return LaunchCode(f"{kernel.name}[{grid}]({', '.join(args)})", prelude, imports=imports)


def _host_printer(texts: dict[str, str]) -> HostPrinter:
    g = load_grammar("triton")["backend"]
    return HostPrinter(texts, calls=g["scalar_pointwise"], dtypes=g["host_dtypes"])


def _autotune(
    kernel: ir.Kernel, emitter: KernelEmitter, module: ir.Module | None = None
) -> dict | None:
    """The ``@triton.autotune`` block of the kernel's configs (the source's, or the space the
    ``tuning-space`` pass gave a configless kernel); ``num_stages`` only where the kernel loops,
    the only place pipelining acts."""
    sig = emitter.sig
    if not kernel.configs:
        return None
    knob_names = _KNOBS if has_loops(kernel) else ("num_warps",)
    rendered = []
    seen = set()
    for config in kernel.configs:
        c = dict(config)
        meta = {sig.tunable_params[t]: c[t] for t in sig.tunable_params if t in c}
        knobs = {k: c[k] for k in knob_names if k in c}
        key = (tuple(meta.items()), tuple(knobs.items()))
        if key in seen:
            continue
        seen.add(key)
        rendered.append({"meta": meta, "knobs": knobs})
    keys = [p for p, _ in sig.scalars if p in _size_params(kernel, sig)]
    # Triton's autotuner times each config on the launch's own tensors: a kernel that updates
    # a tensor (atomics, or a read then a write of it) would leave it updated once per timed
    # run. `restore_value` puts them back after each (what the other DSLs' tuners do by
    # running trials on copies). So too a written tensor a launch passes as another parameter
    # as well (`affine(x, x)`): the kernel reads and writes it through two pointers.
    zeroed = set(kernel.hints.extra("triton.reset_to_zero", ()))  # type: ignore[arg-type]
    restored = updated_tensors(kernel) | set(kernel.hints.extra("triton.restore_value", ()))  # type: ignore[arg-type]
    if module is not None:
        restored |= aliased_writes(kernel, module)
    tuned = len(rendered) > 1
    return {
        "configs": rendered,
        "key": keys,
        # The source's zeroing stays zeroing (Triton zeroes once more after the search).
        "reset": [f"{t}_ptr" for t in sig.tensors if t in zeroed] if tuned else [],
        "restore": [f"{t}_ptr" for t in sig.tensors if t in restored - zeroed] if tuned else [],
    }


def updated_tensors(kernel: ir.Kernel) -> set[str]:
    """The tensor parameters ``kernel`` updates: combines into atomically, or reads and writes."""
    stmts = list(walk_stmts(kernel.body))
    atomic = {s.tensor for s in stmts if isinstance(s, ir.AtomicRMW)}
    stored = {s.tensor for s in stmts if isinstance(s, ir.Store)}
    loaded = {e.tensor for e in kernel_exprs(kernel) if isinstance(e, ir.Load)}
    return atomic | (stored & loaded)


_KNOBS = ("num_warps", "num_stages")


def _size_params(kernel: ir.Kernel, sig) -> set[str]:
    # Seeds are no sizes: a key on one would re-tune the kernel for every new seed.
    scalar_params = {p.name for p in kernel.params if p.kind in ("float", "bool")}
    scalar_params |= seed_only_params(kernel)
    return {p for p, _ in sig.scalars if p not in scalar_params}
