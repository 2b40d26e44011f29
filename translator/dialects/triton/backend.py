"""Triton backend: IR module → a Triton module with ``@triton.jit`` kernels and host wrappers.

The module skeleton (provenance header, imports, autotune block, kernel signature, wrapper) comes
from ``templates/triton/module.py.j2``; kernel bodies from :mod:`translator.dialects.triton.kernel`.
"""

from __future__ import annotations

from translator import __version__
from translator.dialects.formatting import float_literal, wrap_lines
from translator.dialects.triton.kernel import KernelEmitter
from translator.dialects.triton.pipelining import fewer_stages_for_squeezed_dots
from translator.grammar import load_grammar, template_environment
from translator.ir import nodes as ir
from translator.ir.printer import PRECEDENCE, UNARY_PRECEDENCE, operand_precedence, unary_text
from translator.ir.shapes import TypeEnv
from translator.ir.transforms import squeeze_unit_tiles, unit_block_tiles
from translator.ir.verifier import verify, verify_entry, walk_entry


def emit(module: ir.Module) -> str:
    """The Triton source for ``module`` (verified first)."""
    verify(module)
    kernels = []
    wrappers = []
    needs_math = False
    for entry in module.entries:
        k, w, m = _emit_entry(entry)
        kernels.extend(k)
        wrappers.append(w)
        needs_math = needs_math or m
    template = template_environment("triton").get_template("module.py.j2")
    text = template.render(
        version=__version__,
        source=module.path,
        source_hash=module.source_hash[:16],
        header_comments=module.header_comments,
        docstring=module.docstring,
        needs_math=needs_math,
        kernels=kernels,
        wrappers=wrappers,
    )
    return "\n".join(wrap_lines(text.splitlines())) + "\n"


def host_expr(e: ir.Expr, prec: int = 0) -> str:
    """A host scalar expression as Python/torch code."""
    if isinstance(e, ir.Name):
        return e.id
    if isinstance(e, ir.Const):
        if isinstance(e.value, float):
            return float_literal(e.value)
        return repr(e.value)
    if isinstance(e, ir.SizeOf):
        return f"{e.tensor}.size({e.dim})"
    if isinstance(e, ir.ShapeOf):
        return f"{e.tensor}.shape"
    if isinstance(e, ir.BinOp):
        p = PRECEDENCE[e.op]
        lp, rp = operand_precedence(e.op)
        text = f"{host_expr(e.lhs, lp)} {e.op} {host_expr(e.rhs, rp)}"
        return f"({text})" if p < prec else text
    if isinstance(e, ir.UnaryOp):
        text = unary_text(e.op, host_expr(e.operand, UNARY_PRECEDENCE))
        return f"({text})" if prec > UNARY_PRECEDENCE else text
    if isinstance(e, ir.Cast):
        return f"{host_expr(e.value, 20)}.to({host_dtype(e.dtype)})"
    if isinstance(e, ir.Call) and e.op == "where":
        c, a, b = (host_expr(x, 2) for x in e.args)
        return f"({a} if {c} else {b})" if prec > 1 else f"{a} if {c} else {b}"
    if isinstance(e, ir.Call) and e.op == "if_none":
        value, fallback = e.args
        text = (
            f"{host_expr(fallback, 2)} if {host_expr(value, 2)} is None else {host_expr(value, 2)}"
        )
        return f"({text})" if prec > 1 else text
    if isinstance(e, ir.Call):
        template = load_grammar("triton")["host_pointwise"].get(e.op)
        if template is None:
            raise ValueError(f"op {e.op} has no host spelling")
        return template.format(*(host_expr(a) for a in e.args))
    raise ValueError(f"not a host expression: {type(e).__name__}")


def host_dtype(dtype: ir.DTypeExpr) -> str:
    """``torch.float32`` or ``x.dtype``."""
    if isinstance(dtype, ir.DTypeOf):
        return f"{dtype.tensor}.dtype"
    return load_grammar("triton")["host_dtypes"][dtype.name]


