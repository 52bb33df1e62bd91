"""Layer 5: text functions, evaluated through a Sheet."""

import pytest

from sheetcalc.sheet import Sheet
from sheetcalc.values import DIV0, NA, VALUE


def ev(formula, **cells):
    s = Sheet()
    for addr, raw in cells.items():
        s.set_cell(addr, raw)
    return s.evaluate(formula)


DATA = {"A1": "Hello", "A2": "World", "A3": "12.50", "A4": "TRUE", "B1": "=1/0", "C1": "  lots   of   space  "}


class TestConcat:
    @pytest.mark.parametrize(
        "formula, expected",
        [
            ('=CONCAT("a", "b", "c")', "abc"),
            ('=CONCAT(A1, " ", A2)', "Hello World"),
            ("=CONCAT(A1:A4)", "HelloWorld12.5TRUE"),
            ("=CONCAT(1, 2.5, FALSE)", "12.5FALSE"),
            ('=CONCAT(A9, "x", A9)', "x"),
            ("=CONCAT(A1:B2)", "HelloWorld"),
        ],
    )
    def test_values(self, formula, expected):
        assert ev(formula, **{k: v for k, v in DATA.items() if k != "B1"}) == expected

    def test_error(self):
        assert ev("=CONCAT(A1, B1)", **DATA) == DIV0

    def test_error_in_range(self):
        assert ev("=CONCAT(A1:B1)", **DATA) == DIV0


class TestLen:
    @pytest.mark.parametrize(
        "formula, expected",
        [
            ('=LEN("abc")', 3.0),
            ('=LEN("")', 0.0),
            ("=LEN(A1)", 5.0),
            ("=LEN(A3)", 4.0),
            ("=LEN(A4)", 4.0),
            ("=LEN(A9)", 0.0),
            ("=LEN(C1)", 21.0),
            ("=LEN(1/4)", 4.0),
        ],
    )
    def test_values(self, formula, expected):
        assert ev(formula, **DATA) == expected

    def test_error(self):
        assert ev("=LEN(B1)", **DATA) == DIV0


class TestUpper:
    @pytest.mark.parametrize(
        "formula, expected",
        [('=UPPER("abc")', "ABC"), ("=UPPER(A1)", "HELLO"), ("=UPPER(2.5)", "2.5"), ("=UPPER(FALSE)", "FALSE"), ('=UPPER("mIxEd 1")', "MIXED 1")],
    )
    def test_values(self, formula, expected):
        assert ev(formula, **DATA) == expected

    def test_error(self):
        assert ev("=UPPER(#N/A)") == NA


class TestLower:
    @pytest.mark.parametrize(
        "formula, expected",
        [('=LOWER("ABC")', "abc"), ("=LOWER(A2)", "world"), ("=LOWER(TRUE)", "true"), ("=LOWER(A9)", "")],
    )
    def test_values(self, formula, expected):
        assert ev(formula, **DATA) == expected

    def test_error(self):
        assert ev("=LOWER(B1)", **DATA) == DIV0


class TestLeft:
    @pytest.mark.parametrize(
        "formula, expected",
        [
            ('=LEFT("abcdef", 3)', "abc"),
            ('=LEFT("abcdef")', "a"),
            ('=LEFT("abc", 10)', "abc"),
            ('=LEFT("abc", 0)', ""),
            ("=LEFT(A1, 2.9)", "He"),
            ("=LEFT(12345, 2)", "12"),
        ],
    )
    def test_values(self, formula, expected):
        assert ev(formula, **DATA) == expected

    def test_negative_count(self):
        assert ev('=LEFT("abc", -1)') == VALUE

    def test_text_count(self):
        assert ev('=LEFT("abc", "two")') == VALUE


class TestRight:
    @pytest.mark.parametrize(
        "formula, expected",
        [
            ('=RIGHT("abcdef", 3)', "def"),
            ('=RIGHT("abcdef")', "f"),
            ('=RIGHT("abc", 0)', ""),
            ('=RIGHT("abc", 99)', "abc"),
            ("=RIGHT(A2, 4)", "orld"),
            ('=RIGHT("abc", "2")', "bc"),
        ],
    )
    def test_values(self, formula, expected):
        assert ev(formula, **DATA) == expected

    def test_negative_count(self):
        assert ev('=RIGHT("abc", -2)') == VALUE

    def test_error(self):
        assert ev("=RIGHT(B1, 1)", **DATA) == DIV0


class TestMid:
    @pytest.mark.parametrize(
        "formula, expected",
        [
            ('=MID("abcdef", 2, 3)', "bcd"),
            ('=MID("abcdef", 1, 1)', "a"),
            ('=MID("abcdef", 5, 10)', "ef"),
            ('=MID("abc", 4, 2)', ""),
            ('=MID("abc", 99, 1)', ""),
            ('=MID("abc", 2, 0)', ""),
            ("=MID(A1, 2.7, 2)", "el"),
        ],
    )
    def test_values(self, formula, expected):
        assert ev(formula, **DATA) == expected

    @pytest.mark.parametrize("formula", ['=MID("abc", 0, 1)', '=MID("abc", 1, -1)', '=MID("abc", "x", 1)'])
    def test_invalid(self, formula):
        assert ev(formula) == VALUE

    def test_too_few_arguments(self):
        assert ev('=MID("abc", 1)') == VALUE


class TestTrim:
    @pytest.mark.parametrize(
        "formula, expected",
        [
            ("=TRIM(C1)", "lots of space"),
            ('=TRIM("  a  ")', "a"),
            ('=TRIM("a b")', "a b"),
            ('=TRIM("     ")', ""),
            ("=TRIM(42)", "42"),
        ],
    )
    def test_values(self, formula, expected):
        assert ev(formula, **DATA) == expected

    def test_only_spaces_collapsed(self):
        s = Sheet()
        s.set_cell("A1", "a\t\tb")
        assert s.evaluate("=TRIM(A1)") == "a\t\tb"

    def test_error(self):
        assert ev("=TRIM(1/0)") == DIV0
