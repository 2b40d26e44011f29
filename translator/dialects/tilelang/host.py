"""TileLang host code: the launches of a module's factories (``factory(...)(...)`` calls), their
arguments, outputs allocated for ``out_idx``, and the eager style's host function."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from translator.diagnostics import TranslationError
from translator.dialects.common.dtype_facts import HINT as DTYPES_HINT
from translator.dialects.common.host_code import TORCH_DTYPES
from translator.dialects.cst_utils import (
    bound_names,
    call_args,
    literal,
    names_in,
    source_of,
)
from translator.dialects.tilelang.autotuner import Tuning
from translator.dialects.tilelang.compiled import compiled_of
from translator.dialects.tilelang.harness import harness_reads, is_harness
from translator.dialects.tilelang.model import (
    Factory,
    ModuleFacts,
    decorator_of,
    dtype_name,
    grammar,
    is_ceildiv,
)
from translator.ir import nodes as ir


@dataclass
class _Launch:
    """One launch in host code: the factory call and the kernel call."""

    fn: cst.FunctionDef
    factory: str
    build: cst.Call
    call: cst.Call
    statement: cst.SimpleStatementLine | None
    #: the statements that build the kernel (``k = factory(...)``; or ``f = factory(...)`` and
    #: ``k = tilelang.compile(f, ...)``), which the launch makes dead
    built_by: tuple[cst.SimpleStatementLine, ...]
    #: literal dicts the function binds, for a factory call's ``**config``
    spread: dict[str, cst.Dict]


_Built = tuple[str, cst.Call, tuple[cst.SimpleStatementLine, ...]]


class _LaunchFinder(cst.CSTVisitor):
    """The launches in one host function, in order: ``k = factory(...)`` then ``k(...)``, or
    ``factory(...)(...)``; for an undecorated factory ``k = tilelang.compile(factory(...), ...)``
    (or of a name bound to ``factory(...)``) then ``k(...)``. Any other use of a kernel it builds
    is recorded in :attr:`misused`."""

    def __init__(
        self, fn: cst.FunctionDef, factories: dict[str, Factory], plain: set[str], mod: ModuleFacts
    ) -> None:
        self.fn = fn
        self.factories = factories
        self.plain = plain
        self.mod = mod
        self.g = grammar()
        self.line: list[cst.SimpleStatementLine] = []
        self.built: dict[str, _Built] = {}
        #: every build bound to a name, in order: a name bound in both arms of an ``if``
        #: (``kernel = factory(..., block_M=64)`` / ``kernel = factory(...)``) has several, which
        #: only a harness may read (a launch would not say which build it runs)
        self.bindings: list[tuple[str, _Built]] = []
        #: per name, the statements binding it to a build or an undecorated factory's prim_func,
        #: each with the id of the block it stands in
        self.binders: dict[str, list[tuple[int, cst.SimpleStatementLine]]] = {}
        self.blocks: list[int] = [id(fn.body)]
        #: launches a name bound in several blocks reaches (``if a: f = matmul(...)`` / ``else:
        #: f = matmul(...)``): the launch, the name and its binding statements
        self.ambiguous: list[tuple[cst.Call, str, list[cst.SimpleStatementLine]]] = []
        #: ``f = factory(...)`` of an undecorated factory (a prim_func, compiled later)
        self.prims: dict[str, _Built] = {}
        self.spread: dict[str, cst.Dict] = {}
        self.found: list[_Launch] = []
        #: Name nodes that are no use of a kernel's value (call targets, bindings, attributes)
        self.not_uses: set[int] = set()
        self.misused: list[cst.Name] = []

    def build_of(self, call: cst.Call, node: cst.SimpleStatementLine | None) -> _Built | None:
        """What ``call`` builds a kernel of, if it does."""
        here = (node,) if node is not None else ()
        func = call.func
        if isinstance(func, cst.Name) and func.value in self.factories:
            return None if func.value in self.plain else (func.value, call, here)
        found = compiled_of(call, self.mod, self.g)
        if found is None:
            return None
        built = found[0]
        if isinstance(built, cst.Call) and isinstance(built.func, cst.Name):
            name = built.func.value
            return (name, built, here) if name in self.plain else None
        if isinstance(built, cst.Name) and built.value in self.prims:
            name, prim_call, by = self.prims[built.value]
            self.not_uses.add(id(built))
            return name, prim_call, by + here
        return None

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        self.line.append(node)
        small = node.body[0]
        if not (
            isinstance(small, cst.Assign)
            and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name)
        ):
            return
        var = small.targets[0].target.value
        self.not_uses.add(id(small.targets[0].target))
        value = small.value
        if isinstance(value, cst.Dict):
            self.spread[var] = value
        if not isinstance(value, cst.Call):
            return
        built = self.build_of(value, node)
        if built is not None:
            self.built[var] = built
            self.bindings.append((var, built))
        elif isinstance(value.func, cst.Name) and value.func.value in self.plain:
            self.prims[var] = (value.func.value, value, (node,))
        else:
            return
        self.binders.setdefault(var, []).append((self.blocks[-1], node))

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self.blocks.append(id(node))

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock) -> None:
        self.blocks.pop()

    def _check_one_build(self, call: cst.Call, by: tuple[cst.SimpleStatementLine, ...]) -> None:
        """Record ``call`` as ambiguous where a name its build went through was bound more than
        once and last in a block that does not enclose the launch (``if a: f = matmul(...)`` /
        ``else: f = matmul(...)``, then a launch after the ``if``): which build runs is decided
        as the host runs, and the translation launches one kernel with one build's arguments.
        A binding in a block enclosing the launch is the one that reaches it."""
        for stmt in by:
            small = stmt.body[0]
            assert isinstance(small, cst.Assign) and isinstance(small.targets[0].target, cst.Name)
            var = small.targets[0].target.value
            binders = self.binders.get(var, [])
            if len(binders) > 1 and binders[-1][0] not in self.blocks:
                self.ambiguous.append((call, var, [b for _, b in binders]))
                return

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        line = self.line[-1] if self.line else None
        if isinstance(func, cst.Name) and func.value in self.built:
            self.not_uses.add(id(func))
            name, build, by = self.built[func.value]
            self._check_one_build(node, by)
            self.found.append(_Launch(self.fn, name, build, node, line, by, dict(self.spread)))
        elif isinstance(func, cst.Call):
            built = self.build_of(func, None)
            if built is not None:
                name, build, _ = built
                self.found.append(_Launch(self.fn, name, build, node, line, (), dict(self.spread)))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.not_uses.add(id(node.attr))

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self.not_uses.add(id(node.keyword))

    def visit_Param(self, node: cst.Param) -> None:
        self.not_uses.add(id(node.name))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.not_uses.add(id(node.name))

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in self.built and id(node) not in self.not_uses:
            self.misused.append(node)


def host_calls(
    module: cst.Module,
    mod: ModuleFacts,
    factories: dict[str, Factory],
    plain: set[str],
    tunings: list[Tuning],
) -> tuple[list[_Launch], list[TranslationError], list[ir.HostEdit]]:
    """Each host function's launches (the arguments of a factory's first launch give its
    defaults), the host code's refusals, which the caller raises once the kernels are read
    (a kernel's own refusal says more): a factory named anywhere else than in a launch it
    builds, or a built kernel used otherwise than called (the translation replaces the factory
    by its kernel, so such code would call the new kernel as a factory); and the edits that drop
    a test or benchmark function's reads of TileLang's kernel object (see :mod:`.harness`)."""
    found: list[_Launch] = []
    problems: list[TranslationError] = []
    edits: list[ir.HostEdit] = []
    #: builds only a dropped harness used: seen, so their arguments are launch values
    harnessed: list[tuple[str, cst.Call, cst.FunctionDef]] = []
    patterns = list(grammar()["kernel"]["harness_functions"])
    for stmt in [*module.body, script_function(module)]:
        if not isinstance(stmt, cst.FunctionDef) or stmt.name.value in factories:
            continue
        if decorator_of(stmt, mod, grammar()["kernel"]["decorator"]) is not None:
            continue  # an eager kernel: its own host function (eager_host)
        if any(t.fn is stmt for t in tunings):
            continue  # it drives TileLang's AutoTuner: its body goes (autotuner.stub_text)
        finder = _LaunchFinder(stmt, factories, plain, mod)
        stmt.visit(finder)
        misused = finder.misused
        if is_harness(stmt.name.value, patterns) and misused:
            harness = harness_reads(stmt, set(finder.built), mod)
            problems.extend(harness.problems)
            misused = [use for use in misused if id(use) not in harness.reads]
            launched = {id(launch.build) for launch in finder.found}
            for var, (name, build, by) in finder.bindings:
                if id(build) in launched or any(use.value == var for use in misused):
                    continue
                # Built for the harness alone: the build goes with it, its arguments are the
                # one launch of the factory there is to see.
                harnessed.append((name, build, stmt))
                note = f"tiletrans: dropped the build of `{var}`, which only the harness below used"
                edits.extend(ir.HostEdit("remove", mod.locate.span(b), note=note) for b in by)
            edits.extend(
                ir.HostEdit("remove", mod.locate.span(line), note=note)
                for line, note in harness.dropped
            )
            edits.extend(
                ir.HostEdit("replace", mod.locate.span(line), text="return", note=note)
                for line, note in harness.returns
            )
        problems.extend(
            mod.error(
                call,
                f"the kernel launched here is built from `{var}`, which lines "
                f"{', '.join(str(mod.locate(b).line) for b in binders)} bind in different "
                "blocks: which build runs is decided as the host runs",
                f"bind `{var}` once before the launch (one factory call, its arguments chosen "
                "by expressions), or launch each build in its own branch",
            )
            for call, var, binders in finder.ambiguous
        )
        problems.extend(
            mod.error(
                use,
                f"the kernel `{use.value}` is used here otherwise than called",
                f"call it (`{use.value}(a, b)`): the translation launches the target kernel there",
            )
            for use in misused
        )
        found.extend(finder.found)
    tuned = {id(t.fn) for t in tunings}
    read = {id(launch.build.func) for launch in found} | {id(b.func) for _, b, _ in harnessed}
    problems.extend(_factory_uses(module, mod, factories, read, tuned))
    for launch in found:
        bound = _bind(launch.build, factories[launch.factory].params, mod, launch.spread)
        _seen_launch(mod, launch.factory, launch.fn, bound)
    for name, build, fn in harnessed:
        try:
            bound = _bind(build, factories[name].params, mod)
        except TranslationError:
            continue  # `**best_config` of a tuner's result: the build goes, nothing is seen
        _seen_launch(mod, name, fn, bound)
    return found, problems, edits


#: the name of the host function :func:`script_function` makes of a module's script code
SCRIPT = "__main__"


def script_function(module: cst.Module) -> cst.FunctionDef:
    """The module's own statements (all but its functions and classes: ``if __name__ ==
    "__main__":`` blocks, module-level builds and launches) as the body of one private host
    function ``__main__``. TileLang's example folder checks its kernels from script code; the
    nodes are the module's own, so launch sites and dropped harness lines are located and
    rewritten in place, and no entry of that name is public (none is validated)."""
    script = [st for st in module.body if not isinstance(st, (cst.FunctionDef, cst.ClassDef))]
    body = cst.IndentedBlock(script or [cst.SimpleStatementLine([cst.Pass()])])
    return cst.FunctionDef(name=cst.Name(SCRIPT), params=cst.Parameters(), body=body)


def _seen_launch(
    mod: ModuleFacts,
    name: str,
    fn: cst.FunctionDef,
    bound: dict[str, cst.BaseExpression],
) -> None:
    """Record the arguments of a launch of factory ``name`` in ``fn``, if it is the first."""
    if name in mod.launch_args:
        return  # the first launch gives the values
    mod.launch_args[name] = bound
    mod.launch_values[name] = seen_values(bound, fn)


def _factory_uses(
    module: cst.Module,
    mod: ModuleFacts,
    factories: dict[str, Factory],
    read: set[int],
    tuned: set[int],
) -> list[TranslationError]:
    """A refusal of each factory named outside the launches :func:`host_calls` read (``read``:
    the ids of their callee names): a build at module level, a factory passed to TileLang's
    AutoTuner, a build never launched."""
    problems: list[TranslationError] = []

    class Uses(cst.CSTVisitor):
        def __init__(self) -> None:
            self.skip: set[int] = set()

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            self.skip.add(id(node.name))
            return node.name.value not in factories and id(node) not in tuned

        def visit_Attribute(self, node: cst.Attribute) -> None:
            self.skip.add(id(node.attr))

        def visit_Arg(self, node: cst.Arg) -> None:
            if node.keyword is not None:
                self.skip.add(id(node.keyword))

        def visit_Name(self, node: cst.Name) -> None:
            if node.value in factories and id(node) not in read | self.skip:
                mod.unread_uses.setdefault(node.value, mod.locate(node))
                problems.append(
                    mod.error(
                        node,
                        f"the kernel factory `{node.value}` is used here otherwise than built and "
                        "launched in a function",
                        f"build and launch it in a function: `kernel = {node.value}(...)` (or "
                        f"`tilelang.compile({node.value}(...), out_idx=...)`), then `kernel(a, b)`; "
                        "the translation replaces the factory by its kernel",
                    )
                )

    module.visit(Uses())
    return problems


def _bind(
    call: cst.Call,
    names: list[str],
    mod: ModuleFacts,
    spread: dict[str, cst.Dict] | None = None,
) -> dict[str, cst.BaseExpression]:
    out: dict[str, cst.BaseExpression] = {}
    for i, arg in enumerate(call.args):
        if (
            arg.star == "**"
            and isinstance(arg.value, cst.Name)
            and arg.value.value in (spread or {})
        ):
            out.update(_spread(spread[arg.value.value], mod))  # type: ignore[index]
        elif arg.star:
            raise mod.error(
                arg,
                "a factory call with *args, or **kwargs of no literal dict, is not read",
                "pass the factory's arguments by name, or `**config` of a literal dict",
            )
        elif arg.keyword is not None:
            out[arg.keyword.value] = arg.value
        elif i < len(names):
            out[names[i]] = arg.value
    return out


def _spread(config: cst.Dict, mod: ModuleFacts) -> dict[str, cst.BaseExpression]:
    """``{"block_M": 128, ...}`` as keyword arguments."""
    out: dict[str, cst.BaseExpression] = {}
    for el in config.elements:
        if not (isinstance(el, cst.DictElement) and isinstance(el.key, cst.SimpleString)):
            raise mod.error(el, "a `**config` dict maps literal names to values")
        out[str(el.key.evaluated_value)] = el.value
    return out


def host_plan(
    launches: list[_Launch],
    mod: ModuleFacts,
    factories: dict[str, Factory],
    kernels: dict[str, ir.Kernel],
) -> tuple[list[ir.Site], list[ir.Entry], list[ir.HostEdit]]:
    """Launch sites, (incomplete) entries and the edits that drop the factory calls."""
    g = grammar()
    sites: list[ir.Site] = []
    edits: list[ir.HostEdit] = []
    removed: set[int] = set()
    bodies: dict[str, list[ir.Stmt]] = {}
    fns: dict[str, cst.FunctionDef] = {}
    for launch in launches:
        fac = factories[launch.factory]
        kernel = kernels[launch.factory]
        bound = _bind(launch.build, fac.params, mod, launch.spread)
        _check_assumed(fac, bound, launch, mod)

        text = functools.partial(_arg_text, bound=bound, fac=fac, call=launch.build, mod=mod)

        inputs = [n for i, n in enumerate(fac.tensor_order) if not _is_out(i, fac)]
        outputs = [n for i, n in enumerate(fac.tensor_order) if _is_out(i, fac)]
        inputs += list(fac.runtime_scalars)  # after the tensors (the frontend checked)
        pos, kw = call_args(launch.call)
        if kw or len(pos) != len(inputs):
            raise mod.error(
                launch.call, f"the kernel takes {len(inputs)} arguments ({', '.join(inputs)})"
            )
        texts = {n: source_of(a) for n, a in zip(inputs, pos)}
        device = texts[inputs[0]] if inputs else "'cuda'"
        setup: list[str] = []
        target = None
        stmt = launch.statement
        small = stmt.body[0] if stmt is not None else None
        single = (
            len(outputs) == 1
            and isinstance(small, cst.Assign)
            and small.value is launch.call
            and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name)
        )
        for n in outputs:
            host = small.targets[0].target.value if single else f"_{n.lower()}"  # type: ignore[union-attr]
            shape, dt = fac.tensors[n]
            dims = ", ".join(_host_text(e, text, mod) for e in shape)
            dims += "," if len(shape) == 1 else ""
            setup.append(
                f"{host} = torch.empty(({dims}), dtype={_host_dtype(dt, text, g)}, "
                f"device={_atom(device)}.device)"
            )
            texts[n] = host
        value = None if single or not outputs else ", ".join(texts[n] for n in outputs)
        if single:
            site = ir.Site(mod.locate.span(stmt), statement=True)  # type: ignore[arg-type]
        else:
            site = ir.Site(mod.locate.span(launch.call), statement=False)
        sites.append(site)
        del target
        for by in launch.built_by:
            if id(by) not in removed:
                removed.add(id(by))
                edits.append(ir.HostEdit("remove", mod.locate.span(by)))
        body = bodies.setdefault(launch.fn.name.value, [])
        fns[launch.fn.name.value] = launch.fn
        args = []
        arg_texts = []
        for p in kernel.params:
            t = texts.get(p.name) if p.kind == "tensor" or p.name in texts else text(p.name)
            assert t is not None
            tmp = f"_{kernel.name}_{p.name}_{len(sites) - 1}"
            body.append(ir.Carried(tmp, p.kind, t, p.rank))
            args.append(ir.Name(tmp))
            arg_texts.append(t)
        tuned = tuple(
            source_of(bound[p]) for p in fac.params if p in bound and _is_tunable(p, kernel, fac)
        )
        body.append(
            ir.Launch(
                kernel.name,
                tuple(args),
                tuple(arg_texts),
                site=len(sites) - 1,
                tuned=tuned,
                setup=tuple(setup),
                value=value,
            )
        )
    entries = []
    for name, body in bodies.items():
        fn = fns[name]
        params = tuple(_host_param(p) for p in fn.params.params)
        # The script's pseudo function is no function a caller could call (nor validate).
        entries.append(ir.Entry(name, params, tuple(body), complete=False, public=name != SCRIPT))
    return sites, entries, edits


def _check_assumed(
    fac: Factory, bound: dict[str, cst.BaseExpression], launch: _Launch, mod: ModuleFacts
) -> None:
    """Refuse a launch that passes a parameter a factory ``if`` was decided by another value
    than the one it was decided for (the translated kernel holds that branch only)."""
    values = seen_values(bound, launch.fn)
    for param, (value, stmt) in fac.assumed.items():
        source = values.get(param) if param in bound else fac.defaults.get(param)
        try:
            here = literal(source) if source is not None else None
            known = source is not None
        except ValueError:
            known = False
        if known and here == value and type(here) is type(value):
            continue
        given = bound.get(param, fac.defaults.get(param))
        shown = source_of(given).strip() if given is not None else "nothing"
        raise mod.error(
            launch.build,
            f"this launch passes `{param}` = `{shown}`, but the `if` at line "
            f"{mod.locate(stmt).line} was decided for {value!r}, the value of its first launch",
            f"pass `{param}` the same literal at every launch of `{fac.fn.name.value}`, or "
            "give each value a factory of its own",
        )


def eager_host(
    fac: Factory, kernel: ir.Kernel, mod: ModuleFacts, g: dict, site: int
) -> tuple[ir.Site, ir.Entry, list[ir.HostEdit]]:
    """An eager kernel's function as the host function of its translation: the decorator goes,
    the kernel is defined before it, ``T.const`` sizes are read from the tensors' shapes,
    tensor annotations go, ``T.empty`` outputs become ``torch.empty`` and the ``with
    T.Kernel`` block becomes the launch; its signature, docstring and return stay."""
    fn, eager = fac.fn, fac.eager
    assert eager is not None and fac.kernel_with is not None
    edits = [
        ir.HostEdit("remove", mod.locate.span(d))
        for d in fn.decorators
        if mod.name_of(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator)
        in (g["kernel"]["decorator"], *g["kernel"]["autotuners"])
    ]
    edits.append(ir.HostEdit("insert", mod.locate.span(fn), kernels=(kernel.name,)))
    for stmt, names in eager.consts:
        edits.append(ir.HostEdit("replace", mod.locate.span(stmt), text=_size_text(names, fac)))
    annotated = ", ".join(f"`{n}`" for n in eager.inputs)
    for i, stmt in enumerate(eager.annotations):
        # One note for all: TileLang checked shapes and dtypes against them at each call.
        note = f"tiletrans: dropped the T.Tensor annotations of {annotated}" if i == 0 else None
        edits.append(ir.HostEdit("remove", mod.locate.span(stmt), note=note))
    device = eager.inputs[0] if eager.inputs else None
    for stmt, name in eager.outputs:
        shape, dtype = fac.tensors[name]
        dims = ", ".join(source_of(e) for e in shape) + ("," if len(shape) == 1 else "")
        where = f", device={device}.device" if device else ""
        text = f"{name} = torch.empty(({dims}), dtype={_eager_dtype(dtype, mod, g)}{where})"
        edits.append(ir.HostEdit("replace", mod.locate.span(stmt), text=text))
    body: list[ir.Stmt] = []
    args: list[ir.Expr] = []
    texts: list[str] = []
    for p in kernel.params:
        if p.kind != "tensor" and p.name not in fac.params:
            raise mod.error(
                fn, f"the kernel reads `{p.name}`, which is no parameter of `{fn.name.value}`"
            )
        tmp = f"_{kernel.name}_{p.name}_{site}"
        body.append(ir.Carried(tmp, p.kind, p.name, p.rank))
        args.append(ir.Name(tmp))
        texts.append(p.name)
    tuned = tuple(p for p in fac.params if _is_tunable(p, kernel, fac))
    body.append(ir.Launch(kernel.name, tuple(args), tuple(texts), site=site, tuned=tuned))
    # An annotated tensor's rank is its annotation's (the host code may never unpack it).
    params = tuple(
        dataclasses.replace(param, rank=len(fac.tensors[param.name][0]))
        if param.kind == "tensor" and param.name in eager.inputs
        else param
        for param in map(_host_param, fn.params.params)
    )
    entry = ir.Entry(
        fn.name.value,
        params,
        tuple(body),
        complete=False,
        loc=mod.locate(fn),
        hints=_annotated_dtypes(fac, eager.inputs, mod, g),
    )
    return ir.Site(mod.locate.span(fac.kernel_with), statement=True), entry, edits


def _annotated_dtypes(
    fac: Factory, inputs: list[str], mod: ModuleFacts, g: dict
) -> tuple[tuple[str, object], ...]:
    """The dtypes an eager kernel's ``X: T.Tensor((M, N), T.float32)`` annotations bind (TileLang
    rejects any other at the call), as the entry's documented-dtypes fact, so that validation
    draws those; a dtype named by a variable binds nothing."""
    facts = []
    for name in inputs:
        dtype = _eager_dtype_name(fac.tensors[name][1], mod, g)
        if dtype:
            facts.append((name, (dtype,), "annotation"))
    return ((DTYPES_HINT, tuple(facts)),) if facts else ()


def _size_text(names: list[str], fac: Factory) -> str:
    """Host statements binding ``T.const`` sizes from the tensors they annotate:
    ``M, K = A.shape`` where one tensor's shape is exactly those names, else ``N = B.shape[1]``."""
    lines: list[str] = []
    for tensor in fac.tensor_order:
        mine = [n for n in names if fac.sizes[n][0] == tensor]
        if not mine:
            continue
        spelt = [e.value if isinstance(e, cst.Name) else None for e in fac.tensors[tensor][0]]
        if spelt == mine:
            lines.append(f"{', '.join(mine)} = {tensor}.shape")
        else:
            lines.extend(f"{n} = {tensor}.shape[{fac.sizes[n][1]}]" for n in mine)
    return "\n".join(lines)


