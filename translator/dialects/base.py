"""The plugin contract: what one DSL contributes to tiletrans.

A dialect is one folder ``translator/dialects/<name>/`` whose ``__init__`` exports ``DIALECT``, a
:class:`Dialect`, plus its grammar (``grammars/<name>.toml``) and templates
(``templates/<name>/``). Nothing outside those names a DSL: the registry
(:mod:`translator.dialects`) discovers dialects, and the CLI, the validation runners, the golden
script and the round-trip tests iterate over them. References to code are ``"module:attribute"``
strings, imported when first used, so that listing dialects imports no DSL runtime.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from translator.dialects.common.backend import Backend
    from translator.ir import nodes as ir

Frontend = Callable[[str, str], "ir.Module"]
Ref = Any  # a callable or a "module:attribute" string naming one


def load(ref: Ref) -> Any:
    """The object ``ref`` names (``"package.module:attr"``), or ``ref`` itself."""
    if not isinstance(ref, str):
        return ref
    module, _, attr = ref.partition(":")
    obj: Any = importlib.import_module(module)
    for part in attr.split(".") if attr else ():
        obj = getattr(obj, part)
    return obj


@dataclass(frozen=True)
class Runner:
    """What validation needs from a DSL's runtime to run its kernels (all optional).

    ``prepare(device)`` readies the process (on ``"cpu"``: an interpreter, shims); ``warning()``
    says what went wrong preparing, if anything (a runtime imported too early); ``pin(obj)``
    makes ``obj``, if it is one of this DSL's autotuned kernels, use its first config only and
    says whether it did (the CPU cannot autotune); ``explain(module, device)`` says how the
    kernels of ``module`` (parsed from a file of this DSL) will run on ``device`` where that is
    not what the file says (a kernel without a config runs at a default config).
    ``oracle(device)`` says what proves this DSL's kernels on ``device`` where they do not run
    themselves (a DSL with no CPU execution: "compiled for sm_90, then run as its IR in the
    reference interpreter"); ``None`` (or no hook): they run as written. Validation reports it
    for each side of a pair.
    """

    prepare: Callable[[str], None] | None = None
    warning: Callable[[], str | None] | None = None
    pin: Callable[[object], bool] | None = None
    explain: Callable[[ir.Module, str], list[str]] | None = None
    oracle: Callable[[str], str | None] | None = None


@dataclass(frozen=True)
class Dialect:
    """One DSL: its name, how to recognise its files, and its parts (each may be missing).

    ``frontend`` parses source text into the IR (``parse(source, path)``); ``backend`` is a
    :class:`~translator.dialects.common.backend.Backend` subclass; ``runner`` a :class:`Runner`
    (or a function returning one); ``hint_keys`` the dialect-namespaced kernel hints it reads and
    writes (``"<name>.<key>"`` in :attr:`translator.ir.nodes.Hints.extras`); ``examples`` the
    folder of its bundled examples, relative to the repository.
    """

    name: str
    description: str
    frontend: Ref = None
    backend: Ref = None
    runner: Ref = None
    hint_keys: tuple[str, ...] = ()
    packages: tuple[str, ...] = ()
    examples: str | None = None
    extras: dict[str, Any] = field(default_factory=dict, compare=False)

    @cached_property
    def import_roots(self) -> tuple[str, ...]:
        """The import roots that identify this DSL's files (its grammar's ``packages``)."""
        if self.packages:
            return self.packages
        from translator.grammar import load_grammar

        try:
            return tuple(load_grammar(self.name).get("packages", ()))
        except FileNotFoundError:
            return ()

    def parse(self, source: str, path: str) -> ir.Module:
        """The IR of ``source`` (a file of this DSL called ``path``), stamped with the source's
        sha256 (the provenance header of every translation cites it, whatever the frontend)."""
        module = load(self.frontend)(source, path)
        digest = hashlib.sha256(source.encode()).hexdigest()
        return (
            module
            if module.source_hash == digest
            else dataclasses.replace(module, source_hash=digest)
        )

    def make_backend(self) -> Backend:
        """A fresh backend of this DSL."""
        return load(self.backend)()

    def make_runner(self) -> Runner:
        """This DSL's validation runner (an empty one if it has none)."""
        runner = load(self.runner) if self.runner is not None else Runner()
        return runner() if callable(runner) and not isinstance(runner, Runner) else runner

    @cached_property
    def device_module(self) -> str | None:
        """The module of this DSL's device code (``triton.language``)."""
        from translator.grammar import load_grammar

        try:
            return load_grammar(self.name).get("device_module")
        except FileNotFoundError:
            return None

    def detect(self, source: str) -> int:
        """How surely ``source`` is written in this DSL: 2 if it imports the DSL's device module,
        1 if only its package (host code may use a DSL's helpers), else 0."""
        modules = imported_modules(source)
        if self.device_module is not None and self.device_module in modules:
            return 2
        roots = {m.split(".")[0] for m in modules}
        return 1 if roots & set(self.import_roots) else 0


def imported_modules(source: str) -> list[str]:
    """The modules ``source`` imports (``from triton import language`` → ``triton``,
    ``triton.language``); empty if it does not parse (:mod:`ast`, so that detecting a file's DSL
    imports no parser library)."""
    import ast

    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    modules: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            modules.append(node.module)
            modules.extend(f"{node.module}.{alias.name}" for alias in node.names)
    return modules


__all__ = ["Dialect", "Frontend", "Runner", "imported_modules", "load"]
