"""Each config of a cuTile translation's search at each ``occupancy`` hint, timed (`cutile` bundle).

    python -m benchmarks.gpu_cutile_occupancy [--only NAME ...] [--occupancy 1 2 4]

The first H200 run of the cuTile translations (BENCHMARKS.md, 2026-12-06 evening) left the
memory-bound row and element-wise kernels well below their Triton sources (layer norm 0.62, rms
norm 0.74, SwiGLU 0.57), where on the H100 they had been at 0.91-1.06: the sources got faster with
the H200's bandwidth and the translations did not. cuTile's ``occupancy`` hint (blocks per SM the
compiler budgets registers for; default 1) is the knob a cuTile engineer reaches for there. For
each translation below, every config its ``ct.tune.exhaustive_search`` would try is launched at
each occupancy (the translation's own launch, with the search answered by that config and the
kernel swapped for its ``replace_hints(occupancy=...)`` variant) and timed with
``triton.testing.do_bench`` (median; warm-up 25 ms, 100 ms of runs, inputs larger than L2, fresh
``randn``), beside the source (Triton autotuned kernels at their first config, as in
``benchmarks.gpu_cutile``). Each variant is first compared with the source on those inputs.

Prints one JSON line per translation, writes ``$OUT/gpu_cutile_occupancy.json``, then a table:
the source, the best config at occupancy 1 (what the backend searches today) and the best at
any occupancy, with their ratios (source ms / translation ms).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import torch

from benchmarks.common import ROOT, outputs, rel_err
from benchmarks.gpu_cutile import _entry, _load, _pin
from benchmarks.gpu_triton_examples import TRITON_CASES, Gen

F16 = torch.float16

#: (source folder, example): the translations below 0.95 of their source in the H200 run.
CASES = [
    ("triton", "layer_norm"),
    ("triton", "rms_norm"),
    ("triton", "swiglu"),
    ("triton", "geglu"),
    ("triton", "heuristics"),
    ("triton", "softmax"),
    ("helion", "layer_norm"),
    ("helion", "rms_norm"),
    ("helion", "softmax"),
    ("helion", "silu"),
    ("helion", "cross_entropy"),
    ("helion", "row_mean"),
]


class Steer:
    """Answers the translation's searches with one config and launches one occupancy."""

    def __init__(self) -> None:
        import cuda.tile as ct

        self.ct = ct
        self.real_launch = ct.launch
        self.real_search = ct.tune.exhaustive_search
        self.config: dict | None = None
        self.occupancy = 1
        self.spaces: list[list[dict]] = []
        self.variants: dict[tuple[int, int], object] = {}

    def search(self, space, stream, grid_fn, kernel, args_fn, *a, **kw):  # noqa: ANN001, ANN201
        if not self.spaces or self.spaces[-1] != list(space):
            self.spaces.append(list(space))
        config = self.config if self.config is not None else space[0]
        return SimpleNamespace(best=SimpleNamespace(config=config))

    def launch(self, stream, grid, kernel, args):  # noqa: ANN001, ANN201
        key = (id(kernel), self.occupancy)
        if self.occupancy != 1 and key not in self.variants:
            self.variants[key] = kernel.replace_hints(occupancy=self.occupancy)
        return self.real_launch(stream, grid, self.variants.get(key, kernel), args)

    def __enter__(self) -> Steer:
        self.ct.tune.exhaustive_search = self.search
        self.ct.launch = self.launch
        return self

    def __exit__(self, *exc: object) -> None:
        self.ct.launch = self.real_launch
        self.ct.tune.exhaustive_search = self.real_search


def _clear_caches(module) -> None:
    for name, value in vars(module).items():
        if name.endswith("_best") and isinstance(value, dict):
            value.clear()


def _bench(fn: Callable[[], object]) -> float:
    import triton.testing

    return float(triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="median"))


def _inputs(source: str, name: str) -> tuple:
    torch.manual_seed(2)
    if source == "triton":
        case = TRITON_CASES[name]
        return case.build(Gen("cuda", F16), case.large)
    from benchmarks.gpu_examples import CASES as HELION_CASES

    return HELION_CASES[name][1]()


