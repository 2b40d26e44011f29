"""Autotune configs built by code (``tests/data/triton_config_loops/config_loops.py``,
team-written): a ``get_autotune_config()`` whose nested ``for`` loops append (with a static
``if`` and an ``extend``), and a comprehension over ``itertools.product`` of literal lists, are
folded statically into the same configs Triton sees (checked against the source's own lists,
which the test imports; translation never does), and the translations compute what the source
computes. A registry lookup (FlagGems' ``runtime.get_triton_config("op")``) is refused saying
to write the configs inline.
"""

from __future__ import annotations

import os

os.environ["TRITON_INTERPRET"] = "1"
os.environ.pop("HELION_INTERPRET", None)

import importlib.util  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from translator.api import parse_file, parse_source, translate_file  # noqa: E402
from translator.diagnostics import TranslationError  # noqa: E402
from validation.equivalence import check_pair  # noqa: E402

SOURCE = Path(__file__).resolve().parent / "data" / "triton_config_loops" / "config_loops.py"


def _source_module():
    spec = importlib.util.spec_from_file_location("config_loops_source", SOURCE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_configs_built_by_loops_and_product_are_the_ones_triton_sees() -> None:
    src = _source_module()
    expected = {
        "_double": [(c.kwargs["BLOCK"], c.num_warps) for c in src.get_autotune_config()],
        "_shift": [(c.kwargs["BLOCK"], c.num_warps) for c in src.PRODUCT_CONFIGS],
    }
    kernels = {k.name: k for k in parse_file(SOURCE, "triton").kernels}
    for name, want in expected.items():
        got = [(dict(c)["block"], dict(c)["num_warps"]) for c in kernels[name].configs]
        assert got == want, name


@pytest.mark.parametrize("dst", ["helion", "tilelang", "cutile"])
def test_the_translation_computes_what_the_source_computes(dst: str, tmp_path: Path) -> None:
    out = tmp_path / f"config_loops_{dst}.py"
    out.write_text(translate_file(SOURCE, "triton", dst))
    report = check_pair(SOURCE, out, src_dsl="triton", dtypes=("float32",), seeds=(0,))
    assert {r.entry for r in report.rows} == {"double", "shift"}
    assert report.passed, report.format_text()


def _refusal(old: str, new: str) -> TranslationError:
    text = SOURCE.read_text()
    assert old in text
    text = text.replace("import itertools\n", "import itertools\n\nfrom mylib import runtime\n")
    with pytest.raises(TranslationError) as info:
        parse_source(text.replace(old, new), str(SOURCE), "triton")
    return info.value


def test_a_config_registry_is_refused_saying_to_write_the_configs_inline() -> None:
    err = _refusal(
        "@triton.autotune(configs=PRODUCT_CONFIGS",
        "@triton.autotune(configs=runtime.get_triton_config('shift')",
    )
    assert "`runtime.get_triton_config('shift')`, a registry that is filled at run time" in str(err)
    assert "write the configs inline" in (err.hint or "")


def test_a_heuristics_registry_is_refused_saying_to_write_them_inline() -> None:
    err = _refusal(
        '@triton.autotune(configs=PRODUCT_CONFIGS, key=["n"])\n',
        '@triton.autotune(configs=PRODUCT_CONFIGS, key=["n"])\n'
        "@triton.heuristics(runtime.get_heuristic_config('shift'))\n",
    )
    assert "@triton.heuristics reads its table from `runtime.get_heuristic_config('shift')`" in (
        str(err)
    )


def test_a_config_loop_over_a_value_not_static_is_refused() -> None:
    err = _refusal("for warps in [2, 4]:", "for warps in torch.cuda.device_count():")
    assert "cannot read the autotune configs statically: `torch.cuda.device_count()` is not a" in (
        str(err)
    )
