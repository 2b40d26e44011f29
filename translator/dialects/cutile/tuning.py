"""cuTile tuning spaces: ``ct.tune.exhaustive_search`` in host code, read as a kernel's configs.

cuTile tunes in host code (cuda-tile 1.7's documented pattern): a list of configs, searched by
``ct.tune.exhaustive_search(space, stream, grid_fn, kernel, args_fn)`` once per shape key, the
best config cached in a dict and read by the launch that follows::

    GEMM_CONFIGS = [{"TM": 128, "TN": 128, "TK": 64}, {"TM": 64, "TN": 128, "TK": 32}]
    _gemm_best = {}
    ...
        key = (a.shape, b.shape, a.dtype)
        if key not in _gemm_best:
            _gemm_best[key] = ct.tune.exhaustive_search(
                GEMM_CONFIGS, stream, lambda cfg: (...), gemm_kernel,
                lambda cfg: (a, b, c.clone(), cfg["TM"], cfg["TN"], cfg["TK"]),
            ).best.config
        cfg = _gemm_best[key]
        ct.launch(stream, grid, gemm_kernel, (a, b, c, cfg["TM"], cfg["TN"], cfg["TK"]))

The space is a literal list of dicts (``{"TM": 128}``, ``dict(TM=128)``,
``SimpleNamespace(TM=128)``) or a comprehension over literal tuples (``[dict(zip(keys, v)) for v
in itertools.product((64, 128), (32, 64))]``), bound in the module or the host function. Each key
is the ``ct.Constant[int]`` parameter that ``args_fn`` (or the launch) passes it as. The kernel's
IR gets those configs (the first is its default); the statements that exist only to tune (the
search, the pick of the cached config, a key only they read, and the module's space and cache)
are removed from the carried host code: every target writes its own tuning idiom instead.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

import libcst as cst

from translator.diagnostics import TranslationError
from translator.dialects.cst_utils import call_args, source_of

#: What to write instead, for a space the frontend does not read.
SPACE_HELP = (
    "bind the space to a literal list of dicts ({'TM': 128, ...}, dict(TM=128), "
    "SimpleNamespace(TM=128)) or a comprehension over literal tuples"
)


@dataclass
class Search:
    """One ``exhaustive_search`` call: the kernel searched and its configs (constant -> value)."""

    kernel: str
    configs: list[dict[str, int]]
    #: Config key -> kernel parameter it is passed as (from args_fn).
    keys: dict[str, str] = field(default_factory=dict)


class SpaceReader:
    """Reads search spaces and finds the host statements that exist only to tune."""

    def __init__(
        self,
        module: cst.Module,
        error: Callable[..., TranslationError],
        name_of: Callable[[cst.BaseExpression], str | None],
    ) -> None:
        self.module = module
        self.error = error
        self.name_of = name_of
        self.module_values: dict[str, tuple[cst.CSTNode, cst.BaseExpression]] = {}
        for stmt in module.body:
            bound = simple_binding(stmt)
            if bound is not None:
                self.module_values[bound[0]] = (stmt, bound[1])
        #: Names bound by a module import of that one name (``import itertools``): a space's
        #: helper module goes with the space where nothing else reads it.
        self.imports: dict[str, cst.CSTNode] = {}
        for stmt in module.body:
            name = _import_binding(stmt)
            if name is not None:
                self.imports[name] = stmt

    # ------------------------------------------------------------------ the space

    def search(
        self, call: cst.Call, fn: cst.FunctionDef, kernel_params: dict[str, list[str]]
    ) -> Search:
        """The kernel and configs of ``call`` (an ``exhaustive_search`` in ``fn``)."""
        pos, kw = call_args(call)
        names = ["search_space", "stream", "grid_fn", "kernel", "args_fn", "hints_fn"]
        args = dict(zip(names, pos))
        args.update({k: v for k, v in kw.items() if k in names})
        kernel_node = args.get("kernel")
        found = hinted_kernel(kernel_node, self.module_values) if kernel_node else None
        if found is None or found[0] not in kernel_params:
            raise self.error(
                kernel_node or call,
                "the kernel ct.tune.exhaustive_search tunes is not a @ct.kernel of this module",
                "pass the @ct.kernel function itself as the kernel argument (or "
                "`lambda cfg: BY_OCCUPANCY[cfg['occupancy']]`, a module dict of its "
                "replace_hints variants)",
            )
        kernel = cst.Name(found[0])
        # Compiler hints (occupancy, num_ctas) are no tunables of the IR: their keys are dropped
        # from the configs (a target searches its own).
        hints = {found[1]} - {None}
        space = args.get("search_space")
        if space is None:
            raise self.error(call, "ct.tune.exhaustive_search without a search space")
        configs = self.space(space, fn)
        params = kernel_params[kernel.value]
        keys = _args_keys(args.get("args_fn"), params)
        for cfg in configs:
            for key in cfg:
                if key not in keys and key in params:
                    keys[key] = key  # the config key names the parameter itself
        if args.get("hints_fn") is not None:
            read = _hint_keys(args["hints_fn"])
            if read is None:
                raise self.error(
                    args["hints_fn"],
                    "a hints_fn other than a dict of config values is not read",
                    "write `lambda cfg: {'occupancy': cfg['occupancy']}`",
                )
            hints |= read
        configs = list(
            {
                repr(c): c
                for c in ({k: v for k, v in cfg.items() if k not in hints} for cfg in configs)
            }.values()
        )
        unknown = sorted({k for cfg in configs for k in cfg if k not in keys})
        if unknown:
            raise self.error(
                space,
                f"config keys {', '.join(unknown)} are passed as no ct.Constant parameter of "
                f"`{kernel.value}`",
                "pass each config value to the kernel in args_fn (cfg['TM'] as tm)",
            )
        return Search(kernel.value, [{keys[k]: v for k, v in c.items()} for c in configs], keys)

    def space(self, node: cst.BaseExpression, fn: cst.FunctionDef) -> list[dict[str, int]]:
        """The configs ``node`` evaluates to (a name is looked up in ``fn``, then the module)."""
        if (
            isinstance(node, cst.Call)
            and self.name_of(node.func) in ("list", "tuple")
            and len(node.args) == 1
        ):
            return self.space(node.args[0].value, fn)
        if isinstance(node, cst.Name):
            value = self._local(fn, node.value)
            if value is None and node.value in self.module_values:
                value = self.module_values[node.value][1]
            if value is None:
                raise self.error(node, f"the search space `{node.value}` is not bound", SPACE_HELP)
            return self.space(value, fn)
        if isinstance(node, (cst.List, cst.Tuple)):
            return [self.config(e.value, {}, fn) for e in node.elements]
        if isinstance(node, cst.ListComp):
            out = []
            for env in self.comprehension(node.for_in, fn):
                out.append(self.config(node.elt, env, fn))
            return out
        raise self.error(node, f"the search space `{source_of(node)}` is not read", SPACE_HELP)

    def comprehension(self, clause: cst.CompFor, fn: cst.FunctionDef) -> list[dict[str, object]]:
        """Every binding of a comprehension's ``for`` clauses over literal sequences."""
        envs: list[dict[str, object]] = [{}]
        node: cst.CompFor | None = clause
        while node is not None:
            if node.ifs:
                raise self.error(node, "a filtered comprehension is not read", SPACE_HELP)
            new = []
            for env in envs:
                for value in self.sequence(node.iter, env, fn):
                    bound = dict(env)
                    _bind(node.target, value, bound, self.error)
                    new.append(bound)
            envs = new
            node = node.inner_for_in
        return envs

    def sequence(self, node: cst.BaseExpression, env: dict, fn: cst.FunctionDef) -> list[object]:
        """The items of a literal sequence, ``itertools.product`` of them, or ``range``."""
        if isinstance(node, cst.Name) and node.value not in env:
            value = self._local(fn, node.value)
            if value is None and node.value in self.module_values:
                value = self.module_values[node.value][1]
            if value is not None:
                return self.sequence(value, env, fn)
        if isinstance(node, (cst.List, cst.Tuple)):
            return [self.value(e.value, env, fn) for e in node.elements]
        if isinstance(node, cst.Call):
            name = self.name_of(node.func)
            if name in ("itertools.product", "product"):
                return list(
                    itertools.product(*(self.sequence(a.value, env, fn) for a in node.args))
                )
            if name == "range":
                return list(range(*(int(self.value(a.value, env, fn)) for a in node.args)))
        raise self.error(node, f"`{source_of(node)}` is no literal sequence", SPACE_HELP)

    def value(self, node: cst.BaseExpression, env: dict, fn: cst.FunctionDef) -> object:
        """A literal: an int, a bool, a string, a name the comprehension binds, or a tuple of
        those."""
        if isinstance(node, cst.Integer):
            return int(node.value)
        if isinstance(node, cst.Name) and node.value in ("True", "False") and node.value not in env:
            return node.value == "True"
        if isinstance(node, cst.SimpleString):
            return node.evaluated_value
        if isinstance(node, cst.Name) and node.value in env:
            return env[node.value]
        if isinstance(node, (cst.List, cst.Tuple)):
            return tuple(self.value(e.value, env, fn) for e in node.elements)
        if isinstance(node, cst.Name):
            value = self._local(fn, node.value)
            if value is None and node.value in self.module_values:
                value = self.module_values[node.value][1]
            if value is not None:
                return self.value(value, env, fn)
        raise self.error(node, f"`{source_of(node)}` is no literal", SPACE_HELP)

    def config(self, node: cst.BaseExpression, env: dict, fn: cst.FunctionDef) -> dict[str, int]:
        """One config: key -> int value."""
        out: dict[str, object] = {}
        if isinstance(node, cst.Dict):
            for el in node.elements:
                if not isinstance(el, cst.DictElement):
                    raise self.error(el, "a config unpacks another mapping", SPACE_HELP)
                out[str(self.value(el.key, env, fn))] = self.value(el.value, env, fn)
        elif isinstance(node, cst.Call) and self.name_of(node.func) in (
            "dict",
            "types.SimpleNamespace",
            "SimpleNamespace",
        ):
            pos, kw = call_args(node)
            if (
                len(pos) == 1
                and isinstance(pos[0], cst.Call)
                and self.name_of(pos[0].func) == "zip"
            ):
                keys, values = (self.value(a.value, env, fn) for a in pos[0].args)
                out.update(zip(keys, values))  # type: ignore[arg-type]
            elif pos:
                raise self.error(node, "a config built from a mapping is not read", SPACE_HELP)
            out.update({k: self.value(v, env, fn) for k, v in kw.items()})
        else:
            raise self.error(node, f"the config `{source_of(node)}` is not read", SPACE_HELP)
        for key, value in out.items():
            # A bool switches a spelling the search may choose either way (`allow_tma=`), so it
            # cannot change results: the IR keeps the sizes only.
            if not isinstance(value, int):
                raise self.error(
                    node, f"config value {key}={value!r} is no integer", "tune integer sizes"
                )
        return out  # type: ignore[return-value]

    def _local(self, fn: cst.FunctionDef, name: str) -> cst.BaseExpression | None:
        """The value of the last simple assignment of ``name`` at the top of ``fn``."""
        found = None
        for stmt in fn.body.body:
            bound = simple_binding(stmt)
            if bound is not None and bound[0] == name:
                found = bound[1]
        return found

    # ------------------------------------------------------------------ host statements

    def tuning_statements(
        self,
        fn: cst.FunctionDef,
        searches: list[cst.Call],
        launches: list[cst.Call],
    ) -> list[cst.CSTNode]:
        """The statements of ``fn`` that exist only to tune (the search, the pick of the best
        config, what only they read); module statements too (the space, the cache). They are
        looked for in the block that holds each search and its launch (a ``with`` body, each
        branch of an ``if`` that launches one of two kernels)."""
        if not launches:
            return self._block_tuning(list(fn.body.body), searches, launches)
        blocks: dict[tuple[int, ...], list[cst.BaseStatement]] = {}
        for call in launches:
            block = _block_of(fn, call)
            blocks.setdefault(tuple(id(s) for s in block), block)
        out: list[cst.CSTNode] = []
        left = list(searches)
        for block in blocks.values():
            mine = [c for c in left if any(_contains(s, c) for s in block)]
            left = [c for c in left if not any(c is m for m in mine)]
            here = [c for c in launches if any(_contains(s, c) for s in block)]
            if not mine:
                continue
            for node in self._block_tuning(block, mine, here):
                if not any(node is n for n in out):
                    out.append(node)
        if left:  # a search beside no launch's block: refused there
            first = next(iter(blocks.values()))
            self._block_tuning(first, left, launches)
        return out

    def _block_tuning(
        self,
        body: list[cst.BaseStatement],
        searches: list[cst.Call],
        launches: list[cst.Call],
    ) -> list[cst.CSTNode]:
        """:meth:`tuning_statements` of the searches and launches of one block."""
        launch_stmts = {i for i, s in enumerate(body) if any(_contains(s, c) for c in launches)}
        removed: set[int] = set()
        launch_args = {
            name for call in launches for el in _launch_args(call) for name in _names(el.value)
        }
        for call in searches:
            i = next((i for i, s in enumerate(body) if _contains(s, call)), None)
            if i is None:
                raise self.error(
                    call,
                    "ct.tune.exhaustive_search outside the block that launches the kernel",
                    "search (and cache the best config) just before the launch, in its block",
                )
            if i in launch_stmts:
                raise self.error(
                    call,
                    "ct.tune.exhaustive_search in the statement that launches the kernel",
                    "search (and cache the best config) in a statement before the launch",
                )
            removed.add(i)
        config_names = {
            arg.value.value.value
            for call in launches
            for arg in _launch_args(call)
            if isinstance(arg.value, (cst.Subscript, cst.Attribute))
            and isinstance(arg.value.value, cst.Name)
        }
        for i, s in enumerate(body):
            bound = _binding_name(s)
            if bound in config_names and i not in launch_stmts:
                removed.add(i)
        changed = True
        while changed:
            changed = False
            tuning = {_binding_name(body[i]) for i in removed} - {None}
            for i, s in enumerate(body):
                if i in removed or i in launch_stmts:
                    continue
                bound = _binding_name(s)
                reads = _names(s) - ({bound} if bound else set())
                if bound is None:
                    if reads & tuning:
                        raise self.error(
                            s,
                            f"`{sorted(reads & tuning)[0]}` (the tuned config) is read outside "
                            "the launch",
                            "read the tuned config only in the launch's grid and arguments",
                        )
                    continue
                # A launch's arguments are carried into every target (a view it launches on
                # stays); its stream and grid are not.
                read_by_kept = bound in launch_args or any(
                    bound in _names(body[j]) - {_binding_name(body[j])}
                    for j in range(len(body))
                    if j not in removed and j not in launch_stmts and j != i
                )
                read_by_removed = any(bound in _names(body[j]) for j in removed)
                if read_by_kept:
                    continue
                if read_by_removed or reads & tuning:
                    removed.add(i)
                    changed = True
        out: list[cst.CSTNode] = [body[i] for i in sorted(removed)]
        launch_nodes = [body[i] for i in launch_stmts]
        module_names = set().union(*(_names(s) for s in out))
        for name in sorted(module_names):
            if name not in self.module_values:
                continue
            binding = self.module_values[name][0]
            if name not in _names(self.module, skip=[*out, binding, *launch_nodes]):
                out.append(binding)
        for name in sorted(set().union(*(_names(s) for s in out))):
            binding = self.imports.get(name)
            if binding is not None and name not in _names(
                self.module, skip=[*out, binding, *launch_nodes]
            ):
                out.append(binding)
        return out


