"""Shape and indexing forms of production Helion kernels: a slice whose begin is a tile's begin
plus an offset (fused SwiGLU GEMMs read the up half of a concatenated ``[K, 2N]`` weight as
``W[tile_k, tile_n.begin + N : tile_n.begin + N + tile_n.block_size]``), and the newer Helion
APIs (``hl.register_reduction_dim``, ``hl.vtile``).

Each accepted kernel is translated and run against its Helion source on the CPU (Triton under
``TRITON_INTERPRET=1``, TileLang's C target, cuTile's IR interpreter); each refusal is checked
for its location, message and help."""

from __future__ import annotations

import os

# Kernels run in Triton's interpreter; set it before anything imports triton.
os.environ["TRITON_INTERPRET"] = "1"

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from translator.api import translate_source  # noqa: E402
from translator.diagnostics import TranslationError  # noqa: E402
from validation.equivalence import check_pair  # noqa: E402

HEADER = "import helion\nimport helion.language as hl\nimport torch\n\n\n"

SWIGLU_GEMM = HEADER + (
    "@helion.kernel()\n"
    "def swiglu_gemm(x: torch.Tensor, w_gate_up: torch.Tensor) -> torch.Tensor:\n"
    "    m, k = x.shape\n"
    "    _, n2 = w_gate_up.shape\n"
    "    n = n2 // 2\n"
    "    out = torch.empty(m, n, dtype=x.dtype, device=x.device)\n"
    "    for tile_m, tile_n in hl.tile([m, n]):\n"
    "        acc_gate = hl.zeros([tile_m, tile_n], dtype=torch.float32)\n"
    "        acc_up = hl.zeros([tile_m, tile_n], dtype=torch.float32)\n"
    "        for tile_k in hl.tile(k):\n"
    "            x_tile = x[tile_m, tile_k]\n"
    "            acc_gate = torch.addmm(acc_gate, x_tile, w_gate_up[tile_k, tile_n])\n"
    "{up}"
    "            acc_up = torch.addmm(acc_up, x_tile, w_up)\n"
    "        out[tile_m, tile_n] = (acc_gate * torch.sigmoid(acc_gate) * acc_up).to(out.dtype)\n"
    "    return out\n"
)

UP_FORMS = {
    "named_bounds": (
        "            n_begin = tile_n.begin + n\n"
        "            n_end = n_begin + tile_n.block_size\n"
        "            w_up = w_gate_up[tile_k, n_begin:n_end]\n"
    ),
    "inline": (
        "            w_up = w_gate_up[tile_k, tile_n.begin + n : tile_n.begin + n + "
        "tile_n.block_size]\n"
    ),
    "offset_first": (
        "            lo = n + tile_n.begin\n"
        "            w_up = w_gate_up[tile_k, lo : tile_n.block_size + lo]\n"
    ),
}


def _equivalent(tmp_path: Path, text: str, target: str, **sizes: int) -> str:
    source = tmp_path / "k.py"
    source.write_text(text)
    translated = tmp_path / f"k_{target}.py"
    out = translate_source(text, str(source), "helion", target)
    translated.write_text(out)
    report = check_pair(source, translated, dtypes=("float32",), seeds=(0,), sizes=sizes)
    assert report.passed, report.format_text()
    return out


def _refusal(text: str) -> TranslationError:
    with pytest.raises(TranslationError) as info:
        translate_source(text, "k.py", "helion", "triton")
    return info.value


@pytest.mark.parametrize("form", sorted(UP_FORMS))
def test_a_slice_from_a_tiles_begin_plus_an_offset_reads_the_shifted_lanes(
    tmp_path: Path, form: str
) -> None:
    text = _equivalent(tmp_path, SWIGLU_GEMM.format(up=UP_FORMS[form]), "triton")
    # The up half: the n-tile's lanes shifted by n, one gather of the weight's columns.
    assert "(offs_n + n)[None, :]" in text or "(n + offs_n)[None, :]" in text


def test_the_shifted_slice_in_tilelang(tmp_path: Path) -> None:
    _equivalent(tmp_path, SWIGLU_GEMM.format(up=UP_FORMS["named_bounds"]), "tilelang")


def test_the_shifted_slice_in_cutile_is_a_gather_masked_by_the_tile() -> None:
    # Not run on the CPU: the gate half's `ct.load` by the n-tile pads at the weight's own
    # width (2n), not n, which the read-back of the kernel cannot state (its lanes past n are
    # never stored); the up half is a gather of the n-tile's lanes shifted by n.
    text = translate_source(
        SWIGLU_GEMM.format(up=UP_FORMS["named_bounds"]), "k.py", "helion", "cutile"
    )
    assert "(tile_n * BLOCK_SIZE_N + ct.arange(BLOCK_SIZE_N, dtype=ct.int32) + n)[None, :]" in text
    assert "& mask_n[None, :]" in text


def test_a_slice_to_the_clipped_end_of_a_tile_is_refused() -> None:
    # `tile_n.end` is clipped to the extent: a last tile of fewer lanes than its block.
    up = "            w_up = w_gate_up[tile_k, tile_n.begin + n : tile_n.end + n]\n"
    err = _refusal(SWIGLU_GEMM.format(up=up))
    assert err.loc is not None and (err.loc.line, err.loc.col) == (18, 19)
    assert "sliced index `tile_n.begin + n : tile_n.end + n` on `w_gate_up`" in err.message


