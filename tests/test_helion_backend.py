"""The Helion backend: round trips of the examples, emitted text, exactness at ragged edges.

* every Helion example, translated Helion → IR → Helion, computes what the source computes (CPU,
  ``TRITON_INTERPRET=1``, ragged sizes, fp32 and fp16);
* translating that output to Triton gives the Triton translation of the source (the IR survives
  the round trip), with the differences that are expected spelled out;
* hand-built IR for constructs no Helion example has (``hl.grid``, gathers, scatters, atomics,
  unmasked reductions, dots whose output dtype matters) runs under Helion exactly as the IR
  reference interpreter runs it;
* what Helion cannot express exactly is refused (exit code 2 from the CLI).
"""

from __future__ import annotations

import os

# Kernels run in Triton's interpreter; set it before anything imports triton.
os.environ["TRITON_INTERPRET"] = "1"

import dataclasses  # noqa: E402
import difflib  # noqa: E402
import itertools  # noqa: E402
import re  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
import torch  # noqa: E402
from ir_build import hand_module, inline_entry, only_kernel, replace_kernel  # noqa: E402

from translator.api import parse_file, parse_source, translate_file, translate_source  # noqa: E402
from translator.cli import invoke  # noqa: E402
from translator.diagnostics import TranslationError  # noqa: E402
from translator.dialects.helion.backend import HelionBackend, emit  # noqa: E402
from translator.ir import nodes as ir  # noqa: E402
from translator.ir.interpreter import run_module  # noqa: E402
from translator.ir.printer import format_kernel, format_module  # noqa: E402
from translator.ir.verifier import verify  # noqa: E402
from translator.ir.visit import kernel_exprs, walk_stmts  # noqa: E402
from translator.provenance import provenance_lines  # noqa: E402
from validation.equivalence import check_pair, use_interpreter  # noqa: E402
from validation.runners import load_module  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples" / "helion").glob("*.py"))


