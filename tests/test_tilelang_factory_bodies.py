"""TileLang factory bodies as TileLang's example folder writes them: asserts on the arguments,
tuple assignments (`KH, KW = K, K`), an `if` on an argument that rebinds it (`if group_size ==
-1: group_size = K`), factory constants as block sizes. Translated and run against the source
on the CPU; what is not read is a located refusal."""

from __future__ import annotations

import os

os.environ["TRITON_INTERPRET"] = "1"

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from translator.api import parse_file, translate_file  # noqa: E402
from translator.diagnostics import TranslationError  # noqa: E402
from translator.ir import nodes as ir  # noqa: E402
from validation.equivalence import check_pair  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
GROUPS = ROOT / "tests" / "data" / "tilelang_group_absmax.py"


def _ragged(entry: str, device: str, dtype: str) -> tuple:
    import torch

    # 150 columns: two whole groups of 64 and a ragged one of 22; 70 rows: 32 + 32 + 6.
    return (torch.randn(70, 150, generator=torch.Generator().manual_seed(0)).to(device),)


def test_the_factory_s_if_tuple_assignment_and_asserts_are_read() -> None:
    (kernel,) = parse_file(GROUPS, "tilelang").kernels
    by = next(t for t in kernel.grid if t.name == "by")
    bx = next(t for t in kernel.grid if t.name == "bx")
    # `if group_size == -1: group_size = 64` with the default -1; `BM, GS = blk_m, group_size`.
    assert by.block == ir.Const(64)
    assert bx.block == "blk_m"
    assert dict(kernel.configs[0])["blk_m"] == 32
    assert any("asserts (line 12, 13)" in c for c in kernel.doc_comments)


@pytest.mark.parametrize("dst", ["triton", "helion"])
def test_a_factory_with_an_if_on_its_argument_computes_what_the_source_does(
    tmp_path: Path, dst: str
) -> None:
    text = translate_file(GROUPS, "tilelang", dst)
    # The scales' shape `(M, T.ceildiv(N, GS))` in host words, through the decided `if`.
    assert "torch.empty((m, ((n + 64 - 1) // 64))" in text
    translated = tmp_path / f"groups_{dst}.py"
    translated.write_text(text)
    report = check_pair(
        GROUPS, translated, src_dsl="tilelang", dtypes=("float32",), seeds=(0,), inputs=_ragged
    )
    assert [row.entry for row in report.rows] == ["group_scale"]
    assert report.passed, report.format_text()


def _variant(tmp_path: Path, old: str, new: str) -> Path:
    source = GROUPS.read_text()
    assert old in source
    path = tmp_path / "variant.py"
    path.write_text(source.replace(old, new))
    return path


def _refusal(path: Path) -> TranslationError:
    with pytest.raises(TranslationError) as err:
        translate_file(path, "tilelang", "triton")
    assert err.value.loc is not None
    return err.value


_LAUNCH = "    kernel = tilelang.compile(group_absmax_scale(m, n, 32), out_idx=[1, 2])\n"


def test_a_launch_passing_another_value_than_the_if_was_decided_for_is_refused(
    tmp_path: Path,
) -> None:
    path = _variant(
        tmp_path,
        "    return kernel(x)\n",
        "    return kernel(x)\n\n\ndef group_scale_128(x):\n    m, n = x.shape\n"
        "    kernel = tilelang.compile(group_absmax_scale(m, n, 32, 128), out_idx=[1, 2])\n"
        "    return kernel(x)\n",
    )
    err = _refusal(path)
    assert "passes `group_size` = `128`, but the `if` at line 14 was decided for -1" in str(err)
    assert err.loc.line == 57  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("old", "new", "line", "what"),
    [
        (
            _LAUNCH,
            "    kernel = tilelang.compile(group_absmax_scale(m, n, 32, n // 2), out_idx=[1, 2])\n",
            14,
            "`if group_size == -1` does not fold to one value",
        ),
        (
            "    BM, GS = blk_m, group_size\n",
            "    BM, GS = blk_m, group_size\n    KH, KW = divmod(M, N)\n",
            17,
            "binds `KH, KW` to something other than a name a value",
        ),
        (
            "    fp8_max = 448.0\n",
            "    fp8_max = 448.0\n    for _ in range(2):\n        fp8_max = fp8_max\n",
            18,
            "this statement is none of them",
        ),
        (
            "        group_size = 64\n",
            "        group_size = 64\n        print(group_size)\n",
            16,
            "this statement is none of them",
        ),
    ],
    ids=["undecided-if", "tuple-of-a-call", "loop", "call-in-branch"],
)
def test_what_a_factory_body_holds_beyond_its_forms_is_a_located_refusal(
    tmp_path: Path, old: str, new: str, line: int, what: str
) -> None:
    err = _refusal(_variant(tmp_path, old, new))
    assert what in str(err)
    assert err.loc.line == line  # type: ignore[union-attr]


_CONSTANT_BLOCK = """
import tilelang
import tilelang.language as T

BLOCK = 64


def scale(M, N, block_M, threads=128):
{constant}
    @T.prim_func
    def main(X: T.Tensor((M, N), "float32"), Y: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, BLOCK), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            x = T.alloc_fragment((block_M, BLOCK), "float32")
            T.copy(X[by * block_M, bx * BLOCK], x)
            for i, j in T.Parallel(block_M, BLOCK):
                x[i, j] = x[i, j] * 2.0
            T.copy(x, Y[by * block_M, bx * BLOCK])

    return main


def double(x):
    m, n = x.shape
    kernel = tilelang.compile(scale(m, n, 32), out_idx=[-1])
    return kernel(x)
"""


