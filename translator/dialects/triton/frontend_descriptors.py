"""Host-side tensor descriptors: ``TensorDescriptor`` built by the wrapper, passed to a kernel.

``TensorDescriptor(t, shape, strides, block_shape)`` (or ``TensorDescriptor.from_tensor(t,
block_shape)``, which takes ``t.shape`` and ``t.stride()``) is the host twin of
``tl.make_tensor_descriptor``: the kernel receives one argument where the device form takes a base
pointer, a shape and strides. The launch therefore binds a descriptor parameter as its tensor plus
one synthetic size or stride binding per dim (``<param>#shape<d>``, ``<param>#stride<d>``), and
the kernel sees a :class:`~translator.dialects.triton.frontend_blocks.Descriptor` over them:
``desc.load/store`` desugar to the same pointer windows and masks as the device form.

The block shape is part of the descriptor, so it must name the kernel's block sizes: each entry is
matched to the ``tl.constexpr`` parameter the launch binds to the same host value. Autotuned
kernels create descriptors with a placeholder block and set the real one in a config
``pre_hook`` (``nargs["a_desc"].block_shape = [nargs["BLOCK_M"], nargs["BLOCK_K"]]``, as in
Triton's persistent-matmul tutorial); :func:`block_shape_hook` reads such a hook, and nothing else
a hook may do.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import libcst as cst

from translator.diagnostics import TranslationError
from translator.dialects.cst_utils import literal
from translator.dialects.triton import frontend_affine as af
from translator.dialects.triton import frontend_blocks as blocks
from translator.dialects.triton.frontend_blocks import Descriptor, bound_args
from translator.dialects.triton.symbols import Sym
from translator.ir import nodes as ir

if TYPE_CHECKING:
    from translator.dialects.triton.frontend import EntryBuilder
    from translator.dialects.triton.frontend_device import KernelLifter
    from translator.dialects.triton.frontend_launch import Launch
    from translator.dialects.triton.frontend_module import ModuleInfo
    from translator.dialects.triton.host_values import HTensor

_HOOK_HINT = (
    "a config pre_hook may only set descriptor block shapes from the config's "
    'meta-parameters: `nargs["x_desc"].block_shape = [nargs["BLOCK_M"], ...]`'
)


@dataclass(frozen=True, eq=False)
class HDescriptor:
    """A host ``TensorDescriptor``: per dim its size (host expression), its stride (a dim of
    ``tensor``, or ``None`` for a literal unit stride) and its block (a host value)."""

    tensor: HTensor
    shape: tuple[ir.Expr, ...]
    strides: tuple[int | None, ...]
    block: tuple[Any, ...]
    padding: float
    node: cst.CSTNode


_CONSTRUCTOR_ARGS = ("base", "shape", "strides", "block_shape", "padding", "round_f32_to_tf32")
_FROM_TENSOR_ARGS = ("tensor", "block_shape", "padding", "round_f32_to_tf32")


def host_descriptor(host: EntryBuilder, node: cst.Call, from_tensor: bool) -> HDescriptor:
    """``TensorDescriptor(...)`` or ``TensorDescriptor.from_tensor(...)`` in a wrapper."""
    from translator.dialects.triton.host_values import HScalar, HShape, HStride, HTensor, HTuple

    names = _FROM_TENSOR_ARGS if from_tensor else _CONSTRUCTOR_ARGS
    bound = bound_args(node, names, host)
    for key in names[: 2 if from_tensor else 4]:
        if key not in bound:
            raise host.error(node, f"TensorDescriptor needs `{key}`")
    base_node = bound[names[0]]
    t = host.hval(base_node)
    if not isinstance(t, HTensor):
        raise host.error(base_node, "the descriptor's base must be a tensor of the wrapper")
    if "round_f32_to_tf32" in bound and _literal(bound["round_f32_to_tf32"]) is not False:
        raise host.error(
            bound["round_f32_to_tf32"],
            "`round_f32_to_tf32=` on a tensor descriptor is not supported yet",
            "leave it False; tl.dot's input_precision= chooses tf32 where it should",
        )
    padding = blocks.padding(host, bound.get("padding"), "padding")
    sizes = tuple(host.shape_exprs(t, base_node))
    rank = len(sizes)
    if from_tensor:
        shape = sizes
        strides: tuple[int | None, ...] = tuple(range(rank))
    else:
        shape_value = host.hval(bound["shape"])
        if isinstance(shape_value, HShape):
            shape = tuple(host.shape_exprs(shape_value.tensor, bound["shape"]))
        elif isinstance(shape_value, HTuple) and all(
            isinstance(x, HScalar) for x in shape_value.items
        ):
            shape = tuple(x.expr for x in shape_value.items)
        else:
            raise host.error(
                bound["shape"],
                "the descriptor's shape must be a tuple of host sizes (`x.shape`, `[M, K]`)",
            )
        stride_value = host.hval(bound["strides"])
        items = stride_value.items if isinstance(stride_value, HTuple) else None
        strides_out: list[int | None] = []
        for x in items or ():
            if isinstance(x, HStride) and x.tensor is t:
                strides_out.append(x.dim + rank if x.dim < 0 else x.dim)
            elif isinstance(x, HScalar) and x.expr == ir.Const(1):
                strides_out.append(None)
            else:
                items = None
                break
        if items is None:
            raise host.error(
                bound["strides"],
                "the descriptor's strides must be strides of its "
                "base (`x.stride()`, `[x.stride(0), 1]`)",
            )
        strides = tuple(strides_out)
    block_value = host.hval(bound["block_shape"])
    if not isinstance(block_value, HTuple):
        raise host.error(bound["block_shape"], "the descriptor's block_shape must be a list")
    if not len(shape) == len(strides) == len(block_value.items):
        raise host.error(node, "the descriptor's shape, strides and block_shape differ in length")
    host.note(
        f"tiletrans: `{host.src(node.func)}({host.src(base_node)}, ...)`: the kernel "
        f"indexes `{t.source}` through the descriptor's shape and strides"
    )
    shape = tuple(host.named_size(e) for e in shape)
    return HDescriptor(
        t, shape, strides, block_value.items, 0.0 if padding is None else padding, node
    )


def _literal(node: cst.BaseExpression) -> object:
    try:
        return literal(node)
    except ValueError:
        return None


def bind_descriptor(launch: Launch, pname: str, d: HDescriptor) -> None:
    """The synthetic size and stride bindings of descriptor parameter ``pname``."""
    from translator.dialects.triton.host_values import Binding

    for dim, (size, stride) in enumerate(zip(d.shape, d.strides)):
        launch.bindings[f"{pname}#shape{dim}"] = Binding("int", expr=size)
        if stride is not None:
            launch.bindings[f"{pname}#stride{dim}"] = Binding(
                "stride", tensor=d.tensor.source, htensor=d.tensor, dim=stride
            )


def kernel_descriptor(lifter: KernelLifter, pname: str, d: HDescriptor) -> Descriptor:
    """The kernel's view of host descriptor parameter ``pname``."""
    launch = lifter.launch
    shape = tuple(Sym.param(f"{pname}#shape{dim}").expr for dim in range(len(d.shape)))
    strides = tuple(
        ir.Const(1) if s is None else Sym.param(f"{pname}#stride{dim}").expr
        for dim, s in enumerate(d.strides)
    )
    hooked = launch.kernel.descriptor_blocks.get(pname)
    if hooked is not None:
        if len(hooked) != len(d.shape):
            raise launch.error(
                launch.kernel.hook_node,
                f"the pre_hook gives `{pname}` a "
                f"{len(hooked)}-d block shape; the descriptor has {len(d.shape)} "
                "dims",
            )
        for key in hooked:
            if isinstance(key, str) and key not in launch.kernel.constexprs:
                raise launch.error(
                    launch.kernel.hook_node,
                    f"the pre_hook sets a block of "
                    f"`{pname}` to `{key}`, which is no tl.constexpr parameter",
                )
        block = hooked
    else:
        block = tuple(_block_key(launch, x, d.node) for x in d.block)
    return Descriptor(pname, shape, strides, block, d.padding)


