"""Where the two rows below target come from: cross_entropy (Triton source vs its Helion
translation) and bmm (the original Helion vs its helion -> triton -> helion round trip).

    source .devbundle/setup.sh && python -m benchmarks.gpu_gap_probe [--part ce|bmm]

For each kernel: the median of ``triton.testing.do_bench`` (what the benchmark tables report) and
of ``do_bench_cudagraph`` (kernel time without host overhead), the compiled kernel's registers,
spills and shared memory, and counts of the TTGIR ops that tell pipelining and matrix-unit use.
Then hand-written Triton variants (``benchmarks.probe_kernels``) that flip one difference at a
time between the source's form and Helion's, and Helion config/setting variants of the
translation. Every variant's output is checked against the source first. Generated Helion code
and TTGIR go to ``$OUT/probe_dump.txt``, all rows to ``$OUT/probe.json``; a table last.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from benchmarks.common import ROOT, bench, helion_fn, rel_err

F16 = torch.float16
OUT = Path(os.environ.get("OUT", "/tmp"))
TTGIR_OPS = (
    "ttg.async_copy_global_to_local",
    "ttg.async_wait",
    "ttng.warp_group_dot ",
    "ttng.warp_group_dot_wait",
    "tt.dot ",
    "ttg.local_alloc",
    "ttg.convert_layout",
    "tt.reshape",
    "scf.for",
    "tt.load",
    "arith.select",
)
ROWS: list[dict] = []
DUMP: list[str] = []


def graph_bench(fn: Callable[[], object]) -> float:
    """Median ms of ``fn`` replayed from a CUDA graph (no host overhead between launches)."""
    import triton.testing

    return float(triton.testing.do_bench_cudagraph(fn, rep=200, return_mode="median"))


def compiled_kernels(jit) -> list:
    """The compiled kernels a Triton JITFunction holds (one per specialisation)."""
    caches = getattr(jit, "device_caches", None)
    found = []
    if caches:
        for entry in caches.values():
            found.extend(entry[0].values())
    return found


def facts(jit) -> dict:
    """Registers, spills, shared memory and TTGIR op counts of ``jit``'s last compiled kernel."""
    kernels = compiled_kernels(jit)
    if not kernels:
        return {}
    k = kernels[-1]
    ttgir = k.asm.get("ttgir", "")
    md = k.metadata
    out = {
        "regs": getattr(k, "n_regs", None),
        "spills": getattr(k, "n_spills", None),
        "smem": getattr(md, "shared", None),
        "warps": getattr(md, "num_warps", None),
        "stages": getattr(md, "num_stages", None),
    }
    out["ops"] = {op.strip(): ttgir.count(op) for op in TTGIR_OPS if ttgir.count(op)}
    DUMP.append(f"===== TTGIR {jit.__name__} {out}\n{ttgir}")
    return out


def helion_jits(fn) -> list:
    """The Triton kernels a compiled Helion callable launches (found through its globals)."""
    from triton.runtime.jit import JITFunction

    scope = getattr(fn, "__globals__", None) or {}
    return [v for k, v in scope.items() if isinstance(v, JITFunction) and k.startswith("_helion")]


def row(part: str, name: str, run: Callable[[], Any], ref, jits: Callable[[], list]) -> None:
    """Check ``run`` against ``ref``, time it both ways, record facts of its kernels."""
    r: dict = {"part": part, "variant": name}
    try:
        out = run()
        torch.cuda.synchronize()
        r["err"] = rel_err(out, ref)
        r["ms"] = bench(run)
        try:
            r["graph_ms"] = graph_bench(run)
        except Exception as e:  # noqa: BLE001 - a capture failure is a note, not a crash
            r["graph_note"] = f"{type(e).__name__}: {e}"[:100]
        ks = jits()
        if ks:
            r["facts"] = facts(ks[0])
    except Exception as e:  # noqa: BLE001 - a variant that fails is a row
        r["error"] = f"{type(e).__name__}: {e}"[:200]
        DUMP.append(f"===== ERROR {part} {name}\n{traceback.format_exc()}")
    ROWS.append(r)
    print(json.dumps(r), flush=True)


def _load(path: Path, role: str):
    from validation.runners import load_module

    return load_module(path, role)


