"""The plugin contract: a DSL is one dialect object, discovered; nothing else names a DSL.

* A toy dialect defined here (frontend and backend, ``tests/data/toy/``) is registered at run time
  and translates into and out of the bundled dialects through the registry, the API and the CLI,
  with no edit anywhere else; its translations compute what its source computes.
* No DSL is named in code (comments and docstrings aside) under ``translator/ir/``,
  ``translator/cli.py`` or the generic part of ``validation/``.
* The registry, the CLI's commands and the golden script see the same dialects.
"""

from __future__ import annotations

import ast
import os
import re
import sys
from pathlib import Path

os.environ["TRITON_INTERPRET"] = "1"

import libcst as cst  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from translator.api import parse_file, translate_file  # noqa: E402
from translator.diagnostics import TranslationError  # noqa: E402
from translator.dialects import dialects, register, unregister  # noqa: E402
from translator.dialects.base import Dialect  # noqa: E402
from translator.dialects.common.backend import Backend  # noqa: E402
from translator.dialects.common.passthrough import KernelCode, LaunchCode  # noqa: E402
from translator.dialects.cst_utils import Locator, parse_source, source_of  # noqa: E402
from translator.ir import nodes as ir  # noqa: E402
from translator.ir.verifier import verify  # noqa: E402
from translator.ir.visit import walk_stmts  # noqa: E402
from validation.equivalence import check_pair  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TOY = ROOT / "tests" / "data" / "toy"


# --------------------------------------------------------------------------------------------------
# A toy dialect: `@toy.pointwise def k(x, out, alpha): out[...] = x[...] * alpha` over flat tensors

_OPS = {cst.Add: "+", cst.Subtract: "-", cst.Multiply: "*", cst.Divide: "/"}


def _toy_expr(node: cst.BaseExpression, tile: str, params: dict[str, str]) -> ir.Expr:
    if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name):
        return ir.Load(node.value.value, (ir.TileIndex(tile),))
    if isinstance(node, cst.Name) and params.get(node.value) == "float":
        return ir.Name(node.value)
    if isinstance(node, (cst.Integer, cst.Float)):
        return ir.Const(float(node.evaluated_value))
    if isinstance(node, cst.BinaryOperation) and type(node.operator) in _OPS:
        lhs, rhs = (_toy_expr(x, tile, params) for x in (node.left, node.right))
        return ir.BinOp(_OPS[type(node.operator)], lhs, rhs)
    raise TranslationError(f"the toy DSL has no `{source_of(node)}`", None)


def toy_parse(source: str, path: str) -> ir.Module:
    """The toy frontend: each `@toy.pointwise` function is a kernel, each call of it a launch."""
    wrapper = parse_source(source, path)
    locate = Locator(wrapper, path)
    kernels: dict[str, ir.Kernel] = {}
    edits: list[ir.HostEdit] = []
    for stmt in wrapper.module.body:
        if not (isinstance(stmt, cst.FunctionDef) and stmt.decorators):
            continue
        params = {
            p.name.value: ("tensor" if "Tensor" in source_of(p.annotation.annotation) else "float")
            for p in stmt.params.params
        }
        first = next(n for n, k in params.items() if k == "tensor")
        body = []
        for line in stmt.body.body:  # type: ignore[union-attr]
            assign = line.body[0]  # type: ignore[union-attr]
            target = assign.targets[0].target.value.value
            body.append(
                ir.Store(target, (ir.TileIndex("t"),), _toy_expr(assign.value, "t", params))
            )
        tunables = (ir.Tunable("block", "block_size", 128), ir.Tunable("num_warps", "num_warps", 4))
        kernels[stmt.name.value] = ir.Kernel(
            stmt.name.value,
            tuple(ir.Param(n, k, rank=1 if k == "tensor" else None) for n, k in params.items()),
            (ir.TileVar("t", ir.SizeOf(first, 0), "block"),),
            tuple(body),
            tunables,
        )
        edits.append(ir.HostEdit("define", locate.span(stmt), kernels=(stmt.name.value,)))
    sites: list[ir.Site] = []
    entries = []
    for stmt in wrapper.module.body:
        if not isinstance(stmt, cst.FunctionDef) or stmt.decorators:
            continue
        launches: list[ir.Stmt] = []
        for node in _calls(stmt, set(kernels)):
            k = kernels[node.func.value]  # type: ignore[union-attr]
            texts = tuple(source_of(a.value) for a in node.args)
            carried = [
                ir.Carried(f"arg{i}_{len(sites)}", p.kind, t, p.rank)
                for i, (p, t) in enumerate(zip(k.params, texts))
            ]
            sites.append(ir.Site(locate.span(node), statement=False))
            launches += carried
            args = tuple(ir.Name(c.target) for c in carried)
            launches.append(ir.Launch(k.name, args, texts, site=len(sites) - 1))
        params = tuple(ir.Param(p.name.value, "tensor") for p in stmt.params.params[:2])
        params += (ir.Param("alpha", "float", ir.Const(2.0)),)
        entries.append(ir.Entry(stmt.name.value, params, tuple(launches), complete=False))
    module = ir.Module(
        path,
        tuple(entries),
        tuple(kernels.values()),
        ir.HostPlan(source, tuple(sites), tuple(edits), ("toy",)),
        source_dialect="toy",
    )
    verify(module)
    return module


