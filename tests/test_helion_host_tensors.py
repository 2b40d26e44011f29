"""Helion kernels whose host part computes tensors with torch that the device loops index
(pytorch/helion's addmm, gather_gemv and MoE examples), the tile idioms that come with them, a
config bound under a module-level test (its fp8 GEMM example), and the refusals around them.

Accepted forms are translated to Triton and run against their source on the CPU
(``TRITON_INTERPRET=1``) at ragged sizes; refusals are checked for location, message and help.
"""

from __future__ import annotations

import os

# Kernels run in Triton's interpreter; set it before anything imports triton.
os.environ["TRITON_INTERPRET"] = "1"

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
import torch  # noqa: E402

from translator.api import parse_source, translate_file, translate_source  # noqa: E402
from translator.diagnostics import TranslationError  # noqa: E402
from translator.ir import nodes as ir  # noqa: E402
from validation.equivalence import check_pair  # noqa: E402

DATA = Path(__file__).parent / "data"
HOST_TENSORS = DATA / "helion_host_tensors.py"
HOST_GATHER = DATA / "helion_host_gather.py"
ENV_CONFIG = DATA / "helion_env_config.py"
HEADER = "import helion\nimport helion.language as hl\nimport torch\n\n\n"


def _host_tensor_inputs(entry: str, device: str, dtype: str) -> tuple | None:
    """Ragged inputs; ``take_rows`` gets indices from both ends of the table (negative ones
    count from its end), ``zero_tail_rows`` a cut inside its second row block."""
    d = getattr(torch, dtype)
    if entry == "take_rows":
        idx = torch.tensor([0, -1, 5, -7, 12, 3, -13, 8, 1], device=device)
        return torch.randn(13, 70, dtype=d, device=device), idx
    if entry == "zero_tail_rows":
        return torch.randn(37, 45, dtype=d, device=device), 21
    if entry == "addmm_rowwise":
        # One value per column, broadcast to the output on the host.
        return (
            torch.randn(37, dtype=d, device=device),
            torch.randn(19, 23, dtype=d, device=device),
            torch.randn(23, 37, dtype=d, device=device),
        )
    if entry == "center_rows":
        return (torch.randn(10, 37, dtype=d, device=device),)
    return None


