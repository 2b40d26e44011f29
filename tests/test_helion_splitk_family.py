"""Constructs of the split-K family of public Helion kernels (pytorch/helion ``examples/``:
``matmul_split_k``, ``split_k_barrier``, ``jsd``, ``template_via_closure``, ``int4_gemm``):
bit operations on integer tiles, user tunables (``hl.register_tunable``), block sizes the host
computes, and epilogue callables.

Accepted constructs are translated to Triton and run against their source on the CPU
(``TRITON_INTERPRET=1``); refusals are checked for their location, message and help.
"""

from __future__ import annotations

import os

# Kernels run in Triton's interpreter; set it before anything imports triton.
os.environ["TRITON_INTERPRET"] = "1"

import dataclasses  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from translator.api import translate_file, translate_source  # noqa: E402
from translator.diagnostics import TranslationError  # noqa: E402
from validation.equivalence import check_pair  # noqa: E402

DATA = Path(__file__).parent / "data"
HEADER = "import helion\nimport helion.language as hl\nimport torch\n\n\n"


def _full_range_bytes(entry: str, device: str, dtype: str) -> tuple | None:
    """Inputs whose bytes use all 8 bits: the validator's default integers lie in [-8, 8),
    where shifting by 3 or by 4 gives the same (0 or -1), so they would hide a wrong shift."""
    import torch

    gen = torch.Generator().manual_seed(7)
    if entry == "int4_unpack":
        packed = torch.randint(-128, 128, (37, 45), generator=gen, dtype=torch.int8)
        scales = torch.rand(45, generator=gen, dtype=torch.float32) + 0.5
        return packed.to(device), scales.to(device)
    if entry == "int4_matmul":
        # 70 rows, 2 * 45 columns (ragged for blocks of 16), 61 output columns.
        a = torch.randn(70, 90, generator=gen, dtype=torch.float32)
        packed = torch.randint(-128, 128, (45, 61), generator=gen, dtype=torch.int8)
        return a.to(device), packed.to(device)
    if entry == "int4_pack":
        lo = torch.randint(-8, 8, (77,), generator=gen, dtype=torch.int32)
        hi = torch.randint(-8, 8, (77,), generator=gen, dtype=torch.int32)
        return lo.to(device), hi.to(device)
    return None


@pytest.mark.parametrize("target", ["triton", "helion"])
def test_shifts_and_masks_of_integer_tiles_unpack_int4_as_the_source_does(
    target: str, tmp_path: Path
) -> None:
    source = DATA / "helion_int4_dequant.py"
    text = translate_file(source, "helion", target)
    # The arithmetic shift of the signed byte and the nibble masks are the source's operators.
    assert "(byte >> 4)" in text and "(byte & 15)" in text
    assert "& 15) << 4" in text and "^ 128) - 128" in text
    translated = tmp_path / f"int4_{target}.py"
    translated.write_text(text)
    report = check_pair(
        source, translated, dtypes=("float32",), seeds=(0,), inputs=_full_range_bytes
    )
    assert report.passed, report.format_text()


@pytest.mark.parametrize("target", ["tilelang", "cutile"])
def test_shifts_of_integer_tiles_are_spelt_in_every_backend(target: str) -> None:
    # The matmul's strided columns of `a` are gathers, which these backends do not write yet.
    text = (DATA / "helion_int4_dequant.py").read_text()
    text = text[: text.index("@helion.kernel(config=helion.Config(block_sizes=[16, 16, 16]")]
    text = translate_source(text, "int4.py", "helion", target)
    assert "byte >> 4" in text.replace("byte[i, j] >> 4", "byte >> 4")
    assert "<< 4" in text


def test_a_shift_of_a_float_tile_is_refused_where_it_is_written() -> None:
    source = (
        HEADER
        + "@helion.kernel()\n"
        + "def halve(x: torch.Tensor) -> torch.Tensor:\n"
        + "    out = torch.empty_like(x)\n"
        + "    for tile in hl.tile(x.size(0)):\n"
        + "        out[tile] = x[tile].to(torch.float32) >> 1\n"
        + "    return out\n"
    )
    with pytest.raises(TranslationError) as info:
        translate_source(source, "k.py", "helion", "triton")
    err = info.value
    assert err.loc is not None and err.loc.line == 10
    assert "`>>` of float32 operands (it takes integers)" in err.message


