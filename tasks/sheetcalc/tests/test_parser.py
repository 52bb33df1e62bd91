"""Layer 2: the formula parser (sheetcalc.parser).

Each grammar level is tested by calling its ``Parser.parse_*`` method
directly, so a level can be checked once the levels below it work.
TestParse covers the ``parse`` entry point.
"""

import pytest

from sheetcalc.address import CellRef, RangeRef, parse_cell
from sheetcalc.errors import FormulaError, LexError, ParseError
from sheetcalc.lexer import tokenize
from sheetcalc.nodes import (
    Binary,
    Boolean,
    Call,
    ErrorLiteral,
    Name,
    Number,
    Percent,
    Range,
    Ref,
    Text,
    Unary,
)
from sheetcalc.parser import Parser, parse


def N(x):
    return Number(float(x))


def R(text):
    return Ref(parse_cell(text))


def B(op, left, right):
    return Binary(op, left, right)


def run(method, text, rest="EOF"):
    """Parse ``text`` with one Parser method; check the kind of the next token."""
    parser = Parser(tokenize(text))
    node = getattr(parser, method)()
    assert parser.peek().kind == rest
    return node


class TestPrimary:
    def test_number(self):
        assert run("parse_primary", "3.5") == N(3.5)

    def test_string(self):
        assert run("parse_primary", '"hi"') == Text("hi")

    def test_boolean(self):
        assert run("parse_primary", "false") == Boolean(False)

    def test_error_literal(self):
        assert run("parse_primary", "#N/A") == ErrorLiteral("#N/A")

    def test_reference(self):
        assert run("parse_primary", "$B$2") == Ref(CellRef(1, 1, row_abs=True, col_abs=True))

    def test_range(self):
        assert run("parse_primary", "A1:B3") == Range(RangeRef(CellRef(0, 0), CellRef(2, 1)))

    def test_range_keeps_corner_order(self):
        assert run("parse_primary", "B3:A1") == Range(RangeRef(CellRef(2, 1), CellRef(0, 0)))

    def test_bare_name(self):
        assert run("parse_primary", "foo") == Name("FOO")

    def test_stops_after_primary(self):
        assert run("parse_primary", "1+2", rest="OP") == N(1)

    def test_range_needs_reference(self):
        with pytest.raises(ParseError):
            run("parse_primary", "A1:5")

    def test_colon_alone(self):
        with pytest.raises(ParseError):
            run("parse_primary", ":A1")

    def test_operator_is_unexpected(self):
        with pytest.raises(ParseError) as exc:
            run("parse_primary", "*")
        assert exc.value.position == 0

    def test_end_of_formula(self):
        with pytest.raises(ParseError) as exc:
            run("parse_primary", "")
        assert "end of formula" in str(exc.value)

    @pytest.mark.parametrize("bad", ["A0", "ZZZ1", "XFD1048577"])
    def test_reference_outside_sheet(self, bad):
        with pytest.raises(ParseError):
            run("parse_primary", bad)


class TestUnary:
    def test_minus(self):
        assert run("parse_unary", "-1") == Unary("-", N(1))

    def test_plus(self):
        assert run("parse_unary", "+A1") == Unary("+", R("A1"))

    def test_repeated(self):
        assert run("parse_unary", "--1") == Unary("-", Unary("-", N(1)))

    def test_mixed_signs(self):
        assert run("parse_unary", "-+-1") == Unary("-", Unary("+", Unary("-", N(1))))

    def test_no_sign(self):
        assert run("parse_unary", '"x"') == Text("x")

    def test_sign_applies_to_primary_only(self):
        assert run("parse_unary", "-2^2", rest="OP") == Unary("-", N(2))

    def test_sign_without_operand(self):
        with pytest.raises(ParseError):
            run("parse_unary", "-")


