"""Quantities: a value together with a unit, with dimension-checked arithmetic."""

from __future__ import annotations

import math
from numbers import Real

from unitsys.errors import DimensionError, OffsetUnitError
from unitsys.unit import ONE, Unit, si_unit


def _as_unit(unit: Unit | str) -> Unit:
    if isinstance(unit, Unit):
        return unit
    from unitsys.parse import parse_unit

    return parse_unit(unit)


def _is_number(x: object) -> bool:
    return isinstance(x, Real) and not isinstance(x, bool)


class Quantity:
    """A value with a unit, e.g. ``Quantity(9.81, m / s**2)``.

    `unit` may be a `Unit` or a unit expression string, which is parsed with
    `unitsys.parse.parse_unit` and the default registry. The value is stored as
    given (an ``int`` stays an ``int``).

    Arithmetic checks dimensions: adding metres to seconds raises
    `DimensionError`. Plain numbers take part as dimensionless quantities in
    ``+``/``-`` and as scalars in ``*``/``/``. Comparisons (``==``, ``<``, ...)
    compare the values in SI units, see `compare`. Quantities are not hashable.

    Temperatures with an offset (``degC``, ``degF``) are *absolute*; their
    differences are expressed in the matching ``delta_`` unit, see `__add__` and
    `__sub__`.
    """

    __slots__ = ("value", "unit")
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, value: float, unit: Unit | str = ONE) -> None:
        self.value = value
        self.unit = _as_unit(unit)

    def __repr__(self) -> str:
        return f"Quantity({self.value!r}, {self.unit.name!r})"

    @property
    def dimension(self):
        """The `Dimension` of the quantity's unit."""
        return self.unit.dimension

    def _si(self) -> float:
        return self.value * self.unit.scale + self.unit.offset

    # ------------------------------------------------------------------ conversion

    def to(self, target: Unit | str) -> Quantity:
        """Return this quantity expressed in `target` (a `Unit` or unit expression).

        The value is converted through SI, honouring offsets:
        ``si = value * unit.scale + unit.offset`` and
        ``new = (si - target.offset) / target.scale``. So ``20 degC`` is ``68 degF``
        and ``293.15 K``.

        Raises:
            DimensionError: if `target` has a different dimension.
        """
        target = _as_unit(target)
        if target.dimension != self.unit.dimension:
            raise DimensionError(f"cannot convert {self.unit.name} to {target.name}")
        return Quantity((self._si() - target.offset) / target.scale, target)

    def to_si(self) -> Quantity:
        """Return this quantity in coherent SI base units (``si_unit(dimension)``).

        The value is ``value * unit.scale + unit.offset``: ``1 km/h`` becomes
        ``0.2777... m/s``, ``1 N`` becomes ``1.0 kg*m/s^2``, ``0 degC`` becomes
        ``273.15 K``.
        """
        return Quantity(self._si(), si_unit(self.unit.dimension))

    # ------------------------------------------------------------------ + and -

    def _coerce(self, other: object) -> Quantity | None:
        if isinstance(other, Quantity):
            return other
        if _is_number(other):
            return Quantity(other, ONE)
        return None

    def __add__(self, other: Quantity | float) -> Quantity:
        """Return ``self + other``; a plain number counts as a dimensionless quantity.

        * Different dimensions: `DimensionError`.
        * Neither unit has an offset: the result is in ``self.unit``, with `other`
          converted by scale: ``self.value + other.value * other.unit.scale /
          self.unit.scale``.
        * Exactly one unit has an offset (an absolute temperature plus a
          difference): the result is in the unit *with* the offset, the other
          operand being converted as a difference (by scale only). ``20 degC +
          5 K`` is ``25 degC``; ``5 K + 20 degC`` is ``25 degC`` too.
        * Both units have an offset (two absolute temperatures):
          `OffsetUnitError`.

        Returns ``NotImplemented`` for operands that are neither quantities nor
        real numbers.
        """
        o = self._coerce(other)
        if o is None:
            return NotImplemented
        if o.unit.dimension != self.unit.dimension:
            raise DimensionError(f"cannot add {o.unit.name} to {self.unit.name}")
        if self.unit.has_offset and o.unit.has_offset:
            raise OffsetUnitError(
                f"cannot add two absolute temperatures ({self.unit.name}, {o.unit.name})"
            )
        if o.unit.has_offset:
            return Quantity(o.value + self.value * self.unit.scale / o.unit.scale, o.unit)
        return Quantity(self.value + o.value * o.unit.scale / self.unit.scale, self.unit)

    __radd__ = __add__

    def __sub__(self, other: Quantity | float) -> Quantity:
        """Return ``self - other``; a plain number counts as a dimensionless quantity.

        * Different dimensions: `DimensionError`.
        * Neither unit has an offset: the result is in ``self.unit``, with `other`
          converted by scale.
        * Both units have an offset (two absolute temperatures): `other` is
          converted to ``self.unit`` as an absolute value (with offsets) and the
          difference is expressed in ``self.unit.delta()``: ``30 degC - 20 degC``
          is ``10 delta_degC``; ``50 degF - 10 degC`` is ``0 delta_degF``.
        * Only `self` has an offset (absolute minus difference): the result is in
          ``self.unit``, `other` converted by scale (``20 degC - 5 K`` is
          ``15 degC``).
        * Only `other` has an offset (a difference minus an absolute
          temperature): `OffsetUnitError`.

        Returns ``NotImplemented`` for operands that are neither quantities nor
        real numbers.
        """
        o = self._coerce(other)
        if o is None:
            return NotImplemented
        s, u = self.unit, o.unit
        if u.dimension != s.dimension:
            raise DimensionError(f"cannot subtract {u.name} from {s.name}")
        if s.has_offset and u.has_offset:
            other_abs = (o.value * u.scale + u.offset - s.offset) / s.scale
            return Quantity(self.value - other_abs, s.delta())
        if u.has_offset:
            raise OffsetUnitError(
                f"cannot subtract an absolute temperature ({u.name}) from {s.name}"
            )
        return Quantity(self.value - o.value * u.scale / s.scale, s)

    def __rsub__(self, other: float) -> Quantity:
        o = self._coerce(other)
        if o is None:
            return NotImplemented
        return o - self

    def __neg__(self) -> Quantity:
        return Quantity(-self.value, self.unit)

    # ------------------------------------------------------------------ * / **

    def __mul__(self, other: Quantity | float) -> Quantity:
        """Return ``self * other``.

        With a `Quantity`, values multiply and units multiply (``Unit.__mul__``):
        ``2 m * 3 s`` is ``6 m*s``; ``2 m * 3 m`` is ``6 m^2``. No automatic
        conversion happens (``m * km`` stays ``m*km``). With a real number, only
        the value is scaled and the unit is kept.

        Returns ``NotImplemented`` for other operand types.

        Raises:
            OffsetUnitError: if either operand's unit has an offset, even when
                multiplying by a plain number (``2 * 10 degC`` is ambiguous).
        """
        if isinstance(other, Quantity):
            return Quantity(self.value * other.value, self.unit * other.unit)
        if _is_number(other):
            if self.unit.has_offset:
                raise OffsetUnitError(f"cannot multiply a quantity in {self.unit.name}")
            return Quantity(self.value * other, self.unit)
        return NotImplemented

    __rmul__ = __mul__

    def __truediv__(self, other: Quantity | float) -> Quantity:
        """Return ``self / other`` (true division of the values).

        With a `Quantity`, units divide (``Unit.__truediv__``): ``10 m / 2 s`` is
        ``5.0 m/s``; ``6 m / 3 m`` is ``2.0`` in the dimensionless unit ``"1"``.
        With a real number, only the value is divided and the unit is kept.

        Returns ``NotImplemented`` for other operand types.

        Raises:
            ZeroDivisionError: when dividing by a zero value.
            OffsetUnitError: if either operand's unit has an offset.
        """
        if isinstance(other, Quantity):
            unit = self.unit / other.unit
            return Quantity(self.value / other.value, unit)
        if _is_number(other):
            if self.unit.has_offset:
                raise OffsetUnitError(f"cannot divide a quantity in {self.unit.name}")
            return Quantity(self.value / other, self.unit)
        return NotImplemented

    def __rtruediv__(self, other: float) -> Quantity:
        if not _is_number(other):
            return NotImplemented
        return Quantity(other, ONE) / self

    def __pow__(self, n: int) -> Quantity:
        """Return the quantity raised to the integer power `n`.

        The value is raised to `n` and the unit too (``Unit.__pow__``):
        ``(3 m) ** 2`` is ``9 m^2``; ``(2 s) ** -1`` is ``0.5 1/s``.

        Raises:
            TypeError: if `n` is not an ``int``.
            OffsetUnitError: if the unit has an offset.
        """
        if not isinstance(n, int) or isinstance(n, bool):
            raise TypeError(f"quantity exponent must be an int, got {n!r}")
        unit = self.unit**n
        return Quantity(self.value**n, unit)

    # ------------------------------------------------------------------ comparison

    def compare(self, other: Quantity) -> int:
        """Compare with `other` by SI value: -1 if smaller, 0 if equal, 1 if larger.

        SI values are ``value * unit.scale + unit.offset``. They count as equal
        when ``math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)``, so ``1 km`` equals
        ``1000 m`` despite rounding.

        Raises:
            TypeError: if `other` is not a `Quantity`.
            DimensionError: if the dimensions differ.
        """
        if not isinstance(other, Quantity):
            raise TypeError(f"cannot compare a Quantity with {type(other).__name__}")
        if other.unit.dimension != self.unit.dimension:
            raise DimensionError(f"cannot compare {self.unit.name} with {other.unit.name}")
        a, b = self._si(), other._si()
        if math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12):
            return 0
        return -1 if a < b else 1

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        if other.unit.dimension != self.unit.dimension:
            return False
        return self.compare(other) == 0

    def __lt__(self, other: Quantity) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self.compare(other) < 0

    def __le__(self, other: Quantity) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self.compare(other) <= 0

    def __gt__(self, other: Quantity) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self.compare(other) > 0

    def __ge__(self, other: Quantity) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self.compare(other) >= 0

    # ------------------------------------------------------------------ text

    def __format__(self, spec: str) -> str:
        """Format as ``"<value> <unit name>"``, applying `spec` to the value.

        ``f"{q:.2f}"`` gives ``"9.81 m/s^2"``; an empty spec formats the value with
        ``format(value, "")`` (``str``). A quantity in the dimensionless unit with
        no terms (`ONE`) is written as the number alone.
        """
        number = format(self.value, spec)
        if not self.unit.terms:
            return number
        return f"{number} {self.unit.name}"

    def __str__(self) -> str:
        return format(self, "")
