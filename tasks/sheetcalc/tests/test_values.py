"""Layer 3: the value model and coercions (sheetcalc.values)."""

import pytest

from sheetcalc.values import (
    CIRC,
    DIV0,
    NA,
    VALUE,
    CellError,
    RangeValue,
    compare_values,
    format_number,
    to_bool,
    to_number,
    to_text,
)


class TestFormatNumber:
    @pytest.mark.parametrize(
        "x, expected",
        [
            (0.0, "0"),
            (-0.0, "0"),
            (3.0, "3"),
            (2.5, "2.5"),
            (0.1 + 0.2, "0.3"),
            (1 / 3, "0.333333333333333"),
            (123456789012345.0, "123456789012345"),
            (1e15, "1E+15"),
            (1e20, "1E+20"),
            (1.5e-7, "1.5E-07"),
            (-2.5e100, "-2.5E+100"),
        ],
    )
    def test_format(self, x, expected):
        assert format_number(x) == expected


class TestToNumber:
    @pytest.mark.parametrize(
        "value, expected",
        [
            (None, 0.0),
            (True, 1.0),
            (2.5, 2.5),
            (7, 7.0),
            ("3", 3.0),
            (" -2.5 ", -2.5),
            ("1e3", 1000.0),
            ("50%", 0.5),
            ("-12.5%", -0.125),
        ],
    )
    def test_coerces(self, value, expected):
        result = to_number(value)
        assert type(result) is float
        assert result == expected

    @pytest.mark.parametrize("text", ["", "abc", "1,000", "1_000", "inf", "nan", "1e999", "5%%", "--1"])
    def test_bad_text(self, text):
        assert to_number(text) == VALUE

    def test_error_passes_through(self):
        assert to_number(DIV0) is DIV0

    def test_range_is_value_error(self):
        assert to_number(RangeValue(((1.0,),))) == VALUE


class TestToText:
    @pytest.mark.parametrize(
        "value, expected",
        [
            (None, ""),
            (True, "TRUE"),
            (False, "FALSE"),
            (3.0, "3"),
            (0.5, "0.5"),
            (1e20, "1E+20"),
            ("abc", "abc"),
        ],
    )
    def test_coerces(self, value, expected):
        assert to_text(value) == expected

    def test_error_passes_through(self):
        assert to_text(NA) is NA

    def test_other_object(self):
        assert to_text(object()) == VALUE


class TestToBool:
    @pytest.mark.parametrize(
        "value, expected",
        [
            (None, False),
            (True, True),
            (0.0, False),
            (-0.5, True),
            (3.0, True),
            ("TRUE", True),
            ("false", False),
            (" True ", True),
        ],
    )
    def test_coerces(self, value, expected):
        assert to_bool(value) is expected

    @pytest.mark.parametrize("text", ["", "yes", "1"])
    def test_bad_text(self, text):
        assert to_bool(text) == VALUE

    def test_error_passes_through(self):
        assert to_bool(CIRC) is CIRC


class TestCompareValues:
    @pytest.mark.parametrize(
        "a, b, expected",
        [
            (1.0, 2.0, -1),
            (2.0, 2.0, 0),
            ("apple", "banana", -1),
            ("ABC", "abc", 0),
            ("b", "A", 1),
            (False, True, -1),
            (1e9, "a", -1),
            ("zzz", 0.0, 1),
            ("z", False, -1),
            (True, 5.0, 1),
            (None, 0.0, 0),
            (None, -1.0, 1),
            (None, "", 0),
            (None, False, 0),
            (None, None, 0),
        ],
    )
    def test_ordering(self, a, b, expected):
        assert compare_values(a, b) == expected

    def test_error_raises(self):
        with pytest.raises(TypeError):
            compare_values(CellError("#N/A"), 1.0)

    def test_range_raises(self):
        with pytest.raises(TypeError):
            compare_values(1.0, RangeValue(((1.0,),)))
