"""Triton → Helion → Triton round trips of the Triton examples.

For every Triton example with a Helion golden (``examples/triton/expected_helion/NAME.py``):

* the golden reads back through the Helion frontend and translates to Triton, and that Triton
  computes what the Triton source computes (CPU, ``TRITON_INTERPRET=1``, ragged sizes);
* the IR read back from the golden is the IR of the Triton source, except for the differences
  listed in :data:`DIFFERENCES`, each of a kind explained in :data:`KINDS`. A difference that is
  not listed, or a listed one that no longer occurs, fails.
"""

from __future__ import annotations

import os

# Kernels run in Triton's interpreter; set it before anything imports triton.
os.environ["TRITON_INTERPRET"] = "1"

import dataclasses  # noqa: E402
import difflib  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from translator.api import parse_file, translate_file  # noqa: E402
from translator.ir import nodes as ir  # noqa: E402
from translator.ir.printer import format_module  # noqa: E402
from translator.ir.renaming import rename  # noqa: E402
from validation.equivalence import check_pair  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
GOLDENS = sorted((ROOT / "examples" / "triton" / "expected_helion").glob("*.py"))


@pytest.fixture(autouse=True)
def _repo_cwd(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def _source(golden: Path) -> str:
    return os.path.relpath(ROOT / "examples" / "triton" / golden.name, ROOT)


# ------------------------------------------------------------------------------------------------
# Numerics


@pytest.mark.parametrize("golden", GOLDENS, ids=lambda p: p.stem)
def test_helion_golden_back_to_triton_matches_source_on_cpu(golden: Path, tmp_path: Path) -> None:
    triton_text = translate_file(os.path.relpath(golden, ROOT), "helion", "triton")
    translated = tmp_path / golden.name
    translated.write_text(triton_text)
    report = check_pair(_source(golden), translated, src_dsl="triton", seeds=(0,))
    assert report.rows, "no case ran"
    assert report.passed, report.format_text()


# ------------------------------------------------------------------------------------------------
# The IR survives the round trip, up to these differences

KINDS = {
    "kernel_name": (
        "Helion kernels have no names (the top-level loop is the kernel): the Helion frontend "
        "names an entry's kernels `_<entry>_kernel`, `_<entry>_kernel_2`, ..."
    ),
    "kernel_doc": (
        "Helion kernels have no function to document: the comments above a Triton kernel and "
        "its docstring become comments above the loop, read back as the kernel's comments"
    ),
    "block_size_name": (
        "Helion block sizes have no names: one that sizes a single hl.tile is a config slot, "
        "which the Helion frontend names `block_size_<tile>` after its tile (one shared by several "
        "loops is registered with hl.register_block_size and keeps its name)"
    ),
    "choices": (
        "the Helion backend always writes a helion.Config (else Helion would autotune), with every "
        "knob whose value is not Helion's default; the Helion frontend records the values its "
        "configs give a knob as the knob's choices (`num_stages = 3` comes back `in [3]`), and a "
        "source without configs comes back with one, of its defaults"
    ),
    "helion_order": (
        "tunables and each config's keys come back in Helion's order: block sizes as Helion "
        "numbers them (grid dims, then inner loops, in the order the loops meet them), then "
        "num_warps, num_stages, group_size (l2_groupings)"
    ),
    "pad": (
        "Helion indexing reads out-of-bounds lanes as 0, so every load comes back `pad=0.0`; the "
        "Triton `other=` differed only where no result depends on it: lanes never read "
        "(never-read), or lanes that only a reduction sees, which Helion leaves out (-inf)"
    ),
    "zero_d": (
        "a loop-carried value started from a number (`m = -inf`) and later bound to a reduction "
        "comes back as a 0-d tensor (`hl.full([], -inf, dtype=torch.float32)`): Helion wants one "
        "type per variable across a loop"
    ),
    "view_dtype": (
        "`torch.empty_like(view)` comes back with the element type of the view's base: the Helion "
        "frontend names a view's dtype by the tensor it views, which has the same dtype"
    ),
    "reshape": (
        "a reshape that only undoes `[:, None]` (Triton's `idx[:, None]` gather offsets, lifted "
        "as one index per row) is dropped by the Helion backend: `hl.load(weight, [idx, tile_d])`"
    ),
    "unit_tile": (
        "an IR index beside tiles in a grid (a batch or head index, split-K's `pid_k`) is "
        "emitted as a block-1 dim of the grid's one hl.tile call "
        "(`hl.tile([m, n, split_k], block_size=[None, None, 1])`) read through `.begin`; it "
        "comes back as a tile of block 1 read through `.begin`, which is the same single index"
    ),
    "host_choice": (
        "a block size the Triton host picks from the inputs (`BLOCK_N = 64 if HEAD_DIM_K <= 64 "
        "else 32`) is one tunable whose choices are the values it can take; the Helion backend "
        "writes the IR's configs, which hold its default, so only the default comes back"
    ),
}


@dataclasses.dataclass(frozen=True)
class Expected:
    """How one example's round-trip IR differs from its source IR.

    ``block_sizes`` renames block-size tunables (kind ``block_size_name``); ``order`` lists the
    tunables, renamed, in the order they come back (kind ``helion_order``); ``lines`` are
    ``(kind, before, after)`` replacements in the printed IR, each of which must occur. Kernel
    names (kind ``kernel_name``) are checked for every example without being listed.
    """

    block_sizes: dict[str, str] = dataclasses.field(default_factory=dict)
    lines: tuple[tuple[str, str, str], ...] = ()
    order: tuple[str, ...] = ()


def _choices(*lines: str) -> tuple[tuple[str, str, str], ...]:
    """``tunable NAME: KIND = V`` lines that come back with ``in [V]``."""
    return tuple(
        ("choices", f"{line}\n", f"{line} in [{line.rsplit(' ', 1)[1]}]\n") for line in lines
    )


GEMM_ORDER = (
    "block_size_m",
    "block_size_n",
    "block_size_k",
    "num_warps",
    "num_stages",
    "group_size",
)
NUM_STAGES_3 = "tunable num_stages: num_stages = 3"
# A source without configs: its defaults come back as the one config.
NO_CONFIGS = (
    "choices",
    f"{NUM_STAGES_3}\n",
    f"{NUM_STAGES_3} in [3]\n  config 0: num_warps=4, num_stages=3\n",
)

DIFFERENCES: dict[str, Expected] = {
    "add": Expected(
        {"block_size": "block_size_tile"},
        (
            *_choices(NUM_STAGES_3),
            (
                "pad",
                "x_tile = load x_flat[tile] pad=never-read",
                "x_tile = load x_flat[tile] pad=0.0",
            ),
            (
                "pad",
                "y_tile = load y_flat[tile] pad=never-read",
                "y_tile = load y_flat[tile] pad=0.0",
            ),
        ),
    ),
    "cross_entropy": Expected(
        {"block_size": "block_size_i"},
        (
            *_choices("tunable block_size_i: block_size = 32768", NUM_STAGES_3),
            ("pad", "load target[program_id] pad=never-read", "load target[program_id] pad=0.0"),
            (
                "pad",
                "load logits[program_id, y] pad=never-read",
                "load logits[program_id, y] pad=0.0",
            ),
            (
                "pad",
                "load logits[program_id, tile_i] pad=-inf",
                "load logits[program_id, tile_i] pad=0.0",
            ),
            ("zero_d", "m = -inf", "m = full([], -inf, float32)"),
            ("zero_d", "d = 0.0", "d = full([], 0.0, float32)"),
        ),
    ),
    "embedding": Expected(
        {"block_n": "block_size_n", "block_d": "block_size_d"},
        (
            *_choices("tunable block_size_d: block_size = 128", NUM_STAGES_3),
            ("reshape", "gather(reshape(expand_dims(idx, 1), [tile_n]))", "gather(idx)"),
        ),
    ),
    "geglu": Expected({"block_size": "block_size_tile"}, _choices(NUM_STAGES_3)),
    "layer_norm": Expected(
        {},
        (
            *_choices("tunable block_size: block_size = 1024", NUM_STAGES_3),
            ("view_dtype", "y = alloc like x_arg dtype(x_arg)", "y = alloc like x_arg dtype(x)"),
            ("zero_d", "_mean = 0.0", "_mean = full([], 0.0, float32)"),
            ("zero_d", "_var = 0.0", "_var = full([], 0.0, float32)"),
            ("pad", "load weight[tile_off_3] pad=never-read", "load weight[tile_off_3] pad=0.0"),
            ("pad", "load bias[tile_off_3] pad=never-read", "load bias[tile_off_3] pad=0.0"),
        ),
    ),
    "attention": Expected(
        {"block_m": "block_size_m", "block_n": "block_size_n"},
        (
            (
                "host_choice",
                "tunable block_size_n: block_size = 64 in [32, 64]",
                "tunable block_size_n: block_size = 64 in [64]",
            ),
            (
                "unit_tile",
                "off_h: index H by 1, off_z: index q.size(0) by 1",
                "off_h: tile H by 1, off_z: tile q.size(0) by 1",
            ),
            ("unit_tile", "[off_z, off_h, ", "[off_z.begin, off_h.begin, "),
        ),
    ),
    "matmul": Expected(order=GEMM_ORDER),
    "matmul_act": Expected(order=GEMM_ORDER),
    "matmul_block_ptr": Expected(
        {"block_m": "block_size_m", "block_k": "block_size_k", "block_n": "block_size_n"},
        order=GEMM_ORDER,
    ),
    "matmul_descriptor": Expected(
        {"block_m": "block_size_m", "block_k": "block_size_k", "block_n": "block_size_n"},
        order=GEMM_ORDER,
    ),
    "matmul_host_descriptor": Expected(order=GEMM_ORDER),
    "matmul_persistent": Expected(order=GEMM_ORDER),
    # Registered block sizes (the strided K loop reads block_k as a value) keep their names.
    "matmul_splitk": Expected(
        lines=(
            ("unit_tile", "pid_k: index split_k by 1", "pid_k: tile split_k by 1"),
            ("unit_tile", "tile pid_k * block_k..K", "tile pid_k.begin * block_k..K"),
        ),
        order=("block_m", "block_n", "block_k", "num_warps", "num_stages", "group_size"),
    ),
    "rms_norm": Expected({}, (NO_CONFIGS,)),
    "heuristics": Expected(
        {"block_m": "block_size_m", "block_n": "block_size_n"},
        _choices(
            "tunable block_size_m: block_size = 32",
            "tunable block_size_n: block_size = 128",
            NUM_STAGES_3,
        ),
    ),
    "row_sum": Expected(
        {"block_m": "block_size_m", "block_n": "block_size_n"},
        (*_choices("tunable block_size_n: block_size = 256", NUM_STAGES_3),),
    ),
    "softmax": Expected(
        {},
        (
            NO_CONFIGS,
            ("pad", "load x[row_idx, :] pad=-inf", "load x[row_idx, :] pad=0.0"),
        ),
    ),
    "swiglu": Expected(
        {},
        (
            NO_CONFIGS,
            ("view_dtype", "c = alloc like a_2 dtype(a_2)", "c = alloc like a_2 dtype(a)"),
        ),
    ),
}


def _reorder_tunables(entry: ir.Entry, order: tuple[str, ...]) -> ir.Entry:
    """``entry`` with its tunables, and each config's keys, in ``order``."""
    assert sorted(order) == sorted(t.name for t in entry.tunables), "order names other tunables"
    tunables = tuple(sorted(entry.tunables, key=lambda t: order.index(t.name)))
    configs = tuple(tuple(sorted(c, key=lambda kv: order.index(kv[0]))) for c in entry.configs)
    return dataclasses.replace(entry, tunables=tunables, configs=configs)


def _helion_kernel_names(entry: ir.Entry) -> ir.Entry:
    """``entry`` with its kernels named and documented as the Helion frontend reads them back
    (kinds ``kernel_name`` and ``kernel_doc``)."""
    body, count = [], 0
    for s in entry.body:
        if isinstance(s, ir.Kernel):
            count += 1
            s = dataclasses.replace(
                s, name=f"_{entry.name}_kernel" + (f"_{count}" if count > 1 else "")
            )
            doc = (*s.doc_comments, *(s.docstring.splitlines() if s.docstring else ()))
            s = dataclasses.replace(
                s, comments=(*s.comments, *doc), doc_comments=(), docstring=None
            )
        body.append(s)
    return dataclasses.replace(entry, body=tuple(body))


def test_every_difference_kind_is_explained_and_occurs() -> None:
    used = {"kernel_name"}
    if any(
        k.docstring or k.doc_comments
        for g in GOLDENS
        for e in parse_file(_source(g), "triton").entries
        for k in e.kernels()
    ):
        used.add("kernel_doc")
    for name, expected in DIFFERENCES.items():
        if expected.block_sizes:
            used.add("block_size_name")
        if expected.order:
            used.add("helion_order")
        for kind, before, after in expected.lines:
            assert kind in KINDS, (name, kind)
            assert before != after, (name, before)
            used.add(kind)
    assert used == set(KINDS), f"kinds no example shows: {sorted(set(KINDS) - used)}"


@pytest.mark.parametrize("golden", GOLDENS, ids=lambda p: p.stem)
def test_helion_golden_keeps_the_ir(golden: Path) -> None:
    source = parse_file(_source(golden), "triton")
    back = parse_file(os.path.relpath(golden, ROOT), "helion")
    expected = DIFFERENCES.get(golden.stem, Expected())
    known = {t.name for e in source.entries for t in e.tunables if t.kind == "block_size"}
    assert set(expected.block_sizes) <= known, "renames of block sizes the source does not have"
    entries = []
    for e in source.entries:
        e = _helion_kernel_names(rename(e, expected.block_sizes))
        if expected.order:
            reordered = _reorder_tunables(e, expected.order)
            assert reordered != e, "expected difference (helion_order) no longer occurs"
            e = reordered
        entries.append(e)
    text = format_module(dataclasses.replace(source, path=back.path, entries=tuple(entries)))
    for kind, before, after in expected.lines:
        assert before in text, f"expected difference ({kind}) no longer occurs: {before!r}"
        text = text.replace(before, after)
    got = format_module(back)
    diff = "\n".join(difflib.unified_diff(text.splitlines(), got.splitlines(), lineterm=""))
    assert got == text, (
        f"unexplained IR difference (source IR with the expected ones → golden):\n{diff}"
    )
    # Entry hints are not printed; the ones a backend acts on must survive too.
    for a, b in zip(source.entries, back.entries):
        assert dict(b.hints).get("pid_type") == dict(a.hints).get("pid_type")
