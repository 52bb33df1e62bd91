"""Layer 4: aggregate functions (minidb.aggregates)."""

import pytest

from minidb.aggregates import aggregate_values
from minidb.errors import ExecutionError, TypeMismatchError


class TestAggregateValues:
    @pytest.mark.parametrize(
        "name, values, expected",
        [
            ("count", [1, None, 3], 2),
            ("count", [], 0),
            ("count", [None, None], 0),
            ("sum", [1, 2, 3], 6),
            ("sum", [1, 2.5, None], 3.5),
            ("sum", [1.0, 2.0], 3.0),
            ("sum", [None, None], None),
            ("sum", [], None),
            ("avg", [1, 2], 1.5),
            ("avg", [2, None, 4], 3.0),
            ("avg", [], None),
            ("min", [3, 1, 2], 1),
            ("max", [3, 1, None, 2], 3),
            ("min", ["pear", "apple", "fig"], "apple"),
            ("max", [False, True, False], True),
            ("max", [None], None),
            ("min", [2, 1.5], 1.5),
        ],
    )
    def test_values(self, name, values, expected):
        result = aggregate_values(name, values)
        assert result == expected and type(result) is type(expected)

    def test_count_star_counts_nulls(self):
        assert aggregate_values("count", [None, None, 1], star=True) == 3

    @pytest.mark.parametrize(
        "name, expected", [("count", 2), ("sum", 3), ("avg", 1.5), ("min", 1), ("max", 2)]
    )
    def test_distinct(self, name, expected):
        assert aggregate_values(name, [1, 2, 1, None, 2.0, 1], distinct=True) == expected

    def test_distinct_keeps_booleans_apart_from_numbers(self):
        assert aggregate_values("count", [1, True, 1], distinct=True) == 2

    @pytest.mark.parametrize("name, values", [("sum", [1, "2"]), ("avg", [True]), ("min", [1, "a"])])
    def test_type_errors(self, name, values):
        with pytest.raises(TypeMismatchError):
            aggregate_values(name, values)

    def test_unknown(self):
        with pytest.raises(ExecutionError, match="no such aggregate function: median"):
            aggregate_values("median", [1])