# --------------------------------------------------------------------------------------------------
# hl.register_tunable: the kernel's own knobs

SOFTMAX = DATA / "helion_tunable_softmax.py"


def _swapped_configs(tmp_path: Path) -> Path:
    """The softmax source with its two configs swapped: CPU runs pin the first config, so each
    order runs one branch of the `use_exp2` knob."""
    text = SOFTMAX.read_text()
    first = "helion.Config(block_sizes=[4], num_warps=4, use_exp2=True, rows_in_flight=2)"
    second = "helion.Config(block_sizes=[8], num_warps=8, use_exp2=False, rows_in_flight=1)"
    assert first in text and second in text
    swapped = tmp_path / "softmax_swapped.py"
    swapped.write_text(text.replace(first, "@@").replace(second, first).replace("@@", second))
    return swapped


@pytest.mark.parametrize("order", ["as_written", "swapped"])
def test_user_tunables_are_triton_constexprs_in_every_config(order: str, tmp_path: Path) -> None:
    source = SOFTMAX if order == "as_written" else _swapped_configs(tmp_path)
    text = translate_file(source, "helion", "triton")
    assert "USE_EXP2: tl.constexpr" in text and "ROWS_IN_FLIGHT: tl.constexpr" in text
    configs = [line.strip() for line in text.splitlines() if "triton.Config(" in line]
    exp2_first = order == "as_written"
    assert configs == [
        f'triton.Config({{"BLOCK_SIZE_M": {4 if exp2_first else 8}, '
        f'"USE_EXP2": {int(exp2_first)}, "ROWS_IN_FLIGHT": {2 if exp2_first else 1}}}, '
        f"num_warps={4 if exp2_first else 8}),",
        f'triton.Config({{"BLOCK_SIZE_M": {8 if exp2_first else 4}, '
        f'"USE_EXP2": {int(not exp2_first)}, "ROWS_IN_FLIGHT": {1 if exp2_first else 2}}}, '
        f"num_warps={8 if exp2_first else 4}),",
    ]
    # The host binds neither knob: the kernel's configs give them.
    bound = ("use_exp2 =", "rows_in_flight =")
    assert not [line for line in text.splitlines() if line.strip().startswith(bound)]
    translated = tmp_path / "softmax_triton.py"
    translated.write_text(text)
    report = check_pair(source, translated, dtypes=("float32",), seeds=(0,), sizes={"m": 19})
    assert report.passed, report.format_text()


def test_user_tunables_stay_registered_tunables_in_helion(tmp_path: Path) -> None:
    text = translate_file(SOFTMAX, "helion", "helion")
    assert 'use_exp2 = hl.register_tunable("use_exp2", BooleanFragment())' in text
    assert (
        'rows_in_flight = hl.register_tunable("rows_in_flight", PowerOfTwoFragment(1, 4, 2))'
        in text
    )
    assert "from helion.autotuner import BooleanFragment, PowerOfTwoFragment" in text
    assert "use_exp2=1, rows_in_flight=2" in text and "use_exp2=0, rows_in_flight=1" in text
    translated = tmp_path / "softmax_helion.py"
    translated.write_text(text)
    report = check_pair(SOFTMAX, translated, dtypes=("float32",), seeds=(0,))
    assert report.passed, report.format_text()


def test_user_tunables_are_tilelang_factory_parameters_it_tunes(tmp_path: Path) -> None:
    text = translate_file(SOFTMAX, "helion", "tilelang")
    assert '{"block_size_m": 4, "use_exp2": 1, "rows_in_flight": 2, "threads": 128}' in text
    assert "    use_exp2=1,\n    rows_in_flight=2,\n" in text
    translated = tmp_path / "softmax_tilelang.py"
    translated.write_text(text)
    report = check_pair(SOFTMAX, translated, dtypes=("float32",), seeds=(0,))
    assert report.passed, report.format_text()


