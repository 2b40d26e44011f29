"""The library-style corpus under ``examples/library`` computes what plain torch computes.

``examples/library/{triton,helion}/*.py`` are kernel modules written the way production kernel
libraries are (Liger-Kernel, Unsloth, FlagGems, xformers, the Triton tutorials, Helion's
examples): the launches are wrapped in realistic host code (autograd Functions, launch helpers,
settings helpers, device guards, config lists, branches between kernels), which the translator
must carry over unchanged. This file checks the sources themselves, on the CPU in the Triton
interpreter, against torch references:

* every public function of every corpus file (listed in ``PUBLIC_API``, and the listing is
  checked against the modules) is called at small ragged sizes in fp32, forward, and backward
  through ``torch.autograd.grad`` wherever the module defines an autograd Function;
* every corpus file imports standalone: no imports between corpus files.

Helion kernels without a config run with Helion's default config: ``HELION_AUTOTUNE_EFFORT=none``
is set while the corpus modules are imported (Helion reads it when ``@helion.kernel`` runs).
"""

from __future__ import annotations

import ast
import contextlib
import importlib.util
import inspect
import os
import sys
from pathlib import Path
from types import ModuleType

# Kernels run in Triton's interpreter; set it before anything imports triton.
os.environ["TRITON_INTERPRET"] = "1"
os.environ.pop("HELION_INTERPRET", None)  # Helion refuses both at once

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pytest  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from translator.dialects.triton import bounds_guard  # noqa: E402

LIBRARY = ROOT / "examples" / "library"
TRITON_FILES = sorted((LIBRARY / "triton").glob("*.py"))
HELION_FILES = sorted((LIBRARY / "helion").glob("*.py"))

# Public host API of each corpus file: plain functions and Helion kernels whose names do not start
# with an underscore. Triton kernels (device code) and classes (autograd Functions, guards) are
# exercised through these.
PUBLIC_API: dict[str, set[str]] = {
    "triton/cross_entropy.py": {"cross_entropy", "cross_entropy_forward", "cross_entropy_backward"},
    "triton/elementwise.py": {"libentry", "add", "leaky_relu"},
    "triton/fused_residual.py": {"fused_residual"},
    "triton/geglu.py": {"geglu"},
    "triton/layer_norm.py": {"layer_norm"},
    "triton/matmul.py": {
        "is_cuda",
        "get_cuda_autotune_config",
        "get_fallback_autotune_config",
        "get_autotune_config",
        "matmul",
        "linear",
    },
    "triton/attention_bwd.py": {"flash_attention"},
    "triton/grouped_gemm.py": {"grouped_matmul"},
    "triton/streamk_gemm.py": {"streamk_matmul"},
    "triton/matmul_activation.py": {"matmul", "matmul_leaky_relu", "matmul_gelu"},
    "triton/reductions.py": {"libentry", "sum_all", "sum_dim", "mean_dim"},
    "triton/rms_norm.py": {"calculate_settings", "rms_norm"},
    "triton/rope.py": {"rope_forward", "liger_rotary_pos_emb"},
    "triton/dropout.py": {"seeded_dropout"},
    "triton/seeded_dropout.py": {"low_mem_dropout", "dropout_add"},
    "triton/embedding.py": {
        "ensure_contiguous",
        "embedding",
        "embedding_forward",
        "embedding_backward",
    },
    "triton/fused_linear_cross_entropy.py": {
        "fused_linear_cross_entropy",
        "fused_linear_cross_entropy_forward",
    },
    "triton/jagged.py": {"jagged_sum", "jagged_mean"},
    "triton/moe_grouped_gemm.py": {"moe_grouped_gemm"},
    "triton/splitk_gemm.py": {"splitk_gemm", "linear_decode"},
    "triton/jsd.py": {"jsd", "jsd_forward", "jsd_backward"},
    "triton/log_softmax.py": {"log_softmax", "log_softmax_forward", "log_softmax_backward"},
    "triton/kl_div.py": {
        "get_num_warps",
        "kl_div",
        "kldiv_forward_triton",
        "kldiv_backward_triton",
    },
    "triton/softmax.py": {"softmax", "softmax_forward", "softmax_backward"},
    # Its API is the autograd Function `SoftmaxFunction` (validation calls `.apply`).
    "triton/softmax_function.py": {"calculate_settings"},
    "triton/swiglu.py": {"ensure_contiguous", "swiglu", "swiglu_forward", "swiglu_backward"},
    "helion/glu.py": {"swiglu", "swiglu_fwd", "swiglu_bwd", "geglu"},
    "helion/causal_attention.py": {"causal_attention", "causal_attention_fwd"},
    "helion/group_norm.py": {"group_norm", "group_norm_fwd", "group_norm_bwd"},
    "helion/jagged.py": {"jagged_sum", "jagged_mean"},
    "helion/grouped_gemm.py": {"moe_grouped_matmul", "moe_grouped_matmul_from_counts"},
    "helion/geglu.py": {"geglu", "geglu_fwd", "geglu_bwd"},
    "helion/layer_norm_grad.py": {"layer_norm", "layer_norm_fwd", "layer_norm_bwd"},
    "helion/mixed_matmul.py": {"w8a16_matmul", "quantize_weight", "linear_w8a16"},
    "helion/layer_norm.py": {"layer_norm", "layer_norm_fwd"},
    "helion/matmul.py": {"matmul", "matmul_bias", "linear"},
    "helion/matmul_epilogue.py": {
        "matmul",
        "gelu_tanh",
        "matmul_bias_relu",
        "matmul_gelu",
        "matmul_residual",
    },
    "helion/rms_norm.py": {"rms_norm", "rms_norm_fwd", "rms_norm_bwd"},
    "helion/addmm_closure.py": {"gemm", "addmm"},
    "helion/broadcast_add.py": {"broadcast_add", "scaled_sum"},
    "helion/jagged_features.py": {"jagged_feature_mean"},
    "helion/kl_div_rows.py": {
        "kl_div_rows_fwd",
        "kl_div_rows_bwd",
        "kl_div_elementwise",
        "kl_div_batchmean",
    },
    "helion/rms_norm_blocked.py": {
        "rms_norm_blocked",
        "rms_norm_blocked_fwd",
        "rms_norm_blocked_bwd",
    },
    "helion/scaled_add.py": {"axpby", "scaled_add"},
    "helion/dropout.py": {"dropout", "dropout_fwd"},
    "helion/softmax.py": {"softmax", "log_softmax", "softmax_lastdim", "log_softmax_lastdim"},
}

