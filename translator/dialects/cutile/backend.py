"""cuTile backend: IR kernels → ``@ct.kernel`` functions and ``ct.launch`` calls.

Each IR kernel becomes one ``@ct.kernel`` function (``templates/cutile/kernel.py.j2``; its body
from :mod:`translator.dialects.cutile.kernel`) taking the IR kernel's parameters, then one
``ct.Constant[int]`` per tile size and per whole-dim tile. Each tile size is rounded up to a power
of two (cuTile's tiles are powers of two; lanes past the extent are padding either way). Launch
knobs that cuTile's compiler decides itself (warps, pipeline stages) are dropped with a note; a
source's grouped tile order (a ``group_size`` over a 2-D grid of tiles) is written as cuTile's
samples write it, one flat block id mapped to a row and a column tile, its group size a
``ct.Constant[int]`` searched with the tile sizes. Each launch becomes ``ct.launch(torch.cuda.current_stream(), grid, kernel, args)`` in
the carried host code.

Tuning: cuTile has no autotuner in the kernel decorator; its idiom is host code that calls
``ct.tune.exhaustive_search`` over a list of configs once per shape key, caches the best config,
and launches with it. A kernel with a tuning space (several source configs, an autotuned Triton
kernel's; or none at all, a configless Helion kernel's, which gets the space of
``[backend.default_space]`` for the roles of its blocks) gets that: ``<KERNEL>_CONFIGS`` and a
cache after the kernel, and at each launch the search-once-then-launch statements. A kernel with
one config launches with it.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from translator.diagnostics import TranslationError
from translator.dialects.common.backend import Backend
from translator.dialects.common.formatting import wrap_lines
from translator.dialects.common.host_code import HostPrinter, host_atom
from translator.dialects.common.passthrough import KernelCode, LaunchCode
from translator.dialects.cutile.kernel import KernelWriter, grouped, persistent
from translator.grammar import load_grammar
from translator.ir import nodes as ir
from translator.ir.ops import next_power_of_2
from translator.ir.passes import Pass
from translator.ir.roles import block_roles, one_row_tiles
from translator.ir.transforms import rows_per_block, squeeze_unit_tiles, unit_block_tiles
from translator.ir.verifier import verify_kernel
from translator.ir.visit import kernel_exprs, kernel_tiles, stmt_walk, walk_stmts, written_tensors
from translator.naming import constant_name
from translator.rendering import render_template

#: The host's name for the SM count a persistent launch sizes its grid by.
_SMS = "num_sms"

#: Tunable kinds cuTile's compiler decides itself: dropped from the translation.
_DROPPED_KNOBS = ("num_warps", "num_stages", "group_size")


class CutileBackend(Backend):
    """Writes kernels as ``@ct.kernel`` functions and launches as ``ct.launch(...)``."""

    name = "cutile"

    def __init__(self) -> None:
        self._writers: dict[str, KernelWriter] = {}

    def passes(self) -> list[Pass]:
        return [
            Pass(
                "rows-per-block",
                "a row kernel's one row per program (a plain row index) becomes a tile of ROWS "
                "rows: cuTile's compiler handles a 2-D (ROWS, BLOCK_N) tile far better than a "
                "whole row per block",
                with_rows_per_block,
            ),
            Pass(
                "tuning-space",
                "a kernel whose source gave no configs gets the tile sizes ct.tune searches, by "
                "the roles of its block sizes (dot tiles, rows, reductions, elementwise tiles)",
                with_default_space,
            ),
            Pass(
                "dot-space",
                "a dot or element-wise kernel's source configs are searched together with "
                "cuTile's own tiles for its roles ([backend.default_space]): a tile chosen for "
                "another compiler's warp count can be 13x slower in cuTile (GEMM 128x256x64: 46 "
                "TFLOP/s, 128x128x64: 595), and an element-wise 64x128 tile of fp32 math 1.3x "
                "slower than 32x128",
                with_dot_space,
            ),
            Pass(
                "row-space",
                "the row tile of a row kernel is searched over [backend.row_space] row counts, "
                "each with the source's other tile sizes (a row count chosen for another "
                "compiler is no choice for cuTile's)",
                with_row_space,
            ),
            Pass(
                "squeeze-unit-tiles",
                "grid tiles whose block is 1 in every config (batch, heads, one row) become "
                "plain indices, so tiles and dots are 2-D (ct.mma's fast form)",
                lambda k: squeeze_unit_tiles(k, unit_block_tiles(k)),
            ),
        ]

    def kernel_code(self, kernel: ir.Kernel, module: ir.Module) -> KernelCode:
        verify_kernel(kernel)
        writer = KernelWriter(kernel, module)
        body = writer.body()
        self._writers[kernel.name] = writer
        spell = load_grammar("cutile")["backend"]["kernel"]
        params = [p.name if p.kind == "tensor" else f"{p.name}: {p.kind}" for p in kernel.params]
        params += [f"{name}: {spell['config']}[int]" for name, _ in writer.sig.blocks]
        params += [f"{name}: {spell['config']}[int]" for name, _ in writer.sig.full]
        params += [f"{name}: {spell['config']}[int]" for name, _ in writer.sig.knobs]
        params += [f"{name}: {spell['config']}[bool]" for name, _ in writer.sig.switches]
        text = render_template(
            "cutile",
            "kernel.py.j2",
            name=kernel.name,
            params=params,
            body=body,
            comments=_notes(kernel, launch_space(kernel, writer, module)[0]),
            docstring=kernel.docstring,
            spell=spell,
        )
        space, _ = launch_space(kernel, writer, module)
        if len(space) > 1:
            text += "\n\n" + _space_definitions(kernel, space)
        return KernelCode("\n".join(wrap_lines(text.splitlines())) + "\n")

    def launch_code(self, kernel: ir.Kernel, launch: ir.Launch, module: ir.Module) -> LaunchCode:
        if kernel.name not in self._writers:
            self.kernel_code(kernel, module)
        writer = self._writers[kernel.name]
        texts = {p.name: t for p, t in zip(kernel.params, launch.texts)}
        g = load_grammar("cutile")["backend"]
        hx = HostPrinter(texts, calls=g["scalar_pointwise"], dtypes=g["host_dtypes"])
        config = dict(kernel.configs[0]) if kernel.configs else {}
        blocks: dict[str, int | str] = {
            name: _block_value(kernel, name, config) for _, name in writer.sig.blocks
        }
        blocks.update({name: _knob_value(kernel, name, config) for _, name in writer.sig.knobs})
        for name, text in launch.block_texts:
            # A size the source's host computes (`min(C, next_power_of_2(n))`) is passed as the
            # source passes it, not baked as the default config's value; a literal is the
            # config's own value either way.
            if name in blocks and not text.strip().isdigit():
                blocks[name] = text
        notes = []
        sms = _fresh(_SMS, module, same=".multi_processor_count")
        # A tile size the source's host computes is no tunable at this launch: it is passed
        # (to every trial of a search over the others).
        space, host_sized = launch_space(kernel, writer, module)
        if len(space) > 1:
            cfg = _fresh("cfg", module)
            key = _fresh("key", module)
            tuned = {
                name: str(blocks[t]) if t in host_sized else f'{cfg}["{name}"]'
                for name, t in writer.sig.blocks
            }
            tuned.update({name: f'{cfg}["{name}"]' for name, _ in writer.sig.knobs})
            tuned.update({name: f'{cfg}["{name}"]' for name, _ in writer.sig.switches})
            prelude = _sms(kernel, launch, sms) + _search(
                kernel, writer, hx, launch.texts, tuned, cfg, key, sms, space
            )
            call = _launch_call(
                kernel, writer, hx, launch.texts, tuned, sms, _kernel_ref(kernel, space, cfg)
            )
            notes.extend(_dropped(kernel))
            imports = ("import math",) if hx.uses_math else ()
            return LaunchCode(call, prelude, notes=tuple(notes), imports=("import torch", *imports))
        call = _launch_call(
            kernel,
            writer,
            hx,
            launch.texts,
            {name: str(blocks[t]) for name, t in [*writer.sig.blocks, *writer.sig.knobs]},
            sms,
        )
        prelude = _sms(kernel, launch, sms)
        notes.extend(_dropped(kernel))
        rounded = [
            f"{name} {config.get(name, kernel.tunable(name).default)} -> {value}"
            for name, value in blocks.items()
            if isinstance(value, int) and value != config.get(name, kernel.tunable(name).default)
        ]
        if rounded:
            notes.append(f"tile sizes rounded up to powers of two: {', '.join(rounded)}")
        imports = ("import math",) if hx.uses_math else ()
        return LaunchCode(call, prelude, notes=tuple(notes), imports=("import torch", *imports))


def _sms(kernel: ir.Kernel, launch: ir.Launch, name: str) -> tuple[str, ...]:
    """The statement that reads the SM count a persistent launch sizes its grid by."""
    if not persistent(kernel):
        return ()
    tensor = next(t for p, t in zip(kernel.params, launch.texts) if p.kind == "tensor")
    return (
        f"{name} = torch.cuda.get_device_properties({host_atom(tensor)}.device)"
        ".multi_processor_count",
    )


def _dropped(kernel: ir.Kernel) -> list[str]:
    """The notes on launch knobs and hints the translation drops, if the kernel has any."""
    notes = []
    dropped = [
        t.name
        for t in kernel.tunables
        if t.kind in _DROPPED_KNOBS and not (t.kind == "group_size" and grouped(kernel))
    ]
    if dropped:
        what = "warps and stages" if grouped(kernel) else "warps, stages and tile order"
        notes.append(f"{', '.join(dropped)}: cuTile's compiler picks {what} itself")
    schedule = kernel.hints.schedule or ""
    if schedule.startswith("persistent") and not persistent(kernel):
        # Said, not silently dropped: the source's programs looped over tiles.
        notes.append(
            f"the source's {schedule} schedule over a {len(kernel.grid)}-D grid is written one "
            "block per tile (cuTile persistent loops here cover 1-D grids)"
        )
    return notes


def _launch_call(
    kernel: ir.Kernel,
    writer: KernelWriter,
    hx: HostPrinter,
    texts: tuple[str, ...],
    blocks: dict[str, str],
    sms: str = _SMS,
    kernel_ref: str | None = None,
) -> str:
    """``ct.launch(stream, grid, kernel, args)`` with tile sizes spelt ``blocks[constant]``
    (the kernel spelt ``kernel_ref``: a tuned launch's variant for its config's hint)."""
    g = load_grammar("cutile")["backend"]["kernel"]
    return (
        f"{g['launch']}({g['stream']}, {_grid(kernel, writer, hx, blocks, sms)}, "
        f"{kernel_ref or kernel.name}, {_args(writer, hx, list(texts), blocks)})"
    )


def _grid(
    kernel: ir.Kernel,
    writer: KernelWriter,
    hx: HostPrinter,
    blocks: dict[str, str],
    sms: str = _SMS,
) -> str:
    """The launch grid: one program per tile of each grid dim, padded to three dims."""
    constants = {tunable: name for name, tunable in writer.sig.blocks}
    grid = []
    for t in kernel.grid:
        extent = hx(t.extent)
        if t.scalar:
            grid.append(extent)
        else:
            block = blocks[constants[t.block]] if isinstance(t.block, str) else t.block.value
            grid.append(f"ct.cdiv({extent}, {block})")
    if persistent(kernel):
        # About one program per SM, each walking every num_blocks-th tile.
        grid = [f"min({sms}, {grid[0]})"]
    elif grouped(kernel):
        # One flat block id per output tile: the kernel orders the tiles in groups.
        grid = [" * ".join(grid)]
    grid += ["1"] * (3 - len(grid))
    return f"({', '.join(grid)})"


def _args(writer: KernelWriter, hx: HostPrinter, args: list[str], blocks: dict[str, str]) -> str:
    """The launch's argument tuple: the kernel's parameters, its tile sizes, its whole dims."""
    args = args + [blocks[name] for name, _ in writer.sig.blocks]
    args += [hx(ir.Call("next_power_of_2", (extent,))) for _, extent in writer.sig.full]
    args += [blocks[name] for name, _ in writer.sig.knobs]
    args += [blocks.get(name, repr(values[0])) for name, values in writer.sig.switches]
    return "(" + ", ".join(args) + ("," if len(args) == 1 else "") + ")"


def _search(
    kernel: ir.Kernel,
    writer: KernelWriter,
    hx: HostPrinter,
    texts: tuple[str, ...],
    tuned: dict[str, str],
    cfg: str,
    key: str,
    sms: str,
    space: list[dict[str, int]],
) -> tuple[str, ...]:
    """The statements before a tuned launch: on the first launch for a shape key, search the
    kernel's configs with ``ct.tune.exhaustive_search`` and cache the best; then pick it."""
    g = load_grammar("cutile")["backend"]["kernel"]
    params = {p.name: t for p, t in zip(kernel.params, texts)}
    written = written_tensors(kernel)
    # Trial launches write clones of what the kernel writes: the search leaves results alone
    # (an accumulating or in-place kernel would otherwise see its output run many times).
    trial = [f"{host_atom(t)}.clone()" if p in written else t for p, t in params.items()]
    key_items = [
        f"{host_atom(params[p.name])}.{attr}"
        for attr in ("shape", "dtype")
        for p in kernel.params
        if p.kind == "tensor"
    ]
    # Integer parameters may be sizes (a flattened length): they key the search too, as do
    # tile sizes the host computes (passed to every trial).
    key_items += [params[p.name] for p in kernel.params if p.kind == "int"]
    key_items += [v for v in tuned.values() if not v.startswith(f"{cfg}[") and not v.isdigit()]
    best = _best_name(kernel)
    grid = _grid(kernel, writer, hx, tuned, sms)
    kernel_arg = kernel.name
    if hint_of(space) is not None:
        kernel_arg = f"lambda {cfg}: {_kernel_ref(kernel, space, cfg)}"
    search = (
        f"{best}[{key}] = {g['search']}(\n"
        f"    {_configs_name(kernel)},\n"
        f"    {g['stream']},\n"
        f"    lambda {cfg}: {grid},\n"
        f"    {kernel_arg},\n"
        f"    lambda {cfg}: {_args(writer, hx, trial, tuned)},\n"
        f"    quiet=True,\n"
        f").best.config"
    )
    return (
        f"{key} = ({', '.join(key_items)}{',' if len(key_items) == 1 else ''})",
        f"if {key} not in {best}:\n" + _indent(search),
        f"{cfg} = {best}[{key}]",
    )