def _eager_dtype(node: cst.BaseExpression, mod: ModuleFacts, g: dict) -> str:
    """A TileLang dtype (``T.float16``, ``"float16"``) as torch spells it."""
    ir_name = _eager_dtype_name(node, mod, g)
    return TORCH_DTYPES[ir_name] if ir_name else source_of(node)


def _eager_dtype_name(node: cst.BaseExpression, mod: ModuleFacts, g: dict) -> str | None:
    """The IR name of a TileLang dtype (``T.float16``, ``"float16"``); ``None`` for a variable."""
    name = str(node.evaluated_value) if isinstance(node, cst.SimpleString) else mod.name_of(node)
    return dtype_name(name or "", g)


def _arg_text(
    param: str,
    *,
    bound: dict[str, cst.BaseExpression],
    fac: Factory,
    call: cst.Call,
    mod: ModuleFacts,
) -> str:
    """What a launch passes for factory parameter ``param`` (its default if it passes none), or
    what the factory binds the name to where its body binds it (``accum_dtype = "float"``; ``if
    group_size == -1: group_size = 64``, decided; ``GS = group_size``): the prim_func reads that."""
    local = fac.locals.get(param)
    if isinstance(local, (cst.SimpleString, cst.Integer, cst.Float)):
        return source_of(local)
    ceildiv = isinstance(local, cst.Call) and is_ceildiv(mod.name_of(local.func))
    if (isinstance(local, (cst.Name, cst.BinaryOperation)) or ceildiv) and param not in names_in(
        local  # type: ignore[arg-type]
    ):
        own = functools.partial(_arg_text, bound=bound, fac=fac, call=call, mod=mod)
        return _host_text(local, own, mod)
    if param in bound:
        return source_of(bound[param])
    if param in fac.defaults:
        return source_of(fac.defaults[param])
    raise mod.error(call, f"the factory call passes no `{param}`")