@pytest.fixture(autouse=True)
def _repo_cwd(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


# ------------------------------------------------------------------------------------------------
# Round trips of the examples


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_round_trip_matches_source_on_cpu(example: Path) -> None:
    translated = example.parent / "expected_helion" / example.name
    # One seed: sizes do not depend on it, and both dtypes run (the upcasts depend on them).
    report = check_pair(example, translated, seeds=(0,))
    assert report.rows, "no case ran"
    assert report.passed, report.format_text()


def _without_provenance(text: str) -> list[str]:
    # The frontend keeps a generated file's header comments, so the Helion output's provenance
    # lines reappear under the Triton output's own; they name files and hashes, nothing else.
    lines = text.splitlines()
    header = provenance_lines(lines)
    # Every provenance header in the text (each one's first line found by is_provenance), its
    # wrapped continuation lines too.
    return [line for i, line in enumerate(lines) if i not in header]


# The IR of a round trip differs from the source's only where torch's dtype rules and the IR's
# disagree: inside `torch.softmax` (a composite the frontend decomposes) the IR computes exp in
# float32 whatever its operand (shapes.py, `"float"` ops), as torch's softmax kernel does, while
# a `torch.exp` written out of an fp16 tile would round to fp16. The backend therefore upcasts the
# operand (`torch.exp(x.to(torch.float32))`), which reads back as an explicit cast: (source IR,
# round-trip IR) below. (A `torch.exp` the source writes itself reads as exp rounded back to the
# operand's dtype, and prints as the same call: helion/exp.py round-trips exactly.)
IR_DIFFERS = {
    "softmax": ("exp(softmax_in - softmax_max)", "exp(cast(softmax_in - softmax_max, float32))"),
}


def _rewrite(node: object, fn) -> object:
    """``node`` rebuilt bottom-up, ``fn`` applied to every node (locations dropped)."""
    if isinstance(node, tuple):
        return tuple(_rewrite(v, fn) for v in node)
    if not dataclasses.is_dataclass(node) or isinstance(node, type):
        return node
    fields = (f.name for f in dataclasses.fields(node) if f.name != "loc")
    return fn(dataclasses.replace(node, **{f: _rewrite(getattr(node, f), fn) for f in fields}))


def _exp_of_f32_cast(e: object) -> object:
    """``exp(cast(v, float32))`` as ``exp(v)`` (IR_DIFFERS)."""
    if isinstance(e, ir.Call) and e.op == "exp":
        (arg,) = e.args
        if isinstance(arg, ir.Cast) and arg.dtype == ir.F32:
            return dataclasses.replace(e, args=(arg.value,))
    return e


def _size_names(module: ir.Module) -> dict[ir.Expr, ir.Name]:
    """``x.size(d)`` of the module's kernel as the scalar parameter its launch binds to that size
    (``n`` of ``m, n = x.size()`` on the host)."""
    (entry,) = module.entries
    (launch,) = entry.launches()
    kernel = module.kernel(launch.kernel)
    unpacked = {
        t: (s.tensor, d)
        for s in entry.body
        if isinstance(s, ir.ShapeUnpack)
        for d, t in enumerate(s.targets)
        if t is not None
    }
    param_of = {a.id: p.name for p, a in zip(kernel.params, launch.args) if isinstance(a, ir.Name)}
    names: dict[ir.Expr, ir.Name] = {}
    for p, a in zip(kernel.params, launch.args):
        if isinstance(a, ir.Name) and a.id in unpacked and unpacked[a.id][0] in param_of:
            tensor, d = unpacked[a.id]
            names.setdefault(ir.SizeOf(param_of[tensor], d), ir.Name(p.name))
    return names


def _round_trip_kernels(
    source: ir.Module, back: ir.Module, ir_differs: bool = False
) -> tuple[ir.Kernel, ir.Kernel, bool]:
    """The kernels of a source and of its Helion round trip in a normal form for comparing them,
    and whether they were equal without it. They may differ in presentation only:

    * what a launch proves of a tensor parameter: the source's host allocates ``losses`` in
      float32, which the output's kernel function does not say; that function indexes ``y``
      with two indices, a rank the source's launch did not prove;
    * sizes: device code reads a size as the host variable the source bound to it (``n`` of
      ``m, n = x.size()``), the output's kernel function (whose ``n`` is any int) as
      ``x.size(1)``; such a parameter, then unread, may be left out of the kernel read back;
    * the extent of a whole dim (``x[tile, :]``), which the source names by a host value it
      knows to equal it (``n`` for ``out[tile, :]`` of ``out = torch.empty_like(x)``) and the
      kernel function by the tensor's size;
    * with ``ir_differs``, the float32 casts of exp operands (IR_DIFFERS).
    """
    (sk,), (bk,) = source.kernels, back.kernels
    if ir_differs:
        bk = _rewrite(bk, _exp_of_f32_cast)  # type: ignore[assignment]
    sk, bk = _rewrite(sk, lambda n: n), _rewrite(bk, lambda n: n)  # without locations
    kept = {p.name for p in bk.params}
    assert {p.name for p in sk.params} >= kept, "the round trip has parameters the source lacks"
    for bp in bk.params:
        sp = sk.param(bp.name)
        assert (sp.kind, sp.constexpr, sp.default) == (bp.kind, bp.constexpr, bp.default), (sp, bp)
        assert sp.rank in (None, bp.rank), (sp, bp)  # the same rank, or one the source left open
        assert bp.dtype in (None, sp.dtype), (sp, bp)  # the same dtype, or none said
    same_params = [p.name for p in sk.params] == [p.name for p in bk.params]
    exact = same_params and dataclasses.replace(bk, params=sk.params) == sk
    names = _size_names(source)

    def normal(n: object) -> object:
        if isinstance(n, ir.SizeOf):
            return names.get(n, n)
        if isinstance(n, ir.FullIndex):
            return ir.FullIndex()
        return n

    sk, bk = _rewrite(sk, normal), _rewrite(bk, normal)  # type: ignore[assignment]
    lost = {p.name for p in sk.params} - kept
    unread = lost - {e.id for e in kernel_exprs(bk) if isinstance(e, ir.Name)}
    assert lost == unread and all(ir.Name(n) in names.values() for n in lost), (
        f"the round trip lost parameters {sorted(lost)}"
    )
    return dataclasses.replace(sk, params=bk.params), bk, exact


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_round_trip_keeps_the_ir(example: Path) -> None:
    # Each IR kernel is a Helion kernel function of its own now, launched from the source's host
    # function, which is carried as written. Read back, the output has the source's kernel (up to
    # presentation, see _round_trip_kernels), launched from the source's host function with the
    # source's arguments.
    path = os.path.relpath(example, ROOT)
    helion = translate_file(path, "helion", "helion")
    source_ir, round_ir = parse_file(path, "helion"), parse_source(helion, path, "helion")
    (kernel,) = source_ir.kernels
    (source_entry,) = source_ir.entries
    (source_launch,) = source_entry.launches()
    assert f"def {source_entry.name}(" in helion
    assert "@helion.kernel" not in helion.split(f"def {source_entry.name}(")[1]
    call = f"{kernel.name}({', '.join(source_launch.texts)})"
    assert _flat(call) in _flat(helion), call
    (entry,) = round_ir.entries
    (launch,) = entry.launches()
    assert (entry.name, launch.kernel, launch.texts) == (
        source_entry.name,
        kernel.name,
        source_launch.texts,
    )
    if example.stem in IR_DIFFERS:
        before, after = IR_DIFFERS[example.stem]
        assert before in format_module(source_ir) and after in format_module(round_ir)
    source_kernel, round_kernel, exact = _round_trip_kernels(
        source_ir, round_ir, example.stem in IR_DIFFERS
    )
    assert round_kernel == source_kernel, "\n".join(
        difflib.unified_diff(
            format_kernel(source_kernel).splitlines(),
            format_kernel(round_kernel).splitlines(),
            lineterm="",
        )
    )
    if exact:
        # The same kernel: translating the output to Triton gives the Triton translation of the
        # source, up to its host function (carried from another source: the layout of comments
        # there may differ).
        direct = translate_file(path, "helion", "triton")
        via_helion = translate_source(helion, path, "helion", "triton")

        def kernels_part(text: str) -> list[str]:
            lines = "\n".join(_without_provenance(text))
            return lines.split(f"\ndef {entry.name}(")[0].split("\n")

        diff = "\n".join(
            difflib.unified_diff(kernels_part(direct), kernels_part(via_helion), lineterm="")
        )
        assert not diff, diff


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_a_second_round_trip_changes_nothing(example: Path) -> None:
    path = os.path.relpath(example, ROOT)
    helion = translate_file(path, "helion", "helion")
    again = translate_source(helion, path, "helion", "helion")
    diff = "\n".join(
        difflib.unified_diff(_without_provenance(helion), _without_provenance(again), lineterm="")
    )
    assert not diff, diff


def test_spellings_the_backend_writes_read_back() -> None:
    """``hl.atomic_xchg`` and Python's ``abs`` on numbers, which the backend writes and the
    frontend once refused (the first caught by tests/test_grammars.py, the second by trying the
    backend's host-number spellings, which that test checks only where the frontend reads them)."""
    source = (
        "import torch\n\nimport helion\nimport helion.language as hl\n\n\n"
        "@helion.kernel(config=helion.Config(block_sizes=[16]))\n"
        "def swap_in(x: torch.Tensor, s: float) -> torch.Tensor:\n"
        "    (m,) = x.size()\n"
        "    out = torch.zeros([m], dtype=x.dtype, device=x.device)\n"
        "    for tm in hl.tile(m):\n"
        "        hl.atomic_xchg(out, [tm], x[tm] * abs(s))\n"
        "    return out\n"
    )
    kernel = only_kernel(parse_source(source, "swap_in.py", "helion"))
    (atomic,) = [s for s in walk_stmts(kernel.body) if isinstance(s, ir.AtomicRMW)]
    assert atomic.op == "xchg" and ir.Call("abs", (ir.Name("s"),)) in kernel_exprs(kernel)
    assert "hl.atomic_xchg(out, [tm], x[tm] * abs(s))" in _emit_source(source)


# ------------------------------------------------------------------------------------------------
# Emitted text


def _emit_source(source: str) -> str:
    return translate_source(source, "kernel.py", "helion", "helion")


HEADER = "import helion\nimport helion.language as hl\nimport torch\n\n\n"


def test_block_sizes_follow_helions_numbering() -> None:
    # A registered size takes its slot when registered, before the loops: the source's config is
    # [bn=64, tile_m's=8]. A shared size makes the backend register every block size, in the IR's
    # order (the source's), so the config reads the same.
    text = _emit_source(
        HEADER
        + """\
@helion.kernel(config=helion.Config(block_sizes=[64, 8]))
def f(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    bn = hl.register_block_size(n)
    for tile_m in hl.tile(m):
        for tile_n in hl.tile(n, block_size=bn):
            out[tile_m, tile_n] = x[tile_m, tile_n] + 1
        for tile_n in hl.tile(n, block_size=bn):
            out[tile_m, tile_n] = out[tile_m, tile_n] * 2
    return out
"""
    )
    assert "config=helion.Config(block_sizes=[64, 8])" in text
    assert "bn = hl.register_block_size(n)\n    block_size_m = hl.register_block_size(m)" in text
    assert "for tile_m in hl.tile(m, block_size=block_size_m):" in text
    assert text.count("hl.tile(n, block_size=bn)") == 2


def test_block_sizes_of_unshared_tiles_in_depth_first_order() -> None:
    # IR tunables listed in another order than the loops meet them (as a Triton frontend may
    # give them): the config follows the loops, grid dims first, then the K loop.
    module = parse_file("examples/helion/matmul.py", "helion")
    kernel = only_kernel(module)
    tunables = (kernel.tunables[2], kernel.tunables[0], kernel.tunables[1], *kernel.tunables[3:])
    configs = (kernel.configs[1],)  # m=128, n=256, k=64
    text = emit(
        replace_kernel(module, dataclasses.replace(kernel, tunables=tunables, configs=configs))
    )
    assert (
        "config=helion.Config(block_sizes=[128, 256, 64], num_warps=8, num_stages=3, "
        "l2_groupings=[8])" in text
    )
    assert "for tile_k in hl.tile(k):" in text


def test_scalar_grid_and_gather() -> None:
    text = _emit_source(
        HEADER
        + """\
@helion.kernel(config=helion.Config(block_sizes=[32]))
def f(x: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    (k,) = idx.size()
    out = torch.empty([k, n], dtype=x.dtype, device=x.device)
    flat = x.view(-1)
    for i in hl.grid(k):
        for tile_n in hl.tile(n):
            out[i, tile_n] = hl.load(flat, [idx[i] * n + tile_n.index])
    return out
"""
    )
    assert "    for i in hl.grid(k):\n        for tile_n in hl.tile(n):\n" in text
    assert "out[i, tile_n] = hl.load(flat, [idx[i] * n + tile_n.index])" in text


# ------------------------------------------------------------------------------------------------
# Hand-built IR against the reference interpreter


def N(name: str) -> ir.Name:
    return ir.Name(name)


def C(value: float | int | bool) -> ir.Const:
    return ir.Const(value)


def B(op: str, lhs: ir.Expr, rhs: ir.Expr) -> ir.BinOp:
    return ir.BinOp(op, lhs, rhs)


def T(*names: str) -> tuple[ir.IndexItem, ...]:
    return tuple(ir.TileIndex(n) for n in names)


def L(tensor: str, *index: ir.IndexItem, other: float | None = 0.0) -> ir.Load:
    return ir.Load(tensor, index, other)


def tile(
    name: str,
    extent: ir.Expr,
    block: str | int,
    begin: ir.Expr | None = None,
    scalar: bool = False,
    step: ir.Expr | None = None,
) -> ir.TileVar:
    return ir.TileVar(
        name, extent, C(block) if isinstance(block, int) else block, begin, scalar, step
    )


def _module(
    name: str, params: tuple[str, ...], body: list[ir.Stmt], blocks: dict[str, int]
) -> ir.Module:
    """An entry written as Helion writes it (its kernel in place, sharing the entry's block sizes
    and ``num_warps``), outlined as a frontend outlines it."""
    tunables = tuple(ir.Tunable(k, "block_size", v) for k, v in blocks.items())
    tunables += (ir.Tunable("num_warps", "num_warps", 4),)
    params_ = tuple(ir.Param(p, "tensor") for p in params)
    return hand_module("hand.py", inline_entry(name, params_, body, tunables))


def _run_ir(module: ir.Module, *args: object) -> object:
    """What the reference interpreter computes for the module's one entry."""
    (entry,) = module.entries
    return run_module(module, entry.name, *args)


M_N = ir.ShapeUnpack(("m", "n"), "x")
ROWS = ir.Alloc("out", (N("m"),), None, ir.F32, "x")
F32 = ir.F32


def _row_reduce(op: str, other: float | None, wrap=lambda v: v) -> ir.Module:
    """``out[i] = op_j wrap(x[i, j])`` over a K-style loop, with an unmasked reduction."""
    kernel = ir.InlineKernel(
        "kern",
        (tile("tm", N("m"), "bm"),),
        (
            ir.Assign("acc", ir.Full((ir.BlockDim("tm"),), C(0.0), F32)),
            ir.TileLoop(
                (tile("tn", N("n"), "bn"),),
                (
                    ir.Assign("v", wrap(L("x", *T("tm", "tn"), other=other))),
                    ir.Assign("acc", B("+", N("acc"), ir.Reduce(op, N("v"), 1, masked=False))),
                ),
            ),
            ir.Store("out", T("tm"), N("acc")),
        ),
    )
    return _module(
        f"red_{op}", ("x",), [M_N, ROWS, kernel, ir.Return(N("out"))], {"bm": 16, "bn": 16}
    )


def _mixed_grid() -> ir.Module:
    # An IR index (scalar) next to a tile in one grid: one hl.tile with a block-1 dim.
    kernel = ir.InlineKernel(
        "kern",
        (tile("i", N("m"), 1, scalar=True), tile("tn", N("n"), "bn")),
        (
            ir.Store(
                "out",
                T("i", "tn"),
                B("*", L("x", *T("i", "tn")), ir.Cast(ir.TileAttr("i", "index"), F32)),
            ),
        ),
    )
    like = ir.Alloc("out", None, "x", ir.DTypeOf("x"), "x")
    return _module("mixed", ("x",), [M_N, like, kernel, ir.Return(N("out"))], {"bn": 16})


def _scatter_atomic() -> ir.Module:
    row = L("x", ir.TileIndex("tm"), ir.FullIndex(N("n")))
    kernel = ir.InlineKernel(
        "kern",
        (tile("tm", N("m"), "bm"),),
        (
            ir.Assign("i", L("idx", *T("tm"))),
            ir.Store("out", (ir.GatherIndex(N("i")),), ir.Reduce("sum", row, 1)),
            ir.AtomicRMW("add", "cols", (ir.FullIndex(N("n")),), ir.Reduce("sum", row, 0)),
        ),
    )
    cols = ir.Alloc("cols", (N("n"),), None, F32, "x", 0.0)
    ret = ir.Return(ir.TupleExpr((N("out"), N("cols"))))
    return _module("scatter", ("x", "idx"), [M_N, ROWS, cols, kernel, ret], {"bm": 16})


def _dot(shift_lhs: bool, shift_rhs: bool) -> ir.Module:
    """fp16 operands, fp32 products without an accumulator (so the output dtype matters)."""
    a, b = L("a", *T("tm", "tk")), L("b", *T("tk", "tn"))
    a = B("+", a, C(1.0)) if shift_lhs else a
    b = B("+", b, C(1.0)) if shift_rhs else b
    acc = ir.Full((ir.BlockDim("tm"), ir.BlockDim("tn")), C(0.0), F32)
    kernel = ir.InlineKernel(
        "kern",
        (tile("tm", N("m"), "bm"), tile("tn", N("n"), "bn")),
        (
            ir.Assign("acc", acc),
            ir.TileLoop(
                (tile("tk", N("k"), "bk"),),
                (ir.Assign("acc", B("+", N("acc"), ir.Dot(a, b, None, F32, precision="tf32"))),),
            ),
            ir.Store("out", T("tm", "tn"), N("acc")),
        ),
    )
    body = [
        ir.ShapeUnpack(("m", "k"), "a"),
        ir.ShapeUnpack((None, "n"), "b"),
        ir.Alloc("out", (N("m"), N("n")), None, F32, "a"),
        kernel,
        ir.Return(N("out")),
    ]
    return _module("dot", ("a", "b"), body, {"bm": 16, "bn": 16, "bk": 16})


def _triton_softmax(shift: ir.Expr | None = None) -> ir.Module:
    """Triton's tutorial softmax as its frontend gives it: one row per program, the row padded
    with -inf, unmasked max and sum (``exp(row - max(row))`` is 0 on the padding)."""
    row = ir.Cast(L("x", ir.TileIndex("r"), ir.FullIndex(N("n")), other=float("-inf")), F32)
    shift = shift if shift is not None else ir.Reduce("max", N("row"), 0, masked=False)
    kernel = ir.InlineKernel(
        "kern",
        (tile("r", N("m"), 1, scalar=True),),
        (
            ir.Assign("row", row),
            ir.Assign("num", ir.Call("exp", (B("-", N("row"), shift),))),
            ir.Assign("den", ir.Reduce("sum", N("num"), 0, masked=False)),
            ir.Store("out", (ir.TileIndex("r"), ir.FullIndex(N("n"))), B("/", N("num"), N("den"))),
        ),
    )
    like = ir.Alloc("out", None, "x", ir.DTypeOf("x"), "x")
    return _module("softmax", ("x",), [M_N, like, kernel, ir.Return(N("out"))], {})


def _online_max() -> ir.Module:
    """A running max started from a number and updated with 0-d reductions in a loop."""
    kernel = ir.InlineKernel(
        "kern",
        (tile("r", N("m"), 1, scalar=True),),
        (
            ir.Assign("best", C(float("-inf"))),
            ir.TileLoop(
                (tile("tn", N("n"), "bn"),),
                (
                    ir.Assign(
                        "best",
                        ir.Call(
                            "maximum",
                            (
                                N("best"),
                                ir.Reduce(
                                    "max",
                                    L(
                                        "x",
                                        ir.TileIndex("r"),
                                        ir.TileIndex("tn"),
                                        other=float("-inf"),
                                    ),
                                    0,
                                    masked=False,
                                ),
                            ),
                        ),
                    ),
                ),
            ),
            ir.Store("out", T("r"), N("best")),
        ),
    )
    return _module("online_max", ("x",), [M_N, ROWS, kernel, ir.Return(N("out"))], {"bn": 16})


X = torch.randn(37, 45, generator=torch.Generator().manual_seed(0))
IDX = torch.randperm(37, generator=torch.Generator().manual_seed(1))
A16 = torch.randn(37, 45, generator=torch.Generator().manual_seed(2)).half()
B16 = torch.randn(45, 29, generator=torch.Generator().manual_seed(3)).half()

HAND = {
    # (module, inputs, a line the Helion text must contain)
    "unmasked_max_neg_inf": (_row_reduce("max", float("-inf")), (X,), "torch.amax(v, dim=1)"),
    "unmasked_sum_exp_neg_inf": (
        _row_reduce("sum", float("-inf"), lambda v: ir.Call("exp", (v,))),
        (X,),
        "v = torch.exp(x[tm, tn].to(torch.float32))",
    ),
    "triton_softmax": (_triton_softmax(), (X,), "num = torch.exp(row - torch.amax(row, dim=0))"),
    "number_then_tensor": (_online_max(), (X,), 'best = hl.full([], float("-inf"), dtype=x.dtype)'),
    "mixed_grid": (_mixed_grid(), (X,), "for i, tn in hl.tile([m, n], block_size=[1, None]):"),
    "scatter_atomic": (
        _scatter_atomic(),
        (X, IDX),
        "hl.atomic_add(cols, [slice(None)], torch.sum(x[tm, :], dim=0))",
    ),
    # Computed operands whose out-of-bounds K lanes are not zero: hl.dot would not mask them in
    # Helion 1.4 (measured: wrong by 3.0 there), torch.addmm does in every version.
    "dot_out_dtype_masked_by_addmm": (
        _dot(True, True),
        (A16, B16),
        "torch.addmm(hl.zeros([tm, tn], dtype=torch.float32), a[tm, tk] + 1.0, b[tk, tn] + 1.0)",
    ),
    # One operand zero on those lanes: every product there is zero, hl.dot is safe in 1.4 too.
    "dot_out_dtype_hl_dot": (
        _dot(True, False),
        (A16, B16),
        "hl.dot(a[tm, tk] + 1.0, b[tk, tn], out_dtype=torch.float32)",
    ),
}
_counter = itertools.count()


@pytest.mark.parametrize("name", list(HAND))
def test_hand_built_ir_runs_as_the_interpreter_does(name: str, tmp_path: Path) -> None:
    module, inputs, expected_line = HAND[name]
    text = emit(module)
    # Long lines come out wrapped (with a trailing comma): compare without layout.
    assert _flat(expected_line) in _flat(text), text
    use_interpreter()
    path = tmp_path / f"hand_{next(_counter)}.py"
    path.write_text(text)
    entry = module.entries[0]
    got = getattr(load_module(path, "translated"), entry.name)(*(t.clone() for t in inputs))
    ref = _run_ir(module, *(t.clone() for t in inputs))
    got, ref = (got, ref) if isinstance(got, tuple) else ((got,), (ref,))
    for g, r in zip(got, ref):
        torch.testing.assert_close(g.float(), r.float(), rtol=1e-3, atol=1e-3)


def test_kernel_named_like_a_host_local(tmp_path: Path) -> None:
    module = _dot(True, False)
    kernel = dataclasses.replace(only_kernel(module), name="k")
    entry = module.entries[0]
    body = tuple(
        dataclasses.replace(s, kernel="k") if isinstance(s, ir.Launch) else s for s in entry.body
    )
    module = dataclasses.replace(
        module, kernels=(kernel,), entries=(dataclasses.replace(entry, body=body),)
    )
    verify(module)
    try:
        text = emit(module)
    except TranslationError as err:  # refusing, with a diagnostic, would do too
        assert err.loc is not None or err.hint
        return
    use_interpreter()
    path = tmp_path / f"shadowed_{next(_counter)}.py"
    path.write_text(text)
    got = load_module(path, "translated").dot(A16.clone(), B16.clone())
    ref = _run_ir(module, A16.clone(), B16.clone())
    torch.testing.assert_close(got.float(), ref.float(), rtol=1e-3, atol=1e-3)


# ------------------------------------------------------------------------------------------------
# Refusals


@pytest.mark.parametrize(
    ("op", "other", "held"),
    [
        ("max", 0.0, "0.0"),  # Triton's `tl.max` over lanes loaded with other=0.0
        ("sum", 1.0, "1.0"),
        ("sum", None, "unknown values"),
    ],
)
def test_unmasked_reduction_over_non_identity_lanes_is_refused(
    op: str, other: float | None, held: str
) -> None:
    with pytest.raises(TranslationError) as err:
        emit(_row_reduce(op, other))
    assert f"unmasked `{op}` over dimension `tn` whose out-of-bounds lanes hold {held}" in (
        err.value.message
    )
    assert err.value.hint


def test_softmax_shift_by_anything_but_the_row_max_is_refused() -> None:
    # exp(row - 1.5) is exp(-inf) = 0 on the padding, but exp(row - (max(row) - 1.5)) is not
    # known: the shift is no longer at least the row max (only that makes the padding vanish).
    emit(_triton_softmax(C(1.5)))
    shifted = B("-", ir.Reduce("max", N("row"), 0, masked=False), C(1.5))
    with pytest.raises(TranslationError, match="unmasked `sum` over dimension `:n`"):
        emit(_triton_softmax(shifted))


def test_unmasked_dot_over_non_zero_lanes_is_refused() -> None:
    module = _dot(False, False)
    kernel = only_kernel(module)
    loop = kernel.body[1]
    dot = ir.Dot(
        L("a", *T("tm", "tk"), other=1.0),
        L("b", *T("tk", "tn"), other=1.0),
        N("acc"),
        F32,
        masked=False,
        precision="tf32",
    )
    loop = dataclasses.replace(loop, body=(ir.Assign("acc", dot),))
    kernel = dataclasses.replace(kernel, body=(kernel.body[0], loop, kernel.body[2]))
    with pytest.raises(TranslationError, match="unmasked dot"):
        emit(replace_kernel(module, kernel))


DEPENDENT_LOOPS = (
    HEADER
    + """\
@helion.kernel(config=helion.Config(block_sizes=[16, 16]))
def twice(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    tmp = torch.empty_like(x)
    out = torch.empty_like(x)
    for tile_m in hl.tile(m):
        tmp[tile_m, :] = x[tile_m, :] * 2
    for tile_m in hl.tile(m):
        out[tile_m, :] = tmp[tile_m, :] + 1
    return out
"""
)


def test_dependent_loops_become_kernels_launched_in_order(tmp_path: Path) -> None:
    # Each top-level loop is an IR kernel of its own, and each IR kernel a Helion kernel function
    # of its own, so one launch no longer runs both loops (which Helion could not order: it used to
    # be refused). The host function launches them in the source's order: the second reads `tmp`
    # after the first wrote all of it.
    source = tmp_path / "twice.py"
    source.write_text(DEPENDENT_LOOPS)
    module = parse_file(source, "helion")
    assert [k.name for k in module.kernels] == ["_twice_kernel", "_twice_kernel_2"]
    (entry,) = module.entries
    assert [launch.kernel for launch in entry.launches()] == ["_twice_kernel", "_twice_kernel_2"]
    x = X.clone()
    torch.testing.assert_close(run_module(module, "twice", x), x * 2 + 1, rtol=0, atol=0)
    result = invoke(["translate", "--to", "helion", str(source)])
    assert result.exit_code == 0, result.output
    text = result.output
    assert text.count("@helion.kernel(config=helion.Config(block_sizes=[16]))\n") == 2
    assert (
        "def _twice_kernel(x: torch.Tensor, tmp: torch.Tensor, m: int, n: int) -> None:\n"
        "    for tile_m in hl.tile(m):\n"
        "        tmp[tile_m, :] = x[tile_m, :] * 2\n" in text
    )
    assert (
        "def _twice_kernel_2(tmp: torch.Tensor, out: torch.Tensor, m: int, n: int) -> None:\n"
        "    for tile_m in hl.tile(m):\n"
        "        out[tile_m, :] = tmp[tile_m, :] + 1\n" in text
    )
    assert (
        "    out = torch.empty_like(x)\n"
        "    _twice_kernel(x, tmp, m, n)\n"
        "    _twice_kernel_2(tmp, out, m, n)\n"
        "    return out\n" in text
    )
    # Helion 1.5 itself refuses the source (LoopDependencyError: it wants an hl.barrier() between
    # the loops), so the translation is checked against what the IR says the source means.
    use_interpreter()
    translated = tmp_path / "twice_helion.py"
    translated.write_text(text)
    got = load_module(translated, "translated").twice(x.clone())
    torch.testing.assert_close(got, x * 2 + 1, rtol=0, atol=0)


# ------------------------------------------------------------------------------------------------
# Tile loops that skip tiles (split-K's strided share of the K tiles)

S = ir.Param("s", "int", annotation="int")


def _entry_module(
    name: str, params: tuple[ir.Param, ...], body: list[ir.Stmt], blocks: dict[str, int]
) -> ir.Module:
    tunables = tuple(ir.Tunable(k, "block_size", v) for k, v in blocks.items())
    return hand_module("hand.py", inline_entry(name, params, body, tunables))


def _strided_rows(op: str) -> ir.Module:
    """``out[i, p] = op`` of row ``i`` of ``x`` over the column tiles ``p, p + s, p + 2s, ...``:
    every program's share differs, so a tile visited twice or missed changes the result."""
    init = 0.0 if op == "sum" else float("-inf")
    part = ir.Reduce(op, L("x", *T("tm", "tk")), 1)
    update = B("+", N("acc"), part) if op == "sum" else ir.Call("maximum", (N("acc"), part))
    kernel = ir.InlineKernel(
        "kern",
        (tile("tm", N("m"), "bm"), tile("p", N("s"), 1, scalar=True)),
        (
            ir.Assign("acc", ir.Full((ir.BlockDim("tm"),), C(init), F32)),
            ir.TileLoop(
                (tile("tk", N("n"), "bk", B("*", N("p"), N("bk")), step=N("s")),),
                (ir.Assign("acc", update),),
            ),
            ir.Store("out", T("tm", "p"), N("acc")),
        ),
    )
    out = ir.Alloc("out", (N("m"), N("s")), None, F32, "x")
    return _entry_module(
        f"strided_{op}",
        (ir.Param("x", "tensor"), S),
        [M_N, out, kernel, ir.Return(N("out"))],
        {"bm": 16, "bk": 8},
    )


def _strided_dot() -> ir.Module:
    """Per-program partial products over strided K tiles, of computed operands (``a + 1``): the
    out-of-bounds K lanes are not zero, and Helion does not mask an hl.arange's lanes."""
    a, b = B("+", L("a", *T("tm", "tk")), C(1.0)), B("+", L("b", *T("tk", "tn")), C(1.0))
    kernel = ir.InlineKernel(
        "kern",
        (tile("tm", N("m"), "bm"), tile("tn", N("n"), "bn"), tile("p", N("s"), 1, scalar=True)),
        (
            ir.Assign("acc", ir.Full((ir.BlockDim("tm"), ir.BlockDim("tn")), C(0.0), F32)),
            ir.TileLoop(
                (tile("tk", N("k"), "bk", B("*", N("p"), N("bk")), step=N("s")),),
                (ir.Assign("acc", ir.Dot(a, b, N("acc"), F32, precision="tf32")),),
            ),
            ir.Store("out", (ir.TileIndex("p"), *T("tm", "tn")), N("acc")),
        ),
    )
    body = [
        ir.ShapeUnpack(("m", "k"), "a"),
        ir.ShapeUnpack((None, "n"), "b"),
        ir.Alloc("out", (N("s"), N("m"), N("n")), None, F32, "a"),
        kernel,
        ir.Return(N("out")),
    ]
    return _entry_module(
        "strided_dot",
        (ir.Param("a", "tensor"), ir.Param("b", "tensor"), S),
        body,
        {"bm": 16, "bn": 16, "bk": 16},
    )


def _strided_grid() -> ir.Module:
    """``out[p, :] = sum of rows p, p + s, ...`` of ``x``: an hl.grid index with a step."""
    kernel = ir.InlineKernel(
        "kern",
        (tile("p", N("s"), 1, scalar=True), tile("tn", N("n"), "bn")),
        (
            ir.Assign("acc", ir.Full((ir.BlockDim("tn"),), C(0.0), F32)),
            ir.TileLoop(
                (tile("i", N("m"), 1, N("p"), scalar=True, step=N("s")),),
                (ir.Assign("acc", B("+", N("acc"), L("x", *T("i", "tn")))),),
            ),
            ir.Store("out", T("p", "tn"), N("acc")),
        ),
    )
    out = ir.Alloc("out", (N("s"), N("n")), None, F32, "x")
    return _entry_module(
        "strided_grid",
        (ir.Param("x", "tensor"), S),
        [M_N, out, kernel, ir.Return(N("out"))],
        {"bn": 16},
    )


STRIDED = {
    # (module, inputs but split_k, lines the Helion text must contain)
    "sum": (
        _strided_rows("sum"),
        (X,),
        (
            "for start_k in hl.grid(p.begin * bk, n, bk * s):",
            "offs_k = start_k + hl.arange(bk)",
            "mask_k = offs_k < n",
            # Loads pad masked-off lanes with 0, the identity of the sum: no select needed.
            "acc = acc + torch.sum(hl.load(x, [tm, offs_k], extra_mask=mask_k[None, :]), dim=1)",
        ),
    ),
    "max": (
        _strided_rows("max"),
        (X,),
        (
            "torch.amax(torch.where(mask_k[None, :], hl.load(x, [tm, offs_k], "
            'extra_mask=mask_k[None, :]), float("-inf")), dim=1)',
        ),
    ),
    "dot_computed_operands": (
        _strided_dot(),
        (A16, B16),
        (
            "torch.where(mask_k[None, :], hl.load(a, [tm, offs_k], extra_mask=mask_k[None, :]) + "
            "1.0, 0.0)",
            "torch.where(mask_k[:, None], hl.load(b, [offs_k, tn], extra_mask=mask_k[:, None]) + "
            "1.0, 0.0)",
        ),
    ),
    "grid": (_strided_grid(), (X,), ("for i in hl.grid(p.begin, m, s):",)),
}


def _helion_kernel_text(kernel: ir.Kernel) -> str:
    return HelionBackend().kernel_code(kernel, ir.Module("hand.py", ())).text


def _flat(text: str) -> str:
    return re.sub(r",\)", ")", re.sub(r"\s+", "", text))


@pytest.mark.parametrize("split_k", [1, 3, 7])
@pytest.mark.parametrize("name", list(STRIDED))
def test_strided_tile_loop_runs_as_the_interpreter_does(
    name: str, split_k: int, tmp_path: Path
) -> None:
    # X has 45 columns (ragged for blocks of 8 and 16: 6 and 3 tiles); with split_k = 7 some
    # programs get no tile at all.
    module, inputs, lines = STRIDED[name]
    text = emit(module)
    for line in lines:
        # Long lines come out wrapped (with a trailing comma): compare without layout.
        assert _flat(line) in _flat(text), text
    use_interpreter()
    path = tmp_path / f"strided_{next(_counter)}.py"
    path.write_text(text)
    entry = module.entries[0]
    got = getattr(load_module(path, "translated"), entry.name)(
        *(t.clone() for t in inputs), split_k
    )
    ref = _run_ir(module, *(t.clone() for t in inputs), split_k)
    torch.testing.assert_close(got.float(), ref.float(), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("split_k", [1, 3, 7])
def test_matmul_splitk_golden_runs_as_the_interpreter_does(split_k: int) -> None:
    # K = 301: ten K tiles of 32, the last ragged; split_k = 7 gives programs one or two tiles.
    source = parse_file("examples/triton/matmul_splitk.py", "triton")
    use_interpreter()
    golden = load_module(
        ROOT / "examples" / "triton" / "expected_helion" / "matmul_splitk.py", "golden"
    )
    gen = torch.Generator().manual_seed(split_k)
    a = torch.randn(37, 301, generator=gen).half()
    b = torch.randn(301, 45, generator=gen).half()
    got = golden.matmul_splitk(a.clone(), b.clone(), split_k)
    ref = _run_ir(source, a.clone(), b.clone(), split_k)
    assert got.dtype == torch.float16
    torch.testing.assert_close(got.float(), ref.float(), rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("name", list(STRIDED))
def test_strided_tile_loop_reads_back_as_one_tile_with_a_step(name: str) -> None:
    module = STRIDED[name][0]
    text = emit(module)
    back = parse_source(text, "hand.py", "helion")
    (loop,) = [s for s in walk_stmts(only_kernel(back).body) if isinstance(s, ir.TileLoop)]
    (read,) = loop.tiles
    (original,) = next(
        s for s in walk_stmts(only_kernel(module).body) if isinstance(s, ir.TileLoop)
    ).tiles
    assert (read.step, read.block, read.scalar) == (original.step, original.block, original.scalar)
    # Helion -> IR -> Helion gives the same kernel (the where-selects read back as masked), and
    # the same text.
    assert _helion_kernel_text(only_kernel(back)) == _helion_kernel_text(only_kernel(module))
    assert _without_provenance(emit(back)) == _without_provenance(text)


LANES = (
    HEADER
    + """\
@helion.kernel(config=helion.Config(block_sizes=[16]))
def f(x: torch.Tensor, s: int) -> torch.Tensor:
    (n,) = x.size()
    out = torch.zeros([s], dtype=torch.float32, device=x.device)
    bk = hl.register_block_size(n)
    for p in hl.grid(s):
        acc = hl.zeros([1], dtype=torch.float32)
        for start_k in hl.grid(p * bk, n, STEP):
            offs_k = start_k + hl.arange(bk)
            mask_k = offs_k < n
            acc = acc + torch.sum(LOAD, dim=0)
        out[p] = acc
    return out
"""
)


@pytest.mark.parametrize(
    ("step", "load", "message"),
    [
        ("bk * s", "hl.load(x, [offs_k], extra_mask=mask_k)", None),
        ("bk * s", "x[offs_k]", "an access through the lanes of `tile_k` that does not mask them"),
        (
            "bk * s",
            "hl.load(x, [offs_k], extra_mask=offs_k < 5)",
            "is not the validity of the lanes",
        ),
        (
            "bk + s",
            "hl.load(x, [offs_k], extra_mask=mask_k)",
            "the step of a strided tile loop must be its block size times",
        ),
    ],
)
def test_helion_strided_loops_are_read_only_when_masked(
    step: str, load: str, message: str | None
) -> None:
    source = LANES.replace("STEP", step).replace("LOAD", load)
    if message is None:
        (loop,) = [
            s
            for s in walk_stmts(only_kernel(parse_source(source, "k.py", "helion")).body)
            if isinstance(s, ir.TileLoop)
        ]
        assert loop.tiles[0].step == N("s")
        return
    with pytest.raises(TranslationError, match=re.escape(message)) as err:
        parse_source(source, "k.py", "helion")
    assert err.value.loc is not None and err.value.hint


OPTIONAL = (
    HEADER
    + """\
@helion.kernel(config=helion.Config(block_sizes=[16]))
def f(x: torch.Tensor, s: float = None) -> torch.Tensor:
    (n,) = x.size()
    scale = SCALE
    out = torch.empty_like(x)
    for tile in hl.tile(n):
        out[tile] = x[tile] * scale
    return out
"""
)


def test_optional_parameter_reads_back_only_as_its_default() -> None:
    module = parse_source(OPTIONAL.replace("SCALE", "2.0 if s is None else s"), "k.py", "helion")
    entry = module.entries[0]
    assert entry.params[1].default == C(None)
    (assign,) = [s for s in entry.body if isinstance(s, ir.Assign)]
    assert assign.value == ir.Call("if_none", (N("s"), C(2.0)))
    # The kernel takes the resolved value.
    assert only_kernel(module).param("scale") == ir.Param("scale", "float")
    assert entry.launches()[0].args[-1] == N("scale")
    # Any other spelling is host code tiletrans carries as written without knowing its value,
    # which a kernel cannot read: refused where the kernel reads it (`* scale`, line 12).
    with pytest.raises(TranslationError) as err:
        parse_source(OPTIONAL.replace("SCALE", "s if s is not None else 2.0"), "k.py", "helion")
    assert err.value.message == (
        "`scale` is bound by host code tiletrans carries but cannot tell the value of "
        "(`s if s is not None else 2.0`)"
    )
    assert err.value.loc is not None and (err.value.loc.line, err.value.loc.col) == (12, 30)
    assert err.value.hint


def test_strided_loop_refusals() -> None:
    rows = _strided_rows("sum")
    kernel = only_kernel(rows)
    loop = kernel.body[1]
    # An atomic through the strided lanes: Helion's atomics take no mask.
    atomic = ir.AtomicRMW("add", "x", T("tm", "tk"), C(1.0))
    bad = dataclasses.replace(loop, body=(*loop.body, atomic))
    with pytest.raises(TranslationError, match="atomic `add` through the lanes of a strided"):
        emit(
            replace_kernel(
                rows, dataclasses.replace(kernel, body=(kernel.body[0], bad, kernel.body[2]))
            )
        )
    # One loop over a strided tile and another tile.
    two = dataclasses.replace(loop, tiles=(*loop.tiles, tile("tj", N("n"), "bk")))
    with pytest.raises(TranslationError, match="several tiles of which some skip tiles") as err:
        emit(
            replace_kernel(
                rows, dataclasses.replace(kernel, body=(kernel.body[0], two, kernel.body[2]))
            )
        )
    assert err.value.hint


def test_ir_expression_without_a_helion_spelling_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # An IR expression the writer has no spelling for (here ir.Broadcast, its entry removed from
    # the writer's dispatch table for the test) is a diagnostic, not a traceback.
    from translator.dialects.helion.kernel_writer import Writer

    monkeypatch.delitem(Writer.expr_spellings, ir.Broadcast)
    module = _row_reduce("sum", 0.0)
    kernel = only_kernel(module)
    store = kernel.body[2]
    loc = ir.Loc("hand.py", 9, 4)
    wide = dataclasses.replace(store, value=ir.Broadcast(N("acc"), (ir.BlockDim("tm"),), loc=loc))
    with pytest.raises(
        TranslationError, match="Helion cannot spell the IR expression `Broadcast`"
    ) as err:
        emit(replace_kernel(module, dataclasses.replace(kernel, body=(*kernel.body[:2], wide))))
    assert err.value.loc == loc and err.value.hint


# ------------------------------------------------------------------------------------------------
# Device code rebinding a host value (Helion: CannotModifyHostVariableOnDevice)

SF = ir.Param("s", "float", annotation="float")
VEC = ir.ShapeUnpack(("m",), "x")
VEC_OUT = ir.Alloc("out", None, "x", ir.DTypeOf("x"), "x")


def _scaled(body: list[ir.Stmt], value: ir.Expr) -> ir.Module:
    """``out[tm] = x[tm] * value`` after ``body``, in one kernel over ``x``'s tiles.

    The kernel is written self-contained, as outlining gives it: device code that rebinds the
    parameter ``s`` itself (``s = s * 1.44``) has no in-place form that outlines to it (the
    outliner takes the rebound host name for a kernel local and leaves ``s`` unbound)."""
    kernel = ir.Kernel(
        "kern",
        (
            ir.Param("x", "tensor", rank=1),
            ir.Param("out", "tensor", rank=1),
            ir.Param("s", "float"),
            ir.Param("m", "int"),
        ),
        (tile("tm", N("m"), "bm"),),
        (
            *body,
            ir.Store("out", T("tm"), B("*", L("x", *T("tm")), value)),
        ),
        (ir.Tunable("bm", "block_size", 16),),
    )
    names = ("x", "out", "s", "m")
    launch = ir.Launch("kern", tuple(N(n) for n in names), names)
    host = (VEC, VEC_OUT, launch, ir.Return(N("out")))
    module = ir.Module(
        "hand.py", (ir.Entry("scaled", (ir.Param("x", "tensor"), SF), host),), (kernel,)
    )
    verify(module)
    return module


def _rebound_in_loop(first: ir.Stmt | None, target: str) -> list[ir.Stmt]:
    """``target`` halved once per column tile of a 40-wide loop (3 tiles of 16)."""
    loop = ir.TileLoop((tile("tj", C(40), 16),), (ir.Assign(target, B("*", N(target), C(0.5))),))
    return [*([first] if first is not None else []), loop]


REBOUND = {
    # (module, a line the Helion text must contain)
    "alias_then_rebound": (
        _scaled([ir.Assign("q", N("s")), ir.Assign("q", B("*", N("q"), C(1.44)))], N("q")),
        "q_2 = q * 1.44",
    ),
    "parameter_rebound": (
        _scaled([ir.Assign("s", B("*", N("s"), C(1.44)))], N("s")),
        "s_2 = s * 1.44",
    ),
    "parameter_rebound_in_loop": (
        _scaled(_rebound_in_loop(None, "s"), N("s")),
        "s_2 = hl.full([], s, dtype=torch.float32)",
    ),
    "alias_rebound_in_loop": (
        _scaled(_rebound_in_loop(ir.Assign("q", N("s")), "q"), N("q")),
        "q = hl.full([], s, dtype=torch.float32)",
    ),
    "alias_rebound_in_branch": (
        _scaled(
            [
                ir.Assign("q", N("s")),
                ir.If(B(">", N("s"), C(0.0)), (ir.Assign("q", B("*", N("q"), C(2.0))),)),
            ],
            N("q"),
        ),
        "q = hl.full([], s, dtype=torch.float32)",
    ),
}


@pytest.mark.parametrize("name", list(REBOUND))
def test_rebound_host_values_run_as_the_interpreter_does(name: str, tmp_path: Path) -> None:
    module, line = REBOUND[name]
    text = emit(module)
    assert line in text, text
    use_interpreter()
    path = tmp_path / f"rebound_{next(_counter)}.py"
    path.write_text(text)
    entry = module.entries[0]
    for scale in (0.75, -1.5):  # both sides of the branch
        got = getattr(load_module(path, "translated"), entry.name)(X[0].clone(), scale)
        ref = _run_ir(module, X[0].clone(), scale)
        torch.testing.assert_close(got, ref, rtol=1e-5, atol=1e-6)


def test_integer_host_value_rebound_in_a_loop_is_refused() -> None:
    n = ir.Param("n", "int", annotation="int")
    loc = ir.Loc("hand.py", 7, 8)
    loop = ir.TileLoop((tile("tj", C(40), 16),), (ir.Assign("q", B("+", N("q"), C(1)), loc=loc),))
    kernel = ir.InlineKernel(
        "kern",
        (tile("tm", N("m"), "bm"),),
        (
            ir.Assign("q", N("n")),
            loop,
            ir.Store("out", T("tm"), B("*", L("x", *T("tm")), N("q"))),
        ),
    )
    module = _entry_module(
        "shifted",
        (ir.Param("x", "tensor"), n),
        [VEC, VEC_OUT, kernel, ir.Return(N("out"))],
        {"bm": 16},
    )
    with pytest.raises(TranslationError, match="`q` holds a host value and is rebound") as err:
        emit(module)
    assert err.value.loc == loc and err.value.hint


# ------------------------------------------------------------------------------------------------
# Persistent program ids


def _with_pid_type(module: ir.Module, pid_type: str) -> ir.Module:
    kernel = only_kernel(module)
    return replace_kernel(module, dataclasses.replace(kernel, hints=ir.Hints(schedule=pid_type)))


@pytest.mark.parametrize("pid_type", ["persistent_blocked", "persistent_interleaved"])
@pytest.mark.parametrize("case", ["dot_2d_grid", "row_max_1d_grid"])
def test_persistent_pid_type_is_emitted_and_computes_the_same(
    pid_type: str, case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module, inputs = {
        "dot_2d_grid": (_dot(True, False), (A16, B16)),  # 3 x 2 tiles of 16
        "row_max_1d_grid": (_row_reduce("max", float("-inf")), (X,)),  # 3 row tiles of 16
    }[case]
    module = _with_pid_type(module, pid_type)
    text = emit(module)
    assert f'pid_type="{pid_type}")' in text, text
    # The hint survives reading the output back.
    assert only_kernel(parse_source(text, "k.py", "helion")).hints.schedule == pid_type
    use_interpreter()
    import helion.runtime

    # A persistent launch asks the device for its SM count, which a CPU device has not (Helion
    # raises). Two "SMs" for at least three tiles: every program loops over several tiles.
    monkeypatch.setattr(helion.runtime, "get_num_sm", lambda device, **_: 2)
    path = tmp_path / f"persistent_{next(_counter)}.py"
    path.write_text(text)
    entry = module.entries[0]
    got = getattr(load_module(path, "translated"), entry.name)(*(t.clone() for t in inputs))
    ref = _run_ir(module, *(t.clone() for t in inputs))
    torch.testing.assert_close(got.float(), ref.float(), rtol=1e-3, atol=1e-3)


def test_pid_type_of_the_first_config_is_kept() -> None:
    text = _emit_source(
        HEADER
        + """\
@helion.kernel(configs=[
    helion.Config(block_sizes=[32], pid_type="persistent_interleaved"),
    helion.Config(block_sizes=[64], pid_type="flat"),
])
def f(x: torch.Tensor) -> torch.Tensor:
    (n,) = x.size()
    out = torch.empty_like(x)
    for tile in hl.tile(n):
        out[tile] = x[tile] * 2
    return out
"""
    )
    assert 'helion.Config(block_sizes=[32], pid_type="persistent_interleaved")' in text
    assert 'helion.Config(block_sizes=[64], pid_type="persistent_interleaved")' in text


def test_unknown_pid_type_is_refused() -> None:
    with pytest.raises(TranslationError) as err:
        _emit_source(
            HEADER
            + """\
@helion.kernel(config=helion.Config(block_sizes=[32], pid_type="diagonal"))
def f(x: torch.Tensor) -> torch.Tensor:
    (n,) = x.size()
    out = torch.empty_like(x)
    for tile in hl.tile(n):
        out[tile] = x[tile] * 2
    return out
"""
        )
    assert 'unsupported pid_type `"diagonal"`' in err.value.message
    assert "'persistent_interleaved'" in (err.value.hint or "")
    assert err.value.loc is not None and err.value.loc.line == 6


# ------------------------------------------------------------------------------------------------
# Rank guards: ranks the source takes for granted are facts of the IR

SCALE_ROWS = (
    HEADER
    + """\
@helion.kernel(config=helion.Config(block_sizes=[16]))
def scale_rows(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m in hl.tile(m):
        out[tile_m, :] = x[tile_m, :] * w[:]
    return out
"""
)


def test_rank_taken_from_indexing_is_a_fact_of_the_ir_and_a_readable_host_check(
    tmp_path: Path,
) -> None:
    # The IR records the rank `w[:]` implies (ShapeUnpack.assumed) and the kernel parameter's
    # rank. The translation keeps the source's host code and adds one plain check before the
    # launch: Helion reads `w[:]` at w's actual rank, the translation is written for 1-d.
    module = parse_source(SCALE_ROWS, "k.py", "helion")
    assert module.entries[0].body[0] == ir.ShapeUnpack((None,), "w", assumed="`w[:]` has 1 index")
    assert only_kernel(module).param("w") == ir.Param("w", "tensor", rank=1)
    triton = translate_source(SCALE_ROWS, "k.py", "helion", "triton")
    assert "rank guard" not in triton and "w.shape" not in triton
    host = triton[triton.index("def scale_rows(") :]
    assert host.startswith(
        "def scale_rows(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:\n"
        "    m, n = x.size()\n"
        "    out = torch.empty_like(x)\n"
        "    # Written for 1-d `w`: `w[:]` has 1 index.\n"
        "    if w.dim() != 1:\n"
    )
    assert host.endswith("    )\n    return out\n")
    use_interpreter()
    path = tmp_path / f"rank_{next(_counter)}.py"
    path.write_text(triton)
    scale_rows = load_module(path, "translated").scale_rows
    x, w = X[:20, :9], torch.randn(9)
    torch.testing.assert_close(scale_rows(x, w), x * w)


def test_rank_of_a_tile_loop_over_a_shape_is_guarded_on_the_tensor_it_comes_from() -> None:
    module = parse_source(
        HEADER
        + """\
@helion.kernel(config=helion.Config(block_sizes=[16]))
def double(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile in hl.tile(out.size()):
        out[tile] = x[tile] * 2
    return out
""",
        "k.py",
        "helion",
    )
    assert module.entries[0].body[0] == ir.ShapeUnpack(
        (None,),
        "x",
        assumed="`hl.tile(out.size())` has 1 loop target (`out` is shaped like it)",
    )
    assert sum(isinstance(s, ir.ShapeUnpack) for s in module.entries[0].body) == 1


def test_equal_shapes_give_equal_ranks_without_a_guard() -> None:
    module = parse_file("examples/helion/add.py", "helion")  # assert y.shape == x.shape
    unpacked = [s.tensor for s in module.entries[0].body if isinstance(s, ir.ShapeUnpack)]
    assert unpacked == ["x"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "    m, n = x.size()\n    for tile in hl.tile(x.size()):\n        out[tile, :] = x[tile, :]\n",
            "`x` is 2-d, so hl.tile(x.size()) yields 2 tiles, but the loop binds 1",
        ),
        (
            "    (m,) = w.size()\n    for tile in hl.tile(m):\n        out[tile, :] = x[tile, :] * w[tile, None, 0]\n",
            "`w` is 1-d but indexed with 2 indices",
        ),
    ],
    ids=["tile_loop_over_shape", "index_count"],
)
def test_contradicting_ranks_are_refused(body: str, message: str) -> None:
    with pytest.raises(TranslationError) as err:
        parse_source(_two_tensors(body), "k.py", "helion")
    assert message in err.value.message
    assert err.value.loc is not None


def _two_tensors(body: str) -> str:
    return (
        HEADER
        + (
            "@helion.kernel(config=helion.Config(block_sizes=[16]))\n"
            "def f(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:\n"
            "    out = torch.empty_like(x)\n"
        )
        + body
        + "    return out\n"
    )


def test_a_contradicting_unpack_after_the_launch_is_carried_as_written(tmp_path: Path) -> None:
    # `w[tile]` makes `w` 1-d, so `a, b = w.size()` after the loop fails whatever the inputs. It
    # used to be refused (`w` is 1-d but unpacked into 2 sizes); host statements the frontend
    # cannot model are carried as written now (the entry is partly modelled), so it stays in the
    # translation, which fails where the source fails.
    source = _two_tensors(
        "    for tile in hl.tile(x.size(0)):\n"
        "        out[tile, :] = x[tile, :] * w[tile][:, None]\n"
        "    a, b = w.size()\n"
    )
    module = parse_source(source, "k.py", "helion")
    (entry,) = module.entries
    assert not entry.complete
    assert [s for s in entry.body if isinstance(s, ir.Carried)] == [
        ir.Carried("a", "int", "w.size()"),
        ir.Carried("b", "int", "w.size()"),
    ]
    assert only_kernel(module).param("w") == ir.Param("w", "tensor", rank=1)
    triton = translate_source(source, "k.py", "helion", "triton")
    assert triton.endswith("    )\n    a, b = w.size()\n    return out\n")
    use_interpreter()
    x, w = X[:20, :9].clone(), torch.randn(20)
    for name, text in (("source", source), ("translated", triton)):
        path = tmp_path / f"unpack_{name}_{next(_counter)}.py"
        path.write_text(text)
        with pytest.raises(Exception) as err:
            load_module(path, name).f(x, w)
        if name == "translated":
            assert err.type is ValueError and "not enough values to unpack" in str(err.value)


def test_a_host_value_bound_in_a_branch_reaches_the_kernel(tmp_path: Path) -> None:
    # A compound host statement (`if`/`else`) is carried as written; the names it binds are
    # typed for the kernels that read them. They were typed and then dropped, so a kernel that
    # read `factor` was refused with "name 'factor' is not defined here".
    source = (
        HEADER
        + """\
@helion.kernel(config=helion.Config(block_sizes=[16]))
def f(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    if x.size(0) > 24:
        factor = 2.0
    else:
        factor = 0.5
    for tile in hl.tile(x.size(0)):
        out[tile] = x[tile] * factor
    return out
"""
    )
    module = parse_source(source, "k.py", "helion")
    (entry,) = module.entries
    assert ir.Carried("factor", "float", "2.0") in entry.body
    assert only_kernel(module).param("factor").kind == "float"
    triton = translate_source(source, "k.py", "helion", "triton")
    assert (
        "    if x.size(0) > 24:\n        factor = 2.0\n    else:\n        factor = 0.5\n" in triton
    )
    use_interpreter()
    path = tmp_path / f"branch_{next(_counter)}.py"
    path.write_text(triton)
    for n in (20, 40):  # both sides of the branch
        x = torch.randn(n)
        got = load_module(path, "translated").f(x)
        torch.testing.assert_close(got, x * (2.0 if n > 24 else 0.5))


def test_if_not_flag_with_an_else_is_written_with_its_branches_swapped(tmp_path: Path) -> None:
    # Helion 1.4.0 (the release that runs with torch 2.11) cannot trace `not` of a bool kernel
    # argument: the KL divergence translation raised GuardOnDataDependentSymNode on the GPU.
    source = """\
import torch
import triton
import triton.language as tl


@triton.jit
def shift_kernel(x_ptr, out_ptr, n, log_space: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    if not log_space:
        y = x * 2.0
    else:
        y = tl.exp(x)
    tl.store(out_ptr + offs, y, mask=mask)


def shift(x: torch.Tensor, log_space: bool) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    shift_kernel[(triton.cdiv(n, 64),)](x, out, n, log_space, BLOCK=64)
    return out
"""
    helion_text = translate_source(source, "k.py", "triton", "helion")
    assert "not log_space" not in helion_text
    assert re.search(
        r"if log_space:\n\s+y = torch.exp\(x_tile\)\n\s+else:\n\s+y = x_tile \* 2.0", helion_text
    )
    use_interpreter()
    path = tmp_path / f"swapped_{next(_counter)}.py"
    path.write_text(helion_text)
    x = torch.randn(100)
    for log_space in (False, True):
        got = load_module(path, "translated").shift(x, log_space)
        torch.testing.assert_close(got, torch.exp(x) if log_space else x * 2.0)


# ------------------------------------------------------------------------------------------------
# Reshapes of tiles

ROW_SUMS = (
    HEADER
    + """\
@helion.kernel(config=helion.Config(block_sizes=[16]))
def row_sums(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty([m, 1], dtype=x.dtype, device=x.device)
    for tile_m in hl.tile(m):
        out[tile_m, :] = torch.sum(x[tile_m, :], dim=1).{call}
    return out
"""
)


@pytest.mark.parametrize("call", ["reshape([tile_m, 1])", "view(tile_m, 1)"])
def test_reshape_of_a_tile_round_trips_and_runs(call: str, tmp_path: Path) -> None:
    source = ROW_SUMS.format(call=call)
    module = parse_source(source, "k.py", "helion")
    assert (
        "store out[tile_m, :] = reshape(sum(load x[tile_m, :] pad=0.0, axis=1), [tile_m, 1])"
        in format_module(module)
    )
    helion_text = _emit_source(source)
    assert "out[tile_m, :] = torch.sum(x[tile_m, :], dim=1).reshape([tile_m, 1])" in helion_text
    # The kernel reads back as it was (the entries differ by design: test_round_trip_keeps_the_ir).
    source_kernel, round_kernel, _ = _round_trip_kernels(
        module, parse_source(helion_text, "k.py", "helion")
    )
    assert round_kernel == source_kernel
    use_interpreter()
    path = tmp_path / f"reshape_{next(_counter)}.py"
    path.write_text(helion_text)
    got = load_module(path, "translated").row_sums(X.clone())
    torch.testing.assert_close(got, X.sum(dim=1, keepdim=True), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ("reshape([tile_m, -1])", "`-1` in the shape of `.reshape()` is not supported"),
        ("reshape([1, n])", "is not a unit-dim change"),
    ],
)
def test_reshapes_the_ir_cannot_express_are_refused(call: str, message: str) -> None:
    with pytest.raises(TranslationError) as err:
        parse_source(ROW_SUMS.format(call=call), "k.py", "helion")
    assert message in err.value.message
    assert err.value.hint


def test_string_parameters_are_compile_time_choices() -> None:
    source = (
        HEADER
        + """\
@helion.kernel(config=helion.Config(block_sizes=[16]))
def act(x: torch.Tensor, kind: str = "relu") -> torch.Tensor:
    assert kind == "relu" or kind == "neg", f"unknown {kind!r}"
    (n,) = x.size()
    out = torch.empty_like(x)
    for tile in hl.tile(n):
        if kind == "relu":
            out[tile] = torch.relu(x[tile])
        else:
            out[tile] = -x[tile]
    return out
"""
    )
    module = parse_source(source, "k.py", "helion")
    assert module.entries[0].params[1] == ir.Param("kind", "str", ir.Const("relu"), "str")
    # The kernel is compiled for the choice: a compile-time parameter of its own.
    assert only_kernel(module).param("kind") == ir.Param("kind", "str", constexpr=True)
    text = _emit_source(source)
    assert 'def act(x: torch.Tensor, kind: str = "relu") -> torch.Tensor:' in text
    assert '        if kind == "relu":\n' in text
    # The kernel reads back as it was (the entries differ by design: test_round_trip_keeps_the_ir).
    source_kernel, round_kernel, _ = _round_trip_kernels(
        module, parse_source(text, "k.py", "helion")
    )
    assert round_kernel == source_kernel


# ------------------------------------------------------------------------------------------------
# One block size for nested loops (Helion: NestedDeviceLoopsConflict)

NESTED_ONE_BLOCK = """
import torch
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, y_ptr, M, N, sxm, sym, B: tl.constexpr):
    pid = tl.program_id(0)
    offs_m = pid * B + tl.arange(0, B)
    for start in range(0, N, B):
        offs_n = start + tl.arange(0, B)
        mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
        x = tl.load(x_ptr + offs_m[:, None] * sxm + offs_n[None, :], mask=mask, other=0.0)
        tl.store(y_ptr + offs_m[:, None] * sym + offs_n[None, :], x * 2, mask=mask)


def f(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    y = torch.empty_like(x)
    k[(triton.cdiv(M, 32),)](x, y, M, N, x.stride(0), y.stride(0), B=32)
    return y
"""


def test_nested_loops_of_one_block_size_get_registered_copies(tmp_path: Path) -> None:
    src = tmp_path / "nested.py"
    src.write_text(NESTED_ONE_BLOCK)
    text = translate_source(NESTED_ONE_BLOCK, str(src), "triton", "helion")
    # The inner loop's size is a second registered block size holding the same config value.
    assert "b_2 = hl.register_block_size(x.size(1))" in text and "block_sizes=[32, 32]" in text
    assert "hl.tile(x.size(1), block_size=b_2)" in text
    out = tmp_path / "nested_helion.py"
    out.write_text(text)
    report = check_pair(src, out, src_dsl="triton", seeds=(0,))
    assert report.passed, report.format_text()


def test_a_block_sized_to_its_data_is_computed_from_the_size_not_pinned_at_the_cap() -> None:
    # `BLOCK_SIZE = min(MAX_FUSED_SIZE, triton.next_power_of_2(V))` launched over `n_cols = V`:
    # pinned at the cap in a Helion config, each program swept 32768 lanes of a 37-wide
    # vocabulary (the CPU check of this module took 48 s, 24 s a call); computed as the source
    # computes it, the block is 64 there and the cap for a real vocabulary.
    source = "examples/library/triton/fused_linear_cross_entropy.py"
    text = translate_file(source, "triton", "helion")
    assert "block_size = min(32768, helion.next_power_of_2(hl.specialize(n_cols)))" in text
    assert "block_sizes=" not in text and "hl.register_block_size" not in text
    assert "config=helion.Config(num_warps=32, num_stages=3)" in text
    # Read back, it is the same IR block: a tunable that fits its extent, capped at 32768.
    module = parse_source(text, "flce_helion.py", "helion")
    (kernel,) = module.kernels
    (block,) = [t for t in kernel.tunables if t.kind == "block_size"]
    assert (block.default, block.fit) == (32768, True)


# --------------------------------------------------------------------------------------------------
# Jagged loops: bounds the kernel loads

HELION_BATCHED_JAGGED = """
from __future__ import annotations

import helion
import helion.language as hl
import torch


@helion.kernel(config=helion.Config(block_sizes=[4, 32, 16]))
def jagged_sum_rows(values: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    num_seqs = offsets.size(0) - 1
    features = values.size(1)
    out = torch.zeros([num_seqs, features], dtype=values.dtype, device=values.device)
    flat = values.view(-1)
    for tile_b in hl.tile(num_seqs):
        starts = offsets[tile_b]
        ends = offsets[tile_b.index + 1]
        nnz = ends - starts
        max_nnz = nnz.amax()
        for tile_d in hl.tile(features):
            acc = hl.zeros([tile_b, tile_d], dtype=torch.float32)
            for tile_k in hl.tile(0, max_nnz):
                rows = starts[:, None] + tile_k.index[None, :]
                idx = rows[:, :, None] * features + tile_d.index[None, None, :]
                valid = (tile_k.index[None, :] < nnz[:, None])[:, :, None]
                x = hl.load(flat, [idx], extra_mask=valid)
                acc = acc + x.to(torch.float32).sum(dim=1)
            out[tile_b, tile_d] = acc.to(out.dtype)
    return out
"""


def test_helion_jagged_loops_read_their_loaded_bounds() -> None:
    module = parse_file(ROOT / "examples" / "library" / "helion" / "jagged.py", "helion")
    bounds = {}
    for kernel in module.kernels:
        (_, rows) = [s for s in walk_stmts(kernel.body) if isinstance(s, ir.TileLoop)]
        (tile,) = rows.tiles
        bounds[kernel.name] = (tile.begin, tile.extent)
    assert bounds == {
        # One sequence per program: its rows, from `offsets[seq]` to `offsets[seq + 1]`.
        "_jagged_sum_kernel": (ir.Name("start"), ir.Name("end")),
        # A tile of sequences: rows up to the longest (each masked past its own length).
        "_jagged_mean_kernel": (ir.Const(0), ir.Name("longest")),
    }


def test_helion_grouped_gemm_rows_run_between_an_experts_offsets() -> None:
    module = parse_file(ROOT / "examples" / "library" / "helion" / "grouped_gemm.py", "helion")
    (kernel,) = module.kernels
    (expert,) = kernel.grid
    assert expert.scalar and expert.extent == ir.Name("num_experts")
    rows, cols, k = [s for s in walk_stmts(kernel.body) if isinstance(s, ir.TileLoop)]
    # Each expert's rows: from `group_offsets[expert]` to `group_offsets[expert + 1]`.
    assert (rows.tiles[0].begin, rows.tiles[0].extent) == (ir.Name("start"), ir.Name("end"))
    assert cols.tiles[0].begin is None and k.tiles[0].begin is None
    # `_grouped_matmul` is the module's own kernel: validation calls the public wrappers only
    # (it would synthesise offsets that are no row numbers of `x`).
    public = {e.name: e.public for e in module.entries}
    assert public == {
        "_grouped_matmul": False,
        "moe_grouped_matmul": True,
        "moe_grouped_matmul_from_counts": True,
    }


def test_helion_batched_jagged_style_is_a_load_predicate_the_interpreter_runs() -> None:
    # `hl.tile(0, max_nnz)` over a loaded maximum, and `extra_mask=` a condition on data: the
    # load's predicate (lanes where it fails are not read).
    module = parse_source(HELION_BATCHED_JAGGED, "batched_jagged.py", "helion")
    (kernel,) = module.kernels
    (load,) = [e for e in kernel_exprs(kernel) if isinstance(e, ir.Load) and e.tensor == "flat"]
    assert load.mask == ir.Name("valid") and load.other == 0.0
    (loop,) = [s for s in walk_stmts(kernel.body) if isinstance(s, ir.TileLoop)][1].tiles
    assert loop.extent == ir.Name("max_nnz")
    values, offsets = torch.randn(51, 37), torch.tensor([0, 3, 3, 43, 44, 51])
    want = torch.stack([values[offsets[b] : offsets[b + 1]].sum(0) for b in range(5)])
    torch.testing.assert_close(run_module(module, "jagged_sum_rows", values, offsets), want)


def test_a_data_mask_on_a_helion_store_is_refused_with_what_to_write() -> None:
    text = HELION_BATCHED_JAGGED.replace(
        "out[tile_b, tile_d] = acc.to(out.dtype)",
        "hl.store(out, [tile_b, tile_d], acc.to(out.dtype), extra_mask=nnz[:, None] > 0)",
    )
    with pytest.raises(TranslationError) as info:
        parse_source(text, "batched_jagged.py", "helion")
    assert "extra_mask= on a store is read only as the validity" in info.value.message
    assert "torch.where" in (info.value.hint or "")


def test_helion_jit_is_a_kernel_and_other_kernel_forms_are_refused_where_they_are(
    tmp_path: Path,
) -> None:
    # `helion.jit` is `helion.kernel`; AOT kernels and kernels made by a call were carried as
    # host code, untranslated, with exit 0 (or "no @helion.kernel function" at 1:1).
    body = (
        "def {name}(x: torch.Tensor) -> torch.Tensor:\n"
        "    out = torch.empty_like(x)\n"
        "    for tile in hl.tile(x.size(0)):\n"
        "        out[tile] = x[tile] * 2.0\n"
        "    return out\n"
    )
    source = tmp_path / "jit.py"
    source.write_text(
        HEADER + "@helion.jit(config=helion.Config(block_sizes=[16]))\n" + body.format(name="f")
    )
    translated = tmp_path / "jit_triton.py"
    translated.write_text(translate_file(source, "helion", "triton"))
    assert "@triton.jit" in translated.read_text()
    report = check_pair(source, translated, dtypes=("float32",), seeds=(0,))
    assert report.passed, report.format_text()
    for form, where, what in (
        ("@helion.aot_kernel()\n" + body.format(name="f"), "@helion.aot_kernel()", "(@helion"),
        (
            body.format(name="_f") + "\n\nf = helion.kernel(_f, config=helion.Config())\n",
            "f = helion.kernel(_f",
            "`helion.kernel(_f, ...)` is not read",
        ),
    ):
        text = HEADER + form
        with pytest.raises(TranslationError) as err:
            translate_source(text, "k.py", "helion", "triton")
        assert what in str(err.value) and err.value.loc is not None
        assert where in text.splitlines()[err.value.loc.line - 1]


@pytest.mark.parametrize(
    ("body", "where", "message", "help_text"),
    [
        (
            # A knob is read from a helion.autotuner fragment, not from a bare value.
            "    factor = hl.register_tunable('factor', 4)\n"
            "    for tile in hl.tile(x.size(0)):\n"
            "        out[tile] = x[tile] * factor\n",
            "4)",
            "`4` is no fragment tiletrans reads",
            "PowerOfTwoFragment(lo, hi), IntegerFragment(lo, hi)",
        ),
        (
            "    for tile_b in hl.tile(x.size(0)):\n"
            "        for tile_k in hl.jagged_tile(x.size(1)):\n"
            "            out[tile_b, tile_k] = x[tile_b, tile_k]\n",
            "hl.jagged_tile(",
            "hl.jagged_tile(x.size(1)) (a loop to `x.size(1).amax()` whose every load and store "
            "Helion masks by `tile_k.index < x.size(1)` per lane) is not read",
            "`for tile_k in hl.tile(x.size(1).amax()):` with "
            "`mask = tile_k.index[None, :] < x.size(1)[:, None]`",
        ),
        (
            "    m, n = x.size()\n"
            "    block_n = hl.register_block_size(n)\n"
            "    for tile_m, tile_n in hl.tile([m, n], block_size=[None, block_n]):\n"
            "        out[tile_m, tile_n] = x[tile_m, tile_n] + x[tile_m, :block_n]\n",
            "out[tile_m, tile_n] =",
            "cannot broadcast dims [tile_m, tile_n] and [tile_m, :block_n]",
            "index both operands with the tile `tile_n`",
        ),
    ],
    ids=["register_tunable", "jagged_tile", "prefix_slice_against_tile"],
)
def test_helion_constructs_not_read_say_what_to_write(
    body: str, where: str, message: str, help_text: str
) -> None:
    text = (
        HEADER
        + "@helion.kernel()\n"
        + "def f(x: torch.Tensor) -> torch.Tensor:\n"
        + "    out = torch.empty_like(x)\n"
        + body
        + "    return out\n"
    )
    with pytest.raises(TranslationError) as err:
        translate_source(text, "k.py", "helion", "triton")
    assert message in err.value.message and help_text in (err.value.hint or "")
    assert err.value.loc is not None
    assert where in text.splitlines()[err.value.loc.line - 1][err.value.loc.col :]


def test_float_ops_on_fp16_tiles_round_back_as_torch_does(tmp_path: Path) -> None:
    # torch.exp of an fp16 tensor is fp16 (computed in fp32, rounded once); Helion's generated
    # code casts back too. The translation must round there as well, not carry fp32 into the
    # add: then the two agree bit for bit in fp16, not just within fp16's tolerance.
    source = tmp_path / "exp_add.py"
    source.write_text(
        HEADER
        + "@helion.kernel(config=helion.Config(block_sizes=[16, 16]))\n"
        + "def exp_add(x: torch.Tensor, y: torch.Tensor, z: torch.Tensor) -> torch.Tensor:\n"
        + "    m, n = x.size()\n"
        + "    out = torch.empty_like(x)\n"
        + "    for tile_m, tile_n in hl.tile([m, n]):\n"
        + "        out[tile_m, tile_n] = (\n"
        + "            torch.exp(x[tile_m, tile_n] * y[tile_m, tile_n]) + z[tile_m, tile_n]\n"
        + "        )\n"
        + "    return out\n"
    )
    translated = tmp_path / "exp_add_triton.py"
    text = translate_source(source.read_text(), str(source), "helion", "triton")
    assert ".to(x_ptr.dtype.element_ty) + z" in text
    translated.write_text(text)
    report = check_pair(source, translated, dtypes=("float16",), seeds=(0, 1))
    assert report.passed and report.rows, report.format_text()
    assert all(row.error == 0 for row in report.rows), report.format_text()
    # And back in Helion: torch rounds by itself, so no cast is written.
    again = translate_source(source.read_text(), str(source), "helion", "helion")
    assert "torch.exp(x[tile_m, tile_n] * y[tile_m, tile_n])" in again


def _decorators(text: str) -> dict[str, str]:
    """Kernel name -> the text of its ``@helion.kernel(...)`` decorator."""
    found = re.findall(r"@helion\.kernel\((.*?)\)\ndef (\w+)", text, flags=re.S)
    return {name: args for args, name in found}


def test_triton_sources_compile_once_for_every_shape_in_helion_too() -> None:
    """A Triton kernel compiles once for all shapes: its Helion translation says
    ``static_shapes=False`` (Helion's default recompiles per shape). One that allocates a tile
    sized by a whole dim (attention's ``[tile_m, head_dim]`` accumulator) keeps the default:
    dynamic-shape Helion refuses that allocation until the size is specialised."""
    softmax = translate_file("examples/triton/softmax.py", "triton", "helion")
    assert all("static_shapes=False" in d for d in _decorators(softmax).values()), softmax
    attention = translate_file("examples/triton/attention.py", "triton", "helion")
    decorators = _decorators(attention)
    assert decorators and not any("static_shapes" in d for d in decorators.values()), attention
    # Nor does a kernel with a while loop (stream-K): Helion's dynamic-shape code for it fails.
    streamk = translate_file("examples/library/triton/streamk_gemm.py", "triton", "helion")
    decorators = _decorators(streamk)
    assert decorators and not any("static_shapes" in d for d in decorators.values()), streamk
    # A Helion source's own setting is carried as it is, whichever it is.
    helion = translate_file("examples/library/helion/group_norm.py", "helion", "helion")
    assert all("static_shapes=True" in d for d in _decorators(helion).values()), helion


_PER_PROGRAM_DECAY = """
import torch
import triton
import triton.language as tl


@triton.jit
def _decay_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    # A number of each program: 2 ** (-pid / 2).
    decay = tl.exp2(pid * -0.5)
    tl.store(out_ptr + offs, x * decay, mask=mask)


def decay(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    _decay_kernel[(triton.cdiv(n, 64),)](x, out, n, BLOCK=64)
    return out
"""


def test_a_scalar_op_of_a_tile_index_and_a_local_named_as_a_module_function(
    tmp_path: Path,
) -> None:
    """`math.pow(2.0, tile.id * -0.5)` would make Helion trace the first program's number: an
    op of a number that varies per program runs on a 0-d tensor. And a device local named as a
    module function (`decay`) is a host variable to Helion, which device code may not assign:
    it is renamed apart."""
    from validation.equivalence import check_pair

    source = tmp_path / "decay.py"
    source.write_text(_PER_PROGRAM_DECAY)
    text = translate_file(source, "triton", "helion")
    assert "torch.exp2(hl.full([], tile.id * -0.5, dtype=torch.float32))" in text, text
    assert "decay_value = " in text and "math.pow" not in text, text
    out = tmp_path / "decay_helion.py"
    out.write_text(text)
    report = check_pair(source, out, src_dsl="triton", dtypes=("float32",), seeds=(0,))
    assert report.rows and report.passed, report.format_text()
