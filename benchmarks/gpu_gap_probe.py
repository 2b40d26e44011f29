"""Where the rows below target come from: cross_entropy (Triton source vs its Helion
translation), bmm (the original Helion vs its helion -> triton -> helion round trip), and the
library corpus's log-softmax and seeded dropout (Triton sources vs their Helion translations),
and its layer-norm backward (a Helion source vs its Triton translation).

    source .devbundle/setup.sh && python -m benchmarks.gpu_gap_probe [--part ce|bmm|indexing|library|lnbwd|static]

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


# --- library rows below 0.85 on 2026-12-05 (H100): log-softmax's looped kernel, seeded dropout ---


def probe_library() -> None:
    """``log_softmax_forward`` (Triton source vs its Helion translation, 0.43x) and seeded
    dropout (0.14x): the Helion code the translation compiles to, launched as plain Triton
    (Helion's code against Helion's runtime), and one setting at a time."""
    _probe_log_softmax()
    _probe_dropout()


def _generated(kernel, args: tuple, cfg, name: str):
    """The Triton module Helion generates for ``kernel`` at ``cfg``, written out and imported."""
    code = kernel.bind(args).to_triton_code(cfg)
    DUMP.append(f"===== HELION CODE {name}\n{code}")
    path = OUT / f"{name}_generated.py"
    OUT.mkdir(parents=True, exist_ok=True)
    path.write_text(code)
    return _load(path, f"gen_{name}")


def _launch_generated(module, jit_name: str, grid: tuple, named: dict, cfg) -> Callable[[], None]:
    """Launch the generated ``@triton.jit`` directly (no Helion launcher), arguments by name."""
    jit = getattr(module, jit_name)
    ordered = [named[a] for a in jit.arg_names if a in named]
    warps, stages = cfg.get("num_warps", 4), cfg.get("num_stages", 1)

    def run() -> None:
        jit[grid](*ordered, num_warps=warps, num_stages=stages)

    return run


def _probe_log_softmax() -> None:
    import helion

    torch.manual_seed(3)
    x = torch.randn(8192, 8200, device="cuda").to(F16)  # rows past MAX_ONE_PASS: the looped kernel
    source = _load(ROOT / "examples/library/triton/log_softmax.py", "lsm_src")
    golden = _load(ROOT / "examples/library/triton/expected_helion/log_softmax.py", "lsm_tr")
    ref = source.log_softmax_forward(x)
    row("lsm", "triton source", lambda: source.log_softmax_forward(x), ref, lambda: [])
    row("lsm", "helion as translated", lambda: golden.log_softmax_forward(x), ref, lambda: [])
    kernel = golden.log_softmax_looped_kernel
    cfg = kernel.configs[0]
    m, n = x.shape
    out = torch.empty_like(x)
    args = (out, x, n)

    def src_kernel(warps: int = 16, stages: int = 3) -> torch.Tensor:
        o = torch.empty_like(x)
        source.log_softmax_looped_kernel[(m,)](
            o, x, m, n, BLOCK_N=4096, num_warps=warps, num_stages=stages
        )
        return o

    row(
        "lsm", "T: source kernel alone", src_kernel, ref, lambda: [source.log_softmax_looped_kernel]
    )
    row("lsm", "T: source kernel, 1 stage", lambda: src_kernel(16, 1), ref, lambda: [])
    gen = _generated(kernel, args, cfg, "log_softmax_looped")
    jit_name = next(k for k in vars(gen) if k.startswith("_helion_"))
    launch = _launch_generated(gen, jit_name, (m,), {"input_1": x, "output": out, "N": n}, cfg)

    def gen_run() -> torch.Tensor:
        launch()
        return out

    row("lsm", "T: helion's code, plain launch", gen_run, ref, lambda: [getattr(gen, jit_name)])
    for label, k in (
        ("helion kernel alone", kernel),
        ("helion num_stages=1", _rebuild(kernel, helion.Config(**{**dict(cfg), "num_stages": 1}))),
        ("helion static_shapes=False", _rebuild(kernel, cfg, static_shapes=False)),
        ("helion fast_math=False", _rebuild(kernel, cfg, fast_math=False)),
    ):
        try:
            fn = helion_fn(k, args)
        except Exception as e:  # noqa: BLE001
            ROWS.append(
                {"part": "lsm", "variant": label, "error": f"{type(e).__name__}: {e}"[:200]}
            )
            continue

        def run(fn=fn) -> torch.Tensor:
            fn(*args)
            return out

        row("lsm", label, run, ref, lambda fn=fn: helion_jits(fn))


def _probe_dropout() -> None:
    # A module global, not a local: Helion refuses a kernel that closes over a name.
    global hl
    import helion
    import helion.language as hl

    torch.manual_seed(4)
    x = torch.randn(3, 8192, 4096, device="cuda").to(F16)
    p, seed = 0.3, 2**33 + 7
    source = _load(ROOT / "examples/library/triton/seeded_dropout.py", "drop_src")
    golden = _load(ROOT / "examples/library/triton/expected_helion/seeded_dropout.py", "drop_tr")
    ref = source.low_mem_dropout(x, p, seed)
    row("dropout", "triton source", lambda: source.low_mem_dropout(x, p, seed), ref, lambda: [])
    row(
        "dropout",
        "helion as translated",
        lambda: golden.low_mem_dropout(x, p, seed),
        ref,
        lambda: [],
    )
    flat = x.view(-1)
    out = torch.empty_like(flat)
    kernel = golden._seeded_dropout_kernel
    cfg = kernel.configs[0]
    code = kernel.bind((flat, out, p, seed)).to_triton_code(cfg)
    DUMP.append(f"===== HELION CODE seeded_dropout\n{code}")

    # The one difference: the draw. hl.rand lowers Philox to int64 tensor arithmetic (16-bit
    # limbs, hundreds of ops per element); Triton's tl.rand is the hardware-friendly uint32 form.
    @helion.kernel(config=cfg, static_shapes=True)
    def tl_rand_dropout(x: torch.Tensor, output: torch.Tensor, p: float, seed: int) -> None:
        for tile in hl.tile(x.size(0)):
            x_tile = x[tile]
            random = hl.inline_triton(
                "tl.rand({0}, {1})", args=(seed, tile.index), output_like=x_tile.to(torch.float32)
            )
            output[tile] = torch.where(random > p, x_tile / (1 - p), 0.0)

    for label, k in (
        ("helion hl.rand (as translated)", kernel),
        ("helion inline tl.rand", tl_rand_dropout),
    ):
        try:
            fn = helion_fn(k, (flat, out, p, seed))
        except Exception as e:  # noqa: BLE001
            ROWS.append(
                {"part": "dropout", "variant": label, "error": f"{type(e).__name__}: {e}"[:200]}
            )
            continue

        def run(fn=fn) -> torch.Tensor:
            fn(flat, out, p, seed)
            return out.view_as(x)

        row("dropout", label, run, ref, lambda fn=fn: helion_jits(fn))


# --- layer norm backward ------------------------------------------------------------------------

#: The Triton golden's whole-row names that stand for ``n`` (one per tensor the source indexes
#: with ``:``), and what an engineer writes for each instead.
_ONE_BLOCK = (
    ("offs_grad_out_size1 = tl.arange(0, BLOCK_GRAD_OUT_SIZE1)\n", ""),
    ("mask_grad_out_size1 = offs_grad_out_size1 < grad_out_size1\n", ""),
    ("offs_weight_size0 = tl.arange(0, BLOCK_WEIGHT_SIZE0)\n", ""),
    ("mask_weight_size0 = offs_weight_size0 < weight_size0\n", ""),
    ("offs_grad_out_size1", "offs_n"),
    ("mask_grad_out_size1", "mask_n"),
    ("offs_weight_size0", "offs_n"),
    ("mask_weight_size0", "mask_n"),
)
_ONE_RSTD = (("rstd_2 = tl.load(rstd_ptr + offs_m * stride_rstd0, mask=mask_m, other=0.0)\n", ""),
             ("rstd_2[:, None]", "rstd[:, None]"))  # fmt: skip


def _edited(text: str, edits: tuple[tuple[str, str], ...], start: str) -> str:
    """``text`` with ``edits`` made after ``start`` (indentation kept); each must apply."""
    head, sep, tail = text.partition(start)
    assert sep, start
    for old, new in edits:
        lines = [ln for ln in tail.splitlines(keepends=True) if ln.strip() == old.strip()]
        if old.endswith("\n"):
            assert lines, old
            for ln in lines:
                tail = tail.replace(ln, new, 1)
        else:
            assert old in tail, old
            tail = tail.replace(old, new)
    return head + sep + tail


def probe_layer_norm_bwd() -> None:
    """``layer_norm_bwd`` (Helion source vs its Triton translation, 0.80-0.87x): the
    translation at each config of its space, with one whole-row block instead of three (one
    per tensor the source indexes with ``:``), and with ``rstd`` loaded once."""
    torch.manual_seed(3)
    inputs = _load(ROOT / "examples/library/inputs.py", "lnb_inputs")
    inputs.M, inputs.N = 8192, 4096
    args = inputs.inputs("layer_norm_bwd", "cuda", "float16")
    source = _load(ROOT / "examples/library/helion/layer_norm_grad.py", "lnb_src")
    golden_path = ROOT / "examples/library/helion/expected_triton/layer_norm_grad.py"
    golden = _load(golden_path, "lnb_tr")
    ref = source.layer_norm_bwd(*args)
    fn = helion_fn(source.layer_norm_bwd, args)
    row("lnbwd", "helion source (default config)", lambda: fn(*args), ref,
        lambda: helion_jits(fn))  # fmt: skip
    start = "def _layer_norm_bwd_kernel("
    variants = {
        "T": golden,
        "T one BLOCK_N": _edited(golden_path.read_text(), _ONE_BLOCK, start),
        "T one BLOCK_N, one rstd": _edited(golden_path.read_text(), _ONE_BLOCK + _ONE_RSTD, start),
    }
    for label, module in variants.items():
        if isinstance(module, str):
            path = OUT / f"lnbwd_{len(label)}.py"
            OUT.mkdir(parents=True, exist_ok=True)
            path.write_text(module)
            module = _load(path, f"lnb_{len(label)}")
        tuner = module._layer_norm_bwd_kernel
        configs = list(tuner.configs)
        for i, cfg in enumerate(configs if label == "T" else configs[:3]):
            tuner.configs = [cfg]
            tuner.cache.clear()
            kw = ",".join(f"{k}={v}" for k, v in cfg.kwargs.items())
            row("lnbwd", f"{label} [{i}] {kw} w{cfg.num_warps}",
                lambda m=module: m.layer_norm_bwd(*args), ref, lambda t=tuner: [t.fn])  # fmt: skip
        tuner.configs = configs


# --- Helion's static shapes against the translation's runtime sizes ---------------------------


def _constexpr_params(text: str, kernel: str, names: tuple[str, ...]) -> str:
    """``text`` with ``names`` made ``tl.constexpr`` in ``kernel``'s parameter list only."""
    head, sep, tail = text.partition(f"def {kernel}(")
    assert sep, kernel
    params, close, rest = tail.partition("):")
    for name in names:
        assert f"    {name},\n" in params, name
        params = params.replace(f"    {name},\n", f"    {name}: tl.constexpr,\n", 1)
    return head + sep + params + close + rest