class TestPercent:
    def test_simple(self):
        assert run("parse_percent", "50%") == Percent(N(50))

    def test_double(self):
        assert run("parse_percent", "5%%") == Percent(Percent(N(5)))

    def test_applies_after_unary(self):
        assert run("parse_percent", "-5%") == Percent(Unary("-", N(5)))

    def test_on_reference(self):
        assert run("parse_percent", "A1%*2", rest="OP") == Percent(R("A1"))

    def test_without_percent(self):
        assert run("parse_percent", "7") == N(7)

    def test_percent_alone(self):
        with pytest.raises(ParseError):
            run("parse_percent", "%")


class TestPower:
    def test_simple(self):
        assert run("parse_power", "2^3") == B("^", N(2), N(3))

    def test_left_associative(self):
        assert run("parse_power", "2^3^2") == B("^", B("^", N(2), N(3)), N(2))

    def test_unary_minus_binds_tighter(self):
        assert run("parse_power", "-2^2") == B("^", Unary("-", N(2)), N(2))

    def test_negative_exponent(self):
        assert run("parse_power", "2^-1") == B("^", N(2), Unary("-", N(1)))

    def test_percent_binds_tighter(self):
        assert run("parse_power", "2^50%") == B("^", N(2), Percent(N(50)))

    def test_stops_at_multiplication(self):
        assert run("parse_power", "2^2*3", rest="OP") == B("^", N(2), N(2))

    def test_missing_exponent(self):
        with pytest.raises(ParseError):
            run("parse_power", "2^")


class TestMultiplicative:
    def test_times(self):
        assert run("parse_multiplicative", "2*3") == B("*", N(2), N(3))

    def test_left_associative_division(self):
        assert run("parse_multiplicative", "8/4/2") == B("/", B("/", N(8), N(4)), N(2))

    def test_mixed(self):
        assert run("parse_multiplicative", "8/4*2") == B("*", B("/", N(8), N(4)), N(2))

    def test_binds_looser_than_power(self):
        assert run("parse_multiplicative", "2*3^2") == B("*", N(2), B("^", N(3), N(2)))

    def test_signed_operand(self):
        assert run("parse_multiplicative", "2*-3") == B("*", N(2), Unary("-", N(3)))

    def test_missing_operand(self):
        with pytest.raises(ParseError):
            run("parse_multiplicative", "2**3")


class TestAdditive:
    def test_plus(self):
        assert run("parse_additive", "1+2") == B("+", N(1), N(2))

    def test_left_associative(self):
        assert run("parse_additive", "1-2-3") == B("-", B("-", N(1), N(2)), N(3))

    def test_mixed(self):
        assert run("parse_additive", "1-2+3") == B("+", B("-", N(1), N(2)), N(3))

    def test_binds_looser_than_multiplication(self):
        assert run("parse_additive", "1+2*3") == B("+", N(1), B("*", N(2), N(3)))

    def test_binary_minus_then_unary(self):
        assert run("parse_additive", "1--1") == B("-", N(1), Unary("-", N(1)))

    def test_stops_at_concat(self):
        assert run("parse_additive", "1+2&3", rest="OP") == B("+", N(1), N(2))

    def test_dangling(self):
        with pytest.raises(ParseError):
            run("parse_additive", "1+")


class TestConcat:
    def test_simple(self):
        assert run("parse_concat", '"a"&"b"') == B("&", Text("a"), Text("b"))

    def test_left_associative(self):
        assert run("parse_concat", "1&2&3") == B("&", B("&", N(1), N(2)), N(3))

    def test_binds_looser_than_addition(self):
        assert run("parse_concat", "1+2&3") == B("&", B("+", N(1), N(2)), N(3))
        assert run("parse_concat", "1&2+3") == B("&", N(1), B("+", N(2), N(3)))

    def test_stops_at_comparison(self):
        assert run("parse_concat", "1&2=3", rest="OP") == B("&", N(1), N(2))

    def test_missing_operand(self):
        with pytest.raises(ParseError):
            run("parse_concat", "&1")


