"""Tests of the ``tiletrans`` command line: outputs, exit codes and diagnostics.

Each case runs the installed ``tiletrans`` in a subprocess (:mod:`tests.cli_run`), as a user
would; the one that monkeypatches the translator runs it in this process
(:func:`translator.cli.invoke`).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

# `validate` runs kernels in the Triton interpreter; set it before anything imports triton.
os.environ["TRITON_INTERPRET"] = "1"

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pytest  # noqa: E402
from cli_run import tiletrans  # noqa: E402

from translator.cli import invoke  # noqa: E402

EXAMPLES = ROOT / "examples" / "helion"

KERNEL = """\
import helion
import helion.language as hl
import torch


@helion.kernel()
def f(x: torch.Tensor) -> torch.Tensor:
    m, n = x.size()
    out = torch.empty_like(x)
    for tile_m in hl.tile(m):
{body}
    return out
"""

# name → (kernel body, the line of the offending construct)
UNSUPPORTED = {
    "slice": ("        out[tile_m, :4] = x[tile_m, 1:5]", 11),
    "while-else": (
        "        v = x[tile_m, :]\n        while v.sum() > 0:\n            v = v - 1\n"
        "        else:\n            v = v + 1",
        12,
    ),
    "listcomp": ("        out[tile_m, :] = [v for v in x[tile_m, :]]", 11),
    "try": (
        "        try:\n            out[tile_m, :] = x[tile_m, :]\n        except Exception:\n"
        "            pass",
        11,
    ),
}


def run(*args: object):
    """``tiletrans ARGS...``, the installed command, in a subprocess."""
    return tiletrans(*args)


def assert_diagnostic(result, path: Path, line: int) -> None:
    """Exit 2 with ``file:line:col: error:``, the source line, a caret and a help line."""
    assert result.exit_code == 2, result.output
    err = result.stderr
    assert "Traceback" not in result.output
    assert re.search(rf"{re.escape(str(path))}:{line}:\d+: error: ", err), err
    lines = err.splitlines()
    caret = next(i for i, text in enumerate(lines) if text.strip() == "^")
    assert lines[caret - 1].startswith(f"{line:>5} | "), err
    assert any(text.startswith("help: ") for text in lines), err


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / f"{name}.py"
    p.write_text(text)
    return p


# --- translation


def test_helion2triton_prints_triton():
    result = run("helion2triton", EXAMPLES / "softmax.py")
    assert result.exit_code == 0, result.output
    assert "@triton.jit" in result.stdout and "def softmax(" in result.stdout
    assert result.stderr == ""


def test_helion2triton_writes_output_file(tmp_path):
    out = tmp_path / "softmax_triton.py"
    result = run("helion2triton", EXAMPLES / "softmax.py", "-o", out)
    assert result.exit_code == 0, result.output
    assert "@triton.jit" in out.read_text()
    assert result.stdout == ""
    compile(out.read_text(), str(out), "exec")


def test_translate_with_dialect_options(tmp_path):
    result = run("translate", EXAMPLES / "relu.py", "--from", "helion", "--to", "triton")
    assert result.exit_code == 0 and "@triton.jit" in result.stdout
    bad = run("translate", EXAMPLES / "relu.py", "--to", "cobol")
    assert bad.exit_code == 3  # a usage error
    assert "invalid choice: 'cobol'" in bad.stderr and "choose from" in bad.stderr


def test_ir_prints_entries():
    result = run("ir", EXAMPLES / "matmul.py")
    assert result.exit_code == 0, result.output
    assert "entry matmul(" in result.stdout and "kernel " in result.stdout


# --- refusals


def test_syntax_error(tmp_path):
    p = write(tmp_path, "syntax", KERNEL.format(body="        out[tile_m, :] = x[tile_m, :] +"))
    result = run("helion2triton", p)
    assert result.exit_code == 2
    assert "syntax error" in result.stderr
    # The parser reports where it gave up (the line after the dangling `+`).
    assert_diagnostic(result, p, int(re.search(r":(\d+):\d+: error", result.stderr).group(1)))


def test_no_kernel(tmp_path):
    p = write(tmp_path, "plain", "import torch\n\n\ndef f(x):\n    return x + 1\n")
    result = run("helion2triton", p)
    assert_diagnostic(result, p, 1)
    assert "no @helion.kernel" in result.stderr


def test_missing_file(tmp_path):
    result = run("helion2triton", tmp_path / "nope.py")
    assert result.exit_code == 2
    assert "nope.py:1:1: error: cannot read" in result.stderr
    assert "Traceback" not in result.output


@pytest.mark.parametrize("name", sorted(UNSUPPORTED))
def test_unsupported_construct(tmp_path, name):
    body, line = UNSUPPORTED[name]
    p = write(tmp_path, name, KERNEL.format(body=body))
    assert_diagnostic(run("helion2triton", p), p, line)


def test_star_arguments_are_refused_where_they_are_written(tmp_path):
    # The helper that splits a call's arguments sees no positions: the refusal carries the
    # starred argument and the reader of the file locates it (it said `<input>: error`).
    text = KERNEL.format(body="        out[tile_m, :] = x[tile_m, :]")
    p = write(tmp_path, "star", text.replace("hl.tile(m)", "hl.tile(*x.shape[:1])"))
    result = run("helion2triton", p)
    assert_diagnostic(result, p, 10)
    assert f"{p}:10:27: error: star arguments (`*x.shape[:1]`)" in result.stderr


def test_unsupported_call_is_located(tmp_path):
    p = write(
        tmp_path,
        "nonzero",
        KERNEL.format(body="        out[tile_m, :] = torch.nonzero(x[tile_m, :])"),
    )
    result = run("helion2triton", p)
    assert result.exit_code == 2
    assert re.search(rf"{re.escape(str(p))}:11:\d+: error: .*nonzero", result.stderr)
    assert any(t.strip() == "^" for t in result.stderr.splitlines())


def test_unsupported_call_has_help(tmp_path):
    p = write(
        tmp_path,
        "nonzero",
        KERNEL.format(body="        out[tile_m, :] = torch.nonzero(x[tile_m, :])"),
    )
    assert "help: " in run("helion2triton", p).stderr


def _caret_column(stderr: str) -> tuple[str, int]:
    """The echoed source text and the index in it that the caret points at."""
    lines = stderr.splitlines()
    caret = next(i for i, text in enumerate(lines) if text.strip() == "^")
    gutter, shown = lines[caret - 1].split(" | ", 1)
    return shown, lines[caret].index("^") - len(gutter) - len(" | ")


def test_a_very_long_source_line_is_echoed_around_the_column(tmp_path):
    # A 500-term sum on one line (4,000 characters): refused past the operator limit, the
    # diagnostic echoes 100 characters around where the limit is passed, not the whole line.
    terms = " + ".join(f"x{i}" for i in range(500))
    p = write(tmp_path, "sum", KERNEL.format(body="        out[tile_m, :] = x[tile_m, :]")
              + f"\n\ny = {terms}\n")  # fmt: skip
    result = run("helion2triton", p)
    assert_diagnostic(result, p, 15)
    col = int(re.search(r":15:(\d+): error: too deep", result.stderr).group(1)) - 1
    source = p.read_text().splitlines()[14]
    assert len(source) > 3000 and col > 200
    shown, at = _caret_column(result.stderr)
    assert len(shown) == 100 and shown.startswith("…") and shown.endswith("…")
    assert shown.strip("…") in source
    # The caret is under the very character the column names, with some of the line before it.
    start = source.index(shown.strip("…"))
    assert shown[at] == source[col] and at - 1 + start == col and at > 20
    assert max(len(line) for line in result.stderr.splitlines()[1:3]) <= 110


def test_code_quoted_in_a_message_is_shortened_in_every_format(tmp_path):
    # An unsupported call around a long expression: the message quotes the call, cut to its
    # start and end; the source line is cut too (its start, with the caret, shown).
    product = " * ".join(["x[tile_m, :]"] * 60)
    p = write(
        tmp_path, "quote", KERNEL.format(body=f"        out[tile_m, :] = torch.nonzero({product})")
    )
    text = run("helion2triton", p)
    assert_diagnostic(text, p, 11)
    first = text.stderr.splitlines()[0]
    assert "`torch.nonzero(x[tile_m, :] * " in first and " … " in first and len(first) < 220
    shown, at = _caret_column(text.stderr)
    assert len(shown) == 100 and shown.endswith("…") and shown[at:].startswith("torch.nonzero(")
    as_json = run("helion2triton", p, "--output-format", "json")
    (diag,) = json.loads(as_json.stderr)  # stdout carries translations: json on stderr
    assert diag["message"] == first.split(": error: ", 1)[1]
    github = run("helion2triton", p, "-o", tmp_path / "out.py", "--output-format", "github")
    assert github.exit_code == 2 and " … " in github.stdout and len(github.stdout) < 400


def test_render_cuts_only_long_lines():
    from translator.diagnostics import TranslationError, excerpt, render
    from translator.ir.loc import Loc

    line = "    y = " + "a" * 92  # 100 characters: shown whole
    err = TranslationError("no", Loc("k.py", 1, 8), None)
    assert render(err, line).lines[1] == "    1 | " + line
    # Near either end of a long line, one ellipsis only, the caret still on its character.
    long = "".join(chr(ord("a") + i % 26) for i in range(1000))
    for col in (0, 5, 500, 990, 1000):
        shown, at = excerpt(long, col)
        assert len(shown) == 100
        assert shown.startswith("…") == (col > 40) and shown.endswith("…") == (col < 940)
        if col < len(long):
            assert shown[at] == long[col]


def test_internal_error_is_one_line_not_traceback(monkeypatch):
    import translator.api

    def boom(*args, **kwargs):
        raise RuntimeError("unexpected state")

    monkeypatch.setattr(translator.api, "emit", boom)
    monkeypatch.delenv("TILETRANS_DEBUG", raising=False)
    # In this process: the fault is monkeypatched in.
    result = invoke(["helion2triton", str(EXAMPLES / "relu.py")])
    assert result.exit_code == 123
    assert "internal error: RuntimeError: unexpected state" in result.stderr
    assert "report" in result.stderr and "Traceback" not in result.output


# --- validate


def translated(tmp_path: Path, name: str, edit=None) -> Path:
    out = tmp_path / f"{name}_triton.py"
    assert run("helion2triton", EXAMPLES / f"{name}.py", "-o", out).exit_code == 0
    if edit is not None:
        text = out.read_text()
        assert edit(text) != text, "the edit did not apply; update the test to the emitted text"
        out.write_text(edit(text))
    return out


def test_validate_equivalent_pair_with_a_size_override(tmp_path):
    # One subprocess (validation imports torch and the DSLs: seconds, not a fraction of one).
    result = run(
        "validate", EXAMPLES / "relu.py", translated(tmp_path, "relu"), "--seed", "3", "--size", "m=5"
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "equivalent" in result.stdout and "float16" in result.stdout
    assert "m=5" in result.stdout


def test_validate_broken_pair(tmp_path):
    broken = translated(tmp_path, "add", lambda t: t.replace("x + y,", "x - y,"))
    result = run("validate", EXAMPLES / "add.py", broken, "--dtype", "float32", "--seed", "0")
    assert result.exit_code == 1, result.output
    assert "FAIL" in result.stdout and "DIFFERENT" in result.stdout


def test_validate_difference_is_a_diagnostic_and_machine_output_stands_alone(tmp_path):
    # With --output-format github, stdout is the workflow commands alone (the tables go to
    # stderr): a pair that differs is an annotation on the translation.
    broken = translated(tmp_path, "add", lambda t: t.replace("x + y,", "x - y,"))
    result = run(
        "validate", EXAMPLES / "add.py", broken, "--dtype", "float32", "--seed", "0",
        "--output-format", "github",
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    (line,) = result.stdout.splitlines()
    assert line.startswith(f"::error file={broken},line=1,col=1,title=tiletrans different::")
    assert f"does not compute what {EXAMPLES / 'add.py'} computes (add float32 seed=0" in line
    assert "DIFFERENT" in result.stderr and "FAIL" in result.stderr


def test_ir_of_several_files_and_json_kept_off_stdout(tmp_path):
    # stdout carries the IR (or a diff): the json array goes to stderr, never after the code.
    missing = tmp_path / "nope.py"
    ir = run("ir", EXAMPLES / "relu.py", EXAMPLES / "add.py", missing, "--output-format", "json")
    assert ir.exit_code == 2, ir.output
    modules = [line for line in ir.stdout.splitlines() if line.startswith("module ")]
    assert modules == [f"module {EXAMPLES / 'relu.py'}", f"module {EXAMPLES / 'add.py'}"]
    assert "[" not in ir.stdout.splitlines()[-1]
    (diag,) = json.loads(ir.stderr)
    assert diag["file"] == str(missing) and "cannot read" in diag["message"]
    diff = run(
        "helion2triton", EXAMPLES / "relu.py", "-o", tmp_path / "o.py", "--diff",
        "--output-format", "json",
    )  # fmt: skip
    assert diff.exit_code == 1 and diff.stdout.startswith("--- /dev/null")
    assert diff.stdout.rstrip().endswith("+    return out") and diff.stderr.strip() == "[]"


def test_validate_usage_errors():
    # Bad options are usage errors (exit 3).
    bad = run("validate", EXAMPLES / "relu.py", EXAMPLES / "relu.py", "--size", "m")
    assert bad.exit_code == 3 and "write --size NAME=VALUE" in bad.stderr
    dtype = run("validate", EXAMPLES / "relu.py", EXAMPLES / "relu.py", "--dtype", "float8")
    assert dtype.exit_code == 3 and "use one of" in dtype.stderr
    # In this process: an unknown size name is found once torch and the kernels are imported,
    # seven seconds in a fresh process for a message this process can check in a fraction.
    typo = invoke(
        ["validate", str(EXAMPLES / "relu.py"), str(EXAMPLES / "relu.py"), "--size", "mm=3"]
    )
    assert typo.exit_code == 3 and "unknown size names ['mm']" in typo.stderr
    assert "size names of relu.py: m, n" in typo.stderr


def test_validate_refusals(tmp_path):
    missing = run("validate", EXAMPLES / "relu.py", tmp_path / "nope.py")
    assert missing.exit_code == 2 and "cannot read" in missing.stderr
    bench = run("validate", EXAMPLES / "relu.py", EXAMPLES / "relu.py", "--bench")
    assert bench.exit_code == 3 and "--bench needs --device cuda" in bench.stderr
    device = run("validate", EXAMPLES / "relu.py", EXAMPLES / "relu.py", "--device", "tpu")
    assert device.exit_code == 3


def test_python_dash_m_translator():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-m", "translator", "ir", str(EXAMPLES / "relu.py")],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "entry relu(" in proc.stdout


_EXIT_SCRIPT = """
import atexit, sys, threading, time
from translator import cli
atexit.register(lambda: sys.stdout.write("atexit ran\\n"))
if sys.argv[1] == "thread":  # still running when main returns: the normal exit joins it
    done, main = threading.Event(), cli.main
    def watched(*args):
        try:
            return main(*args)
        finally:
            done.set()
    cli.main = watched
    threading.Thread(target=lambda: (done.wait(), time.sleep(0.2), print("thread done"))).start()