# What a corpus file may import: the DSLs, torch and the standard library, never each other.
ALLOWED_IMPORTS = {
    "__future__",
    "collections",
    "contextlib",
    "functools",
    "logging",
    "math",
    "typing",
}
ALLOWED_IMPORTS |= {"torch", "triton", "helion"}


@contextlib.contextmanager
def _env(**values: str):
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


_MODULES: dict[str, ModuleType] = {}


def lib(rel: str) -> ModuleType:
    """Import ``examples/library/<rel>`` standalone (each file on its own, under a unique name)."""
    if rel not in _MODULES:
        from translator.dialects.triton.libdevice_shim import install

        # Helion emits libdevice calls (exp, rsqrt, tanh...) that the interpreter lacks.
        install()
        path = LIBRARY / rel
        name = "tiletrans_library_" + rel.replace("/", "_").removesuffix(".py")
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        # Registered as imported modules are: Helion reads a kernel's module globals
        # (`GELU_COEFF`) through sys.modules.
        sys.modules[name] = module
        # Configless @helion.kernel() use Helion's default config: no autotuning on the CPU.
        with _env(HELION_AUTOTUNE_EFFORT="none"):
            spec.loader.exec_module(module)
        _MODULES[rel] = module
    return _MODULES[rel]


@pytest.fixture(autouse=True)
def _seed() -> None:
    torch.manual_seed(0)


def _grads(out, inputs, grad_out):
    """``torch.autograd.grad`` of ``out`` (a tensor or a tuple) against ``inputs``."""
    return torch.autograd.grad(out, inputs, grad_out)


