"""A registry of named units, with SI prefixes, and the default set of units."""

from __future__ import annotations

from collections.abc import Iterable

from unitsys.dimension import (
    AMOUNT,
    CURRENT,
    DIMENSIONLESS,
    LENGTH,
    LUMINOSITY,
    MASS,
    TEMPERATURE,
    TIME,
    Dimension,
)
from unitsys.errors import UndefinedUnitError
from unitsys.unit import Unit

PREFIXES: dict[str, float] = {
    "Y": 1e24,
    "Z": 1e21,
    "E": 1e18,
    "P": 1e15,
    "T": 1e12,
    "G": 1e9,
    "M": 1e6,
    "k": 1e3,
    "h": 1e2,
    "da": 1e1,
    "d": 1e-1,
    "c": 1e-2,
    "m": 1e-3,
    "u": 1e-6,
    "\u00b5": 1e-6,  # micro sign
    "\u03bc": 1e-6,  # Greek small letter mu
    "n": 1e-9,
    "p": 1e-12,
    "f": 1e-15,
    "a": 1e-18,
    "z": 1e-21,
    "y": 1e-24,
}
"""SI prefixes and their factors."""


def _valid_name(name: str) -> bool:
    return bool(name) and all(c.isalpha() or c in "_\u00b0" for c in name)


class UnitRegistry:
    """A set of named units that symbols are looked up in.

    A fresh registry is empty; `default_registry` returns one filled with the
    common units. ``symbol in registry`` tells whether a name or alias was defined
    (prefixed forms are not included).
    """

    def __init__(self) -> None:
        self._units: dict[str, Unit] = {}
        self._prefixable: set[str] = set()

    def __contains__(self, symbol: object) -> bool:
        return symbol in self._units

    def define(
        self,
        name: str,
        scale: float,
        dimension: Dimension,
        offset: float = 0.0,
        *,
        aliases: Iterable[str] = (),
        prefixable: bool = False,
    ) -> Unit:
        """Define a unit and return it.

        Creates ``Unit(name, float(scale), dimension, float(offset))`` and makes it
        available under `name` and under each alias (an alias resolves to the same
        `Unit`, named `name`). With ``prefixable=True``, `name` (not the aliases)
        also accepts SI prefixes in `lookup` (``"km"`` from ``"m"``).

        Names and aliases must be non-empty and made only of letters, ``"_"`` and
        ``"°"`` (digits and operators would be ambiguous in unit expressions).

        Raises:
            ValueError: if a name or alias is invalid or already defined (nothing is
                defined then), if `scale` is not positive, or if a prefixable unit
                has an offset.
        """
        names = [name, *aliases]
        for n in names:
            if not _valid_name(n):
                raise ValueError(f"invalid unit name {n!r}")
            if n in self._units:
                raise ValueError(f"unit {n!r} is already defined")
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate names in definition of {name!r}")
        if not scale > 0:
            raise ValueError(f"scale of {name!r} must be positive, got {scale!r}")
        if prefixable and offset:
            raise ValueError(f"unit {name!r} has an offset and cannot take prefixes")
        unit = Unit(name, float(scale), dimension, float(offset))
        for n in names:
            self._units[n] = unit
        if prefixable:
            self._prefixable.add(name)
        return unit

    def lookup(self, symbol: str) -> Unit:
        """Return the unit written `symbol`.

        An exact name or alias wins (so ``"min"`` is minutes, not milli-inches).
        Otherwise `symbol` may be an SI prefix (`PREFIXES`) followed by the name of
        a prefixable unit: the result is ``Unit(symbol, factor * unit.scale,
        unit.dimension)``, e.g. ``"km"`` gives a unit named ``"km"`` of scale
        1000.0. Longer prefixes are tried first (``"da"`` before ``"d"``).

        Raises:
            UndefinedUnitError: if `symbol` is neither defined nor a prefixed form
                of a prefixable unit.
        """
        unit = self._units.get(symbol)
        if unit is not None:
            return unit
        for prefix in sorted(PREFIXES, key=len, reverse=True):
            if symbol.startswith(prefix) and symbol[len(prefix):] in self._prefixable:
                base = self._units[symbol[len(prefix):]]
                return Unit(symbol, PREFIXES[prefix] * base.scale, base.dimension)
        raise UndefinedUnitError(f"undefined unit {symbol!r}")


