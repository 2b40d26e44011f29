"""Helion backend: IR module → a Helion module of ``@helion.kernel`` functions.

Each IR entry becomes one ``@helion.kernel`` function: its host statements as written, each IR
:class:`~translator.ir.nodes.Kernel` as a top-level ``hl.tile``/``hl.grid`` loop, and the IR's
tunables and configs as ``helion.Config(block_sizes=..., num_warps=..., num_stages=...)`` in
Helion's block numbering (:mod:`.configs`). The module skeleton (provenance header, imports,
decorator, signature) comes from ``templates/helion/module.py.j2``; statements from
:mod:`.kernel_writer`.

Helion runs all top-level loops of one kernel function in a single launch and allows no host
statement between them, so an entry with several kernels is emitted only when they are
independent (:func:`check_independent_kernels`); its host statements then all run first.
"""

from __future__ import annotations

from translator import __version__
from translator.diagnostics import TranslationError
from translator.dialects.formatting import MAX_LINE, wrap_lines
from translator.dialects.helion.configs import BlockPlan, config_texts, plan_blocks
from translator.dialects.helion.host import check_independent_kernels, host_line, split_host
from translator.dialects.helion.kernel_writer import Writer
from translator.dialects.helion.rebinding import separate_host_values
from translator.grammar import load_grammar, template_environment
from translator.ir import nodes as ir
from translator.ir.shapes import TensorType, TypeEnv, infer
from translator.ir.verifier import verify, walk_entry
from translator.ir.visit import walk_stmts

# Names the emitted module imports; IR names must not shadow them.
_RESERVED = {"torch", "helion", "hl", "math"}


def emit(module: ir.Module) -> str:
    """The Helion source for ``module`` (verified first).

    Raises :class:`~translator.diagnostics.TranslationError` for IR that Helion cannot express
    exactly (see :mod:`.boundary` and :func:`check_independent_kernels`).
    """
    verify(module)
    entries = []
    needs_math = False
    for entry in module.entries:
        rendered, math_used = _emit_entry(entry)
        entries.append(rendered)
        needs_math = needs_math or math_used
    text = (
        template_environment("helion")
        .get_template("module.py.j2")
        .render(
            version=__version__,
            source=module.path,
            source_hash=module.source_hash[:16],
            header_comments=module.header_comments,
            docstring=_module_docstring(module.docstring),
            needs_math=needs_math,
            entries=entries,
        )
    )
    return "\n".join(wrap_lines(text.splitlines())) + "\n"


def _module_docstring(doc: str | None) -> str | None:
    """The module docstring as the source spelt it (a multi-line one ends on its own line)."""
    if doc is None or "\n" not in doc or doc.endswith("\n"):
        return doc
    return doc + "\n"


def _names(entry: ir.Entry) -> set[str]:
    """Every name the entry binds (parameters, host and device locals, tiles, tunables)."""
    names = {p.name for p in entry.params} | {t.name for t in entry.tunables}
    for s in walk_stmts(entry.body):
        if isinstance(s, (ir.Assign, ir.Alloc, ir.View)):
            names.add(s.target)
        elif isinstance(s, ir.ShapeUnpack):
            names.update(t for t in s.targets if t is not None)
        elif isinstance(s, (ir.Kernel, ir.TileLoop)):
            names.update(t.name for t in (s.grid if isinstance(s, ir.Kernel) else s.tiles))
    return names


