"""Text form of the IR (``tiletrans ir FILE``).

The form is for people: one statement a line, blocks indented, every load with its padding and
every reduction with its masking spelled out, so that boundary behaviour can be read off.
"""

from __future__ import annotations

from translator.ir import nodes as ir

_PREC = {
    "or": 1,
    "and": 2,
    "<": 4,
    "<=": 4,
    ">": 4,
    ">=": 4,
    "==": 4,
    "!=": 4,
    "|": 5,
    "^": 6,
    "&": 7,
    "<<": 8,
    ">>": 8,
    "+": 9,
    "-": 9,
    "*": 10,
    "/": 10,
    "//": 10,
    "%": 10,
    "**": 12,
}


PRECEDENCE = _PREC
#: ``-x``, ``~x`` (Python's unary arithmetic binds tighter than ``*``, looser than ``**``).
UNARY_PRECEDENCE = 11
#: ``not x`` binds between ``and`` and the comparisons.
NOT_PRECEDENCE = 3
#: Names, literals, calls, subscripts and attributes: never parenthesised.
ATOM_PRECEDENCE = 20


def operand_precedence(op: str) -> tuple[int, int]:
    """Minimum precedences of the left and right operands of ``op`` (Python's rules).

    ``**`` is right-associative; comparisons get parentheses rather than chaining.
    """
    p = _PREC.get(op, 9)
    if op == "**":
        return p + 1, p
    if p == _PREC["<"]:
        return p + 1, p + 1
    return p, p + 1


def unary_text(op: str, operand: str) -> str:
    """``-x``, ``~x``, ``not x``."""
    return f"not {operand}" if op == "not" else f"{op}{operand}"


def format_dtype(dtype: ir.DTypeExpr) -> str:
    """``f32``-style names for concrete dtypes, ``dtype(x)`` for a tensor's."""
    return str(dtype)


def format_index(index: tuple[ir.IndexItem, ...]) -> str:
    """An index tuple: ``[tile_m, :, 3, None, gather(idx)]``."""
    parts = []
    for item in index:
        if isinstance(item, ir.TileIndex):
            parts.append(item.tile)
        elif isinstance(item, ir.FullIndex):
            parts.append(":")
        elif isinstance(item, ir.ScalarIndex):
            parts.append(format_expr(item.value))
        elif isinstance(item, ir.NewAxis):
            parts.append("None")
        else:
            parts.append(f"gather({format_expr(item.value)})")
    return "[" + ", ".join(parts) + "]"


def format_dims(dims: tuple[ir.Dim, ...]) -> str:
    """Dims as ``[tile_m, :n, 1]``."""
    return "[" + ", ".join(str(d) for d in dims) + "]"


def format_expr(e: ir.Expr, prec: int = 0) -> str:
    """One expression, parenthesised only where precedence needs it."""
    if isinstance(e, ir.Name):
        return e.id
    if isinstance(e, ir.Const):
        return repr(e.value) if not isinstance(e.value, float) or e.value == e.value else "nan"
    if isinstance(e, ir.SizeOf):
        return f"{e.tensor}.size({e.dim})"
    if isinstance(e, ir.ShapeOf):
        return f"{e.tensor}.shape"
    if isinstance(e, ir.BinOp):
        p = _PREC.get(e.op, 9)
        lp, rp = operand_precedence(e.op)
        text = f"{format_expr(e.lhs, lp)} {e.op} {format_expr(e.rhs, rp)}"
        return f"({text})" if p < prec else text
    if isinstance(e, ir.UnaryOp):
        text = unary_text(e.op, format_expr(e.operand, UNARY_PRECEDENCE))
        return f"({text})" if prec > UNARY_PRECEDENCE else text
    if isinstance(e, ir.Call):
        return f"{e.op}({', '.join(format_expr(a) for a in e.args)})"
    if isinstance(e, ir.Cast):
        return f"cast({format_expr(e.value)}, {format_dtype(e.dtype)})"
    if isinstance(e, ir.TileAttr):
        return f"{e.tile}.{e.attr}"
    if isinstance(e, ir.Load):
        pad = "never-read" if e.other is None else repr(e.other)
        where = "" if e.mask is None else f" where {format_expr(e.mask)}"
        return f"load {e.tensor}{format_index(e.index)}{where} pad={pad}"
    if isinstance(e, ir.Full):
        return f"full({format_dims(e.shape)}, {format_expr(e.value)}, {format_dtype(e.dtype)})"
    if isinstance(e, ir.Arange):
        return f"arange({e.dim})"
    if isinstance(e, ir.Reduce):
        flags = (", keepdim" if e.keepdim else "") + ("" if e.masked else ", unmasked")
        return f"{e.op}({format_expr(e.value)}, axis={e.axis}{flags})"
    if isinstance(e, ir.Scan):
        return f"cum{e.op}({format_expr(e.value)}, axis={e.axis})"
    if isinstance(e, ir.Dot):
        acc = f", acc={format_expr(e.acc)}" if e.acc is not None else ""
        precision = f", precision={e.precision}" if e.precision is not None else ""
        return (
            f"dot({format_expr(e.lhs)}, {format_expr(e.rhs)}{acc}, "
            f"out={format_dtype(e.out_dtype)}{precision})"
        )
    if isinstance(e, ir.Permute):
        return f"permute({format_expr(e.value)}, {list(e.perm)})"
    if isinstance(e, ir.Reshape):
        return f"reshape({format_expr(e.value)}, {format_dims(e.shape)})"
    if isinstance(e, ir.Broadcast):
        return f"broadcast({format_expr(e.value)}, {format_dims(e.shape)})"
    if isinstance(e, ir.ExpandDims):
        return f"expand_dims({format_expr(e.value)}, {e.axis})"
    if isinstance(e, ir.TupleExpr):
        return "(" + ", ".join(format_expr(i) for i in e.items) + ")"
    return f"<{type(e).__name__}>"


