"""Reading a TileLang module's ``@tilelang.jit`` factories into :class:`Factory` records (the
frontend's first step, before any kernel body is lifted): the factory's decorators
(``out_idx``, ``@tilelang.autotune`` configs), its parameters and defaults, its prim_func's
tensor annotations (``T.Tensor((M, N), dtype)`` and ``T.StridedTensor(x_shape, x_strides,
x_dtype)``) and scalar parameters, and the eager style (``T.const`` sizes, tensor annotations
in the body, ``T.empty`` outputs) read into the same record."""

from __future__ import annotations

import re

import libcst as cst

from translator.diagnostics import TranslationError
from translator.dialects.cst_utils import call_args, literal, source_of, walk
from translator.dialects.tilelang.config_space import config_space
from translator.dialects.tilelang.model import (
    Eager,
    Factory,
    ModuleFacts,
    decorator_of,
    dtype_name,
    is_docstring,
)


def read_factory(
    fn: cst.FunctionDef, mod: ModuleFacts, g: dict, compiled: list[int] | None = None
) -> Factory:
    """Read a factory's signature, decorators and prim_func: a ``@tilelang.jit`` factory, or
    (``compiled`` given: the ``out_idx`` of the ``tilelang.compile`` call that builds it) an
    undecorated function returning its ``@T.prim_func``, TileLang's example-folder style."""
    jit = decorator_of(fn, mod, g["kernel"]["decorator"])
    assert jit is not None or compiled is not None
    out_idx: list[int] = list(compiled or [])
    if jit is not None and isinstance(jit.decorator, cst.Call):
        out_idx = build_options(jit.decorator, mod, "@tilelang.jit")
    configs: list[dict[str, int]] = []
    builder_name: str | None = None
    tune = autotune_of(fn, mod, g)
    if tune is not None:
        if not isinstance(tune.decorator, cst.Call):
            raise mod.error(tune, "@tilelang.autotune(configs=[...]) is read")
        _, kw = call_args(tune.decorator)
        configs = config_space(kw.get("configs"), mod, tune)
        builder = kw.get("configs")
        if isinstance(builder, cst.Call) and isinstance(builder.func, cst.Name):
            builder_name = builder.func.value
    for d in fn.decorators:
        target = d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator
        read = (g["kernel"]["decorator"], *g["kernel"]["autotuners"], *g["kernel"]["memoizers"])
        if mod.name_of(target) not in read:
            raise mod.error(d, f"the decorator `{source_of(target)}` is not read")
    params = [p.name.value for p in fn.params.params]
    defaults = {p.name.value: p.default for p in fn.params.params if p.default is not None}
    if not any(
        isinstance(s, cst.FunctionDef) and decorator_of(s, mod, g["kernel"]["prim_func"])
        for s in fn.body.body
    ):
        if out_idx:
            raise mod.error(
                jit,
                "out_idx is for @tilelang.jit factories; an eager kernel returns its outputs",
                "allocate outputs with T.empty((M, N), dtype) and return them",
            )
        fac = Factory(fn, fn, params, defaults, [], configs, tune is not None)
        fac.config_builder = builder_name
        _eager(fac, mod, g)
        return fac
    body = _Body(mod, g)
    for stmt in fn.body.body:
        body.statement(stmt)
    prim, local_values, macros = body.prim, body.locals, body.macros
    if prim is None:
        raise mod.error(fn, f"the factory `{fn.name.value}` defines no @T.prim_func")
    fac = Factory(fn, prim, params, defaults, out_idx, configs, tune is not None)
    fac.config_builder = builder_name
    fac.locals = local_values
    fac.macros = macros
    fac.branches = [
        (b, frozenset(body.bound[body.later[id(b)] :]), body.read_at[id(b)]) for b in body.branches
    ]
    if body.asserts:
        lines = ", ".join(str(mod.locate(a).line) for a in body.asserts)
        fac.notes.append(
            f"tiletrans: the factory's asserts (line {lines}) check its arguments where TileLang "
            "builds the kernel; they are not carried"
        )
    for p in prim.params.params:
        ann = p.annotation.annotation if p.annotation else None
        scalar = _scalar_dtype(ann, mod, g) if ann is not None else None
        if scalar is not None:
            fac.runtime_scalars[p.name.value] = scalar
            continue
        if fac.runtime_scalars:
            raise mod.error(
                p,
                f"prim_func tensor `{p.name.value}` follows a scalar parameter",
                "put the prim_func's scalar parameters after its tensors",
            )
        if isinstance(ann, cst.Call) and mod.name_of(ann.func) in g["kernel"]["strided_tensor"]:
            _strided_tensor(fac, p.name.value, ann, mod)
            continue
        declared = (
            _tensor_annotation(ann, mod, set(g["kernel"]["tensor"])) if ann is not None else None
        )
        if declared is None:
            raise mod.error(
                p,
                f"prim_func parameter `{p.name.value}` is not a T.Tensor",
                "annotate tensors as T.Tensor((M, N), dtype); pass scalars to the factory",
            )
        shape, dtype = declared
        if isinstance(shape, cst.Name) and shape.value in local_values:
            shape = local_values[shape.value]  # `shape = [batch, seq_len, heads, dim]`
        if not isinstance(shape, (cst.Tuple, cst.List)) or dtype is None:
            raise mod.error(ann, "T.Tensor((sizes...), dtype) is read")
        entries = [e.value for e in shape.elements]
        fac.tensors[p.name.value] = (entries, dtype)
        fac.tensor_order.append(p.name.value)
        for d, e in enumerate(entries):
            if isinstance(e, cst.Name) and e.value in params:
                fac.sizes.setdefault(e.value, (p.name.value, d))
        if isinstance(dtype, cst.Name) and dtype.value in params:
            fac.dtypes.setdefault(dtype.value, p.name.value)
    return fac


