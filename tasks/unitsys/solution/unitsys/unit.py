"""Units: a scale (and offset) relative to SI base units, plus a dimension."""

from __future__ import annotations

from dataclasses import dataclass

from unitsys.dimension import DIMENSIONLESS, Dimension
from unitsys.errors import OffsetUnitError

Terms = tuple[tuple[str, int], ...]
"""The factors of a unit, e.g. ``(("kg", 1), ("m", 1), ("s", -2))``."""

SI_BASE_SYMBOLS = (
    ("kg", "mass"),
    ("m", "length"),
    ("s", "time"),
    ("A", "current"),
    ("K", "temperature"),
    ("mol", "amount"),
    ("cd", "luminosity"),
)
"""The SI base unit of each base dimension, in the order `si_unit` writes them."""


@dataclass(frozen=True)
class Unit:
    """A unit of measure.

    * `name`: how the unit is written (``"km"``, ``"kg*m/s^2"``).
    * `scale`: the value in SI base units of one of this unit (``km``: 1000.0).
    * `dimension`: its `Dimension`.
    * `offset`: the SI value of this unit's zero, non-zero only for units of
      absolute temperature with a shifted zero (``degC``: 273.15). A quantity
      ``v`` in this unit is ``v * scale + offset`` in SI.
    * `terms`: the named factors of the unit with their exponents. When left as
      ``None`` it becomes ``((name, 1),)``; the dimensionless unit `ONE` has
      ``()``.
    """

    name: str
    scale: float
    dimension: Dimension
    offset: float = 0.0
    terms: Terms | None = None

    def __post_init__(self) -> None:
        if self.terms is None:
            object.__setattr__(self, "terms", ((self.name, 1),))

    @property
    def has_offset(self) -> bool:
        """True for units whose zero is shifted from the SI zero (``offset != 0``)."""
        return self.offset != 0

    def delta(self) -> Unit:
        """The unit of differences of this unit.

        For a unit with an offset, a unit named ``"delta_" + name`` with the same
        scale and dimension and no offset; any other unit is returned unchanged.
        """
        if not self.has_offset:
            return self
        name = "delta_" + self.name
        return Unit(name, self.scale, self.dimension)

    def __mul__(self, other: Unit) -> Unit:
        """Return the product unit ``self * other``.

        Scales multiply and dimensions multiply. Terms are merged: the terms of
        `self` in order, then the terms of `other` whose symbol is new; a symbol
        present in both gets the sum of its exponents, and terms whose exponent
        becomes 0 are dropped. The name is ``format_terms(terms)`` (so ``m * m`` is
        ``"m^2"`` and ``m * s^-1`` is ``"m/s"``). The result has no offset.

        Returns ``NotImplemented`` when `other` is not a `Unit`.

        Raises:
            OffsetUnitError: if either unit has an offset (e.g. ``degC``).
        """
        if not isinstance(other, Unit):
            return NotImplemented
        if self.has_offset or other.has_offset:
            raise OffsetUnitError(f"cannot multiply {self.name} and {other.name}: offset unit")
        exps: dict[str, int] = {}
        for sym, exp in (*self.terms, *other.terms):
            exps[sym] = exps.get(sym, 0) + exp
        terms = tuple((sym, exp) for sym, exp in exps.items() if exp)
        return Unit(
            format_terms(terms), self.scale * other.scale, self.dimension * other.dimension, 0.0, terms
        )

    def __truediv__(self, other: Unit) -> Unit:
        """Return the quotient unit ``self / other``.

        Same rules as `__mul__`, with the exponents of `other` negated and the
        scale ``self.scale / other.scale`` (so ``m / m`` is the dimensionless unit
        named ``"1"`` with no terms).

        Returns ``NotImplemented`` when `other` is not a `Unit`.

        Raises:
            OffsetUnitError: if either unit has an offset.
        """
        if not isinstance(other, Unit):
            return NotImplemented
        if self.has_offset or other.has_offset:
            raise OffsetUnitError(f"cannot divide {self.name} by {other.name}: offset unit")
        exps: dict[str, int] = {}
        for sym, exp in self.terms:
            exps[sym] = exps.get(sym, 0) + exp
        for sym, exp in other.terms:
            exps[sym] = exps.get(sym, 0) - exp
        terms = tuple((sym, exp) for sym, exp in exps.items() if exp)
        return Unit(
            format_terms(terms), self.scale / other.scale, self.dimension / other.dimension, 0.0, terms
        )

    def __pow__(self, n: int) -> Unit:
        """Return the unit raised to the integer power `n`.

        Every term exponent is multiplied by `n` (``n == 0`` gives the
        dimensionless unit ``"1"`` with no terms), the scale is raised to `n`, the
        dimension too. The name is ``format_terms`` of the new terms.

        Raises:
            TypeError: if `n` is not an ``int`` (``bool`` is rejected too).
            OffsetUnitError: if the unit has an offset.
        """
        if not isinstance(n, int) or isinstance(n, bool):
            raise TypeError(f"unit exponent must be an int, got {n!r}")
        if self.has_offset:
            raise OffsetUnitError(f"cannot raise {self.name} (a unit with an offset) to a power")
        terms = tuple((sym, exp * n) for sym, exp in self.terms if exp * n)
        return Unit(format_terms(terms), self.scale**n, self.dimension**n, 0.0, terms)


def format_terms(terms: Terms) -> str:
    """Write unit terms as a unit expression.

    Terms with a positive exponent form the numerator, joined by ``"*"`` in the
    given order; an exponent other than 1 is written ``"^n"``. Terms with a
    negative exponent form the denominator, written with positive exponents after
    a ``"/"``: a single denominator term as ``"/s^2"``, several as ``"/(kg*K)"``.
    An empty numerator is written ``"1"`` (``"1/s"``). Terms with exponent 0 are
    ignored; no terms at all give ``"1"``.

    >>> format_terms((("kg", 1), ("m", 1), ("s", -2)))
    'kg*m/s^2'
    >>> format_terms((("J", 1), ("kg", -1), ("K", -1)))
    'J/(kg*K)'
    """
    def term(sym: str, exp: int) -> str:
        return sym if exp == 1 else f"{sym}^{exp}"

    num = [term(s, e) for s, e in terms if e > 0]
    den = [term(s, -e) for s, e in terms if e < 0]
    out = "*".join(num) if num else "1"
    if len(den) == 1:
        out += "/" + den[0]
    elif den:
        out += "/(" + "*".join(den) + ")"
    return out


def si_unit(dimension: Dimension) -> Unit:
    """Return the coherent SI unit of `dimension`, built from base units.

    Its terms are the SI base units of `SI_BASE_SYMBOLS` (in that order: kg, m, s,
    A, K, mol, cd) with the exponents of `dimension`, skipping zeros; its scale is
    1.0, its offset 0, and its name ``format_terms(terms)``. The dimensionless
    dimension gives the unit ``"1"`` with no terms.

    >>> si_unit(Dimension(mass=1, length=2, time=-2)).name
    'kg*m^2/s^2'
    """
    terms = tuple(
        (sym, getattr(dimension, dim)) for sym, dim in SI_BASE_SYMBOLS if getattr(dimension, dim)
    )
    return Unit(format_terms(terms), 1.0, dimension, 0.0, terms)


ONE = Unit("1", 1.0, DIMENSIONLESS, 0.0, ())
"""The dimensionless unit (pure numbers)."""