_STATIC_CASES = (
    # (library module, public function, kernel, size parameters)
    ("layer_norm", "layer_norm_fwd", "_layer_norm_fwd_kernel", ("m", "n")),
    ("layer_norm_grad", "layer_norm_bwd", "_layer_norm_bwd_kernel", ("m", "n")),
    ("matmul", "matmul", "_matmul_kernel", ("m", "k", "n")),
)


def probe_static_shapes() -> None:
    """Helion sources at ``static_shapes=True`` (every size a compile-time constant, so whole-dim
    tiles carry no masks) against their Triton translations, whose sizes are runtime values:
    the translation as emitted (first config), and with its size parameters made
    ``tl.constexpr`` (one compile per shape, as Helion does), one variant per size set."""
    inputs = _load(ROOT / "examples/library/inputs.py", "st_inputs")
    inputs.M, inputs.N = 8192, 4096
    for module, entry, kernel, sizes in _STATIC_CASES:
        torch.manual_seed(3)
        args = inputs.inputs(entry, "cuda", "float16")
        source = _load(ROOT / f"examples/library/helion/{module}.py", f"st_src_{module}")
        golden_path = ROOT / f"examples/library/helion/expected_triton/{module}.py"
        ref = getattr(source, entry)(*args)
        fn = helion_fn(getattr(source, entry), args)
        row("static", f"{module}: helion (default config)", lambda fn=fn, a=args: fn(*a), ref,
            lambda fn=fn: helion_jits(fn))  # fmt: skip
        variants = {"as emitted": golden_path.read_text()}
        for cut in (sizes[-1:], sizes):
            label = "constexpr " + ",".join(cut)
            variants[label] = _constexpr_params(golden_path.read_text(), kernel, cut)
        for label, text in variants.items():
            slug = label.replace(" ", "_").replace(",", "_")
            path = OUT / f"static_{module}_{slug}.py"
            OUT.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            mod = _load(path, f"st_{module}_{slug}")
            tuner = getattr(mod, kernel)
            if hasattr(tuner, "configs"):
                tuner.configs = list(tuner.configs)[:1]
            jit = getattr(tuner, "fn", tuner)
            call = getattr(mod, entry)
            row("static", f"{module}: T {label}", lambda c=call, a=args: c(*a), ref,
                lambda j=jit: [j])  # fmt: skip


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
    parser.add_argument(
        "--part",
        choices=("ce", "bmm", "indexing", "library", "lnbwd", "static"),
        action="append",
    )
    opts = parser.parse_args(argv)
    parts = opts.part or ["ce", "bmm"]
    for part in parts:
        try:
            {
                "ce": probe_cross_entropy,
                "bmm": probe_bmm,
                "indexing": probe_indexing,
                "library": probe_library,
                "lnbwd": probe_layer_norm_bwd,
                "static": probe_static_shapes,
            }[part]()
        except Exception:  # noqa: BLE001 - keep the other part's rows
            traceback.print_exc()
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "probe.json").write_text(json.dumps(ROWS, indent=1))
    (OUT / "probe_dump.txt").write_text("\n\n".join(DUMP))
    print("\n".join(_table()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