def test_user_tunables_are_cutile_constants_in_its_tuning_space() -> None:
    text = translate_file(SOFTMAX, "helion", "cutile")
    assert "USE_EXP2: ct.Constant[int]," in text and "if USE_EXP2:" in text
    assert '{"BLOCK_SIZE_M": 4, "USE_EXP2": 1, "ROWS_IN_FLIGHT": 2, "USE_TMA": False}' in text


def test_a_configless_kernel_searches_each_knobs_space_in_triton() -> None:
    source = (
        HEADER
        + "from helion.autotuner import EnumFragment\n\n\n"
        + "@helion.kernel()\n"
        + "def scale(x: torch.Tensor) -> torch.Tensor:\n"
        + "    out = torch.empty_like(x)\n"
        + '    factor = hl.register_tunable("factor", EnumFragment((3, 5, 7)))\n'
        + "    for tile in hl.tile(x.size(0)):\n"
        + "        out[tile] = x[tile] * (factor // factor)\n"
        + "    return out\n"
    )
    text = translate_source(source, "k.py", "helion", "triton")
    factors = [line.split('"FACTOR": ')[1][0] for line in text.splitlines() if '"FACTOR"' in line]
    # Every config of the block space at the default, then the first config at each other value.
    assert factors[0] == "3" and factors[-2:] == ["5", "7"] and set(factors[:-2]) == {"3"}


def test_the_ir_prints_an_int_tunables_space() -> None:
    from translator.api import parse_source
    from translator.ir.printer import format_kernel

    module = parse_source(SOFTMAX.read_text(), str(SOFTMAX), "helion")
    text = format_kernel(module.kernels[0])
    assert "tunable use_exp2: int = 1 in boolean[0, 1]" in text
    assert "tunable rows_in_flight: int = 2 in power_of_two[1, 4]" in text


@pytest.mark.parametrize(
    ("fragment", "what"),
    [
        ('EnumFragment(("fast", "slow"))', "an enum tunable is read with integer choices only"),
        ("PowerOfTwoFragment(1, lo)", "needs integer literals (lo, hi[, default])"),
        ("PowerOfTwoFragment(4, 64, 3)", "has no default inside [4, 64]"),
        ("make_fragment()", "is no fragment tiletrans reads"),
    ],
)
def test_fragments_tiletrans_cannot_read_are_refused_where_written(
    fragment: str, what: str
) -> None:
    source = (
        HEADER
        + "from helion.autotuner import EnumFragment, PowerOfTwoFragment\n\n\n"
        + "@helion.kernel()\n"
        + "def scale(x: torch.Tensor, lo: int) -> torch.Tensor:\n"
        + "    out = torch.empty_like(x)\n"
        + f'    factor = hl.register_tunable("factor", {fragment})\n'
        + "    for tile in hl.tile(x.size(0)):\n"
        + "        out[tile] = x[tile] * factor\n"
        + "    return out\n"
    )
    with pytest.raises(TranslationError) as info:
        translate_source(source, "k.py", "helion", "triton")
    err = info.value
    assert what in err.message
    assert err.loc is not None and err.loc.line == 12 and err.loc.col == 43


def test_the_verifier_refuses_an_int_tunable_outside_its_space() -> None:
    from translator.ir import nodes as ir
    from translator.ir.shapes import IRTypeError
    from translator.ir.verifier import verify_kernel

    tile = ir.TileVar("t", ir.Name("n"), "block_t")
    kernel = ir.Kernel(
        "k",
        (ir.Param("n", "int"),),
        (tile,),
        (),
        tunables=(
            ir.Tunable("block_t", "block_size", 32),
            ir.Tunable("split", "int", 3, space="power_of_two", bounds=(1, 8)),
        ),
    )
    with pytest.raises(IRTypeError, match="takes 3, outside its power_of_two space"):
        verify_kernel(kernel)
    blocked = dataclasses.replace(
        kernel,
        grid=(ir.TileVar("t", ir.Name("n"), "split"),),
        tunables=(ir.Tunable("split", "int", 4, space="power_of_two", bounds=(1, 8)),),
    )
    with pytest.raises(IRTypeError, match="takes its block from int tunable 'split'"):
        verify_kernel(blocked)


