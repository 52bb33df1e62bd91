"""Layer 4: numeric builtins, through the global environment."""

import io

import pytest

from lispy.datatypes import VOID
from lispy.errors import EvalError, LispTypeError
from lispy.evaluator import evaluate
from lispy.globals import standard_env
from lispy.printer import to_string
from lispy.reader import read_all


def ev(source):
    env = standard_env(io.StringIO())
    value = VOID
    for form in read_all(source):
        value = evaluate(form, env)
    return value


def show(source):
    return to_string(ev(source))


def check(cases):
    return pytest.mark.parametrize("source, expected", cases)


class TestAdd:
    @check([("(+)", "0"), ("(+ 5)", "5"), ("(+ 1 2 3 4)", "10"), ("(+ 1 2.5)", "3.5"), ("(+ 0.5 0.5)", "1.0"),
            ("(+ -3 3)", "0"), ("(+ 99999999999999999999 1)", "100000000000000000000")])
    def test_add(self, source, expected):
        assert show(source) == expected

    @pytest.mark.parametrize("source, message", [('(+ 1 "2")', '+: expected number, got "2"'), ("(+ #t 1)", "+: expected number, got #t"),
                                                 ("(+ 1 'x)", "+: expected number, got x")])
    def test_type_errors(self, source, message):
        with pytest.raises(LispTypeError) as info:
            ev(source)
        assert str(info.value) == message


class TestSub:
    @check([("(- 10 4)", "6"), ("(- 5)", "-5"), ("(- 10 1 2 3)", "4"), ("(- 1 0.5)", "0.5"), ("(- 2.5)", "-2.5"),
            ("(- 0)", "0")])
    def test_sub(self, source, expected):
        assert show(source) == expected

    def test_type_error(self):
        with pytest.raises(LispTypeError, match="-: expected number"):
            ev("(- 1 '())")


class TestMul:
    @check([("(*)", "1"), ("(* 6)", "6"), ("(* 2 3 4)", "24"), ("(* 2 0.5)", "1.0"), ("(* -1 7)", "-7"),
            ("(* 4294967296 4294967296)", "18446744073709551616")])
    def test_mul(self, source, expected):
        assert show(source) == expected

    def test_type_error(self):
        with pytest.raises(LispTypeError, match="\\*: expected number, got #f"):
            ev("(* 2 #f)")


class TestDiv:
    @check([("(/ 12 4)", "3"), ("(/ 7 2)", "3.5"), ("(/ 2)", "0.5"), ("(/ 1)", "1"), ("(/ -9 3)", "-3"),
            ("(/ 6.0 3)", "2.0"), ("(/ 60 2 3)", "10"), ("(/ 1 2 2)", "0.25"), ("(/ 0 5)", "0"),
            ("(/ 100000000000000000000 10)", "10000000000000000000")])
    def test_div(self, source, expected):
        assert show(source) == expected

    @pytest.mark.parametrize("source", ["(/ 1 0)", "(/ 0)", "(/ 1.5 0.0)", "(/ 10 2 0)"])
    def test_division_by_zero(self, source):
        with pytest.raises(EvalError, match="/: division by zero"):
            ev(source)

    def test_type_checked_before_dividing(self):
        with pytest.raises(LispTypeError, match="/: expected number"):
            ev('(/ 1 0 "x")')


class TestQuotient:
    @check([("(quotient 7 2)", "3"), ("(quotient -7 2)", "-3"), ("(quotient 7 -2)", "-3"), ("(quotient -7 -2)", "3"),
            ("(quotient 6 3)", "2"), ("(quotient 0 5)", "0")])
    def test_quotient(self, source, expected):
        assert show(source) == expected

    def test_zero(self):
        with pytest.raises(EvalError, match="quotient: division by zero"):
            ev("(quotient 1 0)")

    def test_requires_integers(self):
        with pytest.raises(LispTypeError, match="quotient: expected integer, got 7.0"):
            ev("(quotient 7.0 2)")


class TestRemainder:
    @check([("(remainder 7 2)", "1"), ("(remainder -7 2)", "-1"), ("(remainder 7 -2)", "1"), ("(remainder -7 -2)", "-1"),
            ("(remainder 6 3)", "0")])
    def test_remainder(self, source, expected):
        assert show(source) == expected

    def test_zero(self):
        with pytest.raises(EvalError, match="remainder: division by zero"):
            ev("(remainder 1 0)")

    def test_requires_integers(self):
        with pytest.raises(LispTypeError, match="remainder: expected integer"):
            ev("(remainder 1 0.5)")


class TestModulo:
    @check([("(modulo 7 2)", "1"), ("(modulo -7 2)", "1"), ("(modulo 7 -2)", "-1"), ("(modulo -7 -2)", "-1"),
            ("(modulo 13 4)", "1"), ("(modulo -13 4)", "3")])
    def test_modulo(self, source, expected):
        assert show(source) == expected

    def test_zero(self):
        with pytest.raises(EvalError, match="modulo: division by zero"):
            ev("(modulo 5 0)")

    def test_requires_integers(self):
        with pytest.raises(LispTypeError, match="modulo: expected integer"):
            ev('(modulo "5" 2)')


