"""Each config of the TileLang GEMM translations' autotune spaces, timed alone (fp16 4096^3).

    source .devbundle/setup.sh && python -m benchmarks.gpu_tilelang_gemm_configs

Which config a translation's search should pick, and what each is worth, beside the
hand-written kernel of ``benchmarks.gpu_tilelang`` (its ``gemm`` part): the factory is called
with one config's values at a time (the ``@tilelang.autotune`` decorator taken off), through
the translation's own host function. Prints one line per config.
"""

from __future__ import annotations

import ast
import functools
import os
from pathlib import Path

import torch

from benchmarks.common import ROOT, bench
from validation.runners import load_module

GOLDENS = {
    "triton": ROOT / "examples/triton/expected_tilelang/matmul.py",
    "helion": ROOT / "examples/helion/expected_tilelang/matmul.py",
}


def _configs_and_untuned(path: Path) -> tuple[list[dict], str, str]:
    """The autotune configs, the source without the decorator, and the factory's name."""
    text = path.read_text()
    tree = ast.parse(text)
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        for d in node.decorator_list:
            if isinstance(d, ast.Call) and getattr(d.func, "attr", "") == "autotune":
                configs = next(k.value for k in d.keywords if k.arg == "configs")
                lines = text.splitlines(keepends=True)
                start, end = d.lineno - 1, d.end_lineno
                untuned = "".join(lines[:start] + ["\n"] * (end - start) + lines[end:])
                return ast.literal_eval(configs), untuned, node.name
    raise ValueError(f"{path}: no autotuned factory")


def main() -> None:
    out = Path(os.environ.get("OUT", "/tmp"))
    torch.manual_seed(3)
    a = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
    b = torch.randn(4096, 4096, device="cuda", dtype=torch.float16)
    ref = a @ b
    flops = 2 * 4096**3
    for part, path in GOLDENS.items():
        configs, untuned, factory = _configs_and_untuned(path)
        file = out / f"{part}_untuned_matmul.py"
        file.write_text(untuned)
        module = load_module(file, f"{part}_untuned")
        original = getattr(module, factory)
        for i, config in enumerate(configs):
            setattr(module, factory, functools.partial(original, **config))
            try:
                c = module.matmul(a, b)
                err = ((c.float() - ref.float()).norm() / ref.float().norm()).item()
                ms = bench(lambda m=module: m.matmul(a, b))
                print(f"{part} [{i}] {config} {flops / ms / 1e9:.0f} TFLOP/s err {err:.1e}")
            except Exception as exc:  # a config that does not compile: say so, go on
                print(f"{part} [{i}] {config} error {type(exc).__name__}: {str(exc)[:120]}")
        setattr(module, factory, original)
    # The search as emitted, and with the inputs it times on drawn from randn (TileLang's
    # `Auto` supply draws fp16 integers in [-2, 2]): which config each picks, and its speed.
    for part, path in GOLDENS.items():
        for label, text in (
            ("as emitted", path.read_text()),
            (
                "Randn supply",
                path.read_text().replace(
                    "@tilelang.autotune(\n",
                    "@tilelang.autotune(\n    supply_type=tilelang.TensorSupplyType.Randn,\n",
                    1,
                ),
            ),
        ):
            file = out / f"{part}_search_{label.replace(' ', '_')}.py"
            file.write_text(text)
            module = load_module(file, f"{part}_search")
            module.matmul(a, b)  # searches
            name = next(n for n in dir(module) if n.endswith("matmul_kernel"))
            memoized = getattr(module, name)
            # `@functools.cache` above `@tilelang.autotune`: the autotuner itself beneath it.
            tuned = getattr(memoized, "__wrapped__", memoized)
            picked = [config for _, config in tuned._tuner_cache.values()]
            ms = bench(lambda m=module: m.matmul(a, b))
            print(f"{part} search ({label}): picked {picked} {flops / ms / 1e9:.0f} TFLOP/s")
            if tuned is memoized:
                continue
            # The same tuned kernel through the autotuner's own per-call lookup (the host code
            # as emitted before the memo), and called directly: the host cost of the lookup.
            setattr(module, name, tuned)
            ms_lookup = bench(lambda m=module: m.matmul(a, b))
            setattr(module, name, memoized)
            kernel = next(k for k, _ in tuned._tuner_cache.values())
            c = torch.empty_like(ref)
            ms_direct = bench(lambda k=kernel, c=c: k(a, b, c))
            print(
                f"{part} search ({label}): through tilelang.autotune's lookup each call "
                f"{flops / ms_lookup / 1e9:.0f} TFLOP/s; the tuned kernel called directly "
                f"{flops / ms_direct / 1e9:.0f} TFLOP/s"
            )


if __name__ == "__main__":
    main()
