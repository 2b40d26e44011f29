"""The on-disk cache of what every run would otherwise rebuild: parsed grammars, compiled
templates (jinja2's bytecode, and the plain render functions of :mod:`translator.rendering`) and
the compiled methods of dataclasses (never translations).

A run of ``tiletrans`` is a fresh process: it parses the TOML grammars and compiles the jinja2
templates of its dialects before translating anything. Both depend on the files' text alone, so
they are cached under a key that is the hash of that text (and of the tiletrans version and the
Python version for pickles): an edited grammar or template is a new key, never a stale entry.

Where: ``$TILETRANS_CACHE_DIR``, else ``$XDG_CACHE_HOME/tiletrans``, else
``~/.cache/tiletrans``. ``TILETRANS_NO_CACHE=1`` turns it off. A cache that cannot be read or
written is skipped silently (a read-only home, a full disk): it only ever saves time.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from types import CodeType
from typing import Any, TypeVar

T = TypeVar("T")


def cache_dir() -> Path | None:
    """The cache folder (created), or ``None`` when caching is off or impossible."""
    if os.environ.get("TILETRANS_NO_CACHE", "") not in ("", "0"):
        return None
    root = os.environ.get("TILETRANS_CACHE_DIR")
    if not root:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = os.path.join(base, "tiletrans")
    try:
        os.makedirs(root, exist_ok=True)
    except OSError:
        return None
    return Path(root)


def _key(kind: str, data: bytes) -> str:
    from translator import __version__

    h = hashlib.sha256()
    h.update(f"{kind}\0{__version__}\0{sys.version_info[:2]}\0".encode())
    h.update(data)
    return h.hexdigest()[:32]


def cached_by_content(kind: str, data: bytes, build: Callable[[], T]) -> T:
    """``build()``, or what it returned for the same ``kind`` and ``data`` before (pickled).

    ``data`` must be everything the result depends on (a file's bytes).
    """
    folder = cache_dir()
    if folder is None:
        return build()
    path = folder / f"{kind}-{_key(kind, data)}.pickle"
    try:
        with open(path, "rb") as f:
            return pickle.load(f)
    except Exception:  # missing, truncated or from an incompatible run: rebuild
        pass
    value = build()
    _write(path, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
    return value


def _write(path: Path, data: bytes) -> None:
    """Write atomically (a concurrent run reads the old entry or the new one, never half)."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        pass


def template_bytecode_cache() -> Any:
    """A jinja2 bytecode cache in the cache folder (keyed by each template's checksum), or
    ``None`` when caching is off."""
    folder = cache_dir()
    if folder is None:
        return None
    import jinja2

    class Cache(jinja2.FileSystemBytecodeCache):
        """jinja2's file cache, except that a failed read or write only costs a compile."""

        def load_bytecode(self, bucket: Any) -> None:
            try:
                super().load_bytecode(bucket)
            except (OSError, EOFError, ValueError):
                bucket.reset()

        def dump_bytecode(self, bucket: Any) -> None:
            with contextlib.suppress(OSError):
                super().dump_bytecode(bucket)

    try:
        (folder / "jinja2").mkdir(exist_ok=True)
        return Cache(str(folder / "jinja2"), "%s.cache")
    except OSError:
        return None


#: Most entries one package's file of the dataclass code cache keeps (a run that creates more
#: starts that file over).
_CODE_ENTRIES = 10_000


@contextlib.contextmanager
def compiled_dataclasses() -> Iterator[None]:
    """While active, ``@dataclass`` reuses the code objects of its generated methods from the
    cache folder instead of compiling their source again.

    A one-file translation is a fresh process, and a fifth of it was the creation of dataclasses
    at import: libcst's ~250 node classes and the IR's. ``dataclasses`` writes each method
    (``__init__``, ``__eq__``, ``__setattr__`` of a frozen class, ...) as source text and runs
    ``exec(text, globals, locals)``; compiling those ~900 texts was most of that. Within this
    context, the ``exec`` that ``dataclasses`` calls (a name looked up in its module globals
    before builtins, so nothing else is affected) takes the code object compiled from the same
    text earlier (``marshal``, keyed by the exact text), and ``exec``s it with the same globals
    and locals: the same methods, without the compile. Texts not seen before are compiled as
    ``exec`` would (no ``__future__`` flags inherited) and added on exit. Off with caching
    (``TILETRANS_NO_CACHE=1``).

    One file per top-level package of the class (``libcst``, ``translator``, ``torch``...), per
    Python bytecode version, read when that package's first dataclass comes: a translation
    reads libcst's and tiletrans's (~1,500 texts, ~3 ms), never those of the ~5,000 classes
    ``validate`` creates when it imports torch (one shared file had grown to 8 MB, read at
    every start: ~14 ms of each one-file run).
    """
    import dataclasses

    folder = cache_dir()
    if folder is None or "exec" in vars(dataclasses):
        yield
        return
    import importlib.util
    import marshal

    stem = f"dataclass-code-3-{sys.implementation.cache_tag}-{importlib.util.MAGIC_NUMBER.hex()}"
    # Per package: text -> the marshalled code object. A file is read whole at the package's
    # first dataclass; each entry is unmarshalled when its text comes.
    codes: dict[str, dict[str, bytes]] = {}
    added: dict[str, dict[str, bytes]] = {}

    def cached_exec(source: Any, globals: Any = None, locals: Any = None) -> None:
        if isinstance(source, str):
            package = _package(globals)
            known = codes.get(package)
            if known is None:
                known = codes[package] = _read_codes(_code_file(folder, stem, package), marshal)
            blob = known.get(source)
            code = None
            if type(blob) is bytes:
                with contextlib.suppress(Exception):
                    code = marshal.loads(blob)
            if type(code) is not CodeType:
                code = compile(source, "<string>", "exec", dont_inherit=True)
                blob = marshal.dumps(code)
                known[source] = added.setdefault(package, {})[source] = blob
            source = code
        exec(source, globals, locals)

    dataclasses.exec = cached_exec  # type: ignore[attr-defined]
    try:
        yield
    finally:
        del dataclasses.exec  # type: ignore[attr-defined]
        for package, new in added.items():
            path = _code_file(folder, stem, package)
            known = _read_codes(path, marshal)
            if len(known) + len(new) > _CODE_ENTRIES:
                known = {}
            known.update(new)
            _write(path, marshal.dumps(known))


def _package(globals: Any) -> str:
    """The top-level package of the module whose globals ``dataclasses`` passes (``_``: none)."""
    name = globals.get("__name__") if isinstance(globals, dict) else None
    top = name.partition(".")[0] if isinstance(name, str) else ""
    return top if top.isidentifier() else "_"


def _code_file(folder: Path, stem: str, package: str) -> Path:
    return folder / f"{stem}-{package}.marshal"


def _read_codes(path: Path, marshal: Any) -> dict[str, bytes]:
    try:
        with open(path, "rb") as f:
            codes = marshal.load(f)
    except Exception:  # missing, truncated or foreign: start over
        return {}
    return codes if isinstance(codes, dict) else {}


__all__ = ["cache_dir", "cached_by_content", "compiled_dataclasses", "template_bytecode_cache"]
