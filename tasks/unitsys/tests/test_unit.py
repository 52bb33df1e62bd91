import pytest

from unitsys import DIMENSIONLESS, LENGTH, MASS, TEMPERATURE, TIME, Dimension, OffsetUnitError, Unit, format_terms, si_unit

M = Unit("m", 1.0, LENGTH)
KM = Unit("km", 1000.0, LENGTH)
S = Unit("s", 1.0, TIME)
H = Unit("h", 3600.0, TIME)
KG = Unit("kg", 1.0, MASS)
DEGC = Unit("degC", 1.0, TEMPERATURE, 273.15)


class TestFormatTerms:
    def test_numerator_only(self):
        assert format_terms((("m", 1),)) == "m"
        assert format_terms((("kg", 1), ("m", 2))) == "kg*m^2"

    def test_single_denominator(self):
        assert format_terms((("kg", 1), ("m", 1), ("s", -2))) == "kg*m/s^2"
        assert format_terms((("s", -1), ("m", 1))) == "m/s"

    def test_several_denominators(self):
        assert format_terms((("J", 1), ("kg", -1), ("K", -1))) == "J/(kg*K)"

    def test_empty_numerator_and_empty(self):
        assert format_terms((("s", -1),)) == "1/s"
        assert format_terms((("m", -2), ("s", -1))) == "1/(m^2*s)"
        assert format_terms(()) == "1"

    def test_zero_exponents_ignored(self):
        assert format_terms((("m", 0), ("s", -1))) == "1/s"


class TestUnitMul:
    def test_product(self):
        u = KG * M
        assert u.name == "kg*m"
        assert u.terms == (("kg", 1), ("m", 1))
        assert u.dimension == Dimension(mass=1, length=1)
        assert u.scale == 1.0

    def test_same_symbol_merges(self):
        u = M * M
        assert u.name == "m^2"
        assert u.terms == (("m", 2),)

    def test_scales_multiply(self):
        u = KM * H
        assert u.scale == pytest.approx(3.6e6)
        assert u.name == "km*h"

    def test_cancelling_terms(self):
        inv = Unit("1/s", 1.0, Dimension(time=-1), terms=(("s", -1),))
        u = S * inv
        assert u.terms == ()
        assert u.name == "1"
        assert u.dimension == DIMENSIONLESS

    def test_offset_units_rejected(self):
        with pytest.raises(OffsetUnitError):
            DEGC * M
        with pytest.raises(OffsetUnitError):
            M * DEGC


class TestUnitDiv:
    def test_quotient(self):
        u = KM / H
        assert u.name == "km/h"
        assert u.scale == pytest.approx(1000 / 3600)
        assert u.dimension == Dimension(length=1, time=-1)
        assert u.terms == (("km", 1), ("h", -1))

    def test_self_division(self):
        u = M / M
        assert u.name == "1"
        assert u.terms == ()
        assert u.dimension == DIMENSIONLESS

    def test_denominator_grouping(self):
        j = Unit("J", 1.0, Dimension(mass=1, length=2, time=-2))
        k = Unit("K", 1.0, TEMPERATURE)
        u = j / KG / k
        assert u.name == "J/(kg*K)"
        assert u.dimension == Dimension(length=2, time=-2, temperature=-1)

    def test_dividing_by_inverse(self):
        inv = Unit("1/s", 1.0, Dimension(time=-1), terms=(("s", -1),))
        assert (M / inv).name == "m*s"

    def test_offset_units_rejected(self):
        with pytest.raises(OffsetUnitError):
            M / DEGC


class TestUnitPow:
    def test_square_and_inverse(self):
        sq = KM**2
        assert sq.name == "km^2"
        assert sq.scale == pytest.approx(1e6)
        assert sq.dimension == Dimension(length=2)
        inv = S**-1
        assert inv.name == "1/s"
        assert inv.terms == (("s", -1),)

    def test_composite_power(self):
        mps = Unit("m/s", 1.0, Dimension(length=1, time=-1), terms=(("m", 1), ("s", -1)))
        u = mps**2
        assert u.name == "m^2/s^2"
        assert u.dimension == Dimension(length=2, time=-2)

    def test_zero_power(self):
        u = KM**0
        assert (u.name, u.terms, u.scale, u.dimension) == ("1", (), 1.0, DIMENSIONLESS)

    def test_errors(self):
        with pytest.raises(TypeError):
            M**0.5
        with pytest.raises(OffsetUnitError):
            DEGC**2


class TestSiUnit:
    def test_base(self):
        u = si_unit(LENGTH)
        assert (u.name, u.scale, u.offset, u.terms) == ("m", 1.0, 0.0, (("m", 1),))

    def test_derived(self):
        assert si_unit(Dimension(mass=1, length=1, time=-2)).name == "kg*m/s^2"
        assert si_unit(Dimension(mass=1, length=2, time=-3, current=-1)).name == "kg*m^2/(s^3*A)"
        assert si_unit(Dimension(amount=1, luminosity=1, temperature=1)).name == "K*mol*cd"

    def test_dimensionless(self):
        u = si_unit(DIMENSIONLESS)
        assert u.name == "1"
        assert u.terms == ()
        assert u.dimension == DIMENSIONLESS