def _block_of(fn: cst.FunctionDef, node: cst.CSTNode) -> list[cst.BaseStatement]:
    """The statements of the innermost block of ``fn`` that holds ``node``."""
    best: list[cst.BaseStatement] = list(fn.body.body)

    class Blocks(cst.CSTVisitor):
        def visit_IndentedBlock(self, block: cst.IndentedBlock) -> None:
            nonlocal best
            if any(_contains(s, node) for s in block.body):
                best = list(block.body)

    fn.body.visit(Blocks())
    return best


def hinted_kernel(
    node: cst.BaseExpression, module_values: dict[str, tuple[cst.CSTNode, cst.BaseExpression]]
) -> tuple[str, str | None] | None:
    """The kernel a launch or search runs, and the config key of the compiler hint that picks
    its variant: ``kernel`` itself, or ``BY_HINT[cfg["occupancy"]]`` (or ``cfg.get(...)``, or
    ``lambda cfg:`` of either) where ``BY_HINT`` is a module dict of ``kernel`` and its
    ``kernel.replace_hints(...)`` variants. None for anything else."""
    if isinstance(node, cst.Lambda):
        node = node.body
    if isinstance(node, cst.Name):
        bound = module_values.get(node.value)
        variant = _hint_variant_of(bound[1]) if bound else None
        # `_kernel_nww8 = _kernel.replace_hints(num_worker_warps=8)`: the kernel itself (a
        # compiler hint changes no result, and hints are no tunables of the IR).
        return (variant or node.value), None
    key = None
    if (
        isinstance(node, cst.Subscript)
        and isinstance(node.value, cst.Name)
        and len(node.slice) == 1
    ):
        index = node.slice[0].slice
        if isinstance(index, cst.Index):
            key = _config_key(index.value) or _config_get(index.value)
    if key is None or node.value.value not in module_values:  # type: ignore[union-attr]
        return None
    variants = module_values[node.value.value][1]  # type: ignore[union-attr]
    if not isinstance(variants, cst.Dict):
        return None
    kernels = set()
    for el in variants.elements:
        value = getattr(el, "value", None)
        name = _hint_variant_of(value) or (value.value if isinstance(value, cst.Name) else None)
        if name is None:
            return None
        kernels.add(name)
    return (kernels.pop(), key) if len(kernels) == 1 else None


