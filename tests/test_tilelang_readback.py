"""TileLang that tiletrans writes reads back: every ``expected_tilelang`` golden of the Helion,
Triton and cuTile examples translates into its source's DSL and computes what the source
computes (CPU, fp32, one seed), or is refused where it is read, from a known list.

The TileLang backend writes ``T.StridedTensor(x_shape, x_strides, x_dtype)`` parameters, scalar
prim_func parameters, guarded stores and scalar lets; a user who migrated into TileLang and
goes on to another DSL (``tiletrans migrate`` of a tree holding generated files) needs them read.
"""

from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("TRITON_INTERPRET", "1")

import pytest  # noqa: E402
from test_cutile import _cutile_inputs  # noqa: E402

from translator.api import parse_file, translate_file  # noqa: E402
from translator.diagnostics import TranslationError  # noqa: E402
from translator.ir import nodes as ir  # noqa: E402
from translator.ir.shapes import TypeEnv, dims_of  # noqa: E402
from translator.ir.verifier import walk_kernel  # noqa: E402
from translator.ir.visit import walk_stmts  # noqa: E402
from validation.equivalence import check_pair  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
GOLDENS = sorted(
    g
    for g in ROOT.glob("examples/*/expected_tilelang/*.py")
    if g.parent.parent.name in ("helion", "triton", "cutile")
)
# Constructs the TileLang frontend does not read yet, with what it says (each at a location).
# Gathers (`x[idx[i], j]` in a T.Parallel loop) are written by the backend since the gather
# work; reading them back is the frontend's next step. Their translations are proved against
# their sources elsewhere (test_tilelang_backend.py, test_cutile.py).
_GATHER = "buffers are read at the loop's lane variables"
NOT_READ: dict[str, str] = {
    "cutile/gather_scatter": _GATHER,
    "helion/cross_entropy": _GATHER,
    "triton/embedding": _GATHER,
}


def _key(golden: Path) -> str:
    return f"{golden.parent.parent.name}/{golden.stem}"


def test_the_goldens_are_all_here() -> None:
    assert len(GOLDENS) >= 50
    assert set(NOT_READ) <= {_key(g) for g in GOLDENS}


@pytest.mark.parametrize("golden", GOLDENS, ids=_key)
def test_a_tilelang_golden_reads_back_into_its_source_dsl(golden: Path, tmp_path: Path) -> None:
    dsl = golden.parent.parent.name
    source = golden.parent.parent / golden.name
    if _key(golden) in NOT_READ:
        with pytest.raises(TranslationError) as err:
            translate_file(golden, "tilelang", dsl)
        assert NOT_READ[_key(golden)] in str(err.value)
        assert err.value.loc is not None and err.value.loc.line > 1
        return
    back = tmp_path / golden.name
    back.write_text(translate_file(golden, "tilelang", dsl))
    extra = {"src_dsl": "cutile", "inputs": _cutile_inputs} if dsl == "cutile" else {}
    report = check_pair(source, back, dtypes=("float32",), seeds=(0,), **extra)
    assert report.rows and report.passed, report.format_text()


def test_a_store_guarded_by_anything_but_its_bounds_is_refused_where_it_is(
    tmp_path: Path,
) -> None:
    # The guard of a generated store is exactly its lanes' bounds (the IR store leaves the
    # lanes outside out); any other condition would be dropped, so it is refused.
    golden = ROOT / "examples/cutile/expected_tilelang/attention.py"
    text = golden.read_text()
    guard = "if by * TM + i < q_shape[1] and j < q_shape[2]:"
    assert guard in text
    bad = tmp_path / "attention.py"
    bad.write_text(text.replace(guard, "if by * TM + i < q_shape[1] and acc[i, j] > 0.0:"))
    with pytest.raises(TranslationError) as err:
        translate_file(bad, "tilelang", "triton")
    assert "`acc[i, j] > 0.0` is not a bound of the stored lanes" in str(err.value)
    assert err.value.loc is not None
    line = text.splitlines()[err.value.loc.line - 1]
    assert "if by * TM + i" in line


