"""One launch of a Triton kernel (``kernel[grid](args)``) read by the frontend: which host value
each kernel parameter is bound to, the grid, the configs, and the services the lifter asks for
(tensor facts, strides, sizes used as strides, constexpr values)."""

from __future__ import annotations

import dataclasses
import itertools
import keyword
from typing import TYPE_CHECKING, Any

import libcst as cst

from translator.diagnostics import TranslationError
from translator.dialects.cst_utils import (
    literal,
    names_in,
    resolve,
    source_of,
)
from translator.dialects.triton.frontend_descriptors import HDescriptor, bind_descriptor
from translator.dialects.triton.frontend_wrapper import lane_size_names
from translator.dialects.triton.host_values import (
    STAND_IN_BLOCK,
    Binding,
    BlockInfo,
    HArgs,
    HBranch,
    HGrid,
    HOpaque,
    HScalar,
    HStatic,
    HStride,
    HTensor,
    HTuple,
    branch_test,
)
from translator.dialects.triton.launch_keywords import unpacked_keywords
from translator.dialects.triton.symbols import param_name as symbol_param
from translator.ir import nodes as ir
from translator.ir.printer import format_expr
from translator.ir.shapes import ScalarType
from translator.naming import unique

if TYPE_CHECKING:
    from translator.dialects.triton.frontend import EntryBuilder, KernelDef


_OPAQUE = itertools.count()


def _opaque_expr(
    why: str, value: object | None = None, names: dict[int, tuple[object, ir.Name]] | None = None
) -> ir.Expr:
    """A name for a host value the IR cannot express; the same ``value`` gets the same name in
    ``names`` (one entry's table), so that two uses of one opaque value (a grid and a loop step)
    can be compared."""
    if value is not None and names is not None and id(value) in names:
        return names[id(value)][1]
    name = ir.Name(f"?{why}#{next(_OPAQUE)}")
    if value is not None and names is not None:
        names[id(value)] = (value, name)  # kept alive while the entry is built: ids stay unique
    return name


