"""Expressions, following ruff's node formatters: the parenthesize modes and
``needs_parentheses`` answers, operator precedences and symbols, :class:`_Expressions`
(parentheses, calls, attributes, subscripts, call chains), :class:`_CompoundExpressions`
(tuples, dictionaries, operators, conditional expressions, lambdas, slices, comprehensions,
parameters) and :class:`_CanOmitVisitor` (``can_omit_optional_parentheses``)."""

from __future__ import annotations

import ast
from collections.abc import Callable

from translator.dialects.common.formatting.builder import PARENTHESIZED, _Builder, _Unsupported
from translator.dialects.common.formatting.document import EXPAND_PARENT, HARD, _will_break
from translator.dialects.common.formatting.predicates import (
    _children,
    _count_strings,
    _has_parameters,
    _is_base_ten_number,
    _is_simple_power_operand,
    _is_simple_slice_part,
    _is_string,
)

# Parenthesize modes (ruff's ``Parenthesize``) and ``needs_parentheses`` answers.
OPTIONAL, IF_BREAKS, IF_REQUIRED = "optional", "if_breaks", "if_required"
IF_BREAKS_PARENTHESIZED, IF_BREAKS_PARENTHESIZED_NESTED = "ibp", "ibp_nested"
MULTILINE, ALWAYS, BEST_FIT, NEVER = "multiline", "always", "best_fit", "never"
PRESERVE = "preserve"

# ruff's ``OperatorPrecedence``, lowest binding last (splits happen there first).
P_NONE, P_ATTRIBUTE, P_POWER, P_INVERT, P_TERM, P_ARITH, P_SHIFT = range(7)
P_BIT_AND, P_BIT_XOR, P_BIT_OR, P_COMPARE, P_BOOL, P_CONDITIONAL = range(7, 13)

_BINARY = {
    ast.Add: ("+", P_ARITH),
    ast.Sub: ("-", P_ARITH),
    ast.Mult: ("*", P_TERM),
    ast.MatMult: ("@", P_TERM),
    ast.Div: ("/", P_TERM),
    ast.Mod: ("%", P_TERM),
    ast.FloorDiv: ("//", P_TERM),
    ast.Pow: ("**", P_POWER),
    ast.LShift: ("<<", P_SHIFT),
    ast.RShift: (">>", P_SHIFT),
    ast.BitOr: ("|", P_BIT_OR),
    ast.BitXor: ("^", P_BIT_XOR),
    ast.BitAnd: ("&", P_BIT_AND),
}
_COMPARE = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
}
_UNARY = {ast.Invert: "~", ast.Not: "not", ast.UAdd: "+", ast.USub: "-"}
# Statements where a walrus must keep its parentheses.
_WALRUS_NEEDS_PARENTHESES = (
    ast.AnnAssign,
    ast.Assign,
    ast.AugAssign,
    ast.Assert,
    ast.Return,
    ast.For,
    ast.FunctionDef,
    ast.Delete,
)
_SEQUENCE_BRACKETS = {ast.List: ("[", "]"), ast.Set: ("{", "}")}


