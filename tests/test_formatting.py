"""``wrap_lines`` must split lines exactly as ``ruff format`` does (ruff-stable output).

Every expectation here is computed by running ``ruff format`` (a dev dependency) on the line in
context: the line is put inside nested dummy functions matching its indentation, headers get a
``pass`` body and decorators a function.  Many cases are checked in one ruff run.
"""

from __future__ import annotations

import ast
import io
import random
import re
import shutil
import subprocess
import tokenize
from pathlib import Path

import pytest

from translator.dialects.common.formatting import MAX_LINE, wrap_lines

ROOT = Path(__file__).resolve().parents[1]
RUFF = shutil.which("ruff") or "ruff"


# ---------------------------------------------------------------------------------------------
# Running ruff on many lines at once
# ---------------------------------------------------------------------------------------------


def _wrapped(index: int, line: str) -> tuple[list[str], int, int]:
    """Source lines for case ``index`` plus how many lines before and after ``line`` to drop."""
    indent = len(line) - len(line.lstrip())
    text = line.strip()
    before = [f"def _case_{index}():"]
    if indent == 0:
        before.append("    pass")
    for depth in range(1, indent // 4):
        before.append("    " * depth + f"def _nest_{depth}():")
    pad = " " * indent
    if text.startswith("elif"):
        before += [pad + "if _condition:", pad + "    pass"]
    after: list[str] = []
    if text.startswith("@"):
        after = [pad + "def _decorated():", pad + "    pass"]
    elif text.endswith(":"):
        after = [pad + "    pass"]
    return [*before, line, *after], len(before), len(after)


def ruff_format_lines(lines: list[str]) -> list[list[str]]:
    """``ruff format``'s output for each line of ``lines`` (each placed in its own context)."""
    chunks, shapes = [], []
    for index, line in enumerate(lines):
        source, before, after = _wrapped(index, line)
        chunks.append("\n".join(source))
        shapes.append((before, after))
    result = subprocess.run(
        [RUFF, "format", "--line-length", str(MAX_LINE), "--isolated", "-"],
        input="\n\n\n".join(chunks) + "\n",
        capture_output=True,
        text=True,
        check=True,
    )
    blocks: dict[int, list[str]] = {}
    current: list[str] = []
    for out_line in result.stdout.splitlines():
        match = re.fullmatch(r"def _case_(\d+)\(\):", out_line)
        if match:
            current = blocks.setdefault(int(match.group(1)), [out_line])
        else:
            current.append(out_line)
    formatted = []
    for index, (before, after) in enumerate(shapes):
        block = [text for text in blocks[index] if text.strip()]
        formatted.append(block[before : len(block) - after])
    return formatted


def assert_matches_ruff(lines: list[str]) -> None:
    expected = ruff_format_lines(lines)
    mismatches = [
        (line, want, got)
        for line, want in zip(lines, expected)
        if (got := wrap_lines([line])) != want
    ]
    report = "\n\n".join(
        f"input:    {line}\nruff:\n" + "\n".join(want) + "\nwrap_lines:\n" + "\n".join(got)
        for line, want, got in mismatches[:5]
    )
    assert not mismatches, f"{len(mismatches)} of {len(lines)} lines differ from ruff:\n{report}"


# ---------------------------------------------------------------------------------------------
# Representative lines
# ---------------------------------------------------------------------------------------------

LINES = [
    # Long arithmetic: ruff keeps the body on one line inside the parentheses when it fits...
    "    a_ptrs = a_ptr + tile_b * stride_a0 + (offs_m % m)[:, None] * stride_a1"
    " + offs_k[None, :] * stride_a2",
    # ...and one operand per line when it does not.
    "    out_ptrs = out_ptr + tile_b * stride_out0 + offs_m[:, None] * stride_out1"
    " + offs_head_dim[None, :] * stride_out2 + offs_extra_dimension[None, None, :] * stride_out3",
    # The last call's brackets split rather than parentheses around the sum.
    "            di = di * torch.exp(mi - mi_next)"
    " + torch.sum(torch.exp(values - mi_next[:, None]), dim=1)",
    "        l_i = l_i * tl.exp(m_i - m_new)"
    " + tl.sum(tl.where(mask_v[None, :], tl.exp(vals - m_new[:, None]), 0.0), axis=1)",
    # Calls: hug the arguments on one line, else one per line with a trailing comma.
    "    x = tl.load(x_ptr + offs_m[:, None] * stride_x0 + offs_n[None, :] * stride_x1,"
    " mask=mask_m[:, None] & mask_n[None, :], other=0.0)",
    "    tl.store(out_ptr + offs_m * stride_out0 + offs_n * stride_out1,"
    " value.to(out_ptr.dtype.element_ty), mask=mask)",
    "        tl.store(out_ptrs, (tl.exp(values - mi[:, None]) / di[:, None])"
    ".to(out_ptr.dtype.element_ty), mask=mask_m[:, None] & mask_n[None, :])",
    "    softmax_max = tl.max(tl.where(mask_n[None, :], softmax_in, float('-inf')),"
    " axis=1, keep_dims=True)".replace("'", '"'),
    "    _add_kernel[grid](x, y, out, m, n, x.stride(0), x.stride(1), y.stride(0),"
    " y.stride(1), out.stride(0), out.stride(1))",
    '        m_ij = tl.maximum(m_i, tl.max(tl.where(mask_n[None, :], qk_2, float("-inf")),'
    " axis=1) * qk_scale_2)",
    "    xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx = function_name(argument_number_one,"
    " argument_number_two, argument3)",
    "    result = some_object_name.method_one(argument_one).method_two(argument_two)"
    ".method_three(argument_three_long)",
    "    acc += tl.dot(aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa,"
    " bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb, allow_tf32=False)",
    # Returns, lambdas and grids.
    '        return (triton.cdiv(n_elements, meta["BLOCK_N"])'
    ' * triton.cdiv(embedding_dim, meta["BLOCK_D"]),)',
    '    grid = lambda META: (triton.cdiv(M, META["BLOCK_SIZE_M"])'
    ' * triton.cdiv(N, META["BLOCK_SIZE_N"]),)',
    '    grid = lambda meta: (triton.cdiv(n_elements, meta["BLOCK_N"]),'
    ' triton.cdiv(embedding_dim, meta["BLOCK_D"]))',
    '    grid = lambda META: (min(NUM_SMS, triton.cdiv(M, META["BLOCK_SIZE_M"])'
    ' * triton.cdiv(N, META["BLOCK_SIZE_N"])),)',
    "    return lambda x, y, z: xxxxxxxxxxxxxxxxxxxxxxx + yyyyyyyyyyyyyyyyyyyyyy"
    " + zzzzzzzzzzzzzzzzzzzzzzzzzzzzz",
    "    return xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx, yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy,"
    " zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz",
    # Conditional expressions, comparisons chained with `&`, boolean operators.
    "    y = xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx if cccccccccccccccccccccccccccc"
    " else yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy",
    "    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N) & (offs_k[None, None, :] < K)"
    " & (offs_z[None, None] < Z)",
    "    if aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa and bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
    " or ccccccccccccccccccccccccccc:",
    "    elif aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
    " and bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb:",
    "    while aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
    " < bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb:",
    "    for iiiiiiiiiiiiiiiiiiiii in range(0, tl.cdiv(kkkkkkkkkkkkkkkkkkkkkkkkkkkkkk,"
    " BLOCK_SIZE_K * SPLIT_KKKKKKKKKKK)):",
    "    assert xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx == yyyyyyyyyyyyyyyyyyyyyyyyy,"
    ' "some message that is long ok"',
    '        raise RuntimeError(f"Cannot launch Triton kernel since n = {n} exceeds the'
    ' recommended Triton blocksize = {MAX_FUSED_SIZE}.")',
    # Decorators and def headers.
    '@triton.autotune(configs=[triton.Config({"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 128},'
    ' num_warps=4, num_stages=1)], key=["m", "n"])',
    "def layer_norm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor,"
    " eps: float = 1e-5) -> torch.Tensor:",
    "def _kernel(x_ptr, y_ptr, out_ptr, n_elements, stride_x0, stride_y0, stride_out0,"
    " BLOCK_SIZE: tl.constexpr):",
    # Subscripts and slices.
    "    out[aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa, bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb]"
    " = xxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    "    x = aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa[bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
    ":ccccccccccccccccccccccccccccccccccccccccc]",
    "    embeddings = tl.load(embeddings_ptr + tl.reshape(idx[:, None], (BLOCK_N,))[:, None]"
    " * stride_embeddings0 + offs_d[None, :] * stride_embeddings1)",
    # Magic trailing commas keep brackets exploded even when they fit.
    "    x = foo(a, b,)",
    "    shape = [1, 2,]",
    "def short_function(argument,):",
    # Attribute chains ("fluent" style only inside parentheses), comprehensions, dicts.
    "    x = (tensor_a.reshape(shape_one).permute(dims_one).contiguous().view(shape_two)"
    ".to(torch.float32))",
    "    result = function_one(argument)(another_argument)(yet_another_argument)"
    "(and_one_more_argumentx)",
    "    values = {element.attribute_name for element in collection_of_elements"
    " if element.is_valid_xx()}",
    "    return sum(xxxxxxxxxxxxxxxxxxxxx * yyyyyyyyyyyyyyyyyyyy for xxxxxxxxxxxxxxxxxxxxx,"
    " yyyyyyyyyyyyyyyyyyyy in z)",
    '    config = {"aaaaaaaaaaaaaaaaaaaa": 1, "bbbbbbbbbbbbbbbbbbbbbbbbbb": 2,'
    " **default_config_values_here}",
    # Unparenthesizable values are parenthesized only if that makes them fit.
    "    xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
    " = 123456",
    "    xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
    " = ab",
    '    xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx = "漢字漢字漢字漢字漢字漢字漢字"',
    # Annotated assignments, walrus, unary operators, parameters of every kind.
    "    out: torch.Tensor = torch.empty((aaaaaaaaaaaaaaaaaaaa, bbbbbbbbbbbbbbbbbbbbbbbb),"
    " device=x.device, dtype=x.dtype)",
    "    if (nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn := len(aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa))"
    " > 10:",
    "    x = -some_function_with_a_long_name(argument_number_one, argument_number_two,"
    " argument_three)",
    "def function_with_posonly(first_argument, second_argument, /, third_argument, *,"
    " fourth_argument):",
    "def function_name(first_argument, *args, keyword_only_argument=None, **kwargs)"
    " -> Dict[str, Any]:",
    "    f = lambda x=1, y=2, *args, **kwargs: some_function_name(x, y, *args, **kwargs)"
    " + another_one(x)",
]


def test_representative_lines_match_ruff() -> None:
    assert_matches_ruff(LINES)


def test_short_lines_comments_and_unsupported_statements_are_kept() -> None:
    lines = [
        "    x = tl.load(x_ptr + offs, mask=mask)",
        "    # " + "a comment that is far too long to fit on a single line " * 3,
        "",
        "    y = 1  # a trailing comment on a line that is too long ......................",
        "    with open(some_file_name_that_is_long) as handle, open(other_file_name) as out_file:",
        "    configs=[",
        # A parameter line of an exploded ``def`` (not supported: kept as it is).
        "    parameter_with_a_long_name: Annotated[SomeVeryLongTypeName, some_metadata_value]"
        " = default_value,",
    ]
    assert wrap_lines(lines) == lines


def test_exploded_template_lines_match_ruff() -> None:
    """Lines of a construct the templates already explode (one entry per line)."""
    lines = [
        "@triton.autotune(",
        "    configs=[",
        '        triton.Config({"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 64,'
        ' "GROUP_SIZE_M": 8}, num_warps=8, num_stages=3),',
        '        triton.Config({"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64}, num_warps=4),',
        "    ],",
        '    key=["M", "N", "K"],',
        ")",
        "def matmul_kernel(",
        "    a_ptr,",
        "):",
        "    pass",
    ]
    expected = _ruff_module("\n".join(lines))
    assert wrap_lines(lines) == expected
    keywords = ["    x = f(", "        a,", '        key=["m", "n", "k",],', "    )"]
    assert wrap_lines(keywords) == _ruff_module("def _():\n" + "\n".join(keywords))[1:]


def _ruff_module(source: str) -> list[str]:
    result = subprocess.run(
        [RUFF, "format", "--line-length", str(MAX_LINE), "--isolated", "-"],
        input=source + "\n",
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout.splitlines()


# ---------------------------------------------------------------------------------------------
# Random lines
# ---------------------------------------------------------------------------------------------

NAMES = [
    "x", "acc", "offs_m", "offs_n", "mask_m", "stride_x0", "BLOCK_SIZE_M", "pid", "n_elements",
    "x_ptr", "out_ptr", "values", "mi_next", "logits_flat", "qk_scale", "accumulator", "META",
]  # fmt: skip
FUNCS = ["tl.load", "tl.store", "tl.where", "tl.sum", "tl.max", "torch.exp", "triton.cdiv",
         "tl.maximum", "f", "tl.dot", "tl.arange", "min"]  # fmt: skip
KEYWORDS = ["mask", "other", "axis", "dim", "keep_dims", "eviction_policy", "num_warps"]
BINARY = ["+", "-", "*", "/", "//", "%", "&", "|", "<", "<=", "==", "!=", "**", ">>"]


class _Generator:
    """Random but plausible expressions and statements (kernel arithmetic, calls, ...)."""

    def __init__(self, seed: int):
        self.random = random.Random(seed)

    def choice(self, options: list[str]) -> str:
        return self.random.choice(options)

    def atom(self) -> str:
        r = self.random.random()
        if r < 0.6:
            return self.choice(NAMES)
        if r < 0.72:
            return str(self.choice([0, 1, 2, 4, 128, 1024, 0.5, 1e-05, 123456789]))
        if r < 0.84:
            return f"{self.choice(NAMES)}.{self.choice(['dtype', 'T', 'shape', 'element_ty'])}"
        if r < 0.97:
            return '"' + self.choice(["BLOCK_SIZE_M", "-inf", "evict_last", "a b c", "é✓"]) + '"'
        return 'f"{' + self.choice(NAMES) + '} items"'

    def expr(self, depth: int) -> str:  # noqa: PLR0911, PLR0912
        if depth <= 0:
            return self.atom()
        r = self.random.random()
        sub = self.expr
        if r < 0.25:
            return self.power_spaced(f"{sub(depth - 1)} {self.choice(BINARY)} {sub(depth - 1)}")
        if r < 0.45:
            return self.call(depth)
        if r < 0.52:
            index = self.choice([":, None", "None, :", "0", ":", "1:", "::2", self.atom()])
            if self.random.random() < 0.3:
                index = f"{sub(depth - 1)} : {sub(depth - 1)}"
            return f"{self.choice(NAMES)}[{index}]"
        if r < 0.58:
            return f"({sub(depth - 1)})"
        if r < 0.62:
            return f"{sub(depth - 1)} if {sub(depth - 1)} else {sub(depth - 1)}"
        if r < 0.67:
            chain = "".join(f".{self.choice(['to', 'view', 'reshape'])}({self.atom()})"
                            for _ in range(self.random.randint(1, 3)))  # fmt: skip
            return f"({sub(depth - 1)}){chain}" if r < 0.645 else f"{self.choice(NAMES)}{chain}"
        if r < 0.71:
            return f"[{self.items(depth)}]"
        if r < 0.74:
            return f"({self.items(depth)},)"
        if r < 0.77:
            return f"{self.choice(['-', '~', 'not '])}{sub(depth - 1)}"
        if r < 0.8:
            return f"{sub(depth - 1)} {self.choice(['and', 'or'])} {sub(depth - 1)}"
        if r < 0.83:
            return f"{sub(depth - 1)} < {sub(depth - 1)} <= {sub(depth - 1)}"
        if r < 0.86:
            pairs = ", ".join(f'"{k}": {sub(depth - 1)}' for k in ["BLOCK_M", "BLOCK_N"])
            return "{" + pairs + "}"
        if r < 0.89:
            return f"[{sub(depth - 1)} for i in range({sub(depth - 1)}) if {self.atom()}]"
        if r < 0.92:
            return f"lambda meta: {sub(depth - 1)}"
        if r < 0.94:
            return self.power_spaced(f"{sub(depth - 1)} ** {self.atom()}")
        if r < 0.95:
            return f"sum({sub(depth - 1)} for i in {self.atom()})"
        if r < 0.96:
            return "{" + f"k: {sub(depth - 1)} for k, v in {self.atom()}.items()" + "}"
        if r < 0.97:
            return f"{sub(depth - 1)} {self.choice(['not in', 'is not', 'in', 'is'])} {self.atom()}"
        if r < 0.98:
            return f"{self.choice(NAMES)}[{sub(depth - 1)}, {self.atom()}{self.choice(['', ','])}]"
        return self.atom()

    @staticmethod
    def power_spaced(text: str) -> str:
        """``a**b`` without spaces when both operands are simple (ruff's normalisation)."""
        simple = r"-?[\w.]+"
        return re.sub(rf"(?<![\w.)\]])({simple}) \*\* ({simple})(?![\w.(\[])", r"\1**\2", text)

    def items(self, depth: int) -> str:
        items = ", ".join(self.expr(depth - 1) for _ in range(self.random.randint(1, 4)))
        return items + ("," if self.random.random() < 0.1 else "")

    def call(self, depth: int) -> str:
        args = [self.expr(depth - 1) for _ in range(self.random.randint(0, 3))]
        keywords = self.random.sample(KEYWORDS, self.random.randint(0, 2))
        args += [f"{k}={self.expr(depth - 1)}" for k in keywords]
        if self.random.random() < 0.05:
            args.append(self.choice(["*args", "**kwargs"]))
        trailing = "," if args and self.random.random() < 0.05 else ""
        return f"{self.choice(FUNCS)}({', '.join(args)}{trailing})"

    def parameters(self) -> str:
        parameters = []
        for name in self.random.sample(NAMES, self.random.randint(0, 6)):
            annotation = self.choice(["", ": int", ": torch.Tensor", ": tl.constexpr"])
            default = self.choice(["", "", f"={self.atom()}"])
            if annotation and default:
                default = " = " + default[1:]
            parameters.append(name + annotation + default)
        return ", ".join(parameters)

    def statement(self) -> str:  # noqa: PLR0911
        depth = self.random.randint(2, 4)
        indent = " " * (4 * self.random.randint(1, 3))
        kind = self.random.random()
        value = self.expr(depth)
        target = self.choice(NAMES)
        if kind < 0.3:
            return f"{indent}{target} = {value}"
        if kind < 0.37:
            return f"{indent}{target} {self.choice(['+=', '*=', '|='])} {value}"
        if kind < 0.45:
            return f"{indent}return {value}"
        if kind < 0.55:
            return f"{indent}{self.call(depth)}"
        if kind < 0.6:
            return f"{indent}{self.choice(['if', 'while', 'elif'])} {value}:"
        if kind < 0.64:
            return f"{indent}assert {value}, {self.atom()}"
        if kind < 0.68:
            return f"{indent}grid = lambda meta: ({value},)"
        if kind < 0.72:
            return f"{indent}{target}[{self.atom()}] = {value}"
        if kind < 0.75:
            return f"{indent}for i in range({value}):"
        if kind < 0.78:
            return f"{indent}{target}, {self.choice(NAMES)} = {value}"
        if kind < 0.81:
            return f"{indent}return {value}, {self.expr(depth - 1)}"
        if kind < 0.84:
            return f"{indent}{target}.{self.choice(['data', 'grad'])} = {value}"
        if kind < 0.87:
            return f"{indent}raise {self.call(depth)}"
        if kind < 0.9:
            returns = self.choice(["", " -> None", " -> torch.Tensor", " -> tuple[int, int]"])
            return f"{indent[4:]}def kernel_name({self.parameters()}){returns}:"
        if kind < 0.93:
            return f"@{self.call(depth)}"
        if kind < 0.94:
            return f"{indent}{target} = {self.choice(NAMES)} = {value}"
        if kind < 0.96:
            annotation = self.choice(["int", "torch.Tensor", "tuple[int, int]", "dict[str, int]"])
            return f"{indent}{target}: {annotation} = {value}"
        if kind < 0.97:
            return f"{indent}for {target}, {self.choice(NAMES)} in {value}:"
        return f"{indent}{self.call(depth)}.{self.choice(['item()', 'sum(dim=0)'])}"


def _random_lines(count: int, seed: int) -> list[str]:
    generator, lines = _Generator(seed), []
    while len(lines) < count:
        line = generator.statement()
        if MAX_LINE < len(line) <= 4 * MAX_LINE:
            try:
                ast.parse(line.strip() + ("\n    pass" if line.endswith(":") else ""))
            except SyntaxError:
                continue
            lines.append(line)
    return lines


@pytest.mark.parametrize("seed", range(4))
def test_random_lines_match_ruff(seed: int) -> None:
    assert_matches_ruff(_random_lines(150, seed))


def test_random_exploded_calls_match_ruff() -> None:
    """Calls the templates write one argument per line (with a magic trailing comma)."""
    generator = random.Random(7)
    expressions = _Generator(8)
    checked = 0
    while checked < 30:
        indent = " " * (4 * generator.randint(1, 2))
        arguments = [expressions.expr(generator.randint(1, 4)) for _ in range(3)]
        arguments.append(f"key={expressions.expr(generator.randint(1, 4))}")
        lines = [f"{indent}value = {expressions.choice(FUNCS)}("]
        lines += [f"{indent}    {argument}," for argument in arguments]
        lines.append(f"{indent})")
        try:
            ast.parse("\n".join(line[len(indent) :] for line in lines))
        except SyntaxError:
            continue
        wrappers = ["    " * depth + "def _():" for depth in range(len(indent) // 4)]
        source = "\n".join([*wrappers, *lines])
        expected = _ruff_module(source)[len(wrappers) :]
        if any(len(line) <= MAX_LINE and line not in expected for line in lines):
            continue  # ruff normalises more than the splitting (e.g. `((x))`): not our input
        checked += 1
        assert wrap_lines(lines) == expected, source


# ---------------------------------------------------------------------------------------------
# Corpus: the statements of the expected example outputs, re-joined onto one line
# ---------------------------------------------------------------------------------------------


def _logical_lines(source: str) -> list[tuple[str, list[tokenize.TokenInfo]]]:
    """``(indent, tokens)`` of every logical line of ``source`` that has no comment."""
    result, current = [], []
    indent = ""
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in (tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING):
            continue
        if token.type == tokenize.NL and not current:
            continue
        if not current:
            indent = token.line[: len(token.line) - len(token.line.lstrip())]
        current.append(token)
        if token.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
            meaningful = [t for t in current if t.type not in (tokenize.NL, tokenize.NEWLINE)]
            multiline_string = any(
                t.type == tokenize.STRING and t.start[0] != t.end[0] for t in meaningful
            )
            has_comment = any(t.type == tokenize.COMMENT for t in meaningful)
            if meaningful and not multiline_string and not has_comment:
                result.append((indent, meaningful))
            current = []
    return result


def _join(tokens: list[tokenize.TokenInfo], drop_trailing_commas: bool) -> str:
    """The tokens on one line, spaced as in the source (one space for a line break)."""
    text = ""
    for index, token in enumerate(tokens):
        if index:
            previous = tokens[index - 1]
            if token.start[0] != previous.end[0]:
                if previous.string not in "([{" and token.string not in ")]}":
                    text += " "
            else:
                text += " " * (token.start[1] - previous.end[1])
        if (
            drop_trailing_commas
            and token.string == ","
            and index + 1 < len(tokens)
            and tokens[index + 1].string in ")]}"
            and tokens[index + 1].start[0] != token.end[0]
        ):
            continue
        text += token.string
    return text


def _corpus() -> list[str]:
    lines = []
    for path in sorted(ROOT.glob("examples/*/expected_*/*.py")):
        for indent, tokens in _logical_lines(path.read_text()):
            if tokens[0].string == "with":
                # wrap_lines does not format `with` statements: the one emitter that writes them
                # (TileLang's `with T.Kernel(...) as (bx, by):`) lays them out itself, exploded
                # with a magic trailing comma, which test_style checks is ruff-stable.
                continue
            multiline = tokens[0].start[0] != tokens[-1].end[0]
            for drop in (True, False) if multiline else (False,):
                joined = indent + _join(tokens, drop)
                if len(joined) <= MAX_LINE and not multiline:
                    continue
                body = "\n    pass" if joined.endswith(":") else ""
                body = "\ndef _():\n    pass" if joined.lstrip().startswith("@") else body
                try:
                    original = ast.dump(ast.parse(_join(tokens, False) + body))
                    if ast.dump(ast.parse(joined.lstrip() + body)) != original:
                        continue
                except SyntaxError:
                    continue
                if joined not in lines:
                    lines.append(joined)
    return lines


def test_example_corpus_matches_ruff() -> None:
    corpus = _corpus()
    assert len(corpus) > 50
    assert_matches_ruff(corpus)
