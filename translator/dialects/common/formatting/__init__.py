"""Line wrapping for emitted code, producing exactly what ``ruff format`` produces.

The emitters write code one physical line at a time; :func:`wrap_lines` splits every logical line
that is wider than :data:`MAX_LINE` columns (or that carries a magic trailing comma) the way
``ruff format`` would, so that running ruff on an emitted file changes nothing.

How it works
------------
Ruff's formatter follows Black's style but not Black's implementation: instead of recursively
trying right-hand splits, it builds a document of "format elements" (text, soft line breaks,
groups, conditional content, ...) for each statement and prints it with a Prettier-style printer
that decides, group by group, whether the content fits on the rest of the line ("flat") or breaks
("expanded").  The corner cases only come out the same if the same decisions are taken, so this
package is a small port of the relevant parts of ruff (``ruff_python_formatter`` for the document,
``ruff_formatter``'s printer for the layout):

1. :func:`_parse` reads the logical line with :mod:`ast` (headers such as ``if x:`` or ``def f():``
   get a dummy body, decorators a dummy function, a line ending in ``,`` is one entry of a bracket
   the emitter already exploded).  Parentheses around nodes and magic trailing commas are found by
   looking at the characters next to the nodes, never inside strings.
2. :class:`_DocBuilder` (with its bases) writes ruff's format elements node by node.  The Black
   rules this covers, in ruff's terms:

   * right-hand side of assignments, ``return``, ``assert``, conditions: optional ("invisible")
     parentheses only if the content does not fit otherwise -- ``maybe_parenthesize_expression``
     with ``can_omit_optional_parentheses`` (Black's ``can_omit_invisible_parens``: at most one
     delimiter of the highest priority, and the expression starts or ends with a bracket), so
     ``x = a + f(...)`` splits ``f``'s brackets while ``x = a + b * c + d`` gets parentheses;
     names and constants are parenthesized only if that makes them fit (``best_fit_parenthesize``),
     subscript and tuple targets are split only after the value (``best_fitting`` variants);
   * delimiter priorities: a chain of binary operators splits before its loosest operators, all
     of them at once, keeping tighter ones together (from the loosest: conditional expression,
     ``or``/``and``, comparisons, ``|``, ``^``, ``&``, shifts, ``+ -``, ``* / // % @``, ``~``,
     ``**``); ``**`` between simple operands hugs (``x**2``);
   * brackets (calls, subscripts, lists, tuples, dicts, sets, comprehensions): first the content on
     one indented line ("hugging"), then one item per line with a trailing comma (only with more
     than one item); a magic trailing comma forces the explosion; a sole argument keeps its own
     parentheses; empty brackets never split;
   * attribute chains with two or more calls are split before the dots inside parentheses
     ("fluent" style); a call on a right-hand side splits its own brackets rather than being
     parenthesized when its opening bracket fits;
   * conditional expressions, lambdas (ruff parenthesizes long lambda bodies; an assigned lambda
     splits its body first), slices (with Black's spacing for complex bounds), unary operators,
     keyword and starred arguments, walrus, decorators, ``def`` headers (parameters, defaults,
     ``*``/``/``, return annotations), ``for``/``if``/``elif``/``while`` headers, annotated and
     augmented assignments, ``raise ... from ...``.

3. :class:`_Printer` prints the document like ruff's printer: a group is flat if everything up to
   the next line break fits in 100 columns (Unicode width), ``fits_expanded`` content is measured
   expanded, ``best_fitting`` takes the first variant that fits, conditional content follows the
   mode of the group it names, and forced breaks propagate to the enclosing groups.  Continuation
   lines are indented 4 spaces per level on top of the statement's own indentation.

Left out (such lines are returned unchanged): lines with comments (ruff moves trailing comments
into the brackets), implicitly concatenated and multi-line strings, ``await``/``yield``,
``with``/``class``/``del``/``import``/``global`` statements, PEP 695 type parameters, parameter or
dictionary-entry lines of a construct the emitter already exploded, and ruff's *preview* style.
Lines are never joined: a construct the emitter wrote over several lines stays as written.  The
result is checked by re-parsing it; if its AST differs from the input's, the input line is kept.
Lines that fit and carry no magic trailing comma are left alone (ruff keeps them too; the other
normalisations ruff does, such as quotes, are the emitters' job).

Modules
-------
One concern a module, each importing only those above it:

* :mod:`~translator.dialects.common.formatting.document`: the format elements (ruff_formatter's IR),
  :func:`_propagate_expand` and the printer (:class:`_Printer`, :class:`_Measurer`);
* :mod:`~translator.dialects.common.formatting.predicates`: facts about nodes and source text the
  builders consult (simple operands, string and bracket scanning, expression children);
* :mod:`~translator.dialects.common.formatting.builder`: the parsed line's source (:class:`_Source`)
  and the element builders and parenthesizing helpers (:class:`_Builder`);
* :mod:`~translator.dialects.common.formatting.expressions`: parenthesize modes, operator precedences
  and the expression formatters (:class:`_Expressions`, :class:`_CompoundExpressions`);
* :mod:`~translator.dialects.common.formatting.statements`: statements, decorators and sequence
  entries (:class:`_DocBuilder`);
* this module: the public API (:data:`MAX_LINE`, :func:`wrap_lines`, :func:`string_literal`,
  :func:`float_literal`) and the entry point (:func:`_format_line`).
"""

