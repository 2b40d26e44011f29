"""Loading SOURCE and TRANSLATED modules from paths, and getting their entry functions.

Each load gets a fresh, unique module name, so the source and its translation (often both called
``softmax.py``) never share ``sys.modules`` entries or compiled-kernel caches.
"""

from __future__ import annotations

import importlib.util
import inspect
import itertools
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

_counter = itertools.count()


def load_module(path: str | Path, role: str) -> ModuleType:
    """Import the Python file at ``path`` as a new module named after ``role`` (``source``,
    ``translated``) and the file's stem. Raises what the import raises."""
    p = Path(path).resolve()
    if not p.is_file():
        raise FileNotFoundError(f"no such file: {path}")
    stem = re.sub(r"\W", "_", p.stem)
    name = f"_tiletrans_{role}_{stem}_{next(_counter)}"
    spec = importlib.util.spec_from_file_location(name, p)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path} as a Python module")
    module = importlib.util.module_from_spec(spec)
    # Registered before running: Triton and Helion look kernels' modules up by name.
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def get_entry(module: ModuleType, name: str) -> Callable[..., Any]:
    """The callable ``name`` of ``module``; ``AttributeError`` naming the module if missing."""
    fn: Any = module
    for part in name.split("."):  # `Fn.apply` of an autograd Function
        fn = getattr(fn, part, None)
    if fn is None or not callable(fn):
        where = getattr(module, "__file__", module.__name__)
        raise AttributeError(f"{where} defines no callable {name!r}")
    return fn


def call_entry(fn: Callable[..., Any], args: Sequence[Any]) -> Any:
    """Call ``fn`` with ``args``, one per parameter in declaration order (the IR entry's order):
    keyword-only parameters (``def add(x, y, *, alpha=1.0)``) are passed by keyword."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):  # a builtin or C callable: positional as given
        return fn(*args)
    positional: list[Any] = []
    keywords: dict[str, Any] = {}
    for p, a in zip(params, args):
        if p.kind is inspect.Parameter.KEYWORD_ONLY:
            keywords[p.name] = a
        else:
            positional.append(a)
    positional.extend(args[len(params) :])
    return fn(*positional, **keywords)


def pin_first_configs(module: ModuleType) -> list[str]:
    """Make every autotuned kernel of ``module`` use only its first config; returns their names.

    For the CPU interpreter, which cannot benchmark or autotune. The first config is the default
    on both sides (the translator emits the source's configs in order), so the two sides stay
    comparable. Each dialect's runner recognises its own kernels (through wrappers such as
    heuristics, which keep the kernel as ``.fn``).
    """
    from translator.dialects import dialects

    pins = [p for d in dialects().values() if (p := d.make_runner().pin) is not None]
    pinned = []
    for attr, obj in list(vars(module).items()):
        seen = 0
        while obj is not None and seen < 8:
            if any(pin(obj) for pin in pins):
                pinned.append(attr)
            obj = getattr(obj, "fn", None) if not isinstance(obj, ModuleType) else None
            seen += 1
    return pinned
