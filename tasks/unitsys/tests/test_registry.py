import pytest

from unitsys import (
    DIMENSIONLESS,
    LENGTH,
    MASS,
    TEMPERATURE,
    TIME,
    Dimension,
    UndefinedUnitError,
    Unit,
    UnitRegistry,
    default_registry,
)


class TestDefine:
    def test_returns_unit(self):
        r = UnitRegistry()
        u = r.define("m", 1, LENGTH)
        assert u == Unit("m", 1.0, LENGTH)
        assert isinstance(u.scale, float)
        assert "m" in r
        assert "x" not in r

    def test_offset_and_aliases(self):
        r = UnitRegistry()
        u = r.define("degC", 1.0, TEMPERATURE, 273.15, aliases=("celsius", "\u00b0C"))
        assert u.offset == 273.15
        assert "celsius" in r and "\u00b0C" in r and "degC" in r

    def test_duplicates_rejected(self):
        r = UnitRegistry()
        r.define("m", 1.0, LENGTH, aliases=("meter",))
        with pytest.raises(ValueError):
            r.define("m", 2.0, LENGTH)
        with pytest.raises(ValueError):
            r.define("foot", 0.3048, LENGTH, aliases=("meter",))
        assert "foot" not in r

    @pytest.mark.parametrize("name", ["", "m2", "m/s", "a b", "k-m"])
    def test_invalid_names(self, name):
        with pytest.raises(ValueError):
            UnitRegistry().define(name, 1.0, LENGTH)

    def test_invalid_scale_and_prefixable_offset(self):
        r = UnitRegistry()
        with pytest.raises(ValueError):
            r.define("zero", 0.0, LENGTH)
        with pytest.raises(ValueError):
            r.define("neg", -1.0, LENGTH)
        with pytest.raises(ValueError):
            r.define("degX", 1.0, TEMPERATURE, 10.0, prefixable=True)


def _small_registry():
    r = UnitRegistry()
    r.define("m", 1.0, LENGTH, aliases=("meter",), prefixable=True)
    r.define("g", 0.001, MASS, prefixable=True)
    r.define("min", 60.0, TIME)
    r.define("in", 0.0254, LENGTH)
    r.define("day", 86400.0, TIME)
    return r


class TestLookup:
    def test_exact_and_alias(self):
        r = _small_registry()
        assert r.lookup("m") == Unit("m", 1.0, LENGTH)
        assert r.lookup("meter") is r.lookup("m")

    def test_prefixes(self):
        r = _small_registry()
        km = r.lookup("km")
        assert km.name == "km"
        assert km.scale == pytest.approx(1000.0)
        assert km.dimension == LENGTH
        assert km.terms == (("km", 1),)
        assert r.lookup("kg").scale == pytest.approx(1.0)
        assert r.lookup("mg").scale == pytest.approx(1e-6)
        assert r.lookup("\u00b5m").scale == pytest.approx(1e-6)
        assert r.lookup("nm").scale == pytest.approx(1e-9)

    def test_longest_prefix_first(self):
        assert _small_registry().lookup("dam").scale == pytest.approx(10.0)

    def test_exact_name_beats_prefix(self):
        r = _small_registry()
        assert r.lookup("min").scale == 60.0
        assert r.lookup("day").scale == 86400.0

    def test_only_prefixable_units_take_prefixes(self):
        r = _small_registry()
        with pytest.raises(UndefinedUnitError):
            r.lookup("kin")
        with pytest.raises(UndefinedUnitError):
            r.lookup("kmeter")

    def test_undefined(self):
        r = _small_registry()
        with pytest.raises(UndefinedUnitError):
            r.lookup("parsec")
        with pytest.raises(LookupError):
            r.lookup("")


class TestDefaultRegistry:
    def test_fresh_instances(self):
        a, b = default_registry(), default_registry()
        assert a is not b
        a.define("furlong", 201.168, LENGTH)
        assert "furlong" not in b

    @pytest.mark.parametrize(
        "symbol, scale",
        [
            ("m", 1.0),
            ("kg", 1.0),
            ("km", 1000.0),
            ("mi", 1609.344),
            ("ft", 0.3048),
            ("in", 0.0254),
            ("h", 3600.0),
            ("min", 60.0),
            ("kWh", 3.6e6),
            ("kcal", 4184.0),
            ("mL", 1e-6),
            ("lb", 0.45359237),
            ("keV", 1.602176634e-16),
        ],
    )
    def test_scales(self, symbol, scale):
        assert default_registry().lookup(symbol).scale == pytest.approx(scale)

    def test_derived_dimensions(self):
        r = default_registry()
        assert r.lookup("N").dimension == Dimension(mass=1, length=1, time=-2)
        assert r.lookup("J").dimension == r.lookup("kWh").dimension
        assert r.lookup("W").dimension == Dimension(mass=1, length=2, time=-3)
        assert r.lookup("V").dimension == Dimension(mass=1, length=2, time=-3, current=-1)
        assert r.lookup("Hz").dimension == Dimension(time=-1)
        assert r.lookup("rad").dimension == DIMENSIONLESS

    def test_temperatures(self):
        r = default_registry()
        assert r.lookup("degC").offset == pytest.approx(273.15)
        assert r.lookup("\u00b0F") is r.lookup("degF")
        assert r.lookup("degF").scale == pytest.approx(5 / 9)
        assert r.lookup("degF").offset == pytest.approx(255.3722222)
        assert r.lookup("delta_degC").offset == 0
        assert r.lookup("K").offset == 0
        assert r.lookup("mK").scale == pytest.approx(1e-3)

    def test_aliases(self):
        r = default_registry()
        assert r.lookup("metre") is r.lookup("m")
        assert r.lookup("l") is r.lookup("L")