# --------------------------------------------------------------------------------------------------
# Blocks the host computes: split-K

SPLIT_K = DATA / "helion_split_k.py"


@pytest.mark.parametrize("target", ["triton", "helion", "cutile"])
def test_split_k_by_a_computed_block_runs_as_the_source_does(target: str, tmp_path: Path) -> None:
    text = translate_file(SPLIT_K, "helion", target)
    # split_k is read by the host (it computes the block), so the host fixes it, and the block
    # is computed in plain Python: no target imports Helion for it.
    assert "    split_k = 4\n" in text and "    split_k = 8\n" in text
    assert (
        "host code\n    # computes with it before the launch, so it is fixed at its default" in text
    )
    assert "block_k = 1 << max(((k + split_k - 1) // split_k) - 1, 0).bit_length()" in text
    assert "helion.next_power_of_2" not in text and "helion.cdiv" not in text
    # The chunk count is a launch argument of its own.
    assert "((k + block_k - 1) // block_k)" in text
    translated = tmp_path / f"split_k_{target}.py"
    translated.write_text(text)
    # 300 columns in chunks of 128 (split 4) or 64 (split 8: five chunks, three slots unused).
    sizes = {"m": 70, "n": 150, "k": 300}
    report = check_pair(SPLIT_K, translated, dtypes=("float32",), seeds=(0,), sizes=sizes)
    assert report.passed, report.format_text()


def test_split_k_chunks_are_a_grid_over_the_block_count_in_the_ir() -> None:
    from translator.api import parse_source
    from translator.ir import nodes as ir

    module = parse_source(SPLIT_K.read_text(), str(SPLIT_K), "helion")
    kernel = module.kernel("_matmul_split_k_atomic_kernel")
    chunk = kernel.grid[2]
    assert chunk.scalar and chunk.block == ir.Const(1)
    assert chunk.extent == ir.Name("outer_k_tiles")
    assert "split_k" not in {t.name for t in kernel.tunables}


def test_a_computed_block_that_is_always_one_value_is_that_block(tmp_path: Path) -> None:
    # Liger's JSD in Helion: one row per program, written as a block computed from the rows.
    source = (
        HEADER
        + "@helion.kernel()\n"
        + "def row_scale(x: torch.Tensor) -> torch.Tensor:\n"
        + "    bt, v = x.shape\n"
        + "    n_rows = bt\n"
        + "    out = torch.empty_like(x)\n"
        + "    for tile_bt in hl.tile(bt, block_size=helion.cdiv(bt, n_rows)):\n"
        + "        for tile_v in hl.tile(v):\n"
        + "            out[tile_bt, tile_v] = x[tile_bt, tile_v] * 2.0\n"
        + "    return out\n"
    )
    path = tmp_path / "rows.py"
    path.write_text(source)
    text = translate_file(path, "helion", "triton")
    # cdiv(bt, bt) is 1: one row per program, an index rather than a tile of lanes.
    assert "    tile_bt = tl.program_id(0)\n" in text and "BLOCK_SIZE_BT" not in text
    assert "_row_scale_kernel[(bt,)](" in text
    translated = tmp_path / "rows_triton.py"
    translated.write_text(text)
    report = check_pair(path, translated, dtypes=("float32",), seeds=(0,))
    assert report.passed, report.format_text()


