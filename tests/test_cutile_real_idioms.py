"""cuTile kernels in the spellings Liger's ops/cutile and TileGym write (tests/data/
cutile_real_idioms.py): chunk loops counted ``(n + B - 1) // B``, lanes from ``ct.add``, plain
helpers called from kernels, dtype locals, ``order=`` and module-level padding modes. Each is
checked against torch (the oracle's reading of the source), translated to the other three
DSLs and proved on CPU; what stays unread is a located diagnostic."""

from __future__ import annotations

import os

os.environ["TRITON_INTERPRET"] = "1"

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
import torch  # noqa: E402

from translator.api import parse_file, translate_file, translate_source  # noqa: E402
from translator.diagnostics import TranslationError  # noqa: E402
from translator.ir import nodes as ir  # noqa: E402
from translator.ir.visit import kernel_exprs  # noqa: E402
from validation.equivalence import check_pair, use_interpreter  # noqa: E402
from validation.runners import load_module  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
IDIOMS = ROOT / "tests" / "data" / "cutile_real_idioms.py"


@pytest.fixture(autouse=True)
def _repo_cwd(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def _inputs(entry: str, device: str, dtype: str) -> tuple:
    """Ragged inputs: rows of 150 columns in chunks of 64, 1000 elements in tiles of 128."""
    d = getattr(torch, dtype)

    def randn(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, dtype=d, device=device)

    return {
        "geglu": lambda: (randn(5, 150), randn(5, 150)),
        "rms_scale": lambda: (randn(7, 77),),
        "activation": lambda: (randn(1000), 1),
        "swiglu_tiles": lambda: (randn(37, 70), randn(37, 70)),
    }[entry]()


def _gelu_tanh(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.gelu(x, approximate="tanh")


def test_the_idioms_compute_what_torch_does() -> None:
    # The oracle's reading of the source itself: a chunk count, a lane or a helper read wrong
    # (a dropped tail chunk, a helper bound to the caller's names) fails here first.
    use_interpreter()
    module = load_module(IDIOMS, "cutile_real_idioms_source")
    a, b = torch.randn(5, 150), torch.randn(5, 150)
    torch.testing.assert_close(module.geglu(a, b), _gelu_tanh(a) * b, rtol=1e-5, atol=1e-5)
    x = torch.randn(7, 77)
    want = x * torch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-6)
    torch.testing.assert_close(module.rms_scale(x), want, rtol=1e-5, atol=1e-5)
    x = torch.randn(1000)
    torch.testing.assert_close(module.activation(x, 0), torch.nn.functional.silu(x))
    torch.testing.assert_close(module.activation(x, 1), _gelu_tanh(x), rtol=1e-5, atol=1e-5)
    a, b = torch.randn(37, 70), torch.randn(37, 70)
    want = torch.nn.functional.silu(a) * b + a
    torch.testing.assert_close(module.swiglu_tiles(a, b), want, rtol=1e-5, atol=1e-5)


def test_chunk_counts_and_functional_lanes_read_as_tile_loops() -> None:
    module = parse_file(IDIOMS, "cutile")
    geglu, rms, activation, tiles = module.kernels
    # `num_chunks = (n_cols + BLOCK_SIZE - 1) // BLOCK_SIZE` is the loop's count, and the
    # binding goes with it; `ct.add(ct.arange(B), ci * B)` is the loop tile's lanes.
    (loop,) = [s for s in geglu.body if isinstance(s, ir.TileLoop)]
    (tile,) = loop.tiles
    assert (tile.extent, tile.block) == (ir.Name("n_cols"), "BLOCK_SIZE")
    assert not any(isinstance(s, ir.Assign) and s.target == "num_chunks" for s in geglu.body)
    loads = [e for e in kernel_exprs(geglu) if isinstance(e, ir.Load)]
    assert {e.index for e in loads} == {(ir.ScalarIndex(ir.Name("row_idx")), ir.TileIndex("ci"))}
    # Both loops of the two-pass kernel: `(n + (B - 1)) // B` in the range, `ct.cdiv` in a local.
    loops = [s for s in rms.body if isinstance(s, ir.TileLoop)]
    assert [lp.tiles[0].extent for lp in loops] == [ir.Name("n_cols")] * 2
    (pid,) = activation.grid
    assert (pid.extent, pid.block) == (ir.SizeOf("x", 0), "BLOCK_SIZE")
    # `PAD_ZERO` is the module's `ct.PaddingMode.ZERO`.
    assert {e.other for e in kernel_exprs(tiles) if isinstance(e, ir.Load)} == {0.0}


@pytest.mark.parametrize("target", ["triton", "helion", "tilelang"])
def test_the_idioms_translate_and_match_on_cpu(target: str, tmp_path: Path) -> None:
    translated = tmp_path / f"idioms_{target}.py"
    translated.write_text(translate_file(IDIOMS, "cutile", target))
    report = check_pair(
        IDIOMS,
        translated,
        src_dsl="cutile",
        dtypes=("float32",),
        seeds=(0,),
        inputs=_inputs,
    )
    assert report.rows and report.passed, report.format_text()


_KERNEL = """import cuda.tile as ct

ConstInt = ct.Constant[int]
SCALE = 2.0


def _scaled(x):
    return x * SCALE


@ct.kernel
def _k(x, y, TILE: ConstInt):
    bid = ct.bid(0)
    offsets = bid * TILE + ct.arange(TILE, dtype=ct.int32)
    t = ct.gather(x, offsets)
    ct.scatter(y, offsets, BODY)


def run(x):
    y = x.new_empty(x.shape)
    ct.launch(None, (ct.cdiv(x.numel(), 256),), _k, (x, y, 256))
    return y
"""


def _refused(body: str, match: str, line: int, prefix: str = "") -> TranslationError:
    text = _KERNEL.replace("BODY", body)
    if prefix:
        text = text.replace("    bid = ct.bid(0)\n", f"    bid = ct.bid(0)\n{prefix}")
    with pytest.raises(TranslationError, match=match) as err:
        translate_source(text, "k.py", "cutile", "triton")
    assert err.value.loc is not None and err.value.loc.line == line and err.value.hint
    return err.value


def test_functional_arithmetic_at_a_rounding_mode_is_a_located_diagnostic() -> None:
    # `ct.add(..., rounding_mode=RZ)` truncates; read as `+` it would round to nearest.
    _refused(
        "ct.add(t, t, rounding_mode=ct.RoundingMode.RZ)", r"`ct.add\(\.\.\., rounding_mode=", 16
    )


def test_a_helper_reading_a_global_the_kernel_shadows_is_a_located_diagnostic() -> None:
    # In Python `_scaled` reads the module's SCALE; inlined it must not see the kernel's.
    err = _refused("_scaled(t)", "reads `SCALE`, a module global", 8, "    SCALE = 3.0\n")
    assert "_scaled" in str(err)


def test_a_helper_reads_its_arguments_in_the_callers_scope() -> None:
    # `_pick(b, a)` with parameters `(a, b)`: binding `a` first must not change what the
    # second argument reads.
    text = (
        _KERNEL.replace(
            "def _scaled(x):\n    return x * SCALE\n",
            "def _pick(a, b):\n    return a - b\n",
        )
        .replace("BODY", "_pick(b, a)")
        .replace(
            "    t = ct.gather(x, offsets)\n", "    a = ct.gather(x, offsets)\n    b = a * 3.0\n"
        )
    )
    module = load_module_text(text)
    x = torch.randn(300)
    torch.testing.assert_close(module.run(x), 3.0 * x - x)
    (kernel,) = translate_ir(text).kernels
    (store,) = [s for s in kernel.body if isinstance(s, ir.Store)]
    assert store.value == ir.BinOp("-", ir.Name("b"), ir.Name("a"))


def load_module_text(text: str):
    import tempfile

    use_interpreter()
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(text)
    return load_module(Path(f.name), "cutile_pick_source")


def translate_ir(text: str):
    from translator.api import parse_source

    return parse_source(text, "k.py", "cutile")


@pytest.mark.parametrize("order", ["(1, 0)", '"F"'])
def test_a_permuting_load_order_is_a_located_diagnostic(order: str) -> None:
    text = f"""import cuda.tile as ct


@ct.kernel
def _k(x, y, TM: ct.Constant[int], TN: ct.Constant[int]):
    i = ct.bid(0)
    j = ct.bid(1)
    t = ct.load(x, index=(i, j), shape=(TM, TN), order={order})
    ct.store(y, index=(i, j), tile=t)


def run(x):
    y = x.new_empty(x.shape)
    ct.launch(None, (ct.cdiv(x.shape[0], 16), ct.cdiv(x.shape[1], 16)), _k, (x, y, 16, 16))
    return y
"""
    with pytest.raises(TranslationError, match=r"order=.* is not read: only the identity") as err:
        translate_source(text, "k.py", "cutile", "triton")
    assert err.value.loc is not None and err.value.loc.line == 8 and err.value.hint
    assert "ct.permute" in err.value.hint


def test_a_chunk_count_a_loop_cannot_read_is_a_located_diagnostic() -> None:
    # `(n + B) // B` counts one chunk too many where B divides n: no tile count.
    text = IDIOMS.read_text().replace(
        "num_chunks = (n_cols + BLOCK_SIZE - 1) // BLOCK_SIZE",
        "num_chunks = (n_cols + BLOCK_SIZE) // BLOCK_SIZE",
    )
    with pytest.raises(TranslationError, match="a tile loop counts") as err:
        translate_source(text, "idioms.py", "cutile", "triton")
    line = text.splitlines().index("    for ci in range(num_chunks):") + 1
    assert err.value.loc is not None and err.value.loc.line == line and err.value.hint


def test_an_extract_of_the_whole_tile_is_the_tile() -> None:
    # TileGym's split-K reduce: `ct.extract(mma_result, (0, 0), shape=(1, TILE_D))` of a
    # (1, TILE_D) tile is that tile.
    text = _KERNEL.replace("BODY", "ct.extract(t * 2.0, (0,), shape=(TILE,))")
    use_interpreter()
    module = load_module_text(text)
    x = torch.randn(300)
    torch.testing.assert_close(module.run(x), 2.0 * x)
    (kernel,) = translate_ir(text).kernels
    (store,) = [s for s in kernel.body if isinstance(s, ir.Store)]
    assert isinstance(store.value, ir.BinOp) and store.value.op == "*"


def test_an_extract_of_a_subtile_is_a_located_diagnostic() -> None:
    _refused("ct.extract(t, (1,), shape=(TILE,))", "`ct.extract` of a subtile", 16)