@pytest.mark.parametrize(
    ("constant", "block"),
    [("    pass", 64), ("    BLOCK = 128", 128)],
    ids=["module-constant", "factory-constant"],
)
def test_a_constant_block_size_of_the_module_or_the_factory_is_a_fixed_block(
    tmp_path: Path, constant: str, block: int
) -> None:
    """`BLOCK = 64` at module level, or a factory's own `BLOCK = 128` shadowing it (the
    per-token-cast example's `group_size = 128`): a fixed block, no tunable."""
    import torch

    path = tmp_path / "constant_block.py"
    path.write_text(_CONSTANT_BLOCK.replace("{constant}", constant))
    (kernel,) = parse_file(path, "tilelang").kernels
    assert next(t for t in kernel.grid if t.name == "bx").block == ir.Const(block)
    assert {t.name for t in kernel.tunables} == {"block_M", "num_warps"}
    translated = tmp_path / "constant_block_triton.py"
    translated.write_text(translate_file(path, "tilelang", "triton"))

    def inputs(entry: str, device: str, dtype: str) -> tuple:
        return (torch.randn(70, 150, generator=torch.Generator().manual_seed(0)).to(device),)

    report = check_pair(
        path, translated, src_dsl="tilelang", dtypes=("float32",), seeds=(0,), inputs=inputs
    )
    assert report.rows and report.passed, report.format_text()


_ELIF = """
import tilelang
import tilelang.language as T


def scale(M, N, block_M, mode="double", threads=128):
    if mode == "triple":
        factor = 3.0
    elif mode == "double":
        factor = 2.0
    else:
        factor = 1.0

    @T.prim_func
    def main(X: T.Tensor((M, N), "float32"), Y: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(M, block_M), threads=threads) as by:
            x = T.alloc_fragment((block_M, N), "float32")
            T.copy(X[by * block_M, 0], x)
            for i, j in T.Parallel(block_M, N):
                x[i, j] = x[i, j] * factor
            T.copy(x, Y[by * block_M, 0])

    return main


def scale_rows(x):
    m, n = x.shape
    kernel = tilelang.compile(scale(m, n, 32{mode}), out_idx=[-1])
    return kernel(x)
"""


@pytest.mark.parametrize(("mode", "factor"), [("", "2.0"), (', "triple"', "3.0"), (', "x"', "1.0")])
def test_an_elif_chain_on_a_string_argument_takes_the_launch_s_branch(
    tmp_path: Path, mode: str, factor: str
) -> None:
    import torch

    path = tmp_path / "elif.py"
    path.write_text(_ELIF.replace("{mode}", mode))
    text = translate_file(path, "tilelang", "triton")
    assert f"x = x * {factor}" in text
    translated = tmp_path / "elif_triton.py"
    translated.write_text(text)

    def inputs(entry: str, device: str, dtype: str) -> tuple:
        return (torch.randn(37, 20, generator=torch.Generator().manual_seed(0)).to(device),)

    report = check_pair(
        path, translated, src_dsl="tilelang", dtypes=("float32",), seeds=(0,), inputs=inputs
    )
    assert report.rows and report.passed, report.format_text()


_IF_AND_TUPLE = (
    "    if group_size == -1:\n        group_size = 64\n    BM, GS = blk_m, group_size\n"
)


@pytest.mark.parametrize(
    ("new", "line", "what"),
    [
        (
            # Python's GS is 64; a lookup at G's last binding would read 32.
            "    G = 64\n    BM, GS = blk_m, G\n    G = 32\n",
            16,
            "binds `G` again after the local `GS` read it",
        ),
        (
            # GS read G before the `if` rebinds it: Python's GS is 128, not 64.
            "    G = 128\n    BM, GS = blk_m, G\n    if group_size == -1:\n        G = 64\n",
            17,
            "binds `G` again after the local `GS` read it",
        ),
        (
            # The taken branch reads G, bound again after the `if`: Python's GS is 64.
            "    G = 64\n    BM = blk_m\n    if group_size == -1:\n        GS = G\n    G = 128\n",
            17,
            "binds `GS` to a value that reads `G`, bound again after the `if`",
        ),
    ],
    ids=["rebind", "rebind-in-if", "if-reads-a-later-rebind"],
)
def test_a_factory_local_bound_again_after_another_read_it_is_refused(
    tmp_path: Path, new: str, line: int, what: str
) -> None:
    err = _refusal(_variant(tmp_path, _IF_AND_TUPLE, new))
    assert what in str(err)
    assert "new name" in (err.hint or "")
    assert err.loc.line == line  # type: ignore[union-attr]


def test_a_local_read_after_the_if_rebinds_it_takes_the_if_s_value(tmp_path: Path) -> None:
    path = _variant(
        tmp_path,
        _IF_AND_TUPLE,
        "    G = 128\n    if group_size == -1:\n        G = 64\n    BM, GS = blk_m, G\n",
    )
    text = translate_file(path, "tilelang", "triton")
    assert "torch.empty((m, ((n + 64 - 1) // 64))" in text
    translated = tmp_path / "groups_triton.py"
    translated.write_text(text)
    report = check_pair(
        path, translated, src_dsl="tilelang", dtypes=("float32",), seeds=(0,), inputs=_ragged
    )
    assert report.passed, report.format_text()