def _emit_entry(entry: ir.Entry) -> tuple[list[dict], dict, bool]:
    # Block-1 grid dims (batch, heads) become plain indices: 2-D tiles and dots are far faster.
    entry = fewer_stages_for_squeezed_dots(
        entry, squeeze_unit_tiles(entry, unit_block_tiles(entry))
    )
    verify_entry(entry)
    envs: dict[int, TypeEnv] = {}

    def capture(stmt: ir.Stmt, env: TypeEnv) -> None:
        if isinstance(stmt, ir.Kernel):
            envs[id(stmt)] = env.child()

    walk_entry(entry, capture)
    kernels = []
    host_lines: list[str] = []
    needs_math = False
    for stmt in entry.body:
        for c in stmt.comments:
            host_lines.append(f"# {c}")
        if isinstance(stmt, ir.Kernel):
            kernel, launch = _emit_kernel(entry, stmt, envs[id(stmt)])
            kernels.append(kernel)
            host_lines.extend(launch)
        else:
            line = _host_stmt(stmt)
            needs_math = needs_math or "math." in line
            host_lines.append(line)
    params = []
    for p in entry.params:
        text = p.name
        if p.annotation:
            text += f": {p.annotation}"
        if p.default is not None:
            text += f" = {host_expr(p.default)}" if p.annotation else f"={host_expr(p.default)}"
        params.append(text)
    wrapper = {
        "name": entry.name,
        "params": params,
        "returns": entry.return_annotation,
        "docstring": entry.docstring,
        "comments": entry.comments,
        "body": host_lines,
    }
    return kernels, wrapper, needs_math


def _host_stmt(s: ir.Stmt) -> str:
    if isinstance(s, ir.ShapeUnpack):
        targets = ", ".join(t or "_" for t in s.targets)
        if len(s.targets) == 1:
            targets += ","
        return f"{targets} = {s.tensor}.shape"
    if isinstance(s, ir.Alloc):
        return f"{s.target} = {_alloc(s)}"
    if isinstance(s, ir.View):
        return f"{s.target} = {s.tensor}.view({', '.join(host_expr(d) for d in s.shape)})"
    if isinstance(s, ir.Assert):
        msg = f", {s.msg}" if s.msg else ""
        return f"assert {host_expr(s.test)}{msg}"
    if isinstance(s, ir.Assign):
        return f"{s.target} = {host_expr(s.value)}"
    if isinstance(s, ir.Return):
        if s.value is None:
            return "return"
        if isinstance(s.value, ir.TupleExpr):
            return "return " + ", ".join(host_expr(i) for i in s.value.items)
        return f"return {host_expr(s.value)}"
    raise ValueError(f"unexpected host statement {type(s).__name__}")


def _alloc(s: ir.Alloc) -> str:
    fill = s.fill
    if s.like is not None:
        same_dtype = s.dtype == ir.DTypeOf(s.like)
        dtype = "" if same_dtype else f", dtype={host_dtype(s.dtype)}"
        if fill is None:
            return f"torch.empty_like({s.like}{dtype})"
        if fill == 0.0:
            return f"torch.zeros_like({s.like}{dtype})"
        return f"torch.full_like({s.like}, {float_literal(fill)}{dtype})"
    shape = "[" + ", ".join(host_expr(d) for d in s.shape or ()) + "]"
    opts = f"dtype={host_dtype(s.dtype)}, device={s.device_of}.device"
    if fill is None:
        return f"torch.empty({shape}, {opts})"
    if fill == 0.0:
        return f"torch.zeros({shape}, {opts})"
    return f"torch.full({shape}, {float_literal(fill)}, {opts})"


