"""TileLang's test and benchmark harness (``kernel.get_profiler()``, ``profiler.do_bench()``,
an autotuned kernel's ``.latency``) in ``main()``/``benchmark()``/``check_*()``: dropped with what
reads it, the kernels still translated and computing what their source computes; and the
launch values such functions give a factory's knobs (local names, argparse defaults)."""

from __future__ import annotations

import os

os.environ["TRITON_INTERPRET"] = "1"

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from translator.api import parse_file, translate_file  # noqa: E402
from translator.diagnostics import TranslationError  # noqa: E402
from validation.equivalence import check_pair  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
HARNESS = ROOT / "tests" / "data" / "tilelang_gemm_harness.py"


def _ragged_inputs(entry: str, device: str, dtype: str) -> tuple:
    import torch

    g = torch.Generator().manual_seed(0)
    a = torch.randn(70, 40, generator=g).half().to(device)
    b = torch.randn(40, 90, generator=g).half().to(device)
    return a, b, (torch.rand(70, generator=g) + 0.5).to(device)


def _code(text: str) -> str:
    """``text`` without its comment lines."""
    return "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))


def _function(text: str, name: str) -> str:
    start = text.index(f"\ndef {name}(")
    end = text.find("\n\n\n", start)
    return text[start : end if end > 0 else None]


@pytest.mark.parametrize("dst", ["triton", "helion"])
def test_a_harness_loses_its_profiler_and_the_kernel_computes_what_the_source_does(
    tmp_path: Path, dst: str
) -> None:
    text = translate_file(HARNESS, "tilelang", dst)
    code = _code(text[text.index("\ndef ") :])  # past the module docstring
    for gone in ("get_profiler", "assert_allclose", "do_bench", "profiler", "tilelang.compile("):
        assert gone not in code, gone
    main = _function(text, "main")
    assert "# tiletrans: dropped what reads `kernel`'s `.get_profiler`" in main
    assert "dropped the build of `kernel`" in main
    # What only the dropped prints read is dead now (the dead-host pass); argparse stays.
    assert "total_flops" not in main and "parser.parse_args()" in main
    bench = _function(text, "benchmark")
    assert bench.rstrip().endswith("return")
    assert "# tiletrans: this returned `profiler.do_bench()`" in bench
    translated = tmp_path / f"harness_{dst}.py"
    translated.write_text(text)
    report = check_pair(
        HARNESS,
        translated,
        src_dsl="tilelang",
        dtypes=("float16",),
        seeds=(0,),
        inputs=_ragged_inputs,
    )
    assert [row.entry for row in report.rows] == ["scaled_matmul"]
    assert report.passed, report.format_text()


def test_the_first_launch_s_knobs_are_read_through_its_local_names() -> None:
    """`scaled_matmul` passes `block_M, block_N = 32, 64` and `block_K = 32`: the knobs start
    there (not at the stand-in), and no note says they were guessed."""
    (kernel,) = parse_file(HARNESS, "tilelang").kernels
    assert dict(kernel.configs[0]) == {
        "block_M": 32,
        "block_N": 64,
        "block_K": 32,
        "num_warps": 4,
        "num_stages": 2,
    }
    assert not kernel.doc_comments


_ONLY_MAIN = """
import argparse

import tilelang
import tilelang.language as T


def scale(M, N, block_M, block_N, threads, dtype="float32"):
    @T.prim_func
    def main(X: T.Tensor((M, N), dtype), Y: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            x = T.alloc_fragment((block_M, block_N), dtype)
            T.copy(X[by * block_M, bx * block_N], x)
            for i, j in T.Parallel(block_M, block_N):
                x[i, j] = x[i, j] * 2.0
            T.copy(x, Y[by * block_M, bx * block_N])

    return main


def main(threads: int = 256):
    parser = argparse.ArgumentParser()
    parser.add_argument("--m", type=int, default=1000)
    parser.add_argument("--block-m", dest="bm", type=int, default=128)
    args = parser.parse_args()
    m, bm = args.m, args.bm
    block_N = 32
    kernel = tilelang.compile(scale(m, 512, bm, block_N, threads), out_idx=[-1])
{harness}
"""

_PROFILED = """    profiler = kernel.get_profiler(tensor_supply_type=tilelang.TensorSupplyType.Randn)
    profiler.assert_allclose(lambda x: x * 2.0, rtol=1e-5, atol=1e-5)
    latency = profiler.do_bench()
    print(f"{latency:.3f} ms, {m * 512 * 8 / latency * 1e-6:.1f} GB/s")
    latency = 0.0
    print(latency)
    print(kernel.get_kernel_source())"""


def _only_main(tmp_path: Path, harness: str) -> Path:
    path = tmp_path / "only_main.py"
    path.write_text(_ONLY_MAIN.replace("{harness}", harness))
    return path