def _indent(text: str) -> str:
    return "\n".join("    " + line if line else line for line in text.splitlines())


def _fresh(name: str, module: ir.Module, same: str | None = None) -> str:
    """``name``, or a longer one where the carried host code already uses it (statements the
    translation removes, a source's own tuning code, do not count). Where every binding of
    ``name`` in the host holds ``same`` (``num_sms = ...multi_processor_count``), the host's
    name means what the translation's would: it is reused (the source's binding, then dead,
    goes)."""
    import re

    source = _carried_text(module)
    bindings = re.findall(rf"^\s*{name}\s*=(?!=)(.*)$", source, re.M)
    if same is not None and bindings and all(same in b for b in bindings):
        return name
    candidate = name
    while re.search(rf"\b{candidate}\b", source):
        candidate = f"tuned_{candidate}"
    return candidate


def _carried_text(module: ir.Module) -> str:
    """The host source without the statements its edits remove and the kernels they replace."""
    if module.host is None:
        return ""
    lines = module.host.source.splitlines()
    spans = [e.span for e in module.host.edits if e.kind in ("remove", "define") and e.span]
    spans += [site.span for site in module.host.sites]  # launches are rewritten too
    for span in spans:
        for i in range(span.start_line - 1, min(span.end_line, len(lines))):
            lines[i] = ""
    return "\n".join(lines)


