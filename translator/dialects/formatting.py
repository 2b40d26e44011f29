"""Line wrapping for emitted code: long calls are split one argument per line."""

from __future__ import annotations

import math

MAX_LINE = 100


def wrap_lines(lines: list[str]) -> list[str]:
    """``lines`` with every over-long call statement wrapped at its top-level commas."""
    out: list[str] = []
    for line in lines:
        out.extend(_wrap(line) if len(line) > MAX_LINE else [line])
    return out


def _wrap(line: str) -> list[str]:
    indent = line[: len(line) - len(line.lstrip())]
    stripped = line.strip()
    if stripped.startswith("#"):
        return [line]
    assign = _split_assignment(stripped)
    if assign is not None:
        target, value = assign
        terms = _split_top_level(value, sep="+")
        if len(terms) > 1:
            inner = indent + "    "
            out = [f"{indent}{target} = ("]
            out.append(inner + terms[0].strip())
            out.extend(f"{inner}+ {t.strip()}" for t in terms[1:])
            out.append(indent + ")")
            return out
        if value.startswith("lambda ") and ": (" in value and value.endswith(")"):
            head, body = value.split(": (", 1)
            return [
                f"{indent}{target} = {head}: (",
                f"{indent}    {body[:-1].strip()}",
                f"{indent})",
            ]
    group = _widest_call(stripped)
    if group is None:
        return [line]
    open_at, close_at = group
    head, inner, tail = (
        stripped[: open_at + 1],
        stripped[open_at + 1 : close_at],
        stripped[close_at:],
    )
    args = _split_top_level(inner)
    if len(args) < 2 and len(inner) < 40:
        return [line]
    inner_indent = indent + "    "
    wrapped = [indent + head]
    for arg in args:
        piece = inner_indent + arg.strip() + ","
        wrapped.extend(_wrap(piece) if len(piece) > MAX_LINE else [piece])
    wrapped.append(indent + tail)
    return wrapped


def _widest_call(text: str) -> tuple[int, int] | None:
    """``(open, close)`` of the call parentheses spanning the most text, outside strings."""
    best = None
    stack: list[int] = []
    quote = None
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "([{":
            stack.append(i)
        elif ch in ")]}" and stack:
            start = stack.pop()
            is_call = (
                ch == ")" and start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_]")
            )
            if is_call and not stack and (best is None or i - start > best[1] - best[0]):
                best = (start, i)
    return best


def _outer_call_paren(text: str) -> int | None:
    """Index of the ``(`` whose matching ``)`` ends ``text``, if ``text`` ends in a call."""
    if not text.endswith(")"):
        return None
    depth = 0
    quote = None
    for i in range(len(text) - 1, -1, -1):
        ch = text[i]
        if quote:
            if ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch in ")]}":
            depth += 1
        elif ch in "([{":
            depth -= 1
            if depth == 0:
                return (
                    i
                    if ch == "(" and i > 0 and (text[i - 1].isalnum() or text[i - 1] in "_]")
                    else None
                )
    return None


def _split_assignment(text: str) -> tuple[str, str] | None:
    """``(target, value)`` of a plain ``name = value`` statement."""
    head, sep, value = text.partition(" = ")
    if sep and head.replace("_", "a").isalnum():
        return head, value
    return None


def _split_top_level(text: str, sep: str = ",") -> list[str]:
    parts, depth, quote, start = [], 0, None, 0
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    tail = text[start:]
    if tail.strip():
        parts.append(tail)
    return parts


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
