"""Lookup functions: VLOOKUP, INDEX, MATCH.

Keys are compared only with keys of the same kind as the lookup value
(numbers with numbers, text with text -- case-insensitively -- booleans
with booleans); keys of another kind, empty keys and error keys are skipped.
A range argument may also be a single value, which acts as a 1x1 range.
"""

from __future__ import annotations

from ..values import NA, REF, VALUE, CellError, as_scalar, compare_values, is_number, to_bool, to_number
from .helpers import as_grid, wildcard_match


def _kind(v: object) -> int | None:
    if isinstance(v, bool):
        return 2
    if is_number(v):
        return 0
    if isinstance(v, str):
        return 1
    return None


def _exact(value: object, keys: list[object]) -> int | None:
    kind = _kind(value)
    for i, k in enumerate(keys):
        if _kind(k) != kind:
            continue
        if kind == 1:
            if wildcard_match(value, k):  # type: ignore[arg-type]
                return i
        elif compare_values(k, value) == 0:
            return i
    return None


def _approx(value: object, keys: list[object], descending: bool = False) -> int | None:
    kind = _kind(value)
    best = None
    for i, k in enumerate(keys):
        if _kind(k) != kind:
            continue
        c = compare_values(k, value)
        if (c < 0) if descending else (c > 0):
            break
        best = i
    return best


def fn_vlookup(lookup_value: object, table: object, col_index: object, approximate: object = True) -> object:
    """``VLOOKUP(value, table, col_index, [approximate])``.

    Finds a row of ``table`` by its first column and returns the value in
    column ``col_index`` (1-based) of that row (``None`` for an empty cell).

    * ``approximate`` false: the first row whose key equals ``value``; text
      matches case-insensitively with wildcards (``*``, ``?``, ``~``), see
      :func:`~sheetcalc.functions.helpers.wildcard_match`.
    * ``approximate`` true (the default; the first column is assumed
      sorted ascending): keys are scanned top to bottom and the scan stops
      at the first comparable key greater than ``value``; the last
      comparable key ``<= value`` before that gives the row.

    Errors: an error in ``value``, ``table``, ``col_index`` or
    ``approximate`` propagates; an empty lookup value or no matching row
    gives ``#N/A``; ``col_index < 1`` gives ``#VALUE!``; ``col_index``
    beyond the table width gives ``#REF!``.
    """
    value = as_scalar(lookup_value)
    if isinstance(value, CellError):
        return value
    if isinstance(table, CellError):
        return table
    grid = as_grid(table)
    col = to_number(as_scalar(col_index))
    if isinstance(col, CellError):
        return col
    col = int(col)
    approx = to_bool(as_scalar(approximate))
    if isinstance(approx, CellError):
        return approx
    if col < 1:
        return VALUE
    if col > grid.width:
        return REF
    if value is None:
        return NA
    keys = [row[0] for row in grid.rows]
    idx = _approx(value, keys) if approx else _exact(value, keys)
    if idx is None:
        return NA
    return grid.rows[idx][col - 1]


def fn_index(array: object, row: object, col: object = None) -> object:
    """``INDEX(range, row, [col])``: the value at a 1-based position.

    With ``col`` omitted, a single-row range is indexed by column (``INDEX(
    A1:E1, 3)`` is ``C1``) and any other range by row in its first column.
    Positions are coerced with :func:`~sheetcalc.values.to_number` and
    truncated.  A position below 1 gives ``#VALUE!``; beyond the range gives
    ``#REF!``.  Errors in the arguments propagate.  An empty cell gives
    ``None``.
    """
    if isinstance(array, CellError):
        return array
    grid = as_grid(array)
    r = to_number(as_scalar(row))
    if isinstance(r, CellError):
        return r
    if col is None:
        if grid.height == 1 and grid.width > 1:
            r, c = 1.0, r
        else:
            c = 1.0
    else:
        c = to_number(as_scalar(col))
        if isinstance(c, CellError):
            return c
    ri, ci = int(r), int(c)
    if ri < 1 or ci < 1:
        return VALUE
    if ri > grid.height or ci > grid.width:
        return REF
    return grid.rows[ri - 1][ci - 1]


def fn_match(lookup_value: object, lookup_range: object, match_type: object = 1.0) -> float | CellError:
    """``MATCH(value, range, [match_type])``: the 1-based position of ``value``.

    ``range`` must be a single row or a single column (otherwise ``#N/A``).
    ``match_type`` (default 1) is coerced to a number:

    * ``0``: the first key equal to ``value`` (text case-insensitive, with
      wildcards, as in exact VLOOKUP);
    * positive: the last key ``<= value``, scanning an ascending list and
      stopping at the first comparable key greater than ``value``;
    * negative: the last key ``>= value``, scanning a descending list and
      stopping at the first comparable key smaller than ``value``.

    No match (or an empty lookup value) gives ``#N/A``; errors in the
    arguments propagate.
    """
    value = as_scalar(lookup_value)
    if isinstance(value, CellError):
        return value
    if isinstance(lookup_range, CellError):
        return lookup_range
    grid = as_grid(lookup_range)
    mt = to_number(as_scalar(match_type))
    if isinstance(mt, CellError):
        return mt
    if grid.height == 1:
        keys = list(grid.rows[0])
    elif grid.width == 1:
        keys = [row[0] for row in grid.rows]
    else:
        return NA
    if value is None:
        return NA
    if mt == 0:
        idx = _exact(value, keys)
    else:
        idx = _approx(value, keys, descending=mt < 0)
    if idx is None:
        return NA
    return float(idx + 1)