def _configs_name(kernel: ir.Kernel) -> str:
    return f"{constant_name(kernel.name)}_CONFIGS"


def _best_name(kernel: ir.Kernel) -> str:
    return f"_{kernel.name.lstrip('_')}_best"


def _host_sized(kernel: ir.Kernel, module: ir.Module) -> set[str]:
    """The block-size tunables some launch of ``kernel`` passes as a size its host computes
    (``min(C, next_power_of_2(n))``) rather than a literal: the launch passes them, no search."""
    from translator.ir.visit import walk_stmts as walk

    out: set[str] = set()
    for entry in module.entries:
        for s in walk(entry.body):
            if isinstance(s, ir.Launch) and s.kernel == kernel.name:
                out |= {name for name, text in s.block_texts if not text.strip().isdigit()}
    return out


def launch_space(
    kernel: ir.Kernel, writer: KernelWriter, module: ir.Module
) -> tuple[list[dict[str, int]], set[str]]:
    """The configs a launch of ``kernel`` searches, and the block tunables it passes as the
    source's host computes them instead (:func:`_host_sized`, less the streaming chunks, which
    are searched: :func:`with_chunk_space`)."""
    host_sized = _host_sized(kernel, module)
    chunks = {t for t in host_sized if _streaming_chunk(kernel, t)}
    chunks = chunks if _host_only_launches(kernel, module, chunks) else set()
    tiles = _free_dot_tiles(kernel, module, host_sized)
    host_sized -= chunks | tiles
    space = tuning_space(kernel, writer, host_sized)
    space = with_dot_tile_space(space, kernel, writer, tiles)
    return with_chunk_space(space, writer, chunks), host_sized


