"""Configless Helion kernels against their Triton translations, each side autotuned (H200).

    source .devbundle/setup.sh && python -m benchmarks.gpu_configless [--only NAME ...]

The sources: every Helion module of ``examples/helion/`` and ``examples/library/helion/`` with the
``config=``/``configs=`` of its kernels taken off (most library kernels have none to begin with;
so a configless ``softmax_two_pass``, ``rms_norm``, ``matmul``... too). Each is
translated to Triton in process (``translate_source``), so what is measured is today's
translator, not a golden. The effort on each side is comparable: Helion autotunes with
``HELION_AUTOTUNE_EFFORT=quick``; the translation's ``@triton.autotune`` benchmarks its whole
space (the ``tuning-space`` pass, 3-8 configs) once per key. Per module:

1. :func:`validation.equivalence.check_pair` on the GPU at ragged sizes (fp16, one seed,
   poisoned outputs; inputs from ``examples/library/inputs.py`` where the IR cannot shape them).
   Helion runs its default config here (``HELION_AUTOTUNE_EFFORT=none``), the translation its
   autotuner's pick: a config does not change what a kernel computes, and Helion's quick search
   at the ragged sizes would double the device time (it searches again for every shape);
2. :func:`validation.bench.bench_pair` ``--repeat`` times (default 3; fp16, inputs larger than
   L2, one untimed call that autotunes, then the ``do_bench`` median), each loading both modules
   afresh: Helion searches once (``quick``) and reads its on-disk cache after that, the
   translation's ``@triton.autotune`` searches every time. Ratio = source ms / translation ms,
   the median over the repeats after the first (whose Helion search ran just before the
   translation's), every repeat's ratio listed in the JSON rows.

Prints a table last (with each side's first-call time, autotuning included) and writes
``$OUT/gpu_configless.json``. Emitted code must run under triton 3.6 and helion 1.4.0 there.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import traceback
from pathlib import Path

import libcst as cst

from benchmarks.common import ROOT, helion_version

HELION_EXAMPLES = ROOT / "examples" / "helion"
LIBRARY_HELION = ROOT / "examples" / "library" / "helion"
INPUTS = ROOT / "examples" / "library" / "inputs.py"
CONFIG_KEYWORDS = ("config", "configs")


class _DropConfigs(cst.CSTTransformer):
    """``@helion.kernel(config=..., static_shapes=True)`` -> ``@helion.kernel(static_shapes=True)``."""

    def leave_Decorator(self, original: cst.Decorator, updated: cst.Decorator) -> cst.Decorator:
        call = updated.decorator
        if not (
            isinstance(call, cst.Call)
            and cst.Module([]).code_for_node(call.func).endswith("kernel")
        ):
            return updated
        args = [a for a in call.args if not (a.keyword and a.keyword.value in CONFIG_KEYWORDS)]
        if args:
            args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated.with_changes(decorator=call.with_changes(args=args))


def configless(source: str) -> str:
    """``source`` with the configs of its Helion kernels taken off."""
    return cst.parse_module(source).visit(_DropConfigs()).code


def sources() -> dict[str, str]:
    """name -> configless Helion source text, library modules first."""
    out: dict[str, str] = {}
    for prefix, folder in (("library/", LIBRARY_HELION), ("", HELION_EXAMPLES)):
        for path in sorted(folder.glob("*.py")):
            out[f"{prefix}{path.stem}"] = configless(path.read_text())
    return out


def run_module(
    name: str, text: str, workdir: Path, inputs_fn, device: str, repeats: int = 1
) -> list[dict]:
    """Equivalence and speed of one configless module against its translation."""
    from translator.api import translate_source
    from validation.bench import bench_pair
    from validation.equivalence import check_pair

    stem = name.replace("/", "_")
    source = workdir / f"{stem}_helion.py"
    source.write_text(text)
    translated = workdir / f"{stem}_triton.py"
    translated.write_text(translate_source(text, str(source), "helion", "triton"))
    rows: dict[str, dict] = {}
    t0 = time.time()
    # Read by each kernel's Settings when the module is loaded, so it applies per step.
    os.environ["HELION_AUTOTUNE_EFFORT"] = "none"
    report = check_pair(
        source,
        translated,
        "helion",
        device=device,
        dtypes=("float16",) if device == "cuda" else ("float32",),
        seeds=(0,),
        inputs=inputs_fn,
    )
    for r in report.rows:
        row = rows.setdefault(r.entry, {"module": name, "entry": r.entry})
        row["equal"] = row.get("equal", True) and r.passed
        row["err"] = max(row.get("err", 0.0), r.error)
        if not r.passed:
            row["detail"] = r.detail[:200]
    check_s = time.time() - t0
    os.environ["HELION_AUTOTUNE_EFFORT"] = "quick"
    # Each repeat loads both modules afresh: Helion's search runs once (its configs come from
    # its on-disk cache after that), the translation's @triton.autotune searches every time.
    # One search's outcome is noisy at ~50 us kernels (BENCHMARKS.md, third session): the
    # reported ratio is the median over the repeats, and the first repeat, whose Helion search
    # ran just before the translation's, is dropped where there are three or more.
    runs = (
        [bench_pair(source, translated, "helion", device="cuda") for _ in range(repeats)]
        if device == "cuda"
        else []
    )
    kept = runs[1:] if len(runs) >= 3 else runs
    for b in kept[0] if kept else []:
        same = [r for run in kept for r in run if r.entry == b.entry]
        row = rows.setdefault(b.entry, {"module": name, "entry": b.entry})
        row.update(
            src_ms=statistics.median(r.t_source_ms for r in same),
            tr_ms=statistics.median(r.t_translated_ms for r in same),
            ratio=statistics.median(r.speedup for r in same),
            ratios=[round(r.speedup, 3) for run in runs for r in run if r.entry == b.entry],
            bench_equal=all(r.passed for r in same),
            sizes=dict(b.sizes),
        )
    for row in rows.values():
        row["check_s"] = round(check_s, 1)
    return list(rows.values())


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", nargs="*", default=None, help="module names (see the table)")
    parser.add_argument(
        "--device", default="cuda", help="`cpu`: a dry run of the equivalence step, no timing"
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="timing runs per module, each autotuning the translation afresh (median reported)",
    )
    opts = parser.parse_args(argv)
    # Both sides autotune: Helion with its quick search (set before helion is imported).
    os.environ["HELION_AUTOTUNE_EFFORT"] = "quick"
    if opts.device == "cpu":
        from validation.equivalence import prepare_runtimes

        prepare_runtimes("cpu")
    import torch
    import triton

    from validation.runners import load_module

    inputs_fn = load_module(INPUTS, "inputs").inputs
    modules = sources()
    names = opts.only or list(modules)
    rows: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            t0 = time.time()
            try:
                got = run_module(
                    name, modules[name], Path(tmp), inputs_fn, opts.device, opts.repeat
                )
            except Exception as err:  # one module must not hide the others
                traceback.print_exc()
                got = [{"module": name, "entry": "-", "error": f"{type(err).__name__}: {err}"}]
            for row in got:
                row["wall_s"] = round(time.time() - t0, 1)
                print(json.dumps(row), flush=True)
            rows.extend(got)
    env = {
        "device": torch.cuda.get_device_name() if opts.device == "cuda" else opts.device,
        "torch": torch.__version__,
        "triton": triton.__version__,
        "helion": helion_version(),
        "helion_effort": os.environ["HELION_AUTOTUNE_EFFORT"],
    }
    out = Path(os.environ.get("OUT", "/tmp")) / "gpu_configless.json"
    out.write_text(json.dumps({"env": env, "rows": rows}, indent=1))
    print()
    print(" | ".join(f"{k}={v}" for k, v in env.items()))
    print("ratio = Helion (quick autotune) ms / translated Triton (@triton.autotune) ms")
    print(
        f"{'module':26s} {'entry':24s} {'equal':>5s} {'rel_err':>9s} {'src ms':>8s} "
        f"{'tr ms':>8s} {'ratio':>6s} {'wall s':>7s}"
    )
    ratios = []
    for r in rows:
        if "error" in r:
            print(f"{r['module']:26s} ERROR {r['error'][:100]}")
            continue
        timed = "ratio" in r
        if timed:
            ratios.append(r["ratio"])
        equal = "yes" if r.get("equal") else ("NO" if "equal" in r else "-")
        print(
            f"{r['module']:26s} {r['entry']:24s} {equal:>5s} {r.get('err', float('nan')):9.2e} "
            + (f"{r['src_ms']:8.4f} {r['tr_ms']:8.4f} {r['ratio']:6.3f}" if timed else " " * 24)
            + f" {r['wall_s']:7.1f}"
            + (f"  {r.get('detail', '')[:80]}" if r.get("equal") is False else "")
        )
    equal = sum(1 for r in rows if r.get("equal"))
    print(f"{equal}/{len(rows)} entries equivalent on {env['device']}", end="")
    if ratios:
        print(
            f"; ratio median {statistics.median(ratios):.3f}, min {min(ratios):.3f} "
            f"over {len(ratios)} timed"
        )
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
