"""Tests of the validation package: relations, inputs, poison, compare, and check_pair end to end.

Kernels run on the CPU in the Triton interpreter, which must be enabled before triton is imported.
"""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path

os.environ["TRITON_INTERPRET"] = "1"
os.environ.pop("HELION_INTERPRET", None)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pytest  # noqa: E402
import torch  # noqa: E402

from translator.api import parse_file, translate_file  # noqa: E402
from translator.ir.outline import inline_launches  # noqa: E402
from validation.bench import BenchUnavailable, bench_pair, bench_sizes  # noqa: E402
from validation.compare import compare, rel_error, tolerance  # noqa: E402
from validation.equivalence import check_pair  # noqa: E402
from validation.inputs import class_sizes, synthesize  # noqa: E402
from validation.poison import poisoned_allocations  # noqa: E402
from validation.relations import derive  # noqa: E402
from validation.runners import get_entry, load_module  # noqa: E402

EXAMPLES = ROOT / "examples" / "helion"
DATA = ROOT / "tests" / "data"


def entry_of(name: str):
    """The first host function of example ``name``, its kernels written in place."""
    module = parse_file(EXAMPLES / f"{name}.py", "helion")
    return inline_launches(module.entries[0], {k.name: k for k in module.kernels})


def translated(name: str, tmp_path: Path, edit=None) -> Path:
    """The translation of example ``name`` written under ``tmp_path`` (optionally edited)."""
    text = translate_file(EXAMPLES / f"{name}.py", "helion", "triton")
    if edit is not None:
        edited = edit(text)
        assert edited != text, "the edit did not apply; update the test to the emitted text"
        text = edited
    out = tmp_path / f"{name}_triton.py"
    out.write_text(text)
    return out


# --- relations


def test_matmul_contraction_dims_are_one_class():
    rel = derive(entry_of("matmul"))
    assert rel.ranks == {"x": 2, "y": 2}
    assert rel.same(("x", 1), ("y", 0))
    assert not rel.same(("x", 0), ("y", 1))
    assert [c.name for c in rel.classes] == ["m", "k", "n"]
    assert rel.has_dot


def test_rms_norm_weight_matches_row_length():
    rel = derive(entry_of("rms_norm"))
    assert rel.same(("weight", 0), ("x", 1))
    assert not rel.same(("weight", 0), ("x", 0))
    assert rel.size_class("x", 1).uses == {"full"}
    assert rel.scalars == {"eps": 1e-5}


def test_shape_assert_and_dot_relate_attention_inputs():
    rel = derive(entry_of("attention"))
    assert rel.same(("v", 1), ("k", 1))  # from `assert v.shape == k.shape`
    assert rel.same(("q", 2), ("k", 2))
    assert not rel.same(("q", 1), ("k", 1))
    assert "dot" in rel.size_class("q", 2).uses


def test_gather_index_tensor_range():
    rel = derive(entry_of("cross_entropy"))
    (r,) = rel.index_tensors["labels"]
    assert r.use == "gather"
    # logits_flat[row * v + label]: the label picks a column, so it is bounded by v, not n * v.
    shapes = {"logits": (5, 7), "labels": (5,)}
    assert rel.evaluate(r.bound, shapes) == 7


def test_one_hot_compare_marks_index_tensor():
    rel = derive(entry_of("cross_entropy_onehot"))
    (r,) = rel.index_tensors["labels"]
    assert r.use == "compare"
    assert rel.evaluate(r.bound, {"logits": (5, 7), "labels": (5,)}) == 7


def test_float_identity_defaults_are_replaced():
    rel = derive(entry_of("scaled_add"))
    assert rel.scalars == {"alpha": 0.5}  # the default 1.0 would hide a dropped `alpha *`


# --- inputs


def test_synthesize_gives_consistent_ragged_shapes():
    inputs = synthesize(entry_of("matmul"), "cpu", "float32", seed=0)
    x, y = inputs["x"], inputs["y"]
    assert x.shape[1] == y.shape[0]
    dims = {x.shape[0], x.shape[1], y.shape[1]}
    assert len(dims) == 3 and all(d % 16 for d in dims)
    assert x.dtype == torch.float32 and bool((x != 0).all())


