"""Layer 5: lookup functions, evaluated through a Sheet."""

import pytest

from sheetcalc.sheet import Sheet
from sheetcalc.values import DIV0, NA, REF, VALUE


# A price table (sorted by id) and a grade table (sorted by score).
TABLE = {
    "A1": "1", "B1": "apple", "C1": "0.5",
    "A2": "3", "B2": "Banana", "C2": "0.25",
    "A3": "5", "B3": "cherry", "C3": "3",
    "A4": "7", "B4": "date",
    "E1": "0", "F1": "F",
    "E2": "60", "F2": "D",
    "E3": "70", "F3": "C",
    "E4": "80", "F4": "B",
    "E5": "90", "F5": "A",
    "H1": "30", "H2": "20", "H3": "10",
    "J1": "x", "K1": "y", "L1": "z",
}


_BUILT = []


def shared_sheet():
    """The sheet holding TABLE, built once and shared (the tests only read it)."""
    if not _BUILT:
        s = Sheet()
        for addr, raw in TABLE.items():
            s.set_cell(addr, raw)
        _BUILT.append(s)
    return _BUILT[0]


class TestVlookup:
    @pytest.mark.parametrize(
        "formula, expected",
        [
            ("=VLOOKUP(3, A1:C4, 2, FALSE)", "Banana"),
            ("=VLOOKUP(5, A1:C4, 3, FALSE)", 3.0),
            ("=VLOOKUP(1, A1:C4, 1, FALSE)", 1.0),
            ('=VLOOKUP("BANANA", B1:C4, 2, FALSE)', 0.25),
            ('=VLOOKUP("ch*", B1:C4, 1, FALSE)', "cherry"),
            ('=VLOOKUP("d?te", B1:B4, 1, FALSE)', "date"),
            ("=VLOOKUP(85, E1:F5, 2)", "B"),
            ("=VLOOKUP(90, E1:F5, 2, TRUE)", "A"),
            ("=VLOOKUP(59.9, E1:F5, 2)", "F"),
            ("=VLOOKUP(1000, E1:F5, 2)", "A"),
            ("=VLOOKUP(4, A1:C4, 2)", "Banana"),
            ("=VLOOKUP(7, A1:C4, 3, FALSE)", 0.0),
            ("=VLOOKUP(3, A1:C4, 2, 0)", "Banana"),
        ],
    )
    def test_values(self, formula, expected):
        assert shared_sheet().evaluate(formula) == expected

    @pytest.mark.parametrize(
        "formula, expected",
        [
            ("=VLOOKUP(4, A1:C4, 2, FALSE)", NA),
            ("=VLOOKUP(-1, E1:F5, 2)", NA),
            ('=VLOOKUP("3", A1:C4, 2, FALSE)', NA),
            ("=VLOOKUP(3, A1:C4, 0, FALSE)", VALUE),
            ("=VLOOKUP(3, A1:C4, 4, FALSE)", REF),
            ("=VLOOKUP(1/0, A1:C4, 2)", DIV0),
            ("=VLOOKUP(3, A1:C4, #N/A)", NA),
            ("=VLOOKUP(Z9, A1:C4, 2, FALSE)", NA),
            ('=VLOOKUP(3, A1:C4, "two")', VALUE),
        ],
    )
    def test_errors(self, formula, expected):
        assert shared_sheet().evaluate(formula) == expected

    def test_recalculates_when_table_changes(self):
        s = Sheet()
        for addr, raw in {"A1": "k1", "B1": "10", "A2": "k2", "B2": "20", "D1": '=VLOOKUP("k2", A1:B2, 2, FALSE)'}.items():
            s.set_cell(addr, raw)
        assert s.get_value("D1") == 20.0
        s.set_cell("B2", "99")
        assert s.get_value("D1") == 99.0


class TestIndex:
    @pytest.mark.parametrize(
        "formula, expected",
        [
            ("=INDEX(A1:C4, 2, 2)", "Banana"),
            ("=INDEX(A1:C4, 3, 3)", 3.0),
            ("=INDEX(A1:C4, 4, 3)", 0.0),
            ("=INDEX(E1:E5, 4)", 80.0),
            ("=INDEX(J1:L1, 2)", "y"),
            ("=INDEX(J1:L1, 1, 3)", "z"),
            ("=INDEX(A1:C4, 2.9, 1)", 3.0),
            ('=INDEX(A1:C4, "1", "2")', "apple"),
            ("=INDEX(H1, 1)", 30.0),
        ],
    )
    def test_values(self, formula, expected):
        assert shared_sheet().evaluate(formula) == expected

    @pytest.mark.parametrize(
        "formula, expected",
        [
            ("=INDEX(A1:C4, 5, 1)", REF),
            ("=INDEX(A1:C4, 1, 4)", REF),
            ("=INDEX(J1:L1, 4)", REF),
            ("=INDEX(A1:C4, 0, 1)", VALUE),
            ("=INDEX(A1:C4, -1, 1)", VALUE),
            ("=INDEX(A1:C4, 1/0, 1)", DIV0),
        ],
    )
    def test_errors(self, formula, expected):
        assert shared_sheet().evaluate(formula) == expected


class TestMatch:
    @pytest.mark.parametrize(
        "formula, expected",
        [
            ("=MATCH(5, A1:A4, 0)", 3.0),
            ('=MATCH("CHERRY", B1:B4, 0)', 3.0),
            ('=MATCH("b*", B1:B4, 0)', 2.0),
            ("=MATCH(75, E1:E5)", 3.0),
            ("=MATCH(75, E1:E5, 1)", 3.0),
            ("=MATCH(80, E1:E5, 1)", 4.0),
            ("=MATCH(25, H1:H3, -1)", 1.0),
            ("=MATCH(20, H1:H3, -1)", 2.0),
            ("=MATCH(5, H1:H3, -1)", 3.0),
            ('=MATCH("z", J1:L1, 0)', 3.0),
            ("=MATCH(1000, E1:E5, 1)", 5.0),
        ],
    )
    def test_values(self, formula, expected):
        assert shared_sheet().evaluate(formula) == expected

    @pytest.mark.parametrize(
        "formula, expected",
        [
            ("=MATCH(4, A1:A4, 0)", NA),
            ("=MATCH(-5, E1:E5)", NA),
            ("=MATCH(40, H1:H3, -1)", NA),
            ("=MATCH(1, A1:C4, 0)", NA),
            ("=MATCH(#REF!, A1:A4, 0)", REF),
            ("=MATCH(Z9, A1:A4, 0)", NA),
        ],
    )
    def test_errors(self, formula, expected):
        assert shared_sheet().evaluate(formula) == expected

    def test_index_match_combination(self):
        assert shared_sheet().evaluate('=INDEX(C1:C4, MATCH("banana", B1:B4, 0))') == 0.25