def _free_dot_tiles(kernel: ir.Kernel, module: ir.Module, host_sized: set[str]) -> set[str]:
    """The tile sizes of a dot kernel that its source's host fixes (``BLOCK_M = 64`` beside the
    launch) and that any tile computes the same with: every dot role (``m``, ``n``, ``k``) of the
    kernel is one, and :func:`_host_only_launches` holds for them."""
    if not any(isinstance(e, ir.Dot) for e in kernel_exprs(kernel)):
        return set()
    roles = {t for t, r in block_roles(kernel).items() if r in ("m", "n", "k")}
    if not roles or not roles <= host_sized or not _host_only_launches(kernel, module, roles):
        return set()
    return roles


def _host_only_launches(kernel: ir.Kernel, module: ir.Module, tunables: set[str]) -> bool:
    """Whether another value of these host-computed tile sizes computes the same: no tile they
    size has its number or count read (which could index a buffer the host sized by them),
    and the host's IR reads the values they are passed as only in the launch."""
    tiles = {t.name for t in kernel_tiles(kernel) if t.block in tunables}
    for e in kernel_exprs(kernel):
        if isinstance(e, ir.TileAttr) and e.tile in tiles and e.attr in ("id", "count"):
            return False
    for entry in module.entries:
        # The host names the launches of this entry pass them as (names are the entry's own).
        stmts = list(walk_stmts(entry.body))
        texts = {
            text
            for s in stmts
            if isinstance(s, ir.Launch) and s.kernel == kernel.name
            for name, text in s.block_texts
            if name in tunables
        }
        for s in stmts:
            if not isinstance(s, ir.Launch) and any(
                isinstance(x, ir.Name) and x.id in texts for x in stmt_walk(s)
            ):
                return False
    return True


