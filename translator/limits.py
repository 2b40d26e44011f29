"""Up-front limits on what the translator parses: nesting depth and expression length.

libcst's parser and position provider, and the frontends' visitors, recurse once per nesting
level and per operator of a chain: a 400-term sum exhausts Python's recursion limit and 1,500
nested parentheses crash libcst's native parser. :func:`check_limits` reads the source with the
standard :mod:`tokenize` module (iterative, no recursion) before anything else parses it and
refuses past these limits with a located diagnostic. No real kernel comes near them.
"""

from __future__ import annotations

import io
import tokenize

from translator.diagnostics import TranslationError
from translator.ir.loc import Loc

#: Brackets (``(``, ``[``, ``{``) open at once.
MAX_NESTING = 40
#: Indented blocks open at once.
MAX_INDENT = 30
#: Operators in one logical line (statement), e.g. the ``+`` of ``a + b + c``.
MAX_OPERATORS = 150
#: Tokens in one logical line.
MAX_TOKENS = 4000

_OPEN = frozenset("([{")
_CLOSE = frozenset(")]}")
_NOT_OPERATORS = _OPEN | _CLOSE | {",", ":", ".", ";", "=", "->", "@"}


def check_limits(source: str, path: str) -> None:
    """Refuse ``source`` (a file called ``path``) if it nests or chains past the limits above,
    or if it does not tokenize (a located syntax error); return ``None`` otherwise."""
    if "\0" in source:
        line = source.count("\n", 0, source.index("\0")) + 1
        raise TranslationError(
            "the file holds a null byte", Loc(path, line, 0), "is this a Python source file?"
        )
    depth = indent = operators = tokens = 0
    readline = io.StringIO(source).readline
    try:
        for tok in tokenize.generate_tokens(readline):
            kind, text, (line, col) = tok.type, tok.string, tok.start
            if kind == tokenize.INDENT:
                indent += 1
                if indent > MAX_INDENT:
                    _refuse(path, line, col, f"blocks nested more than {MAX_INDENT} deep")
            elif kind == tokenize.DEDENT:
                indent -= 1
            elif kind in (tokenize.NEWLINE, tokenize.ENDMARKER):
                operators = tokens = 0
            elif kind == tokenize.OP:
                tokens += 1
                if text in _OPEN:
                    depth += 1
                    if depth > MAX_NESTING:
                        _refuse(path, line, col, f"brackets nested more than {MAX_NESTING} deep")
                elif text in _CLOSE:
                    depth = max(depth - 1, 0)
                elif text not in _NOT_OPERATORS:
                    operators += 1
                    if operators > MAX_OPERATORS:
                        _refuse(
                            path, line, col, f"more than {MAX_OPERATORS} operators in one statement"
                        )
            elif kind not in (tokenize.NL, tokenize.COMMENT):
                tokens += 1
                if kind == tokenize.NAME and text in ("and", "or", "not", "if", "is", "in"):
                    operators += 1
                    if operators > MAX_OPERATORS:
                        _refuse(
                            path, line, col, f"more than {MAX_OPERATORS} operators in one statement"
                        )
            if tokens > MAX_TOKENS:
                _refuse(path, line, col, f"more than {MAX_TOKENS} tokens in one statement")
    except tokenize.TokenError as err:
        msg, (line, col) = err.args[0], err.args[1]
        raise TranslationError(
            f"syntax error: {msg}", Loc(path, max(line, 1), max(col, 0)), "fix the syntax"
        ) from None
    except (SyntaxError, IndentationError) as err:
        line = err.lineno or 1
        raise TranslationError(
            f"syntax error: {err.msg}",
            Loc(path, line, max((err.offset or 1) - 1, 0)),
            "fix the syntax",
        ) from None


def _refuse(path: str, line: int, col: int, what: str) -> None:
    raise TranslationError(
        f"too deep for tiletrans: {what}",
        Loc(path, line, col),
        "split the expression into named intermediate values (tiletrans refuses sources past "
        f"{MAX_NESTING} nested brackets, {MAX_INDENT} nested blocks or {MAX_OPERATORS} "
        "operators in one statement)",
    )


__all__ = ["MAX_INDENT", "MAX_NESTING", "MAX_OPERATORS", "MAX_TOKENS", "check_limits"]
