"""Layer 5: statistical functions, evaluated through a Sheet."""

import pytest

from sheetcalc.sheet import Sheet
from sheetcalc.values import DIV0, NA, VALUE


def ev(formula, **cells):
    s = Sheet()
    for addr, raw in cells.items():
        s.set_cell(addr, raw)
    return s.evaluate(formula)


# A1:A6 holds mixed content; B1:B3 numbers; C1 an error.
DATA = {
    "A1": "4",
    "A2": "8",
    "A3": "apple",
    "A4": "TRUE",
    "A6": "-3",
    "B1": "10",
    "B2": "20",
    "B3": "30",
    "C1": "=1/0",
    "D1": '=""',
}


class TestAverage:
    @pytest.mark.parametrize(
        "formula, expected",
        [
            ("=AVERAGE(B1:B3)", 20.0),
            ("=AVERAGE(A1:A6)", 3.0),
            ("=AVERAGE(1, 2)", 1.5),
            ("=AVERAGE(B1:B3, 60)", 30.0),
            ('=AVERAGE(TRUE, "3")', 2.0),
        ],
    )
    def test_values(self, formula, expected):
        assert ev(formula, **DATA) == expected

    def test_no_numbers(self):
        assert ev("=AVERAGE(E1:E5)", **DATA) == DIV0

    def test_single_empty_reference(self):
        assert ev("=AVERAGE(E1)", **DATA) == DIV0

    def test_error_propagates(self):
        assert ev("=AVERAGE(B1:C1)", **DATA) == DIV0

    def test_direct_text(self):
        assert ev('=AVERAGE(1, "one")') == VALUE


class TestMin:
    @pytest.mark.parametrize(
        "formula, expected",
        [
            ("=MIN(B1:B3)", 10.0),
            ("=MIN(A1:A6)", -3.0),
            ("=MIN(5, 2, 9)", 2.0),
            ("=MIN(E1:E3)", 0.0),
            ("=MIN(B1:B3, -1)", -1.0),
            ('=MIN("7", 8)', 7.0),
        ],
    )
    def test_values(self, formula, expected):
        assert ev(formula, **DATA) == expected

    def test_error(self):
        assert ev("=MIN(B1, C1)", **DATA) == DIV0


class TestMax:
    @pytest.mark.parametrize(
        "formula, expected",
        [
            ("=MAX(B1:B3)", 30.0),
            ("=MAX(A1:A6)", 8.0),
            ("=MAX(-5, -2)", -2.0),
            ("=MAX(E1:E3)", 0.0),
            ("=MAX(A3:A4)", 0.0),
            ("=MAX(TRUE, 0.5)", 1.0),
        ],
    )
    def test_values(self, formula, expected):
        assert ev(formula, **DATA) == expected

    def test_error(self):
        assert ev("=MAX(#N/A, 1)") == NA


class TestCount:
    @pytest.mark.parametrize(
        "formula, expected",
        [
            ("=COUNT(A1:A6)", 3.0),
            ("=COUNT(B1:B3)", 3.0),
            ("=COUNT(A1:D1)", 2.0),
            ('=COUNT(1, "2", "x", TRUE)', 3.0),
            ("=COUNT(E1:E9)", 0.0),
            ("=COUNT(1/0, 5)", 1.0),
            ("=COUNT(A4)", 1.0),
            ("=COUNT(A3)", 0.0),
        ],
    )
    def test_values(self, formula, expected):
        assert ev(formula, **DATA) == expected


class TestCountA:
    @pytest.mark.parametrize(
        "formula, expected",
        [
            ("=COUNTA(A1:A6)", 5.0),
            ("=COUNTA(B1:D1)", 3.0),
            ("=COUNTA(E1:E9)", 0.0),
            ('=COUNTA(1, "", FALSE, #N/A)', 4.0),
            ("=COUNTA(D1)", 1.0),
            ("=COUNTA(E1)", 0.0),
        ],
    )
    def test_values(self, formula, expected):
        assert ev(formula, **DATA) == expected


class TestCountBlank:
    @pytest.mark.parametrize(
        "formula, expected",
        [
            ("=COUNTBLANK(A1:A6)", 1.0),
            ("=COUNTBLANK(D1:E2)", 4.0),
            ("=COUNTBLANK(B1:B3)", 0.0),
            ("=COUNTBLANK(E1)", 1.0),
            ("=COUNTBLANK(B1)", 0.0),
        ],
    )
    def test_values(self, formula, expected):
        assert ev(formula, **DATA) == expected

    def test_one_argument_only(self):
        assert ev("=COUNTBLANK(A1:A2, B1:B2)", **DATA) == VALUE
