"""Type inference for CSV cells.

Every cell of a CSV file is a string. csvql gives each *column* one type, the
narrowest of ``"int"``, ``"float"``, ``"bool"`` and ``"str"`` that fits every
non-empty cell of the column, and converts the cells to Python values of that
type (empty cells become ``None``, the SQL NULL).

Type names are plain strings: ``"null"`` (only for a single empty cell),
``"int"``, ``"float"``, ``"bool"`` and ``"str"``.
"""

from __future__ import annotations

import re

_INT = re.compile(r"[+-]?\d+")
_FLOAT = re.compile(r"[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?")


def infer_type(cell: str) -> str:
    """Return the type name of a single cell.

    The cell is first stripped of surrounding whitespace. Then, in this order:

    - ``""`` -> ``"null"``;
    - an optional sign followed by decimal digits (``"42"``, ``"-7"``, ``"+0"``) -> ``"int"``;
    - an optional sign, digits with a decimal point and/or an exponent
      (``"3.5"``, ``"-.5"``, ``"1."``, ``"1e3"``, ``"2.5E-2"``) -> ``"float"``;
      the words ``inf`` and ``nan`` are *not* floats;
    - ``"true"`` or ``"false"`` in any letter case -> ``"bool"``;
    - anything else -> ``"str"``.
    """
    s = cell.strip()
    if s == "":
        return "null"
    if _INT.fullmatch(s):
        return "int"
    if _FLOAT.fullmatch(s):
        return "float"
    if s.lower() in ("true", "false"):
        return "bool"
    return "str"


def unify_types(a: str, b: str) -> str:
    """Return the narrowest type name that can hold values of both ``a`` and ``b``.

    - equal types unify to themselves;
    - ``"null"`` unifies with any type ``t`` to ``t``;
    - ``"int"`` and ``"float"`` unify to ``"float"``;
    - every other pair (e.g. ``"int"`` and ``"bool"``) unifies to ``"str"``.

    The operation is commutative.
    """
    if a == b:
        return a
    if a == "null":
        return b
    if b == "null":
        return a
    if {a, b} == {"int", "float"}:
        return "float"
    return "str"


def infer_column(cells: list[str]) -> str:
    """Return the type of a column: :func:`unify_types` folded over
    :func:`infer_type` of every cell, starting from ``"null"``.

    A column whose cells are all empty (or that has no cells) is ``"str"``.
    """
    t = "null"
    for cell in cells:
        t = unify_types(t, infer_type(cell))
    return "str" if t == "null" else t


def coerce(cell: str, type_name: str):
    """Convert one cell to the Python value for a column of type ``type_name``.

    - a cell that is empty after stripping whitespace is ``None`` for every type;
    - ``"int"``: ``int`` of the stripped cell (``"+3"`` -> ``3``);
    - ``"float"``: ``float`` of the stripped cell (``"1"`` -> ``1.0``);
    - ``"bool"``: ``True`` for ``"true"``, ``False`` for ``"false"``, any letter case;
    - ``"str"``: the cell unchanged (not stripped).

    Raises ``ValueError`` if the cell is not a valid value of the type (e.g.
    ``coerce("abc", "int")`` or ``coerce("yes", "bool")``) or if ``type_name`` is
    not one of ``"int"``, ``"float"``, ``"bool"``, ``"str"``.
    """
    if type_name not in ("int", "float", "bool", "str"):
        raise ValueError(f"unknown type {type_name!r}")
    s = cell.strip()
    if s == "":
        return None
    if type_name == "str":
        return cell
    if type_name == "int":
        if not _INT.fullmatch(s):
            raise ValueError(f"not an int: {cell!r}")
        return int(s)
    if type_name == "float":
        if not _FLOAT.fullmatch(s):
            raise ValueError(f"not a float: {cell!r}")
        return float(s)
    low = s.lower()
    if low == "true":
        return True
    if low == "false":
        return False
    raise ValueError(f"not a bool: {cell!r}")