def _emit_entry(entry: ir.Entry) -> tuple[dict, bool]:
    taken = _names(entry)
    clash = sorted(taken & _RESERVED)
    if clash:
        raise TranslationError(
            f"`{entry.name}` binds {', '.join(f'`{c}`' for c in clash)}, which the Helion "
            "module needs for its imports",
            entry.loc,
            "rename the variable in the source",
        )
    check_independent_kernels(entry)
    plan = plan_blocks(entry)
    envs: dict[int, TypeEnv] = {}

    def capture(stmt: ir.Stmt, env: TypeEnv) -> None:
        if isinstance(stmt, ir.Kernel):
            envs[id(stmt)] = env.child()

    host_env = walk_entry(entry, capture)
    before, kernels, after = split_host(entry)
    specialized = set(dict(entry.hints).get("specialize", ()))
    lang = load_grammar("helion")["backend"]["language"]
    writer = Writer(entry, host_env, plan, taken, device=False)
    body: list[str] = []

    def host(stmts: list[ir.Stmt]) -> None:
        for s in stmts:
            body.extend(f"# {c}" if c else "#" for c in s.comments)
            body.append(host_line(s, writer, specialized))

    host(before)
    for name, extent in plan.registered:
        body.append(f"{name} = {lang['register_block_size']}({writer.text(extent)})")
    for kernel in kernels:
        # The loop is the kernel: what the source said of its kernel function goes above it.
        doc = (
            *kernel.comments,
            *kernel.doc_comments,
            *(kernel.docstring.splitlines() if kernel.docstring else ()),
        )
        body.extend(f"# {c}".rstrip() if c else "#" for c in doc)
        body.extend(_kernel_lines(entry, kernel, envs[id(kernel)], plan, taken, writer))
    host(after)
    params = []
    for p in entry.params:
        text = p.name + (f": {p.annotation}" if p.annotation else "")
        if p.default is not None:
            sep = " = " if p.annotation else "="
            text += sep + writer.text(p.default)
        params.append(text)
    rendered = {
        "name": entry.name,
        "params": params,
        "returns": entry.return_annotation,
        "docstring": entry.docstring,
        "comments": entry.comments,
        "body": body,
        **_decorator(entry, plan),
    }
    return rendered, writer.needs_math


def _kernel_lines(
    entry: ir.Entry,
    kernel: ir.Kernel,
    env: TypeEnv,
    plan: BlockPlan,
    taken: set[str],
    host_writer: Writer,
) -> list[str]:
    """The top-level loop of ``kernel`` and its body (unindented; the template indents)."""
    # Device rebindings of host values: fresh names, or 0-d tensors (Helion refuses them as is).
    kernel, force = separate_host_values(kernel, env, taken)
    while True:
        writer = Writer(entry, env.child(), plan, set(taken))
        writer.force_tensor = force
        writer.indent = 0
        names = writer.bind_tiles(kernel.grid)
        # The loop header reads host names only; write it with the tiles not yet in scope.
        header = Writer(entry, env, plan, taken).loop_header(kernel.grid, names)
        writer.lines.append(header + ":")
        writer.block(kernel.body)
        if not writer.became_tensor.keys() - force.keys():
            break
        # Numbers that later hold tensors: bind them as 0-d tensors from the start.
        force = {**force, **writer.became_tensor}
    taken |= writer.taken
    host_writer.needs_math = host_writer.needs_math or writer.needs_math
    return writer.lines


def _host_tensor_ops(entry: ir.Entry) -> bool:
    """Whether a host statement computes on a whole tensor (``c.to(a.dtype)``)."""
    env = walk_entry(entry)
    return any(
        isinstance(s, ir.Assign)
        and isinstance(s.value, ir.Cast)
        and isinstance(infer(s.value.value, env), TensorType)
        for s in entry.body
    )


def _decorator(entry: ir.Entry, plan: BlockPlan) -> dict:
    """The ``@helion.kernel(...)`` arguments: on one line if they fit, else one per line."""
    args = []
    static = dict(entry.hints).get("static_shapes")
    if static is not None:
        args.append(f"static_shapes={bool(static)}")
    if dict(entry.hints).get("fast_math"):
        # The source computed exp/log/... with fast approximations (Triton's tl.exp): Helion's
        # fast_math uses the same ones instead of libdevice's exact-rounding calls.
        args.append("fast_math=True")
    if dict(entry.hints).get("index_dtype") == "int64":
        # The source kept its offsets in 64 bits; Helion's default int32 flat per-lane offsets
        # were slower at wide rows (measured: benchmarks.gpu_gap_probe --part ce).
        args.append("index_dtype=torch.int64")
    if _host_tensor_ops(entry):
        # Helion warns on every compile about torch ops outside the loops; here they are meant
        # (a conversion after an atomic kernel cannot run inside it).
        args.append(
            f"ignore_warnings=[{load_grammar('helion')['backend']['kernel']['host_op_warning']}]"
        )
    configs = config_texts(entry, plan)
    if len(configs) == 1:
        inline = ", ".join([*args, f"config={configs[0]}"])
        if len(f"@helion.kernel({inline})") <= MAX_LINE:
            return {"inline": inline, "args": args, "configs": configs}
    return {"inline": None, "args": args, "configs": configs}
