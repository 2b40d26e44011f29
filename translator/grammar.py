"""Loading the per-DSL grammar tables (``grammars/<dsl>.toml``)."""

from __future__ import annotations

import sys
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

_REPO_ROOT = Path(__file__).resolve().parent.parent


def resource_dir(kind: str) -> Path:
    """The folder of packaged data ``kind`` ("grammars" or "templates").

    In a source checkout (PYTHONPATH pointing at it) they are its top-level folders; installed,
    they live in the ``translator.grammars``/``translator.templates`` packages. The checkout is
    asked first: with another checkout installed in editable mode, ``translator.grammars``
    resolves to that one's folder even when this ``translator`` is imported.
    """
    if (_REPO_ROOT / "pyproject.toml").is_file() and (_REPO_ROOT / kind).is_dir():
        return _REPO_ROOT / kind
    try:
        path = Path(str(resources.files(f"translator.{kind}")))
        if path.is_dir():
            return path
    except ModuleNotFoundError:
        pass
    return _REPO_ROOT / kind


def template_environment(dsl: str):
    """The jinja2 environment of ``templates/<dsl>/`` (strict: a missing variable is an error)."""
    import jinja2

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(resource_dir("templates") / dsl)),
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )


@cache
def load_grammar(dsl: str) -> dict[str, Any]:
    """The grammar table of ``dsl`` as nested dicts."""
    with open(resource_dir("grammars") / f"{dsl}.toml", "rb") as f:
        return tomllib.load(f)
