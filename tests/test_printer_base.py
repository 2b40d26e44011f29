"""The printer base every backend builds on (:mod:`translator.dialects.common.printer`): table
dispatch, Python precedence, located refusals of what a backend does not spell, statements."""

from __future__ import annotations

import pytest

from translator.diagnostics import TranslationError
from translator.dialects.common.host_code import HostPrinter
from translator.dialects.common.printer import ATOM, CodePrinter, ExprPrinter
from translator.ir import nodes as ir
from translator.ir.printer import PRECEDENCE
from translator.ir.shapes import ScalarType, TileType, TypeEnv

N, C = ir.Name, ir.Const
LOC = ir.Loc("toy.py", 7, 4)


class Toy(ExprPrinter):
    """A DSL that spells one node of its own: ``fma(a, b, c)`` as ``a * b + c``."""

    language = "Toy"

    def _ex_Call(self, e: ir.Call) -> tuple[str, int]:
        a, b, c = e.args
        p = PRECEDENCE["+"]
        return f"{self.text(a, p + 1)} * {self.text(b, p + 1)} + {self.text(c, p)}", p


def binop(op: str, lhs: ir.Expr, rhs: ir.Expr) -> ir.BinOp:
    return ir.BinOp(op, lhs, rhs)


@pytest.mark.parametrize(
    ("expr", "text"),
    [
        # A hook's text is parenthesised by the precedence it reports...
        (binop("*", ir.Call("fma", (N("a"), N("b"), N("c"))), N("d")), "(a * b + c) * d"),
        # ...and left bare where it binds tightly enough (a left operand of `+`), not on the
        # right of `+`, which is left-associative.
        (binop("+", ir.Call("fma", (N("a"), N("b"), N("c"))), N("d")), "a * b + c + d"),
        (binop("+", N("d"), ir.Call("fma", (N("a"), N("b"), N("c")))), "d + (a * b + c)"),
        (ir.Call("fma", (binop("+", N("a"), N("x")), N("b"), N("c"))), "(a + x) * b + c"),
        # Left-associative operators: a right operand of the same precedence keeps parentheses.
        (binop("-", N("a"), binop("-", N("b"), N("c"))), "a - (b - c)"),
        (binop("-", binop("-", N("a"), N("b")), N("c")), "a - b - c"),
        # `**` is right-associative.
        (binop("**", N("a"), binop("**", N("b"), N("c"))), "a ** b ** c"),
        (binop("**", binop("**", N("a"), N("b")), N("c")), "(a ** b) ** c"),
        # Comparisons never chain.
        (binop("==", binop("<", N("a"), N("b")), N("c")), "(a < b) == c"),
        # A negative constant is a unary minus.
        (binop("**", C(-2), N("k")), "(-2) ** k"),
        (binop("*", C(-2.5), N("k")), "-2.5 * k"),
        (ir.UnaryOp("-", binop("+", N("a"), N("b"))), "-(a + b)"),
        (ir.UnaryOp("not", binop("and", N("a"), N("b"))), "not (a and b)"),
        (binop("or", ir.UnaryOp("not", N("a")), N("b")), "not a or b"),
        (C(float("-inf")), 'float("-inf")'),
        (C("relu"), '"relu"'),
    ],
)
def test_toy_printer_parenthesises_by_python_precedence(expr: ir.Expr, text: str) -> None:
    assert Toy().text(expr) == text


def test_unhandled_node_is_refused_at_its_location() -> None:
    # Toy spells no casts: the refusal names the node kind and points at the cast, even when the
    # cast sits inside expressions Toy does spell.
    cast = ir.Cast(N("x"), ir.F32, loc=LOC)
    with pytest.raises(TranslationError, match="Toy cannot spell the IR expression `Cast`") as e:
        Toy().text(binop("+", N("a"), ir.Call("fma", (cast, N("b"), N("c")))))
    assert e.value.loc == LOC


