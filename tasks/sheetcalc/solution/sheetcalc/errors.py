"""Exception types raised by sheetcalc.

Spreadsheet-level problems (division by zero, a bad reference inside a
formula, a circular reference, ...) are *not* exceptions: they are
:class:`sheetcalc.values.CellError` values stored in cells.  Exceptions are
reserved for misuse of the API: malformed addresses and formulas that cannot
be parsed at all.
"""

from __future__ import annotations


class SheetcalcError(Exception):
    """Base class of every exception raised by sheetcalc."""


class AddressError(SheetcalcError, ValueError):
    """A cell address or range is malformed, or lies outside the sheet."""


class FormulaError(SheetcalcError, ValueError):
    """A formula cannot be tokenized or parsed.

    ``position`` is the 0-based index in the formula text where the problem
    was found (``None`` when unknown).
    """

    def __init__(self, message: str, position: int | None = None):
        super().__init__(message)
        self.message = message
        self.position = position

    def __str__(self) -> str:
        if self.position is None:
            return self.message
        return f"{self.message} (at position {self.position})"


class LexError(FormulaError):
    """The formula text contains something that is not a valid token."""


class ParseError(FormulaError):
    """The tokens of a formula do not form a valid expression."""