def _hint_variant_of(value: cst.BaseExpression) -> str | None:
    """``kernel`` of ``kernel.replace_hints(...)``, else None."""
    if (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value == "replace_hints"
        and isinstance(value.func.value, cst.Name)
    ):
        return value.func.value.value
    return None


def _config_get(node: cst.BaseExpression) -> str | None:
    """``K`` of ``cfg.get("K", default)``."""
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "get"
        and node.args
        and isinstance(node.args[0].value, cst.SimpleString)
    ):
        return str(node.args[0].value.evaluated_value)
    return None


def _hint_keys(hints_fn: cst.BaseExpression) -> set[str] | None:
    """The config keys ``lambda cfg: {"occupancy": cfg["occupancy"], ...}`` reads, else None."""
    if not isinstance(hints_fn, cst.Lambda) or not isinstance(hints_fn.body, cst.Dict):
        return None
    keys = set()
    for el in hints_fn.body.elements:
        value = getattr(el, "value", None)
        key = value is not None and (_config_key(value) or _config_get(value))
        if not key:
            return None
        keys.add(key)
    return keys


def _args_keys(args_fn: cst.BaseExpression | None, params: list[str]) -> dict[str, str]:
    """Config key -> kernel parameter, from ``lambda cfg: (x, ..., cfg["TM"], ...)``."""
    if not isinstance(args_fn, cst.Lambda) or not isinstance(args_fn.body, cst.Tuple):
        return {}
    out = {}
    for param, el in zip(params, args_fn.body.elements):
        key = _config_key(el.value)
        if key is not None:
            out[key] = param
    return out