def test_the_lanes_of_a_tile_of_a_computed_block_are_refused_where_read() -> None:
    source = (
        HEADER
        + "@helion.kernel()\n"
        + "def chunked(x: torch.Tensor, chunks: int) -> torch.Tensor:\n"
        + "    out = torch.empty_like(x)\n"
        + "    block = helion.next_power_of_2(helion.cdiv(x.size(0), chunks))\n"
        + "    for tile in hl.tile(x.size(0), block_size=block):\n"
        + "        out[tile] = x[tile] + 1.0\n"
        + "    return out\n"
    )
    with pytest.raises(TranslationError) as info:
        translate_source(source, "k.py", "helion", "triton")
    err = info.value
    assert "`tile` tiles by `block`, a block computed at run time" in err.message
    assert "reads its lanes" in err.message
    assert err.loc is not None and (err.loc.line, err.loc.col) == (11, 12)
    assert err.hint is not None and "hl.tile(tile.begin, tile.end)" in err.hint


# --------------------------------------------------------------------------------------------------
# Callable epilogues

EPILOGUE = DATA / "helion_split_k_epilogue.py"


@pytest.mark.parametrize("target", ["triton", "helion"])
def test_epilogue_lambdas_and_local_functions_are_inlined_per_call(
    target: str, tmp_path: Path
) -> None:
    text = translate_file(EPILOGUE, "helion", target)
    # The lambda's bias (indexed through the list of tiles the kernel passes) and the local
    # function's annotated shift become arguments of a kernel of their own.
    assert "return _matmul_split_k_linear_split_k(x, w, bias)" in text
    assert "return _matmul_with_epilogue_epilogue(x, y, shift)" in text
    # The kernel without a default epilogue has no translation of its own: every call passes one.
    assert "def _matmul_with_epilogue(" not in text
    translated = tmp_path / f"epilogue_{target}.py"
    translated.write_text(text)
    report = check_pair(
        EPILOGUE, translated, dtypes=("float32",), seeds=(0,), sizes={"m": 40, "n": 70, "k": 90}
    )
    assert {row.entry for row in report.rows} == {
        "matmul_split_k",
        "linear_split_k",
        "shifted_relu_matmul",
    }
    assert report.passed, report.format_text()


def test_a_kernel_without_a_default_epilogue_used_otherwise_is_refused_at_that_use() -> None:
    # (A function that only tunes it through `.autotune(...)` is dropped before this pass:
    # test_helion_real_styles.py.)
    text = EPILOGUE.read_text() + (
        "\n\ndef pick(x: torch.Tensor, y: torch.Tensor) -> object:\n"
        "    kernels = {'matmul': _matmul_with_epilogue}\n"
        "    return kernels['matmul']\n"
    )
    with pytest.raises(TranslationError) as info:
        translate_source(text, "k.py", "helion", "triton")
    err = info.value
    line = text.splitlines().index("    kernels = {'matmul': _matmul_with_epilogue}") + 1
    assert err.loc is not None and (err.loc.line, err.loc.col) == (line, 4)
    assert "`kernels = {'matmul': _matmul_with_epilogue}` uses `_matmul_with_epilogue`" in (
        err.message
    )
    assert "an epilogue without a default" in err.message
    assert err.hint is not None and "epilogue=lambda acc, tile: ..." in err.hint


def test_stacking_int4_halves_is_refused_with_the_form_that_computes_the_same() -> None:
    source = (
        HEADER
        + "@helion.kernel()\n"
        + "def unpack(b: torch.Tensor) -> torch.Tensor:\n"
        + "    k, n = b.size()\n"
        + "    out = torch.empty([k, 2, n], dtype=torch.float32, device=b.device)\n"
        + "    for tile_k, tile_n in hl.tile([k, n]):\n"
        + "        t = b[tile_k, tile_n]\n"
        + "        pair = torch.stack([(t & 0xF).to(torch.float32), (t >> 4).to(torch.float32)], dim=1)\n"
        + "        out[tile_k, :, tile_n] = pair\n"
        + "    return out\n"
    )
    with pytest.raises(TranslationError) as info:
        translate_source(source, "k.py", "helion", "triton")
    err = info.value
    assert err.loc is not None and (err.loc.line, err.loc.col) == (12, 15)
    assert "`torch.stack`" in err.message
    assert err.hint is not None and "hl.dot(a_even, b_lo, acc=acc)" in err.hint