class _Body:
    """A factory body before its prim_func is read: one handler per statement kind."""

    def __init__(self, mod: ModuleFacts, g: dict) -> None:
        self.mod = mod
        self.g = g
        self.prim: cst.FunctionDef | None = None
        self.macros: dict[str, cst.FunctionDef] = {}
        #: factory locals -> the value of their last assignment (``KH, KW = K, K`` too)
        self.locals: dict[str, cst.BaseExpression] = {}
        self.branches: list[cst.If] = []
        self.asserts: list[cst.Assert] = []
        #: every name bound, in order; per branch: how many were bound before it
        self.bound: list[str] = []
        self.later: dict[int, int] = {}
        #: a name -> a local whose current value reads it: TileLang's Python reads a local's
        #: right-hand side in program order, tiletrans looks names up at their last binding,
        #: so a name read by a local may not be bound again (`G = 128; GS = G; G = 64`)
        self.readers: dict[str, str] = {}
        #: per branch: :attr:`readers` where the branch stands
        self.read_at: dict[int, dict[str, str]] = {}

    def statement(self, stmt: cst.BaseStatement) -> None:
        if is_docstring(stmt):
            return
        handler = _BODY_STATEMENTS.get(type(stmt))
        if handler is None:
            raise self.refused(stmt)
        handler(self, stmt)

    def refused(self, node: cst.CSTNode) -> TranslationError:
        return self.mod.error(
            node,
            "a factory body holds its prim_func, macros, assignments, asserts, an `if` on its "
            "arguments that assigns, and a return; this statement is none of them",
            "compute it in the host code and pass it to the factory",
        )

    def function(self, stmt: cst.FunctionDef) -> None:
        if decorator_of(stmt, self.mod, self.g["kernel"]["macro"]):
            self.macros[stmt.name.value] = stmt
        elif decorator_of(stmt, self.mod, self.g["kernel"]["prim_func"]):
            self.prim = stmt
        else:
            raise self.refused(stmt)

    def line(self, stmt: cst.SimpleStatementLine) -> None:
        for small in stmt.body:
            handler = _SMALL_STATEMENTS.get(type(small))
            if handler is None:
                raise self.refused(small)
            handler(self, small)

    def assign(self, small: cst.Assign) -> None:
        for target in small.targets:
            self.bind(target.target, small.value, small)

    def ann_assign(self, small: cst.AnnAssign) -> None:
        if small.value is None:
            return  # a declaration binds nothing
        self.bind(small.target, small.value, small)

    def bind(self, target: cst.BaseExpression, value: cst.BaseExpression, at: cst.CSTNode) -> None:
        """``target = value``: a name, or a tuple of names given a tuple of as many values."""
        if isinstance(target, cst.Name):
            name = target.value
            reads = names_read(value)
            reader = self.readers.get(name)
            if reader is None and name in reads and name in self.locals:
                reader = name
            if reader is not None:
                raise self.mod.error(
                    at,
                    f"the factory binds `{name}` again after the local `{reader}` read it; "
                    f"tiletrans reads `{reader}` through the last value of `{name}`, where "
                    "Python read the value it had then",
                    f"give the new value a new name (`{name}_2 = ...`) and read that name "
                    "where the new value is meant",
                )
            self.readers = {n: r for n, r in self.readers.items() if r != name}
            for n in reads:
                if n != name:
                    self.readers[n] = name
            self.locals[name] = value
            self.bound.append(name)
        elif (
            isinstance(target, (cst.Tuple, cst.List))
            and isinstance(value, (cst.Tuple, cst.List))
            and len(target.elements) == len(value.elements)
            and not any(isinstance(e, cst.StarredElement) for e in value.elements)
        ):
            for t, v in zip(target.elements, value.elements):
                self.bind(t.value, v.value, at)
        else:
            raise self.mod.error(
                at,
                f"the factory binds `{source_of(target).strip()}` to something other than a "
                "name a value or a tuple of names as many values",
                "bind each name on its own line (`KH = K`)",
            )

    def assertion(self, small: cst.Assert) -> None:
        self.asserts.append(small)

    def returned(self, small: cst.Return | cst.Pass) -> None:
        return None  # the prim_func's return (read by `plain_factory`), or nothing

    def branch(self, stmt: cst.If) -> None:
        self.branches.append(stmt)
        self.later[id(stmt)] = len(self.bound)
        self.read_at[id(stmt)] = dict(self.readers)


