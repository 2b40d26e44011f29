"""Config variants of Helion translations that miss their speed target (H200).

    source .devbundle/setup.sh && python -m benchmarks.gpu_config_variants

For the examples below the translation's first config (what the IR carried over) is slower than
its source; this times the translation under nearby configs, against the source, on the same
large inputs as ``benchmarks.gpu_triton_examples`` (fp16, fresh ``randn``, median of
``triton.testing.do_bench``), checking each variant's output against the source first. It
answers: is the gap the carried config, or the code? Prints a table last.
"""

from __future__ import annotations

import importlib.util
import sys

import torch

from benchmarks.common import ROOT, bench, rel_err

F16 = torch.float16


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _cross_entropy_inputs():
    torch.manual_seed(0)
    logits = torch.randn(4096, 50257, device="cuda", dtype=torch.float32).to(F16)
    target = torch.randint(0, 50257, (4096,), device="cuda")
    return logits, target


def cross_entropy_rows() -> list[dict]:
    import helion

    source = _load(ROOT / "examples" / "triton" / "cross_entropy.py", "src_ce")
    golden = _load(ROOT / "examples" / "triton" / "expected_helion" / "cross_entropy.py", "tr_ce")
    args = _cross_entropy_inputs()
    ref = source.cross_entropy(*args)
    t_src = bench(lambda: source.cross_entropy(*args))
    kernel = golden.cross_entropy
    bound = kernel.bind(args)
    rows = []
    for warps in (32, 16, 8):
        for stages in (3, 2, 1):
            for block in (32768, 16384):
                cfg = helion.Config(block_sizes=[block], num_warps=warps, num_stages=stages)
                name = f"block={block} warps={warps} stages={stages}"
                try:
                    fn = bound.compile_config(cfg)
                    err = rel_err(fn(*args), ref)
                    t = bench(lambda fn=fn: fn(*args))
                    rows.append({"variant": name, "err": err, "ms": t, "ratio": t_src / t})
                except Exception as e:  # a config Helion rejects is a row, not a crash
                    rows.append({"variant": name, "error": f"{type(e).__name__}: {e}"[:80]})
                print(rows[-1], flush=True)
    rows.insert(0, {"variant": "triton source", "err": 0.0, "ms": t_src, "ratio": 1.0})
    return rows


def main() -> int:
    rows = cross_entropy_rows()
    print(f"\ncross_entropy 4096x50257 fp16 on {torch.cuda.get_device_name()}")
    print(f"{'variant':40s} {'rel_err':>9s} {'ms':>8s} {'src/var':>8s}")
    for r in rows:
        if "error" in r:
            print(f"{r['variant']:40s} ERROR {r['error']}")
        else:
            print(f"{r['variant']:40s} {r['err']:9.1e} {r['ms']:8.4f} {r['ratio']:8.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
