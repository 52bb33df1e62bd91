"""Layer 5: mathematical functions, evaluated through a Sheet."""

import pytest

from sheetcalc.sheet import Sheet
from sheetcalc.values import DIV0, NA, NUM, VALUE, CellError


def ev(formula, **cells):
    s = Sheet()
    for addr, raw in cells.items():
        s.set_cell(addr, raw)
    return s.evaluate(formula)


DATA = {"A1": "1", "A2": "2", "A3": "3", "A4": "text", "A5": "TRUE", "B1": "10", "B2": "'5", "C1": "#N/A"}


class TestSum:
    @pytest.mark.parametrize(
        "formula, expected",
        [
            ("=SUM(1,2,3)", 6.0),
            ("=SUM(A1:A3)", 6.0),
            ("=SUM(A1:A5)", 6.0),
            ("=SUM(A1:B2)", 13.0),
            ("=SUM(A1:A3, 10, B1)", 26.0),
            ('=SUM("4", TRUE)', 5.0),
            ("=SUM(B2)", 5.0),
            ("=SUM(B2:B2)", 0.0),
            ("=SUM(D1:D9)", 0.0),
            ("=SUM(D1)", 0.0),
            ("=sum(1.5,-0.5)", 1.0),
        ],
    )
    def test_values(self, formula, expected):
        assert ev(formula, **DATA) == expected

    def test_direct_text(self):
        assert ev('=SUM(1,"x")') == VALUE

    def test_error_in_range(self):
        assert ev("=SUM(A1:C1)", **DATA) == NA

    def test_error_argument(self):
        assert ev("=SUM(1, 1/0)") == DIV0

    def test_no_arguments(self):
        assert ev("=SUM()") == VALUE

    def test_float_sum(self):
        assert ev("=SUM(0.1,0.2)") == pytest.approx(0.3)


class TestProduct:
    @pytest.mark.parametrize(
        "formula, expected",
        [
            ("=PRODUCT(2,3,4)", 24.0),
            ("=PRODUCT(A1:A3)", 6.0),
            ("=PRODUCT(A1:A5, 0.5)", 3.0),
            ("=PRODUCT(D1:D3)", 0.0),
            ('=PRODUCT("2", 5)', 10.0),
        ],
    )
    def test_values(self, formula, expected):
        assert ev(formula, **DATA) == expected

    def test_error(self):
        assert ev("=PRODUCT(A1, C1)", **DATA) == NA


class TestRound:
    @pytest.mark.parametrize(
        "formula, expected",
        [
            ("=ROUND(2.5)", 3.0),
            ("=ROUND(-2.5)", -3.0),
            ("=ROUND(3.5)", 4.0),
            ("=ROUND(2.4)", 2.0),
            ("=ROUND(1.005, 2)", 1.01),
            ("=ROUND(0.125, 2)", 0.13),
            ("=ROUND(3.14159, 3)", 3.142),
            ("=ROUND(1234.5, -2)", 1200.0),
            ("=ROUND(1250, -2)", 1300.0),
            ("=ROUND(2.567, 1.9)", 2.6),
            ('=ROUND("7.45", 1)', 7.5),
            ("=ROUND(-0.05, 1)", -0.1),
        ],
    )
    def test_values(self, formula, expected):
        assert ev(formula) == expected

    def test_text_number(self):
        assert ev('=ROUND("abc")') == VALUE

    def test_error_digits(self):
        assert ev("=ROUND(1, #N/A)") == NA


class TestAbs:
    @pytest.mark.parametrize(
        "formula, expected",
        [("=ABS(-3)", 3.0), ("=ABS(2.5)", 2.5), ("=ABS(0)", 0.0), ('=ABS("-4")', 4.0), ("=ABS(A9)", 0.0)],
    )
    def test_values(self, formula, expected):
        assert ev(formula) == expected

    def test_text(self):
        assert ev('=ABS("x")') == VALUE

    def test_wrong_argument_count(self):
        assert ev("=ABS(1,2)") == VALUE


class TestInt:
    @pytest.mark.parametrize(
        "formula, expected",
        [("=INT(2.7)", 2.0), ("=INT(-2.1)", -3.0), ("=INT(5)", 5.0), ("=INT(-0.5)", -1.0), ("=INT(TRUE)", 1.0)],
    )
    def test_values(self, formula, expected):
        assert ev(formula) == expected

    def test_error(self):
        assert ev("=INT(1/0)") == DIV0


class TestMod:
    @pytest.mark.parametrize(
        "formula, expected",
        [
            ("=MOD(7, 3)", 1.0),
            ("=MOD(-3, 2)", 1.0),
            ("=MOD(3, -2)", -1.0),
            ("=MOD(-7, -3)", -1.0),
            ("=MOD(5.5, 2)", 1.5),
            ("=MOD(6, 3)", 0.0),
        ],
    )
    def test_values(self, formula, expected):
        assert ev(formula) == expected

    def test_zero_divisor(self):
        assert ev("=MOD(5, 0)") == DIV0

    def test_error_number_first(self):
        assert ev("=MOD(#N/A, 0)") == NA


class TestSqrt:
    @pytest.mark.parametrize("formula, expected", [("=SQRT(16)", 4.0), ("=SQRT(2.25)", 1.5), ("=SQRT(0)", 0.0)])
    def test_values(self, formula, expected):
        assert ev(formula) == expected

    def test_negative(self):
        assert ev("=SQRT(-1)") == NUM

    def test_text(self):
        assert ev('=SQRT("four")') == VALUE


class TestPower:
    @pytest.mark.parametrize(
        "formula, expected",
        [("=POWER(2, 10)", 1024.0), ("=POWER(9, 0.5)", 3.0), ("=POWER(-2, 3)", -8.0), ("=POWER(2, -1)", 0.5)],
    )
    def test_values(self, formula, expected):
        assert ev(formula) == expected

    def test_zero_to_zero(self):
        assert ev("=POWER(0, 0)") == NUM

    def test_negative_root(self):
        assert ev("=POWER(-8, 1/3)") == NUM

    def test_error(self):
        assert ev("=POWER(A1, 2)", A1="#REF!") == CellError("#REF!")
