"""sheetcalc: a small spreadsheet engine.

Quick start::

    >>> from sheetcalc import Sheet
    >>> s = Sheet()
    >>> s.set_cell("A1", "10")
    []
    >>> s.set_cell("A2", "=A1*2")
    ['A2']
    >>> s.get_value("A2")
    20.0

See the README for the module map.
"""

from .address import CellRef, RangeRef, column_index, column_letters, format_cell, parse_cell, parse_range
from .csvio import export_csv, import_csv
from .errors import AddressError, FormulaError, LexError, ParseError, SheetcalcError
from .formatter import format_formula
from .functions import FUNCTIONS, FunctionSpec
from .lexer import Token, tokenize
from .parser import parse
from .sheet import Sheet
from .values import CellError, RangeValue

__all__ = [
    "AddressError",
    "CellError",
    "CellRef",
    "FUNCTIONS",
    "FormulaError",
    "FunctionSpec",
    "LexError",
    "ParseError",
    "RangeRef",
    "RangeValue",
    "Sheet",
    "SheetcalcError",
    "Token",
    "column_index",
    "column_letters",
    "export_csv",
    "format_cell",
    "format_formula",
    "import_csv",
    "parse",
    "parse_cell",
    "parse_range",
    "tokenize",
]
