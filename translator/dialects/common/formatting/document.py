"""The format elements (ruff_formatter's IR) and the printer (``ruff_formatter::printer``):
text, spaces, soft and hard line breaks, groups, conditional content, ``fits_expanded``,
``best_fitting`` and best-fit parentheses; :func:`_propagate_expand` marks the groups a forced
break expands, and :class:`_Printer` lays a document out in :data:`MAX_LINE` columns."""

from __future__ import annotations

import unicodedata

MAX_LINE = 100
_INDENT = 4


# ---------------------------------------------------------------------------------------------
# Format elements (ruff_formatter's IR).  Elements are tuples; tags carry mutable payloads.
# ---------------------------------------------------------------------------------------------

FLAT, EXPANDED = "flat", "expanded"
# Measure modes: up to the first line break, all lines, all lines allowing over-long text.
FIRST_LINE, ALL_LINES, ALL_LINES_OVERFLOW = "first", "all", "overflow"

SPACE = ("space",)
SOFT = ("line", "soft")
SOFT_OR_SPACE = ("line", "soft_or_space")
HARD = ("line", "hard")
EXPAND_PARENT = ("expand_parent",)

Element = tuple
Condition = tuple  # (mode, group id or None)


class _GroupTag:
    """Payload of a (conditional) group's start tag: its id, its mode (``flat``, ``expand`` or
    ``propagated`` from a forced break inside) and, for a conditional group, the condition under
    which it acts as a group."""

    __slots__ = ("id", "mode", "condition")

    def __init__(self, group_id: int | None, mode: str, condition: Condition | None = None):
        self.id = group_id
        self.mode = mode
        self.condition = condition


class _FitsExpandedTag:
    """Payload of ``fits_expanded``: measure the content expanded when the condition holds."""

    __slots__ = ("condition", "propagate")

    def __init__(self, condition: Condition | None):
        self.condition = condition
        self.propagate = False


def _width(text: str) -> int:
    """Display columns of ``text``: ruff measures lines by their Unicode width."""
    if text.isascii():
        return len(text)
    width = 0
    for char in text:
        if not unicodedata.combining(char):
            width += 2 if unicodedata.east_asian_width(char) in "WF" else 1
    return width


def _text(value: str) -> Element:
    return ("text", value, _width(value))


def _will_break(elements: list[Element]) -> bool:
    """ruff's ``will_break``: the content contains a forced line break (content measured with
    ``fits_expanded`` does not count)."""
    ignore = 0
    for element in elements:
        kind = element[0]
        if kind == "start" and element[1] == "fits_expanded":
            ignore += 1
        elif kind == "end" and element[1] == "fits_expanded":
            ignore -= 1
        elif not ignore and _element_will_break(element):
            return True
    return False


def _element_will_break(element: Element) -> bool:
    kind = element[0]
    if kind == "start":
        return element[1] in ("group", "cgroup") and element[2].mode != "flat"
    if kind == "interned":
        return _will_break(element[1])
    if kind == "best_fitting":
        # Even the flattest variant breaks.
        return _will_break(element[1][0])
    return kind == "expand_parent" or element == HARD


def _propagate_expand(elements: list[Element]) -> None:
    """ruff's ``Document::propagate_expand``: groups containing a forced break expand."""
    enclosing: list[tuple] = []

    def expand_parent() -> None:
        if enclosing:
            top = enclosing[-1]
            if top[0] == "group" and top[1].mode == "flat":
                top[1].mode = "propagated"
            elif top[0] == "fits":
                top[1].propagate = True

    def walk(items: list[Element]) -> bool:
        expands = False
        for element in items:
            kind = element[0]
            element_expands = False
            if kind == "start":
                tag = element[1]
                if tag in ("group", "cgroup"):
                    enclosing.append(("group", element[2]))
                elif tag == "bfp":
                    enclosing.append(("bfp", expands))
                    expands = False
                    continue
                elif tag == "fits_expanded":
                    enclosing.append(("fits", element[2], expands))
            elif kind == "end":
                tag = element[1]
                if tag in ("group", "cgroup"):
                    element_expands = enclosing.pop()[1].mode != "flat"
                elif tag == "bfp":
                    expands = enclosing.pop()[1]
                    continue
                elif tag == "fits_expanded":
                    expands = enclosing.pop()[2]
                    continue
            elif kind == "interned":
                element_expands = walk(element[1])
            elif kind == "best_fitting":
                enclosing.append(("best_fitting",))
                for variant in element[1]:
                    walk(variant)
                enclosing.pop()
                continue
            elif kind == "expand_parent" or element == HARD:
                element_expands = True
            if element_expands:
                expands = True
                expand_parent()
        return expands

    walk(elements)


