"""TileLang modules whose script code (``if __name__ == "__main__":`` and statements at module
level) builds, launches and profiles kernels, as TileLang's example folder writes them: the
script is read as one host function, its launches become the target's, its profiler goes as a
harness's does (also of builds both arms of an ``if`` bind), and a launch that several builds
may reach is refused where it stands."""

from __future__ import annotations

import os

os.environ["TRITON_INTERPRET"] = "1"

import contextlib  # noqa: E402
import io  # noqa: E402
import runpy  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from translator.api import translate_file  # noqa: E402
from translator.diagnostics import TranslationError  # noqa: E402
from validation.equivalence import check_pair  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "tests" / "data" / "tilelang_script_rowscale.py"


def _ragged(entry: str, device: str, dtype: str) -> tuple:
    """Sizes no block divides: the copies' masks at both edges are exercised."""
    import torch

    g = torch.Generator().manual_seed(0)
    x = torch.randn(70, 90, generator=g).to(device)
    return x, (torch.rand(70, generator=g) + 0.5).to(device)


def _script(text: str) -> str:
    """The script code of ``text``, without its comment lines."""
    script = text[text.rindex('if __name__ == "__main__":') :]
    return "\n".join(line for line in script.splitlines() if not line.lstrip().startswith("#"))


@pytest.mark.parametrize("dst", ["triton", "helion"])
def test_the_script_launches_the_translation_and_loses_its_profiler(
    tmp_path: Path, dst: str
) -> None:
    """The translated module runs as a script (its own `assert_close` against the torch
    reference passes) and its public function computes what the source's does."""
    text = translate_file(SCRIPT, "tilelang", dst)
    script = _script(text)
    assert "row_scale_kernel(M, N" not in script  # every build went
    assert "get_profiler" not in script and "do_bench" not in script
    assert text.count("dropped the build of `kernel`, which only the harness below used") == 2
    translated = tmp_path / f"rowscale_{dst}.py"
    translated.write_text(text)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        runpy.run_path(str(translated), run_name="__main__")
    assert "script launch: ok" in out.getvalue()
    report = check_pair(
        SCRIPT, translated, src_dsl="tilelang", dtypes=("float32",), seeds=(0,),
        inputs=_ragged,
    )  # fmt: skip
    assert [row.entry for row in report.rows] == ["row_scale"]
    assert report.passed, report.format_text()


def test_the_script_translates_into_cutile_and_computes_the_same(tmp_path: Path) -> None:
    text = translate_file(SCRIPT, "tilelang", "cutile")
    assert "ct.launch(" in _script(text)
    translated = tmp_path / "rowscale_cutile.py"
    translated.write_text(text)
    report = check_pair(
        SCRIPT, translated, src_dsl="tilelang", dtypes=("float32",), seeds=(0,),
        inputs=_ragged,
    )  # fmt: skip
    assert report.rows and report.passed, report.format_text()


_TWO_BUILDS = """
    if args.tune:
        kernel = row_scale_kernel(M, N, block_M=64, block_N=64, threads=256)
    else:
        kernel = row_scale_kernel(M, N)
    y = kernel(x, w)
"""


def test_a_launch_two_builds_may_reach_is_refused_where_it_stands(tmp_path: Path) -> None:
    """Which build runs is decided as the script runs; the translation would launch one."""
    source = SCRIPT.read_text()
    start = source.index("\n    if args.tune:")
    path = tmp_path / "two_builds.py"
    path.write_text(source[:start] + _TWO_BUILDS)
    with pytest.raises(TranslationError) as err:
        translate_file(path, "tilelang", "triton")
    lines = path.read_text().splitlines()
    launch = [i for i, line in enumerate(lines, 1) if "y = kernel(x, w)" in line][-1]
    binds = [i for i, line in enumerate(lines, 1) if "kernel = row_scale_kernel(M, N" in line]
    assert err.value.loc is not None and err.value.loc.line == launch
    assert f"which lines {', '.join(map(str, binds))} bind in different blocks" in str(err.value)


def test_a_build_bound_again_where_it_is_launched_is_read(tmp_path: Path) -> None:
    """A launch in the arm that binds its kernel runs that build: nothing is ambiguous."""
    source = SCRIPT.read_text()
    start = source.index("\n    if args.tune:")
    arms = _TWO_BUILDS.replace(
        "threads=256)\n", "threads=256)\n        y = kernel(x, w)\n"
    ).replace("row_scale_kernel(M, N)\n    y", "row_scale_kernel(M, N)\n        y")
    path = tmp_path / "two_arms.py"
    path.write_text(source[:start] + arms)
    script = _script(translate_file(path, "tilelang", "triton"))
    assert script.count("row_scale_kernel[grid](") == 3
