"""Helpers and decorator aliases a Triton file imports from its library's other modules
(``tests/data/triton_sibling_lib/mylib``, team-written in the styles of unsloth's and FlagGems'
utils): the sibling module is read from disk (never imported), its ``@triton.jit`` helpers
inlined as local ones (a wrapper that forwards to ``tl.program_id`` too) and its
``jit_decorator = triton.jit`` taken as ``triton.jit``. The translations are checked on the CPU
against the source; what cannot be read is refused naming where tiletrans looked.
"""

from __future__ import annotations

import os

os.environ["TRITON_INTERPRET"] = "1"
os.environ.pop("HELION_INTERPRET", None)

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
import torch  # noqa: E402

from translator.api import parse_source, translate_file  # noqa: E402
from translator.diagnostics import TranslationError  # noqa: E402
from validation.equivalence import check_pair  # noqa: E402

LIB = Path(__file__).resolve().parent / "data" / "triton_sibling_lib"
RELATIVE = LIB / "mylib" / "ops" / "act.py"
ABSOLUTE = LIB / "mylib" / "ops" / "act_abs.py"


def _inputs(entry: str, device: str, dtype: str) -> tuple:
    g = torch.Generator().manual_seed(0)
    return (torch.randn(1000, generator=g).to(device=device, dtype=getattr(torch, dtype)),)


@pytest.mark.parametrize("dst", ["helion", "tilelang", "cutile"])
def test_sibling_helpers_are_inlined_and_compute_what_the_source_computes(
    dst: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The source imports `mylib`: its root must be importable for the source to run.
    monkeypatch.syspath_prepend(str(LIB))
    out = tmp_path / f"act_{dst}.py"
    text = translate_file(ABSOLUTE, "triton", dst)
    # Nothing of the library is left to import: the helpers are in the kernel.
    assert "mylib" not in text.split("changes made here are not carried back.")[1]
    out.write_text(text)
    report = check_pair(
        ABSOLUTE, out, src_dsl="triton", dtypes=("float32",), seeds=(0,), inputs=_inputs
    )
    assert {r.entry for r in report.rows} == {"silu_op"}
    assert report.passed, report.format_text()


@pytest.mark.parametrize("dst", ["helion", "tilelang"])
def test_a_relative_import_reads_the_same_helpers(dst: str) -> None:
    def body(path: Path) -> str:
        # What follows the header and the module docstring (which differ).
        text = translate_file(path, "triton", dst)
        return text.split("changes made here are not carried back.")[1].split('"""', 2)[2]

    assert "def _silu_kernel" in body(RELATIVE)
    assert body(RELATIVE) == body(ABSOLUTE)


def _refusal(text: str, name: str = "act_probe.py") -> TranslationError:
    with pytest.raises(TranslationError) as info:
        parse_source(text, str(LIB / "mylib" / "ops" / name), "triton")
    return info.value


def test_a_helper_that_reads_its_module_s_constant_is_refused_with_why() -> None:
    text = RELATIVE.read_text().replace("program_id, silu", "program_id, scaled")
    text = text.replace("silu(x.to(tl.float32))", "scaled(x.to(tl.float32))")
    err = _refusal(text)
    assert "`scaled` is imported from `utils` and cannot be inlined" in str(err)
    assert "reads `SCALE`, a name of its own module that this file does not bind" in str(err)


def test_a_module_not_on_disk_is_refused_naming_where_tiletrans_looked() -> None:
    text = RELATIVE.read_text().replace("from ..utils import", "from ..missing import")
    err = _refusal(text)
    assert "`@jit_decorator` on `_silu_kernel` is imported" in str(err)
    assert "its module `..missing` is not on disk beside this file (looked for" in str(err)
    assert "missing.py" in str(err)
    assert "TILETRANS_LIBRARY_ROOT" in (err.hint or "")


def test_a_helper_called_through_a_module_alias_says_to_import_it_by_name() -> None:
    text = RELATIVE.read_text().replace(
        "from ..utils import jit_decorator, program_id, silu",
        "import mylib.utils as tle\nfrom ..utils import jit_decorator, silu",
    )
    err = _refusal(text.replace("pid = program_id(0)", "pid = tle.program_id(0)"))
    assert "`tle.program_id` cannot be inlined" in str(err)
    assert "tiletrans inlines helpers imported by name (`from mylib.utils import NAME`)" in str(err)


def test_a_refusal_inside_a_sibling_helper_is_reported_at_the_call_naming_its_file(
    tmp_path: Path,
) -> None:
    # A copy of the library whose `silu` does what the frontend refuses (`//` on device values).
    lib = tmp_path / "lib"
    (lib / "ops").mkdir(parents=True)
    (lib / "__init__.py").write_text("")
    (lib / "ops" / "__init__.py").write_text("")
    utils = (LIB / "mylib" / "utils.py").read_text()
    (lib / "utils.py").write_text(
        utils.replace("return x * _sigmoid(x)", "return (x * _sigmoid(x)) // 2")
    )
    with pytest.raises(TranslationError) as info:
        parse_source(RELATIVE.read_text(), str(lib / "ops" / "act.py"), "triton")
    err = info.value
    assert f"in `silu` (read from {lib / 'utils.py'}):" in str(err)
    assert err.loc is not None and err.loc.line == 16  # the call in act.py