def _is_tunable(param: str, kernel: ir.Kernel, fac: Factory) -> bool:
    names = {t.name for t in kernel.tunables}
    # A persistent kernel's program count is a launch knob the schedule hint stands for.
    persistent = (kernel.hints.schedule or "").startswith("persistent_") and param == "num_sms"
    return param in names or param in ("threads", "num_stages") or persistent


def _host_param(p: cst.Param) -> ir.Param:
    ann = source_of(p.annotation.annotation) if p.annotation else None
    kind = {"int": "int", "float": "float", "bool": "bool"}.get(ann or "", "tensor")
    return ir.Param(p.name.value, kind)


def _is_out(index: int, fac: Factory) -> bool:
    # out_idx counts every prim_func parameter (scalars come after the tensors).
    n = len(fac.tensor_order) + len(fac.runtime_scalars)
    return any(i % n == index for i in fac.out_idx)


def _atom(text: str) -> str:
    return text if text.replace("_", "").replace(".", "").isalnum() else f"({text})"


def _host_text(
    node: cst.BaseExpression, text: Callable[[str], str], mod: ModuleFacts | None = None
) -> str:
    """A shape entry of a tensor annotation, in the host's words (factory parameters replaced by
    what the launch passes, ``T.ceildiv(a, b)`` as integer arithmetic); anything else is a
    located refusal, never the factory's own spelling in host code."""
    if isinstance(node, cst.Name):
        return text(node.value)
    if isinstance(node, cst.Integer):
        return node.value
    if isinstance(node, cst.BinaryOperation):
        return (
            f"({_host_text(node.left, text, mod)}{node.operator.whitespace_before.value}"
            f"{source_of(node.operator).strip()} {_host_text(node.right, text, mod)})"
        )
    if (
        mod is not None
        and isinstance(node, cst.Call)
        and is_ceildiv(mod.name_of(node.func))
        and len(node.args) == 2
    ):
        a, b = (_host_text(arg.value, text, mod) for arg in node.args)
        return f"(({a} + {b} - 1) // {b})"
    if mod is None:
        return source_of(node)
    raise mod.error(
        node,
        f"the output shape entry `{source_of(node).strip()}` is not read for host code",
        "shape outputs by factory parameters, literals, arithmetic and T.ceildiv",
    )


