"""Several rows per cuTile program (issue 14): the rows-per-block rewrite and the row space.

cuTile's compiler handles a whole-row 1-D tile per program badly (3-9x slower than the sources
on the H200), so the cuTile backend gives a row kernel's program a 2-D tile of ``ROWS`` rows:

* the IR rewrite (``translator/ir/transforms.py``, ``rows_per_block``) computes what one row per
  program does, at a ragged number of rows, in the IR reference interpreter, and leaves a kernel
  alone where rows of a block would need different control flow, or where what it built does
  not verify;
* a cuTile row that is a tile of block 1 (``shape=(1, TILE)``) is made a row index first, so
  that reductions over its unit dim (axis-less ``ct.sum``) stay within each row;
* the backend searches ``ROWS`` with ``ct.tune`` (``[backend.row_space]``), keeps a source's own
  row counts and passes tile sizes the source's host computes to every trial;
* a translation launched at a config other than the first (the CPU oracle proves the first)
  still writes every row exactly.
"""

from __future__ import annotations

import os

os.environ["TRITON_INTERPRET"] = "1"

import dataclasses  # noqa: E402
import re  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
import torch  # noqa: E402

from translator.api import parse_file, parse_source, translate_source  # noqa: E402
from translator.dialects.cutile.backend import with_rows_per_block  # noqa: E402
from translator.grammar import load_grammar  # noqa: E402
from translator.ir import nodes as ir  # noqa: E402
from translator.ir.interpreter import run_kernel  # noqa: E402
from translator.ir.roles import one_row_tiles  # noqa: E402
from translator.ir.transforms import rows_per_block  # noqa: E402
from translator.ir.verifier import verify_kernel  # noqa: E402
from validation.equivalence import use_interpreter  # noqa: E402
from validation.runners import load_module  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
M, N = 19, 37  # ragged for every row count of the ladder


def _kernel(name: str) -> ir.Kernel:
    (kernel,) = parse_file(ROOT / "examples" / "triton" / f"{name}.py", "triton").kernels
    return kernel


def _args(name: str, g: torch.Generator) -> dict[str, object]:
    """Inputs of a Triton example's kernel; outputs poisoned so unwritten lanes fail."""

    def randn(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=g)

    def poison(*shape: int) -> torch.Tensor:
        return torch.full(shape, float("nan"))

    if name == "softmax":
        return {"output": poison(M, N), "input": randn(M, N)}
    if name == "layer_norm":
        return {
            "X": randn(M, N), "Y": poison(M, N), "W": randn(N), "B": randn(N),
            "Mean": poison(M), "Rstd": poison(M), "N": N, "eps": 1e-5,
        }  # fmt: skip
    if name == "rms_norm":
        return {
            "Y": poison(M, N), "X": randn(M, N), "W": randn(N), "RSTD": poison(M),
            "n_cols": N, "eps": 1e-6,
        }  # fmt: skip
    assert name == "swiglu"
    return {"a": randn(M, N), "b": randn(M, N), "c": poison(M, N), "n_cols": N}


@pytest.mark.parametrize("rows", [1, 4, 8])
@pytest.mark.parametrize("name", ["softmax", "layer_norm", "rms_norm", "swiglu"])
def test_a_block_of_rows_computes_what_one_row_per_program_does(name: str, rows: int) -> None:
    kernel = _kernel(name)
    (tile,) = one_row_tiles(kernel)
    assert tile.scalar
    blocked = rows_per_block(kernel, tile.name, "rows")
    assert blocked is not kernel
    verify_kernel(dataclasses.replace(blocked, tunables=(*blocked.tunables, _rows())))
    assert blocked.grid[0].block == "rows" and not blocked.grid[0].scalar
    config = {t.name: t.default for t in kernel.tunables}
    want, got = (
        _args(name, torch.Generator().manual_seed(0)),
        _args(name, torch.Generator().manual_seed(0)),
    )
    run_kernel(kernel, want, config)  # type: ignore[arg-type]
    run_kernel(
        dataclasses.replace(blocked, tunables=(*blocked.tunables, _rows())),
        got,  # type: ignore[arg-type]
        {**config, "rows": rows},
    )
    for key, value in want.items():
        if isinstance(value, torch.Tensor):
            assert not value.isnan().any(), key  # the source wrote every output lane
            torch.testing.assert_close(got[key], value, rtol=1e-6, atol=1e-6, msg=key)


def _rows() -> ir.Tunable:
    return ir.Tunable("rows", "block_size", 1, (1,))


def test_a_branch_on_a_rows_value_keeps_one_row_per_program() -> None:
    # Triton's cross entropy returns early for an ignored target (`if y == ignore_index`) and
    # reads `X[row, y]`: the rows of a block would take different branches and gather different
    # columns, which the rewrite does not express.
    kernel = _kernel("cross_entropy")
    (tile,) = one_row_tiles(kernel)
    assert rows_per_block(kernel, tile.name, "rows") is kernel
    text = (ROOT / "examples/triton/expected_cutile/cross_entropy.py").read_text()
    assert "ROWS" not in text and "(logits.size(0), 1, 1)" in text


