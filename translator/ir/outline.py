"""Outlining: a kernel written in place inside a host function becomes a self-contained kernel.

Frontends lift each device program where the source launches it, reading the host names in scope
(:class:`~translator.ir.nodes.InlineKernel`): that is how a Helion kernel is written, and how the
Triton frontend binds a launch's arguments. :func:`outline_entry` closes each over what it reads:

* every host tensor the kernel loads, stores, sizes or takes a dtype from becomes a tensor
  parameter, every host scalar it reads (sizes, scalar arguments) a scalar parameter;
* the kernel body is renamed to read its parameters, so it stands alone
  (:class:`~translator.ir.nodes.Kernel`);
* the in-place kernel is replaced in the host function by a :class:`~translator.ir.nodes.Launch`
  that passes each parameter its host value, spelt as source code valid at the launch site.

A frontend says how parameters are named (a Triton kernel's own parameter names, say), how host
values are spelt at the site and in which order parameters come; the default is the host name for
all three, which is right for a kernel written inside its host function.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field

from translator.ir import nodes as ir
from translator.ir.renaming import rename
from translator.ir.shapes import ScalarType, TensorType, TypeEnv
from translator.ir.verifier import walk_entry
from translator.ir.visit import dtype_refs, kernel_exprs, kernel_tiles, walk_stmts


@dataclass
class OutlineNaming:
    """How a frontend names and spells what its kernels read.

    ``param``: the kernel parameter for host name ``host`` (of ``kind``); ``text``: the launch
    argument for it, as source valid at the launch site; ``order``: a sort key placing the
    parameter in the kernel's signature; ``constexpr``: host names whose value the kernel is
    compiled for (specialised sizes, string choices).
    """

    param: Callable[[ir.InlineKernel, str, str], str] = lambda kernel, host, kind: host
    text: Callable[[ir.InlineKernel, str], str] = lambda kernel, host: host
    order: Callable[[ir.InlineKernel, str], object] | None = None
    constexpr: set[str] = field(default_factory=set)


def outline_entry(
    entry: ir.Entry, naming: OutlineNaming | None = None
) -> tuple[ir.Entry, list[ir.Kernel]]:
    """``entry`` with each in-place kernel replaced by a launch, and the kernels outlined."""
    naming = naming or OutlineNaming()
    envs: dict[int, TypeEnv] = {}

    def capture(stmt: ir.Stmt, env: TypeEnv) -> None:
        if isinstance(stmt, ir.InlineKernel):
            envs[id(stmt)] = env.child()

    walk_entry(entry, capture)
    definition_order = _definition_order(entry)
    kernels: list[ir.Kernel] = []
    body: list[ir.Stmt] = []
    for stmt in entry.body:
        if not isinstance(stmt, ir.InlineKernel):
            body.append(stmt)
            continue
        kernel, launch = outline_kernel(stmt, envs[id(stmt)], naming, definition_order)
        kernels.append(kernel)
        body.append(launch)
    return dataclasses.replace(entry, body=tuple(body)), kernels


def outline_kernel(
    inline: ir.InlineKernel,
    env: TypeEnv,
    naming: OutlineNaming,
    definition_order: dict[str, int] | None = None,
) -> tuple[ir.Kernel, ir.Launch]:
    """One in-place kernel (host types ``env`` at its launch) → its kernel and launch."""
    hosts = free_host_names(inline, env)
    definition_order = definition_order or {}
    order = naming.order or (lambda kernel, host: definition_order.get(host, len(definition_order)))
    hosts.sort(key=lambda h: (_kind_rank(env.vars[h]), order(inline, h)))
    locals_ = _local_names(inline)
    params: list[ir.Param] = []
    mapping: dict[str, str] = {}
    taken: set[str] = set()
    for host in hosts:
        t = env.vars[host]
        kind = _kind(t)
        name = naming.param(inline, host, kind)
        base, i = name, 1
        while name in taken:
            i += 1
            name = f"{base}_{i}"
        taken.add(name)
        mapping[host] = name
        if isinstance(t, TensorType):
            dtype = t.dtype if isinstance(t.dtype, ir.DType) else None
            params.append(ir.Param(name, "tensor", rank=t.rank, dtype=dtype))
        else:
            params.append(ir.Param(name, kind, constexpr=host in naming.constexpr))
    # Device locals that a parameter name would shadow get fresh names first.
    clashes = {
        local: _fresh(local, taken | locals_ | set(mapping))
        for local in locals_
        if local in taken and local not in mapping
    }
    body = rename(inline.body, {**clashes, **mapping})
    grid = rename(inline.grid, {**clashes, **mapping})
    partial_dims = rename(inline.partial_dims, mapping)
    # dtype(x) of a host tensor reads the parameter's dtype.
    body, grid = (_rename_dtypes(x, mapping) for x in (body, grid))
    tunables, configs = _kernel_tunables(inline)
    kernel = ir.Kernel(
        name=inline.name,
        params=tuple(params),
        grid=grid,  # type: ignore[arg-type]
        body=body,  # type: ignore[arg-type]
        tunables=tunables,
        configs=configs,
        hints=inline.hints,
        docstring=inline.docstring,
        doc_comments=inline.doc_comments,
        partial_dims=partial_dims,  # type: ignore[arg-type]
        loc=inline.loc,
    )
    launch = ir.Launch(
        kernel=inline.name,
        args=tuple(ir.Name(h) for h in hosts),
        texts=tuple(naming.text(inline, h) for h in hosts),
        site=inline.site,
        tuned=inline.tuned,
        block_texts=inline.block_texts,
        comments=inline.comments,
        loc=inline.loc,
    )
    return kernel, launch


def free_host_names(inline: ir.InlineKernel, env: TypeEnv) -> list[str]:
    """Host tensors and scalars ``inline`` reads, in order of first use (a host scalar the
    kernel reads and then rebinds, ``s = s * 2``, is read first: it is captured)."""
    bound = {t.name for t in kernel_tiles(inline)} | {t.name for t in inline.tunables}
    locals_ = bound | (_local_names(inline) - set(env.vars))
    found: dict[str, None] = {}

    def note(name: str) -> None:
        if name not in locals_ and isinstance(env.vars.get(name), (TensorType, ScalarType)):
            found.setdefault(name, None)

    for s in walk_stmts(inline.body):
        if isinstance(s, (ir.Store, ir.AtomicRMW)):
            note(s.tensor)
    for e in kernel_exprs(inline):
        if isinstance(e, ir.Name):
            note(e.id)
        elif isinstance(e, (ir.Load, ir.SizeOf, ir.ShapeOf)):
            note(e.tensor)
        for dt in dtype_refs(e):
            if isinstance(dt, ir.DTypeOf):
                note(dt.tensor)
    return list(found)


def _local_names(inline: ir.InlineKernel) -> set[str]:
    names = {t.name for t in kernel_tiles(inline)} | {t.name for t in inline.tunables}
    for s in walk_stmts(inline.body):
        if isinstance(s, ir.Assign):
            names.add(s.target)
    return names


def _kind(t: object) -> str:
    if isinstance(t, TensorType):
        return "tensor"
    assert isinstance(t, ScalarType)
    dtype = t.dtype
    if dtype == ir.BOOL:
        return "bool"
    if dtype == ir.STR:
        return "str"
    if isinstance(dtype, ir.DType) and dtype.name in ir.FLOAT_DTYPES:
        return "float"
    return "int"


def _kind_rank(t: object) -> int:
    return 0 if isinstance(t, TensorType) else 1


def _fresh(base: str, taken: set[str]) -> str:
    name, i = base, 1
    while name in taken:
        i += 1
        name = f"{base}_{i}"
    taken.add(name)
    return name


def _rename_dtypes(node: object, mapping: dict[str, str]) -> object:
    """``dtype(x)`` → ``dtype(param)`` (dtype references are no name positions for renaming)."""
    if isinstance(node, ir.DTypeOf):
        return ir.DTypeOf(mapping.get(node.tensor, node.tensor))
    if isinstance(node, tuple):
        return tuple(_rename_dtypes(v, mapping) for v in node)
    if not dataclasses.is_dataclass(node) or isinstance(node, (type, ir.Const, ir.Loc, ir.DType)):
        return node
    changes = {}
    for f in dataclasses.fields(node):
        old = getattr(node, f.name)
        new = _rename_dtypes(old, mapping)
        if new is not old and new != old:
            changes[f.name] = new
    return dataclasses.replace(node, **changes) if changes else node


def _kernel_tunables(
    inline: ir.InlineKernel,
) -> tuple[tuple[ir.Tunable, ...], tuple[tuple[tuple[str, int], ...], ...]]:
    """The tunables ``inline`` uses (its block sizes and every launch knob) and the source's
    configs restricted to them."""
    used = {t.block for t in kernel_tiles(inline) if isinstance(t.block, str)}
    used |= {e.id for e in kernel_exprs(inline) if isinstance(e, ir.Name)}
    tunables = tuple(t for t in inline.tunables if t.kind != "block_size" or t.name in used)
    names = {t.name for t in tunables}
    configs: list[tuple[tuple[str, int], ...]] = []
    for c in inline.configs:
        row = tuple((k, v) for k, v in c if k in names)
        if row not in configs:
            configs.append(row)
    return tunables, tuple(configs)


def _definition_order(entry: ir.Entry) -> dict[str, int]:
    """Host names in the order the entry defines them (parameters first)."""
    order: dict[str, int] = {}
    for p in entry.params:
        order.setdefault(p.name, len(order))
    for s in entry.body:
        if isinstance(s, (ir.Alloc, ir.Assign, ir.View)):
            order.setdefault(s.target, len(order))
        elif isinstance(s, ir.ShapeUnpack):
            for t in s.targets:
                if t is not None:
                    order.setdefault(t, len(order))
    return order


def inline_launches(entry: ir.Entry, kernels: dict[str, ir.Kernel]) -> ir.Entry:
    """The inverse of :func:`outline_entry` for analyses that read kernels in host terms: each
    launch whose arguments are host names becomes the kernel written in place."""
    body: list[ir.Stmt] = []
    for s in entry.body:
        if not isinstance(s, ir.Launch):
            body.append(s)
            continue
        k = kernels[s.kernel]
        mapping: dict[str, str] = {}
        for p, arg in zip(k.params, s.args):
            if isinstance(arg, ir.Name):
                mapping[p.name] = arg.id
        inner = rename((k.grid, k.body, k.partial_dims), mapping)
        grid, kbody, partial_dims = _rename_dtypes(inner, mapping)  # type: ignore[misc]
        body.append(
            ir.InlineKernel(
                name=k.name,
                grid=grid,
                body=kbody,
                comments=s.comments,
                docstring=k.docstring,
                doc_comments=k.doc_comments,
                tunables=k.tunables,
                configs=k.configs,
                hints=k.hints,
                site=s.site,
                tuned=s.tuned,
                block_texts=s.block_texts,
                partial_dims=partial_dims,
                loc=s.loc,
            )
        )
    return dataclasses.replace(entry, body=tuple(body))


__all__ = ["OutlineNaming", "free_host_names", "inline_launches", "outline_entry", "outline_kernel"]