def _rebuild(kernel, config, **settings):
    """``kernel``'s function under another config and settings."""
    import helion

    base = {"fast_math": kernel.settings.fast_math, "static_shapes": kernel.settings.static_shapes}
    base.update(settings)
    return helion.kernel(kernel.fn, config=config, **base)


# --- cross entropy ----------------------------------------------------------------------------


def probe_cross_entropy() -> None:
    import helion

    from benchmarks import probe_kernels as pk
    from benchmarks.gpu_triton_examples import Gen, _cross_entropy_inputs

    torch.manual_seed(2)
    logits, target, ignore = _cross_entropy_inputs(Gen("cuda", F16), (4096, 50257))
    args = (logits, target, ignore)
    source = _load(ROOT / "examples/triton/cross_entropy.py", "probe_src")
    ref = source.cross_entropy(*args)
    row(
        "ce",
        "triton source",
        lambda: source.cross_entropy(*args),
        ref,
        lambda: [source.cross_entropy_forward_kernel],
    )

    golden = _load(ROOT / "examples/triton/expected_helion/cross_entropy.py", "probe_golden")
    kernel = golden.cross_entropy
    cfg = kernel.configs[0]
    DUMP.append(f"===== HELION CODE cross_entropy\n{kernel.bind(args).to_triton_code(cfg)}")

    def helion_row(name: str, k) -> None:
        try:
            fn = helion_fn(k, args)
        except Exception as e:  # noqa: BLE001
            ROWS.append({"part": "ce", "variant": name, "error": f"{type(e).__name__}: {e}"[:200]})
            print(json.dumps(ROWS[-1]), flush=True)
            return
        row("ce", name, lambda: fn(*args), ref, lambda: helion_jits(fn))

    helion_row("helion as translated", kernel)
    helion_row("helion static_shapes=False", _rebuild(kernel, cfg, static_shapes=False))
    helion_row("helion fast_math=False", _rebuild(kernel, cfg, fast_math=False))
    for extra in (
        {"num_stages": 1},
        {"indexing": "block_ptr"},
        {"load_eviction_policies": ["", "", "first"]},
    ):
        c = helion.Config(**{**dict(cfg), **extra})
        helion_row(f"helion {extra}", _rebuild(kernel, c))
    variant = _rebuild(kernel, cfg, static_shapes=False)
    DUMP.append(
        f"===== HELION CODE cross_entropy static_shapes=False\n"
        f"{variant.bind(args).to_triton_code(cfg)}"
    )

    n_rows, v = logits.shape
    src_flags = {"WHERE_MASK": 0, "NAN_MAX": 0, "INT64": 1, "IF_ELSE": 0, "STATIC": 0}
    helion_flags = {"WHERE_MASK": 1, "NAN_MAX": 1, "INT64": 0, "IF_ELSE": 1, "STATIC": 1}

    def launch(flags: dict, stages: int = 3) -> torch.Tensor:
        loss = torch.empty(n_rows, dtype=torch.float32, device="cuda")
        pk.cross_entropy_variant[(n_rows,)](
            logits,
            logits.stride(0),
            target,
            loss,
            v,
            ignore,
            N_COLS=v,
            STRIDE=logits.stride(0),
            BLOCK_SIZE=32768,
            num_warps=32,
            num_stages=stages,
            **flags,
        )
        return loss

    variants = [("T: source form", src_flags, 3), ("T: helion form", helion_flags, 3)]
    for key in src_flags:
        variants.append((f"T: source, {key} flipped", {**src_flags, key: 1 - src_flags[key]}, 3))
    for key in helion_flags:
        variants.append(
            (f"T: helion, {key} flipped", {**helion_flags, key: 1 - helion_flags[key]}, 3)
        )
    variants += [
        ("T: source form, 1 stage", src_flags, 1),
        ("T: helion form, 1 stage", helion_flags, 1),
    ]
    for name, flags, stages in variants:
        row(
            "ce",
            name,
            lambda f=flags, s=stages: launch(f, s),
            ref,
            lambda: [pk.cross_entropy_variant],
        )


# --- Helion indexing settings across the Triton examples -------------------------------------

