"""Statements, decorators and sequence entries: :class:`_DocBuilder` builds the document of
one logical line (assignments, ``return``, ``assert``, ``raise``, expression statements,
``if``/``elif``/``while``/``for`` headers, ``def`` headers)."""

from __future__ import annotations

import ast

from translator.dialects.common.formatting.builder import PARENTHESIZED, _Unsupported
from translator.dialects.common.formatting.document import _will_break
from translator.dialects.common.formatting.expressions import (
    _BINARY,
    BEST_FIT,
    IF_BREAKS,
    IF_BREAKS_PARENTHESIZED,
    NEVER,
    OPTIONAL,
    _CompoundExpressions,
)
from translator.dialects.common.formatting.predicates import _has_parameters


class _DocBuilder(_CompoundExpressions):
    """Builds the document of one statement, decorator or sequence entry."""

    def statement(self, node: ast.AST, kind: str) -> None:
        self.mark_bare_generators(node)
        if kind == "decorator":
            self.token("@")
            self.maybe_parenthesize(node, None, OPTIONAL)
        elif kind == "entry":
            # One entry of an exploded (magic trailing comma) bracket: the brackets are expanded.
            with self.at_level(PARENTHESIZED):
                self.argument(node)()
                self.token(",")
        elif isinstance(node, ast.Assign):
            self.assign(node)
        elif isinstance(node, ast.AugAssign):
            self.aug_assign(node)
        elif isinstance(node, ast.AnnAssign):
            self.ann_assign(node)
        elif isinstance(node, ast.Return):
            self.token("return")
            value = node.value
            if isinstance(value, ast.Tuple):
                self.space()
                self.tuple_(value, "optional")
            elif value is not None:
                self.space()
                if isinstance(value, ast.Lambda):
                    self.assignment_lambda = value
                self.last_expression(value, node)
        elif isinstance(node, ast.Expr):
            value = node.value
            if isinstance(value, ast.BinOp) and isinstance(
                value.op, (ast.BitOr, ast.BitXor, ast.LShift, ast.RShift, ast.Add, ast.Sub)
            ):
                self.maybe_parenthesize(value, node, OPTIONAL)
            else:
                self.expr(value)
        elif isinstance(node, ast.Assert):
            self.token("assert")
            self.space()
            self.maybe_parenthesize(node.test, node, IF_BREAKS)
            if node.msg is not None:
                self.token(",")
                self.space()
                self.maybe_parenthesize(node.msg, node, IF_BREAKS_PARENTHESIZED)
        elif isinstance(node, ast.Raise):
            self.token("raise")
            if node.exc is not None:
                self.space()
                self.maybe_parenthesize(node.exc, node, OPTIONAL)
            if node.cause is not None:
                self.space()
                self.token("from")
                self.space()
                self.maybe_parenthesize(node.cause, node, OPTIONAL)
        elif kind == "statement" and isinstance(node, ast.stmt) and hasattr(node, "body"):
            raise _Unsupported("compound statement with its body on the same line")
        elif isinstance(node, (ast.If, ast.While)):
            keyword = "elif" if kind == "elif" else "if" if isinstance(node, ast.If) else "while"
            self.token(keyword)
            self.space()
            self.maybe_parenthesize(node.test, node, IF_BREAKS)
            self.token(":")
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            self.for_header(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.function_header(node)
        else:
            raise _Unsupported(type(node).__name__)

    def assign(self, node: ast.Assign) -> None:
        first, rest = node.targets[0], node.targets[1:]
        if isinstance(node.value, ast.Lambda):
            self.assignment_lambda = node.value
        if rest:
            self.expr(first)
            self.equals("=")
            for target in rest[:-1]:
                if self.should_parenthesize_target(target):
                    self.parenthesize_if_expands(lambda target=target: self.expr(target, NEVER))
                else:
                    self.expr(target, NEVER)
                self.equals("=")
            self.right_to_left(rest[-1], "=", node.value, node)
        elif self.has_target_own_parentheses(first) and not self.paren(first):
            self.right_to_left(first, "=", node.value, node)
        else:
            self.expr(first)
            self.equals("=")
            self.last_expression(node.value, node)

    def aug_assign(self, node: ast.AugAssign) -> None:
        operator = _BINARY[type(node.op)][0] + "="
        if isinstance(node.value, ast.Lambda):
            self.assignment_lambda = node.value
        if self.has_target_own_parentheses(node.target) and not self.paren(node.target):
            self.right_to_left(node.target, operator, node.value, node)
        else:
            self.expr(node.target)
            self.equals(operator)
            self.last_expression(node.value, node)

    def ann_assign(self, node: ast.AnnAssign) -> None:
        if isinstance(node.value, ast.Lambda):
            self.assignment_lambda = node.value
        self.expr(node.target)
        self.token(":")
        self.space()
        if node.value is None:
            self.last_expression(node.annotation, node)
        elif self.is_splittable(node.annotation):
            self.right_to_left(node.annotation, "=", node.value, node)
        else:
            self.expr(node.annotation, NEVER)
            self.equals("=")
            self.last_expression(node.value, node)

    def is_splittable(self, node: ast.AST) -> bool:
        """ruff's ``is_splittable_expression``: the expression has split points of its own."""
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return bool(node.elts)
        if isinstance(node, ast.Dict):
            return bool(node.keys)
        if isinstance(node, ast.UnaryOp):
            return self.is_splittable(node.operand)
        if isinstance(node, ast.Call):
            return bool(node.args or node.keywords) or self.paren(node.func)
        if isinstance(node, (ast.Lambda, ast.Starred, ast.Attribute)):
            inner = node.body if isinstance(node, ast.Lambda) else node.value
            return self.paren(inner) or self.is_splittable(inner)
        return isinstance(
            node,
            (ast.Compare, ast.BinOp, ast.BoolOp, ast.IfExp, ast.GeneratorExp, ast.Subscript)
            + (ast.ListComp, ast.SetComp, ast.DictComp, ast.Await, ast.YieldFrom),
        )

    def equals(self, operator: str) -> None:
        self.space()
        self.token(operator)
        self.space()

    def has_target_own_parentheses(self, target: ast.AST) -> bool:
        return isinstance(target, ast.Tuple) or self.has_own_parentheses(target) is not None

    def should_parenthesize_target(self, target: ast.AST) -> bool:
        return not (
            self.has_target_own_parentheses(target)
            or self.attribute_with_parenthesized_value(target)
        )

    def attribute_with_parenthesized_value(self, target: ast.AST) -> bool:
        if isinstance(target, ast.Attribute):
            return self.has_parentheses(
                target.value
            ) is not None or self.attribute_with_parenthesized_value(target.value)
        if isinstance(target, ast.Subscript):
            return True
        if isinstance(target, ast.Call):
            return bool(target.args or target.keywords)
        return False

    def inlines_comments(self, value: ast.AST) -> bool:
        """ruff's ``should_inline_comments``: names and constants (the unsplittable values)."""
        return isinstance(value, (ast.Name, ast.Constant, ast.JoinedStr))

    def last_expression(self, value: ast.AST, statement: ast.AST) -> None:
        """``FormatStatementsLastExpression::LeftToRight``."""
        if self.inlines_comments(value):
            # Parenthesize the value only if that makes it fit.
            self.best_fit_parenthesize(lambda: self.expr(value, NEVER), self.new_id())
        else:
            self.maybe_parenthesize(value, statement, IF_BREAKS)

    def right_to_left(self, target: ast.AST, operator: str, value: ast.AST, statement) -> None:
        """``FormatStatementsLastExpression::RightToLeft``: prefer parenthesizing the value
        over splitting the target."""
        best_fit = (
            isinstance(value, (ast.Attribute, ast.Call, ast.Subscript))
            and self.needs_parentheses(value, statement) == BEST_FIT
        )
        if not self.inlines_comments(value) and not best_fit:
            self.before_operator(target)
            self.equals(operator)
            self.maybe_parenthesize(value, statement, IF_BREAKS)
            return
        last_target, target_elements = self.memoized(lambda: self.before_operator(target))
        if _will_break(target_elements):
            last_target()
            self.equals(operator)
            self.expr(value, NEVER)
            return
        format_value, _ = self.memoized(lambda: self.expr(value, NEVER))

        def single_line() -> None:
            last_target()
            self.equals(operator)
            format_value()

        def flat_target_parenthesize_value() -> None:
            last_target()
            self.equals(operator)
            self.token("(")
            self.group(lambda: self.soft_block_indent(format_value), expand=True)
            self.token(")")

        def split_target_flat_value() -> None:
            self.group(last_target, expand=True)
            self.equals(operator)
            format_value()

        if isinstance(value, (ast.Call, ast.Subscript, ast.Attribute)):

            def value_own_parentheses() -> None:
                last_target()
                self.equals(operator)
                self.group(format_value, expand=True)

            variants = [single_line, value_own_parentheses]
        else:
            variants = [single_line]
        self.best_fitting([*variants, flat_target_parenthesize_value, split_target_flat_value])

    def before_operator(self, target: ast.AST) -> None:
        if self.should_parenthesize_target(target):
            if self.can_omit_optional_parentheses(target):
                self.optional_parentheses(lambda: self.expr(target, NEVER))
            else:
                self.parenthesize_if_expands(lambda: self.expr(target, NEVER))
        else:
            self.expr(target, NEVER)

    def for_header(self, node: ast.For | ast.AsyncFor) -> None:
        if isinstance(node, ast.AsyncFor):
            self.token("async")
            self.space()
        self.token("for")
        self.space()
        if isinstance(node.target, ast.Tuple):
            self.tuple_(node.target, "never_preserve")
        else:
            self.maybe_parenthesize(node.target, node.target, IF_BREAKS)
        self.space()
        self.token("in")
        self.space()
        self.maybe_parenthesize(node.iter, node, IF_BREAKS)
        self.token(":")

    def function_header(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        if node.decorator_list or getattr(node, "type_params", None):
            raise _Unsupported("decorated or generic function")
        if isinstance(node, ast.AsyncFunctionDef):
            self.token("async")
            self.space()
        self.token("def")
        self.space()
        self.token(node.name)

        def inner() -> None:
            self.parameters(node.args)
            returns = node.returns
            if returns is None:
                return
            self.space()
            self.token("->")
            self.space()
            if isinstance(returns, ast.Tuple):
                self.expr(returns, NEVER)
            else:
                mode = IF_BREAKS if _has_parameters(node.args) else IF_BREAKS_PARENTHESIZED
                self.maybe_parenthesize(returns, node, mode)

        self.group(inner)
        self.token(":")