def default_registry() -> UnitRegistry:
    """Return a new `UnitRegistry` holding the standard units.

    Prefixable (SI prefixes allowed): ``m``, ``g`` (scale 0.001, so ``kg`` is 1.0),
    ``s``, ``A``, ``K``, ``mol``, ``cd``, ``Hz``, ``N``, ``Pa``, ``J``, ``W``,
    ``C``, ``V``, ``ohm``, ``Wh`` (3600 J, so ``kWh`` works), ``eV``
    (1.602176634e-19 J), ``cal`` (4.184 J), ``L`` (0.001 m^3, alias ``l``).

    Not prefixable: ``min`` (60 s), ``h`` (3600 s), ``day`` (86400 s), ``in``
    (0.0254 m), ``ft`` (0.3048 m), ``yd`` (0.9144 m), ``mi`` (1609.344 m),
    ``lb`` (0.45359237 kg), ``oz`` (0.028349523125 kg), ``rad`` (dimensionless),
    ``degC`` (scale 1, offset 273.15, aliases ``°C``, ``celsius``), ``degF``
    (scale 5/9, offset 273.15 - 32 * 5/9, aliases ``°F``, ``fahrenheit``),
    ``delta_degC`` (scale 1) and ``delta_degF`` (scale 5/9).

    Aliases: ``meter``/``metre`` for ``m``, ``second`` for ``s``, ``gram`` for
    ``g``, ``kelvin`` for ``K``.
    """
    r = UnitRegistry()
    r.define("m", 1.0, LENGTH, aliases=("meter", "metre"), prefixable=True)
    r.define("g", 1e-3, MASS, aliases=("gram",), prefixable=True)
    r.define("s", 1.0, TIME, aliases=("second",), prefixable=True)
    r.define("A", 1.0, CURRENT, prefixable=True)
    r.define("K", 1.0, TEMPERATURE, aliases=("kelvin",), prefixable=True)
    r.define("mol", 1.0, AMOUNT, prefixable=True)
    r.define("cd", 1.0, LUMINOSITY, prefixable=True)

    energy = Dimension(mass=1, length=2, time=-2)
    r.define("Hz", 1.0, Dimension(time=-1), prefixable=True)
    r.define("N", 1.0, Dimension(mass=1, length=1, time=-2), prefixable=True)
    r.define("Pa", 1.0, Dimension(mass=1, length=-1, time=-2), prefixable=True)
    r.define("J", 1.0, energy, prefixable=True)
    r.define("W", 1.0, Dimension(mass=1, length=2, time=-3), prefixable=True)
    r.define("C", 1.0, Dimension(current=1, time=1), prefixable=True)
    r.define("V", 1.0, Dimension(mass=1, length=2, time=-3, current=-1), prefixable=True)
    r.define("ohm", 1.0, Dimension(mass=1, length=2, time=-3, current=-2), prefixable=True)
    r.define("Wh", 3600.0, energy, prefixable=True)
    r.define("eV", 1.602176634e-19, energy, prefixable=True)
    r.define("cal", 4.184, energy, prefixable=True)
    r.define("L", 1e-3, Dimension(length=3), aliases=("l",), prefixable=True)

    r.define("min", 60.0, TIME)
    r.define("h", 3600.0, TIME)
    r.define("day", 86400.0, TIME)
    r.define("in", 0.0254, LENGTH)
    r.define("ft", 0.3048, LENGTH)
    r.define("yd", 0.9144, LENGTH)
    r.define("mi", 1609.344, LENGTH)
    r.define("lb", 0.45359237, MASS)
    r.define("oz", 0.028349523125, MASS)
    r.define("rad", 1.0, DIMENSIONLESS)

    r.define("degC", 1.0, TEMPERATURE, 273.15, aliases=("\u00b0C", "celsius"))
    r.define("degF", 5 / 9, TEMPERATURE, 273.15 - 32 * 5 / 9, aliases=("\u00b0F", "fahrenheit"))
    r.define("delta_degC", 1.0, TEMPERATURE)
    r.define("delta_degF", 5 / 9, TEMPERATURE)
    return r


_default: UnitRegistry | None = None


def get_registry() -> UnitRegistry:
    """Return the shared default registry, creating it with `default_registry` on first use."""
    global _default
    if _default is None:
        _default = default_registry()
    return _default
