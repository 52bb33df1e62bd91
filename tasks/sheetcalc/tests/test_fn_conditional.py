"""Layer 5: SUMIF, COUNTIF and AVERAGEIF, evaluated through a Sheet."""

import pytest

from sheetcalc.sheet import Sheet
from sheetcalc.values import DIV0, VALUE

# Region (A), product (B), amount (C), and a mixed column D.
DATA = {
    "A1": "north", "B1": "apple", "C1": "10", "D1": "5",
    "A2": "south", "B2": "banana", "C2": "20", "D2": "apple",
    "A3": "North", "B3": "cherry", "C3": "30", "D3": "TRUE",
    "A4": "east", "B4": "apricot", "C4": "40",
    "A5": "north", "B5": "banana", "C5": "n/a", "D5": "-2",
    "E1": "=1/0", "E2": "1",
}


_BUILT = []


def shared_sheet():
    """The sheet holding DATA, built once and shared (the tests only read it)."""
    if not _BUILT:
        s = Sheet()
        for addr, raw in DATA.items():
            s.set_cell(addr, raw)
        _BUILT.append(s)
    return _BUILT[0]


class TestSumIf:
    @pytest.mark.parametrize(
        "formula, expected",
        [
            ('=SUMIF(A1:A5, "north", C1:C5)', 40.0),
            ('=SUMIF(B1:B5, "a*", C1:C5)', 50.0),
            ('=SUMIF(B1:B5, "<>banana", C1:C5)', 80.0),
            ('=SUMIF(C1:C5, ">15")', 90.0),
            ('=SUMIF(C1:C5, "<=20")', 30.0),
            ("=SUMIF(C1:C5, 30)", 30.0),
            ('=SUMIF(A1:A5, "west", C1:C5)', 0.0),
            ('=SUMIF(D1:D5, "", C1:C5)', 40.0),
            ('=SUMIF(D1:D5, "<>", C1:C5)', 60.0),
            ("=SUMIF(D1:D5, TRUE, C1:C5)", 30.0),
        ],
    )
    def test_values(self, formula, expected):
        assert shared_sheet().evaluate(formula) == expected

    def test_criteria_from_cell(self):
        assert shared_sheet().evaluate("=SUMIF(B1:B5, B2, C1:C5)") == 20.0

    def test_shape_mismatch(self):
        assert shared_sheet().evaluate('=SUMIF(A1:A5, "north", C1:C4)') == VALUE

    def test_error_in_summed_cell(self):
        assert shared_sheet().evaluate('=SUMIF(C1:C2, ">0", E1:E2)') == DIV0

    def test_error_in_unmatched_cell_ignored(self):
        assert shared_sheet().evaluate('=SUMIF(C1:C2, ">15", E1:E2)') == 1.0

    def test_recalculates(self):
        s = Sheet()
        for addr, raw in {"A1": "x", "B1": "1", "A2": "y", "B2": "2", "C1": '=SUMIF(A1:A2, "y", B1:B2)'}.items():
            s.set_cell(addr, raw)
        s.set_cell("A1", "y")
        assert s.get_value("C1") == 3.0


class TestCountIf:
    @pytest.mark.parametrize(
        "formula, expected",
        [
            ('=COUNTIF(A1:A5, "north")', 3.0),
            ('=COUNTIF(A1:A5, "N*")', 3.0),
            ('=COUNTIF(B1:B5, "banana")', 2.0),
            ('=COUNTIF(C1:C5, ">=20")', 3.0),
            ('=COUNTIF(C1:C5, "<>10")', 4.0),
            ('=COUNTIF(D1:D5, "")', 1.0),
            ('=COUNTIF(D1:D5, "<>")', 4.0),
            ('=COUNTIF(D1:D5, "<0")', 1.0),
            ("=COUNTIF(D1:D5, 5)", 1.0),
            ('=COUNTIF(B1:B5, "?????")', 1.0),
            ('=COUNTIF(E1:E2, "#DIV/0!")', 1.0),
            ('=COUNTIF(A1:D5, "*an*")', 2.0),
        ],
    )
    def test_values(self, formula, expected):
        assert shared_sheet().evaluate(formula) == expected

    def test_single_cell_range(self):
        assert shared_sheet().evaluate('=COUNTIF(A1, "north")') == 1.0

    def test_error_value_criteria(self):
        assert shared_sheet().evaluate("=COUNTIF(E1:E2, #DIV/0!)") == 1.0

    def test_wrong_argument_count(self):
        assert shared_sheet().evaluate("=COUNTIF(A1:A5)") == VALUE


class TestAverageIf:
    @pytest.mark.parametrize(
        "formula, expected",
        [
            ('=AVERAGEIF(A1:A5, "north", C1:C5)', 20.0),
            ('=AVERAGEIF(C1:C5, ">15")', 30.0),
            ('=AVERAGEIF(B1:B5, "banana", C1:C5)', 20.0),
            ('=AVERAGEIF(D1:D5, "<>apple", C1:C5)', 80 / 3),
        ],
    )
    def test_values(self, formula, expected):
        assert shared_sheet().evaluate(formula) == pytest.approx(expected)

    def test_no_numbers(self):
        assert shared_sheet().evaluate('=AVERAGEIF(A1:A5, "west", C1:C5)') == DIV0

    def test_matched_only_text(self):
        assert shared_sheet().evaluate('=AVERAGEIF(C1:C5, "n/a")') == DIV0

    def test_shape_mismatch(self):
        assert shared_sheet().evaluate('=AVERAGEIF(A1:A5, "north", C1:D5)') == VALUE

    def test_error_criteria_matches_error_cells(self):
        assert shared_sheet().evaluate("=AVERAGEIF(E1:E2, #DIV/0!)") == DIV0