class Launch:
    """One ``kernel[grid](args)``: parameter bindings and the services the lifter asks for."""

    def __init__(self, host: EntryBuilder, kernel: KernelDef, node: cst.Call) -> None:
        self.host = host
        self.kernel = kernel
        self.node = node
        self.bindings: dict[str, Binding] = {}
        self.knobs: dict[str, int] = {}
        self.grid: list[ir.Expr] = []
        self.grid_node: cst.CSTNode = node.func
        self.pre: list[ir.Stmt] = []
        # 2-d views of tensors of no known rank: view name -> (kernel parameter, row length).
        self.row_views: dict[str, tuple[str, ir.Expr]] = {}
        self.block_tunables: dict[str, str] = {}
        #: Autotuned meta-parameters read as values and no block (``if USE_EXP2:``, a split
        #: factor): parameter -> the ``int`` tunable standing for it.
        self.int_tunables: dict[str, str] = {}
        self.values: dict[str, Any] = {}  # host value of each parameter the launch passes
        self.derived = False  # launched by a derived wrapper: the grid is one program per tile
        self.derived_axes: dict[
            int, ir.Expr
        ] = {}  # its programs per axis (trees over parameter symbols)
        # Launch knobs the host computes: (expression or None, source text).
        self.knob_exprs: dict[str, tuple[ir.Expr | None, str]] = {}
        self.notes: list[str] = []  # `tiletrans:` comments for the launch
        self.used_blocks: set[str] = set()  # constexpr parameters the kernel uses as blocks
        # Block sizes spelt as arithmetic of constexprs (`pad_hd // 2`) -> the keys the lifter
        # binds them to (lift_tiles.derived_block_key).
        self.derived_keys: dict[str, str] = {}
        self.texts: dict[str, str] = {}  # source text of each argument the launch passes
        #: Parameters passed `a if c else b` where a constexpr flag of the same launch is bound
        #: to `c` (Liger's optional outputs: `dw.stride(0) if compute_dw else 0` beside
        #: `COMPUTE_DW=compute_dw`): parameter -> (flag, the flag's value under which the
        #: binding holds). The lifter lets the kernel read them only where the flag says so.
        self.flag_guards: dict[str, tuple[str, bool]] = {}
        #: Tensor parameters the launch may pass None (an optional tensor, `t if FLAG else
        #: None`), which the kernel reads only where a flag says it was passed.
        self.maybe_none: set[str] = set()
        #: Those parameters' stand-ins at the translated launch (none_placeholders).
        self.placeholders: dict[str, str] = {}

    def error(self, node: cst.CSTNode | None, message: str, hint: str | None = None):
        message, hint = self.spelt_keys(message), self.spelt_keys(hint)
        return TranslationError(message, self.host.locate(node or self.node), hint)

    def spelt_keys(self, text: str | None) -> str | None:
        """``text`` with each derived block key named as the source spells it (``pad_hd // 2``
        for the key the lifter binds it to)."""
        for source, key in self.derived_keys.items():
            text = text.replace(key, source) if text is not None else None
        return text

    # ------------------------------------------------------------------ binding

    def bind(self) -> None:
        k = self.kernel
        args, kwargs = [], {}
        for a in self.node.args:
            if a.star == "**":
                for key, value in unpacked_keywords(self, a).items():
                    if key in kwargs:
                        raise self.error(a, f"`{key}` is passed twice")
                    kwargs[key] = value
                continue
            if a.star:
                raise self.error(a, "star arguments in a launch are not supported")
            if a.keyword is not None:
                kwargs[a.keyword.value] = a.value
            else:
                args.append(a.value)
        if len(args) > len(k.params):
            raise self.error(self.node, f"too many arguments for `{k.fn.name.value}`")
        nodes = dict(zip(k.params, args))
        g = self.host.grammar["frontend"]
        for key, v in kwargs.items():
            if key in g["kernel"]["launch_keys"] and key not in k.params:
                try:
                    value = literal(v)
                except ValueError:
                    value = None
                if isinstance(value, int):
                    self.knobs[key] = value
                else:
                    computed = self.host.hval(v)
                    self.knob_exprs[key] = (
                        computed.expr if isinstance(computed, HScalar) else None,
                        self.host.src(v),
                    )
                continue
            if key in g["kernel"]["ignored_launch_keys"]:
                continue
            if key not in k.params:
                raise self.error(v, f"`{k.fn.name.value}` has no parameter `{key}`")
            nodes[key] = v
        tuned = set()
        if k.configs:
            for meta, _ in k.configs:
                tuned |= set(meta)
        kinds = self.kernel.param_kinds
        # The host names as the launch finds them, for the tests its flags are bound to (binding
        # a pointer may replace a name's value with the tensor it turns out to be).
        self.scope_at_launch = dict(self.host.scope)
        branched: dict[str, HBranch] = {}
        # Pointers first: a tensor the host code computes opaquely (`ctx.saved_tensors`, a
        # helper's result) is known to be a tensor once a pointer parameter receives it, so
        # that `x.stride(0)` passed beside it reads as its stride.
        order = sorted(k.params, key=lambda p: kinds.get(p) != "pointer")
        for p in order:
            if p in tuned:
                if p in nodes:
                    raise self.error(
                        nodes[p], f"`{p}` is set by @triton.autotune and at the launch"
                    )
                self.bindings[p] = Binding("constexpr", tuned=True)
                continue
            node = nodes.get(p, k.defaults.get(p))
            if node is None:
                self.bindings[p] = Binding("opaque", why="it is not passed")
                continue
            value = self.host.hval(node)
            text = _arg_text(node)
            if isinstance(value, HBranch) and kinds.get(p) == "pointer":
                # A tensor or None (`buf if flag else None`): carried as the host computes it
                # (strides of it passed beside it bind to it, bind_flag_guarded), with a
                # stand-in where it is None (none_placeholders).
                if any(_none_side(side) for side in (value.when_true, value.when_false)):
                    self.maybe_none.add(p)
            elif isinstance(value, HBranch) and p not in k.constexprs:
                # Bound once the flags are (bind_flag_guarded).
                branched[p] = value
                self.bindings[p] = Binding("opaque", why=value.why)
                self.texts[p] = text
                continue
            if p not in k.constexprs:
                value = self.known_for_kernel(p, value, node, text)
            elif (
                isinstance(value, HTensor)
                and value.guessed
                and _compared_to_a_string(self.kernel.fn, p, self.host.info.jit)
            ):
                # An unannotated host parameter the kernel compares with a string (Liger's
                # `if reduction == "mean":`): a string after all.
                value = HScalar(ir.Name(value.name), "str")
                self.host.scope[value.expr.id] = value  # type: ignore[union-attr]
                self.host.types.vars[value.expr.id] = ScalarType(ir.STR, weak=True)  # type: ignore[union-attr]
                self.host.scalar_params[value.expr.id] = "str"  # type: ignore[union-attr]
            self.values[p] = value
            self.texts[p] = text
            self.bindings[p] = self.binding_of(p, value, text, node)
        # The kernel's parameters in signature order (then the bindings descriptors add).
        self.bind_flag_guarded(nodes)
        self.bind_branched(nodes, branched)
        ordered = {p: self.bindings[p] for p in k.params if p in self.bindings}
        self.bindings = {**ordered, **self.bindings}
        self.bind_heuristics(nodes)

    def bind_flag_guarded(self, nodes: dict[str, cst.BaseExpression]) -> None:
        """Bind each run-time parameter passed ``a if c else b`` (a value the IR cannot
        express) to ``a`` where a constexpr flag of this launch is bound to ``c`` (to ``b``
        for ``a if not c else b``): Triton compiles the kernel per flag value, so under ``if
        FLAG:`` the parameter is that value. The lifter refuses a read outside such a branch."""
        for p, node in nodes.items():
            if p in self.kernel.constexprs or not isinstance(node, cst.IfExp):
                continue
            if self.bindings.get(p, Binding("tensor")).kind != "opaque":
                continue
            for flag, polarity in self._flags_bound_to(node.test):
                # The value where the flag is on (the branch that reads it).
                chosen = node.body if polarity else node.orelse
                value = self.known_for_kernel(p, self.host.hval(chosen), chosen, _arg_text(chosen))
                binding = self.binding_of(p, value, _arg_text(chosen), chosen)
                if binding.kind == "opaque":
                    continue
                if self.kernel.param_kinds.get(p) in ("int", "float") and binding.kind != "stride":
                    # A number is carried as the host computes it (the source's own
                    # conditional), which the kernel may read anywhere (bind_branched).
                    continue
                self.bindings[p] = binding
                self.values[p] = value
                self.flag_guards[p] = (flag, True)
                other = node.orelse if polarity else node.body
                if isinstance(other, cst.Name) and other.value == "None":
                    self.maybe_none.add(p)
                break

    def bind_branched(self, nodes: dict[str, cst.BaseExpression], branched: dict) -> None:
        """Bind each run-time parameter passed a name a host ``if`` assigns (an
        :class:`HBranch`) to its value on the side of the test a constexpr flag of this launch
        is bound to: ``stride_s`` of ``if s is not None: stride_s = s.stride(0)`` beside
        ``HAS_S=s is not None`` is ``s.stride(0)`` wherever the kernel reads it under ``if
        HAS_S:``, which the lifter checks as for ``a if c else b``. With no such flag, the value
        is carried as host code computes it, as any value the frontend does not follow."""
        for p, value in branched.items():
            node = nodes[p]
            if self.bindings[p].kind != "opaque":
                continue  # `a if c else b` with `c` a flag's own value (bind_flag_guarded)
            for flag in sorted(self.kernel.constexprs):
                b, flag_node = self.bindings.get(flag), nodes.get(flag)
                if b is None or b.kind not in ("constexpr", "opaque") or flag_node is None:
                    continue
                flag_test = branch_test(flag_node, self.scope_at_launch)
                same = (
                    value.test.same_test(flag_test)
                    if value.test is not None and flag_test is not None
                    else None
                )
                if same is None:
                    continue
                chosen = value.when_true if same else value.when_false
                if chosen is None:
                    continue
                chosen = self.known_for_kernel(p, chosen, node, _arg_text(node))
                binding = self.binding_of(p, chosen, _arg_text(node), node)
                if binding.kind not in ("stride", "tensor", "descriptor"):
                    # A number is carried as the host computes it (the source's own
                    # conditional), which the kernel may read anywhere.
                    continue
                self.bindings[p] = binding
                self.values[p] = chosen
                self.texts[p] = _arg_text(node)
                self.flag_guards[p] = (flag, True)
                other = value.when_false if same else value.when_true
                if other is None or (isinstance(other, HStatic) and other.value is None):
                    self.maybe_none.add(p)
                break
            else:
                known = self.known_for_kernel(p, value, node, _arg_text(node))
                self.values[p] = known
                self.texts[p] = _arg_text(node)
                self.bindings[p] = self.binding_of(p, known, _arg_text(node), node)

    def _flags_bound_to(self, test: cst.BaseExpression) -> list[tuple[str, bool]]:
        """The constexpr parameters of this launch bound to host test ``test`` (``True``) or to
        its negation (``False``), as a flag and the value it has where ``test`` holds."""
        negated = isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
        inner = test.expression if negated else test  # type: ignore[attr-defined]
        wanted = self.host.hval(inner)
        out = []
        for flag in sorted(self.kernel.constexprs):
            b, value = self.bindings.get(flag), self.values.get(flag)
            if b is None or b.kind not in ("constexpr", "opaque") or b.expr is None:
                continue
            # The same host value: one object of the host scope (a flag the host computes
            # opaquely, `compute_dw = True if needs_dw is None else needs_dw`), or equal
            # expressions.
            same = value is wanted and not isinstance(value, (int, float, bool, str))
            if not same and isinstance(value, HScalar) and isinstance(wanted, HScalar):
                same = self.host.same_value(value.expr, wanted.expr)
            if same:
                out.append((flag, not negated))
        return out

    def known_for_kernel(self, p: str, value: Any, node: cst.BaseExpression, text: str) -> Any:
        """An argument the host computes in a way the frontend does not follow, as what the
        kernel makes of it: a tensor of unknown rank for a pointer parameter, a host scalar
        (named after the parameter) for an integer or float one. A scalar argument that is an
        expression is named too, so that the kernel reads it as one parameter."""
        host = self.host
        kind = self.kernel.param_kinds.get(p)
        if kind in ("int", "float") and isinstance(value, HTensor) and value.guessed:
            # An unannotated host parameter the kernel reads as a number: a scalar after all.
            value = HScalar(ir.Name(value.name), kind)
            host.scope[value.expr.id] = value  # type: ignore[union-attr]
            host.types.vars[value.expr.id] = ScalarType(  # type: ignore[union-attr]
                ir.I32 if kind == "int" else ir.F32, weak=True
            )
            host.scalar_params[value.expr.id] = kind  # type: ignore[union-attr]
            return value
        owner = _address_owner(node) if kind == "pointer" else None
        if owner is not None:
            raise self.error(
                node,
                f"`{text}` passes `{p}` a raw address, an integer: Triton binds it as an int64 "
                f"scalar, not a pointer, so the kernel cannot load or store through `{p}`",
                f"pass the tensor itself (`{source_of(owner)}`): Triton passes a tensor "
                "argument as a pointer to its elements",
            )
        if kind == "pointer" and isinstance(value, HOpaque):
            t = host.carried_tensor(node, _tensor_base(p), text=text)
            t.promoted_from = value
            if value.may_be_none:
                t = dataclasses.replace(t, optional=True)
            host.scope[t.name] = t
            if isinstance(node, cst.Name):
                host.scope[node.value] = t
            return t
        if kind in ("int", "float") and isinstance(value, HOpaque):
            name = host.fresh(p)
            host.names.add(name)
            host.types.vars[name] = ScalarType(ir.I32 if kind == "int" else ir.F32, weak=True)
            host.emit(ir.Carried(name, kind, text, loc=host.locate(node)))
            if isinstance(node, cst.Name):
                host.scope[node.value] = HScalar(ir.Name(name), kind)
            return HScalar(ir.Name(name), kind)
        if (
            kind in ("int", "float")
            and isinstance(value, HScalar)
            and not isinstance(value.expr, (ir.Name, ir.Const))
        ):
            name = host.fresh(p)
            host.names.add(name)
            host.canon[name] = value.expr
            host.emit(ir.Assign(name, value.expr, loc=host.locate(node)))
            host.types.vars[name] = ScalarType(
                ir.F32 if value.kind == "float" else ir.I32, weak=True
            )
            return HScalar(ir.Name(name), value.kind)
        return value

    # ------------------------------------------------------------------ outlining

    def _param_of(self, host_name: str) -> str | None:
        """The kernel parameter the launch passes host value ``host_name`` to."""
        for p, b in self.bindings.items():
            if p not in self.kernel.params:
                continue  # what a descriptor argument stands for (`x_desc#shape0`)
            t = b.htensor
            if (
                t is not None
                and b.kind in ("tensor", "descriptor")
                and (host_name in (t.name, t.flat) or self.row_views.get(host_name, ("",))[0] == p)
            ):
                return p
            if b.kind in ("int", "float", "str", "constexpr", "opaque") and b.expr == ir.Name(
                host_name
            ):
                return p
        return None

    def param_name(self, host_name: str, kind: str) -> str:
        """The outlined kernel's parameter for ``host_name``: the source kernel's own name
        (``x_ptr`` → ``x``), or the host's name for a value the launch does not pass (a grid
        extent)."""
        p = self._param_of(host_name)
        if p is None:
            return self.host.source_name(host_name) or host_name
        if kind == "tensor":
            base = _tensor_base(p)
            return base if base not in self.kernel.params or base == p else p
        return p

    def arg_text(self, host_name: str) -> str:
        """``host_name`` spelt at the launch site: the argument as the launch wrote it."""
        p = self._param_of(host_name)
        if p is not None:
            b = self.bindings[p]
            if b.kind == "descriptor":
                assert b.tensor is not None
                return b.tensor
            text = self.placeholders.get(p, self.texts[p])
            if b.htensor is not None and b.htensor.flat == host_name:
                return f"{_atom(text)}.view(-1)"
            if host_name in self.row_views:
                return f"{_atom(text)}.view(-1, {self.host_text(self.row_views[host_name][1])})"
            return text
        name = self.host.source_name(host_name)
        if name is None:
            raise self.error(
                self.node,
                f"the kernel needs a host value the launch does not pass and the frontend "
                f"cannot spell (`{host_name}`)",
                "pass the value to the kernel as an argument",
            )
        return name

    def none_placeholders(self) -> None:
        """A stand-in for each tensor the launch may pass as None: an empty tensor of the
        rank the kernel reads it at, passed (inline, at each use) where the source passes None. The kernel reads it
        only under the flag that says a tensor was passed, so its contents never matter, but
        targets that specialise a kernel on its arguments' shapes, strides and dtypes
        (TileLang, cuTile) or view it (`.view(-1)`) need a tensor, not None."""
        lead = next(
            (
                self.texts[p]
                for p, b in self.bindings.items()
                if b.kind == "tensor"
                and p in self.texts
                and p not in self.maybe_none
                and b.htensor is not None
                and not b.htensor.optional
            ),
            None,
        )
        for p, b in self.bindings.items():
            t = b.htensor
            if b.kind != "tensor" or t is None or p not in self.texts:
                continue
            if p not in self.maybe_none and not self._tested_for_none(p):
                continue
            if lead is None:
                raise self.error(
                    self.node,
                    f"`{self.texts[p]}` may be None at this launch, and no tensor passed beside "
                    "it gives the device and dtype of a stand-in",
                    "pass a tensor (an empty one where there is none)",
                )
            text = _atom(self.texts[p])
            zeros = ", ".join(["0"] * (t.rank or 1)) + ("," if (t.rank or 1) == 1 else "")
            self.placeholders[p] = (
                f"({text} if {text} is not None else torch.empty(({zeros}), "
                f"dtype={_atom(lead)}.dtype, device={_atom(lead)}.device))"
            )
            self.notes.append(
                f"tiletrans: `{self.texts[p]}` may be None; the kernel reads it only where a "
                "flag says it was passed, so an empty stand-in is passed in its place"
            )

    def _tested_for_none(self, p: str) -> bool:
        """Whether the launch passes ``p`` a host name that a constexpr flag of the same launch
        tests for None (``init`` beside ``HAS_INIT=init is not None``): the source says it
        may be None here."""
        node = _launch_arg(self.node, self.kernel.params, p)
        if not isinstance(node, cst.Name):
            return False
        for flag in self.kernel.constexprs:
            flag_node = _launch_arg(self.node, self.kernel.params, flag)
            test = branch_test(flag_node, self.scope_at_launch) if flag_node else None
            if test is not None and test.kind == "present" and test.name == node.value:
                return True
        return False

    def host_text(self, e: ir.Expr) -> str:
        """Host size expression ``e`` (a name, ``x.size(d)``) spelt at the launch site."""
        if isinstance(e, ir.SizeOf):
            return f"{_atom(self.host_text(ir.Name(e.tensor)))}.size({e.dim})"
        if isinstance(e, ir.Name):
            return self.arg_text(e.id)
        raise self.error(self.node, f"cannot spell `{format_expr(e)}` at the launch")

    def tuned_texts(self) -> tuple[str, ...]:
        """The launch's arguments that became the kernel's tunables: block sizes and launch
        knobs (``BLOCK_SIZE=BLOCK_SIZE``, ``num_warps=8``)."""
        out = []
        for a in self.node.args:
            if a.keyword is None:
                continue
            key = a.keyword.value
            if key in self.used_blocks or key in self.knobs or key in self.knob_exprs:
                out.append(f"{key}={_arg_text(a.value)}")
        return tuple(out)

    def block_texts(self) -> tuple[tuple[str, str], ...]:
        """``(tunable, text)`` for each block-size tunable whose value the launch passes (not
        the autotuner): the host's own value, for targets whose launches pass tile sizes."""
        out = []
        for key, name in self.block_tunables.items():
            b = self.bindings.get(key)
            if b is not None and not b.tuned and key in self.texts and name != "group_size":
                out.append((name, self.texts[key]))
        return tuple(out)

    def param_order(self, host_name: str) -> object:
        p = self._param_of(host_name)
        params = self.kernel.params
        return params.index(p) if p is not None and p in params else len(params)

    def bind_heuristics(self, nodes: dict[str, cst.BaseExpression]) -> None:
        """Evaluate ``@triton.heuristics`` in order over the launch's argument values."""
        host = self.host
        for key, body, args_name in self.kernel.heuristics:
            # A value the launch passes too is the heuristic's input (Unsloth's
            # `"BACKWARD_PASS": lambda args: bool(args["BACKWARD_PASS"])`): as in Triton, the
            # heuristic's result replaces it.
            saved = host.scope
            host.scope = {**saved, args_name: HArgs(dict(self.values))}
            try:
                value = host.hval(body)
            finally:
                host.scope = saved
            if key not in self.kernel.constexprs:
                # A launch knob (`num_warps`), as if the launch passed it.
                if key in host.grammar["frontend"]["kernel"]["ignored_launch_keys"]:
                    continue
                if isinstance(value, HScalar) and isinstance(value.expr, ir.Const):
                    self.knobs[key] = value.expr.value
                else:
                    expr = value.expr if isinstance(value, HScalar) else None
                    self.knob_exprs[key] = (expr, host.src(body))
                continue
            self.values[key] = value
            self.bindings[key] = self.binding_of(key, value, host.src(body))

    def binding_of(
        self, p: str, v: Any, src: str, node: cst.BaseExpression | None = None
    ) -> Binding:
        if p in self.kernel.constexprs and not isinstance(v, HStride):
            # (A stride passed to a constexpr parameter, unsloth's `X_row_stride: tl.constexpr`,
            # only makes Triton compile a kernel per stride: it is read as the stride it is.)
            if isinstance(v, HScalar) and v.kind == "str":
                if isinstance(v.expr, ir.Const):
                    return Binding("static", value=v.expr.value)
                return Binding("str", expr=v.expr)
            if isinstance(v, HScalar):
                return Binding("constexpr", expr=v.expr)
            if isinstance(v, HStatic):
                return Binding("static", value=v.value)
            if isinstance(v, HOpaque):
                expr = (
                    self.host.carried_scalar(node, "int", v)
                    if node is not None
                    else _opaque_expr(v.why, v, self.host.opaque_names)
                )
                return Binding("opaque", why=v.why, expr=expr)
            # Anything else (an unannotated helper parameter): a compile-time value the host
            # computes out of the frontend's sight.
            expr = (
                self.host.carried_scalar(node, "int", v)
                if node is not None
                else _opaque_expr(src, v, self.host.opaque_names)
            )
            return Binding("opaque", why=src, expr=expr)
        if isinstance(v, HTensor):
            return Binding("tensor", tensor=v.source, htensor=v)
        if isinstance(v, HDescriptor):
            bind_descriptor(self, p, v)
            return Binding("descriptor", tensor=v.tensor.source, htensor=v.tensor, value=v)
        if isinstance(v, HStride):
            t = v.tensor
            d = v.dim
            if d < 0 and t.rank is not None:
                d += t.rank
            # A dim counted from the end of a tensor of unknown rank (`x.stride(-2)`) is settled
            # when the kernel's accesses tell the rank (Launch.resolve_access).
            return Binding("stride", tensor=t.source, htensor=t, dim=d)
        if isinstance(v, HScalar):
            return Binding("float" if v.kind == "float" else "int", expr=v.expr)
        if isinstance(v, HOpaque):
            return Binding("opaque", why=v.why)
        if isinstance(v, HStatic):
            return Binding("static", value=v.value)
        return Binding("opaque", why=f"`{src}` is no tensor, stride or scalar")

    def eval_grid(self, sub: cst.Subscript) -> list[ir.Expr]:
        if len(sub.slice) != 1 or not isinstance(sub.slice[0].slice, cst.Index):
            raise self.error(sub, "launch as kernel[grid](...)")
        node = sub.slice[0].slice.value
        self.grid_node = node
        from translator.dialects.triton.frontend_wrapper import DERIVED_GRID

        if isinstance(node, cst.Name) and node.value == DERIVED_GRID:
            self.derived = True  # one program per tile: the lifter sizes the grid
            return []
        if isinstance(node, cst.Tuple):
            return [self.grid_expr(e.value, None) for e in node.elements]
        v = self.host.hval(node)
        if isinstance(v, HGrid):
            params = v.params
            if len(params) != 1:
                raise self.error(
                    v.node, "the grid function takes one argument (the meta-parameters)"
                )
            body = v.body
            saved = dict(self.host.scope)
            self.host.scope[params[0]] = HStatic("meta")
            try:
                items = body.elements if isinstance(body, cst.Tuple) else [cst.Element(body)]
                out = [self.grid_expr(e.value, params[0]) for e in items]
            finally:
                self.host.scope = saved
            return out
        if isinstance(v, HTuple) and isinstance(v.node, cst.Tuple):
            return [self.grid_expr(e.value, None) for e in v.node.elements]
        if isinstance(v, HTuple):
            return [self._grid_item(x) for x in v.items]
        if isinstance(v, HScalar):
            return [v.expr]
        if isinstance(v, HOpaque) and v.cause is not None:
            raise v.cause
        raise self.error(
            node,
            f"cannot evaluate the grid `{self.host.src(node)}`",
            "use a tuple or `lambda meta: (...)`",
        )

    def _grid_item(self, x: Any, node: cst.BaseExpression | None = None) -> ir.Expr:
        if isinstance(x, HScalar):
            return x.expr
        if isinstance(x, HOpaque) and node is not None:
            # A number the host computes out of the frontend's sight (`M, N = x.shape` of a
            # tensor an autograd Function saved): the kernel takes it as it is written here.
            return self.host.carried_scalar(node, "int", x)
        why = x.why if isinstance(x, HOpaque) else "not a scalar"
        return _opaque_expr(why, x if isinstance(x, HOpaque) else None, self.host.opaque_names)

    def grid_expr(self, node: cst.BaseExpression, meta: str | None) -> ir.Expr:
        """An axis of a grid lambda: ``meta["BLOCK"]`` reads the kernel's constexpr."""
        if (
            isinstance(node, cst.Subscript)
            and isinstance(node.value, cst.Name)
            and (node.value.value == meta)
        ):
            key = literal(node.slice[0].slice.value)  # type: ignore[union-attr]
            if key not in self.bindings:
                raise self.error(node, f"the grid reads `{key}`, which is no kernel parameter")
            return self.block_host_expr(key)
        scalar = self.host.grammar["frontend"]["scalar_pointwise"]
        if isinstance(node, cst.Call) and (
            scalar.get(resolve(node.func, self.host.aliases) or "") == "cdiv"
            or resolve(node.func, self.host.aliases) in ("min", "max")
        ):
            args = [self.grid_expr(a.value, meta) for a in node.args]
            fn = resolve(node.func, self.host.aliases)
            op = (
                "cdiv" if fn != "min" and fn != "max" else ("minimum" if fn == "min" else "maximum")
            )
            out = args[0]
            if op == "cdiv":
                return ir.Call("cdiv", tuple(args))
            for a in args[1:]:
                out = ir.Call(op, (out, a))
            return out
        if isinstance(node, cst.BinaryOperation):
            ops = {cst.Add: "+", cst.Subtract: "-", cst.Multiply: "*", cst.FloorDivide: "//"}
            op = ops.get(type(node.operator))
            if op is not None:
                return ir.BinOp(
                    op, self.grid_expr(node.left, meta), self.grid_expr(node.right, meta)
                )
        return self._grid_item(self.host.hval(node), node)

    # ------------------------------------------------------------------ services

    def tensor_info(self, pname: str) -> HTensor:
        b = self.bindings[pname]
        assert b.htensor is not None
        return b.htensor

    def stride_params(self, pname: str) -> dict[str, int]:
        t = self.tensor_info(pname)
        return {
            p: b.dim
            for p, b in self.bindings.items()  # type: ignore[misc]
            if b.kind == "stride" and b.htensor is t
        }

    def borrowed_stride(self, pname: str, sname: str, node) -> int | ir.Expr:
        """The dim of tensor ``pname`` that stride parameter ``sname``, a stride of another
        tensor, strides: the same dim of a tensor of the same rank (Liger passes one
        ``c.stride(-2)`` for ``a``, ``b`` and ``c = torch.empty_like(a)``, rows of one layout).
        For ``pname`` of no known rank and the row stride of a 2-d lender (the tutorial's
        ``y = torch.empty_like(x)`` offset by ``x_arg.stride(0)`` of
        ``x_arg = x.reshape(-1, N)``), the lender's row length instead: ``pname`` is read as
        rows of that many elements, whatever its rank.

        The translation reads ``pname`` with its own stride of that dim, which is the source's
        wherever the two tensors share that stride (the layout the source was written for);
        the hint ``borrowed_stride`` records the assumption, as ``assumed_unit_stride`` does
        for an offset that takes a last stride of 1."""
        t = self.tensor_info(pname)
        b = self.bindings[sname]
        lender = b.htensor
        assert lender is not None and b.dim is not None
        rank = lender.rank if lender.rank is not None else t.rank
        if rank is None or (t.rank is not None and t.rank != rank):
            raise self.error(
                node,
                f"the offset into `{t.source}` uses `{sname}`, a stride of `{lender.source}`"
                + (f", which has {lender.rank} dims to its {t.rank}" if rank is not None else ""),
                f"pass {t.source}.stride({b.dim}) for the offsets into `{t.source}`",
            )
        dim = b.dim + rank if b.dim < 0 else b.dim
        if not 0 <= dim < rank:
            raise self.error(
                node, f"a stride of dim {b.dim} of `{lender.source}`, which has {rank}"
            )
        self.host.hints["borrowed_stride"] = (
            *self.host.hints.get("borrowed_stride", ()),
            (t.name, dim, lender.name),
        )
        if t.rank is None and rank == 2 and dim == 0:
            return ir.SizeOf(lender.name, 1)
        if t.rank is None:
            # Negative dims of its own strides count from this rank too.
            return dim - rank
        return dim

    def row_length(self, pname: str, terms: dict, is_param) -> ir.Expr | None:
        """The row length ``N`` (an integer parameter's host value) that splits the offset
        ``terms`` into ``i * N + j`` (no ``N`` in ``j``) for tensor ``pname`` of no known rank
        that no stride indexes: the kernel reads it as rows of ``N`` elements, and ``N``'s
        symbol. ``None`` where no one parameter does."""
        t = self.tensor_info(pname)
        if t.rank is not None:
            return None
        found = set()
        for mono in terms:
            params = [s for s in mono if is_param(s)]
            found |= {s for s in params if params.count(s) == 1}
        candidates = []
        # A constexpr size is a row length too (Liger's `N: tl.constexpr`), unless it sizes
        # lanes: `pid * BLOCK + tl.arange(0, BLOCK)` is a tile, not rows of BLOCK elements.
        lanes = lane_size_names(self.kernel.fn, self.host.aliases)
        for sym in found:
            pname = symbol_param(sym) or ""
            b = self.bindings.get(pname)
            if b is None or b.expr is None:
                continue
            if b.kind != "int" and (b.kind != "constexpr" or pname in lanes):
                continue
            rows = [m for m in terms if sym in m]
            cols = [m for m in terms if sym not in m]
            if rows and cols and all(m.count(sym) == 1 for m in rows):
                candidates.append(sym)
        return candidates[0] if len(candidates) == 1 else None

    def row_view_access(self, pname: str, length: ir.Expr, node) -> tuple[str, int]:
        """``pname``'s tensor viewed as rows of ``length`` elements (created before the
        launch): the tensor the access reads, and its rank."""
        t = self.tensor_info(pname)
        name = self.host.row_view(t, length, format_expr(length), node)
        self.row_views[name] = (pname, length)
        for s in self.host.body[-1:]:
            if isinstance(s, ir.View) and s.target == name:
                self.host.body.pop()
                self.pre.append(s)
        if not t.contiguous:
            # `.view(-1, N)` reads the rows the source addresses only for a row-major tensor.
            assumed = self.host.hints.get("assumed_row_major", ())
            if t.name not in assumed:
                self.host.hints["assumed_row_major"] = (*assumed, t.name)
        return name, 2

    def size_strides(self, pname: str) -> dict[str, int]:
        """Integer parameters that are strides of row-major tensor ``pname`` because they are
        sizes: ``hd = x.size(3)`` is ``x.stride(2)`` of a contiguous 4-D ``x`` (kernels that
        address a contiguous tensor as ``row * n_cols + cols``). The dim each one strides.

        A tensor the host does not make contiguous counts too where the kernel is passed none
        of its strides: it can only read it as row-major, an assumption the hint
        ``assumed_row_major`` records (as ``assumed_unit_stride`` does for a last dim)."""
        t = self.tensor_info(pname)
        if t.rank is None or (
            not t.contiguous and (self.stride_params(pname) or not self._layout_unknown(t))
        ):
            return {}
        host = self.host
        trailing: dict[ir.Expr, int] = {}
        product: ir.Expr | None = None
        for d in range(t.rank - 1, 0, -1):
            size = ir.SizeOf(t.name, d)
            product = size if product is None else ir.BinOp("*", size, product)
            trailing[host.canonical(product)] = d - 1
        out = {}
        for p, b in self.bindings.items():
            if b.kind in ("int", "constexpr") and b.expr is not None:
                d = trailing.get(host.canonical(b.expr))
                if d is not None:
                    out[p] = d
        if out and not t.contiguous:
            assumed = host.hints.get("assumed_row_major", ())
            if t.name not in assumed:
                host.hints["assumed_row_major"] = (*assumed, t.name)
        return out

    def _layout_unknown(self, t: HTensor) -> bool:
        """Whether ``t`` is a parameter of the host function as it was passed (no transpose,
        slice or other view the host code made of it), so that only the caller knows its
        layout."""
        if t.view_of is not None:
            # A view (`x.view(-1, x.shape[-1])`) of a tensor only the caller knows the layout
            # of: its strides are that tensor's, unknown here too.
            return self._layout_unknown(t.view_of)
        if t.like is not None and not t.contiguous:
            # `torch.empty_like(x)` keeps the strides of a dense `x`: as unknown as x's.
            return self._layout_unknown(t.like)
        params = {p.name.value for p in self.host.fn.params.params}
        params |= {p.name.value for p in self.host.fn.params.kwonly_params}
        return t.name in params and t.rank_like is None and t.like is None

    def is_stride(self, pname: str) -> bool:
        b = self.bindings.get(pname)
        return b is not None and b.kind == "stride"

    def resolve_access(self, pname: str, per_dim: dict, implicit: bool, node) -> tuple[str, int]:
        t = self.tensor_info(pname)
        negative = sorted(d for d in per_dim if d < 0)
        if negative:
            if len(negative) != len(per_dim):
                raise self.error(
                    node, f"`{t.source}` is indexed with strides counted from both of its ends"
                )
            # Strides counted from the end (`x.stride(-2)`): the kernel reads a tensor of the
            # dims they span (a term without a stride being the last, unit-stride one).
            rank = t.rank if t.rank is not None else max(-negative[0], 1 if implicit else 0)
            moved = {d + rank: v for d, v in per_dim.items()}
            per_dim.clear()
            per_dim.update(moved)
            for b in self.bindings.values():
                if b.kind == "stride" and b.htensor is t and b.dim is not None and b.dim < 0:
                    b.dim += rank
        span = len(per_dim) + (1 if implicit else 0)
        if t.rank is None and negative:
            span = rank
        if (
            t.rank is None
            and per_dim
            and (sorted(per_dim) == list(range(len(per_dim))) or negative)
        ):
            # Strides of dims 0..r-1 and nothing else: the kernel reads a rank-r tensor (any
            # other rank would leave dims unindexed); specialise to it, with a guard on the
            # input it was allocated like.
            root = t
            while root.like is not None:
                root = root.like
            # A term without a stride indexes one more, last, unit-stride dim.
            rank = span
            if root.rank is None:
                unit = " and a unit-stride last dim" if implicit else ""
                self.host.guards.append(
                    (
                        root.name,
                        rank,
                        f"the kernel indexes it through "
                        f"{t.source}.stride(0..{len(per_dim) - 1}){unit}",
                    )
                )
                self.host.hints["rank_specialized"] = (
                    *self.host.hints.get("rank_specialized", ()),
                    (root.name, rank),
                )
            elif root.rank != rank:
                raise self.error(
                    node, f"`{t.source}` is indexed with {rank} strides but has {root.rank} dims"
                )
            for x in {id(t): t, id(root): root}.values():
                x.rank = rank
        if t.rank is None or (not per_dim and implicit and t.rank > 1):
            if per_dim:
                raise self.error(
                    node,
                    f"cannot tell the rank of `{t.source}`, which the kernel indexes with strides",
                    f"unpack {t.source}.shape or assert {t.source}.dim() == r",
                )
            if not t.contiguous:
                self.host.assumed_unit.append(t.source)
            name = self.host.flat_view(t, node)
            for s in self.host.body[-1:]:
                if isinstance(s, ir.View) and s.target == name:
                    self.host.body.pop()
                    self.pre.append(s)
            return name, 1
        for d in per_dim:
            if d >= t.rank:
                raise self.error(node, f"a stride of dim {d} of `{t.source}`, which has {t.rank}")
        return t.name, t.rank

    def note_unit_stride(self, pname: str, node) -> None:
        t = self.tensor_info(pname)
        if not (t.unit_last or t.contiguous):
            self.host.assumed_unit.append(t.name)

    def load_cast(self, pname: str) -> ir.DType | None:
        return self.tensor_info(pname).cast

    def tensor_dtype(self, pname: str) -> ir.DTypeExpr:
        """``ptr.dtype.element_ty``: the element type of the tensor the pointer was passed."""
        t = self.tensor_info(pname)
        if t.cast is not None:
            return t.cast
        if isinstance(t.dtype, ir.DType):
            return t.dtype
        if t.flat is not None:
            # Accessed through its flat view (the kernel is passed the view).
            return ir.DTypeOf(t.flat)
        # Of unknown rank so far: its accesses decide (a flat view, if any, is renamed after).
        return ir.DTypeOf(t.name)

    def constexpr_ir(self, pname: str, node) -> ir.Expr:
        b = self.bindings[pname]
        if pname in self.block_tunables:
            return ir.Name(self.block_tunables[pname])
        if pname in self.int_tunables:
            return ir.Name(self.int_tunables[pname])
        if b.tuned:
            values = [meta.get(pname) for meta, _ in self.kernel.configs or []]
            if not values or not all(isinstance(v, int) for v in values):
                raise self.error(
                    node,
                    f"autotuned meta-parameter `{pname}` is used as a value and takes values "
                    "other than integers in its configs",
                    "give it an integer (or True/False) in every triton.Config",
                )
            # A knob of the kernel's own (Helion's hl.register_tunable): the configs' values,
            # in their order, are its space.
            ints = [int(v) for v in values]  # type: ignore[arg-type]
            name = self.tunable_name(pname)
            t = ir.Tunable(name, "int", ints[0], tuple(dict.fromkeys(ints)), space="choices")
            self.host.record_tunable(t, None)
            self.int_tunables[pname] = name
            return ir.Name(name)
        assert b.expr is not None
        return b.expr

    def block_host_expr(self, key) -> ir.Expr:
        if isinstance(key, int):
            return ir.Const(key)
        b = self.bindings.get(key)
        if b is None:
            raise self.error(None, f"`{key}` is no kernel parameter")
        if b.tuned or key in self.block_tunables:
            info = self.block_of(key, None, False)
            if isinstance(info.block, str):
                return ir.Name(info.block)
        if b.expr is None:
            raise self.error(None, f"block size `{key}` is not bound")
        return b.expr

    def block_of(self, key, node, full_ok: bool) -> BlockInfo:
        """How block size ``key`` maps to the IR: a tunable, a constant, or a whole dim."""
        if isinstance(key, int):
            return BlockInfo("tile", ir.Const(key), True)
        self.used_blocks.add(key)
        b = self.bindings.get(key)
        name = self.tunable_name(key, b.expr if b is not None else None)
        if b is not None and b.kind == "opaque" and key in self.kernel.constexprs:
            return self.unfollowed_block(key, full_ok)
        if b is None or b.kind != "constexpr":
            raise self.error(node, f"block size `{key}` is not a tl.constexpr parameter")
        if b.tuned:
            values = [meta[key] for meta, _ in self.kernel.configs or []]
            if not all(isinstance(v, int) for v in values):
                raise self.error(node, f"autotuned `{key}` must take integer values")
            t = ir.Tunable(name, "block_size", values[0], tuple(sorted(set(values))))
            if self.int_tunables.pop(key, None) is not None:
                # Read as a value before any tile of it: the same name, a block after all.
                self.host.tunables.pop(name, None)
            self.host.record_tunable(t, None)
            self.block_tunables[key] = name
            return BlockInfo("tile", name, True, expr=ir.Name(name))
        assert b.expr is not None
        canon = self.host.canonical(b.expr)
        covered = self.covered_extent(canon) if full_ok else None
        if covered is not None:
            # Launched under `if n <= BLOCK:`: these lanes span the whole of `n`.
            return BlockInfo("full", full_extent=covered, expr=b.expr)
        if isinstance(canon, ir.Const) and isinstance(canon.value, int):
            t = ir.Tunable(name, "block_size", canon.value, (canon.value,))
            self.host.record_tunable(t, canon)
            self.block_tunables[key] = name
            return BlockInfo("tile", name, True, expr=b.expr)
        if (
            isinstance(canon, ir.Call)
            and canon.op == "next_power_of_2"
            and isinstance(canon.args[0], ir.Call)
            and canon.args[0].op == "minimum"
            and any(_power_of_two_const(a) for a in canon.args[0].args)
        ):
            # `next_power_of_2(min(128, d))`: at most 128 lanes of a tiled dim, the same block
            # as `min(next_power_of_2(d), 128)`; a tunable whose default is the cap.
            cap = next(a for a in canon.args[0].args if _power_of_two_const(a))
            t = ir.Tunable(name, "block_size", int(cap.value), (), fit=True)  # type: ignore[union-attr]
            self.host.record_tunable(t, canon)
            self.block_tunables[key] = name
            return BlockInfo("tile", name, False, expr=b.expr)
        if isinstance(canon, ir.Call) and canon.op == "next_power_of_2":
            return BlockInfo("full", full_extent=canon.args[0], expr=b.expr)
        if (
            full_ok
            and isinstance(canon, ir.BinOp)
            and canon.op == "//"
            and isinstance(canon.lhs, ir.Call)
            and canon.lhs.op == "next_power_of_2"
            and _power_of_two_const(canon.rhs)
        ):
            # `pad_hd // 2` with `pad_hd = next_power_of_2(hd)` (a half-head tile): at least
            # `hd // c` lanes, so the whole of `hd // c` (the mask must bound it by that).
            n = canon.lhs.args[0]
            return BlockInfo("full", full_extent=ir.BinOp("//", n, canon.rhs), expr=b.expr)
        if full_ok and _is_size(canon):
            # tl.arange(0, D) with D a size (a power of two the host asserts, as Triton needs):
            # lanes that span the whole dim exactly.
            return BlockInfo("full", full_extent=b.expr, expr=b.expr, padded=False)
        if (
            isinstance(canon, ir.Call)
            and canon.op == "where"
            and all(isinstance(x, ir.Const) and isinstance(x.value, int) for x in canon.args[1:])
        ):
            # `64 if d <= 64 else 32`: the host picks one of a few blocks; a tunable over them
            # (its first choice the default) stands in, so reductions must not see padding.
            first, second = (int(x.value) for x in canon.args[1:])  # type: ignore[union-attr]
            t = ir.Tunable(name, "block_size", first, tuple(sorted({first, second})))
            self.host.record_tunable(t, canon)
            self.block_tunables[key] = name
            return BlockInfo("tile", name, False, expr=b.expr)
        if isinstance(canon, ir.Call) and canon.op == "minimum":
            a, c = canon.args
            if isinstance(a, ir.Const):
                a, c = c, a
            if isinstance(c, ir.Const) and isinstance(a, ir.Call) and a.op == "next_power_of_2":
                t = ir.Tunable(name, "block_size", int(c.value), (), fit=True)
                self.host.record_tunable(t, canon)
                self.block_tunables[key] = name
                return BlockInfo("tile", name, False, expr=b.expr)
        if isinstance(canon, ir.Name) and canon.id in self.host_parameters:
            # A block the caller passes in (Liger's backward takes the `BLOCK_SIZE` its forward
            # chose, through the autograd context): as out of sight as a computed one.
            return self.unfollowed_block(key, full_ok)
        raise self.error(
            node,
            f"block size `{key}` is computed on the host as `{format_expr(b.expr)}`, which "
            "the IR cannot follow",
            "pass a literal, triton.next_power_of_2(n) for a whole row, "
            "min(triton.next_power_of_2(n), C), or autotune it",
        )

    def covered_extent(self, block: ir.Expr) -> ir.Expr | None:
        """The extent ``n`` of a host branch condition ``n <= block`` (or ``block >= n``) the
        launch is under, ``block`` canonical; ``None`` where no such condition holds."""
        for fact in self.host.branch_facts:
            if not isinstance(fact, ir.BinOp) or fact.op not in ("<=", ">="):
                continue
            extent, bound = (fact.lhs, fact.rhs) if fact.op == "<=" else (fact.rhs, fact.lhs)
            if self.host.canonical(bound) == block and not isinstance(extent, ir.Const):
                return extent
        return None

    def unfollowed_block(self, key: str, full_ok: bool) -> BlockInfo:
        """Block size ``key``, which the host computes or receives out of the frontend's sight
        (`ctx.BLOCK_SIZE` saved by an autograd Function's forward). Lanes it spans whole are
        the whole dim their mask bounds, as the source assumes; a block a loop or the grid
        steps by is a tunable standing in (masks make any block compute the same)."""
        self.notes.append(f"tiletrans: `{key}` is computed where tiletrans cannot follow it")
        if full_ok:
            return BlockInfo("full", full_extent=None, expr=None)
        name = self.tunable_name(key)
        t = ir.Tunable(name, "block_size", STAND_IN_BLOCK, ())
        self.host.record_tunable(t, None)
        self.block_tunables[key] = name
        return BlockInfo("tile", name, False, expr=ir.Name(name))

    def tunable_name(self, key: str, value: ir.Expr | None = None) -> str:
        """The name of the tunable standing for constexpr parameter ``key``: its lowercase
        spelling where no other value holds that name, else a fresh one. A runtime argument
        `scale` beside an autotuned `SCALE` (or a host value `scale` passed to any parameter)
        must not merge with the tunable. ``value``, the host expression bound to ``key``, may
        be the very name: the tunable then stands for that value."""
        for owned in (self.block_tunables, self.int_tunables):
            if key in owned:
                return owned[key]
        base = key.lower()
        if isinstance(value, ir.Name) and value.id == base:
            return base
        taken = set(self.host.names) | names_in(self.host.fn)
        taken |= names_in(self.kernel.fn) - {key}
        return unique(base, taken)

    @property
    def host_parameters(self) -> set[str]:
        """The parameters of the host function that launches the kernel."""
        fn = self.host.fn
        return {p.name.value for p in (*fn.params.params, *fn.params.kwonly_params)}

    def group_size(self, tree: ir.Expr, node) -> None:
        from translator.dialects.triton import frontend_affine as af
        from translator.dialects.triton.symbols import SymKind, sym_of

        t = af.strip_casts(tree)
        param = sym_of(t)
        if param is not None and param.kind is SymKind.PARAM:
            key = param.name
            b = self.bindings.get(key)
            if b is not None and b.tuned:
                values = [meta[key] for meta, _ in self.kernel.configs or []]
                self.host.record_tunable(
                    ir.Tunable("group_size", "group_size", values[0], tuple(sorted(set(values)))),
                    None,
                )
                self.block_tunables[key] = "group_size"
                return
            if b is not None and b.expr is not None:
                c = self.host.canonical(b.expr)
                if isinstance(c, ir.Const) and isinstance(c.value, int):
                    self.host.record_tunable(
                        ir.Tunable("group_size", "group_size", c.value, (c.value,)), c
                    )
                    self.block_tunables[key] = "group_size"
                    return
        if isinstance(t, ir.Const) and isinstance(t.value, int):
            self.host.record_tunable(ir.Tunable("group_size", "group_size", t.value, (t.value,)), t)
            return
        raise self.error(node, "the swizzle's group size must be a constant or autotuned")

    def record_configs(self) -> None:
        """The entry's configs: the autotuner's, or the one the launch fixes."""
        host = self.host
        if self.kernel.configs:
            rows = []
            for meta, knobs in self.kernel.configs:
                row = {}
                for key, value in meta.items():
                    if key in self.block_tunables:
                        row[self.block_tunables[key]] = value
                    elif key in self.int_tunables:
                        row[self.int_tunables[key]] = int(value)
                row.update({k: v for k, v in knobs.items()})
                rows.append(row)
            if host.configs and host.configs != rows:
                raise self.error(self.node, "two autotuned kernels in one wrapper")
            host.configs = rows
            return
        row = {}
        for tname in self.block_tunables.values():
            row[tname] = host.tunables[tname].default
        row.update(self.knobs)
        row.update(self.computed_knobs())
        if not row:
            return
        if host.configs:
            host.configs[0].update(row)
        else:
            host.configs = [row]

    def computed_knobs(self) -> dict[str, int]:
        """Launch knobs the host computes from block sizes (``num_warps=32 if BLOCK >= 16384 else
        8``), evaluated at the IR's default config: the value the source picks for the blocks the
        translation runs with. Knobs that depend on input sizes are dropped (performance only)."""
        out: dict[str, int] = {}
        notes = []
        for key, (expr, text) in self.knob_exprs.items():
            value = self.host.at_default_config(expr) if expr is not None else None
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                out[key] = value
                notes.append(f"tiletrans: `{key}={text}` is {value} at the default config")
            else:
                notes.append(
                    f"tiletrans: dropped `{key}={text}`: a launch knob computed on the "
                    "host from input sizes (performance only)"
                )
        self.notes.extend(notes)
        return out