def names_read(value: cst.BaseExpression) -> set[str]:
    """The names ``value`` reads (not attribute names, nor keywords of its calls)."""
    found: set[str] = set()

    def enter(node: cst.CSTNode) -> bool | list[cst.CSTNode | None]:
        if isinstance(node, cst.Name):
            found.add(node.value)
        if isinstance(node, cst.Attribute):
            return [node.value]
        if isinstance(node, cst.Arg):
            return [node.value]
        return True

    walk(value, enter)
    return found


_BODY_STATEMENTS = {
    cst.FunctionDef: _Body.function,
    cst.SimpleStatementLine: _Body.line,
    cst.If: _Body.branch,
}
_SMALL_STATEMENTS = {
    cst.Assign: _Body.assign,
    cst.AnnAssign: _Body.ann_assign,
    cst.Assert: _Body.assertion,
    cst.Return: _Body.returned,
    cst.Pass: _Body.returned,
}


class _Undecided(Exception):
    """A factory ``if`` test that does not fold to one value."""


def decide_branches(
    fac: Factory, mod: ModuleFacts, g: dict, passed: dict[str, cst.BaseExpression | None]
) -> None:
    """Decide each factory-body ``if`` by the values the factory's first launch passes
    (``passed``: literals, read through its function's names; ``None`` for a value that is no
    literal) or its defaults, and bind what
    the branch taken assigns (``if group_size == -1: group_size = K``), unless a later
    statement binds it again. Each parameter a test read is recorded in
    :attr:`Factory.assumed`: every launch must pass that value (the host plan checks)."""
    taken_reads: dict[str, str] = {}  # what the locals earlier branches bound read
    for stmt, later, readers in fac.branches:
        body = _Body(mod, g)
        body.locals = dict(fac.locals)
        body.readers = {**readers, **taken_reads}
        _run_taken(stmt, body, fac, mod, passed)
        for name in body.bound:
            if name in later:
                continue
            fac.locals[name] = body.locals[name]
            for read in sorted(names_read(body.locals[name]) & later):
                raise mod.error(
                    body.locals[name],
                    f"the factory's `if` binds `{name}` to a value that reads `{read}`, "
                    f"bound again after the `if`; tiletrans would read `{name}` through the "
                    f"last value of `{read}`, where Python read the value it had then",
                    f"give the later value of `{read}` a new name (`{read}_2 = ...`)",
                )
            taken_reads.update({n: name for n in names_read(body.locals[name]) if n != name})
        if body.asserts:
            fac.notes.append(
                f"tiletrans: the factory's asserts (line {mod.locate(body.asserts[0]).line}) "
                "check its arguments where TileLang builds the kernel; they are not carried"
            )


