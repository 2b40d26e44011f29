"""Launch keywords the host collects in a dict and unpacks into a launch (``**kernel_args``).

Liger's kernels launch as ``kernel[grid](..., num_warps=num_warps, **kernel_args)``, where
``kernel_args = {}`` gains ``"BLOCK_ROW"`` in one branch and an Intel-GPU knob in an ``if
X.device.type == "xpu":`` branch. The host model keeps such a dict as
:class:`~translator.dialects.triton.host_values.HKwargs` (a literal, ``d["key"] = v``,
``d.update(...)``); a launch unpacks the entries it holds there. Where the function does
anything else with the dict (passes it to a helper outside another backend's branch, deletes
from it), its contents are unknown and the launch is refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from translator.dialects.triton.host_values import HKwargs, HScalar, HStatic

if TYPE_CHECKING:
    from translator.dialects.triton.frontend_launch import Launch

#: The device types of other backends' branches (``if x.device.type == "xpu":``): code there
#: never runs on the CUDA GPUs every target DSL runs on.
_CUDA_DEVICE_TYPES = ("cuda",)


def unpacked_keywords(launch: Launch, arg: cst.Arg) -> dict[str, cst.BaseExpression]:
    """The keyword arguments ``**name`` passes at ``launch``: each entry's value node."""
    name = arg.value.value if isinstance(arg.value, cst.Name) else None
    value = launch.host.scope.get(name) if name is not None else None
    if not isinstance(value, HKwargs):
        raise launch.error(
            arg,
            f"`**{source_of_arg(arg)}` in a launch: tiletrans follows only a dict of launch "
            "keywords the function builds itself (a literal, `d['KEY'] = v`, `d.update(...)`)",
            "pass the keywords explicitly",
        )
    fn = _enclosing_function(launch.host.info.module, launch.node)
    foreign = _foreign_uses(fn, name, launch.node) if fn is not None else []
    if foreign:
        use = foreign[0]
        raise launch.error(
            use,
            f"`{name}` is changed by `{launch.host.src(use).strip()}`, which tiletrans cannot "
            f"follow to this launch, so the keywords `**{name}` passes are unknown",
            f"set the keywords with `{name}['KEY'] = value` before the launch, in its block or "
            "one around it, or pass them explicitly",
        )
    out: dict[str, cst.BaseExpression] = {}
    for key, node, recorded in value.entries:
        now = launch.host.hval(node)
        # Values compared by what they are (two opaque values of one reason are not one).
        same = now == recorded if isinstance(recorded, (HScalar, HStatic)) else now is recorded
        if not same:
            raise launch.error(
                node,
                f"`{name}['{key}']` was set from `{launch.host.src(node)}`, which has changed "
                "by the launch",
                "set the entry just before the launch",
            )
        out[key] = node
    return out


def source_of_arg(arg: cst.Arg) -> str:
    return cst.Module([]).code_for_node(arg.value)


def _enclosing_function(module: cst.Module, node: cst.CSTNode) -> cst.FunctionDef | None:
    """The innermost function of ``module`` whose body holds ``node``."""
    found: list[cst.FunctionDef] = []

    def visit(current: cst.CSTNode, stack: tuple[cst.FunctionDef, ...]) -> bool:
        if current is node:
            if stack:
                found.append(stack[-1])
            return True
        if isinstance(current, cst.FunctionDef):
            stack = (*stack, current)
        return any(visit(child, stack) for child in current.children)

    visit(module, ())
    return found[0] if found else None


