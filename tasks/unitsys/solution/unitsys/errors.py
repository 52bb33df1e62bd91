"""Exceptions raised by unitsys. All derive from `UnitError`."""


class UnitError(Exception):
    """Base class of every unitsys error."""


class DimensionError(UnitError):
    """An operation mixes incompatible dimensions (e.g. adding metres to seconds)."""


class OffsetUnitError(UnitError):
    """An operation is ambiguous for a unit with an offset (degC, degF)."""


class UndefinedUnitError(UnitError, LookupError):
    """A unit symbol is not defined in the registry."""


class UnitParseError(UnitError, ValueError):
    """A unit expression or quantity string is malformed."""