class _Expressions(_Builder):
    """Expressions, following ruff's node formatters: ``expr`` is ``FormatExpr`` (parentheses
    ``PRESERVE``/``ALWAYS``/``NEVER``), ``maybe_parenthesize`` is
    ``maybe_parenthesize_expression``, and the node methods are the nodes' ``FormatNodeRule``."""

    def __init__(self, source: str):
        super().__init__(source)
        # A lambda assigned by a statement prefers to parenthesize its own body.
        self.assignment_lambda: ast.AST | None = None

    def expr(self, node: ast.AST, parentheses: str = PRESERVE) -> None:
        """ruff's ``FormatExpr``."""
        if self.paren(node) if parentheses == PRESERVE else parentheses == ALWAYS:
            self.parenthesized("(", lambda: self.fields(node), ")")
        else:
            self.fields(node)

    def fields(self, node: ast.AST) -> None:
        """The node's own formatting (``FormatNodeRule::fmt_fields``) with default options."""
        if isinstance(node, (ast.BinOp, ast.BoolOp, ast.Compare)):
            self.binary_like(node)
        elif isinstance(node, ast.Call):
            self.call(node)
        elif isinstance(node, ast.Attribute):
            self.attribute(node)
        elif isinstance(node, ast.Subscript):
            self.subscript(node)
        elif isinstance(node, (ast.Name, ast.Constant, ast.JoinedStr)):
            self.atom(node)
        elif isinstance(node, ast.Tuple):
            self.tuple_(node)
        elif isinstance(node, (ast.List, ast.Set)):
            left, right = _SEQUENCE_BRACKETS[type(node)]
            if not node.elts:
                self.empty_parenthesized(left, right)
            else:
                entries = [(self.end(e), self.entry(e)) for e in node.elts]
                end = self.end(node)
                self.parenthesized(left, lambda: self.join_comma_separated(entries, end), right)
        elif isinstance(node, ast.Dict):
            self.dict_(node)
        elif isinstance(node, ast.UnaryOp):
            self.unary(node)
        elif isinstance(node, ast.IfExp):
            self.if_exp(node)
        elif isinstance(node, ast.Lambda):
            self.lambda_(node, "assignment" if node is self.assignment_lambda else "default")
        elif isinstance(node, ast.Starred):
            self.token("*")
            self.expr(node.value)
        elif isinstance(node, ast.NamedExpr):
            target = node.target
            self.group(
                lambda: (self.expr(target), self.in_parentheses_only_soft_line_break_or_space())
            )
            self.token(":=")
            self.space()
            self.expr(node.value)
        elif isinstance(node, ast.Slice):
            self.slice(node)
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            self.comprehension_expr(node)
        else:
            raise _Unsupported(type(node).__name__)

    def entry(self, node: ast.AST) -> Callable[[], None]:
        return lambda: self.expr(node)

    def atom(self, node: ast.AST) -> None:
        text = self.text_of(node)
        if _is_string(node) and _count_strings(text) != 1:
            raise _Unsupported("implicit concatenation")
        self.token(text)

    def needs_parentheses(self, node: ast.AST, parent: ast.AST | None) -> str:
        """ruff's ``NeedsParentheses::needs_parentheses``."""
        if isinstance(node, (ast.Call, ast.Attribute, ast.Subscript)):
            if self.is_fluent(node):
                return MULTILINE
            inner = node.func if isinstance(node, ast.Call) else node.value
            if self.paren(inner):
                return NEVER
            answer = self.needs_parentheses(inner, node)
            is_function = isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef))
            is_return_annotation = is_function and parent.returns is node
            if answer == BEST_FIT and isinstance(node, ast.Subscript) and is_return_annotation:
                # A subscript return annotation: optional parentheses only without parameters.
                return NEVER if _has_parameters(parent.args) else MULTILINE
            return answer
        if isinstance(node, (ast.Name, ast.Constant, ast.JoinedStr)):
            return BEST_FIT
        if isinstance(node, ast.UnaryOp):
            if self.paren(node.operand):
                return NEVER
            return self.needs_parentheses(node.operand, node)
        if isinstance(node, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
            return NEVER
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            return NEVER
        if isinstance(node, ast.NamedExpr) and isinstance(parent, _WALRUS_NEEDS_PARENTHESES):
            return ALWAYS
        return MULTILINE

    def maybe_parenthesize(self, node: ast.AST, parent: ast.AST | None, mode: str) -> None:
        """ruff's ``maybe_parenthesize_expression``."""
        if mode == OPTIONAL and self.paren(node):
            self.expr(node, ALWAYS)
            return
        needs = self.needs_parentheses(node, parent)
        if needs != ALWAYS and self.level is not None:
            # An enclosing pair of parentheses already allows breaking.
            if mode == IF_BREAKS_PARENTHESIZED_NESTED:
                self.parenthesize_if_expands(lambda: self.expr(node, NEVER))
            else:
                self.expr(node, NEVER)
            return

        def unparenthesized() -> None:
            self.expr(node, NEVER)

        if needs == MULTILINE:
            if mode == IF_REQUIRED:
                unparenthesized()
            elif node is self.assignment_lambda or self.can_omit_optional_parentheses(node):
                # A lambda in an assignment expands its own body first (ruff's
                # ``ExprLambdaLayout::Assignment``) and only then gets parenthesized.
                self.optional_parentheses(unparenthesized)
            else:
                self.parenthesize_if_expands(unparenthesized)
        elif needs == BEST_FIT:
            if mode in (IF_BREAKS_PARENTHESIZED, IF_BREAKS_PARENTHESIZED_NESTED):
                if self.can_omit_optional_parentheses(node):
                    self.optional_parentheses(unparenthesized)
                else:
                    self.parenthesize_if_expands(unparenthesized)
            elif mode in (OPTIONAL, IF_REQUIRED):
                unparenthesized()
            else:
                group_id = self.new_id()
                with self.at_level(group_id):
                    self.best_fit_parenthesize(unparenthesized, group_id)
        elif needs == NEVER:
            unparenthesized()
        else:
            self.expr(node, ALWAYS)

    def has_own_parentheses(self, node: ast.AST) -> str | None:
        """``None``, ``"empty"`` or ``"non_empty"`` (ruff's ``has_own_parentheses``)."""
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.Subscript)):
            return "non_empty"
        if isinstance(node, ast.GeneratorExp):
            return None if getattr(node, "_bare", False) else "non_empty"
        if isinstance(node, (ast.List, ast.Set)):
            return "non_empty" if node.elts else "empty"
        if isinstance(node, ast.Tuple) and self.tuple_parenthesized(node):
            return "non_empty" if node.elts else "empty"
        if isinstance(node, ast.Dict):
            return "non_empty" if node.keys else "empty"
        if isinstance(node, ast.Call):
            return "non_empty" if node.args or node.keywords else "empty"
        return None

    def has_parentheses(self, node: ast.AST) -> str | None:
        own = self.has_own_parentheses(node)
        if own == "non_empty":
            return own
        return "non_empty" if self.paren(node) else own

    def can_omit_optional_parentheses(self, node: ast.AST) -> bool:
        """ruff's ``can_omit_optional_parentheses`` (Black's ``can_omit_invisible_parens``)."""
        visitor = _CanOmitVisitor(self)
        visitor.visit_subexpression(node)
        if not visitor.any_parenthesized:
            return False
        if visitor.max_count > 1:
            return False
        if visitor.max_precedence in (P_NONE, P_ATTRIBUTE):
            return True

        def is_parenthesized(expression: ast.AST | None) -> bool:
            # Don't break subscripts except in parenthesized context; it looks weird.
            return (
                isinstance(expression, ast.AST)
                and not isinstance(expression, ast.Subscript)
                and self.has_parentheses(expression) == "non_empty"
            )

        return is_parenthesized(visitor.last) or is_parenthesized(visitor.first)

    def is_fluent(self, node: ast.AST) -> bool:
        """``CallChainLayout::from_expression`` is ``Fluent``: two or more attribute accesses
        on calls or subscripts (or on a parenthesized root)."""
        count = 0
        while True:
            if isinstance(node, ast.Attribute):
                value = node.value
                if self.paren(value):
                    count += 1
                    break
                if isinstance(value, (ast.Call, ast.Subscript)):
                    count += 1
                node = value
            elif isinstance(node, (ast.Call, ast.Subscript)):
                inner = node.func if isinstance(node, ast.Call) else node.value
                if self.paren(inner):
                    break
                node = inner
            else:
                break
        return count >= 2

    def chain_layout(self, layout: str, node: ast.AST) -> str:
        """``CallChainLayout::apply_in_node``."""
        if layout != "default":
            return layout
        if self.level is not None and self.is_fluent(node):
            return "fluent"
        return "non_fluent"

    def chain_value(self, value: ast.AST, layout: str) -> None:
        """Formats the value of an attribute, call or subscript in a call chain."""
        if isinstance(value, ast.Attribute):
            self.attribute(value, layout)
        elif isinstance(value, ast.Call):
            self.call(value, layout)
        elif isinstance(value, ast.Subscript):
            self.subscript(value, layout)
        else:
            self.expr(value, NEVER)

    def attribute(self, node: ast.Attribute, layout: str = "default") -> None:
        chain = self.chain_layout(layout, node)

        def inner() -> None:
            value = node.value
            parenthesize = _is_base_ten_number(value, self.text_of(value)) or self.paren(value)
            if parenthesize:
                self.expr(value, ALWAYS)
            elif chain == "fluent":
                self.chain_value(value, chain)
            else:
                self.expr(value, NEVER)
            if chain == "fluent" and (parenthesize or isinstance(value, (ast.Call, ast.Subscript))):
                self.soft()
            self.token(".")
            self.token(node.attr)

        if layout == "default" and chain == "fluent":
            self.group(inner)
        else:
            inner()

    def call(self, node: ast.Call, layout: str = "default") -> None:
        chain = self.chain_layout(layout, node)

        def inner() -> None:
            if self.paren(node.func):
                self.expr(node.func, ALWAYS)
            else:
                self.chain_value(node.func, chain)
            self.arguments(node)

        if layout == "default" and chain == "fluent":
            self.group(inner)
        else:
            inner()

    def arguments(self, node: ast.Call) -> None:
        arguments = sorted([*node.args, *node.keywords], key=self.start)
        if not arguments:
            self.empty_parenthesized("(", ")")
            return
        end = self.end(node)
        if len(node.args) == 1 and not node.keywords:
            (argument,) = node.args
            if isinstance(argument, ast.GeneratorExp):
                entries = [(self.end(argument), lambda: self.generator(argument, True))]
            else:
                parenthesized = self.single_argument_parenthesized(argument, end)
                parentheses = ALWAYS if parenthesized else NEVER
                entries = [(self.end(argument), lambda: self.expr(argument, parentheses))]
        else:
            entries = [(self.end(a), self.argument(a)) for a in arguments]
        self.parenthesized(
            "(", lambda: self.group(lambda: self.join_comma_separated(entries, end)), ")"
        )

    def argument(self, node: ast.AST) -> Callable[[], None]:
        if isinstance(node, ast.keyword):
            return lambda: self.keyword(node)
        return lambda: self.expr(node)

    def keyword(self, node: ast.keyword) -> None:
        if node.arg is None:
            self.token("**")
        else:
            self.token(node.arg)
            self.token("=")
        self.expr(node.value)

    def single_argument_parenthesized(self, argument: ast.AST, end: int) -> bool:
        index, seen = self.end(argument), False
        while index < end:
            char = self.source[index]
            index += 1
            if char in " \t\n,":
                continue
            if char != ")":
                return False
            if seen:
                return True
            seen = True
        return False

    def subscript(self, node: ast.Subscript, layout: str = "default") -> None:
        chain = self.chain_layout(layout, node)

        def inner() -> None:
            if self.paren(node.value):
                self.expr(node.value, ALWAYS)
            else:
                self.chain_value(node.value, chain)
            if isinstance(node.slice, ast.Tuple):
                self.parenthesized("[", lambda: self.tuple_(node.slice, "preserve"), "]")
            else:
                self.parenthesized("[", lambda: self.expr(node.slice), "]")

        if layout == "default" and chain == "fluent":
            self.group(inner)
        else:
            inner()


