"""cuTile host code: ``ct.launch`` calls, launchers, tuning searches and launch sites.

Host code is carried as written; what this module reads from it is what the kernels need from
their launches (tile sizes passed as constants, grid extents, the configs a
``ct.tune.exhaustive_search`` tries) and where each launch site is, so a target can rewrite it.
A launch that cannot be read is refused with a located diagnostic.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import libcst as cst

from translator.diagnostics import TranslationError
from translator.dialects.common.host_api import HostFunction, host_functions
from translator.dialects.cst_utils import (
    bound_names,
    call_args,
    size_reference,
    source_of,
    target_names,
    walk,
)
from translator.dialects.cutile.module_facts import ModuleFacts
from translator.dialects.cutile.tuning import SpaceReader, hinted_kernel, simple_binding
from translator.ir import nodes as ir


def launch_calls(
    module: cst.Module, mod: ModuleFacts, kernels: set[str], g: dict
) -> list[tuple[HostFunction, list[cst.Call]]]:
    """Each host function's ``ct.launch(stream, grid, kernel, args)`` calls; the integer
    constants a launch passes are the kernel's default tile sizes."""
    out = []
    launch_name = g["kernel"]["launch"]
    values = {b[0]: (stmt, b[1]) for stmt in module.body if (b := simple_binding(stmt))}
    # Module functions and the methods of module classes (an autograd Function's forward and
    # backward launch kernels too), and the module's own statements: NVIDIA's samples are
    # scripts that launch at module level or under `if __name__ == "__main__":`. Those are read
    # as the body of a private function `__main__` (the same nodes, so their launch sites are
    # located and rewritten in place; no entry of that name is public, so none is validated).
    script = [st for st in module.body if not isinstance(st, (cst.FunctionDef, cst.ClassDef))]
    top = HostFunction(
        "__main__",
        cst.FunctionDef(
            name=cst.Name("__main__"), params=cst.Parameters(), body=cst.IndentedBlock(script)
        ),
    )
    hosts = [*host_functions(module, skip=kernels | set(mod.helpers)), top]
    launchers: dict[str, _Launcher] = {}
    # Module-level compiler-hint variants (`_k8 = _k.replace_hints(...)`) launched by name.
    variant_launches: dict[str, int] = {}
    for host in hosts:
        stmt = host.node
        found = _calls_of(stmt, mod, launch_name)
        for call in found:
            pos, _ = call_args(call)
            if len(pos) != 4:
                raise mod.error(
                    call,
                    "only ct.launch(stream, grid, kernel, args) with four positional arguments "
                    "is read",
                )
            launched = hinted_kernel(pos[2], values)
            if launched is None or launched[0] not in kernels:
                launcher = _launcher(host, call, pos)
                if launcher is None or host.qualname in launchers:
                    raise _unread_launched_kernel(mod, host, call, pos[2], kernels)
                _check_launcher(mod, launcher, pos)
                launchers[host.qualname] = launcher
                continue
            _read_launch(mod, host, call, launched[0], pos[1], pos[3])
            if isinstance(pos[2], cst.Name) and pos[2].value != launched[0]:
                variant_launches[pos[2].value] = variant_launches.get(pos[2].value, 0) + 1
        if found and host.qualname not in launchers:
            out.append((host, found))
    for name, launcher in launchers.items():
        out += _launcher_calls(mod, hosts, name, launcher, kernels)
    mod.launchers = {name: launcher.host for name, launcher in launchers.items()}
    uses: Counter[str] = Counter()

    def count(node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Name):
            uses[node.value] += 1
        return True

    walk(module, count)
    for name, count in variant_launches.items():
        # The binding goes with the kernel where launches are its only uses (plus its target):
        # other targets' kernels have no `replace_hints`.
        stmt = values[name][0] if name in values else None
        if uses[name] == count + 1 and isinstance(stmt, cst.SimpleStatementLine):
            mod.hint_variants[name] = stmt
    return out


@dataclass(frozen=True)
class _Launcher:
    """A host function that launches the kernel, grid and arguments its callers pass (TileGym's
    ``_launch_silu_kernel(kernel, args, grid, cache_key)``, which may search the occupancy
    first): its launch, and the positions of those three parameters."""

    host: HostFunction
    launch: cst.Call
    kernel: int
    grid: int
    args: int


