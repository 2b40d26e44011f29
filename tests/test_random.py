"""The IR's counter-based random numbers: ``rand``/``randn(seed, offsets)``.

The reference (``translator/ir/philox.py``) is checked against Triton's own ``tl.rand``/
``tl.randn`` in the interpreter (``rand`` bit for bit, at 32- and 64-bit offsets and seeds past
2**32) and against Helion's reference Philox; the verifier types the op; the interpreter runs it
as the Triton frontend reads it; the row-major counter Helion draws at is built and recognised
(only) where it is one.
"""

from __future__ import annotations

import os

os.environ["TRITON_INTERPRET"] = "1"

import pytest  # noqa: E402
import torch  # noqa: E402

from translator.api import parse_file  # noqa: E402
from translator.ir import nodes as ir  # noqa: E402
from translator.ir import philox  # noqa: E402
from translator.ir.counters import seed_only_params  # noqa: E402
from translator.ir.interpreter import run_module  # noqa: E402
from translator.ir.printer import format_expr  # noqa: E402
from translator.ir.shapes import IRTypeError, ScalarType, TileType, TypeEnv, infer  # noqa: E402

SEEDS = (0, 7, 2**31 + 3, 2**40 + 5)


def _triton_draws(seed: int, offsets: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    import triton
    import triton.language as tl

    @triton.jit
    def draw(offs_ptr, rand_ptr, randn_ptr, seed, n, BLOCK: tl.constexpr):
        lanes = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = lanes < n
        offs = tl.load(offs_ptr + lanes, mask=mask)
        tl.store(rand_ptr + lanes, tl.rand(seed, offs), mask=mask)
        tl.store(randn_ptr + lanes, tl.randn(seed, offs), mask=mask)

    n = offsets.numel()
    uniform, normal = torch.empty(n), torch.empty(n)
    draw[(triton.cdiv(n, 256),)](offsets, uniform, normal, seed, n, BLOCK=256)
    return uniform, normal


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", [torch.int32, torch.int64])
def test_reference_is_triton_philox(seed: int, dtype: torch.dtype) -> None:
    offsets = torch.arange(1000, dtype=dtype) * 7 + 3
    if dtype == torch.int64:
        offsets = offsets * 2**30  # past 2**32: the offset's high word keys the draw too
    uniform, normal = _triton_draws(seed, offsets)
    assert torch.equal(philox.rand(seed, offsets), uniform)
    # Box-Muller's log and cos: numpy's float32 and torch's may differ in the last place.
    torch.testing.assert_close(philox.randn(seed, offsets), normal, rtol=0, atol=2e-6)
    assert ((uniform >= 0) & (uniform < 1)).all()


def test_reference_is_helion_philox() -> None:
    from helion._compiler.rng_utils import philox_rand_ref

    offsets = torch.arange(5000, dtype=torch.int64) * 977
    for seed in SEEDS:
        assert torch.equal(philox.rand(seed, offsets), philox_rand_ref(seed, offsets))


def _env() -> TypeEnv:
    env = TypeEnv()
    env.vars["seed"] = ScalarType(ir.I32)
    env.vars["n"] = ScalarType(ir.I32)
    env.vars["scale"] = ScalarType(ir.F32)
    for name, extent in (("tm", ir.Name("m")), ("tn", ir.Name("n"))):
        env.bind_tile(ir.TileVar(name, extent, ir.Const(16)))
    env.vars["m"] = ScalarType(ir.I32)
    return env


def test_rand_types_as_float32_of_the_offsets_dims() -> None:
    env = _env()
    index = ir.TileAttr("tm", "index")
    assert infer(ir.Call("rand", (ir.Name("seed"), index)), env) == TileType(
        (ir.BlockDim("tm"),), ir.F32
    )
    assert format_expr(ir.Call("randn", (ir.Name("seed"), index))) == "randn(seed, tm.index)"
    with pytest.raises(IRTypeError, match="offsets of rand must be an integer"):
        infer(ir.Call("rand", (ir.Name("seed"), ir.Cast(index, ir.F32))), env)
    with pytest.raises(IRTypeError, match="seed of rand must be one number"):
        infer(ir.Call("rand", (index, index)), env)
    with pytest.raises(IRTypeError, match="seed of rand must be an integer"):
        infer(ir.Call("rand", (ir.Name("scale"), index)), env)


def test_interpreter_draws_what_the_triton_source_draws() -> None:
    # The Triton frontend's IR of tutorial-04 dropout, run by the interpreter: the same output
    # as the source kernel in Triton's interpreter, element for element.
    import importlib.util

    module = parse_file("tests/data/triton_dropout.py", "triton")
    spec = importlib.util.spec_from_file_location("triton_dropout", "tests/data/triton_dropout.py")
    source = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(source)  # type: ignore[union-attr]
    x = torch.randn(2500)
    want = source.seeded_dropout(x, 0.4, 2**33 + 1)
    assert torch.equal(run_module(module, "seeded_dropout", x, 0.4, 2**33 + 1), want)


def test_seeds_are_no_sizes() -> None:
    module = parse_file("examples/library/triton/seeded_dropout.py", "triton")
    assert all(seed_only_params(k) == {"seed"} for k in module.kernels)