def _compared_to_a_string(
    fn: cst.FunctionDef, name: str, helpers: dict[str, cst.FunctionDef], depth: int = 0
) -> bool:
    """Whether kernel ``fn`` compares its parameter ``name`` with a string literal, itself or in
    a jit helper it passes the parameter to (attorch's ``apply_act_func(x, act_func)``)."""
    found = False
    passed: list[tuple[str, int | str]] = []

    class Visitor(cst.CSTVisitor):
        def visit_Comparison(self, node: cst.Comparison) -> None:
            nonlocal found
            parts = [node.left, *(c.comparator for c in node.comparisons)]
            named = any(isinstance(x, cst.Name) and x.value == name for x in parts)
            if named and any(isinstance(x, cst.SimpleString) for x in parts):
                found = True

        def visit_Call(self, node: cst.Call) -> None:
            if isinstance(node.func, cst.Name) and node.func.value in helpers:
                for i, a in enumerate(node.args):
                    if isinstance(a.value, cst.Name) and a.value.value == name:
                        passed.append((node.func.value, a.keyword.value if a.keyword else i))

    fn.body.visit(Visitor())
    if found or depth > 3:
        return found
    for helper, where in passed:
        params = helpers[helper].params.params
        inner = (
            where
            if isinstance(where, str)
            else (params[where].name.value if where < len(params) else None)
        )
        if inner is not None and _compared_to_a_string(helpers[helper], inner, helpers, depth + 1):
            return True
    return False


