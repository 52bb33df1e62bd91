"""Argument handling shared by the function library.

Functions receive their arguments already evaluated: scalar values or
:class:`~sheetcalc.values.RangeValue` grids.  Spreadsheet functions treat
values differently depending on whether they were given directly or found
inside a range; the helpers here implement those rules.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from ..values import VALUE, CellError, RangeValue, is_number, to_number


def iter_args(args: Iterable[object]) -> Iterator[tuple[object, bool]]:
    """Yield ``(value, from_range)`` for every argument, expanding ranges row-major."""
    for arg in args:
        if isinstance(arg, RangeValue):
            for v in arg.values():
                yield v, True
        else:
            yield arg, False


def as_grid(value: object) -> RangeValue:
    """A :class:`RangeValue` as is; any other value as a 1x1 grid holding it."""
    if isinstance(value, RangeValue):
        return value
    return RangeValue(((value,),))


def numeric_args(args: Iterable[object]) -> list[float] | CellError:
    """Collect the numbers an aggregate function (SUM, AVERAGE, MIN, ...) works on.

    Arguments are scanned in order (ranges row-major):

    * any error, direct or inside a range, is returned at once (the first
      one found wins);
    * inside a range only numbers count: text, booleans and empty cells are
      skipped;
    * a direct argument counts when it is a number or a boolean (``TRUE`` is
      1), or text that :func:`~sheetcalc.values.to_number` accepts (``"3"``);
      other text gives ``#VALUE!``; a direct empty value (``None``, from a
      reference to an empty cell) is skipped.

    Returns the list of numbers as floats, in order.
    """
    out: list[float] = []
    for v, from_range in iter_args(args):
        if isinstance(v, CellError):
            return v
        if from_range:
            if is_number(v):
                out.append(float(v))
            continue
        if v is None:
            continue
        n = to_number(v)
        if isinstance(n, CellError):
            return VALUE
        out.append(n)
    return out


def wildcard_match(pattern: str, text: str) -> bool:
    """Whole-string, case-insensitive match with spreadsheet wildcards.

    ``*`` matches any run of characters (including none), ``?`` exactly one
    character, and ``~`` escapes the next character (``~*``, ``~?``,
    ``~~``); a ``~`` at the very end is a literal ``~``.  Every other
    character matches itself, ignoring case.  ``wildcard_match("a*", "ABC")``
    is ``True``; ``wildcard_match("a?", "abc")`` is ``False``.
    """
    parts = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "~" and i + 1 < len(pattern):
            parts.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        if ch == "*":
            parts.append(".*")
        elif ch == "?":
            parts.append(".")
        else:
            parts.append(re.escape(ch))
        i += 1
    return re.fullmatch("".join(parts), text, re.IGNORECASE | re.DOTALL) is not None
