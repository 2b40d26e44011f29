"""Dead host code: what a translation leaves unread is removed when pure, everything else kept.

Unit cases run :func:`~translator.dialects.common.dead_host.remove_dead_host` on small modules
(before -> after); end-to-end cases translate a Triton module and check the launch's leftovers
(block size, warps, grid lambda, the source DSL's import) are gone while the host code that
still matters stays.
"""

from __future__ import annotations

import ast
import textwrap

import libcst as cst
import pytest

from translator.api import translate_source
from translator.dialects.common.dead_host import remove_dead_host


def _clean(before: str, source: str | None = None, skip: tuple[str, ...] = ()) -> str:
    """``before`` (dedented) with its dead pure host code removed (``source``: the module it was
    translated from, whose own dead code is kept; none by default)."""
    text = textwrap.dedent(before)
    return remove_dead_host(cst.parse_module(text), source=source, skip=skip).code


REMOVED = [
    pytest.param(
        """
        import triton

        def is_hip():
            return triton.runtime.driver.active.get_current_target().backend == "hip"

        def f(x, num_regs, n_regs):
            num_warps = 8
            if is_hip():
                if x.dim() == 2:
                    wide = num_regs * 2
                occupancy = num_regs * 2 // (n_regs * num_warps)
            else:
                occupancy = num_regs // (n_regs * num_warps)
            return x
        """,
        """
        import triton

        def is_hip():
            return triton.runtime.driver.active.get_current_target().backend == "hip"

        def f(x, num_regs, n_regs):
            return x
        """,
        id="an-if-that-binds-only-dead-names",
    ),
    pytest.param(
        """
        import triton

        def f(x):
            n = x.numel()
            BLOCK = triton.next_power_of_2(n)
            num_warps = 8 if BLOCK >= 2048 else 4
            return x
        """,
        """
        import triton

        def f(x):
            return x
        """,
        id="pure-locals-chain",
    ),
    pytest.param(
        """
        import triton

        def f(x, n):
            grid = lambda meta: (triton.cdiv(n, meta["B"]),)

            def grid(meta):
                return (triton.cdiv(x.size(0), meta["B"]),)

            k[grid](x)
        """,
        """
        import triton

        def f(x, n):
            def grid(meta):
                return (triton.cdiv(x.size(0), meta["B"]),)

            k[grid](x)
        """,
        id="grid-lambda-redefined",
    ),
    pytest.param(
        """
        def f(x):
            BLOCK_M, BLOCK_N, BLOCK_K = 64, 64, 32
            k(x, BLOCK_M, BLOCK_N)
        """,
        """
        def f(x):
            BLOCK_M, BLOCK_N = 64, 64
            k(x, BLOCK_M, BLOCK_N)
        """,
        id="literal-tuple-element",
    ),
    pytest.param(
        """
        def _warps(block):
            if block >= 2048:
                w = 8
            else:
                w = 4
            return w


        def f(x):
            num_warps = _warps(x.size(1))
            return x
        """,
        """
        def f(x):
            return x
        """,
        id="pure-helper-then-unused-helper",
    ),
    pytest.param(
        """
        def f(x, flag):
            if flag:
                n = x.shape[0] * 2
                x = x + 1
            return x
        """,
        """
        def f(x, flag):
            if flag:
                x = x + 1
            return x
        """,
        id="inside-if",
    ),
]


@pytest.mark.parametrize(("before", "after"), REMOVED)
def test_dead_pure_statements_are_removed(before: str, after: str) -> None:
    assert _clean(before) == textwrap.dedent(after)