class _CompoundExpressions(_Expressions):
    """Tuples, dictionaries, operators, conditional expressions, lambdas, slices and
    comprehensions."""

    def tuple_(self, node: ast.Tuple, option: str = "default") -> None:
        elements = node.elts
        parenthesized = self.tuple_parenthesized(node)
        end = self.end(node)
        entries = [(self.end(e), self.entry(e)) for e in elements]

        def sequence() -> None:
            self.join_comma_separated(entries, end)

        if not elements:
            self.empty_parenthesized("(", ")")
        elif len(elements) == 1:
            if option == "preserve" and not parenthesized:
                self.expr(elements[0])
                if self.trailing_comma(self.end(elements[0]), end):
                    self.token(",")
            else:
                self.parenthesized("(", lambda: (self.expr(elements[0]), self.token(",")), ")")
        elif parenthesized and option != "never_preserve":
            self.parenthesized("(", sequence, ")")
        elif option == "never":
            for index, element in enumerate(elements):
                if index:
                    self.group(lambda: (self.token(","), self.space()))
                self.expr(element)
        elif option == "preserve":
            self.group(sequence)
        elif option == "never_preserve" or (option == "optional" and len(elements) == 2):
            self.optional_parentheses(sequence)
        else:
            self.parenthesize_if_expands(sequence)

    def dict_(self, node: ast.Dict) -> None:
        if not node.keys:
            self.empty_parenthesized("{", "}")
            return

        def pair(key: ast.AST | None, value: ast.AST) -> Callable[[], None]:
            if key is None:
                return lambda: self.group(lambda: (self.token("**"), self.expr(value)))
            return lambda: self.group(
                lambda: (self.expr(key), self.token(":"), self.space(), self.expr(value))
            )

        entries = [(self.end(v), pair(k, v)) for k, v in zip(node.keys, node.values)]
        end = self.end(node)
        self.parenthesized("{", lambda: self.join_comma_separated(entries, end), "}")

    def unary(self, node: ast.UnaryOp) -> None:
        self.token(_UNARY[type(node.op)])
        if isinstance(node.op, ast.Not):
            self.space()
        operand = node.operand
        if isinstance(operand, ast.BinOp) and isinstance(operand.op, ast.Pow):
            self.expr(operand, ALWAYS)
        else:
            self.expr(operand)

    def if_exp(self, node: ast.IfExp, nested: bool = False) -> None:
        def inner() -> None:
            self.expr(node.body)
            self.in_parentheses_only_soft_line_break_or_space()
            self.token("if")
            self.space()
            self.expr(node.test)
            self.in_parentheses_only_soft_line_break_or_space()
            self.token("else")
            self.space()
            orelse = node.orelse
            if isinstance(orelse, ast.IfExp) and not self.paren(orelse):
                self.if_exp(orelse, nested=True)
            else:
                self.in_parentheses_only_group(lambda: self.expr(orelse))

        if nested:
            inner()
        else:
            self.in_parentheses_only_group(inner)

    def lambda_(self, node: ast.Lambda, layout: str) -> None:
        self.token("lambda")
        if _has_parameters(node.args):
            self.space()
            # The parameters of a lambda always stay on one line.
            saved, self.remove_soft_lines = self.remove_soft_lines, True
            try:
                self.parameters(node.args, lambda_parameters=True)
            finally:
                self.remove_soft_lines = saved
        self.token(":")
        self.space()
        body = node.body

        def format_body() -> None:
            if isinstance(body, (ast.Call, ast.Subscript)):
                if self.is_fluent(body):
                    self.parenthesize_if_expands(lambda: self.expr(body, NEVER))
                    return
                content, elements = self.memoized(lambda: self.expr(body, NEVER))
                if _will_break(elements):
                    self.out.append(EXPAND_PARENT)
                self.best_fitting(
                    [
                        content,
                        lambda: self.group(content, expand=True),
                        lambda: (self.token("("), self.block_indent(content), self.token(")")),
                    ]
                )
            elif self.has_own_parentheses(body) is not None:
                self.expr(body)
            else:
                self.parenthesize_if_expands(lambda: self.expr(body, NEVER))

        if layout == "assignment":
            self.fits_expanded(format_body)
        else:
            format_body()

    def slice(self, node: ast.Slice) -> None:
        lower, upper, step = node.lower, node.upper, node.step
        simple = all(part is None or _is_simple_slice_part(part) for part in (lower, upper, step))
        end = self.end(node)
        after_upper = self.end(upper) if upper is not None else None
        if lower is not None:
            self.expr(lower)
            if not simple:
                self.space()
        self.token(":")
        if upper is not None:
            if not simple:
                self.space()
            self.expr(upper)
        else:
            first_colon = self.source.index(":", self.end(lower) if lower else self.start(node))
            after_upper = first_colon + 1
        if self.next_char(after_upper, " \t\n)") == ":" and after_upper < end:
            if not simple and (upper is not None or step is None):
                self.space()
            self.token(":")
            if step is not None:
                if not simple:
                    self.space()
                self.expr(step)

    def comprehension_expr(self, node: ast.AST) -> None:
        if isinstance(node, ast.GeneratorExp):
            self.generator(node, False)
            return
        left, right = {ast.ListComp: "[]", ast.SetComp: "{}", ast.DictComp: "{}"}[type(node)]
        self.parenthesized(left, lambda: self.group(lambda: self.comprehension_body(node)), right)

    def generator(self, node: ast.GeneratorExp, preserve: bool) -> None:
        if preserve and getattr(node, "_bare", False):
            self.comprehension_body(node)
        else:
            self.parenthesized("(", lambda: self.group(lambda: self.comprehension_body(node)), ")")

    def comprehension_body(self, node: ast.AST) -> None:
        if isinstance(node, ast.DictComp):
            self.group(
                lambda: (
                    self.expr(node.key),
                    self.token(":"),
                    self.space(),
                    self.expr(node.value),
                )
            )
        else:
            self.group(lambda: self.expr(node.elt))
        for generator in node.generators:
            self.soft_or_space()
            self.comprehension(generator)

    def comprehension(self, node: ast.comprehension) -> None:
        if node.is_async:
            self.token("async")
            self.space()
        self.token("for")
        self.space()
        if isinstance(node.target, ast.Tuple):
            self.tuple_(node.target, "never")
        else:
            self.expr(node.target)
        self.space()
        self.token("in")
        self.space()
        self.expr(node.iter)
        for condition in node.ifs:
            self.soft_or_space()
            self.token("if")
            self.space()
            self.expr(condition)

    # -- binary-like expressions (expression/binary_like.rs) ----------------------------------------

    def binary_like(self, node: ast.AST) -> None:
        parts: list = []
        self.flatten(node, parts)
        self.in_parentheses_only_group(lambda: self.binary_slice(parts))

    def flatten(self, node: ast.AST, parts: list) -> None:
        """Operands at even and ``(symbol, precedence)`` operators at odd indices."""
        if isinstance(node, ast.BinOp):
            self.flatten_operand(node.left, parts)
            parts.append(_BINARY[type(node.op)])
            self.flatten_operand(node.right, parts)
        elif isinstance(node, ast.Compare):
            self.flatten_operand(node.left, parts)
            for operator, comparator in zip(node.ops, node.comparators):
                parts.append((_COMPARE[type(operator)], P_COMPARE))
                self.flatten_operand(comparator, parts)
        else:
            symbol = "and" if isinstance(node.op, ast.And) else "or"
            for index, value in enumerate(node.values):
                if index:
                    parts.append((symbol, P_BOOL))
                self.flatten_operand(value, parts)

    def flatten_operand(self, node: ast.AST, parts: list) -> None:
        if isinstance(node, (ast.BinOp, ast.Compare, ast.BoolOp)) and not self.paren(node):
            self.flatten(node, parts)
        else:
            parts.append(node)

    def binary_slice(self, parts: list) -> None:
        """Splits before the lowest-precedence operators, all of them or none."""
        if len(parts) == 1:
            self.operand(parts[0])
            return
        lowest = max(parts[index][1] for index in range(1, len(parts), 2))
        last = -1
        for index in range(1, len(parts), 2):
            symbol, precedence = parts[index]
            if precedence != lowest:
                continue
            left, right = parts[last + 1 : index], parts[index + 1 :]
            is_pow = symbol == "**" and self.simple_power(left[-1], right[0])
            self.binary_side(left)
            if is_pow:
                self.in_parentheses_only_soft_line_break()
            else:
                self.in_parentheses_only_soft_line_break_or_space()
            self.token(symbol)
            if is_pow:
                self.in_parentheses_only_if_group_breaks(self.space)
            else:
                self.space()
            last = index
        self.binary_side(parts[last + 1 :])

    def binary_side(self, parts: list) -> None:
        if len(parts) == 1:
            self.operand(parts[0])
        else:
            self.in_parentheses_only_group(lambda: self.binary_slice(parts))

    def operand(self, node: ast.AST) -> None:
        self.expr(node, ALWAYS if self.paren(node) else NEVER)

    def simple_power(self, left: ast.AST, right: ast.AST) -> bool:
        return (
            _is_simple_power_operand(left)
            and _is_simple_power_operand(right)
            and not self.paren(left)
            and not self.paren(right)
        )

    # -- parameters (other/parameters.rs) -----------------------------------------------------------

    def parameters(self, args: ast.arguments, lambda_parameters: bool = False) -> None:
        entries: list[Callable[[], None]] = []
        last_end: int | None = None
        positional = [*args.posonlyargs, *args.args]
        defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
        for index, (parameter, default) in enumerate(zip(positional, defaults)):
            entries.append(self.parameter(parameter, default))
            last_end = self.end(default if default is not None else parameter)
            if args.posonlyargs and index == len(args.posonlyargs) - 1:
                entries.append(lambda: self.token("/"))
        if args.vararg is not None:
            entries.append(self.star_parameter("*", args.vararg))
            last_end = self.end(args.vararg)
        elif args.kwonlyargs:
            entries.append(lambda: self.token("*"))
        for parameter, default in zip(args.kwonlyargs, args.kw_defaults):
            entries.append(self.parameter(parameter, default))
            last_end = self.end(default if default is not None else parameter)
        if args.kwarg is not None:
            entries.append(self.star_parameter("**", args.kwarg))
            last_end = self.end(args.kwarg)
        magic = last_end is not None and self.trailing_comma(last_end, len(self.source))

        def inner() -> None:
            for index, entry in enumerate(entries):
                if index:
                    self.token(",")
                    if self.level is not None:
                        self.soft_or_space()
                    else:
                        self.space()
                entry()
            if lambda_parameters:
                if magic:
                    self.token(",")
            else:
                self.if_group_breaks(lambda: self.token(","))
                if magic:
                    self.out.append(HARD)

        count = len(positional) + len(args.kwonlyargs) + (args.vararg is not None)
        count += args.kwarg is not None
        if lambda_parameters:
            self.group(inner)
            return
        with self.at_level(PARENTHESIZED):
            if count == 0:
                self.empty_parenthesized("(", ")")
            elif count == 1 and not args.posonlyargs and not args.kwonlyargs:
                self.token("(")
                self.soft_block_indent(inner)
                self.token(")")
            else:
                self.token("(")
                self.soft_block_indent(lambda: self.group(inner))
                self.token(")")

    def parameter(self, parameter: ast.arg, default: ast.AST | None) -> Callable[[], None]:
        def fmt() -> None:
            self.token(parameter.arg)
            if parameter.annotation is not None:
                self.token(":")
                self.space()
                self.expr(parameter.annotation)
            if default is not None:
                if parameter.annotation is not None:
                    self.space()
                    self.token("=")
                    self.space()
                else:
                    self.token("=")
                self.expr(default)

        return fmt

    def star_parameter(self, star: str, parameter: ast.arg) -> Callable[[], None]:
        def fmt() -> None:
            self.token(star)
            self.token(parameter.arg)
            if parameter.annotation is not None:
                self.token(":")
                self.space()
                self.expr(parameter.annotation)

        return fmt


