"""Wrappers for ``@triton.jit`` kernels that no function of their file launches.

A Triton library often ships kernels alone. Such a kernel gets a host wrapper *derived from its
signature*, as Python source appended to the file and lifted like any wrapper:

* the entry is named after the kernel, ``_kernel`` dropped (``add_kernel`` → ``add``);
* a **pointer** parameter (one the kernel dereferences: it reaches the pointer argument of a
  ``tl.load``/``tl.store``/``tl.atomic_*``, or is the base of a block pointer or descriptor, and
  is never scaled) becomes a tensor parameter, ``_ptr`` dropped (``x_ptr`` → ``x``);
* a **stride** parameter (an integer that only scales offsets into one tensor) is not a parameter:
  the wrapper passes ``x.stride(d)``, ``d`` counting that tensor's strides in signature order;
* every other parameter stays a parameter: annotated ones keep their annotation; unannotated ones
  are ``int`` where the kernel computes offsets, masks or loop bounds with them, else ``float``;
* ``tl.constexpr`` parameters take their defaults (or the autotuner's / heuristics' values); one
  with neither is refused, since no wrapper could choose it;
* the grid is one program per tile of what the kernel computes (whatever its masks bound), and the
  entry returns the tensors the kernel writes, in parameter order.
"""

from __future__ import annotations

import keyword
from collections.abc import Callable
from dataclasses import dataclass, field

import libcst as cst

from translator.diagnostics import TranslationError
from translator.dialects.cst_utils import import_aliases, names_in, resolve
from translator.dialects.triton.host_values import STAND_IN_BLOCK
from translator.ir import nodes as ir

# The grid name a derived wrapper launches with; the launch reads it as "one program per tile".
DERIVED_GRID = "tiletrans_derived_grid"

_POINTER_CALLS = (
    "load",
    "store",
    "atomic_add",
    "atomic_max",
    "atomic_min",
    "atomic_xchg",
    "atomic_cas",
    "make_block_ptr",
    "make_tensor_descriptor",
)
_INDEX_CALLS = ("arange", "range", "static_range", "cdiv", "program_id")


@dataclass
class _Uses:
    """How a kernel uses each name, read off its syntax."""

    deps: dict[str, set[str]] = field(default_factory=dict)  # local -> names its values read
    pointer_exprs: list[cst.BaseExpression] = field(default_factory=list)
    store_exprs: list[cst.BaseExpression] = field(default_factory=list)  # pointers written
    index_names: set[str] = field(default_factory=set)  # names in masks, bounds, offsets
    scaled: set[str] = field(default_factory=set)  # names some product scales


def derived_wrappers(
    module: cst.Module,
    path: str,
    locate: Callable[[cst.CSTNode], ir.Loc | None] | None = None,
    extra_aliases: dict[str, str] | None = None,
) -> str:
    """Source of a wrapper for every kernel of ``module`` that nothing launches or calls
    (``locate`` places the refusals: a kernel no wrapper can launch; ``extra_aliases``: names
    bound by the library's other modules, a decorator alias)."""
    aliases = {**import_aliases(module), **(extra_aliases or {})}
    jit: dict[str, cst.FunctionDef] = {}
    plain: dict[str, cst.FunctionDef] = {}
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef):
            names = [
                resolve(
                    d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator, aliases
                )
                for d in stmt.decorators
            ]
            if "triton.jit" in names:
                jit[stmt.name.value] = stmt
            else:
                plain[stmt.name.value] = stmt
        elif isinstance(stmt, cst.ClassDef):
            # Methods launch kernels too (an autograd Function's forward and backward).
            plain[stmt.name.value] = stmt  # type: ignore[assignment]
    # Launched by a function, or referenced by another kernel (a helper, a combine function).
    used = _names_launched(plain.values()) | _names_referenced(f.body for f in jit.values())
    taken = set(plain) | set(jit)
    return "".join(
        _wrapper(fn, aliases, path, taken, locate or (lambda node: None))
        for name, fn in jit.items()
        if name not in used and _dereferences_a_parameter(fn, aliases)
    )


