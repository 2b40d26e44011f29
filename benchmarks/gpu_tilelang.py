"""GPU equivalence and speed of the TileLang translations of the Helion and Triton examples (H200).

    source .devbundle/setup.sh && python -m benchmarks.gpu_tilelang [--only NAME ...] [--part P]

Parts: ``helion`` (``examples/helion/*.py`` against ``expected_tilelang/``), ``triton``
(``examples/triton/*.py`` likewise), ``tilelang`` (each ``examples/tilelang/*.py`` against its
Helion and Triton translations: :func:`benchmarks.gpu_library.run_pair`, i.e. ``check_pair`` on the
GPU at the ragged sizes of ``tests/tilelang_inputs.py``, then every public function timed at the
large sizes of :data:`LARGE`, both sides at their first config, configless Helion at its default
config) and ``gemm`` (fp16 4096^3: the matmul translations from Helion
and Triton with their emitted autotune space searched, a hand-written plain-``T.gemm`` TileLang
kernel and torch, in one run). For each example: source and translation on the same ragged inputs
(poisoned outputs, two seeds, rel. norm against the tolerance of the dtype), then both timed with
``triton.testing.do_bench`` (median) on large inputs, each at its first config (autotuned sources
and factories pinned). Prints a table last and writes ``$OUT/gpu_tilelang.json``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
import traceback
from pathlib import Path

import torch

from benchmarks.common import ROOT, bench, outputs, rel_err
from benchmarks.gpu_examples import CASES as HELION_CASES
from benchmarks.gpu_triton_examples import (
    TRITON_CASES,
    Gen,
    _bind_maker,
    _compiled,
    _helion_call,
    _label,
    _load,
    equivalence,
    speed,
    tolerance,
)

F16 = torch.float16
DOT = {"matmul", "matmul_bias_act", "bmm", "attention", "matmul_act", "matmul_block_ptr",
       "matmul_descriptor", "matmul_host_descriptor", "matmul_persistent"}  # fmt: skip


def _golden(part: str, name: str) -> Path:
    return ROOT / "examples" / part / "expected_tilelang" / f"{name}.py"


def run_helion(name: str) -> dict:
    ragged, large = HELION_CASES[name]
    row: dict = {"part": "helion", "name": name}
    if not _golden("helion", name).is_file():
        return {**row, "status": "refused"}
    src = _helion_call(getattr(_load(ROOT / "examples/helion" / f"{name}.py", "src"), name))
    tr = getattr(_load(_golden("helion", name), "tilelang"), name)
    row.update(equivalence(src, tr, [("ragged", F16, ragged)], name in DOT, "cuda"))
    torch.manual_seed(2)
    args = large()
    kernel = getattr(_load(ROOT / "examples/helion" / f"{name}.py", "src_large"), name)
    row.update(speed(_compiled(kernel, args), tr, args, tolerance(F16, name in DOT), "cuda"))
    return row


def run_triton(name: str) -> dict:
    case = TRITON_CASES[name]
    row: dict = {"part": "triton", "name": name}
    if not _golden("triton", name).is_file():
        return {**row, "status": "refused"}
    src = getattr(_load(ROOT / "examples/triton" / f"{name}.py", "src"), name)
    tr = getattr(_load(_golden("triton", name), "tilelang"), name)
    makers = [(_label(s), F16, _bind_maker(case.build, Gen("cuda", F16), s)) for s in case.ragged]
    row.update(equivalence(src, tr, makers, case.dot, "cuda", case.ref))
    torch.manual_seed(2)
    args = case.build(Gen("cuda", F16), case.large)
    row.update(speed(src, tr, args, tolerance(F16, case.dot), "cuda"))
    return row


_HAND_GEMM = """
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def gemm(M, N, K, block_M=128, block_N=256, block_K=64, num_stages=4, threads=256):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"),
             C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), "float16")
            B_shared = T.alloc_shared((block_K, block_N), "float16")
            C_local = T.alloc_fragment((block_M, block_N), "float32")
            T.use_swizzle(10)
            T.clear(C_local)
            for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, ko * block_K], A_shared)
                T.copy(B[ko * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local, policy=T.GemmWarpPolicy.FullRow)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main
"""


def gemm_4096() -> dict:
    """fp16 4096^3: translations (autotune space searched), the hand-written kernel, torch."""
    out_dir = Path(os.environ.get("OUT", "/tmp"))
    hand = out_dir / "hand_gemm.py"
    hand.write_text(_HAND_GEMM)
    torch.manual_seed(3)
    a = torch.randn(4096, 4096, device="cuda", dtype=F16)
    b = torch.randn(4096, 4096, device="cuda", dtype=F16)
    ref = (a.double() @ b.double()).to(F16)
    flops = 2 * 4096**3
    kernel = _load(hand, "hand", pin=False).gemm(4096, 4096, 4096)
    sides = {
        "hand T.gemm": lambda: kernel(a, b),
        "torch": lambda: torch.matmul(a, b),
    }
    # The hand kernel less one of what the translations do not write the same way: which of
    # the two its speed owes to.
    variants = {
        "hand, Square policy": _HAND_GEMM.replace(", policy=T.GemmWarpPolicy.FullRow", ""),
        "hand, no swizzle": _HAND_GEMM.replace("T.use_swizzle(10)", "pass"),
        # The translations write `T.use_swizzle(panel_size=group_size)` with Triton's group 8.
        "hand, swizzle 8": _HAND_GEMM.replace("T.use_swizzle(10)", "T.use_swizzle(panel_size=8)"),
        "hand, 3 stages": _HAND_GEMM.replace("num_stages=4", "num_stages=3"),
        # What the Triton matmul's translation wrote before 2026-12-07's fourth session: the
        # fp16 result cast into a second fragment by a T.Parallel loop, then copied out.
        "hand, cast fragment": _HAND_GEMM.replace(
            "            T.copy(C_local, C[by * block_M, bx * block_N])",
            '            C_cast = T.alloc_fragment((block_M, block_N), "float16")\n'
            "            for i, j in T.Parallel(block_M, block_N):\n"
            '                C_cast[i, j] = T.cast(C_local[i, j], "float16")\n'
            "            T.copy(C_cast, C[by * block_M, bx * block_N])",
        ),
    }
    for i, (label, text) in enumerate(variants.items()):
        path = out_dir / f"hand_gemm_{i}.py"
        path.write_text(text)
        variant = _load(path, f"hand{i}", pin=False).gemm(4096, 4096, 4096)
        sides[label] = lambda k=variant: k(a, b)
    for part in ("helion", "triton"):
        module = _load(_golden(part, "matmul"), f"{part}_mm", pin=False)  # searched, not pinned
        sides[f"{part}->tilelang"] = lambda m=module: m.matmul(a, b)
    row: dict = {}
    for label, fn in sides.items():
        err = rel_err(outputs(fn())[0], ref)
        row[label] = {"err": err, "tflops": flops / bench(fn) / 1e9}
    return row


def _large(entry: str, device: str, dtype: str) -> tuple | None:
    """Timing-size arguments of a TileLang example's public function (``None``: not timed)."""
    d = getattr(torch, dtype)

    def randn(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, dtype=d, device=device)

    m, n, k = 8192, 4096, 4096
    table = {
        "add": lambda: (randn(m, n), randn(m, n)),
        "gemm": lambda: (randn(k, k), randn(k, k)),
        "matmul": lambda: (randn(k, k), randn(k, k)),
        "linear": lambda: (randn(k, k), randn(k, k)),
        "matvec": lambda: (randn(m, m), randn(m)),
        "softmax": lambda: (randn(m, n),),
        "rms_norm": lambda: (randn(m, n), randn(n), 1e-6),
        "layer_norm": lambda: (randn(m, n), randn(n), randn(n), 1e-5),
        "row_sum": lambda: (randn(m, n),),
        "column_sum": lambda: (randn(m, n),),
        "gelu": lambda: (randn(m * n),),
        "scaled_add": lambda: (randn(m, n), randn(m, n), 0.75),
        "matmul_bias_relu": lambda: (randn(k, k), randn(k, k), randn(k)),
        "bmm": lambda: (randn(16, 1024, 512), randn(16, 512, 1024)),
        "dequant_gemm": lambda: (
            randn(k, k),
            torch.randint(-127, 128, (k, k), dtype=torch.int8, device=device),
            randn(k) * 0.01,
        ),
        "cumsum": lambda: (randn(m, 256),),
        "attention": lambda: (
            randn(4, 2048, 16, 64),
            randn(4, 2048, 16, 64),
            randn(4, 2048, 16, 64),
        ),
    }
    return table[entry]() if entry in table else None


class _TileLangInputs:
    """The ``inputs`` module :func:`benchmarks.gpu_library.run_pair` expects: ragged arguments
    while ``M`` is small (equivalence), :func:`_large` ones while it times."""

    M, N, K = 17, 37, 45

    def inputs(self, entry: str, device: str, dtype: str) -> tuple | None:
        if str(ROOT / "tests") not in sys.path:
            sys.path.insert(0, str(ROOT / "tests"))
        from tilelang_inputs import tilelang_inputs

        if self.M >= 1024:
            return _large(entry, device, dtype)
        try:
            return tilelang_inputs(entry, device, dtype)
        except KeyError:
            return None


def run_tilelang_sources(
    only: list[str] | None = None, shard: tuple[int, int] = (1, 1)
) -> list[dict]:
    """Every TileLang example (or those named in ``only``; every ``shard[1]``-th from the
    ``shard[0]``-th) against each of its Helion and Triton translations."""
    from benchmarks.gpu_library import run_pair

    rows = []
    sources = sorted((ROOT / "examples" / "tilelang").glob("*.py"))
    for source in sources[shard[0] - 1 :: shard[1]]:
        if only and source.stem not in only:
            continue
        for dst in ("helion", "triton"):
            golden = source.parent / f"expected_{dst}" / source.name
            if not golden.is_file():
                continue
            t0 = time.time()
            try:
                found = run_pair(source, golden, _TileLangInputs())
            except Exception as err:  # one failing example must not hide the others
                found = [{"entry": "?", "error": f"{type(err).__name__}: {err}"[:300]}]
                traceback.print_exc()
            for r in found:
                r.update(part=f"tl->{dst}", name=f"{source.stem}:{r.pop('entry')}")
                r["wall_s"] = round(time.time() - t0, 1)
                print(json.dumps(r), flush=True)
            rows += found
    return rows


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument(
        "--part",
        nargs="*",
        choices=["helion", "triton", "tilelang", "gemm", "all"],
        default=["all"],
    )
    parser.add_argument(
        "--shard",
        default="1/1",
        help="I/N: every N-th example from the I-th (1-based; benchmarks.warm_shards runs shards"
        " side by side to fill the compile caches first)",
    )
    opts = parser.parse_args(argv)
    shard = (int(opts.shard.split("/")[0]), int(opts.shard.split("/")[1]))
    parts = {"helion", "triton", "tilelang", "gemm"} if "all" in opts.part else set(opts.part)
    os.environ.setdefault("HELION_AUTOTUNE_EFFORT", "none")
    from validation.equivalence import prepare_runtimes

    prepare_runtimes("cuda")
    jobs = []
    if "helion" in parts:
        jobs += [(run_helion, n) for n in HELION_CASES if not opts.only or n in opts.only]
    if "triton" in parts:
        jobs += [(run_triton, n) for n in TRITON_CASES if not opts.only or n in opts.only]
    jobs = jobs[shard[0] - 1 :: shard[1]]
    rows = run_tilelang_sources(opts.only, shard) if "tilelang" in parts else []
    for fn, name in jobs:
        t0 = time.time()
        try:
            row = fn(name)
        except Exception as err:  # one failing example must not hide the others
            row = {"name": name, "error": f"{type(err).__name__}: {err}"[:300]}
            traceback.print_exc()
        row["wall_s"] = round(time.time() - t0, 1)
        rows.append(row)
        print(json.dumps({k: v for k, v in row.items() if k != "cases"}), flush=True)
    gemm = gemm_4096() if "gemm" in parts and shard[0] == 1 else None
    out_dir = Path(os.environ.get("OUT", "/tmp"))
    (out_dir / "gpu_tilelang.json").write_text(json.dumps({"rows": rows, "gemm": gemm}))
    print(f"\n{'part':7s} {'example':24s} {'equal':>5s} {'rel_err':>9s} {'src ms':>9s} "
          f"{'tl ms':>9s} {'src/tl':>7s}")  # fmt: skip
    ratios: dict[str, list[float]] = {}
    for r in rows:
        if "error" in r or r.get("status") == "refused":
            print(f"{r.get('part', '?'):7s} {r['name']:24s} {r.get('error', 'refused')[:80]}")
            continue
        ok = r["equal"] and r.get("large_equal", True)
        if "ratio" not in r:  # equivalence only (no timing sizes for it)
            print(f"{r['part']:7s} {r['name']:24s} {'yes' if ok else 'NO':>5s} {r['err']:9.2e}")
            continue
        ratios.setdefault(r["part"], []).append(r["ratio"])
        print(f"{r['part']:7s} {r['name']:24s} {'yes' if ok else 'NO':>5s} {r['err']:9.2e} "
              f"{r['src_ms']:9.4f} {r['tr_ms']:9.4f} {r['ratio']:7.3f}")  # fmt: skip
    for part, values in ratios.items():
        print(
            f"median speed ratio {part}/tilelang: {statistics.median(values):.3f} ({len(values)})"
        )
    if gemm:
        for label, v in gemm.items():
            tf = v["tflops"] if math.isfinite(v["tflops"]) else float("nan")
            print(f"gemm fp16 4096^3 {label:18s} {tf:6.0f} TFLOP/s err {v['err']:.1e}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
