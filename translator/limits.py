"""Up-front limits on what the translator parses: nesting depth and expression length.

libcst's parser and position provider, and the frontends' visitors, recurse once per nesting
level and per operator of a chain: a 400-term sum exhausts Python's recursion limit and 1,500
nested parentheses crash libcst's native parser. :func:`check_limits` reads the source with the
standard :mod:`tokenize` module (iterative, no recursion) before anything else parses it and
refuses past these limits with a located diagnostic. No real kernel comes near them.
"""

from __future__ import annotations

import io
import keyword
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
#: ``elif`` branches of one ``if`` statement (libcst nests each ``elif`` in the one before: a
#: 166-term chain exhausted the recursion limit).
MAX_ELIF = 100
#: Trailers of one chain: the ``.a``, ``(...)`` and ``[...]`` of ``x.a(1)[0]`` (each nests the
#: expression before it: 330 ``.a`` or ``[0]`` exhausted the recursion limit).
MAX_TRAILERS = 100
#: Adjacent string literals (``"a" "b"``, implicitly concatenated; nested pairs in libcst: 166
#: exhausted the recursion limit).
MAX_STRINGS = 100

_OPEN = frozenset("([{")
_CLOSE = frozenset(")]}")
_NOT_OPERATORS = _OPEN | _CLOSE | {",", ":", ".", ";", "=", "->", "@"}
_WORD_OPERATORS = frozenset(("and", "or", "not", "if", "is", "in"))
#: Python 3.12+ tokenizes an f-string as FSTRING_START, its parts, FSTRING_END.
_FSTRING_START = getattr(tokenize, "FSTRING_START", -1)
_FSTRING_END = getattr(tokenize, "FSTRING_END", -1)
#: Tokens after which ``(`` or ``[`` is a call or a subscript of what came before (a trailer),
#: not a new parenthesised expression or list.
_ENDS_ATOM = frozenset((")", "]", "}"))
#: How many frames of recursion one level of each construct costs, roughly (from the limits at
#: which each alone exhausted the recursion limit): the weights of :func:`deepest_statement`.
_WEIGHT_BRACKET, _WEIGHT_INDENT, _WEIGHT_OPERATOR = 12, 12, 3
_WEIGHT_ELIF, _WEIGHT_TRAILER, _WEIGHT_STRING = 6, 3, 6


def check_limits(source: str, path: str) -> None:
    """Refuse ``source`` (a file called ``path``) if it nests or chains past the limits above,
    or if it does not tokenize (a located syntax error); return ``None`` otherwise."""
    _scan(source, path, refuse=True)


def deepest_statement(source: str, path: str) -> Loc:
    """Where the statement of ``source`` that nests or chains most starts (by a rough count of
    the recursion each construct costs the parser): where to point a refusal when the
    translator ran out of recursion on a source within the limits. Never raises (``1:0`` when
    the source does not tokenize before any statement)."""
    try:
        return _scan(source, path, refuse=False)
    except Exception:  # the error path: a refusal must not fail while locating itself
        return Loc(path, 1, 0)