def test_only_a_grid_of_single_rows_is_blocked() -> None:
    # A dot kernel's unit tiles are batch dims; a grid that tiles a dim (Helion's row_sum,
    # attention's query block) already gives each program many lanes.
    assert one_row_tiles(_kernel("matmul")) == []
    (row_sum,) = parse_file(ROOT / "examples/helion/row_sum.py", "helion").kernels
    assert one_row_tiles(row_sum) == []


def _space(path: str) -> str:
    text = (ROOT / path).read_text()
    return text.split("_CONFIGS = [")[1].split("\n]")[0]


def test_the_cutile_translation_loads_a_block_of_rows_and_searches_its_count() -> None:
    text = (ROOT / "examples/triton/expected_cutile/softmax.py").read_text()
    kernel = text.split("@ct.kernel")[1].split("\n\n\n")[0]
    assert "ROWS: ct.Constant[int]" in kernel
    assert "shape=(ROWS, BLOCK_INPUT1)" in kernel
    assert "ct.reshape" not in kernel  # no 1-D row tile any more
    assert "ct.max(row, axis=1, keepdims=True)" in kernel
    ladder = load_grammar("cutile")["backend"]["row_space"]["rows"]
    space = _space("examples/triton/expected_cutile/softmax.py")
    # each row count twice: with and without the TMA unit (a switch the search decides)
    rows = re.findall(r'\{"ROWS": (\d+), "USE_TMA": (?:False|True)\}', space)
    assert rows == [str(v) for v in ladder for _ in range(2)]
    host = text.split("def softmax(")[1]
    assert 'lambda cfg: (ct.cdiv(x.size(0), cfg["ROWS"]), 1, 1)' in host


def test_a_sources_own_row_count_stays_in_the_space() -> None:
    # Helion's softmax config says 2 rows per program (in the ladder); Triton's row_sum 16.
    ladder = load_grammar("cutile")["backend"]["row_space"]["rows"]
    helion = _space("examples/helion/expected_cutile/softmax.py")
    plain = re.findall(r'\{"BLOCK_SIZE_M": (\d+), "USE_TMA": (?:False|True)\}', helion)
    assert len(plain) == 2 * len(ladder)  # each with and without TMA
    # Few rows a block also at the row kernels' occupancy hints (more blocks per SM: on the H200
    # the sources' speed was reached only there), each right after its plain config.
    spec = load_grammar("cutile")["backend"]["hint_space"]["rows"]
    hinted = re.findall(
        r'\{"BLOCK_SIZE_M": (\d+), "USE_TMA": (?:False|True), "occupancy": (\d+)\}', helion
    )
    want = [(str(r), str(v)) for r in ladder if r <= spec["max_rows"] for v in spec["values"]]
    assert sorted(hinted) == sorted(want * 2)
    text = (ROOT / "examples/helion/expected_cutile/softmax.py").read_text()
    assert all(f".replace_hints(occupancy={v})" in text for v in spec["values"])
    # Element-wise kernels get no hint (none moved them in the probe).
    assert "occupancy" not in (ROOT / "examples/helion/expected_cutile/add.py").read_text()
    assert '"BLOCK_SIZE_M": 2, "USE_TMA": False}' in helion
    # A column reduction's column block (64 in the cuTile example) is no row count to search.
    # Its space is the source's one tile, with and without TMA.
    space = _space("examples/cutile/expected_cutile/column_sum.py")
    assert re.findall(r"\{.*\}", space) == [
        '{"TM": 32, "TN": 64, "USE_TMA": False}',
        '{"TM": 32, "TN": 64, "USE_TMA": True}',
    ]


def test_rows_and_the_host_computed_chunk_are_searched_together() -> None:
    # Triton's layer norm computes BLOCK_SIZE (the chunk of its loops over columns) on the
    # host: ROWS and the chunk are both searched, the chunk at most 8192 lanes a tile (rows x
    # chunk), then at the source's cap; the key is the shapes and scalars alone.
    text = (ROOT / "examples/triton/expected_cutile/layer_norm.py").read_text()
    space = _space("examples/triton/expected_cutile/layer_norm.py")
    assert space.index('{"ROWS": 4, "BLOCK_SIZE": 2048') < space.index('"BLOCK_SIZE": 8192')
    assert '{"ROWS": 8, "BLOCK_SIZE": 2048' not in space  # 16384 lanes
    host = text.split("def layer_norm(")[1]
    launch = 'eps,\n            cfg["ROWS"],\n            cfg["BLOCK_SIZE"],\n            cfg["USE_TMA"],'
    assert launch in host and "next_power_of_2" not in host