sys.argv[1:] = sys.argv[2:]
cli.app()
"""


@pytest.mark.parametrize("thread", ["thread", "none"])
def test_console_exit_runs_atexit_flushes_and_keeps_the_code(tmp_path, monkeypatch, thread):
    # app() leaves without the interpreter's teardown (os._exit): what a normal exit does that
    # is seen (atexit handlers, all of stdout, the exit code, threads joined) must still be.
    monkeypatch.chdir(ROOT)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    bad = write(tmp_path, "bad", "import helion\ndef f(:\n")
    for args, code in (
        (["helion2triton", "examples/helion/softmax.py"], 0),
        (["helion2triton", str(bad)], 2),
    ):
        proc = subprocess.run(
            [sys.executable, "-c", _EXIT_SCRIPT, thread, *args],
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
            timeout=120,
        )
        assert proc.returncode == code, proc.stderr
        printed = invoke(args).stdout
        ends = "atexit ran\n" if thread == "none" else "thread done\natexit ran\n"
        assert proc.stdout == printed + ends
        assert ("@triton.jit" in printed) == (code == 0)
        assert ("error:" in proc.stderr) == (code == 2)


@pytest.mark.parametrize("blocked", ["numpy", "triton"])
def test_validate_without_the_validation_extras_says_what_to_install(tmp_path, blocked):
    """A fresh `pip install tiletrans` has no torch, triton, numpy...: `validate`, `check
    --validate` and `migrate --validate` are usage errors (exit 3) naming the extra, not "a
    tiletrans bug" (exit 123). The missing module is simulated with a sitecustomize that blocks
    its import (None in sys.modules), in the installed command's own process."""
    block = tmp_path / "block"
    block.mkdir()
    (block / "sitecustomize.py").write_text(f"import sys\nsys.modules[{blocked!r}] = None\n")
    env = {"PYTHONPATH": f"{block}{os.pathsep}{ROOT}"}
    golden = ROOT / "examples" / "helion" / "expected_triton" / "add.py"
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "add.py").write_text((EXAMPLES / "add.py").read_text())
    commands = [
        ("validate", EXAMPLES / "add.py", golden),
        ("migrate", lib, "--to", "triton", "--validate", "cpu", "-j", "1"),
    ]
    if blocked == "triton":
        commands.append(("check", "--validate", golden))
    for command in commands:
        ran = tiletrans(*command, env=env, cwd=ROOT)
        assert ran.exit_code == 3, (command, ran.stderr)
        assert f"`{blocked}`, which is not installed" in ran.stderr, ran.stderr
        assert 'pip install "tiletrans[validate]"' in ran.stderr
        assert "tiletrans bug" not in ran.stderr and "Traceback" not in ran.stderr
    # Translation needs none of them.
    assert tiletrans("helion2triton", EXAMPLES / "add.py", env=env).exit_code == 0