def with_dot_tile_space(
    space: list[dict[str, int]], kernel: ir.Kernel, writer: KernelWriter, tiles: set[str]
) -> list[dict[str, int]]:
    """``space`` with the dot tiles of :func:`_free_dot_tiles` searched over the
    ``[backend.default_space]`` entry for their roles (FlashAttention's ``m`` and ``k``), in
    that entry's order: the host's fixed tile was chosen for another compiler."""
    if not tiles:
        return space
    roles = {t: r for t, r in block_roles(kernel).items() if t in tiles}
    entry = _default_space(set(roles.values()), _SOURCE_SPACES)
    if entry is None:
        return space
    constants = {name: roles[t] for name, t in writer.sig.blocks if t in roles}
    out: list[dict[str, int]] = []
    for config in entry["configs"]:
        for base in space:
            candidate = {**base, **{name: config[role] for name, role in constants.items()}}
            if candidate not in out:
                out.append(candidate)
    return out


def _streaming_chunk(kernel: ir.Kernel, tunable: str) -> bool:
    """Whether block ``tunable`` sizes only the chunks of streaming-reduction loops (no dot in
    the kernel): a size any power of two computes the same sums with."""
    if block_roles(kernel).get(tunable) != "reduction":
        return False
    if any(t.block == tunable for t in kernel.grid):
        return False
    from translator.ir.visit import walk_stmts as walk

    loops = [t for s in walk(kernel.body) if isinstance(s, ir.TileLoop) for t in s.tiles]
    return any(t.block == tunable for t in loops) and all(
        t.begin is None and t.step is None for t in loops if t.block == tunable
    )


def with_chunk_space(
    space: list[dict[str, int]], writer: KernelWriter, chunks: set[str]
) -> list[dict[str, int]]:
    """``space`` with each streaming chunk a host computes searched over ``[backend.chunk_space]``
    (then at the source's own default, last): every config at each chunk size whose tile (the
    chunk times the config's other tile sizes, its rows) stays within ``max_tile_elements``."""
    constants = [name for name, t in writer.sig.blocks if t in chunks]
    if not constants:
        return space
    grammar = load_grammar("cutile")["backend"]["chunk_space"]
    blocks = {name for name, _ in writer.sig.blocks}
    for name in constants:
        out: list[dict[str, int]] = []
        for value in [*grammar["values"], None]:
            for entry in space:
                if value is None:
                    candidate = entry
                else:
                    candidate = {**entry, name: value}
                    tile = math.prod(v for k, v in candidate.items() if k in blocks)
                    if tile > grammar["max_tile_elements"]:
                        continue
                if candidate not in out:
                    out.append(candidate)
        space = out
    return space