# ---------------------------------------------------------------------------------------------
# The printer (ruff_formatter::printer), reduced to the elements used here.
# ---------------------------------------------------------------------------------------------

Args = tuple  # (indent level, print mode, measure mode)
_ROOT_ARGS: Args = (0, EXPANDED, FIRST_LINE)


class _Queue:
    """A stack of element slices being consumed (ruff's ``PrintQueue`` / ``FitsQueue``)."""

    __slots__ = ("frames",)

    def __init__(self, frames: list[list] | None = None):
        self.frames = frames if frames is not None else []

    def copy(self) -> _Queue:
        return _Queue([[items, index] for items, index in self.frames])

    def push(self, items: list[Element]) -> None:
        self.frames.append([items, 0])

    def pop_slice(self) -> None:
        self.frames.pop()

    def pop(self) -> Element | None:
        frames = self.frames
        while frames:
            top = frames[-1]
            items, index = top
            if index < len(items):
                top[1] = index + 1
                return items[index]
            frames.pop()
        return None

    def skip_content(self, tag: str) -> None:
        depth = 1
        while (element := self.pop()) is not None:
            if element[0] == "start" and element[1] == tag:
                depth += 1
            elif element[0] == "end" and element[1] == tag:
                depth -= 1
                if depth == 0:
                    return