def _host_dtype(node: cst.BaseExpression, text: Callable[[str], str], g: dict) -> str:
    """The torch dtype (host text) of a factory's dtype argument ``node``."""
    if isinstance(node, cst.Name):
        node = cst.parse_expression(text(node.value))
    named = _torch_dtype_by_name(node)
    if named is not None:
        return source_of(named)
    if isinstance(node, cst.SimpleString):
        name = dtype_name(str(node.evaluated_value), g)
        if name:
            return TORCH_DTYPES[name]
    return source_of(node)


def _torch_dtype_by_name(node: cst.BaseExpression) -> cst.BaseExpression | None:
    """``x.dtype`` of ``str(x.dtype).removeprefix("torch.")`` (or ``.replace("torch.", "")``):
    a dtype passed by name, as an autotuned factory needs (its cache key is json)."""
    if not (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value in ("removeprefix", "replace")
        and node.args
        and isinstance(node.args[0].value, cst.SimpleString)
        and node.args[0].value.evaluated_value == "torch."
    ):
        return None
    inner = node.func.value
    if (
        isinstance(inner, cst.Call)
        and isinstance(inner.func, cst.Name)
        and inner.func.value == "str"
        and len(inner.args) == 1
    ):
        return inner.args[0].value
    return None


def seen_values(
    bound: dict[str, cst.BaseExpression], fn: cst.FunctionDef
) -> dict[str, cst.BaseExpression]:
    """The literals a launch's arguments ``bound`` hold, read through the function ``fn`` that
    launches it: a name it binds once (``block_M = 128``; ``M, N = 64, 128``), a parameter's
    default it never rebinds (``def main(block_M: int = 128)``), an argparse value's default
    (``args.blk_m`` of ``parser.add_argument("--blk_m", type=int, default=64)``). Arguments that
    hold no literal are left out."""
    names = _bindings(fn)
    out: dict[str, cst.BaseExpression] = {}
    for param, node in bound.items():
        value = _seen(node, fn, names, 0)
        if value is not None:
            out[param] = value
    return out


