"""Facts about AST nodes and source text that the builders consult: parameters, strings and
simple operands, base-ten numbers, the bracket closing an opening one, the expression
children of a node (ruff's ``walk_expr``).  Plain functions of the node or text."""

from __future__ import annotations

import ast
import io
import tokenize


def _children(node: ast.AST) -> list[ast.AST]:
    """The expression children of ``node`` in source order (ruff's ``walk_expr``)."""
    if isinstance(node, ast.IfExp):
        return [node.body, node.test, node.orelse]
    if isinstance(node, ast.Lambda):
        args = node.args
        defaults = [d for d in [*args.defaults, *args.kw_defaults] if d is not None]
        return [*defaults, node.body]
    if isinstance(node, ast.GeneratorExp):
        children = [node.elt]
        for generator in node.generators:
            children += [generator.target, generator.iter, *generator.ifs]
        return children
    return [child for child in ast.iter_child_nodes(node) if isinstance(child, ast.expr)]


def _has_parameters(args: ast.arguments) -> bool:
    return bool(args.posonlyargs or args.args or args.vararg or args.kwonlyargs or args.kwarg)


def _is_string(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (str, bytes))
    return isinstance(node, ast.JoinedStr)


def _count_strings(text: str) -> int:
    """How many string literals ``text`` (the source of a string expression) consists of."""
    count, index = 0, 0
    while index < len(text):
        char = text[index]
        if char.isspace():
            index += 1
            continue
        while index < len(text) and text[index] not in "\"'":
            index += 1
        quote = (
            text[index : index + 3] if text[index : index + 3] in ('"""', "'''") else text[index]
        )
        index += len(quote)
        while index < len(text) and not text.startswith(quote, index):
            index += 2 if text[index] == "\\" else 1
        index += len(quote)
        count += 1
    return count


def _closing_bracket(text: str) -> int:
    """The index of the bracket closing the one ``text`` starts with (strings are skipped)."""
    depth = 0
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.OP and token.string in "([{":
            depth += 1
        elif token.type == tokenize.OP and token.string in ")]}":
            depth -= 1
            if depth == 0:
                return offsets[token.start[0] - 1] + token.start[1]
    return -1


def _is_base_ten_number(node: ast.AST, text: str) -> bool:
    if not isinstance(node, ast.Constant) or isinstance(node.value, bool):
        return False
    if isinstance(node.value, float):
        return True
    return isinstance(node.value, int) and text[:2].lower() not in ("0x", "0o", "0b")


def _is_simple_power_operand(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp):
        return not isinstance(node.op, ast.Not) and _is_simple_power_operand(node.operand)
    if isinstance(node, ast.Constant):
        return not isinstance(node.value, (str, bytes))
    if isinstance(node, ast.Name):
        return True
    if isinstance(node, ast.Attribute):
        return _is_simple_power_operand(node.value)
    return False


def _is_simple_slice_part(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp) and not isinstance(node.op, ast.Not):
        return _is_simple_slice_part(node.operand)
    return isinstance(node, (ast.Constant, ast.Name))