def tuning_space(
    kernel: ir.Kernel,
    writer: KernelWriter,
    host_sized: set[str] = frozenset(),  # type: ignore[assignment]
) -> list[dict[str, int]]:
    """The configs a tuned launch searches: the kernel's configs as tile-size constant ->
    power-of-two value, knobs cuTile decides itself and sizes the host computes
    (``host_sized`` tunables) left out, duplicates dropped (first kept)."""
    out: list[dict[str, int]] = []
    for config in kernel.configs or ((),):
        c = dict(config)
        entry = {
            name: _block_value(kernel, t, c) for name, t in writer.sig.blocks if t not in host_sized
        }
        entry.update({name: _knob_value(kernel, t, c) for name, t in writer.sig.knobs})
        if entry not in out:
            out.append(entry)
    # Each switch of the spelling (TMA or not) doubles the space: every tile config with each
    # value, the first value first (the default, what the CPU oracle runs).
    for name, values in writer.sig.switches:
        out = [{**entry, name: v} for entry in out for v in values]
    out = [entry for entry in out if entry]
    return _with_hints(kernel, writer, out) if len(out) > 1 else out


def _with_hints(
    kernel: ir.Kernel, writer: KernelWriter, space: list[dict[str, int]]
) -> list[dict[str, int]]:
    """``space`` with the compiler hint ``[backend.hint_space]`` searches: each config as it is
    (the hint at its default), and right after it, where the kernel's kind searches the hint at
    that config (a dot kernel's output tile of so many elements, a row kernel's few rows), at
    each of that kind's values (a hint is no tunable of the IR: cuTile alone has it)."""
    grammar = load_grammar("cutile")["backend"]["hint_space"]
    if persistent(kernel):
        return space  # its grid is sized by the SM count, one block per SM
    roles = block_roles(kernel)
    wants: Callable[[dict[str, int]], bool]
    if any(isinstance(e, ir.Dot) for e in kernel_exprs(kernel)):
        spec = grammar["dot"]
        output = [name for name, t in writer.sig.blocks if roles.get(t) in ("m", "n")]
        if len(output) != 2:
            return space
        wants = lambda e: e[output[0]] * e[output[1]] in spec["tile_elements"]  # noqa: E731
    else:
        spec = grammar["rows"]
        rows = [name for name, t in writer.sig.blocks if roles.get(t) == "row"]
        if not rows:
            return space  # element-wise: no hint moved it in the probe
        wants = lambda e: all(e.get(r, 1) <= spec["max_rows"] for r in rows)  # noqa: E731
    out = []
    for entry in space:
        out.append(entry)
        if wants(entry):
            out += [{**entry, grammar["hint"]: v} for v in spec["values"]]
    return out


def hint_of(space: list[dict[str, int]]) -> str | None:
    """The compiler hint ``space`` searches (a config key naming no kernel parameter), if any."""
    hint = load_grammar("cutile")["backend"]["hint_space"]["hint"]
    return hint if any(hint in entry for entry in space) else None


def _by_hint_name(kernel: ir.Kernel, hint: str) -> str:
    return f"{constant_name(kernel.name)}_BY_{hint.upper()}"


def _kernel_ref(kernel: ir.Kernel, space: list[dict[str, int]], cfg: str) -> str:
    """The kernel a tuned launch runs: itself, or its variant for the config's hint."""
    hint = hint_of(space)
    if hint is None:
        return kernel.name
    default = load_grammar("cutile")["backend"]["hint_space"]["default"]
    return f'{_by_hint_name(kernel, hint)}[{cfg}.get("{hint}", {default})]'