def test_synthesize_seeds_dtypes_and_overrides():
    e = entry_of("matmul")
    a = synthesize(e, "cpu", "float16", seed=0)
    assert a["x"].dtype == torch.float16
    assert torch.equal(a["x"], synthesize(e, "cpu", "float16", seed=0)["x"])
    assert not torch.equal(a["x"], synthesize(e, "cpu", "float16", seed=2)["x"])
    b = synthesize(e, "cpu", "float32", seed=0, sizes={"k": 100})
    assert b["x"].shape[1] == b["y"].shape[0] == 100
    assert len({b["x"].shape[0], b["y"].shape[1], 100}) == 3  # defaults skip the override
    c = synthesize(e, "cpu", "float32", seed=0, sizes={"x.size(0)": 5})
    assert c["x"].shape[0] == 5
    with pytest.raises(KeyError, match="unknown size names"):
        synthesize(e, "cpu", "float32", seed=0, sizes={"kk": 3})


def test_synthesize_index_tensors_in_range():
    rel = derive(entry_of("cross_entropy"))
    sizes = class_sizes(rel)
    inputs = synthesize(rel, "cpu", "float32", seed=1)
    labels = inputs["labels"]
    assert labels.dtype == torch.int64
    assert labels.shape == (sizes["n"],)
    assert int(labels.min()) >= 0 and int(labels.max()) < sizes["v"]


# --- poison


def test_poison_fills_uninitialised_allocations():
    with poisoned_allocations():
        f = torch.empty(3, 4)
        g = torch.empty_like(f)
        h = f.new_empty((2,))
        i = torch.empty(5, dtype=torch.int32)
        j = torch.empty_strided((2, 2), (2, 1))
    assert all(bool(t.isnan().all()) for t in (f, g, h, j))
    assert bool((i == torch.iinfo(torch.int32).max).all())
    assert not hasattr(torch.empty, "__wrapped__")  # restored


def test_poison_keeps_device_context_allocations_on_their_device():
    # A fresh process, so torch has not yet built its device-constructor set: poisoning first
    # must not leave `with torch.device(d): torch.empty(...)` allocating on the CPU afterwards
    # (on the H200 a source's output landed on the CPU and its kernel launch failed).
    code = (
        "import torch\n"
        "from validation.poison import poisoned_allocations\n"
        "with poisoned_allocations():\n"
        "    with torch.device('meta'):\n"
        "        inside = torch.empty(3)\n"
        "with torch.device('meta'):\n"
        "    after = torch.empty(3)\n"
        "print(inside.device.type, after.device.type)\n"
    )
    import subprocess

    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["meta", "meta"]


def test_unwritten_output_fails_comparison():
    ref = torch.arange(6, dtype=torch.float32)
    with poisoned_allocations():
        out = torch.empty(6)
    out[:5] = ref[:5]  # forgets the last element
    result = compare(out, ref, "float32")
    assert not result.passed and "NaN" in result.detail


def test_check_pair_catches_unwritten_tail(tmp_path):
    partial = tmp_path / "exp_partial.py"
    partial.write_text(
        "import torch\n\n"
        "def exp(x):\n"
        "    out = torch.empty_like(x)\n"
        "    out[:-1] = torch.exp(x[:-1])\n"
        "    return out\n"
    )
    report = check_pair(EXAMPLES / "exp.py", partial, dtypes=("float32",), seeds=(0,))
    assert not report.passed
    assert "NaN" in report.rows[0].detail


