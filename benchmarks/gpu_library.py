"""GPU equivalence and speed of the library-style corpus against its translations (H200).

    source .devbundle/setup.sh && python -m benchmarks.gpu_library

For every module of ``examples/library/<dsl>/`` with a golden in the other DSL: first
:func:`validation.equivalence.check_pair` on the GPU (every public function, fp16 and fp32, two
seeds, poisoned outputs, gradients through ``torch.autograd.grad`` where the module defines an
autograd Function; inputs from ``examples/library/inputs.py`` where the IR cannot shape them);
then each public function that ``inputs.py`` shapes is timed on both sides (fp16, ``do_bench``
median, fresh ``randn`` inputs larger than L2: rows M=8192, columns N=4096, contraction K=4096),
forward only, in three alternating rounds (median), and again replayed from a CUDA graph (device
time without host launch overhead: the ``graph`` ratio), each side's autotuned kernels pinned to
their first config (where the source has configs, the same one on both sides: the translation
carries them in order; a configless Helion kernel runs at Helion's default config, its translation
at the first config of its tuning space, so those rows compare two fixed configs, not two tuned
kernels: ``benchmarks.gpu_configless`` tunes both). Prints a table last; writes
``$OUT/gpu_library.json``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import sys
import time
import traceback
from collections import Counter
from pathlib import Path

import torch

from benchmarks.common import ROOT, bench_pair

LIBRARY = ROOT / "examples" / "library"
INPUTS = LIBRARY / "inputs.py"


#: The module each DSL's code imports: a golden runs only where its runtime is installed (the
#: `core` device bundle has Helion and TileLang, the `cutile` bundle cuTile).
RUNTIMES = {"helion": "helion", "triton": "triton", "tilelang": "tilelang", "cutile": "cuda.tile"}


def _installed(dsl: str) -> bool:
    try:
        return importlib.util.find_spec(RUNTIMES.get(dsl, dsl)) is not None
    except ModuleNotFoundError:
        return False


def _selected(source: Path, only: list[str] | None) -> bool:
    """Whether ``--only`` names ``source``: by stem (``glu``) or by ``dsl/stem`` (``helion/glu``)."""
    return not only or source.stem in only or f"{source.parent.name}/{source.stem}" in only


def _pairs(only: list[str] | None = None) -> list[tuple[Path, Path]]:
    return [
        (source, golden)
        for folder in sorted(p for p in LIBRARY.iterdir() if p.is_dir())
        for source in sorted(folder.glob("*.py"))
        if _selected(source, only)
        for golden in sorted(folder.glob(f"expected_*/{source.name}"))
    ]


def run_pair(source: Path, golden: Path, inputs_module) -> list[dict]:
    from validation.equivalence import check_pair
    from validation.runners import get_entry, load_module, pin_first_configs

    small = (inputs_module.M, inputs_module.N, inputs_module.K)
    report = check_pair(source, golden, device="cuda", seeds=(0, 1), inputs=inputs_module.inputs)
    rows: dict[str, dict] = {}
    for r in report.rows:
        row = rows.setdefault(
            r.entry, {"module": f"{source.parent.name}/{source.stem}", "entry": r.entry}
        )
        row["equal"] = row.get("equal", True) and r.passed
        row["err"] = max(row.get("err", 0.0), r.error)
        if not r.passed:
            row["detail"] = r.detail[:200]
    src, tr = load_module(source, "source"), load_module(golden, "translated")
    pin_first_configs(src)
    pin_first_configs(tr)
    # A compile-cache filler (benchmarks.warm_shards) runs each side once at the timing sizes, so
    # that the measured run compiles nothing: its own timings would overlap other shards' on the GPU.
    warm_only = bool(os.environ.get("TILETRANS_WARM_SHARD"))
    inputs_module.M, inputs_module.N, inputs_module.K = 8192, 4096, 4096
    try:
        for name, row in rows.items():
            torch.manual_seed(2)
            args = inputs_module.inputs(name, "cuda", "float16")
            if args is None or not row["equal"]:
                continue
            fs, ft = get_entry(src, name), get_entry(tr, name)
            with torch.no_grad():
                if warm_only:
                    fs(*args), ft(*args)
                    continue
                row.update(
                    bench_pair(
                        lambda fs=fs, args=args: fs(*args), lambda ft=ft, args=args: ft(*args)
                    )
                )
    finally:
        inputs_module.M, inputs_module.N, inputs_module.K = small
    return list(rows.values())


def _row_line(r: dict) -> str:
    if "error" in r:
        return f"{r['module']:22s} ERROR {r['error'][:100]}"
    timed = "ratio" in r
    graph = f" {r['graph_ratio']:6.3f}" if timed and r.get("graph_ratio") else "       "
    return (
        f"{r['module']:22s} {r['entry']:22s} {'yes' if r['equal'] else 'NO':>5s} "
        f"{r['err']:9.2e} "
        + (f"{r['src_ms']:8.4f} {r['tr_ms']:8.4f} {r['ratio']:6.3f}{graph}" if timed else "")
        + (f"  {r.get('detail', '')[:80]}" if not r["equal"] else "")
    )


def main() -> int:
    # Configless Helion kernels run at Helion's default config, as on the CPU: a full autotune of
    # each (minutes per kernel on the H200) is not the comparison this script makes.
    os.environ.setdefault("HELION_AUTOTUNE_EFFORT", "none")
    import triton

    from validation.runners import load_module

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--only", nargs="*", default=None, help="module names: file stems or dsl/stem"
    )
    parser.add_argument(
        "--shard", default="1/1", help="I/N: run every N-th pair starting at the I-th (1-based)"
    )
    opts = parser.parse_args()
    shard = tuple(int(part) for part in opts.shard.split("/"))
    inputs_module = load_module(INPUTS, "inputs")
    rows: list[dict] = []
    pairs, absent = [], Counter()
    for source, golden in _pairs(opts.only):
        dsls = (source.parent.name, golden.parent.name.removeprefix("expected_"))
        missing = [d for d in dsls if not _installed(d)]
        if missing:
            absent[missing[0]] += 1
        else:
            pairs.append((source, golden))
    # Every N-th runnable pair from the I-th: shards of similar length, so that a run that does not
    # fit one device call's limit splits into calls that each finish.
    pairs = pairs[shard[0] - 1 :: shard[1]]
    env = {
        "device": torch.cuda.get_device_name(),
        "torch": torch.__version__,
        "triton": triton.__version__,
    }
    out = Path(os.environ.get("OUT", "/tmp")) / "gpu_library.json"
    print(" | ".join(f"{k}={v}" for k, v in env.items()))
    print("ratio = source ms / translation ms")
    print(
        f"{'module':22s} {'entry':22s} {'equal':>5s} {'rel_err':>9s} {'src ms':>8s} {'tr ms':>8s}"
        f" {'ratio':>6s} {'graph':>6s}"
    )
    # Rows are printed (and the JSON rewritten) as each module finishes, so that a run cut short
    # by the device's time limit still reports what it measured.
    for source, golden in pairs:
        t0 = time.time()
        try:
            got = run_pair(source, golden, inputs_module)
        except Exception as err:  # one module must not hide the others
            traceback.print_exc(file=sys.stderr)
            got = [{"module": source.stem, "entry": "-", "error": f"{type(err).__name__}: {err}"}]
        for row in got:
            row["wall_s"] = round(time.time() - t0, 1)
            print(_row_line(row), flush=True)
        rows.extend(got)
        out.write_text(json.dumps({"env": env, "rows": rows}, indent=1))
    ratios = [r["ratio"] for r in rows if "ratio" in r]
    graph_ratios = [r["graph_ratio"] for r in rows if "ratio" in r and r.get("graph_ratio")]
    for dsl, count in sorted(absent.items()):
        print(f"not run: {count} pair(s) with {dsl}, whose runtime is not installed here")
    equal = sum(1 for r in rows if r.get("equal"))
    print(f"{equal}/{len(rows)} public functions equivalent on the GPU", end="")
    if ratios:
        print(f"; median ratio {statistics.median(ratios):.3f} over {len(ratios)} timed", end="")
        print(f", min {min(ratios):.3f}", end="")
    if graph_ratios:
        print(
            f"; graph (device-only) median {statistics.median(graph_ratios):.3f}, "
            f"min {min(graph_ratios):.3f} over {len(graph_ratios)}",
            end="",
        )
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