def _block_key(launch: Launch, value: Any, node: cst.CSTNode) -> af.Key:
    """The kernel block size a descriptor's block entry is: the ``tl.constexpr`` parameter bound
    to the same host value, else the integer itself."""
    from translator.dialects.triton.host_values import HScalar

    if isinstance(value, HScalar):
        for key in launch.kernel.params:
            b = launch.bindings.get(key)
            if (
                key in launch.kernel.constexprs
                and b is not None
                and b.kind == "constexpr"
                and (b.expr is not None and launch.host.same_value(b.expr, value.expr))
            ):
                return key
        if isinstance(value.expr, ir.Const) and isinstance(value.expr.value, int):
            return int(value.expr.value)
        c = launch.host.canonical(value.expr)
        if isinstance(c, ir.Const) and isinstance(c.value, int):
            return int(c.value)
    raise launch.error(
        node,
        "a block size of this descriptor is passed to the kernel as no tl.constexpr parameter",
        "pass the descriptor's block sizes to the "
        "kernel as tl.constexpr parameters (or set them in the autotune "
        "config's pre_hook)",
    )


def block_shape_hook(fn: cst.FunctionDef, info: ModuleInfo) -> dict[str, tuple[af.Key, ...]]:
    """Descriptor parameter -> block keys, from a config ``pre_hook`` that sets block shapes."""
    params = fn.params.params
    if len(params) != 1:
        raise TranslationError(
            "a config pre_hook takes one argument (the launch's nargs)", info.locate(fn), _HOOK_HINT
        )
    nargs = params[0].name.value
    local: dict[str, af.Key] = {}
    out: dict[str, tuple[af.Key, ...]] = {}

    def key_of(node: cst.BaseExpression) -> af.Key | None:
        if isinstance(node, cst.Integer):
            return int(node.evaluated_value)
        if isinstance(node, cst.Name):
            return local.get(node.value)
        return _narg(node, nargs)

    body = list(fn.body.body) if isinstance(fn.body, cst.IndentedBlock) else [fn.body]
    if fn.get_docstring() is not None:
        body = body[1:]
    for stmt in body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            raise TranslationError(
                "unsupported statement in a config pre_hook", info.locate(stmt), _HOOK_HINT
            )
        for small in stmt.body:
            if isinstance(small, cst.Pass):
                continue
            if not (isinstance(small, cst.Assign) and len(small.targets) == 1):
                raise TranslationError(
                    "unsupported statement in a config pre_hook", info.locate(small), _HOOK_HINT
                )
            target, value = small.targets[0].target, small.value
            if isinstance(target, cst.Name):
                key = _narg(value, nargs)
                if key is None:
                    raise TranslationError(
                        "a pre_hook variable must read a meta-parameter "
                        f'(`{target.value} = {nargs}["BLOCK_M"]`)',
                        info.locate(small),
                        _HOOK_HINT,
                    )
                local[target.value] = key
                continue
            desc = (
                _narg(target.value, nargs)
                if isinstance(target, cst.Attribute) and (target.attr.value == "block_shape")
                else None
            )
            keys = (
                [key_of(el.value) for el in value.elements]
                if isinstance(value, (cst.List, cst.Tuple))
                else None
            )
            if desc is None or keys is None or any(k is None for k in keys):
                raise TranslationError(
                    "unsupported assignment in a config pre_hook", info.locate(small), _HOOK_HINT
                )
            out[str(desc)] = tuple(k for k in keys if k is not None)
    return out


def _narg(node: cst.BaseExpression, nargs: str) -> str | None:
    """``nargs["NAME"]`` -> ``"NAME"``."""
    if (
        isinstance(node, cst.Subscript)
        and isinstance(node.value, cst.Name)
        and (
            node.value.value == nargs
            and len(node.slice) == 1
            and isinstance(node.slice[0].slice, cst.Index)
        )
    ):
        key = _literal(node.slice[0].slice.value)
        return key if isinstance(key, str) else None
    return None