class _Printer:
    """Prints a document: ruff's printer with a 100 column limit and 4-space indents, on top of
    ``base`` columns of statement indentation."""

    def __init__(self, base: int, width: int = MAX_LINE):
        self.base = base
        self.width = width
        self.lines: list[str] = []
        self.current: list[str] = [" " * base]
        self.has_text = False
        self.line_width = base
        self.pending_indent: int | None = None
        self.measured_fits = False
        self.modes: dict[int, str] = {}

    def print(self, document: list[Element]) -> list[str]:
        queue = _Queue()
        queue.push(document)
        stack: list[tuple[str, Args]] = [("root", _ROOT_ARGS)]
        while (element := queue.pop()) is not None:
            self.print_element(element, queue, stack)
        return [*self.lines, "".join(self.current).rstrip()]

    # -- printing -------------------------------------------------------------------------------

    def print_text(self, text: str, width: int) -> None:
        if self.pending_indent is not None:
            indent = self.base + _INDENT * self.pending_indent
            self.current.append(" " * indent)
            self.line_width += indent
            self.pending_indent = None
        self.current.append(text)
        self.line_width += width
        self.has_text = True

    def newline(self, indent: int) -> None:
        if self.has_text:
            self.lines.append("".join(self.current).rstrip())
            self.current = []
            self.has_text = False
            self.line_width = 0
            # The next group has to measure again whether it fits.
            self.measured_fits = False
        self.pending_indent = indent

    def print_element(self, element: Element, queue: _Queue, stack: list) -> None:
        args = stack[-1][1]
        kind = element[0]
        if kind == "text":
            self.print_text(element[1], element[2])
        elif kind == "space":
            self.print_text(" ", 1)
        elif kind == "line":
            if args[1] == FLAT and element[1] != "hard":
                if element[1] == "soft_or_space":
                    self.print_text(" ", 1)
            else:
                self.newline(args[0])
        elif kind == "expand_parent":
            pass
        elif kind == "interned":
            queue.push(element[1])
        elif kind == "best_fitting":
            self.print_best_fitting(element[1], element[2], queue, stack)
        elif kind == "start":
            self.print_start(element[1], element[2], args, queue, stack)
        else:
            tag = element[1]
            if tag == "bfp" and args[1] == EXPANDED:
                _pop(stack, "indent")
                queue.push([HARD, _text(")")])
            _pop(stack, tag)

    def print_start(self, tag: str, payload, args: Args, queue: _Queue, stack: list) -> None:
        if tag == "group":
            if payload.mode != "flat":
                mode = EXPANDED
            else:
                mode = self.flat_group_mode("group", payload.id, args, queue, stack)
            if payload.id is not None:
                self.modes[payload.id] = mode
            stack.append(("group", (args[0], mode, args[2])))
        elif tag == "cgroup":
            mode_, group_id = payload.condition
            expected = args[1] if group_id is None else self.modes[group_id]
            if expected == mode_:
                if payload.mode != "flat":
                    mode = EXPANDED
                else:
                    mode = self.flat_group_mode("cgroup", None, args, queue, stack)
                stack.append(("cgroup", (args[0], mode, args[2])))
            else:
                stack.append(("cgroup", args))
        elif tag == "ccontent":
            mode_, group_id = payload
            current = args[1] if group_id is None else self.modes[group_id]
            if mode_ == current:
                stack.append(("ccontent", args))
            else:
                queue.skip_content("ccontent")
        elif tag == "indent":
            stack.append(("indent", (args[0] + 1, args[1], args[2])))
        elif tag == "indent_if":
            if self.modes[payload] == EXPANDED:
                args = (args[0] + 1, args[1], args[2])
            stack.append(("indent_if", args))
        elif tag == "fits_expanded":
            condition = payload.condition
            if condition is None or condition[0] == (
                args[1] if condition[1] is None else self.modes[condition[1]]
            ):
                # The content was measured expanded; its own groups must measure again.
                self.measured_fits = False
            stack.append(("fits_expanded", args))
        elif tag == "bfp":
            self.print_best_fit_parenthesize(payload, args, queue, stack)
        else:  # bf_entry
            stack.append((tag, args))

    def print_best_fit_parenthesize(self, group_id, args: Args, queue: _Queue, stack: list):
        opening = [_text("("), ("start", "indent", None), HARD]
        if self.flat_group_mode("bfp", group_id, args, queue, stack) == FLAT:
            mode = FLAT
        else:
            # Parenthesize only if the content then fits; otherwise leave it unparenthesized.
            if group_id is not None:
                self.modes[group_id] = EXPANDED
            stack.append(("bfp", (args[0], args[1], ALL_LINES)))
            queue.push(opening)
            fits = self.fits(queue, stack)
            queue.pop_slice()
            stack.pop()
            mode = EXPANDED if fits else FLAT
        if group_id is not None:
            self.modes[group_id] = mode
        if mode == EXPANDED:
            queue.push(opening)
        stack.append(("bfp", (args[0], mode, args[2])))

    def print_best_fitting(self, variants: list, mode: str, queue: _Queue, stack: list) -> None:
        args = stack[-1][1]
        if args[1] == FLAT and self.measured_fits:
            queue.push(variants[0])
            self.print_entry(queue, stack, args)
            return
        self.measured_fits = True
        for variant in variants[:-1]:
            queue.push(variant[1:])
            stack.append(("bf_entry", (args[0], FLAT, mode)))
            fits = self.fits(queue, stack)
            stack.pop()
            queue.pop_slice()
            if fits:
                queue.push(variant)
                self.print_entry(queue, stack, (args[0], FLAT, args[2]))
                return
        queue.push(variants[-1])
        self.print_entry(queue, stack, (args[0], EXPANDED, args[2]))

    def print_entry(self, queue: _Queue, stack: list, args: Args) -> None:
        queue.pop()  # the entry's start tag
        stack.append(("bf_entry", args))
        depth = 1
        while (element := queue.pop()) is not None:
            if element[0] == "start" and element[1] == "bf_entry":
                depth += 1
            elif element[0] == "end" and element[1] == "bf_entry":
                depth -= 1
                if depth == 0:
                    _pop(stack, "bf_entry")
                    return
            self.print_element(element, queue, stack)

    def flat_group_mode(self, tag: str, group_id, args: Args, queue: _Queue, stack: list) -> str:
        if args[1] == FLAT and self.measured_fits:
            # An enclosing group already measured that this one fits.
            return FLAT
        self.measured_fits = True
        if group_id is not None:
            self.modes[group_id] = FLAT
        stack.append((tag, (args[0], FLAT, args[2])))
        fits = self.fits(queue, stack)
        stack.pop()
        return FLAT if fits else EXPANDED

    def fits(self, queue: _Queue, stack: list) -> bool:
        return _Measurer(self, queue.copy(), list(stack)).fits()


