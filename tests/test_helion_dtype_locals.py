"""Dtypes Helion kernels hold in locals (``dtype = B.dtype`` in Mamba/GDN-style chunked kernels,
``out_dtype = x.dtype`` in wrappers), on the host and in device code, and the block sizes the
frontend refuses because the IR has no slot for them (``block_size=chunk_size`` after
``chunk_size = hl.specialize(chunk_size)``).

Each accepted kernel is translated and run against its Helion source on the CPU (Triton under
``TRITON_INTERPRET=1``, TileLang's C target, cuTile's IR interpreter)."""

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

# A wrapper's dtypes held in locals: the output allocated with one, tiles converted to both.
HOST_DTYPES = HEADER + (
    "@helion.kernel()\n"
    "def scaled_cast(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:\n"
    "    m, n = x.shape\n"
    "    dtype = w.dtype\n"
    "    out_dtype = x.dtype\n"
    "    out = torch.empty([m, n], dtype=out_dtype, device=x.device)\n"
    "    for tile_m, tile_n in hl.tile([m, n]):\n"
    "        acc = hl.zeros([tile_m, tile_n], dtype=torch.float32)\n"
    "        acc += x[tile_m, tile_n].to(torch.float32) * w[tile_n].to(torch.float32)[None, :]\n"
    "        y = acc.to(dtype)\n"
    "        out[tile_m, tile_n] = (y * 2).to(out_dtype)\n"
    "    return out\n"
)

# Mamba's chunk-state style: the input dtype captured on the host, the accumulator's dtype in
# a local too, and the partial product cast back to the input dtype before the dot.
CHUNK_STATE = HEADER + (
    "@helion.kernel()\n"
    "def chunk_state(b: torch.Tensor, x: torch.Tensor) -> torch.Tensor:\n"
    "    t, n = b.shape\n"
    "    t, d = x.shape\n"
    "    dtype = b.dtype\n"
    "    accum_dtype = torch.float32\n"
    "    out = torch.empty([d, n], dtype=dtype, device=b.device)\n"
    "    for tile_d, tile_n in hl.tile([d, n]):\n"
    "        acc = hl.zeros([tile_d, tile_n], dtype=accum_dtype)\n"
    "        for tile_t in hl.tile(t):\n"
    "            xt = (x[tile_t, tile_d].to(accum_dtype) * 0.5).to(dtype)\n"
    "            acc = hl.dot(xt.T, b[tile_t, tile_n], acc=acc)\n"
    "        out[tile_d, tile_n] = acc.to(dtype)\n"
    "    return out\n"
)

# The dtype read in device code, into a local of the loop body.
DEVICE_DTYPE = HEADER + (
    "@helion.kernel()\n"
    "def row_scale(x: torch.Tensor, s: torch.Tensor) -> torch.Tensor:\n"
    "    m, n = x.shape\n"
    "    out = torch.empty_like(x)\n"
    "    for tile_m in hl.tile(m):\n"
    "        dtype = x.dtype\n"
    "        acc = hl.zeros([tile_m, n], dtype=torch.float32)\n"
    "        acc += x[tile_m, :].to(torch.float32) * s[tile_m].to(torch.float32)[:, None]\n"
    "        out[tile_m, :] = acc.to(dtype)\n"
    "    return out\n"
)

# A dtype the host picks at run time (bound in both branches): the output is allocated with
# it, so conversions to it are conversions to the output's dtype.
BRANCH_DTYPE = HEADER + (
    "@helion.kernel()\n"
    "def cast_choice(x: torch.Tensor, y: torch.Tensor, keep: bool) -> torch.Tensor:\n"
    "    if keep:\n"
    "        dtype = x.dtype\n"
    "    else:\n"
    "        dtype = y.dtype\n"
    "    out = torch.empty(x.shape, dtype=dtype, device=x.device)\n"
    "    for tile in hl.tile(x.size()):\n"
    "        out[tile] = (x[tile] * 2 + y[tile]).to(dtype)\n"
    "    return out\n"
)


