"""Layer 3: operator semantics (sheetcalc.operators)."""

import pytest

from sheetcalc.operators import arithmetic, compare, concat, negate, percent
from sheetcalc.values import DIV0, NA, NUM, REF, VALUE


class TestArithmetic:
    @pytest.mark.parametrize(
        "op, a, b, expected",
        [
            ("+", 1.0, 2.0, 3.0),
            ("*", 2.5, 4.0, 10.0),
            ("/", 7.0, 2.0, 3.5),
            ("^", 2.0, 10.0, 1024.0),
            ("^", 4.0, 0.5, 2.0),
            ("+", None, 5.0, 5.0),
            ("*", True, 7.0, 7.0),
            ("+", "3", "4", 7.0),
            ("-", " 10 ", False, 10.0),
            ("*", "50%", 10.0, 5.0),
        ],
    )
    def test_values(self, op, a, b, expected):
        assert arithmetic(op, a, b) == expected

    def test_result_is_float(self):
        assert type(arithmetic("+", 1, 2)) is float

    def test_divide_by_zero(self):
        assert arithmetic("/", 1.0, 0.0) == DIV0

    def test_divide_by_empty(self):
        assert arithmetic("/", 1.0, None) == DIV0

    def test_text_operand(self):
        assert arithmetic("+", "a", 1.0) == VALUE

    def test_left_error_wins(self):
        assert arithmetic("+", NA, REF) == NA

    def test_error_before_coercion(self):
        assert arithmetic("*", "abc", DIV0) == DIV0

    @pytest.mark.parametrize(
        "a, b, expected",
        [(0.0, 0.0, NUM), (0.0, -1.0, DIV0), (-8.0, 1 / 3, NUM), (10.0, 400.0, NUM)],
    )
    def test_power_errors(self, a, b, expected):
        assert arithmetic("^", a, b) == expected

    def test_overflow(self):
        assert arithmetic("*", 1e308, 10.0) == NUM

    def test_unknown_operator(self):
        with pytest.raises(ValueError):
            arithmetic("%", 1.0, 2.0)


class TestConcat:
    @pytest.mark.parametrize(
        "a, b, expected",
        [
            ("a", "b", "ab"),
            (1.0, 2.0, "12"),
            (1.5, True, "1.5TRUE"),
            (None, "x", "x"),
            ("", None, ""),
            (False, 0.1 + 0.2, "FALSE0.3"),
        ],
    )
    def test_values(self, a, b, expected):
        assert concat(a, b) == expected

    def test_errors_left_first(self):
        assert concat(DIV0, NA) == DIV0
        assert concat("x", NA) == NA


class TestCompare:
    @pytest.mark.parametrize(
        "op, a, b, expected",
        [
            ("=", 1.0, 1.0, True),
            ("<>", 1.0, 1.0, False),
            ("<", 1.0, 2.0, True),
            ("<=", 2.0, 2.0, True),
            ("=", "abc", "ABC", True),
            ("=", 1.0, "1", False),
            (">", "b", 100.0, True),
            ("<", "zzz", True, True),
            ("=", None, 0.0, True),
            ("=", None, "", True),
            ("=", None, False, True),
            ("<>", "", 0.0, True),
        ],
    )
    def test_values(self, op, a, b, expected):
        assert compare(op, a, b) is expected

    def test_errors_propagate(self):
        assert compare("=", REF, 1.0) == REF
        assert compare("<", 1.0, DIV0) == DIV0

    def test_unknown_operator(self):
        with pytest.raises(ValueError):
            compare("==", 1.0, 1.0)


class TestNegate:
    @pytest.mark.parametrize(
        "value, expected",
        [(3.0, -3.0), (-2.5, 2.5), (True, -1.0), (None, 0.0), ("4", -4.0)],
    )
    def test_values(self, value, expected):
        assert negate(value) == expected

    def test_zero_is_not_negative(self):
        assert str(negate(0.0)) == "0.0"

    def test_text(self):
        assert negate("x") == VALUE

    def test_error(self):
        assert negate(NA) == NA


class TestPercent:
    @pytest.mark.parametrize(
        "value, expected",
        [(50.0, 0.5), (5.0, 0.05), (None, 0.0), (True, 0.01), ("200", 2.0)],
    )
    def test_values(self, value, expected):
        assert percent(value) == pytest.approx(expected)

    def test_text(self):
        assert percent("abc") == VALUE

    def test_error(self):
        assert percent(DIV0) == DIV0