def _check_fwd_bwd(got, want, inputs, rtol=None, atol=None):
    """Forward outputs match, and so do the gradients of all ``inputs`` for a random cotangent."""
    got_t = got if isinstance(got, tuple) else (got,)
    want_t = want if isinstance(want, tuple) else (want,)
    for g, w in zip(got_t, want_t, strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype
        torch.testing.assert_close(g, w, rtol=rtol, atol=atol)
    cotangents = tuple(torch.randn_like(w) for w in want_t)
    got_grads = _grads(got_t, inputs, cotangents)
    want_grads = _grads(want_t, inputs, cotangents)
    for g, w in zip(got_grads, want_grads, strict=True):
        torch.testing.assert_close(g, w, rtol=rtol, atol=atol)


def _leaf(*shape: int) -> torch.Tensor:
    return torch.randn(*shape, requires_grad=True)


# ------------------------------------------------------------------------------------------------
# The corpus itself


def test_corpus_size_and_public_api() -> None:
    assert len(TRITON_FILES) >= 9 and len(HELION_FILES) >= 5
    on_disk = {f"{p.parent.name}/{p.name}" for p in TRITON_FILES + HELION_FILES}
    assert on_disk == set(PUBLIC_API), "every corpus file needs its public API listed (and tested)"
    import helion
    from triton.runtime.jit import KernelInterface

    for rel, expected in PUBLIC_API.items():
        module = lib(rel)
        found = set()
        for name, obj in vars(module).items():
            if name.startswith("_") or isinstance(obj, KernelInterface):
                continue
            if isinstance(obj, helion.Kernel) or (
                inspect.isfunction(obj) and obj.__module__ == module.__name__
            ):
                found.add(name)
        assert found == expected, rel


@pytest.mark.parametrize(
    "path", TRITON_FILES + HELION_FILES, ids=lambda p: f"{p.parent.name}/{p.stem}"
)
def test_corpus_file_imports_nothing_from_the_corpus(path: Path) -> None:
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"relative import in {path.name}"
            roots = {node.module.split(".")[0]}
        elif isinstance(node, ast.Import):
            roots = {alias.name.split(".")[0] for alias in node.names}
        else:
            continue
        assert roots <= ALLOWED_IMPORTS, f"{path.name} imports {roots - ALLOWED_IMPORTS}"
    assert ast.get_docstring(tree), f"{path.name} has no module docstring"


# ------------------------------------------------------------------------------------------------
# Triton corpus


def _rms_norm_ref(x, w, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def test_triton_rms_norm() -> None:
    m = lib("triton/rms_norm.py")
    assert m.calculate_settings(100) == (128, 4)
    assert m.calculate_settings(5000) == (8192, 16)
    with pytest.raises(RuntimeError):
        m.calculate_settings(m.MAX_FUSED_SIZE + 1)
    x, w = _leaf(3, 43, 100), _leaf(100)
    _check_fwd_bwd(m.rms_norm(x, w, 1e-6), _rms_norm_ref(x, w, 1e-6), (x, w))


def test_triton_swiglu() -> None:
    m = lib("triton/swiglu.py")
    # Non-contiguous inputs: the Function's @ensure_contiguous makes the row views valid.
    a = torch.randn(100, 37).t().requires_grad_()
    b = _leaf(37, 100)
    _check_fwd_bwd(m.swiglu(a, b), F.silu(a) * b, (a, b))
    a2, b2 = torch.randn(129, 45), torch.randn(129, 45)
    _, _, c = m.swiglu_forward(a2, b2)
    torch.testing.assert_close(c, F.silu(a2) * b2)
    dc = torch.randn(129, 45)
    da, db = m.swiglu_backward(a2, b2, dc)
    sig = torch.sigmoid(a2)
    torch.testing.assert_close(db, dc * F.silu(a2))
    torch.testing.assert_close(da, dc * b2 * (sig + a2 * sig * (1 - sig)))
    with pytest.raises(ValueError):
        m.swiglu(a2, b2[:, :44])


def test_triton_geglu() -> None:
    m = lib("triton/geglu.py")
    a, b = _leaf(5, 7, 31), _leaf(5, 7, 31)
    _check_fwd_bwd(m.geglu(a, b), F.gelu(a, approximate="tanh") * b, (a, b))
    with pytest.raises(ValueError):
        m.geglu(a, b, approximate="none")


def test_triton_elementwise() -> None:
    m = lib("triton/elementwise.py")
    x, y = torch.randn(5, 7, 31), torch.randn(5, 7, 31)
    torch.testing.assert_close(m.add(x, y, alpha=0.5), x + 0.5 * y)  # forward only
    with pytest.raises(ValueError):
        m.add(x, y[:, :3])
    x = _leaf(5, 7, 31)
    _check_fwd_bwd(m.leaky_relu(x, 0.2), F.leaky_relu(x, 0.2), (x,))


def test_triton_softmax() -> None:
    m = lib("triton/softmax.py")
    x = _leaf(3, 43, 100)
    _check_fwd_bwd(m.softmax(x), torch.softmax(x, -1), (x,))
    # A strided last dimension takes the second forward kernel.
    xt = torch.randn(100, 37).t().requires_grad_()
    assert xt.stride(-1) != 1
    _check_fwd_bwd(m.softmax(xt), torch.softmax(xt, -1), (xt,))
    x1 = _leaf(5, 37, 9)
    _check_fwd_bwd(m.softmax(x1, dim=1), torch.softmax(x1, 1), (x1,))
    x2, dy = torch.randn(129, 45), torch.randn(129, 45)
    y = m.softmax_forward(x2)
    torch.testing.assert_close(y, torch.softmax(x2, -1))
    torch.testing.assert_close(m.softmax_backward(dy, y), y * (dy - (dy * y).sum(-1, keepdim=True)))


def test_triton_softmax_function() -> None:
    m = lib("triton/softmax_function.py")
    # Rows that fit one block, then rows longer than MAX_FUSED_SIZE (the online kernel).
    for shape in ((3, 43, 100), (2, m.MAX_FUSED_SIZE + 37)):
        x = _leaf(*shape)
        _check_fwd_bwd(m.SoftmaxFunction.apply(x), torch.softmax(x, -1), (x,))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_triton_cross_entropy(reduction: str) -> None:
    m = lib("triton/cross_entropy.py")
    x = _leaf(129, 100)
    target = torch.randint(0, 100, (129,))
    target[::7] = -100
    got = m.cross_entropy(x, target, -100, reduction)
    want = F.cross_entropy(x, target, ignore_index=-100, reduction=reduction)
    # A random cotangent: for the scalar reductions it is not 1.0, so the scaling kernel runs.
    _check_fwd_bwd(got, want, (x,))
    if reduction == "mean":
        # The cotangent 1.0 skips the scaling kernel.
        got = m.cross_entropy(x, target)
        (g,) = torch.autograd.grad(got, x)
        (w,) = torch.autograd.grad(F.cross_entropy(x, target), x)
        torch.testing.assert_close(g, w)
        loss, grad = m.cross_entropy_forward(x.detach(), target, -100, "sum")
        torch.testing.assert_close(loss, F.cross_entropy(x, target, reduction="sum"))
        scale = torch.tensor(0.5)
        torch.testing.assert_close(m.cross_entropy_backward(grad.clone(), scale), grad * scale)
        with pytest.raises(ValueError):
            m.cross_entropy_forward(x.detach(), target, -100, "max")


def test_triton_layer_norm() -> None:
    m = lib("triton/layer_norm.py")
    x, w, b = _leaf(129, 100), _leaf(100), _leaf(100)
    got = m.layer_norm(x, (100,), w, b, 1e-5)
    _check_fwd_bwd(got, F.layer_norm(x, (100,), w, b, 1e-5), (x, w, b))


def test_triton_matmul() -> None:
    m = lib("triton/matmul.py")
    assert m.is_cuda() == (torch.cuda.is_available() and torch.version.hip is None)
    assert len(m.get_cuda_autotune_config()) > 1
    assert len(m.get_fallback_autotune_config()) == 1
    assert m.get_autotune_config() == (
        m.get_cuda_autotune_config() if m.is_cuda() else m.get_fallback_autotune_config()
    )
    a, b = torch.randn(37, 45), torch.randn(45, 53)
    torch.testing.assert_close(m.matmul(a, b), a @ b, rtol=1e-4, atol=1e-4)
    x, w, bias = torch.randn(3, 13, 45), torch.randn(53, 45), torch.randn(53)
    torch.testing.assert_close(m.linear(x, w), F.linear(x, w), rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(m.linear(x, w, bias), F.linear(x, w, bias), rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(
        m.linear(x, w, bias, "relu"), F.relu(F.linear(x, w, bias)), rtol=1e-4, atol=1e-4
    )
    with pytest.raises(ValueError):
        m.linear(x, w, None, "relu")


def test_triton_reductions() -> None:
    m = lib("triton/reductions.py")

    def fn():
        return None

    assert m.libentry()(fn) is fn
    x = torch.randn(3, 37, 20)
    torch.testing.assert_close(m.sum_all(x), x.sum(), rtol=1e-5, atol=1e-4)
    total = m.sum_all(x, dtype=torch.float64)
    assert total.dtype == torch.float64
    torch.testing.assert_close(total, x.sum(dtype=torch.float64), rtol=1e-5, atol=1e-4)
    for dim, keepdim in [(-1, False), (1, True), (0, False)]:
        torch.testing.assert_close(
            m.sum_dim(x, dim, keepdim), x.sum(dim, keepdim=keepdim), rtol=1e-5, atol=1e-5
        )
        torch.testing.assert_close(m.mean_dim(x, dim, keepdim), x.mean(dim, keepdim=keepdim))


@pytest.mark.parametrize("with_bias", [False, True])
def test_triton_fused_residual(with_bias: bool) -> None:
    m = lib("triton/fused_residual.py")
    x, res = _leaf(3, 43, 300), _leaf(3, 43, 300)
    bias = _leaf(300) if with_bias else None
    inputs = (x, res, bias) if with_bias else (x, res)
    want = 0.7 * x + res + (bias if with_bias else 0.0)
    _check_fwd_bwd(m.fused_residual(x, res, bias, 0.7), want, inputs)


def test_triton_rope() -> None:
    m = lib("triton/rope.py")

    def rotate_half(t):
        half = t.shape[-1] // 2
        return torch.cat((-t[..., half:], t[..., :half]), dim=-1)

    bsz, n_qh, n_kh, seq_len, head_dim = 2, 5, 3, 7, 18
    q, k = _leaf(bsz, n_qh, seq_len, head_dim), _leaf(bsz, n_kh, seq_len, head_dim)
    inv_freq = 1.0 / (10000 ** (torch.arange(0, head_dim, 2).float() / head_dim))
    freqs = torch.outer(torch.arange(seq_len).float(), inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos(), emb.sin()
    got = m.liger_rotary_pos_emb(q, k, cos, sin)
    want = (q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin)
    _check_fwd_bwd(got, want, (q, k))
    q2, k2 = q.detach(), k.detach()
    back_q, back_k = m.rope_forward(q2, k2, cos, sin, backward_pass=True)
    torch.testing.assert_close(back_q, q2 * cos - rotate_half(q2) * sin)
    torch.testing.assert_close(back_k, k2 * cos - rotate_half(k2) * sin)


def test_triton_log_softmax() -> None:
    m = lib("triton/log_softmax.py")
    x = _leaf(3, 7, 37)
    _check_fwd_bwd(m.log_softmax(x), torch.log_softmax(x, -1), (x,))
    # Rows longer than MAX_ONE_PASS take the two-pass looped kernel.
    long = torch.randn(2, m.MAX_ONE_PASS + 9)
    torch.testing.assert_close(m.log_softmax_forward(long), torch.log_softmax(long, -1))
    y, dy = torch.log_softmax(torch.randn(5, 37), -1), torch.randn(5, 37)
    want = dy - torch.exp(y) * dy.sum(-1, keepdim=True)
    torch.testing.assert_close(m.log_softmax_backward(y, dy), want)


@pytest.mark.parametrize("reduction", ["batchmean", "sum", "mean", "none"])
@pytest.mark.parametrize("log_target", [False, True])
def test_triton_kl_div(reduction: str, log_target: bool) -> None:
    m = lib("triton/kl_div.py")
    assert [m.get_num_warps(b) for b in (1024, 2048, 8192, 32768)] == [4, 8, 16, 32]
    y_pred = torch.log_softmax(torch.randn(9, 37), -1).requires_grad_()
    y_true = torch.softmax(torch.randn(9, 37), -1)
    if log_target:
        y_true = y_true.log()
    got = m.kl_div(y_pred, y_true, reduction, log_target)
    want = F.kl_div(y_pred, y_true, reduction=reduction, log_target=log_target)
    _check_fwd_bwd(got, want, (y_pred,))
    if reduction == "sum":
        # The cotangent 1.0 skips the host multiply.
        (g,) = torch.autograd.grad(m.kl_div(y_pred, y_true, reduction, log_target), y_pred)
        want = F.kl_div(y_pred, y_true, reduction=reduction, log_target=log_target)
        (w,) = torch.autograd.grad(want, y_pred)
        torch.testing.assert_close(g, w)
    with pytest.raises(ValueError):
        m.kl_div(y_pred, y_true[:, :5])
    with pytest.raises(ValueError):
        m.kldiv_forward_triton(y_pred.detach(), y_true, log_target, "max", 1e-10)


def test_triton_embedding() -> None:
    m = lib("triton/embedding.py")
    weight = _leaf(29, 37)
    indices = torch.randint(0, 7, (3, 13))  # repeats: the backward's atomics race on rows
    _check_fwd_bwd(m.embedding(weight, indices), F.embedding(indices, weight), (weight,))
    with pytest.raises(ValueError):
        m.embedding(weight.detach()[0], indices)


@pytest.mark.parametrize(("smoothing", "reduction"), [(0.0, "mean"), (0.1, "mean"), (0.1, "sum")])
def test_triton_fused_linear_cross_entropy(smoothing: float, reduction: str) -> None:
    m = lib("triton/fused_linear_cross_entropy.py")
    # V > H: chunks of 8 of the 19 rows, the last one ragged.
    x, w = _leaf(19, 13), _leaf(37, 13)
    target = torch.randint(0, 37, (19,))
    target[::4] = -100
    got = m.fused_linear_cross_entropy(x, w, target, -100, smoothing, reduction)
    want = F.cross_entropy(
        x @ w.t(), target, ignore_index=-100, label_smoothing=smoothing, reduction=reduction
    )
    _check_fwd_bwd(got, want, (x, w), rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError):
        m.fused_linear_cross_entropy(x, w, target, reduction="none")


def test_triton_jagged() -> None:
    m = lib("triton/jagged.py")
    values = torch.randn(23, 37)
    offsets = torch.tensor([0, 5, 5, 17, 23])  # an empty sequence in the middle
    rows = [values[offsets[b] : offsets[b + 1]] for b in range(4)]
    torch.testing.assert_close(m.jagged_sum(values, offsets), torch.stack([r.sum(0) for r in rows]))
    means = torch.stack([r.mean(0) if len(r) else torch.zeros(37) for r in rows])
    torch.testing.assert_close(m.jagged_mean(values, offsets), means)


def test_triton_splitk_gemm() -> None:
    m = lib("triton/splitk_gemm.py")
    a, b = torch.randn(19, 300), torch.randn(300, 45)
    torch.testing.assert_close(m.splitk_gemm(a, b), a @ b, rtol=1e-4, atol=1e-4)
    x, w = torch.randn(2, 5, 300), torch.randn(45, 300)
    torch.testing.assert_close(m.linear_decode(x, w), F.linear(x, w), rtol=1e-4, atol=1e-4)
    # Many rows take cuBLAS instead.
    x = torch.randn(m.SPLIT_K_MAX_ROWS + 1, 300)
    torch.testing.assert_close(m.linear_decode(x, w), F.linear(x, w), rtol=1e-4, atol=1e-4)


def test_triton_dropout() -> None:
    m = lib("triton/dropout.py")
    x = _leaf(3, 7, 37)
    out = m.seeded_dropout(x, 0.3, seed=7)
    generator = torch.Generator().manual_seed(7)
    keep = torch.rand(x.shape, generator=generator) > 0.3
    want = torch.where(keep, x / 0.7, 0.0)
    _check_fwd_bwd(out, want, (x,))
    torch.testing.assert_close(m.seeded_dropout(x, 0.3, seed=7), out)  # the seed fixes the mask
    assert not torch.equal(m.seeded_dropout(x, 0.3, seed=8), out)
    with pytest.raises(ValueError):
        m.seeded_dropout(x, 1.0)


def _philox_keep(seed: int, offsets: torch.Tensor, p: float) -> torch.Tensor:
    """Which elements survive dropout at ``offsets``: Helion's own reference Philox (an
    implementation independent of the kernels and of tiletrans's interpreter)."""
    from helion._compiler.rng_utils import philox_rand_ref

    return philox_rand_ref(seed, offsets) > p


def test_triton_seeded_dropout_draws_the_mask_in_the_kernel() -> None:
    m = lib("triton/seeded_dropout.py")
    x = _leaf(3, 7, 37)
    seed = 2**33 + 7  # both 32-bit words of the key matter
    out = m.low_mem_dropout(x, 0.3, seed=seed)
    keep = _philox_keep(seed, torch.arange(x.numel()), 0.3).reshape(x.shape)
    assert 0.6 < keep.float().mean() < 0.8
    _check_fwd_bwd(out, torch.where(keep, x / 0.7, 0.0), (x,))
    assert not torch.equal(m.low_mem_dropout(x, 0.3, seed=seed + 1), out)
    with pytest.raises(ValueError):
        m.low_mem_dropout(x, 1.0)
    x, residual = torch.randn(19, 70), torch.randn(19, 70)
    rows, cols = torch.arange(19)[:, None], torch.arange(70)[None, :]
    keep = _philox_keep(5, rows * 70 + cols, 0.25)
    torch.testing.assert_close(
        m.dropout_add(x, residual, 0.25, 5), residual + torch.where(keep, x / 0.75, 0.0)
    )


def test_helion_dropout_draws_triton_s_mask_of_the_same_seed() -> None:
    m = lib("helion/dropout.py")
    x = _leaf(3, 7, 37)
    out = m.dropout(x, 0.3, seed=9)
    keep = _philox_keep(9, torch.arange(x.numel()), 0.3).reshape(x.shape)
    _check_fwd_bwd(out, torch.where(keep, x / 0.7, 0.0), (x,))
    # Row-major counters over the whole tensor: the mask of Triton's flat dropout.
    torch.testing.assert_close(out, lib("triton/seeded_dropout.py").low_mem_dropout(x, 0.3, 9))
    with pytest.raises(ValueError):
        m.dropout(x, -0.1)
    y = torch.randn(5, 40)
    torch.testing.assert_close(m.dropout_fwd(y, 0.5, 3), m.dropout(y, 0.5, 3))


def _jsd_ref(x, y, beta, labels=None, ignore_index=-100):
    q, p = x.exp(), y.exp()
    if beta == 0.0:
        per = p * (y - x)
    elif beta == 1.0:
        per = q * (x - y)
    else:
        m = beta * p + (1 - beta) * q
        per = beta * p * y + (1 - beta) * q * x - m * m.log()
    keep = torch.ones(x.shape[0], dtype=torch.bool) if labels is None else labels != ignore_index
    return (per.sum(-1) * keep).sum() / keep.sum()


@pytest.mark.parametrize("beta", [0.0, 0.3, 1.0])
@pytest.mark.parametrize("with_labels", [False, True])
def test_triton_jsd(beta: float, with_labels: bool) -> None:
    m = lib("triton/jsd.py")
    x = torch.log_softmax(torch.randn(10, 37), -1).requires_grad_()
    y = torch.log_softmax(torch.randn(10, 37), -1)
    labels = None
    if with_labels:
        labels = torch.randint(0, 37, (10,))
        labels[::3] = -100
    _check_fwd_bwd(m.jsd(x, y, labels, beta), _jsd_ref(x, y, beta, labels), (x,))
    with pytest.raises(ValueError):
        m.jsd(x, y, labels, 1.5)


# ------------------------------------------------------------------------------------------------
# Helion corpus


def test_helion_scaled_add() -> None:
    m = lib("helion/scaled_add.py")
    x, y = torch.randn(3, 37, 100), torch.randn(100)
    torch.testing.assert_close(m.axpby(x, y, 0.5, -2.0), 0.5 * x - 2.0 * y)
    torch.testing.assert_close(m.scaled_add(x, y, 3.0), torch.add(x, y, alpha=3.0))
    # Broadcasting both ways, and fp32 + fp16 promotes to fp32.
    a, b = torch.randn(37, 1), torch.randn(37, 45, dtype=torch.float16)
    out = m.axpby(a, b)
    assert out.dtype == torch.float32
    torch.testing.assert_close(out, a + b)


# log() of the padded lanes of the row tile (masked out of the result) divides by zero.
@pytest.mark.filterwarnings("ignore:divide by zero encountered in log:RuntimeWarning")
def test_helion_softmax() -> None:
    m = lib("helion/softmax.py")
    x = torch.randn(3, 37, 100)
    torch.testing.assert_close(m.softmax_lastdim(x), torch.softmax(x, -1))
    torch.testing.assert_close(m.log_softmax_lastdim(x), torch.log_softmax(x, -1))
    torch.testing.assert_close(m.softmax(x), torch.softmax(x, -1))
    torch.testing.assert_close(m.log_softmax(x, dim=-1), torch.log_softmax(x, -1))
    torch.testing.assert_close(m.softmax(x, dim=1), torch.softmax(x, 1))
    torch.testing.assert_close(m.log_softmax(x, dim=1), torch.log_softmax(x, 1))


def test_helion_jagged() -> None:
    m = lib("helion/jagged.py")
    values = torch.randn(60, 37)
    # An empty sequence in the middle, one of several row blocks (the configs' 16 rows), and
    # more sequences than jagged_mean's tile of 4 (the last tile ragged).
    offsets = torch.tensor([0, 5, 5, 41, 44, 60])
    rows = [values[offsets[b] : offsets[b + 1]] for b in range(5)]
    torch.testing.assert_close(m.jagged_sum(values, offsets), torch.stack([r.sum(0) for r in rows]))
    means = torch.stack([r.mean(0) if len(r) else torch.zeros(37) for r in rows])
    torch.testing.assert_close(m.jagged_mean(values, offsets), means)


def _expert_rows(
    counts: list[int], k: int, n: int, dtype: torch.dtype = torch.float32
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Expert-sorted tokens, per-expert weights, their ``E + 1`` int64 offsets and what torch
    computes (each expert's rows times its own weight, in fp32)."""
    lengths = torch.tensor(counts)
    offsets = torch.cat([torch.zeros(1, dtype=torch.int64), lengths.cumsum(0)])
    x, w = torch.randn(int(lengths.sum()), k).to(dtype), torch.randn(len(counts), k, n).to(dtype)
    want = torch.cat(
        [x[offsets[e] : offsets[e + 1]].float() @ w[e].float() for e in range(len(counts))]
    )
    return x, w, offsets, want


def test_helion_moe_grouped_matmul() -> None:
    m = lib("helion/grouped_gemm.py")
    # Empty experts first, between and last; one expert across three of the config's 16-row
    # tiles and another a single token; int64 and int32 offsets alike.
    x, w, offsets, want = _expert_rows([0, 5, 0, 40, 1, 17, 0], 45, 37)
    for offs in (offsets, offsets.to(torch.int32)):
        torch.testing.assert_close(m.moe_grouped_matmul(x, w, offs), want, rtol=1e-4, atol=1e-4)
    counts = offsets.diff()
    torch.testing.assert_close(
        m.moe_grouped_matmul_from_counts(x, w, counts), want, rtol=1e-4, atol=1e-4
    )
    # fp16 operands, fp32 accumulation.
    x, w, offsets, want = _expert_rows([3, 0, 20], 33, 29, torch.float16)
    got = m.moe_grouped_matmul(x, w, offsets)
    assert got.dtype == torch.float16
    torch.testing.assert_close(got.float(), want, rtol=1e-2, atol=1e-2)
    with pytest.raises(ValueError, match="experts \\+ 1"):
        m.moe_grouped_matmul(x, w, offsets[:-1])


def test_helion_matmul() -> None:
    m = lib("helion/matmul.py")
    a, b, bias = torch.randn(37, 45), torch.randn(45, 29), torch.randn(29)
    torch.testing.assert_close(m.matmul(a, b), a @ b, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(m.matmul_bias(a, b, bias), a @ b + bias, rtol=1e-4, atol=1e-4)
    x, w = torch.randn(3, 13, 45), torch.randn(29, 45)
    torch.testing.assert_close(m.linear(x, w), F.linear(x, w), rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(m.linear(x, w, bias), F.linear(x, w, bias), rtol=1e-4, atol=1e-4)


def test_triton_flash_attention_forward_and_backward() -> None:
    m = lib("triton/attention_bwd.py")
    q, k, v = _leaf(2, 3, 37, 16), _leaf(2, 3, 37, 16), _leaf(2, 3, 37, 16)
    want = torch.softmax(q @ k.transpose(-1, -2) * 0.25, -1) @ v
    _check_fwd_bwd(m.flash_attention(q, k, v, 0.25), want, (q, k, v), rtol=1e-4, atol=1e-4)


def test_triton_grouped_gemm_over_a_pointer_table() -> None:
    m = lib("triton/grouped_gemm.py")
    shapes = [(17, 45, 37), (40, 16, 9), (5, 70, 33)]  # (m, k, n) of each group
    a = [torch.randn(s[0], s[1]).half() for s in shapes]
    b = [torch.randn(s[1], s[2]).half() for s in shapes]
    # The kernel reaches its groups through a table of addresses, which the interpreter's
    # bounds guard (which knows only the tensors a launch passes) cannot follow.
    with bounds_guard.unguarded():
        outs = m.grouped_matmul(a, b)
    for got, x, y in zip(outs, a, b, strict=True):
        assert got.dtype == torch.float16
        torch.testing.assert_close(got.float(), x.float() @ y.float(), rtol=1e-2, atol=1e-2)


def test_triton_moe_grouped_gemm() -> None:
    m = lib("triton/moe_grouped_gemm.py")
    # Empty experts first, between and last, one expert across three of the first config's
    # 16-row tiles; the rows of every expert, and no others, are written.
    x, w, offsets, want = _expert_rows([0, 5, 0, 40, 1, 17, 0], 45, 37)
    for offs in (offsets, offsets.to(torch.int32)):
        torch.testing.assert_close(m.moe_grouped_gemm(x, w, offs), want, rtol=1e-4, atol=1e-4)
    x, w, offsets, want = _expert_rows([3, 0, 20], 33, 29, torch.float16)
    got = m.moe_grouped_gemm(x, w, offsets)
    assert got.dtype == torch.float16
    torch.testing.assert_close(got.float(), want, rtol=1e-2, atol=1e-2)


def test_triton_streamk_gemm() -> None:
    m = lib("triton/streamk_gemm.py")
    # 3 x 2 tiles of 3 K iterations over 5 programs: programs split tiles between them.
    a, b = torch.randn(37, 45), torch.randn(45, 29)
    torch.testing.assert_close(m.streamk_matmul(a, b), a @ b, rtol=1e-4, atol=1e-4)


def test_triton_matmul_activation() -> None:
    m = lib("triton/matmul_activation.py")
    a, b = torch.randn(37, 45), torch.randn(45, 29)
    close = {"rtol": 1e-4, "atol": 1e-4}
    torch.testing.assert_close(m.matmul(a, b), a @ b, **close)
    torch.testing.assert_close(m.matmul_leaky_relu(a, b), F.leaky_relu(a @ b, 0.01), **close)
    torch.testing.assert_close(m.matmul_gelu(a, b), F.gelu(a @ b, approximate="tanh"), **close)
    with pytest.raises(ValueError):
        m.matmul(a, b, "relu")


def test_helion_matmul_epilogue() -> None:
    m = lib("helion/matmul_epilogue.py")
    a, b, bias, res = torch.randn(37, 45), torch.randn(45, 29), torch.randn(29), torch.randn(37, 29)
    close = {"rtol": 1e-4, "atol": 1e-4}
    torch.testing.assert_close(m.matmul(a, b), a @ b, **close)
    torch.testing.assert_close(m.matmul_bias_relu(a, b, bias), torch.relu(a @ b + bias), **close)
    torch.testing.assert_close(m.matmul_gelu(a, b), F.gelu(a @ b, approximate="tanh"), **close)
    torch.testing.assert_close(m.matmul_residual(a, b, res, 0.5), 0.5 * (a @ b) + res, **close)


def test_helion_addmm_closure() -> None:
    m = lib("helion/addmm_closure.py")
    bias, x, w = _leaf(45), _leaf(17, 37), _leaf(37, 45)
    want = torch.addmm(bias, x, w, beta=2.0, alpha=0.5)
    _check_fwd_bwd(m.addmm(bias, x, w, 0.5, 2.0), want, (bias, x, w))


def test_helion_broadcast_add() -> None:
    m = lib("helion/broadcast_add.py")
    x, y = torch.randn(5, 37), torch.randn(37, dtype=torch.float64)
    got = m.broadcast_add(x, y)
    assert got.dtype == torch.float64
    torch.testing.assert_close(got, x + y)
    a, b = torch.randn(2, 3, 7), torch.randn(2, 3, 7)
    torch.testing.assert_close(m.scaled_sum(a, b, 0.5), a + 0.5 * b)


def test_helion_jagged_feature_mean() -> None:
    m = lib("helion/jagged_features.py")
    lengths, counts = torch.tensor([3, 0, 40, 2]), torch.tensor([1, 5, 37, 20])
    offsets = torch.cat([torch.zeros(1, dtype=torch.int64), lengths.cumsum(0)])
    values = torch.randn(int(lengths.sum()), 37)
    want = torch.zeros(4, 37)
    for b in range(4):
        rows = values[offsets[b] : offsets[b + 1], : counts[b]]
        if len(rows):
            want[b, : counts[b]] = rows.mean(0)
    torch.testing.assert_close(m.jagged_feature_mean(values, offsets, counts, 37), want)


def test_helion_kl_div_rows() -> None:
    m = lib("helion/kl_div_rows.py")
    y_pred = torch.log_softmax(torch.randn(6, 37), -1).requires_grad_()
    y_true = torch.softmax(torch.randn(6, 37), -1)
    for fn, reduction in ((m.kl_div_elementwise, "none"), (m.kl_div_batchmean, "batchmean")):
        want = F.kl_div(y_pred, y_true, reduction=reduction)
        _check_fwd_bwd(fn(y_pred, y_true), want, (y_pred,))


def test_helion_rms_norm_blocked() -> None:
    # 129 rows: five row blocks of the backward's partials, the last ragged.
    m = lib("helion/rms_norm_blocked.py")
    x, w = _leaf(129, 100), _leaf(100)
    _check_fwd_bwd(m.rms_norm_blocked(x, w, 1e-6), _rms_norm_ref(x, w, 1e-6), (x, w))


def test_helion_rms_norm() -> None:
    m = lib("helion/rms_norm.py")
    x, w = _leaf(3, 43, 100), _leaf(100)
    _check_fwd_bwd(m.rms_norm(x, w, 1e-6), _rms_norm_ref(x, w, 1e-6), (x, w))
    x2, w2 = x.detach(), w.detach()
    out, rstd = m.rms_norm_fwd(x2, w2, 1e-6)
    torch.testing.assert_close(out, _rms_norm_ref(x2, w2, 1e-6))
    torch.testing.assert_close(rstd, torch.rsqrt(x2.pow(2).mean(-1) + 1e-6).reshape(-1))
    x_2d, dy = x2.reshape(-1, 100), torch.randn(129, 100)
    grad_x, grad_w_partial = m.rms_norm_bwd(dy, x_2d, w2, rstd)
    x_ref = x_2d.clone().requires_grad_()
    w_ref = w2.clone().requires_grad_()
    want_x, want_w = torch.autograd.grad(_rms_norm_ref(x_ref, w_ref, 1e-6), (x_ref, w_ref), dy)
    torch.testing.assert_close(grad_x, want_x)
    torch.testing.assert_close(grad_w_partial.sum(0), want_w)


def test_helion_glu() -> None:
    m = lib("helion/glu.py")
    a, b = _leaf(3, 37, 100), _leaf(3, 37, 100)
    _check_fwd_bwd(m.swiglu(a, b), F.silu(a) * b, (a, b))
    a2, b2, dy = a.detach(), b.detach(), torch.randn(3, 37, 100)
    torch.testing.assert_close(m.swiglu_fwd(a2, b2), F.silu(a2) * b2)
    grad_a, grad_b = m.swiglu_bwd(dy, a2, b2)
    sig = torch.sigmoid(a2)
    torch.testing.assert_close(grad_b, dy * F.silu(a2))
    torch.testing.assert_close(grad_a, dy * b2 * (sig + a2 * sig * (1 - sig)))
    a3, b3 = torch.randn(37, 100), torch.randn(100)
    torch.testing.assert_close(m.geglu(a3, b3), F.gelu(a3, approximate="tanh") * b3)


def test_helion_layer_norm() -> None:
    m = lib("helion/layer_norm.py")
    x, w, b = torch.randn(3, 43, 100), torch.randn(100), torch.randn(100)
    torch.testing.assert_close(m.layer_norm(x, (100,), w, b), F.layer_norm(x, (100,), w, b))
    torch.testing.assert_close(m.layer_norm(x, [100], w), F.layer_norm(x, (100,), w))
    out, mean, rstd = m.layer_norm_fwd(x, w, b, 1e-5)
    torch.testing.assert_close(out, F.layer_norm(x, (100,), w, b))
    torch.testing.assert_close(mean, x.mean(-1).reshape(-1))
    torch.testing.assert_close(rstd, torch.rsqrt(x.var(-1, unbiased=False) + 1e-5).reshape(-1))


def test_helion_mixed_matmul() -> None:
    m = lib("helion/mixed_matmul.py")
    w = torch.randn(45, 29)
    w_int8, scale = m.quantize_weight(w)
    assert w_int8.dtype == torch.int8 and scale.shape == (29,)
    torch.testing.assert_close(w_int8.float() * scale, w, atol=scale.max().item(), rtol=0)
    for dtype in (torch.float32, torch.float16):
        x = torch.randn(3, 13, 45, dtype=dtype)
        want = (x.float() @ w_int8.float() * scale).to(dtype)
        got = m.linear_w8a16(x, w_int8, scale)
        assert got.dtype == dtype and got.shape == (3, 13, 29)
        torch.testing.assert_close(got, want, rtol=1e-2, atol=1e-2)
    with pytest.raises(TypeError):
        m.linear_w8a16(x, w, scale)


def test_helion_geglu() -> None:
    m = lib("helion/geglu.py")
    a, b = _leaf(3, 7, 37), _leaf(3, 7, 37)
    _check_fwd_bwd(m.geglu(a, b), F.gelu(a, approximate="tanh") * b, (a, b))
    with pytest.raises(ValueError):
        m.geglu(a, b[..., :5])


def test_helion_layer_norm_grad() -> None:
    m = lib("helion/layer_norm_grad.py")
    x, w, b = _leaf(3, 7, 37), _leaf(37), _leaf(37)
    got = m.layer_norm(x, (37,), w, b, 1e-5)
    _check_fwd_bwd(got, F.layer_norm(x, (37,), w, b, 1e-5), (x, w, b))
    with pytest.raises(ValueError):
        m.layer_norm(x, (7, 37), w, b)


def test_helion_causal_attention() -> None:
    m = lib("helion/causal_attention.py")
    q, k, v = (torch.randn(2, 3, 37, 16) for _ in range(3))
    want = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    torch.testing.assert_close(m.causal_attention(q, k, v), want, rtol=1e-4, atol=1e-4)
    want = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.1)
    torch.testing.assert_close(m.causal_attention(q, k, v, 0.1), want, rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError):
        m.causal_attention(q, k[:, :2], v)


def test_helion_group_norm() -> None:
    m = lib("helion/group_norm.py")
    x, w, b = _leaf(2, 6, 5, 7), _leaf(6), _leaf(6)
    _check_fwd_bwd(m.group_norm(x, 3, w, b), F.group_norm(x, 3, w, b), (x, w, b))
    x, w, b = x.detach(), w.detach(), b.detach()
    out, mean, rstd = m.group_norm_fwd(x.reshape(2, 3, 2, 35), w.view(3, 2), b.view(3, 2))
    groups = x.reshape(2, 3, -1)
    torch.testing.assert_close(mean, groups.mean(-1))
    torch.testing.assert_close(rstd, torch.rsqrt(groups.var(-1, unbiased=False) + 1e-5))
    with pytest.raises(ValueError):
        m.group_norm(x, 4, w, b)