def _is_literal(node: cst.BaseExpression) -> bool:
    """Whether ``node`` is a number, string, ``True``/``False``/``None`` or ``-1``."""
    if isinstance(node, (cst.List, cst.Tuple)):
        return False
    try:
        literal(node)
    except ValueError:
        return False
    return True


def _seen(
    node: cst.BaseExpression,
    fn: cst.FunctionDef,
    names: dict[str, cst.BaseExpression | None],
    depth: int,
) -> cst.BaseExpression | None:
    if _is_literal(node):
        return node
    if depth > 8:  # a chain of names this long is no launch value worth following
        return None
    if isinstance(node, cst.Name):
        if node.value in names:
            value = names[node.value]
            return None if value is None else _seen(value, fn, names, depth + 1)
        for p in fn.params.params:
            if p.name.value == node.value and p.default is not None:
                return _seen(p.default, fn, names, depth + 1)
        return None
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name):
        default = _argparse_default(fn, names, node.value.value, node.attr.value)
        return None if default is None else _seen(default, fn, names, depth + 1)
    return None


def _bindings(fn: cst.FunctionDef) -> dict[str, cst.BaseExpression | None]:
    """The names ``fn``'s own body binds: to the value of their one plain assignment (a name,
    or an element of a tuple assigned a tuple of the same length), ``None`` for a name bound
    otherwise or more than once (a loop target, an augmented assignment, an import)."""
    out: dict[str, cst.BaseExpression | None] = {}

    def bind(name: str, value: cst.BaseExpression | None) -> None:
        out[name] = None if name in out else value

    class V(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            if node is not fn:
                bind(node.name.value, None)
            return node is fn

        def visit_ClassDef(self, node: cst.ClassDef) -> bool:
            bind(node.name.value, None)
            return False

        def visit_Assign(self, node: cst.Assign) -> None:
            for t in node.targets:
                target, value = t.target, node.value
                if isinstance(target, cst.Name):
                    bind(target.value, value)
                elif (
                    isinstance(target, cst.Tuple)
                    and isinstance(value, cst.Tuple)
                    and len(target.elements) == len(value.elements)
                ):
                    for te, ve in zip(target.elements, value.elements):
                        for name in bound_names(te.value):
                            bind(name, ve.value if isinstance(te.value, cst.Name) else None)
                else:
                    for name in bound_names(target):
                        bind(name, None)

        def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
            for small in node.body:
                if not isinstance(small, cst.Assign):
                    for name in bound_names(small):
                        bind(name, None)

        def visit_For(self, node: cst.For) -> None:
            for name in bound_names(node.target):
                bind(name, None)

        def visit_With(self, node: cst.With) -> None:
            for item in node.items:
                if item.asname is not None:
                    for name in bound_names(item.asname.name):
                        bind(name, None)

    fn.visit(V())
    return out


def _argparse_default(
    fn: cst.FunctionDef,
    names: dict[str, cst.BaseExpression | None],
    args: str,
    dest: str,
) -> cst.BaseExpression | None:
    """The ``default=`` of the option ``args.dest`` reads, where ``args`` is bound once to
    ``parser.parse_args(...)`` and ``fn`` declares the option by ``parser.add_argument``."""
    parsed = names.get(args)
    if not (
        isinstance(parsed, cst.Call)
        and isinstance(parsed.func, cst.Attribute)
        and parsed.func.attr.value == "parse_args"
        and isinstance(parsed.func.value, cst.Name)
    ):
        return None
    parser = parsed.func.value.value
    found: list[cst.BaseExpression | None] = []

    class V(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> None:
            func = call.func
            if not (
                isinstance(func, cst.Attribute)
                and func.attr.value == "add_argument"
                and isinstance(func.value, cst.Name)
                and func.value.value == parser
            ):
                return
            pos, kw = call_args(call)
            flags = [str(a.evaluated_value) for a in pos if isinstance(a, cst.SimpleString)]
            long = [f for f in flags if f.startswith("--")] or flags
            named = kw.get("dest")
            option = (
                str(named.evaluated_value)
                if isinstance(named, cst.SimpleString)
                else (long[0].lstrip("-").replace("-", "_") if long else None)
            )
            if option == dest:
                found.append(kw.get("default"))

    fn.visit(V())
    return found[0] if len(found) == 1 else None
