"""The dialects: one folder per DSL, discovered, not listed.

Every subpackage of ``translator.dialects`` that exports ``DIALECT`` (a
:class:`~translator.dialects.base.Dialect`) is a dialect, as is every object installed under the
``tiletrans.dialects`` entry-point group and every dialect passed to :func:`register` (a plugin
outside the package, or a test's toy dialect). Nothing else in tiletrans names a DSL.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import sys
from importlib.machinery import PathFinder

from translator.diagnostics import TranslationError
from translator.dialects.base import Dialect
from translator.ir.loc import Loc

_REGISTERED: dict[str, Dialect] = {}
_DISCOVERED: dict[str, Dialect] | None = None


def _discover() -> dict[str, Dialect]:
    global _DISCOVERED
    if _DISCOVERED is None:
        found: dict[str, Dialect] = {}
        for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
            if not info.ispkg:
                continue
            module = importlib.import_module(f"{__name__}.{info.name}")
            dialect = getattr(module, "DIALECT", None)
            if isinstance(dialect, Dialect):
                found[dialect.name] = dialect
        for ep in _plugin_entry_points():
            dialect = ep.load()
            if isinstance(dialect, Dialect):
                found.setdefault(dialect.name, dialect)
        _DISCOVERED = found
    return _DISCOVERED


#: The entry-point group of plugin dialects.
GROUP = "tiletrans.dialects"


def _plugin_entry_points() -> tuple:
    """The installed entry points of :data:`GROUP` (``importlib.metadata``), or ``()`` when no
    installed distribution can declare one (:func:`_may_have_plugins`): importing
    ``importlib.metadata`` and scanning every distribution was ~20 ms of each run's start."""
    if not _may_have_plugins():
        return ()
    from importlib.metadata import entry_points

    return tuple(entry_points(group=GROUP))


def _may_have_plugins() -> bool:
    """Whether an ``entry_points.txt`` on ``sys.path`` names :data:`GROUP` (or the path holds
    what this quick look cannot read: a zip, a finder with distributions of its own).

    The same places ``importlib.metadata`` reads: the ``*.dist-info`` and ``*.egg-info`` folders
    of every ``sys.path`` directory. Never a false "no": anything unusual answers "maybe"."""
    for finder in sys.meta_path:
        if finder is not PathFinder and hasattr(finder, "find_distributions"):
            return True
    needle = GROUP.encode()
    for entry in sys.path:
        root = os.fspath(entry) or "."
        try:
            names = os.listdir(root)
        except NotADirectoryError:  # a zip file: importlib.metadata reads inside it
            return True
        except OSError:  # missing or unreadable: no distributions there
            continue
        for name in names:
            if name.lower().endswith((".dist-info", ".egg-info")):
                try:
                    with open(os.path.join(root, name, "entry_points.txt"), "rb") as f:
                        if needle in f.read():
                            return True
                except OSError:
                    continue
    return False


def dialects() -> dict[str, Dialect]:
    """Every dialect by name: discovered ones, then registered ones."""
    return {**_discover(), **_REGISTERED}


def register(dialect: Dialect) -> None:
    """Add ``dialect`` (replacing one of the same name) until :func:`unregister`."""
    _REGISTERED[dialect.name] = dialect


def unregister(name: str) -> None:
    """Remove a dialect :func:`register` added."""
    _REGISTERED.pop(name, None)


def get_dialect(name: str) -> Dialect:
    """The dialect called ``name``; a diagnostic listing the others if there is none."""
    table = dialects()
    if name not in table:
        raise TranslationError(
            f"unknown DSL {name!r}", None, f"tiletrans knows {', '.join(sorted(table))}"
        )
    return table[name]


def source_dialects() -> list[str]:
    """Names of the dialects tiletrans can read."""
    return [n for n, d in dialects().items() if d.frontend is not None]


def target_dialects() -> list[str]:
    """Names of the dialects tiletrans can write."""
    return [n for n, d in dialects().items() if d.backend is not None]


def detect(source: str, path: str) -> str:
    """The dialect of ``source``: the one whose packages it imports."""
    scores = {n: dialects()[n].detect(source) for n in source_dialects()}
    best = max(scores.values(), default=0)
    matches = [n for n, score in scores.items() if score == best and score > 0]
    if len(matches) == 1:
        return matches[0]
    what = "no DSL it can read" if not matches else f"several DSLs ({', '.join(matches)})"
    raise TranslationError(
        f"cannot tell the DSL of {path}: it imports {what}",
        Loc(path, 1, 0),
        f"say which with --from ({', '.join(source_dialects())})",
    )


__all__ = [
    "Dialect",
    "detect",
    "dialects",
    "get_dialect",
    "register",
    "source_dialects",
    "target_dialects",
    "unregister",
]