def _launcher(
    host: HostFunction, call: cst.Call, pos: list[cst.BaseExpression]
) -> _Launcher | None:
    """``host`` as a launcher, where the launch's kernel (or a local bound from it), grid and
    arguments are three of its parameters; else None."""
    names = [p.name.value for p in host.node.params.params]
    kernel = pos[2]
    if isinstance(kernel, cst.Name) and kernel.value not in names:
        sources = _bound_from(host.node, kernel.value) & set(names)
        kernel = cst.Name(sorted(sources)[0]) if len(sources) == 1 else kernel
    parts = [kernel, pos[1], pos[3]]
    if not all(isinstance(p, cst.Name) and p.value in names for p in parts):
        return None
    k, grid, args = (names.index(p.value) for p in parts)  # type: ignore[attr-defined]
    return _Launcher(host, call, k, grid, args)


def _root_name(node: cst.BaseExpression) -> str | None:
    """The name an attribute/subscript/call chain starts from (``args`` of ``args[1].fill_``)."""
    while True:
        if isinstance(node, cst.Name):
            return node.value
        if isinstance(node, (cst.Attribute, cst.Subscript)):
            node = node.value
        elif isinstance(node, cst.Call):
            node = node.func
        else:
            return None


def _check_launcher(mod: ModuleFacts, launcher: _Launcher, pos: list[cst.BaseExpression]) -> None:
    """A launcher goes with its calls read as launches, so it may do nothing else: its
    statements are the stream binding, the search/cache that picks the kernel (TileGym's
    occupancy search) and the launch, last; it rebinds none of its parameters and calls no
    method of its grid or arguments. Anything else would be dropped: a located refusal."""
    fn = launcher.host.node
    params = {p.name.value for p in fn.params.params}
    name = launcher.host.qualname
    hint = (
        "keep only the stream, the kernel's search/cache and `ct.launch(stream, grid, kernel, "
        "args)` in the launcher, and do the rest in its callers"
    )
    kernel_param = [p.name.value for p in fn.params.params][launcher.kernel]
    nodes = [n for st in fn.body.body for n in reversed(_nodes_of_host(st, cst.CSTNode))]
    for node in nodes:
        targets: list[cst.BaseExpression] = []
        if isinstance(
            node,
            (cst.AssignTarget, cst.AnnAssign, cst.AugAssign, cst.NamedExpr, cst.For, cst.CompFor),
        ):
            targets = [node.target]
        elif isinstance(node, cst.AsName):
            targets = [node.name]
        elif isinstance(node, cst.Del):
            targets = [node.target]
        for t in targets:
            roots = target_names(t) or [_root_name(t)]
            hit = [r for r in roots if r in params]
            if hit:
                raise mod.error(
                    node,
                    f"the launcher `{name}` rebinds or changes its parameter `{hit[0]}`: its "
                    "calls are read as the launch of what they pass, so the change would be lost",
                    hint,
                )
        if isinstance(node, cst.Call):
            root = _root_name(node.func)
            allowed = (
                root == kernel_param
                and isinstance(node.func, cst.Attribute)
                and node.func.attr.value == "replace_hints"
            )
            if root in params and not allowed:
                raise mod.error(
                    node,
                    f"the launcher `{name}` calls `{source_of(node.func)}` on its parameter "
                    f"`{root}`: its calls are read as the launch of what they pass, so the call "
                    "would be lost",
                    hint,
                )
    stream = pos[0].value if isinstance(pos[0], cst.Name) else None
    kernel_local = pos[2].value if isinstance(pos[2], cst.Name) else None
    body = [
        st for st in fn.body.body if not (isinstance(st, cst.SimpleStatementLine) and _is_doc(st))
    ]
    launched = False
    for st in body:
        if launched:
            raise mod.error(
                st,
                f"a statement of the launcher `{name}` after its launch is not read: its calls "
                "are read as the launch alone, so it would be lost",
                hint,
            )
        if _contains(st, launcher.launch):
            if not (
                isinstance(st, cst.SimpleStatementLine)
                and len(st.body) == 1
                and isinstance(st.body[0], cst.Expr)
                and st.body[0].value is launcher.launch
            ):
                raise mod.error(
                    st,
                    f"the launch of the launcher `{name}` is read only as a statement of its own "
                    "at the top of the launcher",
                    hint,
                )
            launched = True
            continue
        bound = _bound_names(st)
        if stream is not None and bound == {stream} and isinstance(st, cst.SimpleStatementLine):
            continue
        if (
            kernel_local is not None
            and kernel_local not in params
            and kernel_local in bound
            and _only_binds(st)
        ):
            continue
        raise mod.error(
            st,
            f"this statement of the launcher `{name}` is not read: its calls are read as the "
            "launch of what they pass, and a launcher may only bind the stream and search or "
            "cache the kernel it launches, so the statement would be lost",
            hint,
        )