def _space_definitions(kernel: ir.Kernel, space: list[dict[str, int]]) -> str:
    """The module-level list of configs and the cache of the best per shape key."""
    import textwrap

    extras = []
    if any(isinstance(v, bool) for entry in space for v in entry.values()):
        extras.append("switches such as TMA loads")
    if hint_of(space) is not None:
        extras.append(f"{hint_of(space)} hints")
    what = f"tile sizes (and {', '.join(extras)})" if extras else "tile sizes"
    why = (
        f"The {what} ct.tune.exhaustive_search tries for `{kernel.name}` on the first "
        "launch of each shape key."
    )
    hint = hint_of(space)
    if hint is not None:
        # (Said here: a comment above the variants would stay behind when a frontend drops them.)
        why += (
            f" Each {hint} is a kernel of its own, with its own JIT cache: "
            f"{_by_hint_name(kernel, hint)}, made once."
        )
    lines = [f"{_configs_name(kernel)} = ["]
    lines += ["    # " + line for line in textwrap.wrap(why, 92)]
    for entry in space:
        lines.append("    {" + ", ".join(f'"{k}": {v}' for k, v in entry.items()) + "},")
    lines += [
        "]",
        f"{_best_name(kernel)}: dict[tuple, dict[str, int]] = {{}}  # key -> best config",
    ]
    if hint is not None:
        default = load_grammar("cutile")["backend"]["hint_space"]["default"]
        values = sorted({entry.get(hint, default) for entry in space})
        variants = ", ".join(
            f"{v}: {kernel.name}"
            if v == default
            else f"{v}: {kernel.name}.replace_hints({hint}={v})"
            for v in values
        )
        lines.append(f"{_by_hint_name(kernel, hint)} = {{{variants}}}")
    return "\n".join(lines) + "\n"


def with_default_space(kernel: ir.Kernel) -> ir.Kernel:
    """``kernel`` with the tile sizes of its roles' space as its configs, where it has none."""
    import dataclasses

    if kernel.configs:
        return kernel
    roles = block_roles(kernel)
    if not roles:
        return kernel
    grammar = load_grammar("cutile")["backend"]["default_space"]
    space = _default_space(set(roles.values()) - {"batch"})
    if space is not None:
        entries = [dict(c) for c in space["configs"]]
    else:
        ladders = grammar["ladders"]
        entries = [
            {role: ladder[i] for role, ladder in ladders.items()}
            for i in range(len(ladders["batch"]))
        ]
    configs = []
    for entry in entries:
        config = {t.name: t.default for t in kernel.tunables}
        config.update({name: entry.get(role, 1) for name, role in roles.items()})
        if config not in configs:
            configs.append(config)
    tunables = tuple(
        dataclasses.replace(
            t,
            default=configs[0][t.name],
            choices=tuple(sorted({c[t.name] for c in configs})),
        )
        for t in kernel.tunables
    )
    return dataclasses.replace(
        kernel, tunables=tunables, configs=tuple(tuple(c.items()) for c in configs)
    )


#: The spaces of ``[backend.default_space]`` searched beside a source's own configs.
_SOURCE_SPACES = ("dot", "attention", "pointwise", "pointwise_2d")


def _default_space(roles: set[str], names: tuple[str, ...] | None = None) -> dict | None:
    """The ``[backend.default_space]`` entry (of ``names``, default any) for exactly ``roles``."""
    spaces = load_grammar("cutile")["backend"]["default_space"]
    return next(
        (
            v
            for k, v in spaces.items()
            if k != "ladders" and (names is None or k in names) and set(v["roles"]) == roles
        ),
        None,
    )


def with_dot_space(kernel: ir.Kernel) -> ir.Kernel:
    """``kernel`` (a dot or element-wise kernel whose configs were chosen with a warp count,
    which cuTile's compiler picks itself) with the tile sizes of the
    ``[backend.default_space]`` entry for its roles that it lacks appended to its configs (each
    the first config with its tiles replaced): the source's configs first, in their order. Unit
    tiles (a batch of 1) take no role here."""
    import dataclasses

    if not kernel.configs or not any(t.kind == "num_warps" for t in kernel.tunables):
        return kernel  # no configs, or ones chosen without a warp count (a cuTile source's)
    units = {n for n, _ in kernel.configs[0] if all(dict(c).get(n) == 1 for c in kernel.configs)}
    roles = {n: r for n, r in block_roles(kernel).items() if n not in units}
    # Row kernels have their own pass (row-space); every other shape with a space gets it.
    space = _default_space(set(roles.values()) - {"batch"}, _SOURCE_SPACES)
    if space is None:
        return kernel
    configs = [dict(c) for c in kernel.configs]
    tiles = [tuple(c[n] for n in roles if roles[n] in space["roles"]) for c in configs]
    for entry in space["configs"]:
        config = {**configs[0], **{n: entry[r] for n, r in roles.items() if r in entry}}
        tile = tuple(config[n] for n in roles if roles[n] in space["roles"])
        if tile not in tiles:
            tiles.append(tile)
            configs.append(config)
    if len(configs) == len(kernel.configs):
        return kernel
    tunables = tuple(
        dataclasses.replace(t, choices=tuple(sorted({c.get(t.name, t.default) for c in configs})))
        for t in kernel.tunables
    )
    return dataclasses.replace(
        kernel, tunables=tunables, configs=tuple(tuple(c.items()) for c in configs)
    )