def _run_taken(
    stmt: cst.If,
    body: _Body,
    fac: Factory,
    mod: ModuleFacts,
    passed: dict[str, cst.BaseExpression | None],
) -> None:
    """Read the statements of the branch ``stmt`` takes into ``body`` (an ``elif`` or a nested
    ``if`` decided the same way)."""
    for inner in _taken(stmt, fac, mod, passed):
        if isinstance(inner, cst.If):
            _run_taken(inner, body, fac, mod, passed)
        elif isinstance(inner, cst.SimpleStatementLine):
            body.line(inner)
        else:
            raise body.refused(inner)


def decided(
    test: cst.BaseExpression,
    fac: Factory,
    mod: ModuleFacts,
    passed: dict[str, cst.BaseExpression | None],
) -> bool:
    """The value of ``test`` (of a factory ``if``, or of a kernel's ``a if test else b`` on
    the factory's arguments), folded from literals, factory constants and the values the
    first launch passes (``passed``, as :func:`decide_branches`); each parameter it read is
    recorded in :attr:`Factory.assumed`."""
    read: dict[str, object] = {}
    try:
        taken = bool(_static(test, fac, passed, read, 0))
    except _Undecided:
        raise mod.error(
            test,
            f"`if {source_of(test).strip()}` does not fold to one value from "
            "literals, factory constants and the values its launch passes",
            "decide it in the host code, or pass the factory the value it tests as a literal "
            "(or a name bound once to one)",
        ) from None
    for param, value in read.items():
        fac.assumed.setdefault(param, (value, test))
    return taken


def _taken(
    stmt: cst.If, fac: Factory, mod: ModuleFacts, passed: dict[str, cst.BaseExpression | None]
) -> list[cst.BaseStatement]:
    """The statements of the branch of ``stmt`` its test takes (``[]`` for none)."""
    if decided(stmt.test, fac, mod, passed):
        return list(stmt.body.body) if isinstance(stmt.body, cst.IndentedBlock) else []
    if isinstance(stmt.orelse, cst.If):
        return [stmt.orelse]
    if isinstance(stmt.orelse, cst.Else) and isinstance(stmt.orelse.body, cst.IndentedBlock):
        return list(stmt.orelse.body.body)
    return []


_COMPARE = {
    cst.Equal: lambda a, b: a == b,
    cst.NotEqual: lambda a, b: a != b,
    cst.LessThan: lambda a, b: a < b,
    cst.LessThanEqual: lambda a, b: a <= b,
    cst.GreaterThan: lambda a, b: a > b,
    cst.GreaterThanEqual: lambda a, b: a >= b,
    cst.Is: lambda a, b: a is b,
    cst.IsNot: lambda a, b: a is not b,
}