def _torch_module(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / f"{name}.py"
    path.write_text(f"import torch\n\ndef log(x):\n{body}")
    return path


def test_a_source_that_computes_nan_validates_where_both_sides_agree(tmp_path):
    # torch.log of randn inputs is NaN for the negative half: the same NaN at the same places is
    # equivalence (before, any NaN failed: it was also the poison of unwritten outputs).
    source = DATA / "helion_log.py"
    same = _torch_module(tmp_path, "same", "    return torch.log(x)\n")
    report = check_pair(source, same, dtypes=("float32",), seeds=(0,))
    assert report.passed, report.format_text()
    # NaN where the source is finite, or the other way round, still fails...
    other = _torch_module(tmp_path, "other", "    return torch.log(x.abs())\n")
    assert not check_pair(source, other, dtypes=("float32",), seeds=(0,)).passed
    # ...and so does an element left unwritten, even where the source computes NaN: the run
    # under a finite poison tells the two apart.
    unwritten = _torch_module(
        tmp_path,
        "unwritten",
        "    out = torch.empty_like(x)\n"
        "    keep = torch.isnan(torch.log(x))\n"
        "    out[~keep] = torch.log(x[~keep])\n"
        "    return out\n",
    )
    report = check_pair(source, unwritten, dtypes=("float32",), seeds=(0,))
    assert not report.passed
    assert "finite poison" in report.rows[0].detail


# --- compare


def test_rel_error_and_nan_rule():
    ref = torch.tensor([3.0, 4.0])
    assert rel_error(ref, ref) == 0.0
    assert math.isclose(rel_error(torch.tensor([3.0, 4.5]), ref), 0.1)
    assert math.isnan(rel_error(torch.tensor([math.nan, 4.0]), ref))
    assert math.isnan(rel_error(ref, torch.tensor([math.inf, 4.0])))
    assert not compare(torch.tensor([math.nan]), torch.tensor([math.nan])).passed
    assert not compare(torch.tensor([math.inf]), torch.tensor([math.inf])).passed
    assert compare(torch.zeros(3), torch.zeros(3)).passed


def test_tolerances():
    assert tolerance("float32") == 1e-5
    assert tolerance(torch.float32, has_dot=True) == 3e-4
    assert tolerance("float16") == tolerance(torch.bfloat16) == 1e-2
    ref = torch.ones(100)
    assert compare(ref * (1 + 5e-6), ref, "float32").passed
    assert not compare(ref * (1 + 5e-5), ref, "float32").passed
    assert compare(ref * (1 + 5e-5), ref, "float32", has_dot=True).passed
    assert compare(ref.half() * 1.005, ref.half(), "float16").passed
    # An fp32 output computed from fp16 inputs gets the fp16 tolerance.
    assert compare(ref * 1.005, ref, "float16").passed


def test_compare_shapes_dtypes_tuples():
    a = torch.ones(2, 3)
    assert not compare(torch.ones(3, 2), a).passed
    assert not compare(a.double(), a).passed
    assert not compare(torch.ones(2), torch.ones(2, dtype=torch.int64)).passed
    good = compare((a, torch.ones(2)), (a, torch.ones(2)))
    assert good.passed
    bad = compare((a, torch.zeros(2)), (a, torch.ones(2)))
    assert not bad.passed and bad.detail.startswith("output 1")
    assert not compare((a,), (a, a)).passed


def test_compare_dicts_key_by_key():
    # Helion's examples wrap kernels for tritonbench as `return {"output": exp(x)}`; the
    # comparison crashed on the dict (a tensor's truth value) with exit 123.
    a = torch.ones(2, 3)
    assert compare({"output": a}, {"output": a.clone()}).passed
    bad = compare({"output": a, "lse": torch.zeros(2)}, {"output": a, "lse": torch.ones(2)})
    assert not bad.passed and bad.detail.startswith("output 'lse'")
    assert not compare({"out": a}, {"output": a}).passed
    assert not compare(a, {"output": a}).passed
    assert not compare({"output": a}, a).passed


# --- runners


def test_load_module_unique_names():
    a = load_module(EXAMPLES / "relu.py", "source")
    b = load_module(EXAMPLES / "relu.py", "source")
    assert a.__name__ != b.__name__ and a.relu is not b.relu
    with pytest.raises(AttributeError, match="no callable"):
        get_entry(a, "gelu")
    with pytest.raises(FileNotFoundError):
        load_module(EXAMPLES / "missing.py", "source")


# --- check_pair end to end


@pytest.mark.parametrize("name", ["softmax", "matmul", "rms_norm"])
def test_translation_is_equivalent(name, tmp_path):
    report = check_pair(EXAMPLES / f"{name}.py", translated(name, tmp_path))
    assert len(report.rows) == 4  # 2 dtypes x 2 seeds
    assert report.passed, report.format_text()


def test_broken_add_is_caught(tmp_path):
    path = translated("add", tmp_path, lambda t: t.replace("x + y,", "x - y,"))
    report = check_pair(EXAMPLES / "add.py", path, seeds=(0,))
    assert not report.passed
    assert all(not r.passed and r.error > 0.5 for r in report.rows)


def test_broken_softmax_is_caught(tmp_path):
    path = translated("softmax", tmp_path, lambda t: t.replace("tl.exp(", "tl.exp2("))
    report = check_pair(EXAMPLES / "softmax.py", path, dtypes=("float32",), seeds=(0,))
    assert not report.passed


def test_an_unmasked_store_past_the_tensor_fails_instead_of_corrupting_memory(tmp_path):
    """Under the CPU interpreter a store past a tensor's end would write into the process's heap
    (and once TileLang is imported, the crash can hang in a signal handler): it is an error of
    the translated side instead, reported on its row."""
    path = translated(
        "add",
        tmp_path,
        lambda t: t.replace(
            "tl.store(out_ptrs, x + y, mask=mask_m[:, None] & mask_n[None, :])",
            "tl.store(out_ptrs, x + y)",
        ),
    )
    report = check_pair(EXAMPLES / "add.py", path, dtypes=("float32",), seeds=(0,))
    assert not report.passed
    assert all("OutOfBounds" in r.detail and "store" in r.detail for r in report.rows)


def test_missing_entry_and_raising_translation_are_failed_rows(tmp_path):
    other = tmp_path / "other.py"
    other.write_text("def not_relu(x):\n    return x\n")
    report = check_pair(EXAMPLES / "relu.py", other, dtypes=("float32",), seeds=(0, 1))
    assert len(report.rows) == 2 and not report.passed
    assert "no callable 'relu'" in report.rows[0].detail

    raising = tmp_path / "raising.py"
    raising.write_text("def relu(x):\n    raise ValueError('boom')\n")
    report = check_pair(EXAMPLES / "relu.py", raising, dtypes=("float32",), seeds=(0,))
    assert "translated raised ValueError: boom" in report.rows[0].detail

    broken = tmp_path / "broken.py"
    broken.write_text("import does_not_exist_anywhere\n")
    report = check_pair(EXAMPLES / "relu.py", broken, dtypes=("float32",), seeds=(0,))
    assert "does not import" in report.rows[0].detail


def test_in_place_writes_to_inputs_are_compared(tmp_path):
    sneaky = tmp_path / "relu_sneaky.py"
    sneaky.write_text(
        "import torch\n\ndef relu(x):\n    out = torch.relu(x)\n    x.zero_()\n    return out\n"
    )
    report = check_pair(EXAMPLES / "relu.py", sneaky, dtypes=("float32",), seeds=(0,))
    assert not report.passed and "argument x" in report.rows[0].detail


# --- bench


def test_bench_refuses_cpu():
    with pytest.raises(BenchUnavailable, match="CUDA"):
        bench_pair(EXAMPLES / "relu.py", EXAMPLES / "relu.py", device="cpu")


def test_bench_sizes_exceed_l2():
    rel = derive(entry_of("matmul"))
    s = bench_sizes(rel, "float16", min_bytes=64 * 2**20)
    assert (s["m"] * s["k"] + s["k"] * s["n"]) * 2 >= 64 * 2**20
    assert bench_sizes(rel, "float16", sizes={"k": 64})["k"] == 64
    soft = bench_sizes(derive(entry_of("softmax")), "float16")
    assert soft["n"] == 1024  # a whole-loaded row keeps a realistic length