def _names_launched(fns) -> set[str]:
    out: set[str] = set()

    class V(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            f = node.func
            if isinstance(f, cst.Subscript) and isinstance(f.value, cst.Name):
                out.add(f.value.value)
            # `kernel = softmax_kernel.warmup(...)`, launched as `kernel[grid](...)`.
            if (
                isinstance(f, cst.Attribute)
                and f.attr.value == "warmup"
                and isinstance(f.value, cst.Name)
            ):
                out.add(f.value.value)

    for fn in fns:
        fn.visit(V())
    return out


def _names_referenced(bodies) -> set[str]:
    out: set[str] = set()
    for body in bodies:
        out |= names_in(body)
    return out


def _dereferences_a_parameter(fn: cst.FunctionDef, aliases: dict[str, str]) -> bool:
    """A kernel, as opposed to a jit helper nothing uses: it loads or stores through one of its
    parameters."""
    uses = _uses(fn, aliases)
    reach = _closure(uses, _names_in(uses.pointer_exprs))
    return any(p.name.value in reach for p in fn.params.params)


def param_kinds(fn: cst.FunctionDef, aliases: dict[str, str]) -> dict[str, str]:
    """How a kernel uses each parameter, read off its syntax: ``constexpr``, an annotated
    ``int``/``float``/``bool``, ``pointer`` (dereferenced, never scaled), ``stride`` (only scales
    offsets), ``int`` (in offsets, masks or bounds) or ``float`` (anything else)."""
    uses = _uses(fn, aliases)
    pointer_names = _closure(uses, _names_in(uses.pointer_exprs))
    kinds: dict[str, str] = {}
    for p in (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params):
        pname = p.name.value
        ann = p.annotation.annotation if p.annotation is not None else None
        ann_text = resolve(ann, aliases) if ann is not None else None
        if ann_text == "triton.language.constexpr":
            kinds[pname] = "constexpr"
        elif (
            ann is not None and isinstance(ann, cst.Name) and ann.value in ("int", "float", "bool")
        ):
            kinds[pname] = ann.value
        elif pname in pointer_names and pname not in uses.scaled | uses.index_names:
            # (An offset that a mask also compares, `x_ptr + half` beside `offs < half`, is an
            # integer, not a pointer.)
            kinds[pname] = "pointer"
        elif pname in pointer_names and pname not in uses.index_names:
            kinds[pname] = "stride"
        elif pname in uses.index_names or pname in pointer_names:
            kinds[pname] = "int"
        else:
            kinds[pname] = "float"
    return kinds


def _wrapper(
    fn: cst.FunctionDef,
    aliases: dict[str, str],
    path: str,
    taken: set[str],
    locate: Callable[[cst.CSTNode], ir.Loc | None],
) -> str:
    name = fn.name.value
    entry = name.removesuffix("_kernel").lstrip("_") or name
    if entry in taken or entry == name:
        entry = f"{name.lstrip('_')}_launch"
    uses = _uses(fn, aliases)
    params = [p for p in (*fn.params.posonly_params, *fn.params.params, *fn.params.kwonly_params)]
    tuned = _decorated_meta(fn, aliases)
    args: list[tuple[str, str]] = []  # (parameter, value)
    signature: list[str] = []
    keywords: list[str] = []
    block_names = lane_size_names(fn, aliases)
    tensors: list[str] = []
    strides: dict[str, list[str]] = {}
    kinds = param_kinds(fn, aliases)
    pointers = [p.name.value for p in params if kinds[p.name.value] == "pointer"]
    owners = _stride_owners(uses, pointers, [n for n, k in kinds.items() if k == "stride"])
    tensor_of: dict[str, str] = {}
    for ptr in pointers:
        t = ptr.removesuffix("_ptrs").removesuffix("_ptr")
        keep = t and not keyword.iskeyword(t) and t not in kinds and t not in tensor_of.values()
        t = t if keep else ptr
        tensor_of[ptr] = t
        tensors.append(t)
        signature.append(f"{t}: torch.Tensor")
    for p in params:
        pname = p.name.value
        kind = kinds[pname]
        if kind == "pointer":
            args.append((pname, tensor_of[pname]))
        elif kind == "stride":
            owner = owners.get(pname)
            if owner is None:
                raise TranslationError(
                    f"cannot derive a wrapper for `{name}`: `{pname}` scales offsets into "
                    "several tensors or none",
                    locate(p),
                    "write a wrapper that launches the kernel",
                )
            dims = strides.setdefault(owner, [])
            dims.append(pname)
            args.append((pname, f"{tensor_of[owner]}.stride({len(dims) - 1})"))
        elif kind == "constexpr":
            if pname in tuned or p.default is not None:
                continue
            # No default: the caller's to choose (Liger's `beta`, `HAS_LABEL`, `BLOCK_SIZE`,
            # set by a launcher in another module), a keyword of the wrapper; a block size gets
            # the default of the block a translation tunes in its place.
            keywords.append(f"{pname}: int = {STAND_IN_BLOCK}" if pname in block_names else pname)
        else:
            signature.append(f"{pname}: {kind}")
            args.append((pname, pname))
    signature += [f"*, {keywords[0]}", *keywords[1:]] if keywords else []
    args += [(k.split(":")[0], k.split(":")[0]) for k in keywords]
    if not tensors:
        raise TranslationError(
            f"cannot derive a wrapper for `{name}`: it dereferences no pointer parameter",
            locate(fn),
            "write a wrapper",
        )
    written_names = _closure(uses, _names_in(uses.store_exprs))
    written = [tensor_of[p] for p in pointers if p in written_names]
    returns = f"    return {', '.join(written)}\n" if written else ""
    return (
        f"\n\ndef {entry}({', '.join(signature)}):\n"
        f'    """Launch `{name}` over one program per tile (derived by tiletrans)."""\n'
        f"    {name}[{DERIVED_GRID}]({', '.join(_call_args(args, params))})\n"
        f"{returns}"
    )


def lane_size_names(fn: cst.FunctionDef, aliases: dict[str, str]) -> set[str]:
    """The names ``fn`` sizes lanes with: in ``tl.arange(...)``, ``tl.zeros(...)``,
    ``tl.full(...)`` calls (its block sizes)."""
    found: set[str] = set()

    class V(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            short = (resolve(node.func, aliases) or "").rsplit(".", 1)[-1]
            if short in ("arange", "zeros", "full"):
                found.update(names_in(node))

    fn.body.visit(V())
    return found


def _call_args(args: list[tuple[str, str]], params: list[cst.Param]) -> list[str]:
    """The launch's arguments: positional while they follow the kernel's parameters in order,
    by keyword from the first parameter the wrapper leaves to its default or the autotuner."""
    order = [p.name.value for p in params]
    out: list[str] = []
    positional = True
    for i, (param, value) in enumerate(args):
        positional = positional and i < len(order) and order[i] == param
        out.append(value if positional else f"{param}={value}")
    return out


def _uses(fn: cst.FunctionDef, aliases: dict[str, str]) -> _Uses:
    uses = _Uses()

    class V(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            reads = _value_names(node.value, aliases)
            for t in node.targets:
                for n in names_in(t.target):
                    uses.deps.setdefault(n, set()).update(reads)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            for n in names_in(node.target):
                uses.deps.setdefault(n, set()).update(_value_names(node.value, aliases))

        def visit_For(self, node: cst.For) -> None:
            uses.index_names.update(names_in(node.iter))

        def visit_Comparison(self, node: cst.Comparison) -> None:
            if not _is_none_test(node):  # `ptr is not None` tests an optional pointer
                uses.index_names.update(names_in(node))

        def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
            if isinstance(node.operator, cst.Multiply):
                for side in (node.left, node.right):
                    if isinstance(side, cst.Name):
                        uses.scaled.add(side.value)

        def visit_Call(self, node: cst.Call) -> None:
            short = (resolve(node.func, aliases) or "").rsplit(".", 1)[-1]
            if short in _POINTER_CALLS and node.args:
                uses.pointer_exprs.append(node.args[0].value)
                if short == "store" or short.startswith("atomic_"):
                    written = node.args[0].value
                    # `desc.store([offsets], v)`: the descriptor is what is written.
                    if isinstance(node.func, cst.Attribute) and not resolve(
                        node.func, aliases
                    ).startswith("triton."):
                        written = node.func.value
                    uses.store_exprs.append(written)
                positional = [a for a in node.args if a.keyword is None]
                mask_at = {"load": 1, "store": 2}.get(short)
                for a in node.args[1:]:
                    keyword = a.keyword.value if a.keyword is not None else None
                    if keyword in ("mask", "boundary_check") or (
                        keyword is None
                        and mask_at is not None
                        and len(positional) > mask_at
                        and a is positional[mask_at]
                    ):
                        uses.index_names.update(names_in(a.value))
            elif short in _INDEX_CALLS:
                uses.index_names.update(names_in(node))

    fn.body.visit(V())
    # Offsets: what flows into pointers, other than the pointers themselves, is index arithmetic.
    uses.index_names |= _closure(uses, uses.index_names)
    return uses


def _is_none_test(node: cst.Comparison) -> bool:
    """``x is None`` / ``x is not None``."""
    return len(node.comparisons) == 1 and (
        isinstance(node.comparisons[0].operator, (cst.Is, cst.IsNot))
        and isinstance(node.comparisons[0].comparator, cst.Name)
        and node.comparisons[0].comparator.value == "None"
    )


def _value_names(node: cst.BaseExpression, aliases: dict[str, str]) -> set[str]:
    """The names a value is computed from: a value loaded through a pointer depends on what
    is loaded, not on the pointer (`y = tl.load(labels_ptr + row)` makes `y` no pointer)."""
    found: set[str] = set()

    class V(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> bool:
            short = (resolve(call.func, aliases) or "").rsplit(".", 1)[-1]
            if short == "load" and call.args:
                for a in call.args[1:]:
                    found.update(names_in(a.value))
                return False
            return True

        def visit_Name(self, name: cst.Name) -> None:
            found.add(name.value)

    node.visit(V())
    return found


def _names_in(exprs: list[cst.BaseExpression]) -> set[str]:
    out: set[str] = set()
    for e in exprs:
        out |= names_in(e)
    return out


def _closure(uses: _Uses, names: set[str]) -> set[str]:
    seen, stack = set(), list(names)
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        stack.extend(uses.deps.get(n, ()))
    return seen


def _stride_owners(uses: _Uses, pointers: list[str], strides: list[str]) -> dict[str, str]:
    """The one pointer whose offsets each stride scales."""
    owners: dict[str, set[str]] = {}
    for e in uses.pointer_exprs:
        reach = _closure(uses, names_in(e))
        bases = [p for p in pointers if p in reach]
        for s in strides:
            if s in reach:
                owners.setdefault(s, set()).update(bases)
    return {s: next(iter(ps)) for s, ps in owners.items() if len(ps) == 1}


def _decorated_meta(fn: cst.FunctionDef, aliases: dict[str, str]) -> set[str]:
    """Meta-parameters ``@triton.autotune`` configs or ``@triton.heuristics`` set."""
    out: set[str] = set()
    for d in fn.decorators:
        if not isinstance(d.decorator, cst.Call):
            continue
        name = resolve(d.decorator.func, aliases)
        if name not in ("triton.autotune", "triton.heuristics"):
            continue

        class V(cst.CSTVisitor):
            def visit_SimpleString(self, s: cst.SimpleString) -> None:
                value = s.evaluated_value
                if isinstance(value, str):
                    out.add(value)

        d.visit(V())
    return out


__all__ = ["DERIVED_GRID", "derived_wrappers", "param_kinds"]
