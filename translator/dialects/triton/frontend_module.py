"""The Triton frontend's module-level reading: which functions are ``@triton.jit`` kernels and
helpers, the module's constants, and each kernel's decorators (``@triton.autotune`` configs,
``@triton.heuristics`` and the named functions they call, kept decorators), before any host code
is interpreted (:mod:`translator.dialects.triton.frontend`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import libcst as cst

from translator.diagnostics import TranslationError
from translator.dialects.common.host_api import HostFunction, host_functions
from translator.dialects.cst_utils import (
    Locator,
    bound_names,
    call_args,
    literal,
    resolve,
    source_of,
    substitute_names,
    walk,
)
from translator.dialects.cst_utils import names_in as cst_names_in
from translator.dialects.triton.frontend_configs import (
    FunctionRef,
    NotStatic,
    autotune_configs,
    registry_call,
    static_value,
)
from translator.dialects.triton.spin_locks import SpinLock, spin_lock_of
from translator.ir import nodes as ir


@dataclass
class KernelDef:
    """A ``@triton.jit`` function launched from host code."""

    fn: cst.FunctionDef
    params: list[str]
    constexprs: set[str]
    defaults: dict[str, cst.BaseExpression]
    configs: list[tuple[dict[str, int], dict[str, int]]] | None  # (meta, knobs) per config
    module: ModuleInfo
    # @triton.heuristics, in the order Triton evaluates them (outermost decorator first):
    # meta-parameter -> the body of `lambda args: ...`.
    heuristics: list[tuple[str, cst.BaseExpression, str]] = field(default_factory=list)
    # Host descriptor parameter -> block keys, set by the autotune configs' pre_hook.
    descriptor_blocks: dict[str, tuple] = field(default_factory=dict)
    hook_node: cst.CSTNode | None = None
    # Decorators tiletrans does not read (a library's caching wrapper): kept, outermost first.
    kept_decorators: list[str] = field(default_factory=list)
    # Module-level names the decorators read (a config list, a config function, a hook).
    consumed: set[str] = field(default_factory=set)
    # How the kernel uses each parameter: pointer | stride | int | float | constexpr.
    param_kinds: dict[str, str] = field(default_factory=dict)
    # `tiletrans:` notes on what reading its decorators assumed (for above its translation).
    notes: list[str] = field(default_factory=list)
    # Parameters the autotuner zeroes or restores around its timed runs (`reset_to_zero=`).
    restored: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class ModuleInfo:
    """What the module-level reading found in one Triton source module."""

    path: str
    module: cst.Module
    aliases: dict[str, str]
    grammar: dict
    locate: Locator
    jit: dict[str, cst.FunctionDef] = field(default_factory=dict)
    jit_helpers: dict[str, cst.FunctionDef] = field(default_factory=dict)
    functions: dict[str, cst.FunctionDef] = field(default_factory=dict)
    constants: dict[str, int | float] = field(default_factory=dict)
    kernels: dict[str, KernelDef] = field(default_factory=dict)
    # Every host function that launches a kernel.
    launch_hosts: list[HostFunction] = field(default_factory=list)
    # `kernel = softmax_kernel.warmup(...)` then `kernel[grid](...)`: per host function
    # (qualified name), name -> the kernel.
    warmup_aliases: dict[str, dict[str, str]] = field(default_factory=dict)
    # Module-level statements by the names they bind (for the host plan's removals).
    statements: dict[str, cst.CSTNode] = field(default_factory=dict)
    # Host statements the translation drops (a kernel's `.warmup(...)`), found while reading them.
    host_edits: list[ir.HostEdit] = field(default_factory=list)
    # Names imported from the library's other modules that could not be taken in, with why
    # (translator.dialects.triton.sibling_helpers).
    sibling_misses: dict[str, str] = field(default_factory=dict)
    # Helpers taken in from those modules: name -> the file read.
    sibling_sources: dict[str, str] = field(default_factory=dict)


def collect_module(info: ModuleInfo) -> None:
    g = info.grammar["frontend"]
    for stmt in info.module.body:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            info.statements[stmt.name.value] = stmt
        if isinstance(stmt, cst.FunctionDef):
            decorators = [_decorator_name(d, info.aliases) for d in stmt.decorators]
            if g["kernel"]["decorator"] in decorators:
                info.jit[stmt.name.value] = stmt
            else:
                info.functions[stmt.name.value] = stmt
        elif isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                target, value_node = _module_binding(small)
                if target is not None and value_node is not None:
                    info.statements[target] = stmt
                    value = _const_int(_constexpr_value(value_node, info.aliases), info.constants)
                    if value is not None:
                        info.constants[target] = value
    launched: set[str] = set()
    for function in host_functions(info.module, skip=info.jit):
        aliases = {
            name: kernel
            for name, kernel in _warmup_aliases(function.node).items()
            if kernel in info.jit
        }
        info.warmup_aliases[function.qualname] = aliases
        names = {aliases.get(n, n) for n in _launched_names(function.node)} & set(info.jit)
        if names:
            launched |= names
            info.launch_hosts.append(function)
    for name, fn in info.jit.items():
        if name in launched:
            info.kernels[name] = _kernel_def(fn, info)
        else:
            info.jit_helpers[name] = fn


def _decorator_name(d: cst.Decorator, aliases: dict[str, str]) -> str | None:
    target = d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator
    return resolve(target, aliases)


def _module_binding(
    small: cst.BaseSmallStatement,
) -> tuple[str | None, cst.BaseExpression | None]:
    """``NAME = value`` or ``NAME: annotation = value`` at module level: (name, value)."""
    if (
        isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
    ):
        return small.targets[0].target.value, small.value
    if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
        return small.target.value, small.value
    return None, None


def _constexpr_value(node: cst.BaseExpression, aliases: dict[str, str]) -> cst.BaseExpression:
    """``v`` of ``tl.constexpr(v)`` (Liger's module constants), else ``node``."""
    if (
        isinstance(node, cst.Call)
        and len(node.args) == 1
        and (resolve(node.func, aliases) or "").endswith("language.constexpr")
    ):
        return node.args[0].value
    return node


def _const_int(node: cst.BaseExpression, constants: dict) -> int | float | None:
    """A module-level number (``BLOCK = 2 ** 10``) from literals and earlier constants."""
    try:
        value = static_value(node, {}, constants)
    except NotStatic:
        return None
    is_number = isinstance(value, (int, float)) and not isinstance(value, bool)
    return value if is_number else None  # type: ignore[return-value]


def _launched_names(fn: cst.FunctionDef) -> set[str]:
    names: set[str] = set()

    class V(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            if isinstance(node.func, cst.Subscript) and isinstance(node.func.value, cst.Name):
                names.add(node.func.value.value)

    fn.visit(V())
    return names


def _warmup_aliases(fn: cst.FunctionDef) -> dict[str, str]:
    """Names bound to a kernel's compiled form, ``kernel = softmax_kernel.warmup(...)`` (the
    fused-softmax tutorial's, launched as ``kernel[grid](...)``): name -> kernel."""
    found: dict[str, str] = {}

    class V(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            value = node.value
            if (
                len(node.targets) == 1
                and isinstance(node.targets[0].target, cst.Name)
                and isinstance(value, cst.Call)
                and isinstance(value.func, cst.Attribute)
                and value.func.attr.value == "warmup"
                and isinstance(value.func.value, cst.Name)
            ):
                found[node.targets[0].target.value] = value.func.value.value

    fn.visit(V())
    # A name bound otherwise too (another warmup, a parameter, an assignment) is not the one
    # kernel's compiled form everywhere: no alias.
    params = fn.params
    bindings = Counter(bound_names(fn.body))
    bindings.update(
        p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)
    )
    return {name: kernel for name, kernel in found.items() if bindings.get(name) == 1}


def _kernel_def(fn: cst.FunctionDef, info: ModuleInfo) -> KernelDef:
    g = info.grammar["frontend"]
    params, constexprs, defaults = [], set(), {}
    ps = fn.params
    if ps.star_arg not in (None, cst.MaybeSentinel.DEFAULT) or ps.star_kwarg is not None:
        raise TranslationError(
            "kernels with *args/**kwargs are not supported",
            info.locate(fn),
            "list the kernel's parameters",
        )
    for p in (*ps.posonly_params, *ps.params, *ps.kwonly_params):
        params.append(p.name.value)
        if p.annotation is not None and resolve(p.annotation.annotation, info.aliases) == (
            f"{info.grammar['device_module']}.constexpr"
        ):
            constexprs.add(p.name.value)
        if p.default is not None:
            defaults[p.name.value] = p.default
    configs = None
    hook: FunctionRef | None = None
    heuristics: list[tuple[str, cst.BaseExpression, str]] = []
    kept: list[str] = []
    consumed: set[str] = set()
    config_notes: list[str] = []
    restored: list[tuple[str, str]] = []
    for d in fn.decorators:
        name = _decorator_name(d, info.aliases)
        if name == g["kernel"]["heuristics"]:
            heuristics += _heuristics(d, info)
            continue
        if name == g["kernel"]["autotune"]:
            configs, hook = autotune_configs(d, info, config_notes, restored)
            consumed |= {n for n in cst_names_in(d) if n in info.statements}
        elif name not in (g["kernel"]["decorator"],):
            # A decorator tiletrans does not read (a library's caching or registration
            # wrapper) stays above the translated kernel.
            kept.append(source_of(d.decorator))
    _prescan(fn, info, set())
    launch_keys = (*g["kernel"]["launch_keys"], *g["kernel"]["ignored_launch_keys"])
    for key, body, _ in heuristics:
        # A launch knob (`num_warps`) is what the launch would set: read as the launch's.
        if key not in constexprs and key not in launch_keys:
            raise TranslationError(
                f"@triton.heuristics sets `{key}`, which is no tl.constexpr "
                f"parameter of `{fn.name.value}`",
                info.locate(body),
                f"heuristics compute tl.constexpr parameters and launch knobs: declare "
                f"`{key}: tl.constexpr`",
            )
    kernel = KernelDef(
        fn, params, constexprs, defaults, configs, info, heuristics, kept_decorators=kept,
        consumed=consumed, notes=config_notes, restored=restored,
    )  # fmt: skip
    from translator.dialects.triton.frontend_wrapper import param_kinds

    kernel.param_kinds = param_kinds(fn, info.aliases)
    if hook is not None:
        from translator.dialects.triton.frontend_descriptors import block_shape_hook

        kernel.descriptor_blocks = block_shape_hook(info.functions[hook.name], info)
        kernel.hook_node = hook.node
    return kernel


def imported_launch(module: cst.Module, info: ModuleInfo) -> tuple[cst.Call, str, str] | None:
    """The first ``kernel[grid](...)`` of ``module`` whose kernel an import brings in (the
    launch, the kernel's name, the module it comes from)."""
    origins: dict[str, str] = {}
    for stmt in module.body:
        for small in stmt.body if isinstance(stmt, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.ImportFrom) and not isinstance(small.names, cst.ImportStar):
                origin = "." * len(small.relative) + (
                    source_of(small.module) if small.module else ""
                )
                for alias in small.names:
                    bound = alias.asname.name if alias.asname else alias.name
                    if isinstance(bound, cst.Name):
                        origins[bound.value] = origin.strip()
    found: list[tuple[cst.Call, str, str]] = []

    def visit(node: cst.CSTNode) -> bool:
        if (
            not found
            and isinstance(node, cst.Call)
            and isinstance(node.func, cst.Subscript)
            and isinstance(node.func.value, cst.Name)
            and node.func.value.value in origins
        ):
            found.append((node, node.func.value.value, origins[node.func.value.value]))
        return not found

    walk(module, visit)
    return found[0] if found else None


def default_of(p: cst.Param) -> ir.Expr | None:
    """A parameter's default as the IR keeps it: a literal, or its source text (``ir.Name``),
    which validation leaves to the function (the argument is not passed)."""
    if p.default is None:
        return None
    try:
        value = literal(p.default)
    except ValueError:
        return ir.Name(source_of(p.default))
    return (
        ir.Const(value)
        if isinstance(value, (int, float, bool, str)) or value is None
        else (ir.Name(source_of(p.default)))
    )


def _heuristics(d: cst.Decorator, info: ModuleInfo) -> list[tuple[str, cst.BaseExpression, str]]:
    """``@triton.heuristics({"NAME": lambda args: expr, ...})``: (name, expr, args name)."""
    call = d.decorator
    args, kwargs = call_args(call) if isinstance(call, cst.Call) else ([], {})
    table = args[0] if args else kwargs.get("values")
    if not isinstance(table, cst.Dict):
        registry = registry_call(table, info.aliases)
        raise TranslationError(
            f"@triton.heuristics reads its table from `{registry}`, a registry that is filled "
            "at run time, which tiletrans does not read (it never runs the library)"
            if registry is not None
            else "@triton.heuristics needs a dict literal of lambdas",
            info.locate(table if registry is not None and table is not None else d),
            'write the heuristics inline: @triton.heuristics({"NAME": lambda args: ...})',
        )
    out = []
    for el in table.elements:
        if not isinstance(el, cst.DictElement) or not isinstance(el.key, cst.SimpleString):
            raise TranslationError(
                "@triton.heuristics keys must be string literals", info.locate(el)
            )
        fn = el.value
        if isinstance(fn, cst.Name) and fn.value in info.functions:
            # A named heuristic (FlagGems keeps them in a table of functions): its returns.
            named = info.functions[fn.value]
            params = named.params.params
            if len(params) == 1 and not isinstance(named.params.star_arg, cst.Param):
                value = _returned(named.body.body, info, named)
                out.append((literal(el.key), value, params[0].name.value))
                continue
        if not isinstance(fn, cst.Lambda) or len(fn.params.params) != 1:
            raise TranslationError(
                "a heuristic must be `lambda args: ...` or a module function of `args`",
                info.locate(fn),
                'compute the value from args["NAME"] in a lambda',
            )
        out.append((literal(el.key), fn.body, fn.params.params[0].name.value))
    return out


def _returned(
    stmts: Sequence[cst.BaseStatement], info: ModuleInfo, where: cst.CSTNode
) -> cst.BaseExpression:
    """What a heuristic function's statements return, as one expression: ``return e``, and
    ``if``/``elif``/``else`` chains of returns as conditional expressions (``if c: return a``
    followed by ``return b`` too). ``where`` locates a path that returns nothing."""
    if not stmts:
        raise TranslationError(
            "a heuristic function must return a value on every path", info.locate(where)
        )
    first, rest = stmts[0], stmts[1:]
    if isinstance(first, cst.SimpleStatementLine) and len(first.body) == 1:
        small = first.body[0]
        if isinstance(small, cst.Return) and small.value is not None:
            return small.value
        if (
            isinstance(small, cst.Assign)
            and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name)
        ):
            # A local (`b = triton.next_power_of_2(args["n"])`): its value where it is read.
            later = _returned(rest, info, first)
            return substitute_names(later, {small.targets[0].target.value: small.value})
    if isinstance(first, cst.If):
        then = _returned(first.body.body, info, first)
        if first.orelse is None:
            otherwise = _returned(rest, info, first)
        elif isinstance(first.orelse, cst.If):
            otherwise = _returned([first.orelse], info, first.orelse)
        else:
            otherwise = _returned(first.orelse.body.body, info, first.orelse)
        return cst.IfExp(test=first.test, body=then, orelse=otherwise)
    raise TranslationError(
        "a heuristic function may only return values, under `if`/`elif`/`else`",
        info.locate(first),
        'write it as `return ...` of args["NAME"], or as a lambda',
    )


def _prescan(fn: cst.FunctionDef, info: ModuleInfo, seen: set[str]) -> None:
    """Refuse constructs this slice does not lift, at their first use in a kernel or its helpers,
    before any host code is interpreted (so the diagnostic names the real reason)."""
    seen.add(fn.name.value)
    lang = info.grammar["device_module"] + "."
    unsupported = info.grammar["frontend"]["unsupported"]
    calls: list[cst.Call] = []

    class V(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            calls.append(node)

    fn.body.visit(V())
    for call in calls:
        name = resolve(call.func, info.aliases) or ""
        if (
            isinstance(call.func, cst.Name)
            and call.func.value in info.jit
            and (call.func.value not in seen)
        ):
            _prescan(info.jit[call.func.value], info, seen)
        if name == lang + "atomic_cas":
            lock = spin_lock_of(call, fn, info.aliases, info.grammar["device_module"])
            if lock is not None:
                raise _spin_lock_refusal(call, lock, info)
        if name.startswith(lang):
            short = name[len(lang) :].removeprefix("math.")
            reason = unsupported.get(lang + short)  # keyed by dotted names
            if reason is not None:
                raise TranslationError(
                    f"`tl.{short}` is not supported yet", info.locate(call), reason
                )


def _spin_lock_refusal(call: cst.Call, lock: SpinLock, info: ModuleInfo) -> TranslationError:
    """The refusal of a lock-guarded section (:mod:`spin_locks`): what it guards, and the
    atomic accumulation to write instead."""
    guarded = list(dict.fromkeys(source_of(s.args[0].value) for s in lock.stores if s.args))
    if lock.release is not None:
        until = f"up to `{source_of(lock.release)}` (line {info.locate(lock.release).line})"
    else:
        until = "up to its release"
    stores = ", ".join(f"`{g}`" for g in guarded) or "memory"
    target = f"`tl.atomic_add({guarded[0]}, share, mask=...)`" if guarded else "`tl.atomic_add`"
    return TranslationError(
        f"`{source_of(call)}` spins on a lock: {until}, one program at a time "
        f"stores {stores}; the IR has no locks or critical sections, and proving the section "
        "an atomic accumulation needs facts the kernel alone does not give (that one lock "
        "owns each address, what the buffer holds at a first visit, how each step rounds)",
        info.locate(call),
        f"accumulate each program's share with {target} into a buffer the host zeroes "
        "(`torch.zeros`), without the section's loads, count and lock",
    )