def _scan(source: str, path: str, refuse: bool) -> Loc:
    """One pass of the tokenizer over ``source``: refuse past the limits (``refuse``) and return
    the start of the deepest statement (see :func:`deepest_statement`)."""
    if "\0" in source:
        line = source.count("\n", 0, source.index("\0")) + 1
        if not refuse:
            return Loc(path, line, 0)
        raise TranslationError(
            "the file holds a null byte", Loc(path, line, 0), "is this a Python source file?"
        )

    def over(line: int, col: int, what: str) -> None:
        if refuse:
            _refuse(path, line, col, what)

    depth = indent = operators = tokens = strings = 0
    #: The trailer count of the chain being read at each bracket depth (index: depth).
    chains = [0]
    #: The ``elif`` count of the ``if`` statement open at each indentation level.
    elifs: dict[int, int] = {}
    chain_at: dict[int, tuple[int, int]] = {}  # where that `if` starts
    fstring = 0  # f-strings open (3.12+: their parts are tokens)
    prev_kind, prev_text = tokenize.NEWLINE, ""
    at_start = True  # the next significant token starts a statement
    stmt = (1, 0)  # where the statement being read starts
    score = 0  # its recursion estimate
    best, best_at = -1, (1, 0)
    readline = io.StringIO(source).readline
    try:
        for tok in tokenize.generate_tokens(readline):
            kind, text, (line, col) = tok.type, tok.string, tok.start
            if kind in (tokenize.NL, tokenize.COMMENT):
                continue
            if kind == tokenize.INDENT:
                indent += 1
                if indent > MAX_INDENT:
                    over(line, col, f"blocks nested more than {MAX_INDENT} deep")
                at_start = True
                continue
            if kind == tokenize.DEDENT:
                elifs.pop(indent, None)
                indent -= 1
                at_start = True
                continue
            if kind in (tokenize.NEWLINE, tokenize.ENDMARKER):
                if score > best:
                    best, best_at = score, stmt
                operators = tokens = strings = score = 0
                chains = [0]
                depth = 0
                at_start = True
                prev_kind, prev_text = kind, text
                continue
            if at_start:
                at_start = False
                stmt = (line, col)
                score = indent * _WEIGHT_INDENT
                if kind == tokenize.NAME and text == "if":
                    chain_at[indent] = stmt
                if kind == tokenize.NAME and text == "elif":
                    # A chain of `elif` is one statement: the `if` that starts it.
                    stmt = chain_at.get(indent, stmt)
                    elifs[indent] = elifs.get(indent, 0) + 1
                    if elifs[indent] > MAX_ELIF:
                        over(line, col, f"more than {MAX_ELIF} `elif` branches in one `if`")
                    score += elifs[indent] * _WEIGHT_ELIF
                elif not (kind == tokenize.NAME and text == "else"):
                    elifs[indent] = 0
            tokens += 1
            if tokens > MAX_TOKENS:
                over(line, col, f"more than {MAX_TOKENS} tokens in one statement")
            if fstring:
                # Inside an f-string (3.12+): its replacement fields' brackets still nest.
                if kind == _FSTRING_START:
                    fstring += 1
                elif kind == _FSTRING_END:
                    fstring -= 1
                    if not fstring:
                        kind = tokenize.STRING  # the whole f-string is one string literal
                if fstring:
                    prev_kind, prev_text = kind, text
                    continue
            elif kind == _FSTRING_START:
                fstring = 1
                prev_kind, prev_text = kind, text
                continue
            # Adjacent string literals: a run of STRING tokens.
            if kind == tokenize.STRING:
                strings = strings + 1 if prev_kind == tokenize.STRING else 1
                if strings > MAX_STRINGS:
                    over(line, col, f"more than {MAX_STRINGS} adjacent string literals")
                score = max(score, indent * _WEIGHT_INDENT + strings * _WEIGHT_STRING)
            # Trailer chains: `.name`, and `(`/`[` right after an atom.
            trailer = False
            if kind == tokenize.OP and text == ".":
                trailer = (
                    prev_kind == tokenize.NAME
                    and prev_text not in ("from", "import")
                    or (prev_kind in (tokenize.STRING, tokenize.NUMBER) or prev_text in _ENDS_ATOM)
                )
            elif kind == tokenize.OP and text in ("(", "["):
                trailer = (
                    (prev_kind == tokenize.NAME and not keyword.iskeyword(prev_text))
                    or prev_kind == tokenize.STRING
                    or prev_text in _ENDS_ATOM
                )
            if trailer:
                chains[-1] += 1
                if chains[-1] > MAX_TRAILERS:
                    over(
                        line,
                        col,
                        f"more than {MAX_TRAILERS} attributes, calls or subscripts in one chain",
                    )
                score = max(score, indent * _WEIGHT_INDENT + chains[-1] * _WEIGHT_TRAILER)
            elif not (kind == tokenize.NAME and prev_text == ".") and not (
                kind == tokenize.OP and text in _CLOSE
            ):
                chains[-1] = 0  # anything else ends the chain (a close bracket continues it)
            if kind == tokenize.OP:
                if text in _OPEN:
                    depth += 1
                    chains.append(0)
                    if depth > MAX_NESTING:
                        over(line, col, f"brackets nested more than {MAX_NESTING} deep")
                    score = max(score, indent * _WEIGHT_INDENT + depth * _WEIGHT_BRACKET)
                elif text in _CLOSE:
                    depth = max(depth - 1, 0)
                    if len(chains) > 1:
                        chains.pop()
                elif text not in _NOT_OPERATORS:
                    operators += 1
                    if operators > MAX_OPERATORS:
                        over(line, col, f"more than {MAX_OPERATORS} operators in one statement")
            elif kind == tokenize.NAME and text in _WORD_OPERATORS and tokens > 1:
                operators += 1
                if operators > MAX_OPERATORS:
                    over(line, col, f"more than {MAX_OPERATORS} operators in one statement")
            score = max(score, indent * _WEIGHT_INDENT + operators * _WEIGHT_OPERATOR)
            prev_kind, prev_text = kind, text
    except tokenize.TokenError as err:
        if not refuse:
            return Loc(path, *best_at)
        msg, (line, col) = err.args[0], err.args[1]
        raise TranslationError(
            f"syntax error: {msg}", Loc(path, max(line, 1), max(col, 0)), "fix the syntax"
        ) from None
    except (SyntaxError, IndentationError) as err:
        if not refuse:
            return Loc(path, *best_at)
        line = err.lineno or 1
        raise TranslationError(
            f"syntax error: {err.msg}",
            Loc(path, line, max((err.offset or 1) - 1, 0)),
            "fix the syntax",
        ) from None
    return Loc(path, *best_at)