from __future__ import annotations

import ast
import io
import math
import re
import tokenize
from functools import lru_cache

from translator.dialects.common.formatting.builder import _Unsupported
from translator.dialects.common.formatting.document import (
    MAX_LINE,
    _Printer,
    _propagate_expand,
    _width,
)
from translator.dialects.common.formatting.statements import _DocBuilder


def wrap_lines(lines: list[str]) -> list[str]:
    """``lines`` with every over-long logical line split the way ``ruff format`` splits it."""
    out: list[str] = []
    for line in lines:
        if _width(line) > MAX_LINE or _may_have_magic_comma(line):
            out.extend(_format_line(line) or [line])
        else:
            out.append(line)
    return out


def string_literal(value: str) -> str:
    """``value`` as a Python string literal in double quotes (the house style of emitted code)."""
    body = repr(value)[1:-1] if "'" not in value else repr(value)[1:-1].replace("\\'", "'")
    return '"' + body.replace('"', '\\"') + '"'


def float_literal(value: float) -> str:
    """``value`` as Python source: ``repr`` except for the non-finite values, which have no
    literal (``float("-inf")``, ``float("nan")``)."""
    if math.isinf(value):
        return 'float("inf")' if value > 0 else 'float("-inf")'
    if math.isnan(value):
        return 'float("nan")'
    return repr(value)


# A comma directly before a closing bracket (outside strings): a candidate magic trailing comma.
_MAGIC_COMMA = re.compile(r",\s*[)\]}]")
_STRING = re.compile(r"""[rRbBuUfF]{0,2}("[^"\\]*(?:\\.[^"\\]*)*"|'[^'\\]*(?:\\.[^'\\]*)*')""")


def _may_have_magic_comma(line: str) -> bool:
    return "," in line and bool(_MAGIC_COMMA.search(_STRING.sub('""', line)))


# ---------------------------------------------------------------------------------------------
# Entry point: parse one logical line, build ruff's document, print it.
# ---------------------------------------------------------------------------------------------

_HEADER = re.compile(r"(async\s+def|def|if|elif|while|for|async\s+for)\b")


@lru_cache(maxsize=1024)
def _format_line(line: str) -> tuple[str, ...] | None:
    """The ruff formatting of ``line`` (one logical line), or ``None`` if unsupported. Cached:
    a module translated into several DSLs wraps its carried host lines once."""
    stripped = line.strip()
    if not stripped or _has_comment(stripped):
        return None
    indent = len(line) - len(line.lstrip())
    try:
        source, statement, kind = _parse(stripped)
        builder = _DocBuilder(source)
        builder.statement(statement, kind)
        document = builder.out
        _propagate_expand(document)
        lines = _Printer(indent).print(document)
    except (_Unsupported, SyntaxError, ValueError, KeyError, IndexError, tokenize.TokenError):
        return None
    return tuple(lines) if _same_ast(stripped, lines, indent, kind) else None


def _has_comment(text: str) -> bool:
    """Whether ``text`` holds a comment (ruff moves comments around; not supported here)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return "#" in _STRING.sub('""', text)
    return any(token.type == tokenize.COMMENT for token in tokens)


def _parse(text: str) -> tuple[str, ast.AST, str]:
    """``(source, node, kind)``: the statement (or decorator, or sequence entry) on ``text``."""
    if text.startswith("@"):
        module = ast.parse(text + "\ndef _():\n    pass\n")
        return text, module.body[0].decorator_list[0], "decorator"
    if text.endswith(":") and _HEADER.match(text):
        kind = "elif" if text.startswith("elif") else "header"
        source = "if" + text[4:] if kind == "elif" else text
        module = ast.parse(source + "\n    pass\n")
        return source, module.body[0], kind
    if text.endswith(","):
        # A line inside an exploded bracket (``    triton.Config(...),``): one sequence entry.
        # Emitted code has no bare tuple statements, so this is the only reading; other such
        # lines (parameters with annotations, dictionary entries) are not supported.
        source = "_(\n" + text + "\n)"
        call = ast.parse(source).body[0].value
        entries = [*call.args, *call.keywords]
        if len(entries) != 1:
            raise _Unsupported("several entries on one line")
        return source, entries[0], "entry"
    module = ast.parse(text)
    if len(module.body) != 1:
        raise _Unsupported
    return text, module.body[0], "statement"


def _same_ast(text: str, lines: list[str], indent: int, kind: str) -> bool:
    """Whether the wrapped ``lines`` parse to the same tree as ``text`` (a safety net)."""
    wrapped = "\n".join(line[indent:] if line.strip() else line for line in lines)
    suffix = {"decorator": "\ndef _():\n    pass\n", "header": "\n    pass\n"}.get(kind, "")
    if kind == "elif":
        text, wrapped, suffix = "if" + text[4:], "if" + wrapped[4:], "\n    pass\n"
    if kind == "entry":
        text, wrapped = "_(\n" + text + "\n)", "_(\n" + wrapped + "\n)"
    try:
        before = ast.dump(ast.parse(text + suffix))
        after = ast.dump(ast.parse(wrapped + suffix))
    except SyntaxError:
        return False
    return before == after
