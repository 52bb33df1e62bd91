"""Text functions: CONCAT, LEN, UPPER, LOWER, LEFT, RIGHT, MID, TRIM.

Arguments are reduced to scalars and converted with
:func:`~sheetcalc.values.to_text` (numbers as displayed: ``LEN(12.50)`` is
``4`` because ``12.5`` shows as ``"12.5"``).  Counts are coerced with
:func:`~sheetcalc.values.to_number` and truncated toward zero.  Errors
propagate, the text argument first.
"""

from __future__ import annotations

from ..values import VALUE, CellError, as_scalar, to_number, to_text
from .helpers import iter_args


def _text(value: object) -> str | CellError:
    return to_text(as_scalar(value))


def _count(value: object) -> int | CellError:
    n = to_number(as_scalar(value))
    if isinstance(n, CellError):
        return n
    return int(n)


def fn_concat(*args: object) -> str | CellError:
    """``CONCAT(value, ...)``: join the text of every value, ranges row-major.

    Empty cells contribute ``""``; the first error found propagates.
    """
    out = []
    for v, _ in iter_args(args):
        t = to_text(v)
        if isinstance(t, CellError):
            return t
        out.append(t)
    return "".join(out)


def fn_len(text: object) -> float | CellError:
    """``LEN(text)``: number of characters of the text form of the value."""
    t = _text(text)
    if isinstance(t, CellError):
        return t
    return float(len(t))


def fn_upper(text: object) -> str | CellError:
    """``UPPER(text)``: the text in upper case (``UPPER(TRUE)`` is ``"TRUE"``)."""
    t = _text(text)
    if isinstance(t, CellError):
        return t
    return t.upper()


def fn_lower(text: object) -> str | CellError:
    """``LOWER(text)``: the text in lower case (``LOWER(TRUE)`` is ``"true"``)."""
    t = _text(text)
    if isinstance(t, CellError):
        return t
    return t.lower()


def fn_left(text: object, count: object = 1.0) -> str | CellError:
    """``LEFT(text, [count])``: the first ``count`` characters (default 1).

    A count larger than the text gives the whole text; a negative count
    gives ``#VALUE!``.
    """
    t = _text(text)
    if isinstance(t, CellError):
        return t
    n = _count(count)
    if isinstance(n, CellError):
        return n
    if n < 0:
        return VALUE
    return t[:n]


def fn_right(text: object, count: object = 1.0) -> str | CellError:
    """``RIGHT(text, [count])``: the last ``count`` characters (default 1).

    ``RIGHT(x, 0)`` is ``""``; a count larger than the text gives the whole
    text; a negative count gives ``#VALUE!``.
    """
    t = _text(text)
    if isinstance(t, CellError):
        return t
    n = _count(count)
    if isinstance(n, CellError):
        return n
    if n < 0:
        return VALUE
    return t[len(t) - n:] if n else ""


def fn_mid(text: object, start: object, count: object) -> str | CellError:
    """``MID(text, start, count)``: ``count`` characters from the 1-based ``start``.

    A start past the end gives ``""``; ``start < 1`` or ``count < 0`` gives
    ``#VALUE!``.  Errors propagate in argument order.
    """
    t = _text(text)
    if isinstance(t, CellError):
        return t
    s = _count(start)
    if isinstance(s, CellError):
        return s
    n = _count(count)
    if isinstance(n, CellError):
        return n
    if s < 1 or n < 0:
        return VALUE
    return t[s - 1 : s - 1 + n]


def fn_trim(text: object) -> str | CellError:
    """``TRIM(text)``: remove leading and trailing spaces and collapse runs
    of spaces inside the text to one space.  Only the space character
    ``" "`` is affected (tabs and newlines are kept).
    """
    t = _text(text)
    if isinstance(t, CellError):
        return t
    return " ".join(part for part in t.split(" ") if part)
