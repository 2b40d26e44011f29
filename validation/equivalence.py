"""Differential testing of a translation: run SOURCE and TRANSLATED on the same inputs, compare.

The SOURCE file is parsed (never imported) by the translator for its IR, which says what inputs each
entry takes (:mod:`validation.relations`). Both files are then imported and each entry runs on
cloned copies of the same synthesized inputs with poisoned allocations
(:mod:`validation.poison`). Outputs, and every tensor argument after the run (kernels may write
into their inputs), are compared with :func:`validation.compare.compare`.

On ``device="cpu"`` kernels run the way each dialect's runner says (an interpreter, usually set
up through the environment before the DSL is first imported): :func:`check_pair` prepares every
runner, which is enough if nothing imported a DSL yet; ``tiletrans validate`` prepares them first
thing.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from translator.api import parse_file
from translator.ir import nodes as ir
from translator.ir.visit import kernel_exprs


@dataclass(frozen=True)
class Row:
    """One case: an entry run on one dtype and seed."""

    entry: str
    dtype: str
    seed: int
    error: float
    tolerance: float
    passed: bool
    detail: str = ""
    sizes: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Report:
    """Every case of a :func:`check_pair` run."""

    source: str
    translated: str
    device: str
    rows: tuple[Row, ...]
    notes: tuple[str, ...] = ()
    #: What proved each side: ``(role, dialect, how)`` (``how``: its runner's oracle, or "ran").
    oracles: tuple[tuple[str, str, str], ...] = ()

    @property
    def passed(self) -> bool:
        """Whether there was at least one case and every case passed."""
        return bool(self.rows) and all(r.passed for r in self.rows)

    def failures(self) -> list[Row]:
        """The failed cases."""
        return [r for r in self.rows if not r.passed]

    def format_text(self) -> str:
        """A plain-text table of the cases."""
        lines = [f"{self.source} vs {self.translated} on {self.device}"]
        lines += [f"  {role} ({dsl}): {how}" for role, dsl, how in self.oracles]
        for r in self.rows:
            status = "PASS" if r.passed else "FAIL"
            sizes = ",".join(f"{k}={v}" for k, v in r.sizes.items())
            lines.append(
                f"  {status} {r.entry} {r.dtype} seed={r.seed} [{sizes}] "
                f"error={r.error:.3g} tol={r.tolerance:.0e} {r.detail}".rstrip()
            )
        lines.append("PASS" if self.passed else "FAIL")
        return "\n".join(lines)


def use_interpreter() -> None:
    """Prepare this process for running kernels of every dialect on the CPU (each dialect's
    runner: an interpreter, shims for what it lacks; see ``translator/dialects/*/runner.py``)."""
    prepare_runtimes("cpu")


def prepare_runtimes(device: str) -> list[str]:
    """Ready every dialect's runtime for ``device``; returns their warnings."""
    from translator.dialects import dialects

    notes = []
    if device == "cpu":
        _cpu_device_contexts()
    for dialect in dialects().values():
        runner = dialect.make_runner()
        if runner.warning is not None:
            note = runner.warning()
            if note:
                notes.append(f"{dialect.name}: {note}")
        if runner.prepare is not None:
            runner.prepare(device)
    return notes


def _cpu_device_contexts() -> None:
    """Host code that enters its tensors' CUDA device (``with torch.cuda.device(x.device):``,
    FlagGems and Liger do) runs on the CPU as it would on one GPU: the context is a no-op for a
    CPU tensor's device (validation only; torch raises "Expected a cuda device" otherwise)."""
    import contextlib

    import torch

    for attr in ("device", "device_of"):
        original = getattr(torch.cuda, attr)
        if getattr(original, "tiletrans_cpu", False):
            continue

        def on_cpu(arg, _original=original, _attr=attr):
            where = arg.device if _attr == "device_of" else arg
            if isinstance(where, (str, torch.device)) and torch.device(where).type == "cpu":
                return contextlib.nullcontext()
            return _original(arg)

        on_cpu.tiletrans_cpu = True  # type: ignore[attr-defined]
        setattr(torch.cuda, attr, on_cpu)


InputsFn = Callable[[str, str, str], "tuple | None"]


def check_pair(
    source_path: str | Path,
    translated_path: str | Path,
    src_dsl: str | None = None,
    device: str = "cpu",
    dtypes: Sequence[str] | None = None,
    seeds: Sequence[int] = (0, 1),
    sizes: Mapping[str, int | float | bool] | None = None,
    pin_first_config: bool | None = None,
    inputs: InputsFn | None = None,
) -> Report:
    """Check that TRANSLATED computes what SOURCE computes, public function by function.

    ``dtypes`` are the float dtypes to try; ``None``: the ones the source documents for its
    tensors (dtype asserts, annotations, docstrings: :mod:`~translator.dialects.common.dtype_facts`)
    that ``device`` can run, else :data:`DEFAULT_DTYPES`. A tensor documented with other dtypes
    only (``assert w.dtype == torch.int8``) gets its own in every row.

    Inputs are synthesised from what the IR says of each function's parameters (their shapes'
    relations, :mod:`validation.relations`), or come from ``inputs(entry, device, dtype)`` where
    it returns a tuple of positional arguments (``None``: synthesise). ``sizes`` overrides size
    classes (``{"m": 100}``) or scalar parameters by name for every entry. ``pin_first_config``
    makes autotuned kernels use their first config only; the default is to pin on the CPU (which
    cannot autotune) and not on a GPU. Where SOURCE defines an autograd Function and an output
    is differentiable, the gradients of both sides (``torch.autograd.grad`` of a random upstream
    gradient) are compared too.

    Raises :class:`~translator.diagnostics.TranslationError` if SOURCE cannot be parsed and
    :class:`~validation.inputs.UnknownSizeError` if ``sizes`` names something no entry has. Anything
    else that goes wrong (an import, an entry that raises) is a failed row with its exception text.
    """
    from validation.relations import derive

    bad = sorted(set(dtypes or ()) - set(ir.FLOAT_DTYPES))
    if bad:
        raise ValueError(f"unknown dtypes {bad}; use {', '.join(ir.FLOAT_DTYPES)}")
    notes: list[str] = prepare_runtimes(device)
    if pin_first_config is None:
        pin_first_config = device == "cpu"
    module = parse_file(source_path, src_dsl)
    notes.extend(_explained(module, device))
    entries = [e for e in module.entries if e.public]
    rels: dict[str, Any] = {}
    for entry in entries:
        try:
            rels[entry.name] = derive(entry, module.kernels, module.entries)
        except Exception as err:
            rels[entry.name] = err
    _check_size_names(rels, sizes)
    has_dot = any(isinstance(e, ir.Dot) for k in module.kernels for e in kernel_exprs(k))
    grads = _defines_backward(Path(source_path).read_text())

    loaded: dict[str, Any] = {}
    for role, path in (("source", source_path), ("translated", translated_path)):
        try:
            loaded[role] = _load(path, role, pin_first_config)
        except BaseException as err:
            if isinstance(err, KeyboardInterrupt):
                raise
            loaded[role] = err

    rows: list[Row] = []
    for entry in entries:
        documented = documented_dtypes(entry, module.entries)
        case = _Case(entry, rels[entry.name], loaded, device, sizes, inputs, has_dot, grads)
        case.documented = documented
        rows.extend(case.rows(dtypes, seeds))
        if documented:
            said = "; ".join(f"{p}: {', '.join(ds)} ({how})" for p, (ds, how) in documented.items())
            notes.append(f"{entry.name}: dtypes the source documents: {said}")
    for r in rels.values():
        if not isinstance(r, Exception):
            notes.extend(f"{r.entry}: {n}" for n in r.notes)
    oracles = tuple(
        _oracle(role, path, module.source_dialect if role == "source" else None, device)
        for role, path in (("source", source_path), ("translated", translated_path))
    )
    return Report(
        str(source_path), str(translated_path), device, tuple(rows), tuple(notes), oracles
    )


def _oracle(role: str, path: str | Path, dsl: str | None, device: str) -> tuple[str, str, str]:
    """What proves the kernels of the file at ``path`` on ``device``: its dialect's runner's
    oracle where it has one (a DSL that cannot run there), else "ran" (it ran as written)."""
    from translator.dialects import detect, get_dialect

    try:
        dsl = dsl or detect(Path(path).read_text(), str(path))
    except Exception:
        return role, "?", "ran"
    runner = get_dialect(dsl).make_runner()
    how = runner.oracle(device) if runner.oracle is not None else None
    return role, dsl, how or "ran"


#: The float dtypes tried where a source documents none.
DEFAULT_DTYPES = ("float32", "float16")
#: Float dtypes each device kind runs (the CPU interpreter has no bf16 arithmetic).
RUNNABLE = {"cpu": ("float32", "float16")}


Documented = Mapping[str, tuple[tuple[str, ...], str]]


def documented_dtypes(entry: ir.Entry, entries: Sequence[ir.Entry]) -> dict[str, Any]:
    """The dtypes documented for ``entry``'s parameters (param -> (dtypes, where said)), its own
    or (through the calls that pass them on, :attr:`~translator.ir.nodes.Entry.forwards`) those
    of the entries it calls."""
    from translator.dialects.common.dtype_facts import entry_dtypes

    by_name = {e.name: e for e in entries}
    out: dict[str, Any] = {}

    def visit(e: ir.Entry, rename: dict[str, str], seen: frozenset[str]) -> None:
        for param, fact in entry_dtypes(e).items():
            if param in rename:
                out.setdefault(rename[param], fact)
        for fw in e.forwards:
            callee = by_name.get(fw.callee)
            if callee is None or callee.name in seen:
                continue
            passed = {
                p: rename[v.id] for p, v in fw.args if isinstance(v, ir.Name) and v.id in rename
            }
            visit(callee, passed, seen | {callee.name})

    visit(entry, {p.name: p.name for p in entry.params}, frozenset({entry.name}))
    return out


def row_dtypes(
    documented: Documented, dtypes: Sequence[str] | None, device: str
) -> list[tuple[str, dict[str, str]]]:
    """Each row's float dtype, with the tensors that take another dtype in it.

    Without explicit ``dtypes``: where checks or annotations bind float tensors, their dtypes
    (those ``device`` runs) and no others; else the docstring's first, then
    :data:`DEFAULT_DTYPES`. A tensor bound to dtypes that exclude a row's keeps its first.
    """
    from translator.dialects.common.dtype_facts import BINDING

    runnable = RUNNABLE.get(device, ir.FLOAT_DTYPES)

    def floats(facts: list[tuple[str, ...]]) -> list[str]:
        return list(dict.fromkeys(d for ds in facts for d in ds if d in runnable))

    if dtypes is None:
        bound = floats([ds for ds, how in documented.values() if how in BINDING])
        soft = floats([ds for ds, how in documented.values() if how not in BINDING])
        dtypes = bound or list(dict.fromkeys([*soft, *DEFAULT_DTYPES]))
    out = []
    for dtype in dtypes:
        own = {}
        for param, (dts, how) in documented.items():
            if how in BINDING and dtype not in dts:
                usable = [d for d in dts if d in runnable or d not in ir.FLOAT_DTYPES]
                own[param] = (usable or list(dts))[0]
        out.append((dtype, own))
    return out


def _explained(module: ir.Module, device: str) -> list[str]:
    """What the source dialect's runner says of how ``module``'s kernels will run."""
    from translator.dialects import get_dialect

    if not module.source_dialect:
        return []
    runner = get_dialect(module.source_dialect).make_runner()
    if runner.explain is None:
        return []
    return [f"{module.source_dialect}: {n}" for n in runner.explain(module, device)]


def load_inputs(spec: str) -> InputsFn:
    """``FILE.py:FUNC`` → that function (the file is imported: validation runs user code)."""
    from validation.runners import get_entry, load_module

    path, sep, name = spec.rpartition(":")
    if not sep or not path or not name:
        raise ValueError(f"--inputs {spec!r}: write FILE.py:FUNC")
    return get_entry(load_module(path, "inputs"), name)


def _load(path: str | Path, role: str, pin: bool) -> Any:
    from validation.runners import load_module, pin_first_configs

    mod = load_module(path, role)
    if pin:
        pin_first_configs(mod)
    return mod


def _check_size_names(rels: dict[str, Any], sizes: Mapping[str, Any] | None) -> None:
    """Reject override names that no entry knows (a typo would silently change nothing)."""
    if not sizes:
        return
    known: set[str] = set()
    for r in rels.values():
        if not isinstance(r, Exception):
            known |= {a for c in r.classes for a in c.aliases} | set(r.scalars)
    unknown = sorted(set(sizes) - known)
    if unknown:
        from validation.inputs import UnknownSizeError

        raise UnknownSizeError(None, unknown, sorted(known))


@dataclass
class _Case:
    """One public function checked on every dtype and seed."""

    entry: ir.Entry
    rel: Any
    loaded: dict[str, Any]
    device: str
    sizes: Mapping[str, Any] | None
    inputs: InputsFn | None
    has_dot: bool
    grads: bool
    documented: Documented = field(default_factory=dict)

    def rows(self, dtypes: Sequence[str] | None, seeds: Sequence[int]) -> list[Row]:
        from validation.inputs import class_sizes
        from validation.runners import get_entry

        entry = self.entry
        cases = [(d, s) for d, _ in row_dtypes(self.documented, dtypes, self.device) for s in seeds]
        derived = dict(entry.hints).get("derived_wrapper")
        source = self.loaded["source"]
        if derived and not isinstance(source, BaseException) and not hasattr(source, entry.name):
            # A file of kernels only: run them through the wrapper the translation derived.
            exec(compile(derived, f"<derived wrapper {entry.name}>", "exec"), vars(source))
        csize = (
            class_sizes(self.rel, self.sizes, strict=False)
            if not isinstance(self.rel, Exception)
            else {}
        )
        fns: dict[str, Callable[..., Any]] = {}
        for role in ("source", "translated"):
            mod = self.loaded[role]
            if isinstance(mod, BaseException):
                why = f"{role} does not import: {_text(mod)}"
                return [self.failed(d, s, why, csize) for d, s in cases]
            try:
                fns[role] = get_entry(mod, entry.name)
            except AttributeError as err:
                return [self.failed(d, s, _text(err), csize) for d, s in cases]
        return [self.run(fns, dtype, seed, csize) for dtype, seed in cases]

    def failed(self, dtype: str, seed: int, detail: str, csize: Mapping[str, int]) -> Row:
        return Row(self.entry.name, dtype, seed, math.nan, 0.0, False, detail, dict(csize))

    def arguments(self, dtype: str, seed: int) -> tuple[list[Any], list[str]]:
        """The positional arguments of one case, and their names."""
        import torch

        from validation.inputs import synthesize

        if self.inputs is not None:
            torch.manual_seed(seed)
            given = self.inputs(self.entry.name, self.device, dtype)
            if given is not None:
                names = [p.name for p in self.entry.params][: len(given)]
                return list(given), names
        if isinstance(self.rel, Exception):
            raise ValueError(f"cannot derive inputs: {_text(self.rel)}; pass --inputs FILE.py:FUNC")
        own = dict(row_dtypes(self.documented, [dtype], self.device)[0][1])
        inputs = synthesize(
            self.rel, self.device, dtype, seed, self.sizes, strict=False, param_dtypes=own
        )
        return [inputs[p] for p in self.rel.params], list(self.rel.params)

    def run(
        self, fns: dict[str, Callable[..., Any]], dtype: str, seed: int, csize: Mapping[str, int]
    ) -> Row:

        name = self.entry.name
        try:
            args, params = self.arguments(dtype, seed)
        except Exception as err:
            return self.failed(dtype, seed, f"inputs: {_text(err)}", csize)
        has_dot = self.rel.has_dot if not isinstance(self.rel, Exception) else self.has_dot
        results: dict[str, Any] = {}
        # A source that computes NaN or inf itself: both sides must put them at the same places,
        # and a second run under a finite poison tells those from elements left unwritten.
        nonfinite = False
        for finite in (False, True):
            for role in ("source", "translated"):
                call_args = [_clone(a, self.grads) for a in args]
                try:
                    out = _call(fns[role], call_args, self.device, finite)
                except Exception as err:
                    return self.failed(dtype, seed, f"{role} raised {_text(err)}", csize)
                results[role] = (out, call_args)
                if role == "source" and not finite:
                    nonfinite = _has_nonfinite(out, call_args)
            worst, where = self.compare_run(results, params, dtype, has_dot, nonfinite)
            if not nonfinite or not worst.passed:
                break
        if nonfinite:
            poison = "a finite" if finite else "the NaN"
            where = f"{where} under {poison} poison (the source computes NaN or inf itself)"
        if worst.passed and self.grads:
            try:
                worst, where = self.gradients(results, params, dtype, seed, has_dot)
            except Exception as err:
                return self.failed(dtype, seed, f"backward raised {_text(err)}", csize)
        detail = ""
        if not worst.passed:
            why = worst.detail or f"error {worst.error:.3g} > tolerance {worst.tolerance:.0e}"
            detail = f"{where}: {why}"
        return Row(
            name, dtype, seed, worst.error, worst.tolerance, worst.passed, detail, dict(csize)
        )

    @staticmethod
    def compare_run(
        results: dict, params: list[str], dtype: str, has_dot: bool, nonfinite: bool
    ) -> tuple[Any, str]:
        """Compare one run's outputs and tensor arguments (kernels may write inputs)."""
        from validation.compare import compare

        (ref, ref_args), (out, out_args) = results["source"], results["translated"]
        worst = compare(_detached(out), _detached(ref), dtype, has_dot, nonfinite)
        where = "output"
        for p, a, b in zip(params, out_args, ref_args):
            if _is_tensor(b):
                c = compare(a.detach(), b.detach(), dtype, has_dot, nonfinite)
                if not c.passed and worst.passed:
                    worst, where = c, f"argument {p} after the run"
        return worst, where

    def gradients(
        self, results: dict, params: list[str], dtype: str, seed: int, has_dot: bool
    ) -> tuple[Any, str]:
        """Compare ``torch.autograd.grad`` of both sides for one random upstream gradient."""
        import torch

        from validation.compare import Comparison, compare

        (ref, ref_args), (out, out_args) = results["source"], results["translated"]
        ref_outs, outs = _tensors(ref), _tensors(out)
        pairs = [(r, o) for r, o in zip(ref_outs, outs) if r.grad_fn is not None]
        best = Comparison(0.0, compare(ref_outs[0], ref_outs[0], dtype).tolerance, True, "")
        if not pairs:
            return best, "output"
        gen = torch.Generator(device=pairs[0][0].device).manual_seed(seed + 1000)
        upstream = [
            torch.randn(r.shape, generator=gen, device=r.device, dtype=r.dtype) for r, _ in pairs
        ]
        wrt = [i for i, a in enumerate(ref_args) if _is_tensor(a) and a.requires_grad]
        grads = {}
        for role, outs_, args_ in (
            ("source", [r for r, _ in pairs], ref_args),
            ("translated", [o for _, o in pairs], out_args),
        ):
            if any(o.grad_fn is None for o in outs_):
                raise RuntimeError(f"the {role} output is not differentiable")
            grads[role] = torch.autograd.grad(
                outs_, [args_[i] for i in wrt], upstream, allow_unused=True
            )
        worst, where = best, "output"
        for i, gs, gt in zip(wrt, grads["source"], grads["translated"]):
            if gs is None and gt is None:
                continue
            if gs is None or gt is None:
                return Comparison(math.inf, 0.0, False, "one side has no gradient"), (
                    f"gradient of {params[i] if i < len(params) else i}"
                )
            c = compare(gt, gs, dtype, has_dot)
            if not c.passed and worst.passed:
                worst, where = c, f"gradient of {params[i] if i < len(params) else i}"
        return worst, where


def _has_nonfinite(out: Any, args: list[Any]) -> bool:
    """Whether a float tensor among ``out`` and ``args`` holds NaN or an infinity."""
    import torch

    for t in (*_tensors(out), *(a for a in args if _is_tensor(a))):
        if t.is_floating_point() and not bool(torch.isfinite(t.detach()).all()):
            return True
    return False


def _call(fn: Callable[..., Any], args: list[Any], device: str, finite: bool = False) -> Any:
    from validation.poison import poisoned_allocations
    from validation.runners import call_entry

    with poisoned_allocations(finite):
        out = call_entry(fn, args)
    if device.startswith("cuda"):
        import torch

        torch.cuda.synchronize()
    return out


def _clone(a: Any, grad: bool = False) -> Any:
    """A fresh copy of an argument; float tensors require grad where gradients are checked."""
    if not _is_tensor(a):
        return a
    c = a.detach().clone()
    if grad and c.is_floating_point():
        c.requires_grad_(True)
    return c


def _tensors(out: Any) -> list[Any]:
    items = out if isinstance(out, (tuple, list)) else (out,)
    return [t for t in items if _is_tensor(t)]


def _detached(out: Any) -> Any:
    if isinstance(out, (tuple, list)):
        return type(out)(_detached(o) for o in out)
    return out.detach() if _is_tensor(out) else out


def _is_tensor(a: Any) -> bool:
    import torch

    return isinstance(a, torch.Tensor)


def _text(err: BaseException, limit: int = 600) -> str:
    """An exception as one short line of text."""
    msg = " ".join(str(err).split())
    text = f"{type(err).__name__}: {msg}" if msg else type(err).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _defines_backward(text: str) -> bool:
    """Whether a module defines an autograd Function with its own ``backward``: gradients
    are compared only then (the tutorials' forward-only Functions raise on backward)."""
    import ast

    for node in ast.walk(ast.parse(text)):
        if (
            isinstance(node, ast.ClassDef)
            and any("Function" in ast.unparse(base) for base in node.bases)
            and any(isinstance(m, ast.FunctionDef) and m.name == "backward" for m in node.body)
        ):
            return True
    return False