class TestCompare:
    @check([("(< 1 2)", "#t"), ("(< 2 1)", "#f"), ("(< 1 2 3)", "#t"), ("(< 1 3 2)", "#f"), ("(< 1 1)", "#f"),
            ("(<= 1 1 2)", "#t"), ("(> 3 2 1)", "#t"), ("(> 3 3)", "#f"), ("(>= 3 3 1)", "#t"), ("(>= 1 2)", "#f"),
            ("(= 1 1 1)", "#t"), ("(= 1 1.0)", "#t"), ("(= 1 2)", "#f"), ("(< 5)", "#t"), ("(< 1 1.5)", "#t"),
            ("(= +nan.0 +nan.0)", "#f"), ("(< -inf.0 0 +inf.0)", "#t")])
    def test_compare(self, source, expected):
        assert show(source) == expected

    def test_all_arguments_type_checked(self):
        with pytest.raises(LispTypeError, match="<: expected number, got a"):
            ev("(< 2 1 'a)")

    def test_equal_sign_type_error(self):
        with pytest.raises(LispTypeError, match='=: expected number, got "1"'):
            ev('(= 1 "1")')


class TestMax:
    @check([("(max 1 5 3)", "5"), ("(max 7)", "7"), ("(max 1 2.0)", "2.0"), ("(max 3 2.0)", "3.0"), ("(max -1 -5)", "-1")])
    def test_max(self, source, expected):
        assert show(source) == expected

    def test_type_error(self):
        with pytest.raises(LispTypeError, match="max: expected number"):
            ev("(max 1 'a)")


class TestMin:
    @check([("(min 4 2 8)", "2"), ("(min 7)", "7"), ("(min 1 2.0)", "1.0"), ("(min -1 -5)", "-5")])
    def test_min(self, source, expected):
        assert show(source) == expected

    def test_type_error(self):
        with pytest.raises(LispTypeError, match="min: expected number"):
            ev("(min #t)")


class TestExpt:
    @check([("(expt 2 10)", "1024"), ("(expt 2 100)", "1267650600228229401496703205376"), ("(expt 0 0)", "1"),
            ("(expt 2 -1)", "0.5"), ("(expt 4 0.5)", "2.0"), ("(expt 2.0 3)", "8.0"), ("(expt -2 3)", "-8"),
            ("(expt -8.0 2)", "64.0"), ("(expt 1.5 2)", "2.25")])
    def test_expt(self, source, expected):
        assert show(source) == expected

    def test_zero_to_negative_power(self):
        with pytest.raises(EvalError, match="expt: division by zero"):
            ev("(expt 0 -1)")

    def test_non_real_result(self):
        with pytest.raises(EvalError, match="not a real number"):
            ev("(expt -8 0.5)")

    def test_type_error(self):
        with pytest.raises(LispTypeError, match="expt: expected number"):
            ev("(expt 'a 2)")


class TestSqrt:
    @check([("(sqrt 16)", "4"), ("(sqrt 0)", "0"), ("(sqrt 2)", "1.4142135623730951"), ("(sqrt 16.0)", "4.0"),
            ("(sqrt 0.25)", "0.5"), ("(sqrt 100000000000000000000000000000000000000000)", "3.1622776601683794e+20"),
            ("(sqrt 1000000000000000000000000000000000000000000000000)", "1000000000000000000000000")])
    def test_sqrt(self, source, expected):
        assert show(source) == expected

    def test_negative(self):
        with pytest.raises(EvalError, match="sqrt: negative argument"):
            ev("(sqrt -4)")

    def test_type_error(self):
        with pytest.raises(LispTypeError, match="sqrt: expected number"):
            ev('(sqrt "4")')


class TestRound:
    @check([("(round 2.5)", "2.0"), ("(round 3.5)", "4.0"), ("(round -2.5)", "-2.0"), ("(round 2.6)", "3.0"),
            ("(round 7)", "7"), ("(round -0.4)", "-0.0"), ("(round +inf.0)", "+inf.0")])
    def test_round(self, source, expected):
        assert show(source) == expected

    def test_type_error(self):
        with pytest.raises(LispTypeError, match="round: expected number"):
            ev("(round 'x)")


class TestNumberToString:
    @check([("(number->string 42)", '"42"'), ("(number->string -2.5)", '"-2.5"'), ("(number->string 3.0)", '"3.0"'),
            ("(number->string 255 16)", '"ff"'), ("(number->string -5 2)", '"-101"'), ("(number->string 8 8)", '"10"'),
            ("(number->string 0 2)", '"0"'), ("(number->string 10 10)", '"10"'), ("(number->string +inf.0)", '"+inf.0"')])
    def test_number_to_string(self, source, expected):
        assert show(source) == expected

    @pytest.mark.parametrize("source", ["(number->string 10 3)", "(number->string 1.5 16)", "(number->string 10 #t)"])
    def test_bad_radix(self, source):
        with pytest.raises(EvalError, match="number->string: bad radix"):
            ev(source)

    def test_type_error(self):
        with pytest.raises(LispTypeError, match="number->string: expected number"):
            ev('(number->string "1")')


class TestStringToNumber:
    @check([('(string->number "42")', "42"), ('(string->number "-1.5")', "-1.5"), ('(string->number "1e2")', "100.0"),
            ('(string->number "#xff")', "255"), ('(string->number "ff" 16)', "255"), ('(string->number "101" 2)', "5"),
            ('(string->number "abc")', "#f"), ('(string->number "")', "#f"), ('(string->number "12" 2)', "#f"),
            ('(string->number " 1")', "#f")])
    def test_string_to_number(self, source, expected):
        assert show(source) == expected

    def test_type_error(self):
        with pytest.raises(LispTypeError, match="string->number: expected string, got 5"):
            ev("(string->number 5)")

    def test_bad_radix(self):
        with pytest.raises(EvalError, match="string->number: bad radix"):
            ev('(string->number "1" 7)')