def _emit_kernel(entry: ir.Entry, kernel: ir.Kernel, env: TypeEnv) -> tuple[dict, list[str]]:
    emitter = KernelEmitter(entry, kernel, env, host_expr)
    body = emitter.body()
    sig = emitter.sig
    params = [f"{t}_ptr" for t in sig.tensors]
    params += [p for p, _ in sig.scalars]
    params += [p for p, _, _ in sig.strides]
    params += [f"{p}: tl.constexpr" for p, _ in sig.constexprs]
    autotune = _autotune(entry, kernel, emitter)
    # launch
    grid_terms = []
    tunable_consts = {const: tunable for tunable, const in sig.tunable_params.items()}
    for t in kernel.grid:
        extent = (
            host_expr(t.extent)
            if t.begin is None
            else (f"{host_expr(t.extent, 9)} - {host_expr(t.begin, 10)}")
        )
        if t.scalar:
            grid_terms.append(extent)
        elif isinstance(t.block, str):
            grid_terms.append(f'triton.cdiv({extent}, meta["{sig.tunable_params[t.block]}"])')
        else:
            grid_terms.append(f"triton.cdiv({extent}, {t.block.value})")
    pid_type = dict(entry.hints).get("pid_type", "flat")
    if pid_type == "xyz" and len(kernel.grid) > 1:
        grid = "(" + ", ".join(grid_terms) + ")"
    else:
        grid = "(" + " * ".join(grid_terms) + ",)"
    args = list(sig.tensors)
    args += [host for _, host in sig.scalars]
    args += [f"{t}.stride({d})" for _, t, d in sig.strides]
    for const, host in sig.constexprs:
        if host is not None:
            args.append(f"{const}={host}")
        elif autotune is None and const in tunable_consts:
            args.append(f"{const}={entry.tunable(tunable_consts[const]).default}")
    launch_opts = []
    if autotune is None:
        for knob in ("num_warps", "num_stages"):
            if any(t.name == knob for t in entry.tunables):
                launch_opts.append(f"{knob}={entry.tunable(knob).default}")
    uses_meta = "meta[" in grid
    # The grid reads the block sizes the autotuner picked from `meta`.
    lines = ["def grid(meta):", f"    return {grid}"] if uses_meta else [f"grid = {grid}"]
    lines.append(f"{kernel.name}[grid]({', '.join(args + launch_opts)})")
    kernel_dict = {
        "name": kernel.name,
        "params": params,
        "body": body,
        "autotune": autotune,
        "comments": kernel.doc_comments,
        "docstring": kernel.docstring,
    }
    return kernel_dict, lines


def _autotune(entry: ir.Entry, kernel: ir.Kernel, emitter: KernelEmitter) -> dict | None:
    """The ``@triton.autotune`` block: the source's configs, or a default Hopper space."""
    sig = emitter.sig
    block_tunables = [t for t in sig.tunable_params if t != "group_size"]
    configs = [dict(c) for c in entry.configs]
    if not configs:
        configs = _default_space(entry, kernel, block_tunables)
    if not configs:
        return None
    rendered = []
    seen = set()
    for c in configs:
        meta = {sig.tunable_params[t]: c[t] for t in sig.tunable_params if t in c}
        knobs = {k: c[k] for k in ("num_warps", "num_stages") if k in c}
        key = (tuple(meta.items()), tuple(knobs.items()))
        if key in seen:
            continue
        seen.add(key)
        rendered.append({"meta": meta, "knobs": knobs})
    keys = [p for p, _ in sig.scalars if p in _size_params(entry, sig)]
    return {"configs": rendered, "key": keys}


def _size_params(entry: ir.Entry, sig) -> set[str]:
    scalar_params = {p.name for p in entry.params if p.kind in ("float", "bool")}
    return {p for p, _ in sig.scalars if p not in scalar_params}


def _default_space(entry: ir.Entry, kernel: ir.Kernel, blocks: list[str]) -> list[dict]:
    from translator.ir.visit import all_exprs

    grammar = load_grammar("triton")["default_space"]
    has_dot = any(isinstance(e, ir.Dot) for e in all_exprs(kernel.body))
    out = []
    if has_dot and len(blocks) == 3:
        for c in grammar["dot"]["configs"]:
            cfg = dict(zip(blocks, c["block"]))
            cfg.update(num_warps=c["num_warps"], num_stages=c["num_stages"])
            if "group_size" in {t.name for t in entry.tunables}:
                cfg["group_size"] = c["group"]
            out.append(cfg)
        return out
    if len(blocks) == 1:
        full_rows = any(
            isinstance(e, ir.Load) and any(isinstance(i, ir.FullIndex) for i in e.index)
            for e in all_exprs(kernel.body)
        )
        space = grammar["rows" if full_rows else "pointwise"]["configs"]
        for c in space:
            out.append(
                {blocks[0]: c["block"], "num_warps": c["num_warps"], "num_stages": c["num_stages"]}
            )
        return out
    return []