def _none_side(value: object) -> bool:
    """Whether one side of a conditional host value is ``None``."""
    return value is None or (isinstance(value, HStatic) and value.value is None)


def _launch_arg(call: cst.Call, params: list[str], p: str) -> cst.BaseExpression | None:
    """The argument node a launch passes parameter ``p`` (by position or keyword)."""
    positional = [a for a in call.args if a.keyword is None and not a.star]
    for a in call.args:
        if a.keyword is not None and a.keyword.value == p:
            return a.value
    i = params.index(p) if p in params else len(positional)
    return positional[i].value if i < len(positional) else None


def _tensor_base(param: str) -> str:
    """``x`` for a pointer parameter ``x_ptr`` (``X`` stays ``X``)."""
    for suffix in ("_ptrs", "_ptr", "_desc"):
        base = param[: -len(suffix)]
        # `in_ptr` stays `in_ptr`: `in` (a keyword) names no parameter of a translation.
        if param.endswith(suffix) and base.isidentifier() and not keyword.iskeyword(base):
            return base
    return param


def _arg_text(node: cst.BaseExpression) -> str:
    """A launch argument as source text for the translated launch (one line)."""
    text = source_of(node).strip()
    return text if "\n" not in text and "#" not in text else " ".join(text.split())


def _atom(text: str) -> str:
    """``text`` safe to put an attribute after."""
    return text if text.replace("_", "").replace(".", "").isalnum() else f"({text})"


def _is_size(e: ir.Expr) -> bool:
    """An integer host expression of sizes only (``x.size(d)``, products of them)."""
    if isinstance(e, ir.SizeOf):
        return True
    return isinstance(e, ir.BinOp) and e.op == "*" and _is_size(e.lhs) and _is_size(e.rhs)


def _power_of_two_const(e: ir.Expr) -> bool:
    """Whether ``e`` is an integer constant that is a power of two."""
    return (
        isinstance(e, ir.Const)
        and isinstance(e.value, int)
        and not isinstance(e.value, bool)
        and e.value > 0
        and e.value & (e.value - 1) == 0
    )


def _address_owner(node: cst.BaseExpression) -> cst.BaseExpression | None:
    """``x`` of ``x.data_ptr()`` (a tensor's address as a Python int), else ``None``."""
    if (
        isinstance(node, cst.Call)
        and not node.args
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "data_ptr"
    ):
        return node.func.value
    return None