def _is_doc(st: cst.SimpleStatementLine) -> bool:
    return (
        len(st.body) == 1
        and isinstance(st.body[0], cst.Expr)
        and isinstance(st.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def _contains(tree: cst.CSTNode, target: cst.CSTNode) -> bool:
    found = False

    def enter(node: cst.CSTNode) -> bool:
        nonlocal found
        found = found or node is target
        return not found

    walk(tree, enter)
    return found


def _bound_names(st: cst.CSTNode) -> set[str]:
    """The plain names the assignments in ``st`` bind."""
    out: set[str] = set()

    def enter(node: cst.CSTNode) -> bool:
        if isinstance(node, (cst.AssignTarget, cst.AnnAssign)):
            out.update(target_names(node.target))
        return True

    walk(st, enter)
    return out


def _only_binds(st: cst.CSTNode) -> bool:
    """Whether ``st`` is made of ``if``/``else`` and assignments only (a search/cache: no bare
    call, loop, ``with``, ``del`` or return whose effect would be lost with the launcher)."""
    if isinstance(st, cst.If):
        blocks = [st.body]
        orelse = st.orelse
        if isinstance(orelse, cst.If):
            return all(_only_binds(x) for x in st.body.body) and _only_binds(orelse)
        if orelse is not None:
            blocks.append(orelse.body)
        return all(_only_binds(x) for b in blocks for x in b.body)
    if isinstance(st, cst.SimpleStatementLine):
        return all(isinstance(small, (cst.Assign, cst.AnnAssign, cst.Pass)) for small in st.body)
    return False


def _launcher_calls(
    mod: ModuleFacts,
    hosts: list[HostFunction],
    name: str,
    launcher: _Launcher,
    kernels: set[str],
) -> list[tuple[HostFunction, list[cst.Call]]]:
    """Each call of launcher ``name`` as the launch it makes: the site is the call, which each
    target rewrites into its own launch of the kernel the call names, with the argument tuple
    the caller builds (the launcher goes: its search picks a cuTile compiler hint)."""
    out = []
    params = [p.name.value for p in launcher.host.node.params.params]
    for host in hosts:
        calls = [
            c
            for c in _nodes_of_host(host.node, cst.Call)
            if isinstance(c.func, cst.Name) and c.func.value == name
        ]
        for call in calls:
            pos, kw = call_args(call)
            bound = dict(zip(params, pos)) | {k: v for k, v in kw.items() if k in params}
            kernel = bound.get(params[launcher.kernel])
            grid = bound.get(params[launcher.grid])
            args = bound.get(params[launcher.args])
            if isinstance(args, cst.Name):
                args = _bound_value(host.node, args)
            if not (
                isinstance(kernel, cst.Name)
                and kernel.value in kernels
                and grid is not None
                and isinstance(args, cst.Tuple)
            ):
                raise mod.error(
                    call,
                    f"this call of the launcher `{name}` is not read: a launcher's callers "
                    "pass a @ct.kernel by name and a tuple of arguments (a literal, or a local "
                    "bound once to one)",
                    "pass the kernel by name and build the arguments as one tuple before the call",
                )
            if isinstance(grid, cst.Name):
                grid = _bound_value(host.node, grid) or grid
            _read_launch(mod, host, call, kernel.value, grid, args)
        if calls:
            out.append((host, calls))
    if not out:
        raise _unread_launched_kernel(
            mod, launcher.host, launcher.launch, call_args(launcher.launch)[0][2], kernels
        )
    return out


def _nodes_of_host(fn: cst.CSTNode, kind: type) -> list[cst.CSTNode]:
    """The nodes of type ``kind`` in ``fn``."""
    found: list[cst.CSTNode] = []

    def enter(node: cst.CSTNode) -> bool:
        if isinstance(node, kind):
            found.append(node)
        return True

    walk(fn, enter)
    return found


def _read_launch(
    mod: ModuleFacts,
    host: HostFunction,
    call: cst.Call,
    kernel: str,
    grid: cst.BaseExpression,
    args: cst.BaseExpression,
) -> None:
    """Record a launch site ``call`` of ``kernel`` on ``grid`` with argument tuple ``args``:
    what the kernels' lifting reads of its launches (constants, grid extents)."""
    if not isinstance(args, cst.Tuple):
        raise mod.error(
            args,
            f"the launch arguments `{source_of(args)}` are not a literal tuple: only "
            "ct.launch(stream, grid, kernel, (x, y, TILE)) is read",
            "write the arguments as a tuple in the ct.launch call",
        )
    stmt = host.node
    mod.launched[id(call)] = kernel
    mod.launch_args[id(call)] = args
    consts = mod.launch_constants.setdefault(kernel, {})
    grid_node = _bound_value(stmt, grid) if isinstance(grid, cst.Name) else grid
    grid_texts = (
        [source_of(e.value) for e in grid_node.elements] if isinstance(grid_node, cst.Tuple) else []
    )
    mod.launch_texts.setdefault(kernel, []).append(
        (grid_texts, [source_of(el.value) for el in args.elements])
    )
    mod.launch_grid_dims.setdefault(kernel, []).append(
        _grid_dims(grid, [el.value for el in args.elements], mod)
    )
    local_ints = _local_ints(stmt)
    for i, el in enumerate(args.elements):
        value = el.value
        if isinstance(value, cst.Name) and value.value in local_ints:
            consts.setdefault(i, local_ints[value.value])
        elif isinstance(value, cst.Name) and value.value in mod.module_ints:
            consts.setdefault(i, mod.module_ints[value.value])
        elif isinstance(value, cst.Integer):
            consts.setdefault(i, int(value.value))


def _unread_launched_kernel(
    mod: ModuleFacts,
    host: HostFunction,
    call: cst.Call,
    kernel: cst.BaseExpression,
    kernels: set[str],
) -> TranslationError:
    """The diagnostic for a ``ct.launch`` whose kernel is no ``@ct.kernel`` of the module (nor
    a compiler-hint variant of one picked from a module dict), saying what it is instead."""
    text = source_of(kernel)
    params = {p.name.value for p in host.node.params.params}
    read = (
        "only a launch of a @ct.kernel of this module by its name, or of a compiler-hint "
        "variant picked from a module dict of them (`BY_OCCUPANCY[cfg.occupancy]`), is read"
    )
    if isinstance(kernel, cst.Name) and kernel.value in params:
        what = f"the kernel launched here is `{text}`, a parameter of `{host.qualname}`"
        hint = (
            f"launch each kernel by name where its arguments are built (in the callers of "
            f"`{host.qualname}`), with its search in that function too"
        )
    elif isinstance(kernel, cst.Name):
        what = f"the kernel launched here is `{text}`, a local of `{host.qualname}`"
        hint = (
            "launch the @ct.kernel by name, or pick its variant from a module dict built "
            "with `kernel.replace_hints(...)`"
        )
        sources = sorted(_bound_from(host.node, kernel.value) & params)
        if sources:
            # A generic launcher (TileGym's `_launch_silu_kernel(kernel, args, grid, key)`):
            # which kernel runs is decided by its callers.
            what += f" bound from its parameter `{sources[0]}`"
            hint = (
                f"launch each kernel by name where its arguments are built (in the callers of "
                f"`{host.qualname}`), with its ct.tune.exhaustive_search in that function too"
            )
    else:
        what = f"the kernel launched here is `{text}`"
        hint = "launch a @ct.kernel of this module by name"
    names = ", ".join(f"`{k}`" for k in sorted(kernels)) or "none"
    return mod.error(call, f"{what}: {read} (this module's kernels: {names})", hint)


def _bound_from(fn: cst.FunctionDef, name: str) -> set[str]:
    """The names ``fn`` assigns to ``name`` as they are (``tuned = kernel``, either branch of
    ``kernel if ... else ...``)."""
    found: set[str] = set()

    def enter(node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Assign) and any(
            name in target_names(t.target) for t in node.targets
        ):
            values = [node.value]
            while values:
                value = values.pop()
                if isinstance(value, cst.IfExp):
                    values += [value.body, value.orelse]
                elif isinstance(value, cst.Name):
                    found.add(value.value)
        return True

    walk(fn, enter)
    return found


def _local_ints(fn: cst.FunctionDef) -> dict[str, int]:
    """The names ``fn`` binds once, to an integer literal (``tm = 128``, ``tm, tn = 128, 64``):
    tile sizes a launch passes by a local name."""
    bound: dict[str, list[cst.BaseExpression | None]] = {}

    class Bindings(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            for target in node.targets:
                names = target.target
                values: list[cst.BaseExpression | None]
                if isinstance(names, (cst.Tuple, cst.List)):
                    targets = [el.value for el in names.elements]
                    if isinstance(node.value, (cst.Tuple, cst.List)) and len(
                        node.value.elements
                    ) == len(targets):
                        values = [el.value for el in node.value.elements]
                    else:
                        values = [None] * len(targets)
                else:
                    targets, values = [names], [node.value]
                for t, v in zip(targets, values):
                    if isinstance(t, cst.Name):
                        bound.setdefault(t.value, []).append(v)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            if isinstance(node.target, cst.Name):
                bound.setdefault(node.target.value, []).append(None)

        def visit_For(self, node: cst.For) -> None:
            if isinstance(node.target, cst.Name):
                bound.setdefault(node.target.value, []).append(None)

    fn.visit(Bindings())
    return {
        name: int(values[0].value)
        for name, values in bound.items()
        if len(values) == 1 and isinstance(values[0], cst.Integer)
    }


def tuning_edits(
    module: cst.Module,
    mod: ModuleFacts,
    launches: list[tuple[HostFunction, list[cst.Call]]],
    g: dict,
) -> list[ir.HostEdit]:
    """Read each ``ct.tune.exhaustive_search`` into ``mod.spaces``; the edits that remove the
    host statements that exist only to tune (every target writes its own tuning idiom)."""
    reader = SpaceReader(module, mod.error, mod.name_of)
    params = {k: [p.name.value for p in d.params.params] for k, d in mod.kernel_defs.items()}
    launching = {id(host.node): calls for host, calls in launches}
    edits: dict[tuple, ir.HostEdit] = {}
    for host in host_functions(module, skip=set(mod.kernel_defs) | set(mod.helpers)):
        searches = _calls_of(host.node, mod, g["kernel"]["search"])
        if not searches or host.qualname in mod.launchers:
            continue  # a launcher's search goes with it
        calls = launching.get(id(host.node), [])
        for call in searches:
            search = reader.search(call, host.node, params)
            if not any(mod.launched.get(id(c)) == search.kernel for c in calls):
                raise mod.error(
                    call,
                    f"ct.tune.exhaustive_search of `{search.kernel}` in a function that does not "
                    "launch it",
                    "search, cache the best config and launch with it in one host function",
                )
            mod.spaces.setdefault(search.kernel, search.configs)
        for stmt in reader.tuning_statements(host.node, searches, calls):
            span = mod.locate.span(stmt)
            edits.setdefault(
                (span.start_line, span.start_col),
                ir.HostEdit("remove", span),
            )
    return list(edits.values())


def _bound_value(fn: cst.FunctionDef, name: cst.Name) -> cst.BaseExpression | None:
    """The value of the one ``name = value`` at the top of ``fn`` (a launch's ``grid``)."""
    values = [
        small.value
        for line in fn.body.body
        if isinstance(line, cst.SimpleStatementLine)
        for small in line.body
        if isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
        and small.targets[0].target.value == name.value
    ]
    return values[0] if len(values) == 1 else None


def _grid_dims(
    grid: cst.BaseExpression, args: list[cst.BaseExpression], mod: ModuleFacts
) -> dict[int, tuple[int, int]]:
    """``{axis: (argument position, dim)}`` for each grid extent that is an argument's size:
    ``a.size(d)``, ``a.shape[d]``, or either divided into tiles (``ct.cdiv(a.size(d), B)``); or
    an argument itself (``(num_experts, 1, 1)`` passing ``num_experts``): dim -1."""
    if not isinstance(grid, cst.Tuple):
        return {}
    texts = [source_of(a) for a in args]
    out: dict[int, tuple[int, int]] = {}
    for axis, element in enumerate(grid.elements):
        extent = element.value
        if isinstance(extent, cst.Call) and len(extent.args) == 2:
            name = mod.name_of(extent.func) or ""
            if name.endswith(".cdiv"):
                extent = extent.args[0].value
        measured = _size_of(extent)
        if measured is not None and measured[0] in texts:
            out[axis] = (texts.index(measured[0]), measured[1])
        elif source_of(extent) in texts and isinstance(extent, cst.Name):
            out[axis] = (texts.index(source_of(extent)), -1)
    return out


def _size_of(expr: cst.BaseExpression) -> tuple[str, int] | None:
    """``("a", d)`` for ``a.size(d)`` or ``a.shape[d]`` (``a`` as written)."""
    found = size_reference(expr)
    return (source_of(found[0]), found[1]) if found is not None else None


def _calls_of(fn: cst.FunctionDef, mod: ModuleFacts, name: str) -> list[cst.Call]:
    """The calls of ``name`` (resolved) in ``fn``."""
    found: list[cst.Call] = []

    class Calls(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            if mod.name_of(node.func) == name:
                found.append(node)

    fn.visit(Calls())
    return found


def launch_sites(
    launches: list[tuple[HostFunction, list[cst.Call]]],
    mod: ModuleFacts,
    kernels: dict[str, ir.Kernel],
) -> tuple[list[ir.Site], list[ir.Entry]]:
    """Launch sites and (incomplete) entries: the host code itself is carried as written."""
    sites: list[ir.Site] = []
    entries: list[ir.Entry] = []
    for host, calls in launches:
        body: list[ir.Stmt] = []
        for call in calls:
            kernel = kernels[mod.launched[id(call)]]
            names = [p.name.value for p in _kernel_def_params(mod, kernel.name)]
            elements = mod.launch_args[id(call)].elements
            texts = {n: source_of(el.value) for n, el in zip(names, elements)}
            args = []
            for p in kernel.params:
                target = f"_{kernel.name}_{p.name}_{len(sites)}"
                body.append(ir.Carried(target, p.kind, texts.get(p.name, p.name), p.rank))
                args.append(ir.Name(target))
            sites.append(ir.Site(mod.locate.span(call), statement=False))
            body.append(
                ir.Launch(
                    kernel.name,
                    tuple(args),
                    tuple(texts.get(p.name, p.name) for p in kernel.params),
                    site=len(sites) - 1,
                )
            )
        params = tuple(ir.Param(p.name.value, "tensor") for p in host.node.params.params)
        entries.append(ir.Entry(host.qualname, params, tuple(body), complete=False))
    return sites, entries


def _kernel_def_params(mod: ModuleFacts, name: str) -> list[cst.Param]:
    return list(mod.kernel_defs[name].params.params)


def bound_more_than_once(module: cst.Module) -> set[str]:
    """Module names bound more than once anywhere (again at module level, under an ``if``, by
    ``global`` in a function): a kernel reading one cannot fold one value of it."""
    counts = Counter(bound_names(module))
    declared: list[str] = []

    def enter(node: cst.CSTNode) -> bool:
        if isinstance(node, cst.Global):
            declared.extend(item.name.value for item in node.names)
        return True

    walk(module, enter)
    counts.update(declared * 2)
    return {n for n, c in counts.items() if c > 1}
