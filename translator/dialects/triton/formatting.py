"""Line wrapping for emitted code: long calls are split one argument per line."""

from __future__ import annotations

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
    open_at = _outer_call_paren(stripped)
    if open_at is None:
        return [line]
    head, inner = stripped[: open_at + 1], stripped[open_at + 1 : -1]
    args = _split_top_level(inner)
    if len(args) < 2:
        return [line]
    inner_indent = indent + "    "
    wrapped = [indent + head]
    for arg in args:
        piece = inner_indent + arg.strip() + ","
        wrapped.extend(_wrap(piece) if len(piece) > MAX_LINE else [piece])
    wrapped.append(indent + ")")
    return wrapped


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
                return i if ch == "(" and i > 0 and (text[i - 1].isalnum() or text[i - 1] in "_]") else None
    return None


def _split_top_level(text: str) -> list[str]:
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
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    tail = text[start:]
    if tail.strip():
        parts.append(tail)
    return parts