def test_a_tuned_constexpr_read_as_a_value_is_an_int_tunable_of_the_triton_frontend(
    tmp_path: Path,
) -> None:
    # Helion -> Triton -> Helion: `if USE_EXP2:` of an autotuned constexpr comes back as a knob
    # over the values the configs give it.
    triton_file = tmp_path / "softmax_triton.py"
    triton_file.write_text(translate_file(SOFTMAX, "helion", "triton"))
    text = translate_file(triton_file, "triton", "helion")
    assert 'use_exp2 = hl.register_tunable("use_exp2", EnumFragment((1, 0)))' in text
    assert "use_exp2=1, rows_in_flight=2" in text and "use_exp2=0, rows_in_flight=1" in text
    back = tmp_path / "softmax_back.py"
    back.write_text(text)
    report = check_pair(triton_file, back, src_dsl="triton", dtypes=("float32",), seeds=(0,))
    assert report.passed, report.format_text()


def test_tilelang_quotes_annotations_that_read_type_checking_imports(tmp_path: Path) -> None:
    # TileLang's translations drop `from __future__ import annotations`; `-> Callable[...]`
    # with Callable imported under `if TYPE_CHECKING:` would then fail at import.
    text = translate_file(EPILOGUE, "helion", "tilelang")
    assert "from __future__ import annotations" not in text
    assert ') -> "Callable[[torch.Tensor, list[torch.Tensor]], torch.Tensor]":' in text
    translated = tmp_path / "epilogue_tilelang.py"
    translated.write_text(text)
    report = check_pair(EPILOGUE, translated, dtypes=("float32",), seeds=(0,))
    assert report.passed, report.format_text()


_FORWARD_REF = '''"""Elementwise natural log, returned with its input in a record defined below."""

from __future__ import annotations

from dataclasses import dataclass
IMPORTS
import helion
import helion.language as hl
import torch


@helion.kernel(config=helion.Config(block_sizes=[32]))
def log(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile in hl.tile(x.size(0)):
        out[tile] = torch.log(x[tile])
    return out


def log_pair(x: torch.Tensor) -> RETURNS:
    """The log of ``x``, through a record of the two."""
    return Pair(x, log(x)).y


@dataclass
class Pair:
    x: torch.Tensor
    y: torch.Tensor
    other: Pair | None = None
'''


@pytest.mark.parametrize(
    ("imports", "returns", "quoted"),
    [
        # A class the module defines below the function that names it.
        ("", "Pair", '-> "Pair":'),
        # A name imported under `if TYPE_CHECKING:`, spelled through an alias of it.
        (
            "from typing import TYPE_CHECKING as TC\n\nif TC:\n"
            "    from collections.abc import Sequence\n",
            "Sequence[Pair]",
            '-> "Sequence[Pair]":',
        ),
        (
            "import typing as t\n\nif t.TYPE_CHECKING:\n    from collections.abc import Sequence\n",
            "Sequence[torch.Tensor]",
            '-> "Sequence[torch.Tensor]":',
        ),
    ],
)
def test_tilelang_quotes_annotations_that_read_names_unbound_where_they_run(
    imports: str, returns: str, quoted: str, tmp_path: Path
) -> None:
    # TileLang's translations drop `from __future__ import annotations`: a host annotation is
    # then evaluated where its def runs, and one reading a name bound only further down (or
    # under an aliased `if TYPE_CHECKING:`) raised NameError at import.
    source = tmp_path / "forward_ref.py"
    source.write_text(_FORWARD_REF.replace("IMPORTS", imports).replace("RETURNS", returns))
    text = translate_file(source, "helion", "tilelang")
    assert "from __future__ import annotations" not in text
    assert quoted in text and 'other: "Pair | None" = None' in text
    assert "def log(x: torch.Tensor) -> torch.Tensor:" in text  # bound names stay as written
    translated = tmp_path / "forward_ref_tilelang.py"
    translated.write_text(text)
    report = check_pair(source, translated, dtypes=("float32",), seeds=(0,))
    assert report.rows and report.passed, report.format_text()