def _equivalent(tmp_path: Path, text: str, target: str, **sizes: int) -> str:
    source = tmp_path / "k.py"
    source.write_text(text)
    translated = tmp_path / f"k_{target}.py"
    out = translate_source(text, str(source), "helion", target)
    translated.write_text(out)
    report = check_pair(source, translated, dtypes=("float32",), seeds=(0,), sizes=sizes)
    assert report.passed, report.format_text()
    return out


@pytest.mark.parametrize("target", ["triton", "tilelang", "cutile"])
def test_host_dtype_locals_are_the_dtypes_of_the_tensors_they_read(
    tmp_path: Path, target: str
) -> None:
    text = _equivalent(tmp_path, HOST_DTYPES, target)
    if target == "triton":
        # `dtype` is `w`'s dtype, `out_dtype` `x`'s: read off the kernel's pointers.
        assert ".to(w_ptr.dtype.element_ty)" in text
        assert ".to(x_ptr.dtype.element_ty)" in text


@pytest.mark.parametrize("target", ["triton", "tilelang", "cutile"])
def test_a_chunk_state_dot_casts_to_the_captured_input_dtype(tmp_path: Path, target: str) -> None:
    _equivalent(tmp_path, CHUNK_STATE, target)


@pytest.mark.parametrize("target", ["triton", "tilelang", "cutile"])
def test_a_dtype_bound_in_device_code_is_the_dtype_it_names(tmp_path: Path, target: str) -> None:
    text = _equivalent(tmp_path, DEVICE_DTYPE, target)
    assert "dtype = " not in text.split("def row_scale")[0].replace("dtype=", "")


def test_a_dtype_bound_in_both_branches_is_the_outputs_dtype(tmp_path: Path) -> None:
    text = _equivalent(tmp_path, BRANCH_DTYPE, "triton")
    # Not the dtype of either branch: the one the output was allocated with at run time.
    assert ".to(out_ptr.dtype.element_ty)" in text
    assert "x_ptr.dtype" not in text and "y_ptr.dtype" not in text


def test_a_device_dtype_local_bound_twice_is_refused() -> None:
    source = HEADER + (
        "@helion.kernel()\n"
        "def f(x: torch.Tensor) -> torch.Tensor:\n"
        "    out = torch.empty_like(x)\n"
        "    for tile in hl.tile(x.size(0)):\n"
        "        dtype = x.dtype\n"
        "        y = x[tile].to(dtype)\n"
        "        dtype = torch.float16\n"
        "        out[tile] = y.to(dtype)\n"
        "    return out\n"
    )
    with pytest.raises(TranslationError) as info:
        translate_source(source, "k.py", "helion", "triton")
    err = info.value
    assert err.loc is not None and (err.loc.line, err.loc.col) == (10, 8)
    assert "`dtype` is bound to a dtype here and to other values elsewhere" in err.message
    assert "write the dtype (`x.dtype`) where it is read" in (err.hint or "")


def test_a_block_sized_by_a_specialised_argument_is_refused_with_the_int_form() -> None:
    source = HEADER + (
        "@helion.kernel()\n"
        "def chunked(x: torch.Tensor, chunk_size: int) -> torch.Tensor:\n"
        "    nchunks = x.size(0) // chunk_size\n"
        "    chunk_size = hl.specialize(chunk_size)\n"
        "    out = torch.empty_like(x)\n"
        "    for tile_c in hl.grid(nchunks):\n"
        "        start = tile_c * chunk_size\n"
        "        for tile_t in hl.tile(start, start + chunk_size, block_size=chunk_size):\n"
        "            out[tile_t] = x[tile_t] * 2\n"
        "    return out\n"
    )
    with pytest.raises(TranslationError) as info:
        translate_source(source, "k.py", "helion", "triton")
    err = info.value
    assert err.loc is not None and (err.loc.line, err.loc.col) == (13, 68)
    assert "block_size=chunk_size, a size hl.specialize fixes per call, is not read" in err.message
    assert "`assert chunk_size == 64` on the host" in (err.hint or "")