def _loops(stmts: tuple[ir.Stmt, ...]) -> list[ir.TileLoop]:
    return [s for s in walk_stmts(stmts) if isinstance(s, ir.TileLoop)]


def test_read_back_loops_say_where_they_start_and_what_they_count() -> None:
    # A loop over an expert's rows, `start..end` (scalars the kernel loaded), written
    # T.ceildiv(end - start, TM) over `start + bm_o * TM + i`; its element-wise guarded loads
    # are the IR's loads padded at the edges, with no select left over.
    (moe,) = parse_file(
        ROOT / "examples/cutile/expected_tilelang/moe_grouped_gemm.py", "tilelang"
    ).kernels
    rows = _loops(moe.body)[0].tiles[0]
    assert (rows.name, rows.begin, rows.extent) == ("bm_o", ir.Name("start"), ir.Name("end"))
    loads = [s for s in walk_stmts(moe.body) if isinstance(s, ir.Assign) and s.target == "a"]
    assert isinstance(loads[0].value, ir.Load) and loads[0].value.other == 0.0
    # Split-K, T.ceildiv(K - bx * block_k, block_k * SPLIT_K): tiles from bx's, SPLIT_K apart.
    (splitk,) = parse_file(
        ROOT / "examples/triton/expected_tilelang/matmul_splitk.py", "tilelang"
    ).kernels
    k = _loops(splitk.body)[0].tiles[0]
    assert k.begin == ir.BinOp("*", ir.Name("bx"), ir.Name("block_k"))
    assert k.step == ir.Name("SPLIT_K") and k.extent == ir.SizeOf("a", 1)


def test_a_string_choice_reads_back_as_a_str_parameter() -> None:
    (act,) = parse_file(
        ROOT / "examples/triton/expected_tilelang/matmul_act.py", "tilelang"
    ).kernels
    assert [p.kind for p in act.params if p.name == "ACTIVATION"] == ["str"]
    tests = [s.test for s in walk_stmts(act.body) if isinstance(s, ir.If)]
    assert ir.BinOp("==", ir.Name("ACTIVATION"), ir.Const("gelu")) in tests


def test_a_buffer_of_a_block_size_two_loops_share_holds_each_loop_s_tiles() -> None:
    # `values` is allocated once and written in both column loops of one block size.
    (soft,) = parse_file(
        ROOT / "examples/helion/expected_tilelang/softmax_two_pass.py", "tilelang"
    ).kernels
    seen: dict[str, tuple[ir.Dim, ...]] = {}

    def before(stmt: ir.Stmt, env: TypeEnv) -> None:
        if isinstance(stmt, ir.Store) and stmt.tensor == "out":
            seen["values"] = dims_of(env.vars["values"])

    walk_kernel(soft, before)
    first, second = _loops(soft.body)
    assert [t.name for t in (*first.tiles, *second.tiles)] == ["n_o", "n_o_2"]
    assert [s.target for s in second.body if isinstance(s, ir.Assign)][:2] == ["x_tile_2", "values"]
    assert seen["values"] == (ir.BlockDim("bx"), ir.BlockDim("n_o_2"))


def _refused(tmp_path: Path, golden: str, old: str, new: str) -> tuple[TranslationError, str]:
    text = (ROOT / golden).read_text()
    assert old in text
    bad = tmp_path / Path(golden).name
    bad.write_text(text.replace(old, new, 1))
    with pytest.raises(TranslationError) as err:
        translate_file(bad, "tilelang", "triton")
    assert err.value.loc is not None
    return err.value, bad.read_text().splitlines()[err.value.loc.line - 1]


def test_a_buffer_read_in_another_loop_of_its_block_size_before_it_is_written_is_refused(
    tmp_path: Path,
) -> None:
    # The second column loop reads `values` without writing it: it would hold the first loop's
    # last tile, which no IR tile variable names.
    err, line = _refused(
        tmp_path,
        "examples/helion/expected_tilelang/softmax_two_pass.py",
        'values[i, j] = T.cast(x_tile_2[i, j], "float32")',
        "x_tile_2[i, j] = x_tile_2[i, j]",
    )
    assert "`values` is read in the loop over `n_o_2` before it is written there" in str(err)
    assert "out_tile[i, j] =" in line
    assert err.hint is not None and "write `values` in this loop" in err.hint