def _static(
    node: cst.BaseExpression,
    fac: Factory,
    passed: dict[str, cst.BaseExpression | None],
    read: dict[str, object],
    depth: int,
) -> object:
    """The value of a factory ``if`` test, folded from literals, factory locals and the
    parameters' launch values or defaults (each parameter read goes into ``read``)."""
    if depth > 8:
        raise _Undecided
    try:
        return literal(node)
    except ValueError:
        pass
    if isinstance(node, cst.Name):
        if node.value in fac.locals:
            return _static(fac.locals[node.value], fac, passed, read, depth + 1)
        if node.value in fac.params:
            # A launch value that is no literal (`None` in `passed`) decides nothing.
            source = passed[node.value] if node.value in passed else fac.defaults.get(node.value)
            try:
                value = literal(source)  # type: ignore[arg-type]
            except (ValueError, TypeError):
                raise _Undecided from None
            read[node.value] = value
            return value
        raise _Undecided
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        return not _static(node.expression, fac, passed, read, depth + 1)
    if isinstance(node, cst.BooleanOperation):
        left = _static(node.left, fac, passed, read, depth + 1)
        right = _static(node.right, fac, passed, read, depth + 1)
        return (left and right) if isinstance(node.operator, cst.And) else (left or right)
    if isinstance(node, cst.Comparison):
        left = _static(node.left, fac, passed, read, depth + 1)
        for target in node.comparisons:
            op = _COMPARE.get(type(target.operator))
            if op is None:
                raise _Undecided
            right = _static(target.comparator, fac, passed, read, depth + 1)
            try:
                holds = op(left, right)
            except TypeError:  # `-1 < "a"`: Python raises, so no branch is taken statically
                raise _Undecided from None
            if not holds:
                return False
            left = right
        return True
    raise _Undecided


def build_options(call: cst.Call, mod: ModuleFacts, what: str) -> list[int]:
    """The ``out_idx`` of a ``@tilelang.jit(...)`` decorator or a ``tilelang.compile(f, ...)``
    call; its other options (target, backend, pass configs) do not change what it computes."""
    out_idx: list[int] = []
    _, kw = call_args(call)
    for key, value in kw.items():
        if key == "out_idx":
            out_idx = _out_idx(value, mod)
        elif key not in ("target", "target_host", "execution_backend", "pass_configs", "verbose"):
            raise mod.error(value, f"{what}'s `{key}=` is not read")
    return out_idx


def _out_idx(value: cst.BaseExpression, mod: ModuleFacts) -> list[int]:
    if isinstance(value, (cst.Integer, cst.UnaryOperation)):
        return [int(source_of(value))]
    if isinstance(value, (cst.List, cst.Tuple)) and all(
        isinstance(e.value, (cst.Integer, cst.UnaryOperation)) for e in value.elements
    ):
        return [int(source_of(e.value)) for e in value.elements]
    raise mod.error(value, "out_idx is a literal int or list of ints", "write out_idx=[-1]")


def autotune_of(fn: cst.FunctionDef, mod: ModuleFacts, g: dict) -> cst.Decorator | None:
    """The ``@tilelang.autotune(...)`` decorator of ``fn`` (also spelt ``@autotune`` imported
    from ``tilelang.autotuner``)."""
    for name in g["kernel"]["autotuners"]:
        found = decorator_of(fn, mod, name)
        if found is not None:
            return found
    return None


def _scalar_dtype(ann: cst.BaseExpression, mod: ModuleFacts, g: dict) -> str | None:
    """The IR dtype of a scalar prim_func parameter's annotation (``T.float32``, ``T.int32``),
    or ``None`` for anything else."""
    name = str(ann.evaluated_value) if isinstance(ann, cst.SimpleString) else mod.name_of(ann)
    return dtype_name(name or "", g) if name else None


def scalar_kind(dtype: str) -> str:
    """The IR parameter kind of a scalar of ``dtype``."""
    if dtype == "bool":
        return "bool"
    return "float" if dtype.startswith(("float", "bfloat")) else "int"