@pytest.fixture(scope="module")
def host_tensors_triton(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("host_tensors") / "helion_host_tensors_triton.py"
    text = translate_file(HOST_TENSORS, "helion", "triton")
    out.write_text(text)
    return out, text


def test_host_computed_tensors_are_kernel_inputs_and_compute_what_the_source_does(
    host_tensors_triton: tuple[Path, str],
) -> None:
    out, _ = host_tensors_triton
    report = check_pair(
        HOST_TENSORS, out, dtypes=("float32",), seeds=(0,), inputs=_host_tensor_inputs
    )
    ran = {row.entry for row in report.rows}
    assert ran == {"addmm_rowwise", "zero_tail_rows", "center_rows"}, ran
    assert report.passed, report.format_text()


def test_the_host_code_that_computes_them_is_carried_and_passes_them(
    host_tensors_triton: tuple[Path, str],
) -> None:
    _, text = host_tensors_triton
    # Computed where the source computes them, then launched with.
    for line in (
        "    bias = torch.broadcast_to(bias, (m, n))\n",
        "    row_ids = torch.arange(m, device=x.device, dtype=torch.int32)\n",
    ):
        assert line in text
    for name in ("bias", "row_ids"):
        assert f"        {name},\n" in text and f"{name}.stride(0)" in text
    # The squeeze of a tile's dim is no reshape, and the tile's size is its block.
    assert "tl.reshape(tail, (BLOCK_SIZE_M, 1))" in text
    assert "tl.where(tail_2d, 0, x_tile)" in text


def test_wrapped_indices_are_computed_on_the_host_and_gathered_through(tmp_path: Path) -> None:
    text = translate_file(HOST_GATHER, "helion", "triton")
    assert "    idx_wrapped = torch.where(idx < 0, idx + num_rows, idx)\n" in text
    # Only the kernel's indexing tells the rank: checked once the tensor exists.
    wrapped = text.index("idx_wrapped = torch.where")
    assert text.index("idx_wrapped.dim() != 1") > wrapped
    out = tmp_path / "helion_host_gather_triton.py"
    out.write_text(text)
    report = check_pair(
        HOST_GATHER, out, dtypes=("float32",), seeds=(0,), inputs=_host_tensor_inputs
    )
    assert {row.entry for row in report.rows} == {"take_rows"}
    assert report.passed, report.format_text()


def test_host_tensor_ranks_follow_the_torch_call_that_makes_them() -> None:
    ranks = {}
    for path in (HOST_TENSORS, HOST_GATHER):
        module = parse_source(path.read_text(), path.name, "helion")
        for entry in module.entries:
            ranks.update({s.target: s.rank for s in entry.body if isinstance(s, ir.Carried)})
    # broadcast_to: its shape's length; arange: 1-d; where: its tensor operands' (`idx`'s
    # rank no host statement states, so unknown).
    assert ranks == {"bias": 2, "row_ids": 1, "idx_wrapped": None}


@pytest.mark.parametrize("source", [HOST_TENSORS, HOST_GATHER], ids=lambda p: p.stem)
def test_host_computed_tensors_are_tilelang_kernel_inputs_too(source: Path, tmp_path: Path) -> None:
    text = translate_file(source, "helion", "tilelang")
    name = "row_ids" if source == HOST_TENSORS else "idx_wrapped"
    assert f"{name}: T.StridedTensor({name}_shape, {name}_strides, {name}_dtype)" in text
    if source == HOST_GATHER:
        # The row tile of block 1 is a plain index: the gather through it reads one row.
        assert "rows = idx_wrapped[by]" in text and "table[rows, bx * block_size_d + i]" in text
    out = tmp_path / f"{source.stem}_tilelang.py"
    out.write_text(text)
    report = check_pair(source, out, dtypes=("float32",), seeds=(0,), inputs=_host_tensor_inputs)
    assert report.passed, report.format_text()


def test_a_config_bound_under_a_module_test_is_the_first_of_an_autotuned_space(
    tmp_path: Path,
) -> None:
    text = translate_file(ENV_CONFIG, "helion", "triton")
    module = parse_source(ENV_CONFIG.read_text(), ENV_CONFIG.name, "helion")
    (kernel,) = module.kernels
    # No config by default: Helion autotunes, so the translation does; the module's config
    # is what a run with its test true takes, so it is first.
    assert kernel.hints.autotune
    assert dict(kernel.configs[0])["block_size_m"] == 32
    first = text.index('triton.Config({"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 32}, num_warps=4)')
    assert text.count("triton.Config(") > 2 and first < text.index('"BLOCK_SIZE_M": 64')
    # The two statements that bound it are gone, and Helion with them; a note says why.
    assert "config = None" not in text and "if os.environ" not in text
    assert "# tiletrans: dropped `config`, a helion.Config bound where" in text
    assert "\nimport helion" not in text and "helion.Config(" not in text
    out = tmp_path / "env_config_triton.py"
    out.write_text(text)
    report = check_pair(ENV_CONFIG, out, dtypes=("float32",), seeds=(0,))
    assert report.passed, report.format_text()


def test_a_conditional_config_host_code_reads_too_is_refused() -> None:
    source = ENV_CONFIG.read_text() + "\n\nCONFIG_USED = config\n"
    with pytest.raises(TranslationError) as err:
        translate_source(source, "env_config.py", "helion", "triton")
    assert "is read by host code too" in err.value.message
    line = source.splitlines().index("CONFIG_USED = config") + 1
    assert err.value.loc is not None and (err.value.loc.line, err.value.loc.col) == (line, 14)


def _refusal(body: str, name: str = "k.py") -> TranslationError:
    with pytest.raises(TranslationError) as err:
        translate_source(HEADER + body, name, "helion", "triton")
    return err.value


def test_an_optional_tensor_tested_in_device_code_splits_the_kernel_per_case() -> None:
    # Helion specialises on None: one kernel per case, and a function that picks one (see
    # tests/test_helion_optional_tensors.py for the numbers).
    text = translate_source(
        HEADER + "@helion.kernel()\n"
        "def masked_copy(x: torch.Tensor, labels: torch.Tensor | None = None) -> torch.Tensor:\n"
        "    out = torch.empty_like(x)\n"
        "    for tile in hl.tile(x.size(0)):\n"
        "        if labels is not None:\n"
        "            out[tile] = x[tile] * labels[tile]\n"
        "        else:\n"
        "            out[tile] = x[tile]\n"
        "    return out\n",
        "k.py",
        "helion",
        "triton",
    )
    assert text.count("@triton.jit") == 2 and "labels is None" in text, text


def test_a_squeeze_of_a_whole_dim_is_refused_where_its_size_decides() -> None:
    err = _refusal(
        "@helion.kernel()\n"
        "def first_col(x: torch.Tensor) -> torch.Tensor:\n"
        "    m, n = x.size()\n"
        "    out = torch.empty([m, n], dtype=x.dtype, device=x.device)\n"
        "    for tile in hl.tile(m):\n"
        "        out[tile, :] = x[tile, :].squeeze(1) * 2\n"
        "    return out\n"
    )
    assert err.loc is not None and err.loc.line == 11
    assert "squeezes a whole dim of `n` elements" in err.message
    assert err.hint is not None and "drop the `.squeeze(1)`" in err.hint


def test_torch_stack_of_tiles_is_refused_with_the_two_dot_form() -> None:
    err = _refusal(
        "@helion.kernel()\n"
        "def pairs(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:\n"
        "    n = a.size(0)\n"
        "    out = torch.empty([n, 2], dtype=a.dtype, device=a.device)\n"
        "    for tile in hl.tile(n):\n"
        "        out[tile, :] = torch.stack([a[tile], b[tile]], dim=1)\n"
        "    return out\n"
    )
    assert err.loc is not None and err.loc.line == 11
    assert "`torch.stack` is not supported yet" in err.message
    assert err.hint is not None and "two dots" in err.hint


def test_a_tuple_of_a_module_function_in_device_code_is_inlined() -> None:
    # Helion traces module helpers: the call is inlined, its tuple unpacked where it is bound.
    text = translate_source(
        HEADER + "def halves(v):\n"
        "    return v * 0.5, v\n\n\n"
        "@helion.kernel()\n"
        "def half(x: torch.Tensor) -> torch.Tensor:\n"
        "    out = torch.empty_like(x)\n"
        "    for tile in hl.tile(x.size(0)):\n"
        "        h, _ = halves(x[tile])\n"
        "        out[tile] = h\n"
        "    return out\n",
        "k.py",
        "helion",
        "triton",
    )
    assert "* 0.5" in text and "halves(" not in text.split("@triton.jit")[1], text


def test_unpacking_computes_every_value_before_it_binds_a_target(tmp_path: Path) -> None:
    source = tmp_path / "step.py"
    source.write_text(
        HEADER + "@helion.kernel(config=helion.Config(block_sizes=[16]))\n"
        "def fib_step(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:\n"
        "    out = torch.empty_like(x)\n"
        "    for tile in hl.tile(x.size(0)):\n"
        "        a, b = x[tile], y[tile]\n"
        "        a, b = b, a + b\n"
        "        out[tile] = 2 * a + b\n"
        "    return out\n"
    )
    text = translate_file(source, "helion", "triton")
    # The new `a` is the old `b`, and the new `b` reads the old `a`.
    assert "a_next = b\n" in text and "b_next = a + b\n" in text
    out = tmp_path / "step_triton.py"
    out.write_text(text)
    report = check_pair(source, out, dtypes=("float32",), seeds=(0,), sizes={"x.size(0)": 37})
    assert report.passed, report.format_text()


@pytest.mark.parametrize(
    ("call", "spelt", "hint"),
    [
        (
            "hl.associative_scan(combine, x[tile], dim=0)",
            "`hl.associative_scan` is not supported yet",
            "write `torch.cumsum(x, dim=d)`",
        ),
        ("torch.cat([x[tile], x[tile]], dim=0)", "`torch.cat` is not supported yet", "the host"),
    ],
    ids=["associative_scan", "cat"],
)
def test_calls_with_no_ir_op_are_refused_where_they_are_called(
    call: str, spelt: str, hint: str
) -> None:
    err = _refusal(
        "def combine(a, b):\n"
        "    return a + b\n\n\n"
        "@helion.kernel()\n"
        "def k(x: torch.Tensor) -> torch.Tensor:\n"
        "    out = torch.empty_like(x)\n"
        "    for tile in hl.tile(x.size(0)):\n"
        f"        out[tile] = {call}\n"
        "    return out\n"
    )
    assert err.loc is not None and (err.loc.line, err.loc.col) == (14, 20)
    assert err.message == spelt
    assert err.hint is not None and hint in err.hint


def test_an_identity_test_of_a_host_tensor_is_no_tensor() -> None:
    source = HEADER + (
        "@helion.kernel()\n"
        "def k(x: torch.Tensor, y: torch.Tensor | None = None) -> torch.Tensor:\n"
        "    out = torch.empty_like(x)\n"
        "    if x.size(0) > 3:\n"
        "        given = y is not None\n"
        "        shifted = x - 1\n"
        "    for tile in hl.tile(x.size(0)):\n"
        "        out[tile] = x[tile] * 2\n"
        "    return out\n"
    )
    module = parse_source(source, "k.py", "helion")
    carried = {s.target: s for e in module.entries for s in e.body if isinstance(s, ir.Carried)}
    # `x - 1` is elementwise on a tensor; `y is not None` is a bool whatever `y` holds.
    assert carried["shifted"].kind == "tensor" and "given" not in carried
