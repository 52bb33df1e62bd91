"""Layer 5: argument helpers and criteria of the function library."""

import pytest

from sheetcalc.functions.criteria import make_predicate
from sheetcalc.functions.helpers import numeric_args, wildcard_match
from sheetcalc.values import DIV0, NA, REF, VALUE, CellError, RangeValue


def grid(*rows):
    return RangeValue(tuple(tuple(r) for r in rows))


class TestNumericArgs:
    def test_direct_numbers(self):
        assert numeric_args([1.0, 2.5]) == [1.0, 2.5]

    def test_direct_booleans_and_numeric_text(self):
        assert numeric_args([True, False, "3", " 4.5 "]) == [1.0, 0.0, 3.0, 4.5]

    def test_direct_non_numeric_text(self):
        assert numeric_args([1.0, "abc"]) == VALUE

    def test_direct_empty_skipped(self):
        assert numeric_args([None, 2.0]) == [2.0]

    def test_range_keeps_only_numbers(self):
        assert numeric_args([grid((1.0, "2", True), (None, 5.0, ""))]) == [1.0, 5.0]

    def test_order_preserved(self):
        assert numeric_args([3.0, grid((1.0,), (2.0,)), 0.0]) == [3.0, 1.0, 2.0, 0.0]

    def test_error_in_range(self):
        assert numeric_args([grid((1.0, DIV0))]) == DIV0

    def test_first_error_wins(self):
        assert numeric_args([grid((NA,)), REF]) == NA

    def test_direct_error(self):
        assert numeric_args([1.0, REF, DIV0]) == REF

    def test_nothing(self):
        assert numeric_args([]) == []


class TestWildcardMatch:
    @pytest.mark.parametrize(
        "pattern, text, expected",
        [
            ("abc", "ABC", True),
            ("abc", "abcd", False),
            ("a*", "apple", True),
            ("a*", "banana", False),
            ("*an*", "banana", True),
            ("?", "x", True),
            ("?", "", False),
            ("a?c", "abc", True),
            ("a?c", "abbc", False),
            ("~*", "*", True),
            ("what~?", "what?", True),
            ("a~~b", "a~b", True),
            ("end~", "end~", True),
            ("a.c", "abc", False),
            ("(x)", "(X)", True),
            ("*", "", True),
        ],
    )
    def test_match(self, pattern, text, expected):
        assert wildcard_match(pattern, text) is expected


CELLS = [None, "", 0.0, 5.0, 10.0, "5", "apple", "Banana", True, False, DIV0, NA]


def matching(criteria):
    pred = make_predicate(criteria)
    return [v for v in CELLS if pred(v)]


class TestMakePredicate:
    def test_number(self):
        assert matching(5.0) == [5.0]

    def test_boolean(self):
        assert matching(True) == [True]

    def test_error_value(self):
        assert matching(NA) == [NA]

    def test_none_is_blank(self):
        assert matching(None) == [None, ""]

    def test_numeric_text(self):
        assert matching("5") == [5.0]

    def test_equals_numeric(self):
        assert matching("=10") == [10.0]

    @pytest.mark.parametrize(
        "criteria, expected",
        [
            (">5", [10.0]),
            (">=5", [5.0, 10.0]),
            ("<5", [0.0]),
            ("<=5", [0.0, 5.0]),
            ("<>5", [None, "", 0.0, 10.0, "5", "apple", "Banana", True, False, DIV0, NA]),
        ],
    )
    def test_numeric_operators(self, criteria, expected):
        assert matching(criteria) == expected

    def test_text_case_insensitive(self):
        assert matching("APPLE") == ["apple"]

    def test_text_wildcards(self):
        assert matching("*an*") == ["Banana"]

    def test_text_not_equal(self):
        assert matching("<>apple") == [None, "", 0.0, 5.0, 10.0, "5", "Banana", True, False, DIV0, NA]

    def test_text_ordering(self):
        assert matching(">b") == ["Banana"]
        assert matching("<b") == ["", "5", "apple"]

    def test_blank_criteria(self):
        assert matching("") == [None, ""]
        assert matching("=") == [None, ""]

    def test_not_blank(self):
        assert matching("<>") == [0.0, 5.0, 10.0, "5", "apple", "Banana", True, False, DIV0, NA]

    def test_ordering_with_empty_operand(self):
        assert matching(">") == []

    def test_boolean_text(self):
        assert matching("true") == [True]
        assert matching("<>FALSE") == [None, "", 0.0, 5.0, 10.0, "5", "apple", "Banana", True, DIV0, NA]

    def test_error_text(self):
        assert matching("#DIV/0!") == [DIV0]

    def test_single_cell_range_criteria(self):
        assert matching(grid((">5",))) == [10.0]

    def test_percent_operand(self):
        pred = make_predicate(">=50%")
        assert pred(0.5) and pred(0.75) and not pred(0.25)

    def test_integer_criteria(self):
        assert make_predicate(5)(5.0)