def _strided_tensor(fac: Factory, name: str, ann: cst.Call, mod: ModuleFacts) -> None:
    """Read ``name: T.StridedTensor(x_shape, x_strides, x_dtype)`` (what tiletrans writes: the
    launch passes ``x.shape, x.stride(), x.dtype``): ``x_shape[d]`` is the size of dim ``d``,
    the rank is how many indices the kernel gives the tensor, the strides are the tensor's own."""
    pos, kw = call_args(ann)
    shape = kw.get("shape", pos[0] if pos else None)
    strides = kw.get("strides", pos[1] if len(pos) > 1 else None)
    dtype = kw.get("dtype", pos[2] if len(pos) > 2 else None)
    if not all(isinstance(e, cst.Name) and e.value in fac.params for e in (shape, strides, dtype)):
        raise mod.error(
            ann,
            "T.StridedTensor is read with a shape, strides and dtype that are factory parameters",
            "pass `x.shape, x.stride(), x.dtype` to the factory, or annotate T.Tensor((M, N), dtype)",
        )
    assert isinstance(shape, cst.Name) and isinstance(dtype, cst.Name)
    ranks: set[int] = set()

    def index_count(node: cst.CSTNode) -> bool:
        value = node.value if isinstance(node, cst.Subscript) else None
        if isinstance(value, cst.Name) and value.value == name:
            ranks.add(len(node.slice))  # type: ignore[union-attr]
        return True

    walk(fac.prim.body, index_count)
    if len(ranks) != 1:
        raise mod.error(
            ann,
            f"the rank of `{name}` is not told by its indices in the kernel "
            f"({'none' if not ranks else 'several: ' + ', '.join(map(str, sorted(ranks)))})",
            f"annotate `{name}` as T.Tensor((sizes...), dtype)",
        )
    (rank,) = ranks
    entries: list[cst.BaseExpression] = [
        cst.Subscript(shape, [cst.SubscriptElement(cst.Index(cst.Integer(str(d))))])
        for d in range(rank)
    ]
    fac.tensors[name] = (entries, dtype)
    fac.tensor_order.append(name)
    fac.shapes.setdefault(shape.value, name)
    fac.dtypes.setdefault(dtype.value, name)