@pytest.mark.parametrize("rows", [2, 16])
def test_every_row_count_of_the_space_writes_every_row_on_the_cpu_oracle(rows: int) -> None:
    # The CPU search returns the first config; put another first and launch at 19 rows: the
    # (ROWS,) stores of each row's mean and rstd and the (ROWS, BLOCK_SIZE) tiles of the loops
    # over columns (16 lanes for 37 columns: three chunks, the last ragged).
    use_interpreter()
    mod = load_module(ROOT / "examples/triton/expected_cutile/layer_norm.py", f"ln_{rows}")
    mod._LAYER_NORM_FWD_FUSED_CONFIGS[:] = [{"ROWS": rows, "BLOCK_SIZE": 16, "USE_TMA": False}]
    x, w, b = torch.randn(M, N), torch.randn(N), torch.randn(N)
    y, mean, rstd = mod.layer_norm(x, w, b, 1e-5)
    torch.testing.assert_close(mean, x.mean(-1), rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(rstd, torch.rsqrt(x.var(-1, unbiased=False) + 1e-5))
    want = torch.nn.functional.layer_norm(x, (N,), w, b, 1e-5)
    torch.testing.assert_close(y, want, rtol=1e-5, atol=1e-5)
    assert list(mod._layer_norm_fwd_fused_best.values()) == [
        {"ROWS": rows, "BLOCK_SIZE": 16, "USE_TMA": False}
    ]


# A cuTile row kernel's row is a tile of block 1 (`ct.load(x, index=(row, 0), shape=(1, TILE))`):
# ops along that unit dim (an axis-less `ct.sum`, NVIDIA's samples' style, reduces it too) must
# stay within each row once the tile holds ROWS rows.
UNIT_DIM_OPS = """\
import cuda.tile as ct
import torch


@ct.kernel
def unit_ops_kernel(x, out, TILE: ct.Constant[int]):
    row = ct.bid(0)
    t = ct.load(x, index=(row, 0), shape=(1, TILE), padding_mode=ct.PaddingMode.ZERO)
    t = ct.astype(t, ct.float32)
    col = ct.sum(t, axis=0)
    first = ct.astype(ct.argmax(t, axis=0), ct.float32)
    y = t * 2.0 + col + first - ct.cumsum(t, axis=0) + ct.sum(t) * ct.min(t) + ct.argmin(t, 0)
    ct.store(out, index=(row, 0), tile=ct.astype(y, out.dtype))


def unit_ops(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    tile = 1 << (x.shape[1] - 1).bit_length()
    ct.launch(torch.cuda.current_stream(), (x.shape[0], 1, 1), unit_ops_kernel, (x, out, tile))
    return out
"""


@pytest.mark.parametrize("rows", [1, 4, 8])
@pytest.mark.parametrize("source", ["softmax_exp2", "softmax", "unit_dim_ops"])
def test_a_block_of_unit_row_tiles_computes_what_one_row_per_program_does(
    source: str, rows: int
) -> None:
    # Issue 14: the unit tile was given ROWS lanes as it was, and softmax_exp2's axis-less
    # ct.max / ct.sum then reduced over every row of a block (error 0.74 on the oracle).
    if source == "unit_dim_ops":
        (kernel,) = parse_source(UNIT_DIM_OPS, "unit_ops.py", "cutile").kernels
    else:
        (kernel,) = parse_file(ROOT / "examples" / "cutile" / f"{source}.py", "cutile").kernels
    (tile,) = one_row_tiles(kernel)
    assert not tile.scalar and tile.block == ir.Const(1)
    blocked = with_rows_per_block(kernel)
    assert blocked.grid[0].block == "rows"
    verify_kernel(blocked)
    g = torch.Generator().manual_seed(0)
    x = torch.randn(M, N, generator=g)
    want = {"x": x, "out": torch.full((M, N), float("nan"))}
    got = {"x": x.clone(), "out": torch.full((M, N), float("nan"))}
    run_kernel(kernel, want, {})  # type: ignore[arg-type]
    run_kernel(blocked, got, {"rows": rows})  # type: ignore[arg-type]
    assert not want["out"].isnan().any()
    torch.testing.assert_close(got["out"], want["out"], rtol=1e-6, atol=1e-6)


def test_a_store_the_rows_would_need_reshaped_for_keeps_one_row_per_program() -> None:
    # A variant of kl_div_rows whose row loop is `hl.grid` (test_mutations' `hl.tile(` ->
    # `hl.grid(` edit): its [1] partial sum, stored at one element of each row, became a
    # [rows, 1] tile broadcast to the [rows] region, which only the pass manager's verifier
    # caught ("cannot broadcast"). The rewrite verifies what it returns and leaves the kernel.
    text = (ROOT / "examples/library/helion/kl_div_rows.py").read_text()
    loop = "for tile_bt in hl.tile(bt):"
    assert loop in text
    text = text.replace(loop, "for tile_bt in hl.grid(bt):")
    kernel = parse_source(text, "kl_div_rows.py", "helion").kernels[0]
    (tile,) = one_row_tiles(kernel)
    assert rows_per_block(kernel, tile.name, "rows") is kernel
    out = translate_source(text, "kl_div_rows.py", "helion", "cutile")
    fwd = out.split("def _kl_div_rows_fwd_kernel(")[1].split("\n\n\n")[0]
    assert "tile_bt = ct.bid(0)" in fwd and "ROWS: ct.Constant[int]" not in fwd