INT64_SOURCES = ("attention", "cross_entropy", "embedding", "rms_norm", "swiglu")
BLOCK_PTR_ROWS = ("add", "geglu", "heuristics", "layer_norm", "row_sum", "softmax")


def probe_indexing() -> None:
    """Helion translations of Triton examples under ``index_dtype=torch.int64`` (examples whose
    source computes offsets in int64) and ``indexing="block_ptr"`` (row kernels), against the
    translation as checked in and the source; plus the CE kernel with Helion's flat addressing."""
    from benchmarks.gpu_triton_examples import TRITON_CASES

    for name in (*INT64_SOURCES, *BLOCK_PTR_ROWS):
        _indexing_example(name, TRITON_CASES[name])


def _indexing_example(name: str, case) -> None:
    import helion

    from benchmarks import probe_kernels as pk
    from benchmarks.gpu_triton_examples import Gen
    from validation.runners import pin_first_configs

    torch.manual_seed(2)
    args = case.build(Gen("cuda", F16), case.large)
    source = _load(ROOT / f"examples/triton/{name}.py", f"ix_src_{name}")
    pin_first_configs(source)
    src_fn = getattr(source, name)
    ref = outputs_first(src_fn(*args))
    row(name, "triton source", lambda f=src_fn: outputs_first(f(*args)), ref, lambda: [])
    kernel = getattr(_load(ROOT / f"examples/triton/expected_helion/{name}.py", "ix_g"), name)
    cfg = kernel.configs[0]
    variants = [("helion as translated", kernel)]
    if name in INT64_SOURCES:
        variants.append(
            ("helion index_dtype=int64", _rebuild(kernel, cfg, index_dtype=torch.int64))
        )
    else:
        c = helion.Config(**{**dict(cfg), "indexing": "block_ptr"})
        variants.append(("helion indexing=block_ptr", _rebuild(kernel, c)))
    if name == "cross_entropy":
        c = helion.Config(**{**dict(cfg), "indexing": "block_ptr"})
        variants.append(("helion indexing=block_ptr", _rebuild(kernel, c)))
        variants.append(("helion block_ptr + int64", _rebuild(kernel, c, index_dtype=torch.int64)))
    for label, k in variants:
        try:
            fn = helion_fn(k, args)
        except Exception as e:  # noqa: BLE001
            ROWS.append({"part": name, "variant": label, "error": f"{e}"[:200]})
            print(json.dumps(ROWS[-1]), flush=True)
            continue
        row(
            name,
            label,
            lambda fn=fn: outputs_first(fn(*args)),
            ref,
            lambda fn=fn: helion_jits(fn),
        )
    if name == "cross_entropy":
        logits, target, ignore = args
        n_rows, v = logits.shape
        flags = {"WHERE_MASK": 1, "NAN_MAX": 1, "INT64": 0, "IF_ELSE": 1, "STATIC": 1}
        for flat, int64 in ((1, 0), (1, 1), (0, 0)):

            def launch(flat=flat, int64=int64) -> torch.Tensor:
                loss = torch.empty(n_rows, dtype=torch.float32, device="cuda")
                pk.cross_entropy_variant[(n_rows,)](
                    logits,
                    logits.stride(0),
                    target,
                    loss,
                    v,
                    ignore,
                    N_COLS=v,
                    STRIDE=logits.stride(0),
                    BLOCK_SIZE=32768,
                    num_warps=32,
                    num_stages=3,
                    **{**flags, "INT64": int64},
                    FLAT_ADDR=flat,
                )
                return loss

            row(
                name,
                f"T: helion form FLAT_ADDR={flat} INT64={int64}",
                launch,
                ref,
                lambda: [pk.cross_entropy_variant],
            )


def outputs_first(value):
    """The first output of a kernel (the one the tables compare)."""
    return value[0] if isinstance(value, tuple) else value


# --- bmm --------------------------------------------------------------------------------------