def _eager(fac: Factory, mod: ModuleFacts, g: dict) -> None:
    """Read an eager-style kernel (TileLang 0.1.15's ``@tilelang.jit`` without a prim_func)::

        @tilelang.jit
        def matmul(A, B, block_M: int = 128, ...):
            M, N, K = T.const("M N K")
            A: T.Tensor((M, K), T.float16)
            B: T.Tensor((K, N), T.float16)
            C = T.empty((M, N), T.float16)
            with T.Kernel(...) as (bx, by):
                ...
            return C

    into the same :class:`Factory` a jit factory gives: the annotated parameters and the
    ``T.empty`` outputs are its tensors (outputs last, as ``out_idx`` would list them), each
    ``T.const`` name the size of the first tensor dim it annotates, the other parameters its
    factory parameters (tunables and scalars, with the function's defaults). The function is its
    own host function: :func:`eager_host` rewrites it in plain torch."""
    fn = fac.fn
    eager = Eager()
    tensor_call = set(g["kernel"]["tensor"])
    consts: set[str] = set()
    declared: dict[str, tuple[cst.BaseExpression, cst.BaseExpression]] = {}
    outputs: dict[str, tuple[cst.BaseExpression, cst.BaseExpression]] = {}
    returned: list[str] | None = None
    for param in fn.params.params:
        ann = param.annotation.annotation if param.annotation else None
        if ann is not None and _tensor_annotation(ann, mod, tensor_call) is not None:
            # Python evaluates it when the function is defined, before T.const names exist
            # (TileLang 0.1.15: NameError), so the eager style annotates in the body.
            raise mod.error(
                param,
                f"`{param.name.value}` is annotated as a tensor in the signature",
                f"annotate it in the body: `{param.name.value}: {source_of(ann).strip()}`",
            )
    for stmt in fn.body.body:
        if is_docstring(stmt):
            continue
        if isinstance(stmt, cst.With):
            if fac.kernel_with is not None:
                raise mod.error(stmt, "an eager kernel launches one `with T.Kernel(...)` block")
            fac.kernel_with = stmt
            continue
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) else None
        if small is None or len(stmt.body) != 1:  # type: ignore[union-attr]
            raise mod.error(
                stmt,
                "an eager kernel's body holds T.const sizes, tensor annotations, T.empty "
                "outputs, one `with T.Kernel(...)` block and a return",
            )
        assert isinstance(stmt, cst.SimpleStatementLine)
        if isinstance(small, cst.AnnAssign) and small.value is None:
            name = small.target.value if isinstance(small.target, cst.Name) else None
            shape_dtype = _tensor_annotation(small.annotation.annotation, mod, tensor_call)
            if name is None or name not in fac.params or shape_dtype is None:
                raise mod.error(
                    small,
                    f"`{source_of(small).strip()}` is not a tensor annotation of a parameter",
                    "annotate parameters in the body as `A: T.Tensor((M, K), dtype)`",
                )
            declared[name] = shape_dtype
            eager.annotations.append(stmt)
            continue
        if isinstance(small, cst.Return):
            returned = _returned_names(small, mod)
            continue
        if not (isinstance(small, cst.Assign) and len(small.targets) == 1):
            raise mod.error(small, f"`{source_of(small).strip()}` is not read in eager kernels")
        target, value = small.targets[0].target, small.value
        callee = mod.name_of(value.func) if isinstance(value, cst.Call) else None
        if callee == g["kernel"]["const"]:
            names = _const_names(value, target, mod)  # type: ignore[arg-type]
            consts |= set(names)
            eager.consts.append((stmt, names))
        elif callee == g["kernel"]["empty"]:
            if not isinstance(target, cst.Name):
                raise mod.error(target, "bind each T.empty output to a name")
            outputs[target.value] = _empty_args(value, mod)  # type: ignore[arg-type]
            eager.outputs.append((stmt, target.value))
        elif isinstance(target, cst.Name) and not _uses_package(value, mod):
            fac.locals[target.value] = value  # plain Python both sides read (`n_pad = ...`)
        else:
            raise mod.error(
                small,
                f"`{source_of(small).strip()}` is not read in eager kernels",
                "compute device values inside the T.Kernel block",
            )
    if fac.kernel_with is None:
        raise mod.error(fn, f"the eager kernel `{fn.name.value}` launches no `with T.Kernel(...)`")
    if returned is not None and set(returned) != set(outputs):
        raise mod.error(
            fn,
            f"`{fn.name.value}` returns {', '.join(returned) or 'nothing'}, not its T.empty "
            f"outputs ({', '.join(outputs) or 'none'})",
            "return exactly the tensors allocated with T.empty",
        )
    eager.inputs = [p for p in fac.params if p in declared]
    fac.params = [p for p in fac.params if p not in declared]
    for name in (*eager.inputs, *outputs):
        shape, dtype = declared.get(name) or outputs[name]
        if isinstance(shape, cst.Name) and shape.value in fac.locals:
            shape = fac.locals[shape.value]
        if not isinstance(shape, (cst.Tuple, cst.List)):
            raise mod.error(shape, "a tensor's shape is a literal tuple of sizes")
        entries = [e.value for e in shape.elements]
        fac.tensors[name] = (entries, dtype)
        fac.tensor_order.append(name)
        for d, e in enumerate(entries):
            known = consts | set(fac.params) | set(fac.locals) | set(mod.module_ints)
            if isinstance(e, cst.Name) and e.value not in known:
                raise mod.error(
                    e,
                    f"the size `{e.value}` of `{name}` is not defined in `{fn.name.value}`",
                    f'declare it with the other sizes: `... = T.const("... {e.value}")`',
                )
            if isinstance(e, cst.Name) and e.value in consts:
                if name in outputs and e.value not in fac.sizes:
                    raise mod.error(
                        e,
                        f"`{e.value}` sizes only the output `{name}`: T.const names are read "
                        "from the input tensors",
                        f"annotate an input tensor with `{e.value}`, or pass it as a parameter",
                    )
                fac.sizes.setdefault(e.value, (name, d))
    fac.out_idx = list(range(len(eager.inputs), len(fac.tensor_order)))
    unused = sorted(consts - set(fac.sizes))
    if unused:
        raise mod.error(eager.consts[0][0], f"T.const `{unused[0]}` sizes no annotated tensor")
    taken = set(fac.params) | set(fac.tensors) | consts
    name = f"{fn.name.value}_kernel"
    while name in taken:
        name = f"_{name}"
    fac.kernel_name = name
    fac.eager = eager


