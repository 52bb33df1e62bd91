import pytest

from unitsys import DIMENSIONLESS, LENGTH, MASS, TIME, Dimension

VELOCITY = Dimension(length=1, time=-1)
FORCE = Dimension(mass=1, length=1, time=-2)


class TestDimensionMul:
    def test_exponents_add(self):
        assert LENGTH * LENGTH == Dimension(length=2)
        assert MASS * Dimension(length=1, time=-2) == FORCE

    def test_dimensionless_is_neutral(self):
        assert FORCE * DIMENSIONLESS == FORCE
        assert (VELOCITY * Dimension(time=1)) == LENGTH

    def test_all_fields(self):
        a = Dimension(1, 2, 3, 4, 5, 6, 7)
        assert a * a == Dimension(2, 4, 6, 8, 10, 12, 14)

    def test_non_dimension_operand(self):
        with pytest.raises(TypeError):
            LENGTH * 2


class TestDimensionDiv:
    def test_exponents_subtract(self):
        assert LENGTH / TIME == VELOCITY
        assert FORCE / MASS == Dimension(length=1, time=-2)

    def test_self_division_is_dimensionless(self):
        result = FORCE / FORCE
        assert result == DIMENSIONLESS
        assert result.is_dimensionless

    def test_all_fields(self):
        assert Dimension(1, 1, 1, 1, 1, 1, 1) / Dimension(1, 2, 3, 4, 5, 6, 7) == Dimension(0, -1, -2, -3, -4, -5, -6)

    def test_non_dimension_operand(self):
        with pytest.raises(TypeError):
            LENGTH / "m"


class TestDimensionPow:
    def test_powers(self):
        assert VELOCITY**2 == Dimension(length=2, time=-2)
        assert VELOCITY**-1 == Dimension(length=-1, time=1)
        assert FORCE**0 == DIMENSIONLESS

    def test_rejects_non_int(self):
        for bad in (0.5, 2.0, True, "2"):
            with pytest.raises(TypeError):
                LENGTH**bad


class TestDimensionStr:
    def test_simple(self):
        assert str(LENGTH) == "length"
        assert str(DIMENSIONLESS) == "dimensionless"

    def test_exponents_and_order(self):
        assert str(FORCE) == "length*mass*time^-2"
        assert str(Dimension(luminosity=1, length=3)) == "length^3*luminosity"
        assert str(Dimension(temperature=-1, current=2)) == "current^2*temperature^-1"


class TestDimensionParse:
    def test_round_forms(self):
        assert Dimension.parse("length*mass*time^-2") == FORCE
        assert Dimension.parse("dimensionless") == DIMENSIONLESS
        assert Dimension.parse("amount") == Dimension(amount=1)

    def test_whitespace_and_repeats(self):
        assert Dimension.parse(" length ^ 2 * time^-1 * length^-1 ") == VELOCITY
        assert Dimension.parse("time^+2") == Dimension(time=2)

    @pytest.mark.parametrize("text", ["", "speed", "length**2", "length^x", "length*", "length/time"])
    def test_errors(self, text):
        with pytest.raises(ValueError):
            Dimension.parse(text)