def test_a_kernel_built_only_for_the_harness_gives_its_knobs_and_its_build_goes(
    tmp_path: Path,
) -> None:
    """The one build there is passes an argparse option (`dest=`, through a tuple
    assignment), a local and a parameter's default: they are the knobs' values. The build
    goes with the harness; a name bound again by a kept statement is live again."""
    path = _only_main(tmp_path, _PROFILED)
    (kernel,) = parse_file(path, "tilelang").kernels
    assert dict(kernel.configs[0]) == {"block_M": 128, "block_N": 32, "num_warps": 8}
    assert not kernel.doc_comments
    main = _function(translate_file(path, "tilelang", "triton"), "main")
    code = _code(main)
    assert "scale(" not in code and "get_kernel_source" not in code and "GB/s" not in code
    assert "    latency = 0.0\n    print(latency)\n" in main
    assert "dropped what reads `kernel`'s `.get_profiler`, `.get_kernel_source`" in main


def test_outside_a_harness_the_kernel_object_stays_a_refusal(tmp_path: Path) -> None:
    path = tmp_path / "api.py"
    source = _ONLY_MAIN.replace("{harness}", _PROFILED).replace(
        "def main(threads", "def double(threads"
    )
    path.write_text(source)
    with pytest.raises(TranslationError) as err:
        translate_file(path, "tilelang", "triton")
    assert "the kernel `kernel` is used here otherwise than called" in str(err.value)
    assert err.value.loc is not None and err.value.loc.line == 29


@pytest.mark.parametrize(
    ("harness", "line", "what"),
    [
        (
            "    latency = kernel.get_profiler().do_bench()\n"
            "    if latency < 1.0:\n"
            "        print('fast')",
            30,
            "this reads `latency`, which holds what `kernel.get_profiler` gave",
        ),
        (
            "    for config in kernel.config:\n        print(config)",
            29,
            "this reads `kernel.config`, TileLang's kernel API",
        ),
        (
            "    profiler = kernel.get_profiler()\n    x = [profiler]\n    del x",
            31,
            "beyond the plain statements of a test or benchmark",
        ),
        (
            "    profiler = kernel.get_profiler()\n    run(kernel)",
            30,
            "the kernel `kernel` is used here otherwise than called",
        ),
        (
            # The walrus's line goes; the nested helper that reads its name stayed (NameError).
            '    print(f"{(latency := kernel.get_profiler().do_bench()):.3f} ms")\n'
            "    def report():\n"
            "        print(latency)\n"
            "    report()",
            30,
            "the nested `report` reads `latency`, which holds what `kernel.get_profiler` gave",
        ),
        (
            # A helper reads its outer names when called: one dropped after the `def` too.
            "    def report():\n"
            "        print(latency)\n"
            "    latency = kernel.get_profiler().do_bench()\n"
            "    report()",
            29,
            "the nested `report` reads `latency`",
        ),
    ],
    ids=["branch", "loop", "del", "passed-on", "walrus-then-helper", "helper-then-dropped"],
)
def test_what_a_harness_does_with_the_kernel_object_beyond_plain_statements_is_refused(
    tmp_path: Path, harness: str, line: int, what: str
) -> None:
    with pytest.raises(TranslationError) as err:
        translate_file(_only_main(tmp_path, harness), "tilelang", "triton")
    assert what in str(err.value)
    assert err.value.loc is not None and err.value.loc.line == line


def test_a_name_bound_again_only_in_a_branch_stays_dropped_after_it(tmp_path: Path) -> None:
    """`latency = 0.0` under an `if` does not bind it on every path: the `print(latency)`
    after it would read a name the translation no longer binds, so it goes too; a statement
    that binds it again outside any branch makes it live."""
    harness = (
        "    latency = kernel.get_profiler().do_bench()\n"
        "    if threads > 128:\n"
        "        latency = 0.0\n"
        "    print(latency)\n"
        "    latency = 1.0\n"
        "    print(latency)"
    )
    main = _function(translate_file(_only_main(tmp_path, harness), "tilelang", "triton"), "main")
    code = _code(main)
    # The `if` then only binds a name nothing reads: the dead-host pass removes it.
    assert "latency = 0.0" not in code
    assert code.count("print(latency)") == 1
    assert code.index("latency = 1.0") < code.index("print(latency)")


def test_a_walrus_binds_its_name_where_a_kept_statement_stands(tmp_path: Path) -> None:
    """`(latency := 1.0)` binds `latency` again (no read of the dropped one): its line and the
    `print` after it stay; a helper that reads only its own parameter stays with its call."""
    harness = (
        "    latency = kernel.get_profiler().do_bench()\n"
        "    print((latency := 1.0))\n"
        "    print(latency)\n"
        "    def report(latency):\n"
        "        print(latency)\n"
        "    report(2.0)"
    )
    main = _function(translate_file(_only_main(tmp_path, harness), "tilelang", "triton"), "main")
    code = _code(main)
    assert "get_profiler" not in code
    assert "print((latency := 1.0))" in code
    assert code.index("print((latency := 1.0))") < code.index("print(latency)")
    assert "report(2.0)" in code
