"""Layer 3: value coercion and comparison (minidb.values)."""

import pytest

from minidb.errors import ConstraintError, TypeMismatchError
from minidb.values import coerce_value, compare_values


class TestCoerceValue:
    @pytest.mark.parametrize(
        "value, type_name, expected",
        [
            (5, "INTEGER", 5),
            (-3, "INTEGER", -3),
            (3.0, "INTEGER", 3),
            ("42", "INTEGER", 42),
            (" -7 ", "INTEGER", -7),
            (2, "REAL", 2.0),
            (2.5, "REAL", 2.5),
            ("2.5", "REAL", 2.5),
            ("1e2", "REAL", 100.0),
            ("abc", "TEXT", "abc"),
            ("", "TEXT", ""),
            (7, "TEXT", "7"),
            (2.5, "TEXT", "2.5"),
            (True, "BOOLEAN", True),
            (False, "BOOLEAN", False),
            (1, "BOOLEAN", True),
            (0, "BOOLEAN", False),
            ("TRUE", "BOOLEAN", True),
            ("false", "BOOLEAN", False),
        ],
    )
    def test_conversions(self, value, type_name, expected):
        result = coerce_value(value, type_name)
        assert result == expected and type(result) is type(expected)

    @pytest.mark.parametrize("type_name", ["INTEGER", "REAL", "TEXT", "BOOLEAN"])
    def test_null_passes_through(self, type_name):
        assert coerce_value(None, type_name) is None

    @pytest.mark.parametrize(
        "value, type_name",
        [
            (2.5, "INTEGER"),
            ("abc", "INTEGER"),
            ("1.5", "INTEGER"),
            (True, "INTEGER"),
            ("x", "REAL"),
            (False, "REAL"),
            (True, "TEXT"),
            (2, "BOOLEAN"),
            ("yes", "BOOLEAN"),
            (1.0, "BOOLEAN"),
        ],
    )
    def test_mismatches(self, value, type_name):
        with pytest.raises(TypeMismatchError, match=f"expected {type_name}"):
            coerce_value(value, type_name)

    def test_length_limit(self):
        assert coerce_value("abc", "TEXT", 3) == "abc"
        with pytest.raises(ConstraintError):
            coerce_value("abcd", "TEXT", 3)

    def test_length_applies_after_number_conversion(self):
        with pytest.raises(ConstraintError):
            coerce_value(12345, "TEXT", 4)

    def test_unknown_type(self):
        with pytest.raises(ValueError):
            coerce_value(1, "DATE")


class TestCompareValues:
    @pytest.mark.parametrize(
        "left, right, expected",
        [
            (1, 2, -1),
            (2, 1, 1),
            (3, 3, 0),
            (1, 1.0, 0),
            (1.5, 1, 1),
            (-2, 0.5, -1),
            ("a", "b", -1),
            ("b", "a", 1),
            ("abc", "abc", 0),
            ("B", "a", -1),
            ("ab", "abc", -1),
            (False, True, -1),
            (True, True, 0),
        ],
    )
    def test_order(self, left, right, expected):
        assert compare_values(left, right) == expected

    @pytest.mark.parametrize("left, right", [(1, "1"), ("a", 2.0), (True, 1), (0, False), ("true", True)])
    def test_incomparable(self, left, right):
        with pytest.raises(TypeMismatchError, match="cannot compare"):
            compare_values(left, right)

    def test_null_is_rejected(self):
        with pytest.raises(ValueError):
            compare_values(None, 1)
