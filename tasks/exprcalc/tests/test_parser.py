"""The parser, level by level."""

import pytest

from exprcalc import (
    Assign, BinOp, Call, FuncDef, Name, Number, ParseError, Parser, UnaryOp, parse, tokenize,
)


def parser(source):
    return Parser(tokenize(source))


def n(v):
    return Number(v)


x, y, z = Name("x"), Name("y"), Name("z")


def error_of(fn):
    with pytest.raises(ParseError) as info:
        fn()
    return info.value.message, info.value.pos


class TestPrimary:
    def test_number(self):
        assert parser("42").parse_primary() == n(42)
        assert parser("2.5").parse_primary() == n(2.5)

    def test_name(self):
        assert parser("width").parse_primary() == Name("width")

    def test_call_without_arguments(self):
        assert parser("rand()").parse_primary() == Call("rand", ())

    def test_stops_after_primary(self):
        p = parser("x + 1")
        assert p.parse_primary() == x
        assert p.current.text == "+"

    def test_name_then_number_is_not_a_call(self):
        p = parser("f 1")
        assert p.parse_primary() == Name("f")
        assert p.index == 1

    @pytest.mark.parametrize("source, msg, pos", [
        (")", "Unexpected token ')'", 0),
        ("* 2", "Unexpected token '*'", 0),
        (",", "Unexpected token ','", 0),
        ("", "Unexpected end of input", 0),
        ("   ", "Unexpected end of input", 3),
        ("= 1", "Unexpected token '='", 0),
    ])
    def test_no_primary(self, source, msg, pos):
        assert error_of(parser(source).parse_primary) == (msg, pos)

    def test_parser_requires_eof_token(self):
        with pytest.raises(ValueError):
            Parser(tokenize("1")[:-1])


class TestPower:
    def test_plain_primary(self):
        assert parser("7").parse_power() == n(7)

    def test_simple(self):
        assert parser("2^3").parse_power() == BinOp("^", n(2), n(3))

    def test_double_star(self):
        assert parser("x ** 2").parse_power() == BinOp("^", x, n(2))

    def test_right_associative(self):
        assert parser("2^3^2").parse_power() == BinOp("^", n(2), BinOp("^", n(3), n(2)))

    def test_signed_exponent(self):
        assert parser("2^-x").parse_power() == BinOp("^", n(2), UnaryOp("-", x))

    def test_several_signs_first_outermost(self):
        assert parser("2^-+x").parse_power() == BinOp("^", n(2), UnaryOp("-", UnaryOp("+", x)))

    def test_signed_exponent_binds_the_whole_power(self):
        assert parser("2^-3^2").parse_power() == BinOp("^", n(2), UnaryOp("-", BinOp("^", n(3), n(2))))

    def test_stops_before_lower_precedence(self):
        p = parser("2^3*4")
        assert p.parse_power() == BinOp("^", n(2), n(3))
        assert p.current.text == "*"

    def test_missing_exponent(self):
        assert error_of(parser("2^").parse_power) == ("Unexpected end of input", 2)


class TestUnary:
    def test_minus(self):
        assert parser("-3").parse_unary() == UnaryOp("-", n(3))

    def test_plus(self):
        assert parser("+x").parse_unary() == UnaryOp("+", x)

    def test_nested(self):
        assert parser("--x").parse_unary() == UnaryOp("-", UnaryOp("-", x))
        assert parser("-+-1").parse_unary() == UnaryOp("-", UnaryOp("+", UnaryOp("-", n(1))))

    def test_binds_looser_than_power(self):
        assert parser("-2^2").parse_unary() == UnaryOp("-", BinOp("^", n(2), n(2)))

    def test_without_sign(self):
        assert parser("2^x").parse_unary() == BinOp("^", n(2), x)

    def test_missing_operand(self):
        assert error_of(parser("-").parse_unary) == ("Unexpected end of input", 1)


class TestTerm:
    def test_product(self):
        assert parser("2*x").parse_term() == BinOp("*", n(2), x)

    def test_left_associative(self):
        assert parser("x / y * z").parse_term() == BinOp("*", BinOp("/", x, y), z)
        assert parser("x % y % z").parse_term() == BinOp("%", BinOp("%", x, y), z)

    def test_operands_are_unary(self):
        assert parser("-x * -y").parse_term() == BinOp("*", UnaryOp("-", x), UnaryOp("-", y))

    def test_power_binds_tighter(self):
        assert parser("2 * x ^ 2").parse_term() == BinOp("*", n(2), BinOp("^", x, n(2)))

    def test_stops_at_plus(self):
        p = parser("x * y + z")
        assert p.parse_term() == BinOp("*", x, y)
        assert p.current.text == "+"

    def test_missing_operand(self):
        assert error_of(parser("2 *").parse_term) == ("Unexpected end of input", 3)
        assert error_of(parser("2 * / 3").parse_term) == ("Unexpected token '/'", 4)


