"""The per-DSL grammar tables (``grammars/<dsl>.toml``): their schema, loading and validation.

A grammar is the source of truth for how one DSL spells the IR, in both directions. Every
grammar has the same layout, :data:`GRAMMAR_SCHEMA`, which :func:`load_grammar` checks:

* top level: ``device_module`` (the module of device code: a file importing it is in this DSL),
  ``packages`` (its import roots) and ``imports`` (what a module in this DSL imports; they also
  give the aliases the ``[backend.*]`` spellings are written with, ``tl``/``hl``); optionally
  ``pure_host_calls``, the DSL's host functions without side effects (``triton.cdiv``), whose
  results a translation may drop when nothing reads them
  (:mod:`translator.dialects.common.dead_host`);
* ``[frontend.<table>]``: source spelling -> IR, keyed by the dotted name a source resolves to
  through its imports (``tl.exp`` -> ``"triton.language.exp"``, ``F.gelu`` ->
  ``"torch.nn.functional.gelu"``);
* ``[backend.<table>]``: IR -> target spelling, written with the aliases of ``imports``; a
  spelling is a callee (``"tl.sum"``) or a template whose ``{0}``, ``{1}``... are the operands;
  ``[backend.lowered.<family>]`` names the IR ops the backend writes in code out of other
  spellings, ``[backend.refused.<family>]`` those it cannot write, each with the reason.

The op tables (``dtypes``, ``pointwise``, ``reductions``, ``scans``, ``dots``, ``atomics``) have
the same names in both sections and range over the IR's families
(:data:`translator.ir.ops.OP_FAMILIES`); ``tests/test_grammars.py`` checks that each backend
spells, lowers or refuses every IR op and that frontend and backend tables agree. Tables only
some DSLs need are optional, but they too are listed here: a key the schema does not know is
an error, so a misspelt table cannot be silently ignored.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

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


@cache
def template_environment(dsl: str):
    """The jinja2 environment of ``templates/<dsl>/`` (strict: a missing variable is an error).

    One per process: a new environment per kernel compiled its template again for every file
    (a fifth of a translation). jinja2 still reloads a template whose file changed, and compiled
    templates are cached on disk by checksum (:mod:`translator.cache`) for the next process.
    """
    import jinja2

    from translator.cache import template_bytecode_cache

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(resource_dir("templates") / dsl)),
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
        bytecode_cache=template_bytecode_cache(),
    )


# --------------------------------------------------------------------------------------------------
# The schema


@dataclass(frozen=True)
class Key:
    """One key of a grammar: the shape of its value, whether every grammar has it, what it is.

    Shapes: ``"string"``; ``"strings"`` (a list of strings); ``"spellings"`` (a table of string
    values); ``"tables"`` (a table of ``spellings`` tables); ``"table"`` (any table, its
    contents the reader's business); ``"section"`` (a table whose keys are ``keys``, plus any
    others if ``open``).
    """

    shape: str
    required: bool = True
    doc: str = ""
    keys: Mapping[str, Key] = field(default_factory=dict)
    open: bool = False


def _section(doc: str, keys: dict[str, Key], *, required: bool = True, open: bool = False) -> Key:
    return Key("section", required, doc, keys, open)


def _spellings(doc: str, required: bool = True) -> Key:
    return Key("spellings", required, doc)


GRAMMAR_SCHEMA = _section(
    "a grammar file",
    {
        "device_module": Key("string", doc="the module of device code (`triton.language`)"),
        "packages": Key("strings", doc="import roots that identify this DSL"),
        "imports": Key("strings", doc="what a module in this DSL imports; the backend's aliases"),
        "pure_host_calls": Key(
            "strings",
            False,
            "host functions without side effects (dotted names after imports): a translation "
            "drops a dead assignment of their result",
        ),
        "frontend": _section(
            "source spelling -> IR (a dialect that reads this DSL)",
            {
                "kernel": _section(
                    "the kernel decorator and config callee; config keys that are launch knobs",
                    {
                        "decorator": Key("string"),
                        "config": Key("string"),
                        "launch_keys": Key("strings"),
                    },
                    open=True,
                ),
                "dtypes": _spellings("dtype spelling -> IR dtype"),
                "pointwise": _spellings("device function -> IR pointwise op"),
                "scalar_pointwise": _spellings("function on host numbers -> IR pointwise op"),
                "reductions": _spellings("function -> IR reduction"),
                "scans": _spellings("function -> IR scan (inclusive, forward)"),
                "dots": _spellings("function -> IR dot form (`translator.ir.ops.DOT_FORMS`)"),
                "atomics": _spellings("function -> IR atomic read-modify-write op"),
                "host_alloc": _spellings("host allocator -> allocation kind (`ir.ALLOC_KINDS`)"),
                "unsupported": _spellings("construct the frontend refuses -> what to write"),
                "unsupported_dtypes": _spellings(
                    "dtype spelling with no IR dtype -> why, and what to write", required=False
                ),
                "composites": _spellings(
                    "function -> composite the frontend lowers into IR ops", required=False
                ),
                "language": _spellings(
                    "role -> device-language entry point the frontend reads", required=False
                ),
                "inline": _spellings(
                    "inlined snippet of another DSL (`hl.inline_triton`) -> the IR op it computes",
                    required=False,
                ),
                "methods": Key(
                    "tables",
                    False,
                    "per op table (`pointwise`, `dtypes`...): tensor method -> the same values",
                ),
                "host": Key("table", False, "host functions the frontend reads, by role"),
                "math_namespaces": _section(
                    "namespaces whose functions are looked up as if in `device_module`",
                    {"prefixes": Key("strings")},
                    required=False,
                ),
                "identity_hints": _section(
                    "compiler hints the frontend reads through (the value is unchanged)",
                    {"names": Key("strings")},
                    required=False,
                ),
                "unsupported_host": _spellings(
                    "host name the frontend refuses -> key of `unsupported_host_reasons`",
                    required=False,
                ),
                "unsupported_host_reasons": Key(
                    "table", False, "reason -> [what is unsupported, what to write instead]"
                ),
            },
            required=False,
        ),
        "backend": _section(
            "IR -> target spelling (a dialect that writes this DSL)",
            {
                "kernel": _section(
                    "the kernel decorator and config callee",
                    {"decorator": Key("string"), "config": Key("string")},
                    open=True,
                ),
                "dtypes": _spellings("IR dtype -> device dtype spelling"),
                "host_dtypes": _spellings(
                    "IR dtype -> host dtype spelling (where it is not the device's)",
                    required=False,
                ),
                "pointwise": _spellings("IR pointwise op -> template on device values"),
                "pointwise_f32": _spellings(
                    "IR pointwise op -> template where every operand is a float32 tile",
                    required=False,
                ),
                "int_pointwise": _spellings(
                    "IR pointwise op -> template where the result is an integer (no NaN to guard)",
                    required=False,
                ),
                "scalar_pointwise": _spellings("IR pointwise op -> template on host numbers"),
                "reductions": _spellings("IR reduction -> callee"),
                "scans": _spellings("IR scan -> callee"),
                "dots": _spellings("IR dot form -> callee"),
                "atomics": _spellings("IR atomic op -> callee"),
                "lowered": Key("tables", doc="family -> IR op -> how the backend writes it"),
                "refused": Key("tables", doc="family -> IR op -> why the backend refuses it"),
                "composites": _spellings(
                    "frontend composite -> callee of the IR pattern it lowers to", required=False
                ),
                "language": _spellings("role -> device-language entry point", required=False),
                "clamp": _spellings(
                    "maximum/minimum of a tensor and a number -> template", required=False
                ),
                "inline": _spellings(
                    "IR op -> snippet of another DSL the target inlines (`{0}`... its operands)",
                    required=False,
                ),
                "pointwise_f32_in_dot_kernels": _section(
                    "pointwise_f32 forms also written in kernels with dots",
                    {"ops": Key("strings")},
                    required=False,
                ),
                "fp32_only": _section(
                    "pointwise ops whose operands are computed in float32",
                    {"ops": Key("strings")},
                    required=False,
                ),
                "default_space": Key("table", False, "autotune configs for configless kernels"),
                "row_space": Key("table", False, "row counts searched for a row kernel's rows"),
                "chunk_space": Key(
                    "table", False, "chunk sizes searched for a streaming reduction's loop"
                ),
                "hint_space": Key("table", False, "a compiler hint searched beside tile sizes"),
            },
            required=False,
        ),
    },
)


class GrammarError(ValueError):
    """A grammar file that does not follow :data:`GRAMMAR_SCHEMA`; the message names the file
    and every key at fault."""


def _problems(value: Any, spec: Key, where: str) -> Iterator[str]:
    """What is wrong with ``value`` (found at key ``where``) for ``spec``."""

    def strings(v: Any) -> bool:
        return isinstance(v, list) and all(isinstance(s, str) for s in v)

    def spellings(v: Any) -> bool:
        return isinstance(v, dict) and all(isinstance(s, str) for s in v.values())

    found = type(value).__name__
    if spec.shape == "string" and not isinstance(value, str):
        yield f"`{where}` must be a string, not {found}"
    elif spec.shape == "strings" and not strings(value):
        yield f"`{where}` must be a list of strings"
    elif spec.shape == "spellings" and not spellings(value):
        yield f"[{where}] must be a table of strings"
    elif spec.shape == "tables":
        if not isinstance(value, dict):
            yield f"[{where}] must be a table of tables"
            return
        for name, table in value.items():
            if not spellings(table):
                yield f"[{where}.{name}] must be a table of strings"
    elif spec.shape == "table" and not isinstance(value, dict):
        yield f"[{where}] must be a table, not {found}"
    elif spec.shape == "section":
        if not isinstance(value, dict):
            yield f"[{where}] must be a table, not {found}" if where else "not a table"
            return
        prefix = f"{where}." if where else ""
        for name, sub in spec.keys.items():
            if name in value:
                yield from _problems(value[name], sub, prefix + name)
            elif sub.required:
                scalar = sub.shape in ("string", "strings")
                shown = f"`{prefix}{name}`" if scalar else f"[{prefix}{name}]"
                yield f"{shown} is missing ({sub.doc})"
        if not spec.open:
            for name in value:
                if name not in spec.keys:
                    yield (
                        f"`{prefix}{name}` is not in the grammar schema "
                        f"(known here: {', '.join(spec.keys)})"
                    )


def validate_grammar(data: Mapping[str, Any], path: str | Path) -> None:
    """Raise :class:`GrammarError` if ``data`` (the parsed grammar file ``path``) does not
    follow :data:`GRAMMAR_SCHEMA`."""
    problems = list(_problems(data, GRAMMAR_SCHEMA, ""))
    if problems:
        raise GrammarError(
            f"{path} does not follow the grammar schema (translator/grammar.py):\n  "
            + "\n  ".join(problems)
        )


def load_grammar_file(path: str | Path) -> dict[str, Any]:
    """The grammar in ``path``, validated against :data:`GRAMMAR_SCHEMA`.

    The TOML parse is cached on disk under the hash of the file's bytes
    (:mod:`translator.cache`); the validation runs every time, so that a schema changed in the
    code is checked against a cached grammar too.
    """
    from translator.cache import cached_by_content

    with open(path, "rb") as f:
        raw = f.read()
    data = cached_by_content("grammar", raw, lambda: _parse_toml(raw))
    validate_grammar(data, path)
    return data


def _parse_toml(raw: bytes) -> dict[str, Any]:
    # Imported here: with the parse cached, a run never needs the TOML parser (~5 ms).
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on Python 3.10 only
        import tomli as tomllib
    return tomllib.loads(raw.decode("utf-8"))


def grammar_path(dsl: str) -> Path:
    """Where the grammar of ``dsl`` lives."""
    return resource_dir("grammars") / f"{dsl}.toml"


@cache
def load_grammar(dsl: str) -> dict[str, Any]:
    """The grammar of ``dsl`` as nested dicts (validated; :class:`GrammarError` if it does not
    follow the schema, ``FileNotFoundError`` if there is none)."""
    return load_grammar_file(grammar_path(dsl))


__all__ = [
    "GRAMMAR_SCHEMA",
    "GrammarError",
    "Key",
    "grammar_path",
    "load_grammar",
    "load_grammar_file",
    "resource_dir",
    "template_environment",
    "validate_grammar",
]