def _tensor_annotation(
    node: cst.BaseExpression, mod: ModuleFacts, tensor_call: set[str]
) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """``(shape, dtype)`` of ``T.Tensor((M, K), dtype)`` or ``T.Tensor[[M, K], dtype]``."""
    if isinstance(node, cst.Call) and mod.name_of(node.func) in tensor_call:
        pos, kw = call_args(node)
        shape = kw.get("shape", pos[0] if pos else None)
        dtype = kw.get("dtype", pos[1] if len(pos) > 1 else None)
    elif isinstance(node, cst.Subscript) and mod.name_of(node.value) in tensor_call:
        items = [el.slice.value for el in node.slice if isinstance(el.slice, cst.Index)]
        shape, dtype = (items[0], items[1]) if len(items) == 2 else (None, None)
    else:
        return None
    if shape is None or dtype is None:
        return None
    return shape, dtype


def _const_names(call: cst.Call, target: cst.BaseExpression, mod: ModuleFacts) -> list[str]:
    """The names ``M, N = T.const("M N")`` binds (TileLang splits on commas or spaces)."""
    pos, _ = call_args(call)
    if not pos or not isinstance(pos[0], cst.SimpleString):
        raise mod.error(call, 'T.const takes a literal string of names ("M N K")')
    text = str(pos[0].evaluated_value)
    names = [n for n in re.split(r"\s*,\s*|\s+", text.strip()) if n]
    if isinstance(target, cst.Name):
        bound = [target.value]
    elif isinstance(target, (cst.Tuple, cst.List)) and all(
        isinstance(e.value, cst.Name) for e in target.elements
    ):
        bound = [e.value.value for e in target.elements]  # type: ignore[union-attr]
    else:
        raise mod.error(target, "bind T.const sizes to plain names")
    if bound != names:
        raise mod.error(
            call,
            f"`{source_of(target)}` binds other names than T.const declares ({text!r})",
            'bind each T.const name to itself: `M, N = T.const("M N")`',
        )
    return names


def _empty_args(call: cst.Call, mod: ModuleFacts) -> tuple[cst.BaseExpression, cst.BaseExpression]:
    pos, kw = call_args(call)
    shape = pos[0] if pos else None
    dtype = kw.get("dtype", pos[1] if len(pos) > 1 else None)
    if not isinstance(shape, (cst.Tuple, cst.List)) or dtype is None:
        raise mod.error(call, "T.empty((sizes...), dtype) is read")
    return shape, dtype


def _returned_names(ret: cst.Return, mod: ModuleFacts) -> list[str]:
    value = ret.value
    if value is None:
        return []
    items = [e.value for e in value.elements] if isinstance(value, cst.Tuple) else [value]
    if not all(isinstance(i, cst.Name) for i in items):
        raise mod.error(ret, "an eager kernel returns its T.empty outputs by name")
    return [i.value for i in items]  # type: ignore[union-attr]


def _uses_package(node: cst.CSTNode, mod: ModuleFacts) -> bool:
    """Whether ``node`` calls into TileLang (then it is device code, not a host local)."""
    found = False

    class Names(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> None:
            nonlocal found
            if (mod.name_of(call.func) or "").startswith("tilelang"):
                found = True

    node.visit(Names())
    return found


__all__ = ["autotune_of", "build_options", "read_factory", "scalar_kind"]