def _pop(stack: list, tag: str) -> Args:
    kind, args = stack.pop()
    if kind != tag:
        raise ValueError(f"mismatched tags {kind} / {tag}")
    return args


class _Measurer:
    """ruff's ``FitsMeasurer``: does the rest of the queue fit up to the first line break?"""

    def __init__(self, printer: _Printer, queue: _Queue, stack: list):
        self.printer = printer
        self.queue = queue
        self.stack = stack
        self.pending_indent = printer.pending_indent
        self.line_width = printer.line_width

    def fits(self) -> bool:
        while (element := self.queue.pop()) is not None:
            result = self.fits_element(element)
            if result is not None:
                return result
        return True

    def text(self, width: int, args: Args) -> bool | None:
        if self.pending_indent is not None:
            self.line_width += self.printer.base + _INDENT * self.pending_indent
            self.pending_indent = None
        self.line_width += width
        if self.line_width > self.printer.width and args[2] != ALL_LINES_OVERFLOW:
            return False
        return None

    def fits_element(self, element: Element) -> bool | None:
        stack = self.stack
        args = stack[-1][1]
        kind = element[0]
        if kind == "text":
            return self.text(element[2], args)
        if kind == "space":
            return self.text(1, args)
        if kind == "line":
            if args[1] == FLAT:
                if element[1] == "soft_or_space":
                    return self.text(1, args)
                if element[1] == "hard":
                    return True
            elif args[2] == FIRST_LINE:
                return True
            else:
                self.line_width = 0
                self.pending_indent = args[0]
            return None
        if kind == "interned":
            self.queue.push(element[1])
            return None
        if kind == "best_fitting":
            variants, mode = element[1], element[2]
            if args[1] == FLAT:
                variant, args = variants[0], (args[0], args[1], mode)
            else:
                variant = variants[-1]
            stack.append(("bf_entry", args))
            self.queue.push(variant[1:])
            return None
        if kind == "expand_parent":
            return None
        if kind == "end":
            tag = element[1]
            if tag == "bfp" and args[1] == EXPANDED and stack[-1][0] == "indent":
                stack.pop()
                outer = _pop(stack, "bfp")
                self.line_width = 0
                self.pending_indent = outer[0]
                return self.text(1, outer)
            _pop(stack, tag)
            return None
        return self.fits_start(element[1], element[2], args)

    def fits_start(self, tag: str, payload, args: Args) -> bool | None:
        stack, modes = self.stack, self.printer.modes
        if tag == "group":
            mode = args[1] if payload.mode == "flat" else EXPANDED
            stack.append(("group", (args[0], mode, args[2])))
            if payload.id is not None:
                modes[payload.id] = mode
        elif tag == "cgroup":
            mode_, group_id = payload.condition
            if mode_ == (args[1] if group_id is None else modes[group_id]):
                mode = args[1] if payload.mode == "flat" else EXPANDED
                stack.append(("cgroup", (args[0], mode, args[2])))
            else:
                stack.append(("cgroup", args))
        elif tag == "ccontent":
            mode_, group_id = payload
            if mode_ == (args[1] if group_id is None else modes[group_id]):
                stack.append(("ccontent", args))
            else:
                self.queue.skip_content("ccontent")
        elif tag == "indent":
            stack.append(("indent", (args[0] + 1, args[1], args[2])))
        elif tag == "indent_if":
            if modes[payload] == EXPANDED:
                args = (args[0] + 1, args[1], args[2])
            stack.append(("indent_if", args))
        elif tag == "fits_expanded":
            if args[1] == EXPANDED:
                stack.append(("fits_expanded", args))
            else:
                condition = payload.condition
                if condition is None or condition[0] == (
                    args[1] if condition[1] is None else modes[condition[1]]
                ):
                    # Measure the content fully expanded, allowing over-long lines.
                    stack.append(("fits_expanded", (args[0], EXPANDED, ALL_LINES_OVERFLOW)))
                elif payload.propagate:
                    return False
                else:
                    stack.append(("fits_expanded", args))
        elif tag == "bfp":
            if payload is not None:
                modes[payload] = args[1]
            stack.append(("bfp", args))
        else:  # bf_entry
            stack.append((tag, args))
        return None