def _config_key(node: cst.BaseExpression) -> str | None:
    """``K`` of ``cfg["K"]`` or ``cfg.K``."""
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name):
        return node.attr.value
    if (
        isinstance(node, cst.Subscript)
        and len(node.slice) == 1
        and isinstance(node.slice[0].slice, cst.Index)
        and isinstance(node.slice[0].slice.value, cst.SimpleString)
    ):
        return str(node.slice[0].slice.value.evaluated_value)
    return None


def _launch_args(call: cst.Call) -> list[cst.Element]:
    pos, _ = call_args(call)
    return list(pos[3].elements) if len(pos) > 3 and isinstance(pos[3], cst.Tuple) else []


def _bind(
    target: cst.BaseExpression,
    value: object,
    env: dict,
    error: Callable[..., TranslationError],
) -> None:
    if isinstance(target, cst.Name):
        env[target.value] = value
    elif isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, tuple):
        for t, v in zip(target.elements, value):
            _bind(t.value, v, env, error)
    else:
        raise error(target, "a comprehension target is not read", SPACE_HELP)


def simple_binding(stmt: cst.CSTNode) -> tuple[str, cst.BaseExpression] | None:
    """``(name, value)`` of ``name = value`` or ``name: T = value``."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    if (
        isinstance(small, cst.Assign)
        and len(small.targets) == 1
        and isinstance(small.targets[0].target, cst.Name)
    ):
        return small.targets[0].target.value, small.value
    if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name) and small.value:
        return small.target.value, small.value
    return None


def _import_binding(stmt: cst.CSTNode) -> str | None:
    """The one name ``import x`` or ``from m import x`` binds, if ``stmt`` is such an import."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    if not isinstance(small, (cst.Import, cst.ImportFrom)) or isinstance(
        small.names, cst.ImportStar
    ):
        return None
    if len(small.names) != 1:
        return None
    alias = small.names[0]
    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
        return alias.asname.name.value
    if isinstance(alias.name, cst.Name):
        return alias.name.value
    return None


def _binding_name(stmt: cst.CSTNode) -> str | None:
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return stmt.name.value
    bound = simple_binding(stmt)
    return bound[0] if bound else None


def _names(node: cst.CSTNode, skip: list[cst.CSTNode] | None = None) -> set[str]:
    """Every identifier under ``node`` (not under the nodes of ``skip``)."""
    found: set[str] = set()
    skipped = {id(s) for s in skip or ()}

    class Names(cst.CSTVisitor):
        def on_visit(self, n: cst.CSTNode) -> bool:
            if id(n) in skipped:
                return False
            if isinstance(n, cst.Name):
                found.add(n.value)
            return True

    node.visit(Names())
    return found


def _contains(stmt: cst.CSTNode, target: cst.CSTNode) -> bool:
    hit = False

    class Find(cst.CSTVisitor):
        def on_visit(self, n: cst.CSTNode) -> bool:
            nonlocal hit
            if n is target:
                hit = True
            return not hit

    stmt.visit(Find())
    return hit


__all__ = ["Search", "SpaceReader", "SPACE_HELP"]
