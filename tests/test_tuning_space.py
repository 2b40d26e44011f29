"""Configless kernels get an autotune space by the roles of their block sizes, never one config.

The spaces themselves are the grammar's (``[backend.default_space.*]`` of ``grammars/triton.toml``);
what is checked here is that each block size of a kernel gets the value of its role (a looped
reduction's loop tile gets the reduction's column, not the row's), that a whole dim in one block
is no tunable, that stages are written only where the kernel loops, and that a source's own
configs are kept, first one first.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from translator.api import parse_source, translate_file, translate_source
from translator.dialects.triton.tuning import block_roles, with_default_space
from translator.grammar import load_grammar
from validation.equivalence import check_pair

HEADER = "import helion\nimport helion.language as hl\nimport torch\n\n\n"

POINTWISE = """@helion.kernel()
def scale(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    for tile in hl.tile(x.size(0)):
        out[tile] = x[tile] * 2.0
    return out
"""
POINTWISE_2D = """@helion.kernel()
def axpy(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m, tile_n in hl.tile([m, n]):
        out[tile_m, tile_n] = x[tile_m, tile_n] * 2.0 + y[tile_m, tile_n]
    return out
"""
ROWS = """@helion.kernel()
def row_softmax(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m in hl.tile(m):
        values = x[tile_m, :].to(torch.float32)
        out[tile_m, :] = torch.softmax(values, dim=-1).to(out.dtype)
    return out
"""
LOOPED = """@helion.kernel()
def row_sum(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty([m], dtype=torch.float32, device=x.device)
    for tile_m in hl.tile(m):
        acc = hl.zeros([tile_m], dtype=torch.float32)
        for tile_n in hl.tile(n):
            acc = acc + torch.sum(x[tile_m, tile_n].to(torch.float32), dim=1)
        out[tile_m] = acc
    return out
"""
GEMM = """@helion.kernel()
def mm(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    m, k = x.size()
    _, n = y.size()
    out = torch.empty([m, n], dtype=x.dtype, device=x.device)
    for tile_m, tile_n in hl.tile([m, n]):
        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = torch.addmm(acc, x[tile_m, tile_k], y[tile_k, tile_n])
        out[tile_m, tile_n] = acc.to(out.dtype)
    return out
"""
GRID_ONLY = """@helion.kernel()
def row_norm(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty([m], dtype=torch.float32, device=x.device)
    for i in hl.grid(m):
        out[i] = torch.sum(x[i, :].to(torch.float32) ** 2, dim=0)
    return out
"""
POINTWISE_3D = """@helion.kernel()
def add3(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    a, b, c = x.size()
    out = torch.empty_like(x)
    for ta, tb, tc in hl.tile([a, b, c]):
        out[ta, tb, tc] = x[ta, tb, tc] + y[ta, tb, tc]
    return out
"""
MIXED = """@helion.kernel()
def mm_plus_rowsum(x: torch.Tensor, y: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
    m, k = x.size()
    _, n = y.size()
    _, j = z.size()
    out = torch.empty([m, n], dtype=torch.float32, device=x.device)
    for tile_m in hl.tile(m):
        acc = hl.zeros([tile_m, n], dtype=torch.float32)
        for tile_k in hl.tile(k):
            acc = torch.addmm(acc, x[tile_m, tile_k], y[tile_k, :])
        s = hl.zeros([tile_m], dtype=torch.float32)
        for tile_j in hl.tile(j):
            s = s + torch.sum(z[tile_m, tile_j], dim=1)
        out[tile_m, :] = acc + s[:, None]
    return out
"""

# kernel source, its space in the grammar, role of each block size in Helion's numbering order
CASES = {
    "pointwise": (POINTWISE, "pointwise", ["pointwise"]),
    "pointwise_2d": (POINTWISE_2D, "pointwise_2d", ["outer", "inner"]),
    "rows": (ROWS, "rows", ["row"]),
    "looped_rows": (LOOPED, "looped_rows", ["row", "reduction"]),
    "dot": (GEMM, "dot", ["m", "n", "k"]),
    "launch": (GRID_ONLY, "launch", []),
}


def _kernel(source: str):
    module = parse_source(HEADER + source, "k.py", "helion")
    (kernel,) = module.kernels
    return kernel


def _space(name: str) -> list[dict]:
    return load_grammar("triton")["backend"]["default_space"][name]["configs"]


@pytest.mark.parametrize("case", CASES)
def test_each_block_size_gets_the_value_of_its_role(case: str) -> None:
    source, space, roles = CASES[case]
    kernel = _kernel(source)
    blocks = [t.name for t in kernel.tunables if t.kind == "block_size"]
    assert [block_roles(kernel)[b] for b in blocks] == roles
    tuned = with_default_space(kernel)
    expected = [
        tuple(c[r] for r in roles) + (c["num_warps"], c.get("num_stages", 1)) for c in _space(space)
    ]
    got = [tuple(dict(c)[n] for n in [*blocks, "num_warps", "num_stages"]) for c in tuned.configs]
    assert got == expected
    assert 3 <= len(got) <= 12


def _autotune(text: str, kernel: str) -> tuple[list[str], list[str]]:
    """The config lines and the key of ``kernel``'s ``@triton.autotune``."""
    block = text.split(f"def {kernel}(")[0].rsplit("@triton.autotune(", 1)[1]
    configs = re.findall(r"triton\.Config\(.*?\)(?=,\n)", block, re.S)
    key = ast.literal_eval(re.search(r"key=(\[.*?\])", block).group(1))
    return configs, key


@pytest.mark.parametrize("case", CASES)
def test_emitted_triton_autotunes_keyed_on_the_sizes(case: str) -> None:
    source, space, _ = CASES[case]
    text = translate_source(HEADER + source, "k.py", "helion", "triton")
    name = re.search(r"@helion.kernel\(\)\ndef (\w+)", source).group(1)
    configs, key = _autotune(text, f"_{name}_kernel")
    assert len(configs) == len(_space(space))
    assert key and all(re.fullmatch(r"[a-z]\w*", k) for k in key)
    # No fixed launch knobs beside the autotuner.
    assert "num_warps=" not in text.split(f"_{name}_kernel[")[1]
    # Stages act on loops only.
    loops = "for " in text.split(f"def _{name}_kernel(")[1].split("\ndef ")[0]
    assert all(("num_stages=" in c) == loops for c in configs)


def test_a_gemm_grid_gets_the_grouped_program_order() -> None:
    tuned = with_default_space(_kernel(GEMM))
    assert [dict(c)["group_size"] for c in tuned.configs] == [c["group"] for c in _space("dot")]
    text = translate_source(HEADER + GEMM, "k.py", "helion", "triton")
    assert "GROUP_SIZE_M: tl.constexpr" in text and "num_pid_in_group" in text
    # Other shapes keep the plain order.
    assert all("group_size" not in dict(c) for c in with_default_space(_kernel(LOOPED)).configs)


SLAB = """@helion.kernel()
def group_scale(x: torch.Tensor) -> torch.Tensor:
    n, g, c, hw = x.size()
    out = torch.empty_like(x)
    for tile_n, tile_g in hl.tile([n, g]):
        xg = x[tile_n, tile_g, :, :].to(torch.float32)
        mean = torch.sum(torch.sum(xg, dim=-1), dim=-1) / (c * hw)
        out[tile_n, tile_g, :, :] = (xg - mean[:, :, None, None]).to(out.dtype)
    return out
"""


def test_a_program_holding_a_slab_of_whole_dims_starts_at_more_warps() -> None:
    # A whole row (one whole dim) gets the rows space, a whole group of channels x pixels (two)
    # the slab space: its first config, the one run untuned, must not be the 4-warp one.
    rows = with_default_space(_kernel(ROWS))
    assert [dict(c)["num_warps"] for c in rows.configs] == [c["num_warps"] for c in _space("rows")]
    slab = with_default_space(_kernel(SLAB))
    warps = [dict(c)["num_warps"] for c in slab.configs]
    assert warps == [c["num_warps"] for c in _space("slab_rows")]
    assert warps[0] >= 8 and 4 in warps  # (4 warps stays in the search, last)


def test_a_whole_row_is_one_block_of_the_next_power_of_two_not_a_tunable() -> None:
    text = translate_source(HEADER + ROWS, "k.py", "helion", "triton")
    configs, _ = _autotune(text, "_row_softmax_kernel")
    assert all("BLOCK_N" not in c for c in configs)
    assert "BLOCK_N=triton.next_power_of_2(n)" in text


def test_a_further_grid_tile_is_a_batch_of_one() -> None:
    kernel = _kernel(POINTWISE_3D)
    roles = block_roles(kernel)
    assert list(roles.values()) == ["batch", "outer", "inner"]
    tuned = with_default_space(kernel)
    assert len(tuned.configs) == len(_space("pointwise_2d"))
    assert {dict(c)["block_size_a"] for c in tuned.configs} == {1}


def test_a_shape_no_space_lists_gets_a_ladder_not_one_config() -> None:
    kernel = _kernel(MIXED)
    roles = block_roles(kernel)
    assert roles == {"block_size_m": "m", "block_size_k": "k", "block_size_j": "reduction"}
    tuned = with_default_space(kernel)
    ladders = load_grammar("triton")["backend"]["default_space"]["ladders"]
    assert len(tuned.configs) == len(ladders["num_warps"]) > 1
    for role in ("m", "k", "reduction", "num_warps", "num_stages"):
        name = next((b for b, r in roles.items() if r == role), role)
        assert [dict(c)[name] for c in tuned.configs] == ladders[role]


def test_a_sources_own_configs_are_kept_first_one_first() -> None:
    source = HEADER + LOOPED.replace(
        "@helion.kernel()",
        "@helion.kernel(configs=[helion.Config(block_sizes=[2, 64], num_warps=2), "
        "helion.Config(block_sizes=[4, 128], num_warps=4)])",
    )
    text = translate_source(source, "k.py", "helion", "triton")
    configs, _ = _autotune(text, "_row_sum_kernel")
    assert configs == [
        'triton.Config({"BLOCK_SIZE_M": 2, "BLOCK_SIZE_N": 64}, num_warps=2, num_stages=1)',
        'triton.Config({"BLOCK_SIZE_M": 4, "BLOCK_SIZE_N": 128}, num_warps=4, num_stages=1)',
    ]


def test_configless_helion_stays_configless_in_helion() -> None:
    # Helion autotunes a kernel without config; pinning the IR's defaults would not.
    text = translate_source(HEADER + LOOPED, "k.py", "helion", "helion")
    assert "@helion.kernel()\ndef _row_sum_kernel(" in text


def test_autotuned_triton_carries_its_configs_to_helion() -> None:
    root = Path(__file__).resolve().parents[1]
    text = translate_file(
        root / "examples" / "library" / "triton" / "elementwise.py", "triton", "helion"
    )
    first = text.split("def add_kernel")[0].rsplit("@helion.kernel(", 1)[1]
    assert re.findall(r"block_sizes=\[(\d+)\], num_warps=(\d)", first) == [
        ("1024", "4"),
        ("2048", "8"),
    ]


def test_a_triton_source_that_never_set_num_stages_gets_none_in_a_loopless_helion_kernel() -> None:
    root = Path(__file__).resolve().parents[1]
    text = translate_file(root / "examples" / "triton" / "add.py", "triton", "helion")
    assert "num_stages" not in text
    # With a loop, Triton's default of 3 is what the source ran with: it stays.
    text = translate_file(root / "examples" / "triton" / "row_sum.py", "triton", "helion")
    assert "num_stages=3" in text


@pytest.mark.parametrize("case", ["pointwise_2d", "looped_rows", "dot"])
def test_configless_translation_is_equivalent_on_cpu(case: str, tmp_path: Path) -> None:
    # Helion cannot autotune under the CPU interpreter: it runs its default config there, and
    # the translation's autotuner its first config (the runner pins it).
    source = tmp_path / "source.py"
    source.write_text(HEADER + CASES[case][0])
    translated = tmp_path / "translated.py"
    translated.write_text(translate_file(source, "helion", "triton"))
    report = check_pair(source, translated, dtypes=("float32",), seeds=(0,))
    assert report.passed, report.format_text()
