"""``@triton.autotune`` configs, read statically.

Libraries spell config spaces in a few ways: a list of ``triton.Config(...)`` literals, a
comprehension over literal lists (``[triton.Config({"BLOCK_M": bm}, num_warps=w) for bm in [64,
128] for w in [4, 8] if bm * w <= 512]``), sums of such lists, a module-level name bound to one, or
a module function returning one (``configs=get_configs(pre_hook=hook)``). All of these are
evaluated here without running the file: a small evaluator over literals, the comprehension's
variables, the function's parameters and the module's integer constants. Anything else (a config
computed from a device query, say) is refused with the place that is not static.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Container, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst

from translator.diagnostics import TranslationError
from translator.dialects.cst_utils import (
    bound_names,
    call_args,
    dotted,
    literal,
    resolve,
    source_of,
)

if TYPE_CHECKING:
    from translator.dialects.triton.frontend_module import ModuleInfo

_HINT = (
    "write configs as triton.Config(...) literals, or a comprehension over literal lists "
    "(`[triton.Config({...}) for bm in [64, 128]]`)"
)
# triton.Config's own defaults for the launch knobs a config leaves out.
_CONFIG_DEFAULTS = {"num_warps": 4, "num_stages": 3}
_AUTOTUNE_OPTIONS = ("configs", "key", "warmup", "rep", "use_cuda_graph", "cache_results")
# Options that only narrow or steer the search: dropped, with a note (every config is valid).
_SEARCH_OPTIONS = ("prune_configs_by", "do_bench")


@dataclass(frozen=True)
class FunctionRef:
    """A module function passed as a value (a config ``pre_hook``)."""

    name: str
    node: cst.CSTNode


@dataclass(frozen=True)
class ConfigView:
    """One ``triton.Config`` as a config filter reads it: ``conf.kwargs`` (its meta-parameters)
    and its launch knobs (``conf.num_warps``, ``conf.num_stages``, defaults included)."""

    kwargs: dict
    knobs: dict

    def attribute(self, name: str, node: cst.CSTNode) -> object:
        """``conf.<name>``; :class:`NotStatic` for what the reader does not keep."""
        if name == "kwargs":
            return self.kwargs
        if name in self.knobs:
            return self.knobs[name]
        raise NotStatic(node)


_ARITH = {
    cst.Add: operator.add,
    cst.Subtract: operator.sub,
    cst.Multiply: operator.mul,
    cst.FloorDivide: operator.floordiv,
    cst.Power: operator.pow,
    cst.Modulo: operator.mod,
}
_COMPARE = {
    cst.Equal: operator.eq,
    cst.NotEqual: operator.ne,
    cst.LessThan: operator.lt,
    cst.LessThanEqual: operator.le,
    cst.GreaterThan: operator.gt,
    cst.GreaterThanEqual: operator.ge,
    cst.In: lambda a, b: a in b,
    cst.NotIn: lambda a, b: a not in b,
}


class NotStatic(Exception):
    """A part of an expression that is not computable from literals and constants."""

    def __init__(self, node: cst.CSTNode) -> None:
        super().__init__()
        self.node = node


def autotune_configs(
    d: cst.Decorator,
    info: ModuleInfo,
    notes: list[str] | None = None,
    restored: list[tuple[str, str]] | None = None,
) -> tuple[list[tuple[dict, dict]], FunctionRef | None]:
    """The configs of ``@triton.autotune(...)`` as (meta-parameters, launch knobs), and the
    ``pre_hook`` every config shares (``None`` if none has one). What the reading assumed goes
    to ``notes``; the parameters ``reset_to_zero=``/``restore_value=`` name, to ``restored`` as
    (option, parameter) pairs."""
    call = d.decorator
    if not isinstance(call, cst.Call):
        raise TranslationError("@triton.autotune needs configs=", info.locate(d))
    notes = notes if notes is not None else []
    args, kwargs = _autotune_arguments(call, info, notes)
    for k in kwargs:
        if k in _SEARCH_OPTIONS:
            notes.append(
                f"tiletrans: dropped `{k}=` of @triton.autotune: it only steers the search"
            )
            continue
        if k in ("reset_to_zero", "restore_value"):
            # The autotuner zeroes (or restores) the named tensors around each timed run of a
            # kernel that accumulates into them (split-K's atomics), so the launch after the
            # search sees them as the host left them. Every target keeps that: Helion's
            # autotuner runs its trials on clones of the tensors a kernel mutates, TileLang's on
            # tensors of its own, the cuTile translation's search on clones of what the kernel
            # writes, and a Triton translation restores them (`restore_value=`).
            names = _string_list(kwargs[k])
            if names is None:
                raise TranslationError(
                    f"@triton.autotune's `{k}=` must be a list of parameter names",
                    info.locate(kwargs[k]),
                    f'write the names as string literals: `{k}=["C"]`',
                )
            if restored is not None:
                restored.extend((k, n) for n in names)
            notes.append(
                f"tiletrans: read `{k}=` of @triton.autotune: the translation's tuner leaves "
                f"{', '.join(names)} as the host made them"
            )
            continue
        if k not in _AUTOTUNE_OPTIONS:
            raise TranslationError(
                f"unsupported @triton.autotune option `{k}=`",
                info.locate(kwargs[k]),
                "options that change state between runs "
                "(reset_to_zero, restore_value, pre/post hooks) are not lifted",
            )
    node = kwargs.get("configs", args[0] if args else None)
    if node is None:
        raise TranslationError("@triton.autotune needs configs=", info.locate(d))
    reader = _Reader(info)
    reader.notes = notes
    out = []
    hooks: list[FunctionRef | None] = []
    try:
        calls = reader.configs(node, {})
        for c, env in calls:
            meta, knobs, hook = reader.config(c, env)
            out.append((meta, knobs))
            hooks.append(hook)
    except NotStatic as err:
        text = cst.Module([]).code_for_node(err.node)[:60]
        raise TranslationError(
            f"cannot read the autotune configs statically: `{text}` is not a literal, "
            "a comprehension variable or a module constant",
            info.locate(err.node),
            _HINT,
        ) from None
    if not calls:
        raise TranslationError("@triton.autotune has no configs", info.locate(node))
    keys = {k for meta, _ in out for k in meta}
    for (meta, _), (c, _) in zip(out, calls):
        missing = sorted(keys - set(meta))
        if missing:
            raise TranslationError(
                f"this triton.Config does not set `{missing[0]}`, which other "
                "configs of the autotuner set",
                info.locate(c),
                "set every autotuned meta-parameter in every triton.Config",
            )
    return out, _common_hook(hooks, info)


def _autotune_arguments(
    call: cst.Call, info: ModuleInfo, notes: list[str]
) -> tuple[list[cst.BaseExpression], dict[str, cst.BaseExpression]]:
    """The arguments of ``@triton.autotune(...)``. A ``**options`` spread (FLA's
    ``**autotune_cache_kwargs``) is read where it can only hold options that leave what a launch
    computes as it is: its keys, where the dict is bound at module level, or any dict brought in
    by an import, next to an explicit ``configs=`` and ``key=`` (Python refuses a repeated
    keyword, so the spread cannot replace them). A note says which it was."""
    plain = call.with_changes(args=[a for a in call.args if a.star != "**"])
    args, kwargs = call_args(plain)  # a `*args` spread is still refused, at its place
    for arg in call.args:
        if arg.star != "**":
            continue
        spelled = f"**{source_of(arg.value)}"
        name = arg.value.value if isinstance(arg.value, cst.Name) else None
        keys = _spread_keys(arg.value, info, set())
        if keys is None:
            origin = info.aliases.get(name) if name is not None else None
            if origin is None or not {"configs", "key"} <= set(kwargs):
                raise TranslationError(
                    f"cannot read which options `{spelled}` gives @triton.autotune",
                    info.locate(arg),
                    "bind the options at module level as a dict literal "
                    '(`CACHE = {"cache_results": True}`), or pass them by name',
                )
            notes.append(
                f"tiletrans: `{spelled}` of @triton.autotune (imported from "
                f"{origin.rsplit('.', 1)[0]}) is not read: it can only add options that steer "
                "the search (cache_results, warmup, rep), which the translation's tuner "
                "does not need"
            )
            continue
        changing = sorted(keys - set(_RESULT_NEUTRAL))
        if changing:
            raise TranslationError(
                f"`{spelled}` gives @triton.autotune `{changing[0]}=`, which tiletrans reads "
                "only where it is written in the decorator",
                info.locate(arg),
                f"pass `{changing[0]}=` by name in @triton.autotune(...)",
            )
        if keys:
            notes.append(
                f"tiletrans: dropped `{spelled}` of @triton.autotune "
                f"({', '.join(sorted(keys))}): it only steers the search"
            )
    return args, kwargs


#: @triton.autotune options that never change what a launch computes, only how the best config
#: is found and kept: a spread of these is dropped.
_RESULT_NEUTRAL = ("cache_results", "warmup", "rep", "use_cuda_graph", *_SEARCH_OPTIONS)


def _spread_keys(node: cst.BaseExpression, info: ModuleInfo, seen: set[str]) -> set[str] | None:
    """The keys the dict ``node`` can hold, read statically: a dict literal of string keys,
    ``dict(k=...)``, either branch of ``a if test else b`` (the test need not be static: the
    keys of both count) or a module-level name bound once to one of these. ``None`` if
    unreadable."""
    if isinstance(node, cst.Dict):
        keys: set[str] = set()
        for el in node.elements:
            if isinstance(el, cst.DictElement) and isinstance(el.key, cst.SimpleString):
                keys.add(str(el.key.evaluated_value))
            elif isinstance(el, cst.StarredDictElement):
                inner = _spread_keys(el.value, info, seen)
                if inner is None:
                    return None
                keys |= inner
            else:
                return None
        return keys
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "dict":
        if any(a.keyword is None for a in node.args):
            return None
        return {a.keyword.value for a in node.args if a.keyword is not None}
    if isinstance(node, cst.IfExp):
        body, orelse = _spread_keys(node.body, info, seen), _spread_keys(node.orelse, info, seen)
        return None if body is None or orelse is None else body | orelse
    if isinstance(node, cst.Name) and node.value not in seen:
        bound = module_binding_once(info.module, node.value)
        if bound is not None:
            return _spread_keys(bound, info, seen | {node.value})
    return None


def module_binding_once(module: cst.Module, name: str) -> cst.BaseExpression | None:
    """The value of ``name = value``, where that is the one statement of ``module``'s top level
    (``if``/``try`` blocks included) that binds ``name``; else ``None``."""
    found: list[cst.BaseExpression] = []
    count = 0

    def scan(stmts: Sequence[cst.CSTNode]) -> None:
        nonlocal count
        for stmt in stmts:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if name in bound_names(small):
                        count += 1
                        if (
                            isinstance(small, (cst.Assign, cst.AnnAssign))
                            and small.value is not None
                            and (
                                len(small.targets) == 1
                                if isinstance(small, cst.Assign)
                                else isinstance(small.target, cst.Name)
                            )
                        ):
                            target = (
                                small.targets[0].target
                                if isinstance(small, cst.Assign)
                                else small.target
                            )
                            if isinstance(target, cst.Name):
                                found.append(small.value)
            elif isinstance(stmt, (cst.If, cst.Try)):
                for block in _blocks(stmt):
                    scan(block)
            elif name in bound_names(stmt):
                count += 1

    scan(module.body)
    return found[0] if count == 1 and len(found) == 1 else None


def _blocks(stmt: cst.If | cst.Try) -> list[Sequence[cst.CSTNode]]:
    """The statement lists of an ``if``/``elif``/``else`` chain or a ``try`` statement."""
    out: list[Sequence[cst.CSTNode]] = []
    node: cst.CSTNode | None = stmt
    while node is not None:
        body = getattr(node, "body", None)
        if isinstance(body, cst.IndentedBlock):
            out.append(body.body)
        if isinstance(node, cst.If):
            node = node.orelse
        elif isinstance(node, cst.Try):
            out += [h.body.body for h in node.handlers if isinstance(h.body, cst.IndentedBlock)]
            for extra in (node.orelse, node.finalbody):
                if extra is not None and isinstance(extra.body, cst.IndentedBlock):
                    out.append(extra.body.body)
            node = None
        else:
            node = None
    return out


def _common_hook(hooks: list[FunctionRef | None], info: ModuleInfo) -> FunctionRef | None:
    named = [h for h in hooks if h is not None]
    if not named:
        return None
    first = named[0]
    if len(named) != len(hooks) or any(h.name != first.name for h in named):
        raise TranslationError(
            "the autotune configs differ in their pre_hook",
            info.locate(first.node),
            "give every config the same pre_hook",
        )
    return first


class _ModuleValues(Mapping[str, object]):
    """The module's numbers, and on demand the static value of any other module-level name
    bound once (``BT_LIST = [8, 16, 32]``, a list the configs run over). A list chosen by a test
    that is not static (``[1, 2, 4] if IS_AMD else [1, 2, 4, 8]``) reads as both branches' values
    in order, with a note: every config of a tuning space computes the same result, so the
    space may only grow."""

    def __init__(self, reader: _Reader) -> None:
        self.reader = reader
        self.numbers = reader.info.constants
        self.read: dict[str, object] = {}
        self.reading: set[str] = set()

    def _lookup(self, name: str) -> object:
        if name in self.numbers:
            return self.numbers[name]
        if name in self.read:
            return self.read[name]
        if name in self.reading:
            return _MISSING
        bound = module_binding_once(self.reader.info.module, name)
        if bound is None:
            return _MISSING
        self.reading.add(name)
        try:
            value = self._static(bound, name)
        finally:
            self.reading.discard(name)
        if value is not _MISSING:
            self.read[name] = value
        return value

    def _static(self, node: cst.BaseExpression, name: str) -> object:
        functions = self.reader.info.functions
        if isinstance(node, cst.IfExp):
            try:
                taken = static_value(node.test, {}, self, functions)
            except NotStatic:
                pass
            else:
                return self._static(node.body if taken else node.orelse, name)
        else:
            try:
                return static_value(node, {}, self, functions)
            except NotStatic:
                return _MISSING
        branches = [self._static(b, name) for b in (node.body, node.orelse)]
        if not all(isinstance(b, list) for b in branches):
            return _MISSING
        union: list = []
        for item in (*branches[0], *branches[1]):  # type: ignore[misc]
            if item not in union:
                union.append(item)
        test = cst.Module([]).code_for_node(node.test)
        self.reader.notes.append(
            f"tiletrans: `{name}` read as the values of both branches of its `if {test}` "
            "(the test is not static; every config computes the same result)"
        )
        return union

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._lookup(name) is not _MISSING

    def __getitem__(self, name: str) -> object:
        value = self._lookup(name)
        if value is _MISSING:
            raise KeyError(name)
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(self.numbers)

    def __len__(self) -> int:
        return len(self.numbers)


_MISSING = object()


class _Reader:
    def __init__(self, info: ModuleInfo) -> None:
        self.info = info
        self.config_fn = info.grammar["frontend"]["kernel"]["config"]
        self.depth = 0
        self.notes: list[str] = []
        self.constants = _ModuleValues(self)

    def error(self, node: cst.CSTNode, message: str, hint: str | None = None) -> TranslationError:
        return TranslationError(message, self.info.locate(node), hint)

    # ---------------------------------------------------------------- config lists

    def configs(self, node: cst.BaseExpression, env: dict) -> list[tuple[cst.Call, dict]]:
        """The ``triton.Config(...)`` calls ``node`` evaluates to, each with its variables."""
        if isinstance(node, Appended):
            return list(node.configs)
        if self._is_config(node):
            return [(node, env)]  # type: ignore[list-item]
        if isinstance(node, (cst.List, cst.Tuple)):
            out = []
            for el in node.elements:  # `*more_configs` spreads a list like a plain element
                out += self.configs(el.value, env)
            return out
        if isinstance(node, cst.ListComp):
            return [
                call
                for inner in self.comprehension(node.for_in, env)
                for call in self.configs(node.elt, inner)
            ]
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
            return self.configs(node.left, env) + self.configs(node.right, env)
        builtin = self._builtin_call(node, env)
        if builtin == "list" or builtin == "tuple":
            (inner,) = call_args(node)[0]  # type: ignore[arg-type]
            return self.configs(inner, env)
        if builtin == "filter":
            predicate, inner = call_args(node)[0]  # type: ignore[arg-type]
            return self.filtered(predicate, self.configs(inner, env), env)
        if isinstance(node, cst.Name) and node.value not in env:
            bound = self.module_assignment(node.value)
            if bound is not None:
                return self.configs(bound, {})
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Name)
            and (node.func.value in self.info.functions)
        ):
            body, fn_env = self.function_return(node, env)
            return self.configs(body, fn_env)
        registry = registry_call(node, self.info.aliases)
        if registry is not None:
            raise self.error(
                node,
                f"configs= reads its configs from `{registry}`, a registry that is filled at "
                "run time, which tiletrans does not read (it never runs the library)",
                "write the configs inline: a list of triton.Config(...) literals, or a "
                "comprehension or config function over literal lists",
            )
        raise self.error(
            node,
            "configs= must be a list of triton.Config(...), a comprehension, "
            "or a module function or name that gives one",
            _HINT,
        )

    def _builtin_call(self, node: cst.BaseExpression, env: dict) -> str | None:
        """``list(x)``/``tuple(x)`` (one argument) or ``filter(pred, x)`` (two): the builtin's
        name, where the module does not rebind it; else ``None``."""
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Name)):
            return None
        name = node.func.value
        arity = {"list": 1, "tuple": 1, "filter": 2}.get(name)
        if arity is None or name in env or name in self.info.functions:
            return None
        if any(a.keyword is not None or a.star for a in node.args) or len(node.args) != arity:
            return None
        return name

    def filtered(
        self, predicate: cst.BaseExpression, calls: list[tuple[cst.Call, dict]], env: dict
    ) -> list[tuple[cst.Call, dict]]:
        """``filter(keep, configs)`` (the fused-attention tutorial's): the configs a module
        function ``keep(conf)`` returns true for, in order. ``keep`` reads ``conf.kwargs[...]``
        and the launch knobs (``conf.num_warps``) through locals, ``if`` and ``return``. Where
        its answer is not static (``torch.cuda.get_device_capability()``), the config is
        kept, with a note: every config computes the same result, so a space may only grow."""
        fn = self._predicate(predicate, env)
        params = [*fn.params.posonly_params, *fn.params.params]
        if len(params) != 1:
            raise self.error(predicate, f"`{fn.name.value}` must take one config", _HINT)
        body = list(fn.body.body) if isinstance(fn.body, cst.IndentedBlock) else []
        kept = []
        unread: cst.CSTNode | None = None
        for call, call_env in calls:
            meta, knobs, _ = self.config(call, call_env)
            view = ConfigView(meta, knobs)
            try:
                _, answer = self.evaluate(body, {params[0].name.value: view})
            except NotStatic as err:
                unread = unread or err.node
                answer = True
            if answer:
                kept.append((call, call_env))
        if unread is not None:
            text = cst.Module([]).code_for_node(unread)[:60]
            self.notes.append(
                f"tiletrans: kept every config where `{fn.name.value}()` reads `{text}`, "
                "which is not static (every config computes the same result)"
            )
        return kept

    def _predicate(self, node: cst.BaseExpression, env: dict) -> cst.FunctionDef:
        value = self.value(node, env) if not isinstance(node, cst.Lambda) else None
        if not isinstance(value, FunctionRef):
            raise self.error(
                node,
                "a filter of autotune configs must be a function of this module",
                "define it with `def keep(conf): ...` next to the kernel",
            )
        return self.info.functions[value.name]

    def evaluate(self, body: Sequence[cst.BaseStatement], env: dict) -> tuple[bool, object]:
        """Whether a function body returns, and what, statically: locals, ``if``/``elif``/
        ``else`` on static tests, ``return``; :class:`NotStatic` at the first part that is
        not."""
        for stmt in body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.Return):
                        return True, None if small.value is None else self.value(small.value, env)
                    if isinstance(small, cst.Assign) and len(small.targets) == 1:
                        self.assign(small.targets[0].target, self.value(small.value, env), env)
                    elif not _is_docstring(stmt):
                        raise NotStatic(small)
                continue
            if isinstance(stmt, cst.If):
                branch: cst.If | cst.Else | None = stmt
                while isinstance(branch, cst.If) and not self.value(branch.test, env):
                    branch = branch.orelse
                if branch is not None and isinstance(branch.body, cst.IndentedBlock):
                    returned, value = self.evaluate(branch.body.body, env)
                    if returned:
                        return True, value
                continue
            raise NotStatic(stmt)
        return False, None

    def _is_config(self, node: cst.BaseExpression) -> bool:
        return isinstance(node, cst.Call) and resolve(node.func, self.info.aliases) == (
            self.config_fn
        )

    def comprehension(self, clause: cst.CompFor, env: dict) -> list[dict]:
        """The variable bindings a ``for ... in ... if ...`` chain runs through, in order."""
        if clause.asynchronous is not None:
            raise self.error(clause, "async comprehensions are not supported")
        values = self.iterated(clause.iter, env)
        if not isinstance(values, (list, tuple, range)):
            raise self.error(clause.iter, "a config comprehension must run over a literal list")
        out = []
        for v in values:
            inner = dict(env)
            self.assign(clause.target, v, inner)
            if all(self.value(c.test, inner) for c in clause.ifs):
                out += (
                    self.comprehension(clause.inner_for_in, inner)
                    if clause.inner_for_in
                    else [inner]
                )
        return out

    def iterated(self, node: cst.BaseExpression, env: dict) -> object:
        """The values a config comprehension runs over. Chosen by a test that is not static
        (``[1] if is_hip() else [3, 4, 7]``, the attention tutorial's stages): both branches'
        values in order, with a note, as for a module-level list so chosen."""
        if not isinstance(node, cst.IfExp):
            return self.value(node, env)
        try:
            taken = self.value(node.test, env)
        except NotStatic:
            pass
        else:
            return self.iterated(node.body if taken else node.orelse, env)
        branches = [self.iterated(b, env) for b in (node.body, node.orelse)]
        if not all(isinstance(b, (list, tuple, range)) for b in branches):
            raise NotStatic(node.test)
        union: list = []
        for item in (*branches[0], *branches[1]):  # type: ignore[misc]
            if item not in union:
                union.append(item)
        test = cst.Module([]).code_for_node(node.test)
        note = (
            f"tiletrans: a config comprehension runs over both branches of `if {test}` "
            "(the test is not static; every config computes the same result)"
        )
        if note not in self.notes:  # once, however often the clause is iterated
            self.notes.append(note)
        return union

    def assign(self, target: cst.BaseExpression, value: object, env: dict) -> None:
        if isinstance(target, cst.Name):
            env[target.value] = value
            return
        if (
            isinstance(target, (cst.Tuple, cst.List))
            and isinstance(value, (list, tuple))
            and (len(target.elements) == len(value))
        ):
            for el, v in zip(target.elements, value):
                self.assign(el.value, v, env)
            return
        raise self.error(target, "unsupported comprehension target")

    def module_assignment(self, name: str) -> cst.BaseExpression | None:
        for stmt in self.info.module.body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if (
                        isinstance(small, cst.Assign)
                        and len(small.targets) == 1
                        and isinstance(small.targets[0].target, cst.Name)
                        and small.targets[0].target.value == name
                    ):
                        return small.value
        return None

    def function_return(self, call: cst.Call, env: dict) -> tuple[cst.BaseExpression, dict]:
        """``get_configs(...)``: the returned expression, with the parameters bound."""
        fn = self.info.functions[call.func.value]  # type: ignore[attr-defined]
        self.depth += 1
        if self.depth > 8:
            raise self.error(call, "config functions call each other too deeply")
        params = [*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params]
        fn_env: dict = {}
        for p in params:
            if p.default is not None:
                fn_env[p.name.value] = self.value(p.default, {})
        args, kwargs = call_args(call)
        if len(args) > len(params):
            raise self.error(call, f"too many arguments for `{fn.name.value}`")
        for p, a in zip(params, args):
            fn_env[p.name.value] = self.value(a, env)
        for k, a in kwargs.items():
            if k not in {p.name.value for p in params}:
                raise self.error(a, f"`{fn.name.value}` has no parameter `{k}`")
            fn_env[k] = self.value(a, env)
        missing = [p.name.value for p in params if p.name.value not in fn_env]
        if missing:
            raise self.error(call, f"`{fn.name.value}` is called without `{missing[0]}`")
        body = list(fn.body.body) if isinstance(fn.body, cst.IndentedBlock) else []
        if body and _is_docstring(body[0]):
            body = body[1:]
        value = self.returned(body, fn_env, fn)
        if value is None:
            raise self.error(fn, f"`{fn.name.value}` must return the configs", _HINT)
        return value, fn_env

    def returned(
        self, body: list[cst.BaseStatement], env: dict, fn: cst.FunctionDef
    ) -> cst.BaseExpression | None:
        """What ``body`` returns: the first ``return``, through ``if``s whose test is static;
        where a test is not (``if is_cuda():``), the branch written first, with a note."""
        local: dict[str, cst.BaseExpression] = {}
        appended: dict[str, list] = {}  # `configs = []` filled by `configs.append(...)` loops
        for stmt in body:
            if isinstance(stmt, cst.For):
                self.appending_loop(stmt, env, appended, fn)
                continue
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.Return) and small.value is not None:
                        value = small.value
                        if isinstance(value, cst.Name) and value.value in appended:
                            return Appended(tuple(appended[value.value]))  # type: ignore[return-value]
                        if isinstance(value, cst.Name) and value.value in local:
                            return local[value.value]  # `configs = [...]; return configs`
                        return value
                    if (
                        isinstance(small, cst.Assign)
                        and len(small.targets) == 1
                        and isinstance(small.targets[0].target, cst.Name)
                        and isinstance(small.value, cst.List)
                        and not small.value.elements
                    ):
                        appended[small.targets[0].target.value] = []
                        continue
                    if self.appended_to(small, env, appended):
                        continue
                    if (
                        isinstance(small, cst.Assign)
                        and len(small.targets) == 1
                        and isinstance(small.targets[0].target, cst.Name)
                    ):
                        # A local: a static value (`block_m = [1, 2, 4]`) joins the names the
                        # configs read; a list of configs is returned by name.
                        name = small.targets[0].target.value
                        try:
                            env[name] = self.value(small.value, env)
                        except (NotStatic, TranslationError):
                            local[name] = small.value
                continue
            if isinstance(stmt, cst.If):
                try:
                    taken = bool(self.value(stmt.test, env))
                except NotStatic:
                    test = cst.Module([]).code_for_node(stmt.test)
                    self.notes.append(
                        f"tiletrans: configs of `{fn.name.value}()` where `{test}` holds "
                        "(the branch it lists first; the test is not static)"
                    )
                    taken = True
                branch = stmt.body if taken else stmt.orelse
                while isinstance(branch, cst.If):  # elif
                    branch = branch.body
                if isinstance(branch, cst.Else):
                    branch = branch.body
                inner = list(branch.body) if isinstance(branch, cst.IndentedBlock) else []
                value = self.returned(inner, env, fn)
                if value is not None:
                    return value
                continue
            raise self.error(
                stmt, f"unsupported statement in the config function `{fn.name.value}`"
            )
        return None

    def appended_to(self, small: cst.BaseSmallStatement, env: dict, appended: dict) -> bool:
        """``configs.append(triton.Config(...))`` (or ``.extend([...])``, ``+= [...]``) onto a
        list the config function started empty: its configs, with the loop variables of
        ``env``, join that list. False for any other statement."""
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            call = small.value
            func = call.func
            if (
                isinstance(func, cst.Attribute)
                and isinstance(func.value, cst.Name)
                and func.value.value in appended
                and func.attr.value in ("append", "extend")
                and len(call.args) == 1
                and call.args[0].keyword is None
                and not call.args[0].star
            ):
                arg = call.args[0].value
                target = appended[func.value.value]
                if func.attr.value == "append":
                    if not self._is_config(arg):
                        raise self.error(arg, "only triton.Config(...) is appended to configs")
                    target.append((arg, dict(env)))
                else:
                    target += self.configs(arg, dict(env))
                return True
        if (
            isinstance(small, cst.AugAssign)
            and isinstance(small.operator, cst.AddAssign)
            and isinstance(small.target, cst.Name)
            and small.target.value in appended
        ):
            appended[small.target.value] += self.configs(small.value, dict(env))
            return True
        return False

    def appending_loop(self, loop: cst.For, env: dict, appended: dict, fn: cst.FunctionDef) -> None:
        """A ``for`` over a static list (nested ``for``s and ``if``s on static tests inside)
        whose body appends configs (TileLang/Triton examples' ``get_configs()``): run it."""
        if loop.orelse is not None or loop.asynchronous is not None:
            raise self.error(loop, "a config loop may not have an `else` or be async")
        values = self.iterated(loop.iter, env)
        if not isinstance(values, (list, tuple, range)):
            raise self.error(loop.iter, "a config loop must run over a literal list")
        for v in values:
            inner = dict(env)
            self.assign(loop.target, v, inner)
            self.appending_body(list(loop.body.body), inner, appended, fn)

    def appending_body(self, body: list, env: dict, appended: dict, fn: cst.FunctionDef) -> None:
        for stmt in body:
            if isinstance(stmt, cst.For):
                self.appending_loop(stmt, env, appended, fn)
                continue
            if isinstance(stmt, cst.If):
                try:
                    taken = bool(self.value(stmt.test, env))
                except NotStatic:
                    raise self.error(
                        stmt.test, "a config loop's `if` test must be static"
                    ) from None
                branch = stmt.body if taken else stmt.orelse
                if isinstance(branch, cst.If):  # elif
                    self.appending_body([branch], env, appended, fn)
                elif isinstance(branch, cst.Else):
                    self.appending_body(list(branch.body.body), env, appended, fn)
                elif branch is not None:
                    self.appending_body(list(branch.body), env, appended, fn)
                continue
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if self.appended_to(small, env, appended):
                        continue
                    if (
                        isinstance(small, cst.Assign)
                        and len(small.targets) == 1
                        and isinstance(small.targets[0].target, cst.Name)
                    ):
                        try:
                            env[small.targets[0].target.value] = self.value(small.value, env)
                        except NotStatic:
                            raise self.error(
                                small, "a config loop may assign only static values"
                            ) from None
                        continue
                    raise self.error(
                        small, f"unsupported statement in the config loop of `{fn.name.value}`"
                    )
                continue
            raise self.error(stmt, f"unsupported statement in the config loop of `{fn.name.value}`")

    # ---------------------------------------------------------------- one config

    def config(self, c: cst.Call, env: dict) -> tuple[dict, dict, FunctionRef | None]:
        cargs, ckw = call_args(c)
        meta_node = cargs[0] if cargs else ckw.get("kwargs")
        meta = self.meta(meta_node, env) if meta_node is not None else {}
        if not isinstance(meta, dict) or not all(isinstance(k, str) for k in meta):
            raise self.error(c, "triton.Config meta-parameters must be a dict of names")
        knobs: dict = {}
        hook = None
        launch_keys = self.info.grammar["frontend"]["kernel"]["launch_keys"]
        positional = ("kwargs", "num_warps", "num_stages", "num_ctas", "maxnreg", "pre_hook")
        named = dict(zip(positional[1:], cargs[1:]))
        for k, v in {**named, **ckw}.items():
            if k == "kwargs":
                continue
            value = self.value(v, env)
            if k == "pre_hook":
                if value is not None and not isinstance(value, FunctionRef):
                    raise self.error(
                        v,
                        "a config pre_hook must be a function of this module",
                        "define the hook with `def` next to the kernel",
                    )
                hook = value
            elif k in launch_keys:
                knobs[k] = value
            elif k not in ("num_ctas", "maxnreg"):
                raise self.error(v, f"unsupported triton.Config option `{k}=`")
        # A config that leaves a knob out gets triton.Config's default, not a neighbour's.
        knobs = {**{k: v for k, v in _CONFIG_DEFAULTS.items() if k not in knobs}, **knobs}
        return meta, knobs, hook

    def meta(self, node: cst.BaseExpression, env: dict) -> object:
        """A config's meta-parameters. A value the host computes by a call (the grouped-GEMM
        tutorial's ``"NUM_SM": num_sms()``, the device's SM count) is refused by its key: the
        IR's tunables take literal values, and a launch argument is what carries a host value."""
        if not isinstance(node, cst.Dict):
            return self.value(node, env)
        for el in node.elements:
            if not (isinstance(el, cst.DictElement) and isinstance(el.value, cst.Call)):
                continue
            try:
                self.value(el.value, env)
            except NotStatic:
                key = (
                    str(el.key.evaluated_value)
                    if isinstance(el.key, cst.SimpleString)
                    else cst.Module([]).code_for_node(el.key)
                )
                text = cst.Module([]).code_for_node(el.value)[:60]
                called = el.value.func
                origin = (
                    f" (`{called.value}` is defined at line "
                    f"{self.info.locate(self.info.functions[called.value]).line})"
                    if isinstance(called, cst.Name) and called.value in self.info.functions
                    else ""
                )
                raise self.error(
                    el.value,
                    f"the config sets `{key}` to `{text}`, a value the host computes when the "
                    f"module runs{origin}; the IR's tunables take literal values",
                    f"drop `{key}` from the configs and pass it at the launch "
                    f"(`kernel[grid](..., {key}={text})`), or write literal values",
                ) from None
        return self.value(node, env)

    def value(self, node: cst.BaseExpression, env: dict) -> object:
        return static_value(node, env, self.constants, self.info.functions)


def registry_call(node: cst.BaseExpression | None, aliases: dict[str, str]) -> str | None:
    """The source of ``node`` where it is a call of a function of an imported module
    (FlagGems' ``runtime.get_triton_config("argmax")``): a registry lookup that only running
    the library can answer. None for anything else."""
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)):
        return None
    head = node.func.value
    while isinstance(head, cst.Attribute):
        head = head.value
    if not isinstance(head, cst.Name) or head.value not in aliases:
        return None
    if aliases[head.value].split(".")[0] in ("triton", "torch"):
        return None
    return cst.Module([]).code_for_node(node)


@dataclass(frozen=True)
class Appended:
    """The configs a config function appended to a list it started empty, each with the loop
    variables it was appended under."""

    configs: tuple


def static_value(
    node: cst.BaseExpression, env: dict, constants: dict, functions: Container[str] = ()
) -> object:
    """The value of ``node`` computed from literals, the variables of ``env``, the module
    ``constants`` and references to module ``functions``; raises :class:`NotStatic` at the first
    part that is none of these."""

    def value(x: cst.BaseExpression, env: dict = env) -> object:
        return static_value(x, env, constants, functions)

    if isinstance(node, (cst.Integer, cst.Float)):
        return node.evaluated_value
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        return node.evaluated_value
    if isinstance(node, cst.Name):
        if node.value in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[node.value]
        if node.value in env:
            return env[node.value]
        if node.value in constants:
            return constants[node.value]
        if node.value in functions:
            return FunctionRef(node.value, node)
        raise NotStatic(node)
    if isinstance(node, (cst.List, cst.Tuple)):
        return [value(el.value, env) for el in node.elements]
    if isinstance(node, cst.Dict):
        out = {}
        for el in node.elements:
            if not isinstance(el, cst.DictElement):
                raise NotStatic(el)
            out[value(el.key, env)] = value(el.value, env)
        return out
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Name)
        and (node.func.value in ("range", "dict"))
        and node.func.value not in env
    ):
        args, kwargs = call_args(node)
        if node.func.value == "dict" and not args:
            return {k: value(v, env) for k, v in kwargs.items()}
        ints = [value(a, env) for a in args]
        if (
            node.func.value == "range"
            and not kwargs
            and 1 <= len(ints) <= 3
            and all(isinstance(i, int) for i in ints)
            and (len(ints) < 3 or ints[2] != 0)
        ):
            return list(range(*ints))  # type: ignore[arg-type]
        raise NotStatic(node)
    if (
        isinstance(node, cst.Call)
        and dotted(node.func) == "itertools.product"
        and "itertools" not in env
        and all(a.keyword is None and not a.star for a in node.args)
    ):
        # `itertools.product([64, 128], [2, 4])` of literal lists.
        lists = [value(a.value, env) for a in node.args]
        if all(isinstance(x, (list, tuple)) for x in lists):
            return [list(t) for t in itertools.product(*lists)]  # type: ignore[arg-type]
        raise NotStatic(node)
    if isinstance(node, cst.UnaryOperation):
        v = value(node.expression, env)
        if isinstance(node.operator, cst.Minus) and isinstance(v, (int, float)):
            return -v
        if isinstance(node.operator, cst.Not):
            return not v
        raise NotStatic(node)
    if isinstance(node, cst.BinaryOperation):
        f = _ARITH.get(type(node.operator))
        if f is None:
            raise NotStatic(node)
        try:
            return f(value(node.left, env), value(node.right, env))
        except (TypeError, ZeroDivisionError):
            raise NotStatic(node) from None
    if isinstance(node, cst.Comparison):
        left = value(node.left, env)
        for comp in node.comparisons:
            right = value(comp.comparator, env)
            test = _COMPARE.get(type(comp.operator))
            if test is None:
                raise NotStatic(node)
            try:
                if not test(left, right):
                    return False
            except TypeError:
                raise NotStatic(node) from None
            left = right
        return True
    if isinstance(node, cst.BooleanOperation):
        a = value(node.left, env)
        if isinstance(node.operator, cst.And):
            return a and value(node.right, env)
        return a or value(node.right, env)
    if isinstance(node, cst.IfExp):
        return value(node.body if value(node.test, env) else node.orelse, env)
    if isinstance(node, cst.Attribute):
        base = value(node.value, env)
        if isinstance(base, ConfigView):
            return base.attribute(node.attr.value, node)
        raise NotStatic(node)
    if isinstance(node, cst.Subscript) and len(node.slice) == 1:
        index = node.slice[0].slice
        if isinstance(index, cst.Index) and index.star is None:
            base, key = value(node.value, env), value(index.value, env)
            if isinstance(base, (dict, list, tuple)):
                try:
                    return base[key]  # type: ignore[index]
                except (KeyError, IndexError, TypeError):
                    raise NotStatic(node) from None
    raise NotStatic(node)


def _is_docstring(stmt: cst.BaseStatement) -> bool:
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Expr)
        and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def _string_list(node: cst.BaseExpression) -> list[str] | None:
    """The strings of a literal list or tuple of strings (``["DA", "DB"]``); else ``None``."""
    try:
        value = literal(node)
    except ValueError:
        return None
    if isinstance(value, str):
        value = [value]
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return list(value)
    return None