# A GEMM with a LayerNorm over whole rows of its output (newer Helion registers the row width
# as a reduction dim; Helion 1.5, which runs the reference here, reads the plain size).
MATMUL_LAYERNORM = HEADER + (
    "@helion.kernel()\n"
    "def matmul_layernorm(x: torch.Tensor, y: torch.Tensor, w: torch.Tensor) -> torch.Tensor:\n"
    "    m, k = x.size()\n"
    "    n = {n}\n"
    "    out = torch.empty([m, n], dtype=x.dtype, device=x.device)\n"
    "    for tile_m in hl.tile(m):\n"
    "        acc = hl.zeros([tile_m, n], dtype=torch.float32)\n"
    "        for tile_k in hl.tile(k):\n"
    "            acc = acc + torch.matmul(x[tile_m, tile_k], y[tile_k, :])\n"
    "        var, mean = torch.var_mean(acc, dim=-1, keepdim=True, correction=0)\n"
    "        normed = (acc - mean) * torch.rsqrt(var + 1e-5)\n"
    "        out[tile_m, :] = (normed * w[:].to(torch.float32)).to(out.dtype)\n"
    "    return out\n"
)


# cuTile spells it too, but its CPU read-back refuses this GEMM's whole-row tile with or without
# the registered dim ("the tile extent `BLOCK_N` is not the tile size of one tile variable").
@pytest.mark.parametrize("target", ["triton", "tilelang"])
def test_a_registered_reduction_dim_is_the_size_it_registers(tmp_path: Path, target: str) -> None:
    registered = MATMUL_LAYERNORM.format(n="hl.register_reduction_dim(y.size(1))")
    out = translate_source(registered, "k.py", "helion", target)
    assert "register_reduction_dim" not in out.replace("was `hl.register_reduction_dim(...)`", "")
    # Run against the same kernel with the plain size (what the call returns).
    source = tmp_path / "plain.py"
    source.write_text(MATMUL_LAYERNORM.format(n="y.size(1)"))
    translated = tmp_path / f"registered_{target}.py"
    translated.write_text(out)
    # float16 operands: the float32 GEMM's precision (Helion's IEEE dot, the translations'
    # default tf32 dot) is a matter of its own, not of the registered dim.
    report = check_pair(source, translated, dtypes=("float16",), seeds=(0,))
    assert report.passed, report.format_text()


def test_a_reduction_dim_registered_for_several_sizes_is_refused() -> None:
    err = _refusal(MATMUL_LAYERNORM.format(n="hl.register_reduction_dim([y.size(1), k])"))
    assert err.loc is not None and (err.loc.line, err.loc.col) == (9, 8)
    assert err.message == "hl.register_reduction_dim is read for one size"
    assert "register each dim in a statement of its own" in (err.hint or "")


def test_a_vtile_loop_is_refused_with_the_dense_loop() -> None:
    source = HEADER + (
        "@helion.kernel()\n"
        "def jagged_row_sum(x: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:\n"
        "    b = offsets.size(0) - 1\n"
        "    out = torch.zeros([b], dtype=x.dtype, device=x.device)\n"
        "    for tile_b in hl.tile(b):\n"
        "        starts = offsets[tile_b]\n"
        "        nnz = offsets[tile_b.index + 1] - starts\n"
        "        acc = hl.zeros([tile_b], dtype=x.dtype)\n"
        "        for tile_k in hl.vtile(nnz):\n"
        "            acc = acc + x[starts[:, None] + tile_k.index[None, :]].sum(dim=1)\n"
        "        out[tile_b] = acc\n"
        "    return out\n"
    )
    err = _refusal(source)
    assert err.loc is not None and (err.loc.line, err.loc.col) == (14, 22)
    assert err.message.startswith("hl.vtile(nnz) (a loop to `nnz.amax()` whose every load")
    assert "for tile_k in hl.tile(nnz.amax()):" in (err.hint or "")


def test_a_store_through_gathered_flat_indices_with_extra_mask_is_refused() -> None:
    # Jagged layer norm's write-back: lanes past a row's length index the next row's data, so
    # neither dropping the mask nor storing torch.where(mask, v, 0) computes the same.
    source = HEADER + (
        "@helion.kernel()\n"
        "def jagged_scale(x: torch.Tensor, offsets: torch.Tensor, max_len: int) -> torch.Tensor:\n"
        "    b = offsets.size(0) - 1\n"
        "    m = x.size(1)\n"
        "    out = torch.zeros_like(x)\n"
        "    x_flat = x.view(-1)\n"
        "    out_flat = out.view(-1)\n"
        "    for tile_b in hl.tile(b):\n"
        "        starts = offsets[tile_b]\n"
        "        lengths = offsets[tile_b.index + 1] - starts\n"
        "        for tile_m in hl.tile(m):\n"
        "            for tile_k in hl.tile(0, max_len):\n"
        "                rows = starts[:, None] + tile_k.index[None, :]\n"
        "                flat = rows[:, :, None] * m + tile_m.index[None, None, :]\n"
        "                mask = (tile_k.index[None, :] < lengths[:, None])[:, :, None]\n"
        "                v = hl.load(x_flat, [flat], extra_mask=mask)\n"
        "                hl.store(out_flat, [flat], v * 2, extra_mask=mask)\n"
        "    return out\n"
    )
    err = _refusal(source)
    assert err.loc is not None and (err.loc.line, err.loc.col) == (22, 61)
    assert "the IR's stores take no other predicate" in err.message
    assert "`for tile_k in hl.tile(start, end)` inside `hl.grid(n)`" in (err.hint or "")
