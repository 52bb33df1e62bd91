"""Layer 5: logical and information functions, evaluated through a Sheet."""

import pytest

from sheetcalc.sheet import Sheet
from sheetcalc.values import DIV0, NA, REF, VALUE


def ev(formula, **cells):
    s = Sheet()
    for addr, raw in cells.items():
        s.set_cell(addr, raw)
    return s.evaluate(formula)


DATA = {"A1": "5", "A2": "TRUE", "A3": "hello", "A4": "0", "B1": "=1/0", "B2": '=""', "C1": "FALSE"}


class TestIf:
    @pytest.mark.parametrize(
        "formula, expected",
        [
            ('=IF(TRUE, "yes", "no")', "yes"),
            ('=IF(FALSE, "yes", "no")', "no"),
            ('=IF(A1>3, "big", "small")', "big"),
            ("=IF(1, 10, 20)", 10.0),
            ("=IF(0, 10, 20)", 20.0),
            ('=IF("true", 1, 2)', 1.0),
            ("=IF(A9, 1, 2)", 2.0),
            ("=IF(FALSE, 1)", False),
            ("=IF(TRUE, 1, 1/0)", 1.0),
            ("=IF(FALSE, 1/0, 7)", 7.0),
            ("=IF(TRUE, A9, 1)", 0.0),
            ("=IF(A1=5, IF(A2, 1, 2), 3)", 1.0),
        ],
    )
    def test_values(self, formula, expected):
        assert ev(formula, **DATA) == expected

    def test_text_condition(self):
        assert ev('=IF("maybe", 1, 2)') == VALUE

    def test_error_condition(self):
        assert ev("=IF(B1, 1, 2)", **DATA) == DIV0

    def test_range_branch_usable_by_function(self):
        assert ev("=SUM(IF(TRUE, A1:A4, 0))", **DATA) == 5.0

    def test_too_few_arguments(self):
        assert ev("=IF(TRUE)") == VALUE

    def test_error_branch_returned(self):
        assert ev("=IF(FALSE, 1, #N/A)") == NA


class TestAnd:
    @pytest.mark.parametrize(
        "formula, expected",
        [
            ("=AND(TRUE, TRUE)", True),
            ("=AND(TRUE, FALSE)", False),
            ("=AND(1, 2, 3)", True),
            ("=AND(1, 0)", False),
            ('=AND("TRUE", 1)', True),
            ("=AND(A1:A3)", True),
            ("=AND(A1:A4)", False),
            ("=AND(A9, TRUE)", True),
            ("=AND(A1>0, A2)", True),
        ],
    )
    def test_values(self, formula, expected):
        assert ev(formula, **DATA) is expected

    def test_direct_text(self):
        assert ev('=AND(TRUE, "x")') == VALUE

    def test_no_logical_values(self):
        assert ev("=AND(A3)", **DATA) == VALUE
        assert ev("=AND(A3:A3, B2:B2)", **DATA) == VALUE

    def test_error(self):
        assert ev("=AND(TRUE, B1)", **DATA) == DIV0


class TestOr:
    @pytest.mark.parametrize(
        "formula, expected",
        [
            ("=OR(FALSE, TRUE)", True),
            ("=OR(FALSE, FALSE)", False),
            ("=OR(0, 0, 1)", True),
            ("=OR(A3:A4)", False),
            ("=OR(A3:A4, C1, A2)", True),
            ('=OR("false")', False),
        ],
    )
    def test_values(self, formula, expected):
        assert ev(formula, **DATA) is expected

    def test_direct_text(self):
        assert ev('=OR("yes")') == VALUE

    def test_empty_range_only(self):
        assert ev("=OR(E1:E5)") == VALUE

    def test_error_in_range(self):
        assert ev("=OR(A1:B1)", **DATA) == DIV0


class TestNot:
    @pytest.mark.parametrize(
        "formula, expected",
        [("=NOT(TRUE)", False), ("=NOT(0)", True), ("=NOT(A1)", False), ('=NOT("FALSE")', True), ("=NOT(A9)", True)],
    )
    def test_values(self, formula, expected):
        assert ev(formula, **DATA) is expected

    def test_text(self):
        assert ev("=NOT(A3)", **DATA) == VALUE

    def test_error(self):
        assert ev("=NOT(#REF!)") == REF


class TestIfError:
    @pytest.mark.parametrize(
        "formula, expected",
        [
            ('=IFERROR(1/0, "oops")', "oops"),
            ('=IFERROR(B1, "bad")', "bad"),
            ("=IFERROR(A1*2, 0)", 10.0),
            ('=IFERROR(A3, "x")', "hello"),
            ("=IFERROR(#N/A, #REF!)", REF),
            ("=IFERROR(NOPE(), -1)", -1.0),
            ("=IFERROR(A9, 1)", 0.0),
        ],
    )
    def test_values(self, formula, expected):
        assert ev(formula, **DATA) == expected


class TestIsError:
    @pytest.mark.parametrize(
        "formula, expected",
        [("=ISERROR(1/0)", True), ("=ISERROR(#N/A)", True), ("=ISERROR(1)", False), ("=ISERROR(A9)", False), ("=ISERROR(A1:A2)", True)],
    )
    def test_values(self, formula, expected):
        assert ev(formula, **DATA) is expected


class TestIsNumber:
    @pytest.mark.parametrize(
        "formula, expected",
        [("=ISNUMBER(A1)", True), ("=ISNUMBER(A2)", False), ('=ISNUMBER("5")', False), ("=ISNUMBER(A9)", False), ("=ISNUMBER(1/0)", False)],
    )
    def test_values(self, formula, expected):
        assert ev(formula, **DATA) is expected


class TestIsText:
    @pytest.mark.parametrize(
        "formula, expected",
        [("=ISTEXT(A3)", True), ("=ISTEXT(B2)", True), ("=ISTEXT(A1)", False), ("=ISTEXT(A9)", False), ("=ISTEXT(A2)", False)],
    )
    def test_values(self, formula, expected):
        assert ev(formula, **DATA) is expected


class TestIsBlank:
    @pytest.mark.parametrize(
        "formula, expected",
        [("=ISBLANK(A9)", True), ("=ISBLANK(B2)", False), ("=ISBLANK(A4)", False), ("=ISBLANK(A3)", False), ("=ISBLANK(A9:A9)", True)],
    )
    def test_values(self, formula, expected):
        assert ev(formula, **DATA) is expected

    def test_cleared_cell_is_blank(self):
        s = Sheet()
        s.set_cell("A1", "x")
        s.set_cell("A1", "")
        assert s.evaluate("=ISBLANK(A1)") is True