def run(source: str, name: str, occupancies: list[int]) -> dict:
    tr_mod = _load(
        ROOT / f"examples/{source}/expected_cutile" / f"{name}.py", f"occ_{source}_{name}"
    )
    tr = _entry(tr_mod, name)
    # The source: the Triton example, or (Helion does not run here) the Triton translation of
    # the Helion example, as benchmarks.gpu_cutile's helion part compares.
    folder = "examples/triton" if source == "triton" else "examples/helion/expected_triton"
    src_mod = _load(ROOT / folder / f"{name}.py", f"occ_src_{source}_{name}")
    _pin(src_mod)
    src = _entry(src_mod, name)
    args = _inputs(source, name)
    want = outputs(src(*args))
    torch.cuda.synchronize()
    src_ms = _bench(lambda: src(*args))
    timings = []
    with Steer() as steer:
        _clear_caches(tr_mod)
        tr(*args)  # records the search space (answered with its first config)
        space = steer.spaces[0] if steer.spaces else [None]
        for config in space:
            for occ in occupancies:
                steer.config, steer.occupancy = config, occ
                _clear_caches(tr_mod)
                got = outputs(tr(*args))
                torch.cuda.synchronize()
                err = max(rel_err(g, w) for g, w in zip(got, want))
                ms = _bench(lambda: tr(*args)) if err <= 1e-2 else None
                timings.append({"config": config, "occupancy": occ, "err": err, "ms": ms})
    ok = [t for t in timings if t["ms"] is not None]
    at_one = min((t for t in ok if t["occupancy"] == 1), key=lambda t: t["ms"], default=None)
    best = min(ok, key=lambda t: t["ms"], default=None)
    return {
        "source": source,
        "name": name,
        "src_ms": src_ms,
        "best_occ1": at_one,
        "best": best,
        "ratio_occ1": src_ms / at_one["ms"] if at_one else None,
        "ratio_best": src_ms / best["ms"] if best else None,
        "timings": timings,
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=None)
    parser.add_argument("--occupancy", nargs="*", type=int, default=[1, 2, 4, 8])
    parser.add_argument("--shard", default="1/1", help="I/N (benchmarks.warm_shards)")
    opts = parser.parse_args(argv)
    first, every = (int(p) for p in opts.shard.split("/"))
    cases = [c for c in CASES if not opts.only or c[1] in opts.only or "/".join(c) in opts.only]
    rows = []
    for source, name in cases[first - 1 :: every]:
        t0 = time.time()
        try:
            row = run(source, name, opts.occupancy)
        except Exception as err:  # one failing example must not hide the others
            row = {"source": source, "name": name, "error": f"{type(err).__name__}: {err}"[:300]}
            traceback.print_exc()
        row["wall_s"] = round(time.time() - t0, 1)
        rows.append(row)
        print(json.dumps({k: v for k, v in row.items() if k != "timings"}, default=str), flush=True)
    out = Path(os.environ.get("OUT", "/tmp")) / "gpu_cutile_occupancy.json"
    env = {"device": torch.cuda.get_device_name(), "torch": torch.__version__}
    out.write_text(json.dumps({"env": env, "rows": rows}, default=str))
    print()
    print(" | ".join(f"{k}={v}" for k, v in env.items()))
    print(f"{'example':20s} {'src ms':>8s} {'occ=1 ms':>9s} {'ratio':>6s} {'best ms':>8s} "
          f"{'ratio':>6s}  best config")  # fmt: skip
    for r in rows:
        label = f"{r['source']}/{r['name']}"
        if "error" in r:
            print(f"{label:20s} ERROR {r['error'][:90]}")
            continue
        one, best = r["best_occ1"], r["best"]
        if one is None or best is None:
            print(f"{label:20s} no variant equal to the source")
            continue
        print(
            f"{label:20s} {r['src_ms']:8.4f} {one['ms']:9.4f} {r['ratio_occ1']:6.3f} "
            f"{best['ms']:8.4f} {r['ratio_best']:6.3f}  occ={best['occupancy']} {best['config']}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
