import pytest

from unitsys import (
    DIMENSIONLESS,
    LENGTH,
    MASS,
    ONE,
    TEMPERATURE,
    TIME,
    Dimension,
    DimensionError,
    OffsetUnitError,
    Quantity,
    Unit,
)

# Units are built directly so that these tests do not need the registry or parser.
M = Unit("m", 1.0, LENGTH)
KM = Unit("km", 1000.0, LENGTH)
MI = Unit("mi", 1609.344, LENGTH)
S = Unit("s", 1.0, TIME)
H = Unit("h", 3600.0, TIME)
KG = Unit("kg", 1.0, MASS)
K = Unit("K", 1.0, TEMPERATURE)
DEGC = Unit("degC", 1.0, TEMPERATURE, 273.15)
DEGF = Unit("degF", 5 / 9, TEMPERATURE, 273.15 - 32 * 5 / 9)
ENERGY = Dimension(mass=1, length=2, time=-2)
J = Unit("J", 1.0, ENERGY)
KWH = Unit("kWh", 3.6e6, ENERGY)
MPS = Unit("m/s", 1.0, Dimension(length=1, time=-1), terms=(("m", 1), ("s", -1)))
KMH = Unit("km/h", 1000 / 3600, Dimension(length=1, time=-1), terms=(("km", 1), ("h", -1)))
N = Unit("N", 1.0, Dimension(mass=1, length=1, time=-2))


def q(value, unit):
    return Quantity(value, unit)


class TestTo:
    def test_length(self):
        r = q(1, KM).to(MI)
        assert r.unit is MI
        assert r.value == pytest.approx(0.621371192)
        assert q(5, MI).to(M).value == pytest.approx(8046.72)

    def test_energy(self):
        assert q(3.6e6, J).to(KWH).value == pytest.approx(1.0)
        assert q(2.5, KWH).to(J).value == pytest.approx(9.0e6)

    def test_speed(self):
        assert q(36, KMH).to(MPS).value == pytest.approx(10.0)

    def test_absolute_temperatures(self):
        assert q(100, DEGC).to(DEGF).value == pytest.approx(212.0)
        assert q(-40, DEGF).to(DEGC).value == pytest.approx(-40.0)
        assert q(0, DEGC).to(K).value == pytest.approx(273.15)
        assert q(300, K).to(DEGF).value == pytest.approx(80.33)

    def test_incompatible(self):
        with pytest.raises(DimensionError):
            q(1, M).to(S)
        with pytest.raises(DimensionError):
            q(1, J).to(N)


class TestToSi:
    def test_prefixed(self):
        r = q(2.5, KM).to_si()
        assert r.value == pytest.approx(2500.0)
        assert r.unit.name == "m"
        assert r.unit.scale == 1.0

    def test_derived(self):
        r = q(1, KMH).to_si()
        assert r.value == pytest.approx(1 / 3.6)
        assert r.unit.name == "m/s"
        r = q(2, KWH).to_si()
        assert r.value == pytest.approx(7.2e6)
        assert r.unit.name == "kg*m^2/s^2"

    def test_temperature_offset(self):
        r = q(25, DEGC).to_si()
        assert r.value == pytest.approx(298.15)
        assert r.unit.name == "K"
        assert r.unit.offset == 0


class TestAdd:
    def test_same_unit(self):
        r = q(1, M) + q(2, M)
        assert (r.value, r.unit) == (3, M)

    def test_converts_to_left_unit(self):
        r = q(1, KM) + q(500, M)
        assert r.unit is KM
        assert r.value == pytest.approx(1.5)
        r = q(500, M) + q(1, KM)
        assert r.unit is M
        assert r.value == pytest.approx(1500)

    def test_dimension_mismatch(self):
        with pytest.raises(DimensionError):
            q(1, M) + q(1, S)

    def test_plain_numbers_are_dimensionless(self):
        r = q(2, ONE) + 3
        assert (r.value, r.unit) == (5, ONE)
        r = 3 + q(2, ONE)
        assert r.value == 5
        with pytest.raises(DimensionError):
            q(1, M) + 1

    def test_absolute_plus_difference(self):
        r = q(20, DEGC) + q(5, K)
        assert r.unit is DEGC
        assert r.value == pytest.approx(25)
        r = q(5, K) + q(20, DEGC)
        assert r.unit is DEGC
        assert r.value == pytest.approx(25)
        r = q(50, DEGF) + q(10, K)
        assert r.value == pytest.approx(68)

    def test_two_absolute_temperatures(self):
        with pytest.raises(OffsetUnitError):
            q(20, DEGC) + q(10, DEGC)

    def test_unsupported_operand(self):
        with pytest.raises(TypeError):
            q(1, M) + "1 m"


