"""One-call conversion between unit expressions."""

from __future__ import annotations

from unitsys.parse import parse_unit
from unitsys.quantity import Quantity
from unitsys.registry import UnitRegistry


def convert(value: float, from_unit: str, to_unit: str, registry: UnitRegistry | None = None) -> float:
    """Convert the number `value` from unit expression `from_unit` to `to_unit`.

    Both expressions are parsed with `parse_unit` (default registry when
    `registry` is None) and the conversion follows `Quantity.to`, so offsets are
    honoured: ``convert(100, "degC", "degF")`` is 212.0 (up to float rounding). Returns a ``float``.

    Raises:
        DimensionError: if the units have different dimensions.
        UnitParseError, UndefinedUnitError: for bad unit expressions.
    """
    source = parse_unit(from_unit, registry)
    target = parse_unit(to_unit, registry)
    return float(Quantity(value, source).to(target).value)