def _format_tile(t: ir.TileVar) -> str:
    block = t.block if isinstance(t.block, str) else str(t.block.value)
    begin = f"{format_expr(t.begin)}.." if t.begin is not None else ""
    kind = "index" if t.scalar else "tile"
    step = f" every {format_expr(t.step)}" if t.step is not None else ""
    return f"{t.name}: {kind} {begin}{format_expr(t.extent)} by {block}{step}"


def format_stmt(s: ir.Stmt, indent: int = 0) -> list[str]:
    """The lines of one statement (with its comments)."""
    pad = "  " * indent
    lines = [f"{pad}# {c.lstrip('#').strip()}" for c in s.comments]
    if isinstance(s, ir.Assign):
        lines.append(f"{pad}{s.target} = {format_expr(s.value)}")
    elif isinstance(s, ir.Store):
        lines.append(f"{pad}store {s.tensor}{format_index(s.index)} = {format_expr(s.value)}")
    elif isinstance(s, ir.AtomicRMW):
        lines.append(
            f"{pad}atomic_{s.op} {s.tensor}{format_index(s.index)} <- {format_expr(s.value)}"
        )
    elif isinstance(s, ir.TileLoop):
        stages = f" stages={s.num_stages}" if s.num_stages else ""
        tiles = ", ".join(_format_tile(t) for t in s.tiles)
        lines.append(f"{pad}loop {tiles}{stages}:")
        for b in s.body:
            lines.extend(format_stmt(b, indent + 1))
    elif isinstance(s, ir.While):
        lines.append(f"{pad}while {format_expr(s.test)}:")
        for b in s.body:
            lines.extend(format_stmt(b, indent + 1))
    elif isinstance(s, ir.If):
        lines.append(f"{pad}if {format_expr(s.test)}:")
        for b in s.body:
            lines.extend(format_stmt(b, indent + 1))
        if s.orelse:
            lines.append(f"{pad}else:")
            for b in s.orelse:
                lines.extend(format_stmt(b, indent + 1))
    elif isinstance(s, ir.InlineKernel):
        grid = ", ".join(_format_tile(t) for t in s.grid)
        lines.append(f"{pad}kernel {s.name} grid({grid}){format_hints(s.hints)}:")
        for b in s.body:
            lines.extend(format_stmt(b, indent + 1))
    elif isinstance(s, ir.Carried):
        rank = f"[{s.rank}-d]" if s.rank is not None else ""
        lines.append(f"{pad}{s.target} = carried {s.kind}{rank}: {s.source}")
    elif isinstance(s, ir.Launch):
        args = ", ".join(format_expr(a) for a in s.args)
        site = f" at site {s.site}" if s.site is not None else ""
        lines.append(f"{pad}launch {s.kernel}({args}){site}")
    elif isinstance(s, ir.ShapeUnpack):
        targets = ", ".join(t or "_" for t in s.targets)
        assumed = f"  # assumed: {s.assumed}" if s.assumed else ""
        lines.append(f"{pad}{targets} = shape({s.tensor}){assumed}")
    elif isinstance(s, ir.Alloc):
        shape = (
            f"like {s.like}"
            if s.like
            else "[" + ", ".join(format_expr(d) for d in s.shape or ()) + "]"
        )
        fill = "empty" if s.fill is None else f"fill {s.fill!r}"
        lines.append(
            f"{pad}{s.target} = alloc {shape} {format_dtype(s.dtype)} on {s.device_of} {fill}"
        )
    elif isinstance(s, ir.View):
        shape = ", ".join(format_expr(d) for d in s.shape)
        lines.append(f"{pad}{s.target} = view {s.tensor} as [{shape}]")
    elif isinstance(s, ir.Assert):
        msg = f", {s.msg}" if s.msg else ""
        lines.append(f"{pad}assert {format_expr(s.test)}{msg}")
    elif isinstance(s, ir.Return):
        value = format_expr(s.value) if s.value is not None else ""
        lines.append(f"{pad}return {value}".rstrip())
    return lines