def _other_backend(test: cst.BaseExpression) -> bool:
    """Whether ``test`` is ``<x>.device.type == "<not cuda>"`` (either side)."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return False
    if not isinstance(test.comparisons[0].operator, cst.Equal):
        return False
    sides = (test.left, test.comparisons[0].comparator)
    for a, b in (sides, sides[::-1]):
        if (
            isinstance(a, cst.Attribute)
            and a.attr.value == "type"
            and isinstance(a.value, cst.Attribute)
            and a.value.attr.value == "device"
            and isinstance(b, cst.SimpleString)
            and b.evaluated_value not in _CUDA_DEVICE_TYPES
        ):
            return True
    return False


def _foreign_uses(fn: cst.FunctionDef, name: str, launch: cst.CSTNode) -> list[cst.CSTNode]:
    """Uses of ``name`` in ``fn`` that a dict of launch keywords does not model, outside
    another backend's branches: anything but setting entries as statements of their own
    (``d = {...}``, ``d["K"] = v``, ``d.update(...)``); entries set in a block the launch is
    not in (a branch the launch does not follow, whose entries it may or may not get); entries
    set inside a loop around the launch (an earlier iteration's are seen); and any use inside
    a nested function or lambda (it may run at any time)."""
    out: list[cst.CSTNode] = []
    holds: dict[int, bool] = {}

    def is_name(node: cst.CSTNode) -> bool:
        return isinstance(node, cst.Name) and node.value == name

    def reaches_launch(block: cst.CSTNode) -> bool:
        if id(block) not in holds:
            holds[id(block)] = _holds(block, launch)
        return holds[id(block)]

    def setting(node: cst.CSTNode, block: cst.CSTNode, dead: bool, looped: bool) -> None:
        if not dead and (looped or not reaches_launch(block)):
            out.append(node)

    def visit(node: cst.CSTNode, block: cst.CSTNode, dead: bool, looped: bool = False) -> None:
        if isinstance(node, cst.IndentedBlock):
            block = node
        if isinstance(node, (cst.Lambda, cst.FunctionDef)):
            # Code that may run at any time: every use of the dict there is unknown.
            if _uses(node, name) and not dead:
                out.append(node)
            return
        if isinstance(node, cst.BaseSmallStatement):
            statement[0] = node.value if isinstance(node, cst.Expr) else node
        if isinstance(node, cst.If):
            # A branch beside the one the launch is in never runs before it in one call (in
            # one iteration: in a loop around the launch, an earlier iteration may take it).
            branches = _branches(node)
            taken = [reaches_launch(body) for _, body in branches]
            for (test, body), holds_launch in zip(branches, taken):
                if test is not None:
                    visit(test, block, dead, looped)
                other = any(taken) and not holds_launch and not looped
                backend = test is not None and _other_backend(test)
                visit(body, block, dead or other or backend, looped)
            return
        if isinstance(node, (cst.For, cst.While)) and reaches_launch(node):
            looped = True
        if isinstance(node, cst.Assign) and len(node.targets) == 1:
            target = node.targets[0].target
            if is_name(target) and isinstance(node.value, cst.Dict):
                setting(node, block, dead, looped)
                visit(node.value, block, dead, looped)
                return
            if isinstance(target, cst.Subscript) and is_name(target.value):
                setting(node, block, dead, looped)
                visit(node.value, block, dead, looped)
                return
        if (
            isinstance(node, cst.Expr)
            and isinstance(node.value, cst.Call)
            and isinstance(node.value.func, cst.Attribute)
            and node.value.func.attr.value == "update"
            and is_name(node.value.func.value)
        ):
            statement[0] = node.value
            setting(node.value, block, dead, looped)
            for arg in node.value.args:
                visit(arg, block, dead, looped)
            return
        if isinstance(node, cst.Arg) and node.star == "**" and is_name(node.value):
            return
        if is_name(node):
            if not dead:
                out.append(statement[0] or node)
            return
        for child in node.children:
            visit(child, block, dead, looped)

    statement: list[cst.CSTNode | None] = [None]  # the statement being read (for diagnostics)
    visit(fn.body, fn.body, False)
    return out


def _uses(node: cst.CSTNode, name: str) -> list[cst.CSTNode]:
    """The ``Name`` nodes of ``name`` under ``node``."""
    if isinstance(node, cst.Name):
        return [node] if node.value == name else []
    return [u for child in node.children for u in _uses(child, name)]


def _branches(node: cst.If) -> list[tuple[cst.BaseExpression | None, cst.CSTNode]]:
    """``(test, body)`` of each branch of an ``if``/``elif``/``else`` chain (``None``: else)."""
    out: list[tuple[cst.BaseExpression | None, cst.CSTNode]] = []
    branch: cst.If | cst.Else | None = node
    while branch is not None:
        if isinstance(branch, cst.If):
            out.append((branch.test, branch.body))
            branch = branch.orelse
        else:
            out.append((None, branch.body))
            branch = None
    return out


def _holds(block: cst.CSTNode, node: cst.CSTNode) -> bool:
    """Whether ``node`` is ``block`` or inside it."""
    return block is node or any(_holds(child, node) for child in block.children)