class _CanOmitVisitor:
    """``CanOmitOptionalParenthesesVisitor``: the highest-precedence unparenthesized operator
    (and how often it occurs), and the first and last sub-expressions."""

    def __init__(self, builder: _Expressions):
        self.builder = builder
        self.max_precedence = P_NONE
        self.max_count = 0
        self.any_parenthesized = False
        self.last: ast.AST | None = None
        self.first: ast.AST | str | None = None

    def update(self, precedence: int, count: int = 1) -> None:
        if precedence > self.max_precedence:
            self.max_precedence, self.max_count = precedence, count
        elif precedence == self.max_precedence:
            self.max_count += count

    def visit_expr(self, node: ast.AST) -> None:
        self.last = node
        if self.builder.paren(node):
            self.any_parenthesized = True
        else:
            self.visit_subexpression(node)
        if self.first is None:
            self.first = node

    def visit_subexpression(self, node: ast.AST) -> None:
        builder = self.builder
        if isinstance(node, (ast.Dict, ast.List, ast.Set, ast.ListComp, ast.SetComp, ast.DictComp)):
            self.any_parenthesized = True
            return
        if isinstance(node, ast.Tuple) and builder.tuple_parenthesized(node):
            self.any_parenthesized = True
            return
        if isinstance(node, ast.GeneratorExp) and not getattr(node, "_bare", False):
            self.any_parenthesized = True
            return
        if isinstance(node, ast.BoolOp):
            self.update(P_BOOL, len(node.values) - 1)
        elif isinstance(node, ast.BinOp):
            self.update(_BINARY[type(node.op)][1])
        elif isinstance(node, ast.IfExp):
            self.update(P_CONDITIONAL, 2)
        elif isinstance(node, ast.Compare):
            self.update(P_COMPARE, len(node.ops))
        elif isinstance(node, (ast.Call, ast.Subscript)):
            self.any_parenthesized = True
            self.visit_expr(node.func if isinstance(node, ast.Call) else node.value)
            self.last = node
            return
        elif isinstance(node, ast.Attribute):
            self.visit_expr(node.value)
            if builder.has_parentheses(node.value) is not None:
                self.update(P_ATTRIBUTE)
            self.last = node
            return
        elif isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.Invert):
                self.update(P_INVERT)
            if self.first is None:
                self.first = "token"
        elif isinstance(node, (ast.Lambda, ast.Await, ast.Yield, ast.YieldFrom, ast.Starred)):
            if self.first is None:
                self.first = "token"
        elif isinstance(node, (ast.Constant, ast.Name, ast.JoinedStr, ast.Slice)):
            return
        for child in _children(node):
            self.visit_expr(child)