def format_hints(hints: ir.Hints) -> str:
    """The hints that are set, as `` key=value`` words."""
    out = ""
    for f in ("schedule", "index_bits", "fast_math", "static_shapes", "autotune"):
        value = getattr(hints, f)
        if value is not None:
            out += f" {f}={value!r}"
    for key, value in hints.extras:
        out += f" {key}={value!r}"
    return out


def format_param(p: ir.Param) -> str:
    """``name: kind`` with what is known of a parameter."""
    text = f"{p.name}: {p.kind}"
    if p.kind == "tensor" and (p.rank is not None or p.dtype is not None):
        rank = f"{p.rank}-d" if p.rank is not None else "?-d"
        dtype = f" {format_dtype(p.dtype)}" if p.dtype is not None else ""
        text += f"[{rank}{dtype}]"
    if p.constexpr:
        text += " constexpr"
    if p.default is not None:
        text += f" = {format_expr(p.default)}"
    return text


def format_kernel(kernel: ir.Kernel) -> str:
    """One kernel: signature, tunables, configs, grid and body."""
    params = ", ".join(format_param(p) for p in kernel.params)
    grid = ", ".join(_format_tile(t) for t in kernel.grid)
    lines = [f"kernel {kernel.name}({params}) grid({grid}){format_hints(kernel.hints)}:"]
    for t in kernel.tunables:
        choices = f" in {list(t.choices)}" if t.choices else ""
        if t.space in ("power_of_two", "integer") and t.bounds is not None:
            choices = f" in {t.space}[{t.bounds[0]}, {t.bounds[1]}]"
        elif t.space is not None:
            choices = f" in {t.space}{list(t.values())}"
        lines.append(f"  tunable {t.name}: {t.kind} = {t.default}{choices}")
    for i, config in enumerate(kernel.configs):
        lines.append(f"  config {i}: " + ", ".join(f"{k}={v}" for k, v in config))
    for test in kernel.partial_dims:
        lines.append(f"  partial {format_expr(test)}")
    for s in kernel.body:
        lines.extend(format_stmt(s, 1))
    return "\n".join(lines)


def format_entry(entry: ir.Entry) -> str:
    """One entry: signature and the host statements the frontend modelled."""
    params = ", ".join(format_param(p) for p in entry.params)
    partial = "" if entry.complete else "  # partly modelled"
    lines = [f"entry {entry.name}({params}):{partial}"]
    for s in entry.body:
        lines.extend(format_stmt(s, 1))
    return "\n".join(lines)


def format_module(module: ir.Module) -> str:
    """The whole module as text: kernels, then the host entries that launch them."""
    head = f"module {module.path}"
    parts = [head, *(format_kernel(k) for k in module.kernels)]
    parts += [format_entry(e) for e in module.entries]
    if module.host is not None:
        host = [f"host: {len(module.host.sites)} launch sites, {len(module.host.edits)} edits"]
        for edit in module.host.edits:
            where = f" at {edit.span.start_line}:{edit.span.start_col}" if edit.span else ""
            what = f" {', '.join(edit.kernels)}" if edit.kernels else ""
            note = f"  # {edit.note}" if edit.note else ""
            host.append(f"  {edit.kind}{where}{what}{note}")
        parts.append("\n".join(host))
    return "\n\n".join(parts) + "\n"