class TestExpression:
    def test_sum(self):
        assert parser("1 + 2").parse_expression() == BinOp("+", n(1), n(2))

    def test_left_associative(self):
        assert parser("1 - 2 + 3").parse_expression() == BinOp("+", BinOp("-", n(1), n(2)), n(3))

    def test_precedence(self):
        assert parser("1 + 2 * 3").parse_expression() == BinOp("+", n(1), BinOp("*", n(2), n(3)))
        assert parser("1 * 2 - 3 / 4").parse_expression() == BinOp(
            "-", BinOp("*", n(1), n(2)), BinOp("/", n(3), n(4))
        )

    def test_subtraction_of_negative(self):
        assert parser("x - -y").parse_expression() == BinOp("-", x, UnaryOp("-", y))

    def test_parentheses(self):
        assert parser("(1 + 2) * 3").parse_expression() == BinOp("*", BinOp("+", n(1), n(2)), n(3))
        assert parser("((x))").parse_expression() == x

    def test_parenthesised_base_of_power(self):
        assert parser("(-2)^2").parse_expression() == BinOp("^", UnaryOp("-", n(2)), n(2))

    def test_call_arguments(self):
        assert parser("max(x, y + 1, -z)").parse_expression() == Call(
            "max", (x, BinOp("+", y, n(1)), UnaryOp("-", z))
        )

    def test_nested_calls(self):
        assert parser("f(g(x), h())").parse_expression() == Call("f", (Call("g", (x,)), Call("h", ())))

    def test_call_in_arithmetic(self):
        assert parser("2 * sqrt(x) ^ 2").parse_expression() == BinOp(
            "*", n(2), BinOp("^", Call("sqrt", (x,)), n(2))
        )

    @pytest.mark.parametrize("source, msg, pos", [
        ("(1 + 2", "Expected ')'", 6),
        ("(1 2)", "Expected ')'", 3),
        ("f(1 2)", "Expected ',' or ')'", 4),
        ("f(1,", "Unexpected end of input", 4),
        ("f(1,)", "Unexpected token ')'", 4),
        ("f(,1)", "Unexpected token ','", 2),
        ("1 +", "Unexpected end of input", 3),
    ])
    def test_errors(self, source, msg, pos):
        assert error_of(parser(source).parse_expression) == (msg, pos)

    def test_stops_before_unknown_continuation(self):
        p = parser("1 + 2 )")
        assert p.parse_expression() == BinOp("+", n(1), n(2))
        assert p.current.text == ")"


class TestStatement:
    def test_assignment(self):
        assert parser("x = 1 + 2").parse_statement() == Assign("x", BinOp("+", n(1), n(2)))

    def test_function_definition(self):
        assert parser("f(a, b) = a * b").parse_statement() == FuncDef(
            "f", ("a", "b"), BinOp("*", Name("a"), Name("b"))
        )

    def test_definition_without_parameters(self):
        assert parser("answer() = 42").parse_statement() == FuncDef("answer", (), n(42))

    def test_expression_statement(self):
        assert parser("2 * x").parse_statement() == BinOp("*", n(2), x)

    def test_call_is_an_expression(self):
        assert parser("f(x + 1)").parse_statement() == Call("f", (BinOp("+", x, n(1)),))
        assert parser("f(x) + 1").parse_statement() == BinOp("+", Call("f", (x,)), n(1))

    def test_name_expression(self):
        assert parser("x").parse_statement() == x

    def test_duplicate_parameter(self):
        assert error_of(parser("f(a, b, a) = 1").parse_statement) == ("Duplicate parameter 'a'", 8)

    @pytest.mark.parametrize("source, pos", [("2 = x", 2), ("f(1) = 2", 5), ("(x) = 1", 4), ("x + 1 = 2", 6), ("f(x, 2) = 1", 8)])
    def test_invalid_target(self, source, pos):
        assert error_of(parser(source).parse_statement) == ("Invalid assignment target", pos)

    def test_missing_value(self):
        assert error_of(parser("x =").parse_statement) == ("Unexpected end of input", 3)
        assert error_of(parser("f(x) =").parse_statement) == ("Unexpected end of input", 6)


class TestParse:
    def test_expression(self):
        assert parse("1 + 2 * 3") == BinOp("+", n(1), BinOp("*", n(2), n(3)))

    def test_statements(self):
        assert parse("y = 2 ^ 10") == Assign("y", BinOp("^", n(2), n(10)))
        assert parse("sq(v) = v * v") == FuncDef("sq", ("v",), BinOp("*", Name("v"), Name("v")))

    def test_comment(self):
        assert parse("x + 1  # add one") == BinOp("+", x, n(1))

    @pytest.mark.parametrize("source, msg, pos", [
        ("1 2", "Unexpected token '2'", 2),
        ("(1))", "Unexpected token ')'", 3),
        ("x = 1 = 2", "Unexpected token '='", 6),
        ("", "Unexpected end of input", 0),
        ("f(x) = x y", "Unexpected token 'y'", 9),
    ])
    def test_errors(self, source, msg, pos):
        assert error_of(lambda: parse(source)) == (msg, pos)

    def test_error_message(self):
        with pytest.raises(ParseError) as info:
            parse("1 +* 2")
        assert str(info.value) == "Unexpected token '*' (at position 3)"

    def test_tokenizer_errors_propagate(self):
        assert error_of(lambda: parse("2 $ 3")) == ("Unexpected character '$'", 2)
