"""Layer 4: ORDER BY sorting and DISTINCT (minidb.ordering)."""

import pytest

from minidb.errors import TypeMismatchError
from minidb.ordering import distinct_rows, sort_entries

ASC, DESC = (False, None), (True, None)


def order(values, direction):
    return sort_entries([((v,), i) for i, v in enumerate(values)], [direction])


class TestSortEntries:
    def test_ascending_numbers(self):
        assert order([3, 1, 2.5], ASC) == [1, 2, 0]

    def test_descending_strings(self):
        assert order(["b", "c", "a"], DESC) == [1, 0, 2]

    def test_default_nulls_last_ascending(self):
        assert order([None, 2, 1], ASC) == [2, 1, 0]

    def test_default_nulls_first_descending(self):
        assert order([1, None, 2], DESC) == [1, 2, 0]

    @pytest.mark.parametrize(
        "direction, expected",
        [
            ((False, True), [1, 2, 0]),
            ((False, False), [2, 0, 1]),
            ((True, True), [1, 0, 2]),
            ((True, False), [0, 2, 1]),
        ],
    )
    def test_explicit_nulls_placement(self, direction, expected):
        assert order([2, None, 1], direction) == expected

    def test_stable_for_equal_keys(self):
        assert order([1, 0, 1, 0], ASC) == [1, 3, 0, 2]
        assert order([1, 0, 1, 0], DESC) == [0, 2, 1, 3]

    def test_several_keys(self):
        entries = [(("b", 1), "b1"), (("a", 2), "a2"), (("b", 3), "b3"), (("a", 1), "a1")]
        assert sort_entries(entries, [ASC, DESC]) == ["a2", "a1", "b3", "b1"]

    def test_second_key_nulls(self):
        entries = [((1, None), "x"), ((1, 5), "y")]
        assert sort_entries(entries, [ASC, ASC]) == ["y", "x"]

    def test_no_entries(self):
        assert sort_entries([], [ASC]) == []

    def test_incomparable(self):
        with pytest.raises(TypeMismatchError):
            order([1, "a"], ASC)


class TestDistinctRows:
    def test_keeps_first_occurrence_in_order(self):
        assert distinct_rows([(2,), (1,), (2,), (3,), (1,)]) == [(2,), (1,), (3,)]

    def test_nulls_are_equal(self):
        assert distinct_rows([(None, 1), (None, 1), (None, 2)]) == [(None, 1), (None, 2)]

    def test_int_and_float_are_equal(self):
        assert distinct_rows([(1,), (1.0,)]) == [(1,)]

    def test_bool_and_int_differ(self):
        assert distinct_rows([(1,), (True,), (0,), (False,)]) == [(1,), (True,), (0,), (False,)]

    def test_case_sensitive_strings(self):
        assert distinct_rows([("a",), ("A",), ("a",)]) == [("a",), ("A",)]

    def test_key_function(self):
        items = [((1, "x"), "first"), ((1, "x"), "second"), ((2, "x"), "third")]
        assert distinct_rows(items, key=lambda item: item[0]) == [items[0], items[2]]
