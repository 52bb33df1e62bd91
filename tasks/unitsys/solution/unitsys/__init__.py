"""unitsys: units of measure with dimension checking.

Layers: `dimension` (exponent vectors) -> `unit` (scale, offset, terms) ->
`registry` (named units and SI prefixes) -> `parse` (unit expressions and
quantity strings) -> `quantity` (arithmetic, conversion, formatting) ->
`convert` (one-call conversion).
"""

from unitsys.convert import convert
from unitsys.dimension import (
    AMOUNT,
    BASE_DIMENSIONS,
    CURRENT,
    DIMENSIONLESS,
    LENGTH,
    LUMINOSITY,
    MASS,
    TEMPERATURE,
    TIME,
    Dimension,
)
from unitsys.errors import (
    DimensionError,
    OffsetUnitError,
    UndefinedUnitError,
    UnitError,
    UnitParseError,
)
from unitsys.parse import Token, parse_quantity, parse_unit, tokenize_unit
from unitsys.quantity import Quantity
from unitsys.registry import PREFIXES, UnitRegistry, default_registry, get_registry
from unitsys.unit import ONE, Unit, format_terms, si_unit

__all__ = [
    "AMOUNT",
    "BASE_DIMENSIONS",
    "CURRENT",
    "DIMENSIONLESS",
    "LENGTH",
    "LUMINOSITY",
    "MASS",
    "ONE",
    "PREFIXES",
    "TEMPERATURE",
    "TIME",
    "Dimension",
    "DimensionError",
    "OffsetUnitError",
    "Quantity",
    "Token",
    "UndefinedUnitError",
    "Unit",
    "UnitError",
    "UnitParseError",
    "UnitRegistry",
    "convert",
    "default_registry",
    "format_terms",
    "get_registry",
    "parse_quantity",
    "parse_unit",
    "si_unit",
    "tokenize_unit",
]
