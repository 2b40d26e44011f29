"""cuTile backend: IR kernels → ``@ct.kernel`` functions and ``ct.launch`` calls.

Each IR kernel becomes one ``@ct.kernel`` function (``templates/cutile/kernel.py.j2``; its body
from :mod:`translator.dialects.cutile.kernel`) taking the IR kernel's parameters, then one
``ct.Constant[int]`` per tile size and per whole-dim tile. cuTile has no autotuner in the kernel
decorator: the launch passes the kernel's default config (the source's first), each tile size
rounded up to a power of two (cuTile's tiles are powers of two; lanes past the extent are padding
either way). Launch knobs that cuTile's compiler decides itself (warps, pipeline stages, grouped
ordering) are dropped with a note. Each launch becomes
``ct.launch(torch.cuda.current_stream(), grid, kernel, (args...))`` in the carried host code.
"""

from __future__ import annotations

from translator.diagnostics import TranslationError
from translator.dialects.common.backend import Backend
from translator.dialects.common.host_code import HostPrinter
from translator.dialects.common.passthrough import KernelCode, LaunchCode
from translator.dialects.cutile.kernel import KernelWriter
from translator.dialects.formatting import wrap_lines
from translator.grammar import load_grammar, template_environment
from translator.ir import nodes as ir
from translator.ir.interpreter import next_power_of_2
from translator.ir.passes import Pass
from translator.ir.transforms import squeeze_unit_tiles, unit_block_tiles
from translator.ir.verifier import verify_kernel

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
                "squeeze-unit-tiles",
                "grid tiles whose block is 1 in every config (batch, heads, one row) become "
                "plain indices, so tiles and dots are 2-D (ct.mma's fast form)",
                lambda k: squeeze_unit_tiles(k, unit_block_tiles(k)),
            )
        ]

    def kernel_code(self, kernel: ir.Kernel, module: ir.Module) -> KernelCode:
        verify_kernel(kernel)
        writer = KernelWriter(kernel)
        body = writer.body()
        self._writers[kernel.name] = writer
        spell = load_grammar("cutile")["backend"]["kernel"]
        params = [p.name if p.kind == "tensor" else f"{p.name}: {p.kind}" for p in kernel.params]
        params += [f"{name}: {spell['config']}[int]" for name, _ in writer.sig.blocks]
        params += [f"{name}: {spell['config']}[int]" for name, _ in writer.sig.full]
        text = (
            template_environment("cutile")
            .get_template("kernel.py.j2")
            .render(
                name=kernel.name,
                params=params,
                body=body,
                comments=_notes(kernel),
                docstring=kernel.docstring,
                spell=spell,
            )
        )
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
        for name, text in launch.block_texts:
            # A size the source's host computes (`min(C, next_power_of_2(n))`) is passed as the
            # source passes it, not baked as the default config's value; a literal is the
            # config's own value either way.
            if name in blocks and not text.strip().isdigit():
                blocks[name] = text
        grid = []
        for t in kernel.grid:
            extent = hx(t.extent)
            if t.scalar:
                grid.append(extent)
            else:
                block = blocks[t.block] if isinstance(t.block, str) else t.block.value
                grid.append(f"ct.cdiv({extent}, {block})")
        grid += ["1"] * (3 - len(grid))
        args = list(launch.texts)
        args += [str(blocks[name]) for _, name in writer.sig.blocks]
        args += [hx(ir.Call("next_power_of_2", (extent,))) for _, extent in writer.sig.full]
        arg_tuple = "(" + ", ".join(args) + ("," if len(args) == 1 else "") + ")"
        call = (
            f"{g['kernel']['launch']}({g['kernel']['stream']}, ({', '.join(grid)}), "
            f"{kernel.name}, {arg_tuple})"
        )
        notes = []
        dropped = [t.name for t in kernel.tunables if t.kind in _DROPPED_KNOBS]
        if dropped:
            notes.append(
                f"{', '.join(dropped)}: cuTile's compiler picks warps, stages and tile order itself"
            )
        rounded = [
            f"{name} {config.get(name, kernel.tunable(name).default)} -> {value}"
            for name, value in blocks.items()
            if isinstance(value, int) and value != config.get(name, kernel.tunable(name).default)
        ]
        if rounded:
            notes.append(f"tile sizes rounded up to powers of two: {', '.join(rounded)}")
        imports = ("import math",) if hx.uses_math else ()
        return LaunchCode(call, notes=tuple(notes), imports=("import torch", *imports))


def _block_value(kernel: ir.Kernel, tunable: str, config: dict[str, int]) -> int:
    """The tile size the launch passes: the default config's, rounded up to a power of two."""
    value = int(config.get(tunable, kernel.tunable(tunable).default))
    if value < 1:
        raise TranslationError(f"tile size {tunable} = {value} is not positive", kernel.loc)
    return next_power_of_2(value)


def _notes(kernel: ir.Kernel) -> tuple[str, ...]:
    """Comments above the kernel: what the source's configs were, where there were several."""
    if len(kernel.configs) <= 1:
        return ()
    return (
        f"tiletrans: the source has {len(kernel.configs)} configs; this launch uses the first "
        "(tune the ct.Constant tile sizes with ct.tune)",
    )


def emit(module: ir.Module) -> str:
    """The cuTile translation of ``module`` (verified first)."""
    return CutileBackend().emit(module)
