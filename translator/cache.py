"""The on-disk cache of what every run would otherwise rebuild: parsed grammars and compiled
templates (never translations).

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
from collections.abc import Callable
from pathlib import Path
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


__all__ = ["cache_dir", "cached_by_content", "template_bytecode_cache"]
