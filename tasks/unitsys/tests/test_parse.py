import pytest

from unitsys import (
    LENGTH,
    ONE,
    Dimension,
    OffsetUnitError,
    Quantity,
    UndefinedUnitError,
    UnitParseError,
    UnitRegistry,
    parse_quantity,
    parse_unit,
    tokenize_unit,
)
from unitsys.parse import Token


class TestTokenizeUnit:
    def test_tokens(self):
        assert tokenize_unit("kg*m/s^2") == [
            Token("name", "kg", 0),
            Token("op", "*", 2),
            Token("name", "m", 3),
            Token("op", "/", 4),
            Token("name", "s", 5),
            Token("op", "^", 6),
            Token("int", "2", 7),
        ]

    def test_signed_exponent_and_whitespace(self):
        assert [(t.kind, t.value) for t in tokenize_unit(" m  s^-1 ")] == [
            ("name", "m"),
            ("name", "s"),
            ("op", "^"),
            ("int", "-1"),
        ]

    def test_normalised_operators(self):
        assert [t.value for t in tokenize_unit("m**2\u00b7s")] == ["m", "^", "2", "*", "s"]

    def test_parentheses_and_special_names(self):
        assert [t.value for t in tokenize_unit("J/(kg*\u00b0C)")] == ["J", "/", "(", "kg", "*", "\u00b0C", ")"]
        assert tokenize_unit("delta_degC")[0].value == "delta_degC"

    def test_empty(self):
        assert tokenize_unit("   ") == []

    @pytest.mark.parametrize("text", ["m.s", "m+", "m - s", "m$"])
    def test_bad_characters(self, text):
        with pytest.raises(UnitParseError):
            tokenize_unit(text)


class TestParseUnit:
    def test_single_and_prefixed(self):
        assert parse_unit("m").name == "m"
        km = parse_unit("km")
        assert (km.name, km.dimension) == ("km", LENGTH)
        assert km.scale == pytest.approx(1000)

    def test_compound(self):
        u = parse_unit("kg*m/s^2")
        assert u.name == "kg*m/s^2"
        assert u.dimension == Dimension(mass=1, length=1, time=-2)
        assert u.scale == pytest.approx(1.0)

    def test_left_associative_division(self):
        assert parse_unit("J/kg/K") == parse_unit("J/(kg*K)")
        assert parse_unit("J/kg/K").name == "J/(kg*K)"

    def test_precedence_of_power(self):
        u = parse_unit("km/h^2")
        assert u.scale == pytest.approx(1000 / 3600**2)
        assert parse_unit("(m/s)^2").name == "m^2/s^2"
        assert parse_unit("m**-1").name == "1/m"

    def test_one(self):
        assert parse_unit("1") == ONE
        u = parse_unit("1/s")
        assert u.name == "1/s"
        assert u.dimension == Dimension(time=-1)

    def test_offset_unit_alone(self):
        u = parse_unit("degC")
        assert u.offset == pytest.approx(273.15)
        with pytest.raises(OffsetUnitError):
            parse_unit("degC/s")

    def test_custom_registry(self):
        r = UnitRegistry()
        r.define("furlong", 201.168, LENGTH)
        r.define("fortnight", 1209600.0, Dimension(time=1))
        u = parse_unit("furlong/fortnight", r)
        assert u.scale == pytest.approx(201.168 / 1209600)
        with pytest.raises(UndefinedUnitError):
            parse_unit("m", r)

    def test_undefined(self):
        with pytest.raises(UndefinedUnitError):
            parse_unit("m/parsec")

    @pytest.mark.parametrize("text", ["", "m*", "*m", "m/", "(m", "m)", "m^", "m^s", "2*m", "m s", "m^2^2"])
    def test_syntax_errors(self, text):
        with pytest.raises(UnitParseError):
            parse_unit(text)


class TestParseQuantity:
    def test_acceleration(self):
        q = parse_quantity("9.81 m/s^2")
        assert isinstance(q, Quantity)
        assert q.value == pytest.approx(9.81)
        assert q.unit.name == "m/s^2"
        assert q.unit.dimension == Dimension(length=1, time=-2)

    def test_force(self):
        q = parse_quantity("3 kg*m/s^2")
        assert q.value == 3.0
        assert isinstance(q.value, float)
        assert q.unit.name == "kg*m/s^2"

    def test_number_forms(self):
        assert parse_quantity("-40 degF").value == -40.0
        assert parse_quantity("1.5e3 m").value == 1500.0
        assert parse_quantity(".5 s").value == 0.5
        assert parse_quantity("+2. km").value == 2.0

    def test_no_space_needed(self):
        q = parse_quantity("5km")
        assert (q.value, q.unit.name) == (5.0, "km")

    def test_dimensionless(self):
        q = parse_quantity("  42  ")
        assert q.value == 42.0
        assert q.unit == ONE

    def test_custom_registry(self):
        r = UnitRegistry()
        r.define("furlong", 201.168, LENGTH)
        assert parse_quantity("3 furlong", r).unit.name == "furlong"

    @pytest.mark.parametrize("text", ["", "m", "abc 3", "3 m/", "e5 m"])
    def test_errors(self, text):
        with pytest.raises(UnitParseError):
            parse_quantity(text)

    def test_undefined_unit(self):
        with pytest.raises(UndefinedUnitError):
            parse_quantity("3 parsec")
