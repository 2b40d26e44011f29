"""Differential testing of a translation: run SOURCE and TRANSLATED on the same inputs, compare.

The SOURCE file is parsed (never imported) by the translator for its IR, which says what inputs each
entry takes (:mod:`validation.relations`). Both files are then imported and each entry runs on
cloned copies of the same synthesized inputs with poisoned allocations
(:mod:`validation.poison`). Outputs, and every tensor argument after the run (kernels may write
into their inputs), are compared with :func:`validation.compare.compare`.

On ``device="cpu"`` kernels run in the Triton interpreter. ``TRITON_INTERPRET=1`` must be set
before ``triton`` is first imported (Triton reads it when kernels are decorated, Helion when its
settings are made): :func:`check_pair` sets it, which is enough if nothing imported triton yet; the
``tiletrans validate`` command sets it first thing.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from translator.api import parse_file
from translator.ir import nodes as ir


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
    """Prepare this process for running kernels on the CPU in the Triton interpreter.

    Sets ``TRITON_INTERPRET=1`` (effective only if triton is not yet imported, or for kernels
    decorated after this call), drops ``HELION_INTERPRET`` (Helion refuses both at once, and its
    eager mode would not run the Triton code Helion generates) and installs the libdevice shim.
    """
    os.environ["TRITON_INTERPRET"] = "1"
    os.environ.pop("HELION_INTERPRET", None)
    from validation.libdevice_shim import install

    install()
    _cpu_sm_count()


CPU_SMS = 4


def _cpu_sm_count() -> None:
    """Give CPU devices an SM count, so that persistent Helion kernels (``pid_type=
    "persistent_*"``, which size their grid by it) run in the interpreter: a few "SMs", fewer than
    the tiles of any test size, so that each program loops over several tiles."""
    try:
        import helion.runtime
    except ImportError:
        return
    original = helion.runtime.get_num_sm
    if getattr(original, "_tiletrans_cpu", False):
        return

    def get_num_sm(device, **kwargs):  # type: ignore[no-untyped-def]
        if getattr(device, "type", device) == "cpu":
            return CPU_SMS
        return original(device, **kwargs)

    get_num_sm._tiletrans_cpu = True  # type: ignore[attr-defined]
    helion.runtime.get_num_sm = get_num_sm


def check_pair(
    source_path: str | Path,
    translated_path: str | Path,
    src_dsl: str = "helion",
    device: str = "cpu",
    dtypes: Sequence[str] = ("float32", "float16"),
    seeds: Sequence[int] = (0, 1),
    sizes: Mapping[str, int | float | bool] | None = None,
    pin_first_config: bool | None = None,
) -> Report:
    """Check that TRANSLATED computes what SOURCE computes, entry by entry.

    ``sizes`` overrides size classes (``{"m": 100}``) or scalar parameters by name for every entry.
    ``pin_first_config`` makes autotuned kernels use their first config only; the default is to
    pin on the CPU (the interpreter cannot autotune) and not on a GPU.

    Raises :class:`~translator.diagnostics.TranslationError` if SOURCE cannot be parsed and
    :class:`~validation.inputs.UnknownSizeError` if ``sizes`` names something no entry has. Anything
    else that goes wrong (an import, an entry that raises) is a failed row with its exception text.
    """
    from translator.ir.outline import inline_launches
    from validation.relations import derive

    bad = sorted(set(dtypes) - set(ir.FLOAT_DTYPES))
    if bad:
        raise ValueError(f"unknown dtypes {bad}; use {', '.join(ir.FLOAT_DTYPES)}")
    notes: list[str] = []
    if device == "cpu":
        if "triton" in sys.modules and os.environ.get("TRITON_INTERPRET") != "1":
            notes.append("triton was imported before TRITON_INTERPRET=1 was set")
        use_interpreter()
    if pin_first_config is None:
        pin_first_config = device == "cpu"
    module = parse_file(source_path, src_dsl)
    kernels = {k.name: k for k in module.kernels}
    entries = [e for e in module.entries if e.public]
    rels: dict[str, Any] = {}
    for entry in entries:
        try:
            rels[entry.name] = derive(inline_launches(entry, kernels))
        except Exception as err:
            rels[entry.name] = err
    _check_size_names(rels, sizes)

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
        rows.extend(_check_entry(entry, rels[entry.name], loaded, device, dtypes, seeds, sizes))
    for r in rels.values():
        if not isinstance(r, Exception):
            notes.extend(f"{r.entry}: {n}" for n in r.notes)
    return Report(str(source_path), str(translated_path), device, tuple(rows), tuple(notes))


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


def _check_entry(
    entry: ir.Entry,
    rel: Any,
    loaded: dict[str, Any],
    device: str,
    dtypes: Sequence[str],
    seeds: Sequence[int],
    sizes: Mapping[str, Any] | None,
) -> list[Row]:
    from validation.inputs import class_sizes
    from validation.runners import get_entry

    def failed(dtype: str, seed: int, detail: str, csize: Mapping[str, int] | None = None) -> Row:
        return Row(entry.name, dtype, seed, math.nan, 0.0, False, detail, dict(csize or {}))

    cases = [(d, s) for d in dtypes for s in seeds]
    derived = dict(entry.hints).get("derived_wrapper")
    source = loaded["source"]
    if derived and not isinstance(source, BaseException) and not hasattr(source, entry.name):
        # A Triton file of kernels only: run them through the wrapper the translation derived.
        exec(compile(derived, f"<derived wrapper {entry.name}>", "exec"), vars(source))
    if isinstance(rel, Exception):
        return [failed(d, s, f"cannot derive inputs: {_text(rel)}") for d, s in cases]
    csize = class_sizes(rel, sizes, strict=False)
    fns: dict[str, Callable[..., Any]] = {}
    for role in ("source", "translated"):
        mod = loaded[role]
        if isinstance(mod, BaseException):
            return [failed(d, s, f"{role} does not import: {_text(mod)}", csize) for d, s in cases]
        try:
            fns[role] = get_entry(mod, entry.name)
        except AttributeError as err:
            return [failed(d, s, _text(err), csize) for d, s in cases]
    return [
        _run_case(entry.name, rel, fns, device, dtype, seed, sizes, csize) for dtype, seed in cases
    ]


def _run_case(
    name: str,
    rel: Any,
    fns: dict[str, Callable[..., Any]],
    device: str,
    dtype: str,
    seed: int,
    sizes: Mapping[str, Any] | None,
    csize: Mapping[str, int],
) -> Row:
    from validation.compare import compare
    from validation.inputs import synthesize

    try:
        inputs = synthesize(rel, device, dtype, seed, sizes, strict=False)
    except Exception as err:
        return Row(name, dtype, seed, math.nan, 0.0, False, f"inputs: {_text(err)}", dict(csize))
    args = [inputs[p] for p in rel.params]
    results = {}
    for role in ("source", "translated"):
        call_args = [_clone(a) for a in args]
        try:
            out = _call(fns[role], call_args, device)
        except Exception as err:
            return Row(
                name, dtype, seed, math.nan, 0.0, False, f"{role} raised {_text(err)}", dict(csize)
            )
        results[role] = (out, call_args)
    (ref, ref_args), (out, out_args) = results["source"], results["translated"]
    result = compare(out, ref, dtype, rel.has_dot)
    worst, where = result, "output"
    for p, a, b in zip(rel.params, out_args, ref_args):
        if _is_tensor(b):
            c = compare(a, b, dtype, rel.has_dot)
            if not c.passed and worst.passed:
                worst, where = c, f"argument {p} after the run"
    detail = ""
    if not worst.passed:
        why = worst.detail or f"error {worst.error:.3g} > tolerance {worst.tolerance:.0e}"
        detail = f"{where}: {why}"
    return Row(name, dtype, seed, worst.error, worst.tolerance, worst.passed, detail, dict(csize))


def _call(fn: Callable[..., Any], args: list[Any], device: str) -> Any:
    from validation.poison import poisoned_allocations

    with poisoned_allocations():
        out = fn(*args)
    if device.startswith("cuda"):
        import torch

        torch.cuda.synchronize()
    return out


def _clone(a: Any) -> Any:
    return a.clone() if _is_tensor(a) else a


def _is_tensor(a: Any) -> bool:
    import torch

    return isinstance(a, torch.Tensor)


def _text(err: BaseException, limit: int = 600) -> str:
    """An exception as one short line of text."""
    msg = " ".join(str(err).split())
    text = f"{type(err).__name__}: {msg}" if msg else type(err).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."