@pytest.mark.parametrize(
    "argv",
    [
        ["helion2triton", "a.py", "-o", "out.py", "--diff"],
        ["translate", "--from", "triton", "--to", "cutile", "-q", "a.py", "b"],
        ["ir", "a.py", "--to", "tilelang", "--after", "x"],
        ["validate", "a.py", "b.py", "--dtype", "float16", "--seed", "3"],
        ["check", "gen", "--fix", "--output-format", "json"],
        ["migrate", "lib", "--to", "triton", "-o", "out", "-j", "2", "--check"],
    ],
)
def test_parser_of_one_command_reads_as_the_whole_parser(argv):
    # `main` builds only the subparser its first argument names: the same namespace.
    from translator.cli import build_parser

    assert vars(build_parser(argv[0]).parse_args(argv)) == vars(build_parser().parse_args(argv))


def test_a_reader_that_closes_stdout_early_ends_it_quietly():
    """`tiletrans ir ... | head -1`: the reader goes, and tiletrans ends with 141 (as a shell
    reports a process a closed pipe ended) and no message; before, each file still to print
    was an 'internal error: BrokenPipeError' and the exit 123."""
    from cli_run import tiletrans_exe

    files = sorted(str(p) for p in (ROOT / "examples" / "library" / "triton").glob("*.py"))
    proc = subprocess.Popen(
        [tiletrans_exe(), "ir", "--from", "triton", *files],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.read(10)  # the first bytes, then the reader is gone
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141, err
    assert "internal error" not in err and "BrokenPipe" not in err, err


def test_validate_says_which_entries_it_could_not_shape_instead_of_a_difference():
    # GroupNorm's public function reshapes x to a group slab before the launch: validation
    # cannot shape it without an inputs file. Its other entries are compared and pass; the
    # unshaped one is "not compared" (exit 2, with what to pass), never a "tiletrans bug".
    library = ROOT / "examples" / "library" / "helion"
    result = run(
        "validate", "--from", "helion", library / "group_norm.py",
        library / "expected_triton" / "group_norm.py", "--dtype", "float32", "--seed", "0",
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "NOT COMPARED (inputs)" in result.stdout and "DIFFERENT" not in result.stdout
    assert "cannot shape the inputs of group_norm, so they were not compared" in result.stderr
    assert "--inputs FILE.py:FUNC" in result.stderr and "tiletrans bug" not in result.stderr


def test_validate_says_which_entries_the_source_itself_could_not_run(tmp_path):
    # Helion's examples end in a `main()` that allocates on "cuda": on a CPU machine the source
    # raises before anything is compared. That is "not compared" (exit 2), never a difference
    # blamed on the translation; the entries that ran are still compared.
    source = tmp_path / "log1p.py"
    source.write_text(
        (ROOT / "tests" / "data" / "helion_log1p.py").read_text()
        + "\n\ndef main() -> None:\n"
        + '    small_log1p(torch.randn(1000, device="cuda"))\n'
    )
    translated = tmp_path / "log1p_triton.py"
    assert (
        run("translate", "--from", "helion", "--to", "triton", source, "-o", translated).exit_code
        == 0
    )
    result = run("validate", "--from", "helion", source, translated, "--seed", "0")
    assert result.exit_code == 2, result.output
    assert "NOT COMPARED (source)" in result.stdout and "DIFFERENT" not in result.stdout
    assert "the source did not run for main, so they were not compared" in result.stderr
    assert "tiletrans bug" not in result.stderr
    assert result.stdout.count("pass") == 2  # small_log1p was compared, in fp16 and fp32


def test_validate_of_a_module_with_no_public_launching_function_is_not_compared(tmp_path):
    # Kernels only an autograd Function's forward launches, with no public function that
    # reaches it: nothing to call, so nothing compared (exit 2), never "DIFFERENT".
    source = ROOT / "tests" / "data" / "triton_constructs" / "tutorial_rms_norm.py"
    private = tmp_path / "rms.py"
    private.write_text(source.read_text().split("\n\ndef rms_norm_last_dim")[0] + "\n")
    translated = tmp_path / "rms_helion.py"
    assert (
        run("translate", "--from", "triton", "--to", "helion", private, "-o", translated).exit_code
        == 0
    )
    result = run("validate", "--from", "triton", private, translated, "--seed", "0")
    assert result.exit_code == 2, result.output
    assert "NOT COMPARED (inputs)" in result.stdout and "DIFFERENT" not in result.stdout
    assert "found no function to compare" in result.stderr


def test_a_frontend_refusal_without_a_place_is_still_located(tmp_path, monkeypatch):
    # A frontend helper that neither locates its refusal nor carries a node: the file's reader
    # points at the file rather than printing `<input>: error`.
    from translator.api import parse_source
    from translator.diagnostics import TranslationError
    from translator.dialects import base

    def refuse(self, source: str, path: str):
        raise TranslationError("something the frontend cannot read")

    monkeypatch.setattr(base.Dialect, "parse", refuse)
    with pytest.raises(TranslationError) as info:
        parse_source(KERNEL.format(body="        pass"), "k.py", "helion")
    assert (info.value.loc.file, info.value.loc.line) == ("k.py", 1)