KEPT = [
    pytest.param(
        """
        def f(x, y, n):
            if n > 0:
                y[0] = 5.0
                nw = 8
            else:
                nw = 4
            return x
        """,
        id="an-if-that-also-writes-a-tensor",
    ),
    pytest.param(
        """
        def f(x, n_regs):
            num_warps = 8
            for _ in range(2):
                occupancy = n_regs * num_warps
            return x
        """,
        id="what-a-kept-last-statement-reads",
    ),
    pytest.param(
        """
        def f(x):
            n = helper(x)
            y = x.sum().item()
            return x
        """,
        id="impure-calls",
    ),
    pytest.param(
        """
        import triton

        def f(x):
            BLOCK = triton.next_power_of_2(x.size(1))
            k[(1,)](x, BLOCK=BLOCK)
            return x
        """,
        id="read-by-a-later-launch",
    ),
    pytest.param(
        """
        def f(x):
            n = x.numel()
            out = x.new_empty(n)
            return n, out
        """,
        id="returned",
    ),
    pytest.param(
        """
        import triton

        BLOCK = triton.next_power_of_2(1000)
        _CONFIG = {"BLOCK": BLOCK}
        __all__ = ["_CONFIG"]
        """,
        id="module-level-public-and-exported",
    ),
    pytest.param(
        """
        def f(x):
            m, n = x.shape
            return x
        """,
        id="unpacking-that-could-fail",
    ),
    pytest.param(
        """
        def f(x, y):
            x += y
            return y
        """,
        id="augmented-assignment",
    ),
    pytest.param(
        """
        def f(x):
            n = x.numel()
            g = lambda: n
            n = 2 * n
            return g
        """,
        id="captured-by-a-closure",
    ),
    pytest.param(
        """
        def f(x):
            n = x.numel()
            return locals()
        """,
        id="locals-introspection",
    ),
    pytest.param(
        """
        def f(x):
            y = 0
            for i in range(3):
                y = x.size(0)
                if i > 1:
                    break
                y = 1
            return y
        """,
        id="read-after-break",
    ),
    pytest.param(
        """
        def f(x):
            for _ in range(2):
                n = x.size(1)
            return x
        """,
        id="last-statement-of-a-block",
    ),
]


@pytest.mark.parametrize("before", KEPT)
def test_impure_used_or_public_statements_are_kept(before: str) -> None:
    assert _clean(before) == textwrap.dedent(before)


def test_what_the_source_left_unread_is_kept() -> None:
    text = "def f(x):\n    n = x.numel()\n    return x\n"
    assert _clean(text, source=text) == text


def test_kernels_are_skipped() -> None:
    text = "def kern(x):\n    n = x.numel()\n    return x\n"
    assert _clean(text, skip=("kern",)) == text


def test_what_a_kernel_reads_stays_and_the_kernel_comes_back_whole() -> None:
    # Kernel bodies are not analysed (cut to what they read, then put back): a private module
    # constant only a kernel reads stays; one nothing reads goes, its comment moving onto the
    # kernel below it, which must come back with its own body.
    text = textwrap.dedent(
        """
        _EPS = 1e-6
        # Scratch.
        _UNUSED = 3


        def kern(x, out):
            y = x + _EPS
            out[0] = y


        def host(x):
            return x
        """
    )
    assert _clean(text, skip=("kern",)) == text.replace(
        "_UNUSED = 3\n", "# tiletrans: dropped `_UNUSED`, which nothing in the translation reads\n"
    )


def test_comments_move_onto_a_rebinding_or_stay_with_a_note() -> None:
    after = _clean(
        """
        def f(x, n):
            # The launch grid.
            grid = lambda meta: (n,)
            grid = (x.size(0),)
            # Warps for big rows.
            num_warps = 8
            num_stages = 2
            k[grid](x)  # launch
        """
    )
    assert after == textwrap.dedent(
        """
        def f(x, n):
            # The launch grid.
            grid = (x.size(0),)
            # Warps for big rows.
            # tiletrans: dropped `num_warps`, `num_stages`, which nothing in the translation reads
            k[grid](x)  # launch
        """
    )


TRITON_SOURCE = '''\
"""A row sum."""

import torch
import triton
import triton.language as tl


@triton.jit
def row_sum_kernel(x_ptr, out_ptr, N, stride, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + row * stride + cols, mask=cols < N, other=0.0)
    tl.store(out_ptr + row, tl.sum(x, axis=0))


def row_sum(x: torch.Tensor) -> torch.Tensor:
    M, N = x.shape
    out = torch.empty((M,), device=x.device, dtype=x.dtype)
    BLOCK_N = triton.next_power_of_2(N)
    num_warps = 8 if BLOCK_N >= 2048 else 4
    num_programs = report(M)
    grid = lambda meta: (M,)
    row_sum_kernel[grid](x, out, N, x.stride(0), BLOCK_N=BLOCK_N, num_warps=num_warps)
    return out


def report(m):
    print(m)
    return m
'''


def test_triton_to_helion_drops_the_launch_leftovers_and_the_triton_import() -> None:
    text = translate_source(TRITON_SOURCE, "row_sum.py", "triton", "helion")
    host = text[text.index("def row_sum(") :]
    for gone in ("BLOCK_N =", "num_warps =", "grid ="):
        assert gone not in host
    assert "num_programs = report(M)" in host  # impure: kept though unread
    assert "out = torch.empty" in host and "return out" in host
    imports = {
        alias.name
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    assert "triton" not in imports and "helion" in imports
    compile(text, "row_sum.py", "exec")