def test_a_block_size_of_two_loops_in_scope_at_once_is_refused(tmp_path: Path) -> None:
    # A T.Parallel extent names a block size two running loops share: which dim it is
    # cannot be told.
    text = (ROOT / "examples/triton/expected_tilelang/layer_norm.py").read_text()
    old = "                T.reduce_sum(red_src, tmp_2, dim=0)\n"
    nested = (
        old + "                for off_9_o in T.serial(T.ceildiv(N, block_size)):\n"
        "                    for i in T.Parallel(block_size):\n"
        "                        red_src[i] = a[i]\n"
    )
    assert old in text
    bad = tmp_path / "layer_norm.py"
    bad.write_text(text.replace(old, nested, 1))
    with pytest.raises(TranslationError) as err:
        translate_file(bad, "tilelang", "triton")
    assert "tiles several dims (off_o, off_9_o, off_2_o, off_3_o)" in str(err.value)
    assert "off_o, off_9_o are all in scope here" in str(err.value)
    assert err.value.loc is not None
    assert "T.Parallel(block_size)" in bad.read_text().splitlines()[err.value.loc.line - 1]


@pytest.mark.parametrize(
    ("old", "new", "what"),
    [
        ('ACTIVATION == "gelu"', 'a_shape[1] == "gelu"', "`a_shape[1]` is compared with a string"),
        ('ACTIVATION == "gelu"', 'ACTIVATION < "gelu"', "strings are compared with == or !="),
    ],
)
def test_a_string_compared_with_anything_but_a_choice_is_refused(
    tmp_path: Path, old: str, new: str, what: str
) -> None:
    err, line = _refused(tmp_path, "examples/triton/expected_tilelang/matmul_act.py", old, new)
    assert what in str(err)
    assert new in line


_MOE = "examples/cutile/expected_tilelang/moe_grouped_gemm.py"
_MOE_LOAD = """                    for i, j in T.Parallel(TM, TK):
                        a[i, j] = T.if_then_else(
                            start + bm_o * TM + i < end and k_o * TK + j < X_shape[1],
                            X[start + bm_o * TM + i, k_o * TK + j],
                            0.0,
                        )
"""


@pytest.mark.parametrize(
    ("old", "new", "what", "at"),
    [
        (
            "if start + bm_o * TM + i < end and bx * TN + j < W_shape[2]:",
            "if bx * TN + j < W_shape[2]:",
            "reaches lanes of `bm_o` past its end `end`",
            "Out[start + bm_o * TM + i",
        ),
        (
            "start + bm_o * TM + i < end and k_o * TK + j < X_shape[1],",
            "k_o * TK + j < X_shape[1],",
            "reaches lanes of `bm_o` past its end `end`",
            "X[start + bm_o * TM + i",
        ),
        (
            _MOE_LOAD,
            "                    T.copy(X[start + bm_o * TM, k_o * TK], a)\n",
            "T.copy and T.atomic_add clip at the tensor's edge only",
            "T.copy(X[start + bm_o * TM",
        ),
    ],
    ids=["store", "load", "copy"],
)
def test_an_access_past_the_end_of_a_loop_that_stops_inside_the_tensor_is_refused(
    tmp_path: Path, old: str, new: str, what: str, at: str
) -> None:
    # The rows loop stops at `end`, inside X and Out (the next expert's rows follow): TileLang
    # reads and writes whatever lanes it is given there, the IR none, so an access is read
    # only under the loop's bound.
    text = (ROOT / _MOE).read_text()
    assert old in text
    bad = tmp_path / "moe_grouped_gemm.py"
    bad.write_text(text.replace(old, new, 1))
    with pytest.raises(TranslationError) as err:
        translate_file(bad, "tilelang", "cutile")
    assert what in str(err.value)
    assert err.value.loc is not None
    assert at in bad.read_text().splitlines()[err.value.loc.line - 1]