def test_spelling_of_no_ir_node_is_an_error_when_the_class_is_defined() -> None:
    # A misspelt hook would never be called: its node would be refused as unsupported.
    with pytest.raises(TypeError, match="ir.Brodcast"):

        class Misspelt(ExprPrinter):
            def _ex_Brodcast(self, e: ir.Expr) -> tuple[str, int]:
                return "x", ATOM


def test_a_subclass_can_withdraw_an_inherited_spelling() -> None:
    class NoCalls(Toy):
        _ex_Call = None

    with pytest.raises(TranslationError, match="cannot spell the IR expression `Call`"):
        NoCalls().text(ir.Call("fma", (N("a"), N("b"), N("c")), loc=LOC))
    assert Toy().text(ir.Call("fma", (N("a"), N("b"), N("c")))) == "a * b + c"


class ToyDevice(CodePrinter):
    """Device code: assignments only, with Triton's grammar tables."""

    language = "ToyDevice"
    dialect = "triton"

    def _st_Assign(self, s: ir.Assign) -> None:
        self.emit(f"{s.target} = {self.text(s.value)}")


def device() -> ToyDevice:
    env = TypeEnv()
    env.vars["flag"] = ScalarType(ir.BOOL)
    env.vars["n"] = ScalarType(ir.I32)
    env.vars["mask"] = TileType((ir.BlockDim("tile_m"),), ir.BOOL)
    env.vars["x"] = TileType((ir.BlockDim("tile_m"),), ir.F32)
    return ToyDevice(env)


def test_statements_indent_carry_comments_and_chain_elif() -> None:
    p = device()
    inner = ir.If(N("flag"), (), (ir.Assign("y", C(2)),))
    p.stmt(ir.If(N("flag"), (ir.Assign("y", C(1), comments=("one", "")),), (inner,)))
    assert p.lines == [
        "if flag:",
        "    # one",
        "    #",
        "    y = 1",
        "elif flag:",
        "    pass",
        "else:",
        "    y = 2",
    ]


def test_unhandled_statement_is_refused_at_its_location() -> None:
    store = ir.Store("out", (ir.TileIndex("tile_m"),), N("x"), loc=LOC)
    with pytest.raises(
        TranslationError, match="ToyDevice cannot spell the IR statement `Store`"
    ) as e:
        device().block((store,))
    assert e.value.loc == LOC


def test_typed_logic_and_grammar_dtypes() -> None:
    p = device()
    # On tiles `and`/`or` are elementwise; non-booleans compare with 0, `not` follows the type.
    assert p.text(binop("and", N("mask"), N("x"))) == "mask & (x != 0)"
    assert p.text(binop("and", N("flag"), N("n"))) == "flag and n"
    assert p.text(ir.UnaryOp("not", N("mask"))) == "~mask"
    assert p.text(ir.UnaryOp("not", N("flag"))) == "not flag"
    assert p.text(ir.UnaryOp("not", N("n"))) == "n == 0"
    assert p.text(ir.ExpandDims(N("x"), 0)) == "x[None, :]"
    assert p.dtype(ir.F32) == "tl.float32"
    with pytest.raises(TranslationError, match="element type of tensor `a`"):
        p.dtype(ir.DTypeOf("a"))


@pytest.mark.parametrize(
    ("expr", "text"),
    [
        (binop("//", N("x"), ir.Call("cdiv", (N("a"), N("b")))), "x // (((a) + (b) - 1) // (b))"),
        (
            binop("*", ir.Call("next_power_of_2", (N("a"),)), N("b")),
            "(1 << (int(a) - 1).bit_length()) * b",
        ),
        (binop("*", ir.Call("maximum", (N("a"), N("b"))), N("c")), "max(a, b) * c"),
        (ir.Call("cdiv", (N("a"), N("b"))), "((a) + (b) - 1) // (b)"),
    ],
)
def test_host_call_templates_are_parenthesised_inside_operators(expr: ir.Expr, text: str) -> None:
    # A host function spelt as an operator expression is no atom: `x // cdiv(a, b)` printed bare
    # would divide by `a + b - 1` and then by `b`.
    assert HostPrinter()(expr) == text
