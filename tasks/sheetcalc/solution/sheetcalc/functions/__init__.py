"""The built-in function library.

Every spreadsheet function is a plain Python function ``fn_<name>`` that
receives already-evaluated arguments (scalar values or
:class:`~sheetcalc.values.RangeValue`) and returns a value; spreadsheet
errors are returned as :class:`~sheetcalc.values.CellError`, never raised.
:data:`FUNCTIONS` maps each upper-case name to a :class:`FunctionSpec`.
"""

from .registry import FUNCTIONS, FunctionSpec

__all__ = ["FUNCTIONS", "FunctionSpec"]