class TestSub:
    def test_plain(self):
        r = q(2, KM) - q(500, M)
        assert r.unit is KM
        assert r.value == pytest.approx(1.5)

    def test_dimension_mismatch(self):
        with pytest.raises(DimensionError):
            q(1, M) - q(1, KG)

    def test_absolute_minus_absolute_gives_delta(self):
        r = q(30, DEGC) - q(20, DEGC)
        assert r.value == pytest.approx(10)
        assert r.unit.name == "delta_degC"
        assert r.unit.offset == 0
        assert r.unit.scale == 1.0
        r = q(50, DEGF) - q(10, DEGC)
        assert r.value == pytest.approx(0, abs=1e-9)
        assert r.unit.name == "delta_degF"
        assert r.unit.scale == pytest.approx(5 / 9)

    def test_kelvin_difference(self):
        r = q(300, K) - q(280, K)
        assert (r.value, r.unit) == (20, K)

    def test_absolute_minus_difference(self):
        r = q(20, DEGC) - q(5, K)
        assert r.unit is DEGC
        assert r.value == pytest.approx(15)

    def test_difference_minus_absolute(self):
        with pytest.raises(OffsetUnitError):
            q(5, K) - q(20, DEGC)

    def test_numbers(self):
        r = 10 - q(4, ONE)
        assert r.value == 6
        r = q(4, ONE) - 1
        assert r.value == 3


class TestMul:
    def test_quantities(self):
        r = q(2, M) * q(3, S)
        assert r.value == 6
        assert r.unit.name == "m*s"
        assert r.unit.dimension == Dimension(length=1, time=1)

    def test_same_unit_squares(self):
        r = q(2, M) * q(3, M)
        assert (r.value, r.unit.name) == (6, "m^2")

    def test_no_automatic_conversion(self):
        r = q(2, M) * q(3, KM)
        assert r.unit.name == "m*km"
        assert r.unit.scale == pytest.approx(1000)

    def test_scalar(self):
        r = q(2, M) * 3
        assert (r.value, r.unit) == (6, M)
        r = 3 * q(2, M)
        assert (r.value, r.unit) == (6, M)

    def test_offset_units(self):
        with pytest.raises(OffsetUnitError):
            q(10, DEGC) * 2
        with pytest.raises(OffsetUnitError):
            q(10, DEGC) * q(1, M)


class TestDiv:
    def test_speed(self):
        r = q(10, M) / q(2, S)
        assert r.value == 5.0
        assert r.unit.name == "m/s"

    def test_cancelling(self):
        r = q(6, M) / q(3, M)
        assert r.value == 2.0
        assert r.unit.name == "1"
        assert r.unit.dimension == DIMENSIONLESS

    def test_scalar(self):
        r = q(6, M) / 4
        assert (r.value, r.unit) == (1.5, M)
        r = 2 / q(4, S)
        assert r.value == 0.5
        assert r.unit.name == "1/s"

    def test_errors(self):
        with pytest.raises(ZeroDivisionError):
            q(1, M) / q(0, S)
        with pytest.raises(OffsetUnitError):
            q(10, DEGC) / 2


class TestPow:
    def test_square(self):
        r = q(3, M) ** 2
        assert (r.value, r.unit.name) == (9, "m^2")
        assert r.unit.dimension == Dimension(length=2)

    def test_negative(self):
        r = q(2, S) ** -1
        assert r.value == 0.5
        assert r.unit.name == "1/s"

    def test_errors(self):
        with pytest.raises(TypeError):
            q(4, M) ** 0.5
        with pytest.raises(OffsetUnitError):
            q(4, DEGC) ** 2


class TestCompare:
    def test_compare_values(self):
        assert q(1, KM).compare(q(999, M)) == 1
        assert q(1, KM).compare(q(1000, M)) == 0
        assert q(1, MI).compare(q(2, KM)) == -1

    def test_tolerance(self):
        assert q(0.1 + 0.2, M).compare(q(0.3, M)) == 0

    def test_operators(self):
        assert q(1, KM) == q(1000, M)
        assert q(1, KM) != q(1001, M)
        assert q(1, MI) < q(2, KM) <= q(2000, M)
        assert q(1, H) > q(59, Unit("min", 60.0, TIME)) >= q(3540, S)

    def test_temperatures_compare_absolutely(self):
        assert q(0, DEGC) == q(273.15, K)
        assert q(32, DEGF) == q(0, DEGC)
        assert q(10, DEGC) > q(40, DEGF)

    def test_different_dimensions(self):
        assert (q(1, M) == q(1, S)) is False
        with pytest.raises(DimensionError):
            q(1, M).compare(q(1, S))
        with pytest.raises(DimensionError):
            q(1, M) < q(1, S)  # noqa: B015

    def test_non_quantity(self):
        with pytest.raises(TypeError):
            q(1, M).compare(1)
        assert (q(1, M) == 1) is False


class TestFormat:
    def test_str(self):
        assert str(q(9.81, Unit("m/s^2", 1.0, Dimension(length=1, time=-2), terms=(("m", 1), ("s", -2))))) == "9.81 m/s^2"
        assert str(q(3, KM)) == "3 km"

    def test_format_spec(self):
        assert f"{q(9.81234, MPS):.2f}" == "9.81 m/s"
        assert format(q(1234.5, M), ",.1f") == "1,234.5 m"
        assert f"{q(5, M):>4}" == "   5 m"

    def test_dimensionless(self):
        assert str(q(2.5, ONE)) == "2.5"
        assert f"{q(0.123, ONE):.1%}" == "12.3%"