def _calls(fn: cst.FunctionDef, names: set[str]) -> list[cst.Call]:
    found: list[cst.Call] = []

    class V(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            if isinstance(node.func, cst.Name) and node.func.value in names:
                found.append(node)

    fn.visit(V())
    return found


class ToyBackend(Backend):
    """Writes flat pointwise kernels back as `@toy.pointwise` functions; refuses the rest."""

    name = "toy"

    def imports(self, module: ir.Module) -> tuple[str, ...]:
        return ("import toy",)

    def kernel_code(self, kernel: ir.Kernel, module: ir.Module) -> KernelCode:
        (tile,) = kernel.grid
        lines = []
        for s in kernel.body:
            if isinstance(s, ir.Assign):
                lines.append(f"    {s.target} = {self.expr(s.value, tile.name, kernel)}")
            elif isinstance(s, ir.Store):
                lines.append(f"    {s.tensor}[...] = {self.expr(s.value, tile.name, kernel)}")
            else:
                raise TranslationError("the toy DSL has only pointwise statements", kernel.loc)
        params = ", ".join(
            f"{p.name}: {'toy.Tensor' if p.kind == 'tensor' else p.kind}" for p in kernel.params
        )
        return KernelCode(f"@toy.pointwise\ndef {kernel.name}({params}):\n" + "\n".join(lines))

    def expr(self, e: ir.Expr, tile: str, kernel: ir.Kernel) -> str:
        if isinstance(e, ir.Load) and e.index == (ir.TileIndex(tile),):
            return f"{e.tensor}[...]"
        if isinstance(e, ir.Name):
            return e.id
        if isinstance(e, ir.Const):
            return repr(e.value)
        if isinstance(e, ir.Cast) and isinstance(e.dtype, ir.DType):
            return f"{self.expr(e.value, tile, kernel)}.to(torch.{e.dtype.name})"
        if isinstance(e, ir.BinOp) and e.op in _OPS.values():
            return f"({self.expr(e.lhs, tile, kernel)} {e.op} {self.expr(e.rhs, tile, kernel)})"
        raise TranslationError(f"the toy DSL cannot write {type(e).__name__}", kernel.loc)

    def launch_code(self, kernel: ir.Kernel, launch: ir.Launch, module: ir.Module) -> LaunchCode:
        return LaunchCode(f"{kernel.name}({', '.join(launch.texts)})")


TOY_DIALECT = Dialect(
    name="toy",
    description="a pointwise toy DSL (tests only)",
    frontend=toy_parse,
    backend=ToyBackend,
    packages=("toy",),
)


@pytest.fixture
def toy():
    register(TOY_DIALECT)
    sys.path.insert(0, str(TOY))
    try:
        yield TOY_DIALECT
    finally:
        sys.path.remove(str(TOY))
        unregister("toy")


def _inputs(entry: str, device: str, dtype: str) -> tuple:
    d = getattr(torch, dtype)
    return (torch.randn(7, 45, dtype=d), torch.randn(7, 45, dtype=d), 0.5)


@pytest.mark.parametrize("dst", ["triton", "helion"])
def test_a_toy_dialect_registered_in_a_test_translates_both_ways(toy, dst, tmp_path):
    assert "toy" in dialects()
    source = TOY / "scaled_sum.py"
    out = tmp_path / f"scaled_sum_{dst}.py"
    out.write_text(translate_file(source, None, dst))  # the source DSL detected from its imports
    text = out.read_text()
    assert "import toy" not in text and "@toy.pointwise" not in text
    assert {"triton": "@triton.jit", "helion": "@helion.kernel"}[dst] in text
    report = check_pair(source, out, dtypes=("float32",), seeds=(0,), inputs=_inputs)
    assert report.rows and report.passed, report.format_text()
    # ...and back into the toy DSL.
    back = tmp_path / "scaled_sum_toy.py"
    back.write_text(translate_file(out, dst, "toy"))
    assert "@toy.pointwise" in back.read_text()
    report = check_pair(
        source, back, src_dsl="toy", dtypes=("float32",), seeds=(0,), inputs=_inputs
    )
    assert report.rows and report.passed, report.format_text()


def test_the_cli_translates_a_registered_dialect(toy, tmp_path):
    from translator.cli import invoke

    out = tmp_path / "t.py"
    result = invoke(
        ["translate", str(TOY / "scaled_sum.py"), "--from", "toy", "--to", "triton", "-o", out]
    )
    assert result.exit_code == 0, result.output
    assert "@triton.jit" in out.read_text()
    result = invoke(["translate", str(TOY / "scaled_sum.py"), "--to", "cobol"])
    assert result.exit_code == 3 and "invalid choice: 'cobol'" in result.output


def test_a_backend_without_a_hook_refuses_with_a_diagnostic(toy):
    with pytest.raises(TranslationError, match="only pointwise statements|cannot write"):
        translate_file(ROOT / "examples" / "helion" / "softmax.py", "helion", "toy")


def test_dialects_are_discovered_from_their_folders():
    folders = {
        p.name
        for p in (ROOT / "translator" / "dialects").iterdir()
        if p.is_dir() and (p / "__init__.py").exists() and p.name != "common"
    }
    assert folders <= set(dialects())
    for name in folders:
        assert (ROOT / "grammars" / f"{name}.toml").exists()
        assert (ROOT / "templates" / name).is_dir()


_DSL_WORDS = re.compile(r"triton|helion|tilelang|cutile|cuda\.tile", re.IGNORECASE)


def _dsl_names_in_code(path: Path) -> list[str]:
    """DSL names in ``path``'s code: identifiers, attributes, imports and string literals that
    are not docstrings."""
    tree = ast.parse(path.read_text())
    docs = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    found = []
    for node in ast.walk(tree):
        words: list[str] = []
        if isinstance(node, ast.Name):
            words = [node.id]
        elif isinstance(node, ast.Attribute):
            words = [node.attr]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            words = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
        elif (
            isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
        ):
            words = [node.value]
        found += [f"{path.name}:{node.lineno}: {w!r}" for w in words if _DSL_WORDS.search(w)]
    return found


def test_no_dsl_is_named_outside_the_dialects():
    generic = [
        *sorted((ROOT / "translator" / "ir").glob("*.py")),
        ROOT / "translator" / "cli.py",
        *sorted((ROOT / "validation").glob("*.py")),
    ]
    found = [hit for path in generic for hit in _dsl_names_in_code(path)]
    assert not found, "\n".join(found)
    # The check itself finds names where there are some.
    assert _dsl_names_in_code(ROOT / "translator" / "dialects" / "triton" / "runner.py")


def test_parse_detects_the_dsl_of_a_file():
    assert parse_file(ROOT / "examples" / "helion" / "add.py").source_dialect == "helion"
    assert parse_file(ROOT / "examples" / "triton" / "add.py").source_dialect == "triton"
    # A translation that still imports its source's package for host helpers is read as what
    # its device code is written in.
    golden = ROOT / "examples" / "triton" / "expected_helion" / "rms_norm.py"
    assert "import triton\n" in golden.read_text()
    assert parse_file(golden).source_dialect == "helion"
    for k in parse_file(golden).kernels:
        assert not any(isinstance(s, ir.InlineKernel) for s in walk_stmts(k.body))