def _refuse(path: str, line: int, col: int, what: str) -> None:
    raise TranslationError(
        f"too deep for tiletrans: {what}",
        Loc(path, line, col),
        "split it into named intermediate values or smaller functions (tiletrans refuses "
        f"sources past {MAX_NESTING} nested brackets, {MAX_INDENT} nested blocks, "
        f"{MAX_OPERATORS} operators in one statement, {MAX_ELIF} `elif` branches, "
        f"{MAX_TRAILERS} chained attributes/calls/subscripts or {MAX_STRINGS} adjacent strings)",
    )


#: The message of a refusal for running out of recursion within the limits.
TOO_DEEP = "too deep for tiletrans: this statement nests or chains too deeply for the parser"


def too_deep(loc: Loc | None) -> TranslationError:
    """The refusal of a source that exhausted the recursion limit although within the limits
    above (a mix of deep constructs), pointed at ``loc`` (:func:`deepest_statement`)."""
    return TranslationError(
        TOO_DEEP,
        loc,
        "split the deepest statement (long chains of `elif`, operators, calls or attributes, "
        "nested brackets or blocks) into named intermediate values or smaller functions",
    )


def caused_by_recursion(err: BaseException) -> bool:
    """Whether ``err`` is a :class:`RecursionError` or was raised while handling one (libcst's
    position provider turns one into a ``KeyError``): the input was too deep, not a bug. Walks
    the exception's context iteratively, a bounded number of steps (the error path must not
    recurse)."""
    seen: set[int] = set()
    todo: list[BaseException] = [err]
    while todo and len(seen) < 64:
        e = todo.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, RecursionError):
            return True
        todo.extend(x for x in (e.__cause__, e.__context__) if x is not None)
    return False


__all__ = [
    "MAX_ELIF",
    "MAX_INDENT",
    "MAX_NESTING",
    "MAX_OPERATORS",
    "MAX_STRINGS",
    "MAX_TOKENS",
    "MAX_TRAILERS",
    "TOO_DEEP",
    "caused_by_recursion",
    "check_limits",
    "deepest_statement",
    "too_deep",
]
