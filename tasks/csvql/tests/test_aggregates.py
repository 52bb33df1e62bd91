import pytest

from csvql import QueryError, QueryTypeError, aggregate


class TestAggregate:
    def test_count_ignores_nulls(self):
        assert aggregate("COUNT", [1, None, "x", None, 0]) == 3
        assert aggregate("COUNT", []) == 0

    def test_sum_ints_stays_int(self):
        result = aggregate("SUM", [1, 2, None, 4])
        assert result == 7 and isinstance(result, int)

    def test_sum_mixed_is_float(self):
        result = aggregate("SUM", [1, 2.5])
        assert result == 3.5 and isinstance(result, float)

    def test_avg(self):
        result = aggregate("AVG", [1, 2, None])
        assert result == 1.5 and isinstance(result, float)
        assert isinstance(aggregate("AVG", [4, 4]), float)

    @pytest.mark.parametrize("func", ["SUM", "AVG", "MIN", "MAX"])
    def test_empty_is_none(self, func):
        assert aggregate(func, []) is None
        assert aggregate(func, [None, None]) is None

    def test_min_max(self):
        assert aggregate("MIN", [3, None, 1.5, 7]) == 1.5
        assert aggregate("MAX", [3, None, 1.5, 7]) == 7
        assert aggregate("MIN", ["pear", "apple"]) == "apple"
        assert aggregate("MAX", [False, True]) is True

    @pytest.mark.parametrize("values", [["a"], [1, True]])
    def test_sum_avg_need_numbers(self, values):
        with pytest.raises(QueryTypeError):
            aggregate("SUM", values)
        with pytest.raises(QueryTypeError):
            aggregate("AVG", values)

    def test_min_mixed_types(self):
        with pytest.raises(QueryTypeError):
            aggregate("MIN", [1, "a"])

    @pytest.mark.parametrize("func", ["MEDIAN", "count", ""])
    def test_unknown_function(self, func):
        with pytest.raises(QueryError):
            aggregate(func, [1])