class TestComparison:
    @pytest.mark.parametrize("op", ["=", "<>", "<", ">", "<=", ">="])
    def test_each_operator(self, op):
        assert run("parse_comparison", f"1{op}2") == B(op, N(1), N(2))

    def test_left_associative(self):
        assert run("parse_comparison", "1<2=TRUE") == B("=", B("<", N(1), N(2)), Boolean(True))

    def test_lowest_precedence(self):
        assert run("parse_comparison", "1+2>3&4") == B(">", B("+", N(1), N(2)), B("&", N(3), N(4)))

    def test_references(self):
        assert run("parse_comparison", "A1=B1") == B("=", R("A1"), R("B1"))

    def test_missing_right_operand(self):
        with pytest.raises(ParseError):
            run("parse_comparison", "1<")


class TestArguments:
    def test_consumes_list(self):
        assert run("parse_arguments", "(1,2)+3", rest="OP") == (N(1), N(2))

    def test_empty_list(self):
        assert run("parse_arguments", "()") == ()

    def test_full_expressions(self):
        assert run("parse_arguments", '(A1>0,"pos",-1)') == (B(">", R("A1"), N(0)), Text("pos"), Unary("-", N(1)))

    def test_range_argument(self):
        assert run("parse_arguments", "(A1:A3,B1)") == (Range(RangeRef(CellRef(0, 0), CellRef(2, 0))), R("B1"))

    def test_spaces_between_arguments(self):
        assert run("parse_arguments", "( 1 , 2 )") == (N(1), N(2))

    def test_requires_open_paren(self):
        with pytest.raises(ParseError):
            run("parse_arguments", "1")

    @pytest.mark.parametrize("bad", ["(1,)", "(,1)", "(1", "(1 2)", "(1,,2)"])
    def test_malformed(self, bad):
        with pytest.raises(ParseError):
            run("parse_arguments", bad)

    def test_call_node(self):
        assert run("parse_primary", "sum(1,2)") == Call("SUM", (N(1), N(2)))

    def test_nested_calls(self):
        assert run("parse_primary", "ROUND(SUM(1,2),0)") == Call("ROUND", (Call("SUM", (N(1), N(2))), N(0)))


class TestParse:
    def test_leading_equals_optional(self):
        assert parse("=1+2") == parse("1+2") == B("+", N(1), N(2))

    def test_only_one_equals_stripped(self):
        with pytest.raises(ParseError):
            parse("==1")

    def test_equals_comparison_inside(self):
        assert parse("=A1=1") == B("=", R("A1"), N(1))

    def test_parentheses(self):
        assert parse("(1+2)*3") == B("*", B("+", N(1), N(2)), N(3))

    def test_nested_parentheses(self):
        assert parse("((7))") == N(7)

    def test_percent_of_parenthesized(self):
        assert parse("(1+1)%") == Percent(B("+", N(1), N(1)))

    def test_call(self):
        assert parse("=NOW()") == Call("NOW", ())

    def test_empty(self):
        with pytest.raises(ParseError):
            parse("")

    def test_only_equals(self):
        with pytest.raises(ParseError):
            parse("=")

    def test_trailing_tokens(self):
        with pytest.raises(ParseError) as exc:
            parse("=1 2")
        assert exc.value.position == 3

    def test_unbalanced_close_paren(self):
        with pytest.raises(ParseError):
            parse("1+2)")

    def test_missing_close_paren(self):
        with pytest.raises(ParseError):
            parse("(1+2")

    def test_empty_parentheses(self):
        with pytest.raises(ParseError):
            parse("()")

    def test_lex_errors_propagate(self):
        with pytest.raises(LexError):
            parse('="abc')

    def test_errors_are_formula_errors(self):
        with pytest.raises(FormulaError):
            parse("=1+")

    def test_whitespace_allowed(self):
        assert parse("= 1 +  2 ") == B("+", N(1), N(2))