def with_rows_per_block(kernel: ir.Kernel) -> ir.Kernel:
    """``kernel`` with its one-row-per-program grid tile (if it has one that can be) made a tile
    of ``ROWS`` rows, a new block-size tunable (1 in every config: the row-space pass searches
    it)."""
    import dataclasses

    from translator.ir.visit import walk_stmts

    taken = {p.name for p in kernel.params} | {t.name for t in kernel.tunables}
    taken |= {s.target for s in walk_stmts(kernel.body) if isinstance(s, ir.Assign)}
    taken |= {t.name for t in kernel.grid}
    taken |= {
        t.name for s in walk_stmts(kernel.body) if isinstance(s, ir.TileLoop) for t in s.tiles
    }
    name = "rows"
    while name in taken:
        name = f"block_{name}"
    for tile in one_row_tiles(kernel):
        row = kernel
        if not tile.scalar:
            # A tile of block 1 is a row index with a unit dim: make it the index (a reduction
            # over the unit dim, as an axis-less `ct.sum` of a (1, N) tile does, becomes the
            # value itself) and block that. Giving the tile ROWS lanes as it is would make such
            # a reduction sum over all rows of a block.
            row = squeeze_unit_tiles(kernel, lambda t, name=tile.name: t.name == name)
            if row is kernel:
                continue
        blocked = rows_per_block(row, tile.name, name)
        if blocked is row:
            continue
        tunable = ir.Tunable(name, "block_size", 1, (1,))
        configs = tuple((*c, (name, 1)) for c in kernel.configs)
        return dataclasses.replace(blocked, tunables=(*kernel.tunables, tunable), configs=configs)
    return kernel


def with_row_space(kernel: ir.Kernel) -> ir.Kernel:
    """``kernel`` with its row tile searched over the row counts of ``[backend.row_space]``:
    every config once per row count, then the source's configs as they were (their own counts),
    duplicates dropped. A tile the source gives more rows than the ladder's largest count (a
    column block of a column reduction, which the roles call a row too) keeps its space."""
    import dataclasses

    rows = [name for name, role in block_roles(kernel).items() if role == "row"]
    if len(rows) != 1:
        return kernel
    (row,) = rows
    ladder = load_grammar("cutile")["backend"]["row_space"]["rows"]
    base = [dict(c) for c in kernel.configs] or [{t.name: t.default for t in kernel.tunables}]
    if any(c[row] > max(ladder) for c in base):
        return kernel  # a tile of many rows (a column block) is a choice already
    configs: list[dict[str, int]] = []
    # The ladder's counts first (its first is the default), then the source's own configs.
    for entry in [{**c, row: value} for value in ladder for c in base] + base:
        if entry not in configs:
            configs.append(entry)
    tunables = tuple(
        dataclasses.replace(
            t, default=configs[0][t.name], choices=tuple(sorted({c[t.name] for c in configs}))
        )
        for t in kernel.tunables
    )
    return dataclasses.replace(
        kernel, tunables=tunables, configs=tuple(tuple(c.items()) for c in configs)
    )


def _block_value(kernel: ir.Kernel, tunable: str, config: dict[str, int]) -> int:
    """The tile size the launch passes: the default config's, rounded up to a power of two."""
    value = int(config.get(tunable, kernel.tunable(tunable).default))
    if value < 1:
        raise TranslationError(f"tile size {tunable} = {value} is not positive", kernel.loc)
    return next_power_of_2(value)


def _knob_value(kernel: ir.Kernel, tunable: str, config: dict[str, int]) -> int:
    """The value the launch passes for an integer knob: the config's, as it is."""
    return int(config.get(tunable, kernel.tunable(tunable).default))


def _notes(kernel: ir.Kernel, space: list[dict[str, int]]) -> tuple[str, ...]:
    """Comments above the kernel: what the source's configs were, where there were several
    that differ in no tile size (so there is nothing for ct.tune to search)."""
    if len(kernel.configs) <= 1 or len(space) > 1:
        return ()
    return (
        f"tiletrans: the source has {len(kernel.configs)} configs; this launch uses the first "
        "(tune the ct.Constant tile sizes with ct.tune)",
    )


def emit(module: ir.Module) -> str:
    """The cuTile translation of ``module`` (verified first)."""
    return CutileBackend().emit(module)
