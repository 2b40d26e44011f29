"""TileLang's programmatic autotuner, as TileLang's examples call it::

    def get_best_config(M, N):
        def kernel(block_M=None, block_N=None, threads=None):
            return elementwise_add(M, N, block_M, block_N, "float32", "float32", threads)

        autotuner = AutoTuner.from_kernel(kernel=kernel, configs=get_configs(M, N))
        ...
        return autotuner.run(warmup=3, rep=20)

The configs (folded statically, :mod:`.config_space`) are the factory's tuning space: the
translated kernel tunes itself over them at each launch. The function that drives the
autotuner has no counterpart in the target (it returns TileLang's tuning result), so the
translation keeps its signature and makes its body raise, with a ``# tiletrans:`` note; a
launch of the factory elsewhere is translated as usual."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from translator.dialects.cst_utils import call_args, source_of
from translator.dialects.tilelang.config_space import config_space
from translator.dialects.tilelang.model import Factory, ModuleFacts, is_docstring


@dataclass
class Tuning:
    """One function that drives TileLang's AutoTuner over a factory."""

    fn: cst.FunctionDef
    factory: str
    #: the nested function the autotuner compiles (its call of the factory is read)
    closure: cst.FunctionDef
    configs: list[dict[str, int]]
    #: the module function that builds the configs, if any (``get_configs``)
    builder: str | None


def autotuner_runs(mod: ModuleFacts, g: dict, factories: dict[str, Factory]) -> list[Tuning]:
    """Each top-level function that calls ``AutoTuner.from_kernel(kernel=<closure>,
    configs=...)`` on a closure returning a factory call; the configs renamed from the
    closure's parameters to the factory's."""
    out: list[Tuning] = []
    for fn in mod.functions.values():
        if fn.name.value in factories:
            continue
        found = _from_kernel(fn, mod, g)
        if found is None:
            continue
        call, closure_name, configs_node = found
        closure = _closure(fn, closure_name)
        built = _returned_call(closure) if closure is not None else None
        if closure is None or built is None or source_of(built.func).strip() not in factories:
            raise mod.error(
                call,
                "the AutoTuner compiles something other than a nested function returning a "
                "kernel factory's call",
                "pass `kernel=` a nested `def kernel(block_M=None, ...): return factory(...)`",
            )
        factory = source_of(built.func).strip()
        renames = _renames(built, factories[factory], mod)
        rows = config_space(configs_node, mod, call)
        configs = [{renames.get(k, k): v for k, v in row.items()} for row in rows]
        builder = (
            configs_node.func.value
            if isinstance(configs_node, cst.Call) and isinstance(configs_node.func, cst.Name)
            else None
        )
        out.append(Tuning(fn, factory, closure, configs, builder))
    return out


def _from_kernel(
    fn: cst.FunctionDef, mod: ModuleFacts, g: dict
) -> tuple[cst.Call, str, cst.BaseExpression | None] | None:
    """``(call, closure name, configs)`` of the ``AutoTuner.from_kernel`` call in ``fn``."""
    calls: list[cst.Call] = []

    class Calls(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            if mod.name_of(node.func) == g["kernel"]["autotuner_from_kernel"]:
                calls.append(node)

    fn.visit(Calls())
    if not calls:
        return None
    call = calls[0]
    pos, kw = call_args(call)
    kernel = kw.get("kernel", pos[0] if pos else None)
    configs = kw.get("configs", pos[1] if len(pos) > 1 else None)
    if not isinstance(kernel, cst.Name):
        raise mod.error(call, "the AutoTuner's kernel is not a name tiletrans reads")
    return call, kernel.value, configs


def _closure(fn: cst.FunctionDef, name: str) -> cst.FunctionDef | None:
    for stmt in fn.body.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == name:
            return stmt
    return None


def _returned_call(closure: cst.FunctionDef) -> cst.Call | None:
    body = [s for s in closure.body.body if isinstance(s, cst.SimpleStatementLine)]
    if len(body) != len(closure.body.body) or len(body) != 1:
        return None
    small = body[0].body[0]
    if isinstance(small, cst.Return) and isinstance(small.value, cst.Call):
        return small.value
    return None


def _renames(built: cst.Call, fac: Factory, mod: ModuleFacts) -> dict[str, str]:
    """Closure parameter -> the factory parameter it is passed as (``threads`` -> ``threads``)."""
    out: dict[str, str] = {}
    for i, arg in enumerate(built.args):
        if arg.star:
            raise mod.error(arg, "the AutoTuner's closure passes *args/**kwargs to the factory")
        param = arg.keyword.value if arg.keyword is not None else fac.params[i]
        if isinstance(arg.value, cst.Name):
            out[arg.value.value] = param
    return out


def stub_text(tuning: Tuning) -> str:
    """``tuning.fn`` with its body replaced by a ``raise`` that says why."""
    message = f"tiletrans: `{tuning.factory}` tunes itself at each launch"
    kept = [s for s in tuning.fn.body.body[:1] if is_docstring(s)]
    stub = cst.parse_statement(f'raise NotImplementedError("{message}")')
    body = cst.IndentedBlock([*kept, stub])
    return cst.Module([]).code_for_node(tuning.fn.with_changes(body=body, leading_lines=()))


__all__ = ["Tuning", "autotuner_runs", "stub_text"]
