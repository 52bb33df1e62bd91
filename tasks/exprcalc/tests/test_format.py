"""to_source: printing syntax trees with minimal parentheses."""

import pytest

from exprcalc import Assign, BinOp, Call, FuncDef, Name, Number, UnaryOp, parse, to_source

a, b, c = Name("a"), Name("b"), Name("c")


def n(v):
    return Number(v)


class TestToSource:
    def test_atoms(self):
        assert to_source(n(3)) == "3"
        assert to_source(n(2.5)) == "2.5"
        assert to_source(n(1e100)) == "1e+100"
        assert to_source(n(3.0)) == "3.0"
        assert to_source(a) == "a"

    def test_calls(self):
        assert to_source(Call("f", ())) == "f()"
        assert to_source(Call("max", (a, BinOp("+", b, n(1))))) == "max(a, b + 1)"

    def test_binary_spacing(self):
        assert to_source(BinOp("^", a, n(2))) == "a ^ 2"
        assert to_source(BinOp("%", a, b)) == "a % b"

    def test_precedence_without_parentheses(self):
        assert to_source(BinOp("+", a, BinOp("*", b, c))) == "a + b * c"
        assert to_source(BinOp("*", BinOp("^", a, n(2)), b)) == "a ^ 2 * b"

    def test_lower_precedence_operand(self):
        assert to_source(BinOp("*", BinOp("+", a, b), c)) == "(a + b) * c"
        assert to_source(BinOp("^", BinOp("*", a, b), c)) == "(a * b) ^ c"

    def test_left_associativity(self):
        assert to_source(BinOp("-", BinOp("-", a, b), c)) == "a - b - c"
        assert to_source(BinOp("-", a, BinOp("-", b, c))) == "a - (b - c)"
        assert to_source(BinOp("+", a, BinOp("+", b, c))) == "a + (b + c)"
        assert to_source(BinOp("*", a, BinOp("/", b, c))) == "a * (b / c)"
        assert to_source(BinOp("/", BinOp("*", a, b), c)) == "a * b / c"

    def test_power_right_associativity(self):
        assert to_source(BinOp("^", a, BinOp("^", b, c))) == "a ^ b ^ c"
        assert to_source(BinOp("^", BinOp("^", a, b), c)) == "(a ^ b) ^ c"

    def test_unary(self):
        assert to_source(UnaryOp("-", a)) == "-a"
        assert to_source(UnaryOp("-", UnaryOp("-", a))) == "--a"
        assert to_source(UnaryOp("+", n(1))) == "+1"
        assert to_source(UnaryOp("-", BinOp("+", a, b))) == "-(a + b)"
        assert to_source(UnaryOp("-", BinOp("^", a, n(2)))) == "-a ^ 2"

    def test_unary_and_power(self):
        assert to_source(BinOp("^", UnaryOp("-", a), n(2))) == "(-a) ^ 2"
        assert to_source(BinOp("^", a, UnaryOp("-", n(1)))) == "a ^ -1"
        assert to_source(BinOp("^", a, BinOp("+", b, n(1)))) == "a ^ (b + 1)"

    def test_unary_operand_of_binary(self):
        assert to_source(BinOp("*", UnaryOp("-", a), UnaryOp("-", b))) == "-a * -b"
        assert to_source(BinOp("-", a, UnaryOp("-", b))) == "a - -b"

    def test_negative_number_is_like_unary(self):
        assert to_source(n(-2)) == "-2"
        assert to_source(BinOp("^", n(-2), n(2))) == "(-2) ^ 2"
        assert to_source(BinOp("*", n(-2), a)) == "-2 * a"

    def test_statements(self):
        assert to_source(Assign("x", BinOp("+", a, n(1)))) == "x = a + 1"
        assert to_source(FuncDef("f", ("a", "b"), BinOp("*", a, b))) == "f(a, b) = a * b"
        assert to_source(FuncDef("k", (), n(1))) == "k() = 1"

    def test_not_a_node(self):
        with pytest.raises(TypeError):
            to_source("a + b")


class TestRoundTrip:
    @pytest.mark.parametrize("source", [
        "1 + 2 * 3 - 4 / 5 % 6",
        "(1 + 2) * (3 - 4)",
        "-x ^ 2 + (-x) ^ 2",
        "2 ^ 3 ^ 2 - (2 ^ 3) ^ 2",
        "a - (b - (c - d))",
        "2 ^ -x ^ -y",
        "f(x, y) = max(x, y) / (x * y)",
        "z = --+z",
        "g(h(1), -(2 + 3), k())",
    ])
    def test_parse_format_parse(self, source):
        tree = parse(source)
        assert parse(to_source(tree)) == tree

    def test_canonical_text_is_stable(self):
        text = to_source(parse("((1+2))*x^(2)"))
        assert text == "(1 + 2) * x ^ 2"
        assert to_source(parse(text)) == text
