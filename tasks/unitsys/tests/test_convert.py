import pytest

from unitsys import DimensionError, UndefinedUnitError, UnitParseError, UnitRegistry, LENGTH, convert


class TestConvert:
    @pytest.mark.parametrize(
        "value, src, dst, expected",
        [
            (1, "km", "mi", 0.621371192237334),
            (26.2, "mi", "km", 42.1648128),
            (1, "kWh", "J", 3.6e6),
            (1, "J", "kWh", 1 / 3.6e6),
            (60, "mi/h", "m/s", 26.8224),
            (100, "km/h", "m/s", 27.7777778),
            (9.81, "m/s^2", "km/h^2", 127137.6),
            (1, "N", "kg*m/s^2", 1.0),
            (1, "L", "m^3", 0.001),
            (12, "in", "ft", 1.0),
            (1, "day", "min", 1440.0),
            (1, "kcal", "kWh", 4184 / 3.6e6),
        ],
    )
    def test_conversions(self, value, src, dst, expected):
        assert convert(value, src, dst) == pytest.approx(expected)

    @pytest.mark.parametrize(
        "value, src, dst, expected",
        [
            (100, "degC", "degF", 212.0),
            (-40, "degC", "degF", -40.0),
            (98.6, "degF", "degC", 37.0),
            (0, "K", "degC", -273.15),
            (20, "celsius", "kelvin", 293.15),
            (10, "delta_degC", "delta_degF", 18.0),
        ],
    )
    def test_temperatures(self, value, src, dst, expected):
        assert convert(value, src, dst) == pytest.approx(expected)

    def test_returns_float(self):
        assert isinstance(convert(1, "m", "m"), float)

    def test_custom_registry(self):
        r = UnitRegistry()
        r.define("m", 1.0, LENGTH, prefixable=True)
        r.define("furlong", 201.168, LENGTH)
        assert convert(1, "furlong", "km", r) == pytest.approx(0.201168)

    def test_errors(self):
        with pytest.raises(DimensionError):
            convert(1, "m", "s")
        with pytest.raises(DimensionError):
            convert(1, "J", "W")
        with pytest.raises(UndefinedUnitError):
            convert(1, "m", "parsec")
        with pytest.raises(UnitParseError):
            convert(1, "m/", "m")
