"""The host functions that reach the launching entries: a module's public API.

Real kernel modules rarely make the function that launches a kernel their API. A public
``layer_norm(x, ...)`` calls ``LayerNorm.apply(x, ...)``, whose ``forward`` launches; a public
``softmax(x)`` calls a private ``_softmax_fwd(x)`` launch helper. Translation carries all of that
host code as written, so it needs nothing of these functions; validation does: it calls the public
functions, and it must shape their inputs. This module finds, for every frontend, each module
function that (through calls of module functions and ``Fn.apply`` of autograd Functions) reaches an
entry that launches, and records the calls that pass its own parameters on unchanged
(:class:`~translator.ir.nodes.Forward`) and the asserts it makes of their shapes
(``assert x.shape == y.shape``, ``assert w.shape[0] == x.shape[-1]``, ``assert x.dim() == 2``),
from which validation reads the shapes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

import libcst as cst

from translator.dialects.cst_utils import conjuncts, literal, literal_or_none, size_reference
from translator.ir import nodes as ir

#: Parameter annotations that make a host scalar of the IR kind of the same name.
SCALAR_ANNOTATIONS = {"int": "int", "float": "float", "bool": "bool", "str": "str"}


@dataclass(frozen=True)
class HostFunction:
    """A module function or a class method, as host code calls it."""

    qualname: str
    node: cst.FunctionDef
    # Leading parameters the caller does not pass (``ctx`` of an autograd Function's forward).
    implicit: int = 0

    @property
    def public(self) -> bool:
        """A module function not named ``_...`` (methods are reached through their class)."""
        return "." not in self.qualname and not self.qualname.startswith("_")


def host_functions(module: cst.Module, skip: Collection[str] = ()) -> list[HostFunction]:
    """Every function host code may run, in source order: module functions not named in
    ``skip`` (kernels) and the methods of module classes (autograd Functions, guards)."""
    out: list[HostFunction] = []
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value not in skip:
            out.append(HostFunction(stmt.name.value, stmt))
        elif isinstance(stmt, cst.ClassDef) and isinstance(stmt.body, cst.IndentedBlock):
            for member in stmt.body.body:
                if isinstance(member, cst.FunctionDef):
                    static = any(
                        isinstance(d.decorator, cst.Name) and d.decorator.value == "staticmethod"
                        for d in member.decorators
                    )
                    implicit = 1 if member.name.value == "forward" and static else 0
                    qualname = f"{stmt.name.value}.{member.name.value}"
                    out.append(HostFunction(qualname, member, implicit))
    return out


def signature(fn: HostFunction, unannotated: str = "object") -> tuple[ir.Param, ...]:
    """``fn``'s parameters as far as the IR types them: annotations ``int``/``float``/``bool``/
    ``str`` and tensors; an unannotated parameter is a scalar of its literal default's type, else
    ``unannotated``; a method's leading ``self``/``cls``/``ctx`` and other annotations are objects.
    A default that is no literal is kept as its source text (``ir.Name``): validation leaves
    such an argument out."""
    out = []
    ps = fn.node.params
    for i, p in enumerate((*ps.posonly_params, *ps.params, *ps.kwonly_params)):
        annotation = None
        if p.annotation is not None:
            annotation = cst.Module([]).code_for_node(p.annotation.annotation)
        default = None
        if p.default is not None:
            try:
                value = literal(p.default)
            except Exception:
                value = ...
            if isinstance(value, (int, float, bool, str)) or value is None:
                default = ir.Const(value)
            else:
                default = ir.Name(cst.Module([]).code_for_node(p.default))
        kind = unannotated
        if annotation in SCALAR_ANNOTATIONS:
            kind = SCALAR_ANNOTATIONS[annotation]
        elif annotation is not None:
            kind = "tensor" if "Tensor" in annotation else "object"
        elif i == 0 and "." in fn.qualname and p.name.value in ("self", "cls", "ctx"):
            kind = "object"
        elif isinstance(default, ir.Const) and isinstance(default.value, (int, float, str)):
            kind = type(default.value).__name__
        out.append(ir.Param(p.name.value, kind, default, annotation))
    return tuple(out)


def api_entries(
    module: cst.Module,
    entries: Sequence[ir.Entry],
    skip: set[str],
    locate: Callable[[cst.CSTNode], ir.Loc | None],
) -> list[ir.Entry]:
    """An entry, with no body, for every module function not in ``entries`` or ``skip``
    (kernels) that reaches one of ``entries``; public where its name does not start with ``_``."""
    functions = {f.qualname: f for f in host_functions(module, skip)}
    known = {e.name: e for e in entries}
    applied = _applied_aliases(module, functions)
    calls = {name: _calls(f.node, functions, applied) for name, f in functions.items()}
    reaching: set[str] = set(known)
    changed = True
    while changed:  # the functions that reach an entry, through any chain of calls
        changed = False
        for name, made in calls.items():
            if name not in reaching and any(callee in reaching for callee, _ in made):
                reaching.add(name)
                changed = True
    out: list[ir.Entry] = []
    for name, f in functions.items():
        if name in known or name not in reaching:
            continue
        params = list(signature(f))
        own = {p.name for p in params}
        checks, ranks = _shape_asserts(f.node, own, locate)
        params = [dataclasses.replace(p, rank=ranks.get(p.name, p.rank)) for p in params]
        views = _local_views(f.node, own)
        nested = _nested_calls(f.node)
        found: list[ir.Forward] = []
        for callee, call in calls[name]:
            if call is None:
                continue
            # A call in a nested function reads that function's names, not these locals.
            inside = id(call) in nested
            forward = _forward(call, functions[callee], own, {} if inside else views)
            if forward is not None and callee in reaching:
                found.append(forward)
            if not inside:
                found.extend(
                    _through_function_arguments(
                        call, functions[callee], functions, reaching, forward
                    )
                )
        forwards = tuple(found)
        out.append(
            ir.Entry(
                name=name,
                params=_typed(params, forwards, known),
                body=tuple(checks),
                complete=False,
                public=f.public,
                forwards=forwards,
                loc=locate(f.node),
            )
        )
    out.extend(_unwrapped_functions(module, functions, calls, applied, reaching, known, locate))
    return out


def _unwrapped_functions(
    module: cst.Module,
    functions: dict[str, HostFunction],
    calls: dict[str, list[tuple[str, cst.Call | None]]],
    applied: dict[str, str],
    reaching: set[str],
    known: dict[str, ir.Entry],
    locate: Callable[[cst.CSTNode], ir.Loc | None],
) -> list[ir.Entry]:
    """An entry ``Fn.apply`` for each public autograd Function no public function or name
    applies: a module whose API is its Function classes (Liger-Kernel's ``LigerSoftmaxFunction``,
    applied by the library's ``nn.Module`` in another file). Validation calls ``Fn.apply``,
    which runs ``forward`` and, for gradients, ``backward``."""
    applied_publicly = {callee for alias, callee in applied.items() if not alias.startswith("_")}
    for name, made in calls.items():
        if functions[name].public:
            applied_publicly.update(callee for callee, _ in made)
    out: list[ir.Entry] = []
    for stmt in module.body:
        if not isinstance(stmt, cst.ClassDef) or stmt.name.value.startswith("_"):
            continue
        forward = functions.get(f"{stmt.name.value}.forward")
        if (
            forward is None
            or not forward.implicit
            or forward.qualname not in reaching
            or forward.qualname in applied_publicly
        ):
            continue
        params = signature(forward)[forward.implicit :]
        passed = tuple((p.name, ir.Name(p.name)) for p in params)
        forwards = (ir.Forward(forward.qualname, passed),)
        out.append(
            ir.Entry(
                name=f"{stmt.name.value}.apply",
                params=_typed(list(params), forwards, known),
                body=(),
                complete=False,
                forwards=forwards,
                loc=locate(stmt),
            )
        )
    return out


def _applied_aliases(module: cst.Module, functions: dict[str, HostFunction]) -> dict[str, str]:
    """Module names bound to an autograd Function's ``apply`` (``layer_norm = LayerNorm.apply``,
    the tutorials' and most libraries' public spelling): name -> ``Fn.forward``."""
    out: dict[str, str] = {}
    for stmt in module.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if (
                isinstance(small, cst.Assign)
                and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Name)
                and isinstance(small.value, cst.Attribute)
                and isinstance(small.value.value, cst.Name)
                and small.value.attr.value == "apply"
                and f"{small.value.value.value}.forward" in functions
            ):
                out[small.targets[0].target.value] = f"{small.value.value.value}.forward"
    return out


def _calls(
    fn: cst.FunctionDef, functions: dict[str, HostFunction], applied: dict[str, str]
) -> list[tuple[str, cst.Call | None]]:
    """The calls in ``fn`` of module functions (``f(...)``) and autograd Functions
    (``Fn.apply(...)``, or a module name ``applied`` binds to it, which runs ``Fn.forward``),
    in source order; a function passed as an argument (``_apply_lastdim(softmax_kernel, x,
    dim)``) is called by the callee, with no call to read (``None``)."""
    found: list[tuple[str, cst.Call | None]] = []

    class Visitor(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            func = node.func
            for a in node.args:
                if isinstance(a.value, cst.Name) and a.value.value in functions:
                    found.append((a.value.value, None))
            if isinstance(func, cst.Name) and func.value in functions:
                found.append((func.value, node))
            elif isinstance(func, cst.Name) and func.value in applied:
                found.append((applied[func.value], node))
            elif (
                isinstance(func, cst.Attribute)
                and isinstance(func.value, cst.Name)
                and func.attr.value == "apply"
                and f"{func.value.value}.forward" in functions
            ):
                found.append((f"{func.value.value}.forward", node))

    fn.visit(Visitor())
    return found


def _through_function_arguments(
    call: cst.Call,
    helper: HostFunction,
    functions: dict[str, HostFunction],
    reaching: set[str],
    outer: ir.Forward | None,
) -> list[ir.Forward]:
    """The calls ``call`` makes through a module function it passes ``helper``:
    ``_apply_lastdim(softmax_lastdim, x, dim)`` runs ``kernel(x.contiguous())`` in
    ``_apply_lastdim(kernel, x, dim)``, a call of ``softmax_lastdim`` with the caller's ``x``.
    Each is the helper's call of its parameter read in the helper's terms, then its arguments
    put in the caller's through ``outer``, what ``call`` passes the helper."""
    ps = helper.node.params
    names = [p.name.value for p in (*ps.posonly_params, *ps.params)][helper.implicit :]
    passed_functions = {
        names[i]: a.value.value
        for i, a in enumerate(call.args)
        if a.keyword is None
        and not a.star
        and i < len(names)
        and isinstance(a.value, cst.Name)
        and a.value.value in reaching
        and a.value.value in functions
    }
    if not passed_functions or outer is None:
        return []
    to_caller = dict(outer.args)
    outer_ranks = dict(outer.views)
    helper_own = set(names)
    helper_views = _local_views(helper.node, helper_own)
    inner_nested = _nested_calls(helper.node)
    found: list[ir.Forward] = []

    class Visitor(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            func = node.func
            if (
                isinstance(func, cst.Name)
                and func.value in passed_functions
                and id(node) not in inner_nested
            ):
                target = functions[passed_functions[func.value]]
                inner = _forward(node, target, helper_own, helper_views)
                if inner is not None:
                    found.append(_composed(inner, to_caller, outer_ranks, outer.transposed))

    helper.node.visit(Visitor())
    return found


def _composed(
    inner: ir.Forward,
    to_caller: dict[str, ir.Expr],
    outer_ranks: dict[str, int | None],
    outer_transposed: tuple[str, ...],
) -> ir.Forward:
    """``inner`` (a forward in a helper's parameter names) in the caller's terms: a helper
    parameter the caller passed one of its own (or a constant) becomes that; views compose
    where their ranks agree, and a transpose is not composed with anything."""
    args: list[tuple[str, ir.Expr]] = []
    viewed: list[tuple[str, int | None]] = []
    inner_ranks = dict(inner.views)
    for q, value in inner.args:
        if isinstance(value, ir.Const):
            args.append((q, value))
            continue
        if not isinstance(value, ir.Name) or value.id not in to_caller:
            continue
        hp = value.id
        if q in inner.transposed or hp in outer_transposed:
            continue
        given = to_caller[hp]
        ranks = {r for r in (inner_ranks.get(q), outer_ranks.get(hp)) if r is not None}
        if len(ranks) > 1:
            continue  # views of two ranks: the tensor is not itself at either
        args.append((q, given))
        if q in inner_ranks or hp in outer_ranks:
            viewed.append((q, ranks.pop() if ranks else None))
    return ir.Forward(inner.callee, tuple(args), tuple(viewed))


def _nested_calls(fn: cst.FunctionDef) -> set[int]:
    """The ids of the calls inside functions and lambdas nested in ``fn``."""
    found: set[int] = set()

    class Inner(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            found.add(id(node))

    class Outer(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            if node is fn:
                return True
            node.visit(Inner())
            return False

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            node.visit(Inner())
            return False

    fn.visit(Outer())
    return found


def _forward(
    call: cst.Call, callee: HostFunction, own: set[str], views: dict[str, ViewOf | ShapeOf]
) -> ir.Forward | None:
    """What ``call`` passes to each of ``callee``'s parameters that is one of the caller's
    parameters, a view of one (:func:`_view_of`; ``views`` names the locals bound to such views)
    or a constant (``None`` for a call with star arguments)."""
    ps = callee.node.params
    names = [p.name.value for p in (*ps.posonly_params, *ps.params)][callee.implicit :]
    args: list[tuple[str, ir.Expr]] = []
    viewed: list[tuple[str, int | None]] = []
    transposed: list[str] = []
    for i, a in enumerate(call.args):
        if a.star:
            return None
        if a.keyword is not None:
            name = a.keyword.value
        elif i < len(names):
            name = names[i]
        else:
            return None
        value = a.value
        if isinstance(value, cst.Name) and value.value in own:
            args.append((name, ir.Name(value.value)))
            continue
        bound = views.get(value.value) if isinstance(value, cst.Name) else None
        view = bound if isinstance(bound, ViewOf) else _view_of(value, own, views)
        if view is not None:
            args.append((name, ir.Name(view.base)))
            if view.transposed:
                transposed.append(name)
            else:
                viewed.append((name, view.rank))
            continue
        try:
            constant = literal(value)
        except Exception:
            continue
        if isinstance(constant, (int, float, bool, str)) or constant is None:
            args.append((name, ir.Const(constant)))
    return ir.Forward(callee.qualname, tuple(args), tuple(viewed), tuple(transposed))


@dataclass(frozen=True)
class ViewOf:
    """A view of parameter ``base`` that is ``base`` itself at the callee's rank, or (with
    ``transposed``) its transpose (``w.t()`` of a 2-d weight)."""

    base: str
    transposed: bool = False
    #: The rank at which the view is ``base`` itself (2 for ``x.reshape(-1, x.shape[-1])``, 1
    #: for ``x.flatten()``; ``None``: any, ``x.contiguous()``); a transpose is of a 2-d tensor.
    rank: int | None = None

    def at_rank(self, rank: int) -> ViewOf | None:
        """This view taken again to ``rank`` dims (``None`` where it is fixed to another)."""
        if self.rank is not None and self.rank != rank:
            return None
        return dataclasses.replace(self, rank=rank)


@dataclass(frozen=True)
class ShapeOf:
    """The shape of parameter ``base`` (``shape = x.shape``)."""

    base: str


#: Tensor methods whose result is the tensor itself when it already has the result's rank.
_SAME_AT_RANK = ("reshape", "view")


def _local_views(fn: cst.FunctionDef, own: set[str]) -> dict[str, ViewOf | ShapeOf]:
    """Locals of ``fn`` bound once to a parameter's shape (``shape = x.shape``) or to a view of
    a parameter (``x_2d = x.reshape(-1, x.shape[-1])``, ``w_t = weight.t()``)."""
    bound: dict[str, list[cst.BaseExpression]] = {}

    rebound: set[str] = set()

    def targets(node: cst.BaseExpression) -> None:  # names bound other than `name = value`
        if isinstance(node, cst.Name):
            rebound.add(node.value)
        elif isinstance(node, (cst.Tuple, cst.List)):
            for element in node.elements:
                targets(element.value)
        elif isinstance(node, cst.StarredElement):
            targets(node.value)

    class Visitor(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    bound.setdefault(target.target.value, []).append(node.value)
                else:
                    targets(target.target)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            targets(node.target)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            targets(node.target)

        def visit_For(self, node: cst.For) -> None:
            targets(node.target)

        def visit_AsName(self, node: cst.AsName) -> None:
            targets(node.name)

        def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
            targets(node.target)

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is fn  # a nested function's locals are its own

    fn.visit(Visitor())
    single = {
        k: v[0] for k, v in bound.items() if len(v) == 1 and k not in own and k not in rebound
    }
    out: dict[str, ViewOf | ShapeOf] = {}
    for local, value in single.items():
        shape_of = _shape_of(value)
        if shape_of is not None and shape_of in own:
            out[local] = ShapeOf(shape_of)
    for local, value in single.items():
        view = None if local in out else _view_of(value, own, out)
        if view is not None:
            out[local] = view
    return out


def _shape_of(node: cst.BaseExpression) -> str | None:
    """``x`` for ``x.shape`` or ``x.size()``."""
    if isinstance(node, cst.Attribute) and node.attr.value == "shape":
        inner = node.value
    elif (
        isinstance(node, cst.Call)
        and not node.args
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "size"
    ):
        inner = node.func.value
    else:
        return None
    return inner.value if isinstance(inner, cst.Name) else None


def _viewed(
    node: cst.BaseExpression, own: set[str], locals_: dict[str, ViewOf | ShapeOf]
) -> ViewOf | None:
    """``node`` as a parameter or a local view of one."""
    if not isinstance(node, cst.Name):
        return _view_of(node, own, locals_)
    if node.value in own:
        return ViewOf(node.value)
    bound = locals_.get(node.value)
    return bound if isinstance(bound, ViewOf) else None


def _view_of(
    node: cst.BaseExpression, own: set[str], locals_: dict[str, ViewOf | ShapeOf]
) -> ViewOf | None:
    """The parameter ``node`` is a view of that equals the parameter at the callee's rank:
    ``x.contiguous()``, ``x.reshape(-1)``/``x.flatten()`` (1-d), ``x.reshape(-1, x.shape[-1])``
    or ``x.view(-1, shape[-1])`` with ``shape = x.shape`` (2-d, the last dim kept); or its
    transpose, ``w.t()``/``w.T``/``w.transpose(0, 1)`` (2-d). ``None`` for anything else (a
    reshape to other sizes changes what the callee sees)."""
    if isinstance(node, cst.Attribute) and node.attr.value == "T":
        inner = _viewed(node.value, own, locals_)
        return _transpose(inner)
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)):
        return None
    method, args = node.func.attr.value, node.args
    if any(a.keyword is not None or a.star for a in args):
        return None
    inner = _viewed(node.func.value, own, locals_)
    if inner is None:
        return None
    if method == "contiguous" and not args:
        return inner
    if method == "t" and not args:
        return _transpose(inner)
    if method == "transpose" and len(args) == 2:
        dims = {literal_or_none(a.value) for a in args}
        return _transpose(inner) if dims in ({0, 1}, {-1, -2}, {0, -1}, {1, -2}) else None
    if inner.transposed:
        return None  # a reshape of a transpose moves elements
    if method == "flatten" and not args:
        return inner.at_rank(1)
    if method not in _SAME_AT_RANK or not args or literal_or_none(args[0].value) != -1:
        return None
    if len(args) == 1:
        return inner.at_rank(1)
    if len(args) == 2 and _last_size_of(args[1].value, locals_) == inner.base:
        return inner.at_rank(2)
    return None


def _transpose(view: ViewOf | None) -> ViewOf | None:
    """The transpose of ``view``: of a parameter (a 2-d one, at the callee's rank)."""
    if view is None or view.transposed or view.rank not in (None, 2):
        return None
    return ViewOf(view.base, transposed=True, rank=2)


def _last_size_of(node: cst.BaseExpression, locals_: dict[str, ViewOf | ShapeOf]) -> str | None:
    """``x`` for ``x.shape[-1]``, ``x.size(-1)`` or ``shape[-1]`` with ``shape = x.shape``."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        if (
            node.func.attr.value == "size"
            and len(node.args) == 1
            and literal_or_none(node.args[0].value) == -1
            and isinstance(node.func.value, cst.Name)
        ):
            return node.func.value.value
        return None
    if not (
        isinstance(node, cst.Subscript)
        and len(node.slice) == 1
        and isinstance(node.slice[0].slice, cst.Index)
        and literal_or_none(node.slice[0].slice.value) == -1
    ):
        return None
    if isinstance(node.value, cst.Attribute) and node.value.attr.value == "shape":
        inner = node.value.value
        return inner.value if isinstance(inner, cst.Name) else None
    if isinstance(node.value, cst.Name):
        bound = locals_.get(node.value.value)
        return bound.base if isinstance(bound, ShapeOf) else None
    return None


def _typed(
    params: list[ir.Param], forwards: tuple[ir.Forward, ...], known: dict[str, ir.Entry]
) -> tuple[ir.Param, ...]:
    """``params`` with the kind the entries they are passed to give them, where the caller's
    own signature does not say."""
    out = []
    for p in params:
        for f in forwards:
            callee = known.get(f.callee)
            passed = next((q for q, v in f.args if v == ir.Name(p.name)), None)
            if callee is None or passed is None or p.kind != "object":
                continue
            target = next((q for q in callee.params if q.name == passed), None)
            if target is not None:
                # A view (``x.reshape(-1, x.shape[-1])``) says nothing of the caller's rank.
                rank = None if passed in dict(f.views) else target.rank
                p = ir.Param(p.name, target.kind, p.default, p.annotation, rank, target.dtype)
        out.append(p)
    return tuple(out)


def _shape_asserts(
    fn: cst.FunctionDef, own: set[str], locate: Callable[[cst.CSTNode], ir.Loc | None]
) -> tuple[list[ir.Assert], dict[str, int]]:
    """The asserts in ``fn`` (and ``if ...: raise`` checks) that relate the shapes of its
    parameters, as IR, and the ranks its asserts give them (``x.dim() == 2``, ``x.ndim == 2``)."""
    checks: list[ir.Assert] = []
    ranks: dict[str, int] = {}

    class Visitor(cst.CSTVisitor):
        def visit_Assert(self, node: cst.Assert) -> None:
            for test in conjuncts(node.test):
                if not (
                    isinstance(test, cst.Comparison)
                    and len(test.comparisons) == 1
                    and isinstance(test.comparisons[0].operator, cst.Equal)
                ):
                    continue
                lhs, rhs = test.left, test.comparisons[0].comparator
                rank = _rank_of(lhs, own)
                if rank is not None and isinstance(rhs, cst.Integer):
                    ranks[rank] = int(rhs.value)
                    continue
                a, b = _shape_term(lhs, own), _shape_term(rhs, own)
                if a is not None and b is not None:
                    checks.append(ir.Assert(ir.BinOp("==", a, b), loc=locate(node)))

        def visit_If(self, node: cst.If) -> None:
            # `if a.shape != b.shape: raise ValueError(...)` asserts the shapes equal.
            body = node.body.body if isinstance(node.body, cst.IndentedBlock) else ()
            test = node.test
            if (
                node.orelse is None
                and len(body) == 1
                and isinstance(body[0], cst.SimpleStatementLine)
                and isinstance(body[0].body[0], cst.Raise)
                and isinstance(test, cst.Comparison)
                and len(test.comparisons) == 1
                and isinstance(test.comparisons[0].operator, cst.NotEqual)
            ):
                a = _shape_term(test.left, own)
                b = _shape_term(test.comparisons[0].comparator, own)
                if a is not None and b is not None:
                    checks.append(ir.Assert(ir.BinOp("==", a, b), loc=locate(node)))

    fn.visit(Visitor())
    return checks, ranks


def _rank_of(node: cst.BaseExpression, own: set[str]) -> str | None:
    """``x`` for ``x.dim()`` or ``x.ndim`` of a parameter ``x``."""
    if isinstance(node, cst.Call) and not node.args:
        node = node.func
        attr = "dim"
    else:
        attr = "ndim"
    if (
        isinstance(node, cst.Attribute)
        and isinstance(node.value, cst.Name)
        and node.value.value in own
        and node.attr.value == attr
    ):
        return node.value.value
    return None


def _shape_term(node: cst.BaseExpression, own: set[str]) -> ir.Expr | None:
    """``x.shape`` (a whole shape), ``x.shape[d]``/``x.size(d)`` with ``d >= 0`` (one size) of a
    parameter ``x``, or an integer literal; ``None`` for anything else."""
    if isinstance(node, cst.Integer):
        return ir.Const(int(node.value))
    if _attribute_of(node, own, "shape"):
        return ir.ShapeOf(node.value.value)  # type: ignore[attr-defined]
    found = size_reference(node)
    if found is not None and isinstance(found[0], cst.Name) and found[0].value in own:
        return ir.SizeOf(found[0].value, found[1])
    return None


def _attribute_of(node: cst.BaseExpression, own: set[str], attr: str) -> bool:
    return (
        isinstance(node, cst.Attribute)
        and isinstance(node.value, cst.Name)
        and node.value.value in own
        and node.attr.value == attr
    )