def probe_bmm() -> None:
    import helion

    from benchmarks import probe_kernels as pk
    from translator.api import translate_file

    torch.manual_seed(2)
    a = torch.randn(16, 1024, 1024, device="cuda").to(F16)
    c = torch.randn(16, 1024, 1024, device="cuda").to(F16)
    args = (a, c)
    ref = torch.bmm(a, c)
    original = _load(ROOT / "examples/helion/bmm.py", "probe_bmm_orig").bmm
    text = translate_file(ROOT / "examples/helion/expected_triton/bmm.py", "triton", "helion")
    path = OUT / "bmm_roundtrip.py"
    path.write_text(text)
    roundtrip = _load(path, "probe_bmm_rt").bmm
    row("bmm", "torch.bmm (cuBLAS)", lambda: torch.bmm(a, c), ref, lambda: [])
    for name, k in (("helion original", original), ("helion round trip", roundtrip)):
        cfg = k.configs[0]
        DUMP.append(f"===== HELION CODE bmm {name}\n{k.bind(args).to_triton_code(cfg)}")
        for stages in (cfg.num_stages, 3, 2):
            c2 = helion.Config(**{**dict(cfg), "num_stages": stages})
            label = f"{name} stages={stages}"
            try:
                fn = helion_fn(_rebuild(k, c2), args)
            except Exception as e:  # noqa: BLE001
                ROWS.append({"part": "bmm", "variant": label, "error": f"{e}"[:200]})
                continue
            row("bmm", label, lambda fn=fn: fn(*args), ref, lambda fn=fn: helion_jits(fn))

    b, m, k_, n = 16, 1024, 1024, 1024

    def launch(three_d: int, stages: int, warps: int = 4) -> torch.Tensor:
        out = torch.empty(b, m, n, dtype=F16, device="cuda")
        grid = (b * triton_cdiv(m, 128) * triton_cdiv(n, 128),)
        pk.bmm_variant[grid](
            a,
            c,
            out,
            B=b,
            M=m,
            N=n,
            K=k_,
            BLOCK_M=128,
            BLOCK_N=128,
            BLOCK_K=64,
            THREE_D=three_d,
            num_warps=warps,
            num_stages=stages,
        )
        return out

    for three_d in (1, 0):
        for stages in (4, 3, 2, 1):
            label = f"T: {'3-D' if three_d else '2-D'} stages={stages}"
            row(
                "bmm",
                label,
                lambda t=three_d, s=stages: launch(t, s),
                ref,
                lambda: [pk.bmm_variant],
            )


def triton_cdiv(x: int, y: int) -> int:
    return (x + y - 1) // y


def _table() -> list[str]:
    lines = [f"device={torch.cuda.get_device_name()} torch={torch.__version__}"]
    import triton

    lines[0] += f" triton={triton.__version__}"
    try:
        import helion

        lines[0] += f" helion={helion.__version__}"
    except Exception:  # noqa: BLE001
        pass
    lines.append(
        f"{'part':13s} {'variant':36s} {'err':>8s} {'ms':>8s} {'graph':>8s} "
        f"{'regs':>5s} {'spill':>5s} {'smem':>7s}  ops"
    )
    for r in ROWS:
        if "error" in r:
            lines.append(f"{r['part'][:13]:13s} {r['variant'][:36]:36s} ERROR {r['error'][:90]}")
            continue
        f = r.get("facts", {})
        ops = " ".join(f"{k.split('.')[-1]}={v}" for k, v in f.get("ops", {}).items())
        lines.append(
            f"{r['part'][:13]:13s} {r['variant'][:36]:36s} {r['err']:8.1e} {r['ms']:8.4f} "
            f"{r.get('graph_ms', float('nan')):8.4f} {str(f.get('regs', '-')):>5s} "
            f"{str(f.get('spills', '-')):>5s} {str(f.get('smem', '-')):>7s}  {ops}"
        )
    return lines


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("ce", "bmm", "indexing"), action="append")
    opts = parser.parse_args(argv)
    parts = opts.part or ["ce", "bmm"]
    for part in parts:
        try:
            {"ce": probe_cross_entropy, "bmm": probe_bmm, "indexing": probe_indexing}[part]()
        except Exception:  # noqa: BLE001 - keep the other part's rows
            traceback.print_exc()
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "probe.json").write_text(json.dumps(ROWS, indent=1))
    (OUT / "probe_dump.txt").write_text("\n\n".join(DUMP))
    print("\n".join(_table()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
